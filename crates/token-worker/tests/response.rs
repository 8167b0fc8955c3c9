//! The engine's `response` operation as the page drives it (JSON text in,
//! JSON text out): the output's text taken from a provider response body,
//! read as JSON, validated strictly against the schema with each violation
//! at its path, and compared with the golden output (a grown array is a
//! Length difference).

use envelope::engine::response::{Comparison, Parsed, Reply, Request, Rules, Validation};
use pep_token_worker::json_op_named;
use serde_json::{json, Value};

fn check(request: &Request) -> Result<Reply, String> {
    let handle = json_op_named(envelope::engine::response::OP).expect("the response op is registered");
    let reply = handle(&serde_json::to_string(request).unwrap())?;
    Ok(serde_json::from_str(&reply).unwrap_or_else(|e| panic!("the reply does not read: {e}\n{reply}")))
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "summary": {"type": "string"},
            "severity": {"enum": ["low", "medium", "high"]},
            "remediation_steps": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["summary", "severity", "remediation_steps"],
        "additionalProperties": false
    })
}

fn golden() -> String {
    json!({"summary": "Keys are logged.", "severity": "high", "remediation_steps": ["rotate", "redact", "audit"]})
        .to_string()
}

fn request(output: &str, golden: Option<String>) -> Request {
    Request { schema: Some(schema()), output: output.into(), golden, rules: Rules::default() }
}

#[test]
fn a_null_field_and_an_extra_field_are_violations_at_their_paths() {
    let output = json!({"summary": null, "severity": "high", "remediation_steps": ["rotate"], "confidence": 0.9});
    let r = check(&request(&output.to_string(), None)).unwrap();
    assert_eq!(r.text_from, "text");
    assert!(matches!(r.parsed, Parsed::Json { .. }));
    let Validation::Checked { violations, more } = r.validation else { panic!("{:?}", r.validation) };
    assert_eq!(more, 0);
    let at: Vec<(&str, &str)> = violations.iter().map(|v| (v.path.as_str(), v.keyword.as_str())).collect();
    assert!(at.contains(&("/summary", "type")), "{at:?}");
    assert!(at.contains(&("", "additionalProperties")), "{at:?}");
    assert!(violations.iter().any(|v| v.message.contains("confidence")), "{violations:?}");
    assert_eq!(r.comparison, Comparison::NoGolden);
    // Against the golden output, the null is a value of the output (not "absent").
    let r = check(&request(&output.to_string(), Some(golden()))).unwrap();
    let Comparison::Compared { differences, .. } = r.comparison else { panic!("{:?}", r.comparison) };
    let summary = differences.iter().find(|d| d.path == "/summary").expect("a difference at /summary");
    assert_eq!((summary.kind.as_str(), summary.actual.clone()), ("type", Some(Value::Null)));
}

#[test]
fn a_grown_array_is_a_length_difference_from_an_openai_response_body() {
    let text = json!({"summary": "Keys are logged.", "severity": "high", "remediation_steps": ["rotate", "redact", "audit", "notify"]});
    let body = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text.to_string()}}]
    });
    let r = check(&request(&body.to_string(), Some(golden()))).unwrap();
    assert_eq!(r.text_from, "openai-chat");
    assert_eq!(r.model.as_deref(), Some("gpt-4o-2024-08-06"));
    assert!(
        matches!(r.validation, Validation::Checked { ref violations, .. } if violations.is_empty()),
        "{:?}",
        r.validation
    );
    let Comparison::Compared { differences, .. } = r.comparison else { panic!("{:?}", r.comparison) };
    let length = differences.iter().find(|d| d.kind == "length").expect("a length difference");
    assert_eq!(length.path, "/remediation_steps");
    assert_eq!(length.expected, Some(json!("[3 items]")));
    assert_eq!(length.actual, Some(json!("[4 items]")));
    assert!(differences.iter().any(|d| d.kind == "unexpected" && d.path == "/remediation_steps/3"), "{differences:?}");
}

#[test]
fn the_same_output_passes_and_a_fuzzy_rule_takes_a_paraphrase() {
    let r = check(&request(&golden(), Some(golden()))).unwrap();
    assert_eq!(r.comparison, Comparison::Compared { differences: vec![], more: 0 });
    let paraphrase = json!({"summary": "The keys are logged.", "severity": "high", "remediation_steps": ["rotate", "redact", "audit"]});
    let mut q = request(&paraphrase.to_string(), Some(golden()));
    let Comparison::Compared { differences, .. } = check(&q).unwrap().comparison else { panic!() };
    assert_eq!(differences.len(), 1, "{differences:?}");
    q.rules.fuzzy.push(("/summary".into(), 0.5));
    assert_eq!(check(&q).unwrap().comparison, Comparison::Compared { differences: vec![], more: 0 });
    q.rules.fuzzy[0].1 = 2.0;
    assert!(check(&q).unwrap_err().contains("between 0 and 1"));
}

#[test]
fn prose_around_the_json_a_bad_schema_and_a_bad_golden_say_so() {
    let r = check(&request(&format!("Sure! Here it is: {}", golden()), Some(golden()))).unwrap();
    let Parsed::Failed { message } = &r.parsed else { panic!("{:?}", r.parsed) };
    assert!(message.starts_with("The output is not JSON"), "{message}");
    assert_eq!(r.validation, Validation::NotParsed);
    assert_eq!(r.comparison, Comparison::NotParsed);
    let mut q = request(&golden(), Some("{\"summary\": ".into()));
    q.schema = Some(json!({"type": "object", "properties": {"a": {"type": "no-such-type"}}}));
    let r = check(&q).unwrap();
    assert!(matches!(r.validation, Validation::SchemaError { .. }), "{:?}", r.validation);
    assert!(
        matches!(r.comparison, Comparison::GoldenError { ref message } if message.starts_with("The golden output is not JSON")),
        "{:?}",
        r.comparison
    );
    q.schema = None;
    assert_eq!(check(&q).unwrap().validation, Validation::NoSchema);
}
