//! `import`: a provider's request body (OpenAI Chat, OpenAI Responses,
//! Anthropic Messages; detected) → an envelope, with the notices of what did
//! not carry over, or every error with its path (`envelope::import`).
//!
//! The page reads envelopes itself and sends here only what is not meant as
//! one (`envelope::parse::meant_as_envelope`).

use envelope::{Diagnostic, Notice};
use serde::{Deserialize, Serialize};

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
        /// The format read: `openai`, `responses` or `anthropic` (`Format::code`).
        format: String,
        /// Its name: "Anthropic Messages" (`Format::label`).
        label: String,
        /// The envelope made, as `pep import` prints it (pretty JSON).
        envelope: String,
        /// What has no place in the envelope, by JSON path into the request.
        notices: Vec<Notice>,
    },
    /// The body is malformed, or fits no format (the error names those tried).
    Failed { errors: Vec<Diagnostic> },
}

/// Reads the request.
#[cfg(feature = "engine")]
pub fn run(request: Request) -> Result<Reply, String> {
    Ok(match envelope::import::import(&request.text) {
        Ok(i) => Reply::Imported {
            format: i.format.code().into(),
            label: i.format.label().into(),
            envelope: envelope::export::to_pretty(&i.raw),
            notices: i.notices,
        },
        Err(errors) => Reply::Failed { errors },
    })
}

/// [`run`] over JSON text.
#[cfg(feature = "engine")]
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
