//! Replay: the request an envelope imported from a provider's format sends
//! in that same format (docs/EXTENSIONS.md, "Fidelity"). Where the target
//! modules (`super::anthropic`, …) write a request from what the envelope
//! means, these rebuild it as it was written: each envelope message is one
//! provider message (or one part of it, `continues`), text parts stay
//! parts (`contentParts`, `joinPrevious`), and every field the envelope
//! keeps verbatim (`provider`, `cacheControl`, provider blocks) is sent
//! again. The round-trip law: for a body B of format F,
//! `replay(import(B)) == B` as JSON (key order aside).
//!
//! An envelope whose `source` names a format is replayed when exported to
//! that format; a block kept verbatim for another format is not sent, and a
//! notice says so.

#[cfg(feature = "providers")]
pub mod anthropic;
#[cfg(feature = "providers")]
pub mod bedrock;
#[cfg(feature = "providers")]
pub mod gemini;
pub mod openai_chat;
#[cfg(feature = "providers")]
pub mod openai_responses;

use serde_json::{Map, Value};

use crate::calls::{At, Calls};
use crate::diag::Notice;
use crate::template::Vars;
use crate::types::*;

/// What replay needs of an envelope besides the envelope.
pub(crate) struct Ctx<'a> {
    pub envelope: &'a Envelope,
    pub vars: Vars,
    pub calls: Calls,
    /// The next tool call's index among all calls.
    next_call: usize,
    pub notices: Vec<Notice>,
}

impl<'a> Ctx<'a> {
    pub fn new(envelope: &'a Envelope) -> Self {
        Ctx { envelope, vars: Vars::of(envelope), calls: Calls::pair(envelope), next_call: 0, notices: Vec::new() }
    }

    /// The id a request is sent with (its `callId`, or the one the export gives it).
    pub fn call_id(&mut self) -> String {
        let id = self.calls.requests.get(self.next_call).map(|q| q.export_id.clone()).unwrap_or_default();
        self.next_call += 1;
        id
    }

    /// The id of the call the result at `(mi, sj)` answers.
    pub fn result_id(&self, mi: usize, sj: usize) -> String {
        self.calls.request_for(At { message: mi, segment: sj }).map(|q| q.export_id.clone()).unwrap_or_default()
    }

    /// A notice for a segment kept verbatim for another format.
    pub fn foreign(&mut self, mi: usize, sj: usize, b: &ProviderBlock, target: RequestFormat) {
        self.notices.push(Notice::new(
            format!("messages[{mi}].segments[{sj}]"),
            format!("a {} `{}` block cannot be sent in {}; left out", b.format.label(), b.block_type(), target.label()),
        ));
    }
}

/// The envelope's messages grouped into provider messages: a message that
/// `continues` joins the group before it.
#[cfg(feature = "providers")]
pub(crate) fn groups(envelope: &Envelope) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, m) in envelope.messages.iter().enumerate() {
        match out.last_mut() {
            Some(g) if m.ext.continues => g.push(i),
            _ => out.push(vec![i]),
        }
    }
    out
}

/// The text a segment sends when it is text (an empty text too); `None`
/// for a segment sent as a block of its own (or not at all).
pub(crate) fn text_of(seg: &Segment, role: Role, vars: &Vars) -> Option<String> {
    match seg {
        Segment::Text(t) => Some(vars.apply(&t.content)),
        Segment::SystemPrompt(t) => Some(vars.apply(&t.content)),
        Segment::LongText(t) => Some(vars.apply(&t.content)),
        Segment::Memory(_) | Segment::Skills(_) => super::segment_text(seg, vars),
        Segment::Document(d) if !is_block_document(d) => super::segment_text(seg, vars),
        Segment::Media(m)
            if !(m.media_type == MediaType::Image && role == Role::User)
                && m.ext.provider.is_none()
                && m.ext.cache_control.is_none() =>
        {
            super::segment_text(seg, vars)
        }
        _ => None,
    }
}

/// A document that was a provider's file block (not the text form
/// `[Document: …]`): it has bytes, a URL, a file id, or provider fields.
pub(crate) fn is_block_document(d: &Document) -> bool {
    d.data.is_some()
        || d.url.is_some()
        || d.file_id.is_some()
        || d.ext.provider.is_some()
        || d.ext.cache_control.is_some()
}

