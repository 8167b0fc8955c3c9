//! `recorded`: files of many model calls read line by line
//! (`envelope::recorded::Reader`), with progress, and the calls kept for
//! the page's later requests. The messages: [`envelope::engine::recorded`].
//!
//! A file is read in slices of [`CHUNK`] bytes (in the worker, a `File`
//! through `FileReaderSync`: its text is never whole in memory unless it is
//! one JSON document). Its first line tells: a whole JSON value followed by
//! more lines is JSON Lines, read a line at a time as the slices come;
//! anything else is one document, read whole. While reading, a progress
//! message goes out about every [`PROGRESS_MS`] ms (and as soon as the
//! first rows are there, so the page shows its first screen early) with the
//! rows of the calls completed since the last one.

use std::cell::RefCell;
use std::collections::HashMap;

use envelope::diag::Rule;
use envelope::engine::recorded::{At, Call, Frequent, Progress, ReadError, Reply, Row, MAX_ERRORS, TOP_FINDINGS};
use envelope::recorded::reuse::{Cost, Reuse};
use envelope::recorded::{self, Content};

/// Bytes read from a file at a time.
pub const CHUNK: u64 = 1 << 20;
/// About how often progress is posted while reading (worker time).
pub const PROGRESS_MS: f64 = 100.0;
/// The first progress message goes out as soon as this many rows are there.
const FIRST_ROWS: usize = 60;

/// Bytes to read: a `File` in the worker, text in tests.
pub trait Source {
    fn size(&self) -> u64;
    /// Bytes `start..end` (`end` at most the size).
    fn read(&mut self, start: u64, end: u64) -> Result<Vec<u8>, String>;
}

/// Text given whole (a paste).
pub struct Text(pub String);

impl Source for Text {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }

    fn read(&mut self, start: u64, end: u64) -> Result<Vec<u8>, String> {
        Ok(self.0.as_bytes()[start as usize..end as usize].to_vec())
    }
}

/// The recording held: the page's number for it and its calls, in the
/// order their rows went out (`None`: folded into another, the same
/// request recorded twice).
struct Held {
    recording: u64,
    calls: Vec<Option<recorded::Call>>,
    costs: Vec<Option<Cost>>,
}

thread_local! {
    static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
}

/// A read under way.
struct Reading<'a> {
    reader: recorded::Reader,
    calls: Vec<recorded::Call>,
    /// Each call's own count and what the previous call could serve, by index.
    costs: Vec<Option<Cost>>,
    reuse: Reuse,
    /// Whether calls are counted as they come: not until the first rows
    /// went out (the tokenizer's tables take a moment to make), the calls
    /// read until then being `deferred` and counted right after.
    counting: bool,
    deferred: Vec<usize>,
    /// Rows sent before, now counted (for the next message).
    recounted: Vec<Row>,
    pending: Vec<Row>,
    errors: Vec<ReadError>,
    error_count: u64,
    bytes: u64,
    total: u64,
    file: String,
    posted_at: f64,
    posted_any: bool,
    post: &'a mut dyn FnMut(Progress),
    now: &'a dyn Fn() -> f64,
}

