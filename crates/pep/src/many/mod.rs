//! The commands over files of many calls ([`crate::calls`]): `pep import`,
//! `pep export`, `pep validate` and `pep lint` given such files, and
//! `pep calls`. Given one single document, each command runs as it always
//! did (the `single` closures and `crate::validate`, `crate::lint::run`).
//!
//! Output is written as it is made (stdout and stderr, escaped as
//! `crate::emit` escapes), never gathered: a file of any size runs in
//! memory bounded by `--window`.
//!
//! - `import` / `export`: one call → the output a single document gives;
//!   several → JSON Lines, one call a line, in start order (`--batch`: an
//!   OpenAI Batch input file, or an Anthropic Message Batches request).
//!   Calls recorded without their messages are skipped, each named on
//!   stderr, with how to record them. Exit 0 when at least one call was
//!   written and none failed; 1 when a line or file could not be read, a
//!   call's envelope is invalid (not written), or no call could be written.
//! - `validate` / `lint`: per call, located by file, line, trace and span
//!   ids (or `custom_id`), then by message and segment as for a document.
//! - `calls`: the table of calls, or JSON Lines of its rows.

use std::io::{BufWriter, Write};

mod lint;
mod table;

pub use lint::lint;
pub use table::{calls, CallsArgs};

use envelope::export::{self, render, Target};
use envelope::import::Format;
use envelope::recorded::{At, Call, Content, Dialect};
use envelope::{jsontext, parse, term, Diagnostic};
use serde_json::{json, Value};

use crate::calls::{self, error_line, open_all, Flow, Input, Item, Ordered, Shape, Window};
use crate::{Done, Failure, Outcome};

/// Where the streamed output goes: stdout (stops when it is closed) and stderr.
struct Out {
    stdout: BufWriter<std::io::StdoutLock<'static>>,
    closed: bool,
}

impl Out {
    fn new() -> Out {
        Out { stdout: BufWriter::with_capacity(1 << 16, std::io::stdout().lock()), closed: false }
    }

    fn out(&mut self, text: &str) {
        if !self.closed && self.stdout.write_all(term::escape_text(text).as_bytes()).is_err() {
            self.closed = true;
        }
    }

    fn err(&mut self, line: &str) {
        // stderr after what stdout holds so far, so that a terminal shows both in order.
        if !self.closed && self.stdout.flush().is_err() {
            self.closed = true;
        }
        let _ = writeln!(std::io::stderr().lock(), "{}", term::escape_line(line));
    }

    fn flow(&self) -> Flow {
        if self.closed {
            Flow::Stop
        } else {
            Flow::Go
        }
    }

    fn finish(mut self) {
        let _ = self.stdout.flush();
    }
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

fn usage(line: impl Into<String>) -> Failure {
    Failure { lines: vec![line.into()], code: 2 }
}

/// The inputs, or a failure naming each that could not be opened.
fn inputs(files: &[String]) -> Result<Vec<Input>, Failure> {
    open_all(files).map_err(|lines| Failure { lines, code: 1 })
}

/// What names a call within its file: `trace … span …`, `custom_id "…"`,
/// `requests[2]` (empty for a body alone in its file).
fn ids(at: &At) -> String {
    let bare = At { file: String::new(), line: None, ..at.clone() };
    bare.to_string().trim_start().to_string()
}

/// Calls recorded without their messages, per dialect, for the closing hint.
#[derive(Default)]
struct Uncaptured(Vec<(Dialect, u64)>);

impl Uncaptured {
    fn add(&mut self, out: &mut Out, call: &Call, what: &str) {
        out.err(&format!(
            "{}: note: {} recorded this call without its messages: {what}",
            call.at,
            call.dialect.label()
        ));
        match self.0.iter_mut().find(|(d, _)| *d == call.dialect) {
            Some((_, n)) => *n += 1,
            None => self.0.push((call.dialect, 1)),
        }
    }

    fn total(&self) -> u64 {
        self.0.iter().map(|(_, n)| n).sum()
    }

