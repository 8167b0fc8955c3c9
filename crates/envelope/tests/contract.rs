//! `envelope::contract`: strict JSON Schema validation of model outputs, on
//! the source document's ComplianceReport (§2.2: a lenient validator let
//! `null` fields through; the strict one catches every type deviation).

use envelope::contract::{compile, Violation, MAX_DEPTH, MAX_MESSAGE, MAX_VIOLATIONS};
use serde_json::{json, Value};

/// The article's `ComplianceReport` interface as a strict JSON Schema.
fn compliance_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "findings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "severity": {"enum": ["critical", "high", "medium", "low"]},
                        "description": {"type": "string"},
                        "remediation_steps": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["id", "severity", "description", "remediation_steps"],
                    "additionalProperties": false
                }
            },
            "confidence_score": {"type": "number", "minimum": 0, "maximum": 1}
        },
        "required": ["summary", "findings", "confidence_score"],
        "additionalProperties": false
    })
}

fn good() -> Value {
    json!({
        "summary": "The policy omits the GDPR Article 22 safeguards.",
        "findings": [{
            "id": "F-001",
            "severity": "high",
            "description": "Automated decisions lack a human review path.",
            "remediation_steps": ["Review Section 3.2", "Update Appendix A", "Notify Legal Team"]
        }],
        "confidence_score": 0.87
    })
}

fn check(instance: &Value) -> Vec<Violation> {
    compile(&compliance_schema()).unwrap().check(instance)
}

fn one(instance: &Value) -> Violation {
    let v = check(instance);
    assert_eq!(v.len(), 1, "{v:#?}");
    v.into_iter().next().unwrap()
}

#[test]
fn a_valid_report_passes() {
    let schema = compile(&compliance_schema()).unwrap();
    assert_eq!(schema.check(&good()), vec![]);
    assert!(schema.is_valid(&good()));
    // An integer is a number; 0 and 1 are in range.
    let mut r = good();
    r["confidence_score"] = json!(1);
    assert_eq!(check(&r), vec![]);
    r["confidence_score"] = json!(0.0);
    assert_eq!(check(&r), vec![]);
}

#[test]
fn null_summary_fails_at_its_path() {
    let mut r = good();
    r["summary"] = Value::Null;
    let v = one(&r);
    assert_eq!((v.path.as_str(), v.keyword.as_str()), ("/summary", "type"));
    assert!(v.message.contains("null") && v.message.contains("string"), "{}", v.message);
    // Also deep inside an array.
    let mut r = good();
    r["findings"][0]["remediation_steps"][1] = Value::Null;
    let v = one(&r);
    assert_eq!((v.path.as_str(), v.keyword.as_str()), ("/findings/0/remediation_steps/1", "type"));
}

#[test]
fn a_missing_required_field_is_named() {
    let mut r = good();
    r.as_object_mut().unwrap().remove("confidence_score");
    let v = one(&r);
    assert_eq!((v.path.as_str(), v.keyword.as_str()), ("", "required"));
    assert!(v.message.contains("\"confidence_score\""), "{}", v.message);

    let mut r = good();
    r["findings"][0].as_object_mut().unwrap().remove("severity");
    let v = one(&r);
    assert_eq!((v.path.as_str(), v.keyword.as_str()), ("/findings/0", "required"));
    assert!(v.message.contains("\"severity\""), "{}", v.message);
}

#[test]
fn an_enum_value_outside() {
    let mut r = good();
    r["findings"][0]["severity"] = json!("urgent");
    let v = one(&r);
    assert_eq!((v.path.as_str(), v.keyword.as_str()), ("/findings/0/severity", "enum"));
    assert_eq!(v.message, "\"urgent\" is not one of \"critical\", \"high\", \"medium\", \"low\"");
    // Case matters.
    r["findings"][0]["severity"] = json!("High");
    assert_eq!(one(&r).keyword, "enum");
}

#[test]
fn a_number_out_of_range() {
    let mut r = good();
    r["confidence_score"] = json!(1.2);
    let v = one(&r);
    assert_eq!((v.path.as_str(), v.keyword.as_str()), ("/confidence_score", "maximum"));
    assert!(v.message.contains("1.2"), "{}", v.message);
    r["confidence_score"] = json!(-0.01);
    assert_eq!(one(&r).keyword, "minimum");
    // A number in a string is not a number.
    r["confidence_score"] = json!("0.9");
    assert_eq!(one(&r).keyword, "type");
}

#[test]
fn an_extra_property_is_refused() {
    let mut r = good();
    r["reviewer"] = json!("bot");
    let v = one(&r);
    assert_eq!((v.path.as_str(), v.keyword.as_str()), ("", "additionalProperties"));
    assert!(v.message.contains("'reviewer'") || v.message.contains("\"reviewer\""), "{}", v.message);
    let mut r = good();
    r["findings"][0]["owner"] = json!(null);
    let v = one(&r);
    assert_eq!((v.path.as_str(), v.keyword.as_str()), ("/findings/0", "additionalProperties"));
}

