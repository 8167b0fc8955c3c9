//! The Anthropic Messages request (`POST /v1/messages`).
//!
//! Body keys in this order: `model`, `max_tokens`, the other settings,
//! `system`, `messages`, `tools`.
//! - The text of every `system` message goes to the top-level `system`
//!   string, joined by `"\n\n"` (a system message after the conversation has
//!   begun moves there too, with a notice: Anthropic has no other place).
//! - `user` and `assistant` messages keep their role; a `tool` message is a
//!   `user` turn of `tool_result` blocks (`is_error: true` when `success` is
//!   false). Consecutive turns of one role are merged into one, and adjacent
//!   text inside a turn is one `text` block joined by `"\n\n"`, as the
//!   export of one message joins its segments. A turn that is one text block
//!   is sent as a plain string.
//! - Tool calls are `tool_use` blocks (`input` is the arguments object, key
//!   order kept); user images are `image` blocks with a `url` source, or a
//!   `base64` source for a `data:image/{jpeg,png,gif,webp};base64,` URL. Any
//!   other image URL is sent as its text form `[image: URL] alt`, with a notice.
//! - `model`: the envelope's when it is a Claude model, else
//!   [`DEFAULT_MODEL`] with a notice; `max_tokens` (required): from `params`
//!   (in any provider's spelling), else [`DEFAULT_MAX_TOKENS`].

use serde_json::{json, Map, Value};

use super::params::{self, Provider};
use super::{base64_data_url, named_model, segment_at, tool_specs, Contributions, Piece, Run};
use crate::diag::Notice;
use crate::types::{Envelope, Role, Segment};

/// The model when the envelope names no Claude model.
pub const DEFAULT_MODEL: &str = "claude-sonnet-4-5";

/// `max_tokens` when `params` sets no output limit (Anthropic requires one).
pub const DEFAULT_MAX_TOKENS: u64 = 4096;

/// The image types Anthropic accepts in a `base64` source.
const BASE64_IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// One element of a turn's content before adjacent text is joined.
enum Item {
    Text(String),
    Block(Value),
}

