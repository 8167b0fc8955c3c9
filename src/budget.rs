//! The truncation preview's state: token counts (from the worker, once per
//! document), the limit and step the user picks, and the plan derived from
//! them. Re-planning is O(parts) and runs on every slider move; the heavier
//! views (cache chart, truncated export) follow a debounced copy of the
//! settings so dragging stays smooth.

use std::ops::Range;
use std::sync::Arc;

use envelope::budget::{context_window, image_ids};
use envelope::parts::{assemble, part_strings, part_texts, segment_strings, Part, PartText};
use envelope::truncate::{plan, Limit, PartBudget, Plan, TruncateError};
use leptos::prelude::*;

use crate::browser;
use crate::doc::Doc;
use crate::worker::tokens;

/// Token counts and ids of one document.
#[derive(Debug)]
pub struct Counted {
    pub texts: Vec<PartText>,
    pub parts: Vec<Part>,
    pub budgets: Vec<PartBudget>,
    /// Token ids of each part (images as placeholder ids).
    pub part_ids: Vec<Vec<u32>>,
    /// All token ids of the part strings, flattened, and each token's bytes.
    pub ids: Vec<u32>,
    pub pieces: Vec<u32>,
    /// For each flattened part string, its range in `ids`.
    pub string_tokens: Vec<Range<usize>>,
    /// For each part, its range of flattened part strings.
    pub part_strings: Vec<Range<usize>>,
    pub total: u64,
    /// Time in the worker, and from request to counts, in ms.
    pub worker_ms: f64,
    pub elapsed_ms: f64,
}

impl Counted {
    /// Tokens of segment `sj` of message `mi`, if it sends any.
    pub fn segment_tokens(&self, mi: usize, sj: usize) -> Option<u64> {
        let part = &self.parts[self.part_index(mi)?];
        part.segment_tokens.iter().find(|(j, _)| *j == sj).map(|(_, t)| *t)
    }

    /// The part of message `mi`: parts are the optional `tools` part, then
    /// one per message in order.
    pub fn part_index(&self, mi: usize) -> Option<usize> {
        let offset = usize::from(self.parts.first().is_some_and(|p| p.message.is_none()));
        let i = mi + offset;
        (self.parts.get(i)?.message == Some(mi)).then_some(i)
    }
}

/// Counts a document in the worker.
pub async fn count(doc: &Doc) -> Result<Counted, String> {
    let start = browser::now_ms();
    let texts = part_texts(&doc.envelope, doc.contributions());
    let enc = tokens::encode(&part_strings(&texts), true).await?;
    let seg_enc = tokens::encode(&segment_strings(&texts), false).await?;
    let mut counted = Counted::build(texts, enc, &seg_enc);
    counted.elapsed_ms = browser::now_ms() - start;
    Ok(counted)
}

impl Counted {
    /// Puts the worker's answers together: `enc` for [`part_strings`] (with
    /// ids), `seg_enc` for [`segment_strings`].
    pub fn build(texts: Vec<PartText>, enc: tokens::Encoded, seg_enc: &tokens::Encoded) -> Counted {
        let part_counts: Vec<u64> = enc.lens.iter().map(|&n| n as u64).collect();
        let seg_counts: Vec<u64> = seg_enc.lens.iter().map(|&n| n as u64).collect();
        let parts = assemble(&texts, &part_counts, &seg_counts);
        let mut string_tokens = Vec::with_capacity(enc.lens.len());
        let mut at = 0usize;
        for &n in &enc.lens {
            string_tokens.push(at..at + n as usize);
            at += n as usize;
        }
        let mut part_strings = Vec::with_capacity(texts.len());
        let mut part_ids = Vec::with_capacity(texts.len());
        let mut s = 0usize;
        for t in &texts {
            let range = s..(s + t.strings.len()).min(string_tokens.len());
            let mut ids: Vec<u32> = Vec::new();
            for r in &string_tokens[range.clone()] {
                ids.extend_from_slice(enc.ids.get(r.clone()).unwrap_or(&[]));
            }
            for url in &t.image_urls {
                ids.extend(image_ids(url));
            }
            part_ids.push(ids);
            part_strings.push(range);
            s += t.strings.len();
        }
        let budgets: Vec<PartBudget> = parts.iter().map(Part::budget).collect();
        let total = budgets.iter().map(|b| b.tokens).sum();
        Counted {
            texts,
            parts,
            budgets,
            part_ids,
            ids: enc.ids,
            pieces: enc.pieces,
            string_tokens,
            part_strings,
            total,
            worker_ms: enc.ms + seg_enc.ms,
            elapsed_ms: 0.0,
        }
    }
}

