//! The runner of `pep lint` (feature `lint`): one document's findings
//! ([`lint`]), what the checks share ([`Ctx`]) and the JSON report ([`json`]).

use std::ops::Range;

use serde::Serialize;
use serde_json::Value;

use super::{
    budget, cache, contract_field, fields, prompt_version, secrets, tools, variables, waste, Finding, Settings,
};
use crate::diag::{Diagnostic, Rule};
use crate::export::{contributions, Contributions};
use crate::locate::{located, Location, SourceMap};
use crate::parse::parse_bytes;
use crate::parts::{count_parts, part_texts, Part, PartText};
use crate::types::Envelope;

/// The findings of one file, with its text for quoting source lines.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    /// The file as named on the command line.
    pub file: String,
    /// Each written with its diagnostic's fields flat beside `location`.
    #[serde(serialize_with = "flat")]
    pub findings: Vec<Finding>,
    /// The request's o200k_base tokens, when the document was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(skip)]
    pub source: Option<String>,
}

impl FileReport {
    /// Whether any finding is at error severity.
    pub fn has_errors(&self) -> bool {
        self.findings.iter().any(|f| f.diagnostic.is_error())
    }

    /// Counts per severity: (errors, warnings, infos).
    pub fn counts(&self) -> (usize, usize, usize) {
        super::counts(&self.findings)
    }
}

/// Findings as `pep lint --format json` writes them: `{severity, code,
/// path, message, hint?, location}`.
fn flat<S: serde::Serializer>(findings: &[Finding], s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Flat<'a> {
        #[serde(flatten)]
        diagnostic: &'a Diagnostic,
        location: &'a Location,
    }
    s.collect_seq(findings.iter().map(|f| Flat { diagnostic: &f.diagnostic, location: &f.location }))
}

/// A check's finding before locating: the diagnostic and a span inside the
/// string at its path.
pub struct Raw {
    pub diagnostic: Diagnostic,
    pub span: Option<Range<usize>>,
}

impl Raw {
    pub fn new(rule: Rule, path: impl Into<String>, message: impl Into<String>) -> Raw {
        Raw { diagnostic: Diagnostic::new(rule, path, message), span: None }
    }

    pub fn span(mut self, span: Range<usize>) -> Raw {
        self.span = Some(span);
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Raw {
        self.diagnostic.hint = Some(hint.into());
        self
    }
}

/// What the checks share about one valid document.
pub struct Ctx<'a> {
    pub envelope: &'a Envelope,
    pub contributions: Contributions,
    pub settings: &'a Settings,
    texts: Vec<PartText>,
    parts: std::cell::OnceCell<Vec<Part>>,
}

impl<'a> Ctx<'a> {
    pub fn new(envelope: &'a Envelope, settings: &'a Settings) -> Self {
        let contributions = contributions(envelope);
        let texts = part_texts(envelope, &contributions);
        Ctx { envelope, contributions, settings, texts, parts: std::cell::OnceCell::new() }
    }

    /// The truncation parts with exact counts (counted once, on first use).
    pub fn parts(&self) -> &[Part] {
        self.parts.get_or_init(|| count_parts(&self.texts, |s| crate::tokens::count(s) as u64))
    }

    pub fn part_texts(&self) -> &[PartText] {
        &self.texts
    }

    /// The request's total tokens (images at their estimate).
    pub fn total_tokens(&self) -> u64 {
        self.parts().iter().map(|p| p.tokens).sum()
    }
}

