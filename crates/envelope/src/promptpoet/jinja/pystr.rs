//! Python's string operations (`str.upper`, `title`, `split`, `center`, …)
//! on Rust strings, shared by the string methods and the filters.

use minijinja::Error;

use super::errors::err;
use crate::promptpoet::pyfmt::is_py_space;

pub(super) fn py_upper(s: &str) -> String {
    s.to_uppercase()
}

pub(super) fn py_lower(s: &str) -> String {
    s.to_lowercase()
}

/// Title case of one character (Python's `str.capitalize`/`title` first letter).
fn titlecase(c: char) -> String {
    match c {
        '\u{01C4}'..='\u{01C6}' => "\u{01C5}".into(),
        '\u{01C7}'..='\u{01C9}' => "\u{01C8}".into(),
        '\u{01CA}'..='\u{01CC}' => "\u{01CB}".into(),
        '\u{01F1}'..='\u{01F3}' => "\u{01F2}".into(),
        'ß' => "Ss".into(),
        'ﬀ' => "Ff".into(),
        'ﬁ' => "Fi".into(),
        'ﬂ' => "Fl".into(),
        'ﬃ' => "Ffi".into(),
        'ﬄ' => "Ffl".into(),
        'ﬅ' | 'ﬆ' => "St".into(),
        // Georgian Mkhedruli letters are their own title case.
        '\u{10D0}'..='\u{10FA}' | '\u{10FD}'..='\u{10FF}' => c.to_string(),
        c => c.to_uppercase().collect(),
    }
}

pub(super) fn is_cased(c: char) -> bool {
    c.is_uppercase() || c.is_lowercase() || matches!(c, '\u{01C5}' | '\u{01C8}' | '\u{01CB}' | '\u{01F2}')
}

/// `str.capitalize()`.
pub(super) fn py_capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        None => String::new(),
        Some(first) => titlecase(first) + &py_lower(chars.as_str()),
    }
}

/// `str.title()`.
pub(super) fn py_title_method(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for c in s.chars() {
        if prev_cased {
            out.extend(c.to_lowercase());
        } else {
            out.push_str(&titlecase(c));
        }
        prev_cased = is_cased(c);
    }
    out
}

/// `str.splitlines(keepends)`.
pub fn py_splitlines(s: &str, keepends: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let b: Vec<(usize, char)> = s.char_indices().collect();
    let mut i = 0;
    while i < b.len() {
        let (pos, c) = b[i];
        let is_break = matches!(
            c,
            '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{1C}' | '\u{1D}' | '\u{1E}' | '\u{85}' | '\u{2028}' | '\u{2029}'
        );
        if is_break {
            let mut end = pos + c.len_utf8();
            if c == '\r' && i + 1 < b.len() && b[i + 1].1 == '\n' {
                end += 1;
                i += 1;
            }
            out.push(if keepends { s[start..end].to_string() } else { s[start..pos].to_string() });
            start = end;
        }
        i += 1;
    }
    if start < s.len() {
        out.push(s[start..].to_string());
    }
    out
}

/// `str.split(sep, maxsplit)`.
pub(super) fn py_split(s: &str, sep: Option<&str>, maxsplit: i64) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    match sep {
        Some("") => return Err(err("ValueError", "empty separator")),
        Some(sep) => {
            let mut rest = s;
            while maxsplit < 0 || (out.len() as i64) < maxsplit {
                match rest.find(sep) {
                    Some(i) => {
                        out.push(rest[..i].to_string());
                        rest = &rest[i + sep.len()..];
                    }
                    None => break,
                }
            }
            out.push(rest.to_string());
        }
        None => {
            let mut rest = s.trim_start_matches(is_py_space);
            while !rest.is_empty() {
                if maxsplit >= 0 && out.len() as i64 >= maxsplit {
                    // The remainder keeps its trailing white space.
                    out.push(rest.to_string());
                    break;
                }
                let end = rest.find(is_py_space).unwrap_or(rest.len());
                out.push(rest[..end].to_string());
                rest = rest[end..].trim_start_matches(is_py_space);
            }
        }
    }
    Ok(out)
}

/// `str.rsplit(sep, maxsplit)`.
pub(super) fn py_rsplit(s: &str, sep: Option<&str>, maxsplit: i64) -> Result<Vec<String>, Error> {
    if maxsplit < 0 {
        return py_split(s, sep, maxsplit);
    }
    let mut out = Vec::new();
    match sep {
        Some("") => return Err(err("ValueError", "empty separator")),
        Some(sep) => {
            let mut rest = s;
            while (out.len() as i64) < maxsplit {
                match rest.rfind(sep) {
                    Some(i) => {
                        out.push(rest[i + sep.len()..].to_string());
                        rest = &rest[..i];
                    }
                    None => break,
                }
            }
            out.push(rest.to_string());
        }
        None => {
            let mut rest = s.trim_end_matches(is_py_space);
            while !rest.is_empty() {
                if out.len() as i64 >= maxsplit {
                    out.push(rest.to_string());
                    break;
                }
                let start = rest
                    .rfind(is_py_space)
                    .map(|i| i + rest[i..].chars().next().map_or(1, char::len_utf8))
                    .unwrap_or(0);
                out.push(rest[start..].to_string());
                rest = rest[..start].trim_end_matches(is_py_space);
            }
        }
    }
    out.reverse();
    Ok(out)
}

pub(super) fn strip_chars<'a>(s: &'a str, chars: Option<&str>, left: bool, right: bool) -> &'a str {
    let pred = |c: char| match chars {
        Some(set) => set.contains(c),
        None => is_py_space(c),
    };
    let s = if left { s.trim_start_matches(pred) } else { s };
    if right {
        s.trim_end_matches(pred)
    } else {
        s
    }
}

/// `str.center(width, fill)`.
pub(super) fn py_center(s: &str, width: i64, fill: char) -> String {
    let len = s.chars().count() as i64;
    if width <= len {
        return s.to_string();
    }
    let marg = width - len;
    let left = marg / 2 + (marg & width & 1);
    let right = marg - left;
    let mut out = String::new();
    out.extend(std::iter::repeat_n(fill, left as usize));
    out.push_str(s);
    out.extend(std::iter::repeat_n(fill, right as usize));
    out
}

pub(super) fn char_slice_bounds(s: &str, start: Option<i64>, end: Option<i64>) -> (usize, usize) {
    let n = s.chars().count() as i64;
    let norm = |v: i64| if v < 0 { (v + n).max(0) } else { v.min(n) };
    let a = norm(start.unwrap_or(0));
    let b = norm(end.unwrap_or(n));
    let byte = |ci: i64| s.char_indices().nth(ci as usize).map(|(i, _)| i).unwrap_or(s.len());
    (byte(a), byte(b.max(a)))
}

pub(super) fn char_index(s: &str, byte: usize) -> i64 {
    s[..byte].chars().count() as i64
}

pub(super) fn py_replace(s: &str, old: &str, new: &str, count: i64) -> String {
    if count < 0 {
        s.replace(old, new)
    } else {
        s.replacen(old, new, count as usize)
    }
}
