//! The corpus of request bodies in `tests/fixtures/requests/{openai,responses,anthropic}`:
//! each is detected as its format, imported, and exported back to the same
//! format; the export equals the request as JSON values except for
//! - what the import's notices name as not represented (each notice's path
//!   must exist in the request; those fields, and cache breakpoints, are
//!   removed from the expectation), and
//! - the documented normalisations (docs/DECISIONS.md, "Import and export"),
//!   applied to both sides by `normalise`.
//!
//! `*files.json` requests carry file bytes, which the envelope keeps as a
//! document's header and text, not as a file: they are checked separately.

use envelope::export::{render, Target};
use envelope::import::{import, Format};
use envelope::Segment;
use serde_json::{json, Value};

mod common;
use common::root;

fn corpus(dir: &str) -> Vec<(String, String)> {
    let path = root().join("crates/envelope/tests/fixtures/requests").join(dir);
    let mut out: Vec<(String, String)> = std::fs::read_dir(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    assert!(out.len() >= 3, "{dir}: too few requests");
    out
}

#[derive(Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn steps(path: &str) -> Vec<Step> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Step::Key(key.to_string()));
        }
        for idx in rest.split('[').filter(|s| !s.is_empty()) {
            out.push(Step::Index(idx.trim_end_matches(']').parse().unwrap()));
        }
    }
    out
}

fn get_mut<'a>(v: &'a mut Value, steps: &[Step]) -> Option<&'a mut Value> {
    let mut cur = v;
    for s in steps {
        cur = match s {
            Step::Key(k) => cur.get_mut(k.as_str())?,
            Step::Index(i) => cur.get_mut(*i)?,
        };
    }
    Some(cur)
}

const GONE: &str = "\u{0}removed";

/// Marks the value at `path` as removed; false when there is none.
/// A part named by its payload key (`content[4].input_audio`) goes whole.
fn remove(v: &mut Value, path: &str) -> bool {
    let st = steps(path);
    if let (Some(Step::Key(k)), Some(parent)) = (st.last(), get_mut(v, &st[..st.len().saturating_sub(1)])) {
        if parent.get("type").is_some_and(|t| t == k.as_str()) {
            *parent = GONE.into();
            return true;
        }
    }
    match get_mut(v, &st) {
        Some(x) => {
            *x = GONE.into();
            true
        }
        None => false,
    }
}

fn sweep(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.retain(|_, x| x != GONE);
            o.values_mut().for_each(sweep);
        }
        Value::Array(a) => {
            a.retain(|x| x != GONE);
            a.iter_mut().for_each(sweep);
        }
        _ => {}
    }
}

fn texts_joined(parts: &[Value]) -> String {
    parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n\n")
}

/// Adjacent parts of type `ty` become one, their texts joined by "\n\n".
fn merge_text(parts: Vec<Value>, ty: &str) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for p in parts {
        if p["type"] == ty {
            if let Some(last) = out.last_mut().filter(|l| l["type"] == ty) {
                let joined = format!("{}\n\n{}", last["text"].as_str().unwrap(), p["text"].as_str().unwrap());
                last["text"] = joined.into();
                continue;
            }
            out.push(json!({"type": ty, "text": p["text"]}));
        } else {
            out.push(p);
        }
    }
    out
}

/// Parts → a string when they are one text part.
fn one_text_as_string(parts: Vec<Value>, ty: &str) -> Value {
    match parts.as_slice() {
        [only] if only["type"] == ty => only["text"].clone(),
        _ => Value::Array(parts),
    }
}

fn reserialise_arguments(v: &mut Value) {
    if let Some(s) = v.as_str() {
        let parsed: Value = serde_json::from_str(s).unwrap();
        *v = parsed.to_string().into();
    }
}

