//! The round-trip law over generated request bodies (docs/EXTENSIONS.md): for
//! each format F, a body B made of the features F's requests send — text as
//! strings and as parts (with the export's own text forms inside), cache
//! breakpoints, reasoning with signatures and encrypted content, documents of
//! every source, images, server tools and their blocks, rich and failed tool
//! results, names, the developer role, tool fields; for Gemini both
//! spellings of every field the envelope reads, URL-safe base64, id-less
//! calls, parts as one object; for Bedrock cache points after any block —
//! gives `export(import(B), F) == B` as JSON, with no notice.

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

// ---------------------------------------------------------------- Gemini

/// `camel`, or `snake` when `snake`.
fn sp(camel: &str, snake: &str, snake_case: bool) -> String {
    if snake_case { snake } else { camel }.to_string()
}

#[derive(Clone, Debug)]
enum GPart {
    Text(String),
    Thought(String, Option<bool>),
    Inline(u8, bool, bool),
    File(bool, bool),
    Code,
    Extra(String),
}

fn gemini_part() -> impl Strategy<Value = GPart> {
    prop_oneof![
        4 => arb_text().prop_map(GPart::Text),
        1 => (arb_text(), prop::option::of(any::<bool>())).prop_map(|(t, s)| GPart::Thought(t, s)),
        1 => (0u8..4, any::<bool>(), any::<bool>()).prop_map(|(k, a, b)| GPart::Inline(k, a, b)),
        1 => (any::<bool>(), any::<bool>()).prop_map(|(a, b)| GPart::File(a, b)),
        1 => Just(GPart::Code),
        1 => arb_text().prop_map(GPart::Extra),
    ]
}

fn gemini_part_json(p: &GPart, model: bool) -> Option<Value> {
    Some(match p {
        GPart::Text(t) => json!({"text": t}),
        GPart::Thought(t, sig) if model => match sig {
            None => json!({"text": t, "thought": true}),
            Some(snake) => {
                json!({"text": t, "thought": true, sp("thoughtSignature", "thought_signature", *snake): "CpYBAdHt-_9y"})
            }
        },
        GPart::Inline(k, snake, snake_mime) => {
            let (mime, data) = match k {
                0 => ("image/png", "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP49dseiBggFABAqgjRw52-kQAAAABJRU5ErkJggg=="),
                1 => ("image/jpeg", "/9j/4AAQSkZJRg+/"),
                2 => ("application/pdf", "JVBERi0xLjQK"),
                _ => ("audio/wav", "UklGRiQAAABXQVZF"),
            };
            json!({sp("inlineData", "inline_data", *snake): {sp("mimeType", "mime_type", *snake_mime): mime, "data": data}})
        }
        GPart::File(snake, mime) => {
            let mut f = Map::new();
            if *mime {
                f.insert(sp("mimeType", "mime_type", *snake), "video/mp4".into());
            }
            f.insert(
                sp("fileUri", "file_uri", !*snake),
                "https://generativelanguage.googleapis.com/v1beta/files/abc".into(),
            );
            json!({sp("fileData", "file_data", *snake): f, "videoMetadata": {"startOffset": "1s"}})
        }
        GPart::Code if model => json!({"executableCode": {"language": "PYTHON", "code": "print(1)"}}),
        GPart::Extra(t) => json!({"text": t, "thoughtSignature": "EhQK", "partMetadata": {"k": 1}}),
        _ => return None,
    })
}

