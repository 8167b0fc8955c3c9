//! `pep lint` over files of many calls: each call's findings located by
//! file, line, trace and span ids (or `custom_id`), in the lint formats.

use envelope::diag::Rule;
use envelope::lint::{self as elint, FileReport, Settings};
use envelope::recorded::{self, At, Call};
use envelope::{jsontext, Diagnostic};
use serde_json::{json, Map, Value};

use super::{ids, plural, reading_notes, Out, Uncaptured};
use crate::calls::{self, error_path, Input, Item, Ordered, Shape, Window};
use crate::lint::LintFormat;
use crate::{Done, Outcome};

/// One call's lint: its findings located at the call (`file`, its line),
/// with the message and segment as for a document. `None` when the call's
/// messages were not recorded.
pub fn lint_call(call: &Call, settings: &Settings) -> Option<FileReport> {
    let env = call.envelope()?;
    let text = jsontext::compact(env);
    let mut r = elint::lint(&call.at.file, text.as_bytes(), settings);
    r.source = None;
    for f in &mut r.findings {
        f.location.line = call.at.line.map(|l| l as usize);
        f.location.column = None;
        f.location.end_line = None;
        f.location.end_column = None;
        f.span = None;
    }
    Some(r)
}

/// A line or file that could not be read, as a finding.
fn error_report(e: &recorded::Error) -> FileReport {
    let path = error_path(e);
    let mut location = envelope::locate::Location::default();
    // `line L column C` (a document) or `column C` (a line).
    let words: Vec<&str> = path.split(' ').collect();
    let (line, column, path) = match words.as_slice() {
        ["line", l, "column", c] => (l.parse().ok(), c.parse().ok(), String::new()),
        ["column", c] => (e.at.line.map(|l| l as usize), c.parse().ok(), String::new()),
        _ => (e.at.line.map(|l| l as usize), None, path.clone()),
    };
    location.line = line;
    location.column = column;
    let d = Diagnostic::new(e.rule, path, e.message.clone());
    FileReport {
        file: e.at.file.clone(),
        findings: vec![elint::Finding { diagnostic: d, location, span: None }],
        tokens: None,
        source: None,
    }
}

/// A report and the call it is about (`None`: a single document).
struct Report {
    at: Option<At>,
    report: FileReport,
}

/// Streams reports in one of the lint formats.
struct LintSink {
    format: LintFormat,
    counts: (usize, usize, usize),
    files: usize,
    calls: u64,
    entries: u64,
    sarif_tail: String,
    sarif_indent: usize,
    sarif_chunk: Vec<Report>,
}

const SARIF_CHUNK: usize = 256;

fn indent(text: &str, by: usize) -> String {
    let pad = " ".repeat(by);
    text.lines().map(|l| format!("{pad}{l}")).collect::<Vec<_>>().join("\n")
}

impl LintSink {
    fn new(format: LintFormat, files: usize, out: &mut Out) -> LintSink {
        let mut s = LintSink {
            format,
            counts: (0, 0, 0),
            files,
            calls: 0,
            entries: 0,
            sarif_tail: String::new(),
            sarif_indent: 0,
            sarif_chunk: vec![],
        };
        match format {
            LintFormat::Json => out.out("{\n  \"files\": ["),
            LintFormat::Sarif => {
                let skeleton = jsontext::pretty(&elint::sarif::render(&[], env!("CARGO_PKG_VERSION")));
                let marker = "\"results\": []";
                let at = skeleton.find(marker).unwrap_or(skeleton.len());
                let line_start = skeleton[..at].rfind('\n').map_or(0, |p| p + 1);
                s.sarif_indent = at - line_start + 2;
                out.out(&format!("{}\"results\": [", &skeleton[..at]));
                s.sarif_tail = skeleton[(at + marker.len()).min(skeleton.len())..].to_string();
            }
            LintFormat::Text | LintFormat::Github => {}
        }
        s
    }

    fn add(&mut self, out: &mut Out, r: Report) {
        let (e, w, i) = r.report.counts();
        self.counts.0 += e;
        self.counts.1 += w;
        self.counts.2 += i;
        if r.at.is_some() {
            self.calls += 1;
        }
        match self.format {
            LintFormat::Text => {
                let mut report = r.report;
                if let Some(at) = &r.at {
                    let has_column = report.findings.iter().any(|f| f.location.column.is_some());
                    if !has_column {
                        report.file = at.to_string();
                    }
                }
                let text = elint::text::render(std::slice::from_ref(&report));
                // Without render's closing summary line.
                let body = text.trim_end_matches('\n');
                let body = body.rfind('\n').map_or("", |p| &body[..=p]);
                out.out(body);
            }
            LintFormat::Github => {
                let mut report = r.report;
                if let Some(at) = &r.at {
                    let ids = ids(at);
                    if !ids.is_empty() {
                        // github writes `path: message`: the call first.
                        for f in &mut report.findings {
                            let d = &mut f.diagnostic;
                            d.path = if d.path.is_empty() { ids.clone() } else { format!("{ids}: {}", d.path) };
                        }
                    }
                }
                out.out(&elint::github::render(std::slice::from_ref(&report)));
            }
            LintFormat::Json => {
                let mut v = serde_json::to_value(&r.report).unwrap_or(Value::Null);
                if let (Some(at), Value::Object(o)) = (&r.at, &mut v) {
                    let mut with: Map<String, Value> = Map::new();
                    for (k, val) in std::mem::take(o) {
                        with.insert(k.clone(), val);
                        if k == "file" {
                            with.insert("call".into(), serde_json::to_value(at).unwrap_or(Value::Null));
                        }
                    }
                    *o = with;
                }
                let sep = if self.entries == 0 { "\n" } else { ",\n" };
                out.out(&format!("{sep}{}", indent(&jsontext::pretty(&v), 4)));
                self.entries += 1;
            }
            LintFormat::Sarif => {
                self.sarif_chunk.push(r);
                if self.sarif_chunk.len() >= SARIF_CHUNK {
                    self.sarif_flush(out);
                }
            }
        }
    }

