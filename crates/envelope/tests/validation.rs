//! One test per rule of §3: each error kind and each warning kind, with its path.

use envelope::{parse, Diagnostic, Severity};
use serde_json::{json, Value};

fn doc(messages: Value) -> Value {
    json!({"version": "1.0", "model": "gpt-4o", "messages": messages})
}

fn msg(id: &str, role: &str, segments: Value) -> Value {
    json!({"id": id, "role": role, "timestamp": 1767225600000u64, "segments": segments})
}

fn text(s: &str) -> Value {
    json!({"kind": "text", "content": s})
}

fn req(tool: &str, id: Option<&str>, args: Value) -> Value {
    let mut v = json!({"kind": "tool_call_request", "toolName": tool, "arguments": args, "collapsed": false});
    if let Some(id) = id {
        v["callId"] = id.into();
    }
    v
}

fn res(tool: &str, id: Option<&str>) -> Value {
    let mut v =
        json!({"kind": "tool_call_result", "toolName": tool, "result": "ok", "success": true, "collapsed": true});
    if let Some(id) = id {
        v["callId"] = id.into();
    }
    v
}

fn tools(items: Value) -> Value {
    json!({"kind": "tool_overview", "items": items, "collapsed": true})
}

fn var(name: &str, value: &str) -> Value {
    json!({"kind": "static_var", "name": name, "value": value})
}

/// Errors of a document that must be rejected, as `(path, message)`.
fn errors(v: &Value) -> Vec<(String, String)> {
    match parse(&v.to_string()) {
        Ok(l) => panic!("expected errors, got a valid document (warnings: {:?})", l.warnings),
        Err(e) => {
            assert!(e.iter().all(|d| d.severity == Severity::Error));
            e.into_iter().map(|d| (d.path, d.message)).collect()
        }
    }
}

/// Warnings of a document that must be valid.
fn warnings(v: &Value) -> Vec<Diagnostic> {
    match parse(&v.to_string()) {
        Ok(l) => l.warnings,
        Err(e) => panic!("expected a valid document, got {e:#?}"),
    }
}

fn paths(w: &[Diagnostic]) -> Vec<&str> {
    w.iter().map(|d| d.path.as_str()).collect()
}

fn has(errs: &[(String, String)], path: &str, needle: &str) {
    assert!(
        errs.iter().any(|(p, m)| p == path && m.contains(needle)),
        "no error at `{path}` containing `{needle}` in {errs:#?}"
    );
}

#[test]
fn a_minimal_document_is_valid_without_warnings() {
    assert!(warnings(&doc(json!([msg("u", "user", json!([text("hi")]))]))).is_empty());
}

// ---- errors -------------------------------------------------------------

#[test]
fn syntax_errors_give_line_and_column() {
    let e = parse("{\n  \"version\": \"1.0\",\n  \"messages\": [,]\n}").unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].path, "line 3 column 16");
    assert!(e[0].message.starts_with("invalid JSON: "), "{}", e[0].message);
}

#[test]
fn empty_and_non_object_documents() {
    assert!(parse("").unwrap_err()[0].message.contains("empty"));
    assert!(parse("  \n").unwrap_err()[0].message.contains("empty"));
    has(&errors(&json!([1, 2])), "", "expected the document (an object), found an array");
}

#[test]
fn invalid_utf8_is_located() {
    let e = envelope::parse_bytes(b"{\n \"a\": \"\xff\"}").unwrap_err();
    assert_eq!(e[0].path, "line 2 column 8");
    assert!(e[0].message.contains("not valid UTF-8"));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = "[".repeat(10_000) + &"]".repeat(10_000);
    let e = parse(&deep).unwrap_err();
    assert!(e[0].message.contains("too deep"), "{:?}", e);
}

#[test]
fn wrong_version() {
    let mut d = doc(json!([]));
    d["version"] = "2.0".into();
    has(&errors(&d), "version", "unsupported version \"2.0\"");
    d["version"] = 1.into();
    has(&errors(&d), "version", "expected a string, found a number");
}

#[test]
fn missing_fields_are_all_reported_with_paths() {
    let d = doc(json!([
        {"id": "a", "role": "user", "segments": [{"kind": "text"}]},
        msg("b", "assistant", json!([{"kind": "tool_call_request", "arguments": {}, "collapsed": false}]))
    ]));
    let e = errors(&d);
    has(&e, "messages[0].timestamp", "missing field `timestamp`");
    has(&e, "messages[0].segments[0].content", "missing field `content` (expected a string)");
    has(&e, "messages[1].segments[0].toolName", "missing field `toolName`");
    assert_eq!(e.len(), 3, "{e:#?}");
}

