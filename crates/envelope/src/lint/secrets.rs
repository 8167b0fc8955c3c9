//! `secret` and `sensitive-word`: credentials and configured words in what
//! the model receives.
//!
//! The secrets are [`crate::secrets`]'s (one definition for the checks and
//! the app's masking): found by the formats their issuers document, never
//! echoed whole ([`mask`], [`redact`]).

use std::borrow::Cow;
use std::ops::Range;

pub use crate::secrets::{find, mask, redact, Secret};

use super::fields::Field;
use super::Raw;
use crate::diag::Rule;

/// `text` with the private part of every secret replaced by `*`, one per
/// character, so that columns stay where they were (quoted source lines).
pub fn redact_in_place(text: &str) -> Cow<'_, str> {
    let found = find(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for s in found {
        let private = s.range.start + s.public.min(s.range.len());
        out.push_str(&text[last..private]);
        out.extend(text[private..s.range.end].chars().map(|c| if c == '\n' { c } else { '*' }));
        last = s.range.end;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// `secret` findings over the sent fields.
pub fn check(fields: &[Field]) -> Vec<Raw> {
    let mut out = Vec::new();
    for f in fields {
        for s in find(f.text) {
            let shown = mask(&f.text[s.range.clone()], s.public);
            out.push(
                Raw::new(Rule::Secret, f.path(), format!("{} `{shown}` in text the model receives", s.kind))
                    .span(s.range)
                    .hint("remove it and rotate it: anything sent to a model is logged and may be repeated"),
            );
        }
    }
    out
}

/// Case-insensitive whole-word occurrences of `word` in `text` (byte ranges).
pub fn word_matches(text: &str, word: &str) -> Vec<Range<usize>> {
    let w: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
    let Some(&first) = w.first() else { return Vec::new() };
    // Word boundaries apply where a word starts or ends with a Latin letter,
    // digit or `_`; words in scripts written without spaces match anywhere.
    let word_edge = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        if c.to_lowercase().next() != Some(first) {
            i += 1;
            continue;
        }
        // Compare lowercase streams.
        let mut k = 0;
        let mut j = i;
        let mut lower = Vec::new();
        while k < w.len() && j < chars.len() {
            lower.clear();
            lower.extend(chars[j].1.to_lowercase());
            if w[k..].starts_with(&lower) {
                k += lower.len();
                j += 1;
            } else {
                break;
            }
        }
        if k == w.len() {
            let end = chars.get(j).map_or(text.len(), |c| c.0);
            let before = i.checked_sub(1).map(|p| chars[p].1);
            let after = chars.get(j).map(|c| c.1);
            let ok_before = !word_edge(w[0]) || boundary(before);
            let ok_after = !word_edge(w[w.len() - 1]) || boundary(after);
            if ok_before && ok_after {
                out.push(start..end);
                i = j;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// `sensitive-word` findings.
pub fn check_words(fields: &[Field], words: &[String]) -> Vec<Raw> {
    let mut out = Vec::new();
    for f in fields {
        for w in words {
            for r in word_matches(f.text, w) {
                out.push(
                    Raw::new(
                        Rule::SensitiveWord,
                        f.path(),
                        format!("sensitive word `{w}` in text the model receives (configured in sensitive_words)"),
                    )
                    .span(r),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any text: no panic; column-preserving redaction.
        #[test]
        fn any_text(t in "(\\PC|sk-|ghp_|AKIA|eyJ|://|:|@|=|-----BEGIN |password=|[a-zA-Z0-9_.-]{8,40}){0,40}") {
            proptest::prop_assert_eq!(redact_in_place(&t).chars().count(), t.chars().count());
            for w in ["a", "é", "sk", "İ"] {
                let _ = word_matches(&t, w);
            }
        }
    }

    #[test]
    fn words_match_whole_and_any_case() {
        assert_eq!(word_matches("A Secret, secrets, SECRET.", "secret"), [2..8, 19..25]);
        assert_eq!(word_matches("private_key and private-key", "private_key"), vec![0..11]);
        assert_eq!(word_matches("机密文件 机密", "机密"), [0..6, 13..19]);
        assert!(word_matches("anything", "").is_empty());
        assert_eq!(word_matches("İnternal", "i̇nternal"), vec![0..9]);
    }
}
