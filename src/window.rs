//! The conversation's window: which rows to render so that only what is near
//! the viewport is in the DOM, whatever the document's size.
//!
//! Pure arithmetic over heights (no browser API, tested natively). The
//! conversation is a list of *rows*: each message is a *head* row (its
//! bubble's frame: header, drop reason, padding, the gap after it) followed
//! by one row per *chunk* of up to [`CHUNK`] segments, so that a message with
//! 100,000 segments is windowed like 10,000 small messages. Each row's height
//! starts as an estimate from its content ([`SegmentSize`]) and becomes its
//! measured height once rendered; offsets and "which row is at y" are
//! O(log n) through a Fenwick tree.

use std::ops::Range;

use envelope::{MediaType, Segment};

/// Segments per chunk: the unit of rendering inside a message.
pub const CHUNK: usize = 10;
/// Space after each message bubble (`.messages > .msg` margin-bottom in
/// style/main.css): part of its head row.
pub const MSG_GAP: f64 = 12.0;
/// Space between segments (`.chunk` gap, and the top padding of every chunk
/// but a message's first, in style/main.css).
pub const SEG_GAP: f64 = 8.0;
/// Estimated height of a head row (header line, frame, gap).
pub const HEAD_ESTIMATE: f64 = 60.0;
/// No row is thinner than this (a zero-height row would make "the row at y"
/// ambiguous).
const MIN_ROW: f64 = 1.0;

/// What a row shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    /// A message's frame and header.
    Head(usize),
    /// Segments `chunk * CHUNK ..` of a message.
    Chunk { message: usize, chunk: usize },
}

/// The chunk that holds segment `segment`.
pub fn chunk_of(segment: usize) -> usize {
    segment / CHUNK
}

/// The segments of chunk `chunk` in a message of `len` segments.
pub fn chunk_segments(chunk: usize, len: usize) -> Range<usize> {
    (chunk * CHUNK).min(len)..((chunk + 1) * CHUNK).min(len)
}

/// How many chunks a message of `len` segments has.
pub fn chunk_count(len: usize) -> usize {
    len.div_ceil(CHUNK)
}

/// Rows `start..end` are rendered (with the head row of every message they
/// touch, so a message's header is always there while any of it is).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn is_empty(&self) -> bool {
        self.start >= self.end
    }

    /// Whether the two spans share a row.
    pub fn overlaps(&self, other: Span) -> bool {
        self.start < other.end && other.start < self.end
    }
}

/// What one rendered message shows: chunks `first..end`, and the height of
/// the chunks left out above and below (padding in the bubble's body).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Part {
    pub first: usize,
    pub end: usize,
    pub above: f64,
    pub below: f64,
}

/// Heights of the conversation's rows: estimates, then measurements.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The head row of each message, then the row count.
    first_row: Vec<usize>,
    heights: Vec<f64>,
    measured: Vec<bool>,
    tree: Fenwick,
}

impl Layout {
    /// Rows for messages of `segments[m]` segments each; `estimate` gives each
    /// row's first height.
    pub fn new(segments: impl IntoIterator<Item = usize>, mut estimate: impl FnMut(Row) -> f64) -> Layout {
        let mut first_row = Vec::new();
        let mut heights = Vec::new();
        for (m, len) in segments.into_iter().enumerate() {
            first_row.push(heights.len());
            heights.push(estimate(Row::Head(m)).max(MIN_ROW));
            for chunk in 0..chunk_count(len) {
                heights.push(estimate(Row::Chunk { message: m, chunk }).max(MIN_ROW));
            }
        }
        first_row.push(heights.len());
        let tree = Fenwick::build(&heights);
        let measured = vec![false; heights.len()];
        Layout { first_row, heights, measured, tree }
    }

    pub fn messages(&self) -> usize {
        self.first_row.len() - 1
    }

    pub fn rows(&self) -> usize {
        self.heights.len()
    }

    /// The head row of message `m`.
    pub fn head(&self, m: usize) -> usize {
        self.first_row[m]
    }