#[test]
fn mistyped_fields() {
    let d = doc(json!([msg(
        "a",
        "user",
        json!([
            {"kind": "long_text", "content": "x", "charCount": "1", "collapsed": "no"},
            {"kind": "document", "fileName": "f", "mimeType": "text/plain", "snippet": "s", "sizeBytes": -1},
            {"kind": "tool_overview", "items": [{"name": "t", "description": "d", "schema": []}], "collapsed": true}
        ])
    )]));
    let e = errors(&d);
    has(&e, "messages[0].segments[0].charCount", "expected an integer, found a string");
    has(&e, "messages[0].segments[0].collapsed", "expected a boolean, found a string");
    has(&e, "messages[0].segments[1].sizeBytes", "expected a non-negative integer, found the number -1");
    has(&e, "messages[0].segments[2].items[0].schema", "expected an object, found an array");
}

/// Errors of a document given as text (for what `json!` cannot write: duplicate keys, huge numbers).
fn text_errors(text: &str) -> Vec<(String, String, &'static str)> {
    match parse(text) {
        Ok(l) => panic!("expected errors, got a valid document (warnings: {:?})", l.warnings),
        Err(e) => e.into_iter().map(|d| (d.path.clone(), d.message.clone(), d.code())).collect(),
    }
}

const DOC_HEAD: &str = r#"{"version":"1.0","messages":[{"id":"u","role":"user","timestamp":"#;

