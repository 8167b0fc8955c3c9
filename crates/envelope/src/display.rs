//! Showing hostile text without freezing the page: pure functions the app
//! calls before it renders. None of them changes what is exported or
//! counted; they only decide how a text is *shown*.
//!
//! - [`collapse_marks`]: a letter followed by 80,000 combining marks lays out
//!   in time quadratic in the run in a browser. Each grapheme cluster keeps
//!   its first [`MAX_CLUSTER_CHARS`] characters, followed by a visible marker
//!   that says how many were left out (`⟨+79,969 combining marks⟩`), and
//!   the total hidden is given.
//! - [`markdown_fallback`]: Markdown that is very large, nests very deep, or
//!   is mostly emphasis/link delimiters costs far more to render (parser and
//!   DOM) than its size suggests; such a text is shown as plain text, with an
//!   action to render it anyway. One linear pass over the bytes.

use std::borrow::Cow;
use std::fmt;

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

/// `text` with each run of combining characters cut so that a cluster
/// keeps at most [`MAX_CLUSTER_CHARS`] characters, each cut followed by
/// [`marker`] (for display only: the export keeps the text unchanged).
pub fn collapse_marks(text: &str) -> Collapsed<'_> {
    collapse_marks_to(text, MAX_CLUSTER_CHARS)
}

/// What stands after a cut cluster: `⟨+79,969 combining marks⟩`. Its
/// characters (U+27E8, ASCII, U+27E9) start clusters of their own, so the
/// marker never joins the cut cluster, and collapsing again changes nothing.
pub fn marker(hidden: usize) -> String {
    let what = if hidden == 1 { "combining mark" } else { "combining marks" };
    format!("\u{27e8}+{} {what}\u{27e9}", thousands(hidden as u64))
}

/// [`collapse_marks`]'s text alone: what the page shows of a document's text.
pub fn shown(text: &str) -> Cow<'_, str> {
    collapse_marks(text).text
}

/// [`collapse_marks`] with another limit (at least 1).
pub fn collapse_marks_to(text: &str, max_chars: usize) -> Collapsed<'_> {
    let max_chars = max_chars.max(1);
    if !may_have_long_cluster(text, max_chars) {
        return Collapsed { text: Cow::Borrowed(text), hidden: 0 };
    }
    let mut out = String::with_capacity(text.len());
    let mut hidden = 0;
    // Characters of the cluster so far, and those of it left out.
    let (mut run, mut cut) = (0usize, 0usize);
    let mut prev_jamo = false;
    for c in text.chars() {
        let jamo = is_jamo(c);
        if joins(c) || (jamo && prev_jamo) {
            run += 1;
        } else {
            if cut > 0 {
                out.push_str(&marker(cut));
                hidden += cut;
                cut = 0;
            }
            run = 1;
        }
        prev_jamo = jamo;
        if run > max_chars {
            cut += 1;
        } else {
            out.push(c);
        }
    }
    if cut > 0 {
        out.push_str(&marker(cut));
        hidden += cut;
    }
    if hidden == 0 {
        return Collapsed { text: Cow::Borrowed(text), hidden: 0 };
    }
    Collapsed { text: Cow::Owned(out), hidden }
}