fn normalise(format: Format, body: &mut Value) {
    let o = body.as_object_mut().unwrap();
    match format {
        Format::OpenaiChat => {
            for m in o.get_mut("messages").and_then(Value::as_array_mut).into_iter().flatten() {
                if m["role"] == "developer" {
                    m["role"] = "system".into();
                }
                let role = m["role"].as_str().unwrap_or("").to_string();
                if let Some(parts) = m.get("content").and_then(Value::as_array).cloned() {
                    m["content"] = if role == "user" {
                        let parts = merge_text(parts, "text")
                            .into_iter()
                            .map(|mut p| {
                                if p["image_url"]["detail"] == "auto" {
                                    p["image_url"].as_object_mut().unwrap().remove("detail");
                                }
                                p
                            })
                            .collect();
                        one_text_as_string(parts, "text")
                    } else {
                        texts_joined(&parts).into()
                    };
                }
                for c in m.get_mut("tool_calls").and_then(Value::as_array_mut).into_iter().flatten() {
                    reserialise_arguments(&mut c["function"]["arguments"]);
                }
            }
            for t in o.get_mut("tools").and_then(Value::as_array_mut).into_iter().flatten() {
                let f = t["function"].as_object_mut().unwrap();
                f.entry("description").or_insert_with(|| "".into());
                f.entry("parameters").or_insert_with(|| json!({"type": "object", "properties": {}}));
            }
        }
        Format::OpenaiResponses => {
            if let Some(s) = o.get("input").and_then(Value::as_str) {
                let s = s.to_string();
                o.insert("input".into(), json!([{"role": "user", "content": s}]));
            }
            let items = o.get_mut("input").and_then(Value::as_array_mut).map(std::mem::take).unwrap_or_default();
            let mut leading: Vec<String> = Vec::new();
            let mut out: Vec<Value> = Vec::new();
            for mut it in items {
                let it_o = it.as_object_mut().unwrap();
                if it_o.get("type").is_some_and(|t| t == "message") {
                    it_o.remove("type");
                }
                if it_o.get("role").is_some_and(|r| r == "developer") {
                    it_o.insert("role".into(), "system".into());
                }
                if let Some(parts) = it_o.get("content").and_then(Value::as_array).cloned() {
                    let parts: Vec<Value> = parts
                        .into_iter()
                        .map(|mut p| {
                            if p["type"] == "output_text" {
                                p = json!({"type": "input_text", "text": p["text"]});
                            }
                            if p["type"] == "input_image" && p.get("detail").is_none() {
                                p["detail"] = "auto".into();
                            }
                            p
                        })
                        .collect();
                    it_o.insert("content".into(), one_text_as_string(merge_text(parts, "input_text"), "input_text"));
                }
                if let Some(args) = it_o.get_mut("arguments") {
                    reserialise_arguments(args);
                }
                if let Some(parts) = it_o.get("output").and_then(Value::as_array).cloned() {
                    it_o.insert("output".into(), texts_joined(&parts).into());
                }
                if out.is_empty() && it_o.get("role").is_some_and(|r| r == "system") {
                    leading.push(it_o["content"].as_str().unwrap().to_string());
                } else {
                    out.push(it);
                }
            }
            o.insert("input".into(), out.into());
            if !leading.is_empty() {
                let mut all: Vec<String> =
                    o.get("instructions").and_then(Value::as_str).map(str::to_string).into_iter().collect();
                all.extend(leading);
                o.insert("instructions".into(), all.join("\n\n").into());
            }
            for t in o.get_mut("tools").and_then(Value::as_array_mut).into_iter().flatten() {
                t["strict"] = false.into();
            }
        }
        Format::Anthropic => {
            if let Some(blocks) = o.get("system").and_then(Value::as_array).cloned() {
                o.insert("system".into(), texts_joined(&blocks).into());
            }
            let messages = o.get_mut("messages").and_then(Value::as_array_mut).map(std::mem::take).unwrap_or_default();
            let mut turns: Vec<(String, Vec<Value>)> = Vec::new();
            for m in messages {
                let role = m["role"].as_str().unwrap().to_string();
                let blocks: Vec<Value> = match &m["content"] {
                    Value::String(s) => vec![json!({"type": "text", "text": s})],
                    Value::Array(a) => a
                        .iter()
                        .cloned()
                        .map(|mut b| {
                            if b["type"] == "tool_result" {
                                let bo = b.as_object_mut().unwrap();
                                if bo.get("is_error") == Some(&Value::Bool(false)) {
                                    bo.remove("is_error");
                                }
                                if let Some(parts) = bo.get("content").and_then(Value::as_array).cloned() {
                                    bo.insert("content".into(), texts_joined(&parts).into());
                                }
                            }
                            b
                        })
                        .collect(),
                    _ => vec![],
                };
                match turns.last_mut() {
                    Some((r, list)) if *r == role => list.extend(blocks),
                    _ => turns.push((role, blocks)),
                }
            }
            let messages: Vec<Value> = turns
                .into_iter()
                .map(|(role, blocks)| json!({"role": role, "content": one_text_as_string(merge_text(blocks, "text"), "text")}))
                .collect();
            o.insert("messages".into(), messages.into());
        }
        // Not in this corpus (round_trip.rs holds their bodies).
        Format::Envelope | Format::Gemini | Format::Bedrock => {}
    }
}

