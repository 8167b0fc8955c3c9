//! OpenLLMetry (Traceloop's instrumentations): the request and the reply as
//! indexed span attributes.
//!
//! | recorded | envelope |
//! |---|---|
//! | `gen_ai.prompt.{i}.role` / `.content` | message `i` (`system`, `user`, `assistant`, `tool`; `developer` → system) |
//! | `.content` holding a JSON list of content parts | those parts (text, images, tool results) |
//! | `gen_ai.prompt.{i}.tool_calls.{j}.id` / `.name` / `.arguments` | `tool_call_request`s |
//! | `gen_ai.prompt.{i}.tool_call_id` | the `tool_call_result` it answers |
//! | `llm.request.functions.{i}.name` / `.description` / `.parameters` | `tool_overview` items |
//! | `gen_ai.completion.{i}.*` (+ `.finish_reason`) | the call's output |
//! | `gen_ai.request.*`, `llm.top_k`, `llm.frequency_penalty`, `llm.presence_penalty`, `llm.chat.stop_sequences`, `llm.user`, `llm.is_streaming` | `params` |

use serde_json::Value;

use super::events::content_part_public as content_part;
use super::{attr_path, Attrs, Read};
use crate::recorded::build::{as_text, Conv};
use crate::recorded::Dialect;
use crate::types::{MessageExt, RequestFormat, Role, Segment};

/// The indices `i` of the keys `{prefix}{i}.…`, in numeric order.
pub(crate) fn indices(a: &Attrs, prefix: &str) -> Vec<u64> {
    let mut out: Vec<u64> =
        a.map.keys().filter_map(|k| k.strip_prefix(prefix)?.split('.').next()?.parse().ok()).collect();
    out.sort_unstable();
    out.dedup();
    out
}

pub(crate) fn read(a: &mut Attrs, format: Option<RequestFormat>) -> Read {
    let mut r = Read::new(Dialect::Openllmetry);
    let mut conv = Conv::new(format);
    for i in indices(a, "llm.request.functions.") {
        let k = |f: &str| format!("llm.request.functions.{i}.{f}");
        let name = a.str(&k("name")).unwrap_or("").to_string();
        let description = a.str(&k("description")).unwrap_or("").to_string();
        let schema = a
            .get(&k("parameters"))
            .or_else(|| a.get(&k("input_schema")))
            .map(|v| super::json_of(v).unwrap_or_else(|_| v.clone()));
        conv.tool(&attr_path(&k("name")), &name, &description, schema, None);
    }
    for i in indices(a, "gen_ai.prompt.") {
        message(a, &mut conv, &format!("gen_ai.prompt.{i}"), &mut vec![]);
    }
    let completions = indices(a, "gen_ai.completion.");
    if !completions.is_empty() {
        let mut out = Conv::new(format);
        for i in completions {
            message(a, &mut out, &format!("gen_ai.completion.{i}"), &mut r.finish_reasons);
        }
        r.output = Some(out);
    }
    r.conv = Some(conv);
    r
}

