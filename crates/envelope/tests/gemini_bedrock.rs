//! Gemini `generateContent` and Bedrock Converse bodies: what the envelope
//! makes of them (the round-trip law itself is in round_trip.rs and
//! round_trip_generated.rs). The bodies are those the SDKs sent
//! (tests/fixtures/requests/real/{gemini,bedrock}, real/SOURCES.md).
#![cfg(feature = "providers")]

use envelope::budget::breakpoints::{breakpoints, BreakAt};
use envelope::calls::{At, Calls};
use envelope::export::{render, Target};
use envelope::import::{detect, import_as, import_with, Format};
use envelope::{Envelope, MediaType, Role, Segment};
use serde_json::{json, Value};

mod common;
use common::root;

fn real(format: &str, name: &str) -> String {
    let p = root().join("crates/envelope/tests/fixtures/requests/real").join(format).join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn body(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn segments(e: &Envelope) -> Vec<(usize, usize, &Segment)> {
    e.messages
        .iter()
        .enumerate()
        .flat_map(|(mi, m)| m.segments.iter().enumerate().map(move |(sj, s)| (mi, sj, s)))
        .collect()
}

fn exported(e: &Envelope, t: Target) -> (Value, Vec<String>) {
    let out = render(e, t);
    let v = if t.mime_type() == "application/json" { body(&out.text) } else { Value::Null };
    (v, out.notices.iter().map(|n| n.to_string()).collect())
}

#[test]
fn the_model_comes_from_outside_and_never_enters_the_body() {
    let text = real("gemini", "sdk-python-text.json");
    let i = import_with(body(&text), Some(Format::Gemini), Some("gemini-2.5-flash")).unwrap();
    assert_eq!(i.envelope.model.as_deref(), Some("gemini-2.5-flash"));
    let (back, notices) = exported(&i.envelope, Target::Gemini);
    assert_eq!(back, body(&text));
    assert!(back.get("model").is_none() && notices.is_empty());
    // The cURL command names it in the URL.
    let curl = render(&i.envelope, Target::CurlGemini).text;
    assert!(curl.starts_with(
        "curl 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent' \\\n"
    ));
    // Without one, the envelope has none, and the command a placeholder and a notice.
    let bare = import_as(&text, Some(Format::Gemini)).unwrap();
    assert_eq!(bare.envelope.model, None);
    let out = render(&bare.envelope, Target::CurlGemini);
    assert!(out.text.contains("/models/MODEL_NAME:generateContent"));
    assert_eq!(out.notices.len(), 1);
    assert_eq!(out.notices[0].path, "model");
    // Bedrock likewise; a body's own `model` (other formats) wins over the flag.
    let b = import_with(
        body(&real("bedrock", "sdk-boto3-image-bytes.json")),
        None,
        Some("anthropic.claude-3-5-sonnet-20240620-v1:0"),
    )
    .unwrap();
    assert_eq!(b.format, Format::Bedrock);
    assert_eq!(b.envelope.model.as_deref(), Some("anthropic.claude-3-5-sonnet-20240620-v1:0"));
    assert!(exported(&b.envelope, Target::Bedrock).0.get("modelId").is_none());
    let chat =
        import_with(json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}), None, Some("x"))
            .unwrap();
    assert_eq!(chat.envelope.model.as_deref(), Some("gpt-4o"));
}

#[test]
fn python_genai_spellings_and_url_safe_base64_come_back() {
    // python-genai writes `"inlineData": {"mime_type": …}` and URL-safe base64.
    let text = real("gemini", "sdk-python-image-bytes.json");
    let sent = body(&text);
    let data = sent["contents"][0]["parts"][0]["inlineData"]["data"].as_str().unwrap();
    assert!(data.contains('-') || data.contains('_'), "the fixture is URL-safe base64: {data}");
    let e = import_as(&text, Some(Format::Gemini)).unwrap().envelope;
    let Segment::Media(m) = &e.messages[0].segments[0] else { panic!("{:?}", e.messages[0].segments) };
    assert_eq!(m.media_type, MediaType::Image);
    let (mime, std) = envelope::export::base64_data_url(&m.url).expect("a standard data: URL");
    assert_eq!(mime, "image/png");
    assert_eq!(std, data.replace('-', "+").replace('_', "/"));
    assert_eq!(m.ext.shape, ["mime_type", "base64url"]);
    assert_eq!(exported(&e, Target::Gemini).0, sent);
    // Another format receives the standard alphabet.
    let (anthropic, _) = exported(&e, Target::Anthropic);
    assert_eq!(anthropic["messages"][0]["content"][0]["source"]["data"], std);
    // `"functionDeclarations": [{"parameters_json_schema": …}]`.
    let text = real("gemini", "sdk-python-afc-python-function.json");
    let e = import_as(&text, Some(Format::Gemini)).unwrap().envelope;
    let Segment::ToolOverview(o) = &e.messages[0].segments[0] else { panic!() };
    assert_eq!(o.items[0].name, "get_exchange_rate");
    assert_eq!(o.items[0].schema.as_ref().unwrap()["required"], json!(["currency_from", "currency_to"]));
    assert_eq!(o.items[0].ext.shape, ["jsonSchema", "parameters_json_schema"]);
    assert!(o.items[0].ext.provider.as_ref().unwrap().contains_key("response_json_schema"));
    assert_eq!(exported(&e, Target::Gemini).0, body(&text));
}

