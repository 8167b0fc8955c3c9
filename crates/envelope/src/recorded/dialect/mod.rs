//! The telemetry dialects: which spans are model calls, and how each
//! dialect's attributes and events become a [`Call`].
//!
//! One module per dialect ([`genai`], [`events`], [`openllmetry`],
//! [`openinference`]); this module holds what they share: the call's
//! provider and request format, model, settings (`gen_ai.request.*`) and
//! usage (`gen_ai.usage.*`), and the notices for recorded attributes that
//! no dialect placed.
//!
//! Which dialect a call is read in, first match wins: OpenInference (the
//! span kind `LLM`); the current GenAI conventions (`gen_ai.input.messages`
//! and its siblings on the span, or the
//! `gen_ai.client.inference.operation.details` event); OpenLLMetry
//! (`gen_ai.prompt.{i}.*`); the v1.30 events. With no messages anywhere the
//! call is not captured, in the dialect its other attributes suggest.

pub mod events;
pub mod genai;
pub mod openinference;
pub mod openllmetry;

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::build::Conv;
use super::otlp::{LogRecord, Span};
use super::{At, Call, Content, Dialect, Output, Usage};
use crate::diag::Notice;
use crate::types::RequestFormat;

/// `gen_ai.operation.name` values that are a request to a model.
const CALL_OPERATIONS: &[&str] = &["chat", "text_completion", "generate_content", "completion"];

/// `gen_ai.operation.name` values that are not.
const OTHER_OPERATIONS: &[&str] = &[
    "embeddings",
    "embedding",
    "retrieval",
    "create_agent",
    "invoke_agent",
    "execute_tool",
    "invoke_workflow",
    "rerank",
];

/// The event that carries a whole call in the current conventions.
pub const OPERATION_DETAILS: &str = "gen_ai.client.inference.operation.details";

/// Whether a span is a request to a model.
pub fn is_call(span: &Span) -> bool {
    let a = &span.attributes;
    let s = |k: &str| a.get(k).and_then(Value::as_str);
    if let Some(kind) = s("openinference.span.kind") {
        return kind.eq_ignore_ascii_case("llm");
    }
    if let Some(t) = s("llm.request.type") {
        return matches!(t, "chat" | "completion");
    }
    if let Some(op) = s("gen_ai.operation.name") {
        if CALL_OPERATIONS.contains(&op) {
            return true;
        }
        if OTHER_OPERATIONS.contains(&op) {
            return false;
        }
        return carries_content(span);
    }
    if s("traceloop.span.kind").is_some() {
        return false;
    }
    // A model asked for, and no operation named (OpenLLMetry 0.5x's
    // Responses spans): a call, recorded with or without its messages.
    a.contains_key("gen_ai.request.model") || carries_content(span)
}

/// Whether a span holds its messages itself (attributes or span events).
pub fn carries_content(span: &Span) -> bool {
    let a = &span.attributes;
    a.contains_key("gen_ai.input.messages")
        || a.contains_key("gen_ai.system_instructions")
        || a.contains_key("gen_ai.output.messages")
        || a.contains_key("input.value")
        || a.keys().any(|k| {
            k.starts_with("gen_ai.prompt.")
                || k.starts_with("gen_ai.completion.")
                || k.starts_with("llm.input_messages.")
                || k.starts_with("llm.output_messages.")
        })
        || span.events.iter().any(|e| e.name == OPERATION_DETAILS || events::is_message_event(&e.name))
}

/// Whether a log record is a GenAI event (`gen_ai.*`).
pub fn is_genai_event(r: &LogRecord) -> bool {
    r.event_name.as_deref().is_some_and(|n| n.starts_with("gen_ai."))
}

/// Whether a span's events are all there: the whole call came
/// (`gen_ai.client.inference.operation.details`), or the reply did: as many
/// `gen_ai.choice` events as the span asked for choices
/// (`gen_ai.request.choice.count`, 1 when not recorded).
pub fn events_complete(span: &Span, records: &[(At, LogRecord)]) -> bool {
    let wanted = span.attributes.get("gen_ai.request.choice.count").and_then(Value::as_u64).unwrap_or(1).max(1);
    let mut choices = 0;
    for (_, r) in records {
        match r.event_name.as_deref() {
            Some(OPERATION_DETAILS) => return true,
            Some("gen_ai.choice") => choices += 1,
            _ => {}
        }
    }
    choices >= wanted
}

