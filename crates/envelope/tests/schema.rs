//! `schema/envelope.schema.json` (JSON Schema 2020-12) and the reader agree on
//! structure: every demo and every valid fixture validates, every structurally
//! invalid fixture fails, and on generated documents (valid ones with random
//! structural damage) the schema accepts exactly what the reader's structural
//! pass (`parse::decode`) accepts.
//!
//! Beyond a schema, and so not compared: the semantic rules of §3 (unique
//! message ids, tool-call placement and pairing, duplicate callIds, variable
//! conflicts, duplicate tools, media URL schemes: `valid/semantic-errors.json`
//! passes the schema and fails `pep validate`); duplicate object keys and
//! nesting deeper than 128 (the JSON text, before any schema); and integers
//! written with a fraction or exponent (`1.0`, `1e3`), which JSON Schema
//! counts as integers and the reader, which keeps numbers as written, does not.

use std::path::{Path, PathBuf};

use envelope::parse::decode;
use proptest::prelude::*;
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validator() -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("schema/envelope.schema.json")).unwrap()).unwrap();
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    assert!(!v.is_empty(), "{dir} is empty");
    v
}

const FIXTURES: &str = "crates/envelope/tests/fixtures/envelopes";

#[test]
fn demos_and_valid_fixtures_validate() {
    let v = validator();
    let mut paths = files(&format!("{FIXTURES}/valid"));
    paths.extend(files("demos").into_iter().filter(|p| p.extension().is_some_and(|e| e == "json")));
    for p in paths {
        let doc = read(&p);
        let errors: Vec<String> = v.iter_errors(&doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", p.display());
        assert!(decode(&doc).1.is_empty(), "{}", p.display());
        let name = p.file_name().unwrap().to_str().unwrap();
        // Semantic errors are the reader's alone.
        assert_eq!(envelope::parse(&doc.to_string()).is_ok(), !name.starts_with("semantic-"), "{name}");
    }
}

#[test]
fn structurally_invalid_fixtures_fail() {
    let v = validator();
    for p in files(&format!("{FIXTURES}/invalid")) {
        let doc = read(&p);
        assert!(!v.is_valid(&doc), "{} passes the schema", p.display());
        assert!(!decode(&doc).1.is_empty(), "{} passes the reader", p.display());
    }
}

#[test]
fn every_field_has_a_description() {
    fn walk(v: &Value, path: &str, out: &mut Vec<String>) {
        if let Some(o) = v.as_object() {
            if let Some(Value::Object(props)) = o.get("properties") {
                for (k, p) in props {
                    if p.get("description").and_then(Value::as_str).is_none_or(str::is_empty) {
                        out.push(format!("{path}/properties/{k}"));
                    }
                }
            }
            for (k, x) in o {
                walk(x, &format!("{path}/{k}"), out);
            }
        }
    }
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("schema/envelope.schema.json")).unwrap()).unwrap();
    let mut missing = Vec::new();
    walk(&schema, "", &mut missing);
    // The `if` clauses name `kind` only to select a branch.
    missing.retain(|m| !m.contains("/if/"));
    assert_eq!(missing, Vec::<String>::new());
}

/// A valid document that uses every kind and every optional field.
fn template() -> Value {
    let mut doc = read(&root().join(format!("{FIXTURES}/valid/nulls.json")));
    let ext = read(&root().join(format!("{FIXTURES}/valid/extensions.json")));
    doc["params"] = ext["params"].clone();
    doc["$schema"] = "x".into();
    doc["prompt"] = json!({"name": "n", "version": "1.0"});
    let msgs = doc["messages"].as_array_mut().unwrap();
    msgs.extend(ext["messages"].as_array().unwrap().iter().cloned());
    msgs.push(json!({"id": "m", "role": "user", "timestamp": 1.5, "segments": [
        {"kind": "text", "content": "t"},
        {"kind": "memory", "items": [{"title": "a", "content": "b"}], "collapsed": false},
        {"kind": "media", "mediaType": "image", "url": "https://x/i.png", "altText": "alt"},
        {"kind": "skills", "items": [{"name": "s", "description": "d", "body": "b", "loaded": true}], "collapsed": true},
        {"kind": "tool_overview", "items": [{"name": "g", "description": "d", "parameters": "p", "schema": {"type": "object"}}], "collapsed": true}
    ]}));
    doc
}

