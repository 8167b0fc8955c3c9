//! `pep` over files of many calls — OpenTelemetry traces and logs made by
//! the real instrumentation packages (crates/envelope/tests/fixtures/traces,
//! SOURCES.md), batch files (fixtures/batch) and generated JSON Lines — run
//! as a user would: exit codes, stdout, stderr, and memory.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const FIX: &str = "crates/envelope/tests/fixtures";

fn pep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pep")).args(args).current_dir(root()).output().unwrap()
}

fn pep_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pep"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    o
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

fn fixture_lines(path: &str) -> Vec<Value> {
    json_lines(&std::fs::read_to_string(root().join(path)).unwrap())
}

/// A temporary file with `content`, removed on drop.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, content: &[u8]) -> Temp {
        let dir = std::env::temp_dir().join(format!("pep-calls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, content).unwrap();
        Temp(p)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// SOURCES.md's table: run → LLM-call spans (the column found by its header).
/// The CLI streams (`Reader::line`): it gives each call as its line completes
/// it, so a request recorded by two instrumentations (the Anthropic runs
/// under OpenLLMetry and OpenInference) is listed twice, one row per span —
/// unlike `recorded::read`, which folds them (D151).
fn expected_calls() -> HashMap<String, usize> {
    let text = std::fs::read_to_string(root().join(FIX).join("traces/SOURCES.md")).unwrap();
    let mut m = HashMap::new();
    let mut columns = None;
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.get(1) == Some(&"run") {
            let at = |name: &str| cells.iter().position(|c| *c == name);
            columns = at("LLM-call spans").zip(at("requests sent"));
        } else if let (Some((spans, sent)), Some(run)) = (columns, cells.get(1).filter(|c| c.starts_with('`'))) {
            // One call per LLM-call span, but a request recorded by two
            // instrumentations' spans (the Anthropic runs: twice as many
            // spans as requests) is one call (D151): never more calls
            // than requests sent.
            let (spans, sent): (usize, usize) = (cells[spans].parse().unwrap(), cells[sent].parse().unwrap());
            m.insert(run.trim_matches('`').to_string(), spans.min(sent));
        }
    }
    assert!(!m.is_empty(), "SOURCES.md's table of runs");
    m
}

/// A run's files: traces.jsonl, and logs.jsonl when there is one.
fn run_files(run: &str) -> Vec<String> {
    ["traces.jsonl", "logs.jsonl"]
        .iter()
        .map(|f| format!("{FIX}/traces/{run}/{f}"))
        .filter(|p| root().join(p).exists())
        .collect()
}

fn args<'a>(head: &[&'a str], files: &'a [String]) -> Vec<&'a str> {
    head.iter().copied().chain(files.iter().map(String::as_str)).collect()
}

