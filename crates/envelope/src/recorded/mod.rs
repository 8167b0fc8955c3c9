//! Recorded calls (feature `recorded`): files that hold many model calls —
//! OpenTelemetry traces and logs, batch files, JSON Lines of request bodies —
//! read into a list of [`Call`]s, each an envelope plus what was recorded
//! around it. Provider-neutral: the request formats are the importers'
//! ([`crate::import`]), the telemetry dialects are [`dialect`]'s.
//!
//! # What a call is
//!
//! One request to a model, as one recording holds it:
//! - a span an instrumentation made for an LLM request (OpenTelemetry GenAI
//!   `chat` / `text_completion` / `generate_content`, OpenLLMetry
//!   `llm.request.type` `chat` / `completion`, OpenInference span kind `LLM`;
//!   with no operation named, a span that names its `gen_ai.request.model`)
//!   together with the log-record or span events of that span (joined by
//!   `traceId` + `spanId`). A span that is not such a request — an HTTP span,
//!   an agent, tool, workflow or embeddings span, a framework's span without
//!   a model call — is **not** a call (counted in [`Finished::skipped_spans`]);
//! - log events whose span never came (events-only call, with a notice);
//! - one request recorded by two instrumentations (the Anthropic SDK's own
//!   span, scope `com.anthropic.sdk.python`, inside OpenInference's span or
//!   beside OpenLLMetry's) is **one** call: [`fold`] joins two calls of one
//!   trace from different scopes whose times overlap, one span the other's
//!   parent or both children of one span, models agreeing when both are
//!   known. It keeps the one with the request captured (both: more
//!   messages, then segments; a tie: the parent, then the earlier), fills
//!   what it lacks (usage counts, output, model) from the other and names
//!   the other in a notice (`also recorded by <scope> span <id> …`). Two
//!   calls of one scope are never folded (parallel requests);
//! - a line of an OpenAI Batch input file, a request of an Anthropic Message
//!   Batch, a line (or a whole file) holding a request body or an envelope.
//!
//! Its identity is [`At`]: the file, the line (JSON Lines), the index within
//! a document of many requests, the trace and span ids, the batch
//! `custom_id`.
//!
//! # What a call holds
//!
//! [`Call::content`] is the request as an [`Envelope`] — or
//! [`Content::NotCaptured`] when the recording has no messages, with how to
//! turn capture on for that dialect (`Dialect::capture_hint`). The envelope's
//! `source` is the provider's request format where the recording says which
//! (`gen_ai.provider.name` `openai` → OpenAI Chat, …), so exporting it to
//! that format gives the request again (for a body read from a batch file or
//! OpenInference `input.value`: the very request, by the importers' round-trip
//! law). [`Call::output`] is the model's reply as recorded — **not** part of
//! the request, never in the envelope. [`Call::usage`] is the token counts as
//! the recording states them (to show beside a count of our own).
//! [`Call::notices`] lists every recorded field that has no place in the
//! envelope, with its path (nothing is dropped silently);
//! [`Call::errors`] lists what makes the envelope invalid (a tool result
//! whose call the recording lost, …): the call is still listed.
//!
//! # Reading
//!
//! - [`read`]: whole files → every call, sorted by start time (calls without
//!   one — batch lines, request bodies — after the timed ones, in input
//!   order). Errors that make a file or a line unreadable (not JSON, not
//!   OTLP, a batch line whose body is no request) come back together, each
//!   with where ([`At`] + a JSON path) and what.
//! - [`Reader`]: one line at a time, for JSON Lines too big to hold
//!   ([`Reader::line`] answers the calls that line completes). Spans carrying
//!   their messages as attributes (current GenAI semconv, OpenLLMetry,
//!   OpenInference) are complete in their line. Messages recorded as log
//!   events (GenAI v1.30 events, the `gen_ai.client.inference.operation.details`
//!   event) join their span from another line or file: until both are read,
//!   the span (its attributes only) or the events wait in the reader.
//!   [`Reader::new`] holds them until [`Reader::finish`] (a trace file and
//!   its log file given one after the other: memory grows with the spans
//!   that wait for their events (their attributes: a few kilobytes each), and the events that
//!   wait for their span); [`Reader::windowed`]`(n)` gives each up to `n`
//!   lines to find its partner and then lets it go (a span as not captured,
//!   events as an events-only call): constant memory, for a Collector file
//!   that interleaves both signals. It also remembers the ids of the last
//!   calls emitted (all of them for `new`: 64 bytes a call; `n` lines' worth
//!   when windowed) so that events arriving after their call was emitted are
//!   counted ([`Finished::late_events`]) rather than made a second call.
//!   The reader folds ([`fold`]) only what it still holds: the calls of one
//!   [`Reader::file`] and those [`Reader::finish`] lets go. A call
//!   [`Reader::line`] gives was emitted when its line completed it, before
//!   the other instrumentation's span of that request may be read: a
//!   streaming caller gets both, and folds what it collected with [`fold`]
//!   if it wants one.
//!
//! A file is JSON Lines when its first line is a JSON value on its own
//! ([`is_json_lines`]); otherwise it is one JSON document (an OTLP request
//! as a pretty-printed file, an Anthropic batch, one request body), read
//! whole: only JSON Lines stream.
//!
//! [`Call::summary`] gives a [`Row`]: what a table of calls shows, small and
//! serde both ways (the app's worker sends rows to the page), without the
//! envelope. Tokens as we count them and lint findings are the caller's to
//! add beside it (they need the `tokenizer` / `lint` features).
//!
//! # The API in short
//!
//! ```text
//! read(&[(name, text)]) -> Result<Recorded { calls, notes, skipped_spans, late_events }, Vec<Error>>
//! Reader::new() | Reader::windowed(lines)
//!     .line(name, line_no, text) -> Result<Vec<Call>, Vec<Error>>   // one JSON Lines line
//!     .file(name, text)          -> Result<Vec<Call>, Vec<Error>>   // a whole file
//!     .value(At, serde_json::Value) -> Result<Vec<Call>, Vec<Error>>
//!     .waiting() -> usize
//!     .finish() -> Finished { calls, notes, skipped_spans, late_events }
//! sort(&mut [Call])                       // by start time, untimed after
//! fold(Vec<Call>) -> Vec<Call>            // one request recorded by two scopes → one call
//! is_json_lines(text) -> bool
//! Call { at, start_ns, end_ns, name, parent_span_id, scope, provider, model, dialect,
//!        content: Captured(Box<Envelope>) | NotCaptured { how, params },
//!        output: Option<Output { messages, finish_reasons, response_id, response_model }>,
//!        usage: Usage { input_tokens, output_tokens, cache_read_input_tokens,
//!                       cache_creation_input_tokens, reasoning_output_tokens, total_tokens },
//!        error_status, notices: Vec<Notice>, errors: Vec<Diagnostic> }
//!     .envelope() -> Option<&Envelope>   .duration_ns()   .summary() -> Row
//! Error { at: At, rule: Rule, path, message }  (Display: `file:line trace … span …: path: message`)
//! Dialect::code() / from_code() / label() / capture_hint()
//! ```
//!
//! What each dialect maps where is in its module's table: [`dialect::genai`],
//! [`dialect::events`], [`dialect::openllmetry`], [`dialect::openinference`],
//! [`batch`]; what each instrumentation of the corpus leaves out is listed
//! in `tests/recorded.rs` (`DROPS`, `GARBLED`, `OUTPUT_DROPS`).

