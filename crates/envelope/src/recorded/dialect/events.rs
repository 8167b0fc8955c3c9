//! GenAI semantic conventions v1.30-era events: one log record (or span
//! event) per message, in the order sent, then one `gen_ai.choice` per
//! choice of the reply. The event's name is the record's `eventName` or its
//! `event.name` attribute; its body holds the message:
//!
//! | event (body) | envelope |
//! |---|---|
//! | `gen_ai.system.message` (`content`) | a system message |
//! | `gen_ai.user.message` (`content`: text, or content parts) | a user message |
//! | `gen_ai.assistant.message` (`content`, `tool_calls[]`: `id`, `function.name`, `function.arguments`) | an assistant message with `tool_call_request`s |
//! | `gen_ai.tool.message` (`content`, `id`) | a `tool_call_result` answering call `id` |
//! | `gen_ai.choice` (`index`, `finish_reason`, `message`) | the call's output |
//! | a body's `role` other than the event's | the message's `providerRole` |
//!
//! Content parts (a list `content`) are read as the OpenAI and Anthropic
//! SDKs write them: `text`, `image_url` (a data URL as inline bytes),
//! `input_audio`, `image` / `document` with a base64 `source`, and
//! `tool_use` / `tool_result`; other parts are provider blocks or notices.

use serde_json::{Map, Value};

use super::{record_path, Read};
use crate::recorded::build::{as_text, result_text, Conv};
use crate::recorded::otlp::{LogRecord, Span};
use crate::recorded::{At, Dialect};
use crate::types::{MessageExt, RequestFormat, Role, Segment};

const MESSAGE_EVENTS: [&str; 6] = [
    "gen_ai.system.message",
    "gen_ai.developer.message",
    "gen_ai.user.message",
    "gen_ai.assistant.message",
    "gen_ai.tool.message",
    "gen_ai.choice",
];

pub fn is_message_event(name: &str) -> bool {
    MESSAGE_EVENTS.contains(&name)
}

/// One event: name, body, where.
struct Ev {
    name: String,
    body: Value,
    path: String,
}

pub(crate) fn read(span: Option<&Span>, records: &[(At, LogRecord)], format: Option<RequestFormat>) -> Read {
    let mut evs: Vec<Ev> = Vec::new();
    if let Some(s) = span {
        for e in &s.events {
            if is_message_event(&e.name) {
                // A span event has no body: its attributes are the body's fields.
                let body: Map<String, Value> = e
                    .attributes
                    .iter()
                    .filter(|(k, _)| !matches!(k.as_str(), "gen_ai.system" | "gen_ai.provider.name" | "event.name"))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                evs.push(Ev {
                    name: e.name.clone(),
                    body: Value::Object(body),
                    path: format!("{}.attributes", e.path),
                });
            }
        }
    }
    for (at, r) in records {
        if let Some(name) = r.event_name.as_deref().filter(|n| is_message_event(n)) {
            let body = match &r.body {
                // Some writers put the body's JSON text in a string.
                Value::String(s) => serde_json::from_str::<Value>(s)
                    .ok()
                    .filter(Value::is_object)
                    .unwrap_or_else(|| serde_json::json!({ "content": s })),
                other => other.clone(),
            };
            evs.push(Ev { name: name.to_string(), body, path: format!("{}.body", record_path(at, r)) });
        }
    }
    let mut r = Read::new(Dialect::GenaiEvents);
    let mut conv = Conv::new(format);
    let mut out = Conv::new(format);
    let mut choices = 0;
    let mut captured = false;
    for ev in &evs {
        let body = match &ev.body {
            Value::Object(o) => o.clone(),
            Value::Null => Map::new(),
            other => {
                conv.unplaced(&ev.path, other);
                continue;
            }
        };
        let (role, known): (Role, &[&str]) = match ev.name.as_str() {
            "gen_ai.system.message" => (Role::System, &["content", "role"]),
            "gen_ai.developer.message" => (Role::System, &["content", "role"]),
            "gen_ai.user.message" => (Role::User, &["content", "role"]),
            "gen_ai.assistant.message" => (Role::Assistant, &["content", "role", "tool_calls"]),
            "gen_ai.tool.message" => (Role::Tool, &["content", "role", "id"]),
            _ => {
                // gen_ai.choice
                choices += 1;
                for (k, v) in &body {
                    if !["index", "finish_reason", "message", "tool_calls"].contains(&k.as_str()) {
                        out.unplaced(format!("{}.{k}", ev.path), v);
                    }
                }
                if let Some(reason) = body.get("finish_reason") {
                    r.finish_reasons.push(as_text(reason));
                }
                let mut message = body.get("message").and_then(Value::as_object).cloned().unwrap_or_default();
                if let Some(calls) = body.get("tool_calls") {
                    message.entry("tool_calls").or_insert_with(|| calls.clone());
                }
                if message.contains_key("content") {
                    captured = true;
                }
                message_of(
                    &mut out,
                    &format!("{}.message", ev.path),
                    Role::Assistant,
                    &message,
                    &["content", "role", "tool_calls"],
                    false,
                );
                continue;
            }
        };
        if body.contains_key("content") {
            captured = true;
        }
        message_of(&mut conv, &ev.path, role, &body, known, ev.name == "gen_ai.developer.message");
    }
    if captured {
        r.conv = Some(conv);
        if choices > 0 {
            r.output = Some(out);
        }
    } else {
        // Capture off: the events still name the tool calls (ids and names).
        for ev in evs.iter().filter(|e| tool_calls_of(&e.body).is_some()) {
            let shown = crate::recorded::otlp::shown(tool_calls_of(&ev.body).unwrap_or(&Value::Null));
            r.notices.push(crate::diag::Notice::new(
                &ev.path,
                format!("tool calls recorded without the messages' content: {shown}"),
            ));
        }
    }
    r
}

