//! The window's controller (`Ctl`): it measures rows as they render,
//! moves the window with the scroll, keeps what the user looks at still
//! while heights change above it (anchored on the first visible row), and
//! carries out the [`Navigator`]'s jumps. The views in `super` read its
//! state and hand it their rows.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use envelope::calls::At;
use leptos::prelude::*;
use send_wrapper::SendWrapper;

use crate::browser;
use crate::doc::Doc;
use crate::find::FilterSet;
use crate::hooks::ResizeObserverHandle;
use crate::nav::{anchor_fragment, parse_anchor, Jump, Navigator, Target};
use crate::state::{Expansion, ToggleKey};
use crate::window::{
    chunk_estimate, chunk_of, chunk_segments, default_open, Layout, Row, SegmentSize, Span, CHUNK, HEAD_ESTIMATE,
};

/// Screens rendered beyond the viewport, above and below.
const OVERSCAN: f64 = 2.0;
/// The window moves when less than this is rendered beyond the viewport...
const MIN_OVERSCAN: f64 = 1.0;
/// ...or when more than this is (after "Expand all", or a jump).
const MAX_OVERSCAN: f64 = 5.0;
/// How long a jump's target stays highlighted.
const FLASH_MS: i32 = 1600;
/// Where a jump puts its target: this far below the top of the viewport
/// (and the session bar), so a message's sticky header does not cover it.
const MESSAGE_MARGIN: f64 = 8.0;
const SEGMENT_MARGIN: f64 = 56.0;

/// What is rendered: a span of rows; `epoch` changes when heights of rows
/// outside it changed (new estimates), so the padding is recomputed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Win {
    pub(super) span: Span,
    pub(super) epoch: u64,
}

/// Heights and what they are estimated from.
pub(super) struct Model {
    doc: Arc<Doc>,
    pub(super) layout: Layout,
    /// Each segment's size model, all messages in a row.
    sizes: Vec<SegmentSize>,
    /// Index in `sizes` of each message's first segment.
    base: Vec<usize>,
    /// The text width estimates assume.
    width: f64,
    /// What the filter shows (hidden rows are estimated at nothing).
    filter: FilterSet,
}

impl Model {
    pub(super) fn new(doc: Arc<Doc>, expansion: Expansion, width: f64, filter: FilterSet) -> Model {
        let mut base = Vec::with_capacity(doc.envelope.messages.len());
        let mut sizes = Vec::with_capacity(doc.segment_count());
        for m in &doc.envelope.messages {
            base.push(sizes.len());
            sizes.extend(m.segments.iter().map(SegmentSize::of));
        }
        let lens: Vec<usize> = doc.envelope.messages.iter().map(|m| m.segments.len()).collect();
        let mut model = Model { layout: Layout::new(std::iter::empty(), |_| 0.0), doc, sizes, base, width, filter };
        let layout = Layout::new(lens, |row| model.estimate(expansion, row));
        model.layout = layout;
        model
    }

    fn segment_height(&self, expansion: Expansion, m: usize, s: usize) -> f64 {
        let segment = &self.doc.envelope.messages[m].segments[s];
        if !self.filter.shows_segment(segment) {
            return 0.0;
        }
        let open = expansion.is_open_untracked(ToggleKey::segment(m, s), default_open(segment));
        self.sizes[self.base[m] + s].height(open, self.width)
    }

    fn estimate(&self, expansion: Expansion, row: Row) -> f64 {
        let m = match row {
            Row::Head(m) | Row::Chunk { message: m, .. } => m,
        };
        if !self.filter.shows_message(&self.doc.envelope.messages[m]) {
            return 0.0;
        }
        match row {
            Row::Head(_) => HEAD_ESTIMATE,
            Row::Chunk { message, chunk } => {
                let len = self.doc.envelope.messages[message].segments.len();
                chunk_estimate(
                    chunk_segments(chunk, len).map(|s| self.segment_height(expansion, message, s)),
                    chunk == 0,
                )
            }
        }
    }

