//! Each message written as the worker (or the page) writes it reads back
//! as the same value, and its JSON is the shape the other side has always
//! read (field names pinned here: a rename fails).

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::*;
use crate::diag::{Diagnostic, Notice, Rule, Severity};
use crate::export::Target;
use crate::types::RequestFormat;

/// `json` reads as a value that writes back as `json`.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(json: Value) -> T {
    let t: T = serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{e}\n{json:#}"));
    assert_eq!(serde_json::to_value(&t).unwrap(), json);
    let again: T = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
    assert_eq!(again, t);
    t
}

fn diag_json() -> Value {
    json!({"severity": "error", "code": "sensitive-word", "path": "messages[1].segments[0].content",
           "message": "sensitive word", "hint": "remove it"})
}

fn diag() -> Diagnostic {
    Diagnostic::new(Rule::SensitiveWord, "messages[1].segments[0].content", "sensitive word")
        .with_hint("remove it")
        .with_severity(Severity::Error)
}

#[test]
fn import_messages() {
    round_trip::<import::Request>(json!({"text": "{}"}));
    let r: import::Reply = round_trip(json!({"imported": {
        "format": "anthropic", "envelope": "{}",
        "notices": [{"path": "system[1].cache_control", "message": "a cache breakpoint stood here"}]}}));
    let import::Reply::Imported { format, notices, .. } = r else { panic!() };
    assert_eq!((format, format.label()), (RequestFormat::Anthropic, "Anthropic Messages"));
    assert_eq!(notices, [Notice::new("system[1].cache_control", "a cache breakpoint stood here")]);
    let r: import::Reply = round_trip(json!({"failed": {"errors": [diag_json()]}}));
    assert_eq!(r, import::Reply::Failed { errors: vec![diag()] });
}

#[test]
fn export_messages_name_targets_by_code() {
    for t in Target::ALL {
        let r: export::Request = round_trip(json!({"envelope": "{}", "target": t.code()}));
        assert_eq!(r.target, t);
    }
    assert!(serde_json::from_value::<export::Request>(json!({"envelope": "{}", "target": "palm"})).is_err());
    round_trip::<export::Reply>(json!({"exported": {"text": "{}", "notices": []}}));
    round_trip::<export::Reply>(json!({"failed": {"errors": [diag_json()]}}));
}

#[test]
fn lint_messages() {
    let r: lint::Request = round_trip(json!({"envelope": "{}", "settings": {
        "max_tokens": 900, "sensitive_words": ["acme"], "required_variables": [], "rules": {"unused-tool": "off"}}}));
    assert_eq!((r.settings.max_tokens, r.settings.segment_share), (Some(900), None));
    let r: lint::Reply = round_trip(json!({"linted": {"findings": [{
        "diagnostic": diag_json(),
        "location": {"message": 1, "messageId": "u1", "segment": 0, "field": "content",
                     "pointer": "/messages/1/segments/0/content", "line": 9, "column": 4, "endLine": 9, "endColumn": 12}
    }, {
        "diagnostic": {"severity": "warning", "code": "token-budget", "path": "", "message": "over"},
        "location": {"pointer": ""}
    }], "tokens": 42}}));
    let lint::Reply::Linted { findings, tokens } = r else { panic!() };
    assert_eq!((findings[0].location.end_column, findings[1].location.line, tokens), (Some(12), None, Some(42)));
    assert_eq!(lint::Reply::counts(&findings), (1, 1, 0));
    round_trip::<lint::Reply>(json!({"bad_settings": {"error": "no"}}));
    round_trip::<lint::Reply>(json!({"linted": {"findings": [], "tokens": null}}));
}

