//! `pep test`: golden suites run as a user would run them — exit codes, the
//! failures' paths and kinds in `--format json`, JUnit well-formed, GitHub
//! commands escaped, broken suites exit 2 saying where and what.
//!
//! The suite is the source document's ComplianceReport (section 3.2):
//! tests/fixtures/golden/compliance-report, with model outputs under
//! tests/fixtures/golden/outputs/<scenario>/.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/golden")
}

fn suite() -> String {
    fixtures().join("compliance-report").display().to_string()
}

fn outputs(scenario: &str) -> String {
    fixtures().join("outputs").join(scenario).display().to_string()
}

fn pep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pep")).args(args).output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `pep test SUITE --outputs SCENARIO --format json`: exit code and report.
fn run_json(scenario: &str) -> (i32, Value) {
    let o = pep(&["test", &suite(), "--outputs", &outputs(scenario), "--format", "json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{}", out(&o), err(&o)));
    (o.status.code().unwrap(), v)
}

fn case<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["cases"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap()
}

/// (path, kind) of every failure of a case.
fn failures(report: &Value, name: &str) -> Vec<(String, String)> {
    case(report, name)["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f["kind"].as_str().unwrap().to_string()))
        .collect()
}

fn pair(p: &str, k: &str) -> (String, String) {
    (p.to_string(), k.to_string())
}

#[test]
fn identical_output_passes() {
    let (code, r) = run_json("identical");
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(case(&r, "US_legal_doc")["status"], "pass");
    assert_eq!(case(&r, "EU_privacy_notice")["status"], "pass");
    let s = &r["summary"];
    assert_eq!((s["cases"].as_u64(), s["passed"].as_u64(), s["failed"].as_u64()), (Some(2), Some(2), Some(0)));
    assert_eq!(s["validity_rate"].as_f64(), Some(1.0));
    // Prompt version from the envelope, model from the response body (US) and the request (EU).
    assert_eq!(s["by"][0]["prompt_version"], "2.3.1");
    assert_eq!(s["by"][0]["model"], "gpt-4o-2024-08-06");
    assert_eq!(case(&r, "US_legal_doc")["metadata"]["reviewer"], "J. Chen (legal)");
}

#[test]
fn an_array_that_grew_fails_at_its_path() {
    let (code, r) = run_json("array-grew");
    assert_eq!(code, 1);
    assert_eq!(
        failures(&r, "US_legal_doc"),
        [pair("/findings/0/remediation_steps", "length"), pair("/findings/0/remediation_steps/3", "unexpected")]
    );
    let f = &case(&r, "US_legal_doc")["failures"][0];
    assert_eq!((f["expected"].as_str(), f["actual"].as_str()), (Some("[3 items]"), Some("[4 items]")));
    assert_eq!(case(&r, "US_legal_doc")["failures"][1]["actual"], "Archive old version");
    assert_eq!(case(&r, "EU_privacy_notice")["status"], "pass");
    // Schema-valid, so validity stays 2/2.
    assert_eq!(r["summary"]["validity_rate"].as_f64(), Some(1.0));
}

#[test]
fn a_missing_required_field_fails() {
    let (code, r) = run_json("missing-field");
    assert_eq!(code, 1);
    let f = failures(&r, "US_legal_doc");
    assert_eq!(f, [pair("", "schema"), pair("/confidence_score", "missing")]);
    let msg = case(&r, "US_legal_doc")["failures"][0]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("confidence_score") && msg.contains("[required]"), "{msg}");
    assert_eq!(r["summary"]["validity_rate"].as_f64(), Some(0.5));
}

#[test]
fn an_enum_value_outside_fails() {
    let (code, r) = run_json("enum-outside");
    assert_eq!(code, 1);
    assert_eq!(
        failures(&r, "US_legal_doc"),
        [pair("/findings/0/severity", "schema"), pair("/findings/0/severity", "value")]
    );
    assert!(case(&r, "US_legal_doc")["failures"][0]["message"].as_str().unwrap().contains("[enum]"));
}

