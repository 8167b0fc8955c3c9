//! Cache breakpoints (the fidelity extension's `cacheControl`): where each
//! stands and how many tokens the request holds up to it, which is what a
//! cache hit there saves from being processed again.
//!
//! Anthropic caches the prefix of the request in its order, tools, then
//! `system`, then `messages`, up to and including the block that carries the
//! breakpoint. Tokens are the Budget tab's `o200k_base` counts of what the
//! export sends ([`Part`]s): the tools part whole (a tool's own share is not
//! counted apart), every message before the breakpoint's, and the segments
//! of its message up to and including its own. Reasoning and blocks kept
//! verbatim are not counted there, so a prefix that holds any is marked an
//! estimate, as one with images is.

use crate::parts::Part;
use crate::types::{Envelope, Segment};

/// Where a breakpoint stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BreakAt {
    /// On the declared tool of this name (the `k`-th declared tool overall).
    Tool { index: usize, name: String },
    /// After this segment.
    Segment { message: usize, segment: usize },
}

/// One cache breakpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Breakpoint {
    pub at: BreakAt,
    /// The `ttl` it asks for (`"5m"`, `"1h"`), when it says.
    pub ttl: Option<String>,
    /// Tokens of the request up to and including the breakpoint.
    pub tokens: u64,
    /// Whether that count includes an estimate or leaves uncounted blocks out.
    pub estimate: bool,
}

fn ttl(v: &serde_json::Value) -> Option<String> {
    v.get("ttl").and_then(serde_json::Value::as_str).map(str::to_string)
}

/// Every breakpoint of `envelope` in request order, with the tokens up to
/// it; `parts` are the envelope's counted parts (`parts::assemble`).
pub fn breakpoints(envelope: &Envelope, parts: &[Part]) -> Vec<Breakpoint> {
    let tools: u64 = parts.iter().filter(|p| p.message.is_none()).map(|p| p.tokens).sum();
    let mut out = Vec::new();
    let mut k = 0;
    for m in &envelope.messages {
        for s in &m.segments {
            if let Segment::ToolOverview(o) = s {
                for t in &o.items {
                    if let Some(c) = &t.ext.cache_control {
                        out.push(Breakpoint {
                            at: BreakAt::Tool { index: k, name: t.name.clone() },
                            ttl: ttl(c),
                            tokens: tools,
                            estimate: false,
                        });
                    }
                    k += 1;
                }
            }
        }
    }
    let mut before = tools;
    let mut uncounted = false;
    for (mi, m) in envelope.messages.iter().enumerate() {
        let part = parts.iter().find(|p| p.message == Some(mi));
        let mut within = 0;
        for (sj, s) in m.segments.iter().enumerate() {
            within += part.and_then(|p| p.segment_tokens.iter().find(|(j, _)| *j == sj)).map_or(0, |(_, t)| *t);
            uncounted |=
                matches!(s, Segment::Reasoning(_) | Segment::ProviderBlock(_)) || part.is_some_and(|p| p.estimate);
            if let Some(c) = s.cache_control() {
                out.push(Breakpoint {
                    at: BreakAt::Segment { message: mi, segment: sj },
                    ttl: ttl(c),
                    tokens: before + within,
                    estimate: uncounted,
                });
            }
        }
        before += part.map_or(0, |p| p.tokens);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_up_to_each_breakpoint() {
        let e = crate::parse(
            r#"{"version":"1.0","messages":[
            {"id":"s","role":"system","timestamp":0,"segments":[
              {"kind":"system_prompt","content":"a","collapsed":false,"cacheControl":{"type":"ephemeral","ttl":"1h"}},
              {"kind":"tool_overview","collapsed":true,"items":[{"name":"t","description":"d","cacheControl":{"type":"ephemeral"}}]}]},
            {"id":"u","role":"user","timestamp":0,"segments":[
              {"kind":"text","content":"b"},
              {"kind":"text","content":"c","cacheControl":{"type":"ephemeral"}}]}]}"#,
        )
        .unwrap()
        .envelope;
        let part = |message: Option<usize>, tokens: u64, segs: Vec<(usize, u64)>| Part {
            name: String::new(),
            role: None,
            message,
            priority: 0,
            tokens,
            segment_tokens: segs,
            estimate: false,
        };
        let parts =
            vec![part(None, 30, vec![]), part(Some(0), 5, vec![(0, 5)]), part(Some(1), 9, vec![(0, 4), (1, 4)])];
        let b = breakpoints(&e, &parts);
        assert_eq!(b.len(), 3);
        assert_eq!(b[0].at, BreakAt::Tool { index: 0, name: "t".into() });
        assert_eq!((b[0].tokens, b[0].ttl.as_deref()), (30, None));
        assert_eq!(b[1].at, BreakAt::Segment { message: 0, segment: 0 });
        assert_eq!((b[1].tokens, b[1].ttl.as_deref()), (35, Some("1h")));
        assert_eq!(b[2].at, BreakAt::Segment { message: 1, segment: 1 });
        assert_eq!(b[2].tokens, 30 + 5 + 4 + 4);
        assert!(!b[2].estimate);
    }
}