#[test]
fn duplicate_keys_are_errors_at_the_second_with_the_rest_still_checked() {
    let text = format!(
        r#"{DOC_HEAD}1,"segments":[{{"kind":"media","mediaType":"image","url":"javascript:alert(1)","url":"https://x/i.png"}},{{"kind":"text","content":"a","content":"b","content":"c"}},{{"kind":"nope"}}]}}],"version":"1.0"}}"#
    );
    let e = text_errors(&text);
    let dups: Vec<&str> = e.iter().filter(|d| d.2 == "duplicate-key").map(|d| d.0.as_str()).collect();
    assert_eq!(
        dups,
        [
            "messages[0].segments[0].url",
            "messages[0].segments[1].content",
            "messages[0].segments[1].content",
            "version"
        ]
    );
    assert!(e[0].1.starts_with("duplicate key `url`"), "{e:?}");
    // The rest of the document is checked too.
    assert!(e.iter().any(|d| d.2 == "unknown-kind" && d.0 == "messages[0].segments[2].kind"), "{e:?}");
    // The same document without the duplicates is valid up to the unknown kind.
    let fixed = text.replace(r#""url":"javascript:alert(1)","#, "").replace(r#""content":"a","content":"b","#, "");
    let fixed = fixed.replace(r#"}],"version":"1.0"}"#, "}]}");
    assert!(text_errors(&fixed).iter().all(|d| d.2 != "duplicate-key"));
}

#[test]
fn timestamps_must_be_finite_and_within_a_date() {
    for (ts, ok) in [
        ("1e400", false),
        ("-1e400", false),
        ("8.64e15", true),
        ("-8640000000000000", true),
        ("8640000000000001", false),
        ("1e16", false),
        ("1767225600000.5", true),
        ("0", true),
    ] {
        let text = format!(r#"{DOC_HEAD}{ts},"segments":[{{"kind":"text","content":"a"}}]}}]}}"#);
        match parse(&text) {
            Ok(l) => {
                assert!(ok, "{ts} accepted");
                // Kept as written.
                assert_eq!(
                    l.envelope.messages[0].timestamp.to_string(),
                    serde_json::from_str::<Value>(ts).unwrap().to_string()
                );
            }
            Err(e) => {
                assert!(!ok, "{ts} rejected: {e:?}");
                assert_eq!(e[0].path, "messages[0].timestamp");
                assert_eq!(e[0].code(), "wrong-type");
                assert!(e[0].message.contains("out of range"), "{}", e[0].message);
            }
        }
    }
}

#[test]
fn sizes_must_be_integers_every_reader_holds() {
    for (size, ok) in
        [("9007199254740991", true), ("9007199254740992", false), ("1e30", false), ("18446744073709551616", false)]
    {
        let text = format!(
            r#"{DOC_HEAD}0,"segments":[{{"kind":"document","fileName":"f","mimeType":"text/plain","snippet":"s","sizeBytes":{size}}}]}}]}}"#
        );
        match parse(&text) {
            Ok(_) => assert!(ok, "{size} accepted"),
            Err(e) => {
                assert!(!ok, "{size} rejected: {e:?}");
                assert_eq!((e[0].path.as_str(), e[0].code()), ("messages[0].segments[0].sizeBytes", "wrong-type"));
            }
        }
    }
}

#[test]
fn truncation_priority_must_be_a_non_negative_integer() {
    let mut m = msg("a", "user", json!([text("x")]));
    m["truncationPriority"] = 1.5.into();
    has(&errors(&doc(json!([m]))), "messages[0].truncationPriority", "non-negative integer");
}

#[test]
fn unknown_fields_name_the_field() {
    let mut d = doc(json!([msg("a", "user", json!([{"kind": "text", "content": "x", "tool_name": 1}]))]));
    d["extra"] = true.into();
    d["messages"][0]["author"] = "me".into();
    let e = errors(&d);
    has(&e, "extra", "unknown field `extra` in the envelope");
    has(&e, "messages[0].author", "unknown field `author` in a message");
    has(&e, "messages[0].segments[0].tool_name", "unknown field `tool_name` in a text segment");
    let d = doc(json!([msg(
        "a",
        "assistant",
        json!([{"kind": "tool_call_request", "tool_name": "x", "arguments": {}, "collapsed": true}])
    )]));
    has(&errors(&d), "messages[0].segments[0].tool_name", "did you mean `toolName`?");
    // ASCII case only: a lookalike (KELVIN SIGN for `K`) is an unknown field
    // without a suggestion.
    let d = doc(json!([msg(
        "a",
        "assistant",
        json!([{"kind": "tool_call_request", "TOOL-NAME": "x", "toolName": "x", "arguments": {}, "\u{212A}ind": 1}])
    )]));
    let e = errors(&d);
    has(&e, "messages[0].segments[0].TOOL-NAME", "did you mean `toolName`?");
    let kelvin = e.iter().find(|(p, _)| p.contains('\u{212A}')).expect("the lookalike is reported");
    assert!(!kelvin.1.contains("did you mean"), "{kelvin:?}");
}

#[test]
fn unknown_kind_and_role() {
    let d =
        doc(json!([msg("a", "user", json!([{"kind": "video", "url": "x"}])), msg("b", "robot", json!([text("x")]))]));
    let e = errors(&d);
    has(&e, "messages[0].segments[0].kind", "unknown kind `video`; expected one of: text, static_var");
    has(&e, "messages[1].role", "unknown role `robot`");
    let d = doc(json!([msg("a", "user", json!([{"kind": "media", "mediaType": "gif", "url": "https://x"}]))]));
    has(&errors(&d), "messages[0].segments[0].mediaType", "unknown mediaType `gif`");
}

#[test]
fn duplicate_message_id() {
    let d = doc(json!([msg("a", "user", json!([text("1")])), msg("a", "assistant", json!([text("2")]))]));
    has(&errors(&d), "messages[1].id", "duplicate message id `a` (also messages[0])");
}

#[test]
fn tool_call_request_outside_assistant() {
    let d = doc(json!([msg("u", "user", json!([req("f", None, json!({}))]))]));
    has(&errors(&d), "messages[0].segments[0]", "only allowed in an assistant message, not in a user message");
}

#[test]
fn tool_call_result_outside_tool() {
    let d = doc(json!([
        msg("a", "assistant", json!([req("f", None, json!({}))])),
        msg("b", "assistant", json!([res("f", None)]))
    ]));
    has(&errors(&d), "messages[1].segments[0]", "only allowed in a tool message");
}

#[test]
fn tool_message_holding_other_segments() {
    let d = doc(json!([
        msg("a", "assistant", json!([req("f", None, json!({}))])),
        msg("t", "tool", json!([res("f", None), text("note")]))
    ]));
    has(&errors(&d), "messages[1].segments[1]", "a tool message may hold only tool_call_result segments, not text");
}

#[test]
fn result_without_request() {
    let d = doc(json!([
        msg("a", "assistant", json!([req("f", None, json!({}))])),
        msg("t", "tool", json!([res("f", None), res("g", None), res("f", Some("zz"))]))
    ]));
    let e = errors(&d);
    has(&e, "messages[1].segments[1]", "pairs with no request");
    has(&e, "messages[1].segments[2].callId", "callId `zz` matches no tool_call_request");
    assert_eq!(e.len(), 2, "{e:#?}");
}

#[test]
fn result_before_its_request_does_not_pair_by_name() {
    let d = doc(json!([
        msg("t", "tool", json!([res("f", None)])),
        msg("a", "assistant", json!([req("f", None, json!({}))]))
    ]));
    has(&errors(&d), "messages[0].segments[0]", "pairs with no request");
}

#[test]
fn duplicate_call_ids() {
    let d = doc(json!([
        msg("a", "assistant", json!([req("f", Some("c1"), json!({})), req("f", Some("c1"), json!({}))])),
        msg("t", "tool", json!([res("f", Some("c1")), res("f", Some("c1"))]))
    ]));
    let e = errors(&d);
    has(&e, "messages[0].segments[1].callId", "duplicate callId `c1`");
    has(&e, "messages[1].segments[1].callId", "already answered");
}

#[test]
fn conflicting_static_vars() {
    let d = doc(json!([
        msg("s", "system", json!([var("x", "1"), text("{{x}}")])),
        msg("u", "user", json!([var("x", "1"), var("x", "2")]))
    ]));
    let e = errors(&d);
    has(&e, "messages[1].segments[1].value", "already defined with a different value (at messages[0].segments[0])");
    assert_eq!(e.len(), 1, "the same value twice is fine: {e:#?}");
}

#[test]
fn duplicate_tool_names() {
    let t = json!({"name": "f", "description": "d"});
    let d = doc(json!([
        msg("s", "system", json!([tools(json!([t.clone()]))])),
        msg("s2", "system", json!([tools(json!([t]))]))
    ]));
    has(
        &errors(&d),
        "messages[1].segments[0].items[0].name",
        "a tool named `f` is already declared (at messages[0].segments[0].items[0])",
    );
}

#[test]
fn media_url_schemes() {
    let media = |t: &str, u: &str| json!({"kind": "media", "mediaType": t, "url": u});
    let d = doc(json!([msg(
        "u",
        "user",
        json!([
            media("image", "javascript:alert(1)"),
            media("image", "data:text/html,<script>"),
            media("audio", "file:///etc/passwd"),
            media("image", "HTTPS://example.com/a.png"),
            media("image", "data:image/png;base64,AAAA"),
            media("video", "data:video/mp4;base64,AAAA"),
            media("audio", "http://example.com/a.mp3"),
            // The scheme is what counts, as a browser reads it.
            media("image", "https:example.com/a.png"),
            media("image", " \thttps://example.com/a.png "),
            media("image", "ht\ntps://example.com/a.png"),
            media("image", "\u{a0}https://example.com/a.png"),
            media("image", "-https://example.com/a.png"),
            media("image", "relative/a.png")
        ])
    )]));
    let e = errors(&d);
    has(&e, "messages[0].segments[0].url", "image URL `javascript:alert(1)` is not allowed");
    has(&e, "messages[0].segments[1].url", "use http, https or data:image/");
    has(&e, "messages[0].segments[2].url", "audio URL");
    has(&e, "messages[0].segments[10].url", "not allowed");
    has(&e, "messages[0].segments[11].url", "not allowed");
    has(&e, "messages[0].segments[12].url", "not allowed");
    assert_eq!(e.len(), 6, "{e:#?}");
}

#[test]
fn errors_in_several_messages_are_all_reported() {
    let d = doc(json!([
        msg("a", "user", json!([{"kind": "text"}])),
        msg("a", "user", json!([{"kind": "nope"}])),
        msg("c", "user", json!([req("f", None, json!({}))]))
    ]));
    let e = errors(&d);
    assert!(e.len() >= 4, "{e:#?}");
}

// ---- warnings -----------------------------------------------------------

#[test]
fn char_count_mismatch() {
    let d = doc(json!([msg(
        "u",
        "user",
        json!([
            {"kind": "long_text", "content": "论文🙂e\u{301}", "charCount": 5, "collapsed": true},
            {"kind": "long_text", "content": "abc", "charCount": 4, "collapsed": true}
        ])
    )]));
    let w = warnings(&d);
    assert_eq!(paths(&w), ["messages[0].segments[1].charCount"]);
    assert!(w[0].message.contains("charCount is 4 but content has 3 characters"));
}

#[test]
fn undefined_and_unused_variables() {
    let d = doc(json!([
        msg("s", "system", json!([var("name", "Ann"), var("unused", "x"), text("Hi {{ name }} and {{missing}}")])),
        msg(
            "u",
            "user",
            json!([{"kind": "memory", "items": [{"title": "{{ other }}", "content": "c"}], "collapsed": true}])
        )
    ]));
    let w = warnings(&d);
    assert_eq!(
        paths(&w),
        ["messages[0].segments[2].content", "messages[1].segments[0].items[0].title", "messages[0].segments[1].name"]
    );
    assert!(w[0].message.contains("{{missing}} has no static_var"));
    assert!(w[2].message.contains("`unused` is never used"));
}

#[test]
fn placeholders_in_arguments_results_and_urls_do_not_count() {
    let d = doc(json!([
        msg("a", "assistant", json!([req("f", None, json!({"q": "{{x}}"}))])),
        msg(
            "t",
            "tool",
            json!([{"kind": "tool_call_result", "toolName": "f", "result": "{{y}}", "success": true, "collapsed": true}])
        ),
        msg(
            "u",
            "user",
            json!([{"kind": "document", "fileName": "{{z}}.txt", "mimeType": "text/plain", "snippet": "s", "sizeBytes": 1}])
        )
    ]));
    assert!(warnings(&d).is_empty());
}

#[test]
fn skill_rules() {
    let long = "x".repeat(1025);
    let d = doc(json!([msg(
        "s",
        "system",
        json!([{"kind": "skills", "collapsed": true, "items": [
            {"name": "good-name", "description": "fine"},
            {"name": "Bad_Name", "description": "fine"},
            {"name": "-lead", "description": "fine"},
            {"name": "double--hyphen", "description": "fine"},
            {"name": "trail-", "description": "fine"},
            {"name": "a".repeat(65), "description": "fine"},
            {"name": "ok", "description": long},
            {"name": "loaded-without-body", "description": "d", "loaded": true}
        ]}])
    )]));
    let w = warnings(&d);
    let p = paths(&w);
    assert_eq!(
        p,
        [
            "messages[0].segments[0].items[1].name",
            "messages[0].segments[0].items[2].name",
            "messages[0].segments[0].items[3].name",
            "messages[0].segments[0].items[4].name",
            "messages[0].segments[0].items[5].name",
            "messages[0].segments[0].items[6].description",
            "messages[0].segments[0].items[7].body",
        ]
    );
}

#[test]
fn arguments_against_schema() {
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 14}}, "required": ["city"]});
    let d = doc(json!([
        msg("s", "system", json!([tools(json!([{"name": "weather", "description": "d", "schema": schema}]))])),
        msg(
            "a",
            "assistant",
            json!([
                req("weather", Some("c1"), json!({"days": 20})),
                req("weather", Some("c2"), json!({"city": "Oslo"}))
            ])
        ),
        msg("t", "tool", json!([res("weather", Some("c1")), res("weather", Some("c2"))]))
    ]));
    let w = warnings(&d);
    assert_eq!(paths(&w), ["messages[1].segments[0].arguments", "messages[1].segments[0].arguments"]);
    assert!(w[0].message.contains("missing required property `city`"));
    assert!(w[1].message.contains("days: greater than the maximum 14"));
}

