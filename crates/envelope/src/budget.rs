//! The truncation preview's figures (§5), from counted parts: what each
//! category of context costs, and the prefix-cache hit rate over turns.

use crate::parts::{Part, IMAGE_TOKENS};
#[cfg(doc)]
use crate::truncate::common_prefix_len;
use crate::truncate::{plan, Limit, PartBudget, Plan, TruncateError, TurnCache};

pub mod breakpoints;
mod curve;
use crate::types::{Envelope, Role, Segment};

/// What a token of the prompt is spent on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    SystemPrompt,
    Memory,
    Skills,
    Tools,
    Conversation,
    PastedText,
    Documents,
    Media,
    ToolCalls,
    ToolResults,
    /// Separators between segments and merges across them: a part's tokens
    /// beyond the sum of its segments'.
    Joins,
}

impl Category {
    pub const ALL: [Category; 11] = [
        Category::SystemPrompt,
        Category::Memory,
        Category::Skills,
        Category::Tools,
        Category::Conversation,
        Category::PastedText,
        Category::Documents,
        Category::Media,
        Category::ToolCalls,
        Category::ToolResults,
        Category::Joins,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Category::SystemPrompt => "System prompt",
            Category::Memory => "Memory",
            Category::Skills => "Skills",
            Category::Tools => "Tools",
            Category::Conversation => "Conversation",
            Category::PastedText => "Pasted text",
            Category::Documents => "Documents",
            Category::Media => "Media",
            Category::ToolCalls => "Tool calls",
            Category::ToolResults => "Tool results",
            Category::Joins => "Joins",
        }
    }

    /// A CSS-friendly name.
    pub fn slug(self) -> &'static str {
        match self {
            Category::SystemPrompt => "system",
            Category::Memory => "memory",
            Category::Skills => "skills",
            Category::Tools => "tools",
            Category::Conversation => "conversation",
            Category::PastedText => "pasted",
            Category::Documents => "documents",
            Category::Media => "media",
            Category::ToolCalls => "calls",
            Category::ToolResults => "results",
            Category::Joins => "joins",
        }
    }

    /// The category of a segment's tokens (`static_var` sends none).
    pub fn of(segment: &Segment) -> Option<Category> {
        Some(match segment {
            Segment::Text(_) => Category::Conversation,
            Segment::StaticVar(_) => return None,
            Segment::SystemPrompt(_) => Category::SystemPrompt,
            Segment::Memory(_) => Category::Memory,
            Segment::Skills(_) => Category::Skills,
            Segment::ToolOverview(_) => Category::Tools,
            Segment::ToolCallRequest(_) => Category::ToolCalls,
            Segment::ToolCallResult(_) => Category::ToolResults,
            Segment::Document(_) => Category::Documents,
            Segment::LongText(_) => Category::PastedText,
            Segment::Media(_) => Category::Media,
            Segment::Reasoning(_) => Category::Conversation,
            Segment::ProviderBlock(_) => Category::ToolCalls,
        })
    }
}

/// Tokens per category over the parts with `kept[i]`, in [`Category::ALL`] order.
pub fn category_totals(envelope: &Envelope, parts: &[Part], kept: &[bool]) -> Vec<(Category, u64)> {
    let mut totals = [0u64; 11];
    let idx = |c: Category| Category::ALL.iter().position(|x| *x == c).unwrap_or(10);
    for (p, _) in parts.iter().zip(kept).filter(|(_, k)| **k) {
        let Some(mi) = p.message else {
            totals[idx(Category::Tools)] += p.tokens;
            continue;
        };
        let mut seg_sum = 0;
        for &(sj, t) in &p.segment_tokens {
            if let Some(c) = envelope.messages.get(mi).and_then(|m| m.segments.get(sj)).and_then(Category::of) {
                totals[idx(c)] += t;
                seg_sum += t;
            }
        }
        totals[idx(Category::Joins)] += p.tokens.saturating_sub(seg_sum);
    }
    Category::ALL.iter().copied().zip(totals).collect()
}

/// The turns of a conversation: each prefix of the envelope that ends with an
/// assistant message is one turn, given by its end (exclusive message index).
pub fn turn_ends(envelope: &Envelope) -> Vec<usize> {
    envelope.messages.iter().enumerate().filter(|(_, m)| m.role == Role::Assistant).map(|(i, _)| i + 1).collect()
}

/// How many of `parts` (tools first, then messages in order) belong to the
/// prefix of messages before `end`.
pub fn prefix_len(parts: &[Part], end: usize) -> usize {
    parts.iter().take_while(|p| p.message.is_none_or(|m| m < end)).count()
}

