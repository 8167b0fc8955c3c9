//! An envelope imported from an OpenAI Responses request, as that request
//! (`import::openai_responses` is the other half).

use serde_json::{Map, Value};

use super::openai_chat::arguments;
use super::{finish, head, is_block_document, obj, overlay, own_block, text_of, with_ext, Ctx, Parts};
use crate::diag::Notice;
use crate::types::*;

const ME: RequestFormat = RequestFormat::Responses;

/// The part types a message item's content holds (the rest are items).
const PART_TYPES: [&str; 6] = ["input_text", "output_text", "refusal", "input_image", "input_file", "input_audio"];

pub fn request(envelope: &Envelope, notices: &mut Vec<Notice>) -> Value {
    let mut cx = Ctx::new(envelope);
    let mut body = head(envelope);
    let mut instructions: Vec<String> = Vec::new();
    let mut string_input: Option<String> = None;
    let mut input: Vec<Value> = Vec::new();
    for (mi, m) in envelope.messages.iter().enumerate() {
        match m.ext.provider_role.as_deref() {
            Some("instructions") => {
                instructions.extend(m.segments.iter().filter_map(|s| text_of(s, m.role, &cx.vars)));
                continue;
            }
            Some("input") if !m.ext.content_parts => {
                let texts: Vec<String> = m.segments.iter().filter_map(|s| text_of(s, m.role, &cx.vars)).collect();
                string_input = Some(texts.join("\n\n"));
                continue;
            }
            _ if super::holder(m) && !m.segments.is_empty() => continue,
            _ => {}
        }
        items(&mut cx, mi, m, &mut input);
    }
    if !instructions.is_empty() {
        body.insert("instructions".into(), instructions.join("\n\n").into());
    }
    match string_input {
        Some(s) if input.is_empty() => {
            body.insert("input".into(), s.into());
        }
        Some(s) => {
            input.insert(0, Value::Object(obj([("role", "user".into()), ("content", s.into())])));
            body.insert("input".into(), input.into());
        }
        // An empty `input` is left out: a request that continues a stored
        // response or uses a stored prompt may send none.
        // (An empty `input` the request had is a kept setting: it stands
        // after `instructions`, as the export writes it.)
        None if input.is_empty() => {
            if let Some(kept) = body.shift_remove("input") {
                body.insert("input".into(), kept);
            }
        }
        None => {
            body.insert("input".into(), input.into());
        }
    }
    finish(body, &mut cx, tool, notices)
}

fn tool(t: &ToolItem) -> Value {
    if t.is_server() {
        return with_ext(Map::new(), &t.ext);
    }
    let mut o = obj([("type", "function".into()), ("name", t.name.clone().into())]);
    if !t.description.is_empty() {
        o.insert("description".into(), t.description.clone().into());
    }
    if let Some(s) = &t.schema {
        o.insert("parameters".into(), s.clone());
    }
    with_ext(o, &t.ext)
}

/// Whether a segment is a part of a message item (not an item of its own).
fn is_part(seg: &Segment, role: Role, vars: &crate::template::Vars) -> bool {
    match seg {
        Segment::ToolCallRequest(_) | Segment::ToolCallResult(_) | Segment::Reasoning(_) => false,
        Segment::ProviderBlock(b) => PART_TYPES.contains(&b.block_type()),
        s => text_of(s, role, vars).is_some() || matches!(s, Segment::Media(_) | Segment::Document(_)),
    }
}

