//! `pep lint`: validation plus the checks a team puts in CI — token budgets,
//! secrets and sensitive words, required variables, prefix-cache breakers,
//! unused tools and text sent twice. Crate feature `lint` (it counts exact
//! `o200k_base` tokens, so it brings the tokenizer).
//!
//! [`lint`] reads one document and returns its [`Finding`]s: each a
//! [`Diagnostic`] (rule code, severity after configuration, path, message,
//! hint) with its structured [`Location`] (message, segment, field, JSON
//! pointer, line and column). Each check is its own module; they share the
//! list of what the model receives ([`fields`]). [`Settings`] come from
//! `pep.toml` (see [`Config`]) or, in the app, from preferences.
//!
//! Output formats: [`text`] (like rustc), [`json`], [`sarif`] (2.1.0, for
//! GitHub code scanning) and [`github`] (workflow annotations). No output
//! ever holds a detected secret in full: messages, hints and quoted source
//! lines go through [`secrets::redact`].

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diag::{Area, Diagnostic, Rule, Severity};
use crate::export::{contributions, Contributions};
use crate::locate::{located, Location, SourceMap};
use crate::parse::parse_bytes;
use crate::parts::{count_parts, part_texts, Part, PartText};
use crate::types::Envelope;

pub mod budget;
pub mod cache;
pub mod fields;
pub mod github;
pub mod sarif;
pub mod secrets;
pub mod text;
pub mod tools;
pub mod variables;
pub mod waste;

/// A configured level for a rule: `off` drops its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Off,
    Info,
    Warning,
    Error,
}

impl Level {
    fn severity(self) -> Option<Severity> {
        match self {
            Level::Off => None,
            Level::Info => Some(Severity::Info),
            Level::Warning => Some(Severity::Warning),
            Level::Error => Some(Severity::Error),
        }
    }
}

/// Settings one environment may give; every field is optional (see [`Config`]).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EnvConfig {
    /// Token budget of the whole exported request (o200k_base).
    pub max_tokens: Option<u64>,
    /// Largest share of `max_tokens` one segment may send (0 < share ≤ 1).
    pub segment_share: Option<f64>,
    /// Words that must not reach the model (case-insensitive, whole words).
    #[serde(default)]
    pub sensitive_words: Vec<String>,
    /// Variables every document must declare with a `static_var`.
    #[serde(default)]
    pub required_variables: Vec<String>,
    /// Shortest text, in tokens, that `duplicate-text` reports when sent twice.
    pub duplicate_min_tokens: Option<u64>,
    /// Level per rule code: `off`, `info`, `warning` or `error`.
    #[serde(default)]
    pub rules: BTreeMap<String, Level>,
}

/// The configuration file (`pep.toml`): top-level settings apply everywhere;
/// `[environments.NAME]` tables add to them for `--env NAME` (scalars
/// replace, lists extend, rule levels override).
///
/// ```toml
/// sensitive_words = ["secret", "credential"]
/// required_variables = ["jurisdiction"]
///
/// [rules]
/// unused-tool = "off"
///
/// [environments.production]
/// max_tokens = 2048
/// ```
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub max_tokens: Option<u64>,
    pub segment_share: Option<f64>,
    #[serde(default)]
    pub sensitive_words: Vec<String>,
    #[serde(default)]
    pub required_variables: Vec<String>,
    pub duplicate_min_tokens: Option<u64>,
    #[serde(default)]
    pub rules: BTreeMap<String, Level>,
    #[serde(default)]
    pub environments: BTreeMap<String, EnvConfig>,
}

/// What the checks run with: a [`Config`] resolved for one environment.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The environment's name, for messages (`None`: top-level settings).
    pub env: Option<String>,
    pub max_tokens: Option<u64>,
    pub segment_share: f64,
    pub sensitive_words: Vec<String>,
    pub required_variables: Vec<String>,
    pub duplicate_min_tokens: u64,
    levels: HashMap<Rule, Level>,
}