pub mod batch;
pub(crate) mod build;
pub mod dialect;
mod folding;
pub mod otlp;
#[cfg(feature = "diff")]
pub mod reuse;

/// Where a call came from, its recorded counts, what made a line unreadable:
/// `crate::recording`, which the page's module reads without this feature.
pub use crate::recording::{At, Error, Usage};
pub use folding::Folding;

use std::collections::{HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::diag::{Diagnostic, Notice};
use crate::import::Format;
use crate::types::{Envelope, Message, Role, Segment};

/// How a call was recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// A request body (or an envelope) of this format, on its own.
    Request(Format),
    /// A line of an OpenAI Batch input file (`custom_id`, `method`, `url`, `body`).
    OpenaiBatch,
    /// A request of an Anthropic Message Batch (`custom_id`, `params`).
    AnthropicBatch,
    /// OpenTelemetry GenAI semantic conventions, current: `gen_ai.input.messages`,
    /// `gen_ai.system_instructions`, `gen_ai.tool.definitions`,
    /// `gen_ai.output.messages` on the span or on the
    /// `gen_ai.client.inference.operation.details` event.
    Genai,
    /// GenAI semantic conventions v1.30-era events: `gen_ai.system.message`,
    /// `gen_ai.user.message`, `gen_ai.assistant.message`, `gen_ai.tool.message`,
    /// `gen_ai.choice`.
    GenaiEvents,
    /// OpenLLMetry (Traceloop's instrumentations): the indexed
    /// `gen_ai.prompt.{i}.*`, `gen_ai.completion.{i}.*`,
    /// `llm.request.functions.{i}.*` of its earlier versions; its later
    /// versions (0.4x on) write the current conventions' attributes, read as
    /// [`Dialect::Genai`] is, and are told apart by their scope.
    Openllmetry,
    /// OpenInference (Arize): `llm.input_messages.{i}.message.*`, `llm.tools.*`,
    /// `llm.invocation_parameters`, `input.value`.
    Openinference,
}

impl Dialect {
    /// A stable code: `genai`, `genai-events`, `openllmetry`, `openinference`,
    /// `openai-batch`, `anthropic-batch`, `request:openai` (`request:` and the
    /// format's `--from` code).
    pub fn code(self) -> String {
        match self {
            Dialect::Request(f) => format!("request:{}", f.code()),
            other => other.static_code().to_string(),
        }
    }

    fn static_code(self) -> &'static str {
        match self {
            Dialect::Request(_) => "request",
            Dialect::OpenaiBatch => "openai-batch",
            Dialect::AnthropicBatch => "anthropic-batch",
            Dialect::Genai => "genai",
            Dialect::GenaiEvents => "genai-events",
            Dialect::Openllmetry => "openllmetry",
            Dialect::Openinference => "openinference",
        }
    }

    pub fn from_code(code: &str) -> Option<Dialect> {
        if let Some(f) = code.strip_prefix("request:") {
            return Format::from_code(f).map(Dialect::Request);
        }
        [
            Dialect::OpenaiBatch,
            Dialect::AnthropicBatch,
            Dialect::Genai,
            Dialect::GenaiEvents,
            Dialect::Openllmetry,
            Dialect::Openinference,
        ]
        .into_iter()
        .find(|d| d.static_code() == code)
    }

    /// What people call it: "GenAI semconv", "OpenLLMetry", "OpenAI Chat request", ….
    pub fn label(self) -> String {
        match self {
            Dialect::Request(f) => format!("{} request", f.label()),
            Dialect::OpenaiBatch => "OpenAI Batch".into(),
            Dialect::AnthropicBatch => "Anthropic Message Batch".into(),
            Dialect::Genai => "GenAI semconv".into(),
            Dialect::GenaiEvents => "GenAI events (v1.30)".into(),
            Dialect::Openllmetry => "OpenLLMetry".into(),
            Dialect::Openinference => "OpenInference".into(),
        }
    }

    /// How to make the instrumentation record the messages (for a call
    /// recorded without them).
    pub fn capture_hint(self) -> &'static str {
        match self {
            Dialect::Genai => {
                "set OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental and \
                 OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or EVENT_ONLY, SPAN_AND_EVENT) \
                 in the instrumented process"
            }
            Dialect::GenaiEvents => {
                "set OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true in the instrumented process, \
                 and export its logs (the messages are log-record events) with the traces"
            }
            Dialect::Openllmetry => {
                "set TRACELOOP_TRACE_CONTENT=true in the instrumented process (or trace_content=True in Traceloop.init)"
            }
            Dialect::Openinference => {
                "set OPENINFERENCE_HIDE_INPUTS=false, OPENINFERENCE_HIDE_INPUT_MESSAGES=false and \
                 OPENINFERENCE_HIDE_OUTPUT_MESSAGES=false in the instrumented process (or TraceConfig(hide_inputs=False, …))"
            }
            Dialect::Request(_) | Dialect::OpenaiBatch | Dialect::AnthropicBatch => {
                "a request body always holds its messages"
            }
        }
    }
}