/// Every path (as JSON pointer tokens) in a value.
fn paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(at.clone());
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                at.push(k.clone());
                paths(x, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                at.push(i.to_string());
                paths(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

fn replacement(k: usize) -> Value {
    let all = [
        Value::Null,
        json!(true),
        json!(1),
        json!(-1),
        json!(1.5),
        json!("s"),
        json!([]),
        json!({}),
        json!("1.0"),
        json!("text"),
        json!("media"),
        json!("tool_call_result"),
        json!("user"),
        json!("tool"),
        json!("image"),
        json!("pdf"),
        json!({"kind": "text", "content": "x"}),
        json!({"title": "t", "content": "c"}),
    ];
    all[k % all.len()].clone()
}

/// Applies one structural damage at the path chosen by `pick`.
fn damage(doc: &mut Value, pick: usize, op: usize, k: usize) {
    let mut ps = Vec::new();
    paths(doc, &mut Vec::new(), &mut ps);
    let path = ps[pick % ps.len()].clone();
    let pointer: String = path.iter().map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1"))).collect();
    match op % 4 {
        // Remove the field or item.
        0 if !path.is_empty() => {
            let (parent, last) = pointer.rsplit_once('/').unwrap();
            match doc.pointer_mut(parent) {
                Some(Value::Object(o)) => {
                    o.shift_remove(&last.replace("~1", "/").replace("~0", "~"));
                }
                Some(Value::Array(a)) => {
                    a.remove(last.parse::<usize>().unwrap());
                }
                _ => {}
            }
        }
        // Add an unknown or near-miss field to an object.
        1 => {
            if let Some(Value::Object(o)) = doc.pointer_mut(&pointer) {
                let names = ["extra", "tool_name", "Content", "callid", "charcount", "kind", "id"];
                o.insert(names[k % names.len()].to_string(), replacement(k / 7));
            }
        }
        // Replace the value.
        _ => {
            if let Some(v) = doc.pointer_mut(&pointer) {
                *v = replacement(k);
            }
        }
    }
}

fn compare(doc: &Value, v: &jsonschema::Validator) -> Result<(), TestCaseError> {
    let reader = decode(doc).1;
    let schema_ok = v.is_valid(doc);
    prop_assert_eq!(
        reader.is_empty(),
        schema_ok,
        "reader errors {:?}; schema errors {:?}; document {}",
        reader.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        v.iter_errors(doc).map(|e| format!("{e} at {}", e.instance_path())).collect::<Vec<_>>(),
        doc
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn reader_and_schema_agree_on_structure(
        damages in prop::collection::vec((any::<usize>(), any::<usize>(), any::<usize>()), 0..4)
    ) {
        let v = validator();
        let mut doc = template();
        for (pick, op, k) in damages {
            damage(&mut doc, pick, op, k);
        }
        compare(&doc, &v)?;
    }
}

#[test]
fn the_template_is_valid_and_odd_numbers_agree() {
    let v = validator();
    let doc = template();
    assert!(v.is_valid(&doc) && decode(&doc).1.is_empty());
    // Bounds of the integer fields.
    for (field, value, ok) in [
        ("sizeBytes", json!(0), true),
        ("sizeBytes", json!(9007199254740991u64), true),
        ("sizeBytes", json!(9007199254740992u64), false),
        ("sizeBytes", json!(18446744073709551615u64), false),
        ("sizeBytes", json!(-1), false),
        ("sizeBytes", json!(2.5), false),
        ("charCount", json!(-5), true),
        ("charCount", json!(9223372036854775807i64), true),
    ] {
        let mut d = doc.clone();
        let seg = d["messages"][3]["segments"].as_array_mut().unwrap();
        seg.push(json!({"kind": "document", "fileName": "f", "mimeType": "m", "snippet": "s", "sizeBytes": 1}));
        seg.push(json!({"kind": "long_text", "content": "c", "charCount": 1, "collapsed": true}));
        let n = seg.len();
        let at = if field == "sizeBytes" { n - 2 } else { n - 1 };
        seg[at][field] = value.clone();
        assert_eq!(v.is_valid(&d), ok, "{field} = {value}");
        assert_eq!(decode(&d).1.is_empty(), ok, "{field} = {value}");
    }
}
