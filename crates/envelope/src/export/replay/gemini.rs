//! An envelope imported from a Gemini `generateContent` request, as that
//! request (`import::gemini` is the other half). The body never names the
//! model (Gemini takes it in the URL).
//!
//! Spelling comes back from the `shape` flags: a snake_case field name
//! among them (`mime_type`, `inline_data`, `system_instruction`, …) writes
//! that field so, `base64url` inline data in the URL-safe alphabet; `noRole`, `partsObject`, `contentsObject`,
//! `noParts`, `noArgs`, `noMime` leave out or unwrap what the body did.

use serde_json::{Map, Value};

use super::{groups, holder, obj, tools, Ctx};
use crate::diag::Notice;
use crate::import::gemini::{shape, spell};
use crate::import::TEXT_FORM;
use crate::types::*;

const ME: RequestFormat = RequestFormat::Gemini;

pub fn request(envelope: &Envelope, notices: &mut Vec<Notice>) -> Value {
    let mut cx = Ctx::new(envelope);
    let mut body = envelope.params.clone().unwrap_or_default();
    let mut system: Option<(Map<String, Value>, bool)> = None;
    let mut contents = Vec::new();
    let mut contents_object = false;
    for group in groups(envelope) {
        let first = &envelope.messages[group[0]];
        if holder(first) {
            continue;
        }
        let parts = parts(&mut cx, &group);
        if first.role == Role::System {
            match &mut system {
                None => {
                    let content = content(first, parts, None);
                    system = Some((content, first.ext.has_shape("system_instruction")));
                }
                Some((c, _)) => {
                    // A second system message: its parts join the instruction's.
                    match c.get_mut("parts") {
                        Some(Value::Array(list)) => list.extend(parts),
                        Some(one @ Value::Object(_)) => {
                            let was = one.take();
                            *one = Value::Array(std::iter::once(was).chain(parts).collect());
                        }
                        _ => {
                            c.insert("parts".into(), parts.into());
                        }
                    }
                }
            }
            continue;
        }
        let role = match (first.role, first.ext.provider_role.as_deref()) {
            (_, _) if first.ext.has_shape(shape::NO_ROLE) => None,
            (Role::Assistant, _) => Some("model"),
            (_, Some("function")) => Some("function"),
            (_, other) => {
                if let Some(r) = other {
                    cx.notices.push(Notice::new(
                        format!("messages[{}].providerRole", group[0]),
                        format!("Gemini has no role `{r}`; the message is sent as `user`"),
                    ));
                }
                Some("user")
            }
        };
        if first.ext.name.is_some() {
            cx.notices
                .push(Notice::new(format!("messages[{}].name", group[0]), "Gemini has no message name; left out"));
        }
        contents_object |= first.ext.has_shape(shape::CONTENTS_OBJECT);
        contents.push(Value::Object(content(first, parts, role)));
    }
    if let Some((s, snake)) = system {
        body.insert(spell("systemInstruction", "system_instruction", snake).into(), Value::Object(s));
    }
    let contents = match contents.as_slice() {
        [one] if contents_object => one.clone(),
        _ => Value::Array(contents),
    };
    body.insert("contents".into(), contents);
    let declared = tool_list(&mut cx);
    if !declared.is_empty() {
        body.insert("tools".into(), declared.into());
    }
    notices.append(&mut cx.notices);
    Value::Object(body)
}

/// A Content: its role, its parts (as the body wrote them), its other fields.
fn content(first: &Message, parts: Vec<Value>, role: Option<&str>) -> Map<String, Value> {
    let mut c = Map::new();
    if let Some(r) = role {
        c.insert("role".into(), r.into());
    }
    match parts.as_slice() {
        [] if first.ext.has_shape(shape::NO_PARTS) => {}
        [one] if first.ext.has_shape(shape::PARTS_OBJECT) => {
            c.insert("parts".into(), one.clone());
        }
        _ => {
            c.insert("parts".into(), parts.into());
        }
    }
    super::overlay(c, first.ext.provider.as_ref())
}

/// `obj` with a segment's kept fields: each one it lacks, and inside an
/// object both have, each inner field it lacks (the fields are nested as in
/// the part).
pub(crate) fn merge(mut obj: Map<String, Value>, bag: Option<&Map<String, Value>>) -> Map<String, Value> {
    for (k, v) in bag.into_iter().flatten() {
        match (obj.get_mut(k), v) {
            (Some(Value::Object(inner)), Value::Object(extra)) => {
                for (ik, iv) in extra {
                    if !inner.contains_key(ik) {
                        inner.insert(ik.clone(), iv.clone());
                    }
                }
            }
            (Some(_), _) => {}
            (None, _) => {
                obj.insert(k.clone(), v.clone());
            }
        }
    }
    obj
}

