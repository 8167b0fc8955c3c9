//! The current GenAI semantic conventions: `gen_ai.system_instructions`,
//! `gen_ai.input.messages`, `gen_ai.tool.definitions`,
//! `gen_ai.output.messages`, structured (an array / key-value list) or as
//! JSON strings, on the span or on the
//! `gen_ai.client.inference.operation.details` event. The messages follow
//! the conventions' JSON schemas (`gen-ai-input-messages.json`,
//! `gen-ai-output-messages.json`, `gen-ai-system-instructions.json`,
//! `gen-ai-tool-definitions.json`):
//!
//! | recorded | envelope |
//! |---|---|
//! | `system_instructions` parts; a `system` message | a system message (`system_prompt`) |
//! | `text` part | `text` (the export's forms read back) |
//! | `tool_call` part (`id`, `name`, `arguments`) | `tool_call_request` (`callId`) |
//! | `tool_call_response` part (`id`, `response` or `result`) | `tool_call_result` in a tool message (in a user message: a tool message, then the user message `continues`) |
//! | `blob` (`modality`, `mime_type`, `content`) | `media` as a `data:` URL (image, audio, video), else a `document` holding the bytes; the MIME type read from the bytes when missing |
//! | `uri` | `media` by URL (http/https), else a `document` with `url` |
//! | `file` (`file_id`) | a `document` with `fileId` |
//! | `reasoning` | `reasoning` |
//! | `server_tool_call(_response)`, other types | a `provider_block` when the provider's format is known, else a notice |
//! | message `name` | the message's `name` |
//! | `tool.definitions` (`function`: `name`, `description`, `parameters`) | `tool_overview` items; other tool types kept whole |
//! | `output.messages` (+ `finish_reason`) | the call's output |

use serde_json::{Map, Value};

use super::{attr_path, json_of, Attrs, Read};
use crate::recorded::build::{as_text, result_text, Conv};
use crate::recorded::Dialect;
use crate::types::{MessageExt, RequestFormat, Role, Segment};

/// The attributes of this dialect.
pub const KEYS: [&str; 4] =
    ["gen_ai.system_instructions", "gen_ai.input.messages", "gen_ai.tool.definitions", "gen_ai.output.messages"];

/// Whether the attributes hold this dialect's content.
pub(crate) fn present(a: &Attrs) -> bool {
    KEYS[..2].iter().chain(&KEYS[3..]).any(|k| a.map.contains_key(*k))
}

pub(crate) fn read(a: &mut Attrs, format: Option<RequestFormat>) -> Read {
    let mut r = Read::new(Dialect::Genai);
    let mut conv = Conv::new(format);
    if let Some(v) = a.get("gen_ai.system_instructions") {
        let path = attr_path("gen_ai.system_instructions");
        match json_of(v) {
            Ok(Value::Array(parts)) => {
                let segs = parts_of(&mut conv, &path, Role::System, &parts);
                conv.push(Role::System, segs.into_iter().flat_map(|(_, s)| s).collect(), MessageExt::default());
            }
            // Plain text is what some instrumentations write.
            _ if v.is_string() => {
                let segs = conv.text(v.as_str().unwrap_or(""), Role::System);
                conv.push(Role::System, segs, MessageExt::default());
            }
            Ok(other) => conv.unplaced(path, &other),
            Err(e) => conv.note(path, e),
        }
    }
    if let Some(v) = a.get("gen_ai.tool.definitions") {
        tools(&mut conv, &attr_path("gen_ai.tool.definitions"), v);
    }
    if let Some(v) = a.get("gen_ai.input.messages") {
        messages(&mut conv, &attr_path("gen_ai.input.messages"), v, &mut vec![]);
    }
    if let Some(v) = a.get("gen_ai.output.messages") {
        let mut out = Conv::new(format);
        messages(&mut out, &attr_path("gen_ai.output.messages"), v, &mut r.finish_reasons);
        r.output = Some(out);
    }
    r.conv = Some(conv);
    r
}

/// Tool definitions: function tools as items, others kept whole.
pub(crate) fn tools(conv: &mut Conv, path: &str, v: &Value) {
    let list = match json_of(v) {
        Ok(Value::Array(list)) => list,
        Ok(other) => return conv.unplaced(path, &other),
        Err(e) => return conv.note(path, e),
    };
    for (i, t) in list.iter().enumerate() {
        tool(conv, &format!("{path}[{i}]"), t);
    }
}