impl Serialize for Dialect {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.code())
    }
}

impl<'de> Deserialize<'de> for Dialect {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let code = String::deserialize(d)?;
        Dialect::from_code(&code).ok_or_else(|| serde::de::Error::custom(format!("unknown dialect `{code}`")))
    }
}

/// The request, or why it is not there.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Content {
    /// The request as recorded.
    Captured(Box<Envelope>),
    /// The recording has the call but not its messages.
    NotCaptured {
        /// How to turn capture on ([`Dialect::capture_hint`]).
        how: String,
        /// The settings the recording does state (`temperature`, …), as the
        /// envelope's `params` would hold them.
        #[serde(skip_serializing_if = "Option::is_none")]
        params: Option<Map<String, Value>>,
    },
}

/// The model's reply as recorded: output, not part of the request.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Output {
    /// The reply's messages (assistant; one per choice), ids `o1`, `o2`, …
    pub messages: Vec<Message>,
    /// Per message, as recorded (`stop`, `tool_calls`, `length`, …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finish_reasons: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
}

/// One recorded model call.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    pub at: At,
    /// Unix nanoseconds (a span's start, an event's time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_ns: Option<u64>,
    /// The span's name (`chat gpt-4o`, `openai.chat`, `ChatCompletion`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The span's parent (lowercase hex): a framework's span around the
    /// call, or another instrumentation's span of the same call (the
    /// Anthropic SDK's own span inside OpenLLMetry's, say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_span_id: Option<String>,
    /// The instrumentation that recorded it: its scope's name and version
    /// (`opentelemetry.instrumentation.openai_v2 2.3b0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// `gen_ai.provider.name` / `gen_ai.system` / `llm.provider` as recorded
    /// (`openai`, `anthropic`, `aws.bedrock`, …); for a body, its format's provider.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The model requested (or, when the request's is not recorded, the one that answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub dialect: Dialect,
    pub content: Content,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Output>,
    #[serde(skip_serializing_if = "Usage::is_empty")]
    pub usage: Usage,
    /// The span failed (`status.code` ERROR): its message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_status: Option<String>,
    /// Recorded fields with no place in the envelope, each with its path
    /// (`attributes["gen_ai.prompt.0.foo"]`, `body.metadata`, a log record's
    /// `file:line resourceLogs[0]…`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<Notice>,
    /// Why the envelope made is invalid (paths into the envelope); empty
    /// for a valid one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<Diagnostic>,
}

impl Call {
    /// The request, when captured.
    pub fn envelope(&self) -> Option<&Envelope> {
        match &self.content {
            Content::Captured(e) => Some(e),
            Content::NotCaptured { .. } => None,
        }
    }

    pub fn duration_ns(&self) -> Option<u64> {
        Some(self.end_ns?.saturating_sub(self.start_ns?))
    }

    /// The row a table of calls shows. Linear in the last user message only.
    pub fn summary(&self) -> Row {
        let env = self.envelope();
        Row {
            at: self.at.clone(),
            start_ns: self.start_ns,
            duration_ns: self.duration_ns(),
            provider: self.provider.clone(),
            model: self.model.clone(),
            dialect: self.dialect,
            captured: env.is_some(),
            messages: env.map_or(0, |e| e.messages.len() as u32),
            input_tokens: self.usage.input_tokens,
            output_tokens: self.usage.output_tokens,
            last_user: env.and_then(last_user_text).map(|t| one_line(t, ROW_TEXT_CHARS)),
            notices: self.notices.len() as u32,
            errors: self.errors.len() as u32,
        }
    }
}

/// How many characters of the last user text a [`Row`] keeps.
pub const ROW_TEXT_CHARS: usize = 160;

/// A text on one line (white-space runs as one space, trimmed), its first
/// `max` characters, then `…`.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for word in text.split_whitespace() {
        let space = !out.is_empty();
        for c in std::iter::once(' ').filter(|_| space).chain(word.chars()) {
            if count == max {
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

/// The text of the last user message's last text segment.
fn last_user_text(e: &Envelope) -> Option<&str> {
    let m = e.messages.iter().rev().find(|m| m.role == Role::User)?;
    m.segments.iter().rev().find_map(|s| match s {
        Segment::Text(t) => Some(t.content.as_str()),
        Segment::LongText(t) => Some(t.content.as_str()),
        _ => None,
    })
}

/// A call as a table shows it (`pep calls`, the app's Calls view): no envelope.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub at: At,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub dialect: Dialect,
    pub captured: bool,
    /// The request's messages (0 when not captured).
    pub messages: u32,
    /// As recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// The last user text, its first [`ROW_TEXT_CHARS`] characters on one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_user: Option<String>,
    pub notices: u32,
    pub errors: u32,
}

/// Something about a file worth saying that is no call's: a metrics line
/// passed over, events whose span came after its call was emitted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub at: At,
    pub message: String,
}

/// Every call of some files, in start order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recorded {
    pub calls: Vec<Call>,
    pub notes: Vec<Note>,
    /// Spans read that are not model calls (HTTP, agent, tool, workflow, …).
    pub skipped_spans: u64,
    /// Events that came after their call was emitted ([`Finished::late_events`]).
    pub late_events: u64,
}

