//! Every export is checked against an independent implementation of its
//! provider's request types: OpenAI Chat and OpenAI Responses against
//! async-openai's `CreateChatCompletionRequest` and `CreateResponse`
//! (deserialised, serialised back, and compared, so an unknown or
//! misspelt field cannot pass unseen); Anthropic Messages against
//! Anthropic's own TypeScript SDK (`@anthropic-ai/sdk`'s
//! `MessageCreateParams`), type-checked by `tsc --strict`: object literals
//! get TypeScript's excess-property check, so an unknown field, a missing
//! required one, or a wrong literal (`"type": "tool_results"`) fails.
//!
//! The exports checked: the demos, the request corpus (imported), and 150
//! generated envelopes. The Gemini and Bedrock exports: provider_types_gemini_bedrock.rs.

use std::path::PathBuf;
use std::process::Command;

use async_openai::types::chat::CreateChatCompletionRequest;
use async_openai::types::responses::CreateResponse;
use envelope::export::{render, Target};
use serde_json::Value;

mod common;
use common::root;
#[path = "sdk_types/envelopes.rs"]
mod envelopes;
use envelopes::envelopes;

/// Chat: async-openai omits a message's `null` fields (an assistant's
/// `"content": null`, `"refusal": null`), which OpenAI reads as absent.
fn chat_expected(mut v: Value) -> Value {
    for m in v["messages"].as_array_mut().unwrap() {
        m.as_object_mut().unwrap().retain(|_, f| !f.is_null());
    }
    v
}

/// Responses: async-openai writes the default `"type": "message"` of an
/// input message, and has no field for `user` (deprecated by OpenAI in
/// favour of `safety_identifier`, still accepted by the API).
fn responses_expected(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("user");
    for it in v["input"].as_array_mut().into_iter().flatten() {
        let o = it.as_object_mut().unwrap();
        if !o.contains_key("type") {
            o.insert("type".into(), "message".into());
        }
    }
    v
}

/// The first place two values differ, as a JSON pointer.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => {
                        if let Some(d) = first_difference(p, q, format!("{at}/{k}")) {
                            return Some(d);
                        }
                    }
                    // A typed field the SDK writes as `null` where the request has none.
                    (None, Some(Value::Null)) | (Some(Value::Null), None) => {}
                    (p, q) => return Some(format!("{at}/{k}: {p:?} vs {q:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| first_difference(p, q, format!("{at}/{i}")))
        }
        _ if a == b => None,
        // Typed floats write `1` as `1.0`, and f32 rounds: numbers compare by value.
        (Value::Number(x), Value::Number(y)) if (x.as_f64().unwrap() - y.as_f64().unwrap()).abs() < 1e-6 => None,
        _ => Some(format!("{at}: {a} vs {b}")),
    }
}

#[test]
fn openai_exports_are_valid_typed_requests() {
    for (what, e) in envelopes() {
        let chat: Value = serde_json::from_str(&render(&e, Target::OpenaiChat).text).unwrap();
        let typed: CreateChatCompletionRequest = serde_json::from_value(chat.clone())
            .unwrap_or_else(|err| panic!("{what}: not a Chat request: {err}\n{chat:#}"));
        let back = serde_json::to_value(&typed).unwrap();
        let diff = first_difference(&back, &chat_expected(chat), String::new());
        assert!(diff.is_none(), "{what}: Chat typed round trip: {diff:?}");

        let resp: Value = serde_json::from_str(&render(&e, Target::OpenaiResponses).text).unwrap();
        let typed: CreateResponse = serde_json::from_value(resp.clone())
            .unwrap_or_else(|err| panic!("{what}: not a Responses request: {err}\n{resp:#}"));
        let back = serde_json::to_value(&typed).unwrap();
        let diff = first_difference(&back, &responses_expected(resp), String::new());
        assert!(diff.is_none(), "{what}: Responses typed round trip: {diff:?}");
    }
}

/// Type-checks `bodies` as Anthropic `MessageCreateParams` with `tsc
/// --strict`; the compiler's output on failure.
fn tsc_check(name: &str, bodies: &[(String, String)]) -> Result<(), String> {
    let tools = root().join(".tools/node_modules");
    let tsc = tools.join("typescript/bin/tsc");
    let sdk = tools.join("@anthropic-ai/sdk/resources/messages/messages");
    assert!(
        tsc.exists() && tools.join("@anthropic-ai/sdk").exists(),
        "missing {}: run scripts/setup.sh (it installs typescript and @anthropic-ai/sdk into .tools/)",
        tsc.display()
    );
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("anthropic-types");
    std::fs::create_dir_all(&dir).unwrap();
    let mut ts = format!("import type {{ MessageCreateParams }} from {:?};\n", sdk.display().to_string());
    for (i, (what, body)) in bodies.iter().enumerate() {
        ts.push_str(&format!("// {}\nexport const r{i}: MessageCreateParams = {body};\n", what.replace('\n', " ")));
    }
    let file = dir.join(format!("{name}.ts"));
    std::fs::write(&file, ts).unwrap();
    let config = serde_json::json!({
        "compilerOptions": {
            "noEmit": true, "strict": true, "skipLibCheck": true, "target": "es2022",
            "module": "esnext", "moduleResolution": "bundler", "types": [], "pretty": false
        },
        "files": [file.display().to_string()]
    });
    let config_file = dir.join(format!("{name}.tsconfig.json"));
    std::fs::write(&config_file, config.to_string()).unwrap();
    let out = Command::new("node").arg(&tsc).arg("-p").arg(&config_file).output().expect("node runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    }
}

#[test]
fn anthropic_exports_type_check_against_anthropics_sdk() {
    let bodies: Vec<(String, String)> =
        envelopes().into_iter().map(|(what, e)| (what, render(&e, Target::Anthropic).text)).collect();
    assert!(bodies.len() > 150);
    if let Err(out) = tsc_check("exports", &bodies) {
        panic!("the Anthropic exports do not type-check against @anthropic-ai/sdk:\n{out}");
    }
}

#[test]
fn the_anthropic_check_catches_wrong_requests() {
    let wrong = [
        r#"{"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [{"type": "tool_results", "tool_use_id": "a"}]}]}"#,
        r#"{"model": "m", "messages": [{"role": "user", "content": "hi"}]}"#,
        r#"{"model": "m", "max_tokens": 1, "messages": [{"role": "tool", "content": "hi"}]}"#,
        r#"{"model": "m", "max_tokens": 1, "messages": [], "tools": [{"name": "f", "parameters": {}}]}"#,
        r#"{"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "url", "href": "x"}}]}]}"#,
        r#"{"model": "m", "max_tokens": 1, "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "is_error": "yes"}]}]}"#,
    ];
    let bodies: Vec<(String, String)> =
        wrong.iter().enumerate().map(|(i, b)| (format!("wrong {i}"), b.to_string())).collect();
    let out = tsc_check("wrong", &bodies).expect_err("wrong requests type-check");
    // Body i is on line 3 + 2i of the file: each has its own error.
    for (i, body) in wrong.iter().enumerate() {
        let line = format!("wrong.ts({},", 3 + 2 * i);
        assert!(out.contains(&line), "body {i} was accepted: {body}\n{out}");
    }
}
