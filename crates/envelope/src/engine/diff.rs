//! `diff`: two documents (envelopes, or provider requests, imported) → what
//! `pep diff --format json` reports (`crate::diff`): messages and segments
//! added, removed and changed, line diffs of changed text, token counts
//! before and after, and the cache break point, with each added or removed
//! message's segments and their text (`compare_in_full`). The reply also
//! carries both documents as envelopes.

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;
use crate::diff::Comparison;

/// The operation's name.
pub const OP: &str = "diff";

/// What the page sends: the two documents as the user gave them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The previous version.
    pub before: String,
    /// The new version.
    pub after: String,
}

/// One of the two documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Before,
    After,
}

/// What the worker answers.
// One reply per comparison, serialised at once: its size in memory does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    Compared {
        /// Its sentence for people: `comparison.cache.sentence()`.
        comparison: Comparison,
        /// Both documents as envelopes (pretty JSON; a request imported).
        before: String,
        after: String,
    },
    /// A side does not read: which, and its errors.
    Failed { side: Side, errors: Vec<Diagnostic> },
}