/// Reads whole files (name, text): every call, sorted by start time (calls
/// without one after, in input order), or every error with where and what.
pub fn read(files: &[(&str, &str)]) -> Result<Recorded, Vec<Error>> {
    let mut reader = Reader::new();
    let mut calls = Vec::new();
    let mut errors = Vec::new();
    for (name, text) in files {
        match reader.file(name, text) {
            Ok(c) => calls.extend(c),
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let finished = reader.finish();
    calls.extend(finished.calls);
    let mut calls = fold(calls);
    sort(&mut calls);
    Ok(Recorded {
        calls,
        notes: finished.notes,
        skipped_spans: finished.skipped_spans,
        late_events: finished.late_events,
    })
}

/// Whether two calls are one request recorded twice: the same trace, two
/// different instrumentation scopes, overlapping times, one span the
/// other's parent or both the children of one span, and the same model
/// when both name one. Two calls of one scope are never one (parallel
/// requests are separate calls).
fn same_request(a: &Call, b: &Call) -> bool {
    Span::of(a).same_request(&Span::of(b))
}

/// What [`same_request`] compares of a call: where and when its span ran,
/// which instrumentation recorded it, its model. Borrowed from a call, or
/// owned (`Span<String>`) by whoever keeps it after the call is gone
/// (`reuse`); either compares with either.
#[derive(Clone, Debug)]
pub(crate) struct Span<S = String> {
    trace_id: Option<S>,
    span_id: Option<S>,
    parent_span_id: Option<S>,
    scope: Option<S>,
    model: Option<S>,
    start_ns: Option<u64>,
    end_ns: Option<u64>,
}

impl<'a> Span<&'a str> {
    pub(crate) fn of(c: &'a Call) -> Span<&'a str> {
        Span {
            trace_id: c.at.trace_id.as_deref(),
            span_id: c.at.span_id.as_deref(),
            parent_span_id: c.parent_span_id.as_deref(),
            scope: c.scope.as_deref(),
            model: c.model.as_deref(),
            start_ns: c.start_ns,
            end_ns: c.end_ns,
        }
    }

    pub(crate) fn owned(&self) -> Span<String> {
        let own = |s: Option<&str>| s.map(str::to_string);
        Span {
            trace_id: own(self.trace_id),
            span_id: own(self.span_id),
            parent_span_id: own(self.parent_span_id),
            scope: own(self.scope),
            model: own(self.model),
            start_ns: self.start_ns,
            end_ns: self.end_ns,
        }
    }
}

impl<S: AsRef<str>> Span<S> {
    /// Two spans of one request: the same trace, other spans by other
    /// instrumentations, overlapping in time, one the other's parent or
    /// both of one parent, and no two models named.
    pub(crate) fn same_request<T: AsRef<str>>(&self, b: &Span<T>) -> bool {
        fn s<S: AsRef<str>>(x: &Option<S>) -> Option<&str> {
            x.as_ref().map(AsRef::as_ref)
        }
        let (Some(ta), Some(tb)) = (s(&self.trace_id), s(&b.trace_id)) else { return false };
        let (Some(sa), Some(sb)) = (s(&self.span_id), s(&b.span_id)) else { return false };
        let (Some(ca), Some(cb)) = (s(&self.scope), s(&b.scope)) else { return false };
        let (Some(a0), Some(a1), Some(b0), Some(b1)) = (self.start_ns, self.end_ns, b.start_ns, b.end_ns) else {
            return false;
        };
        let (pa, pb) = (s(&self.parent_span_id), s(&b.parent_span_id));
        let related = pa == Some(sb) || pb == Some(sa) || (pa.is_some() && pa == pb);
        let models = match (s(&self.model), s(&b.model)) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        };
        ta == tb && sa != sb && ca != cb && a0 <= b1 && b0 <= a1 && related && models
    }
}

/// How much of the request a call holds: (captured, messages, segments).
fn held(c: &Call) -> (bool, usize, usize) {
    match c.envelope() {
        Some(e) => (true, e.messages.len(), e.messages.iter().map(|m| m.segments.len()).sum()),
        None => (false, 0, 0),
    }
}

/// Folds `gone` into `kept`: what `kept` lacks (output, usage counts,
/// model, provider) is taken from `gone`, and a notice names `gone`.
fn absorb(kept: &mut Call, gone: Call) {
    if kept.output.is_none() {
        kept.output = gone.output;
    }
    let (k, g) = (&mut kept.usage, gone.usage);
    for (k, g) in [
        (&mut k.input_tokens, g.input_tokens),
        (&mut k.output_tokens, g.output_tokens),
        (&mut k.cache_read_input_tokens, g.cache_read_input_tokens),
        (&mut k.cache_creation_input_tokens, g.cache_creation_input_tokens),
        (&mut k.reasoning_output_tokens, g.reasoning_output_tokens),
        (&mut k.total_tokens, g.total_tokens),
    ] {
        if k.is_none() {
            *k = g;
        }
    }
    if kept.model.is_none() {
        kept.model = gone.model;
    }
    if kept.provider.is_none() {
        kept.provider = gone.provider;
    }
    if kept.error_status.is_none() {
        kept.error_status = gone.error_status;
    }
    kept.notices.push(Notice::new(
        "",
        format!(
            "also recorded by {} span {} ({}): one request, listed once",
            gone.scope.as_deref().unwrap_or("another instrumentation"),
            gone.at.span_id.as_deref().unwrap_or("?"),
            gone.at,
        ),
    ));
}

/// Folds calls that are one request recorded by two instrumentations
/// ([`same_request`]: the Anthropic SDK's own span inside OpenInference's,
/// beside OpenLLMetry's) into one. The call kept is the one with the
/// request captured (both: the one with more messages, then segments; a
/// tie: the parent, else the earlier); the order of the others is kept.
pub fn fold(calls: Vec<Call>) -> Vec<Call> {
    let mut by_trace: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, c) in calls.iter().enumerate() {
        if let (Some(t), Some(_)) = (&c.at.trace_id, &c.scope) {
            by_trace.entry(t.as_str()).or_default().push(i);
        }
    }
    // (kept, gone) pairs, each call folded at most once into another.
    let mut into: HashMap<usize, usize> = HashMap::new();
    let mut taken: HashSet<usize> = HashSet::new();
    let mut groups: Vec<&Vec<usize>> = by_trace.values().filter(|g| g.len() > 1).collect();
    groups.sort_by_key(|g| g[0]);
    for group in groups {
        for (x, &i) in group.iter().enumerate() {
            for &j in &group[x + 1..] {
                if taken.contains(&i) || taken.contains(&j) || !same_request(&calls[i], &calls[j]) {
                    continue;
                }
                let (a, b) = (&calls[i], &calls[j]);
                let order = held(a).cmp(&held(b)).then_with(|| {
                    let a_parent = b.parent_span_id.is_some() && b.parent_span_id == a.at.span_id;
                    let b_parent = a.parent_span_id.is_some() && a.parent_span_id == b.at.span_id;
                    a_parent.cmp(&b_parent).then_with(|| b.start_ns.cmp(&a.start_ns))
                });
                let (kept, gone) = if order.is_lt() { (j, i) } else { (i, j) };
                taken.insert(gone);
                into.insert(gone, kept);
            }
        }
    }
    if into.is_empty() {
        return calls;
    }
    let mut slots: Vec<Option<Call>> = calls.into_iter().map(Some).collect();
    let mut gone: Vec<usize> = into.keys().copied().collect();
    gone.sort_unstable();
    for g in gone {
        let kept = into[&g];
        if let Some(call) = slots[g].take() {
            if let Some(k) = slots[kept].as_mut() {
                absorb(k, call);
            }
        }
    }
    slots.into_iter().flatten().collect()
}

/// Sorts calls by start time; calls without one keep their order, after.
pub fn sort(calls: &mut [Call]) {
    calls.sort_by_key(|c| c.start_ns.unwrap_or(u64::MAX));
}

/// Whether a text is JSON Lines: its first non-blank line is a whole JSON
/// value (and something follows it). A pretty-printed document's first
/// line (`{`) is not.
pub fn is_json_lines(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(first) = lines.next() else { return false };
    lines.next().is_some() && serde_json::from_str::<serde::de::IgnoredAny>(first).is_ok()
}

/// What is left when reading is over.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finished {
    /// The calls that were still waiting for their partner (spans for their
    /// events, events for their span), in the order they were read.
    pub calls: Vec<Call>,
    pub notes: Vec<Note>,
    pub skipped_spans: u64,
    /// Log events that came after their call was emitted (the messages were
    /// on the span too: an instrumentation recording both ways).
    pub late_events: u64,
}

