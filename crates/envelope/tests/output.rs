//! `envelope::output`: the text of provider response bodies (fixtures recorded
//! from the live API or built with the providers' SDK types, see
//! fixtures/responses/SOURCES.md) and strict JSON reading of that text.

use std::fs;
use std::path::Path;

use envelope::output::{parse, take_text, OutputError};
use serde_json::{json, Value};

fn fixtures() -> Vec<(String, String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/responses");
    let mut out = Vec::new();
    for dir in fs::read_dir(&root).expect("fixtures/responses") {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for file in fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".json") || name.ends_with(".expected.json") {
                continue;
            }
            let expected_path = path.with_extension("expected.json");
            let expected: Value = serde_json::from_str(&fs::read_to_string(&expected_path).unwrap()).unwrap();
            let label = format!("{}/{}", dir.file_name().unwrap().to_string_lossy(), name);
            out.push((label, fs::read_to_string(&path).unwrap(), expected));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn every_fixture_gives_the_sdk_text() {
    let all = fixtures();
    assert!(all.len() >= 21, "{} fixtures", all.len());
    let mut formats = std::collections::BTreeSet::new();
    for (label, body, expected) in &all {
        let got = take_text(body);
        assert_eq!(got.text, expected["text"].as_str().unwrap(), "{label}: text");
        assert_eq!(got.from, expected["from"].as_str().unwrap(), "{label}: from");
        assert_eq!(got.model.as_deref(), expected["model"].as_str(), "{label}: model");
        formats.insert(got.from);
    }
    assert_eq!(
        formats.into_iter().collect::<Vec<_>>(),
        ["anthropic", "bedrock", "gemini", "openai-chat", "openai-responses"]
    );
}

#[test]
fn fixture_texts_read_as_the_report_or_fail_with_a_reason() {
    for (label, body, _) in fixtures() {
        let text = take_text(&body).text;
        match parse(&text) {
            Ok(v) => assert!(v.is_object(), "{label}"),
            Err(e) => {
                let m = e.to_string();
                assert!(!m.is_empty() && m.len() < 400, "{label}: {m}");
            }
        }
    }
    // The recorded refusal is prose: not JSON, at line 1.
    let refusal = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/responses/openai-chat/refusal.json"),
    )
    .unwrap();
    let e = parse(&take_text(&refusal).text).unwrap_err();
    assert!(matches!(e, OutputError::NotJson { line: 1, column: 1, .. }), "{e:?}");
    // The recorded max_tokens=1 answer `{"` is cut JSON: its error says where.
    let cut = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/responses/openai-chat/length.json"),
    )
    .unwrap();
    let e = parse(&take_text(&cut).text).unwrap_err();
    assert!(matches!(e, OutputError::NotJson { line: 1, .. }), "{e:?}");
    assert!(e.to_string().contains("EOF"), "{e}");
}

#[test]
fn prose_before_the_report_is_named() {
    let body = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/responses/openai-chat/prose_two_choices.json"),
    )
    .unwrap();
    let out = take_text(&body);
    assert_eq!(out.model.as_deref(), Some("gpt-4.1-2025-04-14"));
    let e = parse(&out.text).unwrap_err();
    let OutputError::ProseAround { before, after, json_at } = &e else { panic!("{e:?}") };
    assert_eq!(before, "Here's your report:\n");
    assert_eq!(after, "");
    assert_eq!(*json_at, 20);
    assert_eq!(&out.text[*json_at..*json_at + 1], "{");
    let m = e.to_string();
    assert!(m.contains("before it \"Here's your report:\""), "{m}");
    assert!(m.contains("line 2 (byte 20)"), "{m}");
}

#[test]
fn prose_after_and_on_both_sides() {
    let e = parse("{\"a\": [1, 2]}\n\nLet me know if you need anything else!").unwrap_err();
    assert_eq!(
        e,
        OutputError::ProseAround {
            before: String::new(),
            after: "\n\nLet me know if you need anything else!".into(),
            json_at: 0
        }
    );
    assert!(e.to_string().contains("after it \"Let me know"), "{e}");
    assert!(!e.to_string().contains("before it"), "{e}");

    // A bracket in the prose that is not JSON is passed over.
    let e = parse("Report [draft]: {\"a\": 1} (end)").unwrap_err();
    let OutputError::ProseAround { before, after, json_at } = e else { panic!() };
    assert_eq!((before.as_str(), after.as_str(), json_at), ("Report [draft]: ", " (end)", 16));

    // Long prose is quoted to 60 characters.
    let long = format!("{}\n{{\"a\": 1}}", "word ".repeat(100));
    let m = parse(&long).unwrap_err().to_string();
    assert!(m.contains('…') && m.len() < 250, "{m}");
}

#[test]
fn fenced_json_is_its_own_failure() {
    for (text, lang) in [
        ("```json\n{\"a\": 1}\n```", Some("json")),
        ("  ```JSON  \n{\"a\": 1}\n```\n", Some("JSON")),
        ("```\n[1, 2]\n```", None),
        ("~~~json\n{}\n~~~", Some("json")),
        // Fenced and broken inside: the fence is the first thing wrong.
        ("```json\n{\"a\": \n```", Some("json")),
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!(e, OutputError::Fenced { lang: lang.map(str::to_owned) }, "{text:?}");
        assert!(e.to_string().contains("code fence"), "{e}");
    }
    // Prose, then a fence: prose around the JSON (the fence line is part of it).
    let e = parse("Here it is:\n```json\n{\"a\": 1}\n```").unwrap_err();
    let OutputError::ProseAround { before, after, .. } = e else { panic!() };
    assert_eq!(before, "Here it is:\n```json\n");
    assert_eq!(after, "\n```");
}

