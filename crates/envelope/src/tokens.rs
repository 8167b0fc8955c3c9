//! Exact OpenAI `o200k_base` token counts (PromptPoet's default tokenizer).
//!
//! Behind the crate feature `tokenizer`, which pulls in the pure-Rust crate
//! [`tiktoken`](https://crates.io/crates/tiktoken) 4.1.2 (goliajp) with only the
//! `o200k_base` vocabulary. Text is always *ordinary* text, as with OpenAI
//! tiktoken's `encode_ordinary`: `<|endoftext|>` and other special-token
//! spellings are encoded as the characters they are, never as special ids.
//!
//! Verified by `tests/tokens_oracle.rs` against ids produced by the npm package
//! `gpt-tokenizer` and by OpenAI's own Python `tiktoken` (see the scripts next to
//! `tests/fixtures/tokens/oracle.json`). `gpt-tokenizer` 4.0.0 itself is not exact
//! on U+FEFF and U+0085 (JavaScript's `\s` differs from Unicode `White_Space`);
//! this module follows OpenAI there.
//!
//! Text longer than 4 KB is encoded in chunks cut only where the o200k_base
//! pre-tokenizer always splits (same ids, proved and property-tested at
//! `chunks`): tiktoken 4.1.2 is quadratic on text with non-ASCII whitespace
//! (NBSP, U+3000, ...), 1.7 s for 80 KB; chunked, such text runs at full speed.
//!
//! The encoder (a ~1.2 MB vocabulary unpacked on first use) is initialised once per
//! process, lazily, on the first call; [`warm_up`] does it ahead of time.
//!
//! **WebAssembly:** this works in `wasm32-unknown-unknown`, but a build at
//! `opt-level = "z"` has been seen to die on the first count with "memory access
//! out of bounds": a ~1.2 MB table ends up on the stack while the default wasm
//! stack is 1 MB. Builds that include this module for wasm need a larger stack
//! (e.g. `-C link-arg=-zstack-size=...`) or a different opt-level for the
//! `tiktoken` package; that is the build's business, not this module's.

use std::ops::Range;
use std::sync::OnceLock;

use tiktoken::CoreBpe;

static ENCODER: OnceLock<&'static CoreBpe> = OnceLock::new();

fn encoder() -> &'static CoreBpe {
    ENCODER.get_or_init(|| {
        tiktoken::get_encoding("o200k_base")
            .expect("the tiktoken dependency is built with the vocab-o200k_base feature")
    })
}

/// Initialise the encoder now rather than on the first count (e.g. in a worker
/// before the first message arrives). Calling it again is free.
pub fn warm_up() {
    let _ = encoder();
}

/// Number of `o200k_base` tokens in `text` (ordinary text), without building the id list.
pub fn count(text: &str) -> usize {
    let enc = encoder();
    chunks(text, CHUNK).map(|c| enc.count(c)).sum()
}

/// The `o200k_base` token ids of `text` (ordinary text).
pub fn encode(text: &str) -> Vec<u32> {
    let enc = encoder();
    if text.len() <= CHUNK {
        return enc.encode(text);
    }
    let mut ids = Vec::with_capacity(text.len() / 3);
    for c in chunks(text, CHUNK) {
        ids.extend(enc.encode(c));
    }
    ids
}

/// Chunk length above which text is cut at safe points (see [`chunks`]).
const CHUNK: usize = 4096;

/// Cuts `text` into pieces of at least `min` bytes (the last may be shorter),
/// only at positions where the o200k_base pre-tokenizer always splits, so that
/// encoding the pieces one by one gives exactly the ids of the whole text.
///
/// Why: tiktoken 4.1.2 re-validates the whole rest of the input as UTF-8 for
/// every whitespace piece that holds non-ASCII whitespace (NBSP, U+3000,
/// U+2028, U+0085, ...), so such text costs O(n^2): 80 KB of "a \u{a0} b"
/// took 1.7 s. Cutting bounds that work by the piece length.
///
/// A cut before char `c` preceded by char `b` is safe when no pre-token can
/// hold both `b` and `c`, and when nothing matched before the cut can depend on
/// what follows it. In the o200k_base pattern a pre-token holds a whitespace
/// char anywhere but first only if it is a whitespace run (`\s+`,
/// `\s*[\r\n]+`) or it is `\r`/`\n` in the `[\r\n/]*` tail of a punctuation
/// run; letter and number runs hold no whitespace after their first char. So:
/// - `c` whitespace other than `\r`/`\n`, `b` not whitespace: the pre-token
///   holding `b` is not a whitespace run and cannot take `c`;
/// - `b == '\n'`, `c` neither whitespace nor `/`: only whitespace runs and the
///   punctuation tail hold `\n` before another char, and neither can take `c`.
///
/// The one lookahead, `\s+(?!\S)`, only ends whitespace runs, which never end
/// at a cut of the first kind, and at a cut of the second kind the run ending in
/// `\n` is matched by the earlier `\s*[\r\n]+` alternative either way. The
/// pattern has no lookbehind, so matching after the cut is unchanged.
/// `chunked_equals_whole` checks this against the unchunked encoder.
fn chunks(text: &str, min: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = safe_cut(rest, min).unwrap_or(rest.len());
        let (head, tail) = rest.split_at(cut);
        rest = tail;
        Some(head)
    })
}

