//! An envelope imported from an Amazon Bedrock Converse request, as that
//! request (`import::bedrock` is the other half). The body never names the
//! model (Bedrock takes `modelId` in the URL). A segment's `cacheControl`
//! is written back as a `{"cachePoint": …}` block right after it.

use serde_json::{json, Map, Value};

use super::{groups, holder, obj, overlay, tools, Ctx};
use crate::diag::Notice;
use crate::export::base64_data_url;
use crate::import::bedrock::{format_of, shape, AUDIO_FORMATS, DOCUMENT_FORMATS, IMAGE_FORMATS, VIDEO_FORMATS};
use crate::import::TEXT_FORM;
use crate::types::*;

const ME: RequestFormat = RequestFormat::Bedrock;

pub fn request(envelope: &Envelope, notices: &mut Vec<Notice>) -> Value {
    let mut cx = Ctx::new(envelope);
    let mut body = envelope.params.clone().unwrap_or_default();
    let mut system: Option<Vec<Value>> = None;
    let mut messages = Vec::new();
    for group in groups(envelope) {
        let first = &envelope.messages[group[0]];
        if holder(first) {
            continue;
        }
        let content = blocks(&mut cx, &group);
        if first.role == Role::System && !first.ext.has_shape(shape::IN_MESSAGES) {
            system.get_or_insert_with(Vec::new).extend(content);
            continue;
        }
        let role = match first.role {
            Role::Assistant => "assistant",
            Role::System => "system",
            Role::User | Role::Tool => "user",
        };
        if first.ext.name.is_some() {
            cx.notices.push(Notice::new(
                format!("messages[{}].name", group[0]),
                "Bedrock Converse has no message name; left out",
            ));
        }
        let m = obj([("role", role.into()), ("content", content.into())]);
        messages.push(Value::Object(overlay(m, first.ext.provider.as_ref())));
    }
    if let Some(s) = system {
        body.insert("system".into(), s.into());
    }
    // No messages: none were sent (a managed prompt's request), or an empty
    // array, kept in `params`.
    if !messages.is_empty() {
        body.insert("messages".into(), messages.into());
    }
    let declared = tool_list(&mut cx);
    if !declared.is_empty() {
        // Into the kept `toolConfig` (`toolChoice`), where it stands.
        match body.get_mut("toolConfig") {
            Some(Value::Object(config)) => {
                config.insert("tools".into(), declared.into());
            }
            other => {
                if let Some(v) = other {
                    let found = crate::parse::type_name(v);
                    cx.notices.push(Notice::new(
                        "params.toolConfig",
                        format!("`toolConfig` is {found}, not an object; the tools are sent in a new one"),
                    ));
                }
                body.insert("toolConfig".into(), json!({ "tools": declared }));
            }
        }
    }
    notices.append(&mut cx.notices);
    Value::Object(body)
}

/// `{key: inner}` with the segment's kept fields in `inner`.
fn wrap(key: &str, inner: Map<String, Value>, ext: &Ext) -> Value {
    json!({ key: Value::Object(overlay(inner, ext.provider.as_ref())) })
}

/// A segment sent as text: its text (template variables applied).
fn text_of(seg: &Segment, cx: &Ctx) -> Option<String> {
    match seg {
        Segment::Text(t) => Some(cx.vars.apply(&t.content)),
        Segment::SystemPrompt(t) => Some(cx.vars.apply(&t.content)),
        Segment::LongText(t) => Some(cx.vars.apply(&t.content)),
        Segment::Memory(_) | Segment::Skills(_) => Some(crate::export::segment_text(seg, &cx.vars).unwrap_or_default()),
        Segment::Media(m) if m.ext.has_shape(TEXT_FORM) => crate::export::segment_text(seg, &cx.vars),
        Segment::Document(d) if d.ext.has_shape(TEXT_FORM) => crate::export::segment_text(seg, &cx.vars),
        _ => None,
    }
}