/// An event's `tool_calls` (of its body, or of a choice's message).
fn tool_calls_of(body: &Value) -> Option<&Value> {
    body.get("tool_calls").or_else(|| body.get("message")?.get("tool_calls"))
}

/// One message from an event's body.
fn message_of(conv: &mut Conv, path: &str, role: Role, body: &Map<String, Value>, known: &[&str], developer: bool) {
    for (k, v) in body {
        if !known.contains(&k.as_str()) {
            conv.unplaced(format!("{path}.{k}"), v);
        }
    }
    let mut ext = MessageExt::default();
    if developer {
        ext.provider_role = Some("developer".into());
    }
    if let Some(actual) = body.get("role").and_then(Value::as_str) {
        if actual != role.as_str() {
            ext.provider_role = Some(actual.to_string());
        }
    }
    let content = body.get("content").unwrap_or(&Value::Null);
    let mut segs: Vec<Segment> = Vec::new();
    if role == Role::Tool {
        let id = body.get("id").and_then(Value::as_str);
        if id.is_some_and(|i| conv.is_answered(i)) {
            conv.note(path, "the same tool result again (recorded twice by the instrumentation): read once");
            return;
        }
        segs.push(conv.result(id, None, &Value::String(result_text(content))));
        conv.push(Role::Tool, segs, ext);
        return;
    }
    let mut results: Vec<Segment> = Vec::new();
    let mut skipped = 0;
    match content {
        Value::Null => {}
        Value::String(s) => segs.extend(conv.text(s, role)),
        Value::Array(parts) => {
            ext.content_parts = true;
            for (j, part) in parts.iter().enumerate() {
                let p = format!("{path}.content[{j}]");
                let id = part
                    .get("toolResult")
                    .and_then(|r| r.get("toolUseId"))
                    .or_else(|| part.get("tool_use_id"))
                    .and_then(Value::as_str);
                if id.is_some_and(|i| conv.is_answered(i)) {
                    conv.note(p, "the same tool result again (recorded twice by the instrumentation): read once");
                    skipped += 1;
                    continue;
                }
                content_part(conv, &p, role, part, &mut segs, &mut results);
            }
        }
        other => conv.unplaced(format!("{path}.content"), other),
    }
    if let Some(Value::Array(calls)) = body.get("tool_calls") {
        for (j, c) in calls.iter().enumerate() {
            let p = format!("{path}.tool_calls[{j}]");
            let Some(c) = c.as_object() else {
                conv.unplaced(p, c);
                continue;
            };
            let f = c.get("function").and_then(Value::as_object);
            let name = f.and_then(|f| f.get("name")).or_else(|| c.get("name")).and_then(Value::as_str).unwrap_or("");
            let args = f.and_then(|f| f.get("arguments")).or_else(|| c.get("arguments"));
            let id = c.get("id").and_then(Value::as_str);
            if id.is_some_and(|i| conv.has_call(i)) {
                // Also in `content` (Bedrock's `toolUse` blocks): read once.
                continue;
            }
            segs.push(conv.call(&p, id, name, args));
            for (k, v) in c {
                if !["id", "type", "function", "name", "arguments"].contains(&k.as_str()) {
                    conv.unplaced(format!("{p}.{k}"), v);
                }
            }
        }
    }
    if !results.is_empty() {
        conv.push(Role::Tool, results, MessageExt::default());
        if !segs.is_empty() {
            ext.continues = true;
            conv.push(role, segs, ext);
        }
        return;
    }
    if skipped > 0 && segs.is_empty() {
        // Only results already read (a `gen_ai.tool.message` before it).
        return;
    }
    conv.push(role, segs, ext);
}

