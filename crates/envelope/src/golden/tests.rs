use serde_json::json;

use super::report::xml;
use super::*;

fn kinds(f: &[Failure]) -> Vec<(&str, Kind)> {
    f.iter().map(|f| (f.path.as_str(), f.kind)).collect()
}

fn golden() -> Value {
    json!({
        "summary": "The document complies with GDPR Article 22 but lacks a data retention policy.",
        "findings": [{
            "id": "F-1",
            "severity": "high",
            "description": "No retention period is stated for personal data.",
            "remediation_steps": ["Review Section 3.2", "Update Appendix A", "Notify Legal Team"]
        }],
        "confidence_score": 0.87
    })
}

#[test]
fn identical_and_reordered_pass() {
    let g = golden();
    assert!(compare(&g, &g, &Rules::default()).is_empty());
    let re: Value = serde_json::from_str(
        r#"{"confidence_score": 0.870, "findings": [{"remediation_steps": ["Review Section 3.2", "Update Appendix A", "Notify Legal Team"], "description": "No retention period is stated for personal data.", "severity": "high", "id": "F-1"}], "summary": "The document complies with GDPR Article 22 but lacks a data retention policy."}"#,
    )
    .unwrap();
    assert!(compare(&g, &re, &Rules::default()).is_empty());
}

#[test]
fn numbers_by_value() {
    assert!(compare(&json!({"n": 1}), &json!({"n": 1.0}), &Rules::default()).is_empty());
    assert!(compare(&json!(u64::MAX), &json!(u64::MAX), &Rules::default()).is_empty());
    let f = compare(&json!({"n": 1}), &json!({"n": 1.5}), &Rules::default());
    assert_eq!(kinds(&f), [("/n", Kind::Value)]);
    assert_eq!(f[0].message, "expected 1, got 1.5");
    // i64::MAX and i64::MAX - 1 are the same f64 but different integers.
    let f = compare(&json!(i64::MAX), &json!(i64::MAX - 1), &Rules::default());
    assert_eq!(f.len(), 1);
}

#[test]
fn grown_array_is_a_length_failure_and_an_addition() {
    let g = golden();
    let mut a = g.clone();
    a["findings"][0]["remediation_steps"].as_array_mut().unwrap().push(json!("Archive old version"));
    let f = compare(&g, &a, &Rules::default());
    assert_eq!(
        kinds(&f),
        [("/findings/0/remediation_steps", Kind::Length), ("/findings/0/remediation_steps/3", Kind::Unexpected)]
    );
    assert_eq!(f[0].expected, Some(json!("[3 items]")));
    assert_eq!(f[0].actual, Some(json!("[4 items]")));
    assert_eq!(f[1].actual, Some(json!("Archive old version")));
    // An item inserted in the middle is one addition, not three changes.
    let f = compare(&json!(["a", "b", "c"]), &json!(["a", "x", "b", "c"]), &Rules::default());
    assert_eq!(kinds(&f), [("", Kind::Length), ("/1", Kind::Unexpected)]);
    // A removed item, and a changed one next to it.
    let f = compare(&json!(["a", "b", "c"]), &json!(["a", "B"]), &Rules::default());
    assert_eq!(kinds(&f), [("", Kind::Length), ("/1", Kind::Value), ("/2", Kind::Missing)]);
}

#[test]
fn missing_unexpected_and_type() {
    let g = golden();
    let mut a = g.clone();
    a.as_object_mut().unwrap().remove("confidence_score");
    a["extra"] = json!(null);
    a["findings"][0]["severity"] = json!(3);
    let f = compare(&g, &a, &Rules::default());
    let mut k = kinds(&f);
    k.sort();
    assert_eq!(
        k,
        [("/confidence_score", Kind::Missing), ("/extra", Kind::Unexpected), ("/findings/0/severity", Kind::Type)]
    );
    let f: Vec<&Failure> = f.iter().filter(|f| f.kind == Kind::Type).collect();
    assert!(f[0].message.contains("string") && f[0].message.contains("number"), "{}", f[0].message);
    // null is not a string.
    let f = compare(&json!({"s": "x"}), &json!({"s": null}), &Rules::default());
    assert_eq!(kinds(&f), [("/s", Kind::Type)]);
}

#[test]
fn enums_are_exact_by_default_even_under_a_fuzzy_subtree() {
    let g = golden();
    let mut a = g.clone();
    a["findings"][0]["severity"] = json!("High");
    let rules = Rules {
        fuzzy: vec![("/findings".into(), 0.1)],
        exact: vec!["/findings/*/severity".into()],
        ..Default::default()
    };
    let f = compare(&g, &a, &rules);
    assert_eq!(kinds(&f), [("/findings/0/severity", Kind::Value)]);
    // Without the exact rule, the fuzzy subtree would let it through.
    let rules = Rules { fuzzy: vec![("/findings".into(), 0.1)], ..Default::default() };
    assert!(compare(&g, &a, &rules).is_empty());
}