/// The attributes of a call, with the keys a reader used.
pub(crate) struct Attrs<'a> {
    pub map: &'a Map<String, Value>,
    used: HashSet<String>,
}

impl<'a> Attrs<'a> {
    pub fn new(map: &'a Map<String, Value>) -> Attrs<'a> {
        Attrs { map, used: HashSet::new() }
    }

    /// The value of `key`, marked used.
    pub fn get(&mut self, key: &str) -> Option<&'a Value> {
        let v = self.map.get(key)?;
        self.used.insert(key.to_string());
        Some(v)
    }

    pub fn str(&mut self, key: &str) -> Option<&'a str> {
        self.get(key).and_then(Value::as_str)
    }

    pub fn u64(&mut self, key: &str) -> Option<u64> {
        match self.get(key)? {
            Value::Number(n) => n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    pub fn mark(&mut self, key: &str) {
        self.used.insert(key.to_string());
    }

    pub fn is_used(&self, key: &str) -> bool {
        self.used.contains(key)
    }

    /// The keys starting with `prefix`, in order.
    pub fn keys_with(&self, prefix: &str) -> Vec<&'a str> {
        self.map.keys().filter(|k| k.starts_with(prefix)).map(String::as_str).collect()
    }
}

/// An attribute's path in a notice: `attributes["gen_ai.prompt.0.role"]`.
pub fn attr_path(key: &str) -> String {
    format!("attributes[{}]", Value::String(key.to_string()))
}

/// A log record's path in a notice: where it was read and its JSON path.
pub fn record_path(at: &At, r: &LogRecord) -> String {
    match at.line {
        Some(l) => format!("{}:{l} {}", at.file, r.path),
        None => format!("{} {}", at.file, r.path),
    }
}

/// Prefixes of the attributes that record what a request sends: one no
/// reader used becomes a notice.
const CONTENT_PREFIXES: &[&str] = &[
    "gen_ai.input.",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.tool.definitions",
    "gen_ai.prompt",
    "gen_ai.completion",
    "gen_ai.request.",
    "gen_ai.openai.request.",
    "llm.input_messages",
    "llm.output_messages",
    "llm.tools",
    "llm.invocation_parameters",
    "llm.prompt_template",
    "llm.prompts",
    "llm.request.functions",
    "input.value",
    // OpenInference's google-genai instrumentation writes an output call's
    // attributes without their `llm.output_messages.{i}.` prefix.
    "message.",
];

/// A JSON value recorded as JSON text (or structured already): the value.
pub fn json_of(v: &Value) -> Result<Value, String> {
    match v {
        Value::String(s) => serde_json::from_str(s).map_err(|e| format!("not JSON: {e}")),
        other => Ok(other.clone()),
    }
}

/// The provider's request format, from its `gen_ai.provider.name` (or
/// `gen_ai.system`, `llm.provider`) value: `openai` and the Azure OpenAI
/// names → OpenAI Chat, `anthropic` → Anthropic Messages, Gemini and
/// Bedrock names → those formats when this build reads them.
pub fn format_of(provider: &str) -> Option<RequestFormat> {
    let p = provider.to_ascii_lowercase();
    match p.as_str() {
        "openai" | "azure.ai.openai" | "az.ai.openai" | "azure_openai" | "azure" => Some(RequestFormat::Openai),
        "anthropic" => Some(RequestFormat::Anthropic),
        "aws.bedrock" | "aws_bedrock" | "bedrock" => RequestFormat::parse("bedrock"),
        "gcp.gemini" | "gcp.vertex_ai" | "gcp.gen_ai" | "gemini" | "google" | "vertex_ai" | "vertexai"
        | "google_genai" => RequestFormat::parse("gemini"),
        _ => None,
    }
}

/// The provider as recorded.
fn provider(a: &mut Attrs, records: &[(At, LogRecord)]) -> Option<String> {
    for key in ["gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system"] {
        if let Some(p) = a.str(key) {
            return Some(p.to_string());
        }
    }
    records
        .iter()
        .find_map(|(_, r)| {
            ["gen_ai.provider.name", "gen_ai.system"].iter().find_map(|k| r.attributes.get(*k).and_then(Value::as_str))
        })
        .map(str::to_string)
}