/// Where counting stands.
#[derive(Clone, Debug)]
pub enum Counting {
    Idle,
    Running,
    Done(Arc<Counted>),
    Failed(String),
}

/// The limit and step the user picked, kept while they move between
/// documents (demos, their own, an edit of it): a new document starts
/// with them, not with its own default (app-wide context).
#[derive(Clone, Copy, Debug, Default)]
pub struct BudgetChoice(pub RwSignal<Option<(u64, u64)>>);

/// The preview's state, shared by the Budget tab and the conversation.
#[derive(Clone, Copy)]
pub struct Budget {
    pub doc: Signal<Option<Arc<Doc>>>,
    pub counting: RwSignal<Counting>,
    pub limit: RwSignal<u64>,
    pub step: RwSignal<u64>,
    /// `limit` and `step` after the user paused (for the heavier views).
    pub settled: RwSignal<(u64, u64)>,
    pub plan: Memo<Option<Result<Plan, TruncateError>>>,
    /// The plan for the settled limit and step (for the heavier views).
    pub settled_plan: Memo<Option<Result<Plan, TruncateError>>>,
    /// Per part, whether the current plan keeps it. Rows and messages read
    /// their own flag, and a new plan sets only the flags that change, so a
    /// re-plan touches only what it changes, not thousands of subscribers.
    flags: StoredValue<Vec<ArcRwSignal<bool>>>,
    generation: StoredValue<u64>,
    choice: Option<BudgetChoice>,
}

impl Budget {
    pub fn new(doc: Signal<Option<Arc<Doc>>>) -> Budget {
        let counting = RwSignal::new(Counting::Idle);
        let limit = RwSignal::new(0u64);
        let step = RwSignal::new(1u64);
        let plan = Memo::new(move |_| {
            let Counting::Done(c) = counting.get() else { return None };
            Some(plan(&c.budgets, Limit::Tokens(limit.get().max(1)), step.get().max(1)))
        });
        let settled = RwSignal::new((0u64, 1u64));
        let settled_plan = Memo::new(move |_| {
            let Counting::Done(c) = counting.get() else { return None };
            let (limit, step) = settled.get();
            Some(envelope::truncate::plan(&c.budgets, Limit::Tokens(limit.max(1)), step.max(1)))
        });
        let flags: StoredValue<Vec<ArcRwSignal<bool>>> = StoredValue::new(Vec::new());
        Effect::new(move |_| {
            plan.with(|p| {
                let kept = match p {
                    Some(Ok(p)) => Some(&p.kept),
                    _ => None,
                };
                flags.with_value(|f| {
                    for (i, flag) in f.iter().enumerate() {
                        let k = kept.is_none_or(|k| k.get(i).copied().unwrap_or(true));
                        if flag.get_untracked() != k {
                            flag.set(k);
                        }
                    }
                });
            });
        });
        let budget = Budget {
            doc,
            counting,
            limit,
            step,
            settled,
            plan,
            settled_plan,
            flags,
            generation: StoredValue::new(0),
            choice: use_context::<BudgetChoice>(),
        };
        // A new document (or an edit) forgets the old counts; counts that
        // were on screen are made again for it.
        Effect::new(move |prev: Option<Option<usize>>| {
            let key = doc.with(|d| d.as_ref().map(|d| Arc::as_ptr(d) as usize));
            if prev.is_some_and(|p| p != key) {
                let was = !matches!(counting.get_untracked(), Counting::Idle);
                counting.set(Counting::Idle);
                if was {
                    leptos::task::spawn_local(recount(budget));
                }
            }
            key
        });
        budget
    }

    pub fn expect() -> Budget {
        expect_context::<Budget>()
    }

    /// Forgets a failed count and counts again.
    pub fn retry(&self) {
        if matches!(self.counting.get_untracked(), Counting::Failed(_)) {
            self.counting.set(Counting::Idle);
            self.ensure_counted();
        }
    }

