//! Property tests: no input panics the reader, the validator, the exporter
//! or (feature `providers`) the importer. Arbitrary bytes, arbitrary JSON,
//! near-valid envelopes and near-valid request bodies (valid ones with
//! random damage) all end in a document or in errors that say where; every
//! imported envelope exports to every target.

use envelope::export::{contributions, openai_json};
use envelope::parts::{count_parts, part_texts};
use envelope::{parse, parse_bytes};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
        prop_oneof![
            Just("1.0"),
            Just("text"),
            Just("user"),
            Just("tool"),
            Just("image"),
            Just("{{x}}"),
            Just("assistant"),
            Just("tool_use"),
            Just("tool_result"),
            Just("function_call"),
            Just("{\"a\":1}"),
            Just("data:image/png;base64,AA=="),
        ]
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("version".to_string()),
                        Just("messages".to_string()),
                        Just("segments".to_string()),
                        Just("kind".to_string()),
                        Just("role".to_string()),
                        Just("id".to_string()),
                        Just("content".to_string()),
                        Just("type".to_string()),
                        Just("input".to_string()),
                        Just("system".to_string()),
                        Just("tool_calls".to_string()),
                        Just("arguments".to_string()),
                        ".{0,6}".prop_map(|s: String| s)
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A valid envelope using every kind, as a template for damage.
fn template() -> Value {
    json!({"version": "1.0", "model": "m", "messages": [
        {"id": "s", "role": "system", "timestamp": 1, "truncationPriority": 0, "segments": [
            {"kind": "static_var", "name": "x", "value": "X", "description": "d"},
            {"kind": "system_prompt", "content": "Hi {{x}}", "collapsed": true},
            {"kind": "memory", "items": [{"title": "t", "content": "c"}], "collapsed": true, "description": "d"},
            {"kind": "skills", "items": [{"name": "s-k", "description": "d", "body": "b", "loaded": true}], "collapsed": true},
            {"kind": "tool_overview", "items": [{"name": "f", "description": "d", "parameters": "p",
                "schema": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}}], "collapsed": true}
        ]},
        {"id": "u", "role": "user", "timestamp": 2, "segments": [
            {"kind": "text", "content": "q"},
            {"kind": "long_text", "content": "ab", "charCount": 2, "collapsed": true},
            {"kind": "document", "fileName": "f.pdf", "mimeType": "application/pdf", "snippet": "s", "sizeBytes": 3, "parsedContent": "p"},
            {"kind": "media", "mediaType": "image", "url": "https://x/i.png", "altText": "a"},
            {"kind": "media", "mediaType": "audio", "url": "https://x/a.mp3"}
        ]},
        {"id": "a", "role": "assistant", "timestamp": 3, "segments": [
            {"kind": "text", "content": "r"},
            {"kind": "tool_call_request", "toolName": "f", "arguments": {"a": 1}, "collapsed": false, "callId": "c"},
            {"kind": "tool_call_request", "toolName": "f", "arguments": {"a": 2}, "collapsed": false}
        ]},
        {"id": "t", "role": "tool", "timestamp": 4, "segments": [
            {"kind": "tool_call_result", "toolName": "f", "result": "ok", "success": true, "collapsed": true, "callId": "c"},
            {"kind": "tool_call_result", "toolName": "f", "result": "no", "success": false, "collapsed": false}
        ]}
    ]})
}

/// Every path (as pointer segments) to a value inside `v`.
fn paths(v: &Value, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(prefix.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                prefix.push(k.clone());
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                prefix.push(i.to_string());
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

/// Applies random damage: removes a field, replaces a value, or adds an unknown field.
fn damage(doc: &mut Value, picks: Vec<(prop::sample::Index, u8, Value)>) {
    for (pick, how, replacement) in picks {
        let mut all = Vec::new();
        paths(doc, &mut Vec::new(), &mut all);
        let target = pick.get(&all).clone();
        if target.is_empty() {
            continue;
        }
        let (parent, last) = target.split_at(target.len() - 1);
        let Some(parent_value) = doc.pointer_mut(&pointer(parent)) else { continue };
        match (how, parent_value) {
            (0, Value::Object(m)) => {
                m.remove(&last[0]);
            }
            (1, Value::Object(m)) => {
                m.insert(last[0].clone(), replacement);
            }
            (2, Value::Object(m)) => {
                m.insert(format!("{}_extra", last[0]), replacement);
            }
            (_, Value::Array(a)) => {
                let i: usize = last[0].parse().unwrap();
                if i < a.len() {
                    a[i] = replacement;
                }
            }
            (_, Value::Object(m)) => {
                m.insert(last[0].clone(), replacement);
            }
            _ => {}
        }
    }
}

/// Every string of `v` except `type` and `role` tags (and every other one
/// of those) replaced by `s`.
fn set_strings(v: &mut Value, s: &str) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match x {
                    Value::String(_) if k == "type" || k == "role" => {}
                    Value::String(t) => *t = s.to_string(),
                    other => set_strings(other, s),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| set_strings(x, s)),
        _ => {}
    }
}