    /// New estimates for the chunk rows of the messages `which` selects,
    /// except rendered ones (their measurements follow by themselves).
    fn reestimate(&mut self, expansion: Expansion, rendered: &HashSet<usize>, which: impl Fn(usize) -> bool) {
        let heights: Vec<(usize, f64)> = (0..self.layout.messages())
            .filter(|&m| which(m))
            .flat_map(|m| (0..self.layout.chunks(m)).map(move |c| (m, c)))
            .map(|(m, c)| (self.layout.chunk_row(m, c), Row::Chunk { message: m, chunk: c }))
            .filter(|(r, _)| !rendered.contains(r))
            .map(|(r, row)| (r, self.estimate(expansion, row)))
            .collect();
        self.layout.reestimate_many(heights);
    }

    /// A new filter: every row not rendered is estimated again (rendered
    /// ones are measured again as they hide or show).
    pub(super) fn refilter(&mut self, expansion: Expansion, rendered: &HashSet<usize>, filter: FilterSet) {
        self.filter = filter;
        let heights: Vec<(usize, f64)> = (0..self.layout.rows())
            .filter(|r| !rendered.contains(r))
            .map(|r| (r, self.estimate(expansion, self.layout.row(r))))
            .collect();
        self.layout.reestimate_many(heights);
    }

    /// The element-free part of a jump: the target's row and its offset
    /// (estimated within its chunk).
    fn target_offset(&self, expansion: Expansion, target: Target) -> (usize, f64) {
        match target {
            Target::Message(m) => (self.layout.head(m), self.layout.offset(self.layout.head(m))),
            Target::Segment(at) | Target::Item(at, _) => {
                let c = chunk_of(at.segment);
                let row = self.layout.chunk_row(at.message, c);
                let before: f64 = (c * CHUNK..at.segment)
                    .map(|s| self.segment_height(expansion, at.message, s) + crate::window::SEG_GAP)
                    .sum();
                (row, self.layout.offset(row) + before)
            }
        }
    }
}

/// What keeps the view still while heights change above it.
#[derive(Clone)]
pub(super) enum Anchor {
    /// This element stays `top` px from the viewport's top.
    Element { el: web_sys::Element, top: f64 },
    /// A jump's target, once rendered, goes `margin` px below the band's top.
    Target { target: Target, margin: f64 },
}

/// The window's DOM side (not reactive).
#[derive(Default)]
pub(super) struct Dom {
    pub(super) list: Option<web_sys::Element>,
    /// Rendered rows: a chunk's `div`, a message's `li` for its head row.
    pub(super) rows: HashMap<usize, web_sys::Element>,
    pub(super) anchor: Option<Anchor>,
    /// The scroll position the window set last (its own scroll events are
    /// not the user's).
    pub(super) expected: Option<f64>,
    /// The scroll position the anchor was taken at (or last corrected to):
    /// when it moved since, someone scrolled and the anchor is stale.
    pub(super) at: Option<f64>,
    pub(super) ro: Option<ResizeObserverHandle>,
    /// The element that scrolls the list (`Some(None)`: the document),
    /// found again after a resize of the window or of the list.
    pub(super) scroller: Option<Option<web_sys::Element>>,
    pub(super) frame_pending: bool,
    /// The newest jump carried out.
    pub(super) done: u64,
    /// A jump's target to focus once it is rendered.
    pub(super) focus: Option<Target>,
}

/// The visible band of the list, in viewport coordinates.
struct Band {
    top: f64,
    bottom: f64,
    /// Where offset 0 of the layout is.
    origin: f64,
    scroller: Option<web_sys::Element>,
}

/// The window's controller: handles to its state, shared by its rows.
#[derive(Clone, Copy)]
pub(super) struct Ctl {
    pub(super) model: StoredValue<Model>,
    pub(super) dom: StoredValue<Dom, LocalStorage>,
    pub(super) win: RwSignal<Win>,
    /// Height of the sticky session bar (message headers stick below it).
    pub(super) bar: RwSignal<f64>,
    pub(super) expansion: Expansion,
    pub(super) nav: Navigator,
}

impl Ctl {
    pub(super) fn expect() -> Ctl {
        expect_context::<Ctl>()
    }

