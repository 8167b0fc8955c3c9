//! Our own count of each call's prompt, and how much of it the previous
//! call's prefix cache could serve, for a table of calls read one after
//! another (the app's Calls view).
//!
//! *The previous call* is the one read before it in the same trace, or,
//! for calls without a trace (batch lines, bodies), in the same file: an
//! agent's loop sends each turn's prompt again with more after it, and a
//! batch repeats its system prompt and tools. The figure is the diff's
//! cache break point (DECISIONS.md D45: o200k_base tokens of the strings
//! the export sends, in order, up to the first that differs; another model
//! shares nothing), not rounded to a provider's cache blocks.
//!
//! One request recorded by two instrumentations ([`super::fold`]) is read as
//! two calls before it is folded: the second is not compared with its twin
//! (which would say the cache serves all of it) but given its twin's figure.

use std::collections::HashMap;

use super::{Call, Span};
use crate::diff::cache::Prompt;

/// A call's prompt as we count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cost {
    /// Its tokens (the Budget tab's total: o200k_base, images at their estimate).
    pub tokens: u64,
    /// Of those, the first ones the previous call's prompt has too; `None`
    /// for the first call of its trace (or file).
    pub reusable: Option<u64>,
}

/// The last call of each trace (or file).
struct Last {
    /// What tells a twin of it (`super::same_request`).
    span: Span,
    prompt: Prompt,
    reusable: Option<u64>,
}

/// Counts calls in the order they are read; see the module's text.
#[derive(Default)]
pub struct Reuse {
    last: HashMap<String, Last>,
}

impl Reuse {
    pub fn new() -> Reuse {
        Reuse::default()
    }

    /// The call's cost; `None` when its content was not captured.
    pub fn add(&mut self, call: &Call) -> Option<Cost> {
        let env = call.envelope()?;
        let key = match &call.at.trace_id {
            Some(t) => format!("t{t}"),
            None => format!("f{}", call.at.file),
        };
        let prompt = Prompt::of(env);
        let tokens = prompt.tokens();
        if let Some(last) = self.last.get(&key) {
            if last.span.same_request(&Span::of(call)) {
                return Some(Cost { tokens, reusable: last.reusable.map(|r| r.min(tokens)) });
            }
        }
        let reusable = self.last.get(&key).map(|last| prompt.reusable_from(&last.prompt));
        self.last.insert(key, Last { span: Span::of(call).owned(), prompt, reusable });
        Some(Cost { tokens, reusable })
    }
}