    /// The row of chunk `c` of message `m`.
    pub fn chunk_row(&self, m: usize, c: usize) -> usize {
        self.first_row[m] + 1 + c
    }

    pub fn chunks(&self, m: usize) -> usize {
        self.first_row[m + 1] - self.first_row[m] - 1
    }

    /// The message a row belongs to.
    pub fn message_of(&self, row: usize) -> usize {
        self.first_row.partition_point(|&f| f <= row).saturating_sub(1).min(self.messages().saturating_sub(1))
    }

    pub fn row(&self, row: usize) -> Row {
        let m = self.message_of(row);
        if row == self.first_row[m] {
            Row::Head(m)
        } else {
            Row::Chunk { message: m, chunk: row - self.first_row[m] - 1 }
        }
    }

    /// Top of `row` from the top of the list (`row == rows()`: the total).
    pub fn offset(&self, row: usize) -> f64 {
        self.tree.prefix(row)
    }

    pub fn height(&self, row: usize) -> f64 {
        self.heights[row]
    }

    pub fn total(&self) -> f64 {
        self.offset(self.rows())
    }

    pub fn is_measured(&self, row: usize) -> bool {
        self.measured[row]
    }

    /// The row at offset `y` (clamped to the list).
    pub fn row_at(&self, y: f64) -> usize {
        self.tree.count_upto(y.max(0.0)).min(self.rows().saturating_sub(1))
    }

    fn set(&mut self, row: usize, h: f64) -> f64 {
        let h = h.max(MIN_ROW);
        let delta = h - self.heights[row];
        if delta != 0.0 {
            self.heights[row] = h;
            self.tree.add(row, delta);
        }
        delta
    }

    /// A rendered row's measured height; returns the change.
    pub fn measure(&mut self, row: usize, h: f64) -> f64 {
        self.measured[row] = true;
        self.set(row, h)
    }

    /// Message `m`'s bubble measured `frame` tall (its chunks included, the
    /// ones left out as padding): the head row is what the chunks do not
    /// account for, plus the gap after the bubble.
    pub fn measure_frame(&mut self, m: usize, frame: f64) -> f64 {
        let chunks = self.offset(self.first_row[m + 1]) - self.offset(self.first_row[m] + 1);
        self.measure(self.first_row[m], frame + MSG_GAP - chunks)
    }

    /// A new estimate for `row` (its content's state changed): replaces the
    /// measurement too, which no longer holds.
    pub fn reestimate(&mut self, row: usize, h: f64) -> f64 {
        self.measured[row] = false;
        self.set(row, h)
    }

    /// New estimates for many rows at once (an "Expand all"): one pass over
    /// the tree instead of one update per row.
    pub fn reestimate_many(&mut self, heights: impl IntoIterator<Item = (usize, f64)>) {
        let mut n = 0;
        for (row, h) in heights {
            self.measured[row] = false;
            self.heights[row] = h.max(MIN_ROW);
            n += 1;
        }
        if n > 0 {
            self.tree = Fenwick::build(&self.heights);
        }
    }

    /// The rows overlapping `top..bottom` (offsets), at least one row when
    /// there is any.
    pub fn span(&self, top: f64, bottom: f64) -> Span {
        if self.rows() == 0 {
            return Span::default();
        }
        let start = self.row_at(top);
        let end = (self.row_at(bottom.max(top)) + 1).max(start + 1);
        Span { start, end }
    }

    /// Whether `span` renders everything in `top..bottom` (clamped to the list).
    pub fn covers(&self, span: Span, top: f64, bottom: f64) -> bool {
        if self.rows() == 0 {
            return true;
        }
        if span.is_empty() {
            return false;
        }
        let top = top.max(0.0);
        let bottom = bottom.min(self.total());
        self.offset(span.start) <= top + 0.5 && self.offset(span.end) >= bottom - 0.5
    }

