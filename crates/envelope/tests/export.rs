//! One test per export rule of §4, each export also checked against
//! async-openai's typed `CreateChatCompletionRequest`.

use async_openai::types::chat::CreateChatCompletionRequest;
use envelope::export::{openai_json, openai_request};
use envelope::parse;
use serde_json::{json, Value};

fn doc(messages: Value) -> Value {
    json!({"version": "1.0", "messages": messages})
}

fn msg(id: &str, role: &str, segments: Value) -> Value {
    json!({"id": id, "role": role, "timestamp": 0, "segments": segments})
}

fn text(s: &str) -> Value {
    json!({"kind": "text", "content": s})
}

/// Exports a valid document and checks the result against async-openai's types.
fn export(d: &Value) -> Value {
    let loaded = parse(&d.to_string()).unwrap_or_else(|e| panic!("{e:#?}"));
    let out = openai_request(&loaded.envelope);
    typed_check(&out);
    out
}

/// The request deserialises into the typed request, and serialises back to
/// the same JSON (async-openai omits an assistant's `"content": null`, which
/// OpenAI reads the same as an absent one).
fn typed_check(out: &Value) {
    let typed: CreateChatCompletionRequest =
        serde_json::from_value(out.clone()).unwrap_or_else(|e| panic!("not a valid request: {e}\n{out:#}"));
    let back = serde_json::to_value(&typed).unwrap();
    let mut expected = out.clone();
    for m in expected["messages"].as_array_mut().unwrap() {
        if m["content"].is_null() {
            m.as_object_mut().unwrap().remove("content");
        }
    }
    assert_eq!(back, expected, "typed round trip changed the request");
}

#[test]
fn model_defaults_and_tools_omitted_when_empty() {
    let out = export(&doc(json!([msg("u", "user", json!([text("hi")]))])));
    assert_eq!(out, json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}));
    let mut d = doc(json!([msg("u", "user", json!([text("hi")]))]));
    d["model"] = "gpt-4.1-mini".into();
    assert_eq!(export(&d)["model"], "gpt-4.1-mini");
    // `model or "gpt-4o"`: an empty model is no model.
    d["model"] = "".into();
    assert_eq!(export(&d)["model"], "gpt-4o");
}

#[test]
fn segments_join_with_blank_lines_and_empty_ones_are_skipped() {
    let d = doc(json!([msg(
        "s",
        "system",
        json!([
            {"kind": "system_prompt", "content": "Be brief.", "collapsed": true},
            text(""),
            {"kind": "static_var", "name": "x", "value": "1"},
            {"kind": "long_text", "content": "Long {{x}}", "charCount": 9, "collapsed": true},
            {"kind": "memory", "items": [], "collapsed": true}
        ])
    )]));
    assert_eq!(export(&d)["messages"][0]["content"], "Be brief.\n\nLong 1");
}

#[test]
fn memory_lines() {
    let d = doc(json!([msg(
        "s",
        "system",
        json!([{"kind": "memory", "collapsed": true, "items": [
            {"title": "Name", "content": "Ann"}, {"title": "City", "content": "Oslo"}
        ]}])
    )]));
    assert_eq!(export(&d)["messages"][0]["content"], "## Memory\n- Name: Ann\n- City: Oslo");
}

#[test]
fn skills_list_then_loaded_bodies() {
    let d = doc(json!([msg(
        "s",
        "system",
        json!([{"kind": "skills", "collapsed": true, "items": [
            {"name": "a", "description": "does A", "body": "# A\nsteps", "loaded": true},
            {"name": "b", "description": "does B", "body": "# B", "loaded": false},
            {"name": "c", "description": "does C"}
        ]}])
    )]));
    assert_eq!(
        export(&d)["messages"][0]["content"],
        "## Skills\n- a: does A\n- b: does B\n- c: does C\n\n### Skill: a\n\n# A\nsteps"
    );
}

#[test]
fn document_header_and_content() {
    let d = doc(json!([msg(
        "u",
        "user",
        json!([
            {"kind": "document", "fileName": "p.pdf", "mimeType": "application/pdf", "snippet": "snip", "sizeBytes": 2411724, "parsedContent": "full"},
            {"kind": "document", "fileName": "n.txt", "mimeType": "text/plain", "snippet": "only snip", "sizeBytes": 9}
        ])
    )]));
    assert_eq!(
        export(&d)["messages"][0]["content"],
        "[Document: p.pdf (application/pdf, 2411724 bytes)]\nfull\n\n[Document: n.txt (text/plain, 9 bytes)]\nonly snip"
    );
}

