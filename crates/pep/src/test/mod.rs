//! `pep test DIR...`: golden-dataset regression tests (issue 23).
//!
//! Each suite (a folder with `pep-test.toml`, see [`suite`]) has cases
//! `input_<case>.json` (the variables) and `output_<case>.json` (the reviewed
//! golden output). Each case renders the prompt with its variables and runs
//! the lint rules on the rendered envelope (error-level findings fail the
//! case, kind `render`); then takes the model's output — from `--outputs DIR`
//! (`output_<case>.json` there, or in `DIR/<suite>/`: the model's text or a
//! provider response body), from the provider with `--live`, or, with
//! neither, the golden output itself (the suite checks itself: prompts
//! render and lint clean, goldens satisfy the schema) — parses it as strict
//! JSON, checks it against the output schema, and compares it with the golden
//! output (`envelope::golden::compare` under the suite's `[match]` rules).
//!
//! Exit 0 when every case passes, 1 when any fails, 2 when a suite is broken
//! (a missing file, a bad `pep-test.toml`, a golden or input that is not
//! JSON, a golden that breaks the schema, a schema that does not compile).

mod live;
pub mod suite;

use std::path::{Path, PathBuf};

use envelope::golden::{self, CaseReport, Failure, Kind, SuiteReport};
use envelope::types::{Envelope, Segment, StaticVar};
use envelope::{lint, output, promptpoet, Severity};
use serde_json::Value;

use crate::{Done, Failure as CliFailure};
use suite::{Case, Prompt, Suite};

/// `pep test --format`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum TestFormat {
    /// A line per case; a field-level diff (`- golden` / `+ output`) under each failing one.
    Text,
    /// `{"cases": [...], "summary": {...}}`.
    Json,
    /// JUnit XML, for CI test tabs.
    Junit,
    /// GitHub Actions workflow commands (`::error file=…,title=…::…`).
    Github,
}

#[derive(clap::Args)]
pub struct TestArgs {
    /// Suite folders (each with a pep-test.toml), or folders holding suites.
    #[arg(required = true)]
    pub dirs: Vec<String>,
    /// The model's outputs: output_<case>.json in DIR (or DIR/<suite>/), each
    /// the model's text or a provider response body.
    #[arg(long, value_name = "DIR", conflicts_with = "live")]
    pub outputs: Option<String>,
    /// Send each rendered request to its provider (OPENAI_API_KEY,
    /// ANTHROPIC_API_KEY, GEMINI_API_KEY; OPENAI_BASE_URL, … override the host).
    #[arg(long)]
    pub live: bool,
    /// With --live: write each reply to DIR/output_<case>.json (DIR/<suite>/ for several suites).
    #[arg(long, value_name = "DIR", requires = "live")]
    pub record: Option<String>,
    /// With --live: requests in flight at once (default 4).
    #[arg(long, requires = "live")]
    pub concurrency: Option<usize>,
    /// With --live: retries after a failed attempt (default 3), with backoff.
    #[arg(long, requires = "live")]
    pub retries: Option<u32>,
    #[arg(long, value_enum, default_value_t = TestFormat::Text)]
    pub format: TestFormat,
}

/// A case rendered: its envelope (when it rendered) and what failed.
struct Rendered {
    envelope: Option<Envelope>,
    request: Option<Value>,
    failures: Vec<Failure>,
}

/// Where a case's output comes from.
enum Got {
    /// No output obtained (the failure says why).
    None(Failure),
    /// The golden output itself (no --outputs, no --live).
    Golden,
    /// A model's output: its text (or a response body) and where it came from.
    Bytes { text: String },
}

