//! An envelope imported from an OpenAI Chat Completions request, as that
//! request (`import::openai_chat` is the other half).

use serde_json::{Map, Value};

use super::{finish, head, is_block_document, obj, overlay, own_block, with_ext, Ctx, Parts};
use crate::diag::Notice;
use crate::types::*;

const ME: RequestFormat = RequestFormat::Openai;

pub fn request(envelope: &Envelope, notices: &mut Vec<Notice>) -> Value {
    let mut cx = Ctx::new(envelope);
    let mut body = head(envelope);
    let mut messages = Vec::new();
    for (mi, m) in envelope.messages.iter().enumerate() {
        if super::holder(m) && !m.segments.is_empty() {
            continue;
        }
        message(&mut cx, mi, m, &mut messages);
    }
    body.insert("messages".into(), messages.into());
    finish(body, &mut cx, tool, notices)
}

fn tool(t: &ToolItem) -> Value {
    if t.is_server() {
        return with_ext(Map::new(), &t.ext);
    }
    let bag = t.ext.provider.as_ref();
    let mut f = obj([("name", t.name.clone().into())]);
    if !t.description.is_empty() {
        f.insert("description".into(), t.description.clone().into());
    }
    if let Some(s) = &t.schema {
        f.insert("parameters".into(), s.clone());
    }
    let f = overlay(f, bag.and_then(|b| b.get("function")).and_then(Value::as_object));
    overlay(obj([("type", "function".into()), ("function", Value::Object(f))]), bag).into()
}

/// The arguments string: as written when it still reads as the arguments.
pub(crate) fn arguments(r: &ToolCallRequest, written: Option<&Value>) -> String {
    match written.and_then(Value::as_str) {
        Some(w) if serde_json::from_str::<Value>(w).ok().as_ref().and_then(Value::as_object) == Some(&r.arguments) => {
            w.to_string()
        }
        _ => Value::Object(r.arguments.clone()).to_string(),
    }
}

fn message(cx: &mut Ctx, mi: usize, m: &Message, out: &mut Vec<Value>) {
    if m.role == Role::Tool {
        for (sj, seg) in m.segments.iter().enumerate() {
            let Segment::ToolCallResult(r) = seg else { continue };
            let content = match &r.content {
                Some(parts) => Value::Array(parts.clone()),
                None => r.result.clone().into(),
            };
            let o = obj([("role", "tool".into()), ("tool_call_id", cx.result_id(mi, sj).into()), ("content", content)]);
            out.push(with_ext(o, &r.ext));
        }
        return;
    }
    if let (Some(role), [Segment::ProviderBlock(b)]) = (&m.ext.provider_role, m.segments.as_slice()) {
        if role != "developer" && b.format == ME {
            out.push(Value::Object(b.block.clone()));
            return;
        }
    }
    let role = match m.role {
        Role::System => m.ext.provider_role.clone().unwrap_or_else(|| "system".into()),
        r => r.as_str().to_string(),
    };
    let mut content = Parts::new("text", m.ext.content_parts);
    let mut calls: Vec<Value> = Vec::new();
    for (sj, seg) in m.segments.iter().enumerate() {
        if content.text(seg, m.role, &cx.vars) {
            continue;
        }
        let part = match seg {
            Segment::Media(md) => {
                let bag = md.ext.provider.as_ref();
                let image = bag
                    .and_then(|b| b.get("image_url"))
                    .filter(|i| i.get("url").and_then(Value::as_str) == Some(md.url.as_str()))
                    .cloned()
                    .unwrap_or_else(|| Value::Object(obj([("url", md.url.clone().into())])));
                with_ext(obj([("type", "image_url".into()), ("image_url", image)]), &md.ext)
            }
            Segment::Document(d) if is_block_document(d) => match d.ext.provider.clone() {
                Some(part) => Value::Object(part),
                None => {
                    let mut file = Map::new();
                    if let Some(id) = &d.file_id {
                        file.insert("file_id".into(), id.clone().into());
                    } else if let Some(data) = &d.data {
                        file.insert("filename".into(), d.file_name.clone().into());
                        file.insert("file_data".into(), format!("data:{};base64,{data}", d.mime_type).into());
                    }
                    Value::Object(obj([("type", "file".into()), ("file", Value::Object(file))]))
                }
            },
            Segment::ToolCallRequest(r) => {
                let bag = r.ext.provider.as_ref();
                let written = bag.and_then(|b| b.get("function")).and_then(|f| f.get("arguments"));
                let f = obj([("name", r.tool_name.clone().into()), ("arguments", arguments(r, written).into())]);
                let f = overlay(f, bag.and_then(|b| b.get("function")).and_then(Value::as_object));
                let mut c = obj([("id", cx.call_id().into()), ("type", "function".into()), ("function", f.into())]);
                c = overlay(c, bag);
                if c.get("type") == Some(&Value::Null) || bag.and_then(|b| b.get("type")) == Some(&Value::Null) {
                    c.shift_remove("type");
                }
                calls.push(Value::Object(c));
                continue;
            }
            Segment::ProviderBlock(b)
                if b.format == ME
                    && m.role == Role::Assistant
                    && b.block.contains_key("id")
                    && b.block.contains_key(b.block_type()) =>
            {
                // A custom tool call.
                calls.push(Value::Object(b.block.clone()));
                continue;
            }
            Segment::ProviderBlock(b) => match own_block(cx, mi, sj, b, ME) {
                Some(v) => v,
                None => continue,
            },
            _ => continue,
        };
        content.push(part);
    }
    let mut o = obj([("role", role.into())]);
    if let Some(n) = &m.ext.name {
        o.insert("name".into(), n.clone().into());
    }
    if content.as_parts {
        o.insert("content".into(), content.parts.into());
    } else if !content.texts.is_empty() {
        o.insert("content".into(), content.texts.join("\n\n").into());
    } else if m.role != Role::Assistant && m.ext.provider.as_ref().is_none_or(|p| !p.contains_key("content")) {
        o.insert("content".into(), "".into());
    }
    if !calls.is_empty() {
        o.insert("tool_calls".into(), calls.into());
    }
    // A kept `"content": null` stands where the export writes content.
    let mut o = overlay(o, m.ext.provider.as_ref());
    let mut ordered = Map::new();
    for k in ["role", "name", "content"] {
        if let Some(v) = o.shift_remove(k) {
            ordered.insert(k.to_string(), v);
        }
    }
    ordered.extend(o);
    out.push(Value::Object(ordered));
}

/// How many `messages` entries each envelope message gives in the replay.
pub fn entries(envelope: &Envelope) -> impl Iterator<Item = usize> + '_ {
    envelope.messages.iter().map(|m| {
        if super::holder(m) && !m.segments.is_empty() {
            0
        } else if m.role == Role::Tool {
            m.segments.iter().filter(|s| matches!(s, Segment::ToolCallResult(_))).count()
        } else {
            1
        }
    })
}
