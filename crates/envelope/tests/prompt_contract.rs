//! Issue 23, helper C: a document's output schema (`output_schema::find`) on
//! the real request bodies that carry one; the prompt-identity extension
//! (`prompt: {name, version}`: read, checked, kept, never sent); the lint
//! rules `contract-field` and `prompt-version`; `pep diff`'s
//! `version-not-bumped`.
#![cfg(all(feature = "providers", feature = "lint", feature = "diff"))]

use std::path::{Path, PathBuf};

use envelope::diff::{compare, render_text, version};
use envelope::export::{render, Target};
use envelope::import::import_with;
use envelope::lint::{self, Config, Settings};
use envelope::output_schema::{find, required_fields};
use envelope::{parse, Envelope, Rule};
use serde_json::{json, Value};

fn real(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/requests/real").join(path)
}

fn import(path: &str) -> Envelope {
    let text = std::fs::read_to_string(real(path)).unwrap();
    import_with(serde_json::from_str(&text).unwrap(), None, Some("m"))
        .unwrap_or_else(|e| panic!("{path}: {e:#?}"))
        .envelope
}

fn env(v: &Value) -> Envelope {
    parse(&v.to_string()).unwrap_or_else(|e| panic!("{e:#?}")).envelope
}

fn settings(v: Value) -> Settings {
    serde_json::from_value::<Config>(v).unwrap().settings(None).unwrap()
}

fn lint_env(e: &Envelope, s: &Settings) -> lint::FileReport {
    let text = serde_json::to_string_pretty(e).unwrap();
    lint::lint("doc.json", text.as_bytes(), s)
}

fn codes(r: &lint::FileReport, rule: Rule) -> Vec<(String, String)> {
    r.findings
        .iter()
        .filter(|f| f.diagnostic.rule == rule)
        .map(|f| (f.diagnostic.path.clone(), f.diagnostic.message.clone()))
        .collect()
}

// ---- output_schema::find on real request bodies ----

#[test]
fn real_requests_with_an_output_schema() {
    let names = |e: &Envelope| -> Vec<String> {
        required_fields(&find(e).unwrap().schema).into_iter().map(|f| f.name).collect()
    };
    let e = import("openai/response-format-json-schema-strict.json");
    let f = find(&e).unwrap();
    assert_eq!(
        (f.name.as_deref(), f.strict, f.at.as_str(), f.openapi()),
        (Some("food_recipe"), Some(true), "params.response_format.json_schema.schema", false)
    );
    assert_eq!(names(&e), ["name", "ingredients", "steps"]);

    let e = import("openai/json-schema-reasoning-effort.json");
    assert_eq!((find(&e).unwrap().name.as_deref(), names(&e)), (Some("person"), vec!["name".into(), "age".into()]));

    let e = import("responses/text-format-json-schema.json");
    let f = find(&e).unwrap();
    assert_eq!((f.name.as_deref(), f.at.as_str()), (Some("data_list"), "params.text.format.schema"));
    assert_eq!(names(&e), ["animal_data_list"]);

    for p in ["anthropic/sdk-test-all-params.json", "anthropic/sdk-test-beta-all-params.json"] {
        let f = find(&import(p)).unwrap();
        assert_eq!((f.schema, f.at.as_str()), (json!({"foo": "bar"}), "params.output_config.format.schema"), "{p}");
    }

    let e = import("gemini/sdk-python-response-json-schema.json");
    let f = find(&e).unwrap();
    assert_eq!((f.at.as_str(), f.openapi()), ("params.generationConfig.responseJsonSchema", false));
    assert_eq!(names(&e), ["city", "date"]);

    // Google's OpenAPI subset, returned as written.
    let e = import("gemini/sdk-python-response-schema.json");
    let f = find(&e).unwrap();
    assert!(f.openapi());
    assert_eq!(f.schema["type"], "ARRAY");
    assert_eq!(names(&e), ["recipe_name", "ingredients"]);
    let f = find(&import("gemini/sdk-js-response-schema.json")).unwrap();
    assert_eq!(
        (f.at.as_str(), f.schema["items"]["type"].as_str()),
        ("params.generationConfig.responseSchema", Some("OBJECT"))
    );

    // Bedrock's schema is a JSON string, parsed.
    let e = import("bedrock/sdk-boto3-output-config.json");
    let f = find(&e).unwrap();
    assert_eq!(
        (f.name.as_deref(), f.at.as_str(), f.schema["properties"]["age"]["type"].as_str()),
        (Some("person"), "params.outputConfig.textFormat.structure.jsonSchema.schema", Some("integer"))
    );
    assert_eq!(names(&e), ["name", "age"]);
}

