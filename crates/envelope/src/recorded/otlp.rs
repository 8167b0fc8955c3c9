//! OTLP/JSON as an OpenTelemetry Collector's `file` exporter writes it: an
//! `ExportTraceServiceRequest` (`resourceSpans`) or an
//! `ExportLogsServiceRequest` (`resourceLogs`), one per file or one per line.
//!
//! Read leniently where writers differ, strictly where a value would be
//! misread:
//! - field names in lowerCamelCase (the OTLP/JSON encoding) or snake_case
//!   (the protobuf JSON mapping's original names, which some tools write);
//! - trace and span ids as hex (OTLP/JSON) or base64 (protobuf JSON); both
//!   come out as lowercase hex, the form every OpenTelemetry UI shows;
//! - 64-bit integers (`intValue`, `startTimeUnixNano`) as strings or numbers;
//! - enums (`kind`, `severityNumber`, `status.code`) as integers or names;
//! - `AnyValue` → a JSON value: strings, booleans, numbers (an `intValue` kept
//!   exactly), arrays, key-value lists as objects (keys in order), bytes as
//!   their base64 text, an empty `AnyValue` as `null`.
//!
//! Fields that are not about a call (dropped counts, links, flags, schema
//! URLs, the resource) are not read. Anything of the wrong type is an error
//! with its JSON path within the document.

use base64::Engine;
use serde_json::{Map, Number, Value};

use crate::parse::type_name;

/// What is wrong, and where in the document (a JSON path such as
/// `resourceSpans[0].scopeSpans[1].spans[3].traceId`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub path: String,
    pub message: String,
}

impl Problem {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem { path: path.into(), message: message.into() }
    }
}

/// The instrumentation scope that made a span or a log record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scope {
    pub name: String,
    pub version: String,
}

/// A span event (`span.events[]`).
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub name: String,
    pub time_ns: Option<u64>,
    pub attributes: Map<String, Value>,
    /// Its JSON path within the document.
    pub path: String,
}

/// One span, with what a call needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    /// Lowercase hex (32 digits), empty when the span has none.
    pub trace_id: String,
    /// Lowercase hex (16 digits), empty when the span has none.
    pub span_id: String,
    pub parent_span_id: Option<String>,
    pub name: String,
    /// `SPAN_KIND_CLIENT` is 3, as OTLP numbers them.
    pub kind: Option<i64>,
    pub start_ns: Option<u64>,
    pub end_ns: Option<u64>,
    pub attributes: Map<String, Value>,
    pub events: Vec<Event>,
    pub scope: Scope,
    /// `STATUS_CODE_ERROR` (2) and its message, when the span failed.
    pub status: Option<(i64, String)>,
    /// Its JSON path within the document.
    pub path: String,
}

/// One log record (several instrumentations record a call's messages as
/// log-record events).
#[derive(Clone, Debug, PartialEq)]
pub struct LogRecord {
    pub trace_id: String,
    pub span_id: String,
    pub time_ns: Option<u64>,
    pub observed_ns: Option<u64>,
    /// The record's `eventName` (OTLP 1.5), or its `event.name` attribute.
    pub event_name: Option<String>,
    pub body: Value,
    pub attributes: Map<String, Value>,
    pub scope: Scope,
    pub path: String,
}

/// A field by its OTLP/JSON name or its protobuf name (`traceId` / `trace_id`).
fn field<'a>(o: &'a Map<String, Value>, camel: &str) -> Option<&'a Value> {
    if let Some(v) = o.get(camel) {
        return Some(v);
    }
    let snake: String = camel
        .chars()
        .flat_map(|c| if c.is_ascii_uppercase() { vec!['_', c.to_ascii_lowercase()] } else { vec![c] })
        .collect();
    o.get(&snake)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, Problem> {
    v.as_object().ok_or_else(|| Problem::new(path, format!("expected an object, found {}", type_name(v))))
}

/// An array field (absent or `null`: empty).
fn array<'a>(o: &'a Map<String, Value>, path: &str, key: &str) -> Result<(&'a [Value], String), Problem> {
    let p = join(path, key);
    match field(o, key) {
        None | Some(Value::Null) => Ok((&[], p)),
        Some(Value::Array(a)) => Ok((a, p)),
        Some(v) => Err(Problem::new(p, format!("expected an array, found {}", type_name(v)))),
    }
}