    /// Starts counting the document, once. Counting (the engine's calls,
    /// reading its replies) is code of the Budget tab's module: only that
    /// tab starts it, and [`recount`] reaches it through a split point.
    pub fn ensure_counted(&self) {
        if !matches!(self.counting.get_untracked(), Counting::Idle) {
            return;
        }
        let Some(doc) = self.doc.get_untracked() else { return };
        self.counting.set(Counting::Running);
        let this = *self;
        leptos::task::spawn_local(async move {
            let result = count(&doc).await;
            // The document may have changed meanwhile, or the viewer be gone
            // (another route): then the result is dropped quietly.
            if this.doc.try_with_untracked(|d| d.as_ref().is_some_and(|d| Arc::ptr_eq(d, &doc))) == Some(true) {
                match result {
                    Ok(c) => this.counted(&doc, c),
                    Err(e) => {
                        this.counting.try_set(Counting::Failed(e));
                    }
                }
            }
        });
    }

    /// The limit a document starts with: the model's context window when
    /// it is known, else its total (nothing dropped).
    pub fn default_limit(doc: &Doc, total: u64) -> u64 {
        doc.envelope.model.as_deref().and_then(context_window).unwrap_or(total).max(1)
    }

    /// Takes the counts of `doc`; the limit and step are the ones the user
    /// picked (on any document), else [`Budget::default_limit`] and 1.
    pub fn counted(&self, doc: &Doc, c: Counted) {
        let chosen = self.choice.and_then(|b| b.0.get_untracked());
        let (limit, step) = chosen.unwrap_or((Budget::default_limit(doc, c.total), 1));
        self.flags.set_value(c.parts.iter().map(|_| ArcRwSignal::new(true)).collect());
        self.limit.set(limit);
        self.step.set(step);
        self.settled.set((limit, step));
        self.counting.try_set(Counting::Done(Arc::new(c)));
    }

    /// Sets the limit and step; the heavier views follow after a pause.
    pub fn set(&self, limit: u64, step: u64) {
        self.limit.set(limit.max(1));
        self.step.set(step.max(1));
        if let Some(choice) = self.choice {
            choice.0.set(Some((limit.max(1), step.max(1))));
        }
        self.generation.update_value(|g| *g += 1);
        let generation = self.generation.get_value();
        let this = *self;
        browser::after(150, move || {
            if this.generation.try_get_value() == Some(generation) {
                this.settled.try_set((this.limit.get_untracked(), this.step.get_untracked()));
            }
        });
    }

    /// Whether part `i` is kept by the current plan (true before counting).
    pub fn kept(&self, i: usize) -> bool {
        self.flags.with_value(|f| f.get(i).cloned()).is_none_or(|flag| flag.get())
    }

    /// Whether message `mi` is dropped by the current plan, with the reason.
    pub fn dropped(&self, mi: usize) -> Option<String> {
        let Counting::Done(c) = self.counting.get() else { return None };
        let i = c.part_index(mi)?;
        (!self.kept(i)).then(|| {
            format!(
                "Dropped by truncation to the token limit: priority {} is removed before lower \
                 priorities, oldest first.",
                c.parts[i].priority
            )
        })
    }
}

impl Budget {
    /// Why message `mi` is kept although the message before it (the
    /// question it answers, or the call a tool result answers) is dropped.
    pub fn kept_without_question(&self, mi: usize) -> Option<String> {
        if mi == 0 {
            return None;
        }
        let Counting::Done(c) = self.counting.get() else { return None };
        let (i, before) = (c.part_index(mi)?, c.part_index(mi - 1)?);
        (self.kept(i) && !self.kept(before)).then(|| {
            format!(
                "Kept although the message before it was dropped: PromptPoet removes whole runs of parts by \
                 priority, oldest first, not question-and-answer pairs (the message before has priority {}, this one {}).",
                c.parts[before].priority, c.parts[i].priority
            )
        })
    }
}

/// The request body after truncation, for the kept parts.
pub fn truncated_request(doc: &Doc, counted: &Counted, kept: &[bool]) -> serde_json::Value {
    envelope::budget::kept_request(&doc.envelope, doc.contributions(), &counted.parts, kept)
}

/// Counts a new document whose predecessor's counts were on screen. In a
/// release build for the browser this is code of the Budget tab's module
/// (a split point; that tab counted, so its module is here), which keeps
/// the counting out of the main module; a failed fetch shows as the
/// count's failure, with the tab's "Try again".
async fn recount(budget: Budget) {
    let done = crate::split::split_call!(recount_now(budget));
    if done.is_err() {
        budget
            .counting
            .try_set(Counting::Failed(crate::split::unfetched!("the Budget tab's code could not be fetched").into()));
    }
}

#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(budget, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn recount_now(budget: Budget) -> Result<(), ::leptos::wasm_split::SplitLoaderError> {
    budget.ensure_counted();
    Ok(())
}
