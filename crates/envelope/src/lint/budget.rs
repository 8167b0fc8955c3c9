//! `token-budget` and `segment-budget`: the exported request against the
//! environment's `max_tokens`, counted as the Budget tab counts (o200k_base
//! over the strings the export sends; an image at its 85-token estimate).

use super::{thousands, Ctx, Raw};
use crate::diag::Rule;

fn env_name(ctx: &Ctx) -> String {
    ctx.settings.env.as_deref().map_or("the".to_string(), |e| format!("the {e}"))
}

pub fn check(ctx: &Ctx) -> Vec<Raw> {
    let Some(max) = ctx.settings.max_tokens else { return Vec::new() };
    let mut out = Vec::new();
    let parts = ctx.parts();
    let total: u64 = parts.iter().map(|p| p.tokens).sum();
    let estimate = if parts.iter().any(|p| p.estimate) { " (images at their estimate)" } else { "" };
    if total > max {
        let mut biggest: Vec<_> = parts.iter().filter(|p| p.tokens > 0).collect();
        biggest.sort_by_key(|p| std::cmp::Reverse(p.tokens));
        let list: Vec<String> = biggest
            .iter()
            .take(3)
            .map(|p| match p.message {
                Some(i) => format!("messages[{i}] `{}` {}", p.name, thousands(p.tokens)),
                None => format!("tools {}", thousands(p.tokens)),
            })
            .collect();
        out.push(
            Raw::new(
                Rule::TokenBudget,
                "",
                format!(
                    "the request is {} tokens{estimate}, over {} budget of {} (max_tokens) by {}",
                    thousands(total),
                    env_name(ctx),
                    thousands(max),
                    thousands(total - max)
                ),
            )
            .hint(format!("largest parts: {}", list.join(", "))),
        );
    }
    let share = ctx.settings.segment_share;
    let limit = (max as f64 * share).floor() as u64;
    for p in parts {
        let Some(mi) = p.message else { continue };
        for &(sj, tokens) in &p.segment_tokens {
            if tokens > limit {
                out.push(Raw::new(
                    Rule::SegmentBudget,
                    format!("messages[{mi}].segments[{sj}]"),
                    format!(
                        "this segment sends {} tokens, over its share of {} budget: {} ({}% of {})",
                        thousands(tokens),
                        env_name(ctx),
                        thousands(limit),
                        (share * 100.0).round(),
                        thousands(max)
                    ),
                ));
            }
        }
    }
    out
}
