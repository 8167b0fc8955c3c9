//! Import and export between providers: the round trips.
//!
//! - For every valid envelope `e` and each format F of OpenAI Chat, OpenAI
//!   Responses, Anthropic Messages, Gemini and Bedrock Converse:
//!   `export_F(import(export_F(e))) == export_F(e)`, byte for byte (the
//!   demos, and generated envelopes).

use envelope::export::{render, Target};
use envelope::import::{import, import_as, Format};
use envelope::{parse, Envelope};
use proptest::prelude::*;

mod common;
use common::*;

const FORMATS: [(Target, Format); 5] = [
    (Target::OpenaiChat, Format::OpenaiChat),
    (Target::OpenaiResponses, Format::OpenaiResponses),
    (Target::Anthropic, Format::Anthropic),
    (Target::Gemini, Format::Gemini),
    (Target::Bedrock, Format::Bedrock),
];

/// `export(import(export(e))) == export(e)` for each format; returns the first exports.
fn round_trip(e: &Envelope, what: &str) -> Result<Vec<String>, TestCaseError> {
    let mut out = Vec::new();
    for (target, format) in FORMATS {
        let first = render(e, target).text;
        let imported = import_as(&first, Some(format)).map_err(|errs| {
            TestCaseError::fail(format!("{what}: {format:?} export does not import: {errs:#?}\n{first}"))
        })?;
        let second = render(&imported.envelope, target).text;
        prop_assert!(
            first == second,
            "{what}: {format:?} round trip differs\n--- first\n{first}\n--- second\n{second}"
        );
        out.push(first);
    }
    Ok(out)
}

#[test]
fn demos_round_trip_in_every_format_and_are_detected() {
    for d in DEMOS {
        let e = demo(d).envelope;
        let exports = round_trip(&e, d).unwrap();
        for ((_, format), text) in FORMATS.iter().zip(&exports) {
            assert_eq!(import(text).unwrap().format, *format, "demo {d}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn generated_envelopes_round_trip(doc in arb_envelope()) {
        let loaded = parse(&doc.to_string());
        let loaded = match loaded {
            Ok(l) => l,
            Err(errs) => return Err(TestCaseError::fail(format!("generator made an invalid envelope: {errs:#?}\n{doc:#}"))),
        };
        round_trip(&loaded.envelope, "generated")?;
    }
}

#[test]
fn the_generator_covers_every_kind_and_imports_recover_them() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeSet;
    let mut runner = TestRunner::deterministic();
    let (mut made, mut back) = (BTreeSet::new(), BTreeSet::new());
    for _ in 0..300 {
        let doc = arb_envelope().new_tree(&mut runner).unwrap().current();
        let e = parse(&doc.to_string()).unwrap().envelope;
        made.extend(e.messages.iter().flat_map(|m| m.segments.iter().map(|s| s.kind())));
        let again = import(&render(&e, Target::OpenaiChat).text).unwrap().envelope;
        back.extend(again.messages.iter().flat_map(|m| m.segments.iter().map(|s| s.kind())));
    }
    // The protocol's eleven kinds (the fidelity extension's two come from
    // requests: tests/round_trip.rs).
    let protocol = &envelope::KINDS[..11];
    assert_eq!(made, protocol.iter().copied().collect::<BTreeSet<_>>());
    // Everything but variables comes back as its own kind.
    let expected: BTreeSet<&str> = protocol.iter().copied().filter(|k| *k != "static_var").collect();
    assert_eq!(back, expected);
}

/// Runs a cURL export through `sh` with `curl` replaced by a function that
/// writes its `--data-raw` argument to a file and its other arguments to
/// another; returns (body, arguments).
fn run_curl(command: &str, tag: &str) -> (Vec<u8>, String) {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("curl");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(format!("{tag}.body"));
    let args = dir.join(format!("{tag}.args"));
    let _ = std::fs::remove_file(&out);
    let stub = r#"curl() {
  : > "$ARGS_FILE"
  while [ $# -gt 0 ]; do
    if [ "$1" = --data-raw ]; then printf '%s' "$2" > "$BODY_FILE"; shift; else printf '%s\n' "$1" >> "$ARGS_FILE"; fi
    shift
  done
}
"#;
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{stub}{command}"))
        .env("BODY_FILE", &out)
        .env("ARGS_FILE", &args)
        .env("OPENAI_API_KEY", "sk-test-from-env")
        .env("ANTHROPIC_API_KEY", "ak-test-from-env")
        .env("GEMINI_API_KEY", "gk-test-from-env")
        .status()
        .expect("sh runs");
    assert!(status.success(), "{tag}: sh failed on\n{command}");
    (std::fs::read(&out).unwrap_or_default(), std::fs::read_to_string(&args).unwrap_or_default())
}

#[test]
fn curl_commands_post_the_exact_body_and_read_the_key_from_the_environment() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let hostile = serde_json::json!({"version": "1.0", "messages": [{"id": "u", "role": "user", "timestamp": 0, "segments": [
        {"kind": "text", "content": "it's $(touch /tmp/pwned) `id` \\ '\\'' \" ! %s $HOME ${X:-y} \u{0} \u{7f} é 💡 \n\n'"}
    ]}]});
    let mut cases: Vec<(String, Envelope)> = vec![("hostile".into(), parse(&hostile.to_string()).unwrap().envelope)];
    cases.extend(DEMOS.iter().map(|d| (format!("demo-{d}"), demo(d).envelope)));
    let mut runner = TestRunner::deterministic();
    for i in 0..40 {
        let doc = arb_envelope().new_tree(&mut runner).unwrap().current();
        cases.push((format!("gen-{i}"), parse(&doc.to_string()).unwrap().envelope));
    }
    for (tag, e) in &cases {
        for (curl, json, key, header) in [
            (Target::CurlOpenai, Target::OpenaiChat, "OPENAI_API_KEY", "Authorization: Bearer sk-test-from-env"),
            (Target::CurlAnthropic, Target::Anthropic, "ANTHROPIC_API_KEY", "x-api-key: ak-test-from-env"),
            (Target::CurlGemini, Target::Gemini, "GEMINI_API_KEY", "x-goog-api-key: gk-test-from-env"),
        ] {
            let command = render(e, curl).text;
            assert!(command.contains(&format!("${key}")) && !command.contains("test-from-env"), "{tag}: {command}");
            let (body, args) = run_curl(&command, &format!("{tag}-{}", curl.code()));
            let want = render(e, json).text;
            assert!(
                body == want.trim_end_matches('\n').as_bytes(),
                "{tag} {curl:?}: the body sent differs from the export"
            );
            assert!(args.lines().any(|l| l == header), "{tag}: {args}");
            assert!(args.lines().any(|l| l == "Content-Type: application/json"), "{tag}: {args}");
        }
    }
    assert!(!std::path::Path::new("/tmp/pwned").exists());
}

