//! `parse::meant_as_envelope`, the app's split between reading an envelope
//! itself and sending a body to the import: every demo (and a damaged
//! envelope) is meant as an envelope, no request body of the corpus is, and
//! neither is anything else.

use envelope::parse::meant_as_envelope;
use serde_json::{json, Value};

mod common;
use common::root;

fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn demos_are_envelopes() {
    for c in 'a'..='f' {
        assert!(meant_as_envelope(&read(&root().join(format!("demos/{c}.json")))), "demo {c}");
    }
}

#[test]
fn no_request_of_the_corpus_is_an_envelope() {
    let mut n = 0;
    for dir in ["openai", "responses", "anthropic"] {
        for e in std::fs::read_dir(root().join("crates/envelope/tests/fixtures/requests").join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "json") {
                assert!(!meant_as_envelope(&read(&p)), "{}", p.display());
                n += 1;
            }
        }
    }
    assert!(n >= 9, "only {n} requests");
}

#[test]
fn damaged_envelopes_still_read_as_envelopes_and_other_values_do_not() {
    // No `version`: the envelope's own error says so, not an import error.
    assert!(meant_as_envelope(&json!({"messages": [{"id": "u", "role": "user", "segments": []}]})));
    // Wrong version, no messages: still an envelope (its error names `version`).
    assert!(meant_as_envelope(&json!({"version": "2.0"})));
    for v in [
        json!({}),
        json!([]),
        json!("text"),
        json!(null),
        json!({"messages": []}),
        json!({"messages": [{"role": "user", "content": "hi"}]}),
        json!({"input": "hi", "instructions": "be brief"}),
        json!({"messages": "not a list"}),
    ] {
        assert!(!meant_as_envelope(&v), "{v}");
    }
}
