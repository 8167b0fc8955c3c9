//! Export to an OpenAI Chat Completions request (§4).
//!
//! Export works in two steps. [`contributions`] says, per message and per
//! segment, exactly what the model receives (template variables already
//! substituted); [`openai_request`] assembles those pieces into the request
//! JSON. Token counting (§5) reads the same pieces, so what is counted is
//! what is sent.

use serde_json::{json, Map, Value};

use crate::calls::{At, Calls};
use crate::template::Vars;
use crate::types::*;

/// The model used when the envelope names none.
pub const DEFAULT_MODEL: &str = "gpt-4o";

/// What one segment sends to the model.
#[derive(Clone, Debug, PartialEq)]
pub enum Piece {
    /// Text, joined with the message's other text by `"\n\n"`.
    Text(String),
    /// An image content part of a user message.
    Image { url: String },
    /// A function call of an assistant message.
    Call { id: String, name: String, arguments: String },
    /// One tool message.
    Result { tool_call_id: String, content: String },
}

/// The pieces of one message, each with the index of its segment.
#[derive(Clone, Debug, PartialEq)]
pub struct MessagePieces {
    pub role: Role,
    pub pieces: Vec<(usize, Piece)>,
}

/// A content part of a user message with images: a run of text (its
/// pieces joined by `"\n\n"`) or an image.
#[derive(Clone, Debug, PartialEq)]
pub enum ContentPart<'a> {
    Text(String),
    Image(&'a str),
}

impl MessagePieces {
    /// Whether the message sends images (then its content is parts).
    pub fn has_images(&self) -> bool {
        self.pieces.iter().any(|(_, p)| matches!(p, Piece::Image { .. }))
    }

    /// The content parts in segment order: each run of text between images,
    /// and each image.
    pub fn content_parts(&self) -> Vec<ContentPart<'_>> {
        let mut parts = Vec::new();
        let mut run: Vec<&str> = Vec::new();
        for (_, p) in &self.pieces {
            match p {
                Piece::Text(t) => run.push(t),
                Piece::Image { url } => {
                    if !run.is_empty() {
                        parts.push(ContentPart::Text(run.join("\n\n")));
                        run.clear();
                    }
                    parts.push(ContentPart::Image(url));
                }
                _ => {}
            }
        }
        if !run.is_empty() {
            parts.push(ContentPart::Text(run.join("\n\n")));
        }
        parts
    }

    /// The message's text: its text pieces joined by `"\n\n"`.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .pieces
            .iter()
            .filter_map(|(_, p)| match p {
                Piece::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n\n")
    }
}

/// Everything the envelope sends: its tools and the pieces of each message
/// (one entry per envelope message, in order, possibly with no pieces).
#[derive(Clone, Debug, PartialEq)]
pub struct Contributions {
    /// The `tools` array of the request (empty when there are none).
    pub tools: Vec<Value>,
    pub messages: Vec<MessagePieces>,
}

