//! Anthropic Messages request → envelope.
//!
//! - `system` (a string, or text blocks) → a first `system` message, text
//!   through the forms.
//! - `user` messages: `text` blocks through the forms (an `[image: …]` text
//!   stays text); `image` blocks (`url` source, or `base64` as a `data:` URL)
//!   → `media` images; `document` blocks (`base64`, `text` or `content`
//!   sources) → `document` with its MIME type and size; `tool_result` blocks
//!   → `tool_call_result`s (paired by `tool_use_id`; `is_error: true` →
//!   `success: false`; block content flattened: its text blocks joined by
//!   `"\n\n"`), in a `tool` message of their own, in order.
//! - `assistant` messages: `text` blocks and `tool_use` blocks
//!   (`tool_call_request`, `callId` = `id`, `input` kept as the arguments).
//! - `tools` (`input_schema`) → one `tool_overview`, schemas kept exactly;
//!   server tools (with another `type`) are notices.
//! - Every `cache_control` is a notice saying where the breakpoint was.
//!   Every other top-level field → `params`.

use serde_json::{Map, Value};

use super::{a_role, join, Builder, Want};
use crate::diag::Rule;
use crate::parse::type_name;
use crate::types::{Role, Segment};

pub(crate) fn read(body: &Map<String, Value>, b: &mut Builder) {
    match body.get("system") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => {
            let segs = b.text(s, Role::System);
            b.push("system", Role::System, segs);
        }
        Some(Value::Array(blocks)) => {
            let mut segs = Vec::new();
            for (i, block) in blocks.iter().enumerate() {
                let p = format!("system[{i}]");
                let Some(o) = b.object(block, &p, "a system block") else { continue };
                match b.req_str(o, &p, "type") {
                    Some("text") => {
                        if let Some(t) = b.req_str(o, &p, "text") {
                            segs.extend(b.text(t, Role::System));
                        }
                        b.extras(o, &p, &["type", "text"]);
                    }
                    Some(other) => b.not_represented(&p, &format!("the `{other}` block")),
                    None => {}
                }
            }
            b.push("system", Role::System, segs);
        }
        Some(other) => b.error(
            Rule::WrongType,
            "system",
            format!("expected a string or an array of text blocks, found {}", type_name(other)),
        ),
    }
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
    let role = match b.req_str(m, path, "role") {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some(other) => {
            b.error(
                Rule::ImportUnknownRole,
                join(path, "role"),
                format!("unknown role `{other}` (Anthropic Messages has user and assistant; system is top-level)"),
            );
            return;
        }
        None => return,
    };
    b.extras(m, path, &["role", "content"]);
    let cp = join(path, "content");
    let blocks = match m.get("content") {
        None => {
            b.error(Rule::MissingField, &cp, "missing field `content` (expected a string or an array of blocks)");
            return;
        }
        Some(Value::String(s)) => {
            let segs = b.text(s, role);
            b.push(path, role, segs);
            return;
        }
        Some(Value::Array(blocks)) => blocks,
        Some(other) => {
            b.error(
                Rule::WrongType,
                &cp,
                format!("expected a string or an array of blocks, found {}", type_name(other)),
            );
            return;
        }
    };
    // Runs of tool results and of other blocks, in order.
    let mut run: Vec<Segment> = Vec::new();
    let mut run_role = role;
    let mut pushed = false;
    for (j, block) in blocks.iter().enumerate() {
        let bp = format!("{cp}[{j}]");
        let Some((seg_role, segs)) = self::block(b, block, &bp, role) else { continue };
        if seg_role != run_role && !run.is_empty() {
            flush(b, path, run_role, std::mem::take(&mut run));
            pushed = true;
        }
        run_role = seg_role;
        run.extend(segs);
    }
    if !run.is_empty() || !pushed {
        flush(b, path, run_role, run);
    }
}

fn flush(b: &mut Builder, path: &str, role: Role, segs: Vec<Segment>) {
    if role == Role::Tool {
        b.append(Role::Tool, segs);
    } else {
        b.push(path, role, segs);
    }
}

