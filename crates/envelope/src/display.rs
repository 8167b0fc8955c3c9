//! Showing hostile text without freezing the page: pure functions the app
//! calls before it renders. None of them changes what is exported or
//! counted; they only decide how a text is *shown*.
//!
//! - [`collapse_marks`]: a letter followed by 80,000 combining marks lays out
//!   in time quadratic in the run in a browser. Each grapheme cluster keeps
//!   its first [`MAX_CLUSTER_CHARS`] characters and the number hidden is
//!   given, so the UI can say so.
//! - [`markdown_fallback`]: Markdown that is very large, nests very deep, or
//!   is mostly emphasis/link delimiters costs far more to render (parser and
//!   DOM) than its size suggests; such a text is shown as plain text, with an
//!   action to render it anyway. One linear pass over the bytes.

use std::borrow::Cow;
use std::fmt;

use unicode_segmentation::UnicodeSegmentation;

/// The most characters a grapheme cluster keeps on screen: a base and 31
/// marks or joined characters. Real text stays far below (Vietnamese stacks
/// 2 marks, Tibetan and cantillated Hebrew about 6, the longest emoji ZWJ
/// sequences 10, flag tag sequences 7).
pub const MAX_CLUSTER_CHARS: usize = 32;

/// A text made fit for display, and how many characters it hides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collapsed<'a> {
    pub text: Cow<'a, str>,
    /// Characters left out (0: `text` is the input, borrowed).
    pub hidden: usize,
}

/// `text` with each grapheme cluster cut to its first [`MAX_CLUSTER_CHARS`]
/// characters (for display only: the export keeps the text unchanged).
pub fn collapse_marks(text: &str) -> Collapsed<'_> {
    collapse_marks_to(text, MAX_CLUSTER_CHARS)
}

/// [`collapse_marks`] with another limit (at least 1).
pub fn collapse_marks_to(text: &str, max_chars: usize) -> Collapsed<'_> {
    let max_chars = max_chars.max(1);
    if !may_have_long_cluster(text, max_chars) {
        return Collapsed { text: Cow::Borrowed(text), hidden: 0 };
    }
    let mut out = String::with_capacity(text.len());
    let mut hidden = 0;
    for g in text.graphemes(true) {
        let mut chars = g.char_indices();
        match chars.nth(max_chars) {
            None => out.push_str(g),
            Some((cut, _)) => {
                out.push_str(&g[..cut]);
                hidden += 1 + chars.count();
            }
        }
    }
    if hidden == 0 {
        return Collapsed { text: Cow::Borrowed(text), hidden: 0 };
    }
    Collapsed { text: Cow::Owned(out), hidden }
}

/// A cheap test that `text` has no grapheme cluster longer than `max_chars`:
/// apart from CR LF, a cluster's characters after the first are all
/// non-ASCII, so a long cluster needs a long run of non-ASCII characters.
fn may_have_long_cluster(text: &str, max_chars: usize) -> bool {
    if text.len() <= max_chars || text.is_ascii() {
        return false;
    }
    let mut run = 0;
    for c in text.chars() {
        if c.is_ascii() {
            run = 0;
        } else {
            run += 1;
            if run >= max_chars {
                return true;
            }
        }
    }
    false
}

/// Markdown larger than this many bytes is shown as plain text (200 KB).
pub const MARKDOWN_MAX_BYTES: usize = 200_000;
/// Markdown whose block containers (block quotes, list items) nest deeper
/// than this on one line is shown as plain text: each level is an element of
/// the page, and a browser lays out very deep trees slowly.
pub const MARKDOWN_MAX_DEPTH: usize = 32;
/// Markdown with more inline delimiters (`[ ] * _ ~ ` < >`, outside fenced
/// code) than this, making up more than a quarter of its bytes, is shown as
/// plain text: every delimiter is a candidate the parser pairs and
/// re-examines (pathological inputs cost 10–50 times prose of the same size).
pub const MARKDOWN_MAX_DELIMITERS: usize = 2_000;