/// The content blocks of one message (a group of envelope messages).
fn blocks(cx: &mut Ctx, group: &[usize]) -> Vec<Value> {
    let envelope = cx.envelope;
    let mut out: Vec<Value> = Vec::new();
    let mut open_text = false;
    for &mi in group {
        let m = &envelope.messages[mi];
        for (sj, seg) in m.segments.iter().enumerate() {
            let at = format!("messages[{mi}].segments[{sj}]");
            let ext = seg.ext().cloned().unwrap_or_default();
            if let Some(text) = text_of(seg, cx) {
                match out.last_mut() {
                    Some(Value::Object(last)) if ext.join_previous && open_text => {
                        if let Some(Value::String(t)) = last.get_mut("text") {
                            t.push_str("\n\n");
                            t.push_str(&text);
                        }
                    }
                    _ => out.push(json!({ "text": text })),
                }
                open_text = ext.cache_control.is_none();
                if let Some(c) = &ext.cache_control {
                    out.push(json!({ "cachePoint": c }));
                }
                continue;
            }
            open_text = false;
            let block = match seg {
                Segment::Media(md) => match media(md, &ext) {
                    Some(b) => b,
                    None => {
                        cx.notices.push(Notice::new(
                            format!("{at}.url"),
                            "Bedrock Converse takes images and videos as bytes (PNG, JPEG, GIF, WebP; MP4, MOV, …); this one is sent as text",
                        ));
                        json!({ "text": crate::export::segment_text(seg, &cx.vars).unwrap_or_default() })
                    }
                },
                Segment::Document(d) => document(d, &ext),
                Segment::ToolCallRequest(r) => {
                    let id = cx.call_id();
                    let inner = obj([
                        ("toolUseId", id.into()),
                        ("name", r.tool_name.clone().into()),
                        ("input", Value::Object(r.arguments.clone())),
                    ]);
                    wrap("toolUse", inner, &ext)
                }
                Segment::ToolCallResult(r) => {
                    let content = match &r.content {
                        Some(blocks) => Value::Array(blocks.clone()),
                        None => json!([{ "text": r.result }]),
                    };
                    let mut inner = obj([("toolUseId", cx.result_id(mi, sj).into()), ("content", content)]);
                    if !r.success {
                        inner.insert("status".into(), "error".into());
                    }
                    wrap("toolResult", inner, &ext)
                }
                Segment::Reasoning(r) => {
                    if r.summary.is_some() {
                        cx.notices.push(Notice::new(at.clone(), "Bedrock Converse has no reasoning summary; left out"));
                    }
                    match (&r.encrypted, &r.signature) {
                        (Some(data), None) if r.content.is_empty() => {
                            json!({ "reasoningContent": { "redactedContent": data } })
                        }
                        _ => {
                            let mut rt = obj([("text", r.content.clone().into())]);
                            if let Some(s) = &r.signature {
                                rt.insert("signature".into(), s.clone().into());
                            }
                            json!({ "reasoningContent": { "reasoningText": Value::Object(overlay(rt, ext.provider.as_ref())) } })
                        }
                    }
                }
                Segment::ProviderBlock(b) if b.format == ME => Value::Object(b.block.clone()),
                Segment::ProviderBlock(b) => {
                    cx.foreign(mi, sj, b, ME);
                    continue;
                }
                _ => continue,
            };
            out.push(block);
            if let Some(c) = &ext.cache_control {
                out.push(json!({ "cachePoint": c }));
            }
        }
    }
    out
}

/// An image or video with its bytes (`None`: not a `data:` URL of a type Bedrock takes).
fn media(md: &Media, ext: &Ext) -> Option<Value> {
    let (mime, data) = base64_data_url(&md.url)?;
    let (key, format) = match md.media_type {
        MediaType::Image => ("image", format_of(&IMAGE_FORMATS, mime)?),
        MediaType::Video => ("video", format_of(&VIDEO_FORMATS, mime)?),
        MediaType::Audio => ("audio", format_of(&AUDIO_FORMATS, mime)?),
    };
    let inner = obj([("format", format.into()), ("source", json!({ "bytes": data }))]);
    Some(wrap(key, inner, ext))
}

/// A document block: its source kept verbatim, or its bytes, or its text.
fn document(d: &Document, ext: &Ext) -> Value {
    let mut inner = Map::new();
    if let Some(f) = format_of(&DOCUMENT_FORMATS, &d.mime_type) {
        inner.insert("format".into(), f.into());
    }
    inner.insert("name".into(), d.file_name.clone().into());
    let kept = ext.provider.as_ref().is_some_and(|p| p.contains_key("source"));
    if !kept {
        let source = match &d.data {
            Some(data) => json!({ "bytes": data }),
            None => json!({ "text": d.model_text() }),
        };
        inner.insert("source".into(), source);
    }
    wrap("document", inner, ext)
}

/// `toolConfig.tools`: each tool (`toolSpec`, or kept whole), and a
/// `cachePoint` after a tool with a cache breakpoint.
fn tool_list(cx: &mut Ctx) -> Vec<Value> {
    let mut out = Vec::new();
    for t in tools(cx.envelope) {
        if t.is_server() {
            out.push(Value::Object(t.ext.provider.clone().unwrap_or_default()));
        } else {
            let mut spec = obj([("name", t.name.clone().into())]);
            if !t.description.is_empty() {
                spec.insert("description".into(), t.description.clone().into());
            }
            if let Some(s) = &t.schema {
                spec.insert("inputSchema".into(), json!({ "json": s }));
            }
            out.push(json!({ "toolSpec": Value::Object(overlay(spec, t.ext.provider.as_ref())) }));
        }
        if let Some(c) = &t.ext.cache_control {
            out.push(json!({ "cachePoint": c }));
        }
    }
    out
}