    fn sarif_flush(&mut self, out: &mut Out) {
        let chunk = std::mem::take(&mut self.sarif_chunk);
        let reports: Vec<FileReport> = chunk.iter().map(|r| r.report.clone()).collect();
        let log = elint::sarif::render(&reports, env!("CARGO_PKG_VERSION"));
        let results = log["runs"][0]["results"].as_array().cloned().unwrap_or_default();
        let owners = chunk.iter().flat_map(|r| std::iter::repeat_n(r.at.as_ref(), r.report.findings.len()));
        for (mut result, at) in results.into_iter().zip(owners) {
            if let Some(at) = at {
                result["properties"]["call"] = serde_json::to_value(at).unwrap_or(Value::Null);
                let ids = ids(at);
                if !ids.is_empty() {
                    if let Some(Value::String(t)) = result.pointer_mut("/message/text") {
                        *t = format!("{ids}: {t}");
                    }
                }
            }
            let sep = if self.entries == 0 { "\n" } else { ",\n" };
            out.out(&format!("{sep}{}", indent(&jsontext::pretty(&result), self.sarif_indent)));
            self.entries += 1;
        }
    }

    fn finish(mut self, out: &mut Out) {
        let (e, w, i) = self.counts;
        match self.format {
            LintFormat::Text => {
                let files = plural(self.files, "file");
                let calls = plural(self.calls as usize, "call");
                if e + w + i == 0 {
                    out.out(&format!("no problems in {files} ({calls})\n"));
                } else {
                    out.out(&format!(
                        "{}, {}, {} in {files} ({calls})\n",
                        plural(e, "error"),
                        plural(w, "warning"),
                        plural(i, "info")
                    ));
                }
            }
            LintFormat::Github => {}
            LintFormat::Json => {
                let end = if self.entries == 0 { "],\n" } else { "\n  ],\n" };
                let summary = json!({"errors": e, "warnings": w, "infos": i, "calls": self.calls});
                out.out(&format!("{end}  \"summary\": {}\n}}\n", indent(&jsontext::pretty(&summary), 2).trim_start()));
            }
            LintFormat::Sarif => {
                self.sarif_flush(out);
                if self.entries > 0 {
                    out.out(&format!("\n{}", " ".repeat(self.sarif_indent - 2)));
                }
                out.out(&format!("]{}\n", self.sarif_tail));
            }
        }
    }
}

/// `pep lint FILE...`: single documents as always (and, when no file holds
/// many calls, exactly `crate::lint::run`); per call for files of many calls.
pub fn lint(
    files: &[String],
    format: LintFormat,
    config: Option<&str>,
    env: Option<&str>,
    max_tokens: Option<u64>,
    window: Window,
) -> Outcome {
    let opened: Vec<Result<Input, String>> = files.iter().map(|f| calls::open(f)).collect();
    if !opened.iter().any(|o| o.as_ref().is_ok_and(|i| i.shape != Shape::Single)) {
        return crate::report(
            crate::lint::run(files, format, config, env, max_tokens).map(|(out, no)| (Done::from(out), no)),
        );
    }
    let settings = crate::lint::settings(config, env, max_tokens)?;
    let mut out = Out::new();
    let mut sink = LintSink::new(format, files.len(), &mut out);
    let mut failed = false;
    let mut recorded = Vec::new();
    for (file, o) in files.iter().zip(opened) {
        match o {
            Err(line) => {
                let e = recorded::Error::new(
                    At::file(file),
                    Rule::UnreadableFile,
                    "",
                    line.strip_prefix(&format!("{file}: error: ")).unwrap_or(&line).to_string(),
                );
                failed = true;
                sink.add(&mut out, Report { at: None, report: error_report(&e) });
            }
            Ok(i) if i.shape == Shape::Single => {
                let report = elint::lint(file, i.bytes(), &settings);
                failed |= report.has_errors();
                sink.add(&mut out, Report { at: None, report });
            }
            Ok(i) => recorded.push(i),
        }
    }
    let mut ordered: Ordered<Report> = Ordered::new(window.window);
    let mut uncaptured = Uncaptured::default();
    let summary = calls::read(recorded, window.window, |item| {
        let (start, report) = match item {
            Item::Error(e) => {
                failed = true;
                let report = error_report(&e);
                (None, Report { at: Some(e.at), report })
            }
            Item::Call(call) => match lint_call(&call, &settings) {
                None => {
                    uncaptured.add(&mut out, &call, "nothing to lint");
                    return out.flow();
                }
                Some(report) => {
                    failed |= report.has_errors();
                    (call.start_ns, Report { at: Some(call.at.clone()), report })
                }
            },
        };
        if let Some(r) = ordered.push(start, report) {
            sink.add(&mut out, r);
        }
        out.flow()
    });
    for r in ordered.drain() {
        sink.add(&mut out, r);
    }
    sink.finish(&mut out);
    reading_notes(&mut out, &summary);
    uncaptured.hints(&mut out);
    out.finish();
    Ok(Done { code: u8::from(failed), ..Done::default() })
}
