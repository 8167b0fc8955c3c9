//! The Gemini `generateContent` request (`POST
//! /v1beta/models/{model}:generateContent`), written from what the envelope
//! means (an envelope imported from Gemini is replayed instead:
//! `replay::gemini`).
//!
//! The body never names the model: Gemini takes it in the URL (the cURL
//! export writes it there). Body keys: the settings (translated into
//! `generationConfig` and `toolConfig`, see [`super::params`]),
//! `systemInstruction`, `contents`, `tools`.
//! - The text of every `system` message goes to `systemInstruction` (one
//!   text part, joined by `"\n\n"`; a system message after the conversation
//!   has begun moves there too, with a notice).
//! - `user` and `tool` messages are `user` Contents, `assistant` messages
//!   `model` Contents; consecutive Contents of one role are merged, and
//!   adjacent text is one text part joined by `"\n\n"`.
//! - Tool calls are `functionCall` parts (`args` the arguments object, `id`
//!   the call's `callId` when it has one); results are `functionResponse`
//!   parts named after their call, `{"output": text}` (or `{"error": text}`
//!   when `success` is false). Gemini pairs them by name and order, as the
//!   envelope does.
//! - User images: a `data:` URL is `inlineData`; any other URL is
//!   `fileData` (with a notice: Gemini reads files by URL from its Files
//!   API, Cloud Storage, YouTube, and on recent models public https URLs).
//! - Tools are one `functionDeclarations` entry; a schema is sent as
//!   `parametersJsonSchema` (full JSON Schema).

use serde_json::{json, Map, Value};

use super::params::{self, Provider};
use super::{base64_data_url, segment_at, Contributions, Piece, Run};
use crate::calls::{At, Calls};
use crate::diag::Notice;
use crate::types::{Envelope, Role, Segment};

/// The Gemini request body for `envelope`.
pub fn request(envelope: &Envelope, c: &Contributions, notices: &mut Vec<Notice>) -> Value {
    let mut body = Map::new();
    if let Some(p) = &envelope.params {
        body.extend(params::translate(p, Provider::Gemini, notices));
    }
    let calls = Calls::pair(envelope);
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
                        "a system message after the conversation began: Gemini has only the top-level `systemInstruction`, so its text moves there",
                    ));
                }
                system.push(m.text());
                continue;
            }
            Role::Assistant => "model",
            Role::User | Role::Tool => "user",
        };
        let parts = parts(envelope, &calls, mi, m.runs(), notices);
        match turns.last_mut() {
            Some((r, list)) if *r == role => list.extend(parts),
            _ => turns.push((role, parts)),
        }
    }
    let system = system.join("\n\n");
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({"parts": [{"text": system}]}));
    }
    let contents: Vec<Value> =
        turns.into_iter().map(|(role, parts)| json!({"role": role, "parts": join_text(parts)})).collect();
    body.insert("contents".into(), contents.into());
    let vars = crate::template::Vars::of(envelope);
    let declarations: Vec<Value> = super::replay::tools(envelope)
        .filter(|t| !t.is_server())
        .map(|t| {
            let mut d = Map::new();
            d.insert("name".into(), t.name.clone().into());
            let description = vars.apply(&t.description);
            if !description.is_empty() {
                d.insert("description".into(), description.into());
            }
            if let Some(s) = &t.schema {
                d.insert("parametersJsonSchema".into(), s.clone());
            }
            Value::Object(d)
        })
        .collect();
    if !declarations.is_empty() {
        body.insert("tools".into(), json!([{"functionDeclarations": declarations}]));
    }
    Value::Object(body)
}

/// Adjacent text parts of a merged Content joined into one.
fn join_text(parts: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for p in parts {
        let text = p.get("text").and_then(Value::as_str).filter(|_| p.as_object().is_some_and(|o| o.len() == 1));
        if let (Some(t), Some(Value::Object(last))) = (text, out.last_mut()) {
            if last.len() == 1 {
                if let Some(Value::String(l)) = last.get_mut("text") {
                    l.push_str("\n\n");
                    l.push_str(t);
                    continue;
                }
            }
        }
        out.push(p);
    }
    out
}

/// The parts of one envelope message.
fn parts(envelope: &Envelope, calls: &Calls, mi: usize, runs: Vec<Run>, notices: &mut Vec<Notice>) -> Vec<Value> {
    let mut out = Vec::new();
    for run in runs {
        match run {
            Run::Text(t) => out.push(json!({"text": t})),
            Run::Piece(sj, p) => {
                if let Some(v) = piece(envelope, calls, mi, sj, p, notices) {
                    out.push(v);
                }
            }
        }
    }
    out
}

fn piece(
    envelope: &Envelope,
    calls: &Calls,
    mi: usize,
    sj: usize,
    p: &Piece,
    notices: &mut Vec<Notice>,
) -> Option<Value> {
    let seg = segment_at(envelope, mi, sj);
    Some(match (p, seg) {
        (Piece::Call { name, .. }, Some(Segment::ToolCallRequest(r))) => {
            let mut f = Map::new();
            f.insert("name".into(), name.as_str().into());
            f.insert("args".into(), Value::Object(r.arguments.clone()));
            if let Some(id) = &r.call_id {
                f.insert("id".into(), id.as_str().into());
            }
            json!({"functionCall": f})
        }
        (Piece::Result { content, .. }, Some(Segment::ToolCallResult(r))) => {
            let request = calls.request_for(At { message: mi, segment: sj });
            let name = request.map_or(r.tool_name.as_str(), |q| q.tool_name.as_str());
            let key = if r.success { "output" } else { "error" };
            let mut f = Map::new();
            f.insert("name".into(), name.into());
            f.insert("response".into(), json!({ key: content }));
            if let Some(id) = request.and_then(|q| q.call_id.as_ref()) {
                f.insert("id".into(), id.as_str().into());
            }
            json!({"functionResponse": f})
        }
        (Piece::Image { url }, _) => match base64_data_url(url) {
            Some((mime, data)) => json!({"inlineData": {"mimeType": mime, "data": data}}),
            None => {
                notices.push(Notice::new(
                    format!("messages[{mi}].segments[{sj}].url"),
                    "Gemini reads a file by URL from its Files API, Cloud Storage or YouTube (recent models also public https URLs); this image is sent as `fileData` by its URL",
                ));
                let mut f = Map::new();
                if let Some(mime) = image_mime(url) {
                    f.insert("mimeType".into(), mime.into());
                }
                f.insert("fileUri".into(), url.as_str().into());
                json!({"fileData": f})
            }
        },
        // A piece whose segment is not what made it cannot happen for the
        // contributions of this envelope; send nothing rather than guess.
        _ => return None,
    })
}

/// An image's MIME type from its URL's extension, when it says.
fn image_mime(url: &str) -> Option<&'static str> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "heic" => "image/heic",
        "heif" => "image/heif",
        _ => return None,
    })
}