type Key = (String, String);

struct HeldSpan {
    at: At,
    span: otlp::Span,
}

struct HeldLogs {
    tick: u64,
    at: At,
    records: Vec<(At, otlp::LogRecord)>,
}

/// Reads calls one line (or one file) at a time; see the module doc for
/// what it holds between lines.
pub struct Reader {
    window: Option<u64>,
    tick: u64,
    spans: HashMap<Key, HeldSpan>,
    logs: HashMap<Key, HeldLogs>,
    /// Insertion order of held entries and of emitted keys, for the window.
    order: VecDeque<(u64, Key)>,
    done: HashSet<Key>,
    done_order: VecDeque<(u64, Key)>,
    released: Vec<Call>,
    notes: Vec<Note>,
    skipped_spans: u64,
    late_events: u64,
}

impl Default for Reader {
    fn default() -> Self {
        Reader::new()
    }
}

impl Reader {
    /// A reader that holds spans and events waiting for each other until
    /// [`Reader::finish`].
    pub fn new() -> Reader {
        Reader {
            window: None,
            tick: 0,
            spans: HashMap::new(),
            logs: HashMap::new(),
            order: VecDeque::new(),
            done: HashSet::new(),
            done_order: VecDeque::new(),
            released: Vec::new(),
            notes: Vec::new(),
            skipped_spans: 0,
            late_events: 0,
        }
    }

    /// A reader that gives a waiting span or event group `lines` lines (and
    /// files) to find its partner: constant memory.
    pub fn windowed(lines: u64) -> Reader {
        Reader { window: Some(lines), ..Reader::new() }
    }

    /// How many spans and event groups wait for their partner.
    pub fn waiting(&self) -> usize {
        self.spans.len() + self.logs.len()
    }

