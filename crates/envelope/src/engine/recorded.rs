//! `recorded`: files holding many model calls (OpenTelemetry traces and
//! logs, batch files, JSON Lines of bodies; `crate::recorded`) read in the
//! engine, line by line, for the app's Calls view. Unlike the other
//! operations it has a life: the worker keeps the calls it read (the
//! *recording*) so that the page can ask for one call at a time.
//!
//! - [`Request::Read`]: the files travel beside the request as the
//!   message's `files` (`File` objects, read by the worker in slices: the
//!   page never holds their text), or as text (a paste). While it reads, the
//!   worker posts `{id, progress}` messages ([`Progress`], JSON text: bytes
//!   read, calls so far, and the [`Row`]s of the calls completed since the
//!   last one); the answer is [`Reply::Read`] with the last rows and what is
//!   left to say (unreadable lines with file:line and what, notes, the most
//!   frequent findings).
//! - [`Request::Call`]: one call of the recording, by index (the order its
//!   row came in): [`Reply::Call`], its envelope as JSON text and what was
//!   recorded around it.
//!
//! Where a call came from, its counts and a read's errors are
//! `crate::recording`'s types (the same ones `crate::recorded` makes). A
//! [`Row`] is the table's row on the wire: `crate::recorded::Row` (which
//! needs the feature `recorded`, and with it the readers, which the page's
//! module must not carry) with its index, our counts, its folding and the
//! dialect's label; [`Row::of`] makes one.
//!
//! [`holds_calls`] is how the page tells a many-call file from one document
//! by its first bytes, before reading it.

use serde::{Deserialize, Serialize};

use crate::diag::{Diagnostic, Notice};
/// What made a file or a line unreadable (the page's name for `crate::recording::Error`).
pub use crate::recording::Error as ReadError;
pub use crate::recording::{At, Usage};

/// The operation's name.
pub const OP: &str = "recorded";

/// What the page sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// Read these inputs together (a trace file and its logs join), in
    /// order, as one recording, replacing the one held.
    Read {
        /// The page's number for this recording (echoed by [`Request::Call`]).
        recording: u64,
        inputs: Vec<Input>,
    },
    /// One call of the recording held.
    Call { recording: u64, index: u32 },
}

/// One input of a read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Input {
    /// The file's name (or `pasted`).
    pub name: String,
    /// The text, for a paste; `None` for a file, which is the message's
    /// `files[k]` (`k` counting only the inputs without text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Posted while reading (the message's `progress`, JSON text).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Bytes read so far, of `total`, over every input.
    pub bytes: u64,
    pub total: u64,
    /// Calls read so far (rows sent, these included).
    pub calls: u64,
    /// The input being read.
    pub file: String,
    /// The rows of the calls completed since the last message.
    pub rows: Vec<Row>,
    /// Rows sent before, now with our count (the first rows go out before
    /// the tokenizer is ready, so that the table's first screen does not
    /// wait for it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub updated: Vec<Row>,
}

/// A call as the table shows it: `crate::recorded::Row`, and its index.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// The call's index in the recording (the order rows came in).
    pub index: u32,
    pub at: At,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// How it was recorded, for people ("GenAI semconv", "OpenAI Batch").
    pub dialect: String,
    /// Whether the recording holds the request's messages.
    pub captured: bool,
    pub messages: u32,
    /// As recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Its prompt's tokens as we count them (o200k_base, the Budget tab's
    /// total: `crate::diff::cache::Prompt`), when captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted: Option<u64>,
    /// Of those, the first ones the previous call of its trace (or, without
    /// a trace, of its file) sent too: what that call's prefix cache could
    /// serve (`crate::recorded::reuse`). `None` for the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reusable: Option<u64>,
    /// The last user text, on one line, cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_user: Option<String>,
    pub notices: u32,
    pub errors: u32,
    /// One request recorded twice (two instrumentations' spans,
    /// `crate::recorded::fold`): this span's call is the other's, and is
    /// not listed. Only in [`Reply::Read`]'s `updated`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub folded: bool,
}

/// A finding and how many calls have it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frequent {
    pub message: String,
    pub calls: u64,
}