impl Reading<'_> {
    fn calls(&mut self, calls: Vec<recorded::Call>) {
        for c in calls {
            let index = self.calls.len();
            let cost = if self.counting {
                self.reuse.add(&c)
            } else {
                self.deferred.push(index);
                None
            };
            self.pending.push(row(index as u32, &c, cost));
            self.calls.push(c);
            self.costs.push(cost);
        }
    }

    /// Counts the calls read before counting started (in the order read,
    /// as [`Reuse`] wants them), and counts as they come from now on.
    fn start_counting(&mut self) {
        if self.counting {
            return;
        }
        self.counting = true;
        for i in std::mem::take(&mut self.deferred) {
            let cost = self.reuse.add(&self.calls[i]);
            self.costs[i] = cost;
            if cost.is_some() {
                // Still pending: counted in place; sent: updated.
                match self.pending.iter_mut().find(|r| r.index as usize == i) {
                    Some(r) => *r = row(i as u32, &self.calls[i], cost),
                    None => self.recounted.push(row(i as u32, &self.calls[i], cost)),
                }
            }
        }
    }

    fn error(&mut self, e: ReadError) {
        self.error_count += 1;
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(e);
        }
    }

    fn errors(&mut self, errors: Vec<recorded::Error>) {
        for e in errors {
            self.error(e);
        }
    }

    fn outcome(&mut self, r: Result<Vec<recorded::Call>, Vec<recorded::Error>>) {
        match r {
            Ok(c) => self.calls(c),
            Err(e) => self.errors(e),
        }
    }

    /// Posts progress when it is time (or `force`).
    fn maybe_post(&mut self, force: bool) {
        let now = (self.now)();
        let first = !self.posted_any && self.pending.len() >= FIRST_ROWS;
        if force || first || now - self.posted_at >= PROGRESS_MS {
            self.posted_at = now;
            self.posted_any |= !self.pending.is_empty();
            (self.post)(Progress {
                bytes: self.bytes,
                total: self.total,
                calls: self.calls.len() as u64,
                file: self.file.clone(),
                rows: std::mem::take(&mut self.pending),
                updated: std::mem::take(&mut self.recounted),
            });
            if self.posted_any {
                self.start_counting();
            }
        }
    }

    /// One line of a JSON Lines file (1-based), without its line break.
    fn line(&mut self, name: &str, n: u64, bytes: &[u8]) {
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let bytes = if n == 1 { bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes) } else { bytes };
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                let r = self.reader.line(name, n, text);
                self.outcome(r);
            }
            Err(e) => self.error(ReadError::new(
                At::line(name, Some(n)),
                Rule::InvalidUtf8,
                "",
                format!("the line is not UTF-8 text (byte {})", e.valid_up_to() + 1),
            )),
        }
        if n.is_multiple_of(64) {
            self.maybe_post(false);
        }
    }

    /// One input, read `chunk` bytes at a time.
    fn input(&mut self, name: &str, source: &mut dyn Source, chunk: u64) {
        self.file = name.to_string();
        let size = source.size();
        let mut carry: Vec<u8> = Vec::new();
        let mut offset = 0u64;
        let mut lines = 0u64;
        // Some(true): JSON Lines; Some(false): one document; None: not told yet.
        let mut mode = None;
        while offset < size {
            let end = (offset + chunk).min(size);
            match source.read(offset, end) {
                Ok(b) => carry.extend_from_slice(&b),
                Err(e) => {
                    self.error(ReadError::new(
                        At::file(name),
                        Rule::UnreadableFile,
                        "",
                        format!("the file could not be read: {e}"),
                    ));
                    self.bytes += size - offset;
                    return;
                }
            }
            self.bytes += end - offset;
            offset = end;
            if mode.is_none() {
                mode = json_lines(&carry);
            }
            if mode == Some(true) {
                // Every whole line; the last, unfinished one waits.
                if let Some(last) = carry.iter().rposition(|&b| b == b'\n') {
                    for l in carry[..last].split(|&b| b == b'\n') {
                        lines += 1;
                        self.line(name, lines, l);
                    }
                    carry.drain(..=last);
                }
            }
            self.maybe_post(false);
        }
        if mode == Some(true) {
            if !carry.is_empty() {
                lines += 1;
                self.line(name, lines, &carry);
            }
            return;
        }
        // One document (or a file too short to tell): the core reads it whole.
        match String::from_utf8(carry) {
            Ok(text) => {
                let r = self.reader.file(name, &text);
                self.outcome(r);
            }
            Err(e) => self.error(ReadError::new(
                At::file(name),
                Rule::InvalidUtf8,
                "",
                format!("the file is not UTF-8 text (byte {})", e.utf8_error().valid_up_to() + 1),
            )),
        }
    }
}

/// A call's row, with our count.
fn row(index: u32, c: &recorded::Call, cost: Option<Cost>) -> Row {
    Row { counted: cost.map(|c| c.tokens), reusable: cost.and_then(|c| c.reusable), ..Row::of(index, &c.summary()) }
}

