//! The cache break point: how much of the previous version's prompt the new
//! one can reuse from a provider's prefix cache.
//!
//! A prefix cache works on the prompt's token sequence, so both prompts are
//! taken as the o200k_base tokens of the strings the export sends, in the
//! order it sends them — the `tools` array (compact JSON), then per message
//! its text (or, with images, each run of text and each image), its calls'
//! names and argument strings, its results: the parts of the Budget tab
//! (`parts`), images kept in place. An image is a block of 85 tokens that
//! matches only the same URL. The break point is the first token at which the
//! two sequences differ; a different model shares no cache at all.
//!
//! Not modelled: the provider's own framing tokens (role markers and the
//! rendering of tools into the prompt), which are the same for both versions
//! up to the break, and minimum cacheable lengths and block sizes (OpenAI
//! caches prefixes of 1,024 tokens and more, in steps of 128), which round
//! what a particular provider reuses down from the figure given here.

use super::CacheBreak;
use crate::export::{Contributions, Piece};
use crate::parts::IMAGE_TOKENS;
use crate::tokens;
use crate::types::Envelope;

/// One string (or image) of the prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    Text(String),
    Image(String),
}

/// An item with where it comes from: the message (`None`: tools) and, for
/// text, the segments it joins as (segment index, byte offset of its start).
#[derive(Clone, Debug)]
pub(crate) struct Placed {
    pub message: Option<usize>,
    pub item: Item,
    pub segments: Vec<(usize, usize)>,
    /// Its tokens.
    pub tokens: u64,
}

/// The prompt of an envelope as items in export order, each counted once.
pub(crate) fn items(env: &Envelope, c: &Contributions) -> Vec<Placed> {
    let mut out = uncounted(env, c);
    for p in &mut out {
        p.tokens = count(&p.item);
    }
    out
}

fn uncounted(env: &Envelope, c: &Contributions) -> Vec<Placed> {
    let mut out = Vec::new();
    if !c.tools.is_empty() {
        let json = serde_json::Value::Array(c.tools.clone()).to_string();
        out.push(Placed { message: None, item: Item::Text(json), segments: Vec::new(), tokens: 0 });
    }
    for (mi, m) in c.messages.iter().enumerate().take(env.messages.len()) {
        let mut run = String::new();
        let mut segs = Vec::new();
        let flush = |run: &mut String, segs: &mut Vec<(usize, usize)>, out: &mut Vec<Placed>| {
            if !run.is_empty() {
                out.push(Placed {
                    message: Some(mi),
                    item: Item::Text(std::mem::take(run)),
                    segments: std::mem::take(segs),
                    tokens: 0,
                });
            }
        };
        for (sj, p) in &m.pieces {
            match p {
                Piece::Text(t) => {
                    if !run.is_empty() {
                        run.push_str("\n\n");
                    }
                    segs.push((*sj, run.len()));
                    run.push_str(t);
                }
                Piece::Image { url } => {
                    flush(&mut run, &mut segs, &mut out);
                    out.push(Placed {
                        message: Some(mi),
                        item: Item::Image(url.clone()),
                        segments: vec![(*sj, 0)],
                        tokens: 0,
                    });
                }
                _ => {}
            }
        }
        flush(&mut run, &mut segs, &mut out);
        for (sj, p) in &m.pieces {
            let strings = match p {
                Piece::Call { name, arguments, .. } => vec![name.clone(), arguments.clone()],
                Piece::Result { content, .. } => vec![content.clone()],
                _ => continue,
            };
            for s in strings {
                out.push(Placed { message: Some(mi), item: Item::Text(s), segments: vec![(*sj, 0)], tokens: 0 });
            }
        }
    }
    out
}

fn count(item: &Item) -> u64 {
    match item {
        Item::Text(t) => tokens::count(t) as u64,
        Item::Image(_) => IMAGE_TOKENS,
    }
}

/// The tokens `b`'s items share with `a`'s from the start, and where in
/// `b` they first differ (item index, byte offset in it): `None` when every
/// item of `b` is `a`'s (`b` is `a`, or a prefix of it).
fn common_prefix(ia: &[Placed], ib: &[Placed]) -> (u64, Option<(usize, usize)>) {
    let mut reusable = 0;
    let mut at: Option<(usize, usize)> = None; // (item index in b, byte offset in it)
    for (k, (x, y)) in ia.iter().zip(ib).enumerate() {
        if x.item == y.item {
            reusable += y.tokens;
            continue;
        }
        if let (Item::Text(s), Item::Text(t)) = (&x.item, &y.item) {
            let (ex, ey) = (tokens::encode(s), tokens::encode(t));
            let common = ex.iter().zip(&ey).take_while(|(p, q)| p == q).count();
            reusable += common as u64;
            let offset = tokens::byte_spans(&ey[..common]).last().map_or(0, |r| r.end);
            at = Some((k, offset));
        } else {
            at = Some((k, 0));
        }
        break;
    }
    if at.is_none() && ib.len() > ia.len() {
        at = Some((ia.len(), 0));
    }
    (reusable, at)
}

/// A prompt as a prefix cache sees it (DECISIONS.md D45): the strings the export
/// sends, in order, each counted once, and the model. For comparing many
/// requests one after another (the Calls view: how much of each call's
/// prompt the previous call's cache could serve) without a whole
/// comparison each time.
#[derive(Clone, Debug)]
pub struct Prompt {
    model: String,
    items: Vec<Placed>,
}

impl Prompt {
    pub fn of(env: &Envelope) -> Prompt {
        let model = env.model.clone().filter(|m| !m.is_empty()).unwrap_or_else(|| crate::export::DEFAULT_MODEL.into());
        Prompt { model, items: items(env, &crate::export::contributions(env)) }
    }

    /// Its tokens (o200k_base; images at their estimate): the Budget tab's total.
    pub fn tokens(&self) -> u64 {
        self.items.iter().map(|p| p.tokens).sum()
    }

    /// How many of its first tokens a prefix cache holding `previous` could
    /// serve: the tokens up to the first that differs; 0 for another model.
    pub fn reusable_from(&self, previous: &Prompt) -> u64 {
        if previous.model != self.model {
            return 0;
        }
        common_prefix(&previous.items, &self.items).0
    }
}

/// The first token at which `b`'s prompt differs from `a`'s, from their
/// counted [`items`].
pub(crate) fn break_point(a: &Envelope, ia: &[Placed], b: &Envelope, ib: &[Placed]) -> CacheBreak {
    let total: u64 = ib.iter().map(|p| p.tokens).sum();
    let previous_total: u64 = ia.iter().map(|p| p.tokens).sum();
    let model =
        |e: &Envelope| e.model.clone().filter(|m| !m.is_empty()).unwrap_or_else(|| crate::export::DEFAULT_MODEL.into());
    let mut out = CacheBreak {
        reusable: 0,
        total,
        previous_total,
        model_changed: model(a) != model(b),
        identical: false,
        in_tools: false,
        message: None,
        message_id: None,
        segment: None,
    };
    if out.model_changed {
        return out;
    }
    let (reusable, at) = common_prefix(ia, ib);
    out.reusable = reusable;
    match at {
        None => out.identical = ia.len() == ib.len(),
        Some((k, offset)) => {
            let p = &ib[k];
            match p.message {
                None => out.in_tools = true,
                Some(mi) => {
                    out.message = Some(mi);
                    out.message_id = b.messages.get(mi).map(|m| m.id.clone());
                    out.segment = p.segments.iter().rev().find(|(_, start)| *start <= offset).map(|(sj, _)| *sj);
                }
            }
        }
    }
    out
}
