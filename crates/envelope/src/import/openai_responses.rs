//! OpenAI Responses request → envelope, losslessly (docs/EXTENSIONS.md):
//! `export::replay::openai_responses` gives the same request back.
//!
//! - `instructions` → a first `system` message (`providerRole:
//!   "instructions"`); `input` as a string → one `user` message
//!   (`providerRole: "input"`).
//! - `input` items: a message (`type` `message` or none) → a message of its
//!   role (`developer` → `system` with `providerRole: "developer"`); a
//!   string `content` through the text forms, parts (`contentParts`):
//!   `input_text` / `output_text` → text, `input_image` by URL → `media`,
//!   `input_file` → `document` (the part verbatim), anything else a
//!   `provider_block`; the item's `id`, `status`, `type`, `phase` verbatim.
//! - `function_call` → a `tool_call_request` in the assistant message before
//!   it (or a new one); `function_call_output` → a `tool_call_result`
//!   (output parts kept as `content`); `reasoning` → `reasoning` (summary,
//!   `encrypted_content`, `id` kept); every other item (server tools' calls,
//!   MCP, item references, …) → a `provider_block` in the assistant message.
//! - `tools`: function tools → one `tool_overview` (`strict` and other
//!   fields verbatim); every other tool kept whole.
//!   Every other top-level field → `params`, verbatim.

use serde_json::{Map, Value};

use super::{join, Builder, Want};
use crate::diag::Rule;
use crate::types::{Ext, MessageExt, Reasoning, RequestFormat, Role, Segment};

const ME: RequestFormat = RequestFormat::Responses;

