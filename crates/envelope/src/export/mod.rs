//! Export: what an envelope sends, and the request each provider receives.
//!
//! Export works in two steps. [`contributions`] says, per message and per
//! segment, exactly what the model receives (template variables already
//! substituted, tool calls paired and given their ids); a target module
//! assembles those pieces into one provider's request. This module is the
//! provider-neutral part; the targets are [`openai_chat`] (PROTOCOL §4, the
//! request the app shows and the Budget tab counts), and, with the
//! `providers` feature, `openai_responses`, `anthropic`, `gemini`,
//! `bedrock` and `curl`, chosen
//! through `Target` and `render`. [`params`] translates the
//! envelope's request settings between providers. Token counting (§5) reads
//! the same pieces, so what is counted is what is sent.

pub mod openai_chat;
pub mod params;

#[cfg(feature = "providers")]
pub mod anthropic;
#[cfg(feature = "providers")]
pub mod bedrock;
#[cfg(feature = "providers")]
pub mod curl;
#[cfg(feature = "providers")]
pub mod gemini;
#[cfg(feature = "providers")]
pub mod openai_responses;
pub mod replay;
mod target;

pub use crate::diag::Notice;
pub use openai_chat::{message_json, openai_json, openai_request, openai_request_filtered};
pub use target::Target;
#[cfg(feature = "providers")]
pub use target::{render, render_with, Exported};

use serde_json::{json, Value};

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
pub(crate) fn segment_text(s: &Segment, vars: &Vars) -> Option<String> {
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
                    // A server tool kept whole is no function: only its own
                    // format declares it (the fidelity notices say so).
                    tools.extend(o.items.iter().filter(|t| !t.is_server()).map(|t| tool_json(t, vars)));
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

/// The export as text: pretty JSON (two-space indent) and a final newline,
/// control and bidi characters in strings as `\u` escapes ([`crate::jsontext`]).
/// The CLI prints it, the app shows, copies and downloads it.
pub fn to_pretty(value: &Value) -> String {
    let mut s = crate::jsontext::pretty(value);
    s.push('\n');
    s
}

/// [`to_pretty`] in pieces, for a caller that builds a text of tens of MB
/// between frames (the app's Raw view): the text before the first message,
/// each message, then the rest. Concatenated, the pieces are exactly
/// `to_pretty(value)`; a value without a non-empty top-level `messages`
/// array is one piece. (Pretty JSON has no line break inside a string, so a
/// message printed alone and indented line by line is the text it has in
/// the whole.)
pub fn to_pretty_pieces(value: &Value) -> PrettyPieces<'_> {
    let whole = |value| PrettyPieces { head: Some(to_pretty(value)), messages: &[], next: 0, tail: None };
    let Value::Object(o) = value else { return whole(value) };
    let Some(Value::Array(messages)) = o.get("messages") else { return whole(value) };
    if messages.is_empty() {
        return whole(value);
    }
    // The same object with `messages: []` in its place (key order kept).
    let frame: serde_json::Map<String, Value> = o
        .iter()
        .map(|(k, v)| (k.clone(), if k == "messages" { Value::Array(Vec::new()) } else { v.clone() }))
        .collect();
    let text = to_pretty(&Value::Object(frame));
    const EMPTY: &str = "\n  \"messages\": []";
    let Some(at) = text.find(EMPTY) else { return whole(value) };
    PrettyPieces {
        head: Some(format!("{}\n  \"messages\": [", &text[..at])),
        messages,
        next: 0,
        tail: Some(format!("\n  ]{}", &text[at + EMPTY.len()..])),
    }
}

/// The pieces of [`to_pretty_pieces`].
pub struct PrettyPieces<'a> {
    head: Option<String>,
    messages: &'a [Value],
    next: usize,
    tail: Option<String>,
}

impl PrettyPieces<'_> {
    /// How many pieces are left.
    pub fn remaining(&self) -> usize {
        usize::from(self.head.is_some()) + (self.messages.len() - self.next) + usize::from(self.tail.is_some())
    }
}