#[test]
fn every_violation_is_reported() {
    let r = json!({
        "summary": null,
        "findings": [{"id": 7, "severity": "urgent", "description": "d", "remediation_steps": "one"}],
        "confidence_score": 3,
        "extra": true
    });
    let mut got: Vec<(String, String)> = check(&r).into_iter().map(|v| (v.path, v.keyword)).collect();
    got.sort();
    let want: Vec<(String, String)> = [
        ("", "additionalProperties"),
        ("/confidence_score", "maximum"),
        ("/findings/0/id", "type"),
        ("/findings/0/remediation_steps", "type"),
        ("/findings/0/severity", "enum"),
        ("/summary", "type"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(got, want);
}

#[test]
fn paths_are_json_pointers_escaped() {
    let schema = compile(&json!({
        "type": "object",
        "additionalProperties": {"type": "integer"}
    }))
    .unwrap();
    let v = schema.check(&json!({"a/b": "x", "m~n": 1.5}));
    let mut paths: Vec<&str> = v.iter().map(|v| v.path.as_str()).collect();
    paths.sort();
    assert_eq!(paths, ["/a~1b", "/m~0n"]);
}

#[test]
fn draft_2020_12_by_default_and_schema_honoured() {
    // 2020-12: prefixItems is a keyword; items applies after them.
    let s = json!({"prefixItems": [{"type": "string"}], "items": false});
    let schema = compile(&s).unwrap();
    assert_eq!(schema.check(&json!(["a"])), vec![]);
    assert_eq!(schema.check(&json!([1]))[0].keyword, "type");
    assert_eq!(schema.check(&json!(["a", "b"]))[0].path, "/1");
    // Draft 7 named by $schema: items as an array is tuple validation.
    let d7 = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "items": [{"type": "string"}],
        "additionalItems": false
    });
    let schema = compile(&d7).unwrap();
    assert_eq!(schema.check(&json!(["a"])), vec![]);
    assert_eq!(schema.check(&json!(["a", 2]))[0].keyword, "additionalItems");
    // Draft 4: exclusiveMaximum is a boolean.
    let d4 = json!({
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "number", "maximum": 1, "exclusiveMaximum": true
    });
    let schema = compile(&d4).unwrap();
    assert!(!schema.check(&json!(1)).is_empty());
    assert_eq!(schema.check(&json!(0.5)), vec![]);
}

#[test]
fn internal_refs_resolve() {
    let s = json!({
        "$defs": {"finding": {"type": "object", "required": ["id"]}},
        "type": "array",
        "items": {"$ref": "#/$defs/finding"}
    });
    let schema = compile(&s).unwrap();
    assert_eq!(schema.check(&json!([{"id": "x"}])), vec![]);
    let v = schema.check(&json!([{"id": "x"}, {}]));
    assert_eq!((v[0].path.as_str(), v[0].keyword.as_str()), ("/1", "required"));
}

#[test]
fn external_refs_are_refused() {
    for r in [
        "https://example.com/schema.json",
        "http://127.0.0.1:9/x.json#/a",
        "file:///etc/passwd",
        "other.json",
        "../../secret.json#/x",
    ] {
        let s = json!({"type": "object", "properties": {"a": {"$ref": r}}});
        let e = compile(&s).unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("the schema does not compile"), "{r}: {m}");
        assert!(m.contains("points outside the schema"), "{r}: {m}");
    }
    // Also an unknown meta-schema (it would have to be fetched).
    let e = compile(&json!({"$schema": "https://example.com/my-meta", "type": "string"}));
    assert!(e.is_err());
}

#[test]
fn invalid_schemas_say_where() {
    let e = compile(&json!({"type": "object", "properties": {"a": {"type": "strng"}}})).unwrap_err();
    let m = e.to_string();
    assert_eq!(e.at, "/properties/a/type");
    assert!(m.contains("at /properties/a/type: \"strng\""), "{m}");
    let e = compile(&json!({"minimum": "zero"})).unwrap_err();
    assert!(e.to_string().contains("minimum") || e.at.contains("minimum"), "{e}");
    assert!(compile(&json!({"pattern": "(unclosed"})).is_err());
}