    fn band(&self) -> Option<Band> {
        let list = self.dom.try_with_value(|d| d.list.clone()).flatten()?;
        if !list.is_connected() {
            return None;
        }
        let scroller = match self.dom.with_value(|d| d.scroller.clone()) {
            Some(s) => s,
            None => {
                let s = browser::scroller(&list);
                self.dom.update_value(|d| d.scroller = Some(s.clone()));
                s
            }
        };
        let (top, bottom) = browser::visible_band(scroller.as_ref());
        let (origin, _) = browser::rect(&list);
        Some(Band { top, bottom, origin, scroller })
    }

    pub(super) fn rendered(&self) -> HashSet<usize> {
        self.dom.with_value(|d| d.rows.keys().copied().collect())
    }

    /// Re-windows for the current scroll position; `user`: the user moved
    /// (the anchor becomes the first visible row).
    fn update(&self, user: bool) {
        let Some(b) = self.band() else { return };
        let screen = (b.bottom - b.top).max(100.0);
        let (y0, y1) = (b.top - b.origin, b.bottom - b.origin);
        if user {
            self.capture(&b, y0);
            self.dom.update_value(|d| d.focus = None);
        }
        self.fit_width();
        let w = self.win.get_untracked();
        let (next, current) = self.model.with_value(|md| {
            let l = &md.layout;
            if l.rows() == 0 {
                return (None, None);
            }
            let current = Some(l.message_of(l.row_at(y0 + 1.0)));
            let cur = w.span;
            let short = !l.covers(cur, y0 - screen * MIN_OVERSCAN, y1 + screen * MIN_OVERSCAN);
            let long = !cur.is_empty()
                && (l.offset(cur.start) < y0 - screen * MAX_OVERSCAN || l.offset(cur.end) > y1 + screen * MAX_OVERSCAN);
            if !(short || long) {
                return (None, current);
            }
            let full = l.span(y0 - screen * OVERSCAN, y1 + screen * OVERSCAN);
            // Far from what is rendered (the scrollbar dragged, a jump): the
            // viewport first, the rest after the next paint.
            if full.overlaps(cur) {
                (Some((full, false)), current)
            } else {
                (Some((l.span(y0 - screen * 0.25, y1 + screen * 0.5), true)), current)
            }
        });
        self.nav.set_current(current);
        if let Some((span, partial)) = next {
            if span != w.span {
                self.win.set(Win { span, epoch: w.epoch });
            }
            if partial {
                self.update_after_paint();
            }
        }
    }

    /// The first rendered row visible at the band's top becomes the anchor.
    fn capture(&self, b: &Band, y0: f64) {
        let Some(row) = self.model.with_value(|md| (md.layout.rows() > 0).then(|| md.layout.row_at(y0))) else {
            return;
        };
        let is_head = |r: usize| self.model.with_value(|md| matches!(md.layout.row(r), Row::Head(_)));
        let found = self.dom.with_value(|d| {
            (row..row + 64).find_map(|r| {
                let el = d.rows.get(&r)?;
                // A message's `li` spans the whole message: it anchors only
                // when its header is what is at the top.
                if is_head(r) && r != row {
                    return None;
                }
                let (top, bottom) = browser::rect(el);
                (bottom > b.top).then(|| (el.clone(), top))
            })
        });
        let at = browser::scroll_position(b.scroller.as_ref());
        self.dom.update_value(|d| {
            d.anchor = found.map(|(el, top)| Anchor::Element { el, top });
            d.at = Some(at);
        });
    }