#[test]
fn real_requests_without_an_output_schema() {
    for p in [
        "openai/response-format-json-object.json",
        "openai/sdk-test-all-params.json",
        "responses/sdk-test-all-params.json",
        "anthropic/strict-tools.json",
        "gemini/sdk-python-parameters-json-schema.json",
        "bedrock/sdk-boto3-image-bytes.json",
    ] {
        assert_eq!(find(&import(p)), None, "{p}");
    }
}

// ---- the prompt-identity extension ----

fn doc_with(prompt: Value) -> Value {
    json!({"version": "1.0", "prompt": prompt, "messages": [
        {"id": "s", "role": "system", "timestamp": 1, "segments": [{"kind": "text", "content": "Be brief."}]}
    ]})
}

#[test]
fn the_prompt_identity_is_read_checked_and_written_back() {
    let text = doc_with(json!({"name": "compliance-report", "version": "2.3.1"})).to_string();
    let e = parse(&text).unwrap().envelope;
    assert_eq!((e.prompt_name(), e.prompt_version()), (Some("compliance-report"), Some("2.3.1")));
    let back = serde_json::to_value(&e).unwrap();
    assert_eq!(back["prompt"], json!({"name": "compliance-report", "version": "2.3.1"}));
    // Either may be left out; null is absent.
    assert_eq!(env(&doc_with(json!({"version": "v1"}))).prompt_name(), None);
    assert_eq!(env(&doc_with(Value::Null)).prompt, None);
    assert!(serde_json::to_value(env(&doc_with(Value::Null))).unwrap().get("prompt").is_none());

    for (prompt, path, says) in [
        (json!("2.3.1"), "prompt", "expected an object, found a string"),
        (json!({"version": 2}), "prompt.version", "expected a string, found a number"),
        (json!({"version": ""}), "prompt.version", "the prompt's version is empty"),
        (json!({"name": ""}), "prompt.name", "the prompt's name is empty"),
        (json!({"version": "1", "tag": "x"}), "prompt.tag", "unknown field `tag`"),
        (json!({"Version": "1"}), "prompt.Version", "did you mean `version`?"),
    ] {
        let errors = parse(&doc_with(prompt.clone()).to_string()).unwrap_err();
        assert!(
            errors.iter().any(|d| d.path == path && d.message.contains(says)),
            "{prompt}: {:?}",
            errors.iter().map(|d| format!("{}: {}", d.path, d.message)).collect::<Vec<_>>()
        );
    }
}

#[test]
fn no_export_sends_the_prompt_identity() {
    let mut plain = doc_with(json!({"name": "zzprompt-name", "version": "zz9.9.9"}));
    plain["params"] = json!({"temperature": 0.2});
    let imported = {
        let mut e = import("responses/text-format-json-schema.json");
        e.prompt = env(&plain).prompt;
        e
    };
    for e in [env(&plain), imported] {
        for t in Target::ALL {
            let out = render(&e, t).text;
            assert!(
                !out.contains("zz9.9.9") && !out.contains("zzprompt-name"),
                "{t:?} sent the prompt identity: {out}"
            );
        }
        // Without it, every export is byte for byte what it was.
        let mut bare = e.clone();
        bare.prompt = None;
        for t in Target::ALL {
            assert_eq!(render(&e, t), render(&bare, t), "{t:?}");
        }
    }
}

// ---- contract-field ----

#[test]
fn contract_field_on_real_requests() {
    let s = Settings::default();
    // "Jane, 54 years old" names neither `name` nor `age`.
    let r = lint_env(&import("openai/json-schema-reasoning-effort.json"), &s);
    let got = codes(&r, Rule::ContractField);
    assert_eq!(
        got.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(),
        [
            "params.response_format.json_schema.schema.properties.name",
            "params.response_format.json_schema.schema.properties.age"
        ]
    );
    assert!(
        got[1].1.contains("`age` (at /properties/age in params.response_format.json_schema.schema)"),
        "{}",
        got[1].1
    );
    // Each finding points at its line in the document.
    assert!(r.findings.iter().filter(|f| f.diagnostic.rule == Rule::ContractField).all(|f| f.location.line.is_some()));
    // "Extract the city and the date" names both.
    assert!(
        codes(&lint_env(&import("gemini/sdk-python-response-json-schema.json"), &s), Rule::ContractField).is_empty()
    );
    // Bedrock: the schema is a string; the finding is at it.
    let got = codes(&lint_env(&import("bedrock/sdk-boto3-output-config.json"), &s), Rule::ContractField);
    assert!(got.iter().all(|(p, _)| p == "params.outputConfig.textFormat.structure.jsonSchema.schema"), "{got:?}");
    // Off when configured so.
    let off = settings(json!({"rules": {"contract-field": "off"}}));
    assert!(codes(&lint_env(&import("openai/json-schema-reasoning-effort.json"), &off), Rule::ContractField).is_empty());
}