fn gemini_body() -> impl Strategy<Value = Value> {
    let system = prop::option::of((prop::collection::vec(arb_text(), 1..3), any::<bool>(), any::<bool>()));
    let turns = prop::collection::vec(
        (
            prop::collection::vec(gemini_part(), 1..4),
            prop::collection::vec((args(), any::<bool>(), any::<bool>(), any::<bool>()), 0..3),
            any::<bool>(),
            any::<bool>(),
        ),
        1..4,
    );
    let tools = prop::collection::vec((0u8..4, any::<bool>()), 0..4);
    (system, turns, tools, any::<bool>()).prop_map(|(system, turns, tools, single)| {
        let mut body = Map::new();
        if let Some((texts, snake, object)) = system {
            let parts: Vec<Value> = texts.iter().map(|t| json!({"text": t})).collect();
            let parts = if object && parts.len() == 1 { parts[0].clone() } else { Value::Array(parts) };
            body.insert(sp("systemInstruction", "system_instruction", snake), json!({"parts": parts}));
        }
        let mut contents = Vec::new();
        for (n, (parts, calls, no_role, object)) in turns.iter().enumerate() {
            let user: Vec<Value> = parts.iter().filter_map(|p| gemini_part_json(p, false)).collect();
            let mut u = Map::new();
            if !no_role {
                u.insert("role".into(), "user".into());
            }
            u.insert("parts".into(), if *object && user.len() == 1 { user[0].clone() } else { Value::Array(user) });
            contents.push(Value::Object(u));
            let mut model: Vec<Value> = parts.iter().filter_map(|p| gemini_part_json(p, true)).collect();
            for (k, (a, id, snake, no_args)) in calls.iter().enumerate() {
                let mut f = Map::new();
                f.insert("name".into(), "get_weather".into());
                if !(*no_args && a.as_object().is_some_and(|o| o.is_empty())) {
                    f.insert("args".into(), a.clone());
                }
                if *id {
                    f.insert("id".into(), format!("fc-{n}-{k}").into());
                }
                model.push(json!({sp("functionCall", "function_call", *snake): f}));
            }
            contents.push(json!({"role": "model", "parts": model}));
            if !calls.is_empty() {
                let answers: Vec<Value> = calls
                    .iter()
                    .enumerate()
                    .map(|(k, (_, id, snake, _))| {
                        let mut f = Map::new();
                        f.insert("name".into(), "get_weather".into());
                        f.insert("response".into(), if k % 2 == 0 { json!({"output": "sunny"}) } else { json!({"error": "down"}) });
                        if *id {
                            f.insert("id".into(), format!("fc-{n}-{k}").into());
                        }
                        json!({sp("functionResponse", "function_response", !*snake): f})
                    })
                    .collect();
                contents.push(json!({"role": if *no_role { "function" } else { "user" }, "parts": answers}));
            }
        }
        let contents = if single && contents.len() == 1 { contents[0].clone() } else { Value::Array(contents) };
        body.insert("contents".into(), contents);
        let mut list = vec![json!({"functionDeclarations": [{"name": "get_weather", "description": "Weather.", "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}}}]})];
        for (i, (k, snake)) in tools.iter().enumerate() {
            list.push(match k {
                0 => json!({sp("functionDeclarations", "function_declarations", *snake): [
                    {"name": format!("f{i}"), sp("parametersJsonSchema", "parameters_json_schema", !*snake): {"type": "object"}, "response_json_schema": {"type": "object"}},
                    {"name": format!("g{i}"), "description": ""}]}),
                1 => json!({sp("googleSearch", "google_search", *snake): {}}),
                2 => json!({"codeExecution": {}}),
                _ => json!({"urlContext": {}, "googleSearch": {}}),
            });
        }
        body.insert("tools".into(), list.into());
        body.insert("generationConfig".into(), json!({"temperature": 0.5, "thinkingConfig": {"thinkingBudget": 128}}));
        body.insert("safetySettings".into(), json!([{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}]));
        Value::Object(body)
    })
}

// ---------------------------------------------------------------- Bedrock

#[derive(Clone, Debug)]
enum BBlock {
    Text(String, Option<Value>),
    Image(bool),
    Document(u8),
    Guard,
    Reasoning(String, bool),
    ToolUse(Value),
}

fn bedrock_cache() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        3 => Just(None),
        1 => Just(Some(json!({"type": "default"}))),
        1 => Just(Some(json!({"type": "default", "ttl": "1h"}))),
    ]
}

fn bedrock_block() -> impl Strategy<Value = BBlock> {
    prop_oneof![
        4 => (arb_text(), bedrock_cache()).prop_map(|(t, c)| BBlock::Text(t, c)),
        1 => any::<bool>().prop_map(BBlock::Image),
        1 => (0u8..4).prop_map(BBlock::Document),
        1 => Just(BBlock::Guard),
        1 => (arb_text(), any::<bool>()).prop_map(|(t, r)| BBlock::Reasoning(t, r)),
        1 => args().prop_map(BBlock::ToolUse),
    ]
}

fn with_cache(out: &mut Vec<Value>, block: Value, cache: &Option<Value>) {
    out.push(block);
    if let Some(c) = cache {
        out.push(json!({"cachePoint": c}));
    }
}

fn bedrock_body() -> impl Strategy<Value = Value> {
    let system = prop::option::of(prop::collection::vec((arb_text(), bedrock_cache()), 1..3));
    let turns =
        prop::collection::vec((prop::collection::vec(bedrock_block(), 1..4), any::<bool>(), bedrock_cache()), 1..4);
    let tools = prop::collection::vec(bedrock_cache(), 0..3);
    (system, turns, tools).prop_map(|(system, turns, tools)| {
        let mut body = Map::new();
        if let Some(blocks) = system {
            let mut out = Vec::new();
            for (t, c) in &blocks {
                with_cache(&mut out, json!({"text": if t.is_empty() { "s" } else { t }}), c);
            }
            body.insert("system".into(), out.into());
        }
        let mut messages = Vec::new();
        let mut pending: Vec<String> = Vec::new();
        for (n, (blocks, error, result_cache)) in turns.iter().enumerate() {
            let mut user = Vec::new();
            for (k, id) in pending.drain(..).enumerate() {
                let content = if k % 2 == 0 { json!([{"json": {"temp": 20}}]) } else { json!([{"text": "42"}]) };
                let mut r = json!({"toolUseId": id, "content": content});
                if *error {
                    r["status"] = "error".into();
                } else if k % 2 == 1 {
                    r["status"] = "success".into();
                }
                with_cache(&mut user, json!({"toolResult": r}), result_cache);
            }
            for b in blocks {
                match b {
                    BBlock::Text(t, c) => with_cache(&mut user, json!({"text": t}), c),
                    BBlock::Image(s3) => user.push(if *s3 {
                        json!({"image": {"format": "png", "source": {"s3Location": {"uri": "s3://b/i.png"}}}})
                    } else {
                        json!({"image": {"format": "jpeg", "source": {"bytes": "/9j/4AAQ"}}})
                    }),
                    BBlock::Document(k) => user.push(match k {
                        0 => json!({"document": {"format": "pdf", "name": "Report", "source": {"bytes": "JVBERi0xLjQK"}}}),
                        1 => json!({"document": {"format": "txt", "name": "notes", "source": {"text": "plain words"}, "citations": {"enabled": true}}}),
                        2 => json!({"document": {"format": "md", "name": "chunks", "source": {"content": [{"text": "a"}, {"text": "b"}]}, "context": "c"}}),
                        _ => json!({"document": {"format": "docx", "name": "spec", "source": {"s3Location": {"uri": "s3://b/spec.docx", "bucketOwner": "111122223333"}}}}),
                    }),
                    BBlock::Guard => user.push(json!({"guardContent": {"text": {"text": "guarded", "qualifiers": ["guard_content"]}}})),
                    _ => {}
                }
            }
            messages.push(json!({"role": "user", "content": user}));
            let mut assistant = Vec::new();
            for (k, b) in blocks.iter().enumerate() {
                match b {
                    BBlock::Text(t, c) => with_cache(&mut assistant, json!({"text": t}), c),
                    BBlock::Reasoning(t, redacted) => assistant.push(if *redacted {
                        json!({"reasoningContent": {"redactedContent": "EmwKAhgBEgy3va3p"}})
                    } else {
                        json!({"reasoningContent": {"reasoningText": {"text": t, "signature": "EqQBCgIYAhIM"}}})
                    }),
                    BBlock::ToolUse(a) => {
                        let id = format!("tooluse_{n}_{k}");
                        pending.push(id.clone());
                        assistant.push(json!({"toolUse": {"toolUseId": id, "name": "get_weather", "input": a}}));
                    }
                    _ => {}
                }
            }
            if assistant.is_empty() {
                assistant.push(json!({"text": "ok"}));
            }
            messages.push(json!({"role": "assistant", "content": assistant}));
        }
        body.insert("messages".into(), messages.into());
        let mut list = vec![json!({"toolSpec": {"name": "get_weather", "description": "Weather.", "inputSchema": {"json": {"type": "object", "properties": {"city": {"type": "string"}}}}}})];
        for (i, c) in tools.iter().enumerate() {
            let t = if i % 2 == 0 {
                json!({"toolSpec": {"name": format!("t{i}"), "inputSchema": {"json": {"type": "object"}}, "strict": true}})
            } else {
                json!({"systemTool": {"name": "nova_grounding"}})
            };
            with_cache(&mut list, t, c);
        }
        body.insert("toolConfig".into(), json!({"tools": list, "toolChoice": {"auto": {}}}));
        body.insert("inferenceConfig".into(), json!({"maxTokens": 512, "temperature": 0.2, "stopSequences": ["END"]}));
        body.insert("additionalModelRequestFields".into(), json!({"top_k": 40}));
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

    #[test]
    fn gemini_bodies_come_back(body in gemini_body()) {
        law(&body, Format::Gemini, Target::Gemini)?;
    }

    #[test]
    fn bedrock_bodies_come_back(body in bedrock_body()) {
        law(&body, Format::Bedrock, Target::Bedrock)?;
    }
}
