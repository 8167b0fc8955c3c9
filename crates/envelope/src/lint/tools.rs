//! `unused-tool`: tools declared and never called. (Calls never answered,
//! results not following their call and arguments against the schema are
//! validation warnings: `unanswered-call`, `result-out-of-order`,
//! `arguments-schema`.)

use std::collections::HashSet;

use super::{Ctx, Raw};
use crate::diag::Rule;
use crate::types::Segment;

pub fn check(ctx: &Ctx) -> Vec<Raw> {
    let called: HashSet<&str> = ctx
        .envelope
        .messages
        .iter()
        .flat_map(|m| &m.segments)
        .filter_map(|s| match s {
            Segment::ToolCallRequest(r) => Some(r.tool_name.as_str()),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (mi, m) in ctx.envelope.messages.iter().enumerate() {
        for (sj, s) in m.segments.iter().enumerate() {
            let Segment::ToolOverview(o) = s else { continue };
            for (k, t) in o.items.iter().enumerate() {
                if !called.contains(t.name.as_str()) && seen.insert(t.name.as_str()) {
                    out.push(
                        Raw::new(
                            Rule::UnusedTool,
                            format!("messages[{mi}].segments[{sj}].items[{k}].name"),
                            format!("tool `{}` is declared but never called in this conversation", t.name),
                        )
                        .hint("every declared tool is sent with every request; drop it if the model never needs it"),
                    );
                }
            }
        }
    }
    out
}
