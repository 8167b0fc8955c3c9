//! `envelope::promptpoet` against the real prompt-poet 0.0.52: every template
//! in `fixtures/promptpoet/cases/` rendered with its data must give exactly
//! the parts, string and messages prompt-poet gave (`expected.json`, made by
//! `gen.py`), or fail where prompt-poet raised:
//!
//! - errors from prompt-poet's own checks and Python's rules for building
//!   parts (no template line): the same exception class and message;
//! - Jinja2 errors and errors raised inside template expressions: a
//!   compile-or-render error of the same class at the same template line
//!   (the wording of syntax errors is minijinja's);
//! - YAML errors: a YAML error (of a class PyYAML raises) at the same
//!   rendered line where PyYAML names one.
#![cfg(feature = "templates")]

use std::path::{Path, PathBuf};

use envelope::promptpoet::{render, to_envelope, RenderError, Stage};
use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/promptpoet")
}

fn expected() -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir().join("expected.json")).unwrap()).unwrap()
}

fn load_case(name: &str) -> (String, Value) {
    let bytes = std::fs::read(dir().join("cases").join(format!("{name}.yaml.j2"))).unwrap();
    let template = String::from_utf8(bytes).unwrap();
    let data = match std::fs::read_to_string(dir().join("cases").join(format!("{name}.json"))) {
        Ok(t) => serde_json::from_str(&t).unwrap(),
        Err(_) => serde_json::json!({}),
    };
    (template, data)
}

fn check_error(name: &str, want: &Value, got: &RenderError) -> Result<(), String> {
    let class = want["type"].as_str().unwrap();
    let category = want["category"].as_str().unwrap();
    let line = want["line"].as_u64().map(|l| l as usize);
    let yaml_line = want["yaml_line"].as_u64().map(|l| l as usize);
    let message = want["message"].as_str().unwrap();
    match category {
        "yaml" => {
            if got.stage != Stage::Yaml {
                return Err(format!("{name}: want a YAML error {class}, got {got:?}"));
            }
            if yaml_line.is_some() && got.rendered_line != yaml_line && class != "ReaderError" {
                return Err(format!(
                    "{name}: YAML error at rendered line {:?}, want {yaml_line:?} ({got})",
                    got.rendered_line
                ));
            }
            Ok(())
        }
        _ if line.is_some() || category == "jinja" => {
            if !matches!(got.stage, Stage::Syntax | Stage::Render) {
                return Err(format!("{name}: want a template error {class} at line {line:?}, got {got:?}"));
            }
            if got.line != line {
                return Err(format!("{name}: template error at line {:?}, want {line:?} ({got})", got.line));
            }
            if got.class != class {
                return Err(format!("{name}: want {class}: {message}\n   got {}: {}", got.class, got.message));
            }
            Ok(())
        }
        _ => {
            if got.class != class || got.message != message {
                return Err(format!("{name}: want {class}: {message}\n   got {}: {}", got.class, got.message));
            }
            Ok(())
        }
    }
}

/// Fixtures that record a construct pep does not reproduce (docs/PROMPTPOET.md,
/// "What differs"): pep must flag each with a `template-inexact` warning.
const KNOWN_DIFFERENCES: &[(&str, &str)] =
    &[("mutating_method", "list.append mutates; minijinja values are immutable")];

