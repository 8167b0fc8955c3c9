//! OpenAI Chat Completions request → envelope, losslessly (docs/EXTENSIONS.md):
//! `export::replay::openai_chat` gives the same request back.
//!
//! - `system` and `developer` messages → `system` (`providerRole:
//!   "developer"`); `user` → `user`; `assistant` → `assistant` (its
//!   `tool_calls` as `tool_call_request`s, `callId` = the call's `id`,
//!   `arguments` a string holding a JSON object, else an error at its path);
//!   `tool` → `tool_call_result` (paired by `tool_call_id`), consecutive tool
//!   messages one envelope tool message; a legacy `function` message → a
//!   `provider_block` holding it.
//! - `name` → the message's `name`. A string `content` → its text through
//!   the forms; an array (`contentParts`): `text` parts → text segments,
//!   `image_url` → `media` images (`detail` kept), `file` → `document`
//!   (bytes or file id; the part verbatim), anything else (`input_audio`,
//!   `refusal`) a `provider_block`. Other message fields (`refusal`,
//!   `audio`, a `null` content) are kept verbatim.
//! - `tools`: function tools → one `tool_overview` (schemas kept exactly;
//!   `strict` and other fields verbatim); custom tools kept whole.
//!   Every other top-level field → `params`, verbatim.

use serde_json::{Map, Value};

use super::{join, Builder, Want};
use crate::diag::Rule;
use crate::types::{Ext, MessageExt, RequestFormat, Role, Segment};

const ME: RequestFormat = RequestFormat::Openai;

pub(crate) fn read(body: &Map<String, Value>, b: &mut Builder) {
    if let Some(messages) = b.req(body, "", "messages", Want::Array).and_then(Value::as_array) {
        for (i, m) in messages.iter().enumerate() {
            message(b, m, &format!("messages[{i}]"));
        }
    }
    if let Some(tools) = b.opt(body, "", "tools", Want::Array).and_then(Value::as_array) {
        for (i, t) in tools.iter().enumerate() {
            tool(b, t, &format!("tools[{i}]"));
        }
    }
}

fn message(b: &mut Builder, v: &Value, path: &str) {
    let Some(m) = b.object(v, path, "a message") else { return };
    let Some(role_name) = b.req_str(m, path, "role") else { return };
    let content = m.get("content").unwrap_or(&Value::Null);
    let cp = join(path, "content");
    let name = match m.get("name") {
        Some(Value::String(n)) if role_name != "function" => Some(n.clone()),
        _ => None,
    };
    let mut consumed = vec!["role"];
    if name.is_some() {
        consumed.push("name");
    }
    if content.is_string() || content.is_array() {
        consumed.push("content");
    }
    let role = match role_name {
        "system" | "developer" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => {
            let id = b.req_str(m, path, "tool_call_id");
            let (text, parts) = match content {
                Value::Array(parts) => (texts(b, parts, &cp).join("\n\n"), Some(parts.clone())),
                Value::String(s) => (s.clone(), None),
                _ => (String::new(), None),
            };
            consumed.push("tool_call_id");
            let ext = Ext { provider: Builder::rest(m, &consumed), ..Ext::default() };
            if let Some(mut seg) = id.and_then(|id| b.result(&join(path, "tool_call_id"), id, text, true)) {
                if let Segment::ToolCallResult(r) = &mut seg {
                    r.content = parts;
                    r.ext = ext;
                }
                b.append(Role::Tool, vec![seg]);
            }
            return;
        }
        "function" => {
            let seg = Builder::provider_block(ME, m);
            let ext = MessageExt { provider_role: Some("function".into()), ..MessageExt::default() };
            b.push_ext(path, Role::User, vec![seg], ext);
            return;
        }
        other => {
            b.error(
                Rule::ImportUnknownRole,
                join(path, "role"),
                format!("unknown role `{other}` (OpenAI Chat has system, developer, user, assistant, tool)"),
            );
            return;
        }
    };
    let mut segs = match content {
        Value::String(s) => b.string_content(s, role),
        Value::Array(parts) => {
            let mut segs = Vec::new();
            for (j, part) in parts.iter().enumerate() {
                segs.extend(self::part(b, part, &format!("{cp}[{j}]"), role));
            }
            segs
        }
        Value::Null => vec![],
        other => {
            b.error(
                Rule::WrongType,
                &cp,
                format!("expected a string or an array of parts, found {}", crate::parse::type_name(other)),
            );
            vec![]
        }
    };
    if role == Role::Assistant {
        if let Some(calls) = b.opt(m, path, "tool_calls", Want::Array).and_then(Value::as_array) {
            consumed.push("tool_calls");
            for (j, c) in calls.iter().enumerate() {
                segs.extend(call(b, c, &format!("{path}.tool_calls[{j}]")));
            }
        }
    }
    let ext = MessageExt {
        name,
        provider_role: (role_name == "developer").then(|| "developer".to_string()),
        content_parts: content.is_array(),
        continues: false,
        provider: Builder::rest(m, &consumed),
        shape: Vec::new(),
    };
    b.push_ext(path, role, segs, ext);
}

/// The texts of `text` parts.
fn texts(b: &mut Builder, parts: &[Value], path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (j, part) in parts.iter().enumerate() {
        let pj = format!("{path}[{j}]");
        let Some(o) = b.object(part, &pj, "a content part") else { continue };
        if o.get("type").and_then(Value::as_str) == Some("text") {
            if let Some(t) = b.req_str(o, &pj, "text") {
                out.push(t.to_string());
            }
        }
    }
    out
}

