//! Amazon Bedrock Converse request → envelope, losslessly
//! (docs/EXTENSIONS.md): `export::replay::bedrock` gives the same request back.
//!
//! The body has no model (`modelId` is in the URL); the caller gives it
//! (`import::import_with`). A content block is an object with one key
//! naming its kind (`{"text": …}`, `{"image": …}`, `{"toolUse": …}`); a
//! block's fields the envelope does not hold are kept in its segment's
//! `provider`, verbatim.
//!
//! - `system[]` → a first `system` message: `text` blocks → text segments.
//! - `messages[]` → one message per message (`user`, `assistant`):
//!   `text` → text segments (the export's text forms split out);
//!   `image`, `video` and `audio` with `bytes` → `media` with a `data:` URL;
//!   `document` → `document` (`bytes` → its data, a `text` source → its
//!   text, any other source kept verbatim; `name` → `fileName`, `format` →
//!   `mimeType`); `toolUse` → `tool_call_request`; `toolResult` → a
//!   `tool_call_result` in a `tool` message (`status: "error"` → `success:
//!   false`; content other than one text block kept as `content`);
//!   `reasoningContent` → `reasoning` (`signature`; `redactedContent` →
//!   `encrypted`); any other block (`guardContent`, images by
//!   `s3Location`, …) → a `provider_block`, verbatim.
//! - `{"cachePoint": {…}}` after a block → that block's segment's
//!   `cacheControl` (the cachePoint's object, verbatim): a cache breakpoint
//!   after it, as Anthropic's `cache_control` is. Likewise after a `system`
//!   block and after a tool. A cachePoint with no block before it is a
//!   `provider_block` (or a tool kept whole).
//! - `toolConfig.tools[]`: `toolSpec` → a `tool_overview` item
//!   (`inputSchema.json` → schema); any other tool (`systemTool`) kept
//!   whole. The rest of `toolConfig` (`toolChoice`) stays in `params`.
//! - Every other top-level field (`inferenceConfig`,
//!   `additionalModelRequestFields` (verbatim), `guardrailConfig`,
//!   `promptVariables`, `requestMetadata`, `performanceConfig`, …) → `params`.

use serde_json::{Map, Value};

use super::{forms, join, Builder, Want};
use crate::diag::Rule;
use crate::parse::type_name;
use crate::types::{Ext, Media, MediaType, MessageExt, Reasoning, RequestFormat, Role, Segment};

const ME: RequestFormat = RequestFormat::Bedrock;

/// The `shape` flags of a Bedrock envelope (docs/EXTENSIONS.md).
pub mod shape {
    /// A `system` message that stood in `messages` (role `system`), not in
    /// the top-level `system`.
    pub const IN_MESSAGES: &str = "inMessages";
}

/// Image `format` ↔ MIME type.
pub(crate) const IMAGE_FORMATS: [(&str, &str); 4] =
    [("png", "image/png"), ("jpeg", "image/jpeg"), ("gif", "image/gif"), ("webp", "image/webp")];

/// Video `format` ↔ MIME type (one MIME type per format, so that it reads back).
pub(crate) const VIDEO_FORMATS: [(&str, &str); 9] = [
    ("mp4", "video/mp4"),
    ("mov", "video/quicktime"),
    ("mkv", "video/x-matroska"),
    ("webm", "video/webm"),
    ("flv", "video/x-flv"),
    ("mpeg", "video/mpeg"),
    ("mpg", "video/mpg"),
    ("wmv", "video/x-ms-wmv"),
    ("three_gp", "video/3gpp"),
];

/// Audio `format` ↔ MIME type (the formats with a MIME type of their own;
/// `mkv`, `mka`, `x-aac`, `mpeg`, `mpga` keep their block whole).
pub(crate) const AUDIO_FORMATS: [(&str, &str); 10] = [
    ("mp3", "audio/mpeg"),
    ("wav", "audio/wav"),
    ("opus", "audio/opus"),
    ("aac", "audio/aac"),
    ("flac", "audio/flac"),
    ("mp4", "audio/mp4"),
    ("ogg", "audio/ogg"),
    ("webm", "audio/webm"),
    ("m4a", "audio/x-m4a"),
    ("pcm", "audio/pcm"),
];

