//! `export`: an envelope → the request of one target (OpenAI Chat, OpenAI
//! Responses, Anthropic Messages, or a cURL command), with the notices of
//! what that target cannot express (`envelope::export::render`).

use envelope::{Diagnostic, Notice};
use serde::{Deserialize, Serialize};

/// The operation's name.
pub const OP: &str = "export";

/// What the page sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The envelope as JSON text (the document as loaded).
    pub envelope: String,
    /// `Target::code`: `openai`, `responses`, `anthropic`, `curl-openai`, `curl-anthropic`.
    pub target: String,
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

/// Renders the envelope for the target.
#[cfg(feature = "engine")]
pub fn run(request: Request) -> Result<Reply, String> {
    use envelope::export::{render, Target};
    let target = Target::from_code(&request.target).ok_or_else(|| format!("no export target `{}`", request.target))?;
    Ok(match envelope::parse(&request.envelope) {
        Ok(loaded) => {
            let e = render(&loaded.envelope, target);
            Reply::Exported { text: e.text, notices: e.notices }
        }
        Err(errors) => Reply::Failed { errors },
    })
}

/// [`run`] over JSON text.
#[cfg(feature = "engine")]
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