pub fn run(args: TestArgs) -> Result<Done, CliFailure> {
    let broken = |lines: Vec<String>| CliFailure { lines, code: 2 };
    let mut dirs = Vec::new();
    for d in &args.dirs {
        dirs.extend(suite::suites_in(d).map_err(broken)?);
    }
    let mut suites = Vec::new();
    let mut lines = Vec::new();
    for d in &dirs {
        match suite::load(d) {
            Ok(s) => suites.push(s),
            Err(mut e) => lines.append(&mut e),
        }
    }
    if !lines.is_empty() {
        return Err(broken(lines));
    }
    if let Some(o) = args.outputs.as_ref().filter(|o| !Path::new(o).is_dir()) {
        return Err(broken(vec![format!("{o}: error: --outputs must be a folder of output_<case>.json files")]));
    }
    let mut notes: Vec<String> = suites.iter().flat_map(|s| s.notes.clone()).collect();
    if args.outputs.is_none() && !args.live {
        notes.push(
            "note: no --outputs or --live: each golden output is checked as the output (prompts render and lint clean, goldens satisfy the schema)".into(),
        );
    }
    let several = suites.len() > 1;
    let mut cases = Vec::new();
    for s in &suites {
        let rendered: Vec<Rendered> = s.cases.iter().map(|c| render(s, c)).collect();
        let got: Vec<Got> = if args.live {
            let record =
                args.record.as_ref().map(|r| if several { Path::new(r).join(&s.name) } else { PathBuf::from(r) });
            live::outputs(s, &rendered, record, args.concurrency, args.retries).map_err(broken)?
        } else if let Some(o) = &args.outputs {
            s.cases.iter().map(|c| from_dir(Path::new(o), s, c)).collect()
        } else {
            s.cases.iter().map(|_| Got::Golden).collect()
        };
        for ((c, r), g) in s.cases.iter().zip(rendered).zip(got) {
            cases.push(check(s, c, r, g));
        }
    }
    let report = SuiteReport::new(cases);
    let stdout = match args.format {
        TestFormat::Text => report.text(),
        TestFormat::Json => envelope::export::to_pretty(&report.to_json()),
        TestFormat::Junit => report.junit(),
        TestFormat::Github => report.github(),
    };
    Ok(Done { stdout, stderr: notes, code: u8::from(!report.passed()) })
}

/// An input value as a variable's text: a string as it is, anything else as compact JSON.
fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// The envelope with the case's variables set: each `static_var` of that
/// name takes the input's value; a variable the envelope does not declare is
/// declared at the start of its first message.
fn with_inputs(env: &Envelope, input: &serde_json::Map<String, Value>) -> Envelope {
    let mut env = env.clone();
    let mut missing: Vec<(&String, &Value)> = Vec::new();
    for (k, v) in input {
        let mut found = false;
        for m in &mut env.messages {
            for s in &mut m.segments {
                match s {
                    Segment::StaticVar(sv) if &sv.name == k => {
                        sv.value = as_text(v);
                        found = true;
                    }
                    _ => {}
                }
            }
        }
        if !found {
            missing.push((k, v));
        }
    }
    if let Some(first) = env.messages.first_mut() {
        for (i, (k, v)) in missing.into_iter().enumerate() {
            first
                .segments
                .insert(i, Segment::StaticVar(StaticVar { name: k.clone(), value: as_text(v), description: None }));
        }
    }
    env
}

fn render_failure(message: String) -> Failure {
    Failure::new("", Kind::Render, message)
}

/// Renders a case's prompt and lints it.
fn render(s: &Suite, c: &Case) -> Rendered {
    let env = match &s.prompt {
        Prompt::Envelope(e) => with_inputs(e, &c.input),
        Prompt::Template(text) => {
            let data = Value::Object(c.input.clone());
            let dir = s.dir.clone();
            let loader = move |name: &str| load_template(&dir, name);
            match render_template(text, &data, &loader) {
                Ok(r) => promptpoet::to_envelope(&r).0,
                Err(e) => {
                    let d = e.diagnostic();
                    return Rendered {
                        envelope: None,
                        request: None,
                        failures: vec![render_failure(format!("{}: {d} [{}]", s.prompt_file, d.code()))],
                    };
                }
            }
        }
    };
    let mut failures = Vec::new();
    match serde_json::to_string(&env) {
        Ok(doc) => {
            let report = lint::lint(&s.prompt_file, doc.as_bytes(), &s.settings);
            for f in report.findings.iter().filter(|f| f.diagnostic.severity == Severity::Error) {
                let d = &f.diagnostic;
                failures.push(render_failure(format!(
                    "the rendered prompt fails lint: {}: {d} [{}]",
                    s.prompt_file,
                    d.code()
                )));
            }
        }
        Err(e) => failures.push(render_failure(format!("the rendered envelope cannot be written: {e}"))),
    }
    let target = live::target(s.send);
    let exported = envelope::export::render(&env, target);
    let request = serde_json::from_str(&exported.text).ok();
    Rendered { envelope: Some(env), request, failures }
}