/// Token counts: the current names, then the older and OpenLLMetry ones.
fn usage(a: &mut Attrs) -> Usage {
    let mut first = |keys: &[&str]| keys.iter().find_map(|k| a.u64(k));
    Usage {
        input_tokens: first(&["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"]),
        output_tokens: first(&[
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.completion_tokens",
            "llm.token_count.completion",
        ]),
        cache_read_input_tokens: first(&[
            "gen_ai.usage.cache_read.input_tokens",
            "gen_ai.usage.cache_read_input_tokens",
            "llm.token_count.prompt_details.cache_read",
        ]),
        cache_creation_input_tokens: first(&[
            "gen_ai.usage.cache_creation.input_tokens",
            "gen_ai.usage.cache_creation_input_tokens",
            "gen_ai.usage.cache_write.input_tokens",
            "llm.token_count.prompt_details.cache_write",
        ]),
        reasoning_output_tokens: first(&[
            "gen_ai.usage.reasoning.output_tokens",
            "gen_ai.usage.reasoning_tokens",
            "llm.token_count.completion_details.reasoning",
        ]),
        total_tokens: first(&["gen_ai.usage.total_tokens", "llm.usage.total_tokens", "llm.token_count.total"]),
    }
}

/// The request's settings the conventions define (`gen_ai.request.*`, and
/// OpenLLMetry's `llm.*` ones), spelled as the provider's format spells
/// them: `stop` for OpenAI Chat's stop sequences, `n` for the choice count.
/// What only says the default was used is no setting: `stream` false, one
/// choice. Another `gen_ai.request.*` attribute (an instrumentation's own:
/// `structured_output_schema`, `reasoning_summary`) is not a body field as
/// written: it stays a notice.
pub(crate) fn params(a: &mut Attrs, format: Option<RequestFormat>) -> Map<String, Value> {
    let mut out = Map::new();
    let chat = format == Some(RequestFormat::Openai);
    let stop = if chat { "stop" } else { "stop_sequences" };
    for (key, name) in [
        ("gen_ai.request.max_tokens", "max_tokens"),
        ("gen_ai.request.temperature", "temperature"),
        ("gen_ai.request.top_p", "top_p"),
        ("gen_ai.request.top_k", "top_k"),
        ("gen_ai.request.stop_sequences", stop),
        ("gen_ai.request.frequency_penalty", "frequency_penalty"),
        ("gen_ai.request.presence_penalty", "presence_penalty"),
        ("gen_ai.request.seed", "seed"),
        ("gen_ai.request.choice.count", "n"),
        ("gen_ai.request.stream", "stream"),
        ("gen_ai.request.encoding_formats", "encoding_format"),
        ("llm.frequency_penalty", "frequency_penalty"),
        ("llm.presence_penalty", "presence_penalty"),
        ("llm.top_k", "top_k"),
        ("llm.chat.stop_sequences", stop),
        ("llm.request.repetition_penalty", "repetition_penalty"),
        ("llm.user", "user"),
        ("gen_ai.user", "user"),
        ("llm.is_streaming", "stream"),
        ("gen_ai.is_streaming", "stream"),
    ] {
        let Some(v) = a.get(key) else { continue };
        let default = match name {
            "stream" => *v == Value::Bool(false),
            "n" => v.as_u64() == Some(1),
            _ => false,
        };
        if !default && !out.contains_key(name) {
            out.insert(name.to_string(), v.clone());
        }
    }
    out
}

/// What a dialect read: the request's conversation, the reply, settings
/// it found itself (OpenInference's invocation parameters), the model.
pub(crate) struct Read {
    pub dialect: Dialect,
    /// `None`: the dialect found no messages.
    pub conv: Option<Conv>,
    pub output: Option<Conv>,
    pub finish_reasons: Vec<String>,
    pub params: Option<Map<String, Value>>,
    pub model: Option<String>,
    /// A whole request imported (OpenInference `input.value`): the envelope
    /// as the importer made it.
    pub imported: Option<crate::import::Imported>,
    pub notices: Vec<Notice>,
}

impl Read {
    pub fn new(dialect: Dialect) -> Read {
        Read {
            dialect,
            conv: None,
            output: None,
            finish_reasons: vec![],
            params: None,
            model: None,
            imported: None,
            notices: vec![],
        }
    }
}

