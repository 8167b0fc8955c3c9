//! Finding things in the conversation: the search (its state, and running it
//! off the render path) and the filter by role and segment kind. Both are
//! contexts provided by the viewer, above both panes.
//!
//! The search runs on the page in steps: the core's [`Index`] folds the
//! document's text once (in steps of about 200 segments), then each query
//! scans it (in steps of 500 fields); a step ends after ~8 ms, and the
//! next one waits for a zero-delay timeout, so typing, scrolling and paints
//! go on during a search of the 20,000-segment envelope. A newer query
//! abandons the running one at its next step. Typing waits 150 ms before
//! searching (debounce). docs/DECISIONS.md, "Search and navigation".

use std::sync::{Arc, Weak};

use envelope::calls::At;
use envelope::search::{fold, Index, Match, Query, LIMIT};
use envelope::{Message, Role, Segment};
use leptos::prelude::*;

use crate::browser;
use crate::doc::Doc;
use crate::nav::{Navigator, Target};

/// Milliseconds of work per step before yielding.
const SLICE_MS: f64 = 8.0;
/// Milliseconds after the last keystroke before a search starts.
const DEBOUNCE_MS: i32 = 150;

// ---- filter ---------------------------------------------------------------

/// What the conversation shows: the roles and segment kinds picked (an
/// empty list picks all). A message shows when its role is picked and it
/// has a segment of a picked kind (or no segments and no kind is picked).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilterSet {
    pub roles: Vec<Role>,
    pub kinds: Vec<&'static str>,
}

impl FilterSet {
    pub fn is_active(&self) -> bool {
        !self.roles.is_empty() || !self.kinds.is_empty()
    }

    pub fn shows_segment(&self, s: &Segment) -> bool {
        self.kinds.is_empty() || self.kinds.contains(&s.kind())
    }

    pub fn shows_message(&self, m: &Message) -> bool {
        (self.roles.is_empty() || self.roles.contains(&m.role))
            && (self.kinds.is_empty() || m.segments.iter().any(|s| self.shows_segment(s)))
    }

    /// Whether the segment at `at` of `doc` shows.
    pub fn shows(&self, doc: &Doc, at: At) -> bool {
        let m = &doc.envelope.messages[at.message];
        self.shows_message(m) && self.shows_segment(&m.segments[at.segment])
    }

    /// Picks or unpicks a role.
    pub fn toggle_role(&mut self, role: Role) {
        match self.roles.iter().position(|r| *r == role) {
            Some(i) => {
                self.roles.remove(i);
            }
            None => self.roles.push(role),
        }
    }

    pub fn toggle_kind(&mut self, kind: &'static str) {
        match self.kinds.iter().position(|k| *k == kind) {
            Some(i) => {
                self.kinds.remove(i);
            }
            None => self.kinds.push(kind),
        }
    }
}

/// The filter of the conversation on screen, as a context.
#[derive(Clone, Copy)]
pub struct Filter(pub RwSignal<FilterSet>);

impl Filter {
    pub fn expect_or_new() -> Filter {
        use_context::<Filter>().unwrap_or_else(|| {
            let f = Filter(RwSignal::new(FilterSet::default()));
            provide_context(f);
            f
        })
    }
}

// ---- search ---------------------------------------------------------------

/// The index of one document.
struct Indexed {
    doc: Weak<Doc>,
    index: Index,
}

/// The search of the document on screen.
#[derive(Clone, Copy)]
pub struct Search {
    /// As typed.
    pub query: RwSignal<String>,
    /// The matches of `searched` (the filter applied).
    pub matches: RwSignal<Arc<Vec<Match>>>,
    /// The query `matches` are for (`None`: no search).
    pub searched: RwSignal<Option<String>>,
    pub running: RwSignal<bool>,
    /// The current match (an index into `matches`).
    pub current: RwSignal<Option<usize>>,
    generation: StoredValue<u64>,
    /// Counts `go`s: only the newest keeps its highlight alive.
    marking: StoredValue<u64>,
    indexed: StoredValue<Option<Indexed>, LocalStorage>,
    doc: Signal<Option<Arc<Doc>>>,
    filter: Filter,
    nav: Navigator,
    /// Where a failure to load the search is said (absent in component tests).
    session: Option<crate::state::Session>,
}

/// The search itself (indexing and scanning). In a release build for the
/// browser this is a split point: its code is fetched with the first query.
#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(search, wasm_split_path = ::leptos::wasm_split, fallible)
)]
#[allow(clippy::type_complexity)]
fn run_search(
    search: Search,
    gen: u64,
) -> Result<std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>, ::leptos::wasm_split::SplitLoaderError> {
    Ok(Box::pin(search.run(gen)))
}