    /// The first and last message `span` touches.
    pub fn messages_of(&self, span: Span) -> Option<(usize, usize)> {
        (!span.is_empty()).then(|| (self.message_of(span.start), self.message_of(span.end - 1)))
    }

    /// Space above the first rendered message and below the last.
    pub fn pads(&self, span: Span) -> (f64, f64) {
        match self.messages_of(span) {
            None => (0.0, self.total()),
            Some((first, last)) => {
                let top = self.offset(self.first_row[first]);
                (top, (self.total() - self.offset(self.first_row[last + 1])).max(0.0))
            }
        }
    }

    /// What message `m` shows for `span` (`m` one of its messages).
    pub fn part(&self, span: Span, m: usize) -> Part {
        let (head, next) = (self.first_row[m], self.first_row[m + 1]);
        let chunks = next - head - 1;
        let first = if span.start > head { (span.start - head - 1).min(chunks) } else { 0 };
        let end = if span.end < next { span.end.saturating_sub(head + 1).clamp(first, chunks) } else { chunks };
        let chunk_top = |c: usize| self.offset(head + 1 + c);
        Part { first, end, above: chunk_top(first) - chunk_top(0), below: chunk_top(chunks) - chunk_top(end) }
    }
}

/// Prefix sums with O(log n) update and search (values ≥ 0).
#[derive(Clone, Debug)]
struct Fenwick {
    /// 1-based.
    t: Vec<f64>,
}

impl Fenwick {
    fn build(values: &[f64]) -> Fenwick {
        let n = values.len();
        let mut t = vec![0.0; n + 1];
        for i in 1..=n {
            t[i] += values[i - 1];
            let j = i + (i & i.wrapping_neg());
            if j <= n {
                t[j] += t[i];
            }
        }
        Fenwick { t }
    }

    fn add(&mut self, index: usize, delta: f64) {
        let mut i = index + 1;
        while i < self.t.len() {
            self.t[i] += delta;
            i += i & i.wrapping_neg();
        }
    }

    /// Sum of the first `n` values.
    fn prefix(&self, n: usize) -> f64 {
        let mut i = n.min(self.t.len() - 1);
        let mut s = 0.0;
        while i > 0 {
            s += self.t[i];
            i -= i & i.wrapping_neg();
        }
        s
    }

    /// How many leading values sum to at most `y`: the index of the value
    /// that contains offset `y`.
    fn count_upto(&self, y: f64) -> usize {
        let n = self.t.len() - 1;
        if n == 0 {
            return 0;
        }
        let mut pos = 0;
        let mut rest = y;
        let mut step = 1 << (usize::BITS - 1 - n.leading_zeros());
        while step > 0 {
            if pos + step <= n && self.t[pos + step] <= rest {
                pos += step;
                rest -= self.t[pos];
            }
            step >>= 1;
        }
        pos
    }
}

// ---- estimates ---------------------------------------------------------

/// Text whose height depends on the width: characters and hard line breaks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TextAmount {
    pub chars: u32,
    pub breaks: u32,
    /// Monospace (12.5 px) rather than prose (14 px).
    pub mono: bool,
}

impl TextAmount {
    pub fn prose(s: &str) -> TextAmount {
        TextAmount::of(s, false)
    }

    pub fn mono(s: &str) -> TextAmount {
        TextAmount::of(s, true)
    }

    fn of(s: &str, mono: bool) -> TextAmount {
        let breaks = s.bytes().filter(|&b| b == b'\n').count();
        TextAmount { chars: sat(s.len()), breaks: sat(breaks), mono }
    }

    fn plus(self, other: TextAmount) -> TextAmount {
        TextAmount {
            chars: self.chars.saturating_add(other.chars),
            breaks: self.breaks.saturating_add(other.breaks),
            mono: self.mono,
        }
    }

    /// Height in px at `width` px: wrapped lines plus one per break.
    pub fn height(&self, width: f64) -> f64 {
        if self.chars == 0 {
            return 0.0;
        }
        let (char_w, line_h) = if self.mono { (7.6, 19.4) } else { (7.2, 21.7) };
        let per_line = (width / char_w).max(10.0);
        let lines = (self.chars as f64 / per_line).ceil() + self.breaks as f64;
        lines.max(1.0) * line_h
    }
}