/// Renders a PromptPoet template with includes loaded from the suite's folder.
fn render_template(
    text: &str,
    data: &Value,
    loader: &dyn Fn(&str) -> Option<String>,
) -> Result<promptpoet::Rendered, Box<promptpoet::RenderError>> {
    promptpoet::render_with(text, data, loader)
}

/// A template `include`d, `import`ed or `extends`-ed by name: a file in the
/// suite's folder (no absolute paths, no `..`, nothing that resolves outside
/// the folder through a symbolic link).
fn load_template(dir: &Path, name: &str) -> Option<String> {
    let p = Path::new(name);
    if p.is_absolute() || p.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
        return None;
    }
    let root = dir.canonicalize().ok()?;
    let file = root.join(p).canonicalize().ok()?;
    if !file.starts_with(&root) || !file.is_file() {
        return None;
    }
    std::fs::read_to_string(file).ok()
}

/// The case's output from `--outputs DIR`.
fn from_dir(dir: &Path, s: &Suite, c: &Case) -> Got {
    let sub = dir.join(&s.name);
    let base = if sub.is_dir() { sub } else { dir.to_path_buf() };
    let p = base.join(format!("output_{}.json", c.name));
    match std::fs::read(&p) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Got::Bytes { text },
            Err(e) => Got::None(Failure::new(
                "",
                Kind::Parse,
                format!(
                    "{}: the output is not valid UTF-8 (invalid byte at offset {})",
                    p.display(),
                    e.utf8_error().valid_up_to()
                ),
            )),
        },
        Err(e) => Got::None(Failure::new("", Kind::Parse, format!("no output: {}: {e}", p.display()))),
    }
}

/// A string field of an object.
fn str_at<'a>(v: Option<&'a Value>, key: &str) -> Option<&'a str> {
    v.and_then(|v| v.get(key)).and_then(Value::as_str)
}

/// Parses, checks and compares one case's output.
fn check(s: &Suite, c: &Case, r: Rendered, got: Got) -> CaseReport {
    let mut failures = r.failures;
    let env_json = r.envelope.as_ref().and_then(|e| serde_json::to_value(e).ok());
    let prompt = env_json.as_ref().and_then(|v| v.get("prompt"));
    let mut model = r.envelope.as_ref().and_then(|e| e.model.clone());
    if model.is_none() {
        model = str_at(s.metadata.as_ref(), "model").map(str::to_string);
    }
    let mut output_seen = false;
    let mut valid = false;
    let value = match got {
        Got::None(f) => {
            failures.push(f);
            None
        }
        Got::Golden => {
            output_seen = true;
            Some(c.golden.clone())
        }
        Got::Bytes { text } => {
            output_seen = true;
            let taken = output::take_text(&text);
            if let Some(m) = taken.model {
                model = Some(m);
            }
            match output::parse(&taken.text) {
                Ok(v) => Some(v),
                Err(e) => {
                    let from = if taken.from == "text" {
                        String::new()
                    } else {
                        format!(" (the text of a {} response)", taken.from)
                    };
                    failures.push(Failure::new("", Kind::Parse, format!("{e}{from}")));
                    None
                }
            }
        }
    };
    if let Some(v) = &value {
        let violations = s.schema.as_ref().map(|sc| sc.schema.check(v)).unwrap_or_default();
        valid = violations.is_empty();
        for viol in violations {
            failures.push(Failure {
                path: viol.path,
                kind: Kind::Schema,
                expected: None,
                actual: None,
                message: format!("{} [{}]", viol.message, viol.keyword),
            });
        }
        failures.extend(golden::compare(&c.golden, v, &s.rules));
    }
    let mut report = CaseReport::new(s.name.clone(), c.name.clone(), failures);
    report.prompt_name = str_at(prompt, "name").map(str::to_string);
    report.prompt_version = str_at(prompt, "version").map(str::to_string);
    report.model = model;
    report.metadata = s.metadata.clone();
    report.file = Some(c.golden_file.clone());
    report.output = output_seen;
    report.valid = valid;
    report
}
