//! Files that hold many calls (`envelope::recorded`): telling them from a
//! single document, and reading them as a stream of calls.
//!
//! A file is *recorded* when it is JSON Lines (its first non-blank line is a
//! whole JSON value and another line follows: OTLP exports, batch lines,
//! request bodies or envelopes one a line), or one JSON document that is an
//! OTLP export (traces, logs, metrics) or a batch (`{"requests": [...]}`, a
//! `custom_id` request). Anything else is a *single* document, read by the
//! commands as they always did.
//!
//! JSON Lines are read line by line ([`BufRead`]), never whole: with one file
//! through [`Reader::windowed`] (a span waits at most `window` lines for its
//! log events), with several through [`Reader::new`] (a trace file and its
//! log file given one after the other join whatever their size). Calls come
//! out in start order through [`Ordered`], which holds at most `window` of
//! them: a call more than `window` calls out of order is written in the
//! order it was read.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::sync::Mutex;

use envelope::diag::Rule;
use envelope::locate::{SourceMap, Step};
use envelope::recorded::{self, otlp, At, Call, Folding, Note, Reader};
use serde_json::Value;

/// `--window`'s default.
pub const DEFAULT_WINDOW: u64 = 4096;

/// `--window`: shared by the commands that read files of many calls.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct Window {
    /// Files of many calls: how many lines a span waits for its log events
    /// (one file; given several, a trace file and its log file join whatever
    /// their size), and how many calls are held to write them in start order
    /// (a call further out of order is written as read). Memory grows with
    /// it, not with the file.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_WINDOW, value_parser = clap::value_parser!(u64).range(1..))]
    pub window: u64,
}

/// What a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One document of the kind the commands always read (an envelope, a request body).
    Single,
    /// JSON Lines, read line by line.
    Lines,
    /// One document holding calls (an OTLP export, an Anthropic batch).
    Document,
}

enum Body {
    Lines(Box<dyn BufRead>),
    Bytes(Vec<u8>),
}

/// An opened input.
pub struct Input {
    pub name: String,
    pub shape: Shape,
    body: Body,
}

/// Bytes of stdin already read to tell its shape, for the single-document
/// path (`crate::read("-")`), which reads stdin whole.
static STDIN: Mutex<Option<Vec<u8>>> = Mutex::new(None);

/// The stdin bytes [`open`] read, if it did (taken once).
pub fn take_stdin() -> Option<Vec<u8>> {
    STDIN.lock().ok()?.take()
}

fn strip_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix("\u{feff}".as_bytes()).unwrap_or(b)
}

