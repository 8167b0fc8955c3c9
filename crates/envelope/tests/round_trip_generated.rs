//! The round-trip law over generated request bodies (docs/EXTENSIONS.md): for
//! each format F, a body B made of the features F's requests send — text as
//! strings and as parts (with the export's own text forms inside), cache
//! breakpoints, reasoning with signatures and encrypted content, documents of
//! every source, images, server tools and their blocks, rich and failed tool
//! results, names, the developer role, tool fields — gives
//! `export(import(B), F) == B` as JSON, with no notice.

use envelope::export::{render, Target};
use envelope::import::{import_as, Format};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

mod common;
use common::arb_text;

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(o) => o,
        _ => unreachable!(),
    }
}

/// Adds `key: value` when `value` is some.
fn maybe(mut o: Value, key: &str, value: Option<Value>) -> Value {
    if let (Some(v), Some(map)) = (value, o.as_object_mut()) {
        map.insert(key.into(), v);
    }
    o
}

fn cache() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        3 => Just(None),
        1 => Just(Some(json!({"type": "ephemeral"}))),
        1 => Just(Some(json!({"type": "ephemeral", "ttl": "1h"}))),
    ]
}

fn args() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({})),
        "[a-z ]{0,12}".prop_map(|s| json!({"q": s})),
        (0i64..1000, any::<bool>()).prop_map(|(n, b)| json!({"n": n, "deep": {"b": b, "list": [1, "two", null]}})),
    ]
}

// ---------------------------------------------------------------- Anthropic

#[derive(Clone, Debug)]
enum ABlock {
    Text(String, Option<Value>, bool),
    Image(bool),
    Document(u8, Option<Value>),
    Thinking(String),
    Redacted,
    ToolUse(Value, Option<Value>),
    ServerSearch,
}

fn anthropic_block() -> impl Strategy<Value = ABlock> {
    prop_oneof![
        4 => (arb_text(), cache(), any::<bool>()).prop_map(|(t, c, cite)| ABlock::Text(t, c, cite)),
        1 => any::<bool>().prop_map(ABlock::Image),
        1 => (0u8..5, cache()).prop_map(|(k, c)| ABlock::Document(k, c)),
        1 => arb_text().prop_map(ABlock::Thinking),
        1 => Just(ABlock::Redacted),
        1 => (args(), cache()).prop_map(|(a, c)| ABlock::ToolUse(a, c)),
        1 => Just(ABlock::ServerSearch),
    ]
}