/// The Anthropic Messages request body for `envelope`.
pub fn request(envelope: &Envelope, c: &Contributions, notices: &mut Vec<Notice>) -> Value {
    let mut body = Map::new();
    let model = match named_model(envelope) {
        Some(m) if m.starts_with("claude") => m.to_string(),
        named => {
            if let Some(m) = named {
                notices.push(Notice::new(
                    "model",
                    format!("`{m}` is not an Anthropic model; the request names {DEFAULT_MODEL}"),
                ));
            }
            DEFAULT_MODEL.to_string()
        }
    };
    body.insert("model".into(), model.into());
    let mut settings =
        envelope.params.as_ref().map(|p| params::translate(p, Provider::Anthropic, notices)).unwrap_or_default();
    let max_tokens = settings.shift_remove("max_tokens").unwrap_or_else(|| DEFAULT_MAX_TOKENS.into());
    body.insert("max_tokens".into(), max_tokens);
    body.extend(settings);

    let mut system: Vec<String> = Vec::new();
    let mut turns: Vec<(&'static str, Vec<Item>)> = Vec::new();
    for (mi, m) in c.messages.iter().enumerate() {
        if m.pieces.is_empty() {
            continue;
        }
        let (role, items) = match m.role {
            Role::System => {
                if !turns.is_empty() {
                    notices.push(Notice::new(
                        format!("messages[{mi}]"),
                        "a system message after the conversation began: Anthropic has only the top-level `system`, so its text moves there",
                    ));
                }
                system.push(m.text());
                continue;
            }
            Role::User | Role::Tool => ("user", items(envelope, mi, m.runs(), notices)),
            Role::Assistant => ("assistant", items(envelope, mi, m.runs(), notices)),
        };
        match turns.last_mut() {
            Some((r, list)) if *r == role => list.extend(items),
            _ => turns.push((role, items)),
        }
    }
    let system = system.join("\n\n");
    if !system.is_empty() {
        body.insert("system".into(), system.into());
    }
    let messages: Vec<Value> =
        turns.into_iter().map(|(role, items)| json!({"role": role, "content": content(items)})).collect();
    body.insert("messages".into(), messages.into());
    let tools: Vec<Value> = tool_specs(c)
        .map(|(name, description, schema)| {
            let mut t = Map::new();
            t.insert("name".into(), name.into());
            if !description.is_empty() {
                t.insert("description".into(), description.into());
            }
            t.insert("input_schema".into(), schema.clone());
            Value::Object(t)
        })
        .collect();
    if !tools.is_empty() {
        body.insert("tools".into(), tools.into());
    }
    Value::Object(body)
}

/// The content items of one envelope message.
fn items(envelope: &Envelope, mi: usize, runs: Vec<Run>, notices: &mut Vec<Notice>) -> Vec<Item> {
    runs.into_iter()
        .filter_map(|run| match run {
            Run::Text(t) => Some(Item::Text(t)),
            Run::Piece(sj, p) => piece(envelope, mi, sj, p, notices),
        })
        .collect()
}

fn piece(envelope: &Envelope, mi: usize, sj: usize, p: &Piece, notices: &mut Vec<Notice>) -> Option<Item> {
    let seg = segment_at(envelope, mi, sj);
    Some(match (p, seg) {
        (Piece::Call { id, name, .. }, Some(Segment::ToolCallRequest(r))) => {
            Item::Block(json!({"type": "tool_use", "id": id, "name": name, "input": r.arguments}))
        }
        (Piece::Result { tool_call_id, content }, Some(Segment::ToolCallResult(r))) => {
            let mut b = Map::new();
            b.insert("type".into(), "tool_result".into());
            b.insert("tool_use_id".into(), tool_call_id.as_str().into());
            b.insert("content".into(), content.as_str().into());
            if !r.success {
                b.insert("is_error".into(), true.into());
            }
            Item::Block(Value::Object(b))
        }
        (Piece::Image { url }, seg) => {
            if let Some((mime, data)) = base64_data_url(url).filter(|(m, _)| BASE64_IMAGE_TYPES.contains(m)) {
                Item::Block(json!({"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}))
            } else if url.get(..5).is_some_and(|s| s.eq_ignore_ascii_case("data:")) {
                notices.push(Notice::new(
                    format!("messages[{mi}].segments[{sj}].url"),
                    "Anthropic takes images as http(s) URLs or base64 JPEG, PNG, GIF or WebP data; this one is sent as text",
                ));
                let alt = match seg {
                    Some(Segment::Media(m)) => m.alt_text.as_deref(),
                    _ => None,
                };
                Item::Text(match alt {
                    Some(a) => format!("[image: {url}] {}", crate::template::Vars::of(envelope).apply(a)),
                    None => format!("[image: {url}]"),
                })
            } else {
                Item::Block(json!({"type": "image", "source": {"type": "url", "url": url}}))
            }
        }
        // A piece whose segment is not what made it cannot happen for the
        // contributions of this envelope; send nothing rather than guess.
        _ => return None,
    })
}

/// A turn's content: adjacent text joined by `"\n\n"` into one block; a
/// turn that is a single text block is a plain string.
fn content(items: Vec<Item>) -> Value {
    let mut blocks: Vec<Value> = Vec::new();
    let mut text: Vec<String> = Vec::new();
    let flush = |text: &mut Vec<String>, blocks: &mut Vec<Value>| {
        if !text.is_empty() {
            blocks.push(json!({"type": "text", "text": text.join("\n\n")}));
            text.clear();
        }
    };
    for item in items {
        match item {
            Item::Text(t) => text.push(t),
            Item::Block(b) => {
                flush(&mut text, &mut blocks);
                blocks.push(b);
            }
        }
    }
    flush(&mut text, &mut blocks);
    match blocks.as_slice() {
        [only] if only["type"] == "text" => only["text"].clone(),
        _ => Value::Array(blocks),
    }
}
