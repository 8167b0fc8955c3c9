//! Recorded calls (`envelope::recorded`) over the trace corpus made by the
//! real instrumentation packages (tests/fixtures/traces/, SOURCES.md), the
//! batch samples (tests/fixtures/batch/), the semantic conventions' own
//! examples, and malformed input.
//!
//! What each run's captured calls are compared with is `sent.jsonl`: the
//! bodies the SDKs really sent. Both sides are reduced to the same *view*
//! (per message: role, texts, tool calls with their arguments, tool results,
//! media; the tools' names) — the envelope by its segments, the body by its
//! format's own shape, read here independently of the importers — and must
//! be equal except for what `DROPS` says that instrumentation does not
//! record.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use envelope::export::{self, Target};
use envelope::import::Format;
use envelope::recorded::{self, Call, Content, Dialect, Reader};
use envelope::{Envelope, RequestFormat, Role, Segment};
use serde_json::{json, Value};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The corpus's runs: (name, files as (name, text)).
fn runs() -> Vec<(String, Vec<(String, String)>)> {
    let dir = fixtures().join("traces");
    let mut out = Vec::new();
    // The runs SOURCES.md lists (a run being added is tested once it is there).
    let listed = expected_calls();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("traces.jsonl").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| listed.contains_key(n))
        .collect();
    names.sort();
    for name in names {
        let mut files = Vec::new();
        for f in ["traces.jsonl", "logs.jsonl"] {
            let p = dir.join(&name).join(f);
            if p.exists() {
                files.push((format!("{name}/{f}"), std::fs::read_to_string(p).unwrap()));
            }
        }
        out.push((name, files));
    }
    assert!(out.len() >= 20, "the trace corpus has {} runs", out.len());
    out
}

fn read_run(files: &[(String, String)]) -> recorded::Recorded {
    let refs: Vec<(&str, &str)> = files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    match recorded::read(&refs) {
        Ok(r) => r,
        Err(e) => panic!("{}", e.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")),
    }
}

/// SOURCES.md's table: run → LLM-call spans.
fn expected_calls() -> HashMap<String, usize> {
    let text = std::fs::read_to_string(fixtures().join("traces/SOURCES.md")).unwrap();
    let mut out = HashMap::new();
    let mut column = None;
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.get(1) == Some(&"run") {
            column = cells.iter().position(|c| *c == "LLM-call spans");
        } else if let (Some(col), Some(run)) = (column, cells.get(1).filter(|c| c.starts_with('`'))) {
            out.insert(run.trim_matches('`').to_string(), cells[col].parse().unwrap());
        }
    }
    assert!(!out.is_empty(), "SOURCES.md's table of runs");
    out
}

/// All spans of a run (to count the ones that are not calls).
fn span_count(files: &[(String, String)]) -> usize {
    files
        .iter()
        .filter(|(n, _)| n.ends_with("traces.jsonl"))
        .flat_map(|(_, t)| t.lines())
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["resourceSpans"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|r| r["scopeSpans"].as_array().unwrap())
                .map(|s| s["spans"].as_array().unwrap().len())
                .sum::<usize>()
        })
        .sum()
}

/// Runs where two instrumentations record every request (the Anthropic
/// SDK's own span beside OpenLLMetry's, inside OpenInference's): SOURCES.md
/// counts both spans, the reader lists one call per request sent.
const RECORDED_TWICE: &[&str] = &["openllmetry-anthropic", "openllmetry-legacy-anthropic", "openinference-anthropic"];

/// How many calls a call stands for beyond itself (its fold notices).
fn folded(calls: &[Call]) -> usize {
    calls.iter().flat_map(|c| &c.notices).filter(|n| n.message.starts_with("also recorded by ")).count()
}

#[test]
fn every_llm_span_is_one_call_and_no_other_span_is() {
    let expected = expected_calls();
    for (name, files) in runs() {
        let r = read_run(&files);
        let spans = *expected.get(&name).unwrap_or_else(|| panic!("{name} is not in SOURCES.md"));
        // One request the SDK sent is one call.
        let sent = sent(&name);
        let requests: usize = sent.values().map(Vec::len).sum();
        let want = if RECORDED_TWICE.contains(&name.as_str()) { requests } else { spans };
        assert_eq!(r.calls.len(), want, "{name}: calls");
        assert_eq!(r.calls.len() + folded(&r.calls), spans, "{name}: every LLM span is a call or folded into one");
        assert_eq!(r.skipped_spans as usize, span_count(&files) - spans, "{name}: spans that are not calls");
        if RECORDED_TWICE.contains(&name.as_str()) {
            // Every request's spans (the active one when it was sent) are
            // its call's, or folded into it.
            for c in &r.calls {
                let notes: Vec<&str> = c.notices.iter().map(|n| n.message.as_str()).collect();
                assert_eq!(folded(std::slice::from_ref(c)), 1, "{name}: {}: {notes:?}", c.at);
                assert!(notes.iter().any(|n| n.contains("com.anthropic.sdk.python")), "{name}: {notes:?}");
                assert_ne!(c.scope.as_deref().map(|s| s.starts_with("com.anthropic")), Some(true), "{name}: {}", c.at);
            }
            for ((trace, span), requests) in &sent {
                let mine = r.calls.iter().filter(|c| {
                    c.at.trace_id.as_deref() == Some(trace)
                        && (c.at.span_id.as_deref() == Some(span)
                            || c.notices.iter().any(|n| n.message.contains(&format!(" span {span} "))))
                });
                assert_eq!(mine.count(), 1, "{name}: the request sent in span {span}");
                assert_eq!(requests.len(), 1, "{name}: one request per span {span}");
            }
        }
        let mut ids = std::collections::HashSet::new();
        for c in &r.calls {
            assert!(ids.insert((c.at.trace_id.clone(), c.at.span_id.clone())), "{name}: {} twice", c.at);
            assert_ne!(c.name.as_deref(), Some("corpus.scenario"), "{name}: the root span is no call");
            assert!(c.start_ns.is_some() && c.end_ns >= c.start_ns, "{name}: {} times", c.at);
            assert!(c.at.span_id.is_some() && c.at.line.is_some(), "{name}: {} located", c.at);
            assert!(c.provider.is_some(), "{name}: {} provider", c.at);
            assert!(c.model.is_some(), "{name}: {} model", c.at);
            // OpenLLMetry 0.52 records no usage for a streamed Anthropic call.
            let streamed = name == "openllmetry-legacy-anthropic"
                && c.output.as_ref().is_some_and(|o| o.response_id.is_some())
                && c.usage.is_empty();
            assert!(!c.usage.is_empty() || streamed, "{name}: {} usage", c.at);
        }
        // Start order.
        assert!(r.calls.windows(2).all(|w| w[0].start_ns <= w[1].start_ns), "{name}: order");
        assert_eq!(r.notes, vec![], "{name}");
    }
}