fn string(o: &Map<String, Value>, path: &str, key: &str) -> Result<String, Problem> {
    match field(o, key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(Problem::new(join(path, key), format!("expected a string, found {}", type_name(v)))),
    }
}

/// A 64-bit unsigned integer written as a number or a string of digits.
fn u64_field(o: &Map<String, Value>, path: &str, key: &str) -> Result<Option<u64>, Problem> {
    let bad =
        |v: &Value| Problem::new(join(path, key), format!("expected an unsigned 64-bit integer, found {}", shown(v)));
    match field(o, key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_u64().map(Some).ok_or_else(|| bad(&Value::Number(n.clone()))),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(v @ Value::String(s)) => s.parse::<u64>().map(Some).map_err(|_| bad(v)),
        Some(v) => Err(bad(v)),
    }
}

/// A value shown in a message: short, as JSON.
pub(crate) fn shown(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}…")
    } else {
        text
    }
}

/// An enum written as its number or its name (`SPAN_KIND_CLIENT`).
fn enum_field(o: &Map<String, Value>, path: &str, key: &str, names: &[&str]) -> Result<Option<i64>, Problem> {
    match field(o, key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) if n.as_i64().is_some() => Ok(n.as_i64()),
        Some(Value::String(s)) => {
            if let Some(i) = names.iter().position(|n| n == s) {
                return Ok(Some(i as i64));
            }
            s.parse::<i64>().map(Some).map_err(|_| {
                Problem::new(join(path, key), format!("unknown value `{s}` (expected one of {})", names.join(", ")))
            })
        }
        Some(v) => Err(Problem::new(join(path, key), format!("expected an integer or a name, found {}", shown(v)))),
    }
}

const SPAN_KINDS: &[&str] = &[
    "SPAN_KIND_UNSPECIFIED",
    "SPAN_KIND_INTERNAL",
    "SPAN_KIND_SERVER",
    "SPAN_KIND_CLIENT",
    "SPAN_KIND_PRODUCER",
    "SPAN_KIND_CONSUMER",
];
const STATUS_CODES: &[&str] = &["STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"];

/// A trace id (16 bytes) or span id (8 bytes) as lowercase hex: read as hex
/// when it is `2 × bytes` hex digits, else as base64 (standard or URL-safe)
/// of `bytes` bytes. Empty (or all zeros): no id.
pub fn id(text: &str, bytes: usize) -> Option<String> {
    decode_id(text, bytes).filter(|hex| !hex.bytes().all(|b| b == b'0'))
}

fn decode_id(text: &str, bytes: usize) -> Option<String> {
    Some(if text.len() == 2 * bytes && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        text.to_ascii_lowercase()
    } else {
        let trimmed = text.trim_end_matches('=');
        let decoded = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(trimmed)
            .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(trimmed))
            .ok()?;
        if decoded.len() != bytes {
            return None;
        }
        decoded.iter().map(|b| format!("{b:02x}")).collect()
    })
}

fn id_field(o: &Map<String, Value>, path: &str, key: &str, bytes: usize) -> Result<String, Problem> {
    let text = string(o, path, key)?;
    if text.is_empty() {
        return Ok(String::new());
    }
    match decode_id(&text, bytes) {
        Some(hex) if hex.bytes().all(|b| b == b'0') => Ok(String::new()),
        Some(hex) => Ok(hex),
        None => Err(Problem::new(
            join(path, key),
            format!("{} is not an id of {bytes} bytes (hex or base64)", shown(&Value::String(text))),
        )),
    }
}

