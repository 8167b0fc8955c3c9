//! The engine's `recorded` operation as the page drives it: files read a
//! slice at a time (slices cutting lines anywhere), progress with the rows,
//! then the reply; one call asked for by index. Checked against the core's
//! own `envelope::recorded::read` of the same files (traces made by the
//! real instrumentation packages, tests/fixtures/traces/SOURCES.md).

use std::path::{Path, PathBuf};

use envelope::engine::recorded::{Progress, Reply, Row};
use envelope::recorded;
use pep_token_worker::recorded::{call, holds, read_in, Source, Text};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn traces(rel: &str) -> (String, String) {
    let path = root().join("crates/envelope/tests/fixtures").join(rel);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    (name, std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}")))
}

struct Read {
    progress: Vec<Progress>,
    reply: Reply,
}

/// Reads `files` through the operation, `chunk` bytes at a time.
fn read_files(recording: u64, files: &[(String, String)], chunk: u64) -> Read {
    let inputs: Vec<(String, Box<dyn Source>)> =
        files.iter().map(|(n, t)| (n.clone(), Box::new(Text(t.clone())) as Box<dyn Source>)).collect();
    let mut progress = Vec::new();
    let mut clock = 0.0;
    let now = move || {
        // Every look at the clock is 40 ms later: progress goes out every third look.
        clock += 40.0;
        clock
    };
    let now = std::cell::RefCell::new(now);
    let reply = read_in(chunk, recording, inputs, &mut |p| progress.push(p), &|| (now.borrow_mut())());
    Read { progress, reply }
}

/// Every row listed, from the progress messages and the reply, in order:
/// the rows the reply updates replaced, the calls folded into another gone.
fn all_rows(r: &Read) -> Vec<Row> {
    let Reply::Read { rows, updated, .. } = &r.reply else { panic!("{:?}", r.reply) };
    let mut all: Vec<Row> =
        r.progress.iter().flat_map(|p| p.rows.iter().cloned()).chain(rows.iter().cloned()).collect();
    // Indexes are the order the rows went out.
    assert!(all.iter().enumerate().all(|(i, r)| r.index == i as u32));
    // Rows counted once the tokenizer was ready, then those the fold changed.
    let mut sent = 0;
    for p in &r.progress {
        for u in &p.updated {
            assert!((u.index as usize) < sent, "an update comes after its row: {u:?}");
            all[u.index as usize] = u.clone();
        }
        sent += p.rows.len();
    }
    for u in updated {
        all[u.index as usize] = u.clone();
    }
    all.retain(|r| !r.folded);
    all
}

/// The core's rows of the same files, as the engine writes them, sorted
/// the same way as `sorted` sorts the engine's.
fn core_rows(files: &[(String, String)]) -> Vec<String> {
    let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let rec = recorded::read(&refs).unwrap_or_else(|e| panic!("{e:?}"));
    let mut rows: Vec<String> =
        rec.calls.iter().map(|c| serde_json::to_string(&Row::of(0, &c.summary())).unwrap()).collect();
    rows.sort();
    rows
}

/// Sorted rows without what the engine adds to the core's (its index, our count).
fn sorted(rows: &[Row]) -> Vec<String> {
    let mut out: Vec<String> = rows
        .iter()
        .map(|r| serde_json::to_string(&Row { index: 0, counted: None, reusable: None, ..r.clone() }).unwrap())
        .collect();
    out.sort();
    out
}

const RUNS: &[&[&str]] = &[
    &["traces/otel-openai-v2-latest-span/traces.jsonl"],
    &["traces/otel-openai-v2-events/traces.jsonl", "traces/otel-openai-v2-events/logs.jsonl"],
    &["traces/otel-openai-v2-events-no-content/traces.jsonl", "traces/otel-openai-v2-events-no-content/logs.jsonl"],
    &["traces/openinference-openai/traces.jsonl"],
    &["traces/openllmetry-anthropic/traces.jsonl"],
    &["traces/otel-botocore-bedrock/traces.jsonl", "traces/otel-botocore-bedrock/logs.jsonl"],
    &["traces/single/openllmetry-anthropic.messages_tools.traces.json"],
    &["batch/openai_batch.jsonl"],
    &["batch/anthropic_batch.json"],
    &["batch/bodies.jsonl"],
];