    /// Scrolls so the anchor is where it was (or a jump's target where it goes).
    fn correct(&self) {
        let Some(b) = self.band() else { return };
        let Some(anchor) = self.dom.with_value(|d| d.anchor.clone()) else {
            // Nothing was rendered where the user went (a jump): what is
            // there now is what stays.
            self.capture(&b, b.top - b.origin);
            return;
        };
        // Scrolled since the anchor was taken (a script, the keyboard, a
        // scroll whose event has not come yet): that position stays.
        let pos = browser::scroll_position(b.scroller.as_ref());
        if matches!(anchor, Anchor::Element { .. })
            && self.dom.with_value(|d| d.at.is_some_and(|a| (a - pos).abs() > 1.0))
        {
            self.capture(&b, b.top - b.origin);
            return;
        }
        let (el, want) = match anchor {
            Anchor::Element { el, top } => {
                if !el.is_connected() {
                    self.dom.update_value(|d| d.anchor = None);
                    return;
                }
                (el, top)
            }
            Anchor::Target { target, margin } => {
                let Some(el) = self.target_element(target) else { return };
                if self.dom.try_update_value(|d| d.focus.take_if(|t| *t == target)).flatten().is_some() {
                    self.focus_later(target);
                }
                let want = b.top + margin + self.bar.get_untracked();
                self.dom.update_value(|d| d.anchor = Some(Anchor::Element { el: el.clone(), top: want }));
                (el, want)
            }
        };
        let delta = browser::rect(&el).0 - want;
        let pos = if delta.abs() >= 0.5 { browser::scroll_by(b.scroller.as_ref(), delta) } else { pos };
        self.dom.update_value(|d| {
            d.expected = Some(pos);
            d.at = Some(pos);
        });
    }

    /// Focuses a jump's target once the window has placed it: focusing
    /// while rows are still being measured stops the jump short (Chromium),
    /// and the window moving the element in the DOM drops its focus, so
    /// after two frames, and again a moment later if the focus fell to the
    /// page. Only while it is still the newest jump: a key pressed again
    /// meanwhile (`j` at a person's pace) has sent the focus on, and an
    /// older target taking it back would leave the focus out of view.
    fn focus_later(&self, target: Target) {
        let ctl = *self;
        let newest = move || ctl.nav.requested_untracked().is_some_and(|j| j.target == target);
        let element =
            move || ctl.dom.try_with_value(|_| ()).filter(|_| newest()).and_then(|_| ctl.target_element(target));
        leptos::task::spawn_local(async move {
            browser::after_next_paint().await;
            browser::after_next_paint().await;
            if let Some(el) = element() {
                browser::focus_quietly(&el);
            }
            browser::sleep(300).await;
            if browser::active_element().is_none() {
                if let Some(el) = element() {
                    browser::focus_quietly(&el);
                }
            }
        });
    }

    fn target_element(&self, target: Target) -> Option<web_sys::Element> {
        let row = self.model.with_value(|md| match target {
            Target::Message(m) => md.layout.head(m),
            Target::Segment(at) | Target::Item(at, _) => md.layout.chunk_row(at.message, chunk_of(at.segment)),
        });
        let el = self.dom.with_value(|d| d.rows.get(&row).cloned())?;
        match target.at() {
            None => Some(el),
            Some(at) => el.query_selector(&format!(":scope > [data-seg=\"{}\"]", at.segment)).ok().flatten(),
        }
    }

    /// Measurements of one frame: rows, message frames, the session bar.
    pub(super) fn on_resize(&self, entries: Vec<(web_sys::Element, f64)>) {
        let mut frames = Vec::new();
        let mut bar = None;
        let mut list_resized = false;
        self.model.update_value(|md| {
            for (el, h) in &entries {
                if !el.is_connected() {
                    continue;
                }
                if el.class_list().contains("conv-sticky") {
                    bar = Some(*h);
                }
                if el.class_list().contains("messages") {
                    list_resized = true;
                }
                let Some(row) = el.get_attribute("data-row").and_then(|r| r.parse::<usize>().ok()) else { continue };
                if row >= md.layout.rows() {
                    continue;
                }
                match md.layout.row(row) {
                    Row::Head(m) => frames.push((m, *h)),
                    Row::Chunk { .. } => {
                        md.layout.measure(row, *h);
                    }
                }
            }
            // After the chunks: a frame's head row is what they leave.
            for (m, h) in frames {
                md.layout.measure_frame(m, h);
            }
        });
        if let Some(h) = bar {
            self.bar.set(h);
        }
        if list_resized {
            // The list may now overflow a box that did not scroll before.
            self.dom.update_value(|d| {
                if d.scroller == Some(None) {
                    d.scroller = None;
                }
            });
        }
        self.correct();
        self.schedule_update();
    }

