//! `contract-field`: the output schema ([`crate::output_schema::find`])
//! requires a field ([`crate::output_schema::required_fields`]) that the
//! prompt's own text never names: the schema changed and the prompt was
//! not told to produce the field (the "contract first" check of the
//! prompts-as-code source document, docs/DECISIONS.md D161).
//!
//! The prompt's text: the `text`, `system_prompt`, `long_text` and `memory`
//! segments of system and user messages, with `{{variables}}` substituted.
//! Not counted: the schema itself (the provider sends it, but a rule that
//! the schema satisfies could never fail), tool declarations, documents,
//! assistant and tool messages.
//!
//! A field is named ([`names`]) when its words appear as one identifier or
//! as consecutive words, in any case: `confidence_score` is named by
//! `confidence_score`, `confidenceScore`, `Confidence score`,
//! `confidence-score`; not by `score` alone, `confidence_scores` or
//! `my_confidence_score`. A field whose name holds letters outside ASCII
//! (`名称`) is named by the name anywhere in the text, ignoring case.

use std::collections::HashMap;

use serde_json::Value;

use super::{Ctx, Raw};
use crate::diag::Rule;
use crate::output_schema::{find, required_fields};
use crate::template::{for_each_text_field, Vars};
use crate::types::{Envelope, Role, Segment};

pub fn check(ctx: &Ctx) -> Vec<Raw> {
    let Some(found) = find(ctx.envelope) else { return Vec::new() };
    let fields = required_fields(&found.schema);
    if fields.is_empty() {
        return Vec::new();
    }
    let text = prompt_text(ctx.envelope);
    let index = Index::new(&text);
    // A Bedrock schema is a JSON string: its fields have no path of their own.
    let in_string = ctx
        .envelope
        .params
        .as_ref()
        .and_then(|p| p.get("outputConfig")?.pointer("/textFormat/structure/jsonSchema/schema"))
        .is_some_and(Value::is_string)
        && found.at.starts_with("params.outputConfig.");
    fields
        .into_iter()
        .filter(|f| !index.names(&f.name))
        .map(|f| {
            let path = if in_string { found.at.clone() } else { format!("{}{}", found.at, path_in(&found.schema, &f.pointer)) };
            Raw::new(
                Rule::ContractField,
                path,
                format!(
                    "the output schema requires `{}` (at {} in {}) but the prompt text never names it",
                    f.name,
                    f.pointer,
                    found.at
                ),
            )
            .hint(format!(
                "tell the model to produce it in a system or user message (`{}: …`, \"generate {}\"), or drop it from `required`",
                f.name, f.name
            ))
        })
        .collect()
}

/// The text of the system and user messages' prose segments, variables
/// substituted, one segment a paragraph.
pub fn prompt_text(env: &Envelope) -> String {
    let vars = Vars::of(env);
    let mut out = String::new();
    for m in env.messages.iter().filter(|m| matches!(m.role, Role::System | Role::User)) {
        for s in &m.segments {
            if matches!(s, Segment::Text(_) | Segment::SystemPrompt(_) | Segment::LongText(_) | Segment::Memory(_)) {
                for_each_text_field(s, |_, t| {
                    out.push_str(&vars.apply(t));
                    out.push_str("\n\n");
                });
            }
        }
    }
    out
}

/// The JSON Pointer `pointer` into `schema` written as a diagnostic path
/// suffix (`.properties.findings.items`, `[0]` for array indexes).
fn path_in(schema: &Value, pointer: &str) -> String {
    let mut out = String::new();
    let mut node = Some(schema);
    for token in pointer.split('/').skip(1) {
        let key = token.replace("~1", "/").replace("~0", "~");
        match node {
            Some(Value::Array(a)) => {
                let i = key.parse::<usize>().ok();
                out.push_str(&format!("[{key}]"));
                node = i.and_then(|i| a.get(i));
            }
            _ => {
                out.push('.');
                out.push_str(&key);
                node = node.and_then(|n| n.get(&key));
            }
        }
    }
    out
}