/// Lints one document (bytes as read from its file).
pub fn lint(file: &str, bytes: &[u8], settings: &Settings) -> FileReport {
    let text = std::str::from_utf8(bytes).ok();
    let source = text.map(SourceMap::new);
    let (raws, doc, tokens) = match parse_bytes(bytes) {
        Err(errors) => {
            let doc = text.and_then(|t| serde_json::from_str::<Value>(t.strip_prefix('\u{feff}').unwrap_or(t)).ok());
            (errors.into_iter().map(|d| Raw { diagnostic: d, span: None }).collect::<Vec<_>>(), doc, None)
        }
        Ok(loaded) => {
            let ctx = Ctx::new(&loaded.envelope, settings);
            let mut raws: Vec<Raw> = loaded
                .warnings
                .into_iter()
                .map(|d| {
                    let span = placeholder_span(&d, &loaded.raw);
                    Raw { diagnostic: d, span }
                })
                .collect();
            raws.extend(checks(&ctx));
            let tokens = ctx.parts.get().map(|_| ctx.total_tokens());
            (raws, Some(loaded.raw), tokens)
        }
    };
    let mut findings: Vec<Finding> = raws
        .into_iter()
        .filter_map(|mut r| {
            r.diagnostic.severity = settings.severity(r.diagnostic.rule)?;
            r.diagnostic.message = secrets::redact(&r.diagnostic.message).into_owned();
            r.diagnostic.hint = r.diagnostic.hint.map(|h| secrets::redact(&h).into_owned());
            let d = &r.diagnostic;
            let location = located(&d.path, d.rule, r.span.clone(), doc.as_ref(), source.as_ref());
            Some(Finding { diagnostic: r.diagnostic, location, span: r.span })
        })
        .collect();
    findings.sort_by_key(|f| (f.location.line.unwrap_or(0), f.location.column.unwrap_or(0)));
    FileReport { file: file.to_string(), findings, tokens, source: text.map(str::to_string) }
}

/// Every check beyond validation, for the rules that are on.
fn checks(ctx: &Ctx) -> Vec<Raw> {
    let s = ctx.settings;
    let mut out = Vec::new();
    if s.is_on(Rule::TokenBudget) || s.is_on(Rule::SegmentBudget) {
        out.extend(budget::check(ctx));
    }
    let sent = fields::sent(ctx.envelope);
    if s.is_on(Rule::Secret) {
        out.extend(secrets::check(&sent));
    }
    if s.is_on(Rule::SensitiveWord) && !s.sensitive_words.is_empty() {
        out.extend(secrets::check_words(&sent, &s.sensitive_words));
    }
    if s.is_on(Rule::RequiredVariable) {
        out.extend(variables::check(ctx));
    }
    if s.is_on(Rule::CacheVariable) {
        out.extend(cache::variables(ctx));
    }
    if s.is_on(Rule::CacheTimestamp) {
        out.extend(cache::timestamps(ctx, &sent));
    }
    if s.is_on(Rule::UnusedTool) {
        out.extend(tools::check(ctx));
    }
    if s.is_on(Rule::DuplicateText) {
        out.extend(waste::check(&sent, s.duplicate_min_tokens));
    }
    if s.is_on(Rule::ContractField) {
        out.extend(contract_field::check(ctx));
    }
    if s.is_on(Rule::PromptVersion) {
        out.extend(prompt_version::check(ctx));
    }
    out
}

/// For an undeclared-variable warning, the placeholder's range in its field.
fn placeholder_span(d: &Diagnostic, raw: &Value) -> Option<Range<usize>> {
    if d.rule != Rule::UndeclaredVariable {
        return None;
    }
    let name = d.message.strip_prefix("placeholder {{")?.split("}}").next()?;
    let steps = crate::locate::steps(&d.path, Some(raw))?;
    let text = raw.pointer(&crate::locate::pointer(&steps))?.as_str()?;
    crate::template::placeholders(text).into_iter().find(|p| p.name == name).map(|p| p.range)
}

/// The reports as JSON: `{"files": [{file, tokens?, findings: [...]}], "summary": {...}}`.
pub fn json(reports: &[FileReport]) -> Value {
    let (mut e, mut w, mut i) = (0, 0, 0);
    for r in reports {
        let (a, b, c) = r.counts();
        e += a;
        w += b;
        i += c;
    }
    serde_json::json!({
        "files": reports,
        "summary": {"errors": e, "warnings": w, "infos": i},
    })
}