#[test]
fn export_of_an_openai_batch_gives_each_body_back() {
    let file = format!("{FIX}/batch/openai_batch.jsonl");
    let input = fixture_lines(&file);
    assert!(input.len() >= 30);
    let chat = pep(&["export", "--format", "openai", &file]);
    let responses = pep(&["export", "--format", "responses", &file]);
    assert_eq!(chat.status.code(), Some(0), "{}", err(&chat));
    assert_eq!(responses.status.code(), Some(0), "{}", err(&responses));
    let (chat, responses) = (json_lines(&out(&chat)), json_lines(&out(&responses)));
    // One line a call, in the file's order (batch lines have no start time).
    assert_eq!((chat.len(), responses.len()), (input.len(), input.len()));
    let mut checked = 0;
    for (i, line) in input.iter().enumerate() {
        let got = match line["url"].as_str().unwrap() {
            "/v1/chat/completions" => &chat[i],
            "/v1/responses" => &responses[i],
            other => panic!("{other}"),
        };
        assert_eq!(got, &line["body"], "line {}: {}", i + 1, line["custom_id"]);
        checked += 1;
    }
    assert_eq!(checked, input.len());

    // One line of it alone is one call: the export as for a single body (pretty JSON).
    let first = Temp::new("one.jsonl", serde_json::to_string(&input[0]).unwrap().as_bytes());
    let o = pep(&["export", "--format", "openai", first.path()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(out(&o).starts_with("{\n  \""), "{}", out(&o));
    assert_eq!(serde_json::from_str::<Value>(&out(&o)).unwrap(), input[0]["body"]);
}

#[test]
fn batch_export_writes_the_batch_file_back() {
    // OpenAI: the Chat lines of a Batch input file come back as they were.
    let file = format!("{FIX}/batch/openai_batch.jsonl");
    let input = fixture_lines(&file);
    let o = pep(&["export", "--format", "openai", "--batch", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let lines = json_lines(&out(&o));
    assert_eq!(lines.len(), input.len());
    for (got, want) in lines.iter().zip(&input) {
        assert_eq!(got["custom_id"], want["custom_id"]);
        assert_eq!(got["method"], "POST");
        assert_eq!(got["url"], "/v1/chat/completions");
        if want["url"] == "/v1/chat/completions" {
            assert_eq!(got, want);
        }
    }
    let o = pep(&["export", "--format", "responses", "--batch", &file]);
    let lines = json_lines(&out(&o));
    assert!(lines.iter().all(|l| l["url"] == "/v1/responses"));
    for (got, want) in lines.iter().zip(&input).filter(|(_, w)| w["url"] == "/v1/responses") {
        assert_eq!(got, want);
    }

    // Anthropic: a Message Batches request, as the document it was.
    let file = format!("{FIX}/batch/anthropic_batch.json");
    let want: Value = serde_json::from_str(&std::fs::read_to_string(root().join(&file)).unwrap()).unwrap();
    let o = pep(&["export", "--format", "anthropic", "--batch", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let got: Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(got, want);

    // --batch is for the formats that have batches.
    let o = pep(&["export", "--format", "bedrock", "--batch", &file]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("--batch"), "{}", err(&o));
}

#[test]
fn a_traced_day_becomes_a_batch_file_to_replay() {
    // Spans of the current GenAI conventions with their messages: each call
    // one Batch line, its custom_id the span's ids, its model the one the
    // SDK really sent (sent.jsonl, joined by the traceparent the SDK sent).
    let run = "otel-openai-v2-latest-span";
    let files = run_files(run);
    let o = pep(&args(&["export", "--format", "openai", "--batch"], &files));
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let lines = json_lines(&out(&o));
    assert_eq!(lines.len(), expected_calls()[run]);
    let sent: HashMap<(String, String), Value> = fixture_lines(&format!("{FIX}/traces/{run}/sent.jsonl"))
        .into_iter()
        .map(|s| ((s["traceId"].as_str().unwrap().into(), s["spanId"].as_str().unwrap().into()), s))
        .collect();
    let mut ids = HashSet::new();
    for l in &lines {
        let id = l["custom_id"].as_str().unwrap();
        assert!(ids.insert(id.to_string()), "{id} twice");
        let (t, s) = id.split_once('-').unwrap();
        let request = sent.get(&(t.to_string(), s.to_string())).unwrap_or_else(|| panic!("{id}: no request sent"));
        assert_eq!(l["body"]["model"], request["body"]["model"], "{id}");
        assert_eq!(l["url"], "/v1/chat/completions");
        assert!(l["body"]["messages"].as_array().is_some_and(|m| !m.is_empty()), "{id}");
    }
    // In start order: the same order `pep calls --format json` gives, and
    // its start times do not go back.
    let rows = json_lines(&out(&pep(&args(&["calls", "--format", "json"], &files))));
    let row_ids: Vec<String> = rows
        .iter()
        .map(|r| format!("{}-{}", r["at"]["traceId"].as_str().unwrap(), r["at"]["spanId"].as_str().unwrap()))
        .collect();
    let line_ids: Vec<&str> = lines.iter().map(|l| l["custom_id"].as_str().unwrap()).collect();
    assert_eq!(row_ids, line_ids);
    let starts: Vec<u64> = rows.iter().map(|r| r["startNs"].as_u64().unwrap()).collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn every_run_of_the_corpus_lists_its_calls_and_imports_the_captured_ones() {
    let expected = expected_calls();
    assert!(expected.len() >= 20);
    for (run, want) in &expected {
        let files = run_files(run);
        if files.is_empty() {
            continue;
        }
        let o = pep(&args(&["calls", "--format", "json"], &files));
        assert_eq!(o.status.code(), Some(0), "{run}: {}", err(&o));
        let rows = json_lines(&out(&o));
        assert_eq!(rows.len(), *want, "{run}: calls");
        for r in &rows {
            assert!(r["at"]["spanId"].is_string() && r["at"]["line"].is_u64(), "{run}: located: {r}");
            // Counted by us when the messages are there, and only then.
            assert_eq!(r["captured"] == true, r["countedTokens"].is_u64(), "{run}: {r}");
            if r["captured"] == true {
                assert!(r["messages"].as_u64().is_some_and(|m| m > 0), "{run}: {r}");
            }
        }
        let counted: u64 = rows.iter().filter_map(|r| r["countedTokens"].as_u64()).sum();
        assert_eq!(counted > 0, rows.iter().any(|r| r["captured"] == true), "{run}");
        let captured = rows.iter().filter(|r| r["captured"] == true).count();
        let o = pep(&args(&["import"], &files));
        if captured == 0 {
            assert_eq!(o.status.code(), Some(1), "{run}");
            assert!(err(&o).contains("error: no call to import"), "{run}: {}", err(&o));
            assert!(err(&o).contains("to record them: "), "{run}: {}", err(&o));
            continue;
        }
        assert_eq!(o.status.code(), Some(0), "{run}: {}", err(&o));
        let envelopes = json_lines(&out(&o));
        assert_eq!(envelopes.len(), captured, "{run}");
        for e in &envelopes {
            assert_eq!(e["version"], "1.0", "{run}");
        }
        // What was not captured is named, with how to capture it.
        let skipped = err(&o).lines().filter(|l| l.ends_with("without its messages: skipped")).count();
        assert_eq!(skipped, rows.len() - captured, "{run}: {}", err(&o));
        // The JSON Lines of envelopes read back: the same calls.
        let again = Temp::new(&format!("{run}.envelopes.jsonl"), out(&o).as_bytes());
        let o = pep(&["validate", again.path()]);
        assert_eq!(o.status.code(), Some(0), "{run}: {}", err(&o));
    }
}

#[test]
fn calls_not_captured_are_skipped_with_how_to_capture_them() {
    let files = run_files("otel-openai-v2-no-content");
    let o = pep(&args(&["export", "--format", "openai"], &files));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(out(&o), "");
    let e = err(&o);
    let named = e.lines().filter(|l| l.contains(" trace ") && l.contains(" span ") && l.ends_with("skipped")).count();
    assert_eq!(named, expected_calls()["otel-openai-v2-no-content"], "{e}");
    assert!(e.contains("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"), "{e}");

    // Some captured, some not: the captured ones are written, exit 0.
    let files = run_files("openllmetry-openai");
    let o = pep(&args(&["export", "--format", "openai"], &files));
    let rows = json_lines(&out(&pep(&args(&["calls", "--format", "json"], &files))));
    let uncaptured = rows.iter().filter(|r| r["captured"] == false).count();
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(json_lines(&out(&o)).len(), rows.len() - uncaptured);
    if uncaptured > 0 {
        assert!(err(&o).contains("TRACELOOP_TRACE_CONTENT"), "{}", err(&o));
    }
}

#[test]
fn a_trace_with_one_call_prints_as_a_single_document() {
    // One line of a Collector file (the span of one call, with its
    // messages): one call, printed as a single document is (pretty JSON).
    let run = format!("{FIX}/traces/otel-openai-v2-latest-span/traces.jsonl");
    let text = std::fs::read_to_string(root().join(&run)).unwrap();
    let span = text.lines().find(|l| l.contains("gen_ai.input.messages")).unwrap();
    let f = Temp::new("one-span.json", span.as_bytes());
    let o = pep(&["import", f.path()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    assert!(text.starts_with("{\n  \"version\": \"1.0\""), "{text}");
    let env: Value = serde_json::from_str(&text).unwrap();
    assert!(!env["messages"].as_array().unwrap().is_empty());
    let o = pep(&["export", "--format", "openai", f.path()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(out(&o).starts_with("{\n"));
    let body: Value = serde_json::from_str(&out(&o)).unwrap();
    assert!(body["messages"].is_array() && body["model"].is_string(), "{body}");

    // A pretty-printed OTLP export and its logs holding two calls: JSON Lines,
    // each located at its span's line in the pretty file.
    let t = format!("{FIX}/traces/single/otel-openai-v2-latest-span-and-event.chat_tools.traces.json");
    let l = format!("{FIX}/traces/single/otel-openai-v2-latest-span-and-event.chat_tools.logs.json");
    let o = pep(&["import", &t, &l]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(json_lines(&out(&o)).len(), 2);
    let rows = json_lines(&out(&pep(&["calls", "--format", "json", &t, &l])));
    let pretty = std::fs::read_to_string(root().join(&t)).unwrap();
    for r in &rows {
        let line = r["at"]["line"].as_u64().unwrap() as usize;
        let span = r["at"]["spanId"].as_str().unwrap();
        let at = pretty.lines().nth(line - 1).unwrap();
        assert!(at.contains("\"spanId\"") && at.to_lowercase().contains(span), "line {line}: {at}");
    }
}

#[test]
fn unreadable_lines_are_named_by_file_and_line_and_never_panic() {
    let good = r#"{"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]}"#;
    let mut bytes = Vec::new();
    bytes.extend_from_slice(good.as_bytes());
    bytes.extend_from_slice(b"\n{\"model\":\"gpt-4o\",\"messa\n");
    bytes.extend_from_slice(b"%%% not json at all\n");
    bytes.extend_from_slice(b"{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"caf\xe9\"}]}\n");
    bytes.extend_from_slice(b"[1, 2]\n");
    bytes.extend_from_slice(b"{\"custom_id\":\"r1\",\"method\":\"POST\",\"url\":\"/v1/embeddings\",\"body\":{}}\n");
    bytes.extend_from_slice(b"{\"custom_id\":\"r2\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\"m\",\"messages\":[{\"role\":\"wizard\",\"content\":\"x\"}]}}\n");
    bytes.extend_from_slice(good.as_bytes());
    bytes.extend_from_slice(b"\n\n");
    let f = Temp::new("broken.jsonl", &bytes);
    let name = f.path();

    let o = pep(&["export", "--format", "openai", name]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert_eq!(json_lines(&out(&o)).len(), 2, "the two good lines are still written");
    let e = err(&o);
    assert!(e.contains(&format!("{name}:2: error: column ")), "{e}");
    assert!(e.contains("invalid JSON: EOF while parsing"), "{e}");
    assert!(e.contains(&format!("{name}:3: error: column 1: invalid JSON")), "{e}");
    assert!(e.contains(&format!("{name}:4: error: column ")) && e.contains("not valid UTF-8"), "{e}");
    assert!(e.contains(&format!("{name}:5: error: expected a JSON object")), "{e}");
    assert!(e.contains(&format!("{name}:6 custom_id \"r1\": error: url: ")), "{e}");

    for cmd in [&["import"][..], &["validate"], &["calls"], &["lint"], &["lint", "--format", "sarif"]] {
        let o = pep(&args(cmd, &[name.to_string()]));
        assert_eq!(o.status.code(), Some(1), "{cmd:?}: {}", err(&o));
    }
    let o = pep(&["lint", "--format", "github", name]);
    let text = out(&o);
    assert!(text.contains(&format!("::error file={name},line=2,col=")), "{text}");
    assert!(text.contains("title=error [invalid-json]"), "{text}");
    assert!(text.contains(&format!("::error file={name},line=4,col=")), "{text}");
    // Each line's finding under the rule it breaks, not one catch-all.
    let titled = |line: u32| {
        text.lines()
            .find(|l| l.starts_with(&format!("::error file={name},line={line},")))
            .and_then(|l| l.split("title=error [").nth(1))
            .and_then(|t| t.split(']').next())
            .unwrap_or("")
            .to_string()
    };
    for (line, code) in [
        (2, "invalid-json"),
        (3, "invalid-json"),
        (4, "invalid-utf8"),
        (5, "unreadable-record"),
        (6, "unreadable-record"),
        (7, "import-unknown-role"),
    ] {
        assert_eq!(titled(line), code, "line {line}: {text}");
    }
    let o = pep(&["calls", "--format", "json", name]);
    assert_eq!(json_lines(&out(&o)).len(), 2);

    // A truncated file: its last line cut in the middle.
    let whole = std::fs::read_to_string(root().join(FIX).join("batch/openai_batch.jsonl")).unwrap();
    let cut = &whole[..whole.len() - 40];
    let lines = cut.lines().count();
    let f = Temp::new("cut.jsonl", cut.as_bytes());
    let o = pep(&["export", "--format", "openai", "--batch", f.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json_lines(&out(&o)).len(), lines - 1);
    assert!(err(&o).contains(&format!("{}:{lines}: error: column ", f.path())), "{}", err(&o));
}

/// A batch file with a secret in its third request.
fn batch_with_a_secret() -> Temp {
    let line = |id: &str, text: &str| {
        serde_json::json!({"custom_id": id, "method": "POST", "url": "/v1/chat/completions",
            "body": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": text}]}})
        .to_string()
    };
    let key = format!("sk-proj-{}", "a1B2c3D4e5F6g7H8i9J0".repeat(3));
    let text = [
        line("first", "What is the capital of France?"),
        line("second", "Name three rivers."),
        line("leaky", &format!("Use this key: {key} to call the API")),
    ]
    .join("\n");
    Temp::new("secret.jsonl", text.as_bytes())
}

#[test]
fn lint_locates_each_finding_by_file_line_and_call() {
    let f = batch_with_a_secret();
    let name = f.path();

    let o = pep(&["lint", name]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let text = out(&o);
    assert!(text.contains("error[secret]"), "{text}");
    assert!(text.contains(&format!("--> {name}:3 custom_id \"leaky\"")), "{text}");
    assert!(text.contains("= at: messages[0].segments[0]"), "{text}");
    assert!(text.ends_with("in 1 file (3 calls)\n"), "{text}");
    assert!(!text.contains("a1B2c3D4e5F6g7H8i9J0a1B2"), "a secret is never printed whole");

    let o = pep(&["lint", "--format", "json", name]);
    let v: Value = serde_json::from_str(&out(&o)).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 3, "one entry a call");
    let leaky = &files[2];
    assert_eq!(leaky["file"], name);
    assert_eq!(leaky["call"]["line"], 3);
    assert_eq!(leaky["call"]["customId"], "leaky");
    assert_eq!(leaky["findings"][0]["code"], "secret");
    assert_eq!(leaky["findings"][0]["location"]["line"], 3);
    assert_eq!(leaky["findings"][0]["location"]["message"], 0);
    assert_eq!(v["summary"]["errors"], 1);
    assert_eq!(v["summary"]["calls"], 3);

    let o = pep(&["lint", "--format", "sarif", name]);
    let v: Value = serde_json::from_str(&out(&o)).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    let secret = results.iter().find(|r| r["ruleId"] == "secret").unwrap();
    let loc = &secret["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], envelope_uri(name));
    assert_eq!(loc["region"]["startLine"], 3);
    assert_eq!(secret["properties"]["call"]["customId"], "leaky");
    assert!(secret["message"]["text"].as_str().unwrap().starts_with("custom_id \"leaky\": "));
    assert_eq!(v["runs"][0]["tool"]["driver"]["name"], "pep");

    let o = pep(&["lint", "--format", "github", name]);
    let text = out(&o);
    let line = text.lines().find(|l| l.contains("[secret]")).unwrap();
    assert!(line.starts_with(&format!("::error file={name},line=3,")), "{line}");
    assert!(line.contains("::custom_id \"leaky\": messages[0].segments[0]"), "{line}");

    // The calls table shows the last user text, the key masked.
    let o = pep(&["calls", name]);
    assert!(out(&o).contains("Use this key: sk-proj-****"), "{}", out(&o));
    assert!(!out(&o).contains("a1B2c3D4e5F6g7H8i9J0a1B2"));

    // validate: per call, errors only for what makes an envelope invalid.
    let o = pep(&["validate", name]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
}

/// The SARIF URI of a path as pep writes it (an absolute path: `file://`).
fn envelope_uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if path.starts_with('/') {
        format!("file://{out}")
    } else {
        out
    }
}

#[test]
fn lint_of_a_trace_names_trace_and_span() {
    let files = run_files("otel-openai-v2-events");
    let o = pep(&args(&["lint", "--format", "json"], &files));
    let v: Value = serde_json::from_str(&out(&o)).unwrap_or_else(|e| panic!("{e}: {}", out(&o)));
    let calls = v["files"].as_array().unwrap();
    assert_eq!(calls.len(), expected_calls()["otel-openai-v2-events"]);
    for c in calls {
        assert!(c["call"]["traceId"].as_str().is_some_and(|t| t.len() == 32), "{c}");
        assert!(c["call"]["spanId"].as_str().is_some_and(|t| t.len() == 16), "{c}");
        assert!(c["call"]["line"].is_u64());
        assert!(c["file"].as_str().unwrap().ends_with("traces.jsonl"));
    }
    // Plain documents beside them are linted as always.
    let mut with_doc = vec!["demos/a.json".to_string()];
    with_doc.extend(files);
    let o = pep(&args(&["lint"], &with_doc));
    let text = out(&o);
    assert!(text.contains("in 3 files ("), "{text}");
}

#[test]
fn calls_table_sorts_and_filters() {
    let files = run_files("otel-openai-v2-latest-span");
    let o = pep(&args(&["calls"], &files));
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    let lines: Vec<&str> = text.lines().collect();
    let want = expected_calls()["otel-openai-v2-latest-span"];
    assert!(lines[0].starts_with("START (UTC)  "), "{text}");
    for h in ["CALL", "PROVIDER", "MODEL", "MSGS", "IN REC", "IN O200K", "DURATION", "FINDINGS", "LAST USER"] {
        assert!(lines[0].contains(h), "{h}");
    }
    assert_eq!(lines.len(), want + 2, "{text}");
    assert_eq!(lines[want + 1], format!("{want} calls; 18 spans that are not model calls passed over"));
    // Aligned: every row's MODEL column starts where the header's does.
    let col = lines[0].find("MODEL").unwrap();
    assert!(lines[1..=want].iter().all(|l| l[col - 2..col] == *"  " && &l[col..col + 3] == "gpt"), "{text}");

    let rows = |extra: &[&str]| {
        let mut a = vec!["calls", "--format", "json"];
        a.extend_from_slice(extra);
        let o = pep(&args(&a, &files));
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        json_lines(&out(&o))
    };
    let by_tokens = rows(&["--sort", "tokens"]);
    let t: Vec<u64> = by_tokens.iter().map(|r| r["countedTokens"].as_u64().unwrap()).collect();
    assert!(t.windows(2).all(|w| w[0] >= w[1]), "{t:?}");
    let by_duration = rows(&["--sort", "duration"]);
    let d: Vec<u64> = by_duration.iter().map(|r| r["durationNs"].as_u64().unwrap()).collect();
    assert!(d.windows(2).all(|w| w[0] >= w[1]), "{d:?}");
    let all = rows(&[]);
    let mini = rows(&["--filter", "model=GPT-4O-MINI"]);
    assert_eq!(mini.len(), all.iter().filter(|r| r["model"] == "gpt-4o-mini").count());
    assert!(!mini.is_empty() && mini.len() < all.len());
    let prefix = rows(&["--filter", "provider=openai,model=gpt-4o*"]);
    let want = all.iter().filter(|r| r["model"].as_str().unwrap().starts_with("gpt-4o")).count();
    assert_eq!(prefix.len(), want);
    assert!(want > mini.len());
    assert_eq!(rows(&["--filter", "model=gpt-4o*", "--filter", "captured=yes"]).len(), want);
    assert_eq!(rows(&["--filter", "model=gpt-4o-mini,model=gpt-4.1-mini"]).len(), all.len() - want + mini.len());
    let none = rows(&["--filter", "provider=anthropic"]);
    assert!(none.is_empty());
    let o = pep(&args(&["calls", "--filter", "colour=blue"], &files));
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("unknown key `colour`"), "{}", err(&o));
}

#[test]
fn stdin_and_several_bodies() {
    let file = format!("{FIX}/batch/bodies.jsonl");
    let bytes = std::fs::read(root().join(&file)).unwrap();
    let n = fixture_lines(&file).len();
    let o = pep_stdin(&["export", "--format", "openai", "-"], &bytes);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let got = json_lines(&out(&o));
    assert_eq!(got.len(), n);
    // The OpenAI Chat bodies among them come back as they were.
    let mut chat = 0;
    for (i, (body, got)) in fixture_lines(&file).iter().zip(&got).enumerate() {
        let is_chat = body["model"].as_str().is_some_and(|m| m.starts_with("gpt")) && body["messages"].is_array();
        if is_chat {
            assert!(body == got, "line {}: {got}", i + 1);
            chat += 1;
        }
    }
    assert!(chat >= 5, "{chat} OpenAI Chat bodies");
    // A single body on stdin still reads as before.
    let one = serde_json::to_string(&fixture_lines(&file)[0]).unwrap();
    let o = pep_stdin(&["import", "-"], one.as_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(out(&o).starts_with("{\n"));
    // Two body files: two calls, JSON Lines.
    let a = Temp::new("a.json", one.as_bytes());
    let b = Temp::new("b.json", one.as_bytes());
    let o = pep(&["import", a.path(), b.path()]);
    assert_eq!(json_lines(&out(&o)).len(), 2, "{}", err(&o));
    // Gemini bodies name no model: --model gives it.
    let g = format!("{FIX}/batch/gemini_bodies.jsonl");
    let o = pep(&["import", "--model", "gemini-2.5-flash", &g]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(json_lines(&out(&o)).iter().all(|e| e["model"] == "gemini-2.5-flash"));
    let o = pep(&["import", "--from", "openai", &g]);
    assert_eq!(o.status.code(), Some(2));
}

/// The peak resident memory of a run of pep fed `lines` generated lines
/// through a pipe (kB, from /proc/PID/status VmHWM read until it exits),
/// and the lines it wrote.
fn peak_rss(cmd: &[&str], lines: usize) -> (u64, usize) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pep"))
        .args(cmd)
        .arg("-")
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let filler = "All work and no play makes a very long prompt. ".repeat(40);
        let mut w = std::io::BufWriter::new(&mut stdin);
        for i in 0..lines {
            let line = format!(
                "{{\"model\":\"gpt-4o-mini\",\"messages\":[{{\"role\":\"system\",\"content\":\"You are terse.\"}},{{\"role\":\"user\",\"content\":\"{i}: {filler}\"}}]}}\n"
            );
            if w.write_all(line.as_bytes()).is_err() {
                break;
            }
        }
    });
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || BufReader::new(stdout).lines().count());
    let mut peak = 0;
    loop {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            if let Some(kb) = status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse::<u64>().ok())
            {
                peak = peak.max(kb);
            }
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    writer.join().unwrap();
    (peak, reader.join().unwrap())
}

#[test]
fn json_lines_stream_in_constant_memory() {
    if !Path::new("/proc/self/status").exists() {
        return;
    }
    // Lines of about 2 KB: 1,500 of them (3 MB) and 15,000 (30 MB), read
    // from a pipe. The memory pep needs may not grow with the input.
    let window = ["--window", "64"];
    let mut export = vec!["export", "--format", "openai"];
    export.extend(window);
    let (small, n_small) = peak_rss(&export, 1_500);
    let (big, n_big) = peak_rss(&export, 15_000);
    assert_eq!((n_small, n_big), (1_500, 15_000), "one line out per line in");
    eprintln!("export: peak RSS {small} kB for 1,500 lines, {big} kB for 15,000");
    assert!(big < small + 6_000, "export: {small} kB for 3 MB, {big} kB for 30 MB");

    let mut calls = vec!["calls", "--format", "json"];
    calls.extend(window);
    let (small, n_small) = peak_rss(&calls, 300);
    let (big, n_big) = peak_rss(&calls, 3_000);
    assert_eq!((n_small, n_big), (300, 3_000));
    eprintln!("calls: peak RSS {small} kB for 300 lines, {big} kB for 3,000");
    assert!(big < small + 6_000, "calls: {small} kB for 0.6 MB, {big} kB for 6 MB");
}

#[test]
fn a_closed_stdout_stops_the_reading() {
    // `pep export big.jsonl | head -1`: pep stops soon after head exits.
    let mut child = Command::new(env!("CARGO_BIN_EXE_pep"))
        .args(["export", "--format", "openai", "--window", "1", "-"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let line = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n";
        let mut written = 0u64;
        // Stops when pep has gone (the pipe breaks); 2 million lines at most.
        while written < 2_000_000 && stdin.write_all(line.as_bytes()).is_ok() {
            written += 1;
        }
        written
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let status = child.wait().unwrap();
    let written = writer.join().unwrap();
    assert!(written < 2_000_000, "pep read on after its stdout closed");
    assert_ne!(status.code(), Some(101), "no panic");
}

#[test]
fn a_collector_file_with_both_signals_joins_spans_and_events() {
    // A Collector's file exporter writing traces and logs to one file:
    // the lines of both, interleaved. One file is read windowed; the
    // events still find their spans, as with the two files given together.
    let run = "otel-openai-v2-events";
    let files = run_files(run);
    assert_eq!(files.len(), 2);
    let traces = std::fs::read_to_string(root().join(&files[0])).unwrap();
    let logs = std::fs::read_to_string(root().join(&files[1])).unwrap();
    let (mut t, mut l) = (traces.lines(), logs.lines());
    let mut mixed = String::new();
    loop {
        let (a, b) = (l.next(), t.next());
        for x in [a, b].into_iter().flatten() {
            mixed.push_str(x);
            mixed.push('\n');
        }
        if a.is_none() && b.is_none() {
            break;
        }
    }
    let f = Temp::new("collector.jsonl", mixed.as_bytes());
    let together = json_lines(&out(&pep(&args(&["calls", "--format", "json"], &files))));
    let o = pep(&["calls", "--format", "json", f.path()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let one = json_lines(&out(&o));
    assert_eq!(one.len(), expected_calls()[run]);
    let key = |r: &Value| (r["at"]["spanId"].clone(), r["captured"].clone(), r["messages"].clone());
    assert_eq!(one.iter().map(key).collect::<Vec<_>>(), together.iter().map(key).collect::<Vec<_>>());
    assert!(one.iter().all(|r| r["captured"] == true));
}

#[test]
fn calls_of_a_batch_document_are_located_at_their_request() {
    let file = format!("{FIX}/batch/anthropic_batch.json");
    let text = std::fs::read_to_string(root().join(&file)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let rows = json_lines(&out(&pep(&["calls", "--format", "json", &file])));
    assert!(rows.len() >= 10);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["at"]["index"], i as u64);
        let line = r["at"]["line"].as_u64().unwrap() as usize;
        assert_eq!(lines[line - 1].trim(), "{", "requests[{i}] starts at line {line}");
        let id = r["at"]["customId"].as_str().unwrap();
        assert!(lines[line].contains(&format!("\"custom_id\": \"{id}\"")), "{}", lines[line]);
    }
}

#[test]
fn curl_exports_of_several_calls_are_one_command_each() {
    let file = format!("{FIX}/batch/openai_batch.jsonl");
    let n = fixture_lines(&file).len();
    let o = pep(&["export", "--format", "curl-openai", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let text = out(&o);
    assert_eq!(text.lines().filter(|l| l.starts_with("curl ")).count(), n, "{text}");
}
