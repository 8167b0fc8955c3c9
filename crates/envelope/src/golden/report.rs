//! The report of a `pep test` run: every case with its failures, and a
//! summary with the output validity rate (valid outputs / outputs) per
//! prompt version and model. Four renderings: [`SuiteReport::text`] (a
//! field-level diff per failing case, `- expected` / `+ actual`),
//! [`SuiteReport::to_json`] (`--format json`), [`SuiteReport::junit`]
//! (JUnit XML for CI test tabs) and [`SuiteReport::github`] (GitHub Actions
//! workflow commands).
//!
//! Every string here may come from a hostile output, golden file or file
//! name: the text report shows control and bidirectional-override
//! characters as `\u{…}`, JUnit escapes XML (and replaces characters XML 1.0
//! cannot hold), the GitHub commands escape as the runner unescapes.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{short, Failure, Kind};

/// Whether a case passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
}

/// One case of a suite.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseReport {
    /// The suite's name (its folder's name).
    pub suite: String,
    /// The case's name (`input_<name>.json`).
    pub name: String,
    pub status: Status,
    pub failures: Vec<Failure>,
    /// The prompt's name and version, when the prompt carries them.
    pub prompt_name: Option<String>,
    pub prompt_version: Option<String>,
    /// The model that answered (the response's, else the request's, else the metadata's).
    pub model: Option<String>,
    /// The suite's `metadata.json` (model, date, reviewer…), as written.
    pub metadata: Option<Value>,
    /// The file the failures are about (the golden output), as given.
    pub file: Option<String>,
    /// Whether an output was obtained, and whether it was valid (parsed as
    /// JSON and satisfied the schema, when there is one).
    pub output: bool,
    pub valid: bool,
}

impl CaseReport {
    /// A case with these failures (pass when there are none).
    pub fn new(suite: impl Into<String>, name: impl Into<String>, failures: Vec<Failure>) -> CaseReport {
        let status = if failures.is_empty() { Status::Pass } else { Status::Fail };
        CaseReport {
            suite: suite.into(),
            name: name.into(),
            status,
            failures,
            prompt_name: None,
            prompt_version: None,
            model: None,
            metadata: None,
            file: None,
            output: false,
            valid: false,
        }
    }
}

/// Outputs and valid outputs of one prompt version and model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub prompt_version: Option<String>,
    pub model: Option<String>,
    pub outputs: usize,
    pub valid: usize,
    /// valid / outputs; `None` when there were no outputs.
    pub validity_rate: Option<f64>,
}

/// Totals of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub cases: usize,
    pub passed: usize,
    pub failed: usize,
    pub outputs: usize,
    pub valid: usize,
    pub validity_rate: Option<f64>,
    /// Per prompt version and model, in order of first appearance.
    pub by: Vec<Group>,
}

/// A run: its cases and their summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteReport {
    pub cases: Vec<CaseReport>,
    pub summary: Summary,
}

fn rate(valid: usize, outputs: usize) -> Option<f64> {
    (outputs > 0).then(|| valid as f64 / outputs as f64)
}

impl Summary {
    pub fn of(cases: &[CaseReport]) -> Summary {
        let mut by: Vec<Group> = Vec::new();
        for c in cases.iter().filter(|c| c.output) {
            let g = match by.iter_mut().position(|g| g.prompt_version == c.prompt_version && g.model == c.model) {
                Some(i) => &mut by[i],
                None => {
                    by.push(Group {
                        prompt_version: c.prompt_version.clone(),
                        model: c.model.clone(),
                        outputs: 0,
                        valid: 0,
                        validity_rate: None,
                    });
                    by.last_mut().expect("just pushed")
                }
            };
            g.outputs += 1;
            g.valid += usize::from(c.valid);
        }
        for g in &mut by {
            g.validity_rate = rate(g.valid, g.outputs);
        }
        let outputs = cases.iter().filter(|c| c.output).count();
        let valid = cases.iter().filter(|c| c.output && c.valid).count();
        let passed = cases.iter().filter(|c| c.status == Status::Pass).count();
        Summary {
            cases: cases.len(),
            passed,
            failed: cases.len() - passed,
            outputs,
            valid,
            validity_rate: rate(valid, outputs),
            by,
        }
    }
}