/// An OTLP `AnyValue` as a JSON value.
pub fn any_value(v: &Value, path: &str) -> Result<Value, Problem> {
    let o = object(v, path)?;
    let mut entries = o.iter().filter(|(_, v)| !v.is_null());
    let Some((key, inner)) = entries.next() else { return Ok(Value::Null) };
    if let Some((other, _)) = entries.next() {
        return Err(Problem::new(path, format!("an AnyValue holds one value, this one holds `{key}` and `{other}`")));
    }
    let p = join(path, key);
    let wrong = |what: &str| Problem::new(&p, format!("expected {what}, found {}", shown(inner)));
    match key.as_str() {
        "stringValue" | "string_value" => {
            inner.as_str().map(|s| Value::String(s.to_string())).ok_or_else(|| wrong("a string"))
        }
        "boolValue" | "bool_value" => inner.as_bool().map(Value::Bool).ok_or_else(|| wrong("a boolean")),
        "intValue" | "int_value" => match inner {
            Value::Number(n) if n.is_i64() || n.is_u64() => Ok(Value::Number(n.clone())),
            Value::String(s) => {
                s.parse::<i64>().map(|i| Value::Number(i.into())).map_err(|_| wrong("a 64-bit integer"))
            }
            _ => Err(wrong("a 64-bit integer")),
        },
        "doubleValue" | "double_value" => match inner {
            Value::Number(n) => Ok(Value::Number(n.clone())),
            // The protobuf JSON mapping writes NaN and the infinities as strings.
            Value::String(s) if matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => Ok(Value::String(s.clone())),
            Value::String(s) => s
                .parse::<f64>()
                .ok()
                .and_then(|f| serde_json::from_str::<Number>(s).ok().filter(|_| f.is_finite()))
                .map(Value::Number)
                .ok_or_else(|| wrong("a number")),
            _ => Err(wrong("a number")),
        },
        "bytesValue" | "bytes_value" => {
            inner.as_str().map(|s| Value::String(s.to_string())).ok_or_else(|| wrong("base64 text"))
        }
        "arrayValue" | "array_value" => {
            let o = object(inner, &p)?;
            let (values, vp) = array(o, &p, "values")?;
            values
                .iter()
                .enumerate()
                .map(|(i, v)| any_value(v, &format!("{vp}[{i}]")))
                .collect::<Result<_, _>>()
                .map(Value::Array)
        }
        "kvlistValue" | "kvlist_value" => {
            let o = object(inner, &p)?;
            let (values, vp) = array(o, &p, "values")?;
            key_values(values, &vp).map(Value::Object)
        }
        other => Err(Problem::new(path, format!("`{other}` is not an AnyValue field"))),
    }
}

/// A list of `{key, value}` as an object, keys in order. A key given twice:
/// an error (readers disagree on which counts).
pub fn key_values(list: &[Value], path: &str) -> Result<Map<String, Value>, Problem> {
    let mut out = Map::new();
    for (i, kv) in list.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let o = object(kv, &p)?;
        let key = match o.get("key") {
            Some(Value::String(k)) => k.clone(),
            Some(v) => return Err(Problem::new(join(&p, "key"), format!("expected a string, found {}", type_name(v)))),
            None => return Err(Problem::new(p, "a key-value without `key`")),
        };
        let value = match o.get("value") {
            None | Some(Value::Null) => Value::Null,
            Some(v) => any_value(v, &join(&p, "value"))?,
        };
        if out.contains_key(&key) {
            return Err(Problem::new(
                join(&p, "key"),
                format!("the attribute `{key}` is given twice (readers disagree on which counts)"),
            ));
        }
        out.insert(key, value);
    }
    Ok(out)
}

fn attributes(o: &Map<String, Value>, path: &str) -> Result<Map<String, Value>, Problem> {
    let (list, p) = array(o, path, "attributes")?;
    key_values(list, &p)
}

fn scope(o: &Map<String, Value>, path: &str) -> Result<Scope, Problem> {
    match field(o, "scope") {
        None | Some(Value::Null) => Ok(Scope::default()),
        Some(v) => {
            let p = join(path, "scope");
            let s = object(v, &p)?;
            Ok(Scope { name: string(s, &p, "name")?, version: string(s, &p, "version")? })
        }
    }
}

/// Whether a document is an `ExportTraceServiceRequest`.
pub fn is_traces(o: &Map<String, Value>) -> bool {
    field(o, "resourceSpans").is_some()
}

/// Whether a document is an `ExportLogsServiceRequest`.
pub fn is_logs(o: &Map<String, Value>) -> bool {
    field(o, "resourceLogs").is_some()
}