#[test]
fn curl_gemini_puts_the_model_in_the_url_and_never_runs_it() {
    let doc = |model: &str| {
        let v = serde_json::json!({"version": "1.0", "model": model, "messages": [{"id": "u", "role": "user", "timestamp": 0,
            "segments": [{"kind": "text", "content": "hi"}]}]});
        parse(&v.to_string()).unwrap().envelope
    };
    let base = "https://generativelanguage.googleapis.com/v1beta/models";
    for (model, url, notices) in [
        ("gemini-2.5-flash", format!("{base}/gemini-2.5-flash:generateContent"), 0),
        ("models/gemini-2.0-flash", format!("{base}/gemini-2.0-flash:generateContent"), 0),
        (
            "gemini-x'$(touch pwned)`id` ;x",
            format!("{base}/gemini-x%27%24%28touch%20pwned%29%60id%60%20%3Bx:generateContent"),
            0,
        ),
        // A slash that is not `models/…` or `tunedModels/…`: no Gemini model.
        ("gemini'$(touch /tmp/pwned-gemini)", format!("{base}/MODEL_NAME:generateContent"), 1),
        ("gpt-4o", format!("{base}/MODEL_NAME:generateContent"), 1),
    ] {
        let e = doc(model);
        let out = render(&e, Target::CurlGemini);
        let (body, args) = run_curl(&out.text, "gemini-url");
        assert_eq!(args.lines().next(), Some(url.as_str()), "{model}: {args}");
        assert_eq!(body, render(&e, Target::Gemini).text.trim_end_matches('\n').as_bytes(), "{model}");
        assert_eq!(out.notices.iter().filter(|n| n.path == "model").count(), notices, "{model}: {:?}", out.notices);
    }
    assert!(!std::path::Path::new("/tmp/pwned-gemini").exists());
}