/// Document `format` ↔ MIME type.
pub(crate) const DOCUMENT_FORMATS: [(&str, &str); 9] = [
    ("pdf", "application/pdf"),
    ("csv", "text/csv"),
    ("doc", "application/msword"),
    ("docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    ("xls", "application/vnd.ms-excel"),
    ("xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    ("html", "text/html"),
    ("txt", "text/plain"),
    ("md", "text/markdown"),
];

pub(crate) fn mime_of(table: &[(&'static str, &'static str)], format: &str) -> Option<&'static str> {
    table.iter().find(|(f, _)| *f == format).map(|(_, m)| *m)
}

pub(crate) fn format_of(table: &[(&'static str, &'static str)], mime: &str) -> Option<&'static str> {
    table.iter().find(|(_, m)| *m == mime).map(|(f, _)| *f)
}

/// The cachePoint of a block: `{"cachePoint": {…}}` alone.
pub(crate) fn cache_point(v: Option<&Value>) -> Option<&Value> {
    let o = v?.as_object()?;
    match (o.len(), o.get("cachePoint")) {
        (1, Some(c @ Value::Object(_))) => Some(c),
        _ => None,
    }
}

/// Reads the body into `b`; returns the settings (`params`).
pub(crate) fn read(body: &Map<String, Value>, b: &mut Builder) -> Map<String, Value> {
    match body.get("system") {
        None => {}
        Some(Value::Array(blocks)) => {
            let segs = blocks_of(b, blocks, "system", Role::System, true);
            let segs = segs.into_iter().flat_map(|(_, s)| s).collect();
            b.push_ext("system", Role::System, segs, MessageExt { content_parts: true, ..MessageExt::default() });
        }
        Some(other) => b.error(
            Rule::WrongType,
            "system",
            format!("expected an array of system blocks, found {}", type_name(other)),
        ),
    }
    // `messages` may be absent (a managed prompt's request). A body without
    // it that has another format's own fields (`contents`, `input`, …) is
    // that format's, not a prompt's: an error, rather than a silent misread.
    if !body.contains_key("messages") {
        use crate::export::params::Provider;
        let theirs = body.keys().find(|k| {
            let k = k.as_str();
            let bedrock = Provider::Bedrock.known().contains(&k) || Provider::Bedrock.reserved().contains(&k);
            !bedrock && Provider::ALL.iter().any(|p| p.known().contains(&k) || p.reserved().contains(&k))
        });
        if let Some(k) = theirs {
            b.error(
                Rule::MissingField,
                "messages",
                format!("missing field `messages` (expected an array of messages; `{k}` is another format's field)"),
            );
        }
    }
    let messages = b.opt(body, "", "messages", Want::Array).and_then(Value::as_array).filter(|m| !m.is_empty());
    for (i, m) in messages.into_iter().flatten().enumerate() {
        message(b, m, &format!("messages[{i}]"));
    }
    let mut params: Map<String, Value> = Map::new();
    for (k, v) in body {
        match k.as_str() {
            "messages" if messages.is_some() => {}
            "system" => {}
            "toolConfig" => {
                if let Some(rest) = tool_config(b, v) {
                    params.insert(k.clone(), rest);
                }
            }
            _ => {
                params.insert(k.clone(), v.clone());
            }
        }
    }
    params
}

/// `toolConfig`: its tools read; the rest of it (`toolChoice`) as a setting
/// (`None` when nothing is left). With no tools it stays whole.
fn tool_config(b: &mut Builder, v: &Value) -> Option<Value> {
    let Value::Object(tc) = v else {
        b.error(Rule::WrongType, "toolConfig", format!("expected an object, found {}", type_name(v)));
        return None;
    };
    let tools = match tc.get("tools") {
        Some(Value::Array(list)) if !list.is_empty() => list,
        None | Some(Value::Array(_)) => return Some(v.clone()),
        Some(other) => {
            b.error(
                Rule::WrongType,
                "toolConfig.tools",
                format!("expected an array of tools, found {}", type_name(other)),
            );
            return None;
        }
    };
    for (i, t) in tools.iter().enumerate() {
        tool(b, t, &format!("toolConfig.tools[{i}]"), i > 0 && cache_point(Some(t)).is_some());
    }
    let rest = Builder::others(tc, &["tools"])?;
    Some(Value::Object(rest))
}

