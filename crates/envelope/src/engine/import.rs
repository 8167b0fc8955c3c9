//! `import`: a provider's request body (OpenAI Chat, OpenAI Responses,
//! Anthropic Messages; detected) → an envelope, with the notices of what did
//! not carry over, or every error with its path. The page reads envelopes
//! itself and sends here only what is not meant as one
//! (`crate::parse::meant_as_envelope`).

use serde::{Deserialize, Serialize};

use crate::diag::{Diagnostic, Notice};
use crate::types::RequestFormat;

/// The operation's name.
pub const OP: &str = "import";

/// What the page sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The body, as the user gave it (UTF-8 JSON text).
    pub text: String,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    Imported {
        /// The format read (its name for people: [`RequestFormat::label`]).
        format: RequestFormat,
        /// The envelope made, as `pep import` prints it (pretty JSON).
        envelope: String,
        /// What has no place in the envelope, by JSON path into the request.
        notices: Vec<Notice>,
    },
    /// The body is malformed, fits no format (the error names those tried),
    /// or is an envelope rather than a request.
    Failed { errors: Vec<Diagnostic> },
}