/// A content part as the provider SDKs write them (also OpenLLMetry's).
pub(crate) fn content_part_public(
    conv: &mut Conv,
    path: &str,
    role: Role,
    part: &Value,
    segs: &mut Vec<Segment>,
    results: &mut Vec<Segment>,
) {
    content_part(conv, path, role, part, segs, results)
}

fn content_part(
    conv: &mut Conv,
    path: &str,
    role: Role,
    part: &Value,
    segs: &mut Vec<Segment>,
    results: &mut Vec<Segment>,
) {
    let Some(o) = part.as_object() else {
        match part {
            Value::String(s) => segs.extend(conv.text(s, role)),
            other => conv.unplaced(path, other),
        }
        return;
    };
    let ty = o.get("type").and_then(Value::as_str).unwrap_or("");
    if ty.is_empty() && o.len() == 1 && converse_block(conv, path, role, o, segs, results) {
        return;
    }
    let s = |k: &str| o.get(k).and_then(Value::as_str);
    match ty {
        "text" | "input_text" | "output_text" | "" if s("text").is_some() => {
            segs.extend(conv.text(s("text").unwrap_or(""), role))
        }
        "input_image" => {
            let url = s("image_url").unwrap_or("");
            match s("file_id") {
                Some(id) if url.is_empty() => segs.push(conv.file_id(Some("image/*"), id)),
                _ => segs.extend(data_url_or_uri(conv, path, Some("image"), url)),
            }
        }
        "input_file" => match (s("file_data"), s("file_id"), s("file_url")) {
            (Some(d), _, _) => segs.extend(data_url_or_uri(conv, path, None, d)),
            (_, Some(id), _) => segs.push(conv.file_id(None, id)),
            (_, _, Some(u)) => segs.push(conv.uri(None, None, u)),
            _ => conv.unplaced(path, part),
        },
        "image_url" => {
            let url = o.get("image_url").and_then(|i| i.get("url").or(Some(i))).and_then(Value::as_str).unwrap_or("");
            segs.extend(data_url_or_uri(conv, path, Some("image"), url));
        }
        "image" | "document" if o.get("source").is_some_and(Value::is_object) => {
            let src = o.get("source").and_then(Value::as_object).cloned().unwrap_or_default();
            let st = |k: &str| src.get(k).and_then(Value::as_str);
            let modality = (ty == "image").then_some("image");
            match st("type") {
                Some("base64") => segs.extend(conv.blob(path, modality, st("media_type"), st("data").unwrap_or(""))),
                Some("url") => segs.push(conv.uri(modality, st("media_type"), st("url").unwrap_or(""))),
                _ => segs.extend(conv.block(path, o)),
            }
        }
        // OpenAI Chat's file part.
        "file" if o.get("file").is_some_and(Value::is_object) => {
            segs.extend(chat_file(conv, path, o.get("file").and_then(Value::as_object).unwrap_or(&Map::new())))
        }
        "input_audio" => {
            let a = o.get("input_audio").and_then(Value::as_object).cloned().unwrap_or_default();
            let mime = a.get("format").and_then(Value::as_str).map(|f| format!("audio/{f}"));
            segs.extend(conv.blob(
                path,
                Some("audio"),
                mime.as_deref(),
                a.get("data").and_then(Value::as_str).unwrap_or(""),
            ));
        }
        "tool_use" => segs.push(conv.call(path, s("id"), s("name").unwrap_or(""), o.get("input"))),
        "thinking" => {
            let mut seg = conv.reasoning(s("thinking").unwrap_or(""));
            if let Segment::Reasoning(r) = &mut seg {
                r.signature = s("signature").map(str::to_string);
            }
            segs.push(seg);
        }
        "redacted_thinking" => {
            let mut seg = conv.reasoning("");
            if let Segment::Reasoning(r) = &mut seg {
                r.encrypted = s("data").map(str::to_string);
            }
            segs.push(seg);
        }
        "tool_result" => {
            let text = result_text(o.get("content").unwrap_or(&Value::Null));
            results.push(conv.result(s("tool_use_id"), None, &Value::String(text)));
        }
        _ => segs.extend(conv.block(path, o)),
    }
}