fn blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Opens `name` (`-`: stdin) and tells its shape from its first lines (a
/// document: from its top-level keys). `Err` is the line for stderr.
pub fn open(name: &str) -> Result<Input, String> {
    let mut r: Box<dyn BufRead> = if name == "-" {
        Box::new(BufReader::with_capacity(1 << 16, std::io::stdin()))
    } else {
        let f = File::open(name).map_err(|e| format!("{name}: error: cannot read: {e}"))?;
        Box::new(BufReader::with_capacity(1 << 16, f))
    };
    let cannot = |e: std::io::Error| format!("{name}: error: cannot read: {e}");
    // The head: lines up to the second non-blank one.
    let mut head = Vec::new();
    let mut first: Option<std::ops::Range<usize>> = None;
    let mut second = false;
    loop {
        let start = head.len();
        let n = r.read_until(b'\n', &mut head).map_err(cannot)?;
        if n == 0 {
            break;
        }
        if blank(&head[start..]) {
            continue;
        }
        if first.is_none() {
            first = Some(start..head.len());
        } else {
            second = true;
            break;
        }
    }
    let lines = second
        && first.as_ref().is_some_and(|f| {
            let line = if f.start == 0 { strip_bom(&head[f.clone()]) } else { &head[f.clone()] };
            serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok()
        });
    if lines {
        let body = Body::Lines(Box::new(Cursor::new(head).chain(r)));
        return Ok(Input { name: name.to_string(), shape: Shape::Lines, body });
    }
    r.read_to_end(&mut head).map_err(cannot)?;
    let shape = match serde_json::from_slice::<Value>(strip_bom(&head)) {
        Ok(Value::Object(o))
            if otlp::is_traces(&o)
                || otlp::is_logs(&o)
                || otlp::is_other_signal(&o)
                || o.contains_key("custom_id")
                || o.get("requests").is_some_and(Value::is_array) =>
        {
            Shape::Document
        }
        _ => Shape::Single,
    };
    if name == "-" && shape == Shape::Single {
        if let Ok(mut s) = STDIN.lock() {
            *s = Some(head.clone());
        }
    }
    Ok(Input { name: name.to_string(), shape, body: Body::Bytes(head) })
}

/// Every input opened, or the lines saying which could not be.
pub fn open_all(files: &[String]) -> Result<Vec<Input>, Vec<String>> {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        match open(f) {
            Ok(i) => inputs.push(i),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(inputs)
    } else {
        Err(errors)
    }
}

impl Input {
    /// The bytes of a document (empty for JSON Lines, which are never read whole).
    pub fn bytes(&self) -> &[u8] {
        match &self.body {
            Body::Bytes(b) => b,
            Body::Lines(_) => &[],
        }
    }
}

/// What the stream gives.
pub enum Item {
    Call(Box<Call>),
    /// A line or file that could not be read, with where and what.
    Error(recorded::Error),
}

/// Whether to go on reading (a closed stdout stops it).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Go,
    Stop,
}

/// What the reading saw beside the calls.
#[derive(Debug, Default)]
pub struct Summary {
    pub calls: u64,
    pub errors: u64,
    pub notes: Vec<Note>,
    pub skipped_spans: u64,
    pub late_events: u64,
}

/// A JSON syntax error's `line 1 column C` within one line, as `column C`
/// (the line is the file's, in `At`).
pub fn error_path(e: &recorded::Error) -> String {
    if e.at.line.is_some() {
        if let Some(c) = e.path.strip_prefix("line 1 column ") {
            return format!("column {c}");
        }
    }
    e.path.clone()
}

/// `FILE:LINE trace … span …: error: PATH: message`.
pub fn error_line(e: &recorded::Error) -> String {
    let path = error_path(e);
    if path.is_empty() {
        format!("{}: error: {}", e.at, e.message)
    } else {
        format!("{}: error: {path}: {}", e.at, e.message)
    }
}

/// The line of a call within a whole document: an Anthropic batch's
/// `requests[i]`, an OTLP span by its `spanId`.
fn document_line(map: &SourceMap, at: &At) -> Option<u64> {
    if let Some(i) = at.index {
        let found = map.find(&[Step::Key("requests".into()), Step::Index(i as usize)])?;
        return found.exact.then(|| map.lines.line_col(found.value.start).0 as u64);
    }
    let span = at.span_id.as_deref()?;
    let text = map.text;
    let mut from = 0;
    while let Some(k) = text[from..].find("\"spanId\"") {
        let key_end = from + k + "\"spanId\"".len();
        let rest = text[key_end..].trim_start();
        if let Some(rest) = rest.strip_prefix(':') {
            let rest = rest.trim_start();
            if let Some(v) = rest.strip_prefix('"') {
                if v.len() >= span.len()
                    && v[..span.len()].eq_ignore_ascii_case(span)
                    && v[span.len()..].starts_with('"')
                {
                    return Some(map.lines.line_col(from + k).0 as u64);
                }
            }
        }
        from = key_end;
    }
    None
}