/// One tool definition, in the conventions' shape (`name`, `description`,
/// `parameters`) or as a provider writes it: OpenAI's
/// `{"type": "function", "function": {…}}`, Anthropic's `input_schema`,
/// Bedrock's `{"toolSpec": {…, "inputSchema": {"json": …}}}`, Gemini's
/// `{"function_declarations": […]}` (each declaration a tool).
fn tool(conv: &mut Conv, p: &str, t: &Value) {
    let Some(o) = t.as_object() else {
        conv.unplaced(p, t);
        return;
    };
    for key in ["function_declarations", "functionDeclarations"] {
        if let Some(Value::Array(decls)) = o.get(key) {
            for (j, d) in decls.iter().enumerate() {
                tool(conv, &format!("{p}.{key}[{j}]"), d);
            }
            for (k, v) in o.iter().filter(|(k, _)| k.as_str() != key) {
                conv.unplaced(format!("{p}.{k}"), v);
            }
            return;
        }
    }
    let f = match o.get("function").or_else(|| o.get("toolSpec")) {
        Some(Value::Object(f)) => f,
        _ => o,
    };
    let name = f.get("name").and_then(Value::as_str);
    let kind = o.get("type").and_then(Value::as_str).unwrap_or("function");
    match name {
        Some(name) if kind == "function" => {
            let description = f.get("description").and_then(Value::as_str).unwrap_or("");
            let schema = f
                .get("parameters")
                .or_else(|| f.get("input_schema"))
                .or_else(|| f.get("inputSchema").map(|s| s.get("json").unwrap_or(s)))
                .filter(|s| !s.is_null())
                .cloned();
            let known =
                ["type", "name", "description", "parameters", "input_schema", "inputSchema", "function", "toolSpec"];
            let extra: Map<String, Value> =
                f.iter().filter(|(k, _)| !known.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
            conv.tool(p, name, description, schema, (!extra.is_empty()).then_some(extra));
        }
        _ => conv.tool_verbatim(name.unwrap_or(kind), o.clone()),
    }
}

/// Input or output messages (JSON text or structured).
fn messages(conv: &mut Conv, path: &str, v: &Value, finish: &mut Vec<String>) {
    let list = match json_of(v) {
        Ok(Value::Array(list)) => list,
        Ok(other) => return conv.unplaced(path, &other),
        Err(e) => return conv.note(path, e),
    };
    for (i, m) in list.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let Some(o) = m.as_object() else {
            conv.unplaced(p, m);
            continue;
        };
        let role_text = o.get("role").and_then(Value::as_str).unwrap_or("user");
        let mut ext = MessageExt::default();
        let role = match role_text {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" | "model" => Role::Assistant,
            "tool" | "function" => Role::Tool,
            "developer" => {
                ext.provider_role = Some("developer".into());
                Role::System
            }
            other => {
                conv.note(format!("{p}.role"), format!("the role `{other}` is read as user"));
                ext.provider_role = Some(other.to_string());
                Role::User
            }
        };
        if role_text == "model" {
            ext.provider_role = Some("model".into());
        }
        ext.name = o.get("name").and_then(Value::as_str).map(str::to_string);
        if let Some(reason) = o.get("finish_reason") {
            finish.push(as_text(reason));
        }
        for (k, v) in o {
            if !["role", "parts", "name", "finish_reason"].contains(&k.as_str()) {
                conv.unplaced(format!("{p}.{k}"), v);
            }
        }
        let parts = match o.get("parts") {
            Some(Value::Array(parts)) => parts.clone(),
            // Not the schema's, but written: `content` as a string.
            None => match o.get("content") {
                Some(Value::String(s)) => vec![serde_json::json!({"type": "text", "content": s})],
                _ => vec![],
            },
            Some(other) => {
                conv.unplaced(format!("{p}.parts"), other);
                vec![]
            }
        };
        let runs = parts_of(conv, &format!("{p}.parts"), role, &parts);
        if runs.is_empty() {
            conv.push(role, vec![], ext);
            continue;
        }
        for (n, (run_role, segs)) in runs.into_iter().enumerate() {
            let mut e = if n == 0 { ext.clone() } else { MessageExt::default() };
            e.continues = n > 0;
            conv.push(run_role, segs, e);
        }
    }
}