/// Whether a document is another OTLP signal (metrics, profiles): no calls.
pub fn is_other_signal(o: &Map<String, Value>) -> bool {
    field(o, "resourceMetrics").is_some() || field(o, "resourceProfiles").is_some()
}

/// The spans of an `ExportTraceServiceRequest`, in document order.
pub fn spans(doc: &Map<String, Value>) -> Result<Vec<Span>, Problem> {
    let mut out = Vec::new();
    let (resources, rp) = array(doc, "", "resourceSpans")?;
    for (r, res) in resources.iter().enumerate() {
        let rpath = format!("{rp}[{r}]");
        let res = object(res, &rpath)?;
        let (scopes, sp) = array(res, &rpath, "scopeSpans")?;
        // Before OTLP 1.0: `instrumentationLibrarySpans`.
        let (scopes, sp) =
            if scopes.is_empty() { array(res, &rpath, "instrumentationLibrarySpans")? } else { (scopes, sp) };
        for (s, sc) in scopes.iter().enumerate() {
            let spath = format!("{sp}[{s}]");
            let sc = object(sc, &spath)?;
            let scope = match field(sc, "instrumentationLibrary") {
                Some(lib @ Value::Object(_)) => {
                    let p = join(&spath, "instrumentationLibrary");
                    let l = object(lib, &p)?;
                    Scope { name: string(l, &p, "name")?, version: string(l, &p, "version")? }
                }
                _ => scope(sc, &spath)?,
            };
            let (list, lp) = array(sc, &spath, "spans")?;
            for (i, span) in list.iter().enumerate() {
                out.push(read_span(span, &format!("{lp}[{i}]"), &scope)?);
            }
        }
    }
    Ok(out)
}

fn read_span(v: &Value, path: &str, scope: &Scope) -> Result<Span, Problem> {
    let o = object(v, path)?;
    let parent = id_field(o, path, "parentSpanId", 8)?;
    let (events, ep) = array(o, path, "events")?;
    let events = events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let p = format!("{ep}[{i}]");
            let e = object(e, &p)?;
            Ok(Event {
                name: string(e, &p, "name")?,
                time_ns: u64_field(e, &p, "timeUnixNano")?,
                attributes: attributes(e, &p)?,
                path: p,
            })
        })
        .collect::<Result<Vec<_>, Problem>>()?;
    let status = match field(o, "status") {
        Some(s @ Value::Object(_)) => {
            let p = join(path, "status");
            let s = object(s, &p)?;
            let code = enum_field(s, &p, "code", STATUS_CODES)?.unwrap_or(0);
            let message = string(s, &p, "message")?;
            (code != 0 || !message.is_empty()).then_some((code, message))
        }
        None | Some(Value::Null) => None,
        Some(other) => {
            return Err(Problem::new(join(path, "status"), format!("expected an object, found {}", type_name(other))))
        }
    };
    Ok(Span {
        trace_id: id_field(o, path, "traceId", 16)?,
        span_id: id_field(o, path, "spanId", 8)?,
        parent_span_id: (!parent.is_empty()).then_some(parent),
        name: string(o, path, "name")?,
        kind: enum_field(o, path, "kind", SPAN_KINDS)?,
        start_ns: u64_field(o, path, "startTimeUnixNano")?,
        end_ns: u64_field(o, path, "endTimeUnixNano")?,
        attributes: attributes(o, path)?,
        events,
        scope: scope.clone(),
        status,
        path: path.to_string(),
    })
}