/// Whether the bytes read so far start as JSON Lines (`envelope::recorded::is_json_lines`):
/// `None` until the first non-blank line has ended and something follows it.
fn json_lines(head: &[u8]) -> Option<bool> {
    let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    let start = head.iter().position(|b| !b.is_ascii_whitespace())?;
    let nl = start + head[start..].iter().position(|&b| b == b'\n')?;
    if head[nl + 1..].iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(serde_json::from_slice::<serde::de::IgnoredAny>(&head[start..nl]).is_ok())
}

/// Reads `inputs` as one recording (`recording`, the page's number),
/// posting progress through `post`; keeps the calls for [`call`].
pub fn read(
    recording: u64,
    inputs: Vec<(String, Box<dyn Source>)>,
    post: &mut dyn FnMut(Progress),
    now: &dyn Fn() -> f64,
) -> Reply {
    read_in(CHUNK, recording, inputs, post, now)
}

/// [`read`], `chunk` bytes at a time (tests cut lines across slices).
pub fn read_in(
    chunk: u64,
    recording: u64,
    inputs: Vec<(String, Box<dyn Source>)>,
    post: &mut dyn FnMut(Progress),
    now: &dyn Fn() -> f64,
) -> Reply {
    // The recording held before goes now: its memory is the new one's.
    HELD.with(|h| h.borrow_mut().take());
    let total = inputs.iter().map(|(_, s)| s.size()).sum();
    let mut r = Reading {
        reader: recorded::Reader::new(),
        calls: Vec::new(),
        costs: Vec::new(),
        reuse: Reuse::new(),
        counting: false,
        deferred: Vec::new(),
        recounted: Vec::new(),
        pending: Vec::new(),
        errors: Vec::new(),
        error_count: 0,
        bytes: 0,
        total,
        file: String::new(),
        posted_at: now(),
        posted_any: false,
        post,
        now,
    };
    for (name, mut source) in inputs {
        r.input(&name, source.as_mut(), chunk.max(1));
    }
    let finished = std::mem::replace(&mut r.reader, recorded::Reader::new()).finish();
    r.calls(finished.calls);
    r.start_counting();
    let (calls, folds) = fold_in_place(std::mem::take(&mut r.calls), &r.costs);
    // Counted late, then maybe changed by the fold: the fold's row, which has the count.
    let mut updated: Vec<Row> =
        std::mem::take(&mut r.recounted).into_iter().filter(|u| !folds.iter().any(|f| f.index == u.index)).collect();
    updated.extend(folds);
    let frequent = frequent(calls.iter().flatten());
    let mut capture_hints: Vec<(String, String)> = Vec::new();
    for c in calls.iter().flatten() {
        if let Content::NotCaptured { how, .. } = &c.content {
            let d = c.dialect.label();
            if !capture_hints.iter().any(|(x, _)| *x == d) {
                capture_hints.push((d, how.clone()));
            }
        }
    }
    let reply = Reply::Read {
        rows: std::mem::take(&mut r.pending),
        updated,
        calls: calls.iter().flatten().count() as u64,
        bytes: r.bytes,
        errors: std::mem::take(&mut r.errors),
        error_count: r.error_count,
        notes: finished.notes.iter().map(|n| format!("{}: {}", n.at, n.message)).collect(),
        skipped_spans: finished.skipped_spans,
        late_events: finished.late_events,
        frequent,
        capture_hints,
    };
    let costs = std::mem::take(&mut r.costs);
    HELD.with(|h| *h.borrow_mut() = Some(Held { recording, calls, costs }));
    reply
}