impl Iterator for PrettyPieces<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        if let Some(head) = self.head.take() {
            return Some(head);
        }
        if let Some(m) = self.messages.get(self.next) {
            let alone = crate::jsontext::pretty(m);
            let mut out = String::with_capacity(alone.len() + alone.len() / 8 + 8);
            out.push_str(if self.next == 0 { "\n" } else { ",\n" });
            for (k, line) in alone.split('\n').enumerate() {
                if k > 0 {
                    out.push('\n');
                }
                out.push_str("    ");
                out.push_str(line);
            }
            self.next += 1;
            return Some(out);
        }
        self.tail.take()
    }
}

/// One element of a provider message's content, in segment order: a run of
/// adjacent text pieces (joined by `"\n\n"`) or one other piece.
#[derive(Clone, Debug, PartialEq)]
pub enum Run<'a> {
    Text(String),
    /// A non-text piece and the index of its segment.
    Piece(usize, &'a Piece),
}

impl MessagePieces {
    /// The message's content as runs: each stretch of text pieces joined by
    /// `"\n\n"`, and every image, call and result on its own, in order.
    pub fn runs(&self) -> Vec<Run<'_>> {
        let mut out = Vec::new();
        let mut texts: Vec<&str> = Vec::new();
        for (sj, p) in &self.pieces {
            match p {
                Piece::Text(t) => texts.push(t),
                other => {
                    if !texts.is_empty() {
                        out.push(Run::Text(texts.join("\n\n")));
                        texts.clear();
                    }
                    out.push(Run::Piece(*sj, other));
                }
            }
        }
        if !texts.is_empty() {
            out.push(Run::Text(texts.join("\n\n")));
        }
        out
    }
}

/// The segment at message `mi`, segment `sj` (the pieces name their segment).
pub(crate) fn segment_at(envelope: &Envelope, mi: usize, sj: usize) -> Option<&Segment> {
    envelope.messages.get(mi)?.segments.get(sj)
}

/// The model named by the envelope, `None` when it names none (an empty
/// model is no model, as in §4).
pub(crate) fn named_model(envelope: &Envelope) -> Option<&str> {
    envelope.model.as_deref().filter(|m| !m.is_empty())
}

/// `data:{mime};base64,{data}` split into its MIME type and data, for the
/// exact lower-case spelling only (a data URL written otherwise is not
/// rebuilt byte for byte from the two, so it is left alone).
pub fn base64_data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (mime, data) = rest.split_once(";base64,")?;
    let ok = !mime.is_empty()
        && mime.bytes().all(|b| b.is_ascii_alphanumeric() || b"/+-.".contains(&b))
        && data.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b));
    ok.then_some((mime, data))
}

#[cfg(feature = "providers")]
/// The tools of the export as `(name, description, JSON Schema)`, read from
/// the neutral [`Contributions::tools`] (OpenAI Chat's shape, §4).
pub(crate) fn tool_specs(c: &Contributions) -> impl Iterator<Item = (&str, &str, &Value)> {
    static EMPTY: Value = Value::Null;
    c.tools.iter().map(|t| {
        let f = &t["function"];
        (
            f["name"].as_str().unwrap_or(""),
            f["description"].as_str().unwrap_or(""),
            f.get("parameters").unwrap_or(&EMPTY),
        )
    })
}

/// A notice for every tool result with `success: false`, which `provider`'s
/// requests cannot say (they have no error flag).
pub(crate) fn note_failed_results(envelope: &Envelope, c: &Contributions, provider: &str, notices: &mut Vec<Notice>) {
    for (mi, m) in c.messages.iter().enumerate() {
        for (sj, p) in &m.pieces {
            if let (Piece::Result { .. }, Some(Segment::ToolCallResult(r))) = (p, segment_at(envelope, mi, *sj)) {
                if !r.success {
                    notices.push(Notice::new(
                        format!("messages[{mi}].segments[{sj}].success"),
                        format!("{provider} has no error flag for a tool result; `success: false` is not sent"),
                    ));
                }
            }
        }
    }
}