fn tool(b: &mut Builder, v: &Value, path: &str, after_tool: bool) {
    let Some(t) = b.object(v, path, "a tool") else { return };
    if let Some(c) = cache_point(Some(v)).filter(|_| after_tool) {
        if let Some(last) = b.last_tool_mut().filter(|l| l.ext.cache_control.is_none()) {
            last.ext.cache_control = Some(c.clone());
            return;
        }
    }
    let spec = match (t.len(), t.get("toolSpec")) {
        (1, Some(Value::Object(spec))) if spec.get("name").is_some_and(Value::is_string) => spec,
        _ => {
            let key = t.keys().next().cloned().unwrap_or_else(|| "tool".into());
            let inner_name = t.get(&key).and_then(|x| x.get("name")).and_then(Value::as_str);
            let name = match inner_name {
                Some(n) if t.len() == 1 => n.to_string(),
                _ => key,
            };
            b.tool_whole(&name, t);
            return;
        }
    };
    let sp = join(path, "toolSpec");
    let Some(name) = b.req_str(spec, &sp, "name") else { return };
    let description = spec.get("description").and_then(Value::as_str);
    let mut known = vec!["name"];
    if description.is_some_and(|d| !d.is_empty()) {
        known.push("description");
    }
    let schema = match spec.get("inputSchema") {
        Some(Value::Object(is)) if is.len() == 1 && is.get("json").is_some_and(Value::is_object) => {
            known.push("inputSchema");
            is.get("json").cloned()
        }
        _ => None,
    };
    b.tool(&join(&sp, "name"), name, description.unwrap_or(""), schema);
    b.last_tool_ext(Ext { provider: Builder::others(spec, &known), ..Ext::default() });
}

fn message(b: &mut Builder, v: &Value, path: &str) {
    let Some(m) = b.object(v, path, "a message") else { return };
    let mut flags = Vec::new();
    let role = match b.req_str(m, path, "role") {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("system") => {
            flags.push(shape::IN_MESSAGES.to_string());
            Role::System
        }
        Some(other) => {
            b.error(
                Rule::ImportUnknownRole,
                join(path, "role"),
                format!("unknown role `{other}` (Bedrock Converse has user and assistant; system is top-level)"),
            );
            return;
        }
        None => return,
    };
    let cp = join(path, "content");
    let blocks = match m.get("content") {
        Some(Value::Array(blocks)) => blocks,
        None => {
            b.error(Rule::MissingField, &cp, "missing field `content` (expected an array of content blocks)");
            return;
        }
        Some(other) => {
            b.error(Rule::WrongType, &cp, format!("expected an array of content blocks, found {}", type_name(other)));
            return;
        }
    };
    let mut runs: Vec<(Role, Vec<Segment>)> = Vec::new();
    for (r, segs) in blocks_of(b, blocks, &cp, role, false) {
        match runs.last_mut() {
            Some((last, list)) if *last == r => list.extend(segs),
            _ => runs.push((r, segs)),
        }
    }
    if runs.is_empty() {
        runs.push((role, vec![]));
    }
    let provider = Builder::others(m, &["role", "content"]);
    for (k, (r, segs)) in runs.into_iter().enumerate() {
        let ext = if k == 0 {
            MessageExt {
                content_parts: true,
                provider: provider.clone(),
                shape: std::mem::take(&mut flags),
                ..MessageExt::default()
            }
        } else {
            MessageExt { content_parts: true, continues: true, ..MessageExt::default() }
        };
        b.push_ext(path, r, segs, ext);
    }
}

/// The segments of a list of blocks, each with the role of the envelope
/// message it belongs in; a cachePoint after a block goes on its segment.
fn blocks_of(b: &mut Builder, blocks: &[Value], path: &str, role: Role, system: bool) -> Vec<(Role, Vec<Segment>)> {
    let mut out: Vec<(Role, Vec<Segment>)> = Vec::new();
    let mut j = 0;
    while j < blocks.len() {
        let bp = format!("{path}[{j}]");
        let cache = if cache_point(Some(&blocks[j])).is_some() { None } else { cache_point(blocks.get(j + 1)) };
        let read = block(b, &blocks[j], &bp, role, system, cache.is_some());
        j += 1;
        let Some((r, mut segs)) = read else { continue };
        if let Some(c) = cache {
            if let Some(e) = segs.last_mut().and_then(Segment::ext_mut).filter(|e| e.cache_control.is_none()) {
                e.cache_control = Some(c.clone());
                j += 1;
            }
        }
        out.push((r, segs));
    }
    out
}

