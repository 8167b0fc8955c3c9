//! `version-not-bumped`: the prompt sent changed between the two versions
//! and its version (`prompt.version`, the prompt-identity extension) did not
//! (docs/DECISIONS.md D162).
//!
//! "The prompt sent" is what the model receives of the prompt: each
//! message's role and what it sends (text, its text runs joined as the
//! export joins them, so re-cutting one text into two segments changes
//! nothing; images; calls; results), the tool declarations, and the output
//! schema ([`crate::output_schema::find`]). Not the model, the other
//! settings (`temperature`, …), ids, timestamps or `collapsed`.
//!
//! | before | after | prompt changed | finding |
//! |---|---|---|---|
//! | `v` | `v` | yes | `version-not-bumped` |
//! | `v` | none | yes | `version-not-bumped` (the version was dropped) |
//! | none | none | yes | only when asked (`require`: `pep diff --check-version`) |
//! | none | `v` | yes | none (a version was given) |
//! | any | any | no | none |

use serde_json::Value;

use crate::diag::{Diagnostic, Rule};
use crate::export::{contributions, Piece};
use crate::output_schema;
use crate::types::{Envelope, Role};

/// What the model receives of the prompt, for comparing.
#[derive(PartialEq)]
struct Sent {
    messages: Vec<(Role, Vec<Piece>)>,
    tools: Vec<Value>,
    schema: Option<Value>,
}

fn sent(env: &Envelope) -> Sent {
    let c = contributions(env);
    let messages = c
        .messages
        .into_iter()
        .map(|m| {
            let mut pieces: Vec<Piece> = Vec::new();
            for (_, p) in m.pieces {
                match (pieces.last_mut(), p) {
                    (Some(Piece::Text(t)), Piece::Text(more)) => {
                        t.push_str("\n\n");
                        t.push_str(&more);
                    }
                    (_, p) => pieces.push(p),
                }
            }
            (m.role, pieces)
        })
        .collect();
    Sent { messages, tools: c.tools, schema: output_schema::find(env).map(|o| o.schema) }
}

/// Whether the prompt sent differs between `a` and `b` (see the module).
pub fn prompt_changed(a: &Envelope, b: &Envelope) -> bool {
    sent(a) != sent(b)
}

/// The `version-not-bumped` finding of `b` against the previous version
/// `a`, if any. `require`: two versions that both carry no version count
/// as not bumped too.
pub fn check(a: &Envelope, b: &Envelope, require: bool) -> Option<Diagnostic> {
    let (va, vb) = (a.prompt_version(), b.prompt_version());
    let message = match (va, vb) {
        (Some(x), Some(y)) if x == y => {
            format!("the prompt sent changed but its version did not (still `{y}`)")
        }
        (Some(x), None) => format!("the prompt sent changed and the new version has no prompt version (was `{x}`)"),
        (None, None) if require => "the prompt sent changed and neither version has a prompt version".to_string(),
        _ => return None,
    };
    if !prompt_changed(a, b) {
        return None;
    }
    let path = if b.prompt.is_some() { "prompt.version" } else { "" };
    let mut d = Diagnostic::new(Rule::VersionNotBumped, path, message);
    d.hint = Some(match va {
        Some(x) => format!("give the new version a new `prompt.version` (after `{x}`)"),
        None => {
            "give both a `prompt.version` (\"prompt\": {\"version\": \"1.0.0\"}) and change it with the text".into()
        }
    });
    Some(d)
}