/// Shows control and bidirectional-override characters as `\u{…}`.
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        let bidi = matches!(ch, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}');
        if (ch.is_control() && ch != '\n' && ch != '\t') || bidi {
            out.push_str(&format!("\\u{{{:x}}}", ch as u32));
        } else {
            out.push(ch);
        }
    }
    out
}

fn percent(r: Option<f64>) -> String {
    r.map_or_else(|| "n/a".to_string(), |r| format!("{:.1}%", r * 100.0))
}

fn group_label(v: &Option<String>, m: &Option<String>) -> String {
    format!(
        "prompt version {}, model {}",
        v.as_deref().map_or("(none)".to_string(), clean),
        m.as_deref().map_or("(unknown)".to_string(), clean)
    )
}

/// The golden (`-`) and actual (`+`) sides of a failure, one line each.
fn sides(f: &Failure) -> Vec<String> {
    let show = |v: &Value| match v {
        // `[3 items]` of a length failure is shown bare, as the document does.
        Value::String(s) if f.kind == Kind::Length => s.clone(),
        v => short(v, 200),
    };
    let mut out = Vec::new();
    if let Some(e) = &f.expected {
        out.push(format!("- {}", clean(&show(e))));
    }
    if let Some(a) = &f.actual {
        out.push(format!("+ {}", clean(&show(a))));
    }
    out
}

fn path_label(f: &Failure) -> &str {
    match (f.path.is_empty(), f.kind) {
        (false, _) => &f.path,
        (true, Kind::Render) => "(the prompt)",
        (true, Kind::Live) => "(the call)",
        (true, _) => "(the whole output)",
    }
}

fn meta_line(c: &CaseReport) -> String {
    let mut parts = Vec::new();
    match (&c.prompt_name, &c.prompt_version) {
        (Some(n), Some(v)) => parts.push(format!("prompt {n} {v}")),
        (None, Some(v)) => parts.push(format!("prompt version {v}")),
        (Some(n), None) => parts.push(format!("prompt {n} (no version)")),
        (None, None) => {}
    }
    if let Some(m) = &c.model {
        parts.push(format!("model {m}"));
    }
    if let Some(Value::Object(m)) = &c.metadata {
        let fields: Vec<String> = m
            .iter()
            .take(6)
            .map(|(k, v)| {
                let v = match v {
                    Value::String(s) => s.chars().take(60).collect(),
                    v => short(v, 60),
                };
                format!("{k} {v}")
            })
            .collect();
        if !fields.is_empty() {
            parts.push(format!("golden: {}", fields.join(", ")));
        }
    }
    clean(&parts.join(" · "))
}

impl SuiteReport {
    pub fn new(cases: Vec<CaseReport>) -> SuiteReport {
        let summary = Summary::of(&cases);
        SuiteReport { cases, summary }
    }

    /// Whether every case passed.
    pub fn passed(&self) -> bool {
        self.summary.failed == 0
    }