/// One block: the role of the envelope message it belongs in, and its
/// segments. `cached`: a cachePoint follows (a text is then one segment).
fn block(
    b: &mut Builder,
    v: &Value,
    path: &str,
    role: Role,
    system: bool,
    cached: bool,
) -> Option<(Role, Vec<Segment>)> {
    let o = b.object(v, path, "a content block")?;
    let whole = |o: &Map<String, Value>| Some((role, vec![Builder::block_whole(ME, o)]));
    let [(key, inner)] = o.iter().collect::<Vec<_>>()[..] else { return whole(o) };
    let ip = join(path, key);
    let seg = match (key.as_str(), inner) {
        ("text", Value::String(t)) => {
            if cached {
                return Some((role, vec![forms::plain(t.clone(), role)]));
            }
            let mut segs = b.block_text(t, role, Ext::default());
            super::mark_text_forms(&mut segs);
            return Some((role, segs));
        }
        ("text", other) => {
            b.error(Rule::WrongType, ip, format!("expected a string, found {}", type_name(other)));
            return None;
        }
        _ if system => return whole(o),
        ("image", Value::Object(i)) => match media(i, &IMAGE_FORMATS, MediaType::Image) {
            Some(seg) => seg,
            None => return whole(o),
        },
        ("video", Value::Object(i)) => match media(i, &VIDEO_FORMATS, MediaType::Video) {
            Some(seg) => seg,
            None => return whole(o),
        },
        ("audio", Value::Object(i)) => match media(i, &AUDIO_FORMATS, MediaType::Audio) {
            Some(seg) => seg,
            None => return whole(o),
        },
        ("document", Value::Object(d)) => match document(b, d, &ip) {
            Some(Some(seg)) => seg,
            Some(None) => return None,
            None => return whole(o),
        },
        ("toolUse", Value::Object(u)) if role == Role::Assistant => {
            let (Some(Value::String(id)), Some(Value::String(name)), Some(Value::Object(input))) =
                (u.get("toolUseId"), u.get("name"), u.get("input"))
            else {
                return whole(o);
            };
            if b.has_call(id) {
                return whole(o);
            }
            let mut seg = b.call(&join(&ip, "toolUseId"), id, name, input.clone());
            if let Some(e) = seg.ext_mut() {
                e.provider = Builder::others(u, &["toolUseId", "name", "input"]);
            }
            seg
        }
        ("toolResult", Value::Object(r)) if role == Role::User => {
            let Some(Value::String(id)) = r.get("toolUseId") else { return whole(o) };
            let error = r.get("status") == Some(&Value::from("error"));
            let (result, content) = match r.get("content") {
                Some(Value::Array(blocks)) => result_text(blocks),
                _ => return whole(o),
            };
            let mut known = vec!["toolUseId", "content"];
            if error {
                known.push("status");
            }
            let mut seg = b.result(&join(&ip, "toolUseId"), id, result, !error)?;
            if let Segment::ToolCallResult(res) = &mut seg {
                res.content = content;
                res.ext.provider = Builder::others(r, &known);
            }
            return Some((Role::Tool, vec![seg]));
        }
        ("reasoningContent", Value::Object(rc)) => match reasoning(rc) {
            Some(seg) => seg,
            None => return whole(o),
        },
        _ => return whole(o),
    };
    Some((role, vec![seg]))
}

/// An image or video with `bytes`: a `media` with a `data:` URL (`None`:
/// keep the block whole).
fn media(i: &Map<String, Value>, table: &[(&'static str, &'static str)], media_type: MediaType) -> Option<Segment> {
    let mime = mime_of(table, i.get("format")?.as_str()?)?;
    let source = i.get("source")?.as_object()?;
    let [(k, Value::String(bytes))] = source.iter().collect::<Vec<_>>()[..] else { return None };
    if k != "bytes" {
        return None;
    }
    let url = format!("data:{mime};base64,{bytes}");
    if crate::export::base64_data_url(&url) != Some((mime, bytes.as_str())) {
        return None;
    }
    let ext = Ext { provider: Builder::others(i, &["format", "source"]), ..Ext::default() };
    Some(Segment::Media(Media { media_type, url, alt_text: None, ext }))
}