/// The model text of one segment, `None` when it contributes none.
/// Images of user messages are not text; see [`contributions`].
fn segment_text(s: &Segment, vars: &Vars) -> Option<String> {
    let text = match s {
        Segment::Text(t) => vars.apply(&t.content),
        Segment::SystemPrompt(t) => vars.apply(&t.content),
        Segment::LongText(t) => vars.apply(&t.content),
        Segment::Memory(m) if !m.items.is_empty() => {
            let lines: Vec<String> =
                m.items.iter().map(|it| format!("- {}: {}", vars.apply(&it.title), vars.apply(&it.content))).collect();
            format!("## Memory\n{}", lines.join("\n"))
        }
        Segment::Skills(sk) if !sk.items.is_empty() => {
            let lines: Vec<String> = sk
                .items
                .iter()
                .map(|it| format!("- {}: {}", vars.apply(&it.name), vars.apply(&it.description)))
                .collect();
            let mut out = format!("## Skills\n{}", lines.join("\n"));
            for it in sk.items.iter().filter(|it| it.is_loaded()) {
                let body = it.body.as_deref().unwrap_or("");
                out.push_str(&format!("\n\n### Skill: {}\n\n{}", vars.apply(&it.name), vars.apply(body)));
            }
            out
        }
        Segment::Document(d) => format!(
            "[Document: {} ({}, {} bytes)]\n{}",
            d.file_name,
            vars.apply(&d.mime_type),
            d.size_bytes,
            vars.apply(d.model_text())
        ),
        Segment::Media(m) => match &m.alt_text {
            Some(alt) => format!("[{}: {}] {}", m.media_type.as_str(), m.url, vars.apply(alt)),
            None => format!("[{}: {}]", m.media_type.as_str(), m.url),
        },
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

/// The tool entry of the request for one declared tool.
fn tool_json(t: &ToolItem, vars: &Vars) -> Value {
    let parameters = t.schema.clone().unwrap_or_else(|| json!({"type": "object", "properties": {}}));
    json!({
        "type": "function",
        "function": {
            "name": t.name,
            "description": vars.apply(&t.description),
            "parameters": parameters,
        }
    })
}

/// What every message and segment of `envelope` sends to the model.
pub fn contributions(envelope: &Envelope) -> Contributions {
    contributions_with(envelope, &Vars::of(envelope), &Calls::pair(envelope))
}

/// [`contributions`] with the envelope's variables and call pairing already
/// at hand (`Vars::of` and `Calls::pair` of the same envelope).
pub fn contributions_with(envelope: &Envelope, vars: &Vars, calls: &Calls) -> Contributions {
    let mut tools = Vec::new();
    let mut messages = Vec::with_capacity(envelope.messages.len());
    let mut request_n = 0usize;
    for (mi, m) in envelope.messages.iter().enumerate() {
        let mut pieces = Vec::new();
        for (sj, s) in m.segments.iter().enumerate() {
            let piece = match s {
                Segment::ToolOverview(o) => {
                    tools.extend(o.items.iter().map(|t| tool_json(t, vars)));
                    None
                }
                Segment::ToolCallRequest(r) => {
                    let q = &calls.requests[request_n];
                    request_n += 1;
                    Some(Piece::Call {
                        id: q.export_id.clone(),
                        name: r.tool_name.clone(),
                        arguments: Value::Object(r.arguments.clone()).to_string(),
                    })
                }
                Segment::ToolCallResult(r) => {
                    let id = calls.request_for(At { message: mi, segment: sj }).map(|q| q.export_id.clone());
                    Some(Piece::Result { tool_call_id: id.unwrap_or_default(), content: r.result.clone() })
                }
                Segment::Media(md) if md.media_type == MediaType::Image && m.role == Role::User => {
                    Some(Piece::Image { url: md.url.clone() })
                }
                other => segment_text(other, vars).map(Piece::Text),
            };
            if let Some(p) = piece {
                pieces.push((sj, p));
            }
        }
        messages.push(MessagePieces { role: m.role, pieces });
    }
    Contributions { tools, messages }
}

/// The request message(s) for one envelope message (a tool message gives one
/// per result; a message that sends nothing gives none).
pub fn message_json(m: &MessagePieces) -> Vec<Value> {
    let role = m.role.as_str();
    match m.role {
        Role::Tool => m
            .pieces
            .iter()
            .filter_map(|(_, p)| match p {
                Piece::Result { tool_call_id, content } => {
                    Some(json!({"role": "tool", "tool_call_id": tool_call_id, "content": content}))
                }
                _ => None,
            })
            .collect(),
        Role::Assistant => {
            let text = m.text();
            let calls: Vec<Value> = m
                .pieces
                .iter()
                .filter_map(|(_, p)| match p {
                    Piece::Call { id, name, arguments } => Some(json!({
                        "id": id,
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    })),
                    _ => None,
                })
                .collect();
            if text.is_empty() && calls.is_empty() {
                return vec![];
            }
            let mut obj = Map::new();
            obj.insert("role".into(), role.into());
            obj.insert("content".into(), if text.is_empty() { Value::Null } else { text.into() });
            if !calls.is_empty() {
                obj.insert("tool_calls".into(), calls.into());
            }
            vec![Value::Object(obj)]
        }
        Role::User if m.has_images() => {
            let parts: Vec<Value> = m
                .content_parts()
                .into_iter()
                .map(|c| match c {
                    ContentPart::Text(text) => json!({"type": "text", "text": text}),
                    ContentPart::Image(url) => json!({"type": "image_url", "image_url": {"url": url}}),
                })
                .collect();
            vec![json!({"role": role, "content": parts})]
        }
        Role::System | Role::User => {
            let text = m.text();
            if text.is_empty() {
                vec![]
            } else {
                vec![json!({"role": role, "content": text})]
            }
        }
    }
}

/// The request body for `envelope`, keeping only the messages whose `keep`
/// entry is true (all when `keep` is `None`) and the tools when `keep_tools`.
/// Ids of calls (`call_{n}`) are numbered over the whole envelope, so a
/// truncated request names its calls as the full one does.
pub fn openai_request_filtered(
    envelope: &Envelope,
    c: &Contributions,
    keep: Option<&[bool]>,
    keep_tools: bool,
) -> Value {
    let mut body = Map::new();
    // `envelope.model or "gpt-4o"`: an empty model is no model (as for `parsedContent`).
    let model = envelope.model.as_deref().filter(|m| !m.is_empty()).unwrap_or(DEFAULT_MODEL);
    body.insert("model".into(), model.into());
    let messages: Vec<Value> = c
        .messages
        .iter()
        .enumerate()
        .filter(|(i, _)| keep.is_none_or(|k| k.get(*i).copied().unwrap_or(true)))
        .flat_map(|(_, m)| message_json(m))
        .collect();
    body.insert("messages".into(), messages.into());
    if keep_tools && !c.tools.is_empty() {
        body.insert("tools".into(), c.tools.clone().into());
    }
    Value::Object(body)
}

/// The OpenAI Chat Completions request body for `envelope`.
pub fn openai_request(envelope: &Envelope) -> Value {
    openai_request_filtered(envelope, &contributions(envelope), None, true)
}

/// The export as text: pretty JSON (two-space indent) and a final newline,
/// control and bidi characters in strings as `\u` escapes ([`crate::jsontext`]).
/// The CLI prints it, the app shows, copies and downloads it.
pub fn to_pretty(value: &Value) -> String {
    let mut s = crate::jsontext::pretty(value);
    s.push('\n');
    s
}

/// [`openai_request`] as the text [`to_pretty`] gives.
pub fn openai_json(envelope: &Envelope) -> String {
    to_pretty(&openai_request(envelope))
}