/// [`Search::step`], in the search's module.
#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(search, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn step_to(search: Search, step: isize) -> Result<(), ::leptos::wasm_split::SplitLoaderError> {
    search.step_here(step);
    Ok(())
}

impl Search {
    pub fn new(doc: Signal<Option<Arc<Doc>>>, filter: Filter, nav: Navigator) -> Search {
        let s = Search {
            query: RwSignal::new(String::new()),
            matches: RwSignal::new(Arc::new(Vec::new())),
            searched: RwSignal::new(None),
            running: RwSignal::new(false),
            current: RwSignal::new(None),
            generation: StoredValue::new(0),
            marking: StoredValue::new(0),
            indexed: StoredValue::new_local(None),
            doc,
            filter,
            nav,
            session: use_context::<crate::state::Session>(),
        };
        // A new document or filter: the search runs again.
        Effect::new(move |prev: Option<()>| {
            doc.track();
            filter.0.track();
            if prev.is_some() {
                // Until the new result: "Searching…", nothing painted.
                if !s.query.get_untracked().is_empty() {
                    s.running.set(true);
                    s.marking.update_value(|m| *m += 1);
                    browser::clear_match_highlight();
                }
                s.start(0);
            }
        });
        s
    }

    pub fn expect() -> Search {
        expect_context::<Search>()
    }

    /// The user typed: searches after a pause.
    pub fn input(&self, text: String) {
        self.query.set(text);
        self.start(DEBOUNCE_MS);
    }

    /// Searches for the query now (Enter before the pause ends).
    pub fn now(&self) {
        self.start(0);
    }

    fn start(&self, delay: i32) {
        let Some(gen) = self.generation.try_update_value(|g| {
            *g += 1;
            *g
        }) else {
            return;
        };
        let s = *self;
        // Nothing to search (an empty box, no document): cleared here, so
        // that the search's module (below) is fetched only for a query.
        if self.query.with_untracked(String::is_empty) || self.doc.with_untracked(Option::is_none) {
            self.clear();
            return;
        }
        leptos::task::spawn_local(async move {
            if delay > 0 {
                browser::sleep(delay).await;
            }
            if s.stale(gen) {
                return;
            }
            let run = crate::split::split_call!(run_search(s, gen));
            match run {
                Ok(search) => search.await,
                Err(_) => {
                    if !s.stale(gen) {
                        s.running.try_set(false);
                        s.searched.try_set(None);
                        if let Some(session) = s.session {
                            session.notify(
                                crate::split::unfetched!("The search could not be loaded", ": search again to retry."),
                                true,
                            );
                        }
                    }
                }
            }
        });
    }

    fn stale(&self, gen: u64) -> bool {
        self.generation.try_get_value() != Some(gen)
    }

    async fn run(self, gen: u64) {
        if self.stale(gen) {
            return;
        }
        let text = self.query.get_untracked();
        let (Some(doc), Some(query)) = (self.doc.get_untracked(), Query::new(&text)) else {
            self.clear();
            return;
        };
        if self.searched.get_untracked().as_deref() == Some(text.as_str()) && !self.running.get_untracked() {
            // The same query again (Enter): no new search.
            if self.indexed.with_value(|i| i.as_ref().is_some_and(|i| std::ptr::eq(i.doc.as_ptr(), Arc::as_ptr(&doc))))
            {
                return;
            }
        }
        self.running.set(true);
        let t_start = browser::now_ms();
        let same =
            self.indexed.with_value(|i| i.as_ref().is_some_and(|i| std::ptr::eq(i.doc.as_ptr(), Arc::as_ptr(&doc))));
        if !same {
            self.indexed.set_value(Some(Indexed { doc: Arc::downgrade(&doc), index: Index::default() }));
        }
        // Index what is not yet.
        loop {
            let t0 = browser::now_ms();
            let complete = loop {
                let done = self
                    .indexed
                    .try_update_value(|i| i.as_mut().is_none_or(|i| i.index.add(&doc.envelope, &doc.vars, 200)))
                    .unwrap_or(true);
                if done || browser::now_ms() - t0 > SLICE_MS {
                    break done;
                }
            };
            if complete {
                break;
            }
            browser::yield_now().await;
            if self.stale(gen) {
                return;
            }
        }
        // Scan it.
        let len = self.indexed.with_value(|i| i.as_ref().map_or(0, |i| i.index.len()));
        let mut out = Vec::new();
        let mut from = 0;
        while from < len && out.len() < LIMIT {
            let t0 = browser::now_ms();
            while from < len && out.len() < LIMIT && browser::now_ms() - t0 <= SLICE_MS {
                self.indexed.with_value(|i| {
                    if let Some(i) = i {
                        i.index.find(&query, from..from + 500, &mut out)
                    }
                });
                from += 500;
            }
            if from < len && out.len() < LIMIT {
                browser::yield_now().await;
                if self.stale(gen) {
                    return;
                }
            }
        }
        let filter = self.filter.0.get_untracked();
        if filter.is_active() {
            out.retain(|m| filter.shows(&doc, m.at));
        }
        browser::mark(&format!("pep-search:{}", envelope::display::decimal(browser::now_ms() - t_start, 0)));
        let first = {
            let from = self.nav.current_message().get_untracked().unwrap_or(0);
            out.iter().position(|m| m.at.message >= from).or((!out.is_empty()).then_some(0))
        };
        self.matches.set(Arc::new(out));
        self.searched.set(Some(text));
        self.running.set(false);
        self.current.set(None);
        match first {
            Some(i) => self.go(i),
            None => browser::clear_match_highlight(),
        }
    }