/// Token ids standing for an image (which has no text): [`IMAGE_TOKENS`] ids
/// derived from its URL, so one image compares equal to itself.
pub fn image_ids(url: &str) -> Vec<u32> {
    let h = url.bytes().fold(0x811c_9dc5u32, |h, b| (h ^ b as u32).wrapping_mul(0x0100_0193));
    vec![0xF000_0000 | (h >> 4); IMAGE_TOKENS as usize]
}

/// One turn of the cache simulation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TurnPoint {
    /// Common token prefix with the previous turn's kept prompt.
    pub prefix: u64,
    /// Kept tokens at this turn.
    pub kept: u64,
    /// Whether the limit could be met (when not, the prompt is untruncated, as
    /// PromptPoet leaves it).
    pub met: bool,
}

impl TurnPoint {
    /// The turn's hit rate, as [`TurnCache::hit`] defines it.
    pub fn hit(&self) -> f64 {
        TurnCache { prefix: self.prefix, kept: self.kept }.hit()
    }
}

/// The plan of the prefix of `parts` that turn `end` sends.
pub fn plan_prefix(parts: &[PartBudget], n: usize, limit: Limit, step: u64) -> Result<Plan, TruncateError> {
    plan(&parts[..n.min(parts.len())], limit, step)
}

/// Per turn: the kept prompt (PromptPoet's truncation with `limit` and
/// `step` of the parts the turn sends) and its common token prefix with the
/// previous turn's. `ids[i]` are the token ids of `parts[i]`.
///
/// Exactly what planning each turn's prefix with [`plan`] and comparing
/// consecutive kept prompts with [`common_prefix_len`] gives, without doing
/// that per turn (which is quadratic: 100,000 messages took over a minute).
/// See [`curve`] for how.
pub fn cache_curve(parts: &[Part], ids: &[Vec<u32>], ends: &[usize], limit: Limit, step: u64) -> Vec<TurnPoint> {
    curve::cache_curve(parts, ids, ends, limit, step)
}

/// Mean hit rate over turns 1.. (turn 0 has no previous prompt).
pub fn mean_hit(points: &[TurnPoint]) -> f64 {
    let hits: Vec<f64> = points.iter().skip(1).map(TurnPoint::hit).collect();
    crate::truncate::mean_hit(&hits)
}

/// The OpenAI Chat request after truncation: the messages whose parts
/// `kept` keeps (and the tools, when their part is kept), as the app's
/// "After truncation" export and `pep truncate --request` give it.
pub fn kept_request(
    envelope: &Envelope,
    contributions: &crate::export::Contributions,
    parts: &[Part],
    kept: &[bool],
) -> serde_json::Value {
    let mut keep_messages = vec![true; envelope.messages.len()];
    let mut keep_tools = true;
    for (p, k) in parts.iter().zip(kept) {
        match p.message {
            Some(mi) => {
                if let Some(m) = keep_messages.get_mut(mi) {
                    *m = *k;
                }
            }
            None => keep_tools = *k,
        }
    }
    crate::export::openai_request_filtered(envelope, contributions, Some(&keep_messages), keep_tools)
}

/// The report `pep truncate` prints and the preview's "parts" view shows:
/// `{"target","totalTokens","keptTokens","parts":[{"name","role","priority","tokens","kept"}]}`
/// (`role` is null for the tools part).
pub fn truncate_report(parts: &[Part], plan: &Plan) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = parts
        .iter()
        .zip(&plan.kept)
        .map(|(p, kept)| {
            serde_json::json!({
                "name": p.name,
                "role": p.role.map(|r| r.as_str()),
                "priority": p.priority,
                "tokens": p.tokens,
                "kept": kept,
                // §5: a part whose count includes images (85 tokens each) is an estimate.
                "estimate": p.estimate,
            })
        })
        .collect();
    serde_json::json!({
        "target": plan.target,
        "totalTokens": plan.total,
        "keptTokens": plan.kept_tokens,
        "parts": rows,
    })
}