/// One call in full.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    pub row: Row,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_ns: Option<u64>,
    /// The span's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The instrumentation that recorded it (scope name and version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The request as an envelope (pretty JSON), when captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<String>,
    /// Not captured: how to turn capture on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture_hint: Option<String>,
    /// The model's reply as recorded, as an envelope holding only its
    /// messages (pretty JSON): output, not part of the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finish_reasons: Vec<String>,
    #[serde(default)]
    pub usage: Usage,
    /// The span failed: its status message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_status: Option<String>,
    /// Recorded fields with no place in the envelope, with their paths.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<Notice>,
    /// Why the envelope made is invalid.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Diagnostic>,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    Read {
        /// The rows not sent in a progress message yet.
        rows: Vec<Row>,
        /// Rows sent before that changed once everything was read: the
        /// calls that are one request recorded twice, folded into one
        /// (`crate::recorded::fold`, as `read` does) — the one that goes
        /// `folded`, the one kept with its notice more; and rows counted
        /// late (as [`Progress::updated`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        updated: Vec<Row>,
        /// Calls in the recording.
        calls: u64,
        /// Bytes read.
        bytes: u64,
        /// Unreadable files and lines (at most [`MAX_ERRORS`]), and how
        /// many there were in all.
        errors: Vec<ReadError>,
        error_count: u64,
        /// Things worth saying that are no call's, `file:line: what`.
        notes: Vec<String>,
        /// Spans read that are not model calls.
        skipped_spans: u64,
        /// Log events that came after their call.
        late_events: u64,
        /// The findings (notices and errors of the calls) most calls
        /// have, most frequent first (at most [`TOP_FINDINGS`]).
        frequent: Vec<Frequent>,
        /// How to turn capture on, for each dialect with calls recorded
        /// without their content: (dialect, hint).
        capture_hints: Vec<(String, String)>,
    },
    Call(Box<Call>),
    /// Not the recording held (the engine was restarted since, or another
    /// file was read), or no such call.
    Gone {
        message: String,
    },
}

/// How many unreadable lines a [`Reply::Read`] lists.
pub const MAX_ERRORS: usize = 1000;
/// How many findings the summary lists.
pub const TOP_FINDINGS: usize = 6;

/// How many bytes of a file the page reads to tell ([`holds_calls`]).
pub const HEAD_BYTES: usize = 1 << 20;

/// Whether a file holds recorded calls for the Calls view rather than one
/// document, told from its name and its first bytes (`head`; `complete`
/// when it is the whole file): JSON Lines (a first line that is a whole
/// JSON value, and more lines after it — as `crate::recorded` reads them),
/// an OTLP/JSON trace, logs or metrics request, an Anthropic Message Batch
/// (`requests`), an OpenAI Batch line (`custom_id` with `body`, or
/// `params`). A `.jsonl` or `.ndjson` file whose first line is longer than
/// the head counts too. One request body, one envelope: false. Linear in
/// the head; any bytes.
pub fn holds_calls(name: &str, head: &str, complete: bool) -> bool {
    let text = head.strip_prefix('\u{feff}').unwrap_or(head);
    let text = text.trim_start();
    if text.is_empty() {
        return false;
    }
    if json_lines(text) == Some(true) {
        return true;
    }
    let lower = name.to_ascii_lowercase();
    if !complete && (lower.ends_with(".jsonl") || lower.ends_with(".ndjson")) && !text.contains('\n') {
        return true;
    }
    let keys = top_keys(text);
    let has = |k: &str| keys.iter().any(|(key, _)| key == k);
    has("resourceSpans")
        || has("resourceLogs")
        || has("resourceMetrics")
        || keys.iter().any(|(k, v)| k == "requests" && *v == b'[')
        || (has("custom_id") && (has("body") || has("params")))
}

/// `Some(true)` when the text starts with a line holding a whole JSON value
/// followed by another non-blank line; `Some(false)` when its first line
/// ends and does not; `None` when it cannot tell (one line only).
fn json_lines(text: &str) -> Option<bool> {
    let end = text.find('\n')?;
    let (first, rest) = (&text[..end], &text[end + 1..]);
    if rest.trim().is_empty() {
        return None;
    }
    Some(serde_json::from_str::<serde::de::IgnoredAny>(first.trim()).is_ok())
}

/// The keys of the top-level object in a JSON text (or its head), each with
/// the first byte of its value (`[`, `{`, `"`, …; 0 when the head ends
/// before it). Strings are skipped with their escapes; nothing is parsed
/// beyond that.
fn top_keys(text: &str) -> Vec<(String, u8)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    if b.first() != Some(&b'{') {
        return out;
    }
    let mut depth = 0usize;
    let mut i = 0;
    // At depth 1, whether the next string is a key.
    let mut want_key = false;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if i >= b.len() {
                    break;
                }
                if depth == 1 && want_key {
                    let key = serde_json::from_str::<String>(&text[start - 1..=i])
                        .unwrap_or_else(|_| text[start..i].to_string());
                    let mut j = i + 1;
                    while j < b.len() && (b[j].is_ascii_whitespace() || b[j] == b':') {
                        j += 1;
                    }
                    out.push((key, b.get(j).copied().unwrap_or(0)));
                    want_key = false;
                }
            }
            b'{' | b'[' => {
                depth += 1;
                want_key = depth == 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            b',' if depth == 1 => want_key = true,
            _ => {}
        }
        i += 1;
    }
    out
}

#[cfg(feature = "recorded")]
mod from_core {
    use super::*;
    use crate::recorded;

