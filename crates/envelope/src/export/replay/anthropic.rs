//! An envelope imported from an Anthropic Messages request, as that request
//! (`import::anthropic` is the other half).

use serde_json::{json, Map, Value};

use super::{finish, groups, head, is_block_document, obj, own_block, with_ext, Ctx, Parts};
use crate::diag::Notice;
use crate::export::base64_data_url;
use crate::types::*;

const ME: RequestFormat = RequestFormat::Anthropic;

pub fn request(envelope: &Envelope, notices: &mut Vec<Notice>) -> Value {
    let mut cx = Ctx::new(envelope);
    let mut body = head(envelope);
    let mut system: Option<Value> = None;
    let mut messages = Vec::new();
    for group in groups(envelope) {
        let first = &envelope.messages[group[0]];
        if first.role == Role::System {
            let content = content(&mut cx, &group);
            match (&mut system, content) {
                (None, c) => system = c,
                (Some(Value::String(a)), Some(Value::String(b))) => {
                    a.push_str("\n\n");
                    a.push_str(&b);
                }
                (Some(Value::Array(a)), Some(Value::Array(b))) => a.extend(b),
                (Some(_), Some(_)) => cx.notices.push(Notice::new(
                    format!("messages[{}]", group[0]),
                    "a second system message of another form (string or blocks) than the first: left out",
                )),
                (Some(_), None) => {}
            }
            continue;
        }
        let role = if first.role == Role::Assistant { "assistant" } else { "user" };
        let content = content(&mut cx, &group).unwrap_or_else(|| Value::String(String::new()));
        let m = obj([("role", role.into()), ("content", content)]);
        messages.push(Value::Object(super::overlay(m, first.ext.provider.as_ref())));
    }
    if let Some(s) = system {
        body.insert("system".into(), s);
    }
    body.insert("messages".into(), messages.into());
    finish(body, &mut cx, tool, notices)
}

fn tool(t: &ToolItem) -> Value {
    if t.is_server() {
        return with_ext(Map::new(), &t.ext);
    }
    let mut o = obj([("name", t.name.clone().into())]);
    if !t.description.is_empty() {
        o.insert("description".into(), t.description.clone().into());
    }
    o.insert("input_schema".into(), t.schema.clone().unwrap_or_else(|| json!({"type": "object", "properties": {}})));
    with_ext(o, &t.ext)
}

/// The `content` of one provider message (a group of envelope messages): a
/// string when it was one, else its blocks; `None` for a system message
/// that sends nothing as a string.
fn content(cx: &mut Ctx, group: &[usize]) -> Option<Value> {
    let envelope = cx.envelope;
    let first = &envelope.messages[group[0]];
    let mut content = Parts::new("text", first.ext.content_parts);
    for &mi in group {
        let m = &envelope.messages[mi];
        for (sj, seg) in m.segments.iter().enumerate() {
            if content.text(seg, m.role, &cx.vars) {
                continue;
            }
            let block = match seg {
                Segment::Media(md) => {
                    let source = match base64_data_url(&md.url) {
                        Some((mime, data)) => json!({"type": "base64", "media_type": mime, "data": data}),
                        None => json!({"type": "url", "url": md.url}),
                    };
                    with_ext(obj([("type", "image".into()), ("source", source)]), &md.ext)
                }
                Segment::Document(d) if is_block_document(d) => document(d),
                Segment::ToolCallRequest(r) => {
                    let id = cx.call_id();
                    let o = obj([
                        ("type", "tool_use".into()),
                        ("id", id.into()),
                        ("name", r.tool_name.clone().into()),
                        ("input", Value::Object(r.arguments.clone())),
                    ]);
                    with_ext(o, &r.ext)
                }
                Segment::ToolCallResult(r) => {
                    let mut o = obj([("type", "tool_result".into()), ("tool_use_id", cx.result_id(mi, sj).into())]);
                    match &r.content {
                        Some(blocks) => {
                            o.insert("content".into(), Value::Array(blocks.clone()));
                        }
                        None if !r.result.is_empty() => {
                            o.insert("content".into(), r.result.clone().into());
                        }
                        None => {}
                    }
                    if !r.success {
                        o.insert("is_error".into(), true.into());
                    }
                    with_ext(o, &r.ext)
                }
                Segment::Reasoning(r) => {
                    let o = match (&r.encrypted, &r.signature) {
                        (Some(data), None) if r.content.is_empty() => {
                            obj([("type", "redacted_thinking".into()), ("data", data.clone().into())])
                        }
                        _ => {
                            let mut o = obj([("type", "thinking".into()), ("thinking", r.content.clone().into())]);
                            if let Some(s) = &r.signature {
                                o.insert("signature".into(), s.clone().into());
                            }
                            o
                        }
                    };
                    with_ext(o, &r.ext)
                }
                Segment::ProviderBlock(b) => match own_block(cx, mi, sj, b, ME) {
                    Some(v) => v,
                    None => continue,
                },
                _ => continue,
            };
            content.push(block);
        }
    }
    if content.as_parts {
        Some(Value::Array(content.parts))
    } else if content.texts.is_empty() {
        None
    } else {
        Some(Value::String(content.texts.join("\n\n")))
    }
}

/// A document block from its segment: the source kept verbatim, or rebuilt
/// from the bytes, URL, file id or text.
fn document(d: &Document) -> Value {
    let kept = d.ext.provider.as_ref().and_then(|p| p.get("source")).cloned();
    let source = kept.unwrap_or_else(|| {
        if let Some(data) = &d.data {
            json!({"type": "base64", "media_type": d.mime_type, "data": data})
        } else if let Some(url) = &d.url {
            json!({"type": "url", "url": url})
        } else if let Some(id) = &d.file_id {
            json!({"type": "file", "file_id": id})
        } else {
            json!({"type": "text", "media_type": d.mime_type, "data": d.model_text()})
        }
    });
    with_ext(obj([("type", "document".into()), ("source", source)]), &d.ext)
}