/// Standard base64 in the URL-safe alphabet.
fn to_url_safe(data: &str) -> String {
    data.chars()
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect()
}

/// A segment sent as text: its text (template variables applied).
fn text_of(seg: &Segment, cx: &Ctx) -> Option<String> {
    match seg {
        Segment::Text(t) => Some(cx.vars.apply(&t.content)),
        Segment::SystemPrompt(t) => Some(cx.vars.apply(&t.content)),
        Segment::LongText(t) => Some(cx.vars.apply(&t.content)),
        Segment::Memory(_) | Segment::Skills(_) => Some(crate::export::segment_text(seg, &cx.vars).unwrap_or_default()),
        Segment::Media(m) if m.ext.has_shape(TEXT_FORM) => crate::export::segment_text(seg, &cx.vars),
        Segment::Document(d) if d.ext.has_shape(TEXT_FORM) || (d.data.is_none() && d.url.is_none()) => {
            crate::export::segment_text(seg, &cx.vars)
        }
        _ => None,
    }
}

/// The parts of one Content (a group of envelope messages).
fn parts(cx: &mut Ctx, group: &[usize]) -> Vec<Value> {
    let envelope = cx.envelope;
    let mut out: Vec<Value> = Vec::new();
    // Whether the last part is a text part a joined segment extends.
    let mut open_text = false;
    for &mi in group {
        let m = &envelope.messages[mi];
        for (sj, seg) in m.segments.iter().enumerate() {
            let at = format!("messages[{mi}].segments[{sj}]");
            let ext = seg.ext().cloned().unwrap_or_default();
            if ext.cache_control.is_some() {
                cx.notices.push(Notice::new(
                    format!("{at}.cacheControl"),
                    "Gemini has no cache breakpoint on a part (it caches through `cachedContent`); left out",
                ));
            }
            if let Some(text) = text_of(seg, cx) {
                match out.last_mut() {
                    Some(Value::Object(last)) if ext.join_previous && open_text => {
                        if let Some(Value::String(t)) = last.get_mut("text") {
                            t.push_str("\n\n");
                            t.push_str(&text);
                        }
                    }
                    _ => out.push(Value::Object(merge(obj([("text", text.into())]), ext.provider.as_ref()))),
                }
                open_text = true;
                continue;
            }
            open_text = false;
            let key = |camel: &'static str, snake: &'static str| spell(camel, snake, ext.has_shape(snake)).to_string();
            let part = match seg {
                Segment::Media(md) => media_part(md, &ext),
                Segment::Document(d) => document_part(d, &ext),
                Segment::ToolCallRequest(r) => {
                    let mut f = obj([("name", r.tool_name.clone().into())]);
                    if !(ext.has_shape(shape::NO_ARGS) && r.arguments.is_empty()) {
                        f.insert("args".into(), Value::Object(r.arguments.clone()));
                    }
                    if let Some(id) = &r.call_id {
                        f.insert("id".into(), id.clone().into());
                    }
                    obj([(&*key("functionCall", "function_call"), Value::Object(f))])
                }
                Segment::ToolCallResult(r) => {
                    let response = match serde_json::from_str::<Value>(&r.result) {
                        Ok(Value::Object(o)) => o,
                        _ => obj([("output", r.result.clone().into())]),
                    };
                    if !r.success && !response.contains_key("error") {
                        cx.notices.push(Notice::new(
                            format!("{at}.success"),
                            "Gemini has no error flag for a function response (its `response` says so, in an `error` field); `success: false` is not sent",
                        ));
                    }
                    if r.content.is_some() {
                        cx.notices.push(Notice::new(
                            format!("{at}.content"),
                            "a function response is one JSON object in Gemini; the result's content blocks are sent as its text",
                        ));
                    }
                    let mut f = obj([("name", r.tool_name.clone().into()), ("response", Value::Object(response))]);
                    if let Some(id) = &r.call_id {
                        f.insert("id".into(), id.clone().into());
                    }
                    obj([(&*key("functionResponse", "function_response"), Value::Object(f))])
                }
                Segment::Reasoning(r) => {
                    if r.encrypted.is_some() || r.summary.is_some() {
                        cx.notices.push(Notice::new(
                            at.clone(),
                            "Gemini's thoughts are text with a signature: encrypted content and summaries are not sent",
                        ));
                    }
                    let mut o = obj([("text", r.content.clone().into()), ("thought", true.into())]);
                    if let Some(s) = &r.signature {
                        o.insert(key("thoughtSignature", "thought_signature"), s.clone().into());
                    }
                    o
                }
                Segment::ProviderBlock(b) if b.format == ME => {
                    out.push(Value::Object(b.block.clone()));
                    continue;
                }
                Segment::ProviderBlock(b) => {
                    cx.foreign(mi, sj, b, ME);
                    continue;
                }
                _ => continue,
            };
            out.push(Value::Object(merge(part, ext.provider.as_ref())));
        }
    }
    out
}