pub(crate) fn read(body: &Map<String, Value>, b: &mut Builder) {
    if let Some(text) = b.opt_str(body, "", "instructions") {
        let segs = b.string_content(text, Role::System);
        let ext = MessageExt { provider_role: Some("instructions".into()), ..MessageExt::default() };
        b.push_ext("instructions", Role::System, segs, ext);
    }
    match body.get("input") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            let segs = b.string_content(s, Role::User);
            let ext = MessageExt { provider_role: Some("input".into()), ..MessageExt::default() };
            b.push_ext("input", Role::User, segs, ext);
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

/// Appends an assistant-side segment to the assistant message before, or a new one.
fn assistant(b: &mut Builder, path: &str, seg: Segment) {
    match b.last_mut(Role::Assistant) {
        Some((_, segs, _)) => segs.push(seg),
        None => b.push(path, Role::Assistant, vec![seg]),
    }
}

fn input_item(b: &mut Builder, v: &Value, path: &str) {
    let Some(o) = b.object(v, path, "an input item") else { return };
    let ty = o.get("type").and_then(Value::as_str).unwrap_or("message");
    match ty {
        "message" if o.contains_key("role") => message(b, o, path),
        "function_call" => {
            let id = b.req_str(o, path, "call_id");
            let name = b.req_str(o, path, "name");
            let written = b.req_str(o, path, "arguments");
            let args = written.and_then(|a| b.arguments(&join(path, "arguments"), a));
            let (Some(id), Some(name), Some(args), Some(written)) = (id, name, args, written) else { return };
            let mut known = vec!["call_id", "name"];
            if serde_json::to_string(&args).ok().as_deref() == Some(written) {
                known.push("arguments");
            }
            let mut seg = b.call(&join(path, "call_id"), id, name, args);
            if let Some(e) = seg.ext_mut() {
                *e = Builder::ext_of(o, &known);
            }
            assistant(b, path, seg);
        }
        "function_call_output" if o.get("call_id").and_then(Value::as_str).is_some_and(|id| !b.has_call(id)) => {
            // The output of a call made in an earlier response
            // (`previous_response_id`): kept verbatim, shown as a result.
            b.note(
                join(path, "call_id"),
                "this output answers a call of an earlier response (not in this request); it is kept as it was",
            );
            assistant(b, path, Builder::provider_block(ME, o));
        }
        "function_call_output" => {
            let id = b.req_str(o, path, "call_id");
            let op = join(path, "output");
            let (text, content) = match o.get("output") {
                None => {
                    b.error(Rule::MissingField, &op, "missing field `output` (expected a string or an array of parts)");
                    return;
                }
                Some(Value::String(s)) => (s.clone(), None),
                Some(Value::Array(parts)) => {
                    let texts: Vec<&str> = parts
                        .iter()
                        .filter(|p| p.get("type").and_then(Value::as_str) == Some("input_text"))
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect();
                    (texts.join("\n\n"), Some(parts.clone()))
                }
                Some(other) => {
                    b.error(
                        Rule::WrongType,
                        &op,
                        format!("expected a string or an array of parts, found {}", crate::parse::type_name(other)),
                    );
                    return;
                }
            };
            let Some(id) = id else { return };
            let ext = Builder::ext_of(o, &["call_id", "output"]);
            if let Some(mut seg) = b.result(&join(path, "call_id"), id, text, true) {
                if let Segment::ToolCallResult(r) = &mut seg {
                    r.content = content;
                    r.ext = ext;
                }
                b.append(Role::Tool, vec![seg]);
            }
        }
        "reasoning" => {
            let simple = |list: Option<&Value>, ty: &str| -> Option<Vec<String>> {
                list?
                    .as_array()?
                    .iter()
                    .map(|p| {
                        let p = p.as_object()?;
                        (p.len() == 2 && p.get("type").and_then(Value::as_str) == Some(ty))
                            .then(|| p.get("text").and_then(Value::as_str).map(str::to_string))?
                    })
                    .collect()
            };
            let summary = simple(o.get("summary"), "summary_text");
            let content = simple(o.get("content"), "reasoning_text").filter(|c| c.len() == 1);
            let encrypted = o.get("encrypted_content").and_then(Value::as_str).map(str::to_string);
            let mut known = vec![];
            if summary.is_some() {
                known.push("summary");
            }
            if content.is_some() {
                known.push("content");
            }
            if encrypted.is_some() {
                known.push("encrypted_content");
            }
            let seg = Segment::Reasoning(Reasoning {
                content: content.and_then(|mut c| c.pop()).unwrap_or_default(),
                summary,
                signature: None,
                encrypted,
                collapsed: true,
                ext: Builder::ext_of(o, &known),
            });
            assistant(b, path, seg);
        }
        _ => assistant(b, path, Builder::provider_block(ME, o)),
    }
}

fn message(b: &mut Builder, o: &Map<String, Value>, path: &str) {
    let Some(role_name) = b.req_str(o, path, "role") else { return };
    let role = match role_name {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" | "developer" => Role::System,
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
        Some(Value::String(s)) => segs.extend(b.string_content(s, role)),
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
    let ext = MessageExt {
        provider_role: (role_name == "developer").then(|| "developer".to_string()),
        content_parts: o.get("content").is_some_and(Value::is_array),
        provider: Builder::rest(o, &["role", "content"]),
        ..MessageExt::default()
    };
    b.push_ext(path, role, segs, ext);
}

fn content_part(b: &mut Builder, v: &Value, path: &str, role: Role) -> Vec<Segment> {
    let Some(o) = b.object(v, path, "a content part") else { return vec![] };
    let Some(ty) = b.req_str(o, path, "type") else { return vec![] };
    match ty {
        "input_text" | "output_text" => match b.req_str(o, path, "text") {
            Some(t) => b.block_text(t, role, Builder::ext_of(o, &["type", "text"])),
            None => vec![],
        },
        "input_image" if role == Role::User && o.get("image_url").is_some_and(Value::is_string) => {
            let url = o.get("image_url").and_then(Value::as_str).unwrap_or("");
            let Some(mut seg) = b.image(&join(path, "image_url"), url) else { return vec![] };
            if let Some(e) = seg.ext_mut() {
                *e = Builder::ext_of(o, &["type", "image_url"]);
            }
            vec![seg]
        }
        "input_file" if role == Role::User => {
            let name = o.get("filename").and_then(Value::as_str).unwrap_or("file").to_string();
            let seg = if let Some(data) = o.get("file_data").and_then(Value::as_str) {
                b.file_data(&join(path, "file_data"), &name, data)
            } else {
                let mut d = super::forms::document_segment(&name, "application/pdf", 0, "");
                d.file_id = o.get("file_id").and_then(Value::as_str).map(str::to_string);
                d.url = o.get("file_url").and_then(Value::as_str).map(str::to_string);
                Some(Segment::Document(d))
            };
            match seg {
                Some(mut seg) => {
                    if let Some(e) = seg.ext_mut() {
                        e.provider = Some(o.clone());
                    }
                    vec![seg]
                }
                None => vec![],
            }
        }
        _ => vec![Builder::provider_block(ME, o)],
    }
}

fn tool(b: &mut Builder, v: &Value, path: &str) {
    let Some(t) = b.object(v, path, "a tool") else { return };
    let ty = t.get("type").and_then(Value::as_str).unwrap_or("");
    if ty != "function" {
        let name = ["name", "server_label"]
            .iter()
            .find_map(|k| t.get(*k).and_then(Value::as_str))
            .unwrap_or(if ty.is_empty() { "tool" } else { ty })
            .to_string();
        b.tool_verbatim(&name, t);
        return;
    }
    let name = b.req_str(t, path, "name");
    let description = b.opt_str(t, path, "description");
    let schema = b.opt(t, path, "parameters", Want::Object).cloned();
    let mut known = vec!["type", "name"];
    if description.is_some_and(|d| !d.is_empty()) {
        known.push("description");
    }
    if schema.is_some() {
        known.push("parameters");
    }
    if let Some(name) = name {
        b.tool(&join(path, "name"), name, description.unwrap_or(""), schema);
        b.last_tool_ext(Ext { provider: Builder::rest(t, &known), ..Ext::default() });
    }
}