#[test]
fn user_images_become_content_parts_in_order() {
    let img = |u: &str| json!({"kind": "media", "mediaType": "image", "url": u, "altText": "not sent"});
    let d = doc(json!([msg(
        "u",
        "user",
        json!([text("one"), text("two"), img("https://x/1.png"), text("three"), img("data:image/png;base64,AA")])
    )]));
    assert_eq!(
        export(&d)["messages"][0]["content"],
        json!([
            {"type": "text", "text": "one\n\ntwo"},
            {"type": "image_url", "image_url": {"url": "https://x/1.png"}},
            {"type": "text", "text": "three"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}
        ])
    );
}

#[test]
fn other_media_and_non_user_images_are_text() {
    let d = doc(json!([
        msg(
            "u",
            "user",
            json!([
                {"kind": "media", "mediaType": "audio", "url": "https://x/a.mp3", "altText": "voice note"},
                {"kind": "media", "mediaType": "video", "url": "https://x/v.mp4"}
            ])
        ),
        msg(
            "a",
            "assistant",
            json!([{"kind": "media", "mediaType": "image", "url": "https://x/i.png", "altText": "chart"}])
        )
    ]));
    let out = export(&d);
    assert_eq!(out["messages"][0]["content"], "[audio: https://x/a.mp3] voice note\n\n[video: https://x/v.mp4]");
    assert_eq!(out["messages"][1]["content"], "[image: https://x/i.png] chart");
}