/// The request corpus (tests/fixtures/requests, and the Gemini and Bedrock
/// bodies of real/), as damage templates.
fn request_templates() -> Vec<Value> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/requests");
    let mut out = Vec::new();
    for sub in ["openai", "responses", "anthropic", "real/gemini", "real/bedrock"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else { continue };
        let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            out.push(serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap());
        }
    }
    out
}

fn pointer(path: &[String]) -> String {
    path.iter().map(|p| format!("/{}", p.replace('~', "~0").replace('/', "~1"))).collect()
}

/// Importing must never panic, whatever format is asked for; an imported
/// envelope exports to every target.
#[cfg(feature = "providers")]
fn check_import(text: &str) {
    use envelope::export::{render, Target};
    use envelope::import::{import_as, Format};
    for from in [
        None,
        Some(Format::OpenaiChat),
        Some(Format::OpenaiResponses),
        Some(Format::Anthropic),
        Some(Format::Gemini),
        Some(Format::Bedrock),
    ] {
        match import_as(text, from) {
            Ok(i) => {
                for t in Target::ALL {
                    let _ = render(&i.envelope, t);
                }
            }
            Err(errors) => {
                assert!(!errors.is_empty());
                for e in errors {
                    assert!(!e.message.is_empty());
                }
            }
        }
    }
}

#[cfg(not(feature = "providers"))]
fn check_import(_: &str) {}

/// Loading must never panic; when it succeeds, neither may export or parts.
fn check(text: &str) {
    // Huge inputs are imported once, below, not in every format.
    if text.len() < 1 << 20 {
        check_import(text);
    }
    match parse(text) {
        Ok(l) => {
            let _ = openai_json(&l.envelope);
            let c = contributions(&l.envelope);
            let _ = count_parts(&part_texts(&l.envelope, &c), |s| s.len() as u64);
        }
        Err(errors) => {
            assert!(!errors.is_empty());
            for e in errors {
                assert!(!e.message.is_empty());
            }
        }
    }
}

#[test]
fn the_template_is_valid() {
    let l = parse(&template().to_string()).unwrap();
    assert!(l.warnings.is_empty(), "{:#?}", l.warnings);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse_bytes(&bytes);
    }

    #[test]
    fn arbitrary_json(v in arb_json()) {
        check(&v.to_string());
        check(&json!({"version": "1.0", "messages": [v]}).to_string());
    }

    #[test]
    fn damaged_envelopes_report_every_error_with_a_path(
        picks in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, arb_json()), 1..4)
    ) {
        let mut doc = template();
        damage(&mut doc, picks);
        let text = doc.to_string();
        check(&text);
        if let Err(errors) = parse(&text) {
            // Errors name a place: a path into the document, or none for the whole.
            for e in errors {
                let p = &e.path;
                prop_assert!(
                    p.is_empty() || p.starts_with("messages") || ["version", "model"].contains(&p.as_str())
                        || p.starts_with("line ") || !p.contains(' '),
                    "odd path {p:?}: {}", e.message
                );
            }
        }
    }

    #[test]
    fn damaged_requests_import_or_say_where(
        which in 0usize..256,
        picks in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, arb_json()), 1..4)
    ) {
        let templates = request_templates();
        if templates.is_empty() {
            return Ok(());
        }
        let mut doc = templates[which % templates.len()].clone();
        damage(&mut doc, picks);
        check(&doc.to_string());
    }

    #[test]
    fn hostile_strings_in_every_request_field(which in 0usize..256, s in ".{0,24}", prefix in 0usize..6) {
        let templates = request_templates();
        if templates.is_empty() {
            return Ok(());
        }
        let p = ["", "data:", "data:image/png;base64,", "## Memory\n- ", "[Document: ", "[audio: https://x"][prefix];
        let mut doc = templates[which % templates.len()].clone();
        set_strings(&mut doc, &format!("{p}{s}"));
        check(&doc.to_string());
    }

    #[test]
    fn hostile_strings_in_every_field_load_and_export(s in ".{0,40}") {
        let text = template().to_string().replace("\"q\"", &serde_json::to_string(&s).unwrap())
            .replace("\"Hi {{x}}\"", &serde_json::to_string(&format!("{s}{{{{x}}}}{s}")).unwrap());
        check(&text);
    }
}

#[test]
fn huge_and_deep_inputs() {
    let big = format!(
        r#"{{"version":"1.0","messages":[{{"id":"a","role":"user","timestamp":0,"segments":[{{"kind":"text","content":"{}"}}]}}]}}"#,
        "x".repeat(50 << 20)
    );
    check(&big);
    check(&"[".repeat(10_000));
    check(&"{\"a\":".repeat(10_000));
    check("\u{feff}");
    #[cfg(feature = "providers")]
    {
        // A huge paste, and text that is 100,000 forms.
        for (big, min) in [("x'\"".repeat(2 << 20), 6 << 20), ("x'\n\n## Memory\n- a: b".repeat(100_000), 2 << 20)] {
            let request = json!({"messages": [{"role": "user", "content": big}], "max_tokens": 1}).to_string();
            let imported = envelope::import::import(&request).unwrap();
            for t in envelope::export::Target::ALL {
                assert!(envelope::export::render(&imported.envelope, t).text.len() > min);
            }
        }
    }
    assert!(parse_bytes(&[0xff, 0xfe, 0x00]).is_err());
}