#[test]
fn rows_are_the_cores_whatever_the_slices() {
    for (k, run) in RUNS.iter().enumerate() {
        let files: Vec<(String, String)> = run.iter().map(|r| traces(r)).collect();
        let want = core_rows(&files);
        assert!(!want.is_empty(), "{run:?}: the fixture holds calls");
        for chunk in [1u64 << 20, 4096, 97, 1] {
            let r = read_files(k as u64, &files, chunk);
            let rows = all_rows(&r);
            assert_eq!(sorted(&rows), want, "{run:?} in slices of {chunk}");
            let Reply::Read { calls, bytes, errors, error_count, .. } = &r.reply else { panic!() };
            assert_eq!((*calls as usize, errors.len(), *error_count), (rows.len(), 0, 0), "{run:?}: {errors:?}");
            let total: usize = files.iter().map(|(_, t)| t.len()).sum();
            assert_eq!(*bytes as usize, total, "{run:?}");
            // Progress counts only grow, and end at the total.
            let mut last = (0, 0);
            for p in &r.progress {
                assert!(p.bytes >= last.0 && p.calls >= last.1, "{run:?}");
                assert_eq!(p.total as usize, total);
                last = (p.bytes, p.calls);
            }
        }
    }
}

#[test]
fn progress_goes_out_while_reading_with_the_first_rows_early() {
    // 300 request bodies, one a line: the first progress carries rows before the end.
    let line = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hello"}]}"#;
    let text: String = (0..300).map(|_| format!("{line}\n")).collect();
    let r = read_files(1, &[("bodies.jsonl".into(), text.clone())], 4096);
    assert!(r.progress.len() >= 3, "{} progress messages", r.progress.len());
    let first = r.progress.iter().find(|p| !p.rows.is_empty()).unwrap();
    assert!(first.calls < 300 && first.bytes < text.len() as u64, "{} calls, {} bytes", first.calls, first.bytes);
    assert_eq!(all_rows(&r).len(), 300);
    assert!(all_rows(&r).iter().all(|r| r.captured && r.messages == 1 && r.last_user.as_deref() == Some("hello")));
    // The first rows go out before the tokenizer is ready; the next message
    // brings them counted, and the calls after come counted.
    assert!(first.rows.iter().all(|r| r.counted.is_none()));
    let next = r.progress.iter().find(|p| !p.updated.is_empty()).expect("the first rows, counted");
    assert_eq!(next.updated.len(), first.rows.len());
    let later: Vec<&Row> = r.progress.iter().skip_while(|p| p.updated.is_empty()).flat_map(|p| &p.rows).collect();
    assert!(!later.is_empty() && later.iter().all(|r| r.counted.is_some()));
    // One hello after another: the previous call sent all of it.
    assert!(
        all_rows(&r).iter().skip(1).all(|r| r.reusable.is_some() && r.reusable == r.counted),
        "{:?}",
        all_rows(&r)[1]
    );
}

#[test]
fn unreadable_lines_are_listed_with_file_line_and_what() {
    let ok = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}"#;
    let mut bytes = format!("{ok}\n{{not json\n{ok}\n").into_bytes();
    bytes.extend_from_slice(b"{\"model\":\"\xff\"}\n");
    bytes.extend_from_slice(format!("{ok}\r\n").as_bytes());
    struct Bytes(Vec<u8>);
    impl Source for Bytes {
        fn size(&self) -> u64 {
            self.0.len() as u64
        }
        fn read(&mut self, a: u64, b: u64) -> Result<Vec<u8>, String> {
            Ok(self.0[a as usize..b as usize].to_vec())
        }
    }
    let mut rows = Vec::new();
    let reply =
        read_in(5, 9, vec![("mixed.jsonl".into(), Box::new(Bytes(bytes)))], &mut |p| rows.extend(p.rows), &|| 0.0);
    let Reply::Read { rows: last, errors, error_count, .. } = reply else { panic!() };
    rows.extend(last);
    assert_eq!(rows.len(), 3);
    assert_eq!(rows.iter().map(|r| r.at.line.unwrap()).collect::<Vec<_>>(), [1, 3, 5]);
    assert_eq!(error_count, 2);
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(text[0].starts_with("mixed.jsonl:2: "), "{text:?}");
    assert_eq!(text[1], "mixed.jsonl:4: the line is not UTF-8 text (byte 11)");
}