/// The log records of an `ExportLogsServiceRequest`, in document order.
pub fn log_records(doc: &Map<String, Value>) -> Result<Vec<LogRecord>, Problem> {
    let mut out = Vec::new();
    let (resources, rp) = array(doc, "", "resourceLogs")?;
    for (r, res) in resources.iter().enumerate() {
        let rpath = format!("{rp}[{r}]");
        let res = object(res, &rpath)?;
        let (scopes, sp) = array(res, &rpath, "scopeLogs")?;
        for (s, sc) in scopes.iter().enumerate() {
            let spath = format!("{sp}[{s}]");
            let sc = object(sc, &spath)?;
            let scope = scope(sc, &spath)?;
            let (list, lp) = array(sc, &spath, "logRecords")?;
            for (i, rec) in list.iter().enumerate() {
                let p = format!("{lp}[{i}]");
                let o = object(rec, &p)?;
                let attributes = attributes(o, &p)?;
                let event_name = match string(o, &p, "eventName")? {
                    name if !name.is_empty() => Some(name),
                    _ => attributes.get("event.name").and_then(Value::as_str).map(str::to_string),
                };
                let body = match field(o, "body") {
                    None | Some(Value::Null) => Value::Null,
                    Some(b) => any_value(b, &join(&p, "body"))?,
                };
                out.push(LogRecord {
                    trace_id: id_field(o, &p, "traceId", 16)?,
                    span_id: id_field(o, &p, "spanId", 8)?,
                    time_ns: u64_field(o, &p, "timeUnixNano")?,
                    observed_ns: u64_field(o, &p, "observedTimeUnixNano")?,
                    event_name,
                    body,
                    attributes,
                    scope: scope.clone(),
                    path: p,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_hex_and_base64() {
        assert_eq!(id("4BF92F3577B34DA6A3CE929D0E0E4736", 16).as_deref(), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
        assert_eq!(id("APBnqgupArc=", 8).as_deref(), Some("00f067aa0ba902b7"));
        assert_eq!(id("S/kvNXezTaajzpKdDg5HNg==", 16).as_deref(), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
        assert_eq!(id("S_kvNXezTaajzpKdDg5HNg", 16).as_deref(), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
        assert_eq!(id("0000000000000000", 8), None);
        assert_eq!(id("xyz", 8), None);
        assert_eq!(id("AAEC", 8), None);
    }

    #[test]
    fn any_values() {
        let v = json!({"kvlistValue": {"values": [
            {"key": "a", "value": {"intValue": "9007199254740993"}},
            {"key": "b", "value": {"arrayValue": {"values": [{"stringValue": "x"}, {"boolValue": true}, {}]}}},
            {"key": "c", "value": {"double_value": 0.5}},
        ]}});
        assert_eq!(any_value(&v, "v").unwrap(), json!({"a": 9007199254740993_i64, "b": ["x", true, null], "c": 0.5}));
        let e = any_value(&json!({"intValue": "1.5"}), "v").unwrap_err();
        assert_eq!(e.path, "v.intValue");
        let e = any_value(&json!({"stringValue": "a", "intValue": 1}), "v").unwrap_err();
        assert!(e.message.contains("one value"), "{}", e.message);
        let e = key_values(&[json!({"key": "k", "value": {}}), json!({"key": "k"})], "attributes").unwrap_err();
        assert_eq!(e.path, "attributes[1].key");
    }

    #[test]
    fn spans_in_either_spelling() {
        let doc = json!({"resource_spans": [{"scope_spans": [{"scope": {"name": "s"}, "spans": [{
            "trace_id": "S/kvNXezTaajzpKdDg5HNg==", "span_id": "APBnqgupArc=", "name": "chat gpt-4",
            "kind": "SPAN_KIND_CLIENT", "start_time_unix_nano": 1700000000000000001_u64, "end_time_unix_nano": "1700000000500000000",
            "attributes": [{"key": "gen_ai.operation.name", "value": {"string_value": "chat"}}],
            "status": {"code": "STATUS_CODE_ERROR", "message": "boom"}
        }]}]}]});
        let spans = spans(doc.as_object().unwrap()).unwrap();
        assert_eq!(spans.len(), 1);
        let s = &spans[0];
        assert_eq!(s.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(s.span_id, "00f067aa0ba902b7");
        assert_eq!((s.kind, s.start_ns, s.end_ns), (Some(3), Some(1700000000000000001), Some(1700000000500000000)));
        assert_eq!(s.attributes["gen_ai.operation.name"], "chat");
        assert_eq!(s.status, Some((2, "boom".to_string())));
        assert_eq!(s.scope.name, "s");
        let bad = json!({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "nothex!"}]}]}]});
        let e = super::spans(bad.as_object().unwrap()).unwrap_err();
        assert_eq!(e.path, "resourceSpans[0].scopeSpans[0].spans[0].traceId");
    }
}