/// `recorded::fold` (one request recorded by two instrumentations, one
/// call), as `recorded::read` does, over the calls read, each keeping its
/// place: a call folded into another is `None`, and the rows that changed
/// (the one that went, `folded`; the one kept, with its notice more).
/// Only traces recorded by two instrumentations can fold; without one the
/// calls are not touched.
fn fold_in_place(calls: Vec<recorded::Call>, costs: &[Option<Cost>]) -> (Vec<Option<recorded::Call>>, Vec<Row>) {
    let mut scope_of: HashMap<&str, &str> = HashMap::new();
    let mut twice: std::collections::HashSet<String> = std::collections::HashSet::new();
    for c in &calls {
        if let (Some(t), Some(s)) = (c.at.trace_id.as_deref(), c.scope.as_deref()) {
            if scope_of.insert(t, s).is_some_and(|before| before != s) {
                twice.insert(t.to_string());
            }
        }
    }
    if twice.is_empty() {
        return (calls.into_iter().map(Some).collect(), Vec::new());
    }
    let before: Vec<Row> = calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.at.trace_id.as_ref().is_some_and(|t| twice.contains(t)))
        .map(|(i, c)| row(i as u32, c, costs.get(i).copied().flatten()))
        .collect();
    let places: Vec<recorded::At> = calls.iter().map(|c| c.at.clone()).collect();
    let mut kept = recorded::fold(calls).into_iter().peekable();
    // `fold` keeps the others' order: each call kept is the next one read at its place.
    let slots: Vec<Option<recorded::Call>> =
        places.iter().map(|at| if kept.peek().is_some_and(|c| c.at == *at) { kept.next() } else { None }).collect();
    let updated = before
        .into_iter()
        .filter_map(|old| match &slots[old.index as usize] {
            None => Some(Row { folded: true, ..old }),
            Some(c) if c.notices.len() as u32 != old.notices => {
                Some(row(old.index, c, costs.get(old.index as usize).copied().flatten()))
            }
            Some(_) => None,
        })
        .collect();
    (slots, updated)
}

/// The findings most calls have: each notice's and error's message, a call
/// counted once per message.
fn frequent<'a>(calls: impl Iterator<Item = &'a recorded::Call>) -> Vec<Frequent> {
    let mut counts: HashMap<String, (u64, usize)> = HashMap::new();
    let mut seen: Vec<String> = Vec::new();
    for c in calls {
        seen.clear();
        let messages = c
            .notices
            .iter()
            .map(|n| n.message.clone())
            .chain(c.errors.iter().map(|d| format!("{}: {}", d.rule.code(), d.message)));
        for m in messages {
            if seen.contains(&m) {
                continue;
            }
            let next = counts.len();
            counts.entry(m.clone()).or_insert((0, next)).0 += 1;
            seen.push(m);
        }
    }
    let mut list: Vec<(String, (u64, usize))> = counts.into_iter().collect();
    // Most calls first; among equals, the one met first.
    list.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.1 .1.cmp(&b.1 .1)));
    list.into_iter().take(TOP_FINDINGS).map(|(message, (calls, _))| Frequent { message, calls }).collect()
}

/// One call of the recording held, in full.
pub fn call(recording: u64, index: u32) -> Reply {
    HELD.with(|h| {
        let held = h.borrow();
        let Some(held) = held.as_ref().filter(|h| h.recording == recording) else {
            return Reply::Gone {
                message: "the engine no longer holds these calls (it was restarted, or another file was read since)"
                    .into(),
            };
        };
        let Some(c) = held.calls.get(index as usize) else {
            return Reply::Gone { message: format!("there is no call {} of {}", index + 1, held.calls.len()) };
        };
        let Some(c) = c else {
            return Reply::Gone {
                message: format!(
                    "call {} is one request recorded by two instrumentations, listed once as the other's call",
                    index + 1
                ),
            };
        };
        Reply::Call(Box::new(detail(index, c, held.costs.get(index as usize).copied().flatten())))
    })
}

fn pretty<T: serde::Serialize>(t: &T) -> Option<String> {
    serde_json::to_value(t).ok().map(|v| envelope::export::to_pretty(&v))
}

