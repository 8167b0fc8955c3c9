//! The OpenAI Responses request (`POST /v1/responses`).
//!
//! Body keys in this order: `model`, the settings, `instructions`, `input`, `tools`.
//! - `instructions`: the text of the system messages that come before the
//!   conversation (before the first message that sends anything), joined by
//!   `"\n\n"`. A later system message stays in place as an input message
//!   with role `system`.
//! - A user message is `{"role":"user","content": text}`, or, with images,
//!   `input_text` and `input_image` parts (`detail: "auto"`) in segment order.
//! - An assistant message gives, in segment order, `{"role":"assistant",
//!   "content": text}` for each run of text and a `function_call` item
//!   (`call_id`, `name`, compact `arguments` string) for each call.
//! - A tool message gives one `function_call_output` item (`call_id`,
//!   `output`) per result. Responses has no error flag: `success: false` is
//!   a notice.
//! - Tools are flat `function` tools with `"strict": false`: Responses makes
//!   functions strict by default, which refuses schemas that Chat accepts, so
//!   the export keeps Chat's (and the envelope's) meaning.

use serde_json::{json, Map, Value};

use super::params::{self, Provider};
use super::{named_model, note_failed_results, tool_specs, ContentPart, Contributions, Piece, Run, DEFAULT_MODEL};
use crate::diag::Notice;
use crate::types::{Envelope, Role};

/// The OpenAI Responses request body for `envelope`.
pub fn request(envelope: &Envelope, c: &Contributions, notices: &mut Vec<Notice>) -> Value {
    let mut body = Map::new();
    let model = named_model(envelope).unwrap_or(DEFAULT_MODEL);
    if model.starts_with("claude") {
        notices.push(Notice::new("model", format!("`{model}` is not an OpenAI model; it is sent as written")));
    }
    body.insert("model".into(), model.into());
    if let Some(p) = &envelope.params {
        body.extend(params::translate(p, Provider::OpenaiResponses, notices));
    }
    note_failed_results(envelope, c, "OpenAI Responses", notices);

    let mut instructions: Vec<String> = Vec::new();
    let mut input: Vec<Value> = Vec::new();
    for m in &c.messages {
        if m.pieces.is_empty() {
            continue;
        }
        match m.role {
            Role::System if input.is_empty() => instructions.push(m.text()),
            Role::System => input.push(json!({"role": "system", "content": m.text()})),
            Role::User if m.has_images() => {
                let parts: Vec<Value> = m
                    .content_parts()
                    .into_iter()
                    .map(|p| match p {
                        ContentPart::Text(text) => json!({"type": "input_text", "text": text}),
                        ContentPart::Image(url) => json!({"type": "input_image", "image_url": url, "detail": "auto"}),
                    })
                    .collect();
                input.push(json!({"role": "user", "content": parts}));
            }
            Role::User => input.push(json!({"role": "user", "content": m.text()})),
            Role::Assistant => {
                for run in m.runs() {
                    match run {
                        Run::Text(text) => input.push(json!({"role": "assistant", "content": text})),
                        Run::Piece(_, Piece::Call { id, name, arguments }) => input.push(
                            json!({"type": "function_call", "call_id": id, "name": name, "arguments": arguments}),
                        ),
                        Run::Piece(..) => {}
                    }
                }
            }
            Role::Tool => {
                for (_, p) in &m.pieces {
                    if let Piece::Result { tool_call_id, content } = p {
                        input.push(json!({"type": "function_call_output", "call_id": tool_call_id, "output": content}));
                    }
                }
            }
        }
    }
    let instructions = instructions.join("\n\n");
    if !instructions.is_empty() {
        body.insert("instructions".into(), instructions.into());
    }
    body.insert("input".into(), input.into());
    let tools: Vec<Value> = tool_specs(c)
        .map(|(name, description, schema)| {
            let mut t = Map::new();
            t.insert("type".into(), "function".into());
            t.insert("name".into(), name.into());
            if !description.is_empty() {
                t.insert("description".into(), description.into());
            }
            t.insert("parameters".into(), schema.clone());
            t.insert("strict".into(), false.into());
            Value::Object(t)
        })
        .collect();
    if !tools.is_empty() {
        body.insert("tools".into(), tools.into());
    }
    Value::Object(body)
}
