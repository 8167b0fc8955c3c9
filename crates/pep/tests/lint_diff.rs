//! `pep lint`, `pep rules`, `pep diff` and `pep export --check`, run as a user
//! would: exit codes, stdout, configuration discovery.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pep_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pep")).args(args).current_dir(dir).output().unwrap()
}

fn pep(args: &[&str]) -> Output {
    pep_in(&root(), args)
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh temporary directory, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("pep-lint-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    fn write(&self, name: &str, content: &str) -> String {
        let p = self.0.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        p.to_str().unwrap().to_string()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const DOC: &str = r#"{"version": "1.0", "messages": [
  {"id": "s", "role": "system", "timestamp": 0, "segments": [
    {"kind": "system_prompt", "content": "Handle internal-only data with care. Hi {{who}}", "collapsed": true}]}]}"#;

#[test]
fn lint_demos_pass_and_errors_fail() {
    let o = pep(&["lint", "demos/a.json", "demos/f.json"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    assert!(out(&o).ends_with("0 errors, 0 warnings, 1 info in 2 files\n"), "{}", out(&o));
    let d = Dir::new("fail");
    let f = d.write("p.json", DOC);
    // A budget from the command line: the request is over it.
    let o = pep(&["lint", "--max-tokens", "5", &f]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(out(&o).contains("error[token-budget]"), "{}", out(&o));
    assert!(out(&o).contains("warning[undeclared-variable]"), "{}", out(&o));
}

#[test]
fn lint_finds_pep_toml_upward_and_applies_the_environment() {
    let d = Dir::new("config");
    d.write("pep.toml", "sensitive_words = [\"internal-only\"]\n[environments.production]\nmax_tokens = 5\n[rules]\nundeclared-variable = \"off\"\n");
    let f = d.write("prompts/deep/p.json", DOC);
    let sub = d.0.join("prompts/deep");
    let o = pep_in(&sub, &["lint", &f]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    let text = out(&o);
    assert!(text.contains("error[sensitive-word]") && !text.contains("undeclared-variable"), "{text}");
    assert!(!text.contains("token-budget"), "{text}");
    let o = pep_in(&sub, &["lint", "--env", "production", &f]);
    assert!(out(&o).contains("over the production budget of 5"), "{}", out(&o));
    // An unknown environment or a bad configuration: exit 2 and say where.
    let o = pep_in(&sub, &["lint", "--env", "prod", &f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("no environment `prod`; the configuration defines: production"), "{}", err(&o));
    let bad = d.write("bad.toml", "max_tokens = \"many\"\n");
    let o = pep_in(&sub, &["lint", "--config", &bad, &f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("bad.toml: error:") && err(&o).contains("line 1"), "{}", err(&o));
}

#[test]
fn lint_formats() {
    let d = Dir::new("formats");
    let f = d.write("p.json", DOC);
    let o = pep(&["lint", "--format", "json", &f]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    let finding = &v["files"][0]["findings"][0];
    assert_eq!(finding["code"], "undeclared-variable");
    assert_eq!(finding["location"]["pointer"], "/messages/0/segments/0/content");
    assert_eq!(finding["location"]["line"], 3);
    assert_eq!(v["summary"]["warnings"], 1);
    let o = pep(&["lint", "--format", "sarif", &f]);
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert_eq!(v["runs"][0]["results"][0]["ruleId"], "undeclared-variable");
    let o = pep(&["lint", "--format", "github", &f]);
    assert!(out(&o).starts_with("::warning file="), "{}", out(&o));
    // An unreadable file is an error finding.
    let o = pep(&["lint", "--format", "github", "no/such/file.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(out(&o).starts_with("::error file=no/such/file.json,title=error [unreadable-file]::"), "{}", out(&o));
}

#[test]
fn rules_table_is_the_readme_table() {
    let o = pep(&["rules", "--format", "markdown"]);
    assert_eq!(o.status.code(), Some(0));
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let begin = readme.find("<!-- rules:begin -->\n").expect("README has the rules table markers") + 21;
    let end = readme.find("<!-- rules:end -->").unwrap();
    assert_eq!(&readme[begin..end], out(&o), "README's rule table is stale: paste `pep rules --format markdown`");
    let o = pep(&["rules"]);
    assert!(out(&o).lines().any(|l| l.starts_with("secret ") && l.contains("lint") && l.contains("error")));
}

#[test]
fn diff_exit_codes_and_output() {
    let d = Dir::new("diff");
    let a = d.write("a.json", DOC);
    let b = d.write("b.json", &DOC.replace("Hi {{who}}", "Hello {{who}}"));
    let o = pep(&["diff", &a, &a]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let o = pep(&["diff", &a, &b]);
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    assert!(
        text.contains("~ messages[0] `s` (system)")
            && text.contains("- Handle internal-only data with care. Hi {{who}}"),
        "{text}"
    );
    assert!(text.contains("cache: the first "), "{text}");
    let o = pep(&["diff", "--format", "json", &a, &b]);
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["equal"], false);
    assert_eq!(v["messages"][0]["segments"][0]["status"], "changed");
    let o = pep(&["diff", &a, "no/such.json"]);
    assert_eq!(o.status.code(), Some(2));
    let bad = d.write("bad.json", "{}");
    let o = pep(&["diff", &a, &bad]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("missing field `version`"), "{}", err(&o));
}

#[test]
fn golden_snapshots() {
    let d = Dir::new("golden");
    let golden = d.0.join("a.golden.json");
    let g = golden.to_str().unwrap();
    // No golden file yet: fail and say how to create it; --update creates it.
    let o = pep(&["export", "--check", g, "demos/a.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("--update"), "{}", err(&o));
    let o = pep(&["export", "--check", g, "--update", "demos/a.json"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&golden).unwrap(), out(&pep(&["export", "demos/a.json"])));
    let o = pep(&["export", "--check", g, "demos/a.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    // Formatting and key order are not differences.
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&golden).unwrap()).unwrap();
    std::fs::write(&golden, v.to_string()).unwrap();
    assert_eq!(pep(&["export", "--check", g, "demos/a.json"]).status.code(), Some(0));
    // A changed message: exit 1 with the field's path.
    let mut changed = v.clone();
    changed["messages"][3]["content"] = "an old answer".into();
    changed["model"] = "gpt-4.1".into();
    std::fs::write(&golden, changed.to_string()).unwrap();
    let o = pep(&["export", "--check", g, "demos/a.json"]);
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    assert!(text.contains("differs from the golden file in 2 fields"), "{text}");
    assert!(text.contains("~ model: \"gpt-4.1\" → \"gpt-4o\""), "{text}");
    assert!(text.contains("~ messages[3].content\n") && text.contains("    - an old answer\n"), "{text}");
}

// Issue 23: `pep lint` with `require_prompt_version` and `contract-field`,
// and `pep diff`'s `version-not-bumped` (with and without `--check-version`).

fn doc(version: Option<&str>, system: &str) -> String {
    let prompt = version.map(|v| format!(r#""prompt": {{"name": "audit", "version": "{v}"}},"#)).unwrap_or_default();
    format!(
        r#"{{"version": "1.0", {prompt} "params": {{"response_format": {{"type": "json_schema", "json_schema": {{"name": "r", "schema":
  {{"type": "object", "properties": {{"summary": {{"type": "string"}}, "confidence_score": {{"type": "number"}}}},
   "required": ["summary", "confidence_score"]}}}}}}}},
 "messages": [{{"id": "s", "role": "system", "timestamp": 0, "segments": [{{"kind": "text", "content": "{system}"}}]}}]}}"#
    )
}

#[test]
fn diff_reports_a_version_not_bumped() {
    let d = Dir::new("version-diff");
    let a = d.write("a.json", &doc(Some("2.3.1"), "Write a summary."));
    let same = d.write("b.json", &doc(Some("2.3.1"), "Write a short summary."));
    let bumped = d.write("c.json", &doc(Some("2.3.2"), "Write a short summary."));
    let o = pep(&["diff", &a, &same]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(
        out(&o).contains("error[version-not-bumped]: the prompt sent changed but its version did not (still `2.3.1`)"),
        "{}",
        out(&o)
    );
    let o = pep(&["diff", "--format", "json", &a, &same]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (j["findings"][0]["code"].as_str(), j["findings"][0]["path"].as_str()),
        (Some("version-not-bumped"), Some("prompt.version"))
    );
    // Bumped: no finding; the documents still differ (exit 1, as diff does).
    let o = pep(&["diff", &a, &bumped]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!out(&o).contains("version-not-bumped"), "{}", out(&o));
    // As a CI gate: only the version verdict counts.
    assert_eq!(pep(&["diff", "--check-version", &a, &bumped]).status.code(), Some(0));
    assert_eq!(pep(&["diff", "--check-version", &a, &same]).status.code(), Some(1));
    assert_eq!(pep(&["diff", "--check-version", &a, &a]).status.code(), Some(0));
    // Neither versioned: nothing, except for the gate.
    let (x, y) = (d.write("x.json", &doc(None, "One.")), d.write("y.json", &doc(None, "Two.")));
    assert!(!out(&pep(&["diff", &x, &y])).contains("version-not-bumped"));
    let o = pep(&["diff", "--check-version", &x, &y]);
    assert_eq!(o.status.code(), Some(1));
    assert!(out(&o).contains("neither version has a prompt version"), "{}", out(&o));
    // Unreadable input stays 2.
    assert_eq!(pep(&["diff", "--check-version", &a, &d.write("bad.json", "{")]).status.code(), Some(2));
}

#[test]
fn lint_requires_a_version_when_configured_and_checks_the_contract() {
    let d = Dir::new("version-lint");
    let f = d.write("p.json", &doc(Some("1.0.0"), "Write a summary and a confidence_score."));
    let unversioned = d.write("q.json", &doc(None, "Write a summary and a confidence_score."));
    let config = d.write("pep.toml", "require_prompt_version = true\n");
    let o = pep(&["lint", &f, &unversioned]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let o = pep(&["lint", "--config", &config, &f]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    let o = pep(&["lint", "--config", &config, &unversioned]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(out(&o).contains("error[prompt-version]: the document has no prompt version"), "{}", out(&o));
    // The schema requires confidence_score; this prompt never asks for it.
    let g = d.write("r.json", &doc(Some("1.0.0"), "Write a summary."));
    let o = pep(&["lint", &g]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(out(&o).contains("error[contract-field]: the output schema requires `confidence_score`"), "{}", out(&o));
    assert!(out(&o).contains("r.json:2:88"), "the finding has its line: {}", out(&o));
}
