//! `lint`: an envelope and the lint settings → every finding of `pep lint`
//! (validation, budget, secrets and sensitive words, variables, cache
//! breakers, tools, text sent twice), each with its rule code and structured
//! location (`crate::lint`). Secrets are masked in every message.

use serde::{Deserialize, Serialize};

use crate::lint::{Config, Finding};

/// The operation's name.
pub const OP: &str = "lint";

/// What the page sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The envelope as JSON text (the document as loaded: lines and columns
    /// are its own).
    pub envelope: String,
    /// `pep.toml`'s top level, as the Checks tab keeps it (no environments).
    pub settings: Config,
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
        crate::lint::counts(findings)
    }
}