    fn hints(&self, out: &mut Out) {
        for (d, n) in &self.0 {
            let calls = if *n == 1 { "1 call".to_string() } else { format!("{n} calls") };
            out.err(&format!("note: {calls} without messages ({}); to record them: {}", d.label(), d.capture_hint()));
        }
    }
}

/// The notes of the reading itself (metrics lines, late events).
fn reading_notes(out: &mut Out, s: &calls::Summary) {
    for n in &s.notes {
        out.err(&format!("{}: note: {}", n.at, n.message));
    }
    if s.late_events > 0 {
        out.err(&format!(
            "note: {} log events came after their call was read (the messages were on the span too) and were not read again",
            s.late_events
        ));
    }
}

// ---------------------------------------------------------------- import / export

/// What `--batch` writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Batch {
    /// OpenAI Batch input: one `{custom_id, method, url, body}` a line.
    Openai(&'static str),
    /// Anthropic Message Batches: `{"requests": [{custom_id, params}, …]}`.
    Anthropic,
}

#[derive(Clone, Copy)]
enum Mode {
    Import,
    Export(Target, Option<Batch>),
}

/// One call's output: JSON (a line of JSON Lines, or pretty when alone) or,
/// for a cURL target, a command.
enum Written {
    Json(Value),
    Command(String),
}

/// A `custom_id` for a batch: the call's own, else its trace and span ids,
/// else its file and line, else its position.
fn custom_id(at: &At, seq: u64) -> String {
    if let Some(c) = &at.custom_id {
        return c.clone();
    }
    match (&at.trace_id, &at.span_id) {
        (Some(t), Some(s)) => return format!("{t}-{s}"),
        (Some(t), None) => return format!("{t}-{seq}"),
        _ => {}
    }
    let stem = std::path::Path::new(&at.file).file_stem().and_then(|s| s.to_str()).unwrap_or("call");
    match (at.line, at.index) {
        (Some(l), _) => format!("{stem}-{l}"),
        (None, Some(i)) => format!("{stem}-{i}"),
        _ => format!("call-{seq}"),
    }
}

/// Anthropic's `custom_id` rule: `^[a-zA-Z0-9_-]{1,64}$`.
fn anthropic_id(id: &str) -> String {
    let s: String =
        id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).take(64).collect();
    if s.is_empty() {
        "_".into()
    } else {
        s
    }
}

/// The envelope's validation errors (what a document with them would be
/// refused for), beside the call's own.
fn call_errors(call: &Call) -> Vec<Diagnostic> {
    let mut errors = call.errors.clone();
    if let Some(env) = call.envelope() {
        if let Err(more) = serde_json::to_value(env).map_err(|_| vec![]).and_then(parse::from_value) {
            for d in more {
                if !errors.iter().any(|e| e.path == d.path && e.message == d.message) {
                    errors.push(d);
                }
            }
        }
    }
    errors
}

/// `pep import FILE...`.
pub fn import(
    files: &[String],
    from: Option<Format>,
    model: Option<&str>,
    window: Window,
    single: impl FnOnce(&str) -> Outcome,
) -> Outcome {
    let inputs = inputs(files)?;
    if inputs.len() == 1 && inputs[0].shape == Shape::Single {
        return single(&files[0]);
    }
    if from.is_some() {
        return Err(usage(
            "error: --from names the format of one request body; the calls of several files, or of a file of many calls, are read by their own shape",
        ));
    }
    write_calls(inputs, window.window, model, Mode::Import)
}

/// `pep export --format F FILE...` (`--batch`).
pub fn export(
    files: &[String],
    target: Target,
    batch: bool,
    window: Window,
    single: impl FnOnce(&str) -> Outcome,
) -> Outcome {
    let batch = match (batch, target) {
        (false, _) => None,
        (true, Target::OpenaiChat) => Some(Batch::Openai("/v1/chat/completions")),
        (true, Target::OpenaiResponses) => Some(Batch::Openai("/v1/responses")),
        (true, Target::Anthropic) => Some(Batch::Anthropic),
        (true, t) => {
            return Err(usage(format!(
                "error: --batch writes an OpenAI Batch file (--format openai or responses) or an Anthropic Message Batch (--format anthropic), not {}",
                t.code()
            )))
        }
    };
    let inputs = inputs(files)?;
    if batch.is_none() && inputs.len() == 1 && inputs[0].shape == Shape::Single {
        return single(&files[0]);
    }
    write_calls(inputs, window.window, None, Mode::Export(target, batch))
}

/// `--check GOLDEN` takes one document.
pub fn check_single(files: &[String]) -> Result<&str, Failure> {
    match files {
        [one] => Ok(one),
        _ => Err(usage("error: --check compares the export of one file with GOLDEN: give one FILE")),
    }
}

