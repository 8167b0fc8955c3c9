//! `engine::recorded::holds_calls` — how the app tells a file of many
//! recorded calls (the Calls view) from one document (the viewer) by its
//! name and first megabyte — over the real files: every trace and log file
//! the instrumentation packages wrote (fixtures/traces, SOURCES.md), every
//! batch sample, against every request body and envelope of the corpus.

use std::path::{Path, PathBuf};

use envelope::engine::recorded::{holds_calls, HEAD_BYTES};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if matches!(p.extension().and_then(|x| x.to_str()), Some("json" | "jsonl")) {
            out.push(p);
        }
    }
}

/// What the page sees of a file: its name, its first megabyte (cut
/// anywhere, as `Blob.slice` cuts), whether that is all of it.
fn seen(p: &Path) -> (String, String, bool) {
    let bytes = std::fs::read(p).unwrap();
    let complete = bytes.len() <= HEAD_BYTES;
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(HEAD_BYTES)]).into_owned();
    (p.file_name().unwrap().to_string_lossy().into_owned(), head, complete)
}

#[test]
fn every_trace_log_and_batch_file_holds_calls() {
    let mut list = Vec::new();
    files(&fixtures().join("traces"), &mut list);
    files(&fixtures().join("batch"), &mut list);
    // sent.jsonl: JSON Lines of what the SDKs sent (one request a line), calls too.
    assert!(list.len() > 40, "{} files", list.len());
    for p in &list {
        let (name, head, complete) = seen(p);
        assert!(holds_calls(&name, &head, complete), "{}", p.display());
    }
}

#[test]
fn one_request_body_or_one_envelope_does_not() {
    let mut list = Vec::new();
    files(&fixtures().join("requests"), &mut list);
    files(&fixtures().join("envelopes/valid"), &mut list);
    files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demos"), &mut list);
    list.retain(|p| !p.to_string_lossy().contains("SOURCES"));
    assert!(list.len() > 100, "{} files", list.len());
    for p in &list {
        let (name, head, complete) = seen(p);
        assert!(!holds_calls(&name, &head, complete), "{}", p.display());
    }
}

#[test]
fn a_head_cut_anywhere_in_a_pretty_otlp_file_after_its_first_key_still_tells() {
    let p = fixtures().join("traces/single/otel-openai-v2-latest-span-and-event.chat_tools.traces.json");
    let text = std::fs::read_to_string(&p).unwrap();
    let first_key = text.find("resourceSpans").unwrap() + "resourceSpans\"".len();
    for cut in (first_key..text.len()).step_by(97) {
        let head = &text.as_bytes()[..cut];
        assert!(holds_calls("t.json", &String::from_utf8_lossy(head), false), "cut at {cut}");
    }
}
