//! The OpenAI Chat Completions request (PROTOCOL §4): the request the app
//! shows, copies and downloads, that `pep export` prints and that the Budget
//! tab counts.
//!
//! Its output for an envelope without `params` is exactly §4. With `params`,
//! the settings (translated to Chat's spelling, see [`super::params`]) come
//! right after `model`, before `messages`: the request's settings read first,
//! then the conversation, as in OpenAI's own examples.

use serde_json::{json, Map, Value};

use super::params::{self, Provider};
use super::{named_model, ContentPart, Contributions, MessagePieces, Piece, DEFAULT_MODEL};
use crate::diag::Notice;
use crate::types::{Envelope, Role};

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
    request(envelope, c, keep, keep_tools, &mut Vec::new())
}

/// [`openai_request_filtered`], with a notice for every setting that does
/// not carry over and every result whose `success: false` OpenAI cannot say.
pub fn request(
    envelope: &Envelope,
    c: &Contributions,
    keep: Option<&[bool]>,
    keep_tools: bool,
    notices: &mut Vec<Notice>,
) -> Value {
    // An envelope imported from a Chat request is that request again
    // (docs/EXTENSIONS.md); a truncated one is written from what it means.
    if envelope.source == Some(crate::types::RequestFormat::Openai) && keep.is_none() && keep_tools {
        return super::replay::openai_chat::request(envelope, notices);
    }
    let mut body = Map::new();
    // `envelope.model or "gpt-4o"`: an empty model is no model (as for `parsedContent`).
    let model = named_model(envelope).unwrap_or(DEFAULT_MODEL);
    if model.starts_with("claude") {
        notices.push(Notice::new("model", format!("`{model}` is not an OpenAI model; it is sent as written")));
    }
    body.insert("model".into(), model.into());
    let tools_kept = keep_tools && !c.tools.is_empty();
    if let Some(p) = &envelope.params {
        for (k, v) in params::translate(p, Provider::OpenaiChat, notices) {
            // A truncated request without its tools cannot choose among them.
            if !keep_tools && !c.tools.is_empty() && (k == "tool_choice" || k == "parallel_tool_calls") {
                continue;
            }
            body.insert(k, v);
        }
    }
    super::note_failed_results(envelope, c, "OpenAI", notices);
    let messages: Vec<Value> = c
        .messages
        .iter()
        .enumerate()
        .filter(|(i, _)| keep.is_none_or(|k| k.get(*i).copied().unwrap_or(true)))
        .flat_map(|(_, m)| message_json(m))
        .collect();
    body.insert("messages".into(), messages.into());
    if tools_kept {
        body.insert("tools".into(), c.tools.clone().into());
    }
    Value::Object(body)
}

/// The OpenAI Chat Completions request body for `envelope`.
pub fn openai_request(envelope: &Envelope) -> Value {
    openai_request_filtered(envelope, &super::contributions(envelope), None, true)
}

/// [`openai_request`] as the text [`to_pretty`] gives.
pub fn openai_json(envelope: &Envelope) -> String {
    super::to_pretty(&openai_request(envelope))
}

/// Where each envelope message's entry starts in the pretty request
/// ([`super::to_pretty`] of [`openai_request`] for the same contributions):
/// the 0-based line of the first `messages[]` element it gives, or `None`
/// for a message that sends nothing. The line map is read from the text
/// itself (an element of `messages` opens on a line that is exactly four
/// spaces and `{`; strings never span lines in pretty JSON), so it holds for
/// whatever settings come before `messages`.
pub fn message_lines(c: &Contributions, pretty: &str) -> Vec<Option<usize>> {
    message_lines_counted(c.messages.iter().map(|m| message_json(m).len()), pretty)
}

/// [`message_lines`] for the request [`request`] writes for `envelope`
/// (its replay when the envelope came from a Chat request).
pub fn message_lines_of(envelope: &Envelope, c: &Contributions, pretty: &str) -> Vec<Option<usize>> {
    if envelope.source == Some(crate::types::RequestFormat::Openai) {
        return message_lines_counted(super::replay::openai_chat::entries(envelope), pretty);
    }
    message_lines(c, pretty)
}

/// The lines where the entries start, given how many entries each message gives.
fn message_lines_counted(counts: impl Iterator<Item = usize>, pretty: &str) -> Vec<Option<usize>> {
    let mut starts = Vec::new();
    let mut inside = false;
    for (i, line) in pretty.lines().enumerate() {
        if !inside {
            inside = line == "  \"messages\": [";
        } else if line == "    {" {
            starts.push(i);
        } else if line.starts_with("  ]") {
            break;
        }
    }
    let mut next = 0;
    counts
        .map(|n| {
            let at = (n > 0).then(|| starts.get(next).copied()).flatten();
            next += n;
            at
        })
        .collect()
}

#[cfg(test)]
mod line_tests {
    use super::*;

    #[test]
    fn each_message_maps_to_the_line_its_entry_opens_on() {
        let e = crate::parse(
            r#"{"version":"1.0","params":{"temperature":0.2},"messages":[
            {"id":"s","role":"system","timestamp":1,"segments":[{"kind":"system_prompt","content":"line\nbreak \"q\"","collapsed":false}]},
            {"id":"a","role":"assistant","timestamp":2,"segments":[{"kind":"tool_call_request","toolName":"t","arguments":{"x":"    {"},"collapsed":false},{"kind":"tool_call_request","toolName":"t","arguments":{},"collapsed":false}]},
            {"id":"t","role":"tool","timestamp":3,"segments":[
              {"kind":"tool_call_result","toolName":"t","result":"r1","success":true,"collapsed":false},
              {"kind":"tool_call_result","toolName":"t","result":"r2","success":true,"collapsed":false}]},
            {"id":"e","role":"user","timestamp":4,"segments":[]},
            {"id":"u","role":"user","timestamp":5,"segments":[{"kind":"text","content":"hi"}]}]}"#,
        )
        .unwrap()
        .envelope;
        let c = super::super::contributions(&e);
        let pretty = super::super::to_pretty(&openai_request(&e));
        let lines: Vec<&str> = pretty.lines().collect();
        let map = message_lines(&c, &pretty);
        assert_eq!(map.len(), 5);
        for (m, want) in [(0, "\"system\""), (1, "\"assistant\""), (2, "\"tool\""), (4, "\"user\"")] {
            let at = map[m].expect("sends something");
            assert_eq!(lines[at], "    {", "message {m}");
            assert!(lines[at + 1].contains(want), "message {m}: {}", lines[at + 1]);
        }
        assert_eq!(map[3], None, "an empty message sends nothing");
        // The tool message gives two entries; the user message's is the last.
        let value: Value = serde_json::from_str(&pretty).unwrap();
        assert_eq!(value["messages"].as_array().unwrap().len(), 5);
        assert!(lines[map[4].unwrap() + 2].contains("hi"));
    }
}