fn sat(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A segment's estimated height with its own toggle closed and open: a
/// fixed part (headers, cards) and text that wraps with the width.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SegmentSize {
    pub closed: (f64, TextAmount),
    pub open: (f64, TextAmount),
    /// The open body scrolls beyond this height (tool results).
    pub open_max: Option<f64>,
}

impl SegmentSize {
    fn fixed(h: f64) -> SegmentSize {
        SegmentSize { closed: (h, TextAmount::default()), open: (h, TextAmount::default()), open_max: None }
    }

    /// The estimate for a segment (heights from style/main.css, roughly).
    pub fn of(segment: &Segment) -> SegmentSize {
        const PANEL: f64 = 42.0;
        const HEAD: f64 = 36.0;
        let none = TextAmount::default();
        // The cache breakpoint's mark after the segment.
        let mark = if segment.cache_control().is_some() { 26.0 } else { 0.0 };
        let size = match segment {
            Segment::Text(t) => {
                let text = TextAmount::prose(&t.content);
                SegmentSize { closed: (4.0, text), open: (4.0, text), open_max: None }
            }
            Segment::StaticVar(_) => SegmentSize::fixed(26.0),
            Segment::SystemPrompt(s) => SegmentSize {
                closed: (PANEL, none),
                open: (PANEL + 20.0, TextAmount::prose(&s.content)),
                open_max: None,
            },
            Segment::Memory(s) => {
                let sub = if s.description.is_some() { 18.0 } else { 0.0 };
                let text = s.items.iter().fold(TextAmount::prose(""), |a, i| {
                    a.plus(TextAmount::prose(&i.content)).plus(TextAmount { chars: 0, breaks: 1, mono: false })
                });
                SegmentSize { closed: (PANEL + sub, none), open: (PANEL + sub + 20.0, text), open_max: None }
            }
            Segment::Skills(s) => {
                let sub = if s.description.is_some() { 18.0 } else { 0.0 };
                let text = s.items.iter().fold(TextAmount::prose(""), |a, i| a.plus(TextAmount::prose(&i.description)));
                let rows = 40.0 * s.items.len() as f64;
                SegmentSize { closed: (PANEL + sub, none), open: (PANEL + sub + 20.0 + rows, text), open_max: None }
            }
            Segment::ToolOverview(s) => {
                let text = s.items.iter().fold(TextAmount::prose(""), |a, i| a.plus(TextAmount::prose(&i.description)));
                let rows = 34.0 * s.items.len() as f64;
                SegmentSize { closed: (PANEL, none), open: (PANEL + 20.0 + rows, text), open_max: None }
            }
            Segment::ToolCallRequest(s) => {
                let rows = 26.0 * s.arguments.len().max(1) as f64;
                SegmentSize { closed: (HEAD, none), open: (HEAD + 16.0 + rows, none), open_max: None }
            }
            Segment::ToolCallResult(s) => {
                // Content blocks below the text: images (thumbnails) and cards; text blocks are the text.
                let blocks: f64 = s
                    .content
                    .iter()
                    .flatten()
                    .map(|b| match b.get("type").and_then(serde_json::Value::as_str) {
                        Some("text") => 0.0,
                        Some("image") => 310.0,
                        _ => 30.0,
                    })
                    .sum();
                SegmentSize {
                    closed: (HEAD, none),
                    open: (HEAD + 20.0 + blocks, TextAmount::mono(&s.result)),
                    open_max: Some(HEAD + 420.0 + blocks),
                }
            }
            Segment::Document(d) => {
                let refs = [d.url.is_some(), d.file_id.is_some(), d.data.is_some()].iter().filter(|b| **b).count();
                let card = 76.0
                    + 18.0 * refs as f64
                    + if d.parsed_content.as_deref().is_some_and(|p| !p.is_empty()) { 30.0 } else { 0.0 };
                let snippet = TextAmount::prose(&d.snippet);
                let parsed = d.parsed_content.as_deref().map(TextAmount::mono).unwrap_or_default();
                SegmentSize { closed: (card, snippet), open: (card + 16.0, snippet.plus(parsed)), open_max: None }
            }
            Segment::LongText(s) => {
                let preview = TextAmount { chars: 0, breaks: 1, mono: true };
                SegmentSize { closed: (44.0, preview), open: (44.0, TextAmount::mono(&s.content)), open_max: None }
            }
            Segment::Media(m) => SegmentSize::fixed(match m.media_type {
                MediaType::Image => 220.0,
                MediaType::Audio => 120.0,
                MediaType::Video => 300.0,
            }),
            Segment::Reasoning(r) => {
                let summary =
                    r.summary.iter().flatten().fold(TextAmount::prose(""), |a, s| a.plus(TextAmount::prose(s)));
                SegmentSize {
                    closed: (HEAD, none),
                    open: (HEAD + 20.0, TextAmount::prose(&r.content).plus(summary)),
                    open_max: None,
                }
            }
            Segment::ProviderBlock(b) => {
                // Roughly one line per top-level field (nested values measure when shown).
                let rows = 18.0 * (b.block.len() + 2) as f64;
                SegmentSize { closed: (HEAD, none), open: (HEAD + 20.0 + rows, none), open_max: Some(HEAD + 420.0) }
            }
        };
        size.plus_fixed(mark)
    }