fn message(a: &mut Attrs, conv: &mut Conv, base: &str, finish: &mut Vec<String>) {
    let k = |f: &str| format!("{base}.{f}");
    let role_text =
        a.str(&k("role")).unwrap_or(if base.starts_with("gen_ai.completion") { "assistant" } else { "user" });
    let mut ext = MessageExt::default();
    let role = match role_text {
        "system" => Role::System,
        "developer" => {
            ext.provider_role = Some("developer".into());
            Role::System
        }
        "assistant" | "model" => Role::Assistant,
        "tool" | "function" => Role::Tool,
        "user" => Role::User,
        // A reply's reasoning (Anthropic's thinking), as a message of its own.
        "thinking" => {
            let text = a.get(&k("content")).map(as_text).unwrap_or_default();
            let seg = conv.reasoning(&text);
            conv.push(Role::Assistant, vec![seg], MessageExt::default());
            if let Some(reason) = a.get(&k("finish_reason")) {
                finish.push(as_text(reason));
            }
            return;
        }
        other => {
            conv.note(attr_path(&k("role")), format!("the role `{other}` is read as user"));
            ext.provider_role = Some(other.to_string());
            Role::User
        }
    };
    if let Some(reason) = a.get(&k("finish_reason")) {
        finish.push(as_text(reason));
    }
    let content = a.get(&k("content")).cloned();
    let mut segs: Vec<Segment> = Vec::new();
    let mut results: Vec<Segment> = Vec::new();
    // A Responses reply's reasoning: its summary parts.
    if let Some(v) = a.get(&k("reasoning")).cloned() {
        let summary: Option<Vec<String>> = super::json_of(&v).ok().and_then(|l| {
            l.as_array()?.iter().map(|p| p.get("text").and_then(Value::as_str).map(str::to_string)).collect()
        });
        match summary {
            Some(summary) => {
                let mut seg = conv.reasoning("");
                if let Segment::Reasoning(r) = &mut seg {
                    r.summary = Some(summary);
                }
                segs.push(seg);
            }
            None => conv.unplaced(attr_path(&k("reasoning")), &v),
        }
    }
    if role == Role::Tool {
        let id = a.str(&k("tool_call_id"));
        segs.push(conv.result(id, None, &content.unwrap_or(Value::Null)));
        conv.push(Role::Tool, segs, ext);
        return;
    }
    match content {
        Some(Value::String(s)) => match parts(&s) {
            Some(list) => {
                ext.content_parts = true;
                for (j, part) in list.iter().enumerate() {
                    content_part(
                        conv,
                        &format!("{}[{j}]", attr_path(&k("content"))),
                        role,
                        part,
                        &mut segs,
                        &mut results,
                    );
                }
            }
            None => segs.extend(conv.text(&s, role)),
        },
        Some(Value::Null) | None => {}
        Some(other) => conv.unplaced(attr_path(&k("content")), &other),
    }
    for j in indices(a, &k("tool_calls.")) {
        let t = |f: &str| format!("{base}.tool_calls.{j}.{f}");
        let id = a.str(&t("id")).map(str::to_string);
        let name = a.str(&t("name")).unwrap_or("").to_string();
        let args = a.get(&t("arguments")).cloned();
        if id.as_deref().is_some_and(|i| conv.has_call(i)) {
            // Also among the content's blocks (`tool_use`): read once.
            continue;
        }
        segs.push(conv.call(&attr_path(&t("name")), id.as_deref(), &name, args.as_ref()));
    }
    // Older: one `function_call`.
    if let Some(name) = a.str(&k("function_call.name")).map(str::to_string) {
        let args = a.get(&k("function_call.arguments")).cloned();
        segs.push(conv.call(&attr_path(&k("function_call.name")), None, &name, args.as_ref()));
    }
    if !results.is_empty() {
        conv.push(Role::Tool, results, MessageExt::default());
        if segs.is_empty() {
            return;
        }
        ext.continues = true;
    }
    conv.push(role, segs, ext);
}

/// A content that is a JSON list of content parts, as OpenLLMetry writes a
/// list content: objects with a `type` (OpenAI, Anthropic), or Bedrock
/// Converse blocks (one key: `text`, `image`, `toolUse`, …).
fn parts(s: &str) -> Option<Vec<Value>> {
    if !s.trim_start().starts_with('[') {
        return None;
    }
    let block = |p: &Value| {
        p.get("type").is_some_and(Value::is_string)
            || p.as_object().is_some_and(|o| {
                o.len() == 1
                    && ["text", "image", "document", "video", "toolUse", "toolResult"]
                        .contains(&o.keys().next().map_or("", |k| k.as_str()))
            })
    };
    match serde_json::from_str::<Value>(s).ok()? {
        Value::Array(list) if !list.is_empty() && list.iter().all(block) => Some(list),
        _ => None,
    }
}