#[test]
fn paraphrased_summary_passes_fuzzy_unrelated_fails() {
    let g = golden();
    let rules = Rules { fuzzy: vec![("/summary".into(), 0.6)], ..Default::default() };
    let mut a = g.clone();
    a["summary"] = json!("The document meets GDPR Article 22, but it lacks a policy on data retention.");
    assert!(compare(&g, &a, &rules).is_empty(), "{:?}", compare(&g, &a, &rules));
    a["summary"] = json!("Quarterly revenue grew by twelve percent thanks to strong sales in Asia.");
    let f = compare(&g, &a, &rules);
    assert_eq!(kinds(&f), [("/summary", Kind::Fuzzy)]);
    assert!(f[0].message.contains("below the threshold 0.6"), "{}", f[0].message);
    // Without the rule the paraphrase is a value change.
    a["summary"] = json!("The document meets GDPR Article 22, but it lacks a policy on data retention.");
    assert_eq!(kinds(&compare(&g, &a, &Rules::default())), [("/summary", Kind::Value)]);
}

#[test]
fn similarity_figures() {
    let pairs_close = [
        (
            "The document complies with GDPR Article 22 but lacks a data retention policy.",
            "The document meets GDPR Article 22, but it lacks a policy on data retention.",
        ),
        ("No retention period is stated for personal data.", "The retention period for personal data is not stated."),
        (
            "Contract clause 4.1 allows unilateral termination without notice, which violates FINRA Rule 2231.",
            "Clause 4.1 of the contract permits termination without notice by one party, violating FINRA Rule 2231.",
        ),
    ];
    for (a, b) in pairs_close {
        let s = similarity(a, b);
        assert!(s >= 0.6, "{s:.3}: {a} / {b}");
    }
    let pairs_far = [
        (
            "The document complies with GDPR Article 22 but lacks a data retention policy.",
            "Quarterly revenue grew by twelve percent thanks to strong sales in Asia.",
        ),
        ("No retention period is stated for personal data.", "The weather in Singapore is hot and humid all year."),
        (
            "Contract clause 4.1 allows unilateral termination without notice, which violates FINRA Rule 2231.",
            "Please summarise the attached meeting notes in three bullet points.",
        ),
    ];
    for (a, b) in pairs_far {
        let s = similarity(a, b);
        assert!(s < 0.4, "{s:.3}: {a} / {b}");
    }
    assert_eq!(similarity("Hello, World!", "hello world"), 1.0);
    assert_eq!(similarity("", ""), 1.0);
    assert_eq!(similarity("", "x"), 0.0);
    // Text without spaces (Chinese) is measured on characters.
    assert!(similarity("文档符合第22条的要求", "文档符合第22条要求") > 0.6);
    assert!(similarity("文档符合第22条的要求", "今天天气很好") < 0.2);
    // Symmetric and bounded.
    let (a, b) = pairs_close[0];
    assert_eq!(similarity(a, b), similarity(b, a));
}

#[test]
fn ignore_removes_a_subtree_and_wildcards_match_keys() {
    let g = json!({"meta": {"at": "2024-01-01", "id": 1}, "items": [{"t": 1, "n": "a"}, {"t": 2, "n": "b"}]});
    let a =
        json!({"meta": {"at": "2025-02-02"}, "items": [{"t": 9, "n": "a"}, {"t": 8, "n": "b"}, {"t": 7, "n": "c"}]});
    let rules = Rules { ignore: vec!["/meta".into(), "/items/*/t".into()], ..Default::default() };
    let f = compare(&g, &a, &rules);
    assert_eq!(kinds(&f), [("/items", Kind::Length), ("/items/2", Kind::Unexpected)]);
    let rules = Rules { ignore: vec!["/*/at".into(), "/meta/id".into(), "/items".into()], ..Default::default() };
    assert!(compare(&g, &a, &rules).is_empty());
    assert!(compare(&g, &a, &Rules { ignore: vec!["".into()], ..Default::default() }).is_empty());
}

#[test]
fn odd_keys_are_escaped_in_pointers() {
    let f = compare(&json!({"a/b": {"~": 1}}), &json!({"a/b": {"~": 2}}), &Rules::default());
    assert_eq!(kinds(&f), [("/a~1b/~0", Kind::Value)]);
    let rules = Rules { ignore: vec!["/a~1b/~0".into()], ..Default::default() };
    assert!(compare(&json!({"a/b": {"~": 1}}), &json!({"a/b": {"~": 2}}), &rules).is_empty());
}

#[test]
fn rule_problems() {
    let r = Rules { exact: vec!["summary".into()], fuzzy: vec![("/s".into(), 1.5)], ignore: vec![] };
    let p = r.problems();
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p[0].contains("\"summary\""));
    assert!(p[1].contains("1.5"));
    assert!(Rules::default().problems().is_empty());
}

#[test]
fn long_arrays_are_compared_by_position() {
    let x: Vec<Value> = (0..600).map(|i| json!(i)).collect();
    let mut y = x.clone();
    y.push(json!("new"));
    let f = compare(&Value::Array(x), &Value::Array(y), &Rules::default());
    assert_eq!(kinds(&f), [("", Kind::Length), ("/600", Kind::Unexpected)]);
}