    /// The same with `h` px more, open or closed.
    fn plus_fixed(self, h: f64) -> SegmentSize {
        SegmentSize {
            closed: (self.closed.0 + h, self.closed.1),
            open: (self.open.0 + h, self.open.1),
            open_max: self.open_max.map(|m| m + h),
        }
    }

    /// Height in px at text width `width`.
    pub fn height(&self, open: bool, width: f64) -> f64 {
        let (fixed, text) = if open { self.open } else { self.closed };
        let h = fixed + text.height(width);
        match (open, self.open_max) {
            (true, Some(max)) => h.min(max),
            _ => h,
        }
    }
}

/// Whether a segment's own toggle starts open: the document's `collapsed`,
/// or closed for a document's parsed content (kinds without a toggle: open);
/// a system prompt of one short line is open whatever its `collapsed`.
pub fn default_open(segment: &Segment) -> bool {
    match segment {
        Segment::Document(_) => false,
        Segment::SystemPrompt(p) if one_short_line(&p.content) => true,
        s => s.collapsed().is_none_or(|c| !c),
    }
}

/// The longest system prompt, in characters, that always shows open.
pub const SHORT_LINE: usize = 200;

/// Whether `text` is one short line (no line break once trimmed, at most
/// [`SHORT_LINE`] characters): a system prompt that says only this shows
/// open, as folding it would only hide it behind a click
/// (docs/DECISIONS.md, "A one-line system prompt shows open").
pub fn one_short_line(text: &str) -> bool {
    let t = text.trim();
    t.len() <= 4 * SHORT_LINE && t.chars().nth(SHORT_LINE).is_none() && !t.bytes().any(|b| b == b'\n' || b == b'\r')
}

