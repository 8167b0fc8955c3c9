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

use std::collections::{HashMap, HashSet};

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
    let all: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    let index = Index::new(&text, &all);
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

/// One word of a text (lowercase), its position among the text's words,
/// whether an identifier starts before it and ends after it, and whether
/// the next word follows as part of the same name (a camelCase boundary, or
/// at most three of space, tab, `_`, `-`).
struct Word {
    ord: usize,
    text: String,
    starts: bool,
    ends: bool,
    joined_to_next: bool,
}

/// Calls `f` for each word of `s`: runs of letters and digits, split where a
/// lowercase letter or digit is followed by an uppercase one (`recipeName`).
/// `f` gets the word lowercased (in a reused buffer), whether an identifier
/// starts before it and ends after it, and whether it is joined to the word
/// before. One pass, no copy of the text.
fn each_word(s: &str, mut f: impl FnMut(&str, bool, bool, bool)) {
    let mut it = s.chars().peekable();
    let mut prev: Option<char> = None;
    let mut gap_len = 0usize;
    let mut gap_ok = true;
    let mut seen_word = false;
    let mut buf = String::new();
    while let Some(c) = it.next() {
        if !c.is_alphanumeric() {
            gap_len += 1;
            gap_ok &= matches!(c, ' ' | '\t' | '_' | '-');
            prev = Some(c);
            continue;
        }
        let starts = prev.is_none_or(|p| !joins(p));
        let joined = seen_word && ((gap_len == 0) || (gap_len <= 3 && gap_ok));
        buf.clear();
        buf.extend(c.to_lowercase());
        let mut last = c;
        while let Some(&n) = it.peek() {
            if !n.is_alphanumeric() || (n.is_uppercase() && (last.is_lowercase() || last.is_numeric())) {
                break;
            }
            buf.extend(n.to_lowercase());
            last = n;
            it.next();
        }
        let ends = it.peek().is_none_or(|n| !joins(*n));
        f(&buf, starts, ends, joined);
        seen_word = true;
        prev = Some(last);
        gap_len = 0;
        gap_ok = true;
    }
}

/// The words of a field's name.
fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_word(name, |w, _, _, _| out.push(w.to_string()));
    out
}

/// The prompt text's words that occur in some field name, with their
/// positions (the others are only counted): a long text costs one pass
/// and little memory.
struct Index<'t> {
    text: &'t str,
    words: Vec<Word>,
    at: HashMap<String, Vec<usize>>,
}

impl<'t> Index<'t> {
    fn new(text: &'t str, names: &[&str]) -> Index<'t> {
        let wanted: HashSet<String> = names.iter().flat_map(|n| name_words(n)).collect();
        let mut words: Vec<Word> = Vec::new();
        let mut ord = 0usize;
        each_word(text, |w, starts, ends, joined| {
            if let Some(last) = words.last_mut() {
                if last.ord + 1 == ord {
                    last.joined_to_next = joined;
                }
            }
            if wanted.contains(w) {
                words.push(Word { ord, text: w.to_string(), starts, ends, joined_to_next: false });
            }
            ord += 1;
        });
        let mut at: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, w) in words.iter().enumerate() {
            at.entry(w.text.clone()).or_default().push(i);
        }
        Index { text, words, at }
    }

    /// Whether the text names the field `name` (see the module's rules).
    fn names(&self, name: &str) -> bool {
        let wanted = name_words(name);
        if wanted.is_empty() || name.chars().any(|c| c.is_alphanumeric() && !c.is_ascii()) {
            let n = name.trim().to_lowercase();
            return !n.is_empty() && contains_ignoring_case(self.text, &n);
        }
        let Some(starts) = self.at.get(&wanted[0]) else { return false };
        starts.iter().any(|&i| {
            let Some(run) = self.words.get(i..i + wanted.len()) else { return false };
            run[0].starts
                && run.iter().zip(&wanted).all(|(w, x)| &w.text == x)
                && run.windows(2).all(|p| p[0].ord + 1 == p[1].ord && p[0].joined_to_next)
                && run[run.len() - 1].ends
        })
    }
}

/// Whether `text` holds `needle` (already lowercase), ignoring case, line by
/// line (no copy of the whole text).
fn contains_ignoring_case(text: &str, needle: &str) -> bool {
    text.lines().any(|l| l.to_lowercase().contains(needle))
}

/// Whether `text` names the field `name` (as [`check`] decides).
pub fn names(text: &str, name: &str) -> bool {
    Index::new(text, &[name]).names(name)
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

    #[test]
    fn a_long_text_is_one_pass() {
        // 6 MB of words and one mention at the end, in a camelCase run.
        let mut text = "lorem ipsum dolor_sit-amet ".repeat(220_000);
        text.push_str("then set theConfidenceScore");
        assert!(!names(&text, "confidence_score"), "`theConfidenceScore` is another identifier");
        text.push_str(" and confidence score");
        assert!(names(&text, "confidence_score"));
        assert!(names(&text, "dolor_sit_amet") && !names(&text, "sit_amet"));
    }
}