/// Runs recorded without content, and the variable their hint must name.
const NOT_CAPTURED: &[(&str, &str)] = &[
    ("otel-openai-v2-events-no-content", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"),
    ("otel-openai-v2-no-content", "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental"),
    ("otel-google-genai-no-content", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY"),
    ("otel-botocore-bedrock-no-content", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"),
    ("anthropic-sdk-metadata", "ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content"),
    ("openllmetry-openai-no-content", "TRACELOOP_TRACE_CONTENT=true"),
    ("openinference-openai-hidden", "OPENINFERENCE_HIDE_INPUTS=false"),
    ("openllmetry-legacy-openai-no-content", "TRACELOOP_TRACE_CONTENT=true"),
];

/// Calls whose instrumentation recorded the reply but left the request out,
/// with content capture on: (run, span name).
const REQUEST_LEFT_OUT: &[(&str, &str)] = &[
    // opentelemetry-instrumentation-openai 0.62.4 fails on the image parts.
    ("openllmetry-openai", "openai.chat"),
];

#[test]
fn calls_without_content_are_listed_with_how_to_capture_it() {
    for (name, files) in runs() {
        let r = read_run(&files);
        let hint = NOT_CAPTURED.iter().find(|(n, _)| *n == name).map(|(_, h)| *h);
        for c in &r.calls {
            // Spans of another instrumentation in the same run (the
            // Anthropic SDK's own, inside OpenLLMetry's or OpenInference's)
            // follow their own settings.
            let sdk_span = c.scope.as_deref().is_some_and(|s| s.starts_with("com.anthropic.sdk"));
            match (&c.content, hint) {
                (Content::NotCaptured { how, params }, Some(h)) => {
                    assert!(how.contains(h), "{name}: {} says {how}", c.at);
                    assert_eq!(c.summary().messages, 0);
                    let _ = params;
                }
                (Content::NotCaptured { how, .. }, None) if how.contains("recorded the reply") => {
                    assert!(
                        REQUEST_LEFT_OUT.contains(&(name.as_str(), c.name.as_deref().unwrap_or(""))),
                        "{name}: {} {how}",
                        c.at
                    );
                    assert!(c.output.as_ref().is_some_and(|o| !o.messages.is_empty()));
                }
                (Content::NotCaptured { how, .. }, None) => {
                    assert!(sdk_span, "{name}: {} not captured ({how})", c.at);
                    assert!(how.contains("ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE"), "{how}");
                }
                (Content::Captured(_), Some(_)) => panic!("{name}: {} captured", c.at),
                (Content::Captured(e), None) => assert!(!e.messages.is_empty(), "{name}: {}", c.at),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The view both sides are reduced to.

#[derive(Clone, Debug, PartialEq)]
enum Item {
    Text(String),
    Call(String, Value),
    Result(String),
    /// An image or other media: its URL, or its base64 payload.
    Media(String),
    File(String),
    Reasoning(String),
}

/// A role class: system, user, assistant, tool (results).
type View = Vec<(&'static str, Item)>;

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Consecutive texts of one role as one (instrumentations join or split
/// text parts); white space collapsed.
fn normalise(view: View) -> View {
    let mut out: View = Vec::new();
    for (role, item) in view {
        match (out.last_mut(), &item) {
            (Some((r, Item::Text(t))), Item::Text(u)) if *r == role => {
                t.push(' ');
                t.push_str(u);
                *t = collapse(t);
            }
            _ => out.push((
                role,
                match item {
                    Item::Text(t) => Item::Text(collapse(&t)),
                    Item::Result(t) => Item::Result(json_or_text(&t)),
                    other => other,
                },
            )),
        }
    }
    out.retain(|(_, i)| !matches!(i, Item::Text(t) if t.is_empty()));
    out
}

/// A result's text: JSON re-serialised (key order and spacing aside).
fn json_or_text(t: &str) -> String {
    match serde_json::from_str::<Value>(t) {
        Ok(v @ (Value::Object(_) | Value::Array(_))) => sorted(&v).to_string(),
        _ => collapse(t),
    }
}

fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let m: BTreeMap<String, Value> = o.iter().map(|(k, v)| (k.clone(), sorted(v))).collect();
            serde_json::to_value(m).unwrap()
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        // 18 and 18.0 are one number.
        Value::Number(n) => json!(n.as_f64().unwrap()),
        other => other.clone(),
    }
}

fn role_class(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

fn media_key(url: &str) -> String {
    match url.split_once(";base64,") {
        Some((_, data)) => format!("b64:{}", data.trim_end_matches('=').replace('-', "+").replace('_', "/")),
        None => url.to_string(),
    }
}

fn envelope_view(e: &Envelope) -> (View, Vec<String>) {
    let mut view = Vec::new();
    let mut tools = Vec::new();
    for m in &e.messages {
        let role = role_class(m.role);
        for s in &m.segments {
            let item = match s {
                Segment::Text(t) => Item::Text(t.content.clone()),
                Segment::SystemPrompt(t) => Item::Text(t.content.clone()),
                Segment::LongText(t) => Item::Text(t.content.clone()),
                Segment::ToolCallRequest(c) => {
                    Item::Call(c.tool_name.clone(), sorted(&Value::Object(c.arguments.clone())))
                }
                Segment::ToolCallResult(r) => Item::Result(r.result.clone()),
                Segment::Media(m) => Item::Media(media_key(&m.url)),
                // A document by URL that is an image (Bedrock's `s3://`): one.
                Segment::Document(d) if d.mime_type.starts_with("image/") && d.url.is_some() => {
                    Item::Media(d.url.clone().unwrap_or_default())
                }
                Segment::Document(d) => Item::File(
                    d.file_id
                        .clone()
                        .or(d.url.clone())
                        .or(d.data.clone().map(|b| format!("b64:{}", b.trim_end_matches('='))))
                        .unwrap_or_default(),
                ),
                Segment::Reasoning(r) => Item::Reasoning(r.content.clone()),
                // A Bedrock image or document by `s3Location`, kept verbatim.
                Segment::ProviderBlock(b) if b.block.get("image").is_some() => {
                    Item::Media(self::s(&b.block["image"]["source"]["s3Location"]["uri"]))
                }
                Segment::ProviderBlock(b) if b.block.get("document").is_some() => {
                    Item::File(self::s(&b.block["document"]["source"]["s3Location"]["uri"]))
                }
                Segment::ProviderBlock(b) => Item::File(format!("block:{}", b.block_type())),
                Segment::ToolOverview(t) => {
                    tools.extend(t.items.iter().map(|i| i.name.clone()));
                    continue;
                }
                other => panic!("unexpected segment {}", other.kind()),
            };
            let role = if matches!(item, Item::Call(..)) { "assistant" } else { role };
            view.push((role, item));
        }
    }
    (normalise(view), tools)
}

fn s(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn args(v: &Value) -> Value {
    sorted(&match v {
        Value::String(t) => serde_json::from_str(t).unwrap_or(Value::String(t.clone())),
        Value::Null => json!({}),
        other => other.clone(),
    })
}

fn result_text(v: &Value) -> String {
    match v {
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match (b.get("text"), b.get("json")) {
                (Some(t), _) => s(t),
                (_, Some(j)) => j.to_string(),
                _ => b.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n\n"),
        other => s(other),
    }
}

/// The view of a request body as the SDK sent it, by its endpoint.
fn body_view(path: &str, b: &Value) -> (View, Vec<String>) {
    let mut view: View = Vec::new();
    let mut tools = Vec::new();
    let arr = |v: &Value| v.as_array().cloned().unwrap_or_default();
    if path.ends_with("/chat/completions") {
        for m in arr(&b["messages"]) {
            let role = match m["role"].as_str().unwrap() {
                "system" | "developer" => "system",
                "user" => "user",
                "assistant" => "assistant",
                _ => "tool",
            };
            if role == "tool" {
                view.push(("tool", Item::Result(result_text(&m["content"]))));
                continue;
            }
            match &m["content"] {
                Value::String(t) => view.push((role, Item::Text(t.clone()))),
                Value::Array(parts) => {
                    for p in parts {
                        match p["type"].as_str().unwrap() {
                            "text" => view.push((role, Item::Text(s(&p["text"])))),
                            "image_url" => {
                                view.push((role, Item::Media(media_key(p["image_url"]["url"].as_str().unwrap()))))
                            }
                            "input_audio" => view.push((
                                role,
                                Item::Media(format!("b64:{}", s(&p["input_audio"]["data"]).trim_end_matches('='))),
                            )),
                            "file" => {
                                let f = &p["file"];
                                let key = match f.get("file_data") {
                                    Some(d) => media_key(&s(d)),
                                    None => s(&f["file_id"]),
                                };
                                view.push((role, Item::File(key)));
                            }
                            t => panic!("chat part {t}"),
                        }
                    }
                }
                _ => {}
            }
            for c in arr(&m["tool_calls"]) {
                view.push(("assistant", Item::Call(s(&c["function"]["name"]), args(&c["function"]["arguments"]))));
            }
        }
        tools = arr(&b["tools"]).iter().map(|t| s(&t["function"]["name"])).collect();
    } else if path.ends_with("/responses") {
        if let Some(i) = b["instructions"].as_str() {
            view.push(("system", Item::Text(i.to_string())));
        }
        match &b["input"] {
            Value::String(t) => view.push(("user", Item::Text(t.clone()))),
            Value::Array(items) => {
                for it in items {
                    match it["type"].as_str().unwrap_or("message") {
                        "message" => {
                            let role = match it["role"].as_str().unwrap() {
                                "system" | "developer" => "system",
                                r => {
                                    if r == "assistant" {
                                        "assistant"
                                    } else {
                                        "user"
                                    }
                                }
                            };
                            match &it["content"] {
                                Value::String(t) => view.push((role, Item::Text(t.clone()))),
                                Value::Array(parts) => {
                                    for p in parts {
                                        match p["type"].as_str().unwrap() {
                                            "input_text" | "output_text" => {
                                                view.push((role, Item::Text(s(&p["text"]))))
                                            }
                                            "input_image" => {
                                                view.push((role, Item::Media(media_key(&s(&p["image_url"])))))
                                            }
                                            "input_file" => {
                                                let key =
                                                    match (p.get("file_data"), p.get("file_id"), p.get("file_url")) {
                                                        (Some(d), _, _) => media_key(&s(d)),
                                                        (_, Some(i), _) => s(i),
                                                        (_, _, Some(u)) => s(u),
                                                        _ => String::new(),
                                                    };
                                                view.push((role, Item::File(key)));
                                            }
                                            t => panic!("responses part {t}"),
                                        }
                                    }
                                }
                                _ => {}
                            }
                        }
                        "function_call" => view.push(("assistant", Item::Call(s(&it["name"]), args(&it["arguments"])))),
                        "function_call_output" => view.push(("tool", Item::Result(s(&it["output"])))),
                        t => panic!("responses item {t}"),
                    }
                }
            }
            _ => {}
        }
        tools = arr(&b["tools"]).iter().map(|t| s(&t["name"])).collect();
    } else if path.ends_with("/v1/messages") || b.get("anthropic_version").is_some() {
        match &b["system"] {
            Value::String(t) => view.push(("system", Item::Text(t.clone()))),
            Value::Array(blocks) => blocks.iter().for_each(|x| view.push(("system", Item::Text(s(&x["text"]))))),
            _ => {}
        }
        for m in arr(&b["messages"]) {
            let role = if m["role"] == "assistant" { "assistant" } else { "user" };
            match &m["content"] {
                Value::String(t) => view.push((role, Item::Text(t.clone()))),
                Value::Array(blocks) => {
                    for x in blocks {
                        match x["type"].as_str().unwrap() {
                            "text" => view.push((role, Item::Text(s(&x["text"])))),
                            "image" => {
                                let src = &x["source"];
                                let key = if src["type"] == "base64" {
                                    format!("b64:{}", s(&src["data"]).trim_end_matches('='))
                                } else {
                                    s(&src["url"])
                                };
                                view.push((role, Item::Media(key)));
                            }
                            "document" => {
                                let src = &x["source"];
                                let key = match src["type"].as_str() {
                                    Some("base64") => format!("b64:{}", s(&src["data"]).trim_end_matches('=')),
                                    Some("url") => s(&src["url"]),
                                    Some("file") => s(&src["file_id"]),
                                    _ => s(&src["data"]),
                                };
                                view.push((role, Item::File(key)));
                            }
                            "tool_use" => view.push(("assistant", Item::Call(s(&x["name"]), args(&x["input"])))),
                            "tool_result" => view.push(("tool", Item::Result(result_text(&x["content"])))),
                            "thinking" => view.push((role, Item::Reasoning(s(&x["thinking"])))),
                            t => panic!("anthropic block {t}"),
                        }
                    }
                }
                _ => {}
            }
        }
        tools = arr(&b["tools"]).iter().map(|t| s(&t["name"])).collect();
    } else if path.contains(":generateContent") || path.contains(":streamGenerateContent") {
        let sys = b.get("systemInstruction").or_else(|| b.get("system_instruction"));
        for p in sys.map(|x| arr(&x["parts"])).unwrap_or_default() {
            view.push(("system", Item::Text(s(&p["text"]))));
        }
        for c in arr(&b["contents"]) {
            let role = if c["role"] == "model" { "assistant" } else { "user" };
            for p in arr(&c["parts"]) {
                let o = p.as_object().unwrap();
                if let Some(t) = o.get("text") {
                    view.push((role, Item::Text(s(t))));
                } else if let Some(d) = o.get("inlineData").or_else(|| o.get("inline_data")) {
                    let key =
                        format!("b64:{}", s(&d["data"]).trim_end_matches('=').replace('-', "+").replace('_', "/"));
                    let mime = s(d.get("mimeType").or_else(|| d.get("mime_type")).unwrap_or(&Value::Null));
                    let media = ["image/", "audio/", "video/"].iter().any(|m| mime.starts_with(m));
                    view.push((role, if media { Item::Media(key) } else { Item::File(key) }));
                } else if let Some(f) = o.get("fileData").or_else(|| o.get("file_data")) {
                    view.push((role, Item::Media(s(f.get("fileUri").or_else(|| f.get("file_uri")).unwrap()))));
                } else if let Some(f) = o.get("functionCall").or_else(|| o.get("function_call")) {
                    view.push(("assistant", Item::Call(s(&f["name"]), args(&f["args"]))));
                } else if let Some(f) = o.get("functionResponse").or_else(|| o.get("function_response")) {
                    view.push(("tool", Item::Result(f["response"].to_string())));
                } else {
                    panic!("gemini part {p}");
                }
            }
        }
        for t in arr(&b["tools"]) {
            for d in
                arr(t.get("functionDeclarations").or_else(|| t.get("function_declarations")).unwrap_or(&Value::Null))
            {
                tools.push(s(&d["name"]));
            }
        }
    } else if path.contains("/converse") || path.contains("/invoke") {
        for x in arr(&b["system"]) {
            view.push(("system", Item::Text(s(&x["text"]))));
        }
        for m in arr(&b["messages"]) {
            let role = if m["role"] == "assistant" { "assistant" } else { "user" };
            for x in arr(&m["content"]) {
                let o = x.as_object().unwrap();
                if let Some(t) = o.get("text") {
                    view.push((role, Item::Text(s(t))));
                } else if let Some(i) = o.get("image") {
                    let src = &i["source"];
                    let key = match src.get("bytes") {
                        Some(b) => format!("b64:{}", s(b).trim_end_matches('=')),
                        None => s(&src["s3Location"]["uri"]),
                    };
                    view.push((role, Item::Media(key)));
                } else if let Some(d) = o.get("document") {
                    let src = &d["source"];
                    let key = match src.get("bytes") {
                        Some(b) => format!("b64:{}", s(b).trim_end_matches('=')),
                        None => s(&src["s3Location"]["uri"]),
                    };
                    view.push((role, Item::File(key)));
                } else if let Some(u) = o.get("toolUse") {
                    view.push(("assistant", Item::Call(s(&u["name"]), args(&u["input"]))));
                } else if let Some(r) = o.get("toolResult") {
                    view.push(("tool", Item::Result(result_text(&r["content"]))));
                } else {
                    panic!("converse block {x}");
                }
            }
        }
        tools = arr(&b["toolConfig"]["tools"]).iter().map(|t| s(&t["toolSpec"]["name"])).collect();
    } else {
        panic!("no view for {path}");
    }
    (normalise(view), tools)
}

/// One request the SDK sent.
struct Sent {
    time_ns: u64,
    reply: Value,
    path: String,
    scenario: String,
    body: Value,
}

fn sent(run: &str) -> HashMap<(String, String), Vec<Sent>> {
    let text = std::fs::read_to_string(fixtures().join("traces").join(run).join("sent.jsonl")).unwrap();
    let mut out: HashMap<(String, String), Vec<Sent>> = HashMap::new();
    for l in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(l).unwrap();
        out.entry((s(&v["traceId"]), s(&v["spanId"]))).or_default().push(Sent {
            time_ns: s(&v["timeUnixNano"]).parse().unwrap(),
            reply: v["reply"].clone(),
            path: s(&v["path"]),
            scenario: s(&v["scenario"]),
            body: v["body"].clone(),
        });
    }
    out
}

/// The request a call made: sent under its span, or under the span of a
/// call nested in it (another instrumentation's span of the same call), or
/// else sent in its trace while it lasted (an instrumentation whose span is
/// not made current: OpenLLMetry's).
///
/// Automatic function calling sends several requests under one span: the
/// call is the first.
fn sent_for<'a>(c: &Call, calls: &[Call], sent: &'a HashMap<(String, String), Vec<Sent>>) -> Option<&'a Sent> {
    let key = |c: &Call| (c.at.trace_id.clone().unwrap_or_default(), c.at.span_id.clone().unwrap_or_default());
    if let Some(s) = sent.get(&key(c)) {
        return s.first();
    }
    if let Some(child) = calls.iter().find(|d| d.parent_span_id == c.at.span_id && d.at.trace_id == c.at.trace_id) {
        return sent.get(&key(child)).and_then(|s| s.first());
    }
    let (start, end) = (c.start_ns?, c.end_ns?);
    sent.iter()
        .filter(|((t, _), _)| Some(t) == c.at.trace_id.as_ref())
        .flat_map(|(_, v)| v)
        .find(|r| (start..=end).contains(&r.time_ns))
}

/// What an instrumentation does not record: (run prefix, scenario prefix,
/// what). There, what the call holds must be the sent view with items left
/// out (a subsequence of it, and its tools a subset), nothing changed or
/// added; elsewhere the two are equal.
const DROPS: &[(&str, &str, &str)] = &[
    ("otel-openai-v2-latest", "chat.", "tool definitions (gen_ai.tool.definitions is not written)"),
    ("otel-openai-v2-latest", "chat.image", "a user message of content parts: its parts (`\"parts\": []`)"),
    ("otel-openai-v2-latest", "chat.document", "a user message of content parts: its parts (`\"parts\": []`)"),
    ("otel-openai-v2-events", "chat.", "tool definitions (no event carries them)"),
    ("anthropic-sdk-content", "messages.", "tool definitions; images (`{\"type\": \"anthropic_image\"}` without data)"),
    ("otel-botocore-bedrock", "bedrock.", "tool definitions (no event carries them)"),
    ("openinference-bedrock", "bedrock.image", "an image by `s3Location` (only inline bytes are recorded)"),
    ("openinference-bedrock", "bedrock.document", "documents"),
    ("openinference-google-genai", "gemini.document", "inline documents"),
    ("openllmetry-bedrock", "bedrock.image", "image bytes (`blob` parts with an empty `content`)"),
    ("openllmetry-bedrock", "bedrock.document", "documents"),
    ("openllmetry-openai", "responses.", "an input_file's data (a `file` part with its filename only)"),
    ("openllmetry-legacy-google-genai", "gemini.", "the system instruction"),
    ("openllmetry-legacy-bedrock", "bedrock.", "tool definitions"),
    ("openllmetry-legacy-bedrock", "bedrock.image", "image bytes (written as a Python bytes literal, not base64)"),
    ("openllmetry-legacy-bedrock", "bedrock.invoke_claude", "the system prompt of an InvokeModel body"),
    ("openllmetry-legacy-openai", "chat.image", "a user message of content parts"),
    ("openllmetry-legacy-openai", "responses.tools", "function_call and function_call_output input items"),
];

/// Where an instrumentation writes something else than what was sent (not
/// comparable): (run prefix, scenario prefix, what it writes).
const GARBLED: &[(&str, &str, &str)] = &[
    ("openllmetry-google-genai", "gemini.image", "a file_data part as Python's repr of the SDK's Part object, as text"),
    ("openllmetry-google-genai", "gemini.document", "an inline_data part as Python's repr of the SDK's Part object"),
    (
        "openllmetry-legacy-google-genai",
        "gemini.tools",
        "function calls and responses as Python's repr of Part objects",
    ),
    ("openllmetry-legacy-google-genai", "gemini.image", "non-text parts as Python's repr of the SDK's Part objects"),
    ("openllmetry-legacy-google-genai", "gemini.document", "non-text parts as Python's repr of the SDK's Part objects"),
    ("openllmetry-legacy-google-genai", "gemini.afc", "function calls and responses as Python's repr of Part objects"),
];

/// Whether `small` is `big` with items left out.
fn subsequence<T: PartialEq>(small: &[T], big: &[T]) -> bool {
    let mut it = big.iter();
    small.iter().all(|x| it.any(|y| y == x))
}

#[test]
fn captured_content_is_what_the_sdk_sent() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for (name, files) in runs() {
        let r = read_run(&files);
        let sent = sent(&name);
        for c in &r.calls {
            let Some(env) = c.envelope() else { continue };
            let Some(req) = sent_for(c, &r.calls, &sent) else {
                failures.push(format!("{name}: {} ({:?}) matches no sent request", c.at, c.name));
                continue;
            };
            let (want, want_tools) = body_view(&req.path, &req.body);
            let (got, got_tools) = envelope_view(env);
            compared += 1;
            if got != want || got_tools != want_tools {
                let dropped =
                    DROPS.iter().any(|(run, scen, _)| name.starts_with(run) && req.scenario.starts_with(scen))
                        && subsequence(&got, &want)
                        && got_tools.iter().all(|t| want_tools.contains(t));
                let garbled =
                    GARBLED.iter().any(|(run, scen, _)| name.starts_with(run) && req.scenario.starts_with(scen));
                if !dropped && !garbled {
                    failures.push(format!(
                        "{name} {} {}:\n  sent  {want:?} tools {want_tools:?}\n  call  {got:?} tools {got_tools:?}",
                        req.scenario, c.at
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {compared}:\n{}", failures.len(), failures.join("\n"));
    assert!(compared > 140, "compared {compared}");
}

// ---------------------------------------------------------------------------
// Replay: an envelope with a `source` exports to that format.

fn target_of(f: RequestFormat) -> Target {
    Target::from_code(f.as_str()).expect("a target for every request format")
}

/// A path of the format's endpoint (what `body_view` reads a body by).
fn endpoint(f: RequestFormat) -> &'static str {
    match f {
        RequestFormat::Openai => "/v1/chat/completions",
        RequestFormat::Responses => "/v1/responses",
        RequestFormat::Anthropic => "/v1/messages",
        RequestFormat::Gemini => "/v1beta/models/m:generateContent",
        RequestFormat::Bedrock => "/model/m/converse",
    }
}

/// Every call read with its request format exports to that format with the
/// content it holds (its view through the exporter is its own); a request
/// imported whole (OpenInference's `input.value`) exports to the very body
/// the SDK sent.
#[test]
fn captured_calls_replay_in_their_provider_format() {
    let mut replayed = 0;
    let mut whole = 0;
    for (name, files) in runs() {
        let r = read_run(&files);
        let sent = sent(&name);
        for c in &r.calls {
            let Some(env) = c.envelope() else { continue };
            let Some(format) = env.source else { continue };
            let exported = export::render(env, target_of(format));
            let body: Value = serde_json::from_str(&exported.text).unwrap();
            let (view, tools) = envelope_view(env);
            assert_eq!(body_view(endpoint(format), &body), (view, tools), "{name}: {}", c.at);
            replayed += 1;
            if c.dialect == Dialect::Openinference && c.notices.iter().all(|n| !n.path.contains("llm.input_messages")) {
                if let Some(req) = sent_for(c, &r.calls, &sent).filter(|req| req.path == endpoint(format)) {
                    if env.messages.iter().all(|m| m.ext.provider.is_none()) && req.body.get("stream").is_none() {
                        assert_eq!(sorted(&body), sorted(&req.body), "{name}: {} replays the body", c.at);
                        whole += 1;
                    }
                }
            }
        }
    }
    assert!(replayed > 120, "replayed {replayed}");
    assert!(whole >= 20, "replayed {whole} whole bodies");
}

// ---------------------------------------------------------------------------
// Batch files.

fn batch(name: &str) -> String {
    std::fs::read_to_string(fixtures().join("batch").join(name)).unwrap()
}

#[test]
fn openai_batch_lines_are_calls_that_replay_their_body() {
    let text = batch("openai_batch.jsonl");
    let r = recorded::read(&[("openai_batch.jsonl", &text)]).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(r.calls.len(), lines.len());
    for (i, (c, line)) in r.calls.iter().zip(&lines).enumerate() {
        assert_eq!(c.dialect, Dialect::OpenaiBatch);
        assert_eq!(c.at.line, Some(i as u64 + 1));
        assert_eq!(c.at.custom_id.as_deref(), line["custom_id"].as_str());
        assert_eq!(c.provider.as_deref(), Some("openai"));
        assert_eq!(c.model.as_deref(), line["body"]["model"].as_str());
        assert!(c.start_ns.is_none() && c.output.is_none() && c.errors.is_empty(), "{}", c.at);
        let format = c.envelope().unwrap().source.unwrap();
        assert_eq!(endpoint(format), line["url"].as_str().unwrap());
        let exported = export::render(c.envelope().unwrap(), target_of(format));
        let body: Value = serde_json::from_str(&exported.text).unwrap();
        assert_eq!(sorted(&body), sorted(&line["body"]), "{}", c.at);
        assert_eq!(c.summary().at, c.at);
    }
}

#[test]
fn anthropic_batch_requests_are_calls_that_replay_their_params() {
    let text = batch("anthropic_batch.json");
    let r = recorded::read(&[("anthropic_batch.json", &text)]).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let requests = doc["requests"].as_array().unwrap();
    assert_eq!(r.calls.len(), requests.len());
    for (i, (c, req)) in r.calls.iter().zip(requests).enumerate() {
        assert_eq!(c.dialect, Dialect::AnthropicBatch);
        assert_eq!((c.at.line, c.at.index), (None, Some(i as u64)));
        assert_eq!(c.at.custom_id.as_deref(), req["custom_id"].as_str());
        let exported = export::render(c.envelope().unwrap(), Target::Anthropic);
        let body: Value = serde_json::from_str(&exported.text).unwrap();
        assert_eq!(sorted(&body), sorted(&req["params"]), "{}", c.at);
    }
    // The same requests one a line.
    let lines: String = requests.iter().map(|r| format!("{r}\n")).collect();
    let again = recorded::read(&[("anthropic.jsonl", &lines)]).unwrap();
    assert_eq!(again.calls.len(), requests.len());
    assert!(again.calls.iter().enumerate().all(|(i, c)| c.at.line == Some(i as u64 + 1) && c.at.index.is_none()));
}

#[test]
fn json_lines_of_bodies_detect_each_line() {
    let text = batch("bodies.jsonl");
    let r = recorded::read(&[("bodies.jsonl", &text)]).unwrap();
    assert_eq!(r.calls.len(), text.lines().filter(|l| !l.trim().is_empty()).count());
    let mut formats = std::collections::BTreeSet::new();
    for c in &r.calls {
        let Dialect::Request(f) = c.dialect else { panic!("{}", c.at) };
        formats.insert(f.code());
        let env = c.envelope().unwrap();
        let line: Value = serde_json::from_str(text.lines().nth(c.at.line.unwrap() as usize - 1).unwrap()).unwrap();
        if let Some(format) = env.source {
            let body: Value = serde_json::from_str(&export::render(env, target_of(format)).text).unwrap();
            assert_eq!(sorted(&body), sorted(&line), "{}", c.at);
        }
    }
    assert!(formats.len() >= 3, "{formats:?}");
    // Gemini and Bedrock bodies, one a line: detected, and replayed.
    for (file, format) in [("gemini_bodies.jsonl", Format::Gemini), ("bedrock_bodies.jsonl", Format::Bedrock)] {
        let text = batch(file);
        let r = recorded::read(&[(file, &text)]).unwrap();
        assert_eq!(r.calls.len(), text.lines().filter(|l| !l.trim().is_empty()).count(), "{file}");
        for c in &r.calls {
            assert_eq!(c.dialect, Dialect::Request(format), "{}", c.at);
            let env = c.envelope().unwrap();
            let line: Value = serde_json::from_str(text.lines().nth(c.at.line.unwrap() as usize - 1).unwrap()).unwrap();
            let body: Value = serde_json::from_str(&export::render(env, target_of(env.source.unwrap())).text).unwrap();
            assert_eq!(sorted(&body), sorted(&line), "{}", c.at);
        }
    }
    // An envelope on a line is a call too.
    let env =
        std::fs::read_to_string(fixtures().join("envelopes/valid").read_dir().unwrap().next().unwrap().unwrap().path())
            .unwrap();
    let one_line: Value = serde_json::from_str(&env).unwrap();
    let r = recorded::read(&[("mixed.jsonl", &format!("{one_line}\n{}\n", text.lines().next().unwrap()))]).unwrap();
    assert_eq!(r.calls[0].dialect, Dialect::Request(Format::Envelope));
}

#[test]
fn batch_errors_are_located_by_file_line_and_path() {
    let good = r#"{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":"hi"}]}}"#;
    let text = [
        good,
        r#"{"custom_id":"b","method":"POST","url":"/v1/embeddings","body":{"model":"m","input":"x"}}"#,
        r#"{"custom_id":"c","method":"POST","url":"/v1/chat/completions","body":{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"javascript:alert(1)"}}]}]}}"#,
        r#"{"custom_id":"d", "method":"POST", "url":"/v1/chat/completions", "body": [1]}"#,
        "{not json",
        good,
    ]
    .join("\n");
    let errors = recorded::read(&[("in.jsonl", &text)]).unwrap_err();
    let located: Vec<(Option<u64>, Option<&str>, &str)> =
        errors.iter().map(|e| (e.at.line, e.at.custom_id.as_deref(), e.path.as_str())).collect();
    assert_eq!(
        located,
        [
            (Some(2), Some("b"), "url"),
            (Some(3), Some("c"), "body.messages[0].content[0].image_url.url"),
            (Some(4), Some("d"), "body"),
            (Some(5), None, "line 1 column 2"),
        ],
        "{errors:?}"
    );
    assert!(errors[0].to_string().starts_with("in.jsonl:2 custom_id \"b\": url: `/v1/embeddings`"), "{}", errors[0]);
    // Line by line, the good lines still give their calls.
    let mut reader = Reader::new();
    let results: Vec<_> = text.lines().enumerate().map(|(i, l)| reader.line("in.jsonl", i as u64 + 1, l)).collect();
    assert_eq!(results.iter().filter(|r| r.as_ref().is_ok_and(|c| c.len() == 1)).count(), 2);
    // A results file is named as one.
    let e = recorded::read(&[("out.jsonl", r#"{"id":"x","custom_id":"a","response":{"status_code":200,"body":{}}}"#)])
        .unwrap_err();
    assert!(e[0].message.contains("results"), "{}", e[0]);
}

// ---------------------------------------------------------------------------
// Streaming: line by line gives what whole files give.

fn key(c: &Call) -> String {
    format!("{}|{:?}|{:?}", serde_json::to_string(&c.content).unwrap(), c.output, c.usage)
}

/// When an OTLP line was exported: its spans' latest end, or its log
/// records' latest time.
fn line_time(line: &str) -> u64 {
    let v: Value = serde_json::from_str(line).unwrap();
    let mut times = Vec::new();
    for r in v["resourceSpans"].as_array().into_iter().flatten() {
        for sc in r["scopeSpans"].as_array().into_iter().flatten() {
            for sp in sc["spans"].as_array().into_iter().flatten() {
                times.push(s(&sp["endTimeUnixNano"]).parse::<u64>().unwrap());
            }
        }
    }
    for r in v["resourceLogs"].as_array().into_iter().flatten() {
        for sc in r["scopeLogs"].as_array().into_iter().flatten() {
            for rec in sc["logRecords"].as_array().into_iter().flatten() {
                let t = rec.get("timeUnixNano").or_else(|| rec.get("observedTimeUnixNano")).unwrap();
                times.push(s(t).parse::<u64>().unwrap());
            }
        }
    }
    times.into_iter().max().unwrap_or(0)
}

#[test]
fn line_by_line_reading_gives_the_calls_whole_files_give() {
    for (name, files) in runs() {
        let whole = read_run(&files);
        let mut want: Vec<String> = whole.calls.iter().map(key).collect();
        want.sort();
        // One reader, files one after the other, a line at a time.
        let mut reader = Reader::new();
        let mut got = Vec::new();
        for (file, text) in &files {
            for (i, line) in text.lines().enumerate() {
                got.extend(reader.line(file, i as u64 + 1, line).unwrap());
            }
        }
        let finished = reader.finish();
        got.extend(finished.calls);
        // A call a line completes is given at once, before the other
        // instrumentation's span of the same request is read: the reader
        // folds only what it still holds; the caller folds the rest.
        let streamed = got.len();
        let got = recorded::fold(got);
        assert_eq!(streamed, got.len() + folded(&got), "{name}: streamed unfolded");
        let mut got: Vec<String> = got.iter().map(key).collect();
        got.sort();
        assert_eq!(got, want, "{name}");

        // Windowed over the two signals in one file in time order (as a
        // Collector writing both to one file): the same calls, and never
        // more than a window's worth waiting.
        let mut mixed: Vec<(u64, &str)> = Vec::new();
        for (_, text) in &files {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                mixed.push((line_time(line), line));
            }
        }
        mixed.sort_by_key(|(t, _)| *t);
        let mixed: Vec<&str> = mixed.into_iter().map(|(_, l)| l).collect();
        let mut reader = Reader::windowed(8);
        let mut got = Vec::new();
        let mut most = 0;
        for (i, line) in mixed.iter().enumerate() {
            got.extend(reader.line("both.jsonl", i as u64 + 1, line).unwrap());
            most = most.max(reader.waiting());
        }
        got.extend(reader.finish().calls);
        assert!(most <= 16, "{name}: {most} waiting");
        let got = recorded::fold(got);
        let mut got: Vec<String> = got.iter().map(key).collect();
        got.sort();
        assert_eq!(got, want, "{name}: windowed");
    }
}

#[test]
fn events_after_their_call_are_counted_not_made_a_second_call() {
    // SPAN_AND_EVENT: the messages on the span and on the event.
    let (_, files) = runs().into_iter().find(|(n, _)| n == "otel-openai-v2-latest-span-and-event").unwrap();
    let r = read_run(&files);
    assert_eq!(r.calls.len(), expected_calls()["otel-openai-v2-latest-span-and-event"]);
    assert!(r.late_events as usize >= r.calls.len(), "{}", r.late_events);
    // Logs first: the events wait for their span, then join it.
    let reversed: Vec<(String, String)> = files.iter().rev().cloned().collect();
    let again = read_run(&reversed);
    assert_eq!(again.calls.len(), r.calls.len());
    assert_eq!(again.calls.iter().map(key).collect::<Vec<_>>(), r.calls.iter().map(key).collect::<Vec<_>>());
}

/// The settings a call states are the ones the SDK sent (same name, same
/// value), for every setting in the envelope's `params`.
#[test]
fn recorded_settings_are_the_ones_sent() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, files) in runs() {
        let r = read_run(&files);
        let sent = sent(&name);
        for c in &r.calls {
            let params = match &c.content {
                Content::Captured(e) => e.params.clone(),
                Content::NotCaptured { params, .. } => params.clone(),
            };
            let Some(params) = params else { continue };
            let Some(req) = sent_for(c, &r.calls, &sent) else { continue };
            for (k, v) in &params {
                checked += 1;
                // Gemini and Bedrock stream by their endpoint, not a field.
                let streamed = k == "stream" && *v == json!(true) && req.path.contains("tream");
                let found = if streamed { Some(v) } else { find_setting(&req.body, k) };
                if found.map(loose) != Some(loose(v)) {
                    failures.push(format!("{name} {} {}: `{k}` = {v} but sent {found:?}", req.scenario, c.at));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {checked}:\n{}", failures.len(), failures.join("\n"));
    assert!(checked > 100, "{checked}");
}

/// A value with its keys' spelling aside (`top_p` and `topP` are one key:
/// the Gemini API reads both) and numbers as numbers.
fn loose(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let m: BTreeMap<String, Value> =
                o.iter().map(|(k, v)| (k.replace('_', "").to_ascii_lowercase(), loose(v))).collect();
            serde_json::to_value(m).unwrap()
        }
        Value::Array(a) => Value::Array(a.iter().map(loose).collect()),
        other => sorted(other),
    }
}

/// A setting in a body: at its top level, or in Gemini's `generationConfig`
/// / Bedrock's `inferenceConfig`, in snake_case or camelCase, under its
/// name or the name the body's format gives the same setting.
fn find_setting<'a>(body: &'a Value, key: &str) -> Option<&'a Value> {
    let aliases: &[&str] = match key {
        "max_tokens" => &["max_tokens", "max_completion_tokens", "max_output_tokens", "maxOutputTokens", "maxTokens"],
        "stop_sequences" | "stop" => &["stop_sequences", "stop", "stopSequences"],
        "n" => &["n", "candidate_count", "candidateCount"],
        "top_p" => &["top_p", "topP"],
        "top_k" => &["top_k", "topK"],
        _ => &[],
    };
    let camel = |k: &str| {
        let mut out = String::new();
        let mut up = false;
        for c in k.chars() {
            if c == '_' {
                up = true;
            } else if up {
                out.push(c.to_ascii_uppercase());
                up = false;
            } else {
                out.push(c);
            }
        }
        out
    };
    let names: Vec<String> =
        std::iter::once(key).chain(aliases.iter().copied()).flat_map(|k| [k.to_string(), camel(k)]).collect();
    let places = [
        Some(body),
        body.get("generationConfig"),
        body.get("generation_config"),
        body.get("inferenceConfig"),
        body.get("additionalModelRequestFields"),
    ];
    places.into_iter().flatten().find_map(|p| names.iter().find_map(|n| p.get(n)))
}

/// What the recorded output holds: (texts, tool calls, reasoning texts).
fn output_view(o: &recorded::Output) -> (Vec<String>, Vec<(String, Value)>, Vec<String>) {
    let (mut texts, mut calls, mut reasoning) = (vec![], vec![], vec![]);
    for m in &o.messages {
        assert_eq!(m.role, Role::Assistant, "an output message is the model's");
        for seg in &m.segments {
            match seg {
                Segment::Text(t) => texts.push(collapse(&t.content)),
                Segment::LongText(t) => texts.push(collapse(&t.content)),
                Segment::ToolCallRequest(c) => {
                    calls.push((c.tool_name.clone(), sorted(&Value::Object(c.arguments.clone()))))
                }
                Segment::Reasoning(r) => reasoning.push(collapse(&r.content)),
                _ => {}
            }
        }
    }
    (texts, calls, reasoning)
}

/// What an instrumentation does not record of a reply: (run prefix,
/// scenario prefix, what).
const OUTPUT_DROPS: &[(&str, &str, &str)] = &[
    ("openllmetry-google-genai", "gemini.stream", "a streamed reply: only its last chunk"),
    ("openllmetry-legacy-bedrock", "bedrock.", "the tool calls of a reply (a completion with its role only)"),
];

/// The reply a call records is the one the provider gave (output, never
/// part of the request): its text, or its tool calls.
#[test]
fn recorded_output_is_the_reply_given() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, files) in runs() {
        let r = read_run(&files);
        let sent = sent(&name);
        for c in &r.calls {
            let Some(out) = c.output.as_ref().filter(|o| !o.messages.is_empty()) else { continue };
            let Some(first) = sent_for(c, &r.calls, &sent) else { continue };
            // Automatic function calling: one span, several requests; the
            // recorded reply is the last one's.
            let (start, end) = (c.start_ns.unwrap_or(0), c.end_ns.unwrap_or(u64::MAX));
            let req = sent
                .iter()
                .filter(|((t, _), _)| Some(t) == c.at.trace_id.as_ref())
                .flat_map(|(_, v)| v)
                .filter(|r| (start..=end).contains(&r.time_ns))
                .max_by_key(|r| r.time_ns)
                .unwrap_or(first);
            let (texts, calls, _) = output_view(out);
            let ok = match req.reply["kind"].as_str() {
                Some("text" | "json") => texts.iter().any(|t| *t == collapse(&s(&req.reply["text"]))),
                Some("tools") => {
                    let want: Vec<(String, Value)> = req.reply["toolCalls"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|t| (s(&t["name"]), sorted(&t["arguments"])))
                        .collect();
                    calls == want
                }
                other => panic!("reply kind {other:?}"),
            };
            checked += 1;
            let dropped =
                OUTPUT_DROPS.iter().any(|(run, scen, _)| name.starts_with(run) && req.scenario.starts_with(scen));
            if !ok && !dropped {
                failures
                    .push(format!("{name} {} {}: output {texts:?} {calls:?}, reply {}", req.scenario, c.at, req.reply));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {checked}:\n{}", failures.len(), failures.join("\n"));
    assert!(checked > 300, "{checked}");
}

// ---------------------------------------------------------------------------
// The semantic conventions' own schemas and examples
// (tests/fixtures/recorded/semconv/).

/// An OTLP `AnyValue` for a JSON value (objects as key-value lists).
fn any_value(v: &Value) -> Value {
    match v {
        Value::String(s) => json!({ "stringValue": s }),
        Value::Bool(b) => json!({ "boolValue": b }),
        Value::Number(n) if n.is_i64() || n.is_u64() => json!({ "intValue": n.to_string() }),
        Value::Number(n) => json!({ "doubleValue": n }),
        Value::Array(a) => json!({ "arrayValue": { "values": a.iter().map(any_value).collect::<Vec<_>>() } }),
        Value::Object(o) => {
            json!({ "kvlistValue": { "values": o.iter().map(|(k, v)| json!({"key": k, "value": any_value(v)})).collect::<Vec<_>>() } })
        }
        Value::Null => json!({}),
    }
}

/// A one-span OTLP line; `structured`: message attributes as AnyValue
/// structures, else as JSON strings (both are allowed).
fn span_line(attrs: &Value, structured: bool) -> String {
    let attributes: Vec<Value> = attrs
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let value = match v {
                Value::Array(_) | Value::Object(_) if !structured && k != "gen_ai.response.finish_reasons" => {
                    json!({ "stringValue": v.to_string() })
                }
                other => any_value(other),
            };
            json!({ "key": k, "value": value })
        })
        .collect();
    json!({"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "example"}, "spans": [{
        "traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7", "name": "chat gpt-4", "kind": 3,
        "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000001500000000",
        "attributes": attributes
    }]}]}]})
    .to_string()
}

fn one_call(line: &str) -> Call {
    let r = recorded::read(&[("example.jsonl", line)]).unwrap();
    assert_eq!(r.calls.len(), 1);
    r.calls.into_iter().next().unwrap()
}

/// The ```json and ```jsonc blocks of the examples document, in order
/// (`//` comment lines left out).
fn example_blocks() -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures().join("recorded/semconv/examples-llm-calls.md")).unwrap();
    text.split("```json")
        .skip(1)
        .map(|b| {
            let body = b.trim_start_matches('c').split("```").next().unwrap();
            let json: String =
                body.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
            serde_json::from_str(&json).unwrap()
        })
        .collect()
}

fn common() -> Value {
    json!({
        "gen_ai.provider.name": "openai", "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4",
        "gen_ai.request.max_tokens": 200, "gen_ai.request.top_p": 1.0,
        "gen_ai.response.id": "chatcmpl-9J3uIL87gldCFtiIbyaOvTeYBRA3l", "gen_ai.response.model": "gpt-4-0613",
        "gen_ai.usage.output_tokens": 47, "gen_ai.usage.input_tokens": 52, "gen_ai.response.finish_reasons": ["stop"]
    })
}

fn with(mut base: Value, more: Value) -> Value {
    for (k, v) in more.as_object().unwrap() {
        base[k] = v.clone();
    }
    base
}

#[test]
fn semconv_simple_chat_structured_or_as_json_strings() {
    let b = example_blocks();
    let attrs = with(common(), json!({"gen_ai.input.messages": b[0], "gen_ai.output.messages": b[1]}));
    let c = one_call(&span_line(&attrs, false));
    assert_eq!(c, one_call(&span_line(&attrs, true)), "structured values read as JSON strings are");
    assert_eq!(c.dialect, Dialect::Genai);
    assert_eq!((c.provider.as_deref(), c.model.as_deref()), (Some("openai"), Some("gpt-4")));
    assert_eq!((c.usage.input_tokens, c.usage.output_tokens), (Some(52), Some(47)));
    assert_eq!(c.duration_ns(), Some(1_500_000_000));
    assert_eq!(c.at.trace_id.as_deref(), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
    let env = c.envelope().unwrap();
    assert_eq!(env.source, Some(RequestFormat::Openai));
    assert_eq!(serde_json::to_value(&env.params).unwrap(), json!({"max_tokens": 200, "top_p": 1.0}));
    let (view, _) = envelope_view(env);
    assert_eq!(
        view,
        [
            ("system", Item::Text("You are a helpful bot".into())),
            ("user", Item::Text("Tell me a joke about OpenTelemetry".into()))
        ]
    );
    let out = c.output.as_ref().unwrap();
    assert_eq!(out.finish_reasons, ["stop"]);
    assert_eq!(out.response_model.as_deref(), Some("gpt-4-0613"));
    assert!(output_view(out).0[0].starts_with("Why did the developer"));
    assert!(c.notices.is_empty() && c.errors.is_empty(), "{:?} {:?}", c.notices, c.errors);
    let row = c.summary();
    assert_eq!(
        (row.messages, row.captured, row.last_user.as_deref()),
        (2, true, Some("Tell me a joke about OpenTelemetry"))
    );
    let back: recorded::Row = serde_json::from_str(&serde_json::to_string(&row).unwrap()).unwrap();
    assert_eq!(back, row);
}

#[test]
fn semconv_span_without_content_is_listed_not_captured() {
    let c = one_call(&span_line(&common(), false));
    let Content::NotCaptured { how, params } = &c.content else { panic!("{:?}", c.content) };
    assert!(how.contains("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"), "{how}");
    assert_eq!(params.as_ref().unwrap()["max_tokens"], 200);
    let row = c.summary();
    assert_eq!((row.captured, row.messages, row.input_tokens), (false, 0, Some(52)));
}

#[test]
fn semconv_multimodal_parts() {
    let b = example_blocks();
    let multimodal = b.iter().find(|v| v[0]["parts"].as_array().is_some_and(|p| p.len() == 7)).unwrap();
    let c = one_call(&span_line(&with(common(), json!({"gen_ai.input.messages": multimodal})), true));
    let segs = &c.envelope().unwrap().messages[0].segments;
    let kinds: Vec<&str> = segs.iter().map(Segment::kind).collect();
    assert_eq!(kinds, ["text", "media", "document", "document", "document", "media", "media"]);
    let Segment::Media(img) = &segs[1] else { panic!() };
    assert!(img.url.starts_with("https://raw.githubusercontent.com/"));
    let Segment::Document(video) = &segs[2] else { panic!() };
    assert_eq!((video.url.as_deref(), video.mime_type.as_str()), (Some("gs://my-bucket/my-video.mp4"), "video/mp4"));
    let Segment::Document(f) = &segs[3] else { panic!() };
    assert_eq!(f.file_id.as_deref(), Some("provider_fileid_123"));
    let Segment::Media(blob) = &segs[5] else { panic!() };
    assert_eq!(blob.url, "data:image/png;base64,aGVsbG8gd29ybGQgaW1hZ2luZSB0aGlzIGlzIGFuIGltYWdlCg==");
    let Segment::Media(audio) = &segs[6] else { panic!() };
    assert_eq!(audio.media_type, envelope::MediaType::Audio);
    // Inline bytes are never text.
    assert!(segs.iter().all(|s| !matches!(s, Segment::Text(t) if t.content.contains("aGVsbG8"))));
    assert!(c.errors.is_empty(), "{:?}", c.errors);
}

#[test]
fn semconv_tool_calls_pair_with_their_results() {
    let b = example_blocks();
    // Span 2 of the example: the call and its result in the input.
    let input = b.iter().find(|v| v.as_array().is_some_and(|m| m.len() == 3 && m[2]["role"] == "tool")).unwrap();
    let tools = b.iter().find(|v| v[0]["type"] == "function" && v[0].get("parameters").is_some()).unwrap();
    let c = one_call(&span_line(
        &with(common(), json!({"gen_ai.input.messages": input, "gen_ai.tool.definitions": tools})),
        true,
    ));
    let env = c.envelope().unwrap();
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    let roles: Vec<Role> = env.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::System, Role::User, Role::Assistant, Role::Tool]);
    let Segment::ToolOverview(t) = &env.messages[0].segments[0] else { panic!() };
    assert_eq!(t.items[0].name, "get_current_weather");
    assert_eq!(t.items[0].schema.as_ref().unwrap()["required"], json!(["location", "unit"]));
    let Segment::ToolCallRequest(call) = &env.messages[2].segments[0] else { panic!() };
    assert_eq!(
        (call.call_id.as_deref(), call.arguments["location"].as_str()),
        (Some("call_VSPygqKTWdrhaFErNvMV18Yl"), Some("Paris"))
    );
    let Segment::ToolCallResult(result) = &env.messages[3].segments[0] else { panic!() };
    assert_eq!((result.tool_name.as_str(), result.result.as_str()), ("get_weather", "rainy, 57°F"));
    // An output tool call is output.
    let out = b.iter().find(|v| v[0]["finish_reason"] == "tool_call").unwrap();
    let c = one_call(&span_line(
        &with(common(), json!({"gen_ai.output.messages": out, "gen_ai.input.messages": b[0]})),
        false,
    ));
    assert_eq!(output_view(c.output.as_ref().unwrap()).1, [("get_weather".to_string(), json!({"location": "Paris"}))]);
    assert_eq!(c.envelope().unwrap().messages.len(), 2);
}

#[test]
fn semconv_instructions_reasoning_server_tools_and_choices() {
    let b = example_blocks();
    let instructions = b.iter().find(|v| v[0]["content"] == "You must never tell jokes").unwrap();
    let c = one_call(&span_line(
        &with(common(), json!({"gen_ai.system_instructions": instructions, "gen_ai.input.messages": b[0]})),
        true,
    ));
    let env = c.envelope().unwrap();
    let firsts: Vec<(Role, &str)> = env.messages.iter().map(|m| (m.role, m.segments[0].kind())).collect();
    assert_eq!(firsts, [(Role::System, "system_prompt"), (Role::System, "system_prompt"), (Role::User, "text")]);

    let reasoning = b.iter().find(|v| v[0]["parts"][0]["type"] == "reasoning").unwrap();
    let c = one_call(&span_line(
        &with(common(), json!({"gen_ai.input.messages": b[0], "gen_ai.output.messages": reasoning})),
        false,
    ));
    let (texts, _, thoughts) = output_view(c.output.as_ref().unwrap());
    assert!(thoughts[0].starts_with("Alright, the user wants a joke") && texts.len() == 1);

    let server = b.iter().find(|v| v[0]["parts"][0]["type"] == "server_tool_call").unwrap();
    let c = one_call(&span_line(
        &with(common(), json!({"gen_ai.input.messages": b[0], "gen_ai.output.messages": server})),
        false,
    ));
    let paths: Vec<&str> = c.notices.iter().map(|n| n.path.as_str()).collect();
    assert_eq!(
        paths,
        [r#"attributes["gen_ai.output.messages"][0].parts[0]"#, r#"attributes["gen_ai.output.messages"][0].parts[1]"#]
    );
    assert!(c.notices[0].message.contains("server_tool_call"), "{}", c.notices[0]);

    let choices =
        b.iter().find(|v| v.as_array().is_some_and(|m| m.len() == 2 && m[1]["finish_reason"].is_string())).unwrap();
    let c = one_call(&span_line(
        &with(common(), json!({"gen_ai.input.messages": b[0], "gen_ai.output.messages": choices})),
        true,
    ));
    let out = c.output.as_ref().unwrap();
    assert_eq!((out.messages.len(), out.finish_reasons.len()), (2, 2));
}

/// Every part type the schemas define is read: into its segment, or (a
/// provider's server tool call) into a notice.
#[test]
fn every_part_type_of_the_schemas_is_read() {
    let expected = [
        ("text", "text"),
        ("tool_call", "tool_call_request"),
        ("tool_call_response", "tool_call_result"),
        ("blob", "media"),
        ("file", "document"),
        ("uri", "media"),
        ("reasoning", "reasoning"),
        ("server_tool_call", "notice"),
        ("server_tool_call_response", "notice"),
    ];
    for schema in ["gen-ai-input-messages.json", "gen-ai-output-messages.json", "gen-ai-system-instructions.json"] {
        let s: Value =
            serde_json::from_str(&std::fs::read_to_string(fixtures().join("recorded/semconv").join(schema)).unwrap())
                .unwrap();
        for (name, def) in s["$defs"].as_object().unwrap() {
            let Some(ty) = def["properties"]["type"]["const"].as_str() else { continue };
            if !name.ends_with("Part") {
                continue;
            }
            let want = expected.iter().find(|(t, _)| *t == ty).unwrap_or_else(|| panic!("{schema}: part type {ty}")).1;
            // The part with its required fields.
            let mut part = json!({"type": ty});
            for field in def["required"].as_array().unwrap().iter().filter_map(Value::as_str) {
                part[field] = match field {
                    "type" => json!(ty),
                    "modality" => json!("image"),
                    "content" if ty == "blob" => json!("iVBORw0KGgoAAAANSUhEUgAAAAE="),
                    "uri" => json!("https://example.com/a.png"),
                    "server_tool_call" | "server_tool_call_response" => json!({"type": "code_interpreter"}),
                    _ => json!("x"),
                };
            }
            let role = match ty {
                "tool_call" => "assistant",
                "tool_call_response" => "tool",
                _ => "user",
            };
            let mut messages = vec![json!({"role": "user", "parts": [{"type": "text", "content": "q"}]})];
            if ty == "tool_call_response" {
                messages.push(json!({"role": "assistant", "parts": [{"type": "tool_call", "id": "x", "name": "f", "arguments": {}}]}));
                part["id"] = json!("x");
            }
            messages.push(json!({"role": role, "parts": [part]}));
            let c = one_call(&span_line(&with(common(), json!({"gen_ai.input.messages": messages})), true));
            let last = c.envelope().unwrap().messages.last().unwrap();
            let got = if want == "notice" {
                assert!(!c.notices.is_empty(), "{schema} {ty}");
                "notice"
            } else {
                last.segments.last().map_or("none", Segment::kind)
            };
            assert_eq!(got, want, "{schema}: {ty} ({:?})", c.notices);
            assert!(c.errors.is_empty(), "{schema} {ty}: {:?}", c.errors);
        }
    }
}

#[test]
fn the_operation_details_event_and_span_events_carry_a_call() {
    let b = example_blocks();
    let mut details = with(common(), json!({"gen_ai.input.messages": b[0], "gen_ai.output.messages": b[1]}));
    // The event as a log record joined to a span without content.
    let span = span_line(&common(), true);
    let attributes: Vec<Value> =
        details.as_object().unwrap().iter().map(|(k, v)| json!({"key": k, "value": any_value(v)})).collect();
    let log = json!({"resourceLogs": [{"scopeLogs": [{"scope": {"name": "example"}, "logRecords": [{
        "timeUnixNano": "1700000001400000000", "eventName": "gen_ai.client.inference.operation.details",
        "traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7", "attributes": attributes
    }]}]}]})
    .to_string();
    let r = recorded::read(&[("traces.jsonl", &span), ("logs.jsonl", &log)]).unwrap();
    let want = one_call(&span_line(&details, true));
    assert_eq!(r.calls.len(), 1);
    assert_eq!((r.calls[0].envelope(), &r.calls[0].output), (want.envelope(), &want.output));
    // The same event on the span (a span event).
    details = json!({"resourceSpans": [{"scopeSpans": [{"scope": {"name": "example"}, "spans": [{
        "traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7", "name": "chat gpt-4",
        "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000001500000000",
        "attributes": serde_json::from_str::<Value>(&span).unwrap()["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"],
        "events": [{"name": "gen_ai.client.inference.operation.details", "timeUnixNano": "1700000001400000000", "attributes": attributes}]
    }]}]}]});
    let c = one_call(&details.to_string());
    assert_eq!((c.envelope(), &c.output), (want.envelope(), &want.output));
    // Events alone (no span read): a call of their own, said so.
    let c = one_call(&log);
    assert_eq!(c.envelope(), want.envelope());
    assert!(c.notices.iter().any(|n| n.message.contains("no span")), "{:?}", c.notices);
    assert_eq!(c.start_ns, Some(1_700_000_001_400_000_000));
}

#[test]
fn protobuf_json_spelling_reads_the_same() {
    // snake_case names, base64 ids, numbers for int64, enum names.
    let b = example_blocks();
    let attrs = with(common(), json!({"gen_ai.input.messages": b[0]}));
    let camel: Value = serde_json::from_str(&span_line(&attrs, true)).unwrap();
    let snake = camel
        .to_string()
        .replace("resourceSpans", "resource_spans")
        .replace("scopeSpans", "scope_spans")
        .replace("traceId", "trace_id")
        .replace("spanId", "span_id")
        .replace("startTimeUnixNano\":\"1700000000000000000\"", "start_time_unix_nano\":1700000000000000000")
        .replace("endTimeUnixNano", "end_time_unix_nano")
        .replace("stringValue", "string_value")
        .replace("kvlistValue", "kvlist_value")
        .replace("arrayValue", "array_value")
        .replace("intValue", "int_value")
        .replace("doubleValue", "double_value")
        .replace("\"kind\":3", "\"kind\":\"SPAN_KIND_CLIENT\"")
        .replace("4bf92f3577b34da6a3ce929d0e0e4736", "S/kvNXezTaajzpKdDg5HNg==")
        .replace("00f067aa0ba902b7", "APBnqgupArc=");
    assert_eq!(one_call(&snake), one_call(&camel.to_string()));
}

/// The v1.30 events as span events (no log records): read the same way.
#[test]
fn v1_30_events_as_span_events() {
    let ev = |name: &str, attrs: Value| {
        json!({"name": name, "timeUnixNano": "1700000000100000000",
               "attributes": attrs.as_object().unwrap().iter().map(|(k, v)| json!({"key": k, "value": any_value(v)})).collect::<Vec<_>>()})
    };
    let line = json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
        "traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7", "name": "chat gpt-4",
        "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000001000000000",
        "attributes": [{"key": "gen_ai.system", "value": {"stringValue": "openai"}},
                       {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}],
        "events": [
            ev("gen_ai.system.message", json!({"content": "Be brief."})),
            ev("gen_ai.user.message", json!({"content": "Weather in Paris?"})),
            ev("gen_ai.assistant.message", json!({"tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]})),
            ev("gen_ai.tool.message", json!({"id": "c1", "content": "rainy"})),
            ev("gen_ai.choice", json!({"index": 0, "finish_reason": "stop", "message": {"content": "It rains."}})),
        ]
    }]}]}]});
    let c = one_call(&line.to_string());
    assert_eq!(c.dialect, Dialect::GenaiEvents);
    let (view, _) = envelope_view(c.envelope().unwrap());
    assert_eq!(
        view,
        [
            ("system", Item::Text("Be brief.".into())),
            ("user", Item::Text("Weather in Paris?".into())),
            ("assistant", Item::Call("get_weather".into(), json!({"city": "Paris"}))),
            ("tool", Item::Result("rainy".into())),
        ]
    );
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert_eq!(output_view(c.output.as_ref().unwrap()).0, ["It rains."]);
}