/// `obj` with the fields of `bag` it does not have.
pub(crate) fn overlay(mut obj: Map<String, Value>, bag: Option<&Map<String, Value>>) -> Map<String, Value> {
    if let Some(bag) = bag {
        for (k, v) in bag {
            if !obj.contains_key(k) {
                obj.insert(k.clone(), v.clone());
            }
        }
    }
    obj
}

/// `obj` with a segment's extension fields: its provider fields and cache breakpoint.
pub(crate) fn with_ext(obj: Map<String, Value>, ext: &Ext) -> Value {
    let mut obj = overlay(obj, ext.provider.as_ref());
    if let Some(c) = &ext.cache_control {
        obj.insert("cache_control".into(), c.clone());
    }
    Value::Object(obj)
}

/// A JSON object from pairs.
pub(crate) fn obj<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The settings of the body: `params` as kept (the request's own spelling).
pub(crate) fn head(envelope: &Envelope) -> Map<String, Value> {
    let mut body = Map::new();
    if let Some(m) = &envelope.model {
        body.insert("model".into(), m.clone().into());
    }
    if let Some(p) = &envelope.params {
        body.extend(p.clone());
    }
    body
}

/// Every declared tool, in order.
pub(crate) fn tools(envelope: &Envelope) -> impl Iterator<Item = &ToolItem> {
    envelope.messages.iter().flat_map(|m| &m.segments).flat_map(|s| match s {
        Segment::ToolOverview(o) => o.items.iter(),
        _ => [].iter(),
    })
}

/// Whether the envelope declares any tool.
pub(crate) fn has_tools(envelope: &Envelope) -> bool {
    tools(envelope).next().is_some()
}

/// A message that only holds declarations (tools, variables) and was no
/// provider message: the import's holder of the request's tools.
pub(crate) fn holder(m: &Message) -> bool {
    m.ext.is_empty() && m.segments.iter().all(|s| matches!(s, Segment::ToolOverview(_) | Segment::StaticVar(_)))
}

/// A provider message's content as it is rebuilt: the texts (for a string
/// content) and the parts or blocks (for an array), text parts extended by
/// a segment that `joinPrevious`.
pub(crate) struct Parts {
    /// The type of a text part (`text`, `input_text`, `output_text`).
    text_type: &'static str,
    pub texts: Vec<String>,
    pub parts: Vec<Value>,
    /// Whether the last part is a text part a joined segment extends.
    open_text: bool,
    /// Whether the content is sent as parts: it was (`contentParts`), or it
    /// holds a part that is not text.
    pub as_parts: bool,
}

impl Parts {
    pub fn new(text_type: &'static str, as_parts: bool) -> Self {
        Parts { text_type, texts: Vec::new(), parts: Vec::new(), open_text: false, as_parts }
    }

    /// Adds a part that is not text (the content is then sent as parts).
    pub fn push(&mut self, part: Value) {
        self.as_parts = true;
        self.parts.push(part);
    }

    /// Adds `seg` when it is text (true), as a part of its own or joined to the one before.
    pub fn text(&mut self, seg: &Segment, role: Role, vars: &Vars) -> bool {
        let Some(text) = text_of(seg, role, vars) else {
            self.open_text = false;
            return false;
        };
        let ext = seg.ext().cloned().unwrap_or_default();
        self.texts.push(text.clone());
        match self.parts.last_mut() {
            Some(Value::Object(last)) if ext.join_previous && self.open_text => {
                if let Some(Value::String(t)) = last.get_mut("text") {
                    t.push_str("\n\n");
                    t.push_str(&text);
                }
            }
            _ => self.parts.push(with_ext(obj([("type", self.text_type.into()), ("text", text.into())]), &ext)),
        }
        self.open_text = true;
        true
    }
}

/// A provider block kept for `format`: itself again, or `None` with a notice
/// when it was kept for another format.
pub(crate) fn own_block(cx: &mut Ctx, mi: usize, sj: usize, b: &ProviderBlock, format: RequestFormat) -> Option<Value> {
    if b.format == format {
        return Some(with_ext(b.block.clone(), &b.ext));
    }
    cx.foreign(mi, sj, b, format);
    None
}

/// The request's `tools` (when it declares any) and the notices: the end of every replay.
pub(crate) fn finish(
    mut body: Map<String, Value>,
    cx: &mut Ctx,
    tool: fn(&ToolItem) -> Value,
    notices: &mut Vec<Notice>,
) -> Value {
    if has_tools(cx.envelope) {
        body.insert("tools".into(), tools(cx.envelope).map(tool).collect::<Vec<_>>().into());
    }
    notices.append(&mut cx.notices);
    Value::Object(body)
}
