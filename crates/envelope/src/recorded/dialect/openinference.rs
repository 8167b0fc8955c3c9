//! OpenInference (Arize's instrumentations): span kind `LLM`.
//!
//! When `input.value` is JSON (`input.mime_type` `application/json`) and is
//! a request body of a format the importers read, the request is that body,
//! imported as it was sent (lossless, by the importers' round-trip law), and
//! the indexed message attributes (which repeat it) are not read. Otherwise:
//!
//! | recorded | envelope |
//! |---|---|
//! | `llm.input_messages.{i}.message.role` / `.content` | message `i` |
//! | `….message.contents.{j}.message_content.type` `text` / `image` (`.text`, `.image.image.url`) | text, media |
//! | `….message.tool_calls.{j}.tool_call.id` / `.function.name` / `.function.arguments` | `tool_call_request`s |
//! | `….message.tool_call_id` | the `tool_call_result` it answers |
//! | `….message.name` | the message's `name` |
//! | `llm.tools.{i}.tool.json_schema` (the provider's tool, JSON) | `tool_overview` items |
//! | `llm.invocation_parameters` (JSON) | `params` |
//! | `llm.model_name`, `llm.provider` / `llm.system` | the model, the provider |
//! | `llm.output_messages.*` | the call's output |
//! | `llm.token_count.*` | usage |
//! | `llm.prompt_template.*` | a notice (the template and its variables are not the request) |

use serde_json::Value;

use super::events::data_url_or_uri;
use super::openllmetry::indices;
use super::{attr_path, json_of, Attrs, Read};
use crate::import::{self, Format};
use crate::recorded::build::Conv;
use crate::recorded::Dialect;
use crate::types::{MessageExt, RequestFormat, Role, Segment};

/// What OpenInference writes in place of a hidden value.
pub const REDACTED: &str = "__REDACTED__";

pub(crate) fn read(a: &mut Attrs, format: Option<RequestFormat>) -> Read {
    let mut r = Read::new(Dialect::Openinference);
    a.mark("openinference.span.kind");
    if let Some(imported) = body(a) {
        a.mark("input.value");
        a.mark("input.mime_type");
        for k in a.keys_with("llm.input_messages.").into_iter().chain(a.keys_with("llm.tools.")) {
            a.mark(k);
        }
        a.mark("llm.invocation_parameters");
        r.imported = Some(imported);
    } else {
        let mut conv = Conv::new(format);
        for i in indices(a, "llm.tools.") {
            let key = format!("llm.tools.{i}.tool.json_schema");
            let Some(v) = a.get(&key) else { continue };
            super::genai::tools(
                &mut conv,
                &attr_path(&key),
                &Value::Array(vec![json_of(v).unwrap_or_else(|_| v.clone())]),
            );
        }
        for i in indices(a, "llm.input_messages.") {
            message(a, &mut conv, &format!("llm.input_messages.{i}.message"));
        }
        if let Some(v) = a.get("llm.invocation_parameters") {
            match json_of(v) {
                Ok(Value::Object(mut p)) => {
                    if let Some(Value::String(m)) = p.shift_remove("model") {
                        r.model = Some(m);
                    }
                    r.params = Some(p);
                }
                Ok(other) => conv.unplaced(attr_path("llm.invocation_parameters"), &other),
                Err(e) => conv.note(attr_path("llm.invocation_parameters"), e),
            }
        }
        if conv.has_messages() || a.map.get("input.value").and_then(Value::as_str) == Some(REDACTED) {
            // The body is then read from the attributes: `input.value` repeats them.
            a.mark("input.value");
            a.mark("input.mime_type");
        }
        r.conv = Some(conv);
    }
    let outputs = indices(a, "llm.output_messages.");
    if !outputs.is_empty() {
        let mut out = Conv::new(format);
        for i in outputs {
            message(a, &mut out, &format!("llm.output_messages.{i}.message"));
        }
        r.output = Some(out);
    }
    for k in ["output.value", "output.mime_type", "llm.provider", "llm.system", "llm.model_name"] {
        a.mark(k);
    }
    r
}