#[test]
fn tools_in_order_with_default_parameters() {
    let d = doc(json!([
        msg(
            "s",
            "system",
            json!([{"kind": "tool_overview", "collapsed": true, "items": [
            {"name": "b_tool", "description": "for {{who}}", "schema": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer"}}}},
            {"name": "a_tool", "description": "plain", "parameters": "none"}
        ]}, {"kind": "static_var", "name": "who", "value": "Ann"}])
        ),
        msg("u", "user", json!([text("hi")]))
    ]));
    let out = export(&d);
    assert_eq!(
        out["tools"],
        json!([
            {"type": "function", "function": {"name": "b_tool", "description": "for Ann", "parameters": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer"}}}}},
            {"type": "function", "function": {"name": "a_tool", "description": "plain", "parameters": {"type": "object", "properties": {}}}}
        ])
    );
    // The system message contributes no text and is left out.
    assert_eq!(out["messages"], json!([{"role": "user", "content": "hi"}]));
    // Key order of the schema is kept byte for byte.
    assert!(openai_json(&parse(&d.to_string()).unwrap().envelope).contains(r#""z": {"#));
    let s = openai_json(&parse(&d.to_string()).unwrap().envelope);
    assert!(s.find("\"z\"").unwrap() < s.find("\"a\": {").unwrap());
}

#[test]
fn assistant_tool_calls_ids_and_compact_arguments() {
    // Arguments as written in the document: `1.50` stays `1.50`.
    let written: Value = serde_json::from_str(r#"{"z": 1, "a": [1.50, "é"], "n": null}"#).unwrap();
    let d = doc(json!([
        msg(
            "a",
            "assistant",
            json!([
                text("Checking."),
                {"kind": "tool_call_request", "toolName": "f", "arguments": written, "collapsed": false},
                {"kind": "tool_call_request", "toolName": "g", "arguments": {}, "collapsed": false, "callId": "mine"}
            ])
        ),
        msg(
            "t",
            "tool",
            json!([
                {"kind": "tool_call_result", "toolName": "g", "result": "G!", "success": false, "collapsed": false, "callId": "mine"},
                {"kind": "tool_call_result", "toolName": "f", "result": "F!", "success": true, "collapsed": true}
            ])
        ),
        msg(
            "a2",
            "assistant",
            json!([{"kind": "tool_call_request", "toolName": "f", "arguments": {}, "collapsed": false}])
        ),
        msg(
            "t2",
            "tool",
            json!([{"kind": "tool_call_result", "toolName": "f", "result": "F2", "success": true, "collapsed": true}])
        )
    ]));
    let out = export(&d);
    assert_eq!(
        out["messages"],
        json!([
            {"role": "assistant", "content": "Checking.", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{\"z\":1,\"a\":[1.50,\"é\"],\"n\":null}"}},
                {"id": "mine", "type": "function", "function": {"name": "g", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "mine", "content": "G!"},
            {"role": "tool", "tool_call_id": "call_1", "content": "F!"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_3", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_3", "content": "F2"}
        ])
    );
}

#[test]
fn variables_substitute_in_text_but_not_in_arguments_results_urls_or_file_names() {
    let d = doc(json!([
        msg(
            "s",
            "system",
            json!([
                {"kind": "static_var", "name": "user", "value": "小明"},
                {"kind": "system_prompt", "content": "User: {{user}}, {{ user }}, {{unknown}}", "collapsed": true}
            ])
        ),
        msg(
            "u",
            "user",
            json!([
                {"kind": "document", "fileName": "{{user}}.txt", "mimeType": "text/plain", "snippet": "by {{user}}", "sizeBytes": 1},
                {"kind": "media", "mediaType": "audio", "url": "https://x/{{user}}.mp3", "altText": "from {{user}}"}
            ])
        ),
        msg(
            "a",
            "assistant",
            json!([{"kind": "tool_call_request", "toolName": "f", "arguments": {"q": "{{user}}"}, "collapsed": false}])
        ),
        msg(
            "t",
            "tool",
            json!([{"kind": "tool_call_result", "toolName": "f", "result": "{{user}}", "success": true, "collapsed": true}])
        )
    ]));
    let out = export(&d);
    assert_eq!(out["messages"][0]["content"], "User: 小明, 小明, {{unknown}}");
    assert_eq!(
        out["messages"][1]["content"],
        "[Document: {{user}}.txt (text/plain, 1 bytes)]\nby 小明\n\n[audio: https://x/{{user}}.mp3] from 小明"
    );
    assert_eq!(out["messages"][2]["tool_calls"][0]["function"]["arguments"], "{\"q\":\"{{user}}\"}");
    assert_eq!(out["messages"][3]["content"], "{{user}}");
}

#[test]
fn variables_defined_later_apply_everywhere() {
    let d = doc(json!([
        msg("u", "user", json!([text("Hello {{name}}")])),
        msg("a", "assistant", json!([{"kind": "static_var", "name": "name", "value": "Ann"}, text("Hi")]))
    ]));
    assert_eq!(export(&d)["messages"][0]["content"], "Hello Ann");
}

#[test]
fn messages_that_send_nothing_are_left_out() {
    let d = doc(json!([
        msg("s", "system", json!([{"kind": "static_var", "name": "v", "value": "1"}])),
        msg("u", "user", json!([text("{{v}}")])),
        msg("a", "assistant", json!([]))
    ]));
    assert_eq!(export(&d)["messages"], json!([{"role": "user", "content": "1"}]));
}

#[test]
fn pretty_text_ends_with_a_newline_and_parses_back() {
    let d = doc(json!([msg("u", "user", json!([text("hi")]))]));
    let s = openai_json(&parse(&d.to_string()).unwrap().envelope);
    assert!(s.ends_with("}\n"));
    assert!(s.starts_with("{\n  \"model\": \"gpt-4o\","));
    let v: Value = serde_json::from_str(&s).unwrap();
    typed_check(&v);
}

/// `to_pretty_pieces` concatenated is `to_pretty`, byte for byte: every
/// envelope fixture, the demos, a big generated document and the edge cases
/// (no messages, empty, not an array, messages first or last, not an object).
#[test]
fn pretty_pieces_concatenate_to_to_pretty() {
    use envelope::export::{to_pretty, to_pretty_pieces};
    use serde_json::{json, Value};
    fn check(v: &Value, what: &str) -> usize {
        let pieces: Vec<String> = to_pretty_pieces(v).collect();
        assert_eq!(pieces.concat(), to_pretty(v), "{what}");
        pieces.len()
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests/fixtures/envelopes/valid", "tests/fixtures/envelopes/invalid", "../../demos"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "json") {
                files.push(p);
            }
        }
    }
    let mut split = 0;
    for p in &files {
        let Ok(v) = serde_json::from_slice::<Value>(&std::fs::read(p).unwrap()) else { continue };
        if check(&v, &p.display().to_string()) > 1 {
            split += 1;
        }
    }
    assert!(split >= 6, "only {split} documents came in more than one piece");
    let msg = |i: usize| json!({"id": format!("m{i}"), "role": "user", "segments": [{"kind": "text", "content": format!("line\nbreak \u{2028} \"q\" {i}"), "nested": {"a": [1, {"b": []}], "messages": []}}]});
    let many: Vec<Value> = (0..500).map(msg).collect();
    assert_eq!(
        check(&json!({"version": "1.0", "model": "m", "messages": many, "params": {"messages": []}}), "big"),
        502
    );
    check(&json!({"messages": [msg(1)], "version": "1.0"}), "messages first");
    check(&json!({"version": "1.0", "messages": [msg(1)]}), "messages last");
    assert_eq!(check(&json!({"version": "1.0", "messages": []}), "empty"), 1);
    assert_eq!(check(&json!({"version": "1.0", "messages": "no"}), "not an array"), 1);
    assert_eq!(check(&json!({"version": "1.0"}), "none"), 1);
    assert_eq!(check(&json!([1, 2]), "not an object"), 1);
    let two = json!({"messages": [1, 2]});
    let mut p = to_pretty_pieces(&two);
    assert_eq!(p.remaining(), 4);
    p.next();
    assert_eq!(p.remaining(), 3);
}