/// A chunk's estimated height: its segments and the gaps between them.
pub fn chunk_estimate(heights: impl IntoIterator<Item = f64>, first_of_message: bool) -> f64 {
    let mut n = 0usize;
    let mut sum = 0.0;
    for h in heights {
        sum += h;
        n += 1;
    }
    let gaps = n.saturating_sub(1) as f64 * SEG_GAP;
    sum + gaps + if first_of_message { 0.0 } else { SEG_GAP }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages of these sizes; every head 50 px, every chunk 100 px.
    fn layout(sizes: &[usize]) -> Layout {
        Layout::new(sizes.iter().copied(), |r| match r {
            Row::Head(_) => 50.0,
            Row::Chunk { .. } => 100.0,
        })
    }

    #[test]
    fn a_one_line_system_prompt_starts_open() {
        let prompt = |content: &str, collapsed: bool| {
            Segment::SystemPrompt(envelope::SystemPrompt {
                content: content.into(),
                collapsed,
                ext: Default::default(),
            })
        };
        assert!(default_open(&prompt("Be brief.", true)), "one short line: open");
        assert!(default_open(&prompt("  Be brief.\n", true)), "trailing whitespace aside");
        assert!(default_open(&prompt(&"é".repeat(SHORT_LINE), true)), "200 characters");
        assert!(!default_open(&prompt(&"é".repeat(SHORT_LINE + 1), true)), "201: as the document says");
        assert!(!default_open(&prompt("Line one\nline two", true)), "two lines: as the document says");
        assert!(default_open(&prompt("Line one\nline two", false)));
        assert!(!default_open(&prompt("a\r\nb", true)));
    }

    #[test]
    fn chunks_split_messages() {
        assert_eq!(chunk_count(0), 0);
        assert_eq!(chunk_count(1), 1);
        assert_eq!(chunk_count(CHUNK), 1);
        assert_eq!(chunk_count(CHUNK + 1), 2);
        assert_eq!(chunk_segments(1, CHUNK + 3), CHUNK..CHUNK + 3);
        assert_eq!(chunk_of(CHUNK * 7 + 2), 7);
        let l = layout(&[3, 0, 100_000]);
        assert_eq!(l.rows(), 2 + 1 + 1 + 10_000);
        assert_eq!(l.chunks(2), 10_000);
        assert_eq!(l.row(l.chunk_row(2, 9_999)), Row::Chunk { message: 2, chunk: 9_999 });
        assert_eq!(l.row(2), Row::Head(1));
        assert_eq!(l.message_of(l.rows() - 1), 2);
    }

    #[test]
    fn offsets_and_lookup_agree() {
        let l = layout(&[2, 0, 25]);
        // rows: H0 50, C 100, H1 50, H2 50, C 100 ×3
        assert_eq!(l.offset(0), 0.0);
        assert_eq!(l.offset(2), 150.0);
        assert_eq!(l.offset(4), 250.0);
        assert_eq!(l.total(), 550.0);
        assert_eq!(l.row_at(0.0), 0);
        assert_eq!(l.row_at(49.9), 0);
        assert_eq!(l.row_at(50.0), 1);
        assert_eq!(l.row_at(249.0), 3);
        assert_eq!(l.row_at(1e9), l.rows() - 1);
        assert_eq!(l.row_at(-5.0), 0);
        for y in (0..550).step_by(7) {
            let r = l.row_at(y as f64);
            assert!(l.offset(r) <= y as f64 && (y as f64) < l.offset(r + 1), "y {y} row {r}");
        }
    }

    #[test]
    fn measurements_move_what_follows() {
        let mut l = layout(&[2, 2, 2]);
        let before = l.offset(4);
        assert_eq!(l.measure(1, 130.0), 30.0);
        assert!(l.is_measured(1) && !l.is_measured(0));
        assert_eq!(l.offset(4), before + 30.0);
        // The frame of message 1 is 200 tall with its chunk at 100: head = 200 + gap - 100.
        l.measure_frame(1, 200.0);
        assert_eq!(l.height(l.head(1)), 100.0 + MSG_GAP);
        // A new estimate clears the measurement.
        l.reestimate(1, 90.0);
        assert!(!l.is_measured(1));
        assert_eq!(l.height(1), 90.0);
        l.reestimate_many([(0, 10.0), (2, 20.0)]);
        assert_eq!((l.height(0), l.height(2)), (10.0, 20.0));
        assert_eq!(l.offset(3), 10.0 + 90.0 + 20.0);
        // Zero heights are clamped so every offset has one row.
        l.measure(3, 0.0);
        assert_eq!(l.height(3), 1.0);
    }

    #[test]
    fn spans_cover_and_pads_add_up() {
        let l = layout(&[25, 25, 25, 25]); // each message: 50 + 3 × 100 = 350
        assert_eq!(l.total(), 1400.0);
        let s = l.span(400.0, 800.0);
        // 400 is in message 1's first chunk (400..500), 800 in message 2's (750..850).
        assert_eq!(l.row(s.start), Row::Chunk { message: 1, chunk: 0 });
        assert_eq!(l.messages_of(s), Some((1, 2)));
        assert!(l.covers(s, 400.0, 800.0));
        assert!(!l.covers(s, 300.0, 800.0));
        let (top, bottom) = l.pads(s);
        assert_eq!((top, bottom), (350.0, 350.0));
        let p1 = l.part(s, 1);
        assert_eq!((p1.first, p1.end, p1.above, p1.below), (0, 3, 0.0, 0.0));
        let p2 = l.part(s, 2);
        assert_eq!((p2.first, p2.end), (0, 1));
        assert_eq!((p2.above, p2.below), (0.0, 200.0));
        // A span in the middle of one big message leaves chunks out above and below.
        let l = layout(&[1000]);
        let s = l.span(5_000.0, 6_000.0);
        let p = l.part(s, 0);
        assert_eq!(l.messages_of(s), Some((0, 0)));
        assert_eq!(p.first, 49);
        assert_eq!(p.above, 4_900.0);
        // head 50 + rendered chunks + above + below = the whole message.
        let rendered: f64 = (p.first..p.end).map(|c| l.height(l.chunk_row(0, c))).sum();
        assert_eq!(50.0 + p.above + rendered + p.below, l.total());
        assert_eq!(l.pads(s), (0.0, 0.0));
    }

    #[test]
    fn an_empty_document_renders_nothing() {
        let l = layout(&[]);
        assert_eq!(l.rows(), 0);
        assert_eq!(l.total(), 0.0);
        assert!(l.span(0.0, 100.0).is_empty());
        assert!(l.covers(Span::default(), 0.0, 100.0));
        assert_eq!(l.messages_of(Span::default()), None);
    }

    #[test]
    fn fenwick_matches_naive_sums_after_updates() {
        let values: Vec<f64> = (0..1000).map(|i| ((i * 37) % 91 + 1) as f64).collect();
        let mut f = Fenwick::build(&values);
        let mut v = values.clone();
        for k in 0..200 {
            let i = (k * 7919) % v.len();
            let d = (k % 13) as f64 - 4.0;
            if v[i] + d > 0.0 {
                v[i] += d;
                f.add(i, d);
            }
        }
        let mut sum = 0.0;
        for (i, x) in v.iter().enumerate() {
            assert!((f.prefix(i) - sum).abs() < 1e-9);
            assert_eq!(f.count_upto(sum), i, "at {i}");
            sum += x;
        }
    }

    #[test]
    fn estimates_grow_with_text_and_open_state() {
        let short = TextAmount::prose("hello");
        let long = TextAmount::prose(&"word ".repeat(400));
        assert!(long.height(700.0) > 10.0 * short.height(700.0));
        assert!(long.height(300.0) > long.height(700.0), "narrower is taller");
        assert_eq!(TextAmount::prose("").height(700.0), 0.0);
        let lines = TextAmount::mono("a\nb\nc");
        assert_eq!(lines.breaks, 2);
        let seg = Segment::ToolCallResult(envelope::ToolCallResult {
            tool_name: "t".into(),
            result: "line\n".repeat(1000),
            success: true,
            collapsed: true,
            call_id: None,
            content: None,
            ext: Default::default(),
        });
        let size = SegmentSize::of(&seg);
        assert!(size.height(true, 700.0) > size.height(false, 700.0));
        assert_eq!(size.height(true, 700.0), 36.0 + 420.0, "the body scrolls past 420 px");
        assert_eq!(chunk_estimate([10.0, 20.0], true), 30.0 + SEG_GAP);
        assert_eq!(chunk_estimate([10.0], false), 10.0 + SEG_GAP);
    }
}