    /// A scroll anywhere in the page (`None`: the window was resized).
    pub(super) fn on_scroll(&self, target: Option<web_sys::Node>) {
        let Some(list) = self.dom.try_with_value(|d| d.list.clone()).flatten() else { return };
        if target.as_ref().is_some_and(|t| !t.contains(Some(&list))) {
            return; // another box scrolled (the protocol panel)
        }
        if target.is_none() {
            // The window was resized: the layout (one pane or two) may differ.
            self.dom.update_value(|d| d.scroller = None);
        }
        let Some(b) = self.band() else { return };
        let pos = browser::scroll_position(b.scroller.as_ref());
        let ours = self.dom.with_value(|d| d.expected.is_some_and(|e| (e - pos).abs() < 1.5));
        self.dom.update_value(|d| d.expected = None);
        self.update(target.is_none() || !ours);
    }

    /// One `update` at the next animation frame (however often asked).
    pub(super) fn schedule_update(&self) {
        let pending = self.dom.try_update_value(|d| std::mem::replace(&mut d.frame_pending, true)).unwrap_or(true);
        if pending {
            return;
        }
        let ctl = *self;
        leptos::task::spawn_local(async move {
            // Until the first screen is complete, the protocol panel's frame
            // goes first: the window's measured overscan (a render and a
            // layout of its own, ~55 ms for demo F) would otherwise run
            // between the conversation's first paint and the panel's.
            browser::first_screen_marked().await;
            browser::next_frame().await;
            if ctl.dom.try_update_value(|d| d.frame_pending = false).is_some() {
                ctl.update(false);
            }
        });
    }

    pub(super) fn update_after_paint(&self) {
        let ctl = *self;
        leptos::task::spawn_local(async move {
            browser::first_screen_marked().await;
            browser::after_next_paint().await;
            if ctl.dom.try_with_value(|_| ()).is_some() {
                ctl.update(false);
            }
        });
    }

    /// Estimates assume the list's text width; when it differs (first
    /// layout, the divider moved), unmeasured rows are estimated again.
    fn fit_width(&self) {
        let Some(list) = self.dom.with_value(|d| d.list.clone()) else { return };
        let width = text_width(list.client_width() as f64);
        let stale = self.model.with_value(|md| (width - md.width).abs() > md.width * 0.1);
        if stale {
            let rendered = self.rendered();
            let expansion = self.expansion;
            self.model.update_value(|md| {
                md.width = width;
                md.reestimate(expansion, &rendered, |_| true);
            });
            self.win.update(|w| w.epoch += 1);
        }
    }

    /// "Expand all"/"Collapse all": in the conversation (`None`) or one message.
    pub(super) fn order(&self, message: Option<usize>, open: bool) {
        match message {
            None => self.expansion.order_all(open),
            Some(m) => self.expansion.order_message(m, open),
        }
        let rendered = self.rendered();
        let expansion = self.expansion;
        self.model.update_value(|md| md.reestimate(expansion, &rendered, |m| message.is_none_or(|x| x == m)));
        self.win.update(|w| w.epoch += 1);
    }