#[test]
fn a_call_in_full_is_the_cores_and_only_of_the_recording_held() {
    let files: Vec<(String, String)> =
        ["traces/otel-openai-v2-events/traces.jsonl", "traces/otel-openai-v2-events/logs.jsonl"]
            .iter()
            .map(|r| traces(r))
            .collect();
    let r = read_files(41, &files, 1000);
    let rows = all_rows(&r);
    assert!(holds(41));
    let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let core = recorded::read(&refs).unwrap();
    let mut outputs = 0;
    for row in &rows {
        let Reply::Call(c) = call(41, row.index) else { panic!() };
        assert_eq!(c.row, *row);
        let same =
            core.calls.iter().find(|k| k.at.span_id == row.at.span_id && k.at.trace_id == row.at.trace_id).unwrap();
        match (same.envelope(), &c.envelope) {
            (Some(e), Some(text)) => {
                assert_eq!(serde_json::from_str::<serde_json::Value>(text).unwrap(), serde_json::to_value(e).unwrap());
                if same.errors.is_empty() {
                    envelope::parse(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
                }
            }
            (None, None) => assert!(c.capture_hint.as_deref().is_some_and(|h| !h.is_empty())),
            other => panic!("{other:?}"),
        }
        if let Some(out) = &c.output {
            outputs += 1;
            let loaded = envelope::parse(out).unwrap_or_else(|e| panic!("{e:?}\n{out}"));
            assert_eq!(loaded.envelope.messages.len(), same.output.as_ref().unwrap().messages.len());
        }
    }
    assert!(outputs > 0, "the replies recorded are given");
    assert!(matches!(call(41, rows.len() as u32), Reply::Gone { .. }));
    assert!(matches!(call(40, 0), Reply::Gone { .. }));
    // A new read replaces the recording held.
    read_files(42, &files[..1], 1 << 20);
    assert!(!holds(41) && holds(42));
    assert!(matches!(call(41, 0), Reply::Gone { .. }));
}

#[test]
fn not_captured_calls_say_how_to_capture() {
    let files: Vec<(String, String)> =
        ["traces/otel-openai-v2-no-content/traces.jsonl"].iter().map(|r| traces(r)).collect();
    let r = read_files(7, &files, 1 << 20);
    let rows = all_rows(&r);
    assert!(!rows.is_empty() && rows.iter().all(|r| !r.captured && r.messages == 0), "{rows:?}");
    let Reply::Read { capture_hints, .. } = &r.reply else { panic!() };
    assert_eq!(capture_hints.len(), 1, "{capture_hints:?}");
    assert!(capture_hints[0].1.contains("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"), "{capture_hints:?}");
}

#[test]
fn one_request_recorded_by_two_instrumentations_is_listed_once() {
    // OpenLLMetry's span and the Anthropic SDK's own span inside it, for every request.
    let files = vec![traces("traces/openllmetry-anthropic/traces.jsonl")];
    let r = read_files(51, &files, 1 << 20);
    let Reply::Read { updated, calls, .. } = &r.reply else { panic!() };
    let folded: Vec<&Row> = updated.iter().filter(|u| u.folded).collect();
    assert!(!folded.is_empty(), "{updated:?}");
    assert_eq!(all_rows(&r).len() as u64, *calls);
    assert_eq!(
        folded.len() + *calls as usize,
        r.progress.iter().map(|p| p.rows.len()).sum::<usize>()
            + match &r.reply {
                Reply::Read { rows, .. } => rows.len(),
                _ => 0,
            }
    );
    // The call kept says it took the other in; the one folded is not served.
    let kept: Vec<&Row> = updated.iter().filter(|u| !u.folded).collect();
    assert_eq!(kept.len(), folded.len());
    let Reply::Call(c) = call(51, kept[0].index) else { panic!() };
    assert!(c.notices.iter().any(|n| n.message.contains("one request, listed once")), "{:?}", c.notices);
    let Reply::Gone { message } = call(51, folded[0].index) else { panic!() };
    assert!(message.contains("listed once"), "{message}");
}

#[test]
fn each_captured_call_is_counted_as_pep_calls_counts_it_and_compared_with_the_previous() {
    let settings = envelope::lint::Settings::default();
    let mut served_somewhere = 0;
    for (k, run) in RUNS.iter().enumerate() {
        let files: Vec<(String, String)> = run.iter().map(|r| traces(r)).collect();
        let r = read_files(100 + k as u64, &files, 1 << 20);
        let rows = all_rows(&r);
        let mut first_of: std::collections::HashSet<String> = std::collections::HashSet::new();
        for row in &rows {
            assert_eq!(row.captured, row.counted.is_some(), "{run:?}: {row:?}");
            let Reply::Call(c) = call(100 + k as u64, row.index) else { panic!("{run:?}: {row:?}") };
            assert_eq!(
                (c.row.counted, c.row.reusable),
                (row.counted, row.reusable),
                "{run:?}: the call's row is the table's"
            );
            let Some(counted) = row.counted else {
                assert_eq!(row.reusable, None);
                continue;
            };
            // The Budget tab's total, as `pep calls` counts it (lint's context).
            let env = envelope::parse::parse(c.envelope.as_deref().unwrap()).unwrap().envelope;
            assert_eq!(counted, envelope::lint::Ctx::new(&env, &settings).total_tokens(), "{run:?}: {row:?}");
            // The first call of a trace (or of a file without traces) has no previous call.
            let key = row.at.trace_id.clone().unwrap_or_else(|| format!("file {}", row.at.file));
            if first_of.insert(key) {
                continue;
            }
            let reusable = row.reusable.unwrap_or_else(|| panic!("{run:?}: not the first of its trace: {row:?}"));
            assert!(reusable <= counted, "{run:?}: {row:?}");
            served_somewhere += usize::from(reusable > 0);
        }
    }
    // The corpus's conversations (tool calls, then the answer) send their start again.
    assert!(served_somewhere >= 10, "{served_somewhere} calls could be served from the previous one's cache");
}