/// The scopes of OpenLLMetry's instrumentations that no other package uses.
const OPENLLMETRY_SCOPES: &[&str] = &[
    "openai.v0",
    "openai.v1",
    "anthropic",
    "bedrock",
    "google_generativeai",
    "cohere",
    "mistralai",
    "ollama",
    "groq",
    "together",
    "replicate",
    "watsonx",
    "alephalpha",
    "sagemaker",
    "writer",
    "transformers",
];

/// Scopes OpenLLMetry shares with opentelemetry-python-contrib (whose
/// versions are betas: `2.1b0`).
const SHARED_SCOPES: &[&str] = &["vertexai", "langchain", "openai_agents", "llamaindex", "crewai", "haystack"];

/// Whether OpenLLMetry recorded the span.
pub fn is_openllmetry(a: &Map<String, Value>, span: Option<&Span>) -> bool {
    if a.contains_key("llm.request.type") || a.keys().any(|k| k.starts_with("traceloop.")) {
        return true;
    }
    let Some(s) = span else { return false };
    let Some(rest) = s.scope.name.strip_prefix("opentelemetry.instrumentation.") else { return false };
    OPENLLMETRY_SCOPES.contains(&rest) || (SHARED_SCOPES.contains(&rest) && !s.scope.version.contains('b'))
}

/// The dialect a call without messages is in, from its other attributes.
fn guess(a: &Attrs, span: Option<&Span>) -> Dialect {
    let has = |k: &str| a.map.contains_key(k);
    if has("openinference.span.kind") || has("llm.model_name") {
        Dialect::Openinference
    } else if is_openllmetry(a.map, span) {
        Dialect::Openllmetry
    } else if has("gen_ai.provider.name") {
        Dialect::Genai
    } else {
        Dialect::GenaiEvents
    }
}

/// How to turn capture on, for the instrumentation that made the span.
fn capture_hint(dialect: Dialect, span: Option<&Span>) -> String {
    match span.map(|s| s.scope.name.as_str()) {
        Some(scope) if scope.starts_with("com.anthropic.sdk") => {
            "set ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content in the instrumented process (the Anthropic SDK's own tracing)"
                .to_string()
        }
        _ => dialect.capture_hint().to_string(),
    }
}

/// The attributes a call is read from: the span's, then those of its
/// `gen_ai.client.inference.operation.details` event (a span event or a log
/// record: attributes, or a body holding them) for the keys the span lacks.
fn merged(span: Option<&Span>, records: &[(At, LogRecord)]) -> Map<String, Value> {
    let mut out = span.map(|s| s.attributes.clone()).unwrap_or_default();
    let mut add = |m: &Map<String, Value>| {
        for (k, v) in m {
            if !out.contains_key(k) && k != "event.name" {
                out.insert(k.clone(), v.clone());
            }
        }
    };
    for e in span.into_iter().flat_map(|s| &s.events).filter(|e| e.name == OPERATION_DETAILS) {
        add(&e.attributes);
    }
    for (_, r) in records.iter().filter(|(_, r)| r.event_name.as_deref() == Some(OPERATION_DETAILS)) {
        add(&r.attributes);
        if let Value::Object(body) = &r.body {
            add(body);
        }
    }
    out
}

