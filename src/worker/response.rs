//! `response`: a model's output checked in the engine as `pep test` checks
//! it — its text taken from a provider response body, read as JSON,
//! validated against an output schema (the strict validator, which only the
//! engine carries) and compared with a golden output.

use envelope::engine::response::OP;
pub use envelope::engine::response::{Comparison, Difference, Parsed, Reply, Request, Rules, Validation, Violation};

/// Checks an output. `Ok` is the engine's reply (the output's own problems
/// are in it); `Err` says why the engine could not answer.
pub async fn check(request: Request) -> Result<Reply, String> {
    super::call_json(OP, &request).await
}