/// Default `segment_share`.
pub const DEFAULT_SEGMENT_SHARE: f64 = 0.5;
/// Default `duplicate_min_tokens`.
pub const DEFAULT_DUPLICATE_MIN_TOKENS: u64 = 100;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            env: None,
            max_tokens: None,
            segment_share: DEFAULT_SEGMENT_SHARE,
            sensitive_words: Vec::new(),
            required_variables: Vec::new(),
            duplicate_min_tokens: DEFAULT_DUPLICATE_MIN_TOKENS,
            levels: HashMap::new(),
        }
    }
}

impl Settings {
    /// The severity of `rule`'s findings, `None` when it is off.
    pub fn severity(&self, rule: Rule) -> Option<Severity> {
        self.levels.get(&rule).map_or(Some(rule.default_severity()), |l| l.severity())
    }

    /// Sets the level of a rule (the app's settings panel).
    pub fn set_level(&mut self, rule: Rule, level: Level) -> Result<(), String> {
        check_level(rule, level)?;
        self.levels.insert(rule, level);
        Ok(())
    }

    fn is_on(&self, rule: Rule) -> bool {
        self.severity(rule).is_some()
    }
}

/// Errors of a document are what the reader rejects: they cannot be lowered.
fn check_level(rule: Rule, level: Level) -> Result<(), String> {
    if rule.area() == Area::Envelope && rule.default_severity() == Severity::Error && level != Level::Error {
        return Err(format!(
            "rule `{}` cannot be set to `{}`: the reader rejects such a document, so nothing else could be checked",
            rule.code(),
            match level {
                Level::Off => "off",
                Level::Info => "info",
                Level::Warning => "warning",
                Level::Error => "error",
            }
        ));
    }
    Ok(())
}

fn apply_rules(levels: &mut HashMap<Rule, Level>, rules: &BTreeMap<String, Level>, table: &str) -> Result<(), String> {
    for (code, &level) in rules {
        let rule = Rule::from_code(code).ok_or_else(|| {
            let near = Rule::ALL.iter().find(|r| r.code().replace('-', "") == code.replace(['-', '_'], ""));
            match near {
                Some(r) => format!("unknown rule `{code}` in [{table}]; did you mean `{}`?", r.code()),
                None => format!("unknown rule `{code}` in [{table}] (`pep rules` lists them)"),
            }
        })?;
        check_level(rule, level).map_err(|e| format!("[{table}]: {e}"))?;
        levels.insert(rule, level);
    }
    Ok(())
}

fn check_share(share: Option<f64>, table: &str) -> Result<(), String> {
    match share {
        Some(s) if !(s > 0.0 && s <= 1.0) => {
            Err(format!("segment_share in {table} must be above 0 and at most 1, not {s}"))
        }
        _ => Ok(()),
    }
}

