//! OpenAI Chat Completions request → envelope.
//!
//! - `system` and `developer` messages → `system` (a notice for
//!   `developer`: exports say `system`); their text (a string, or each text
//!   part) through the text forms.
//! - `user` → `user`: text through the forms (an `[image: …]` text stays
//!   text); `image_url` parts → `media` images (`detail` other than `auto`
//!   is a notice); `file` parts (`file_data`) → `document`; `input_audio` and
//!   other parts are notices.
//! - `assistant` → `assistant`: its text, then its `tool_calls` as
//!   `tool_call_request`s (`callId` = the call's `id`; `arguments` must be a
//!   string holding a JSON object, else an error at its path).
//! - `tool` → `tool_call_result` (paired by `tool_call_id`, `success: true`;
//!   text parts joined by `"\n\n"`); consecutive tool messages are one
//!   envelope tool message.
//! - `tools` (`{"type":"function","function":{…}}`) → one `tool_overview`,
//!   schemas kept exactly. Every other top-level field → `params`.

use serde_json::{Map, Value};

use super::{join, text_parts, Builder, Want};
use crate::diag::Rule;
use crate::types::{Role, Segment};

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
    let Some(role) = b.req_str(m, path, "role") else { return };
    let content = m.get("content").unwrap_or(&Value::Null);
    let content_path = join(path, "content");
    match role {
        "system" | "developer" => {
            if role == "developer" {
                b.note(join(path, "role"), "`developer` is read as `system`; exports send `system`");
            }
            let mut segs = Vec::new();
            for t in text_parts(b, content, &content_path, "text") {
                segs.extend(b.text(&t, Role::System));
            }
            b.extras(m, path, &["role", "content"]);
            b.push(path, Role::System, segs);
        }
        "user" => {
            let segs = user_content(b, content, &content_path);
            b.extras(m, path, &["role", "content"]);
            b.push(path, Role::User, segs);
        }
        "assistant" => {
            let mut segs = Vec::new();
            for t in text_parts(b, content, &content_path, "text") {
                segs.extend(b.text(&t, Role::Assistant));
            }
            if let Some(calls) = b.opt(m, path, "tool_calls", Want::Array).and_then(Value::as_array) {
                for (j, c) in calls.iter().enumerate() {
                    segs.extend(call(b, c, &format!("{path}.tool_calls[{j}]")));
                }
            }
            b.extras(m, path, &["role", "content", "tool_calls"]);
            b.push(path, Role::Assistant, segs);
        }
        "tool" => {
            let id = b.req_str(m, path, "tool_call_id");
            let text = text_parts(b, content, &content_path, "text").join("\n\n");
            b.extras(m, path, &["role", "content", "tool_call_id"]);
            if let Some(seg) = id.and_then(|id| b.result(&join(path, "tool_call_id"), id, text, true)) {
                b.append(Role::Tool, vec![seg]);
            }
        }
        "function" => b.not_represented(path, "a legacy `function` message"),
        other => b.error(
            Rule::ImportUnknownRole,
            join(path, "role"),
            format!("unknown role `{other}` (OpenAI Chat has system, developer, user, assistant, tool)"),
        ),
    }
}

fn user_content(b: &mut Builder, v: &Value, path: &str) -> Vec<Segment> {
    let Value::Array(parts) = v else {
        return text_parts(b, v, path, "text").iter().flat_map(|t| b.text(t, Role::User)).collect();
    };
    let mut segs = Vec::new();
    for (j, part) in parts.iter().enumerate() {
        let pj = format!("{path}[{j}]");
        let Some(o) = b.object(part, &pj, "a content part") else { continue };
        let Some(ty) = b.req_str(o, &pj, "type") else { continue };
        match ty {
            "text" => {
                if let Some(t) = b.req_str(o, &pj, "text") {
                    segs.extend(b.text(t, Role::User));
                }
                b.extras(o, &pj, &["type", "text"]);
            }
            "image_url" => {
                let ip = join(&pj, "image_url");
                let Some(img) = b.req(o, &pj, "image_url", Want::Object).and_then(Value::as_object) else { continue };
                if let Some(url) = b.req_str(img, &ip, "url") {
                    segs.extend(b.image(&join(&ip, "url"), url));
                }
                if let Some(d) = b.opt_str(img, &ip, "detail").filter(|d| *d != "auto") {
                    b.not_represented(&join(&ip, "detail"), &format!("`detail: {d}`"));
                }
                b.extras(img, &ip, &["url", "detail"]);
                b.extras(o, &pj, &["type", "image_url"]);
            }
            "file" => {
                let fp = join(&pj, "file");
                let Some(f) = b.req(o, &pj, "file", Want::Object).and_then(Value::as_object) else { continue };
                let name = b.opt_str(f, &fp, "filename").unwrap_or("file").to_string();
                if let Some(data) = b.opt_str(f, &fp, "file_data") {
                    segs.extend(b.file_data(&join(&fp, "file_data"), &name, data));
                    b.extras(f, &fp, &["filename", "file_data"]);
                } else {
                    b.not_represented(&fp, "a file given by `file_id` (its content is not in the request)");
                }
                b.extras(o, &pj, &["type", "file"]);
            }
            other => b.not_represented(&join(&pj, other), &format!("the `{other}` part")),
        }
    }
    segs
}

fn call(b: &mut Builder, v: &Value, path: &str) -> Option<Segment> {
    let c = b.object(v, path, "a tool call")?;
    let ty = b.opt_str(c, path, "type").unwrap_or("function");
    if ty != "function" {
        b.not_represented(path, &format!("the `{ty}` tool call"));
        return None;
    }
    let id = b.req_str(c, path, "id");
    let fp = join(path, "function");
    let f = b.req(c, path, "function", Want::Object).and_then(Value::as_object);
    b.extras(c, path, &["id", "type", "function"]);
    let f = f?;
    let name = b.req_str(f, &fp, "name");
    let args = b.req_str(f, &fp, "arguments").and_then(|a| b.arguments(&join(&fp, "arguments"), a));
    b.extras(f, &fp, &["name", "arguments"]);
    Some(b.call(&join(path, "id"), id?, name?, args?))
}

fn tool(b: &mut Builder, v: &Value, path: &str) {
    let Some(t) = b.object(v, path, "a tool") else { return };
    let ty = b.opt_str(t, path, "type").unwrap_or("function");
    if ty != "function" {
        b.not_represented(path, &format!("the `{ty}` tool"));
        return;
    }
    let fp = join(path, "function");
    let Some(f) = b.req(t, path, "function", Want::Object).and_then(Value::as_object) else { return };
    b.extras(t, path, &["type", "function"]);
    let name = b.req_str(f, &fp, "name");
    let description = b.opt_str(f, &fp, "description").unwrap_or("");
    let schema = b.opt(f, &fp, "parameters", Want::Object).cloned();
    if f.contains_key("strict") {
        b.not_represented(&join(&fp, "strict"), "`strict`");
    }
    b.extras(f, &fp, &["name", "description", "parameters", "strict"]);
    if let Some(name) = name {
        b.tool(&join(&fp, "name"), name, description, schema);
    }
}