// ---------------------------------------------------------------------------
// Malformed input: located errors, never a panic.

/// Lines to damage: the first lines of every trace and log file, and the
/// batch files' lines.
fn sample_lines() -> Vec<String> {
    let mut out = Vec::new();
    for (_, files) in runs() {
        for (_, text) in files {
            out.extend(text.lines().filter(|l| !l.trim().is_empty()).take(4).map(str::to_string));
        }
    }
    out.extend(batch("openai_batch.jsonl").lines().take(6).map(str::to_string));
    let anthropic: Value = serde_json::from_str(&batch("anthropic_batch.json")).unwrap();
    out.push(anthropic.to_string());
    out.extend(batch("bodies.jsonl").lines().take(6).map(str::to_string));
    out
}

/// Every JSON pointer in a value.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Object(o) => {
            o.iter().for_each(|(k, x)| pointers(x, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out))
        }
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| pointers(x, format!("{at}/{i}"), out)),
        _ => {}
    }
}

/// Values put in place of another: wrong types, hostile strings, JSON texts
/// that are not what an attribute should hold, absurd indices and numbers.
fn replacements() -> Vec<Value> {
    vec![
        json!(null),
        json!(0),
        json!(-1),
        json!(1e308),
        json!(18446744073709551615_u64),
        json!("x"),
        json!(""),
        json!("zz"),
        json!([]),
        json!({}),
        json!(true),
        json!({"stringValue": 5}),
        json!({"intValue": "9999999999999999999999"}),
        json!({"stringValue": "[{"}),
        json!({"stringValue": "[{\"role\": 1, \"parts\": 5}]"}),
        json!({"stringValue": "[{\"role\": \"tool\", \"parts\": [{\"type\": \"tool_call_response\", \"id\": \"nope\"}]}]"}),
        json!({"stringValue": "[{\"role\": \"user\", \"parts\": [{\"type\": \"blob\", \"content\": \"!!!\"}]}]"}),
        json!({"stringValue": "gen_ai.prompt.99999999999999999999999.role"}),
        json!({"key": "gen_ai.prompt.18446744073709551615.content", "value": {"stringValue": "x"}}),
        json!({"kvlistValue": {"values": [{"key": "content", "value": {"arrayValue": {"values": [{"kvlistValue": {"values": []}}]}}}]}}),
        json!("\u{202e}\u{0}\u{feff}"),
        json!({"arrayValue": {"values": [{"intValue": 1}, {"stringValue": "a"}]}}),
    ]
}