/// One content block: the role of the envelope message it belongs in, and its segments.
fn block(b: &mut Builder, v: &Value, path: &str, role: Role) -> Option<(Role, Vec<Segment>)> {
    let o = b.object(v, path, "a content block")?;
    let ty = b.req_str(o, path, "type")?;
    let segs = match (ty, role) {
        ("text", _) => {
            let segs = b.req_str(o, path, "text").map(|t| b.text(t, role)).unwrap_or_default();
            b.extras(o, path, &["type", "text"]);
            segs
        }
        ("image", Role::User) => {
            let sp = join(path, "source");
            let source = b.req(o, path, "source", Want::Object).and_then(Value::as_object);
            b.extras(o, path, &["type", "source"]);
            let source = source?;
            let segs = match b.req_str(source, &sp, "type")? {
                "url" => b.req_str(source, &sp, "url").and_then(|u| b.image(&join(&sp, "url"), u)),
                "base64" => {
                    let mime = b.req_str(source, &sp, "media_type");
                    let data = b.req_str(source, &sp, "data");
                    let url = format!("data:{};base64,{}", mime?, data?);
                    b.image(&join(&sp, "media_type"), &url)
                }
                other => {
                    b.not_represented(
                        &sp,
                        &format!("an image from a `{other}` source (its content is not in the request)"),
                    );
                    return Some((role, vec![]));
                }
            };
            b.extras(source, &sp, &["type", "url", "media_type", "data"]);
            segs.into_iter().collect()
        }
        ("document", Role::User) => document(b, o, path).into_iter().collect(),
        ("tool_result", Role::User) => {
            let id = b.req_str(o, path, "tool_use_id");
            let is_error = b.opt(o, path, "is_error", Want::Bool).and_then(Value::as_bool).unwrap_or(false);
            let content = result_content(b, o.get("content"), &join(path, "content"));
            b.extras(o, path, &["type", "tool_use_id", "content", "is_error"]);
            let seg = b.result(&join(path, "tool_use_id"), id?, content, !is_error)?;
            return Some((Role::Tool, vec![seg]));
        }
        ("tool_use", Role::Assistant) => {
            let id = b.req_str(o, path, "id");
            let name = b.req_str(o, path, "name");
            let input = b.req(o, path, "input", Want::Object).and_then(Value::as_object).cloned();
            b.extras(o, path, &["type", "id", "name", "input"]);
            vec![b.call(&join(path, "id"), id?, name?, input?)]
        }
        (other, _) => {
            b.not_represented(path, &format!("the `{other}` block (in {} message)", a_role(role)));
            vec![]
        }
    };
    Some((role, segs))
}

/// A `tool_result`'s content as text: a string, or its text blocks joined by `"\n\n"`.
fn result_content(b: &mut Builder, v: Option<&Value>, path: &str) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let mut texts = Vec::new();
            for (k, block) in blocks.iter().enumerate() {
                let p = format!("{path}[{k}]");
                let Some(o) = b.object(block, &p, "a content block") else { continue };
                match b.req_str(o, &p, "type") {
                    Some("text") => {
                        if let Some(t) = b.req_str(o, &p, "text") {
                            texts.push(t.to_string());
                        }
                        b.extras(o, &p, &["type", "text"]);
                    }
                    Some(other) => b.not_represented(&p, &format!("the `{other}` block of a tool result")),
                    None => {}
                }
            }
            texts.join("\n\n")
        }
        Some(other) => {
            b.error(
                Rule::WrongType,
                path,
                format!("expected a string or an array of blocks, found {}", type_name(other)),
            );
            String::new()
        }
    }
}

fn document(b: &mut Builder, o: &Map<String, Value>, path: &str) -> Option<Segment> {
    let sp = join(path, "source");
    let source = b.req(o, path, "source", Want::Object).and_then(Value::as_object);
    let title = b.opt_str(o, path, "title").unwrap_or("document").to_string();
    b.extras(o, path, &["type", "source", "title"]);
    let source = source?;
    let seg = match b.req_str(source, &sp, "type")? {
        "base64" => {
            let mime = b.req_str(source, &sp, "media_type");
            let data = b.req_str(source, &sp, "data");
            b.file(&join(&sp, "data"), &title, mime?, data?)
        }
        "text" => {
            let mime = b.opt_str(source, &sp, "media_type").unwrap_or("text/plain");
            let data = b.req_str(source, &sp, "data")?;
            Some(Segment::Document(super::forms::document_segment(&title, mime, data.len() as u64, data)))
        }
        "content" => {
            let text = result_content(b, source.get("content"), &join(&sp, "content"));
            Some(Segment::Document(super::forms::document_segment(&title, "text/plain", text.len() as u64, &text)))
        }
        other => {
            b.not_represented(&sp, &format!("a document from a `{other}` source (its content is not in the request)"));
            return None;
        }
    };
    b.extras(source, &sp, &["type", "media_type", "data", "content"]);
    seg
}

fn tool(b: &mut Builder, v: &Value, path: &str) {
    let Some(t) = b.object(v, path, "a tool") else { return };
    if let Some(ty) = b.opt_str(t, path, "type").filter(|t| *t != "custom") {
        b.not_represented(path, &format!("the server tool `{ty}`"));
        return;
    }
    let name = b.req_str(t, path, "name");
    let description = b.opt_str(t, path, "description").unwrap_or("");
    let schema = b.req(t, path, "input_schema", Want::Object).cloned();
    b.extras(t, path, &["type", "name", "description", "input_schema"]);
    if let Some(name) = name {
        b.tool(&join(path, "name"), name, description, schema);
    }
}
