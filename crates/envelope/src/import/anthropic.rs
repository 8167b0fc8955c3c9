//! Anthropic Messages request → envelope, losslessly (docs/EXTENSIONS.md):
//! `export::replay::anthropic` gives the same request back.
//!
//! - `system` (a string, or blocks) → a first `system` message; a string
//!   through the text forms, blocks each as their own segments
//!   (`contentParts`).
//! - A message's `content` string → its text through the forms; an array of
//!   blocks (`contentParts`): `text` blocks → text segments (a block with a
//!   `cache_control` or other fields is one segment carrying them);
//!   `image` blocks with a `url` or `base64` source → `media` images;
//!   `document` blocks → `document` (base64 data, URL, file id or text kept;
//!   `title`, `context`, `citations` verbatim); `tool_result` blocks →
//!   `tool_call_result`s in a `tool` message (paired by `tool_use_id`;
//!   `is_error: true` → `success: false`; block content kept as `content`,
//!   its text joined as `result`); `tool_use` → `tool_call_request`;
//!   `thinking` / `redacted_thinking` → `reasoning` (signature, data kept);
//!   any other block (server tools and their results, MCP, search results,
//!   …) → a `provider_block`, verbatim. A turn split into envelope messages
//!   of different roles (tool results, then text) marks the later ones
//!   `continues`.
//! - `tools`: custom tools → `tool_overview` items (schemas kept; `strict`,
//!   `defer_loading`, … verbatim); server tools kept whole.
//! - Every `cache_control` → the segment's (or tool's) `cacheControl`.
//!   Every other top-level field → `params`, verbatim.

use serde_json::{Map, Value};

use super::{join, Builder, Want};
use crate::diag::Rule;
use crate::parse::type_name;
use crate::types::{Ext, MessageExt, Reasoning, RequestFormat, Role, Segment};

const ME: RequestFormat = RequestFormat::Anthropic;