/// Reads a damaged line and checks what must hold whatever it says.
fn read_damaged(line: &str) {
    let mut reader = Reader::windowed(4);
    match reader.line("damaged.jsonl", 7, line) {
        Ok(calls) => {
            for c in calls.iter().chain(&reader.finish().calls) {
                assert_eq!((c.at.file.as_str(), c.at.line), ("damaged.jsonl", Some(7)));
                let _ = (c.summary(), serde_json::to_string(c).unwrap());
                if let (Some(env), true) = (c.envelope(), c.errors.is_empty()) {
                    for target in [Target::OpenaiChat, Target::OpenaiResponses, Target::Anthropic] {
                        let _ = export::render(env, target);
                    }
                }
            }
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in errors {
                assert_eq!((e.at.file.as_str(), e.at.line), ("damaged.jsonl", Some(7)), "{e}");
                assert!(!e.message.is_empty());
            }
        }
    }
}

mod damaged {
    use super::*;
    use proptest::prelude::*;
    use std::sync::OnceLock;

    fn lines() -> &'static [String] {
        static LINES: OnceLock<Vec<String>> = OnceLock::new();
        LINES.get_or_init(sample_lines)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        #[test]
        fn truncated_or_with_a_byte_changed(which in any::<usize>(), at in any::<usize>(), byte in prop::sample::select(b"\"{}[],:0x\\\n ".to_vec()), cut in any::<bool>()) {
            let line = &lines()[which % lines().len()];
            let mut bytes = line.as_bytes().to_vec();
            let at = at % bytes.len();
            if cut { bytes.truncate(at) } else { bytes[at] = byte }
            read_damaged(&String::from_utf8_lossy(&bytes));
        }

        #[test]
        fn a_value_replaced(which in any::<usize>(), at in any::<usize>(), with in any::<usize>()) {
            let line = &lines()[which % lines().len()];
            let mut v: Value = serde_json::from_str(line).unwrap();
            let mut all = Vec::new();
            pointers(&v, String::new(), &mut all);
            let pointer = &all[at % all.len()];
            let replacement = replacements()[with % replacements().len()].clone();
            if pointer.is_empty() { v = replacement } else { *v.pointer_mut(pointer).unwrap() = replacement }
            read_damaged(&v.to_string());
        }
    }
}