fn anthropic_body() -> impl Strategy<Value = Value> {
    let system = prop_oneof![
        Just(None),
        arb_text().prop_map(|t| Some(json!(t))),
        prop::collection::vec((arb_text(), cache()), 1..3).prop_map(|blocks| {
            Some(Value::Array(
                blocks
                    .into_iter()
                    .map(|(t, c)| maybe(json!({"type": "text", "text": t}), "cache_control", c))
                    .collect(),
            ))
        }),
    ];
    let turns = prop::collection::vec(
        (any::<bool>(), prop::collection::vec(anthropic_block(), 0..4), arb_text(), any::<bool>(), any::<bool>()),
        1..5,
    );
    let tools = prop::collection::vec((0u8..4, cache()), 0..3);
    (system, turns, tools).prop_map(|(system, turns, tools)| {
        let mut body = obj(json!({"model": "claude-sonnet-4-5", "max_tokens": 1024}));
        if let Some(s) = system {
            body.insert("system".into(), s);
        }
        let mut messages = Vec::new();
        let mut n = 0;
        for (as_string, blocks, text, error, rich) in turns {
            n += 1;
            // A user turn; with the calls of the assistant turn before, their results first.
            let pending: Vec<String> = match messages.last() {
                Some(Value::Object(m)) if m["role"] == "assistant" => m["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|b| b["type"] == "tool_use")
                    .map(|b| b["id"].as_str().unwrap().to_string())
                    .collect(),
                _ => vec![],
            };
            let mut user: Vec<Value> = pending
                .iter()
                .map(|id| {
                    let content = if rich {
                        json!([{"type": "text", "text": "found"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}])
                    } else {
                        json!("42")
                    };
                    let r = json!({"type": "tool_result", "tool_use_id": id, "content": content});
                    maybe(r, "is_error", error.then_some(json!(true)))
                })
                .collect();
            if as_string && user.is_empty() {
                messages.push(json!({"role": "user", "content": text}));
            } else {
                for b in &blocks {
                    match b {
                        ABlock::Text(t, c, _) => user.push(maybe(json!({"type": "text", "text": t}), "cache_control", c.clone())),
                        ABlock::Image(url) => user.push(if *url {
                            json!({"type": "image", "source": {"type": "url", "url": "https://x.test/p.png"}})
                        } else {
                            json!({"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}})
                        }),
                        ABlock::Document(k, c) => {
                            let d = match k {
                                0 => json!({"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"}}),
                                1 => json!({"type": "document", "source": {"type": "url", "url": "https://x.test/a.pdf"}, "title": "A", "citations": {"enabled": true}}),
                                2 => json!({"type": "document", "source": {"type": "file", "file_id": "file_011"}}),
                                3 => json!({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain words"}, "context": "ctx"}),
                                _ => json!({"type": "document", "source": {"type": "content", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, "title": "Chunks"}),
                            };
                            user.push(maybe(d, "cache_control", c.clone()));
                        }
                        _ => {}
                    }
                }
                messages.push(json!({"role": "user", "content": user}));
            }
            // An assistant turn: string or blocks.
            let mut assistant: Vec<Value> = Vec::new();
            for (k, b) in blocks.iter().enumerate() {
                match b {
                    ABlock::Thinking(t) => assistant.push(json!({"type": "thinking", "thinking": t, "signature": "EqQBCgIYAhIM"})),
                    ABlock::Redacted => assistant.push(json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3p"})),
                    ABlock::Text(t, _, cite) => assistant.push(if *cite {
                        json!({"type": "text", "text": t, "citations": [{"type": "web_search_result_location", "url": "https://x.test", "title": "X", "encrypted_index": "Eo8BCio", "cited_text": "c"}]})
                    } else {
                        json!({"type": "text", "text": t})
                    }),
                    ABlock::ToolUse(a, c) => assistant.push(maybe(
                        json!({"type": "tool_use", "id": format!("toolu_{n}_{k}"), "name": "get_weather", "input": a}),
                        "cache_control",
                        c.clone(),
                    )),
                    ABlock::ServerSearch => {
                        let id = format!("srvtoolu_{n}_{k}");
                        assistant.push(json!({"type": "server_tool_use", "id": id, "name": "web_search", "input": {"query": "q"}}));
                        assistant.push(json!({"type": "web_search_tool_result", "tool_use_id": id, "content": [{"type": "web_search_result", "url": "https://x.test", "title": "X", "encrypted_content": "EqgfCi", "page_age": null}]}));
                    }
                    _ => {}
                }
            }
            if as_string && assistant.is_empty() {
                messages.push(json!({"role": "assistant", "content": text}));
            } else {
                messages.push(json!({"role": "assistant", "content": assistant}));
            }
        }
        body.insert("messages".into(), messages.into());
        if !tools.is_empty() {
            let list: Vec<Value> = tools
                .iter()
                .enumerate()
                .map(|(i, (k, c))| {
                    let t = match k {
                        0 => json!({"name": format!("t{i}"), "description": "Looks things up.", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}),
                        1 => json!({"name": format!("t{i}"), "input_schema": {"type": "object"}, "strict": true, "defer_loading": true}),
                        2 => json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 3, "allowed_domains": ["x.test"]}),
                        _ => json!({"type": "custom", "name": format!("t{i}"), "description": "", "input_schema": {"type": "object"}}),
                    };
                    maybe(t, "cache_control", c.clone())
                })
                .collect();
            // get_weather is called: declare it too.
            let mut list = list;
            list.push(json!({"name": "get_weather", "input_schema": {"type": "object"}}));
            body.insert("tools".into(), list.into());
        }
        Value::Object(body)
    })
}

// ---------------------------------------------------------------- OpenAI Chat

fn chat_body() -> impl Strategy<Value = Value> {
    let part = prop_oneof![
        4 => arb_text().prop_map(|t| json!({"type": "text", "text": t})),
        1 => Just(json!({"type": "image_url", "image_url": {"url": "https://x.test/a.png", "detail": "high"}})),
        1 => Just(json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}})),
        1 => Just(json!({"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}})),
        1 => Just(json!({"type": "file", "file": {"file_id": "file-abc"}})),
        1 => Just(json!({"type": "file", "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"}})),
    ];
    let content =
        prop_oneof![arb_text().prop_map(Value::from), prop::collection::vec(part, 0..4).prop_map(Value::from)];
    let turn = (0u8..5, content, prop::option::of("[a-z_]{1,12}"), prop::collection::vec(args(), 0..3), any::<bool>());
    (prop::collection::vec(turn, 1..6), any::<bool>()).prop_map(|(turns, strict)| {
        let mut messages = Vec::new();
        for (n, (kind, content, name, calls, spaced)) in turns.into_iter().enumerate() {
            let text = match &content {
                Value::Array(parts) => Value::Array(parts.iter().filter(|p| p["type"] == "text").cloned().collect()),
                other => other.clone(),
            };
            let m = match kind {
                0 => json!({"role": "system", "content": text}),
                1 => json!({"role": "developer", "content": text}),
                2 => json!({"role": "user", "content": content}),
                _ => {
                    let ids: Vec<String> = (0..calls.len()).map(|k| format!("call_{n}_{k}")).collect();
                    let tool_calls: Vec<Value> = calls
                        .iter()
                        .zip(&ids)
                        .map(|(a, id)| {
                            let s = if spaced { serde_json::to_string_pretty(a).unwrap() } else { a.to_string() };
                            json!({"id": id, "type": "function", "function": {"name": "lookup", "arguments": s}})
                        })
                        .collect();
                    let mut m = obj(json!({"role": "assistant"}));
                    if tool_calls.is_empty() {
                        m.insert("content".into(), text);
                    } else {
                        m.insert("content".into(), Value::Null);
                        m.insert("tool_calls".into(), tool_calls.into());
                    }
                    if kind == 4 {
                        m.insert("refusal".into(), Value::Null);
                    }
                    messages.push(Value::Object(m));
                    for id in ids {
                        messages.push(json!({"role": "tool", "tool_call_id": id, "content": if spaced { json!([{"type": "text", "text": "ok"}]) } else { json!("ok") }}));
                    }
                    continue;
                }
            };
            messages.push(maybe(m, "name", name.map(Value::from)));
        }
        let mut f = obj(json!({"name": "lookup", "description": "Looks up.", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}));
        if strict {
            f.insert("strict".into(), true.into());
        }
        json!({"model": "gpt-4.1", "messages": messages, "tools": [{"type": "function", "function": f}], "temperature": 0.2})
    })
}

// ---------------------------------------------------------------- OpenAI Responses

fn responses_body() -> impl Strategy<Value = Value> {
    let part = prop_oneof![
        4 => arb_text().prop_map(|t| json!({"type": "input_text", "text": t})),
        1 => Just(json!({"type": "input_image", "image_url": "https://x.test/a.png", "detail": "low"})),
        1 => Just(json!({"type": "input_image", "file_id": "file-img", "detail": "auto"})),
        1 => Just(json!({"type": "input_file", "file_id": "file-pdf"})),
        1 => Just(json!({"type": "input_file", "file_url": "https://x.test/a.pdf"})),
    ];
    let item = (0u8..7, prop::collection::vec(part, 0..3), arb_text(), args(), any::<bool>());
    (prop::option::of(arb_text()), prop::collection::vec(item, 0..6), any::<bool>()).prop_map(|(instructions, items, string)| {
        let mut body = obj(json!({"model": "o4-mini", "store": false, "include": ["reasoning.encrypted_content"]}));
        if let Some(i) = instructions {
            body.insert("instructions".into(), i.into());
        }
        if string && items.is_empty() {
            body.insert("input".into(), "Hello".into());
        } else {
            let mut input = Vec::new();
            for (n, (kind, parts, text, a, typed)) in items.into_iter().enumerate() {
                let it = match kind {
                    0 => json!({"role": "user", "content": parts}),
                    1 => json!({"role": "developer", "content": text}),
                    2 => json!({"type": "message", "role": "assistant", "id": format!("msg_{n}"), "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": []}]}),
                    3 => json!({"type": "reasoning", "id": format!("rs_{n}"), "summary": [{"type": "summary_text", "text": text}], "encrypted_content": "gAAAAABo"}),
                    4 => {
                        let id = format!("call_{n}");
                        input.push(json!({"type": "function_call", "id": format!("fc_{n}"), "call_id": id, "name": "lookup", "arguments": a.to_string(), "status": "completed"}));
                        json!({"type": "function_call_output", "call_id": id, "output": text})
                    }
                    5 => json!({"type": "web_search_call", "id": format!("ws_{n}"), "status": "completed", "action": {"type": "search", "query": "q"}}),
                    _ => json!({"role": "user", "content": text}),
                };
                let it = if typed && kind <= 1 { maybe(it, "type", Some(json!("message"))) } else { it };
                input.push(it);
            }
            body.insert("input".into(), input.into());
        }
        body.insert(
            "tools".into(),
            json!([
                {"type": "function", "name": "lookup", "description": "Looks up.", "parameters": {"type": "object", "properties": {}}, "strict": true},
                {"type": "web_search"},
                {"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.deepwiki.com/mcp", "require_approval": "never"}
            ]),
        );
        Value::Object(body)
    })
}

fn law(body: &Value, format: Format, target: Target) -> Result<(), TestCaseError> {
    let text = body.to_string();
    let imported = import_as(&text, Some(format))
        .map_err(|e| TestCaseError::fail(format!("does not import: {e:#?}\n{body:#}")))?;
    let exported = render(&imported.envelope, target);
    let back: Value = serde_json::from_str(&exported.text).unwrap();
    prop_assert_eq!(&back, body, "{:?}: the export differs", format);
    prop_assert!(exported.notices.is_empty(), "notices: {:?}", exported.notices);
    // The envelope is a valid document that reads back as itself.
    let doc = serde_json::to_string(&imported.envelope).unwrap();
    let again = envelope::parse(&doc).map_err(|e| TestCaseError::fail(format!("invalid envelope: {e:#?}")))?;
    prop_assert_eq!(&again.envelope, &imported.envelope);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn anthropic_bodies_come_back(body in anthropic_body()) {
        law(&body, Format::Anthropic, Target::Anthropic)?;
    }

    #[test]
    fn chat_bodies_come_back(body in chat_body()) {
        law(&body, Format::OpenaiChat, Target::OpenaiChat)?;
    }

    #[test]
    fn responses_bodies_come_back(body in responses_body()) {
        law(&body, Format::OpenaiResponses, Target::OpenaiResponses)?;
    }
}