#[test]
fn hostile_schemas_do_not_hang() {
    // A $ref to itself, to the root and a cycle of two: compile and check end.
    for s in [
        json!({"$ref": "#"}),
        json!({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!({"properties": {"next": {"$ref": "#"}}, "type": "object"}),
        // The hostile schema of tests/validation.rs: every branch recurses.
        json!({"type": "object", "anyOf": [{"$ref": "#"}, {"$ref": "#"}]}),
        json!({"oneOf": [{"$ref": "#"}, {"not": {"$ref": "#"}}]}),
        json!({"allOf": [{"$ref": "#"}], "items": {"$ref": "#"}}),
    ] {
        let started = std::time::Instant::now();
        if let Ok(schema) = compile(&s) {
            let deep = (0..100).fold(json!({}), |acc, _| json!({"next": acc}));
            let _ = schema.check(&deep);
            let _ = schema.check(&json!(1));
            let _ = schema.check(&json!({"i": 0}));
            let _ = schema.check(&json!([[[[1]]]]));
        }
        assert!(started.elapsed().as_secs() < 10, "{s}");
    }
    // A pattern built to backtrack does not run away.
    let schema = compile(&json!({"type": "string", "pattern": "^(a+)+$"})).unwrap();
    let started = std::time::Instant::now();
    let _ = schema.check(&json!(format!("{}!", "a".repeat(5000))));
    assert!(started.elapsed().as_secs() < 10);
    // A huge enum and a deep schema compile or fail, no crash.
    let e: Vec<Value> = (0..100_000).map(|i| json!(i)).collect();
    assert!(compile(&json!({"enum": e})).is_ok());
    let deep = (0..100).fold(json!({"type": "string"}), |acc, _| json!({"items": acc}));
    let _ = compile(&deep);
}

#[test]
fn messages_never_echo_huge_values() {
    let huge = "x".repeat(1_000_000);
    let mut r = good();
    r["confidence_score"] = json!(huge);
    r["summary"] = json!({"k": huge, "l": [huge, huge]});
    let v = check(&r);
    assert_eq!(v.len(), 2, "{v:#?}");
    for v in &v {
        assert!(v.message.chars().count() <= MAX_MESSAGE + 1, "{}", v.message);
    }
    let score = v.iter().find(|v| v.path == "/confidence_score").unwrap();
    assert!(score.message.contains("\"xxxx") && score.message.contains('…'), "{}", score.message);
    assert!(score.message.contains("number"), "{}", score.message);
    let summary = v.iter().find(|v| v.path == "/summary").unwrap();
    assert!(summary.message.contains("string"), "{}", summary.message);
    // Many violations: at most MAX_VIOLATIONS, each message bounded.
    r["findings"] = json!((0..10_000).map(|i| json!({"id": i})).collect::<Vec<_>>());
    let v = check(&r);
    assert_eq!(v.len(), MAX_VIOLATIONS);
    assert!(v.iter().all(|v| v.message.chars().count() <= MAX_MESSAGE + 1));
    // A huge enum in the schema is cut too.
    let e: Vec<Value> = (0..10_000).map(|i| json!(format!("value-{i}"))).collect();
    let v = compile(&json!({"enum": e})).unwrap().check(&json!("nope"));
    assert!(v[0].message.chars().count() <= MAX_MESSAGE + 1);
}

#[test]
fn recursive_schemas_work() {
    // A linked list: a legitimate recursive schema compiles and checks deep.
    let schema = compile(&json!({
        "type": "object",
        "properties": {"value": {"type": "string"}, "next": {"$ref": "#"}},
        "additionalProperties": false
    }))
    .unwrap();
    let mut list = json!({"value": "end"});
    for _ in 0..50 {
        list = json!({"value": "x", "next": list});
    }
    assert_eq!(schema.check(&list), vec![]);
    let mut bad = json!({"value": null});
    for _ in 0..3 {
        bad = json!({"value": "x", "next": bad});
    }
    let v = schema.check(&bad);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].path, "/next/next/next/value");
}

#[test]
fn values_built_deeper_than_a_parser_allows_are_refused() {
    // serde_json's parser stops at 128 levels; a value built in code has no limit.
    // Built without json!(acc), which serialises its argument (recursively).
    let deep = (0..2_000).fold(json!(1), |acc, _| Value::Array(vec![acc]));
    let schema = compile(&json!({"items": {"$ref": "#"}})).unwrap();
    let v = schema.check(&deep);
    assert_eq!((v.len(), v[0].keyword.as_str()), (1, "depth"));
    let deep_schema =
        (0..2_000).fold(json!({}), |acc, _| Value::Object([("items".to_owned(), acc)].into_iter().collect()));
    let e = compile(&deep_schema).unwrap_err();
    assert!(e.to_string().contains(&MAX_DEPTH.to_string()), "{e}");
    // What a parser can give (128 levels) and more is checked.
    for n in [50, 128, 200, MAX_DEPTH] {
        let ok = (0..n).fold(json!(1), |acc, _| Value::Array(vec![acc]));
        assert_eq!(schema.check(&ok), vec![], "{n}");
    }
    // Dropping such values recurses (serde_json's own matter): leak them.
    std::mem::forget(deep);
    std::mem::forget(deep_schema);
}