struct Written1 {
    at: At,
    written: Written,
}

/// Streams the calls of `inputs` as import or export output.
fn write_calls(inputs: Vec<Input>, window: u64, model: Option<&str>, mode: Mode) -> Outcome {
    let mut out = Out::new();
    let mut ordered: Ordered<Written1> = Ordered::new(window);
    let mut uncaptured = Uncaptured::default();
    let mut failed = 0u64;
    let mut state = Emit { first: None, written: 0, mode };
    let summary = calls::read(inputs, window, |item| {
        let mut call = match item {
            Item::Error(e) => {
                failed += 1;
                out.err(&error_line(&e));
                return out.flow();
            }
            Item::Call(c) => c,
        };
        let Content::Captured(env) = &mut call.content else {
            uncaptured.add(&mut out, &call, "skipped");
            return out.flow();
        };
        if let (None, Some(m)) = (&env.model, model) {
            env.model = Some(m.to_string());
        }
        // The recorded reader validated the envelope it made (call.errors).
        if !call.errors.is_empty() {
            failed += 1;
            for d in &call.errors {
                out.err(&crate::line(&call.at.to_string(), d));
            }
            out.err(&format!("{}: error: the call's envelope is invalid: not written", call.at));
            return out.flow();
        }
        for n in &call.notices {
            out.err(&crate::note_line(&call.at.to_string(), n));
        }
        if let Some(s) = &call.error_status {
            out.err(&format!("{}: note: the call failed: {s}", call.at));
        }
        let Some(env) = call.envelope() else { return out.flow() };
        let written = match mode {
            Mode::Import => Written::Json(serde_json::to_value(env).unwrap_or(Value::Null)),
            Mode::Export(target, _) => {
                let exported = render(env, target);
                for n in &exported.notices {
                    out.err(&crate::note_line(&call.at.to_string(), n));
                }
                if target.mime_type() == "application/json" {
                    match serde_json::from_str(&exported.text) {
                        Ok(v) => Written::Json(v),
                        Err(e) => {
                            failed += 1;
                            out.err(&format!(
                                "{}: error: the export is not JSON ({e}): a bug, please report it",
                                call.at
                            ));
                            return out.flow();
                        }
                    }
                } else {
                    Written::Command(exported.text)
                }
            }
        };
        if let Some(w) = ordered.push(call.start_ns, Written1 { at: call.at.clone(), written }) {
            state.emit(&mut out, w);
        }
        out.flow()
    });
    for w in ordered.drain() {
        state.emit(&mut out, w);
    }
    state.close(&mut out);
    reading_notes(&mut out, &summary);
    uncaptured.hints(&mut out);
    let written = state.written;
    if written == 0 && failed == 0 && !out.closed {
        let what = match mode {
            Mode::Import => "import",
            Mode::Export(..) => "export",
        };
        let why = if uncaptured.total() > 0 {
            format!("the {} calls read were recorded without their messages", uncaptured.total())
        } else if summary.skipped_spans > 0 {
            format!("the files hold no model call ({} spans that are not model calls)", summary.skipped_spans)
        } else {
            "the files hold no model call".to_string()
        };
        out.err(&format!("error: no call to {what}: {why}"));
    }
    out.finish();
    Ok(Done { code: u8::from(failed > 0 || written == 0), ..Done::default() })
}

/// Writes calls as they come out of order: the first is held until a
/// second shows whether the output is one document or JSON Lines.
struct Emit {
    first: Option<Written1>,
    written: u64,
    mode: Mode,
}

impl Emit {
    fn batch(&self) -> Option<Batch> {
        match self.mode {
            Mode::Export(_, b) => b,
            Mode::Import => None,
        }
    }

    fn emit(&mut self, out: &mut Out, w: Written1) {
        self.written += 1;
        if self.batch().is_some() {
            self.line(out, w);
            return;
        }
        if self.written == 1 {
            self.first = Some(w);
            return;
        }
        if let Some(first) = self.first.take() {
            self.line(out, first);
        }
        self.line(out, w);
    }