#[test]
fn a_number_out_of_range_fails() {
    let (code, r) = run_json("out-of-range");
    assert_eq!(code, 1);
    assert_eq!(failures(&r, "US_legal_doc"), [pair("/confidence_score", "schema"), pair("/confidence_score", "value")]);
    assert!(case(&r, "US_legal_doc")["failures"][0]["message"].as_str().unwrap().contains("[maximum]"));
}

#[test]
fn prose_around_the_json_fails() {
    let (code, r) = run_json("prose-around");
    assert_eq!(code, 1);
    assert_eq!(failures(&r, "US_legal_doc"), [pair("", "parse")]);
    let msg = case(&r, "US_legal_doc")["failures"][0]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("prose") && msg.contains("Here's your report:"), "{msg}");
    // An output that does not parse is not valid.
    assert_eq!(r["summary"]["validity_rate"].as_f64(), Some(0.5));
}

#[test]
fn a_paraphrased_summary_passes_fuzzy_and_an_unrelated_one_fails() {
    let (code, r) = run_json("paraphrased");
    assert_eq!(code, 0, "{r:#}");
    let (code, r) = run_json("unrelated-summary");
    assert_eq!(code, 1);
    assert_eq!(failures(&r, "US_legal_doc"), [pair("/summary", "fuzzy")]);
    assert!(case(&r, "US_legal_doc")["failures"][0]["message"].as_str().unwrap().contains("threshold 0.6"));
}

#[test]
fn text_report_is_a_field_level_diff() {
    let o = pep(&["test", &suite(), "--outputs", &outputs("array-grew")]);
    assert_eq!(o.status.code(), Some(1));
    let t = out(&o);
    assert!(t.contains("FAIL compliance-report/US_legal_doc"), "{t}");
    assert!(t.contains("  /findings/0/remediation_steps (length): the array has 4 items, the golden output 3\n    - [3 items]\n    + [4 items]\n"), "{t}");
    assert!(t.contains("ok   compliance-report/EU_privacy_notice"), "{t}");
    assert!(t.contains("output validity: 2/2 valid (100.0%)"), "{t}");
    assert!(t.contains("reviewer J. Chen (legal)"), "{t}");
}