fn compliance(system: &str) -> Value {
    json!({"version": "1.0", "params": {"response_format": {"type": "json_schema", "json_schema": {"name": "ComplianceReport", "strict": true, "schema": {
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "findings": {"type": "array", "items": {"$ref": "#/$defs/finding"}},
            "confidence_score": {"type": "number"}
        },
        "required": ["summary", "findings", "confidence_score"],
        "additionalProperties": false,
        "$defs": {"finding": {"type": "object", "properties": {
            "id": {"type": "string"}, "severity": {"enum": ["critical", "high", "medium", "low"]},
            "description": {"type": "string"}, "remediation_steps": {"type": "array", "items": {"type": "string"}}
        }, "required": ["id", "severity", "description", "remediation_steps"], "additionalProperties": false}}
    }}}},
    "messages": [
        {"id": "s", "role": "system", "timestamp": 1, "segments": [{"kind": "text", "content": system}]},
        {"id": "u", "role": "user", "timestamp": 2, "segments": [
            {"kind": "static_var", "name": "extra", "value": "and a remediation_steps list"},
            {"kind": "text", "content": "Audit document {{doc}} {{extra}}."},
            {"kind": "static_var", "name": "doc", "value": "D-17"}
        ]},
        {"id": "a", "role": "assistant", "timestamp": 3, "segments": [{"kind": "text", "content": "{\"confidence_score\": 0.9}"}]}
    ]})
}

#[test]
fn contract_field_on_the_compliance_report() {
    let s = Settings::default();
    // Every field but `confidence_score` is asked for (remediation_steps in a
    // variable's value); the assistant's example does not count.
    let prompt = "You are a compliance auditor. Return JSON: summary: one paragraph; findings: each with an id, \
                  a severity and a description.";
    let r = lint_env(&env(&compliance(prompt)), &s);
    let got = codes(&r, Rule::ContractField);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "params.response_format.json_schema.schema.properties.confidence_score");
    assert_eq!(
        r.findings.iter().find(|f| f.diagnostic.rule == Rule::ContractField).unwrap().diagnostic.severity,
        envelope::Severity::Error
    );
    // Named as words, it passes.
    let r = lint_env(&env(&compliance(&format!("{prompt} Add a Confidence Score."))), &s);
    assert!(codes(&r, Rule::ContractField).is_empty());
    // A nested field not asked for is reported at its place in $defs.
    let r = lint_env(&env(&compliance("summary, findings (id, description), confidence_score")), &s);
    assert_eq!(
        codes(&r, Rule::ContractField).into_iter().map(|(p, _)| p).collect::<Vec<_>>(),
        ["params.response_format.json_schema.schema.$defs.finding.properties.severity"]
    );
}

// ---- prompt-version ----

#[test]
fn prompt_version_only_when_asked() {
    let bare = env(&doc_with(Value::Null));
    assert!(codes(&lint_env(&bare, &Settings::default()), Rule::PromptVersion).is_empty());
    let ask = settings(json!({"require_prompt_version": true}));
    assert_eq!(
        codes(&lint_env(&bare, &ask), Rule::PromptVersion),
        [("".to_string(), "the document has no prompt version (require_prompt_version = true)".to_string())]
    );
    let named = env(&doc_with(json!({"name": "triage"})));
    assert_eq!(codes(&lint_env(&named, &ask), Rule::PromptVersion)[0].0, "prompt");
    assert!(codes(&lint_env(&named, &ask), Rule::PromptVersion)[0].1.contains("prompt `triage` has no version"));
    let versioned = env(&doc_with(json!({"version": "1.0.0"})));
    assert!(codes(&lint_env(&versioned, &ask), Rule::PromptVersion).is_empty());
    // Any rule level applies.
    let info = settings(json!({"require_prompt_version": true, "rules": {"prompt-version": "info"}}));
    let r = lint_env(&bare, &info);
    assert_eq!(
        r.findings.iter().find(|f| f.diagnostic.rule == Rule::PromptVersion).unwrap().diagnostic.severity,
        envelope::Severity::Info
    );
    assert!(!r.has_errors());
}