    /// One call among several.
    fn line(&mut self, out: &mut Out, w: Written1) {
        let value = match w.written {
            Written::Command(text) => {
                out.out(&text);
                if !text.ends_with('\n') {
                    out.out("\n");
                }
                out.out("\n");
                return;
            }
            Written::Json(v) => v,
        };
        match self.batch() {
            None => out.out(&(jsontext::compact(&value) + "\n")),
            Some(Batch::Openai(url)) => {
                let id = custom_id(&w.at, self.written);
                let line = json!({"custom_id": id, "method": "POST", "url": url, "body": value});
                out.out(&(jsontext::compact(&line) + "\n"));
            }
            Some(Batch::Anthropic) => {
                let own = custom_id(&w.at, self.written);
                let id = anthropic_id(&own);
                if id != own {
                    out.err(&format!(
                        "{}: note: custom_id {} written as {id} (Anthropic allows 1 to 64 of a-z A-Z 0-9 _ -)",
                        w.at,
                        Value::String(own)
                    ));
                }
                let item = json!({"custom_id": id, "params": value});
                let sep = if self.written == 1 { "{\"requests\": [\n" } else { ",\n" };
                out.out(&format!("{sep}{}", jsontext::compact(&item)));
            }
        }
    }

    /// The end: a call alone as a single document gives it, or the batch's end.
    fn close(&mut self, out: &mut Out) {
        if let Some(first) = self.first.take() {
            match first.written {
                Written::Json(v) => out.out(&export::to_pretty(&v)),
                Written::Command(t) => out.out(&t),
            }
        }
        if self.batch() == Some(Batch::Anthropic) && self.written > 0 {
            out.out("\n]}\n");
        }
    }
}

// ---------------------------------------------------------------- validate

/// `pep validate FILE...`: single documents as always; per call for files
/// of many calls. Errors exit 1; warnings and notes go to stderr.
pub fn validate(files: &[String], window: Window) -> Outcome {
    let opened: Vec<Result<Input, String>> = files.iter().map(|f| calls::open(f)).collect();
    if !opened.iter().any(|o| o.as_ref().is_ok_and(|i| i.shape != Shape::Single)) {
        return crate::validate(files);
    }
    let mut out = Out::new();
    let mut failed = false;
    let mut recorded = Vec::new();
    for (file, o) in files.iter().zip(opened) {
        match o {
            Err(line) => {
                failed = true;
                out.err(&line);
            }
            Ok(i) if i.shape == Shape::Single => match crate::load(file) {
                Ok(loaded) => {
                    for d in &loaded.warnings {
                        out.err(&crate::line(file, d));
                    }
                    crate::leak(loaded);
                }
                Err(f) => {
                    failed = true;
                    for l in &f.lines {
                        out.err(l);
                    }
                }
            },
            Ok(i) => recorded.push(i),
        }
    }
    let mut uncaptured = Uncaptured::default();
    let summary = calls::read(recorded, window.window, |item| {
        let call = match item {
            Item::Error(e) => {
                failed = true;
                out.err(&error_line(&e));
                return out.flow();
            }
            Item::Call(c) => c,
        };
        let Some(env) = call.envelope() else {
            uncaptured.add(&mut out, &call, "nothing to validate");
            return out.flow();
        };
        let label = call.at.to_string();
        let errors = call_errors(&call);
        if errors.is_empty() {
            if let Ok(loaded) = serde_json::to_value(env).map_err(|_| vec![]).and_then(parse::from_value) {
                for d in &loaded.warnings {
                    out.err(&crate::line(&label, d));
                }
            }
        } else {
            failed = true;
            for d in &errors {
                out.err(&crate::line(&label, d));
            }
        }
        out.flow()
    });
    reading_notes(&mut out, &summary);
    uncaptured.hints(&mut out);
    out.finish();
    if failed {
        Err(Failure { lines: vec![], code: 1 })
    } else {
        Ok(Done::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_ids() {
        let at = At { trace_id: Some("ab".into()), span_id: Some("cd".into()), ..At::line("t.jsonl", Some(3)) };
        assert_eq!(custom_id(&at, 1), "ab-cd");
        assert_eq!(custom_id(&At::line("dir/b.jsonl", Some(7)), 2), "b-7");
        assert_eq!(custom_id(&At { custom_id: Some("x y".into()), ..At::file("f") }, 3), "x y");
        assert_eq!(anthropic_id("x y/é"), "x_y__");
        assert_eq!(anthropic_id(&"a".repeat(70)).len(), 64);
        assert_eq!(ids(&at), "trace ab span cd");
        assert_eq!(ids(&At::line("f", Some(2))), "");
    }
}