#[test]
fn every_fixture_renders_as_prompt_poet_does() {
    let exp = expected();
    let cases = exp["cases"].as_object().unwrap();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let mut failures = Vec::new();
    for (name, want) in cases {
        let (template, data) = load_case(name);
        let got = render(&template, &data);
        if let Some((_, why)) = KNOWN_DIFFERENCES.iter().find(|(n, _)| n == name) {
            let warnings = match &got {
                Ok(r) => &r.warnings,
                Err(e) => &e.warnings,
            };
            if !warnings.iter().any(|w| w.rule == envelope::Rule::TemplateInexact) {
                failures
                    .push(format!("{name}: a known difference ({why}) rendered without a template-inexact warning"));
            }
            continue;
        }
        match (want.get("error"), got) {
            (Some(e), Err(got)) => {
                if let Err(f) = check_error(name, e, &got) {
                    failures.push(f);
                }
            }
            (Some(e), Ok(r)) => failures.push(format!("{name}: want error {e}, got {}", r.to_json())),
            (None, Err(got)) => failures.push(format!("{name}: want success, got {got:?}")),
            (None, Ok(r)) => {
                let j = r.to_json();
                for key in ["parts", "string", "messages"] {
                    if j[key] != want[key] {
                        failures.push(format!(
                            "{name}: {key} differs\n   want {}\n   got  {}",
                            serde_json::to_string(&want[key]).unwrap(),
                            serde_json::to_string(&j[key]).unwrap()
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// Every successful fixture also makes a valid envelope with one message per
/// part, its content unchanged and its priority written.
#[test]
fn every_rendered_fixture_makes_a_valid_envelope() {
    let exp = expected();
    for (name, want) in exp["cases"].as_object().unwrap() {
        if want.get("error").is_some() || KNOWN_DIFFERENCES.iter().any(|(n, _)| n == name) {
            continue;
        }
        let (template, data) = load_case(name);
        let rendered = render(&template, &data).unwrap();
        let (env, _warnings) = to_envelope(&rendered);
        let text = serde_json::to_string_pretty(&env).unwrap();
        let loaded = envelope::parse(&text).unwrap_or_else(|e| panic!("{name}: {e:?}\n{text}"));
        assert_eq!(loaded.envelope.messages.len(), rendered.parts.len(), "{name}");
        for (m, p) in loaded.envelope.messages.iter().zip(&rendered.parts) {
            match &m.segments[0] {
                envelope::Segment::Text(t) => assert_eq!(t.content, p.content, "{name}"),
                other => panic!("{name}: {other:?}"),
            }
            assert!(m.truncation_priority.is_some(), "{name}");
        }
    }
}

/// PromptPoet's own truncation of rendered fixtures (`truncate.json`): the
/// o200k_base token count of every part equals tiktoken's, and the kept parts
/// and kept total (or the error class) equal `Prompt.truncate`'s.
#[cfg(feature = "tokenizer")]
#[test]
fn truncation_matches_prompt_poet() {
    use envelope::promptpoet::plan_truncation;
    let exp = expected();
    let runs = exp["truncate"].as_array().unwrap();
    assert!(runs.len() >= 10);
    for run in runs {
        let name = run["case"].as_str().unwrap();
        let (template, data) = load_case(name);
        let rendered = render(&template, &data).unwrap();
        let tokens: Vec<u64> = rendered.parts.iter().map(|p| envelope::tokens::count(&p.content) as u64).collect();
        let want = &run["expect"];
        let want_tokens: Vec<u64> = want["tokens"].as_array().unwrap().iter().map(|t| t.as_u64().unwrap()).collect();
        assert_eq!(tokens, want_tokens, "{name}: token counts");
        let got = plan_truncation(&rendered, &tokens, run["limit"].as_i64().unwrap(), run["step"].as_i64().unwrap());
        match (want.get("error"), got) {
            (Some(e), Err(got)) => assert_eq!(got.class(), e["type"].as_str().unwrap(), "{name} {run}"),
            (None, Ok(plan)) => {
                let kept: Vec<u64> = plan.kept_indices().map(|i| i as u64).collect();
                let want_kept: Vec<u64> =
                    want["kept"].as_array().unwrap().iter().map(|t| t.as_u64().unwrap()).collect();
                assert_eq!(kept, want_kept, "{name} {run}");
                assert_eq!(plan.kept_tokens, want["total_tokens"].as_u64().unwrap(), "{name} {run}");
            }
            (w, g) => panic!("{name} {run}: want {w:?}, got {g:?}"),
        }
    }
}

/// The app's one-click example is a fixture: its files are the ones checked
/// against prompt-poet.
#[test]
fn the_demo_template_is_a_fixture() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demos/templates");
    for (a, b) in [("chat.yaml.j2", "demo_chat.yaml.j2"), ("chat.data.json", "demo_chat.json")] {
        assert_eq!(
            std::fs::read(demo.join(a)).unwrap(),
            std::fs::read(dir().join("cases").join(b)).unwrap(),
            "demos/templates/{a} differs from the fixture {b}"
        );
    }
}
