//! `diff`: two documents compared in the engine (`pep diff`): messages and
//! segments changed, line diffs, token deltas, the cache break point. The
//! reply is read through `serde_json::Value` ([`super::read`]).

use serde_json::Value;

pub use pep_token_worker::diff::{CacheBreak, Comparison, FieldChange, Line, MessageDiff, SegmentDiff, Status};
use pep_token_worker::diff::{Request, OP};

use super::read::{b, list, n, opt_s, s, u, variant};

/// What the page gets: the comparison, or which side does not read and why.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Compared { comparison: Comparison },
    Failed { side: String, errors: Vec<String> },
}

/// Compares `before` with `after` (envelopes or provider requests, as JSON
/// text). `Ok` is the engine's reply; `Err` says why it could not answer.
pub async fn diff(before: String, after: String) -> Result<Reply, String> {
    let v: Value = super::call_json(OP, &Request { before, after }).await?;
    read(&v).ok_or_else(|| "the engine worker's `diff` reply does not read; reload the page".to_string())
}

fn status(v: &Value) -> Status {
    match v.get("status").and_then(Value::as_str) {
        Some("changed") => Status::Changed,
        Some("added") => Status::Added,
        Some("removed") => Status::Removed,
        _ => Status::Unchanged,
    }
}

fn fields(v: &Value) -> Vec<FieldChange> {
    list(v, "fields")
        .map(|f| FieldChange { path: s(f, "path"), before: f.get("before").cloned(), after: f.get("after").cloned() })
        .collect()
}

fn segment(v: &Value) -> SegmentDiff {
    SegmentDiff {
        status: status(v),
        before: u(v, "before"),
        after: u(v, "after"),
        kind: s(v, "kind"),
        text: list(v, "text")
            .map(|h| {
                h.as_array().into_iter().flatten().map(|l| Line { tag: s(l, "tag"), text: s(l, "text") }).collect()
            })
            .collect(),
        fields: fields(v),
    }
}

fn message(v: &Value) -> MessageDiff {
    MessageDiff {
        status: status(v),
        before: u(v, "before"),
        after: u(v, "after"),
        id: s(v, "id"),
        previous_id: opt_s(v, "previousId"),
        role: s(v, "role"),
        tokens_before: v.get("tokensBefore").and_then(Value::as_u64),
        tokens_after: v.get("tokensAfter").and_then(Value::as_u64),
        segments: list(v, "segments").map(segment).collect(),
        fields: fields(v),
    }
}

/// The reply's JSON as the page's types.
pub fn read(v: &Value) -> Option<Reply> {
    let (tag, c) = variant(v)?;
    match tag {
        "compared" => {
            let cv = c.get("comparison")?;
            let k = cv.get("cache")?;
            let cache = CacheBreak {
                reusable: n(k, "reusable"),
                total: n(k, "total"),
                previous_total: n(k, "previousTotal"),
                model_changed: b(k, "modelChanged"),
                identical: b(k, "identical"),
                in_tools: b(k, "inTools"),
                message: u(k, "message"),
                message_id: opt_s(k, "messageId"),
                segment: u(k, "segment"),
            };
            Some(Reply::Compared {
                comparison: Comparison {
                    equal: b(cv, "equal"),
                    fields: fields(cv),
                    messages: list(cv, "messages").map(message).collect(),
                    tokens_before: n(cv, "tokensBefore"),
                    tokens_after: n(cv, "tokensAfter"),
                    cache,
                    sentence: s(cv, "sentence"),
                },
            })
        }
        "failed" => Some(Reply::Failed { side: s(c, "side"), errors: super::read::diagnostics_text(c, "errors") }),
        _ => None,
    }
}
