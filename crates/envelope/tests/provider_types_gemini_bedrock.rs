//! The Gemini and Bedrock Converse exports checked against the providers'
//! own SDKs' request types, as provider_types.rs checks the OpenAI and
//! Anthropic ones (D24, D172):
//! - Bedrock Converse: botocore's client-side validator, what boto3 runs
//!   before it sends (`ParamValidator` on the `Converse` input shape, the
//!   body plus its `modelId`): an unknown field, a missing required one or a
//!   wrong type fails. Also what the service checks and boto3 does not: an
//!   enum's value, and a blob's wire form (base64).
//! - Gemini `generateContent`: the body's top-level keys are the REST
//!   `GenerateContentRequest`'s, and each value validates as google-genai's
//!   pydantic type for it (`extra='forbid'`, camelCase names only): an
//!   unknown field anywhere, a wrong type or an unknown enum value fails.
//!   Also a Content's role (`user` or `model`) and a Part's one datum.
//!
//! The SDKs are pinned in .tools/requirements.txt and installed by
//! scripts/setup.sh into .tools/python/; the checks are
//! tests/sdk_types/check.py, one Python process per target for all bodies.
//! The exports checked: those of provider_types.rs (demos, the request
//! corpus, 150 generated envelopes), one envelope with Gemini's own
//! settings, and the real Gemini and Bedrock bodies
//! (tests/fixtures/requests/real/{gemini,bedrock}), imported and exported
//! to both targets; a real body is also checked itself, and the export of
//! its import to its own format (a replay) may only have the body's own
//! errors.
//!
//! Known differences, in `KNOWN` (each must still occur, so a fix shows):
//! Vertex AI's `labels` pass to Gemini. (`serviceTier`, a string in Gemini
//! and `{"type": …}` in Bedrock, is translated: params.rs.) What
//! the SDK types lack and the API has (real bodies only): google-genai's
//! `GenerationConfig` has no `imageConfig`; the API also reads snake_case
//! names, one object for a list and the old `function` role. google-genai's
//! enums are case-insensitive (the API's are not), which the check does
//! not catch.
#![cfg(feature = "providers")]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use envelope::export::{render, Target};
use envelope::import::{import_as, Format};
use envelope::Envelope;
use serde_json::{json, Value};

mod common;
use common::root;
#[path = "sdk_types/envelopes.rs"]
mod envelopes;

/// The model a body is checked with when the envelope names none (Bedrock
/// takes it in the URL; botocore requires `modelId`).
const BEDROCK_MODEL: &str = "anthropic.claude-3-5-haiku-20241022-v1:0";
const GEMINI_MODEL: &str = "gemini-2.5-flash";

/// A body to check: its name, the model (the URL's), the body.
type Body = (String, String, Value);

/// Errors the check reports for an export and that are known, not fixed
/// (D172): target, the body's name (its end), the message (a part).
const KNOWN: &[(&str, &str, &str)] = &[
    // Vertex AI's `labels` (and `modelArmorConfig`) are Gemini settings here
    // and pass as written; the Gemini API's generateContent has neither
    // (google-genai refuses them for it: "not supported in Gemini API").
    ("gemini", "gemini settings", "labels: not a field of GenerateContentRequest"),
];

/// The bodies checked for `target`: the exports of provider_types.rs's
/// envelopes, and for each real Gemini and Bedrock body the body itself
/// ("original …") and the export of its import.
fn bodies(target: Target, default_model: &str) -> Vec<Body> {
    let export = |what: &str, e: &Envelope| -> Body {
        let text = render(e, target).text;
        let body: Value = serde_json::from_str(&text).unwrap_or_else(|err| panic!("{what}: {err}\n{text}"));
        // An empty `model` (the generator writes some) is no model.
        let model = e.model.clone().filter(|m| !m.is_empty()).unwrap_or_else(|| default_model.to_string());
        (what.to_string(), model, body)
    };
    let mut out: Vec<Body> = envelopes::envelopes().iter().map(|(what, e)| export(what, e)).collect();
    // Settings of one provider's own spelling that the other has too (the
    // generated envelopes keep only Chat-style settings).
    let own = r#"{"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "serviceTier": "flex", "labels": {"team": "a"}}"#;
    let own = import_as(own, Some(Format::Gemini)).unwrap_or_else(|e| panic!("{e:#?}")).envelope;
    out.push(export("gemini settings", &own));
    let dir = root().join("crates/envelope/tests/fixtures/requests/real");
    for (sub, format) in [("gemini", Format::Gemini), ("bedrock", Format::Bedrock)] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(sub)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        assert!(files.len() > 30, "{sub}: {} bodies", files.len());
        for f in files {
            let name = format!("real/{sub}/{}", f.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&f).unwrap();
            let imported = import_as(&text, Some(format)).unwrap_or_else(|e| panic!("{name}: {e:#?}"));
            let exported = export(&name, &imported.envelope);
            if (target == Target::Gemini) == (format == Format::Gemini) {
                out.push((format!("original {name}"), exported.1.clone(), serde_json::from_str(&text).unwrap()));
            }
            out.push(exported);
        }
    }
    out
}