/// A notice for everything the envelope keeps that the request of
/// `provider` (not the envelope's own format) cannot say: reasoning,
/// blocks kept verbatim, cache breakpoints, message names, the developer
/// role, a provider's fields of messages, blocks and tools, server tools,
/// files by id or URL, tool results' content blocks. Built without the
/// `providers` feature too: the app's own OpenAI Chat export lists them as
/// `pep export --format openai` does (before the request's own notices).
pub fn fidelity_notices(envelope: &Envelope, provider: params::Provider, notices: &mut Vec<Notice>) {
    let target = provider.label();
    let from = envelope.source.map_or("the envelope", RequestFormat::label);
    for (mi, m) in envelope.messages.iter().enumerate() {
        let mp = format!("messages[{mi}]");
        if let Some(n) = &m.ext.name {
            notices.push(Notice::new(
                format!("{mp}.name"),
                format!("the message name `{n}` cannot be sent in {target}; left out"),
            ));
        }
        if let Some(r) = &m.ext.provider_role {
            if !(r == "developer" && provider != params::Provider::Anthropic) {
                notices.push(Notice::new(
                    format!("{mp}.providerRole"),
                    format!("the role `{r}` is sent as `{}`", m.role.as_str()),
                ));
            } else {
                notices.push(Notice::new(
                    format!("{mp}.providerRole"),
                    format!("the `developer` role is sent as `system` in {target}"),
                ));
            }
        }
        if let Some(p) = &m.ext.provider {
            let keys: Vec<&str> = p.keys().map(String::as_str).collect();
            notices.push(Notice::new(
                format!("{mp}.provider"),
                format!("{from} fields of this message ({}) cannot be sent in {target}; left out", keys.join(", ")),
            ));
        }
        for (sj, s) in m.segments.iter().enumerate() {
            let sp = format!("{mp}.segments[{sj}]");
            match s {
                Segment::Reasoning(_) => notices.push(Notice::new(
                    sp.clone(),
                    format!("reasoning cannot be sent back in {target} (it is valid only for the provider that made it); left out"),
                )),
                Segment::ProviderBlock(b) => notices.push(Notice::new(
                    sp.clone(),
                    format!("a {} `{}` block cannot be sent in {target}; left out", b.format.label(), b.block_type()),
                )),
                Segment::Document(d) if d.url.is_some() || d.file_id.is_some() => notices.push(Notice::new(
                    sp.clone(),
                    format!("the document `{}` is a file by URL or id, whose content is not in the request; {target} receives its header only", d.file_name),
                )),
                Segment::ToolCallResult(r) if r.content.is_some() => notices.push(Notice::new(
                    format!("{sp}.content"),
                    format!("the result's content blocks are sent as their text in {target}"),
                )),
                Segment::ToolOverview(o) => {
                    for (k, t) in o.items.iter().enumerate() {
                        let ip = format!("{sp}.items[{k}]");
                        if t.is_server() {
                            notices.push(Notice::new(ip, format!("the server tool `{}` cannot be declared in {target}; left out", t.name)));
                            continue;
                        }
                        if t.ext.cache_control.is_some() {
                            notices.push(Notice::new(format!("{ip}.cacheControl"), format!("a cache breakpoint cannot be sent in {target}; left out")));
                        }
                        if let Some(p) = &t.ext.provider {
                            let keys: Vec<&str> = p.keys().map(String::as_str).collect();
                            notices.push(Notice::new(format!("{ip}.provider"), format!("{from} tool fields ({}) cannot be sent in {target}; left out", keys.join(", "))));
                        }
                    }
                }
                _ => {}
            }
            if let Some(e) = s.ext() {
                if e.cache_control.is_some() {
                    notices.push(Notice::new(
                        format!("{sp}.cacheControl"),
                        format!("a cache breakpoint cannot be sent in {target} from here; left out"),
                    ));
                }
                if let Some(p) = &e.provider {
                    let keys: Vec<&str> = p.keys().map(String::as_str).collect();
                    notices.push(Notice::new(
                        format!("{sp}.provider"),
                        format!(
                            "{from} fields of this block ({}) cannot be sent in {target}; left out",
                            keys.join(", ")
                        ),
                    ));
                }
            }
        }
    }
}
