//! OpenAI Responses request → envelope.
//!
//! - `instructions` → a first `system` message (text through the forms).
//! - `input` as a string → one `user` message.
//! - `input` items: a message (`type` `message` or none) of role `user`,
//!   `assistant`, `system` or `developer` → a message of that role
//!   (`developer` → `system`, with a notice); `input_text` / `output_text`
//!   parts → text through the forms, `input_image` → `media` image,
//!   `input_file` (`file_data`) → `document`; others are notices. Each
//!   message item starts a new envelope message.
//! - `function_call` → a `tool_call_request` (`callId` = `call_id`; the
//!   `arguments` string must hold a JSON object) in the assistant message
//!   just before it, or a new one; `function_call_output` → a
//!   `tool_call_result` paired by `call_id` (consecutive outputs are one
//!   tool message).
//! - `tools`: flat `function` tools → one `tool_overview` (schemas kept
//!   exactly); a tool that is strict (`strict: true`, or absent: the
//!   Responses default) is a notice, since the envelope does not say it and
//!   exports send `strict: false`. Other tools and items are notices.
//! - Every other top-level field → `params`.

use serde_json::{Map, Value};

use super::{a_role, join, text_parts, Builder, Want};
use crate::diag::Rule;
use crate::types::{Role, Segment};

pub(crate) fn read(body: &Map<String, Value>, b: &mut Builder) {
    if let Some(text) = b.opt_str(body, "", "instructions") {
        let segs = b.text(text, Role::System);
        b.push("instructions", Role::System, segs);
    }
    match body.get("input") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            let segs = b.text(s, Role::User);
            b.push("input", Role::User, segs);
        }
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                input_item(b, item, &format!("input[{i}]"));
            }
        }
        Some(other) => b.error(
            Rule::WrongType,
            "input",
            format!("expected a string or an array of items, found {}", crate::parse::type_name(other)),
        ),
    }
    if let Some(tools) = b.opt(body, "", "tools", Want::Array).and_then(Value::as_array) {
        for (i, t) in tools.iter().enumerate() {
            tool(b, t, &format!("tools[{i}]"));
        }
    }
}

fn input_item(b: &mut Builder, v: &Value, path: &str) {
    let Some(o) = b.object(v, path, "an input item") else { return };
    let ty = b.opt_str(o, path, "type").unwrap_or("message");
    match ty {
        "message" => message(b, o, path),
        "function_call" => {
            let id = b.req_str(o, path, "call_id");
            let name = b.req_str(o, path, "name");
            let args = b.req_str(o, path, "arguments").and_then(|a| b.arguments(&join(path, "arguments"), a));
            b.extras(o, path, &["type", "call_id", "name", "arguments"]);
            let (Some(id), Some(name), Some(args)) = (id, name, args) else { return };
            let seg = b.call(&join(path, "call_id"), id, name, args);
            if b.last_is(Role::Assistant) {
                b.append(Role::Assistant, vec![seg]);
            } else {
                b.push(path, Role::Assistant, vec![seg]);
            }
        }
        "function_call_output" => {
            let id = b.req_str(o, path, "call_id");
            let op = join(path, "output");
            let output = match o.get("output") {
                None => {
                    b.error(Rule::MissingField, &op, "missing field `output` (expected a string or an array of parts)");
                    None
                }
                Some(v) => Some(text_parts(b, v, &op, "input_text").join("\n\n")),
            };
            b.extras(o, path, &["type", "call_id", "output"]);
            let (Some(id), Some(output)) = (id, output) else { return };
            if let Some(seg) = b.result(&join(path, "call_id"), id, output, true) {
                b.append(Role::Tool, vec![seg]);
            }
        }
        other => b.not_represented(path, &format!("the `{other}` item")),
    }
}