/// `input.value` as a request body, imported.
fn body(a: &mut Attrs) -> Option<import::Imported> {
    let mime = a.map.get("input.mime_type").and_then(Value::as_str).unwrap_or("application/json");
    if !mime.contains("json") {
        return None;
    }
    let text = a.map.get("input.value")?.as_str()?;
    if text == REDACTED {
        return None;
    }
    let value: Value = serde_json::from_str(text).ok()?;
    let format = import::detect(&value).ok().filter(|f| *f != Format::Envelope)?;
    import::import_value(value, Some(format)).ok()
}

fn message(a: &mut Attrs, conv: &mut Conv, base: &str) {
    let k = |f: &str| format!("{base}.{f}");
    let role_text = a.str(&k("role")).unwrap_or("user");
    let mut ext = MessageExt::default();
    let role = match role_text {
        "system" => Role::System,
        "developer" => {
            ext.provider_role = Some("developer".into());
            Role::System
        }
        "assistant" | "model" | "ai" => Role::Assistant,
        "tool" | "function" => Role::Tool,
        "user" | "human" => Role::User,
        other => {
            conv.note(attr_path(&k("role")), format!("the role `{other}` is read as user"));
            ext.provider_role = Some(other.to_string());
            Role::User
        }
    };
    ext.name = a.str(&k("name")).map(str::to_string);
    let mut segs: Vec<Segment> = Vec::new();
    if role == Role::Tool {
        let id = a.str(&k("tool_call_id")).map(str::to_string);
        let content = a.get(&k("content")).cloned().unwrap_or(Value::Null);
        segs.push(conv.result(id.as_deref(), None, &content));
        conv.push(Role::Tool, segs, ext);
        return;
    }
    if let Some(v) = a.get(&k("content")) {
        match v {
            Value::String(s) => segs.extend(conv.text(s, role)),
            other => conv.unplaced(attr_path(&k("content")), other),
        }
    }
    let parts = indices(a, &k("contents."));
    if parts.iter().any(|j| a.map.contains_key(&format!("{base}.contents.{j}.message_content.type"))) {
        ext.content_parts = true;
    }
    for j in parts {
        let c = |f: &str| format!("{base}.contents.{j}.message_content.{f}");
        if !a.map.keys().any(|key| key.starts_with(&c(""))) {
            continue;
        }
        match a.str(&c("type")).unwrap_or("text") {
            "image" => {
                let url = a.str(&c("image.image.url")).unwrap_or("").to_string();
                segs.extend(data_url_or_uri(conv, &attr_path(&c("image.image.url")), Some("image"), &url));
            }
            "reasoning" | "thinking" => {
                let mut seg = conv.reasoning(a.str(&c("text")).unwrap_or(""));
                if let Segment::Reasoning(r) = &mut seg {
                    r.signature = a.str(&c("signature")).map(str::to_string);
                }
                segs.push(seg);
            }
            _ => {
                let text = a.str(&c("text")).unwrap_or("").to_string();
                segs.extend(conv.text(&text, role));
            }
        }
    }
    // Calls are recorded under `tool_calls`, and by some instrumentations
    // also among the `contents` (the same calls again): those are read only
    // when `tool_calls` is absent.
    let listed = indices(a, &k("tool_calls."));
    let (calls_base, calls) = if listed.is_empty() {
        let in_contents: Vec<u64> = indices(a, &k("contents."))
            .into_iter()
            .filter(|j| a.map.contains_key(&format!("{base}.contents.{j}.tool_call.function.name")))
            .collect();
        ("contents", in_contents)
    } else {
        for j in indices(a, &k("contents.")) {
            for f in ["id", "function.name", "function.arguments"] {
                a.mark(&format!("{base}.contents.{j}.tool_call.{f}"));
            }
        }
        ("tool_calls", listed)
    };
    for j in calls {
        let t = |f: &str| format!("{base}.{calls_base}.{j}.tool_call.{f}");
        let id = a.str(&t("id")).map(str::to_string);
        let name = a.str(&t("function.name")).unwrap_or("").to_string();
        let args = a.get(&t("function.arguments")).cloned();
        segs.push(conv.call(&attr_path(&t("function.name")), id.as_deref(), &name, args.as_ref()));
    }
    conv.push(role, segs, ext);
}