pub(crate) fn read(body: &Map<String, Value>, b: &mut Builder) {
    match body.get("system") {
        None => {}
        Some(Value::String(s)) => {
            let segs = b.string_content(s, Role::System);
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
                            segs.extend(b.block_text(t, Role::System, Builder::ext_of(o, &["type", "text"])));
                        }
                    }
                    Some(_) => segs.push(Builder::provider_block(ME, o)),
                    None => {}
                }
            }
            b.push_ext("system", Role::System, segs, MessageExt { content_parts: true, ..MessageExt::default() });
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
    let provider = Builder::rest(m, &["role", "content"]);
    let cp = join(path, "content");
    let blocks = match m.get("content") {
        None => {
            b.error(Rule::MissingField, &cp, "missing field `content` (expected a string or an array of blocks)");
            return;
        }
        Some(Value::String(s)) => {
            let segs = b.string_content(s, role);
            b.push_ext(path, role, segs, MessageExt { provider, ..MessageExt::default() });
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
    // Runs of tool results and of other blocks, in order: each run one
    // envelope message, the later ones `continues`.
    let mut runs: Vec<(Role, Vec<Segment>)> = Vec::new();
    for (j, block) in blocks.iter().enumerate() {
        let bp = format!("{cp}[{j}]");
        let Some((seg_role, seg)) = self::block(b, block, &bp, role) else { continue };
        match runs.last_mut() {
            Some((r, segs)) if *r == seg_role => segs.push(seg),
            _ => runs.push((seg_role, vec![seg])),
        }
    }
    if runs.is_empty() {
        runs.push((role, vec![]));
    }
    for (k, (r, segs)) in runs.into_iter().enumerate() {
        let ext = MessageExt {
            content_parts: true,
            continues: k > 0,
            provider: if k == 0 { provider.clone() } else { None },
            ..MessageExt::default()
        };
        b.push_ext(path, r, segs, ext);
    }
}

/// One content block: the role of the envelope message it belongs in, and its segment.
fn block(b: &mut Builder, v: &Value, path: &str, role: Role) -> Option<(Role, Segment)> {
    let o = b.object(v, path, "a content block")?;
    let ty = b.req_str(o, path, "type")?;
    let seg = match (ty, role) {
        ("text", _) => {
            let t = b.req_str(o, path, "text")?;
            let mut segs = b.block_text(t, role, Builder::ext_of(o, &["type", "text"]));
            if segs.len() == 1 {
                segs.pop()?
            } else {
                // Several forms in one block: one plain segment keeps it one block.
                let mut seg = super::forms::plain(t.to_string(), role);
                if let Some(e) = seg.ext_mut() {
                    *e = Builder::ext_of(o, &["type", "text"]);
                }
                seg
            }
        }
        ("image", Role::User) => image(b, o, path)?,
        ("document", Role::User) => document(b, o, path)?,
        ("tool_result", Role::User) => {
            let id = b.req_str(o, path, "tool_use_id");
            let is_error = b.opt(o, path, "is_error", Want::Bool).and_then(Value::as_bool);
            let (result, content) = result_content(b, o.get("content"), &join(path, "content"));
            let mut known = vec!["type", "tool_use_id"];
            if is_error == Some(true) {
                known.push("is_error");
            }
            // A `content` the result rebuilds (a string, or blocks) is not kept twice.
            if matches!(o.get("content"), Some(Value::String(s)) if !s.is_empty()) || content.is_some() {
                known.push("content");
            }
            let ext = Builder::ext_of(o, &known);
            let mut seg = b.result(&join(path, "tool_use_id"), id?, result, is_error != Some(true))?;
            if let Segment::ToolCallResult(r) = &mut seg {
                r.content = content;
                r.ext = ext;
            }
            return Some((Role::Tool, seg));
        }
        ("tool_use", Role::Assistant) => {
            let id = b.req_str(o, path, "id");
            let name = b.req_str(o, path, "name");
            let input = b.req(o, path, "input", Want::Object).and_then(Value::as_object).cloned();
            let mut seg = b.call(&join(path, "id"), id?, name?, input?);
            if let Some(e) = seg.ext_mut() {
                *e = Builder::ext_of(o, &["type", "id", "name", "input"]);
            }
            seg
        }
        ("thinking", Role::Assistant) => {
            let thinking = b.req_str(o, path, "thinking")?.to_string();
            let signature = b.opt_str(o, path, "signature").map(str::to_string);
            Segment::Reasoning(Reasoning {
                content: thinking,
                summary: None,
                signature,
                encrypted: None,
                collapsed: true,
                ext: Builder::ext_of(o, &["type", "thinking", "signature"]),
            })
        }
        ("redacted_thinking", Role::Assistant) => {
            let data = b.req_str(o, path, "data")?.to_string();
            Segment::Reasoning(Reasoning {
                content: String::new(),
                summary: None,
                signature: None,
                encrypted: Some(data),
                collapsed: true,
                ext: Builder::ext_of(o, &["type", "data"]),
            })
        }
        _ => Builder::provider_block(ME, o),
    };
    Some((role, seg))
}

/// An `image` block: a `media` image for a `url` or `base64` source that
/// rebuilds exactly; any other (a `file` source, extra fields) verbatim.
fn image(b: &mut Builder, o: &Map<String, Value>, path: &str) -> Option<Segment> {
    let sp = join(path, "source");
    let source = b.req(o, path, "source", Want::Object).and_then(Value::as_object)?;
    let ty = source.get("type").and_then(Value::as_str).unwrap_or("");
    let plain = |keys: &[&str]| source.keys().all(|k| keys.contains(&k.as_str()));
    let mut seg = match ty {
        "url" if plain(&["type", "url"]) => {
            let url = b.req_str(source, &sp, "url")?;
            b.image(&join(&sp, "url"), url)?
        }
        "base64" if plain(&["type", "media_type", "data"]) => {
            let mime = b.req_str(source, &sp, "media_type")?;
            let data = b.req_str(source, &sp, "data")?;
            let url = format!("data:{mime};base64,{data}");
            if crate::export::base64_data_url(&url) != Some((mime, data)) {
                return Some(Builder::provider_block(ME, o));
            }
            b.image(&join(&sp, "media_type"), &url)?
        }
        _ => return Some(Builder::provider_block(ME, o)),
    };
    if let Some(e) = seg.ext_mut() {
        *e = Builder::ext_of(o, &["type", "source"]);
    }
    Some(seg)
}

/// A `tool_result`'s content: its text (a string, or its text blocks joined
/// by `"\n\n"`), and the blocks themselves when it was an array.
fn result_content(b: &mut Builder, v: Option<&Value>, path: &str) -> (String, Option<Vec<Value>>) {
    match v {
        None | Some(Value::Null) => (String::new(), None),
        Some(Value::String(s)) => (s.clone(), None),
        Some(Value::Array(blocks)) => {
            let mut texts = Vec::new();
            for (k, block) in blocks.iter().enumerate() {
                let p = format!("{path}[{k}]");
                let Some(o) = b.object(block, &p, "a content block") else { continue };
                if let Some("text") = b.req_str(o, &p, "type") {
                    if let Some(t) = b.req_str(o, &p, "text") {
                        texts.push(t.to_string());
                    }
                }
            }
            (texts.join("\n\n"), Some(blocks.clone()))
        }
        Some(other) => {
            b.error(
                Rule::WrongType,
                path,
                format!("expected a string or an array of blocks, found {}", type_name(other)),
            );
            (String::new(), None)
        }
    }
}

/// A `document` block: its source's bytes, URL, file id or text kept; its
/// `title`, `context`, `citations` verbatim.
fn document(b: &mut Builder, o: &Map<String, Value>, path: &str) -> Option<Segment> {
    let sp = join(path, "source");
    let source = b.req(o, path, "source", Want::Object).and_then(Value::as_object)?;
    let title = o.get("title").and_then(Value::as_str).filter(|t| !t.is_empty()).unwrap_or("document").to_string();
    let ty = b.req_str(source, &sp, "type")?;
    let plain = |keys: &[&str]| source.keys().all(|k| keys.contains(&k.as_str()));
    let mut keep_source = false;
    let mut seg = match ty {
        "base64" if plain(&["type", "media_type", "data"]) => {
            let mime = b.req_str(source, &sp, "media_type");
            let data = b.req_str(source, &sp, "data");
            let mut seg = b.file(&join(&sp, "data"), &title, mime?, data?)?;
            if let Segment::Document(d) = &mut seg {
                d.data = Some(data?.to_string());
            }
            seg
        }
        "text" if plain(&["type", "media_type", "data"]) && source.get("media_type").is_some() => {
            let mime = b.req_str(source, &sp, "media_type")?;
            let data = b.req_str(source, &sp, "data")?;
            Segment::Document(super::forms::document_segment(&title, mime, data.len() as u64, data))
        }
        "url" if plain(&["type", "url"]) => {
            let url = b.req_str(source, &sp, "url")?;
            let mut d = super::forms::document_segment(&title, "application/pdf", 0, "");
            d.url = Some(url.to_string());
            Segment::Document(d)
        }
        "file" if plain(&["type", "file_id"]) => {
            let id = b.req_str(source, &sp, "file_id")?;
            let mut d = super::forms::document_segment(&title, "application/octet-stream", 0, "");
            d.file_id = Some(id.to_string());
            Segment::Document(d)
        }
        _ => {
            // A `content` source (or one with more fields): its text shown,
            // the source itself kept verbatim.
            keep_source = true;
            let (text, _) = match source.get("content") {
                Some(c) => result_content(b, Some(c), &join(&sp, "content")),
                None => (String::new(), None),
            };
            let mime = source.get("media_type").and_then(Value::as_str).unwrap_or("text/plain");
            Segment::Document(super::forms::document_segment(&title, mime, text.len() as u64, &text))
        }
    };
    // `type` stays in the provider fields: it marks the document as a block.
    let known: &[&str] = if keep_source { &[] } else { &["source"] };
    if let Some(e) = seg.ext_mut() {
        *e = Builder::ext_of(o, known);
    }
    Some(seg)
}

fn tool(b: &mut Builder, v: &Value, path: &str) {
    let Some(t) = b.object(v, path, "a tool") else { return };
    let custom = matches!(t.get("type"), None | Some(Value::Null)) || t.get("type") == Some(&Value::from("custom"));
    if !custom || !t.contains_key("input_schema") {
        let name = t.get("name").and_then(Value::as_str).or(t.get("type").and_then(Value::as_str)).unwrap_or("tool");
        let name = name.to_string();
        b.tool_verbatim(&name, t);
        return;
    }
    let name = b.req_str(t, path, "name");
    let description = b.opt_str(t, path, "description");
    let schema = b.req(t, path, "input_schema", Want::Object).cloned();
    let mut known = vec!["name", "input_schema"];
    if description.is_some_and(|d| !d.is_empty()) {
        known.push("description");
    }
    let ext: Ext = Builder::ext_of(t, &known);
    if let Some(name) = name {
        b.tool(&join(path, "name"), name, description.unwrap_or(""), schema);
        b.last_tool_ext(ext);
    }
}