fn message(b: &mut Builder, o: &Map<String, Value>, path: &str) {
    let Some(role_name) = b.req_str(o, path, "role") else { return };
    let role = match role_name {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        "developer" => {
            b.note(join(path, "role"), "`developer` is read as `system`; exports send `system`");
            Role::System
        }
        other => {
            b.error(
                Rule::ImportUnknownRole,
                join(path, "role"),
                format!("unknown role `{other}` (OpenAI Responses has user, assistant, system, developer)"),
            );
            return;
        }
    };
    let cp = join(path, "content");
    let mut segs: Vec<Segment> = Vec::new();
    match o.get("content") {
        None => b.error(Rule::MissingField, &cp, "missing field `content` (expected a string or an array of parts)"),
        Some(Value::String(s)) => segs.extend(b.text(s, role)),
        Some(Value::Array(parts)) => {
            for (j, part) in parts.iter().enumerate() {
                segs.extend(content_part(b, part, &format!("{cp}[{j}]"), role));
            }
        }
        Some(other) => b.error(
            Rule::WrongType,
            &cp,
            format!("expected a string or an array of parts, found {}", crate::parse::type_name(other)),
        ),
    }
    b.extras(o, path, &["type", "role", "content"]);
    b.push(path, role, segs);
}

fn content_part(b: &mut Builder, v: &Value, path: &str, role: Role) -> Vec<Segment> {
    let Some(o) = b.object(v, path, "a content part") else { return vec![] };
    let Some(ty) = b.req_str(o, path, "type") else { return vec![] };
    match ty {
        "input_text" | "output_text" => {
            let segs = b.req_str(o, path, "text").map(|t| b.text(t, role)).unwrap_or_default();
            // Empty `annotations` / `logprobs` of an output say nothing.
            let empty = |k: &str| o.get(k).is_some_and(|a| a.as_array().is_some_and(Vec::is_empty));
            let mut known = vec!["type", "text"];
            known.extend(["annotations", "logprobs"].into_iter().filter(|k| ty == "output_text" && empty(k)));
            b.extras(o, path, &known);
            segs
        }
        "input_image" if role == Role::User => {
            let mut segs = Vec::new();
            match b.opt_str(o, path, "image_url") {
                Some(url) => segs.extend(b.image(&join(path, "image_url"), url)),
                None => b.not_represented(path, "an image given by `file_id` (its content is not in the request)"),
            }
            if let Some(d) = b.opt_str(o, path, "detail").filter(|d| *d != "auto") {
                b.not_represented(&join(path, "detail"), &format!("`detail: {d}`"));
            }
            b.extras(o, path, &["type", "image_url", "detail", "file_id"]);
            segs
        }
        "input_file" if role == Role::User => {
            let name = b.opt_str(o, path, "filename").unwrap_or("file").to_string();
            let segs = match b.opt_str(o, path, "file_data") {
                Some(data) => b.file_data(&join(path, "file_data"), &name, data).into_iter().collect(),
                None => {
                    b.not_represented(
                        path,
                        "a file given by `file_id` or `file_url` (its content is not in the request)",
                    );
                    vec![]
                }
            };
            b.extras(o, path, &["type", "filename", "file_data", "file_id", "file_url"]);
            segs
        }
        other => {
            b.not_represented(path, &format!("the `{other}` part (in {} message)", a_role(role)));
            vec![]
        }
    }
}

fn tool(b: &mut Builder, v: &Value, path: &str) {
    let Some(t) = b.object(v, path, "a tool") else { return };
    let Some(ty) = b.req_str(t, path, "type") else { return };
    if ty != "function" {
        b.not_represented(path, &format!("the `{ty}` tool"));
        return;
    }
    let name = b.req_str(t, path, "name");
    let description = b.opt_str(t, path, "description").unwrap_or("");
    let schema = b.opt(t, path, "parameters", Want::Object).cloned();
    match t.get("strict") {
        Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => b.not_represented(&join(path, "strict"), "`strict: true`"),
        Some(_) => {
            b.opt(t, path, "strict", Want::Bool);
        }
        None => b.note(
            join(path, "strict"),
            "this tool is strict (the Responses default); the envelope does not say so, and exports send `strict: false`",
        ),
    }
    b.extras(t, path, &["type", "name", "description", "parameters", "strict"]);
    if let Some(name) = name {
        b.tool(&join(path, "name"), name, description, schema);
    }
}