/// A Bedrock Converse content block (`{"text": …}`, `{"toolUse": …}`,
/// `{"toolResult": …}`, `{"image": …}`, `{"document": …}`): whether it was one.
fn converse_block(
    conv: &mut Conv,
    path: &str,
    role: Role,
    o: &Map<String, Value>,
    segs: &mut Vec<Segment>,
    results: &mut Vec<Segment>,
) -> bool {
    let Some((key, inner)) = o.iter().next() else { return false };
    let get = |k: &str| inner.get(k);
    let gs = |k: &str| inner.get(k).and_then(Value::as_str);
    match key.as_str() {
        "text" => match inner {
            Value::String(t) => segs.extend(conv.text(t, role)),
            _ => return false,
        },
        "toolUse" => {
            let id = gs("toolUseId");
            segs.push(conv.call(path, id, gs("name").unwrap_or(""), get("input")));
        }
        "toolResult" => {
            let text = result_text(get("content").unwrap_or(&Value::Null));
            let mut seg = conv.result(gs("toolUseId"), None, &Value::String(text));
            if let Segment::ToolCallResult(r) = &mut seg {
                r.success = gs("status") != Some("error");
            }
            results.push(seg);
        }
        "image" | "document" | "video" => {
            let format = gs("format").unwrap_or("");
            let source = get("source").and_then(Value::as_object);
            let (modality, mime) = match key.as_str() {
                "image" => (Some("image"), format!("image/{format}")),
                "video" => (Some("video"), format!("video/{format}")),
                _ => (None, if format == "pdf" { "application/pdf".to_string() } else { format!("text/{format}") }),
            };
            match source.map(|s| (s.get("bytes"), s.get("s3Location"))) {
                Some((Some(Value::String(b)), _)) => segs.extend(conv.blob(path, modality, Some(&mime), b)),
                // Bedrock's own block, as its importer keeps it: verbatim.
                Some((_, Some(_))) if conv.format.is_some_and(|f| f.as_str() == "bedrock") => {
                    segs.extend(conv.block(path, o))
                }
                Some((_, Some(loc))) => {
                    let uri = loc.get("uri").and_then(Value::as_str).unwrap_or("");
                    segs.push(conv.uri(modality, Some(&mime), uri));
                }
                _ => segs.extend(conv.block(path, o)),
            }
        }
        _ => return false,
    }
    true
}

/// OpenAI Chat's `file` object (`file_data` as a data URL, or `file_id`;
/// `filename`): a document.
pub(crate) fn chat_file(conv: &mut Conv, path: &str, f: &Map<String, Value>) -> Option<Segment> {
    let s = |k: &str| f.get(k).and_then(Value::as_str);
    let mut seg = match (s("file_data"), s("file_id")) {
        (Some(d), _) => data_url_or_uri(conv, path, None, d)?,
        (None, Some(id)) => conv.file_id(None, id),
        (None, None) => {
            conv.unplaced(path, &Value::Object(f.clone()));
            return None;
        }
    };
    if let (Segment::Document(d), Some(name)) = (&mut seg, s("filename")) {
        d.file_name = name.to_string();
    }
    for (k, v) in f.iter().filter(|(k, _)| !["file_data", "file_id", "filename"].contains(&k.as_str())) {
        conv.unplaced(format!("{path}.file.{k}"), v);
    }
    Some(seg)
}

/// An image given by URL: inline bytes for a `data:` URL, media by URL otherwise.
pub(crate) fn data_url_or_uri(conv: &mut Conv, path: &str, modality: Option<&str>, url: &str) -> Option<Segment> {
    if let Some(rest) = url.strip_prefix("data:") {
        if let Some((meta, data)) = rest.split_once(',') {
            if meta.ends_with(";base64") {
                let mime = meta.split(';').next().filter(|m| !m.is_empty());
                return conv.blob(path, modality, mime, data);
            }
        }
    }
    Some(conv.uri(modality, None, url))
}
