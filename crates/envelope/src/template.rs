//! Template variables: `{{ name }}` placeholders and their substitution.
//!
//! The placeholder grammar is the spec's `\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`
//! (§4), matched left to right without overlaps, as a regex engine would.
//! `\s` is Unicode white space (`char::is_whitespace`).

use std::collections::HashMap;
use std::ops::Range;

use crate::types::{Envelope, Segment};

/// The session's template variables: every `static_var` of the envelope,
/// wherever it stands (the first definition of a name wins; a conflicting
/// second one is a validation error).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vars {
    map: HashMap<String, String>,
}

impl Vars {
    pub fn of(envelope: &Envelope) -> Vars {
        let mut map = HashMap::new();
        for m in &envelope.messages {
            for s in &m.segments {
                if let Segment::StaticVar(v) = s {
                    map.entry(v.name.clone()).or_insert_with(|| v.value.clone());
                }
            }
        }
        Vars { map }
    }

    /// The value of a variable.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(name).map(String::as_str)
    }

    /// `text` with every known placeholder replaced.
    pub fn apply(&self, text: &str) -> String {
        if self.map.is_empty() || !text.contains("{{") {
            return text.to_string();
        }
        substitute(text, &|name: &str| self.get(name))
    }
}

/// Calls `f(field, text)` for every field of `segment` that placeholders are
/// substituted in (§4): the prose the model reads. Not visited, by the spec:
/// tool-call arguments, tool results, URLs, file names and JSON Schemas;
/// nor a `static_var` itself, nor tool names. `field` is the path below the
/// segment (`content`, `items[2].description`).
pub fn for_each_text_field(segment: &Segment, mut f: impl FnMut(&str, &str)) {
    match segment {
        Segment::Text(s) => f("content", &s.content),
        Segment::SystemPrompt(s) => f("content", &s.content),
        Segment::LongText(s) => f("content", &s.content),
        Segment::Memory(s) => {
            for (k, it) in s.items.iter().enumerate() {
                f(&format!("items[{k}].title"), &it.title);
                f(&format!("items[{k}].content"), &it.content);
            }
        }
        Segment::Skills(s) => {
            for (k, it) in s.items.iter().enumerate() {
                f(&format!("items[{k}].name"), &it.name);
                f(&format!("items[{k}].description"), &it.description);
                if let (true, Some(body)) = (it.is_loaded(), &it.body) {
                    f(&format!("items[{k}].body"), body);
                }
            }
        }
        Segment::ToolOverview(s) => {
            for (k, it) in s.items.iter().enumerate() {
                f(&format!("items[{k}].description"), &it.description);
            }
        }
        Segment::Document(d) => {
            f("mimeType", &d.mime_type);
            match &d.parsed_content {
                Some(p) if !p.is_empty() => f("parsedContent", p),
                _ => f("snippet", &d.snippet),
            }
        }
        Segment::Media(m) => {
            if let Some(alt) = &m.alt_text {
                f("altText", alt);
            }
        }
        Segment::StaticVar(_)
        | Segment::ToolCallRequest(_)
        | Segment::ToolCallResult(_)
        | Segment::Reasoning(_)
        | Segment::ProviderBlock(_) => {}
    }
}

/// One `{{ name }}` occurrence in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placeholder<'a> {
    /// Byte range of the whole placeholder, braces included.
    pub range: Range<usize>,
    /// The variable name inside it.
    pub name: &'a str,
}

/// Every placeholder in `text`, in order.
pub fn placeholders(text: &str) -> Vec<Placeholder<'_>> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(off) = text[i..].find("{{") {
        let start = i + off;
        match match_at(text, start) {
            Some((end, name)) => {
                out.push(Placeholder { range: start..end, name });
                i = end;
            }
            None => i = start + 1,
        }
        if i >= bytes.len() {
            break;
        }
    }
    out
}

/// Matches a placeholder starting exactly at byte `start` (which holds `{{`).
fn match_at(text: &str, start: usize) -> Option<(usize, &str)> {
    let rest = &text[start + 2..];
    let trimmed = rest.trim_start_matches(char::is_whitespace);
    let name_start = start + 2 + (rest.len() - trimmed.len());
    let mut chars = trimmed.char_indices();
    match chars.next() {
        Some((_, c)) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return None,
    }
    let name_len = trimmed
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(trimmed.len(), |(i, _)| i);
    let name = &trimmed[..name_len];
    let after = &trimmed[name_len..];
    let after_ws = after.trim_start_matches(char::is_whitespace);
    if after_ws.starts_with("}}") {
        let end = name_start + name_len + (after.len() - after_ws.len()) + 2;
        Some((end, &text[name_start..name_start + name.len()]))
    } else {
        None
    }
}

/// A piece of text after substitution: literal text or a substituted variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Text as written (including unknown placeholders, which stay as written).
    Text(&'a str),
    /// A placeholder replaced by its variable's value.
    Var { name: &'a str, value: &'a str },
}

/// Splits `text` into literal pieces and substituted variables.
/// `lookup` gives a variable's value; placeholders it does not know stay text.
pub fn pieces<'a>(text: &'a str, lookup: &impl Fn(&str) -> Option<&'a str>) -> Vec<Piece<'a>> {
    let mut out = Vec::new();
    let mut last = 0;
    for p in placeholders(text) {
        if let Some(value) = lookup(p.name) {
            if p.range.start > last {
                out.push(Piece::Text(&text[last..p.range.start]));
            }
            out.push(Piece::Var { name: p.name, value });
            last = p.range.end;
        }
    }
    if last < text.len() {
        out.push(Piece::Text(&text[last..]));
    }
    out
}

/// `text` with every known placeholder replaced by its value.
pub fn substitute<'a>(text: &'a str, lookup: &impl Fn(&str) -> Option<&'a str>) -> String {
    let mut out = String::with_capacity(text.len());
    for piece in pieces(text, lookup) {
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Var { value, .. } => out.push_str(value),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(t: &str) -> Vec<&str> {
        placeholders(t).into_iter().map(|p| p.name).collect()
    }

    #[test]
    fn finds_plain_and_spaced_placeholders() {
        assert_eq!(names("Hi {{user}}, {{ city }} and {{\tx_1 \n}}"), ["user", "city", "x_1"]);
    }

    #[test]
    fn rejects_names_that_the_grammar_rejects() {
        assert!(names("{{1abc}} {{a-b}} {{}} {{ }} {a} {{a}").is_empty());
        assert!(names("{{a b}}").is_empty());
    }

    #[test]
    fn triple_braces_match_like_a_regex() {
        // The regex finds `{{a}}` starting at the second brace.
        let p = placeholders("{{{a}}}");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].range, 1..6);
    }

    #[test]
    fn unicode_whitespace_counts_as_space() {
        assert_eq!(names("{{\u{3000}名}}"), Vec::<&str>::new());
        assert_eq!(names("{{\u{3000}n\u{a0}}}"), ["n"]);
    }

    #[test]
    fn substitutes_known_and_keeps_unknown() {
        let lookup = |n: &str| match n {
            "user" => Some("小明"),
            _ => None,
        };
        assert_eq!(substitute("{{user}} / {{ other }}", &lookup), "小明 / {{ other }}");
        assert_eq!(
            pieces("a{{user}}b", &lookup),
            [Piece::Text("a"), Piece::Var { name: "user", value: "小明" }, Piece::Text("b")]
        );
    }
}
