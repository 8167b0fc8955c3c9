//! `lint`: an envelope and the lint settings → every finding of `pep lint`
//! (validation, budget, secrets and sensitive words, variables, cache
//! breakers, tools, text sent twice), each with its rule code and structured
//! location (`envelope::lint`). Secrets are masked in every message.

use std::collections::BTreeMap;

use envelope::{Diagnostic, Severity};
use serde::{Deserialize, Serialize};

/// The operation's name.
pub const OP: &str = "lint";

/// The settings of `pep.toml`'s top level that the app lets a user edit
/// (kept in preferences). Field names are `pep.toml`'s.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Token budget of the whole exported request (o200k_base).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Largest share of `max_tokens` one segment may send (0 < share ≤ 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment_share: Option<f64>,
    /// Words that must not reach the model (case-insensitive, whole words).
    #[serde(default)]
    pub sensitive_words: Vec<String>,
    /// Variables every document must declare.
    #[serde(default)]
    pub required_variables: Vec<String>,
    /// Shortest text, in tokens, reported when sent twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_min_tokens: Option<u64>,
    /// Level per rule code: `off`, `info`, `warning` or `error`.
    #[serde(default)]
    pub rules: BTreeMap<String, String>,
}

/// What the page sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The envelope as JSON text (the document as loaded: lines and columns
    /// are its own).
    pub envelope: String,
    pub settings: Settings,
}

/// Where a finding is (`envelope::locate::Location`, as the page reads it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default)]
    pub pointer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_column: Option<usize>,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub diagnostic: Diagnostic,
    pub location: Location,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    /// Every finding (severity as configured; `off` rules left out), in
    /// document order, and the request's tokens when the document read.
    Linted { findings: Vec<Finding>, tokens: Option<u64> },
    /// The settings are refused (an unknown rule, a level a rule cannot take,
    /// a share out of range): why, naming the setting.
    BadSettings { error: String },
}

impl Reply {
    /// Counts per severity: (errors, warnings, infos).
    pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
        let n = |s| findings.iter().filter(|f| f.diagnostic.severity == s).count();
        (n(Severity::Error), n(Severity::Warning), n(Severity::Info))
    }
}

/// Lints the envelope with the settings.
#[cfg(feature = "engine")]
pub fn run(request: Request) -> Result<Reply, String> {
    use envelope::lint::{lint, Config};
    let config: Config = match serde_json::to_value(&request.settings)
        .map_err(|e| e.to_string())
        .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
    {
        Ok(c) => c,
        Err(e) => return Ok(Reply::BadSettings { error: e }),
    };
    let settings = match config.settings(None) {
        Ok(s) => s,
        Err(e) => return Ok(Reply::BadSettings { error: e }),
    };
    let report = lint("document", request.envelope.as_bytes(), &settings);
    let findings = report
        .findings
        .into_iter()
        .map(|f| {
            let location =
                serde_json::to_value(&f.location).ok().and_then(|v| serde_json::from_value(v).ok()).unwrap_or_default();
            Finding { diagnostic: f.diagnostic, location }
        })
        .collect();
    Ok(Reply::Linted { findings, tokens: report.tokens })
}

/// [`run`] over JSON text.
#[cfg(feature = "engine")]
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