impl Config {
    /// The settings for `env` (`None`: the top-level settings alone).
    /// Errors name the table and the key.
    pub fn settings(&self, env: Option<&str>) -> Result<Settings, String> {
        let mut s = Settings::default();
        check_share(self.segment_share, "the top level")?;
        s.max_tokens = self.max_tokens;
        s.segment_share = self.segment_share.unwrap_or(DEFAULT_SEGMENT_SHARE);
        s.sensitive_words = self.sensitive_words.clone();
        s.required_variables = self.required_variables.clone();
        s.duplicate_min_tokens = self.duplicate_min_tokens.unwrap_or(DEFAULT_DUPLICATE_MIN_TOKENS);
        apply_rules(&mut s.levels, &self.rules, "rules")?;
        // Every environment is checked, so a typo fails whichever is chosen.
        for (name, e) in &self.environments {
            check_share(e.segment_share, &format!("[environments.{name}]"))?;
            apply_rules(&mut HashMap::new(), &e.rules, &format!("environments.{name}.rules"))?;
        }
        if let Some(name) = env {
            let e = self.environments.get(name).ok_or_else(|| {
                let known: Vec<&str> = self.environments.keys().map(String::as_str).collect();
                if known.is_empty() {
                    format!("no environment `{name}`: the configuration defines none ([environments.NAME])")
                } else {
                    format!("no environment `{name}`; the configuration defines: {}", known.join(", "))
                }
            })?;
            s.env = Some(name.to_string());
            s.max_tokens = e.max_tokens.or(s.max_tokens);
            s.segment_share = e.segment_share.unwrap_or(s.segment_share);
            s.duplicate_min_tokens = e.duplicate_min_tokens.unwrap_or(s.duplicate_min_tokens);
            for w in &e.sensitive_words {
                if !s.sensitive_words.contains(w) {
                    s.sensitive_words.push(w.clone());
                }
            }
            for v in &e.required_variables {
                if !s.required_variables.contains(v) {
                    s.required_variables.push(v.clone());
                }
            }
            apply_rules(&mut s.levels, &e.rules, &format!("environments.{name}.rules"))?;
        }
        s.sensitive_words.retain(|w| !w.trim().is_empty());
        Ok(s)
    }
}

/// One finding: the diagnostic, where it is, and (inside a string value) the
/// byte range it covers there.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
    pub location: Location,
    /// Byte range inside the decoded string at the path (not serialised).
    #[serde(skip)]
    pub span: Option<Range<usize>>,
}

/// The findings of one file, with its text for quoting source lines.
#[derive(Clone, Debug, Serialize)]
pub struct FileReport {
    /// The file as named on the command line.
    pub file: String,
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
        let n = |s| self.findings.iter().filter(|f| f.diagnostic.severity == s).count();
        (n(Severity::Error), n(Severity::Warning), n(Severity::Info))
    }
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

pub use crate::display::thousands;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environments_extend_the_top_level() {
        let c: Config = serde_json::from_value(serde_json::json!({
            "max_tokens": 8000,
            "sensitive_words": ["secret"],
            "rules": {"unused-tool": "off"},
            "environments": {
                "production": {"max_tokens": 2048, "sensitive_words": ["internal"], "rules": {"unused-tool": "warning"}},
                "staging": {}
            }
        }))
        .unwrap();
        let top = c.settings(None).unwrap();
        assert_eq!((top.max_tokens, top.severity(Rule::UnusedTool)), (Some(8000), None));
        let prod = c.settings(Some("production")).unwrap();
        assert_eq!(prod.max_tokens, Some(2048));
        assert_eq!(prod.sensitive_words, ["secret", "internal"]);
        assert_eq!(prod.severity(Rule::UnusedTool), Some(Severity::Warning));
        assert_eq!(c.settings(Some("staging")).unwrap().max_tokens, Some(8000));
        let e = c.settings(Some("prod")).unwrap_err();
        assert!(e.contains("production, staging"), "{e}");
    }

    #[test]
    fn bad_rules_and_levels_are_refused() {
        let c = |v: Value| serde_json::from_value::<Config>(v).unwrap().settings(None).unwrap_err();
        assert!(c(serde_json::json!({"rules": {"unused_tool": "off"}})).contains("did you mean `unused-tool`"));
        assert!(c(serde_json::json!({"rules": {"unknown-field": "warning"}})).contains("cannot be set"));
        assert!(c(serde_json::json!({"segment_share": 1.5})).contains("segment_share"));
        assert!(
            c(serde_json::json!({"environments": {"x": {"rules": {"nope": "off"}}}})).contains("environments.x.rules")
        );
        assert!(serde_json::from_value::<Config>(serde_json::json!({"max_token": 1})).is_err());
        // Warnings may be raised or silenced.
        let s: Config = serde_json::from_value(serde_json::json!({"rules": {"undeclared-variable": "error"}})).unwrap();
        assert_eq!(s.settings(None).unwrap().severity(Rule::UndeclaredVariable), Some(Severity::Error));
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
