//! Parts for the truncation preview (§5): one per message, plus `tools`.
//!
//! A part's tokens are the tokens of the strings it exports: its text (for a
//! user message with images, each run of text between images), for tool
//! calls the function name and the arguments string, for tool messages each
//! result. An image counts a fixed [`IMAGE_TOKENS`] and marks the part as an
//! estimate. Segments are counted too (the UI shows both); a segment's count
//! is of its own piece, so segment counts need not add up to the part's (the
//! `"\n\n"` joins and merges across them are the part's).
//!
//! Counting itself is left to the caller (`count` below): the CLI counts in
//! process, the web app in a worker, over the same strings.

use crate::export::{ContentPart, Contributions, MessagePieces, Piece};
use crate::truncate::PartBudget;
use crate::types::{Envelope, Role};

/// What an image content part counts for (OpenAI's low-detail image cost).
pub const IMAGE_TOKENS: u64 = 85;

/// The name of the tools part.
pub const TOOLS_PART: &str = "tools";

/// What one part sends, before counting.
#[derive(Clone, Debug, PartialEq)]
pub struct PartText {
    /// The message id, or `tools`.
    pub name: String,
    /// `None` for the tools part.
    pub role: Option<Role>,
    /// Index of the message in the envelope (`None` for tools).
    pub message: Option<usize>,
    pub priority: u64,
    /// The strings whose counts add up to the part's tokens.
    pub strings: Vec<String>,
    /// Per segment with pieces: (segment index, its strings, its images).
    pub segments: Vec<(usize, Vec<String>, u64)>,
    /// Images in the part, each [`IMAGE_TOKENS`].
    pub images: u64,
    /// Their URLs, in order.
    pub image_urls: Vec<String>,
}

impl PartText {
    /// Whether the count includes an image estimate.
    pub fn is_estimate(&self) -> bool {
        self.images > 0
    }
}

/// A part with its counts.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub name: String,
    pub role: Option<Role>,
    pub message: Option<usize>,
    pub priority: u64,
    pub tokens: u64,
    /// (segment index, tokens) for every segment that sends something.
    pub segment_tokens: Vec<(usize, u64)>,
    pub estimate: bool,
}

impl Part {
    pub fn budget(&self) -> PartBudget {
        PartBudget { tokens: self.tokens, priority: self.priority }
    }
}

fn default_priority(role: Option<Role>) -> u64 {
    match role {
        None | Some(Role::System) => 0,
        Some(_) => 1,
    }
}

fn message_strings(m: &MessagePieces) -> Vec<String> {
    let mut out: Vec<String> = if m.has_images() {
        m.content_parts()
            .into_iter()
            .filter_map(|c| match c {
                ContentPart::Text(t) => Some(t),
                ContentPart::Image(_) => None,
            })
            .collect()
    } else {
        let text = m.text();
        if text.is_empty() {
            vec![]
        } else {
            vec![text]
        }
    };
    for (_, p) in &m.pieces {
        match p {
            Piece::Call { name, arguments, .. } => {
                out.push(name.clone());
                out.push(arguments.clone());
            }
            Piece::Result { content, .. } => out.push(content.clone()),
            _ => {}
        }
    }
    out
}

fn piece_strings(p: &Piece) -> (Vec<String>, u64) {
    match p {
        Piece::Text(t) => (vec![t.clone()], 0),
        Piece::Image { .. } => (vec![], 1),
        Piece::Call { name, arguments, .. } => (vec![name.clone(), arguments.clone()], 0),
        Piece::Result { content, .. } => (vec![content.clone()], 0),
    }
}

/// The parts of an envelope, uncounted.
pub fn part_texts(envelope: &Envelope, c: &Contributions) -> Vec<PartText> {
    let mut out = Vec::with_capacity(envelope.messages.len() + 1);
    if !c.tools.is_empty() {
        let json = serde_json::Value::Array(c.tools.clone()).to_string();
        out.push(PartText {
            name: TOOLS_PART.to_string(),
            role: None,
            message: None,
            priority: default_priority(None),
            strings: vec![json],
            segments: vec![],
            images: 0,
            image_urls: vec![],
        });
    }
    for (mi, (m, pieces)) in envelope.messages.iter().zip(&c.messages).enumerate() {
        let mut segments: Vec<(usize, Vec<String>, u64)> = Vec::new();
        for (sj, p) in &pieces.pieces {
            let (strings, images) = piece_strings(p);
            match segments.last_mut() {
                Some(last) if last.0 == *sj => {
                    last.1.extend(strings);
                    last.2 += images;
                }
                _ => segments.push((*sj, strings, images)),
            }
        }
        let images = segments.iter().map(|s| s.2).sum();
        let image_urls = pieces
            .pieces
            .iter()
            .filter_map(|(_, p)| match p {
                Piece::Image { url } => Some(url.clone()),
                _ => None,
            })
            .collect();
        out.push(PartText {
            name: m.id.clone(),
            role: Some(m.role),
            message: Some(mi),
            priority: m.truncation_priority.unwrap_or_else(|| default_priority(Some(m.role))),
            strings: message_strings(pieces),
            segments,
            images,
            image_urls,
        });
    }
    out
}