fn items(cx: &mut Ctx, mi: usize, m: &Message, out: &mut Vec<Value>) {
    if m.role == Role::Tool {
        for (sj, seg) in m.segments.iter().enumerate() {
            let Segment::ToolCallResult(r) = seg else { continue };
            let output = match &r.content {
                Some(parts) => Value::Array(parts.clone()),
                None => r.result.clone().into(),
            };
            let o = obj([
                ("type", "function_call_output".into()),
                ("call_id", cx.result_id(mi, sj).into()),
                ("output", output),
            ]);
            out.push(with_ext(o, &r.ext));
        }
        return;
    }
    // The message item: every segment of a user or system message; for an
    // assistant message, the parts it begins with, when it began as one.
    let has_item = m.role != Role::Assistant
        || m.ext.content_parts
        || m.ext.provider.is_some()
        || m.segments.first().is_some_and(|s| is_part(s, m.role, &cx.vars));
    let mut start = 0;
    if has_item {
        let end = if m.role == Role::Assistant {
            m.segments.iter().position(|s| !is_part(s, m.role, &cx.vars)).unwrap_or(m.segments.len())
        } else {
            m.segments.len()
        };
        out.push(message_item(cx, mi, m, &m.segments[..end]));
        start = end;
    }
    for (sj, seg) in m.segments.iter().enumerate().skip(start) {
        let item = match seg {
            Segment::ToolCallRequest(r) => {
                let written = r.ext.provider.as_ref().and_then(|b| b.get("arguments"));
                let o = obj([
                    ("type", "function_call".into()),
                    ("call_id", cx.call_id().into()),
                    ("name", r.tool_name.clone().into()),
                    ("arguments", arguments(r, written).into()),
                ]);
                with_ext(o, &r.ext)
            }
            Segment::Reasoning(r) => {
                let mut o = obj([("type", "reasoning".into())]);
                if let Some(s) = &r.summary {
                    let parts: Vec<Value> = s
                        .iter()
                        .map(|t| Value::Object(obj([("type", "summary_text".into()), ("text", t.clone().into())])))
                        .collect();
                    o.insert("summary".into(), parts.into());
                }
                if !r.content.is_empty() {
                    let part = obj([("type", "reasoning_text".into()), ("text", r.content.clone().into())]);
                    o.insert("content".into(), vec![Value::Object(part)].into());
                }
                if let Some(e) = &r.encrypted {
                    o.insert("encrypted_content".into(), e.clone().into());
                }
                with_ext(o, &r.ext)
            }
            Segment::ProviderBlock(b) => match own_block(cx, mi, sj, b, ME) {
                Some(v) => v,
                None => continue,
            },
            _ => continue,
        };
        out.push(item);
    }
}

fn message_item(cx: &mut Ctx, mi: usize, m: &Message, segs: &[Segment]) -> Value {
    let text_type = if m.role == Role::Assistant { "output_text" } else { "input_text" };
    let role = match m.role {
        Role::System => m.ext.provider_role.clone().filter(|r| r == "developer").unwrap_or_else(|| "system".into()),
        r => r.as_str().to_string(),
    };
    let mut content = Parts::new(text_type, m.ext.content_parts);
    for (sj, seg) in segs.iter().enumerate() {
        if content.text(seg, m.role, &cx.vars) {
            continue;
        }
        let part = match seg {
            Segment::Media(md) => {
                with_ext(obj([("type", "input_image".into()), ("image_url", md.url.clone().into())]), &md.ext)
            }
            Segment::Document(d) if is_block_document(d) => match d.ext.provider.clone() {
                Some(part) => Value::Object(part),
                None => {
                    let mut o = obj([("type", "input_file".into())]);
                    if let Some(id) = &d.file_id {
                        o.insert("file_id".into(), id.clone().into());
                    } else if let Some(url) = &d.url {
                        o.insert("file_url".into(), url.clone().into());
                    } else if let Some(data) = &d.data {
                        o.insert("filename".into(), d.file_name.clone().into());
                        o.insert("file_data".into(), format!("data:{};base64,{data}", d.mime_type).into());
                    }
                    Value::Object(o)
                }
            },
            Segment::ProviderBlock(b) => match own_block(cx, mi, sj, b, ME) {
                Some(v) => v,
                None => continue,
            },
            _ => continue,
        };
        content.push(part);
    }
    let content: Value = if content.as_parts { content.parts.into() } else { content.texts.join("\n\n").into() };
    let o = obj([("role", role.into()), ("content", content)]);
    Value::Object(overlay(o, m.ext.provider.as_ref()))
}