fn target(format: Format) -> Target {
    match format {
        Format::OpenaiChat => Target::OpenaiChat,
        Format::OpenaiResponses => Target::OpenaiResponses,
        _ => Target::Anthropic,
    }
}

#[test]
fn requests_come_back_from_their_own_format() {
    let mut checked = 0;
    for (dir, format) in
        [("openai", Format::OpenaiChat), ("responses", Format::OpenaiResponses), ("anthropic", Format::Anthropic)]
    {
        for (name, text) in corpus(dir) {
            if name.ends_with("files.json") {
                continue;
            }
            let what = format!("{dir}/{name}");
            let imported = import(&text).unwrap_or_else(|e| panic!("{what}: {e:#?}"));
            assert_eq!(imported.format, format, "{what}: detected as {:?}", imported.format);
            let mut expected: Value = serde_json::from_str(&text).unwrap();
            for n in &imported.notices {
                let removal = n.message.contains("not represented")
                    || n.message.contains("cache breakpoint")
                    || n.message.contains("sends nothing");
                let exists = n.path.is_empty() || get_mut(&mut expected.clone(), &steps(&n.path)).is_some();
                assert!(exists, "{what}: notice names a path the request does not have: {n}");
                if removal {
                    assert!(remove(&mut expected, &n.path), "{what}: {n}");
                }
            }
            sweep(&mut expected);
            let exported = render(&imported.envelope, target(format));
            let mut got: Value = serde_json::from_str(&exported.text).unwrap();
            normalise(format, &mut expected);
            normalise(format, &mut got);
            assert!(
                got == expected,
                "{what}: the export differs from the request\n--- expected\n{expected:#}\n--- got\n{got:#}\n--- notices\n{:#?}",
                imported.notices
            );
            checked += 1;
        }
    }
    assert!(checked >= 8);
}

fn kinds(e: &envelope::Envelope) -> Vec<Vec<&'static str>> {
    e.messages.iter().map(|m| m.segments.iter().map(Segment::kind).collect()).collect()
}

#[test]
fn the_forms_come_back_as_segments() {
    let text =
        std::fs::read_to_string(root().join("crates/envelope/tests/fixtures/requests/openai/forms.json")).unwrap();
    let e = import(&text).unwrap().envelope;
    assert_eq!(
        kinds(&e),
        [
            vec!["system_prompt", "memory", "skills"],
            vec!["text", "document", "media", "text"],
            vec!["text", "media", "media"],
            vec!["text"],
        ]
    );
    let Segment::Skills(s) = &e.messages[0].segments[2] else { panic!() };
    assert_eq!(s.items[1].body.as_deref(), Some("# SQL review\n\nCheck joins first.\n\nThen indexes."));
    assert_eq!(s.items[0].loaded, None);
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(root().join("crates/envelope/tests/fixtures/requests").join(path)).unwrap()
}