/// Whether `c` joins the character before it into one grapheme cluster
/// (Unicode's Grapheme_Cluster_Break Extend, SpacingMark and ZWJ: combining
/// marks, viramas and vowel signs, variation selectors, emoji modifiers,
/// tags). A binary search in [`JOINING_BMP`] or [`JOINING`].
fn joins(c: char) -> bool {
    fn within<T: Ord + Copy>(table: &[(T, T)], u: T) -> bool {
        table
            .binary_search_by(|&(lo, hi)| {
                if hi < u {
                    std::cmp::Ordering::Less
                } else if lo > u {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }
    let u = c as u32;
    match u16::try_from(u) {
        Ok(_) if u < 0x300 => false,
        Ok(b) => within(JOINING_BMP, b),
        Err(_) => within(JOINING, u),
    }
}

/// Conjoining Hangul jamo (leading, vowel, trailing; a run of them is one
/// syllable's cluster).
fn is_jamo(c: char) -> bool {
    matches!(c as u32, 0x1100..=0x11FF | 0xA960..=0xA97F | 0xD7B0..=0xD7FF)
}

/// The code points that join a preceding letter into one grapheme cluster,
/// as inclusive ranges, those of the Basic Multilingual Plane in
/// [`JOINING_BMP`] (two bytes each) and the others in [`JOINING`]: generated
/// from `unicode-segmentation` 1.13.3 (a test-only dependency here: its
/// tables would cost the app's first load ~20 KB gzip) and checked against it
/// for every code point by the test `joining_table_is_unicode_segmentations`.
#[rustfmt::skip]
const JOINING_BMP: &[(u16, u16)] = &[
    (0x300, 0x36F), (0x483, 0x489), (0x591, 0x5BD), (0x5BF, 0x5BF), (0x5C1, 0x5C2), (0x5C4, 0x5C5), (0x5C7, 0x5C7),
    (0x610, 0x61A), (0x64B, 0x65F), (0x670, 0x670), (0x6D6, 0x6DC), (0x6DF, 0x6E4), (0x6E7, 0x6E8), (0x6EA, 0x6ED),
    (0x711, 0x711), (0x730, 0x74A), (0x7A6, 0x7B0), (0x7EB, 0x7F3), (0x7FD, 0x7FD), (0x816, 0x819), (0x81B, 0x823),
    (0x825, 0x827), (0x829, 0x82D), (0x859, 0x85B), (0x897, 0x89F), (0x8CA, 0x8E1), (0x8E3, 0x903), (0x93A, 0x93C),
    (0x93E, 0x94F), (0x951, 0x957), (0x962, 0x963), (0x981, 0x983), (0x9BC, 0x9BC), (0x9BE, 0x9C4), (0x9C7, 0x9C8),
    (0x9CB, 0x9CD), (0x9D7, 0x9D7), (0x9E2, 0x9E3), (0x9FE, 0x9FE), (0xA01, 0xA03), (0xA3C, 0xA3C), (0xA3E, 0xA42),
    (0xA47, 0xA48), (0xA4B, 0xA4D), (0xA51, 0xA51), (0xA70, 0xA71), (0xA75, 0xA75), (0xA81, 0xA83), (0xABC, 0xABC),
    (0xABE, 0xAC5), (0xAC7, 0xAC9), (0xACB, 0xACD), (0xAE2, 0xAE3), (0xAFA, 0xAFF), (0xB01, 0xB03), (0xB3C, 0xB3C),
    (0xB3E, 0xB44), (0xB47, 0xB48), (0xB4B, 0xB4D), (0xB55, 0xB57), (0xB62, 0xB63), (0xB82, 0xB82), (0xBBE, 0xBC2),
    (0xBC6, 0xBC8), (0xBCA, 0xBCD), (0xBD7, 0xBD7), (0xC00, 0xC04), (0xC3C, 0xC3C), (0xC3E, 0xC44), (0xC46, 0xC48),
    (0xC4A, 0xC4D), (0xC55, 0xC56), (0xC62, 0xC63), (0xC81, 0xC83), (0xCBC, 0xCBC), (0xCBE, 0xCC4), (0xCC6, 0xCC8),
    (0xCCA, 0xCCD), (0xCD5, 0xCD6), (0xCE2, 0xCE3), (0xCF3, 0xCF3), (0xD00, 0xD03), (0xD3B, 0xD3C), (0xD3E, 0xD44),
    (0xD46, 0xD48), (0xD4A, 0xD4D), (0xD57, 0xD57), (0xD62, 0xD63), (0xD81, 0xD83), (0xDCA, 0xDCA), (0xDCF, 0xDD4),
    (0xDD6, 0xDD6), (0xDD8, 0xDDF), (0xDF2, 0xDF3), (0xE31, 0xE31), (0xE33, 0xE3A), (0xE47, 0xE4E), (0xEB1, 0xEB1),
    (0xEB3, 0xEBC), (0xEC8, 0xECE), (0xF18, 0xF19), (0xF35, 0xF35), (0xF37, 0xF37), (0xF39, 0xF39), (0xF3E, 0xF3F),
    (0xF71, 0xF84), (0xF86, 0xF87), (0xF8D, 0xF97), (0xF99, 0xFBC), (0xFC6, 0xFC6), (0x102D, 0x1037),
    (0x1039, 0x103E), (0x1056, 0x1059), (0x105E, 0x1060), (0x1071, 0x1074), (0x1082, 0x1082), (0x1084, 0x1086),
    (0x108D, 0x108D), (0x109D, 0x109D), (0x135D, 0x135F), (0x1712, 0x1715), (0x1732, 0x1734), (0x1752, 0x1753),
    (0x1772, 0x1773), (0x17B4, 0x17D3), (0x17DD, 0x17DD), (0x180B, 0x180D), (0x180F, 0x180F), (0x1885, 0x1886),
    (0x18A9, 0x18A9), (0x1920, 0x192B), (0x1930, 0x193B), (0x1A17, 0x1A1B), (0x1A55, 0x1A5E), (0x1A60, 0x1A60),
    (0x1A62, 0x1A62), (0x1A65, 0x1A7C), (0x1A7F, 0x1A7F), (0x1AB0, 0x1ADD), (0x1AE0, 0x1AEB), (0x1B00, 0x1B04),
    (0x1B34, 0x1B44), (0x1B6B, 0x1B73), (0x1B80, 0x1B82), (0x1BA1, 0x1BAD), (0x1BE6, 0x1BF3), (0x1C24, 0x1C37),
    (0x1CD0, 0x1CD2), (0x1CD4, 0x1CE8), (0x1CED, 0x1CED), (0x1CF4, 0x1CF4), (0x1CF7, 0x1CF9), (0x1DC0, 0x1DFF),
    (0x200C, 0x200D), (0x20D0, 0x20F0), (0x2CEF, 0x2CF1), (0x2D7F, 0x2D7F), (0x2DE0, 0x2DFF), (0x302A, 0x302F),
    (0x3099, 0x309A), (0xA66F, 0xA672), (0xA674, 0xA67D), (0xA69E, 0xA69F), (0xA6F0, 0xA6F1), (0xA802, 0xA802),
    (0xA806, 0xA806), (0xA80B, 0xA80B), (0xA823, 0xA827), (0xA82C, 0xA82C), (0xA880, 0xA881), (0xA8B4, 0xA8C5),
    (0xA8E0, 0xA8F1), (0xA8FF, 0xA8FF), (0xA926, 0xA92D), (0xA947, 0xA953), (0xA980, 0xA983), (0xA9B3, 0xA9C0),
    (0xA9E5, 0xA9E5), (0xAA29, 0xAA36), (0xAA43, 0xAA43), (0xAA4C, 0xAA4D), (0xAA7C, 0xAA7C), (0xAAB0, 0xAAB0),
    (0xAAB2, 0xAAB4), (0xAAB7, 0xAAB8), (0xAABE, 0xAABF), (0xAAC1, 0xAAC1), (0xAAEB, 0xAAEF), (0xAAF5, 0xAAF6),
    (0xABE3, 0xABEA), (0xABEC, 0xABED), (0xFB1E, 0xFB1E), (0xFE00, 0xFE0F), (0xFE20, 0xFE2F), (0xFF9E, 0xFF9F),
];

/// [`JOINING_BMP`]'s ranges beyond U+FFFF.
#[rustfmt::skip]
const JOINING: &[(u32, u32)] = &[
    (0x101FD, 0x101FD), (0x102E0, 0x102E0), (0x10376, 0x1037A), (0x10A01, 0x10A03), (0x10A05, 0x10A06),
    (0x10A0C, 0x10A0F), (0x10A38, 0x10A3A), (0x10A3F, 0x10A3F), (0x10AE5, 0x10AE6), (0x10D24, 0x10D27),
    (0x10D69, 0x10D6D), (0x10EAB, 0x10EAC), (0x10EFA, 0x10EFF), (0x10F46, 0x10F50), (0x10F82, 0x10F85),
    (0x11000, 0x11002), (0x11038, 0x11046), (0x11070, 0x11070), (0x11073, 0x11074), (0x1107F, 0x11082),
    (0x110B0, 0x110BA), (0x110C2, 0x110C2), (0x11100, 0x11102), (0x11127, 0x11134), (0x11145, 0x11146),
    (0x11173, 0x11173), (0x11180, 0x11182), (0x111B3, 0x111C0), (0x111C9, 0x111CC), (0x111CE, 0x111CF),
    (0x1122C, 0x11237), (0x1123E, 0x1123E), (0x11241, 0x11241), (0x112DF, 0x112EA), (0x11300, 0x11303),
    (0x1133B, 0x1133C), (0x1133E, 0x11344), (0x11347, 0x11348), (0x1134B, 0x1134D), (0x11357, 0x11357),
    (0x11362, 0x11363), (0x11366, 0x1136C), (0x11370, 0x11374), (0x113B8, 0x113C0), (0x113C2, 0x113C2),
    (0x113C5, 0x113C5), (0x113C7, 0x113CA), (0x113CC, 0x113D0), (0x113D2, 0x113D2), (0x113E1, 0x113E2),
    (0x11435, 0x11446), (0x1145E, 0x1145E), (0x114B0, 0x114C3), (0x115AF, 0x115B5), (0x115B8, 0x115C0),
    (0x115DC, 0x115DD), (0x11630, 0x11640), (0x116AB, 0x116B7), (0x1171D, 0x1171F), (0x11722, 0x1172B),
    (0x1182C, 0x1183A), (0x11930, 0x11935), (0x11937, 0x11938), (0x1193B, 0x1193E), (0x11940, 0x11940),
    (0x11942, 0x11943), (0x119D1, 0x119D7), (0x119DA, 0x119E0), (0x119E4, 0x119E4), (0x11A01, 0x11A0A),
    (0x11A33, 0x11A39), (0x11A3B, 0x11A3E), (0x11A47, 0x11A47), (0x11A51, 0x11A5B), (0x11A8A, 0x11A99),
    (0x11B60, 0x11B67), (0x11C2F, 0x11C36), (0x11C38, 0x11C3F), (0x11C92, 0x11CA7), (0x11CA9, 0x11CB6),
    (0x11D31, 0x11D36), (0x11D3A, 0x11D3A), (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45), (0x11D47, 0x11D47),
    (0x11D8A, 0x11D8E), (0x11D90, 0x11D91), (0x11D93, 0x11D97), (0x11EF3, 0x11EF6), (0x11F00, 0x11F01),
    (0x11F03, 0x11F03), (0x11F34, 0x11F3A), (0x11F3E, 0x11F42), (0x11F5A, 0x11F5A), (0x13440, 0x13440),
    (0x13447, 0x13455), (0x1611E, 0x1612F), (0x16AF0, 0x16AF4), (0x16B30, 0x16B36), (0x16F4F, 0x16F4F),
    (0x16F51, 0x16F87), (0x16F8F, 0x16F92), (0x16FE4, 0x16FE4), (0x16FF0, 0x16FF1), (0x1BC9D, 0x1BC9E),
    (0x1CF00, 0x1CF2D), (0x1CF30, 0x1CF46), (0x1D165, 0x1D169), (0x1D16D, 0x1D172), (0x1D17B, 0x1D182),
    (0x1D185, 0x1D18B), (0x1D1AA, 0x1D1AD), (0x1D242, 0x1D244), (0x1DA00, 0x1DA36), (0x1DA3B, 0x1DA6C),
    (0x1DA75, 0x1DA75), (0x1DA84, 0x1DA84), (0x1DA9B, 0x1DA9F), (0x1DAA1, 0x1DAAF), (0x1E000, 0x1E006),
    (0x1E008, 0x1E018), (0x1E01B, 0x1E021), (0x1E023, 0x1E024), (0x1E026, 0x1E02A), (0x1E08F, 0x1E08F),
    (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF), (0x1E4EC, 0x1E4EF), (0x1E5EE, 0x1E5EF),
    (0x1E6E3, 0x1E6E3), (0x1E6E6, 0x1E6E6), (0x1E6EE, 0x1E6EF), (0x1E6F5, 0x1E6F5), (0x1E8D0, 0x1E8D6),
    (0x1E944, 0x1E94A), (0x1F3FB, 0x1F3FF), (0xE0020, 0xE007F), (0xE0100, 0xE01EF),
];

/// A cheap test that `text` has no cluster longer than `max_chars`: apart
/// from CR LF, a cluster's characters after the first are all non-ASCII, so
/// a long cluster needs a long run of non-ASCII characters.
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

/// `x` with `places` decimals, as `format!("{x:.places$}")` writes it
/// (rounded half to even on the exact value) but "0" when `x` is not
/// finite: for CSS lengths and figures shown to a person, without core's
/// float printing (Grisu and Dragon4, ~10 KB of code) in the first load.
/// Exact while `|x| × 10^places` is below 2^53; whole units beyond.
pub fn decimal(x: f64, places: u32) -> String {
    if !x.is_finite() {
        return "0".into();
    }
    let places = places.min(15);
    let scale = 10u64.pow(places);
    let mut n = (x * scale as f64).round_ties_even();
    // `x × 10^places` rounded once may land on a half the exact product is
    // not on (0.35 × 10 is 3.5, 0.35 is below 0.35): the fused remainder
    // says which side the exact value is.
    let r = x.mul_add(scale as f64, -n);
    if r > 0.5 {
        n += 1.0;
    } else if r < -0.5 {
        n -= 1.0;
    }
    if !n.is_finite() || n.abs() >= 9_007_199_254_740_992.0 {
        // Beyond what the decimals can be told from: whole units (saturating).
        return (x.round_ties_even() as i64).to_string();
    }
    let n = n as i64;
    let (int, frac) = (n.unsigned_abs() / scale, n.unsigned_abs() % scale);
    let mut out = String::new();
    if n < 0 {
        out.push('-');
    }
    out.push_str(&int.to_string());
    if places > 0 {
        out.push_str(&format!(".{frac:0width$}", width = places as usize));
    }
    out
}

/// The largest character boundary of `text` at or before byte `at` (`text`'s
/// length when `at` is beyond it): where to cut so as not to split a
/// character. (`str::floor_char_boundary` is newer than the workspace's
/// rust-version.)
pub fn floor_boundary(text: &str, at: usize) -> usize {
    let mut cut = at.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    cut
}

/// Plain text longer than this many bytes is shown cut, with a note and an
/// action to show it all (a browser lays out tens of megabytes of text for
/// seconds). Copy, Download and the exports keep the whole text.
pub const PLAIN_MAX_BYTES: usize = 200_000;

/// The first `max_bytes` of `text` (cut at a character boundary, after the
/// last line break in its final quarter when there is one), and how many
/// characters the cut leaves out (0: `text` is whole).
pub fn head(text: &str, max_bytes: usize) -> (&str, usize) {
    if text.len() <= max_bytes {
        return (text, 0);
    }
    let mut cut = floor_boundary(text, max_bytes);
    let from = cut - cut / 4;
    if let Some(nl) = text.as_bytes()[from..cut].iter().rposition(|&b| b == b'\n') {
        cut = from + nl + 1;
    }
    (&text[..cut], text[cut..].chars().count())
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
    #[test]
    fn decimal_writes_what_format_writes_without_its_float_printer() {
        assert_eq!(super::decimal(12.5, 3), "12.500");
        assert_eq!(super::decimal(120.0, 0), "120");
        assert_eq!(super::decimal(0.0, 2), "0.00");
        assert_eq!(super::decimal(-0.25, 1), "-0.2");
        assert_eq!(super::decimal(0.25, 1), "0.2", "half to even, as format! does");
        assert_eq!(super::decimal(0.35, 1), "0.3", "0.35 is below 0.35 in binary");
        assert_eq!(super::decimal(36.7254, 1), "36.7");
        assert_eq!(super::decimal(62.0, 1), "62.0");
        assert_eq!(super::decimal(1e300, 1), "9223372036854775807");
        assert_eq!(super::decimal(f64::NAN, 1), "0");
        assert_eq!(super::decimal(f64::INFINITY, 3), "0");
        assert_eq!(super::decimal(0.001, 3), "0.001");
        assert_eq!(super::decimal(-3.0, 0), "-3");
        // Against `format!`, on values as the app has them: heights in px,
        // percentages, megabytes.
        let mut s: u64 = 0x2545_F491_4F6C_DD1D;
        let mut differ = 0;
        for i in 0..100_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = (s % 100_000_000) as f64 / [1.0, 7.0, 1000.0, 1e6][i % 4];
            for places in [0u32, 1, 3] {
                let want = format!("{x:.*}", places as usize);
                if super::decimal(x, places) != want {
                    differ += 1;
                }
            }
        }
        assert_eq!(differ, 0, "{differ} of 300,000 differ");
    }

    #[test]
    fn floor_boundary_never_splits_a_character() {
        assert_eq!(floor_boundary("aé", 0), 0);
        assert_eq!(floor_boundary("aé", 2), 1, "inside é: before it");
        assert_eq!(floor_boundary("aé", 3), 3);
        assert_eq!(floor_boundary("aé", 99), 3, "beyond the end: the length");
    }

    #[test]
    fn head_cuts_long_text_at_a_boundary() {
        assert_eq!(head("short", 10), ("short", 0));
        // A multi-byte character straddling the limit is left out whole.
        let (h, rest) = head("aé", 2);
        assert_eq!((h, rest), ("a", 1));
        // A line break in the last quarter is preferred.
        let text = format!("{}\n{}", "x".repeat(90), "y".repeat(50));
        let (h, rest) = head(&text, 100);
        assert_eq!(h.len(), 91);
        assert!(h.ends_with('\n'));
        assert_eq!(rest, 50);
        // Without one, the cut is at the limit; nothing is lost in the count.
        let long = "é".repeat(1_000);
        let (h, rest) = head(&long, 301);
        assert_eq!(h.chars().count() + rest, 1_000);
        assert_eq!(h.len(), 300);
    }

    use super::*;

    #[test]
    fn absurd_mark_runs_are_cut_and_counted() {
        let zalgo = format!("a{}b", "\u{301}".repeat(80_000));
        let c = collapse_marks(&zalgo);
        assert_eq!(c.hidden, 80_000 - (MAX_CLUSTER_CHARS - 1));
        let kept = format!("a{}", "\u{301}".repeat(MAX_CLUSTER_CHARS - 1));
        assert_eq!(c.text, format!("{kept}\u{27e8}+79,969 combining marks\u{27e9}b"));
        // Several clusters, each cut on its own, each with its marker.
        let two = format!("x{m}y{m}", m = "\u{489}".repeat(40));
        let c = collapse_marks_to(&two, 5);
        let m4 = "\u{489}".repeat(4);
        assert_eq!(c.text, format!("x{m4}⟨+36 combining marks⟩y{m4}⟨+36 combining marks⟩"));
        assert_eq!(c.hidden, 2 * 36);
        assert_eq!(marker(1), "⟨+1 combining mark⟩");
        assert_eq!(shown(&zalgo), c_text(&zalgo));
    }

    fn c_text(s: &str) -> String {
        collapse_marks(s).text.into_owned()
    }

    #[test]
    fn joining_table_is_unicode_segmentations() {
        use unicode_segmentation::UnicodeSegmentation;
        for u in 0..=0x10FFFFu32 {
            let Some(c) = char::from_u32(u) else { continue };
            let one = format!("a{c}").graphemes(true).count() == 1;
            assert_eq!(joins(c), one, "U+{u:04X}");
        }
        assert!(JOINING_BMP.windows(2).all(|w| w[0].1 < w[1].0), "sorted, disjoint");
        assert!(JOINING.windows(2).all(|w| w[0].1 < w[1].0), "sorted, disjoint");
    }

    #[test]
    fn legitimate_combining_sequences_stay_whole() {
        for t in [
            // ZWJ emoji sequences: family with skin tones (the longest kind), a flag, a tag flag, keycaps.
            "👨🏻\u{200d}👩🏻\u{200d}👧🏻\u{200d}👦🏻 🧑🏽\u{200d}🤝\u{200d}🧑🏿 🏳\u{fe0f}\u{200d}🌈 🏴\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f} 1\u{fe0f}\u{20e3}",
            // Hangul: precomposed syllables and conjoining jamo (L V T, and old Hangul with doubled jamo).
            "한국어 텍스트 \u{1100}\u{1161}\u{11a8} \u{1112}\u{1161}\u{11ab}\u{1100}\u{1173}\u{11af} \u{1109}\u{1109}\u{1161}\u{11a8}\u{11a8}",
            // Devanagari conjuncts with viramas and signs: क्ष्म्य, श्री, हिन्दी.
            "\u{915}\u{94d}\u{937}\u{94d}\u{92e}\u{94d}\u{92f} श्री हिन्दी भाषा में लिखा गया पाठ",
            // Thai with stacked tone and vowel marks.
            "ภาษาไทย กิ่ง ที่ น้ำ ผู้ใหญ่ \u{e01}\u{e34}\u{e48}",
            // Vietnamese, cantillated Hebrew, Arabic with harakat.
            "Tiếng Việt: người được những", "בְּרֵאשִׁ֖ית בָּרָ֣א", "العَرَبِيَّة",
        ] {
            let c = collapse_marks(t);
            assert!(matches!(c.text, Cow::Borrowed(_)) && c.hidden == 0, "{t}");
        }
    }

    use unicode_segmentation::UnicodeSegmentation;

    proptest::proptest! {
        /// With a small limit, over text mixing bases, marks, ZWJ and emoji:
        /// nothing but whole marks is hidden (kept + hidden = all), no
        /// cluster of the result is over the limit, a second pass changes
        /// nothing, and text with no long cluster comes back as it is.
        #[test]
        fn collapsing_keeps_counts_and_is_stable(
            s in "[ab\u{e9}\u{300}-\u{36f}\u{489}\u{200d}\u{fe0f}\u{1f468}\u{1f3fb}\u{915}\u{94d}\u{e01}\u{e48}\u{1100}\u{1161}\u{11a8} ]{0,120}",
            max in 1usize..8,
        ) {
            let c = collapse_marks_to(&s, max);
            // The text without its markers: the input with marks left out.
            let mut plain = String::new();
            let mut rest = &*c.text;
            while let Some(i) = rest.find('\u{27e8}') {
                plain.push_str(&rest[..i]);
                let j = i + rest[i..].find('\u{27e9}').expect("a marker ends");
                rest = &rest[j + '\u{27e9}'.len_utf8()..];
            }
            plain.push_str(rest);
            proptest::prop_assert_eq!(plain.chars().count() + c.hidden, s.chars().count());
            let mut input = s.chars();
            proptest::prop_assert!(plain.chars().all(|k| input.any(|x| x == k)), "kept characters in order");
            // No run of joined characters in the result is over the limit.
            let (mut run, mut most, mut prev_jamo) = (0usize, 0usize, false);
            for k in c.text.chars() {
                run = if joins(k) || (is_jamo(k) && prev_jamo) { run + 1 } else { 1 };
                prev_jamo = is_jamo(k);
                most = most.max(run);
            }
            proptest::prop_assert!(most <= max, "a run of {} in {:?}", most, c.text);
            let again = collapse_marks_to(&c.text, max);
            proptest::prop_assert_eq!(again.hidden, 0);
            if s.graphemes(true).all(|g| g.chars().count() <= max) && !s.chars().any(|k| k == '\u{200d}' || is_jamo(k)) {
                proptest::prop_assert!(matches!(c.text, Cow::Borrowed(_)));
                proptest::prop_assert_eq!(c.hidden, 0);
            }
        }
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