#[test]
fn gemini_calls_without_ids_pair_by_name_and_order() {
    let e = import_as(&real("gemini", "sdk-python-parallel-calls.json"), Some(Format::Gemini)).unwrap().envelope;
    let calls = Calls::pair(&e);
    assert_eq!(calls.requests.len(), 2);
    assert!(calls.requests.iter().all(|q| q.call_id.is_none()));
    let args: Vec<Value> = segments(&e)
        .into_iter()
        .filter_map(|(_, _, s)| match s {
            Segment::ToolCallRequest(r) => Some(Value::Object(r.arguments.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(args, [json!({"location": "Paris"}), json!({"location": "Rome"})]);
    for (mi, sj, s) in segments(&e) {
        if let Segment::ToolCallResult(r) = s {
            let q = calls.request_for(At { message: mi, segment: sj }).expect("paired");
            let k = calls.requests.iter().position(|x| x.at == q.at).unwrap();
            assert_eq!(r.result, [r#"{"output":"18C, cloudy"}"#, r#"{"output":"25C, sunny"}"#][k]);
        }
    }
    // With ids (and an error response): paired by id, `success: false`.
    let e = import_as(&real("gemini", "sdk-python-call-ids-error.json"), Some(Format::Gemini)).unwrap().envelope;
    let results: Vec<_> = segments(&e)
        .into_iter()
        .filter_map(|(_, _, s)| match s {
            Segment::ToolCallResult(r) => Some((r.call_id.clone(), r.success)),
            _ => None,
        })
        .collect();
    assert_eq!(results, [(Some("call-7f3a".to_string()), false)]);
    // To OpenAI Chat the pairs get ids; to Bedrock `status: "error"`.
    let (chat, _) = exported(&e, Target::OpenaiChat);
    assert_eq!(chat["messages"][2]["tool_call_id"], chat["messages"][1]["tool_calls"][0]["id"]);
    let (bedrock, _) = exported(&e, Target::Bedrock);
    assert_eq!(bedrock["messages"][2]["content"][0]["toolResult"]["status"], "error");
}

#[test]
fn a_response_to_no_call_is_kept_as_a_block_with_a_notice() {
    let b =
        json!({"contents": [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"x": 1}}}]}]});
    let i = import_as(&b.to_string(), Some(Format::Gemini)).unwrap();
    assert!(matches!(&i.envelope.messages[0].segments[0], Segment::ProviderBlock(p) if p.block_type() == ""));
    assert_eq!(i.notices.len(), 1);
    assert_eq!(i.notices[0].path, "contents[0].parts[0].functionResponse");
    assert_eq!(exported(&i.envelope, Target::Gemini).0, b);
}

#[test]
fn bedrock_cache_points_are_the_budgets_breakpoints() {
    let text = real("bedrock", "sdk-boto3-cache-points.json");
    let e = import_as(&text, Some(Format::Bedrock)).unwrap().envelope;
    let found: Vec<(BreakAt, Option<String>)> = breakpoints(&e, &[]).into_iter().map(|b| (b.at, b.ttl)).collect();
    assert_eq!(
        found,
        [
            (BreakAt::Tool { index: 0, name: "top_song".into() }, None),
            (BreakAt::Segment { message: 0, segment: 0 }, None),
            (BreakAt::Segment { message: 1, segment: 0 }, Some("1h".into())),
        ]
    );
    assert_eq!(exported(&e, Target::Bedrock).0, body(&text));
    // Another format is told it cannot carry them.
    let (_, notices) = exported(&e, Target::Anthropic);
    assert_eq!(notices.iter().filter(|n| n.contains("cache breakpoint")).count(), 3, "{notices:#?}");
}

#[test]
fn bedrock_blocks_become_segments() {
    let e =
        import_as(&real("bedrock", "sdk-boto3-tool-result-error-image.json"), Some(Format::Bedrock)).unwrap().envelope;
    let kinds: Vec<(Role, Vec<&str>)> =
        e.messages.iter().map(|m| (m.role, m.segments.iter().map(Segment::kind).collect())).collect();
    assert_eq!(kinds[1], (Role::User, vec!["text"]));
    assert_eq!(kinds[3], (Role::Tool, vec!["tool_call_result"]));
    let results: Vec<_> = segments(&e)
        .into_iter()
        .filter_map(|(_, _, s)| match s {
            Segment::ToolCallResult(r) => Some((r.success, r.result.clone(), r.content.is_some())),
            _ => None,
        })
        .collect();
    assert_eq!(results, [(false, "Station WKRP not found.".into(), false), (true, "Cover art:".into(), true)]);
    // Documents: bytes, text, content blocks kept verbatim.
    let e = import_as(&real("bedrock", "sdk-boto3-documents-text-content-citations.json"), Some(Format::Bedrock))
        .unwrap()
        .envelope;
    let docs: Vec<_> = segments(&e)
        .into_iter()
        .filter_map(|(_, _, s)| match s {
            Segment::Document(d) => Some((d.file_name.clone(), d.mime_type.clone(), d.model_text().to_string())),
            _ => None,
        })
        .collect();
    assert_eq!(
        docs,
        [
            ("policy".into(), "text/plain".into(), "Employees may work remotely up to three days a week.".into()),
            ("faq".into(), "text/plain".into(), "Q: Is parking free? A: Yes, for staff.".into()),
        ]
    );
    // Reasoning, signed and redacted.
    let e = import_as(&real("bedrock", "sdk-boto3-reasoning-history.json"), Some(Format::Bedrock)).unwrap().envelope;
    let r: Vec<_> = e.messages[1]
        .segments
        .iter()
        .filter_map(|s| match s {
            Segment::Reasoning(r) => Some((r.signature.is_some(), r.encrypted.is_some())),
            _ => None,
        })
        .collect();
    assert_eq!(r, [(true, false), (false, true)]);
}

#[test]
fn settings_translate_between_nested_and_flat() {
    let gemini = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generationConfig": {"temperature": 0.3, "top_p": 0.9, "topK": 40, "maxOutputTokens": 100, "stopSequences": ["END"],
            "responseMimeType": "application/json", "responseJsonSchema": {"type": "object"}, "thinkingConfig": {"thinkingBudget": 512}},
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}},
        "safetySettings": [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "BLOCK_NONE"}]});
    let e = import_as(&gemini.to_string(), Some(Format::Gemini)).unwrap().envelope;
    let (chat, notices) = exported(&e, Target::OpenaiChat);
    assert_eq!(chat["temperature"], 0.3);
    assert_eq!(chat["top_p"], 0.9);
    assert_eq!(chat["max_completion_tokens"], 100);
    assert_eq!(chat["stop"], json!(["END"]));
    assert_eq!(
        chat["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "response", "schema": {"type": "object"}}})
    );
    assert_eq!(chat["tool_choice"], json!({"type": "function", "function": {"name": "f"}}));
    for path in [
        "params.generationConfig.topK",
        "params.generationConfig.thinkingConfig.thinkingBudget",
        "params.safetySettings",
    ] {
        assert!(notices.iter().any(|n| n.starts_with(&format!("{path}: "))), "{path}: {notices:#?}");
    }
    let (anthropic, _) = exported(&e, Target::Anthropic);
    assert_eq!(anthropic["top_k"], 40);
    assert_eq!(anthropic["thinking"], json!({"type": "enabled", "budget_tokens": 512}));
    assert_eq!(anthropic["tool_choice"], json!({"type": "tool", "name": "f"}));
    let (bedrock, _) = exported(&e, Target::Bedrock);
    assert_eq!(
        bedrock["inferenceConfig"],
        json!({"temperature": 0.3, "topP": 0.9, "maxTokens": 100, "stopSequences": ["END"]})
    );
    // Bedrock → Gemini; Anthropic → Gemini and Bedrock.
    let b = import_as(&real("bedrock", "sdk-boto3-tool-choice-tool.json"), Some(Format::Bedrock)).unwrap().envelope;
    let (g, _) = exported(&b, Target::Gemini);
    assert_eq!(
        g["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["top_song"]}})
    );
    assert_eq!(g["tools"][0]["functionDeclarations"][0]["name"], "top_song");
    let a = import_as(
        &json!({"model": "claude-x", "max_tokens": 9, "temperature": 0.1, "stop_sequences": ["x"], "tool_choice": {"type": "any"},
            "messages": [{"role": "user", "content": "hi"}], "tools": [{"name": "f", "input_schema": {"type": "object"}}]})
        .to_string(),
        None,
    )
    .unwrap()
    .envelope;
    let (g, _) = exported(&a, Target::Gemini);
    assert_eq!(g["generationConfig"], json!({"maxOutputTokens": 9, "temperature": 0.1, "stopSequences": ["x"]}));
    assert_eq!(g["toolConfig"], json!({"functionCallingConfig": {"mode": "ANY"}}));
    let (b, _) = exported(&a, Target::Bedrock);
    assert_eq!(b["inferenceConfig"], json!({"maxTokens": 9, "temperature": 0.1, "stopSequences": ["x"]}));
    assert_eq!(b["toolConfig"]["toolChoice"], json!({"any": {}}));
    assert_eq!(b["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"], json!({"json": {"type": "object"}}));
}

#[test]
fn service_tiers_translate_between_gemini_and_bedrock() {
    // Gemini's `serviceTier` is a string, Bedrock's an object `{"type": …}`
    // (D172 found them passed as written: each SDK refused the other's).
    let bedrock = |tier: Value| {
        let b = json!({"messages": [{"role": "user", "content": [{"text": "hi"}]}], "serviceTier": tier});
        import_as(&b.to_string(), Some(Format::Bedrock)).unwrap().envelope
    };
    let gemini = |tier: &str| {
        let g = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "serviceTier": tier});
        import_as(&g.to_string(), Some(Format::Gemini)).unwrap().envelope
    };
    for (b, g) in [("priority", "priority"), ("flex", "flex"), ("default", "standard")] {
        let (out, notices) = exported(&bedrock(json!({"type": b})), Target::Gemini);
        assert_eq!((&out["serviceTier"], notices.len()), (&json!(g), 0), "{b}");
        let (out, notices) = exported(&gemini(g), Target::Bedrock);
        assert_eq!((&out["serviceTier"], notices.len()), (&json!({"type": b}), 0), "{g}");
        // Each to its own format as written.
        assert_eq!(exported(&bedrock(json!({"type": b})), Target::Bedrock).0["serviceTier"], json!({"type": b}));
        assert_eq!(exported(&gemini(g), Target::Gemini).0["serviceTier"], json!(g));
    }
    // No equivalent: left out, said where.
    let (out, notices) = exported(&bedrock(json!({"type": "reserved"})), Target::Gemini);
    assert!(out.get("serviceTier").is_none());
    assert!(notices.iter().any(|n| n.starts_with("params.serviceTier: ") && n.contains("left out")), "{notices:#?}");
    let (out, notices) = exported(&gemini("unspecified"), Target::Bedrock);
    assert!(out.get("serviceTier").is_none());
    assert!(notices.iter().any(|n| n.starts_with("params.serviceTier: ") && n.contains("left out")), "{notices:#?}");
}