/// A message's parts as runs of one role each: tool results go to a tool
/// message, anything else in a tool message becomes a result.
fn parts_of(conv: &mut Conv, path: &str, role: Role, parts: &[Value]) -> Vec<(Role, Vec<Segment>)> {
    let mut runs: Vec<(Role, Vec<Segment>)> = Vec::new();
    let put = |r: Role, segs: Vec<Segment>, runs: &mut Vec<(Role, Vec<Segment>)>| match runs.last_mut() {
        Some((last, s)) if *last == r => s.extend(segs),
        _ => runs.push((r, segs)),
    };
    for (j, part) in parts.iter().enumerate() {
        let p = format!("{path}[{j}]");
        let Some(o) = part.as_object() else {
            // A bare string: text.
            if let Value::String(s) = part {
                let segs = conv.text(s, if role == Role::Tool { Role::User } else { role });
                put(role, segs, &mut runs);
            } else {
                conv.unplaced(p, part);
            }
            continue;
        };
        let ty = o.get("type").and_then(Value::as_str).unwrap_or("");
        let s = |k: &str| o.get(k).and_then(Value::as_str);
        let known: &[&str] = match ty {
            "text" | "reasoning" => &["type", "content"],
            "tool_call" => &["type", "id", "name", "arguments"],
            "tool_call_response" => &["type", "id", "response", "result", "name"],
            "blob" => &["type", "modality", "mime_type", "content"],
            "uri" => &["type", "modality", "mime_type", "uri"],
            "file" => &["type", "modality", "mime_type", "file_id", "file", "filename"],
            _ => &[],
        };
        if !known.is_empty() {
            for (k, v) in o {
                if !known.contains(&k.as_str()) {
                    conv.unplaced(format!("{p}.{k}"), v);
                }
            }
        }
        match ty {
            "text" => {
                let text = s("content").unwrap_or("");
                if role == Role::Tool {
                    let seg = conv.result(None, None, &Value::String(text.to_string()));
                    put(Role::Tool, vec![seg], &mut runs);
                } else {
                    let segs = conv.text(text, role);
                    put(role, segs, &mut runs);
                }
            }
            "tool_call" => {
                let seg = conv.call(&p, s("id"), s("name").unwrap_or(""), o.get("arguments"));
                put(Role::Assistant, vec![seg], &mut runs);
            }
            "tool_call_response" => {
                let response = o.get("response").or_else(|| o.get("result")).cloned().unwrap_or(Value::Null);
                let seg = conv.result(s("id"), s("name"), &Value::String(result_text(&response)));
                put(Role::Tool, vec![seg], &mut runs);
            }
            "blob" => {
                if let Some(seg) = conv.blob(&p, s("modality"), s("mime_type"), s("content").unwrap_or("")) {
                    put(role, vec![seg], &mut runs);
                }
            }
            "uri" => {
                let seg = conv.uri(s("modality"), s("mime_type"), s("uri").unwrap_or(""));
                put(role, vec![seg], &mut runs);
            }
            // OpenLLMetry writes OpenAI's `file` object inside the part.
            "file" if o.get("file").is_some_and(Value::is_object) => {
                let f = o.get("file").and_then(Value::as_object).cloned().unwrap_or_default();
                if let Some(seg) = super::events::chat_file(conv, &p, &f) {
                    put(role, vec![seg], &mut runs);
                }
            }
            "file" => match s("file_id").filter(|id| !id.is_empty()) {
                Some(id) => {
                    let mut seg = conv.file_id(s("mime_type"), id);
                    if let (Segment::Document(d), Some(name)) = (&mut seg, s("filename")) {
                        d.file_name = name.to_string();
                    }
                    put(role, vec![seg], &mut runs);
                }
                None => conv.note(
                    &p,
                    format!("a file recorded without its data or id ({})", crate::recorded::otlp::shown(part)),
                ),
            },
            "reasoning" => {
                let seg = conv.reasoning(s("content").unwrap_or(""));
                put(role, vec![seg], &mut runs);
            }
            _ if o.len() == 1 => conv.note(&p, format!("a `{ty}` part recorded without its content")),
            // A call the provider ran itself (code interpreter, web search)
            // and its response: what it did, kept as a notice.
            "server_tool_call" | "server_tool_call_response" => conv.unplaced(&p, part),
            // A provider's own block written as a part (OpenLLMetry writes
            // Anthropic's `document` and `image` blocks so).
            _ => {
                let (mut segs, mut results) = (vec![], vec![]);
                super::events::content_part_public(conv, &p, role, part, &mut segs, &mut results);
                if !results.is_empty() {
                    put(Role::Tool, results, &mut runs);
                }
                if !segs.is_empty() {
                    put(role, segs, &mut runs);
                }
            }
        }
    }
    runs
}
