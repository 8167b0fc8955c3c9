//! Text for a terminal: what a document holds may not drive it.
//!
//! A document's strings reach the CLI's diagnostics (field names, kinds,
//! roles, URLs, tool names, variable names all flow into messages and paths).
//! Written raw, `ESC ] 0 ; … BEL` retitles the window, OSC 52 writes the
//! clipboard, `ESC [ 2K` and a carriage return erase a line so that a forged
//! `fake.json: ok` can take its place, and bidi overrides reorder what is
//! shown. [`escape_line`] makes every such character a visible escape:
//!
//! - C0 controls (U+0000–U+001F), DEL (U+007F) and C1 controls
//!   (U+0080–U+009F): `\n`, `\r`, `\t` for those three, `\u{1b}` style
//!   otherwise (`\u{0}`, `\u{7f}`, `\u{9b}`);
//! - bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069)
//!   and the line and paragraph separators U+2028, U+2029: `\u{202e}`.
//!
//! A backslash is left as it is: a document can show text that looks like an
//! escape, never a control. [`escape_text`] is the same for multi-line
//! output (stdout), keeping line feeds and tabs.

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` must not reach a terminal raw.
pub fn is_unsafe(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}')
}

/// One line for a terminal: every unsafe character (line breaks included)
/// as a visible escape.
pub fn escape_line(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// Text for a terminal: as [`escape_line`], but line feeds and tabs stay.
pub fn escape_text(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

/// The first byte offset at or after `from` where an unsafe character may
/// start: a C0 byte, DEL, or the lead byte of U+0080–U+009F (0xC2) or of
/// U+2028–U+2069 (0xE2). A byte test, so that clean text (most of it) is
/// skimmed at memory speed; the caller checks the character there.
pub(crate) fn candidate(bytes: &[u8], from: usize) -> Option<usize> {
    bytes[from..].iter().position(|&b| b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xe2).map(|i| from + i)
}

fn escape(s: &str, keep_lines: bool) -> Cow<'_, str> {
    let unsafe_here = |c: char| is_unsafe(c) && !(keep_lines && matches!(c, '\n' | '\t'));
    let bytes = s.as_bytes();
    let mut at = 0;
    let first = loop {
        let Some(i) = candidate(bytes, at) else { return Cow::Borrowed(s) };
        let c = s[i..].chars().next().unwrap_or(' ');
        if unsafe_here(c) {
            break i;
        }
        at = i + c.len_utf8();
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..first]);
    for c in s[first..].chars() {
        if !unsafe_here(c) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_becomes_visible() {
        assert_eq!(escape_line("\u{1b}]0;pwned\u{7}"), "\\u{1b}]0;pwned\\u{7}");
        assert_eq!(escape_line("\u{1b}[2K\rfake.json: ok\n"), "\\u{1b}[2K\\rfake.json: ok\\n");
        assert_eq!(escape_line("a\u{0}b\u{7f}c\u{9b}2K\u{85}"), "a\\u{0}b\\u{7f}c\\u{9b}2K\\u{85}");
        assert_eq!(
            escape_line("abc\u{202e}x\u{2066}y\u{2069}\u{2028}\u{2029}"),
            "abc\\u{202e}x\\u{2066}y\\u{2069}\\u{2028}\\u{2029}"
        );
        assert_eq!(escape_line("tab\there"), "tab\\there");
    }

    #[test]
    fn safe_text_is_borrowed_and_unchanged() {
        for s in ["", "plain", "é 名 🚀 \u{a0} \u{200b} \\u{1b} \u{202f}"] {
            assert!(matches!(escape_line(s), Cow::Borrowed(t) if t == s));
        }
    }

    #[test]
    fn text_keeps_lines_and_tabs() {
        assert_eq!(escape_text("a\n\tb\r\n\u{1b}"), "a\n\tb\\r\n\\u{1b}");
    }

    #[test]
    fn no_output_holds_an_unsafe_character() {
        let all: String = (0u32..0x3000).filter_map(char::from_u32).collect();
        assert!(!escape_line(&all).chars().any(is_unsafe));
        assert!(!escape_text(&all).chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t'));
    }
}