/// `d0` = allOf [d1, d1], …: 2^n paths, n + 1 levels deep.
fn wide_schema(n: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
        defs.insert(format!("d{i}"), json!({"allOf": [next.clone(), next]}));
    }
    defs.insert(format!("d{n}"), json!({}));
    json!({"type": "object", "$defs": defs, "allOf": [{"$ref": "#/$defs/d0"}]})
}

#[test]
fn argument_checks_share_one_budget_and_skipped_ones_are_reported_once() {
    let weather = json!({"type": "object", "properties": {"days": {"type": "integer"}}});
    let mut calls = vec![req("weather", None, json!({"days": "x"}))];
    calls.extend((0..3).map(|i| req("deep", None, json!({ "i": i }))));
    calls.extend((0..40).map(|i| req("wide", None, json!({ "i": i }))));
    calls.push(req("weather", None, json!({"days": "y"})));
    let d = doc(json!([
        msg(
            "s",
            "system",
            json!([tools(json!([
                {"name": "weather", "description": "d", "schema": weather},
                {"name": "wide", "description": "d", "schema": wide_schema(30)},
                {"name": "deep", "description": "d", "schema": {"type": "object", "anyOf": [{"$ref": "#"}, {"$ref": "#"}]}}
            ]))])
        ),
        msg("a", "assistant", Value::Array(calls)),
    ]));
    let t = std::time::Instant::now();
    let w = warnings(&d);
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    let skipped: Vec<&Diagnostic> = w.iter().filter(|d| d.code() == "checks-skipped").collect();
    assert_eq!(skipped.len(), 1, "{w:#?}");
    let m = &skipped[0].message;
    assert_eq!(skipped[0].path, "messages[1].segments[1].arguments");
    // Deep checks stop at 64 levels; about ten wide checks exhaust the
    // budget; the rest, and the last weather call, are skipped.
    assert!(m.starts_with("the arguments of 44 of 45 calls were not checked"), "{m}");
    assert!(m.contains("because one check needed more than 100,000 steps or 64 levels (`deep` ×3, `wide` ×"), "{m}");
    assert!(m.contains("because the document's budget of 500,000 steps was spent (`wide` ×"), "{m}");
    assert!(m.ends_with(", `weather` ×1)"), "{m}");
    // The first weather call was checked before the budget ran out; the last was not.
    let args: Vec<&str> = w.iter().filter(|d| d.code() == "arguments-schema").map(|d| d.path.as_str()).collect();
    assert_eq!(args, ["messages[1].segments[0].arguments"]);
}