/// Why a Markdown text is shown as plain text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fallback {
    TooLarge { bytes: usize },
    TooDeep { depth: usize },
    TooManyDelimiters { delimiters: usize, bytes: usize },
}

impl fmt::Display for Fallback {
    /// A sentence for the UI ("shown as plain text: …").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Fallback::TooLarge { bytes } => {
                write!(f, "{bytes} bytes of Markdown (more than {MARKDOWN_MAX_BYTES}) are shown as plain text")
            }
            Fallback::TooDeep { depth } => {
                write!(f, "Markdown nested {depth} levels deep (more than {MARKDOWN_MAX_DEPTH}) is shown as plain text")
            }
            Fallback::TooManyDelimiters { delimiters, bytes } => write!(
                f,
                "Markdown that is mostly emphasis and link marks ({delimiters} of {bytes} bytes) is shown as plain text"
            ),
        }
    }
}

/// Whether `src` should be shown as plain text rather than rendered, and
/// why. Linear in `src`, and far cheaper than rendering: about a byte
/// comparison per byte.
pub fn markdown_fallback(src: &str) -> Option<Fallback> {
    let bytes = src.len();
    if bytes > MARKDOWN_MAX_BYTES {
        return Some(Fallback::TooLarge { bytes });
    }
    let mut delimiters = 0usize;
    let mut fence: Option<(u8, usize)> = None; // fence character and length
    for line in src.as_bytes().split(|&b| b == b'\n') {
        let (depth, rest) = container_depth(line);
        if let Some((ch, len)) = fence {
            if closes_fence(rest, ch, len) {
                fence = None;
            }
            continue;
        }
        if let Some(open) = opens_fence(rest) {
            fence = Some(open);
            continue;
        }
        if depth > MARKDOWN_MAX_DEPTH {
            return Some(Fallback::TooDeep { depth });
        }
        delimiters +=
            rest.iter().filter(|b| matches!(b, b'[' | b']' | b'*' | b'_' | b'~' | b'`' | b'<' | b'>')).count();
    }
    (delimiters > MARKDOWN_MAX_DELIMITERS && delimiters * 4 > bytes)
        .then_some(Fallback::TooManyDelimiters { delimiters, bytes })
}

/// How many block containers open at the start of `line` (`>`, `-`, `*`,
/// `+`, `1.`, `1)` each followed by white space, or `>` alone), and the rest
/// of the line.
fn container_depth(line: &[u8]) -> (usize, &[u8]) {
    let mut depth = 0;
    let mut i = 0;
    loop {
        while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
            i += 1;
        }
        let rest = &line[i..];
        let marker = match rest {
            [b'>', ..] => 1,
            [b'-' | b'*' | b'+', b' ' | b'\t', ..] => 2,
            _ => {
                let digits = rest.iter().take(10).take_while(|b| b.is_ascii_digit()).count();
                match rest.get(digits..digits + 2) {
                    Some([b'.' | b')', b' ' | b'\t']) if (1..=9).contains(&digits) => digits + 2,
                    _ => 0,
                }
            }
        };
        if marker == 0 {
            return (depth, rest);
        }
        depth += 1;
        i += marker;
    }
}

/// A code fence opening (three or more backticks or tildes): its character and length.
fn opens_fence(line: &[u8]) -> Option<(u8, usize)> {
    let ch = *line.first().filter(|c| matches!(c, b'`' | b'~'))?;
    let len = line.iter().take_while(|&&b| b == ch).count();
    // A backtick fence's info string may not contain a backtick.
    (len >= 3 && !(ch == b'`' && line[len..].contains(&b'`'))).then_some((ch, len))
}

fn closes_fence(line: &[u8], ch: u8, len: usize) -> bool {
    let n = line.iter().take_while(|&&b| b == ch).count();
    n >= len && line[n..].iter().all(|b| b.is_ascii_whitespace())
}

