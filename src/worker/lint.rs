//! `lint`: the document's findings (`pep lint`'s checks, with the user's
//! settings) from the engine; the checks and the tokenizer stay out of the
//! page's module.

pub use pep_token_worker::lint::{Finding, Location, Reply, Settings};
use pep_token_worker::lint::{Request, OP};

/// Lints `envelope` (JSON text) with `settings`. `Ok` is the engine's
/// reply: the findings, or why the settings are refused; `Err` says why
/// the engine could not answer.
pub async fn lint(envelope: String, settings: Settings) -> Result<Reply, String> {
    super::call_json(OP, &Request { envelope, settings }).await
}

/// [`lint`], with the time the checks took in the engine (ms).
pub async fn lint_timed(envelope: String, settings: Settings) -> Result<(Reply, f64), String> {
    super::call_json_timed(OP, &Request { envelope, settings }).await
}
