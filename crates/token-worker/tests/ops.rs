//! The engine's JSON operations as the page drives them: each message is
//! JSON text in, JSON text out. The app's path for a request body (import in
//! the worker → the envelope text → read on the page → export in the worker)
//! must give `pep export --format X request.json`'s bytes, which is
//! `render(import(request))`; for a demo, `render(demo)`.

use std::path::{Path, PathBuf};

use envelope::engine::{export, import as import_op};
use envelope::export::{render, Target};
use envelope::import::import;
use pep_token_worker::{json_op_named, JSON_OPS};
use serde_json::json;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn requests() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for dir in ["openai", "responses", "anthropic"] {
        for e in std::fs::read_dir(root().join("crates/envelope/tests/fixtures/requests").join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "json") {
                let text = std::fs::read_to_string(&p).unwrap();
                out.push((p, text));
            }
        }
    }
    out.sort();
    assert!(out.len() >= 9, "too few requests");
    out
}

/// Sends a message the way the worker's loop does: by op name, JSON text in.
fn send<Q: serde::Serialize, R: serde::de::DeserializeOwned>(op: &str, request: &Q) -> Result<R, String> {
    let handle = json_op_named(op).unwrap_or_else(|| panic!("no op {op}"));
    let reply = handle(&serde_json::to_string(request).unwrap())?;
    Ok(serde_json::from_str(&reply).unwrap())
}

fn import_text(text: &str) -> import_op::Reply {
    send(import_op::OP, &import_op::Request { text: text.into() }).unwrap()
}

fn export_text(envelope: &str, target: Target) -> export::Reply {
    send(export::OP, &export::Request { envelope: envelope.into(), target }).unwrap()
}

#[test]
fn the_ops_are_listed_by_name() {
    let names: Vec<&str> = JSON_OPS.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["import", "export", "lint", "diff", "render", "response"]);
    assert!(json_op_named("encode").is_none(), "encode is not a JSON op");
    assert!(json_op_named("search").is_none());
}

#[test]
fn every_request_imports_and_exports_as_pep_does() {
    for (path, text) in requests() {
        let name = path.display();
        let core = import(&text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let import_op::Reply::Imported { format, envelope, notices } = import_text(&text) else {
            panic!("{name}: not imported")
        };
        assert_eq!(Some(format), core.format.request_format(), "{name}");
        assert_eq!((format.as_str(), format.label()), (core.format.code(), core.format.label()), "{name}");
        assert_eq!(notices, core.notices, "{name}: notices survive the trip");
        // What `pep import` prints.
        assert_eq!(envelope, envelope::export::to_pretty(&core.raw), "{name}");
        // The page reads the text as an envelope (it is one, meant as one).
        let value: serde_json::Value = serde_json::from_str(&envelope).unwrap();
        assert!(envelope::parse::meant_as_envelope(&value), "{name}");
        for target in Target::ALL {
            let export::Reply::Exported { text: got, notices } = export_text(&envelope, target) else {
                panic!("{name}: {target:?} failed")
            };
            let want = render(&core.envelope, target);
            assert_eq!(got, want.text, "{name}: {target:?}");
            assert_eq!(notices, want.notices, "{name}: {target:?} notices");
        }
    }
}

#[test]
fn demos_export_to_every_target() {
    for c in 'a'..='f' {
        let text = std::fs::read_to_string(root().join(format!("demos/{c}.json"))).unwrap();
        let demo = envelope::parse(&text).unwrap().envelope;
        for target in Target::ALL {
            let export::Reply::Exported { text: got, .. } = export_text(&text, target) else {
                panic!("{c} {target:?}")
            };
            assert_eq!(got, render(&demo, target).text, "demo {c}: {target:?}");
        }
        // OpenAI Chat through the worker is the main thread's text.
        let export::Reply::Exported { text: chat, .. } = export_text(&text, Target::OpenaiChat) else { panic!() };
        assert_eq!(chat, envelope::export::openai_json(&demo));
    }
}

#[test]
fn bodies_that_do_not_import_give_every_error_with_its_path() {
    let import_op::Reply::Failed { errors } = import_text(r#"{"prompt": "hi"}"#) else { panic!("imported") };
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].code(), "import-format");
    for format in ["Prompt Envelope", "OpenAI Chat", "OpenAI Responses", "Anthropic Messages"] {
        assert!(errors[0].message.contains(format), "{}", errors[0].message);
    }
    let bad = json!({"model": "gpt-4o", "messages": [
        {"role": "wizard", "content": "x"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "[1]"}}]}
    ]});
    let import_op::Reply::Failed { errors } = import_text(&bad.to_string()) else { panic!("imported") };
    let got: Vec<(&str, &str)> = errors.iter().map(|e| (e.code(), e.path.as_str())).collect();
    assert_eq!(
        got,
        [
            ("import-unknown-role", "messages[0].role"),
            ("import-arguments", "messages[1].tool_calls[0].function.arguments")
        ]
    );
    // An envelope is not a request: the page reads those itself.
    let demo = std::fs::read_to_string(root().join("demos/a.json")).unwrap();
    let import_op::Reply::Failed { errors } = import_text(&demo) else { panic!("imported") };
    assert_eq!(
        (errors[0].code(), errors[0].message.as_str()),
        ("import-format", "the body is a Prompt Envelope, not a request to import")
    );
}

#[test]
fn messages_the_engine_cannot_serve_are_errors_not_panics() {
    let handle = json_op_named("export").unwrap();
    let e = handle(r#"{"envelope": "{}", "target": "yaml"}"#).unwrap_err();
    assert!(e.contains("does not fit") && e.contains("unknown variant `yaml`"), "{e}");
    let e = handle("not json").unwrap_err();
    assert!(e.contains("does not fit"), "{e}");
    let e = json_op_named("import").unwrap()(r#"{"txt": 1}"#).unwrap_err();
    assert!(e.contains("does not fit"), "{e}");
    // An envelope that does not read is the reply's errors, with paths.
    let export::Reply::Failed { errors } = export_text(r#"{"version": "2.0", "messages": []}"#, Target::Anthropic)
    else {
        panic!("exported")
    };
    assert_eq!(errors[0].path, "version");
}
