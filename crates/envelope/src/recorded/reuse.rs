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

use super::{same_request, Call, Content};
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
    /// The call without its content (what [`same_request`] compares).
    call: Call,
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
            if same_request(&last.call, call) {
                return Some(Cost { tokens, reusable: last.reusable.map(|r| r.min(tokens)) });
            }
        }
        let reusable = self.last.get(&key).map(|last| prompt.reusable_from(&last.prompt));
        let bare = Call {
            at: call.at.clone(),
            start_ns: call.start_ns,
            end_ns: call.end_ns,
            name: None,
            parent_span_id: call.parent_span_id.clone(),
            scope: call.scope.clone(),
            provider: None,
            model: call.model.clone(),
            dialect: call.dialect,
            content: Content::NotCaptured { how: String::new(), params: None },
            output: None,
            usage: Default::default(),
            error_status: None,
            notices: Vec::new(),
            errors: Vec::new(),
        };
        self.last.insert(key, Last { call: bare, prompt, reusable });
        Some(Cost { tokens, reusable })
    }
}