/// Runs check.py for `target` over `bodies`: whether it passed, and its output.
fn sdk_check(target: &str, name: &str, bodies: &[Body]) -> (bool, String) {
    let python = root().join(".tools/python");
    let requirements = root().join(".tools/requirements.txt");
    assert!(
        python.join(".pep-installed-requirements.txt").exists(),
        "missing {}: run scripts/setup.sh (it installs botocore and google-genai into .tools/python/)",
        python.display()
    );
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sdk-types");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{target}-{name}.json"));
    let list: Vec<Value> = bodies.iter().map(|(n, m, b)| json!({"name": n, "model": m, "body": b})).collect();
    std::fs::write(&file, serde_json::to_string(&list).unwrap()).unwrap();
    let script = root().join("crates/envelope/tests/sdk_types/check.py");
    let started = Instant::now();
    let out = Command::new("python3")
        .arg("-B")
        .arg(&script)
        .arg(target)
        .arg(&file)
        .arg(&requirements)
        .env("PYTHONPATH", &python)
        .env("PYTHONNOUSERSITE", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{target} check of {} bodies: {:.2?}", bodies.len(), started.elapsed());
    match out.status.code() {
        Some(0) => (true, text),
        Some(1) => (false, text),
        _ => panic!("check.py could not run:\n{text}"),
    }
}

/// The errors of the check's output, by body name.
fn errors_by_body(out: &str) -> BTreeMap<&str, Vec<&str>> {
    let mut by: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for line in out.lines().filter(|l| !l.starts_with("checked ")) {
        let (name, message) = line.split_once(": ").unwrap_or_else(|| panic!("not an error line: {line}\n{out}"));
        by.entry(name).or_default().push(message);
    }
    by
}