#[test]
fn diff_messages() {
    round_trip::<diff::Request>(json!({"before": "{}", "after": "{}"}));
    let r: diff::Reply = round_trip(json!({"compared": {"comparison": {
        "equal": false,
        "fields": [{"path": "model", "before": "a", "after": "b"}, {"path": "params.stop", "before": null}],
        "messages": [{
            "status": "changed", "before": 0, "after": 1, "id": "m", "previousId": "old", "role": "user",
            "tokensBefore": 3, "tokensAfter": 5,
            "segments": [{"status": "added", "after": 2, "kind": "text",
                          "text": [[{"tag": "insert", "text": "x"}, {"tag": "equal", "text": "y"}]],
                          "fields": [{"path": "content", "after": 1}]}]
        }, {"status": "unchanged", "before": 1, "after": 2, "id": "n", "role": "tool"}],
        "tokensBefore": 10, "tokensAfter": 12,
        "cache": {"reusable": 7, "total": 12, "previousTotal": 10, "modelChanged": false, "identical": false,
                  "inTools": false, "message": 1, "messageId": "m", "segment": 2}
    }, "before": "{}", "after": "{}"}}));
    let diff::Reply::Compared { comparison: c, .. } = r else { panic!() };
    // A field that was `null` is not one that was added.
    assert_eq!(c.fields[1].before, Some(Value::Null));
    assert_eq!(c.messages[0].role, crate::types::Role::User);
    assert_eq!(c.messages[0].segments[0].text[0][0].tag, crate::diff::LineTag::Insert);
    assert_eq!(c.cache.sentence(), "the first 7 of 12 tokens are reusable from the previous version's cache (the prompts first differ at messages[1] `m`, segments[2])");
    let r: diff::Reply = round_trip(json!({"failed": {"side": "after", "errors": [diag_json()]}}));
    assert!(matches!(r, diff::Reply::Failed { side: diff::Side::After, .. }));
}

#[test]
fn render_messages() {
    round_trip::<render::Request>(json!({"template": "- content: hi", "data": "{}"}));
    round_trip::<render::Reply>(json!({"rendered": {"envelope": "{}",
        "parts": [{"name": "a", "role": "system", "priority": "0", "tokens": 4, "chars": 9}],
        "warnings": [diag_json()]}}));
    for source in ["template", "data", "rendered"] {
        let r: render::Reply = round_trip(json!({"failed": {"failure": {
            "source": source, "diagnostic": diag_json(), "class": "TemplateSyntaxError",
            "line": 3, "column": null, "text": "x"}, "warnings": []}}));
        let render::Reply::Failed { failure, .. } = r else { panic!() };
        assert_eq!(failure.source.as_str(), source);
    }
}

#[test]
fn response_messages() {
    let q: response::Request = round_trip(json!({"schema": {"type": "object"}, "output": "{\"a\": 1}",
        "golden": "{\"a\": 2}", "rules": {"exact": [], "fuzzy": [["/summary", 0.6]], "ignore": ["/id"]}}));
    assert_eq!(q.rules.fuzzy, [("/summary".to_string(), 0.6)]);
    // Rules may be left out: none.
    let q: response::Request = serde_json::from_value(json!({"schema": null, "output": "x", "golden": null})).unwrap();
    assert_eq!(q.rules, response::Rules::default());
    let r: response::Reply = round_trip(json!({"text_from": "openai-chat", "model": "gpt-4o", "text": "{\"a\": 1}",
        "parsed": {"json": {"value": {"a": 1}}},
        "validation": {"checked": {"violations": [{"path": "/a", "keyword": "type", "message": "1 is not of type \"string\""}], "more": 0}},
        "comparison": {"compared": {"differences": [{"path": "/a", "kind": "value", "expected": 2, "actual": 1, "message": "2 → 1"}], "more": 3}}}));
    assert!(matches!(r.validation, response::Validation::Checked { ref violations, .. } if violations[0].path == "/a"));
    // A null value is a value: it stays `Some(Null)`; a value that is not there is left out.
    let d: response::Difference =
        round_trip(json!({"path": "/s", "kind": "type", "expected": "x", "actual": null, "message": "m"}));
    assert_eq!(d.actual, Some(Value::Null));
    let d: response::Difference = round_trip(json!({"path": "/t", "kind": "unexpected", "actual": 1, "message": "m"}));
    assert_eq!((d.expected, d.actual), (None, Some(json!(1))));
    for (validation, comparison) in [
        (json!("no_schema"), json!("no_golden")),
        (json!({"schema_error": {"message": "at /properties/a: bad"}}), json!({"golden_error": {"message": "line 1"}})),
        (json!("not_parsed"), json!("not_parsed")),
    ] {
        round_trip::<response::Reply>(json!({"text_from": "text", "model": null, "text": "Sure! {}",
            "parsed": {"failed": {"message": "prose before the JSON"}}, "validation": validation, "comparison": comparison}));
    }
}