// ---- version-not-bumped ----

fn versioned(version: Option<&str>, system: &str) -> Envelope {
    let mut d = json!({"version": "1.0", "model": "gpt-4o", "messages": [
        {"id": "s", "role": "system", "timestamp": 1, "segments": [{"kind": "text", "content": system}]},
        {"id": "u", "role": "user", "timestamp": 2, "segments": [{"kind": "text", "content": "Audit D-17."}]}
    ]});
    if let Some(v) = version {
        d["prompt"] = json!({"name": "audit", "version": v});
    }
    env(&d)
}

#[test]
fn version_not_bumped() {
    let a = versioned(Some("2.3.1"), "You are an auditor.");
    let b = versioned(Some("2.3.1"), "You are a strict auditor.");
    let c = compare(&a, &b);
    assert_eq!(c.findings.len(), 1);
    let d = &c.findings[0];
    assert_eq!((d.rule, d.path.as_str()), (Rule::VersionNotBumped, "prompt.version"));
    assert!(d.message.contains("still `2.3.1`"), "{}", d.message);
    let text = render_text(&c, "a.json", "b.json");
    assert!(
        text.contains("error[version-not-bumped]: the prompt sent changed but its version did not (still `2.3.1`)"),
        "{text}"
    );
    let j = serde_json::to_value(&c).unwrap();
    assert_eq!(j["findings"][0]["code"], "version-not-bumped");
    assert_eq!(j["findings"][0]["severity"], "error");

    // Bumped: nothing.
    assert!(compare(&a, &versioned(Some("2.3.2"), "You are a strict auditor.")).findings.is_empty());
    // Dropped: reported.
    let c = compare(&a, &versioned(None, "You are a strict auditor."));
    assert!(c.findings[0].message.contains("has no prompt version (was `2.3.1`)"));
    // Neither has one: nothing, unless asked.
    let (x, y) = (versioned(None, "one"), versioned(None, "two"));
    assert!(compare(&x, &y).findings.is_empty());
    assert!(version::check(&x, &y, true).is_some());
    // A version given for the first time: nothing.
    assert!(version::check(&x, &versioned(Some("1"), "two"), true).is_none());
}

#[test]
fn only_the_prompt_sent_counts() {
    let a = versioned(Some("1"), "You are an auditor.\n\nBe brief.");
    // Same text, other model, timestamps, ids, collapse state, settings: not the prompt.
    let mut b = a.clone();
    b.model = Some("gpt-4.1".into());
    b.messages[0].id = "sys".into();
    b.messages[1].timestamp = serde_json::Number::from(99);
    b.params = Some(json!({"temperature": 0.1}).as_object().unwrap().clone());
    assert!(!version::prompt_changed(&a, &b));
    assert!(compare(&a, &b).findings.is_empty());
    // One text cut into two segments sends the same text.
    let mut cut = a.clone();
    cut.messages[0].segments = vec![
        env(&json!({"version": "1.0", "messages": [{"id": "x", "role": "system", "timestamp": 1, "segments": [
            {"kind": "text", "content": "You are an auditor."}, {"kind": "text", "content": "Be brief."}
        ]}]}))
        .messages[0]
            .segments[0]
            .clone(),
        env(&json!({"version": "1.0", "messages": [{"id": "x", "role": "system", "timestamp": 1, "segments": [
            {"kind": "text", "content": "Be brief."}
        ]}]}))
        .messages[0]
            .segments[0]
            .clone(),
    ];
    assert!(!version::prompt_changed(&a, &cut));
    // The output schema is part of the contract: changing it changes the prompt.
    let mut s = a.clone();
    s.params = Some(
        json!({"response_format": {"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": "object"}}}})
            .as_object()
            .unwrap()
            .clone(),
    );
    assert!(version::prompt_changed(&a, &s));
    assert!(compare(&a, &s).findings.len() == 1);
    // A changed variable value changes what is sent.
    let var = |v: &str| {
        env(
            &json!({"version": "1.0", "prompt": {"version": "1"}, "messages": [{"id": "u", "role": "user", "timestamp": 1, "segments": [
                {"kind": "static_var", "name": "x", "value": v}, {"kind": "text", "content": "Say {{x}}"}
            ]}]}),
        )
    };
    assert!(version::prompt_changed(&var("a"), &var("b")));
    assert!(!version::prompt_changed(&var("a"), &var("a")));
}