/// The call of a span and its events (either may be missing).
pub fn call(at: At, span: Option<&Span>, records: &[(At, LogRecord)]) -> Call {
    let attributes = merged(span, records);
    let mut a = Attrs::new(&attributes);
    let provider = provider(&mut a, records);
    let format = provider.as_deref().and_then(format_of);
    let message_events = records.iter().any(|(_, r)| r.event_name.as_deref().is_some_and(events::is_message_event))
        || span.is_some_and(|s| s.events.iter().any(|e| events::is_message_event(&e.name)));

    let read = if a.map.contains_key("openinference.span.kind")
        || a.map.keys().any(|k| k.starts_with("llm.input_messages."))
    {
        openinference::read(&mut a, format)
    } else if genai::present(&a) {
        genai::read(&mut a, format)
    } else if a.map.keys().any(|k| k.starts_with("gen_ai.prompt.") || k.starts_with("gen_ai.completion.")) {
        openllmetry::read(&mut a, format)
    } else if message_events {
        events::read(span, records, format)
    } else {
        let mut r = Read::new(guess(&a, span));
        // Events this reader does not place (their names are in the paths).
        for (rat, rec) in records {
            let empty = rec.body.is_null() || rec.body == Value::Object(Map::new());
            if !empty && rec.event_name.as_deref() != Some(OPERATION_DETAILS) {
                r.notices.push(Notice::new(
                    record_path(rat, rec),
                    format!("the event `{}` is not placed", rec.event_name.as_deref().unwrap_or("")),
                ));
            }
        }
        r
    };

    let usage = usage(&mut a);
    let mut params = params(&mut a, read.imported.as_ref().map_or(format, |i| i.envelope.source));
    if let Some(p) = read.params.clone() {
        for (k, v) in p {
            params.entry(k).or_insert(v);
        }
    }
    let request_model = a.str("gen_ai.request.model").or_else(|| a.str("llm.model_name")).map(str::to_string);
    let response_model = a.str("gen_ai.response.model").map(str::to_string);
    let response_id = a.str("gen_ai.response.id").map(str::to_string);
    let mut finish_reasons = read.finish_reasons.clone();
    if finish_reasons.is_empty() {
        if let Some(Value::Array(list)) = a.get("gen_ai.response.finish_reasons") {
            finish_reasons = list.iter().filter_map(Value::as_str).map(str::to_string).collect();
        }
    }
    let model = read
        .model
        .clone()
        .or(request_model)
        .or_else(|| read.imported.as_ref().and_then(|i| i.envelope.model.clone()))
        .or_else(|| response_model.clone());

    let mut notices = read.notices;
    let dialect = match read.dialect {
        Dialect::Genai if is_openllmetry(a.map, span) => Dialect::Openllmetry,
        d => d,
    };
    let mut errors = vec![];
    let content = if let Some(imported) = read.imported {
        notices.extend(imported.notices);
        Content::Captured(Box::new(imported.envelope))
    } else if let Some(conv) = read.conv.filter(Conv::has_messages) {
        let (envelope, errs, n) = conv.finish(model.clone(), Some(params));
        notices.extend(n);
        errors = errs;
        Content::Captured(Box::new(envelope))
    } else {
        let replied = read.output.as_ref().is_some_and(Conv::has_messages);
        let how = if replied {
            // Capture was on: the instrumentation left the request out.
            "the instrumentation recorded the reply but not the request's messages, though capture was on: \
             it left them out (OpenLLMetry does for a request with images)"
                .to_string()
        } else {
            capture_hint(dialect, span)
        };
        Content::NotCaptured { how, params: (!params.is_empty()).then_some(params) }
    };
    let output = match read.output {
        Some(out) => {
            let (messages, n) = out.into_output_messages();
            notices.extend(n);
            Some(Output { messages, finish_reasons, response_id, response_model })
        }
        None if !finish_reasons.is_empty() || response_id.is_some() || response_model.is_some() => {
            Some(Output { messages: vec![], finish_reasons, response_id, response_model })
        }
        None => None,
    };
    // Content attributes no reader placed.
    for (key, v) in a.map {
        if !a.is_used(key) && CONTENT_PREFIXES.iter().any(|p| key.starts_with(p)) {
            let shown = super::otlp::shown(v);
            notices.push(Notice::new(attr_path(key), format!("recorded, with no place in the envelope: {shown}")));
        }
    }
    let (start_ns, end_ns) = match span {
        Some(s) => (s.start_ns, s.end_ns),
        None => {
            let times: Vec<u64> = records.iter().filter_map(|(_, r)| r.time_ns.or(r.observed_ns)).collect();
            (times.iter().min().copied(), times.iter().max().copied())
        }
    };
    let error_status = span.and_then(|s| s.status.as_ref()).filter(|(code, _)| *code == 2).map(|(_, m)| m.clone());
    Call {
        at,
        start_ns,
        end_ns,
        name: span.map(|s| s.name.clone()).filter(|n| !n.is_empty()),
        parent_span_id: span.and_then(|s| s.parent_span_id.clone()),
        scope: span
            .map(|s| &s.scope)
            .or_else(|| records.first().map(|(_, r)| &r.scope))
            .filter(|s| !s.name.is_empty())
            .map(|s| if s.version.is_empty() { s.name.clone() } else { format!("{} {}", s.name, s.version) }),
        provider,
        model,
        dialect,
        content,
        output,
        usage,
        error_status,
        notices,
        errors,
    }
}
