//! `import`: a request body (OpenAI Chat, OpenAI Responses, Anthropic
//! Messages) → an envelope, in the engine (the converters are not in the
//! page's module).

pub use envelope::engine::import::Reply;
use envelope::engine::import::{Request, OP};

/// Imports `text` (a request body the page did not read as an envelope).
/// `Ok` is the engine's reply: the envelope made, or every error with its
/// path; `Err` says why the engine could not answer.
pub async fn import(text: String) -> Result<Reply, String> {
    super::call_json(OP, &Request { text }).await
}