fn detail(index: u32, c: &recorded::Call, cost: Option<Cost>) -> Call {
    let (envelope, capture_hint) = match &c.content {
        Content::Captured(e) => (pretty(e.as_ref()), None),
        Content::NotCaptured { how, .. } => (None, Some(how.clone())),
    };
    let output = c.output.as_ref().filter(|o| !o.messages.is_empty()).and_then(|o| {
        pretty(&envelope::Envelope {
            version: envelope::types::VERSION.to_string(),
            model: o.response_model.clone(),
            prompt: None,
            params: None,
            source: None,
            messages: o.messages.clone(),
        })
    });
    Call {
        row: row(index, c, cost),
        end_ns: c.end_ns,
        name: c.name.clone(),
        scope: c.scope.clone(),
        envelope,
        capture_hint,
        output,
        finish_reasons: c.output.as_ref().map(|o| o.finish_reasons.clone()).unwrap_or_default(),
        usage: c.usage.clone(),
        error_status: c.error_status.clone(),
        notices: c.notices.clone(),
        errors: c.errors.clone(),
    }
}

/// Whether a recording is held (tests).
pub fn holds(recording: u64) -> bool {
    HELD.with(|h| h.borrow().as_ref().is_some_and(|h| h.recording == recording))
}

#[cfg(target_arch = "wasm32")]
pub(crate) mod web {
    //! The operation's messages in the worker: its files, its progress.

    use envelope::engine::recorded::{Reply, Request};
    use js_sys::{Object, Uint8Array};
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{Blob, DedicatedWorkerGlobalScope, FileReaderSync};

    use crate::worker::{get, now, set};

    struct FileSource {
        blob: Blob,
        reader: FileReaderSync,
    }

    impl super::Source for FileSource {
        fn size(&self) -> u64 {
            self.blob.size() as u64
        }

        fn read(&mut self, start: u64, end: u64) -> Result<Vec<u8>, String> {
            let slice = self.blob.slice_with_f64_and_f64(start as f64, end as f64).map_err(|e| format!("{e:?}"))?;
            let buf = self.reader.read_as_array_buffer(&slice).map_err(|e| format!("{e:?}"))?;
            Ok(Uint8Array::new(&buf).to_vec())
        }
    }

    /// Serves `{id, op: "recorded", request, files?}`: the reply in `out`,
    /// progress posted through `scope` meanwhile.
    pub(crate) fn serve(data: &JsValue, out: &Object, scope: &DedicatedWorkerGlobalScope) -> Result<(), String> {
        let t0 = now();
        let text = get(data, "request").as_string().ok_or("`recorded` takes a `request` string")?;
        let request: Request =
            serde_json::from_str(&text).map_err(|e| format!("the request does not fit the operation: {e}"))?;
        let reply = match request {
            Request::Read { recording, inputs } => {
                let files = get(data, "files");
                let mut k = 0u32;
                let mut sources: Vec<(String, Box<dyn super::Source>)> = Vec::new();
                for input in inputs {
                    let source: Box<dyn super::Source> = match input.text {
                        Some(t) => Box::new(super::Text(t)),
                        None => {
                            let blob = js_sys::Reflect::get_u32(&files, k)
                                .ok()
                                .and_then(|f| f.dyn_into::<Blob>().ok())
                                .ok_or_else(|| format!("`files[{k}]` is not a file"))?;
                            k += 1;
                            let reader = FileReaderSync::new().map_err(|e| format!("{e:?}"))?;
                            Box::new(FileSource { blob, reader })
                        }
                    };
                    sources.push((input.name, source));
                }
                let id = get(data, "id");
                let mut post = |p: envelope::engine::recorded::Progress| {
                    let m = Object::new();
                    set(&m, "id", &id);
                    if let Ok(t) = serde_json::to_string(&p) {
                        set(&m, "progress", &JsValue::from_str(&t));
                    }
                    let _ = scope.post_message(&m);
                };
                super::read(recording, sources, &mut post, &now)
            }
            Request::Call { recording, index } => super::call(recording, index),
        };
        let reply: Reply = reply;
        let text = serde_json::to_string(&reply).map_err(|e| format!("the reply could not be written: {e}"))?;
        set(out, "reply", &JsValue::from_str(&text));
        set(out, "ms", &JsValue::from_f64(now() - t0));
        Ok(())
    }
}