    impl Row {
        /// The row of a call, `index` its place in the recording.
        pub fn of(index: u32, r: &recorded::Row) -> Row {
            Row {
                index,
                at: r.at.clone(),
                start_ns: r.start_ns,
                duration_ns: r.duration_ns,
                provider: r.provider.clone(),
                model: r.model.clone(),
                dialect: r.dialect.label(),
                captured: r.captured,
                messages: r.messages,
                input_tokens: r.input_tokens,
                output_tokens: r.output_tokens,
                counted: None,
                reusable: None,
                last_user: r.last_user.clone(),
                notices: r.notices,
                errors: r.errors,
                folded: false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_lines_and_many_call_documents_hold_calls() {
        assert!(holds_calls("t.jsonl", "{\"resourceSpans\":[]}\n{\"resourceSpans\":[]}\n", true));
        // Bodies, one a line: calls too.
        assert!(holds_calls("b.txt", "{\"model\":\"m\",\"messages\":[]}\n{\"model\":\"m\",\"messages\":[]}", true));
        // A BOM and blank lines before.
        assert!(holds_calls("b", "\u{feff}\n\n{\"a\":1}\n\n{\"a\":2}", true));
        // A pretty-printed OTLP request, whole or cut anywhere after its first key.
        let otlp = "{\n  \"resourceSpans\": [\n    {\"resource\": {}}\n  ]\n}\n";
        assert!(holds_calls("t.json", otlp, true));
        assert!(holds_calls("t.json", &otlp[..20], false));
        assert!(holds_calls("l.json", "{\"resourceLogs\":[{\"x\":\"}\"}]}", true));
        // Keys after a long nested first value, and escaped quotes in strings.
        let later = json!({"a": {"resourceSpans": 1, "s": "x\"}{"}, "requests": [{"custom_id": "1", "params": {}}]});
        assert!(holds_calls("batch.json", &later.to_string(), true));
        assert!(holds_calls(
            "one.jsonl",
            r#"{"custom_id":"r1","method":"POST","url":"/v1/chat/completions","body":{}}"#,
            true
        ));
        // A first line longer than the head, in a .jsonl file.
        assert!(holds_calls("big.jsonl", "{\"resourceSpans\":[{\"scopeSpans\":[", false));
    }

    #[test]
    fn one_document_does_not() {
        let body = json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi\n{\"requests\": []}"}]});
        assert!(!holds_calls("r.json", &serde_json::to_string_pretty(&body).unwrap(), true));
        assert!(!holds_calls("r.json", &body.to_string(), true));
        // Only the top level counts.
        assert!(!holds_calls("r.json", r#"{"messages":[{"resourceSpans":[]}],"requests":1}"#, true));
        assert!(!holds_calls("e.json", r#"{"version":"1.0","messages":[]}"#, true));
        // One line and a trailing newline: one document.
        assert!(!holds_calls("r.jsonl", "{\"model\":\"m\"}\n", true));
        // A cut head of a .json file that is not JSON Lines.
        assert!(!holds_calls("big.json", "{\"model\":\"m\",\"messages\":[{\"role\":", false));
        // Not JSON at all, and hostile bytes: no panic, false.
        for t in ["", "   ", "hello", "{\"", "{\"a\\", "{\"a\":\"\\\"", "[1,2]\n", "{{{{{{", "\"\\"] {
            assert!(!holds_calls("x", t, false), "{t:?}");
        }
    }

    #[test]
    fn messages_round_trip() {
        let q = Request::Read { recording: 3, inputs: vec![Input { name: "t.jsonl".into(), text: None }] };
        let v = serde_json::to_value(&q).unwrap();
        assert_eq!(v, json!({"read": {"recording": 3, "inputs": [{"name": "t.jsonl"}]}}));
        assert_eq!(serde_json::from_value::<Request>(v).unwrap(), q);
        let q = Request::Call { recording: 3, index: 7 };
        assert_eq!(serde_json::to_value(&q).unwrap(), json!({"call": {"recording": 3, "index": 7}}));
        let row = Row {
            index: 1,
            at: At { file: "t.jsonl".into(), line: Some(2), trace_id: Some("ab".into()), ..At::default() },
            start_ns: Some(1_700_000_000_000_000_000),
            dialect: "GenAI semconv".into(),
            captured: true,
            messages: 2,
            ..Row::default()
        };
        let p = Progress {
            bytes: 10,
            total: 20,
            calls: 1,
            file: "t.jsonl".into(),
            rows: vec![row.clone()],
            updated: vec![],
        };
        let text = serde_json::to_string(&p).unwrap();
        assert!(text.contains("\"startNs\":1700000000000000000"), "{text}");
        assert!(text.contains("\"traceId\":\"ab\""), "{text}");
        assert_eq!(serde_json::from_str::<Progress>(&text).unwrap(), p);
        let r = Reply::Gone { message: "x".into() };
        assert_eq!(serde_json::from_value::<Reply>(serde_json::to_value(&r).unwrap()).unwrap(), r);
        let c = Reply::Call(Box::new(Call { row, envelope: Some("{}".into()), ..Call::default() }));
        assert_eq!(serde_json::from_str::<Reply>(&serde_json::to_string(&c).unwrap()).unwrap(), c);
    }

    #[test]
    fn where_reads_as_the_cores() {
        let e = ReadError {
            at: At { file: "b.jsonl".into(), line: Some(3), custom_id: Some("r\"1".into()), ..At::default() },
            rule: crate::diag::Rule::UnreadableRecord,
            path: "body".into(),
            message: "bad".into(),
        };
        assert_eq!(e.to_string(), "b.jsonl:3 custom_id \"r\\\"1\": body: bad");
    }
}
