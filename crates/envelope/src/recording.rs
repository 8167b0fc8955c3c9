//! What is said about a recording of model calls without reading one: where
//! a call (or an error) came from ([`At`]), the token counts it states
//! ([`Usage`]), what made a file or a line unreadable ([`Error`]). Always
//! compiled: `crate::recorded` (the readers, feature `recorded`) makes them,
//! and the Calls view's messages (`crate::engine::recorded`) carry them to
//! the page, whose module has no reader.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::diag::{Diagnostic, Rule};

/// Where a call (or an error) came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct At {
    /// The file's name as given.
    pub file: String,
    /// The 1-based line, in a JSON Lines file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The 0-based position among the requests of one document (an
    /// Anthropic batch's `requests[i]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
    /// Lowercase hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_id: Option<String>,
    /// Lowercase hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
    /// A batch request's `custom_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_id: Option<String>,
}

impl At {
    pub fn file(name: &str) -> At {
        At { file: name.to_string(), ..At::default() }
    }

    pub fn line(name: &str, line: Option<u64>) -> At {
        At { file: name.to_string(), line, ..At::default() }
    }
}

impl fmt::Display for At {
    /// `traces.jsonl:12 trace 4bf9… span 00f0…`, `batch.jsonl:3 custom_id "r-1"`,
    /// `anthropic.json requests[2]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if let Some(i) = self.index {
            write!(f, " requests[{i}]")?;
        }
        if let Some(t) = &self.trace_id {
            write!(f, " trace {t}")?;
        }
        if let Some(s) = &self.span_id {
            write!(f, " span {s}")?;
        }
        if let Some(c) = &self.custom_id {
            write!(f, " custom_id {}", serde_json::Value::String(c.clone()))?;
        }
        Ok(())
    }
}

/// Token counts as the recording states them (`gen_ai.usage.*`,
/// `llm.token_count.*`, …); `None` where it states nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Input tokens served from the provider's prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
    /// Input tokens written to the provider's prompt cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

impl Usage {
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }
}

/// What makes a file or a line unreadable, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Error {
    pub at: At,
    /// The rule it breaks, serialised as its code (`pep lint` reports it):
    /// the reader's own (`invalid-json`, `duplicate-key`, an imported body's
    /// `import-unknown-role`), `unreadable-record` for a line or record its
    /// format does not allow, `unreadable-file` or `invalid-utf8` for the bytes.
    #[serde(rename = "code")]
    pub rule: Rule,
    /// A JSON path within the line or document (`resourceSpans[0]…traceId`,
    /// `body.messages[2]`), or `line L column C` for a syntax error; empty
    /// for the whole.
    pub path: String,
    pub message: String,
}

impl Error {
    pub fn new(at: At, rule: Rule, path: impl Into<String>, message: impl Into<String>) -> Error {
        Error { at, rule, path: path.into(), message: message.into() }
    }

    /// A line or record its format does not allow (`unreadable-record`).
    pub fn record(at: At, path: impl Into<String>, message: impl Into<String>) -> Error {
        Error::new(at, Rule::UnreadableRecord, path, message)
    }

    /// A reader's finding at `at`: its rule, path and message.
    pub fn of(at: At, d: Diagnostic) -> Error {
        Error { at, rule: d.rule, path: d.path, message: d.message }
    }
}

impl fmt::Display for Error {
    /// `file:line trace … span …: path: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.at)?;
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        f.write_str(&self.message)
    }
}