/// `1234567` → `1,234,567`: a count as the app, the CLI and their notes write it.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absurd_mark_runs_are_cut_and_counted() {
        let zalgo = format!("a{}b", "\u{301}".repeat(80_000));
        let c = collapse_marks(&zalgo);
        assert_eq!(c.hidden, 80_000 - (MAX_CLUSTER_CHARS - 1));
        assert_eq!(c.text.chars().count(), MAX_CLUSTER_CHARS + 1);
        assert!(c.text.starts_with('a') && c.text.ends_with('b'));
        // Several clusters, each cut on its own.
        let two = format!("x{m}y{m}", m = "\u{489}".repeat(40));
        let c = collapse_marks_to(&two, 5);
        assert_eq!(c.text, format!("x{m}y{m}", m = "\u{489}".repeat(4)));
        assert_eq!(c.hidden, 2 * 36);
    }

    #[test]
    fn real_text_is_borrowed_unchanged() {
        for t in [
            "plain ASCII text, long enough to pass the length test easily",
            "Tiếng Việt có dấu: người, được, những",
            "עִבְרִית מְנֻקֶּדֶת עִם טְעָמִים",
            "👨‍👩‍👧‍👦 🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f} 🇯🇵",
            "日本語のテキストはとても長い文字の並びになることがありますがクラスタは短いです。日本語のテキストはとても長い文字の並びになることがあります",
            "a\r\nb",
        ] {
            let c = collapse_marks(t);
            assert!(matches!(c.text, Cow::Borrowed(_)) && c.hidden == 0, "{t}");
        }
    }

    #[test]
    fn collapsing_80k_marks_is_fast() {
        let zalgo = format!("a{}", "\u{301}".repeat(80_000));
        let t = std::time::Instant::now();
        for _ in 0..10 {
            assert!(collapse_marks(&zalgo).hidden > 0);
        }
        assert!(t.elapsed().as_millis() < 2_000, "{:?}", t.elapsed());
    }

    #[test]
    fn ordinary_markdown_renders() {
        let doc = "# Title\n\nSome *emphasis*, a [link](https://x) and `code`.\n\n- a\n  - b\n    - c\n\n> quote\n> > nested\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
        assert_eq!(markdown_fallback(&doc.repeat(1000)), None);
        // Code full of delimiters inside a fence does not count.
        let code = format!("```rust\n{}\n```\n", "fn f<T>(x: &[T]) -> *const T { x.as_ptr() } // **_\n".repeat(2000));
        assert_eq!(markdown_fallback(&code), None);
        // snake_case prose is fine.
        assert_eq!(markdown_fallback(&"call some_function_name with a_value and b_value. ".repeat(2000)), None);
    }

    #[test]
    fn pathological_markdown_falls_back() {
        assert_eq!(markdown_fallback(&"a".repeat(200_001)), Some(Fallback::TooLarge { bytes: 200_001 }));
        assert_eq!(markdown_fallback(&format!("{}a", "> ".repeat(33))), Some(Fallback::TooDeep { depth: 33 }));
        assert_eq!(markdown_fallback(&format!("{}a", ">".repeat(32))), None);
        assert_eq!(markdown_fallback(&format!("{}a", "1. ".repeat(40))), Some(Fallback::TooDeep { depth: 40 }));
        assert!(matches!(markdown_fallback(&"[".repeat(5000)), Some(Fallback::TooManyDelimiters { .. })));
        assert!(matches!(markdown_fallback(&"*_".repeat(5000)), Some(Fallback::TooManyDelimiters { .. })));
        // Few delimiters: rendered, however dense.
        assert_eq!(markdown_fallback(&"[".repeat(1000)), None);
        assert_eq!(
            Fallback::TooDeep { depth: 40 }.to_string(),
            "Markdown nested 40 levels deep (more than 32) is shown as plain text"
        );
    }
}
