//! `duplicate-text`: the same long text sent twice. Whole fields are compared
//! first, then paragraphs (split at blank lines) of the fields that are not
//! whole duplicates; a variable's value substituted twice counts too. Texts
//! of at least `duplicate_min_tokens` o200k_base tokens are reported.

use std::collections::HashMap;
use std::ops::Range;

use super::fields::Field;
use super::{thousands, Raw};
use crate::diag::Rule;
use crate::tokens;

/// The paragraphs of a text (split at blank lines, trimmed), as byte ranges.
fn paragraphs(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut push = |a: usize, b: usize| {
        let p = &text[a..b];
        let lead = p.len() - p.trim_start().len();
        let t = p.trim();
        if !t.is_empty() {
            out.push(a + lead..a + lead + t.len());
        }
    };
    while let Some(off) = text[start..].find("\n\n") {
        push(start, start + off);
        start += off + 2;
    }
    push(start, text.len());
    out
}

pub fn check<'a>(fields: &[Field<'a>], min_tokens: u64) -> Vec<Raw> {
    let min_bytes = min_tokens as usize; // a token is at least one byte
    let mut out = Vec::new();
    let mut counted: HashMap<&'a str, u64> = HashMap::new();
    let mut count = |t: &'a str| *counted.entry(t).or_insert_with(|| tokens::count(t) as u64);
    // A value substituted more than once.
    for f in fields.iter().filter(|f| f.times > 1 && f.text.len() >= min_bytes) {
        let n = count(f.text);
        if n >= min_tokens {
            out.push(Raw::new(
                Rule::DuplicateText,
                f.path(),
                format!(
                    "this {}-token value is sent {} times (once per placeholder that uses it)",
                    thousands(n),
                    f.times
                ),
            ));
        }
    }
    // Whole fields, then paragraphs of the others.
    let mut first: HashMap<&str, &Field> = HashMap::new();
    let mut whole_dup = vec![false; fields.len()];
    for (i, f) in fields.iter().enumerate() {
        let t = f.text.trim();
        if t.len() < min_bytes {
            continue;
        }
        match first.get(t) {
            Some(prev) => {
                let n = count(t);
                whole_dup[i] = true;
                if n >= min_tokens {
                    let lead = f.text.len() - f.text.trim_start().len();
                    out.push(
                        Raw::new(
                            Rule::DuplicateText,
                            f.path(),
                            format!("the same {}-token text is already sent at {}", thousands(n), prev.path()),
                        )
                        .span(lead..lead + t.len()),
                    );
                }
            }
            None => {
                first.insert(t, f);
            }
        }
    }
    let mut first_par: HashMap<&str, String> = HashMap::new();
    for (i, f) in fields.iter().enumerate() {
        if whole_dup[i] {
            continue;
        }
        for r in paragraphs(f.text) {
            let t = &f.text[r.clone()];
            if t.len() < min_bytes {
                continue;
            }
            match first_par.get(t) {
                Some(prev) => {
                    let n = count(t);
                    if n >= min_tokens {
                        out.push(
                            Raw::new(
                                Rule::DuplicateText,
                                f.path(),
                                format!("the same {}-token paragraph is already sent at {prev}", thousands(n)),
                            )
                            .span(r),
                        );
                    }
                }
                None => {
                    first_par.insert(t, f.path());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_are_trimmed_and_split_at_blank_lines() {
        let t = "  a b\n\n\n c \n\nd";
        let got: Vec<&str> = paragraphs(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(got, ["a b", "c", "d"]);
    }
}