/// Every export validates, but for the KNOWN differences (each must still
/// occur) and, for a real body, the errors of the body itself: the export
/// of an import adds none (the replay writes a body as it came, and the
/// API reads more than the SDK types describe: snake_case names, one
/// object for a list, a `function` role).
fn check_exports(target: Target, name: &str, default_model: &str) {
    let bodies = bodies(target, default_model);
    assert!(bodies.len() > 280, "{}", bodies.len());
    // Media travel: the check sees blobs (base64 on the wire).
    let blob = if target == Target::Gemini { r#""inlineData":"# } else { r#""bytes":"# };
    let with_blobs =
        bodies.iter().filter(|(n, _, b)| !n.starts_with("original ") && b.to_string().contains(blob)).count();
    assert!(with_blobs > 10, "{with_blobs} exports with {blob}");
    let (_, out) = sdk_check(name, "exports", &bodies);
    assert!(out.contains(&format!("checked {} bodies, ", bodies.len())), "{out}");
    let by = errors_by_body(&out);
    let mut wrong = Vec::new();
    for (body, errors) in &by {
        if body.starts_with("original ") {
            continue;
        }
        let original = by.get(format!("original {body}").as_str());
        for e in errors {
            let known = KNOWN.iter().any(|(t, b, m)| *t == name && body.ends_with(b) && e.contains(m));
            if !known && !original.is_some_and(|o| o.contains(e)) {
                wrong.push(format!("{body}: {e}"));
            }
        }
    }
    assert!(wrong.is_empty(), "the {name} exports do not validate with the SDK's types:\n{}", wrong.join("\n"));
    for (t, b, m) in KNOWN.iter().filter(|(t, ..)| *t == name) {
        let seen = by.iter().any(|(body, errors)| body.ends_with(b) && errors.iter().any(|e| e.contains(m)));
        assert!(seen, "the known {t} difference of {b} ({m}) is gone: take it out of KNOWN and D172\n{out}");
    }
}

#[test]
fn bedrock_exports_validate_with_botocore() {
    check_exports(Target::Bedrock, "bedrock", BEDROCK_MODEL);
}

#[test]
fn gemini_exports_validate_with_google_genai() {
    check_exports(Target::Gemini, "gemini", GEMINI_MODEL);
}

/// Each wrong body fails, with a message that names `field`.
fn assert_caught(target: &str, wrong: &[(&str, Value)]) {
    let bodies: Vec<(String, String, Value)> =
        wrong.iter().enumerate().map(|(i, (_, b))| (format!("wrong {i}"), "m".to_string(), b.clone())).collect();
    let (passed, out) = sdk_check(target, "wrong", &bodies);
    assert!(!passed, "wrong requests validate:\n{out}");
    for (i, (field, body)) in wrong.iter().enumerate() {
        let caught = out.lines().any(|l| l.starts_with(&format!("wrong {i}: ")) && l.contains(field));
        assert!(caught, "{target} body {i} was accepted (or its error does not name {field}): {body}\n{out}");
    }
    assert!(out.contains(&format!("checked {} bodies", wrong.len())), "{out}");
}

#[test]
fn the_bedrock_check_catches_wrong_requests() {
    let hi = json!([{"role": "user", "content": [{"text": "hi"}]}]);
    assert_caught(
        "bedrock",
        &[
            ("temperature", json!({"messages": hi, "temperature": 0.5})),
            ("cache_point", json!({"messages": [{"role": "user", "content": [{"text": "hi", "cache_point": {}}]}]})),
            ("role", json!({"messages": [{"content": [{"text": "hi"}]}]})),
            ("content", json!({"messages": [{"role": "user"}]})),
            ("maxTokens", json!({"messages": hi, "inferenceConfig": {"maxTokens": "300"}})),
            ("text", json!({"messages": [{"role": "user", "content": [{"text": ["hi"]}]}]})),
            ("role", json!({"messages": [{"role": "tool", "content": [{"text": "hi"}]}]})),
            (
                "bytes",
                json!({"messages": [{"role": "user", "content": [{"image": {"format": "png", "source": {"bytes": "not base64!"}}}]}]}),
            ),
            ("modelId", json!({"modelId": "m", "messages": hi})),
        ],
    );
}

#[test]
fn the_gemini_check_catches_wrong_requests() {
    let hi = json!([{"role": "user", "parts": [{"text": "hi"}]}]);
    assert_caught(
        "gemini",
        &[
            ("temperature", json!({"contents": hi, "temperature": 0.5})),
            ("txt", json!({"contents": [{"role": "user", "parts": [{"txt": "hi"}]}]})),
            ("text", json!({"contents": [{"role": "user", "parts": [{"text": 5}]}]})),
            ("maxOutputTokens", json!({"contents": hi, "generationConfig": {"maxOutputTokens": "many"}})),
            ("max_output_tokens", json!({"contents": hi, "generationConfig": {"max_output_tokens": 5}})),
            ("contents", json!({"systemInstruction": {"parts": [{"text": "hi"}]}})),
            ("role", json!({"contents": [{"role": "assistant", "parts": [{"text": "hi"}]}]})),
            (
                "data",
                json!({"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": "not base64!"}}]}]}),
            ),
            (
                "HARM_CATEGORY_NOPE",
                json!({"contents": hi, "safetySettings": [{"category": "HARM_CATEGORY_NOPE", "threshold": "BLOCK_NONE"}]}),
            ),
            (
                "functionDeclarations",
                json!({"contents": hi, "tools": [{"functionDeclarations": [{"name": "f", "parameter": {}}]}]}),
            ),
            (
                "parts.0",
                json!({"contents": [{"role": "user", "parts": [{"text": "a", "fileData": {"fileUri": "u"}}]}]}),
            ),
        ],
    );
}