    /// `--format json`: `{"cases": [...], "summary": {...}}`, every failure
    /// with `path` (a JSON Pointer into the output), `kind`, `expected`,
    /// `actual` (null when absent) and `message`.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|e| json!({"error": e.to_string()}))
    }

    /// The text report: a line per case, and under each failing case every
    /// failure as `path (kind): message` with its `- golden` / `+ output`
    /// values; then the totals and the output validity rate.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for c in &self.cases {
            let meta = meta_line(c);
            let meta = if meta.is_empty() { String::new() } else { format!("  ({meta})") };
            let name = clean(&format!("{}/{}", c.suite, c.name));
            match c.status {
                Status::Pass => out.push_str(&format!("ok   {name}{meta}\n")),
                Status::Fail => {
                    out.push_str(&format!("FAIL {name}{meta}\n"));
                    for f in &c.failures {
                        out.push_str(&format!(
                            "  {} ({}): {}\n",
                            clean(path_label(f)),
                            f.kind.as_str(),
                            clean(&f.message).replace('\n', "\n    ")
                        ));
                        for l in sides(f) {
                            out.push_str(&format!("    {l}\n"));
                        }
                    }
                }
            }
        }
        let s = &self.summary;
        out.push_str(&format!(
            "\n{} case{}: {} passed, {} failed\n",
            s.cases,
            if s.cases == 1 { "" } else { "s" },
            s.passed,
            s.failed
        ));
        out.push_str(&format!("output validity: {}/{} valid ({})\n", s.valid, s.outputs, percent(s.validity_rate)));
        for g in &s.by {
            out.push_str(&format!(
                "  {}: {}/{} ({})\n",
                group_label(&g.prompt_version, &g.model),
                g.valid,
                g.outputs,
                percent(g.validity_rate)
            ));
        }
        out
    }

    /// JUnit XML: one `<testsuite>` per suite, one `<testcase>` per case, a
    /// `<failure>` holding every failure of a failing case.
    pub fn junit(&self) -> String {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str(&format!(
            "<testsuites name=\"pep test\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n",
            self.summary.cases, self.summary.failed
        ));
        let mut suites: Vec<&str> = Vec::new();
        for c in &self.cases {
            if !suites.contains(&c.suite.as_str()) {
                suites.push(&c.suite);
            }
        }
        for s in suites {
            let cases: Vec<&CaseReport> = self.cases.iter().filter(|c| c.suite == s).collect();
            let failed = cases.iter().filter(|c| c.status == Status::Fail).count();
            out.push_str(&format!(
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\">\n",
                xml(s),
                cases.len()
            ));
            for c in cases {
                out.push_str(&format!("    <testcase name=\"{}\" classname=\"{}\"", xml(&c.name), xml(s)));
                let meta = meta_line(c);
                if c.status == Status::Pass && meta.is_empty() {
                    out.push_str("/>\n");
                    continue;
                }
                out.push_str(">\n");
                if c.status == Status::Fail {
                    let first = c.failures.first();
                    let message = match first {
                        Some(f) => format!(
                            "{} failure{}; first: {} ({}): {}",
                            c.failures.len(),
                            if c.failures.len() == 1 { "" } else { "s" },
                            path_label(f),
                            f.kind.as_str(),
                            f.message
                        ),
                        None => "failed".to_string(),
                    };
                    let kind = first.map_or("fail", |f| f.kind.as_str());
                    let mut body = String::new();
                    for f in &c.failures {
                        body.push_str(&format!("{} ({}): {}\n", path_label(f), f.kind.as_str(), f.message));
                        for l in sides(f) {
                            body.push_str(&format!("  {l}\n"));
                        }
                    }
                    out.push_str(&format!(
                        "      <failure message=\"{}\" type=\"{kind}\">{}</failure>\n",
                        xml(&message),
                        xml(&body)
                    ));
                }
                if !meta.is_empty() {
                    out.push_str(&format!("      <system-out>{}</system-out>\n", xml(&meta)));
                }
                out.push_str("    </testcase>\n");
            }
            out.push_str("  </testsuite>\n");
        }
        out.push_str("</testsuites>\n");
        out
    }

    /// GitHub Actions workflow commands: an `::error` per failure (on the
    /// case's golden file when known), then a `::notice` with the totals.
    pub fn github(&self) -> String {
        let mut out = String::new();
        for c in self.cases.iter().filter(|c| c.status == Status::Fail) {
            for f in &c.failures {
                let mut props = Vec::new();
                if let Some(file) = &c.file {
                    props.push(format!("file={}", escape_property(file)));
                }
                let title = format!("pep test {}/{}: {} ({})", c.suite, c.name, path_label(f), f.kind.as_str());
                props.push(format!("title={}", escape_property(&title)));
                let mut msg = f.message.clone();
                for l in sides(f) {
                    msg.push('\n');
                    msg.push_str(&l);
                }
                out.push_str(&format!("::error {}::{}\n", props.join(","), escape_data(&msg)));
            }
        }
        let s = &self.summary;
        let msg = format!(
            "{} cases: {} passed, {} failed; output validity {}/{} ({})",
            s.cases,
            s.passed,
            s.failed,
            s.valid,
            s.outputs,
            percent(s.validity_rate)
        );
        out.push_str(&format!("::notice title=pep test::{}\n", escape_data(&msg)));
        out
    }
}

/// Escapes a workflow command's message (`%`, CR, LF).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a workflow command's property (also `:` and `,`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Escapes text for XML content and attribute values; characters XML 1.0
/// cannot hold (most C0 controls, U+FFFE, U+FFFF) become `\u{…}`; tabs and
/// line breaks in attributes become character references.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}