fn part(b: &mut Builder, v: &Value, path: &str, role: Role) -> Vec<Segment> {
    let Some(o) = b.object(v, path, "a content part") else { return vec![] };
    let Some(ty) = b.req_str(o, path, "type") else { return vec![] };
    match ty {
        "text" => match b.req_str(o, path, "text") {
            Some(t) => b.block_text(t, role, Builder::ext_of(o, &["type", "text"])),
            None => vec![],
        },
        "image_url" if role == Role::User => {
            let ip = join(path, "image_url");
            let Some(img) = b.req(o, path, "image_url", Want::Object).and_then(Value::as_object) else {
                return vec![];
            };
            let Some(url) = b.req_str(img, &ip, "url") else { return vec![] };
            let Some(mut seg) = b.image(&join(&ip, "url"), url) else { return vec![] };
            // `detail` (and anything else of `image_url`) kept with the part.
            let mut bag = Builder::rest(o, &["type", "image_url"]).unwrap_or_default();
            if img.len() > 1 {
                bag.insert("image_url".into(), Value::Object(img.clone()));
            }
            if let Some(e) = seg.ext_mut() {
                e.provider = (!bag.is_empty()).then_some(bag);
            }
            vec![seg]
        }
        "file" if role == Role::User => {
            let fp = join(path, "file");
            let Some(f) = b.req(o, path, "file", Want::Object).and_then(Value::as_object) else { return vec![] };
            let name = f.get("filename").and_then(Value::as_str).unwrap_or("file").to_string();
            let seg = match (f.get("file_data").and_then(Value::as_str), f.get("file_id").and_then(Value::as_str)) {
                (Some(data), _) => b.file_data(&join(&fp, "file_data"), &name, data),
                (None, Some(id)) => {
                    let mut d = super::forms::document_segment(&name, "application/octet-stream", 0, "");
                    d.file_id = Some(id.to_string());
                    Some(Segment::Document(d))
                }
                (None, None) => None,
            };
            match seg {
                Some(mut seg) => {
                    // The part itself is what the request sends: kept whole.
                    if let Some(e) = seg.ext_mut() {
                        e.provider = Some(o.clone());
                    }
                    vec![seg]
                }
                None => vec![Builder::provider_block(ME, o)],
            }
        }
        _ => vec![Builder::provider_block(ME, o)],
    }
}

fn call(b: &mut Builder, v: &Value, path: &str) -> Option<Segment> {
    let c = b.object(v, path, "a tool call")?;
    let ty = c.get("type").and_then(Value::as_str).unwrap_or("function");
    if ty != "function" || !c.contains_key("function") {
        return Some(Builder::provider_block(ME, c));
    }
    let id = b.req_str(c, path, "id");
    let fp = join(path, "function");
    let f = b.req(c, path, "function", Want::Object).and_then(Value::as_object)?;
    let name = b.req_str(f, &fp, "name");
    let args = b.req_str(f, &fp, "arguments").and_then(|a| b.arguments(&join(&fp, "arguments"), a));
    let mut seg = b.call(&join(path, "id"), id?, name?, args?);
    // The arguments string is kept as written when the export's compact
    // JSON of the object would not give it back.
    let written = f.get("arguments").and_then(Value::as_str).unwrap_or("");
    let mut bag = Builder::rest(c, &["id", "type", "function"]).unwrap_or_default();
    let mut fbag = Builder::rest(f, &["name", "arguments"]).unwrap_or_default();
    if let Segment::ToolCallRequest(r) = &seg {
        if serde_json::to_string(&r.arguments).ok().as_deref() != Some(written) {
            fbag.insert("arguments".into(), written.into());
        }
    }
    if !fbag.is_empty() {
        bag.insert("function".into(), Value::Object(fbag));
    }
    if c.contains_key("type") {
        // Present or not, the export says "function": absence is kept.
    } else {
        bag.insert("type".into(), Value::Null);
    }
    if let Some(e) = seg.ext_mut() {
        e.provider = (!bag.is_empty()).then_some(bag);
    }
    Some(seg)
}

fn tool(b: &mut Builder, v: &Value, path: &str) {
    let Some(t) = b.object(v, path, "a tool") else { return };
    let ty = t.get("type").and_then(Value::as_str).unwrap_or("");
    let f = t.get("function").and_then(Value::as_object);
    let Some(f) = f.filter(|_| ty == "function") else {
        let name = t
            .get(ty)
            .and_then(|inner| inner.get("name"))
            .and_then(Value::as_str)
            .unwrap_or(if ty.is_empty() { "tool" } else { ty })
            .to_string();
        b.tool_verbatim(&name, t);
        return;
    };
    let fp = join(path, "function");
    let name = b.req_str(f, &fp, "name");
    let description = b.opt_str(f, &fp, "description");
    let schema = b.opt(f, &fp, "parameters", Want::Object).cloned();
    let mut known = vec!["name"];
    if description.is_some_and(|d| !d.is_empty()) {
        known.push("description");
    }
    if schema.is_some() {
        known.push("parameters");
    }
    let mut bag = Builder::rest(t, &["type", "function"]).unwrap_or_default();
    if let Some(fbag) = Builder::rest(f, &known) {
        bag.insert("function".into(), Value::Object(fbag));
    }
    if let Some(name) = name {
        b.tool(&join(&fp, "name"), name, description.unwrap_or(""), schema);
        b.last_tool_ext(Ext { provider: (!bag.is_empty()).then_some(bag), ..Ext::default() });
    }
}
