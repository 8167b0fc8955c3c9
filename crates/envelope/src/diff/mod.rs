//! `pep diff A B`: what changed between two versions of a prompt, and how much
//! of the previous version's prompt cache the new one can reuse. Computing it
//! ([`compare`], [`render_text`], [`cache`], [`json`]) is the crate feature
//! `diff` (token counts need the tokenizer; line diffs the `similar` crate);
//! the result ([`Comparison`] and its parts) is always built, for the
//! engine's messages (`crate::engine::diff`), which the app reads without the
//! feature.
//!
//! - Messages are matched by `id`, then (for messages whose id changed) by
//!   position and role; segments of a matched message are aligned by a
//!   sequence diff, and a replaced segment counts as changed when its
//!   counterpart at the same position has the same kind.
//! - A changed segment shows a line diff of the text it sends (variables
//!   substituted, as the model reads it) and the JSON fields that changed.
//! - Token counts (o200k_base) per message before and after, and in total;
//!   the `tools` array counts in the message that declares the tools
//!   ([`message_tokens`]).
//! - The cache break point ([`cache`]): the first token at which the two
//!   prompts differ.
//! - `version-not-bumped` ([`version`]): the prompt sent changed and its
//!   version (`prompt.version`) did not.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::diag::Diagnostic;
use crate::display::thousands;
use crate::types::Role;

#[cfg(feature = "diff")]
mod align;
#[cfg(feature = "diff")]
pub mod cache;
#[cfg(feature = "diff")]
mod compare;
#[cfg(feature = "diff")]
pub mod json;
#[cfg(feature = "diff")]
pub mod version;

#[cfg(feature = "diff")]
pub use align::line_diff;
#[cfg(feature = "diff")]
pub use compare::{compare, compare_in_full, lines, load_any, render_text};

/// One line of a line diff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    pub tag: LineTag,
    pub text: String,
}

/// What a line of a line diff is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LineTag {
    /// In both texts (context).
    Equal,
    /// Only in the first.
    Delete,
    /// Only in the second.
    Insert,
}

impl LineTag {
    /// `equal`, `delete` or `insert`.
    pub fn as_str(self) -> &'static str {
        match self {
            LineTag::Equal => "equal",
            LineTag::Delete => "delete",
            LineTag::Insert => "insert",
        }
    }
}

/// What happened to a message or a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Unchanged,
    Changed,
    Added,
    Removed,
}

/// A segment of a changed message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentDiff {
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<usize>,
    /// The segment's `kind` (`text`, `tool_call_request`, …).
    pub kind: String,
    /// For a changed segment whose sent text changed: the line diff, by hunk.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub text: Vec<Vec<Line>>,
    /// For a changed segment: every JSON field that changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
    /// The text it sends before and after (for the unified text output).
    #[serde(skip)]
    sent: (String, String),
}

/// A message of either version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageDiff {
    pub status: Status,
    /// Index in the first document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<usize>,
    /// Index in the second document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<usize>,
    pub id: String,
    /// The id in the first document, when it differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_id: Option<String>,
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_before: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_after: Option<u64>,
    /// Segments that changed, were added or removed (changed messages only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<SegmentDiff>,
    /// Message fields (timestamp, role, truncationPriority, …) that changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
}

/// Both versions compared.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// The documents are the same envelope (formatting and key order aside).
    pub equal: bool,
    /// Top-level fields (`model`, `params`, `version`) that changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<FieldChange>,
    /// Every message, in the second document's order (removed ones where they stood).
    pub messages: Vec<MessageDiff>,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub cache: CacheBreak,
    /// Findings about the change (`version-not-bumped`: the prompt sent
    /// changed, its `prompt.version` did not; [`version`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Diagnostic>,
}

/// One difference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldChange {
    /// Where, written as diagnostics write paths (`messages[3].content`; the
    /// whole value: empty).
    pub path: String,
    /// The value before (`None`: added; `Some(null)`: it was `null`).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub before: Option<Value>,
    /// The value after (`None`: removed).
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub after: Option<Value>,
}

/// A field that is there is `Some`, `null` included (serde's `Option` would
/// read `null` as `None`: "added" instead of "was null").
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The break point of the new version against the previous one ([`cache`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheBreak {
    /// Tokens of the new prompt that the previous one had, from the start.
    pub reusable: u64,
    /// Tokens of the new prompt.
    pub total: u64,
    /// Tokens of the previous prompt.
    pub previous_total: u64,
    /// The model changed: nothing is shared.
    pub model_changed: bool,
    /// The prompts are the same token for token.
    pub identical: bool,
    /// The first difference is in the tool declarations.
    pub in_tools: bool,
    /// The new version's message holding the first different token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Its segment, when one segment holds that token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment: Option<usize>,
}

impl CacheBreak {
    /// One sentence for people.
    pub fn sentence(&self) -> String {
        let n = thousands;
        if self.model_changed {
            return format!(
                "the model changed, so none of the {} tokens are reusable from the previous version's cache",
                n(self.total)
            );
        }
        if self.identical {
            return format!(
                "the prompts are identical: all {} tokens are reusable from the previous version's cache",
                n(self.total)
            );
        }
        let mut s = format!(
            "the first {} of {} tokens are reusable from the previous version's cache",
            n(self.reusable),
            n(self.total)
        );
        if self.in_tools {
            s.push_str(" (the prompts first differ in the tool declarations)");
        } else if let Some(mi) = self.message {
            let id = self.message_id.as_deref().map(|i| format!(" `{i}`")).unwrap_or_default();
            let seg = self.segment.map(|j| format!(", segments[{j}]")).unwrap_or_default();
            s.push_str(&format!(" (the prompts first differ at messages[{mi}]{id}{seg})"));
        } else if self.reusable == self.total {
            s.push_str(" (the new version ends earlier)");
        }
        s
    }
}