#[test]
fn equal_arguments_are_checked_once() {
    let calls: Vec<Value> = (0..5_000).map(|_| req("wide", None, json!({"same": true}))).collect();
    let d = doc(json!([
        msg("s", "system", json!([tools(json!([{"name": "wide", "description": "d", "schema": wide_schema(30)}]))])),
        msg("a", "assistant", Value::Array(calls)),
        msg("t", "tool", Value::Array((0..5_000).map(|_| res("wide", None)).collect())),
    ]));
    let w = warnings(&d);
    let skipped: Vec<&Diagnostic> = w.iter().filter(|d| d.code() == "checks-skipped").collect();
    // One check at its own limit, remembered for the 4,999 others: the
    // budget is never spent.
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].message.starts_with("the arguments of 5000 of 5000 calls"), "{}", skipped[0].message);
    assert!(!skipped[0].message.contains("budget"), "{}", skipped[0].message);
}

#[test]
fn openai_tool_name_and_schema_type() {
    let d = doc(json!([
        msg(
            "s",
            "system",
            json!([tools(json!([
                {"name": "has space", "description": "d"},
                {"name": "arr", "description": "d", "schema": {"type": "array"}}
            ]))])
        ),
        msg("a", "assistant", json!([req("has space", None, json!({}))])),
        msg("t", "tool", json!([res("has space", None)]))
    ]));
    let w = warnings(&d);
    assert_eq!(
        paths(&w),
        [
            "messages[0].segments[0].items[0].name",
            "messages[0].segments[0].items[1].schema",
            "messages[1].segments[0].toolName"
        ]
    );
    assert!(w[1].message.contains("not \"object\""));
}