/// Whether `c` continues an identifier (`confidence_score`, `remediation-steps`).
fn joins(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// One word of a text: lowercase, with whether an identifier starts before
/// it and ends after it, and whether the next word follows as part of the
/// same name (a camelCase boundary, or at most three of space, tab, `_`, `-`).
struct Word {
    text: String,
    starts: bool,
    ends: bool,
    joined_to_next: bool,
}

/// The words of `s`: runs of letters and digits, split where a lowercase
/// letter or digit is followed by an uppercase one (`recipeName`).
fn words(s: &str) -> Vec<Word> {
    let chars: Vec<char> = s.chars().collect();
    let mut out: Vec<Word> = Vec::new();
    let mut i = 0;
    let mut gap = String::new();
    while i < chars.len() {
        if !chars[i].is_alphanumeric() {
            gap.push(chars[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < chars.len()
            && chars[i].is_alphanumeric()
            && !(chars[i].is_uppercase() && (chars[i - 1].is_lowercase() || chars[i - 1].is_numeric()))
        {
            i += 1;
        }
        let camel_next = i < chars.len() && chars[i].is_alphanumeric();
        if let Some(prev) = out.last_mut() {
            let camel_here = gap.is_empty();
            prev.joined_to_next =
                camel_here || (gap.chars().count() <= 3 && gap.chars().all(|c| matches!(c, ' ' | '\t' | '_' | '-')));
        }
        let starts = start == 0 || !joins(chars[start - 1]);
        let ends = !camel_next && chars.get(i).is_none_or(|c| !joins(*c));
        out.push(Word {
            text: chars[start..i].iter().flat_map(|c| c.to_lowercase()).collect(),
            starts,
            ends,
            joined_to_next: false,
        });
        gap.clear();
    }
    out
}

/// The prompt text's words, indexed by word.
struct Index {
    text_lower: String,
    words: Vec<Word>,
    at: HashMap<String, Vec<usize>>,
}

impl Index {
    fn new(text: &str) -> Index {
        let words = words(text);
        let mut at: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, w) in words.iter().enumerate() {
            at.entry(w.text.clone()).or_default().push(i);
        }
        Index { text_lower: text.to_lowercase(), words, at }
    }

    /// Whether the text names the field `name` (see the module's rules).
    fn names(&self, name: &str) -> bool {
        let wanted: Vec<String> = words(name).into_iter().map(|w| w.text).collect();
        if wanted.is_empty() || name.chars().any(|c| c.is_alphanumeric() && !c.is_ascii()) {
            let n = name.trim().to_lowercase();
            return !n.is_empty() && self.text_lower.contains(&n);
        }
        let Some(starts) = self.at.get(&wanted[0]) else { return false };
        starts.iter().any(|&i| {
            let Some(run) = self.words.get(i..i + wanted.len()) else { return false };
            run[0].starts
                && run.iter().zip(&wanted).all(|(w, x)| &w.text == x)
                && run[..run.len() - 1].iter().all(|w| w.joined_to_next)
                && run[run.len() - 1].ends
        })
    }
}

/// Whether `text` names the field `name` (as [`check`] decides).
pub fn names(text: &str, name: &str) -> bool {
    Index::new(text).names(name)
}

#[cfg(test)]
mod tests {
    use super::names;

    #[test]
    fn how_a_field_is_named() {
        for (text, field, named) in [
            ("Return confidence_score: a number", "confidence_score", true),
            ("Give a confidenceScore between 0 and 1", "confidence_score", true),
            ("Add a Confidence Score.", "confidence_score", true),
            ("the confidence-score", "confidence_score", true),
            ("generate recipeName", "recipe_name", true),
            ("generate recipe_name", "recipeName", true),
            ("a score of your confidence", "confidence_score", false),
            ("confidence_scores", "confidence_score", false),
            ("my_confidence_score", "confidence_score", false),
            ("confidence, score", "confidence_score", false),
            ("confidence\n\nscore", "confidence_score", false),
            ("the recipe_name", "name", false),
            ("the recipeName", "name", false),
            ("the names", "name", false),
            ("the recipe name", "name", true),
            ("NAME:", "name", true),
            ("ID of the finding", "id", true),
            ("请输出名称字段", "名称", true),
            ("请输出字段", "名称", false),
            ("", "x", false),
            ("a $ b", "$", true),
        ] {
            assert_eq!(names(text, field), named, "{field:?} in {text:?}");
        }
    }
}