/// The first safe cut at or after byte `min` (see [`chunks`]), if any.
fn safe_cut(text: &str, min: usize) -> Option<usize> {
    if text.len() <= min {
        return None;
    }
    let mut from = min.max(1);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let mut prev = text[..from].chars().next_back()?;
    for (i, c) in text[from..].char_indices() {
        let safe =
            if c.is_whitespace() { c != '\r' && c != '\n' && !prev.is_whitespace() } else { prev == '\n' && c != '/' };
        if safe {
            return Some(from + i);
        }
        prev = c;
    }
    None
}

/// The bytes of one token, for drawing token boundaries over the text.
///
/// A token may hold part of a multi-byte UTF-8 character (emoji, CJK), so the
/// result is bytes, not a string. Unknown ids give an empty vector.
pub fn decode_piece(id: u32) -> Vec<u8> {
    encoder().decode(&[id])
}

/// Byte ranges of the tokens `ids` within the text they encode, in order.
///
/// For `ids = encode(text)` the ranges tile `0..text.len()` exactly. A range may
/// start or end inside a multi-byte character; callers drawing boundaries over a
/// `&str` should snap to char boundaries (`str::is_char_boundary`).
pub fn byte_spans(ids: &[u32]) -> Vec<Range<usize>> {
    let enc = encoder();
    let mut at = 0usize;
    ids.iter()
        .map(|&id| {
            let len = enc.decode(&[id]).len();
            let span = at..at + len;
            at += len;
            span
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn chunked(text: &str, min: usize) -> Vec<u32> {
        chunks(text, min).flat_map(|c| encoder().encode(c)).collect()
    }

    #[test]
    fn chunks_cover_the_text() {
        let text = "ab \u{a0}cd\n/x\ny  z";
        for min in 0..text.len() + 2 {
            let parts: Vec<&str> = chunks(text, min).collect();
            assert_eq!(parts.concat(), text, "min {min}");
            assert!(parts.iter().all(|p| !p.is_empty()));
        }
        let parts: Vec<&str> = chunks("ab \u{a0}cd\n/x\ny  z", 1).collect();
        assert_eq!(parts, ["ab", " \u{a0}cd\n/x\n", "y", "  z"]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Cutting at safe points never changes the ids, whatever the cut size.
        #[test]
        fn chunked_equals_whole(
            chars in prop::collection::vec(prop::sample::select(vec![
                ' ', ' ', '\u{a0}', '\u{3000}', '\u{85}', '\u{2028}', '\u{feff}', '\n', '\n', '\r', '\t',
                '\u{b}', '/', '.', ',', '!', '\'', 's', 'a', 'B', 'é', '\u{301}', '1', '2', '中', 'ア',
                '👍', '\u{200d}', '<', '|', '-', '_', '"',
            ]), 0..120),
            min in 1usize..40,
        ) {
            let text: String = chars.into_iter().collect();
            prop_assert_eq!(chunked(&text, min), encoder().encode(&text), "{:?}", text);
        }
    }

    #[test]
    fn non_ascii_whitespace_is_not_quadratic() {
        let text = "a \u{a0} b \u{3000}x\u{85} ".repeat(20_000); // ~260 KB
        let t = std::time::Instant::now();
        let n = count(&text);
        assert_eq!(n, encode(&text).len());
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    }

    #[test]
    fn basics() {
        assert_eq!(count(""), 0);
        assert_eq!(encode("hello world"), vec![24912, 2375]);
        assert_eq!(count("hello world"), 2);
        assert_eq!(decode_piece(24912), b"hello");
        assert_eq!(decode_piece(2375), b" world");
        assert!(decode_piece(u32::MAX).is_empty());
    }

    #[test]
    fn special_token_spelling_is_ordinary_text() {
        let ids = encode("<|endoftext|>");
        assert!(!ids.contains(&199_999));
        assert_eq!(count("<|endoftext|>"), ids.len());
        let bytes: Vec<u8> = ids.iter().flat_map(|&i| decode_piece(i)).collect();
        assert_eq!(bytes, b"<|endoftext|>");
    }

    #[test]
    fn spans_tile_the_text() {
        let text = "Hi 👨‍👩‍👧‍👦 世界 <|endoftext|>\n\n  x";
        let ids = encode(text);
        let spans = byte_spans(&ids);
        assert_eq!(spans.len(), ids.len());
        assert_eq!(spans.first().map(|r| r.start), Some(0));
        assert_eq!(spans.last().map(|r| r.end), Some(text.len()));
        for w in spans.windows(2) {
            assert_eq!(w[0].end, w[1].start);
        }
    }
}
