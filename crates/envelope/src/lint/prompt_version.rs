//! `prompt-version`: with `require_prompt_version = true`, every document
//! must say which version of its prompt it is (`"prompt": {"version": …}`,
//! the prompt-identity extension, docs/EXTENSIONS.md). Off unless the
//! configuration asks: most documents are not prompts kept under version
//! control.

use super::{Ctx, Raw};
use crate::diag::Rule;

pub fn check(ctx: &Ctx) -> Vec<Raw> {
    if !ctx.settings.require_prompt_version || ctx.envelope.prompt_version().is_some() {
        return Vec::new();
    }
    let (path, message) = match ctx.envelope.prompt_name() {
        Some(name) => ("prompt", format!("prompt `{name}` has no version (require_prompt_version = true)")),
        None if ctx.envelope.prompt.is_some() => {
            ("prompt", "the prompt has no version (require_prompt_version = true)".to_string())
        }
        None => ("", "the document has no prompt version (require_prompt_version = true)".to_string()),
    };
    vec![Raw::new(Rule::PromptVersion, path, message)
        .hint("add one at the top level: \"prompt\": {\"name\": \"…\", \"version\": \"1.0.0\"}, and change it whenever the text sent changes (`pep diff` reports `version-not-bumped`)")]
}