    /// Carries out a jump: opens what hides the target, renders around it,
    /// scrolls it into place (now if it is rendered, else as soon as it
    /// is), highlights it, and names it in the address.
    pub(super) fn jump(&self, jump: Jump) {
        let target = jump.target;
        let valid = self.model.with_value(|md| {
            let messages = &md.doc.envelope.messages;
            match target {
                Target::Message(m) => m < messages.len(),
                Target::Segment(at) | Target::Item(at, _) => {
                    at.message < messages.len() && at.segment < messages[at.message].segments.len()
                }
            }
        });
        if !valid {
            return;
        }
        if let Some(at) = target.at() {
            let default =
                self.model.with_value(|md| default_open(&md.doc.envelope.messages[at.message].segments[at.segment]));
            let key = ToggleKey::segment(at.message, at.segment);
            if !self.expansion.is_open_untracked(key, default) {
                self.expansion.set(key, true);
            }
            if let Target::Item(_, item) = target {
                let key = ToggleKey { item: Some(item), ..key };
                if !self.expansion.is_open_untracked(key, false) {
                    self.expansion.set(key, true);
                }
            }
            let rendered = self.rendered();
            let expansion = self.expansion;
            self.model.update_value(|md| md.reestimate(expansion, &rendered, |m| m == at.message));
        }
        let screen = self.band().map_or_else(|| crate::browser::viewport().1, |b| b.bottom - b.top);
        let expansion = self.expansion;
        let span = self.model.with_value(|md| {
            let (_, y) = md.target_offset(expansion, target);
            md.layout.span(y - screen * 0.5, y + screen * 1.5)
        });
        let margin = if target.at().is_some() { SEGMENT_MARGIN } else { MESSAGE_MARGIN };
        // The focus leaves the message it is in (`j` from a focused message)
        // until the target takes it: Chromium keeps a focused element where
        // it is while the rows around it re-render, which undid the scroll
        // below (the pane went back to the old message).
        let list = self.dom.with_value(|d| d.list.clone());
        if jump.focus && browser::active_element().is_some_and(|el| list.is_some_and(|l| l.contains(Some(&el)))) {
            browser::blur_active();
        }
        self.dom.update_value(|d| {
            d.anchor = Some(Anchor::Target { target, margin });
            d.focus = jump.focus.then_some(target);
        });
        self.win.update(|w| *w = Win { span, epoch: w.epoch + 1 });
        // Rendered already: no resize may follow, so place it now (and
        // once more after the frame, when the new rows are measured).
        self.correct();
        let ctl = *self;
        leptos::task::spawn_local(async move {
            browser::next_frame().await;
            if ctl.dom.try_with_value(|_| ()).is_some() {
                ctl.correct();
            }
        });
        if jump.highlight {
            self.nav.set_flash(jump);
            let nav = self.nav;
            browser::after(FLASH_MS, move || nav.clear_flash(jump.seq));
        }
        let fragment = self.model.with_value(|md| {
            let id = &md.doc.envelope.messages[target.message()].id;
            anchor_fragment(id, target.at().map(|a| a.segment))
        });
        browser::replace_hash(&fragment);
    }

    /// The target an address fragment names in this document, if any.
    pub(super) fn anchor_target(&self, fragment: &str) -> Option<Target> {
        let anchor = parse_anchor(fragment)?;
        self.model.with_value(|md| {
            let messages = &md.doc.envelope.messages;
            let m = messages.iter().position(|x| x.id == anchor.message)?;
            Some(match anchor.segment.filter(|&s| s < messages[m].segments.len()) {
                Some(s) => Target::Segment(At { message: m, segment: s }),
                None => Target::Message(m),
            })
        })
    }
}

/// The text width of a message bubble in a list `list` px wide (bubbles
/// leave 8 % on one side, 14 px padding and a border on each).
pub(super) fn text_width(list: f64) -> f64 {
    (list * 0.92 - 30.0).max(120.0)
}

/// The list width before the list exists: the left pane's share of the
/// window, at most the conversation's maximum width.
pub(super) fn guessed_list_width() -> f64 {
    let w = crate::browser::viewport().0;
    let pane = if w <= 900.0 { w } else { w * 0.58 };
    pane.min(920.0) - 40.0
}

/// A rendered row: measured, and known to the window while it is in the DOM.
pub(super) fn measured_row(el: web_sys::Element, (ctl, row): (Ctl, usize)) {
    ctl.dom.update_value(|d| {
        d.rows.insert(row, el.clone());
        if let Some(ro) = &d.ro {
            ro.observe(&el);
        }
    });
    let el = SendWrapper::new(el);
    on_cleanup(move || {
        let el = el.take();
        ctl.dom.try_update_value(|d| {
            if d.rows.get(&row) == Some(&el) {
                d.rows.remove(&row);
            }
            if let Some(ro) = &d.ro {
                ro.unobserve(&el);
            }
        });
    });
}

/// The list itself (its padding stands for the rows left out) and the
/// session bar: measured too.
pub(super) fn observed(el: web_sys::Element, (ctl, is_list): (Ctl, bool)) {
    ctl.dom.update_value(|d| {
        if is_list {
            d.list = Some(el.clone());
        }
        if let Some(ro) = &d.ro {
            ro.observe(&el);
        }
    });
}