/// Reads every input through one reader, giving each call (and each error)
/// to `each` as it completes; then what still waited. `each` returns
/// [`Flow::Stop`] to stop reading.
pub fn read(inputs: Vec<Input>, window: u64, mut each: impl FnMut(Item) -> Flow) -> Summary {
    let mut reader = if inputs.len() > 1 { Reader::new() } else { Reader::windowed(window) };
    let mut summary = Summary::default();
    let mut flow = Flow::Go;
    // One request recorded by two instrumentations is one call: the calls
    // of the last `window` lines' worth are held to fold them (a line's
    // call is given as soon as the line completes it, D151).
    let mut folding = Folding::new(window);
    let mut pass = |item: Item, summary: &mut Summary| -> Flow {
        match &item {
            Item::Call(_) => summary.calls += 1,
            Item::Error(_) => summary.errors += 1,
        }
        each(item)
    };
    let mut give = |item: Item, summary: &mut Summary, folding: &mut Folding| -> Flow {
        match item {
            Item::Call(c) => {
                for c in folding.push(*c) {
                    if pass(Item::Call(Box::new(c)), summary) == Flow::Stop {
                        return Flow::Stop;
                    }
                }
                Flow::Go
            }
            error => pass(error, summary),
        }
    };
    'files: for input in inputs {
        let name = input.name;
        match input.body {
            Body::Lines(mut r) => {
                let mut buf = Vec::new();
                let mut line = 0u64;
                loop {
                    buf.clear();
                    line += 1;
                    match r.read_until(b'\n', &mut buf) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) => {
                            let at = At::line(&name, Some(line));
                            flow = give(
                                Item::Error(recorded::Error::new(
                                    at,
                                    Rule::UnreadableFile,
                                    "",
                                    format!("cannot read: {e}"),
                                )),
                                &mut summary,
                                &mut folding,
                            );
                            break;
                        }
                    }
                    let mut bytes = buf.strip_suffix(b"\n").unwrap_or(&buf);
                    bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
                    if line == 1 {
                        bytes = strip_bom(bytes);
                    }
                    let result = match std::str::from_utf8(bytes) {
                        Ok(text) => reader.line(&name, line, text),
                        Err(e) => {
                            let column = String::from_utf8_lossy(&bytes[..e.valid_up_to()]).chars().count() + 1;
                            Err(vec![recorded::Error::new(
                                At::line(&name, Some(line)),
                                Rule::InvalidUtf8,
                                format!("column {column}"),
                                format!(
                                    "the line is not valid UTF-8 (invalid byte at byte {} of the line)",
                                    e.valid_up_to()
                                ),
                            )])
                        }
                    };
                    let items: Vec<Item> = match result {
                        Ok(calls) => calls.into_iter().map(|c| Item::Call(Box::new(c))).collect(),
                        Err(errors) => errors.into_iter().map(Item::Error).collect(),
                    };
                    for item in items {
                        flow = give(item, &mut summary, &mut folding);
                        if flow == Flow::Stop {
                            break 'files;
                        }
                    }
                }
            }
            Body::Bytes(bytes) => {
                let text = match std::str::from_utf8(strip_bom(&bytes)) {
                    Ok(t) => t,
                    Err(e) => {
                        let (l, c) = envelope::locate::Lines::new(&String::from_utf8_lossy(&bytes[..e.valid_up_to()]))
                            .line_col(e.valid_up_to());
                        let err = recorded::Error::new(
                            At::file(&name),
                            Rule::InvalidUtf8,
                            format!("line {l} column {c}"),
                            format!("the file is not valid UTF-8 (invalid byte at offset {})", e.valid_up_to()),
                        );
                        flow = give(Item::Error(err), &mut summary, &mut folding);
                        if flow == Flow::Stop {
                            break 'files;
                        }
                        continue;
                    }
                };
                let items: Vec<Item> = match reader.file(&name, text) {
                    Ok(calls) => {
                        let map = calls.iter().any(|c| c.at.line.is_none()).then(|| SourceMap::new(text));
                        calls
                            .into_iter()
                            .map(|mut c| {
                                if let (None, Some(map)) = (c.at.line, &map) {
                                    c.at.line = document_line(map, &c.at);
                                }
                                Item::Call(Box::new(c))
                            })
                            .collect()
                    }
                    Err(errors) => errors.into_iter().map(Item::Error).collect(),
                };
                for item in items {
                    flow = give(item, &mut summary, &mut folding);
                    if flow == Flow::Stop {
                        break 'files;
                    }
                }
            }
        }
    }
    let finished = reader.finish();
    if flow == Flow::Go {
        for c in finished.calls {
            flow = give(Item::Call(Box::new(c)), &mut summary, &mut folding);
            if flow == Flow::Stop {
                break;
            }
        }
    }
    if flow == Flow::Go {
        for c in folding.finish() {
            if pass(Item::Call(Box::new(c)), &mut summary) == Flow::Stop {
                break;
            }
        }
    }
    summary.notes = finished.notes;
    summary.skipped_spans = finished.skipped_spans;
    summary.late_events = finished.late_events;
    summary
}