#[test]
fn without_outputs_the_suite_checks_itself() {
    let o = pep(&["test", &suite()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("no --outputs or --live"), "{}", err(&o));
    // A folder holding suites works as the suite itself.
    let o = pep(&["test", &fixtures().display().to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
}

/// A quick XML well-formedness check: one root element, tags balanced,
/// attributes quoted, no raw `<` or stray `&` in text or attribute values.
fn well_formed(x: &str) -> Result<(), String> {
    let mut s = x.strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>").ok_or("no XML declaration")?;
    let mut stack: Vec<String> = Vec::new();
    let mut roots = 0;
    let check_text = |t: &str| -> Result<(), String> {
        let mut rest = t;
        while let Some(i) = rest.find('&') {
            rest = &rest[i + 1..];
            let end = rest.find(';').ok_or(format!("unterminated entity in {t:?}"))?;
            let name = &rest[..end];
            let ok = matches!(name, "amp" | "lt" | "gt" | "quot" | "apos")
                || name.strip_prefix('#').is_some_and(|n| n.parse::<u32>().is_ok());
            if !ok {
                return Err(format!("bad entity &{name};"));
            }
        }
        if t.chars().any(|c| (c as u32) < 0x20 && !matches!(c, '\n' | '\r' | '\t')) {
            return Err(format!("control character in {t:?}"));
        }
        Ok(())
    };
    while !s.is_empty() {
        let Some(i) = s.find('<') else {
            if !stack.is_empty() || !s.trim().is_empty() {
                return Err(format!("text after the root: {s:?}"));
            }
            break;
        };
        check_text(&s[..i])?;
        if stack.is_empty() && !s[..i].trim().is_empty() {
            return Err("text outside the root".into());
        }
        s = &s[i + 1..];
        // A tag: up to the `>` not inside quotes.
        let mut end = None;
        let mut quote = None;
        for (k, c) in s.char_indices() {
            match (quote, c) {
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (Some(_), '<') => return Err("'<' in an attribute value".into()),
                (None, '>') => {
                    end = Some(k);
                    break;
                }
                _ => {}
            }
        }
        let end = end.ok_or("unterminated tag")?;
        let tag = &s[..end];
        s = &s[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or(format!("close </{name}> without an open tag"))?;
            if open != name.trim() {
                return Err(format!("<{open}> closed by </{name}>"));
            }
            continue;
        }
        let self_closing = tag.ends_with('/');
        let body = tag.trim_end_matches('/');
        let name: String = body.chars().take_while(|c| !c.is_whitespace()).collect();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_') {
            return Err(format!("bad tag name in <{tag}>"));
        }
        // Attributes: name="value" pairs.
        let mut attrs = body[name.len()..].trim();
        while !attrs.is_empty() {
            let eq = attrs.find('=').ok_or(format!("attribute without a value in <{tag}>"))?;
            let rest = &attrs[eq + 1..];
            let q = rest.chars().next().filter(|c| *c == '"' || *c == '\'').ok_or("unquoted attribute")?;
            let close = rest[1..].find(q).ok_or("unterminated attribute")?;
            check_text(&rest[1..1 + close])?;
            attrs = rest[close + 2..].trim_start();
        }
        if stack.is_empty() {
            roots += 1;
        }
        if !self_closing {
            stack.push(name);
        }
    }
    if !stack.is_empty() {
        return Err(format!("unclosed {stack:?}"));
    }
    if roots != 1 {
        return Err(format!("{roots} root elements"));
    }
    Ok(())
}

#[test]
fn the_well_formedness_check_catches_bad_xml() {
    let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    assert!(well_formed(&format!("{head}<a x=\"1\"><b/>t &amp; u</a>\n")).is_ok());
    for bad in
        ["<a><b></a></b>", "<a>x < y</a>", "<a x=\"&\"/>", "<a>&nope;</a>", "<a/><b/>", "<a x=\"<\"/>", "<a>\u{1b}</a>"]
    {
        assert!(well_formed(&format!("{head}{bad}")).is_err(), "{bad}");
    }
}

#[test]
fn junit_is_well_formed_xml() {
    for scenario in ["identical", "array-grew", "prose-around", "hostile"] {
        let o = pep(&["test", &suite(), "--outputs", &outputs(scenario), "--format", "junit"]);
        let x = out(&o);
        well_formed(&x).unwrap_or_else(|e| panic!("{scenario}: {e}\n{x}"));
        assert!(x.contains("<testsuite name=\"compliance-report\" tests=\"2\""), "{x}");
    }
    let o = pep(&["test", &suite(), "--outputs", &outputs("array-grew"), "--format", "junit"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(out(&o).matches("<failure ").count(), 1);
}

#[test]
fn hostile_strings_are_escaped_in_every_format() {
    let o = pep(&["test", &suite(), "--outputs", &outputs("hostile")]);
    assert_eq!(o.status.code(), Some(1));
    let t = out(&o);
    assert!(!t.contains('\u{1b}') && !t.contains('\u{202e}'), "{t:?}");
    let o = pep(&["test", &suite(), "--outputs", &outputs("hostile"), "--format", "github"]);
    let g = out(&o);
    for l in g.lines() {
        assert!(l.starts_with("::error file=") || l.starts_with("::notice title=pep test::"), "{l:?}");
    }
    assert!(g.contains("%0A"), "{g}");
    // The hostile value's line break and `::` stay inside the one command.
    assert!(!g.lines().any(|l| l.starts_with("::warning")), "{g}");
    let o = pep(&["test", &suite(), "--outputs", &outputs("hostile"), "--format", "json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["cases"][1]["failures"][0]["path"], "/findings/0/description");
}

#[test]
fn github_commands_name_the_golden_file() {
    let o = pep(&["test", &suite(), "--outputs", &outputs("out-of-range"), "--format", "github"]);
    assert_eq!(o.status.code(), Some(1));
    let g = out(&o);
    let first = g.lines().next().unwrap();
    assert!(first.starts_with("::error file="), "{first}");
    assert!(
        first.contains(
            "output_US_legal_doc.json,title=pep test compliance-report/US_legal_doc%3A /confidence_score (schema)::"
        ),
        "{first}"
    );
    assert!(g.lines().last().unwrap().starts_with("::notice title=pep test::2 cases: 1 passed, 1 failed"), "{g}");
}

/// A copy of the suite in a fresh temporary folder, for breaking.
struct Copy(PathBuf);

impl Copy {
    fn new(tag: &str) -> Copy {
        let dir = std::env::temp_dir().join(format!("pep-test-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(suite()).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
        Copy(dir)
    }

    fn write(&self, name: &str, content: &str) {
        std::fs::write(self.0.join(name), content).unwrap();
    }

    fn run(&self) -> Output {
        pep(&["test", &self.0.display().to_string()])
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn broken(c: &Copy, wants: &[&str]) {
    let o = c.run();
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(out(&o).is_empty(), "{}", out(&o));
    let e = err(&o);
    for w in wants {
        assert!(e.contains(w), "{w:?} not in {e}");
    }
}

#[test]
fn broken_suites_exit_2_saying_where_and_what() {
    // An unknown key in pep-test.toml, named.
    let c = Copy::new("key");
    c.write("pep-test.toml", "prompt = \"prompt.json\"\nfuzzy_match = true\n");
    broken(&c, &["pep-test.toml: error:", "fuzzy_match"]);
    // Not TOML.
    c.write("pep-test.toml", "prompt = \n");
    broken(&c, &["pep-test.toml: error:"]);
    // A pointer that is not a JSON Pointer, a threshold out of range.
    c.write(
        "pep-test.toml",
        "prompt = \"prompt.json\"\n[match]\nexact = [\"summary\"]\nfuzzy = { \"/summary\" = 2 }\n",
    );
    broken(&c, &["[match] exact: \"summary\" is not a JSON Pointer", "threshold"]);
    // A missing prompt.
    c.write("pep-test.toml", "prompt = \"nope.json\"\n");
    broken(&c, &["nope.json: error: cannot read"]);

    // A golden output that is not JSON.
    let c = Copy::new("golden");
    c.write("output_US_legal_doc.json", "{\"summary\": ");
    broken(&c, &["output_US_legal_doc.json: error: line 1 column", "not JSON"]);
    // A golden without its input, an input without its golden.
    let c = Copy::new("pairs");
    std::fs::remove_file(c.0.join("input_US_legal_doc.json")).unwrap();
    std::fs::remove_file(c.0.join("output_EU_privacy_notice.json")).unwrap();
    broken(&c, &["has no input_US_legal_doc.json", "has no golden output_EU_privacy_notice.json"]);
    // An input that is not an object.
    let c = Copy::new("input");
    c.write("input_US_legal_doc.json", "[1, 2]");
    broken(&c, &["input_US_legal_doc.json: error: the input must be a JSON object"]);
    // A schema that does not compile.
    let c = Copy::new("schema");
    c.write("bad-schema.json", "{\"type\": 12}");
    c.write("pep-test.toml", "prompt = \"prompt.json\"\nschema = \"bad-schema.json\"\n");
    broken(&c, &["bad-schema.json: error: the schema does not compile"]);
    // A golden that breaks the schema.
    let c = Copy::new("golden-schema");
    c.write("output_EU_privacy_notice.json", "{\"summary\": null, \"findings\": [], \"confidence_score\": 0.5}");
    broken(&c, &["output_EU_privacy_notice.json: error: the golden output does not satisfy the schema", "/summary"]);
    // Not a suite at all.
    let o = pep(&["test", &fixtures().join("outputs").display().to_string()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("no pep-test.toml"), "{}", err(&o));
    // --outputs that is not a folder.
    let o = pep(&["test", &suite(), "--outputs", "/nonexistent/pep-outputs"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("--outputs must be a folder"), "{}", err(&o));
}

#[test]
fn a_missing_output_fails_the_case() {
    let dir = std::env::temp_dir().join(format!("pep-test-missing-out-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        fixtures().join("outputs/identical/output_EU_privacy_notice.json"),
        dir.join("output_EU_privacy_notice.json"),
    )
    .unwrap();
    let o = pep(&["test", &suite(), "--outputs", &dir.display().to_string(), "--format", "json"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(failures(&v, "US_legal_doc"), [pair("", "parse")]);
    assert!(case(&v, "US_legal_doc")["failures"][0]["message"].as_str().unwrap().starts_with("no output: "));
    // No output: not counted among the outputs.
    assert_eq!(v["summary"]["outputs"], 1);
}

#[test]
fn lint_errors_in_the_rendered_prompt_fail_the_case() {
    let c = Copy::new("lint");
    // A secret in a variable's value reaches the model: lint's `secret` rule (error).
    c.write("input_US_legal_doc.json", "{\"doc_id\": \"sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH\", \"jurisdiction\": \"US\", \"clauses\": []}");
    let o = pep(&["test", &c.0.display().to_string(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", out(&o), err(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = failures(&v, "US_legal_doc");
    assert!(f.iter().all(|(p, k)| p.is_empty() && k == "render"), "{f:?}");
    assert!(!f.is_empty());
    let text = serde_json::to_string(&v).unwrap();
    assert!(!text.contains("AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"), "the secret is in the report: {text}");
    assert_eq!(case(&v, "EU_privacy_notice")["status"], "pass");
}

#[test]
fn a_promptpoet_template_renders_with_its_includes() {
    let s = fixtures().join("promptpoet-triage").display().to_string();
    let o = pep(&["test", &s, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    // Without its included section the template does not render: each case fails as render.
    let dir = std::env::temp_dir().join(format!("pep-test-pp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(&s).unwrap() {
        let e = e.unwrap();
        if e.path().is_file() {
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
    }
    let o = pep(&["test", &dir.display().to_string(), "--format", "json"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(1), "{}{}", out(&o), err(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(failures(&v, "refund"), [pair("", "render")]);
    let msg = case(&v, "refund")["failures"][0]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("sections/rules.txt"), "{msg}");
}

/// A loopback server speaking OpenAI Chat Completions: answers `n` requests
/// (the triage suite's golden outputs; ticket T-882 with priority 3), and
/// returns the request bodies it got.
fn serve(n: usize) -> (u16, std::thread::JoinHandle<Vec<String>>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let mut bodies = Vec::new();
        for _ in 0..n {
            let (mut s, _) = listener.accept().unwrap();
            let mut buf = Vec::new();
            let mut tmp = [0u8; 8192];
            let body = loop {
                let k = s.read(&mut tmp).unwrap();
                assert!(k > 0, "connection closed before the request was read");
                buf.extend_from_slice(&tmp[..k]);
                let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
                let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
                let len: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .map_or(0, |v| v.trim().parse().unwrap());
                while buf.len() < i + 4 + len {
                    let k = s.read(&mut tmp).unwrap();
                    assert!(k > 0);
                    buf.extend_from_slice(&tmp[..k]);
                }
                break String::from_utf8_lossy(&buf[i + 4..i + 4 + len]).into_owned();
            };
            let answer = if body.contains("T-881") {
                r#"{"category":"billing","priority":2,"summary":"The customer was charged twice for the March invoice."}"#
            } else {
                r#"{"category":"outage","priority":3,"summary":"Since 09:00 the service loads for no user."}"#
            };
            let reply = serde_json::json!({
                "id": "chatcmpl-loopback", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini-2024-07-18",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}]
            })
            .to_string();
            write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            )
            .unwrap();
            bodies.push(body);
        }
        bodies
    });
    (port, handle)
}

#[test]
fn live_sends_each_rendered_request_and_records_the_replies() {
    let (port, server) = serve(2);
    let s = fixtures().join("request-triage").display().to_string();
    let record = std::env::temp_dir().join(format!("pep-test-record-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&record);
    let o = Command::new(env!("CARGO_BIN_EXE_pep"))
        .args(["test", &s, "--live", "--record", &record.display().to_string(), "--retries", "0", "--format", "json"])
        .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("OPENAI_API_KEY", "sk-loopback-test")
        .output()
        .unwrap();
    let bodies = server.join().unwrap();
    assert_eq!(o.status.code(), Some(1), "{}{}", out(&o), err(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(case(&v, "refund")["status"], "pass");
    assert_eq!(failures(&v, "down"), [pair("/priority", "value")]);
    // The summary passes fuzzy; the model is the response's.
    assert_eq!(case(&v, "down")["model"], "gpt-4o-mini-2024-07-18");
    // The variables were set in what was sent, and the request kept its response_format.
    assert_eq!(bodies.len(), 2);
    let refund = bodies.iter().find(|b| b.contains("T-881")).unwrap();
    assert!(refund.contains("Ticket T-881 from Acme Ltd: We were charged twice"), "{refund}");
    assert!(!refund.contains("{{"), "{refund}");
    assert!(refund.contains("\"response_format\""), "{refund}");
    // The recorded replies, read back with --outputs, give the same verdicts.
    assert!(record.join("output_refund.json").is_file());
    let o2 = pep(&["test", &s, "--outputs", &record.display().to_string(), "--format", "json"]);
    let _ = std::fs::remove_dir_all(&record);
    let v2: Value = serde_json::from_slice(&o2.stdout).unwrap();
    assert_eq!(o2.status.code(), Some(1));
    assert_eq!(failures(&v2, "down"), [pair("/priority", "value")]);
    assert_eq!(case(&v2, "refund")["status"], "pass");
}

#[test]
fn live_without_a_key_sends_nothing_and_exits_2() {
    let s = fixtures().join("request-triage").display().to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_pep"))
        .args(["test", &s, "--live"])
        .env_remove("OPENAI_API_KEY")
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}{}", out(&o), err(&o));
    assert!(err(&o).contains("OPENAI_API_KEY"), "{}", err(&o));
    assert!(out(&o).is_empty());
}

#[test]
fn live_does_not_send_a_prompt_with_lint_errors() {
    let (port, server) = serve(1);
    let dir = std::env::temp_dir().join(format!("pep-test-live-lint-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(fixtures().join("request-triage")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    std::fs::write(
        dir.join("input_refund.json"),
        r#"{"ticket_id": "T-881", "customer": "Acme Ltd", "body": "key sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"}"#,
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_pep"))
        .args(["test", &dir.display().to_string(), "--live", "--retries", "0", "--format", "json"])
        .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("OPENAI_API_KEY", "sk-loopback-test")
        .output()
        .unwrap();
    let bodies = server.join().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(1), "{}{}", out(&o), err(&o));
    // Only the clean case went out.
    assert_eq!(bodies.len(), 1);
    assert!(bodies[0].contains("T-882") && !bodies[0].contains("sk-proj-"), "{}", bodies[0]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = failures(&v, "refund");
    assert!(f.contains(&pair("", "render")) && f.contains(&pair("", "live")), "{f:?}");
    assert_eq!(v["summary"]["outputs"], 1);
}

#[test]
fn a_schema_field_the_prompt_never_asks_for_fails_as_render() {
    let c = Copy::new("contract-field");
    let prompt = std::fs::read_to_string(c.0.join("prompt.json")).unwrap();
    let changed = prompt.replace("and a confidence_score between 0 and 1", "and nothing else");
    assert_ne!(prompt, changed);
    c.write("prompt.json", &changed);
    let o = pep(&["test", &c.0.display().to_string(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}{}", out(&o), err(&o));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    for name in ["US_legal_doc", "EU_privacy_notice"] {
        assert_eq!(failures(&v, name), [pair("", "render")]);
        let msg = case(&v, name)["failures"][0]["message"].as_str().unwrap().to_string();
        assert!(msg.contains("confidence_score") && msg.contains("[contract-field]"), "{msg}");
    }
}
