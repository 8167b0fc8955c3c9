//! The `pep` binary, run as a user would: exit codes, stdout and stderr.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

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
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A temporary file with `content`, removed on drop.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str, content: &[u8]) -> Temp {
        let dir = std::env::temp_dir().join(format!("pep-cli-{}", std::process::id()));
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

const VALID: &str = r#"{"version":"1.0","messages":[{"id":"u","role":"user","timestamp":0,"segments":[{"kind":"text","content":"Hi {{name}}"}]}]}"#;

#[test]
fn validate_the_demos_cleanly() {
    let o = pep(&[
        "validate",
        "demos/a.json",
        "demos/b.json",
        "demos/c.json",
        "demos/d.json",
        "demos/e.json",
        "demos/f.json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(err(&o), "");
}

#[test]
fn validate_prints_warnings_and_succeeds() {
    let f = Temp::new("warn.json", VALID.as_bytes());
    let o = pep(&["validate", f.path()]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        err(&o),
        format!(
            "{}: warning: messages[0].segments[0].content: placeholder {{{{name}}}} has no static_var; it is sent as written [undeclared-variable]\n",
            f.path()
        )
    );
}

#[test]
fn validate_prints_every_error_with_file_and_path_and_fails() {
    let bad = Temp::new(
        "bad.json",
        br#"{"version":"1.0","messages":[{"id":"u","role":"robot","timestamp":0,"segments":[{"kind":"text"}]}]}"#,
    );
    let good = Temp::new("good.json", VALID.as_bytes());
    let o = pep(&["validate", good.path(), bad.path()]);
    assert_eq!(o.status.code(), Some(1));
    let e = err(&o);
    assert!(e.contains(&format!("{}: error: messages[0].role: unknown role `robot`", bad.path())), "{e}");
    assert!(
        e.contains(&format!("{}: error: messages[0].segments[0].content: missing field `content`", bad.path())),
        "{e}"
    );
    assert!(e.contains(&format!("{}: warning:", good.path())), "warnings of valid files still show: {e}");
}

#[test]
fn export_prints_the_golden_request() {
    for d in ["a", "d", "f"] {
        let o = pep(&["export", &format!("demos/{d}.json")]);
        assert_eq!(o.status.code(), Some(0));
        let golden =
            std::fs::read_to_string(root().join(format!("crates/envelope/tests/fixtures/golden/{d}.openai.json")))
                .unwrap();
        assert_eq!(out(&o), golden);
    }
    let o = pep(&["export", "--format", "openai", "demos/a.json"]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn export_of_an_invalid_file_fails_with_its_errors() {
    let f = Temp::new("v2.json", br#"{"version":"2.0","messages":[]}"#);
    let o = pep(&["export", f.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(out(&o), "");
    assert!(err(&o).contains("error: version: unsupported version \"2.0\""), "{}", err(&o));
}

#[test]
fn hostile_inputs_exit_1_with_a_message() {
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.json", vec![], "empty"),
        ("binary.json", (0..=255u8).cycle().take(4096).collect(), "not valid UTF-8"),
        ("utf8.json", b"{\"version\": \"1.0\xc3\x28\"}".to_vec(), "line 1 column 17"),
        ("deep.json", "[".repeat(10_000).into_bytes(), "nesting is too deep"),
        (
            "huge.json",
            format!("\"{}\"", "x".repeat(50 << 20)).into_bytes(),
            "expected the document (an object), found a string",
        ),
        ("trailing.json", format!("{VALID} x").into_bytes(), "trailing characters"),
    ];
    for (name, bytes, needle) in cases {
        let f = Temp::new(name, &bytes);
        for cmd in ["validate", "export"] {
            let o = pep(&[cmd, f.path()]);
            assert_eq!(o.status.code(), Some(1), "{cmd} {name}: {}", err(&o));
            assert!(err(&o).contains(needle), "{cmd} {name}: {}", err(&o));
        }
    }
    let o = pep(&["validate", "/no/such/file.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("cannot read"));
}

#[test]
fn skill_prints_json_with_nulls_and_warns() {
    let f = Temp::new(
        "SKILL.md",
        b"---\nname: my-skill\ndescription: \"Does \\\"this\\\"\"\nallowed-tools: [Read, Grep]\n---\n\n# Body\n",
    );
    let o = pep(&["skill", f.path()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"name": "my-skill", "description": "Does \"this\"", "license": null,
            "allowedTools": ["Read", "Grep"], "metadata": null, "body": "# Body"})
    );
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
    assert_eq!(keys, ["name", "description", "license", "allowedTools", "metadata", "body"]);
    // The folder (a temp dir) is not `my-skill`: a warning, not an error.
    assert!(err(&o).contains("warning"), "{}", err(&o));

    let bad = Temp::new("SKILL.md", b"---\nname: [unclosed\n---\nbody\n");
    let o = pep(&["skill", bad.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("error: line 3 column 1: invalid YAML"), "{}", err(&o));
}

#[test]
fn tokens_of_a_file_and_of_stdin() {
    let f = Temp::new("t.txt", "hello world".as_bytes());
    let o = pep(&["tokens", f.path()]);
    assert_eq!((o.status.code(), out(&o)), (Some(0), "2\n".to_string()));
    let o = pep_stdin(&["tokens", "-"], "<|endoftext|>".as_bytes());
    assert_eq!(o.status.code(), Some(0));
    assert_ne!(out(&o), "1\n", "special tokens are ordinary text");
    let o = pep_stdin(&["tokens"], b"\xff");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn truncate_an_envelope() {
    let o = pep(&["truncate", "--limit", "-1", "demos/f.json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["target"], 0);
    assert_eq!(v["totalTokens"], v["keptTokens"]);
    let total = v["totalTokens"].as_u64().unwrap();
    let parts = v["parts"].as_array().unwrap();
    assert!(parts.iter().all(|p| p["kept"] == true));
    assert_eq!(parts.iter().map(|p| p["tokens"].as_u64().unwrap()).sum::<u64>(), total);

    let limit = total / 2;
    let o = pep(&["truncate", "--limit", &limit.to_string(), "--step", "100", "demos/f.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert!(v["keptTokens"].as_u64().unwrap() <= limit);
    assert_eq!(v["target"].as_u64().unwrap() % 100, 0);
    let parts = v["parts"].as_array().unwrap();
    assert!(parts.iter().any(|p| p["kept"] == false));
    assert!(parts.iter().filter(|p| p["priority"] == 0).all(|p| p["kept"] == true));

    let o = pep(&["truncate", "--limit", "10", "demos/f.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("limit is 10"), "{}", err(&o));
    for bad in [["--limit", "0"], ["--limit", "-5"]] {
        let o = pep(&["truncate", bad[0], bad[1], "demos/f.json"]);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
    let o = pep(&["truncate", "--limit", "100", "--step", "0", "demos/f.json"]);
    assert_eq!(o.status.code(), Some(2));

    // §5: a part whose count includes images is marked as an estimate.
    let o = pep(&["truncate", "--limit", "-1", "demos/e.json"]);
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    let estimates: Vec<&str> = v["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["estimate"] == true)
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(estimates, ["e-u1"]);
}

#[test]
fn truncate_promptpoet_parts() {
    let f = Temp::new(
        "parts.json",
        br#"{"token_limit": 10, "truncation_step": 1, "parts": [
            {"name": "sys", "role": "system", "content": "", "truncation_priority": 0, "tokens": 4},
            {"name": "old", "role": "user", "content": "", "truncation_priority": 1, "tokens": 5},
            {"name": "new", "role": "user", "content": "", "truncation_priority": null, "tokens": 3}
        ]}"#,
    );
    let o = pep(&["truncate", "--parts", f.path()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(out(&o), "{\"kept\":[\"sys\",\"new\"],\"total_tokens\":7}\n");

    let tight = Temp::new(
        "tight.json",
        br#"{"token_limit": 2, "parts": [{"name": "a", "truncation_priority": 0, "tokens": 3}]}"#,
    );
    let o = pep(&["truncate", "--parts", tight.path()]);
    assert_eq!(o.status.code(), Some(2));
    let junk = Temp::new("junk.json", b"[1,2]");
    let o = pep(&["truncate", "--parts", junk.path()]);
    assert_eq!(o.status.code(), Some(1));

    // `--step` overrides the file's step, `--step 1` included.
    let stepped = Temp::new(
        "stepped.json",
        br#"{"token_limit": 10, "truncation_step": 20, "parts": [
            {"name": "a", "tokens": 5, "truncation_priority": 1},
            {"name": "b", "tokens": 10, "truncation_priority": 1}
        ]}"#,
    );
    let o = pep(&["truncate", "--parts", stepped.path()]);
    assert_eq!(out(&o), "{\"kept\":[],\"total_tokens\":0}\n");
    let o = pep(&["truncate", "--parts", stepped.path(), "--step", "1"]);
    assert_eq!(out(&o), "{\"kept\":[\"b\"],\"total_tokens\":10}\n");
}

const REQUESTS: &str = "crates/envelope/tests/fixtures/requests";

#[test]
fn import_prints_the_envelope_and_notes_what_has_no_place() {
    let file = format!("{REQUESTS}/anthropic/tools-and-params.json");
    let o = pep(&["import", &file]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let loaded = envelope::parse(&out(&o)).expect("the output is a valid envelope");
    assert_eq!(loaded.envelope.model.as_deref(), Some("claude-sonnet-4-5"));
    assert!(out(&o).ends_with("}\n") && out(&o).starts_with("{\n  \"version\": \"1.0\""));
    // The fidelity extension keeps the cache breakpoints and the server tool: nothing to note.
    assert_eq!(err(&o), "");
    assert!(out(&o).contains("\"cacheControl\"") && out(&o).contains("\"web_search_20250305\""));
    // What still has no place is noted on stderr, the envelope printed all the same.
    let empty = Temp::new(
        "import-empty-message.json",
        br#"{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[]},{"role":"user","content":"hi"}]}"#,
    );
    let o = pep(&["import", empty.path()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    envelope::parse(&out(&o)).expect("the output is a valid envelope");
    let e = err(&o);
    assert!(e.lines().all(|l| l.starts_with(&format!("{}: note: ", empty.path()))), "{e}");
    assert!(e.contains(&format!("{}: note: messages[0]: this message sends nothing", empty.path())), "{e}");
    // Each format, detected or named.
    for (dir, from) in [("openai", "openai"), ("responses", "responses"), ("anthropic", "anthropic")] {
        let file = format!("{REQUESTS}/{dir}/tools-and-params.json");
        let auto = pep(&["import", &file]);
        let named = pep(&["import", "--from", from, &file]);
        assert_eq!(auto.status.code(), Some(0), "{file}: {}", err(&auto));
        assert_eq!(out(&auto), out(&named), "{file}");
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        let want = envelope::import::import(&text).unwrap();
        assert_eq!(out(&auto), envelope::export::to_pretty(&want.raw), "{file}");
    }
}

#[test]
fn import_of_malformed_or_unknown_bodies_exits_1_with_every_error() {
    let bad = Temp::new(
        "bad-request.json",
        br#"{"model": "gpt-4o", "messages": [{"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "[1]"}}]}, {"role": "tool", "tool_call_id": "zz", "content": "x"}]}"#,
    );
    let o = pep(&["import", bad.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(out(&o), "");
    let e = err(&o);
    assert!(e.contains(&format!("{}: error: messages[0].tool_calls[0].function.arguments: the arguments are an array, not a JSON object [import-arguments]", bad.path())), "{e}");
    assert!(
        e.contains(&format!(
            "{}: error: messages[1].tool_call_id: `zz` answers no earlier tool call [unpaired-result]",
            bad.path()
        )),
        "{e}"
    );

    let none = Temp::new("none.json", br#"{"prompt": "hi"}"#);
    let o = pep(&["import", none.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("OpenAI Chat")
            && err(&o).contains("Anthropic Messages")
            && err(&o).contains("[import-format]"),
        "{}",
        err(&o)
    );

    // Both OpenAI Chat and Anthropic fields: auto-detection refuses, --from decides.
    let mixed = Temp::new("mixed.json", br#"{"system": "s", "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/i.png"}}]}]}"#);
    let o = pep(&["import", mixed.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("[import-ambiguous-format]"), "{}", err(&o));
    let o = pep(&["import", "--from", "openai", mixed.path()]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));

    for (name, bytes) in
        [("empty.json", vec![]), ("deep.json", "[".repeat(10_000).into_bytes()), ("binary.json", vec![0xff, 0xfe, 0])]
    {
        let f = Temp::new(name, &bytes);
        let o = pep(&["import", f.path()]);
        assert_eq!(o.status.code(), Some(1), "{name}");
        assert!(err(&o).contains(": error: "), "{name}: {}", err(&o));
    }
}

#[test]
fn export_formats_equal_the_core_and_convert_requests_directly() {
    let sources: Vec<String> = ["demos/d.json".to_string(), "demos/e.json".to_string()]
        .into_iter()
        .chain(["openai", "responses", "anthropic"].iter().map(|d| format!("{REQUESTS}/{d}/tools-and-params.json")))
        .collect();
    for file in &sources {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let envelope = envelope::import::import(&text).unwrap().envelope;
        for target in envelope::export::Target::ALL {
            let o = pep(&["export", "--format", target.code(), file]);
            assert_eq!(o.status.code(), Some(0), "{file} {}: {}", target.code(), err(&o));
            let want = envelope::export::render(&envelope, target);
            assert!(out(&o) == want.text, "{file} --format {}", target.code());
            for n in &want.notices {
                assert!(err(&o).contains(&format!("{file}: note: {n}")), "{file}: {}", err(&o));
            }
        }
    }
    // The default format stays §4's request, byte for byte, and says nothing for a clean demo.
    let o = pep(&["export", "demos/a.json"]);
    assert_eq!(
        out(&o),
        std::fs::read_to_string(root().join("crates/envelope/tests/fixtures/golden/a.openai.json")).unwrap()
    );
    assert_eq!(err(&o), "");
    let o = pep(&["export", "--format", "curl-openai", "demos/a.json"]);
    assert!(out(&o).starts_with("curl https://api.openai.com/v1/chat/completions \\\n"), "{}", out(&o));
    assert!(out(&o).contains("Authorization: Bearer $OPENAI_API_KEY"));
    let o = pep(&["export", "--format", "pdf", "demos/a.json"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn diff_reads_provider_requests_of_different_formats() {
    let a = Temp::new(
        "diff-chat.json",
        br#"{"model":"gpt-4o","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]}"#,
    );
    let b = Temp::new(
        "diff-anthropic.json",
        br#"{"model":"gpt-4o","max_tokens":100,"system":"Be brief.","messages":[{"role":"user","content":"Hello"}]}"#,
    );
    let o = pep(&["diff", a.path(), b.path()]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let text = out(&o);
    assert!(text.contains("- Hi") && text.contains("+ Hello"), "{text}");
    assert!(text.contains("+ params"), "{text}");
    // The same request as Anthropic Messages and as OpenAI Chat is equal once
    // imported: where it came from and its shape (the fidelity extension's
    // `source`, `contentParts`) are not what the model receives.
    let c = Temp::new(
        "diff-anthropic-same.json",
        br#"{"system":"Be brief.","messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}],"model":"gpt-4o"}"#,
    );
    let o = pep(&["diff", a.path(), c.path()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    let text = out(&o);
    assert!(text.contains("the documents are equal") && !text.contains("source"), "{text}");
    // The same request in the same format is equal.
    let d = Temp::new(
        "diff-chat-again.json",
        br#"{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}],"model":"gpt-4o"}"#,
    );
    let o = pep(&["diff", a.path(), d.path()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
}

#[test]
fn render_the_example_template_in_promptpoet_shapes() {
    let o = pep(&["render", "demos/templates/chat.yaml.j2", "--data", "demos/templates/chat.data.json"]);
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    let parts = v["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 8);
    assert_eq!(parts[0]["role"], "system");
    assert_eq!(parts[0]["truncation_priority"], 0);
    assert_eq!(parts[1]["name"], "history 1 (user)");
    assert_eq!(parts[1]["truncation_priority"], 2);
    assert_eq!(
        v["messages"][7],
        serde_json::json!({"role": "user", "content": "Great, thanks! And how do I descale it?\nIt's getting chalky."})
    );
    let joined: String = parts.iter().map(|p| p["content"].as_str().unwrap()).collect();
    assert_eq!(v["string"], joined);
}

#[test]
fn render_envelope_is_valid_and_exports() {
    let o = pep(&["render", "--envelope", "demos/templates/chat.yaml.j2", "--data", "demos/templates/chat.data.json"]);
    assert!(o.status.success(), "{}", err(&o));
    let env = Temp::new("chat.envelope.json", &o.stdout);
    let v = pep(&["validate", env.path()]);
    assert!(v.status.success(), "{}", err(&v));
    let e = pep(&["export", env.path()]);
    let req: serde_json::Value = serde_json::from_str(&out(&e)).unwrap();
    assert_eq!(req["messages"].as_array().unwrap().len(), 8);
    assert_eq!(req["messages"][1]["content"], "Hi! I ordered a kettle last week (order #4417) and it hasn't arrived.");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["messages"][2]["id"], "history 2 (assistant)");
    assert_eq!(doc["messages"][2]["truncationPriority"], 2);
}

#[test]
fn render_errors_exit_1_with_the_line() {
    let t = Temp::new("undefined.yaml.j2", b"- name: a\n  content: |\n    {{ user.name }}\n");
    let o = pep(&["render", t.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("line 3: UndefinedError: 'user' is undefined [template-render]"), "{}", err(&o));
    assert!(out(&o).is_empty());

    let t = Temp::new("colon.yaml.j2", b"- name: q\n  content: {{ t }}\n");
    let d = Temp::new("colon.json", br#"{"t": "Note: this breaks"}"#);
    let o = pep(&["render", t.path(), "--data", d.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("rendered line 2:") && err(&o).contains("[template-yaml]"), "{}", err(&o));
    assert!(err(&o).contains("content: Note: this breaks"), "{}", err(&o));

    let t = Temp::new("empty.yaml.j2", b"");
    let o = pep(&["render", t.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("TypeError: object of type 'NoneType' has no len() [template-part]"), "{}", err(&o));

    let d = Temp::new("notjson.json", b"{nope");
    let o = pep(&["render", "demos/templates/chat.yaml.j2", "--data", d.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("not JSON"), "{}", err(&o));
}

#[test]
fn render_warns_about_inexact_constructs() {
    let t = Temp::new("random.yaml.j2", b"- name: a\n  content: \"{{ [1, 2]|pprint }}\"\n");
    let o = pep(&["render", t.path()]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("warning: line 2:") && err(&o).contains("[template-inexact]"), "{}", err(&o));
    let t = Temp::new("role.yaml.j2", b"- name: a\n  role: developer\n  content: x\n");
    let o = pep(&["render", "--envelope", t.path()]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("[template-role]"), "{}", err(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["messages"][0]["role"], "user");
}

#[test]
fn truncate_a_template() {
    let args = ["truncate", "--template", "demos/templates/chat.yaml.j2", "--data", "demos/templates/chat.data.json"];
    let o = pep(&[&args[..], &["--limit", "100", "--step", "20"]].concat());
    assert!(o.status.success(), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    let kept: Vec<bool> = v["parts"].as_array().unwrap().iter().map(|p| p["kept"].as_bool().unwrap()).collect();
    // 199 tokens, limit 100, step 20: remove 100. The priority-2 run (the two
    // oldest turns, 48 tokens) goes whole, then the priority-1 run part by
    // part from its oldest until 100 are gone; system and query stay (priority 0).
    assert_eq!(kept, [true, false, false, false, false, false, true, true]);
    assert!(v["keptTokens"].as_u64().unwrap() <= 100);
    assert_eq!(v["target"], 100);
    let o = pep(&[&args[..], &["--limit", "10"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("TruncationError"), "{}", err(&o));
    let o = pep(&[&args[..], &["--limit", "0"]].concat());
    assert_eq!(o.status.code(), Some(2));
    let o = pep(&["truncate", "--limit", "5"]);
    assert_eq!(o.status.code(), Some(2), "a FILE or --template is required: {}", err(&o));
}

/// The terminal escapes of issue #12, and the other characters that must
/// not reach a terminal raw.
const ESCAPES: &[(&str, &str, &str)] = &[
    // (name, payload, how it must appear on stderr)
    ("title", "\u{1b}]0;pwned\u{7}", "\\u{1b}]0;pwned\\u{7}"),
    ("erase", "\u{1b}[2K\rfake.json: ok\n", "\\u{1b}[2K\\rfake.json: ok\\n"),
    ("osc52", "\u{1b}]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u{7}", "\\u{1b}]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u{7}"),
    ("conceal", "\u{1b}[8mhidden", "\\u{1b}[8mhidden"),
    ("c1csi", "\u{9b}2K\rfake.json: ok", "\\u{9b}2K\\rfake.json: ok"),
    ("nul", "a\u{0}b", "a\\u{0}b"),
    ("bidi", "abc\u{202e}dcb\u{2066}x\u{2069}", "abc\\u{202e}dcb\\u{2066}x\\u{2069}"),
    ("del", "a\u{7f}b", "a\\u{7f}b"),
    ("lsep", "a\u{2028}b\u{2029}c", "a\\u{2028}b\\u{2029}c"),
];

/// A JSON string literal with C1, DEL, bidi and U+2028/9 written raw (as a
/// hostile file may; C0 must be escaped in JSON).
fn raw_json(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Raw bytes a terminal acts on: C0 but line feed, DEL, C1 (as UTF-8) and
/// the bidi controls.
fn terminal_controls(bytes: &[u8]) -> Vec<char> {
    String::from_utf8_lossy(bytes)
        .chars()
        .filter(|&c| {
            (c < ' ' && c != '\n')
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
                || c == '\u{2028}'
                || c == '\u{2029}'
        })
        .collect()
}

fn assert_terminal_safe(o: &Output, file: &str, what: &str) {
    assert_eq!(terminal_controls(&o.stderr), vec![], "{what}: raw controls on stderr: {:?}", err(o));
    assert_eq!(terminal_controls(&o.stdout), vec![], "{what}: raw controls on stdout: {:?}", out(o));
    for line in err(o).lines() {
        // Every line is the tool's own, about this file: none is forged.
        assert!(line.starts_with(&format!("{file}: ")), "{what}: forged line {line:?}");
        assert!(!line.starts_with("fake.json"), "{what}: {line:?}");
    }
}

#[test]
fn document_text_never_reaches_the_terminal_raw() {
    for &(name, payload, shown) in ESCAPES {
        // Errors: the payload as a kind, a role, a field name and a media URL.
        let bad = format!(
            r#"{{"version":"1.0","messages":[
            {{"id":"m0","role":"user","timestamp":0,"segments":[{{"kind":{kind},"content":"c"}}]}},
            {{"id":"m1","role":{role},"timestamp":0,"segments":[{{"kind":"text","content":"c"}}]}},
            {{"id":"m2","role":"user","timestamp":0,"segments":[{{"kind":"text","content":"c",{field}:1}}]}},
            {{"id":"m3","role":"user","timestamp":0,"segments":[{{"kind":"media","mediaType":"image","url":{url}}}]}}]}}"#,
            kind = raw_json(&format!("x{payload}")),
            role = raw_json(&format!("x{payload}")),
            field = raw_json(payload),
            url = raw_json(&format!("javascript:{payload}")),
        );
        let f = Temp::new(&format!("escape-{name}.bad.json"), bad.as_bytes());
        for cmd in ["validate", "export"] {
            let o = pep(&[cmd, f.path()]);
            assert_eq!(o.status.code(), Some(1), "{name} {cmd}: {}", err(&o));
            assert_terminal_safe(&o, f.path(), &format!("{name} {cmd}"));
            let e = err(&o);
            for needle in [
                format!("unknown kind `x{shown}`"),
                format!("unknown role `x{shown}`"),
                format!("unknown field `{shown}`"),
                format!("URL `javascript:{shown}"),
            ] {
                assert!(e.contains(&needle), "{name} {cmd}: no {needle:?} in {e}");
            }
            assert_eq!(e.lines().count(), 4, "{name} {cmd}: {e}");
        }
        // Warnings and export: the payload in a tool name and description,
        // a variable's name and value, and a text.
        let ok = format!(
            r#"{{"version":"1.0","messages":[
            {{"id":"s","role":"system","timestamp":0,"segments":[
                {{"kind":"tool_overview","items":[{{"name":{tool},"description":{desc}}}],"collapsed":true}},
                {{"kind":"static_var","name":{var},"value":{value}}}]}},
            {{"id":"u","role":"user","timestamp":0,"segments":[{{"kind":"text","content":{text}}}]}}]}}"#,
            tool = raw_json(&format!("t{payload}")),
            desc = raw_json(&format!("d{payload}")),
            var = raw_json(&format!("v{payload}")),
            value = raw_json(payload),
            text = raw_json(&format!("c{payload}")),
        );
        let f = Temp::new(&format!("escape-{name}.ok.json"), ok.as_bytes());
        let o = pep(&["validate", f.path()]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", err(&o));
        assert_terminal_safe(&o, f.path(), &format!("{name} validate"));
        assert!(err(&o).contains(&format!("tool name `t{shown}`")), "{name}: {}", err(&o));
        assert!(err(&o).contains(&format!("static_var `v{shown}`")), "{name}: {}", err(&o));
        let o = pep(&["export", f.path()]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", err(&o));
        assert_terminal_safe(&o, f.path(), &format!("{name} export"));
        // stdout is JSON equal to what the document says, with `\u` escapes.
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["tools"][0]["function"]["name"], format!("t{payload}").as_str());
        assert_eq!(v["messages"][0]["content"], format!("c{payload}").as_str());
        let o = pep(&["truncate", "--limit", "-1", f.path()]);
        assert_eq!(o.status.code(), Some(0), "{name}: {}", err(&o));
        assert_terminal_safe(&o, f.path(), &format!("{name} truncate"));
    }
}

#[test]
fn gemini_and_bedrock_bodies_import_with_a_model_and_export_back() {
    let gemini = format!("{REQUESTS}/real/gemini/sdk-python-image-bytes.json");
    let o = pep(&["import", "--from", "gemini", "--model", "gemini-2.5-flash", &gemini]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let env: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!((env["model"].as_str(), env["source"].as_str()), (Some("gemini-2.5-flash"), Some("gemini")));
    let saved = Temp::new("gemini.envelope.json", out(&o).as_bytes());
    let back = pep(&["export", "--format", "gemini", saved.path()]);
    assert_eq!((back.status.code(), err(&back)), (Some(0), String::new()));
    let sent: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(&gemini)).unwrap()).unwrap();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out(&back)).unwrap(), sent);
    let curl = pep(&["export", "--format", "curl-gemini", saved.path()]);
    assert!(
        out(&curl).starts_with(
            "curl 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent' \\\n"
        ),
        "{}",
        out(&curl)
    );
    assert!(out(&curl).contains("-H \"x-goog-api-key: $GEMINI_API_KEY\""));
    // Without --model: the envelope names none; the command says where to put one.
    let bare = pep(&["export", "--format", "curl-gemini", &gemini]);
    assert!(out(&bare).contains("/models/MODEL_NAME:generateContent"));
    assert!(err(&bare).contains(": note: model: the envelope names no model;"), "{}", err(&bare));
    // Bedrock, detected; to Gemini it says what it cannot carry.
    let bedrock = format!("{REQUESTS}/real/bedrock/sdk-boto3-cache-points.json");
    let o = pep(&["export", "--format", "bedrock", &bedrock]);
    assert_eq!((o.status.code(), err(&o)), (Some(0), String::new()));
    let sent: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root().join(&bedrock)).unwrap()).unwrap();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out(&o)).unwrap(), sent);
    let o = pep(&["export", "--format", "gemini", &bedrock]);
    assert_eq!(o.status.code(), Some(0));
    assert!(err(&o).contains("cacheControl: a cache breakpoint cannot be sent in Gemini"), "{}", err(&o));
    // A Gemini body named as Bedrock: every error with its path.
    let o = pep(&["import", "--from", "bedrock", &gemini]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains(": error: messages: missing field `messages`"), "{}", err(&o));
}