#[test]
fn unanswered_call_before_next_message() {
    let d = doc(json!([
        msg("a", "assistant", json!([req("f", None, json!({})), req("g", None, json!({}))])),
        msg("t", "tool", json!([res("f", None)])),
        msg("u", "user", json!([text("next")])),
        msg("t2", "tool", json!([res("g", None)]))
    ]));
    let w = warnings(&d);
    assert_eq!(paths(&w), ["messages[0].segments[1]", "messages[3].segments[0]"]);
    assert!(w[0].message.contains("tool call `call_2` is not answered before the next non-tool message (messages[2])"));
    assert!(w[1].message.contains("does not directly follow"));
}

#[test]
fn unanswered_call_at_the_end() {
    let d = doc(json!([msg("a", "assistant", json!([req("f", None, json!({}))]))]));
    let w = warnings(&d);
    assert_eq!(paths(&w), ["messages[0].segments[0]"]);
    assert!(w[0].message.contains("by the tool messages that follow it"));
}

#[test]
fn generated_id_collision() {
    let d = doc(json!([
        msg("a", "assistant", json!([req("f", Some("call_2"), json!({})), req("f", None, json!({}))])),
        msg("t", "tool", json!([res("f", Some("call_2")), res("f", None)]))
    ]));
    let w = warnings(&d);
    assert_eq!(paths(&w), ["messages[0].segments[0].callId"]);
}