fn sample_report() -> SuiteReport {
    let g = golden();
    let mut a = g.clone();
    a["findings"][0]["remediation_steps"]
        .as_array_mut()
        .unwrap()
        .push(json!("Archive </failure> & \"old\" \u{1b}[31m version"));
    let mut fail = CaseReport::new("compliance-report", "US_legal_doc", compare(&g, &a, &Rules::default()));
    fail.prompt_version = Some("2.3.1".into());
    fail.model = Some("gpt-4o".into());
    fail.file = Some("golden/compliance,report/output_US:legal.json".into());
    fail.output = true;
    fail.valid = true;
    let mut ok = CaseReport::new("compliance-report", "EU_doc", vec![]);
    ok.prompt_version = Some("2.3.1".into());
    ok.model = Some("gpt-4o".into());
    ok.output = true;
    ok.valid = true;
    let mut bad = CaseReport::new(
        "compliance-report",
        "SG_doc",
        vec![Failure::new("", Kind::Parse, "prose around the JSON: \"Here's your report:\"\n50% done")],
    );
    bad.prompt_version = Some("2.3.1".into());
    bad.model = Some("gpt-4o-mini".into());
    bad.output = true;
    SuiteReport::new(vec![fail, ok, bad])
}

#[test]
fn summary_rates_per_version_and_model() {
    let r = sample_report();
    let s = &r.summary;
    assert_eq!((s.cases, s.passed, s.failed, s.outputs, s.valid), (3, 1, 2, 3, 2));
    assert_eq!(s.by.len(), 2);
    assert_eq!(s.by[0].validity_rate, Some(1.0));
    assert_eq!(s.by[1].model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(s.by[1].validity_rate, Some(0.0));
    assert!(!r.passed());
}

#[test]
fn json_shape() {
    let v = sample_report().to_json();
    let c = &v["cases"][0];
    assert_eq!(c["name"], "US_legal_doc");
    assert_eq!(c["status"], "fail");
    let f = &c["failures"][0];
    assert_eq!(f["path"], "/findings/0/remediation_steps");
    assert_eq!(f["kind"], "length");
    assert_eq!(f["expected"], "[3 items]");
    assert!(c["failures"][1]["expected"].is_null() && c["failures"][1].get("expected").is_some());
    assert_eq!(v["cases"][1]["status"], "pass");
    assert_eq!(v["summary"]["validity_rate"].as_f64().unwrap(), 2.0 / 3.0);
    // Round trip.
    let back: SuiteReport = serde_json::from_value(v).unwrap();
    assert_eq!(back, sample_report());
}

#[test]
fn text_is_the_documents_diff() {
    let t = sample_report().text();
    assert!(t.contains("FAIL compliance-report/US_legal_doc  (prompt version 2.3.1 · model gpt-4o)\n"), "{t}");
    assert!(t.contains("  /findings/0/remediation_steps (length): the array has 4 items, the golden output 3\n    - [3 items]\n    + [4 items]\n"), "{t}");
    assert!(t.contains("ok   compliance-report/EU_doc"), "{t}");
    assert!(!t.contains('\u{1b}'), "escape sequences reach the terminal: {t}");
    assert!(t.contains("output validity: 2/3 valid (66.7%)"), "{t}");
    assert!(t.contains("prompt version 2.3.1, model gpt-4o-mini: 0/1 (0.0%)"), "{t}");
}

#[test]
fn junit_escapes_hostile_strings() {
    let x = sample_report().junit();
    assert!(!x.contains("</failure> &"), "{x}");
    assert!(x.contains("&lt;/failure&gt; &amp; \\&quot;old\\&quot; \\u001b[31m"), "{x}");
    assert!(x.starts_with(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pep test\" tests=\"3\" failures=\"2\""
    ));
    assert_eq!(x.matches("<testcase ").count(), 3);
    assert_eq!(x.matches("<failure ").count(), 2);
    assert_eq!(xml("a\u{0}b\u{FFFF}"), "a\\u{0}b\\u{ffff}");
}

#[test]
fn github_commands_are_escaped() {
    let g = sample_report().github();
    let lines: Vec<&str> = g.lines().collect();
    // Two failures of the first case, one of the third, the notice.
    assert_eq!(lines.len(), 4, "{g}");
    assert!(lines[0].starts_with("::error file=golden/compliance%2Creport/output_US%3Alegal.json,title=pep test compliance-report/US_legal_doc%3A /findings/0/remediation_steps (length)::"), "{}", lines[0]);
    assert!(lines[0].contains("%0A- [3 items]%0A+ [4 items]"), "{}", lines[0]);
    assert!(lines[2].contains("50%25 done"), "{}", lines[2]);
    assert!(lines[3].starts_with("::notice title=pep test::3 cases: 1 passed, 2 failed"));
}

#[test]
fn a_null_where_a_string_was_is_a_type_failure_said_once() {
    let f = compare(&json!({"summary": "Keys are logged."}), &json!({"summary": null}), &Rules::default());
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].path.as_str(), f[0].kind), ("/summary", Kind::Type));
    assert_eq!(f[0].message, "expected string \"Keys are logged.\", got null");
}
