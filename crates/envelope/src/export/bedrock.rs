//! The Amazon Bedrock Converse request (`POST /model/{modelId}/converse`),
//! written from what the envelope means (an envelope imported from Bedrock
//! is replayed instead: `replay::bedrock`).
//!
//! The body never names the model: Bedrock takes `modelId` in the URL.
//! Body keys: the settings (translated into `inferenceConfig` and
//! `toolConfig.toolChoice`, see [`super::params`]), `system`, `messages`,
//! `toolConfig`.
//! - The text of every `system` message goes to `system` (one text block,
//!   joined by `"\n\n"`; a system message after the conversation has begun
//!   moves there too, with a notice).
//! - `user` and `tool` messages are `user` messages, `assistant` messages
//!   `assistant` ones; consecutive messages of one role are merged, and
//!   adjacent text is one `text` block joined by `"\n\n"`.
//! - Tool calls are `toolUse` blocks (`toolUseId` the call's id); results
//!   `toolResult` blocks (`status: "error"` when `success` is false).
//! - User images: a `data:` URL of PNG, JPEG, GIF or WebP is an `image`
//!   block with its bytes; any other is sent as its text form
//!   `[image: URL]`, with a notice (Bedrock reads images from bytes or S3).
//! - Tools are `toolSpec`s in `toolConfig.tools`.

use serde_json::{json, Map, Value};

use super::params::{self, Provider};
use super::{base64_data_url, segment_at, Contributions, Piece, Run};
use crate::diag::Notice;
use crate::import::bedrock::{format_of, IMAGE_FORMATS};
use crate::types::{Envelope, Role, Segment};

/// The Bedrock Converse request body for `envelope`.
pub fn request(envelope: &Envelope, c: &Contributions, notices: &mut Vec<Notice>) -> Value {
    let mut body = Map::new();
    if let Some(p) = &envelope.params {
        body.extend(params::translate(p, Provider::Bedrock, notices));
    }
    let mut system: Vec<String> = Vec::new();
    let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for (mi, m) in c.messages.iter().enumerate() {
        if m.pieces.is_empty() {
            continue;
        }
        let role = match m.role {
            Role::System => {
                if !turns.is_empty() {
                    notices.push(Notice::new(
                        format!("messages[{mi}]"),
                        "a system message after the conversation began: Bedrock Converse has only the top-level `system`, so its text moves there",
                    ));
                }
                system.push(m.text());
                continue;
            }
            Role::Assistant => "assistant",
            Role::User | Role::Tool => "user",
        };
        let blocks = blocks(envelope, mi, m.runs(), notices);
        match turns.last_mut() {
            Some((r, list)) if *r == role => list.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    let system = system.join("\n\n");
    if !system.is_empty() {
        body.insert("system".into(), json!([{"text": system}]));
    }
    let messages: Vec<Value> =
        turns.into_iter().map(|(role, blocks)| json!({"role": role, "content": join_text(blocks)})).collect();
    // No message: Bedrock refuses an empty `messages`, and a request without
    // one is a managed prompt's; the body says so by leaving it out.
    if !messages.is_empty() {
        body.insert("messages".into(), messages.into());
    }
    let vars = crate::template::Vars::of(envelope);
    let specs: Vec<Value> = super::replay::tools(envelope)
        .filter(|t| !t.is_server())
        .map(|t| {
            let mut spec = Map::new();
            spec.insert("name".into(), t.name.clone().into());
            let description = vars.apply(&t.description);
            if !description.is_empty() {
                spec.insert("description".into(), description.into());
            }
            let schema = t.schema.clone().unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            spec.insert("inputSchema".into(), json!({"json": schema}));
            json!({"toolSpec": spec})
        })
        .collect();
    if !specs.is_empty() {
        let config = body.entry("toolConfig").or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(cfg) = config {
            cfg.insert("tools".into(), specs.into());
        }
    } else if let Some(Value::Object(cfg)) = body.get("toolConfig") {
        if cfg.contains_key("toolChoice") {
            notices.push(Notice::new(
                "params.toolConfig.toolChoice",
                "a tool choice without tools: Bedrock Converse needs `toolConfig.tools`; left out",
            ));
            body.shift_remove("toolConfig");
        }
    }
    Value::Object(body)
}

/// Adjacent text blocks of a merged message joined into one.
fn join_text(blocks: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for b in blocks {
        if let (Some(Value::String(t)), Some(Value::Object(last))) = (b.get("text"), out.last_mut()) {
            if let Some(Value::String(l)) = last.get_mut("text") {
                l.push_str("\n\n");
                l.push_str(t);
                continue;
            }
        }
        out.push(b);
    }
    out
}

/// The content blocks of one envelope message.
fn blocks(envelope: &Envelope, mi: usize, runs: Vec<Run>, notices: &mut Vec<Notice>) -> Vec<Value> {
    let mut out = Vec::new();
    for run in runs {
        match run {
            Run::Text(t) => out.push(json!({"text": t})),
            Run::Piece(sj, p) => {
                if let Some(v) = piece(envelope, mi, sj, p, notices) {
                    out.push(v);
                }
            }
        }
    }
    out
}

fn piece(envelope: &Envelope, mi: usize, sj: usize, p: &Piece, notices: &mut Vec<Notice>) -> Option<Value> {
    let seg = segment_at(envelope, mi, sj);
    Some(match (p, seg) {
        (Piece::Call { id, name, .. }, Some(Segment::ToolCallRequest(r))) => {
            json!({"toolUse": {"toolUseId": id, "name": name, "input": r.arguments}})
        }
        (Piece::Result { tool_call_id, content }, Some(Segment::ToolCallResult(r))) => {
            let mut res = Map::new();
            res.insert("toolUseId".into(), tool_call_id.as_str().into());
            res.insert("content".into(), json!([{"text": content}]));
            if !r.success {
                res.insert("status".into(), "error".into());
            }
            json!({"toolResult": res})
        }
        (Piece::Image { url }, seg) => {
            match base64_data_url(url).and_then(|(mime, data)| Some((format_of(&IMAGE_FORMATS, mime)?, data))) {
                Some((format, data)) => json!({"image": {"format": format, "source": {"bytes": data}}}),
                None => {
                    notices.push(Notice::new(
                        format!("messages[{mi}].segments[{sj}].url"),
                        "Bedrock Converse takes images as PNG, JPEG, GIF or WebP bytes (or from S3); this one is sent as text",
                    ));
                    let alt = match seg {
                        Some(Segment::Media(m)) => m.alt_text.as_deref(),
                        _ => None,
                    };
                    let text = match alt {
                        Some(a) => format!("[image: {url}] {}", crate::template::Vars::of(envelope).apply(a)),
                        None => format!("[image: {url}]"),
                    };
                    json!({"text": text})
                }
            }
        }
        _ => return None,
    })
}