#[test]
fn result_naming_another_tool_than_its_call() {
    let d = doc(json!([
        msg("a", "assistant", json!([req("f", Some("k"), json!({}))])),
        msg("t", "tool", json!([res("g", Some("k"))]))
    ]));
    assert_eq!(paths(&warnings(&d)), ["messages[1].segments[0].toolName"]);
}

// ---- every error is reported, not just the first (§3) ---------------------------

#[test]
fn a_bad_version_does_not_hide_the_other_errors() {
    let mut v = doc(json!([msg("a", "user", json!([])), msg("a", "user", json!([]))]));
    v.as_object_mut().unwrap().remove("version");
    let e = errors(&v);
    assert!(e.iter().any(|(p, _)| p == "version"), "{e:?}");
    assert!(e.iter().any(|(p, m)| p == "messages[1].id" && m.contains("duplicate")), "{e:?}");
}

#[test]
fn a_message_with_a_bad_field_still_has_its_segments_checked() {
    let mut m = msg(
        "u",
        "user",
        json!([req("f", None, json!({})), {"kind": "media", "mediaType": "image", "url": "file:///etc/passwd"}]),
    );
    m.as_object_mut().unwrap().remove("timestamp");
    let e = errors(&doc(json!([m])));
    assert!(e.iter().any(|(p, _)| p == "messages[0].timestamp"), "{e:?}");
    assert!(e.iter().any(|(p, _)| p == "messages[0].segments[0]"), "{e:?}");
    assert!(e.iter().any(|(p, _)| p == "messages[0].segments[1].url"), "{e:?}");
}

#[test]
fn the_id_of_a_message_that_fails_to_decode_still_counts_for_duplicates() {
    let e = errors(&doc(json!([msg("a", "bogus", json!([])), msg("a", "user", json!([]))])));
    assert!(e.iter().any(|(p, m)| p == "messages[0].role" && m.contains("unknown role")), "{e:?}");
    assert!(e.iter().any(|(p, m)| p == "messages[1].id" && m.contains("also messages[0]")), "{e:?}");
    // A message whose own id is missing is not a duplicate of anything.
    let mut m = msg("x", "user", json!([]));
    m.as_object_mut().unwrap().remove("id");
    let e = errors(&doc(json!([m.clone(), m, msg("", "user", json!([]))])));
    assert!(!e.iter().any(|(_, m)| m.contains("duplicate")), "{e:?}");
}

#[test]
fn params_extension_is_an_object_kept_in_order() {
    let mut v = doc(json!([msg("u", "user", json!([text("hi")]))]));
    v["params"] = json!({"temperature": 0.2, "max_tokens": 100, "stop": ["\n"]});
    let loaded = parse(&v.to_string()).unwrap();
    let params = loaded.envelope.params.unwrap();
    assert_eq!(params.keys().collect::<Vec<_>>(), ["temperature", "max_tokens", "stop"]);
    v["params"] = json!(null);
    assert_eq!(parse(&v.to_string()).unwrap().envelope.params, None);
    v["params"] = json!([1]);
    assert_eq!(errors(&v), [("params".to_string(), "expected an object, found an array".to_string())]);
}

#[test]
fn dollar_schema_is_accepted_as_a_string_only() {
    let mut v = doc(json!([msg("u", "user", json!([text("hi")]))]));
    v["$schema"] = json!("./schema/envelope.schema.json");
    assert!(warnings(&v).is_empty());
    v["$schema"] = json!(3);
    assert_eq!(errors(&v), [("$schema".to_string(), "expected a string, found a number".to_string())]);
}

#[test]
fn every_diagnostic_names_its_rule() {
    let v = doc(json!([msg("u", "user", json!([text("{{x}}"), {"kind": "nope"}]))]));
    let e = parse(&v.to_string()).unwrap_err();
    assert_eq!(e.iter().map(|d| d.code()).collect::<Vec<_>>(), ["unknown-kind"]);
    let w = warnings(&doc(json!([msg("u", "user", json!([text("{{x}}"), var("y", "1")]))])));
    assert_eq!(w.iter().map(|d| d.code()).collect::<Vec<_>>(), ["undeclared-variable", "unused-variable"]);
}
