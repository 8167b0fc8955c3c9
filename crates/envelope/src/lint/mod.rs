//! `pep lint`: validation plus the checks a team puts in CI — token budgets,
//! secrets and sensitive words, required variables, prefix-cache breakers,
//! unused tools and text sent twice. The checks, [`lint`] and the output
//! formats are the crate feature `lint` (it counts exact `o200k_base`
//! tokens, so it brings the tokenizer); the settings ([`Config`],
//! [`Settings`], [`Level`]) and [`Finding`] are always built, for the
//! engine's messages (`crate::engine::lint`), which the app reads without
//! the feature.
//!
//! [`lint`] reads one document and returns its [`Finding`]s: each a
//! [`Diagnostic`] (rule code, severity after configuration, path, message,
//! hint) with its structured [`Location`] (message, segment, field, JSON
//! pointer, line and column). Each check is its own module; they share the
//! list of what the model receives ([`fields`]). [`Settings`] come from
//! `pep.toml` (see [`Config`]) or, in the app, from preferences (the same
//! [`Config`], its top level).
//!
//! Output formats: [`text`] (like rustc), [`json`], [`sarif`] (2.1.0, for
//! GitHub code scanning) and [`github`] (workflow annotations). No output
//! ever holds a detected secret in full: messages, hints and quoted source
//! lines go through [`secrets::redact`].

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::diag::{Area, Diagnostic, Rule, Severity};
use crate::locate::Location;

#[cfg(feature = "lint")]
pub mod budget;
#[cfg(feature = "lint")]
pub mod cache;
#[cfg(feature = "lint")]
pub mod contract_field;
#[cfg(feature = "lint")]
pub mod fields;
#[cfg(feature = "lint")]
pub mod github;
#[cfg(feature = "lint")]
pub mod prompt_version;
#[cfg(feature = "lint")]
mod run;
#[cfg(feature = "lint")]
pub mod sarif;
#[cfg(feature = "lint")]
pub mod secrets;
#[cfg(feature = "lint")]
pub mod text;
#[cfg(feature = "lint")]
pub mod tools;
#[cfg(feature = "lint")]
pub mod variables;
#[cfg(feature = "lint")]
pub mod waste;

#[cfg(feature = "lint")]
pub use run::{json, lint, Ctx, FileReport, Raw};

pub use crate::display::thousands;

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

/// The settings of `pep.toml`: top-level settings apply everywhere;
/// `[environments.NAME]` tables hold the same settings (and no environments
/// of their own) and add to them for `--env NAME` (scalars replace, lists
/// extend, rule levels override). The app's Checks tab edits the top level
/// (kept in preferences as this type's JSON) and sends it to the engine.
///
/// ```toml
/// sensitive_words = ["secret", "credential"]
/// required_variables = ["jurisdiction"]
/// require_prompt_version = true
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
    /// Token budget of the whole exported request (o200k_base).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Largest share of `max_tokens` one segment may send (0 < share ≤ 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment_share: Option<f64>,
    /// Words that must not reach the model (case-insensitive, whole words).
    #[serde(default)]
    pub sensitive_words: Vec<String>,
    /// Variables every document must declare with a `static_var`.
    #[serde(default)]
    pub required_variables: Vec<String>,
    /// Shortest text, in tokens, that `duplicate-text` reports when sent twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_min_tokens: Option<u64>,
    /// Every document must carry a prompt version (`prompt.version`,
    /// rule `prompt-version`); default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_prompt_version: Option<bool>,
    /// Level per rule code: `off`, `info`, `warning` or `error`.
    #[serde(default)]
    pub rules: BTreeMap<String, Level>,
    /// `[environments.NAME]`: settings for `--env NAME` (top level only).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub environments: BTreeMap<String, Config>,
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
    /// `prompt-version` reports a document without `prompt.version`.
    pub require_prompt_version: bool,
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
            require_prompt_version: false,
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

    /// Whether `rule`'s findings are reported (it is not `off`).
    pub fn is_on(&self, rule: Rule) -> bool {
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
        s.require_prompt_version = self.require_prompt_version.unwrap_or(false);
        apply_rules(&mut s.levels, &self.rules, "rules")?;
        // Every environment is checked, so a typo fails whichever is chosen.
        for (name, e) in &self.environments {
            if !e.environments.is_empty() {
                return Err(format!("[environments.{name}] cannot hold environments of its own"));
            }
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
            s.require_prompt_version = e.require_prompt_version.unwrap_or(s.require_prompt_version);
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
/// byte range it covers there. Its JSON is `{diagnostic, location}` (the
/// engine's `lint` reply); `pep lint --format json` writes the diagnostic's
/// fields flat beside `location` ([`json`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub diagnostic: Diagnostic,
    pub location: Location,
    /// Byte range inside the decoded string at the path (not serialised).
    #[serde(skip)]
    pub span: Option<Range<usize>>,
}

/// Counts per severity: (errors, warnings, infos).
pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
    let n = |s| findings.iter().filter(|f| f.diagnostic.severity == s).count();
    (n(Severity::Error), n(Severity::Warning), n(Severity::Info))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

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
        assert!(!top.require_prompt_version && !prod.require_prompt_version);
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

    #[test]
    fn require_prompt_version_is_off_unless_asked_and_an_environment_may_ask() {
        let c: Config = serde_json::from_value(serde_json::json!({
            "environments": {"production": {"require_prompt_version": true}, "dev": {}}
        }))
        .unwrap();
        assert!(!c.settings(None).unwrap().require_prompt_version);
        assert!(c.settings(Some("production")).unwrap().require_prompt_version);
        assert!(!c.settings(Some("dev")).unwrap().require_prompt_version);
        let c: Config = serde_json::from_value(serde_json::json!({
            "require_prompt_version": true, "environments": {"scratch": {"require_prompt_version": false}}
        }))
        .unwrap();
        assert!(c.settings(None).unwrap().require_prompt_version);
        assert!(!c.settings(Some("scratch")).unwrap().require_prompt_version);
        assert!(serde_json::from_value::<Config>(serde_json::json!({"require_prompt_version": "yes"})).is_err());
    }

    #[test]
    fn an_environment_holds_no_environments() {
        let c: Config = serde_json::from_value(serde_json::json!({
            "environments": {"prod": {"environments": {"x": {}}}}
        }))
        .unwrap();
        assert!(c.settings(None).unwrap_err().contains("[environments.prod] cannot hold environments"));
    }

    #[test]
    fn the_apps_saved_settings_read_and_write_back_as_they_were() {
        // What the Checks tab has kept in preferences since it exists: the
        // six keys, unset numbers left out.
        for saved in [
            r#"{"sensitive_words":[],"required_variables":[],"rules":{}}"#,
            r#"{"max_tokens":900,"segment_share":0.25,"sensitive_words":["acme"],"required_variables":["x"],"duplicate_min_tokens":50,"rules":{"unused-tool":"off"}}"#,
        ] {
            let c: Config = serde_json::from_str(saved).unwrap();
            assert_eq!(serde_json::to_string(&c).unwrap(), saved);
        }
        let c: Config = serde_json::from_str(r#"{"sensitive_words":["acme"],"max_tokens":900}"#).unwrap();
        assert_eq!((c.max_tokens, c.sensitive_words.as_slice()), (Some(900), &["acme".to_string()][..]));
    }
}