/// Context windows of models whose window is published, in tokens.
pub fn context_window(model: &str) -> Option<u64> {
    let m = model.to_ascii_lowercase();
    let table: [(&str, u64); 12] = [
        ("gpt-4.1", 1_047_576),
        ("gpt-5", 400_000),
        ("gpt-4o", 128_000),
        ("gpt-4-turbo", 128_000),
        ("o4-mini", 200_000),
        ("o3", 200_000),
        ("o1", 200_000),
        ("gpt-4-32k", 32_768),
        ("gpt-4", 8_192),
        ("gpt-3.5-turbo", 16_385),
        ("chatgpt-4o", 128_000),
        ("gpt-oss", 131_072),
    ];
    table.iter().find(|(prefix, _)| m.starts_with(prefix)).map(|&(_, w)| w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::contributions;
    use crate::parse;
    use crate::parts::{count_parts, part_texts};

    fn doc() -> Envelope {
        parse(
            r#"{"version":"1.0","messages":[
            {"id":"s","role":"system","timestamp":0,"segments":[{"kind":"system_prompt","content":"aa","collapsed":true}]},
            {"id":"u1","role":"user","timestamp":0,"segments":[{"kind":"text","content":"bbb"},{"kind":"long_text","content":"cc","charCount":2,"collapsed":true}]},
            {"id":"a1","role":"assistant","timestamp":0,"segments":[{"kind":"text","content":"dddd"}]},
            {"id":"u2","role":"user","timestamp":0,"segments":[{"kind":"text","content":"e"}]},
            {"id":"a2","role":"assistant","timestamp":0,"segments":[{"kind":"text","content":"ff"}]}
        ]}"#,
        )
        .unwrap()
        .envelope
    }

    /// One "token" per byte: easy to reason about.
    fn counted(e: &Envelope) -> Vec<Part> {
        count_parts(&part_texts(e, &contributions(e)), |s| s.len() as u64)
    }

    fn byte_ids(e: &Envelope) -> Vec<Vec<u32>> {
        part_texts(e, &contributions(e))
            .iter()
            .map(|p| p.strings.iter().flat_map(|s| s.bytes().map(u32::from)).collect())
            .collect()
    }

    #[test]
    fn categories_split_parts_and_count_joins() {
        let e = doc();
        let parts = counted(&e);
        let totals = category_totals(&e, &parts, &vec![true; parts.len()]);
        let get = |c| totals.iter().find(|(x, _)| *x == c).unwrap().1;
        assert_eq!(get(Category::SystemPrompt), 2);
        assert_eq!(get(Category::Conversation), 3 + 4 + 1 + 2);
        assert_eq!(get(Category::PastedText), 2);
        assert_eq!(get(Category::Joins), 2, "the \\n\\n between bbb and cc");
        assert_eq!(totals.iter().map(|t| t.1).sum::<u64>(), parts.iter().map(|p| p.tokens).sum::<u64>());
    }

    #[test]
    fn turns_and_prefixes() {
        let e = doc();
        assert_eq!(turn_ends(&e), [3, 5]);
        let parts = counted(&e);
        assert_eq!(prefix_len(&parts, 3), 3);
        assert_eq!(prefix_len(&parts, 5), 5);
    }

    #[test]
    fn cache_hits_without_truncation_are_the_previous_prompt() {
        let e = doc();
        let parts = counted(&e);
        let curve = cache_curve(&parts, &byte_ids(&e), &turn_ends(&e), Limit::None, 1);
        // Turn 1 extends turn 0's prompt: its whole prompt (2+7+4) is a cached prefix.
        assert_eq!(curve[0], TurnPoint { prefix: 0, kept: 13, met: true });
        assert_eq!(curve[1], TurnPoint { prefix: 13, kept: 16, met: true });
        assert!((mean_hit(&curve) - 13.0 / 16.0).abs() < 1e-9);
    }

    #[test]
    fn truncation_moves_the_prefix() {
        let e = doc();
        let parts = counted(&e);
        // Limit 12: turn 0 (13 tokens) drops u1 (7); turn 1 (16) drops u1 too.
        let curve = cache_curve(&parts, &byte_ids(&e), &turn_ends(&e), Limit::Tokens(12), 1);
        assert_eq!(curve[0].kept, 6);
        assert_eq!(curve[1].kept, 9);
        assert_eq!(curve[1].prefix, 6);
        // A limit below the priority-0 system prompt cannot be met.
        let curve = cache_curve(&parts, &byte_ids(&e), &turn_ends(&e), Limit::Tokens(1), 1);
        assert!(curve.iter().all(|p| !p.met));
    }

    #[test]
    fn windows() {
        assert_eq!(context_window("gpt-4o-2024-08-06"), Some(128_000));
        assert_eq!(context_window("gpt-4.1-mini"), Some(1_047_576));
        assert_eq!(context_window("gpt-4"), Some(8_192));
        assert_eq!(context_window("claude"), None);
        assert_eq!(image_ids("a").len(), 85);
        assert_eq!(image_ids("a"), image_ids("a"));
        assert_ne!(image_ids("a"), image_ids("b"));
    }
}