/// Counts parts with `count` (o200k_base in practice).
pub fn count_parts(texts: &[PartText], mut count: impl FnMut(&str) -> u64) -> Vec<Part> {
    let pc: Vec<u64> = part_strings(texts).into_iter().map(&mut count).collect();
    let sc: Vec<u64> = segment_strings(texts).into_iter().map(&mut count).collect();
    assemble(texts, &pc, &sc)
}

/// Every part string, flattened in part order (what [`assemble`] expects
/// counts of, in this order).
pub fn part_strings(texts: &[PartText]) -> Vec<&str> {
    texts.iter().flat_map(|t| t.strings.iter().map(String::as_str)).collect()
}

/// Every segment string, flattened in part then segment order.
pub fn segment_strings(texts: &[PartText]) -> Vec<&str> {
    texts.iter().flat_map(|t| t.segments.iter().flat_map(|s| s.1.iter().map(String::as_str))).collect()
}

/// Parts from the token counts of [`part_strings`] and [`segment_strings`],
/// in their order. Missing counts count as 0.
pub fn assemble(texts: &[PartText], part_counts: &[u64], segment_counts: &[u64]) -> Vec<Part> {
    let mut pc = part_counts.iter().copied();
    let mut sc = segment_counts.iter().copied();
    texts
        .iter()
        .map(|t| {
            let tokens = t.strings.iter().map(|_| pc.next().unwrap_or(0)).sum::<u64>() + t.images * IMAGE_TOKENS;
            let segment_tokens = t
                .segments
                .iter()
                .map(|(sj, strings, images)| {
                    (*sj, strings.iter().map(|_| sc.next().unwrap_or(0)).sum::<u64>() + images * IMAGE_TOKENS)
                })
                .collect();
            Part {
                name: t.name.clone(),
                role: t.role,
                message: t.message,
                priority: t.priority,
                tokens,
                segment_tokens,
                estimate: t.is_estimate(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::contributions;
    use crate::parse;

    fn texts(json: &str) -> (Envelope, Vec<PartText>) {
        let e = parse(json).unwrap_or_else(|e| panic!("{e:?}")).envelope;
        let t = part_texts(&e, &contributions(&e));
        (e, t)
    }

    const DOC: &str = r#"{"version":"1.0","messages":[
        {"id":"s","role":"system","timestamp":0,"segments":[
            {"kind":"system_prompt","content":"sys","collapsed":true},
            {"kind":"tool_overview","items":[{"name":"f","description":"d"}],"collapsed":true}]},
        {"id":"u","role":"user","timestamp":0,"truncationPriority":5,"segments":[
            {"kind":"text","content":"a"},{"kind":"text","content":"b"},
            {"kind":"media","mediaType":"image","url":"https://x/i.png"},
            {"kind":"text","content":"c"}]},
        {"id":"a","role":"assistant","timestamp":0,"segments":[
            {"kind":"text","content":"t"},
            {"kind":"tool_call_request","toolName":"f","arguments":{"q":1},"collapsed":false}]},
        {"id":"r","role":"tool","timestamp":0,"segments":[
            {"kind":"tool_call_result","toolName":"f","result":"out","success":true,"collapsed":true}]}
    ]}"#;

    #[test]
    fn tools_part_first_then_one_per_message_with_default_priorities() {
        let (_, t) = texts(DOC);
        let names: Vec<&str> = t.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["tools", "s", "u", "a", "r"]);
        let priorities: Vec<u64> = t.iter().map(|p| p.priority).collect();
        assert_eq!(priorities, [0, 0, 5, 1, 1]);
        assert_eq!(
            t[0].strings,
            [
                r#"[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{}}}}]"#
            ]
        );
    }

    #[test]
    fn strings_are_what_the_export_sends() {
        let (_, t) = texts(DOC);
        // User with an image: each run of text between images, as sent.
        assert_eq!(t[2].strings, ["a\n\nb", "c"]);
        assert_eq!((t[2].images, t[2].image_urls.clone()), (1, vec!["https://x/i.png".to_string()]));
        // Assistant: its text, then the call's name and arguments string.
        assert_eq!(t[3].strings, ["t", "f", r#"{"q":1}"#]);
        // Tool: each result.
        assert_eq!(t[4].strings, ["out"]);
        // Segments: each its own piece (the tool overview sends no message text).
        assert_eq!(t[1].segments.len(), 1);
        assert_eq!(t[3].segments[1], (1, vec!["f".to_string(), r#"{"q":1}"#.to_string()], 0));
    }

    #[test]
    fn counting_and_assembling_agree() {
        let (_, t) = texts(DOC);
        let parts = count_parts(&t, |s| s.len() as u64);
        assert_eq!(parts[2].tokens, 4 + 1 + IMAGE_TOKENS);
        assert!(parts[2].estimate);
        assert_eq!(parts[2].segment_tokens, [(0, 1), (1, 1), (2, IMAGE_TOKENS), (3, 1)]);
        let pc: Vec<u64> = part_strings(&t).iter().map(|s| s.len() as u64).collect();
        let sc: Vec<u64> = segment_strings(&t).iter().map(|s| s.len() as u64).collect();
        assert_eq!(assemble(&t, &pc, &sc), parts);
        assert_eq!(parts[1].budget(), PartBudget { tokens: 3, priority: 0 });
    }
}
