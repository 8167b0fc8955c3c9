//! `diff`: two documents compared in the engine (`pep diff`): messages and
//! segments changed, line diffs, token deltas, the cache break point.

pub use envelope::diff::{CacheBreak, Comparison, FieldChange, Line, LineTag, MessageDiff, SegmentDiff, Status};
pub use envelope::engine::diff::{Reply, Side};
use envelope::engine::diff::{Request, OP};

/// Compares `before` with `after` (envelopes or provider requests, as JSON
/// text). `Ok` is the engine's reply; `Err` says why it could not answer.
pub async fn diff(before: String, after: String) -> Result<Reply, String> {
    super::call_json(OP, &Request { before, after }).await
}