struct Held<T> {
    key: (u64, u64),
    item: T,
}

impl<T> PartialEq for Held<T> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<T> Eq for Held<T> {}
impl<T> PartialOrd for Held<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<T> Ord for Held<T> {
    fn cmp(&self, o: &Self) -> Ordering {
        self.key.cmp(&o.key)
    }
}

/// Puts items back in start order (calls without a start after, in the
/// order read), holding at most `cap`: `recorded::sort`'s order when no
/// call comes more than `cap` calls late.
pub struct Ordered<T> {
    heap: BinaryHeap<Reverse<Held<T>>>,
    cap: usize,
    seq: u64,
}

impl<T> Ordered<T> {
    pub fn new(cap: u64) -> Ordered<T> {
        Ordered { heap: BinaryHeap::new(), cap: cap.max(1).min(usize::MAX as u64) as usize, seq: 0 }
    }

    /// Adds an item; the one that must come first when more than `cap` are held.
    pub fn push(&mut self, start_ns: Option<u64>, item: T) -> Option<T> {
        self.seq += 1;
        self.heap.push(Reverse(Held { key: (start_ns.unwrap_or(u64::MAX), self.seq), item }));
        if self.heap.len() > self.cap {
            self.heap.pop().map(|Reverse(h)| h.item)
        } else {
            None
        }
    }

    /// What is held, in order.
    pub fn drain(mut self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.heap.len());
        while let Some(Reverse(h)) = self.heap.pop() {
            out.push(h.item);
        }
        out
    }
}

/// Unix nanoseconds as `YYYY-MM-DD HH:MM:SS.mmm` (UTC).
pub fn utc(ns: u64) -> String {
    let secs = ns / 1_000_000_000;
    let ms = (ns / 1_000_000) % 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{ms:03}", rem / 3600, (rem / 60) % 60, rem % 60)
}

/// A duration in nanoseconds as `812 ms`, `1.23 s`, `2 m 05 s`.
pub fn duration(ns: u64) -> String {
    let ms = ns / 1_000_000;
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.2} s", ns as f64 / 1e9)
    } else {
        format!("{} m {:02} s", ms / 60_000, (ms / 1000) % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(utc(0), "1970-01-01 00:00:00.000");
        // 2024-02-29 12:34:56.789 UTC.
        assert_eq!(utc(1_709_210_096_789_000_000), "2024-02-29 12:34:56.789");
        assert_eq!(duration(812_000_000), "812 ms");
        assert_eq!(duration(1_234_000_000), "1.23 s");
        assert_eq!(duration(125_000_000_000), "2 m 05 s");
    }

    #[test]
    fn ordered_keeps_start_order_within_its_window() {
        let mut o = Ordered::new(3);
        let mut out = Vec::new();
        for (s, x) in [(Some(5), 'a'), (None, 'u'), (Some(1), 'b'), (Some(3), 'c'), (Some(2), 'd'), (None, 'v')] {
            out.extend(o.push(s, x));
        }
        out.extend(o.drain());
        assert_eq!(out.iter().collect::<String>(), "bdcauv");
    }
}