/// `Some(Some(seg))`: a document; `Some(None)`: an error was reported;
/// `None`: keep the block whole.
fn document(b: &mut Builder, d: &Map<String, Value>, path: &str) -> Option<Option<Segment>> {
    let Some(Value::String(name)) = d.get("name") else { return None };
    let format = d.get("format").and_then(Value::as_str);
    let mime = format.and_then(|f| mime_of(&DOCUMENT_FORMATS, f));
    let mut known = vec!["name"];
    if mime.is_some() {
        known.push("format");
    }
    let mime = mime.unwrap_or("application/octet-stream");
    let source = d.get("source").and_then(Value::as_object);
    let one = |key: &str| -> Option<&str> {
        let s = source?;
        match s.iter().collect::<Vec<_>>()[..] {
            [(k, Value::String(v))] if k == key => Some(v),
            _ => None,
        }
    };
    let mut doc = if let Some(bytes) = one("bytes") {
        let decoded = match super::decode_base64(bytes) {
            Ok(x) if super::gemini::alphabet(bytes) == Some(false) => x,
            Ok(_) => return None,
            Err(e) => {
                b.error(
                    Rule::ImportBase64,
                    join(path, "source.bytes"),
                    format!("the base64 data does not decode: {e}"),
                );
                return Some(None);
            }
        };
        let text = if super::textual(mime) { String::from_utf8(decoded.clone()).ok() } else { None };
        let mut doc = forms::document_segment(name, mime, decoded.len() as u64, text.as_deref().unwrap_or(""));
        doc.data = Some(bytes.to_string());
        known.push("source");
        doc
    } else if let Some(text) = one("text") {
        known.push("source");
        forms::document_segment(name, mime, text.len() as u64, text)
    } else {
        // Another source (`content` blocks, `s3Location`): kept verbatim,
        // its text shown.
        let text = source
            .and_then(|s| s.get("content"))
            .and_then(Value::as_array)
            .map(|blocks| result_text(blocks).0)
            .unwrap_or_default();
        forms::document_segment(name, mime, text.len() as u64, &text)
    };
    doc.ext = Ext { provider: Builder::others(d, &known), ..Ext::default() };
    Some(Some(Segment::Document(doc)))
}

/// A result's text (its `text` blocks, and its `json` blocks as JSON,
/// joined by `"\n\n"`) and its blocks, unless they are one plain text block.
fn result_text(blocks: &[Value]) -> (String, Option<Vec<Value>>) {
    let mut texts = Vec::new();
    for bl in blocks {
        match (bl.get("text"), bl.get("json")) {
            (Some(Value::String(t)), _) => texts.push(t.clone()),
            (_, Some(j)) => texts.push(j.to_string()),
            _ => {}
        }
    }
    let text = texts.join("\n\n");
    let plain =
        matches!(blocks, [Value::Object(o)] if o.len() == 1 && o.get("text") == Some(&Value::String(text.clone())));
    (text, (!plain).then(|| blocks.to_vec()))
}

fn reasoning(rc: &Map<String, Value>) -> Option<Segment> {
    let [(key, inner)] = rc.iter().collect::<Vec<_>>()[..] else { return None };
    let (content, signature, encrypted, provider) = match (key.as_str(), inner) {
        ("reasoningText", Value::Object(rt)) => {
            let Some(Value::String(text)) = rt.get("text") else { return None };
            let signature = match rt.get("signature") {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => return None,
            };
            (text.clone(), signature, None, Builder::others(rt, &["text", "signature"]))
        }
        ("redactedContent", Value::String(data)) => (String::new(), None, Some(data.clone()), None),
        _ => return None,
    };
    Some(Segment::Reasoning(Reasoning {
        content,
        summary: None,
        signature,
        encrypted,
        collapsed: true,
        ext: Ext { provider, ..Ext::default() },
    }))
}
