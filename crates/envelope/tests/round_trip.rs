//! The round-trip law (docs/EXTENSIONS.md, "Fidelity"): for every request
//! body B of a format F in the corpus, `export(import(B), F)` is B as JSON
//! (key order aside), and the export lists nothing it could not carry.
//!
//! The corpus: `tests/fixtures/requests/{openai,responses,anthropic}/` (made
//! for this project) and `tests/fixtures/requests/real/{…}/` (published
//! examples and SDK tests of the providers, and for Gemini and Bedrock the
//! bodies their SDKs sent to a loopback server; `real/SOURCES.md` says where
//! each comes from).

use std::path::{Path, PathBuf};

use envelope::export::{render, Target};
use envelope::import::{import, import_as, Format};
use serde_json::Value;

fn bodies(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

fn corpus() -> Vec<(Format, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/requests");
    let mut out = Vec::new();
    for (dir, format) in [
        ("openai", Format::OpenaiChat),
        ("responses", Format::OpenaiResponses),
        ("anthropic", Format::Anthropic),
        ("gemini", Format::Gemini),
        ("bedrock", Format::Bedrock),
    ] {
        let mut files = Vec::new();
        bodies(&root.join(dir), &mut files);
        bodies(&root.join("real").join(dir), &mut files);
        files.sort();
        out.extend(files.into_iter().map(|f| (format, f)));
    }
    out
}

fn target(format: Format) -> Target {
    match format {
        Format::OpenaiChat => Target::OpenaiChat,
        Format::OpenaiResponses => Target::OpenaiResponses,
        Format::Gemini => Target::Gemini,
        Format::Bedrock => Target::Bedrock,
        _ => Target::Anthropic,
    }
}

/// The first place two values differ, as a path.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    None => return Some(format!("{path}.{k}: missing in the export")),
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, &format!("{path}.{k}")) {
                            return Some(d);
                        }
                    }
                }
            }
            y.keys().find(|k| !x.contains_key(*k)).map(|k| format!("{path}.{k}: added by the export"))
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} items, the export has {}", x.len(), y.len()));
            }
            x.iter().zip(y).enumerate().find_map(|(i, (v, w))| first_difference(v, w, &format!("{path}[{i}]")))
        }
        _ => (a != b).then(|| format!("{path}: {a} became {b}")),
    }
}

#[test]
fn every_body_comes_back_from_its_own_format() {
    let corpus = corpus();
    assert!(corpus.len() >= 10, "the corpus is missing: {}", corpus.len());
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/envelope.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::draft202012::new(&schema).expect("the schema compiles");
    let mut failures = Vec::new();
    for (format, path) in &corpus {
        let text = std::fs::read_to_string(path).unwrap();
        let body: Value = serde_json::from_str(&text).unwrap();
        let name = path.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(path).display().to_string();
        let imported = match import_as(&text, Some(*format)) {
            Ok(i) => i,
            Err(errs) => {
                failures.push(format!("{name}: does not import: {errs:?}"));
                continue;
            }
        };
        // Detection agrees with the folder.
        if let Ok(auto) = import(&text) {
            if auto.format != *format {
                failures.push(format!("{name}: detected as {:?}", auto.format));
            }
        }
        let exported = render(&imported.envelope, target(*format));
        let back: Value = serde_json::from_str(&exported.text).unwrap();
        if let Some(d) = first_difference(&body, &back, "") {
            failures.push(format!("{name}: {d}"));
        }
        if !exported.notices.is_empty() {
            failures.push(format!("{name}: notices on its own format: {:?}", exported.notices));
        }
        // The envelope made is a valid document that reads back as itself,
        // and the JSON Schema (with the extension) accepts it.
        let doc = serde_json::to_string(&imported.envelope).unwrap();
        let as_value: Value = serde_json::from_str(&doc).unwrap();
        if let Some(e) = validator.iter_errors(&as_value).next() {
            failures.push(format!("{name}: the schema refuses the envelope at {}: {e}", e.instance_path()));
        }
        match envelope::parse(&doc) {
            Ok(l) if l.envelope == imported.envelope => {}
            Ok(_) => failures.push(format!("{name}: the envelope reads back differently")),
            Err(e) => failures.push(format!("{name}: the envelope made is invalid: {e:?}")),
        }
    }
    assert!(failures.is_empty(), "{} of {} bodies:\n{}", failures.len(), corpus.len(), failures.join("\n"));
}