/// `camel`, or its snake_case spelling when the segment's flags name it.
fn sp<'a>(ext: &Ext, camel: &'a str, snake: &'a str) -> &'a str {
    spell(camel, snake, ext.has_shape(snake))
}

/// Inline data (`data:` URL) or a file by URL.
fn media_part(md: &Media, ext: &Ext) -> Map<String, Value> {
    match crate::export::base64_data_url(&md.url) {
        Some((mime, data)) => inline(mime, data, ext),
        None => {
            let f = obj([(sp(ext, "fileUri", "file_uri"), md.url.clone().into())]);
            obj([(sp(ext, "fileData", "file_data"), Value::Object(f))])
        }
    }
}

fn inline(mime: &str, data: &str, ext: &Ext) -> Map<String, Value> {
    let data = if ext.has_shape(shape::BASE64URL) { to_url_safe(data) } else { data.to_string() };
    let d = obj([(sp(ext, "mimeType", "mime_type"), mime.into()), ("data", data.into())]);
    obj([(sp(ext, "inlineData", "inline_data"), Value::Object(d))])
}

fn document_part(d: &Document, ext: &Ext) -> Map<String, Value> {
    if let Some(data) = &d.data {
        return inline(&d.mime_type, data, ext);
    }
    let mut f = Map::new();
    if !ext.has_shape(shape::NO_MIME) {
        f.insert(sp(ext, "mimeType", "mime_type").into(), d.mime_type.clone().into());
    }
    f.insert(sp(ext, "fileUri", "file_uri").into(), d.url.clone().unwrap_or_default().into());
    obj([(sp(ext, "fileData", "file_data"), Value::Object(f))])
}

/// The `tools` array: declarations grouped into `functionDeclarations`
/// entries as they were, tools kept whole in their place.
fn tool_list(cx: &mut Ctx) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut group: Option<(Vec<Value>, bool)> = None;
    let flush = |group: &mut Option<(Vec<Value>, bool)>, out: &mut Vec<Value>| {
        if let Some((decls, snake)) = group.take() {
            let key = spell("functionDeclarations", "function_declarations", snake);
            out.push(Value::Object(obj([(key, decls.into())])));
        }
    };
    for (k, t) in tools(cx.envelope).enumerate() {
        if t.ext.cache_control.is_some() {
            cx.notices.push(Notice::new(
                format!("tools[{k}].cacheControl"),
                "Gemini has no cache breakpoint on a tool; left out",
            ));
        }
        if t.is_server() {
            flush(&mut group, &mut out);
            out.push(Value::Object(t.ext.provider.clone().unwrap_or_default()));
            continue;
        }
        let snake = t.ext.has_shape("function_declarations");
        let mut d = obj([("name", t.name.clone().into())]);
        if !t.description.is_empty() {
            d.insert("description".into(), t.description.clone().into());
        }
        if let Some(s) = &t.schema {
            let key = if t.ext.has_shape(shape::JSON_SCHEMA) {
                sp(&t.ext, "parametersJsonSchema", "parameters_json_schema")
            } else {
                "parameters"
            };
            d.insert(key.into(), s.clone());
        }
        let d = Value::Object(super::overlay(d, t.ext.provider.as_ref()));
        match &mut group {
            Some((decls, s)) if *s == snake && !t.ext.has_shape(shape::NEW_TOOL) => decls.push(d),
            _ => {
                flush(&mut group, &mut out);
                group = Some((vec![d], snake));
            }
        }
    }
    flush(&mut group, &mut out);
    out
}