    /// No search: no matches, no highlight.
    pub fn clear(&self) {
        self.running.set(false);
        self.matches.set(Arc::new(Vec::new()));
        self.searched.set(None);
        self.current.set(None);
        self.marking.update_value(|m| *m += 1);
        browser::clear_match_highlight();
    }

    /// Empties the query and stops any search.
    pub fn reset(&self) {
        self.query.set(String::new());
        self.generation.update_value(|g| *g += 1);
        self.clear();
    }

    /// The next match (`step` 1) or the previous one (`-1`), wrapping.
    /// Going to a match is the search's code (a split point; its module is
    /// here whenever there are matches, as the search made them): called
    /// through the module's loader, so it happens in a task of its own.
    pub fn step(&self, step: isize) {
        if self.matches.with_untracked(|m| m.is_empty()) {
            return;
        }
        let s = *self;
        leptos::task::spawn_local(async move {
            let done = crate::split::split_call!(step_to(s, step));
            if done.is_err() {
                if let Some(session) = s.session {
                    session.notify(crate::split::unfetched!("The search could not be loaded", ": try again."), true);
                }
            }
        });
    }

    fn step_here(&self, step: isize) {
        let n = self.matches.with_untracked(|m| m.len());
        if n == 0 {
            return;
        }
        let next = match self.current.get_untracked() {
            Some(i) => (i as isize + step).rem_euclid(n as isize) as usize,
            None if step >= 0 => 0,
            None => n - 1,
        };
        self.go(next);
    }

    /// Makes match `i` current: its segment (and item) opened and scrolled
    /// to, the match painted in its text, for as long as it stays current.
    pub fn go(&self, i: usize) {
        let Some(m) = self.matches.with_untracked(|ms| ms.get(i).copied()) else { return };
        self.current.set(Some(i));
        let target = match m.item {
            Some(item) => Target::Item(m.at, item),
            None => Target::Segment(m.at),
        };
        self.nav.go(target, true);
        let Some(mark) = self.marking.try_update_value(|k| {
            *k += 1;
            *k
        }) else {
            return;
        };
        let needle = self.searched.get_untracked().map(|q| fold(&q)).unwrap_or_default();
        browser::clear_match_highlight();
        let s = *self;
        // The segment renders after the jump; Markdown may render its text
        // again later, and the window may unmount and remount it: the
        // match is painted again whenever its text is new.
        leptos::task::spawn_local(async move {
            let selector = format!(
                ".messages li.msg[aria-posinset=\"{}\"] .seg-slot[data-seg=\"{}\"]",
                m.at.message + 1,
                m.at.segment
            );
            let mut painted: Option<web_sys::Range> = None;
            let mut scrolled = false;
            let mut tick = 0u32;
            while s.marking.try_get_value() == Some(mark) {
                if painted.as_ref().is_none_or(|r| !browser::range_connected(r)) {
                    if let Some(el) = browser::query(&selector) {
                        painted = browser::highlight_match(&el, &needle, m.nth, fold, !scrolled);
                        scrolled |= painted.is_some();
                    }
                }
                tick += 1;
                if tick < 60 {
                    browser::after_next_paint().await;
                } else {
                    browser::sleep(250).await;
                }
            }
        });
    }
}