fn documents(e: &envelope::Envelope) -> Vec<(String, String, u64, String)> {
    e.messages
        .iter()
        .flat_map(|m| &m.segments)
        .filter_map(|s| match s {
            Segment::Document(d) => {
                Some((d.file_name.clone(), d.mime_type.clone(), d.size_bytes, d.model_text().to_string()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn files_become_documents_with_their_type_and_size() {
    let chat = import(&fixture("openai/files.json")).unwrap();
    assert_eq!(
        documents(&chat.envelope),
        [
            ("notes.txt".into(), "text/plain".into(), 26, "Hello, world!\nSecond line.".into()),
            ("paper.pdf".into(), "application/pdf".into(), 15, String::new()),
            ("file".into(), "application/octet-stream".into(), 0, String::new()),
        ]
    );
    // The bytes and the file id are kept (the fidelity extension).
    let docs: Vec<&envelope::Document> = chat
        .envelope
        .messages
        .iter()
        .flat_map(|m| &m.segments)
        .filter_map(|s| match s {
            Segment::Document(d) => Some(d),
            _ => None,
        })
        .collect();
    assert!(docs[1].data.is_some());
    assert!(docs[2].file_id.is_some());
    // Another format receives the documents' text form, and a notice for the file by id.
    let exported = render(&chat.envelope, Target::Anthropic);
    assert!(
        exported.text.contains("[Document: notes.txt (text/plain, 26 bytes)]\\nHello, world!"),
        "{}",
        exported.text
    );
    assert!(exported.notices.iter().any(|n| n.message.contains("file by URL or id")), "{:?}", exported.notices);

    let resp = import(&fixture("responses/files.json")).unwrap();
    let found = documents(&resp.envelope);
    assert_eq!(found[0], ("data.csv".into(), "text/csv".into(), 8, "a,b\n1,2\n".into()));

    let anth = import(&fixture("anthropic/files.json")).unwrap();
    let lease = "Clause 1. The tenant pays rent.\nClause 2. The landlord fixes leaks.";
    let found = documents(&anth.envelope);
    assert_eq!(found[0], ("lease.txt".into(), "text/plain".into(), lease.len() as u64, lease.into()));
    assert_eq!(found[1], ("scan.pdf".into(), "application/pdf".into(), 15, String::new()));
}

#[test]
fn the_issue_examples_come_back_in_the_envelope() {
    // A Chat `input_audio` part is kept verbatim.
    let chat = import(&fixture("openai/images-and-parts.json")).unwrap();
    let blocks: Vec<&str> = chat
        .envelope
        .messages
        .iter()
        .flat_map(|m| &m.segments)
        .filter_map(|s| match s {
            Segment::ProviderBlock(b) => Some(b.block_type()),
            _ => None,
        })
        .collect();
    assert!(blocks.contains(&"input_audio"), "{blocks:?}");
    // Anthropic cache breakpoints are the segments' and tools' `cacheControl`.
    let anth = import(&fixture("anthropic/tools-and-params.json")).unwrap();
    let cached =
        anth.envelope.messages.iter().flat_map(|m| &m.segments).filter(|s| s.cache_control().is_some()).count();
    let tools_cached = anth
        .envelope
        .messages
        .iter()
        .flat_map(|m| &m.segments)
        .filter_map(|s| match s {
            Segment::ToolOverview(o) => Some(o.items.iter().filter(|t| t.ext.cache_control.is_some()).count()),
            _ => None,
        })
        .sum::<usize>();
    assert_eq!((cached, tools_cached), (2, 1));
    // is_error → success: false; tool_result blocks kept, their text joined.
    let results: Vec<(bool, String, bool)> = anth
        .envelope
        .messages
        .iter()
        .flat_map(|m| &m.segments)
        .filter_map(|s| match s {
            Segment::ToolCallResult(r) => Some((r.success, r.result.clone(), r.content.is_some())),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [(true, "[]".to_string(), false), (false, "Calendar is read-only.\n\nAsk the owner.".to_string(), true)]
    );
    // Request settings are params, in the request's order.
    let params = anth.envelope.params.as_ref().unwrap();
    assert_eq!(
        params.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "max_tokens",
            "temperature",
            "top_k",
            "stop_sequences",
            "metadata",
            "tool_choice",
            "thinking",
            "stream",
            "service_tier"
        ]
    );
    // Ids m1…, timestamps 0; the source format named.
    assert!(anth.envelope.messages.iter().enumerate().all(|(i, m)| m.id == format!("m{}", i + 1)));
    assert!(anth.envelope.messages.iter().all(|m| m.timestamp_ms() == 0.0));
    assert_eq!(anth.envelope.source, Some(envelope::RequestFormat::Anthropic));
}

fn errors(body: Value) -> Vec<(String, String)> {
    let errs = import(&body.to_string()).expect_err("should not import");
    errs.into_iter().map(|e| (e.code().to_string(), e.path)).collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn malformed_requests_give_every_error_with_its_path() {
    let chat = json!({"model": "gpt-4o", "messages": [
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "[1, 2]"}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{oops"}},
            {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "nope", "content": "x"},
        {"role": "wizard", "content": "x"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "javascript:alert(1)"}}]},
        {"role": "user", "content": 5},
        {"role": "user"}
    ], "tools": [{"type": "function", "function": {"name": "f"}}, {"type": "function", "function": {"name": "f"}}]});
    assert_eq!(
        errors(chat),
        pairs(&[
            ("import-arguments", "messages[0].tool_calls[0].function.arguments"),
            ("import-arguments", "messages[0].tool_calls[1].function.arguments"),
            ("unpaired-result", "messages[1].tool_call_id"),
            ("import-unknown-role", "messages[2].role"),
            ("media-url-scheme", "messages[3].content[0].image_url.url"),
            ("wrong-type", "messages[4].content"),
            ("duplicate-tool", "tools[1].function.name"),
        ])
    );
    let anthropic = json!({"max_tokens": 10, "system": 5, "messages": [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "r"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": "not an object"}]},
        {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "text/html", "data": "PHA+"}}]},
        {"role": "user", "content": [{"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "!!!"}}]},
        {"role": "user", "content": [{"text": "no type"}]}
    ]});
    assert_eq!(
        errors(anthropic),
        pairs(&[
            ("wrong-type", "system"),
            ("unpaired-result", "messages[0].content[0].tool_use_id"),
            ("wrong-type", "messages[1].content[0].input"),
            ("media-url-scheme", "messages[2].content[0].source.media_type"),
            ("import-base64", "messages[3].content[0].source.data"),
            ("missing-field", "messages[4].content[0].type"),
        ])
    );
    let responses = json!({"input": [
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "1"},
        {"type": "function_call_output", "call_id": "c", "output": "2"},
        {"role": "robot", "content": "x"},
        {"type": "function_call", "call_id": "d", "name": "f", "arguments": 7}
    ]});
    assert_eq!(
        errors(responses),
        pairs(&[
            ("duplicate-call-id", "input[1].call_id"),
            ("duplicate-call-id", "input[3].call_id"),
            ("import-unknown-role", "input[4].role"),
            ("wrong-type", "input[5].arguments"),
        ])
    );
}

#[test]
fn bodies_that_are_no_request() {
    let code = |t: &str| import(t).unwrap_err().into_iter().map(|e| e.code()).collect::<Vec<_>>();
    assert_eq!(code(""), ["empty-document"]);
    assert_eq!(code("{"), ["invalid-json"]);
    assert_eq!(code("[1]"), ["import-format"]);
    assert_eq!(code(r#"{"prompt": "hi"}"#), ["import-format"]);
    assert_eq!(code(&format!("{}{}", "[".repeat(200), "]".repeat(200))), ["invalid-json"]);
    // A deeply nested arguments string is an error at its path, not a crash.
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let body = json!({"messages": [{"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": deep}}]}]});
    assert_eq!(errors(body), pairs(&[("import-arguments", "messages[0].tool_calls[0].function.arguments")]));
}
