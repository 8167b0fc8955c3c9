//! Issue 23: `pep lint` with `require_prompt_version` and `contract-field`,
//! and `pep diff`'s `version-not-bumped` (with and without
//! `--check-version`), run as a user would: exit codes and output.

use std::path::PathBuf;
use std::process::{Command, Output};

fn pep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pep")).args(args).output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A fresh temporary directory, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("pep-prompt-version-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }

    fn write(&self, name: &str, content: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, content).unwrap();
        p.to_str().unwrap().to_string()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

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
    let d = Dir::new("diff");
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
    let d = Dir::new("lint");
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
