//! `lint`: the document's findings (`pep lint`'s checks, with the user's
//! settings) from the engine; the checks and the tokenizer stay out of the
//! page's module. The reply is read through `serde_json::Value`
//! ([`super::read`]).

use serde_json::Value;

pub use pep_token_worker::lint::{Finding, Location, Settings};
use pep_token_worker::lint::{Request, OP};
use serde::Deserialize as _;

use super::read::{diagnostic, opt_s, s, u, variant};

/// The Checks tab's settings as preferences keep them: the saved JSON, read
/// only when the checks run or the settings are shown (both code of the
/// Checks tab's module), not at start (issue 11). `null`, never set, reads as
/// the defaults.
pub fn settings_from_saved(saved: &Value) -> Result<Settings, String> {
    if saved.is_null() {
        return Ok(Settings::default());
    }
    Settings::deserialize(saved)
        .map_err(|e| format!("the saved settings could not be read ({e}); Reset sets the defaults"))
}

/// Settings as preferences keep them.
pub fn settings_to_saved(settings: &Settings) -> Value {
    serde_json::to_value(settings).unwrap_or(Value::Null)
}

/// What the page gets.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// Every finding, and the request's tokens when the document read.
    Linted { findings: Vec<Finding>, tokens: Option<u64> },
    /// The settings are refused: why.
    BadSettings { error: String },
}

impl Reply {
    /// Counts per severity: (errors, warnings, infos).
    pub fn counts(findings: &[Finding]) -> (usize, usize, usize) {
        pep_token_worker::lint::Reply::counts(findings)
    }
}

/// Lints `envelope` (JSON text) with `settings`, with the time the checks
/// took in the engine (ms). `Err` says why the engine could not answer.
pub async fn lint_timed(envelope: String, settings: Settings) -> Result<(Reply, f64), String> {
    let (v, ms): (Value, f64) = super::call_json_timed(OP, &Request { envelope, settings }).await?;
    let r = read(&v).ok_or_else(|| "the engine worker's `lint` reply does not read; reload the page".to_string())?;
    Ok((r, ms))
}

/// The reply's JSON as the page's types.
pub fn read(v: &Value) -> Option<Reply> {
    let (tag, c) = variant(v)?;
    match tag {
        "linted" => Some(Reply::Linted {
            findings: c
                .get("findings")?
                .as_array()?
                .iter()
                .filter_map(|f| {
                    let l = f.get("location")?;
                    Some(Finding {
                        diagnostic: diagnostic(f.get("diagnostic")?)?,
                        location: Location {
                            message: u(l, "message"),
                            message_id: opt_s(l, "messageId"),
                            segment: u(l, "segment"),
                            field: opt_s(l, "field"),
                            pointer: s(l, "pointer"),
                            line: u(l, "line"),
                            column: u(l, "column"),
                            end_line: u(l, "endLine"),
                            end_column: u(l, "endColumn"),
                        },
                    })
                })
                .collect(),
            tokens: c.get("tokens").and_then(Value::as_u64),
        }),
        "bad_settings" => Some(Reply::BadSettings { error: s(c, "error") }),
        _ => None,
    }
}
