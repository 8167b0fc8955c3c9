//! `diff`: two documents (envelopes, or provider requests, imported) → what
//! `pep diff --format json` reports: messages and segments added, removed
//! and changed, line diffs of changed text, token counts before and after,
//! and the cache break point (`envelope::diff`), with each added or removed
//! message's segments and their text (`compare_in_full`). The reply also
//! carries both documents as envelopes, for the page to show them.

use envelope::Diagnostic;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// What changed in a message or a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Unchanged,
    Changed,
    Added,
    Removed,
}

/// A field that changed (`envelope::diff::json::FieldChange`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldChange {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Value>,
}

/// One line of a line diff: `tag` is `equal`, `delete` or `insert`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub tag: String,
    pub text: String,
}

/// A segment of a changed message (`envelope::diff::SegmentDiff`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentDiff {
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<usize>,
    pub kind: String,
    /// The line diff of the text it sends, by hunk.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub text: Vec<Vec<Line>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

/// A message of either version (`envelope::diff::MessageDiff`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageDiff {
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<usize>,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_id: Option<String>,
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_before: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_after: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<SegmentDiff>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

/// The cache break point (`envelope::diff::cache::CacheBreak`), in the new version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheBreak {
    pub reusable: u64,
    pub total: u64,
    pub previous_total: u64,
    pub model_changed: bool,
    pub identical: bool,
    pub in_tools: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<usize>,
}

/// Both versions compared (`envelope::diff::Comparison`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub equal: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
    pub messages: Vec<MessageDiff>,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub cache: CacheBreak,
    /// The break point's sentence, as `pep diff` prints it.
    pub sentence: String,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    Compared {
        comparison: Comparison,
        /// Both documents as envelopes (pretty JSON; a request imported).
        before: String,
        after: String,
    },
    /// A side does not read: which (`before` or `after`) and its errors.
    Failed { side: String, errors: Vec<Diagnostic> },
}

/// Compares the two documents.
#[cfg(feature = "engine")]
pub fn run(request: Request) -> Result<Reply, String> {
    use envelope::diff::{compare_in_full, load_any};
    let a = match load_any(request.before.as_bytes()) {
        Ok(l) => l,
        Err(errors) => return Ok(Reply::Failed { side: "before".into(), errors }),
    };
    let b = match load_any(request.after.as_bytes()) {
        Ok(l) => l,
        Err(errors) => return Ok(Reply::Failed { side: "after".into(), errors }),
    };
    // Added and removed messages with their segments' text, for the page.
    let c = compare_in_full(&a.envelope, &b.envelope);
    let mut value = serde_json::to_value(&c).map_err(|e| e.to_string())?;
    if let Some(o) = value.as_object_mut() {
        o.insert("sentence".into(), Value::from(c.cache.sentence()));
    }
    let comparison: Comparison =
        serde_json::from_value(value).map_err(|e| format!("the comparison does not fit the protocol: {e}"))?;
    Ok(Reply::Compared {
        comparison,
        before: envelope::export::to_pretty(&a.raw),
        after: envelope::export::to_pretty(&b.raw),
    })
}

/// [`run`] over JSON text.
#[cfg(feature = "engine")]
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