    /// A whole file: JSON Lines ([`is_json_lines`]) line by line, else one
    /// document. The calls it completes, or every error of the file.
    pub fn file(&mut self, name: &str, text: &str) -> Result<Vec<Call>, Vec<Error>> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if !is_json_lines(text) {
            return self.document(At::file(name), text).map(fold);
        }
        let mut calls = Vec::new();
        let mut errors = Vec::new();
        for (i, line) in text.lines().enumerate() {
            match self.line(name, i as u64 + 1, line) {
                Ok(c) => calls.extend(c),
                Err(e) => errors.extend(e),
            }
        }
        if errors.is_empty() {
            Ok(fold(calls))
        } else {
            Err(errors)
        }
    }

    /// One line of a JSON Lines file (1-based `line`; a blank line is no
    /// call). The calls it completes (and those it let go, when windowed).
    pub fn line(&mut self, name: &str, line: u64, text: &str) -> Result<Vec<Call>, Vec<Error>> {
        if text.trim().is_empty() {
            return Ok(vec![]);
        }
        self.document(At::line(name, Some(line)), text)
    }

    /// One JSON document (a whole file, or one line).
    fn document(&mut self, at: At, text: &str) -> Result<Vec<Call>, Vec<Error>> {
        self.tick += 1;
        let value = match crate::parse::read_json(text) {
            Ok((v, dups)) if dups.is_empty() => v,
            Ok((_, dups)) => return Err(dups.into_iter().map(|d| Error::of(at.clone(), d)).collect()),
            Err(d) => return Err(vec![Error::of(at, d)]),
        };
        let result = self.value(at, value);
        self.expire();
        let mut calls = std::mem::take(&mut self.released);
        match result {
            Ok(c) => {
                calls.extend(c);
                Ok(calls)
            }
            Err(e) => {
                self.released = calls;
                Err(e)
            }
        }
    }

    /// A JSON value read from `at`.
    pub fn value(&mut self, at: At, value: Value) -> Result<Vec<Call>, Vec<Error>> {
        let Value::Object(o) = &value else {
            return batch::plain(at, value);
        };
        if otlp::is_traces(o) {
            let spans = otlp::spans(o).map_err(|p| vec![Error::record(at.clone(), p.path, p.message)])?;
            return Ok(self.spans(&at, spans));
        }
        if otlp::is_logs(o) {
            let records = otlp::log_records(o).map_err(|p| vec![Error::record(at.clone(), p.path, p.message)])?;
            return Ok(self.logs(&at, records));
        }
        if otlp::is_other_signal(o) {
            self.notes.push(Note { at, message: "an OTLP metrics or profiles request: no calls in it".into() });
            return Ok(vec![]);
        }
        batch::value(at, value)
    }

    fn spans(&mut self, at: &At, spans: Vec<otlp::Span>) -> Vec<Call> {
        let mut out = Vec::new();
        for span in spans {
            if !dialect::is_call(&span) {
                self.skipped_spans += 1;
                continue;
            }
            let key = (span.trace_id.clone(), span.span_id.clone());
            let mut span_at = at.clone();
            span_at.trace_id = (!span.trace_id.is_empty()).then(|| span.trace_id.clone());
            span_at.span_id = (!span.span_id.is_empty()).then(|| span.span_id.clone());
            let waiting = self.logs.get(&key).is_some_and(|h| dialect::events_complete(&span, &h.records));
            if waiting || dialect::carries_content(&span) || span.span_id.is_empty() {
                let records = self.logs.remove(&key).map(|h| h.records).unwrap_or_default();
                out.push(dialect::call(span_at, Some(&span), &records));
                self.mark_done(key);
            } else {
                let held = HeldSpan { at: span_at, span };
                if self.spans.insert(key.clone(), held).is_none() {
                    self.order.push_back((self.tick, key));
                }
            }
        }
        out
    }

    fn logs(&mut self, at: &At, records: Vec<otlp::LogRecord>) -> Vec<Call> {
        // Group by span, keeping the order of first appearance.
        let mut groups: Vec<(Key, Vec<(At, otlp::LogRecord)>)> = Vec::new();
        for r in records {
            if !dialect::is_genai_event(&r) {
                continue;
            }
            let key = (r.trace_id.clone(), r.span_id.clone());
            let rec_at = at.clone();
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, g)) => g.push((rec_at, r)),
                None => groups.push((key, vec![(rec_at, r)])),
            }
        }
        let mut out = Vec::new();
        for (key, records) in groups {
            if key.1.is_empty() {
                // Events outside any span: one call of their own.
                let mut call_at = at.clone();
                call_at.trace_id = (!key.0.is_empty()).then(|| key.0.clone());
                out.push(dialect::call(call_at, None, &records));
                continue;
            }
            if self.done.contains(&key) {
                self.late_events += records.len() as u64;
                continue;
            }
            let held =
                self.logs.entry(key.clone()).or_insert_with(|| HeldLogs { tick: 0, at: at.clone(), records: vec![] });
            let fresh = held.records.is_empty();
            held.records.extend(records);
            if fresh {
                held.tick = self.tick;
                self.order.push_back((self.tick, key.clone()));
            }
            let complete = self.spans.get(&key).is_some_and(|s| dialect::events_complete(&s.span, &held.records));
            if complete {
                if let Some(span) = self.spans.remove(&key) {
                    let records = self.logs.remove(&key).map(|h| h.records).unwrap_or_default();
                    out.push(dialect::call(span.at, Some(&span.span), &records));
                    self.mark_done(key);
                }
            }
        }
        out
    }

    fn mark_done(&mut self, key: Key) {
        if self.done.insert(key.clone()) {
            self.done_order.push_back((self.tick, key));
        }
    }

    /// Lets go of what waited longer than the window.
    fn expire(&mut self) {
        let Some(window) = self.window else { return };
        let horizon = self.tick.saturating_sub(window);
        while let Some((tick, _)) = self.order.front() {
            if *tick >= horizon {
                break;
            }
            let (_, key) = self.order.pop_front().unwrap_or_default();
            let call = self.release(&key);
            self.released.extend(call);
        }
        while let Some((tick, _)) = self.done_order.front() {
            if *tick >= horizon {
                break;
            }
            if let Some((_, key)) = self.done_order.pop_front() {
                self.done.remove(&key);
            }
        }
    }

    /// The call of what waits under `key` (a span with its events so far,
    /// or events alone).
    fn release(&mut self, key: &Key) -> Option<Call> {
        let records = self.logs.remove(key);
        match self.spans.remove(key) {
            Some(span) => {
                let records = records.map(|h| h.records).unwrap_or_default();
                let call = dialect::call(span.at, Some(&span.span), &records);
                self.mark_done(key.clone());
                Some(call)
            }
            None => {
                let held = records?;
                let mut at = held.at;
                at.trace_id = (!key.0.is_empty()).then(|| key.0.clone());
                at.span_id = (!key.1.is_empty()).then(|| key.1.clone());
                let mut call = dialect::call(at, None, &held.records);
                call.notices
                    .push(Notice::new("", "no span was read for these events: the call is made from them alone"));
                self.mark_done(key.clone());
                Some(call)
            }
        }
    }

    /// Everything still waiting, as calls (in the order it was read), and
    /// the notes.
    pub fn finish(mut self) -> Finished {
        let mut calls = std::mem::take(&mut self.released);
        let order: Vec<Key> = std::mem::take(&mut self.order).into_iter().map(|(_, k)| k).collect();
        for key in order {
            calls.extend(self.release(&key));
        }
        let calls = fold(calls);
        Finished { calls, notes: self.notes, skipped_spans: self.skipped_spans, late_events: self.late_events }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span_call(span: &str, parent: Option<&str>, scope: &str, times: (u64, u64), messages: usize) -> Call {
        let content = if messages == 0 {
            Content::NotCaptured { how: "turn it on".into(), params: None }
        } else {
            let messages: Vec<Value> = (0..messages)
                .map(|i| {
                    serde_json::json!({"id": format!("m{i}"), "role": "user", "timestamp": 0,
                    "segments": [{"kind": "text", "content": "hi"}]})
                })
                .collect();
            let doc = serde_json::json!({"version": "1.0", "messages": messages}).to_string();
            Content::Captured(Box::new(crate::parse::parse(&doc).unwrap().envelope))
        };
        Call {
            at: At { trace_id: Some("t1".into()), span_id: Some(span.into()), ..At::line("traces.jsonl", Some(1)) },
            start_ns: Some(times.0),
            end_ns: Some(times.1),
            name: None,
            parent_span_id: parent.map(str::to_string),
            scope: Some(scope.into()),
            provider: Some("anthropic".into()),
            model: Some("claude-haiku-4-5".into()),
            dialect: Dialect::Genai,
            content,
            output: None,
            usage: Usage::default(),
            error_status: None,
            notices: vec![],
            errors: vec![],
        }
    }

    fn spans_of(calls: &[Call]) -> Vec<&str> {
        calls.iter().map(|c| c.at.span_id.as_deref().unwrap_or("")).collect()
    }

    #[test]
    fn one_request_recorded_by_two_instrumentations_is_one_call() {
        const SDK: &str = "com.anthropic.sdk.python 2.16.0";
        const OI: &str = "openinference.instrumentation.anthropic 3.1.0";
        // Parent/child (OpenInference): the parent has the messages, the
        // SDK's span the usage and the reply.
        let parent = span_call("a", Some("root"), OI, (10, 100), 2);
        let mut child = span_call("b", Some("a"), SDK, (20, 90), 0);
        child.usage.input_tokens = Some(40);
        child.usage.output_tokens = Some(7);
        child.output = Some(Output { response_id: Some("msg_1".into()), ..Output::default() });
        let calls = fold(vec![child.clone(), parent.clone()]);
        assert_eq!(spans_of(&calls), ["a"]);
        assert!(calls[0].envelope().is_some());
        assert_eq!((calls[0].usage.input_tokens, calls[0].usage.output_tokens), (Some(40), Some(7)));
        assert_eq!(calls[0].output.as_ref().and_then(|o| o.response_id.as_deref()), Some("msg_1"));
        let notice = &calls[0].notices[0].message;
        assert!(notice.starts_with("also recorded by com.anthropic.sdk.python 2.16.0 span b "), "{notice}");

        // Usage the kept call has is its own.
        let mut p = parent.clone();
        p.usage.input_tokens = Some(41);
        assert_eq!(fold(vec![p, child.clone()])[0].usage.input_tokens, Some(41));

        // Siblings (OpenLLMetry): the same parent.
        let sibling = span_call("c", Some("root"), SDK, (12, 95), 0);
        assert_eq!(spans_of(&fold(vec![sibling.clone(), parent.clone()])), ["a"]);
        // Both captured: the one with more messages; a tie: the parent, then the earlier.
        let richer = span_call("c", Some("root"), SDK, (12, 95), 3);
        assert_eq!(spans_of(&fold(vec![parent.clone(), richer])), ["c"]);
        let same = span_call("b", Some("a"), SDK, (20, 90), 2);
        assert_eq!(spans_of(&fold(vec![same, parent.clone()])), ["a"]);
        let later = span_call("c", Some("root"), SDK, (12, 95), 2);
        assert_eq!(spans_of(&fold(vec![later, parent.clone()])), ["a"]);

        // Not one request: the same scope (parallel requests), times that do
        // not overlap (the next request of the scenario), other models,
        // another trace, unrelated spans.
        let parallel = span_call("c", Some("root"), OI, (12, 95), 2);
        assert_eq!(fold(vec![parent.clone(), parallel]).len(), 2);
        let next = span_call("c", Some("root"), SDK, (101, 150), 0);
        assert_eq!(fold(vec![parent.clone(), next]).len(), 2);
        let mut other_model = sibling.clone();
        other_model.model = Some("claude-sonnet-4-5".into());
        assert_eq!(fold(vec![parent.clone(), other_model]).len(), 2);
        let mut no_model = sibling.clone();
        no_model.model = None;
        assert_eq!(fold(vec![parent.clone(), no_model]).len(), 1);
        let mut other_trace = sibling.clone();
        other_trace.at.trace_id = Some("t2".into());
        assert_eq!(fold(vec![parent.clone(), other_trace]).len(), 2);
        let unrelated = span_call("c", Some("elsewhere"), SDK, (12, 95), 0);
        assert_eq!(fold(vec![parent.clone(), unrelated]).len(), 2);
        // Two requests, each recorded twice: two calls, in their order.
        let second = span_call("d", Some("root"), OI, (200, 300), 1);
        let second_sdk = span_call("e", Some("d"), SDK, (210, 290), 0);
        let calls = fold(vec![parent, child, second, second_sdk]);
        assert_eq!(spans_of(&calls), ["a", "d"]);
        assert!(calls.iter().all(|c| c.notices.len() == 1));
    }

    /// Runs calls through a [`Folding`] of `cap`, as the CLI does.
    fn streamed(calls: Vec<Call>, cap: u64) -> Vec<Call> {
        let mut f = Folding::new(cap);
        let mut out: Vec<Call> = calls.into_iter().flat_map(|c| f.push(c)).collect();
        out.extend(f.finish());
        out
    }

    #[test]
    fn a_stream_folds_what_it_holds_as_fold_does() {
        const SDK: &str = "com.anthropic.sdk.python 2.16.0";
        const OI: &str = "openinference.instrumentation.anthropic 3.1.0";
        let parent = span_call("a", Some("root"), OI, (10, 100), 2);
        let mut child = span_call("b", Some("a"), SDK, (20, 90), 0);
        child.usage.input_tokens = Some(40);
        let second = span_call("d", Some("root"), OI, (200, 300), 1);
        let second_sdk = span_call("e", Some("d"), SDK, (210, 290), 0);
        let all = vec![child.clone(), parent.clone(), second.clone(), second_sdk.clone()];
        // Held long enough: the same calls as folding the whole.
        for cap in [2, 3, 100] {
            assert_eq!(streamed(all.clone(), cap), fold(all.clone()), "cap {cap}");
        }
        let one = streamed(all.clone(), 2);
        assert_eq!(spans_of(&one), ["a", "d"]);
        assert_eq!(one[0].usage.input_tokens, Some(40));
        // Twins further apart than it holds stay two calls.
        let other = span_call("x", Some("root"), OI, (150, 160), 1);
        let apart = vec![parent.clone(), other.clone(), second.clone(), child.clone()];
        assert_eq!(streamed(apart.clone(), 2).len(), 4);
        assert_eq!(streamed(apart, 3).len(), 3);
        // Calls that cannot fold (no trace, no scope) go through in order.
        let mut plain = span_call("p", None, OI, (1, 2), 1);
        plain.at.trace_id = None;
        let mut unscoped = span_call("q", None, SDK, (3, 4), 1);
        unscoped.scope = None;
        let out = streamed(vec![plain, unscoped, parent.clone(), child.clone()], 1);
        assert_eq!(spans_of(&out), ["p", "q", "a"]);
        let out = streamed(vec![parent, span_call("y", None, OI, (1, 2), 1), child], 1);
        assert_eq!(spans_of(&out), ["a", "y", "b"]);
        assert!(streamed(vec![], 4).is_empty());
    }

    #[cfg(feature = "diff")]
    #[test]
    fn each_call_is_counted_and_compared_with_the_previous_of_its_trace() {
        use reuse::{Cost, Reuse};
        let with = |span: &str, trace: Option<&str>, texts: &[&str], times: (u64, u64)| {
            let messages: Vec<Value> = texts
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let role = if i % 2 == 0 { "user" } else { "assistant" };
                    serde_json::json!({"id": format!("m{i}"), "role": role, "timestamp": 0,
                        "segments": [{"kind": "text", "content": t}]})
                })
                .collect();
            let doc = serde_json::json!({"version": "1.0", "model": "gpt-4o", "messages": messages}).to_string();
            let mut c = span_call(span, Some("root"), "openinference 1", times, 0);
            c.content = Content::Captured(Box::new(crate::parse::parse(&doc).unwrap().envelope));
            c.at.trace_id = trace.map(str::to_string);
            c
        };
        let tokens = |t: &str| crate::tokens::count(t) as u64;
        let q1 = "What is the capital of France? Answer in one word.";
        let a1 = "Paris.";
        let q2 = "And of Italy?";
        let mut r = Reuse::new();
        let first = r.add(&with("a", Some("t1"), &[q1], (0, 10))).unwrap();
        assert_eq!(first, Cost { tokens: tokens(q1), reusable: None });
        // The next turn of the conversation: its first message is served.
        let next = r.add(&with("b", Some("t1"), &[q1, a1, q2], (20, 30))).unwrap();
        assert_eq!(next.tokens, tokens(q1) + tokens(a1) + tokens(q2));
        assert_eq!(next.reusable, Some(tokens(q1)));
        // Another trace starts over; a call without a trace compares within its file.
        assert_eq!(r.add(&with("c", Some("t2"), &[q1], (0, 10))).unwrap().reusable, None);
        assert_eq!(r.add(&with("d", None, &[q1], (0, 10))).unwrap().reusable, None);
        assert_eq!(r.add(&with("e", None, &[q1, a1, q2], (0, 10))).unwrap().reusable, Some(tokens(q1)));
        // Another model shares nothing.
        let mut other = with("f", Some("t1"), &[q1, a1, q2, a1], (40, 50));
        if let Content::Captured(e) = &mut other.content {
            e.model = Some("gpt-4.1".into());
        }
        assert_eq!(r.add(&other).unwrap().reusable, Some(0));
        // The same request recorded by a second instrumentation is not its
        // own previous call: it gets its twin's figure.
        let mut r = Reuse::new();
        r.add(&with("a", Some("t1"), &[q1], (0, 10)));
        let kept = r.add(&with("b", Some("t1"), &[q1, a1, q2], (20, 30))).unwrap();
        let mut twin = with("b2", Some("t1"), &[q1, a1, q2], (21, 29));
        twin.scope = Some("com.anthropic.sdk.python 2".into());
        assert_eq!(r.add(&twin).unwrap(), kept);
        // Not captured: no figure.
        assert_eq!(r.add(&span_call("z", None, "x", (0, 1), 0)), None);
    }

    #[test]
    fn dialect_codes_round_trip() {
        for d in [
            Dialect::Request(Format::OpenaiChat),
            Dialect::Request(Format::Envelope),
            Dialect::OpenaiBatch,
            Dialect::AnthropicBatch,
            Dialect::Genai,
            Dialect::GenaiEvents,
            Dialect::Openllmetry,
            Dialect::Openinference,
        ] {
            assert_eq!(Dialect::from_code(&d.code()), Some(d));
            let v = serde_json::to_value(d).unwrap();
            assert_eq!(serde_json::from_value::<Dialect>(v).unwrap(), d);
        }
        assert_eq!(Dialect::Request(Format::Anthropic).code(), "request:anthropic");
        assert_eq!(Dialect::from_code("nope"), None);
    }

    #[test]
    fn json_lines_or_one_document() {
        assert!(is_json_lines("{\"a\":1}\n{\"a\":2}\n"));
        assert!(!is_json_lines("{\n  \"a\": 1\n}\n"));
        assert!(!is_json_lines("{\"a\":1}\n"));
        assert!(!is_json_lines(""));
    }

    #[test]
    fn at_display() {
        let at = At {
            file: "t.jsonl".into(),
            line: Some(3),
            trace_id: Some("ab".into()),
            span_id: Some("cd".into()),
            ..At::default()
        };
        assert_eq!(at.to_string(), "t.jsonl:3 trace ab span cd");
        let e = Error::record(At { custom_id: Some("r\"1".into()), ..At::file("b.jsonl") }, "body", "bad");
        assert_eq!(e.to_string(), "b.jsonl custom_id \"r\\\"1\": body: bad");
    }
}
