//! `diff`: two documents (envelopes, or provider requests, imported) → what
//! `pep diff --format json` reports, with each added or removed message's
//! segments and their text (`envelope::diff::compare_in_full`), and both
//! documents as envelopes. The messages: [`envelope::engine::diff`].

use envelope::diff::{compare_in_full, load_any};
use envelope::engine::diff::{Reply, Request, Side};

/// Compares the two documents.
pub fn run(request: Request) -> Result<Reply, String> {
    let a = match load_any(request.before.as_bytes()) {
        Ok(l) => l,
        Err(errors) => return Ok(Reply::Failed { side: Side::Before, errors }),
    };
    let b = match load_any(request.after.as_bytes()) {
        Ok(l) => l,
        Err(errors) => return Ok(Reply::Failed { side: Side::After, errors }),
    };
    Ok(Reply::Compared {
        comparison: compare_in_full(&a.envelope, &b.envelope),
        before: envelope::export::to_pretty(&a.raw),
        after: envelope::export::to_pretty(&b.raw),
    })
}

/// [`run`] over JSON text.
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