#[test]
fn strict_json_only() {
    assert_eq!(parse("\n {\"a\": null}\t\n").unwrap(), json!({"a": null}));
    assert_eq!(parse("[]").unwrap(), json!([]));
    assert_eq!(parse("\"just a string\"").unwrap(), json!("just a string"));
    assert_eq!(parse(""), Err(OutputError::Empty));
    assert_eq!(parse(" \n\t"), Err(OutputError::Empty));
    // What JavaScript's JSON.parse refuses is refused: trailing commas,
    // single quotes, comments, NaN, a byte-order mark.
    for bad in ["{\"a\": 1,}", "{'a': 1}", "{\"a\": 1 /* c */}", "{\"a\": NaN}", "\u{feff}{\"a\": 1}"] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
    let e = parse("{\n  \"summary\": \"ok\",\n  \"findings\": [,]\n}").unwrap_err();
    let OutputError::NotJson { line, column, message } = &e else { panic!("{e:?}") };
    assert_eq!((*line, *column), (3, 16));
    assert!(!message.contains(" at line "), "{message}");
    assert_eq!(e.to_string(), format!("the output is not JSON: {message} at line 3, column 16"));
}

#[test]
fn hostile_outputs_never_panic() {
    // Deeply nested: serde_json's recursion limit, an error not a crash.
    let deep = "[".repeat(100_000);
    assert!(matches!(parse(&deep), Err(OutputError::NotJson { .. })));
    let deep_obj = "{\"a\":".repeat(50_000) + "1" + &"}".repeat(50_000);
    assert!(parse(&deep_obj).is_err());
    assert_eq!(take_text(&deep_obj).from, "text");
    // Many brackets in prose: at most a few starts are tried.
    let many = "x [".repeat(200_000);
    let started = std::time::Instant::now();
    assert!(parse(&many).is_err());
    assert!(started.elapsed().as_secs() < 5);
    // A big valid output.
    let big = serde_json::to_string(&json!({"s": "é".repeat(2_000_000)})).unwrap();
    assert!(parse(&big).is_ok());
    // Odd unicode in the prose is quoted escaped, cut on a character boundary.
    let odd = "\u{202e}evil\u{200b}👩‍👩‍👧 ".repeat(40) + "{\"a\":1}";
    let m = parse(&odd).unwrap_err().to_string();
    assert!(m.contains("\\u{202e}") && !m.contains('\u{202e}'), "{m}");
    // Lone surrogates escaped in JSON are refused by serde_json, not a panic.
    assert!(parse("{\"a\": \"\\ud800\"}").is_err());
    assert_eq!(take_text("\"\\ud800\"").from, "text");
}

#[test]
fn plain_text_and_other_json_are_the_text() {
    let out = take_text("Sure! Here is the report.");
    assert_eq!((out.text.as_str(), out.from, out.model), ("Sure! Here is the report.", "text", None));
    // The model's JSON itself (not a response body) is kept byte for byte.
    let report = "{\n  \"summary\": \"ok\", \"findings\": [], \"confidence_score\": 1\n}\n";
    let out = take_text(report);
    assert_eq!((out.text.as_str(), out.from), (report, "text"));
    // Things that look a little like a body but are not one.
    for s in [
        "{\"choices\": [\"a\", \"b\"]}",
        "{\"content\": [{\"type\": \"text\", \"text\": \"x\"}]}",
        "{\"output\": \"done\"}",
        "{\"result\": {\"message\": \"hello\"}}",
        "[1, 2]",
        "",
    ] {
        let out = take_text(s);
        assert_eq!((out.text.as_str(), out.from), (s, "text"), "{s}");
    }
}

#[test]
fn chat_content_given_as_parts() {
    // OpenAI-compatible servers (and assistant messages sent back) may give
    // content as parts.
    let body = json!({
        "object": "chat.completion", "model": "mistral-large-latest",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": [
            {"type": "text", "text": "{\"a\":"}, {"type": "image_url", "image_url": {"url": "x"}},
            {"type": "text", "text": " 1}"}
        ]}}]
    });
    let out = take_text(&body.to_string());
    assert_eq!(
        (out.text.as_str(), out.from, out.model.as_deref()),
        ("{\"a\": 1}", "openai-chat", Some("mistral-large-latest"))
    );
    // No choices at all (a content filter): empty text, the format known.
    let out = take_text(r#"{"object": "chat.completion", "model": "m", "choices": []}"#);
    assert_eq!((out.text.as_str(), out.from), ("", "openai-chat"));
}

#[test]
fn responses_output_text_field_when_output_has_none() {
    let body = json!({"object": "response", "model": "gpt-5", "output": [], "output_text": "{}"});
    let out = take_text(&body.to_string());
    assert_eq!((out.text.as_str(), out.from, out.model.as_deref()), ("{}", "openai-responses", Some("gpt-5")));
}

#[test]
fn gemini_batch_line_is_read_through() {
    let gemini =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/responses/gemini/text.json"))
            .unwrap();
    let body: Value = serde_json::from_str(&gemini).unwrap();
    let line = json!({"key": "request-1", "response": body});
    let out = take_text(&line.to_string());
    assert_eq!(out.from, "gemini");
    assert_eq!(out.model.as_deref(), Some("gemini-2.5-flash"));
    assert!(out.text.starts_with("{\"summary\""), "{}", out.text);
    // Two wrappers deep is as far as it reads.
    let nested = json!({"response": {"response": {"response": body}}});
    assert_eq!(take_text(&nested.to_string()).from, "text");
}