#[test]
fn server_tools_are_not_declared_as_functions_elsewhere() {
    let e = import_as(&real("gemini", "sdk-python-server-tools.json"), Some(Format::Gemini)).unwrap().envelope;
    let (chat, notices) = exported(&e, Target::OpenaiChat);
    assert!(chat.get("tools").is_none(), "{chat:#}");
    assert_eq!(notices.iter().filter(|n| n.contains("server tool")).count(), 3, "{notices:#?}");
    let b = import_as(&real("bedrock", "sdk-boto3-nova-system-tool.json"), Some(Format::Bedrock)).unwrap().envelope;
    let (g, _) = exported(&b, Target::Gemini);
    assert!(g.get("tools").is_none(), "{g:#}");
}

#[test]
fn detection_tells_the_five_formats_apart() {
    let f = |v: Value| detect(&v).map_err(|e| e.code());
    assert_eq!(f(json!({"contents": [{"parts": [{"text": "hi"}]}]})), Ok(Format::Gemini));
    assert_eq!(f(json!({"system_instruction": {"parts": {"text": "x"}}})), Ok(Format::Gemini));
    assert_eq!(f(json!({"messages": [{"role": "user", "content": [{"text": "hi"}]}]})), Ok(Format::Bedrock));
    assert_eq!(f(json!({"messages": [], "inferenceConfig": {"maxTokens": 5}})), Ok(Format::Bedrock));
    assert_eq!(
        f(json!({"system": [{"text": "s"}], "messages": [{"role": "user", "content": [{"text": "q"}]}]})),
        Ok(Format::Bedrock)
    );
    assert_eq!(f(json!({"promptVariables": {"x": {"text": "y"}}})), Ok(Format::Bedrock));
    // An Anthropic body with one block missing its type stays Anthropic.
    assert_eq!(
        f(
            json!({"max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"text": "b"}]}]})
        ),
        Ok(Format::Anthropic)
    );
    assert_eq!(
        f(json!({"inferenceConfig": {}, "messages": [{"role": "tool", "tool_call_id": "a", "content": "x"}]})),
        Err("import-ambiguous-format")
    );
    for dir in ["gemini", "bedrock"] {
        let path = root().join("crates/envelope/tests/fixtures/requests/real").join(dir);
        for entry in std::fs::read_dir(path).unwrap() {
            let p = entry.unwrap().path();
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            let want = if dir == "gemini" { Format::Gemini } else { Format::Bedrock };
            assert_eq!(detect(&v).ok(), Some(want), "{}", p.display());
        }
    }
}

fn errors(format: Format, b: Value) -> Vec<(String, String)> {
    let errs = import_as(&b.to_string(), Some(format)).expect_err("should not import");
    errs.into_iter().map(|e| (e.code().to_string(), e.path)).collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

#[test]
fn malformed_bodies_give_every_error_with_its_path() {
    let gemini = json!({
        "systemInstruction": {"parts": [{"text": 5}]},
        "system_instruction": {"parts": []},
        "contents": [
            {"role": "wizard", "parts": [{"text": "x"}]},
            {"role": "user", "parts": 7},
            {"role": "user", "parts": [{"inlineData": {"mimeType": "application/pdf", "data": "!!!!"}}, {"inlineData": {"data": "AAAA"}}]},
            {"role": "model", "parts": [{"functionCall": {"args": {}}}, {"fileData": {"mimeType": "video/mp4"}}]},
            "not a content"
        ],
        "tools": [{}]
    });
    assert_eq!(
        errors(Format::Gemini, gemini),
        pairs(&[
            ("wrong-type", "systemInstruction"),
            ("import-unknown-role", "contents[0].role"),
            ("wrong-type", "contents[1].parts"),
            ("import-base64", "contents[2].parts[0].inlineData.data"),
            ("missing-field", "contents[2].parts[1].inlineData.mimeType"),
            ("missing-field", "contents[3].parts[0].functionCall.name"),
            ("missing-field", "contents[3].parts[1].fileData.fileUri"),
            ("wrong-type", "contents[4]"),
            ("wrong-type", "tools[0]"),
        ])
    );
    assert_eq!(errors(Format::Gemini, json!({"generationConfig": {}})), pairs(&[("missing-field", "contents")]));
    let bedrock = json!({
        "system": "a string",
        "messages": [
            {"role": "wizard", "content": [{"text": "x"}]},
            {"role": "user", "content": "a string"},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "nope", "content": [{"text": "r"}]}}]},
            {"role": "user", "content": [{"document": {"format": "pdf", "name": "d", "source": {"bytes": "!!!"}}}, {"text": 5}]},
            {"role": "user"}
        ],
        "toolConfig": {"tools": "none"}
    });
    assert_eq!(
        errors(Format::Bedrock, bedrock),
        pairs(&[
            ("wrong-type", "system"),
            ("import-unknown-role", "messages[0].role"),
            ("wrong-type", "messages[1].content"),
            ("unpaired-result", "messages[2].content[0].toolResult.toolUseId"),
            ("import-base64", "messages[3].content[0].document.source.bytes"),
            ("wrong-type", "messages[3].content[1].text"),
            ("missing-field", "messages[4].content"),
            ("wrong-type", "toolConfig.tools"),
        ])
    );
}

#[test]
fn an_edited_envelope_still_exports_and_says_what_it_could_not_send() {
    // A Gemini envelope given an OpenAI reasoning item's encrypted content
    // and a cache breakpoint: the replay leaves them out, with notices.
    let text = real("gemini", "sdk-python-thought-signatures.json");
    let mut e = import_as(&text, Some(Format::Gemini)).unwrap().envelope;
    let mi = e.messages.iter().position(|m| m.segments.iter().any(|s| matches!(s, Segment::Reasoning(_)))).unwrap();
    if let Segment::Reasoning(r) = &mut e.messages[mi].segments[0] {
        r.encrypted = Some("gAAAA".into());
    }
    if let Some(x) = e.messages[mi].segments[1].ext_mut() {
        x.cache_control = Some(json!({"type": "ephemeral"}));
    }
    let (_, notices) = exported(&e, Target::Gemini);
    assert_eq!(notices.len(), 2, "{notices:#?}");
}
