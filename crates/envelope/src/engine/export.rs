//! `export`: an envelope → the request of one target (OpenAI Responses,
//! Anthropic Messages, a cURL command; OpenAI Chat too, though the page makes
//! that one itself), with the notices of what that target cannot express
//! (`crate::export::render`).

use serde::{Deserialize, Serialize};

use crate::diag::{Diagnostic, Notice};
use crate::export::Target;

/// The operation's name.
pub const OP: &str = "export";

/// What the page sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The envelope as JSON text (the document as loaded).
    pub envelope: String,
    /// Written as [`Target::code`]: `openai`, `responses`, `anthropic`,
    /// `curl-openai`, `curl-anthropic`.
    pub target: Target,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    /// The export text (what `pep export --format` prints) and its notices.
    Exported { text: String, notices: Vec<Notice> },
    /// The envelope does not read (the page only sends envelopes it read).
    Failed { errors: Vec<Diagnostic> },
}
