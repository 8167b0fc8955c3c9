//! The conversation pane: session bar, then message bubbles in a *window*:
//! only the rows near the viewport are in the DOM, whatever the document's
//! size, across messages and within a message ([`crate::window`] does the
//! arithmetic). This module measures rows as they render, keeps what the
//! user looks at still while heights change above it (anchored on the first
//! visible row), and carries out the [`Navigator`]'s jumps.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use envelope::calls::At;
use envelope::Role;
use leptos::context::Provider;
use leptos::prelude::*;
use send_wrapper::SendWrapper;

use crate::browser;
use crate::budget::{Budget, Counting};
use crate::components::finder::{FilterMenu, FilterStatus, Outline, SearchBox};
use crate::components::icons::{Ico, Icon};
use crate::components::panel::SegmentAt;
use crate::components::rich::{CurrentDoc, VarDescriptions};
use crate::components::segments::SegmentView;
use crate::components::settings::RequestSettings;
use crate::doc::Doc;
use crate::find::{Filter, FilterSet};
use crate::format::count;
use crate::hooks::{use_hash_change, use_page_scroll, use_resize_observer, ResizeObserverHandle};
use crate::nav::{anchor_fragment, parse_anchor, Jump, Navigator, Target};
use crate::state::{Expansion, ToggleKey};
use crate::window::{
    chunk_estimate, chunk_of, chunk_segments, default_open, Layout, Row, SegmentSize, Span, CHUNK, HEAD_ESTIMATE,
};
use envelope::display::thousands;

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
struct Win {
    span: Span,
    epoch: u64,
}

/// Heights and what they are estimated from.
struct Model {
    doc: Arc<Doc>,
    layout: Layout,
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
    fn new(doc: Arc<Doc>, expansion: Expansion, width: f64, filter: FilterSet) -> Model {
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
    fn refilter(&mut self, expansion: Expansion, rendered: &HashSet<usize>, filter: FilterSet) {
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
enum Anchor {
    /// This element stays `top` px from the viewport's top.
    Element { el: web_sys::Element, top: f64 },
    /// A jump's target, once rendered, goes `margin` px below the band's top.
    Target { target: Target, margin: f64 },
}

/// The window's DOM side (not reactive).
#[derive(Default)]
struct Dom {
    list: Option<web_sys::Element>,
    /// Rendered rows: a chunk's `div`, a message's `li` for its head row.
    rows: HashMap<usize, web_sys::Element>,
    anchor: Option<Anchor>,
    /// The scroll position the window set last (its own scroll events are
    /// not the user's).
    expected: Option<f64>,
    /// The scroll position the anchor was taken at (or last corrected to):
    /// when it moved since, someone scrolled and the anchor is stale.
    at: Option<f64>,
    ro: Option<ResizeObserverHandle>,
    /// The element that scrolls the list (`Some(None)`: the document),
    /// found again after a resize of the window or of the list.
    scroller: Option<Option<web_sys::Element>>,
    frame_pending: bool,
    /// The newest jump carried out.
    done: u64,
    /// A jump's target to focus once it is rendered.
    focus: Option<Target>,
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
struct Ctl {
    model: StoredValue<Model>,
    dom: StoredValue<Dom, LocalStorage>,
    win: RwSignal<Win>,
    /// Height of the sticky session bar (message headers stick below it).
    bar: RwSignal<f64>,
    expansion: Expansion,
    nav: Navigator,
}

impl Ctl {
    fn expect() -> Ctl {
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

    fn rendered(&self) -> HashSet<usize> {
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
    /// page.
    fn focus_later(&self, target: Target) {
        let ctl = *self;
        leptos::task::spawn_local(async move {
            browser::after_next_paint().await;
            browser::after_next_paint().await;
            if let Some(el) = ctl.dom.try_with_value(|_| ()).and_then(|_| ctl.target_element(target)) {
                browser::focus_quietly(&el);
            }
            browser::sleep(300).await;
            if browser::active_element().is_none() {
                if let Some(el) = ctl.dom.try_with_value(|_| ()).and_then(|_| ctl.target_element(target)) {
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
    fn on_resize(&self, entries: Vec<(web_sys::Element, f64)>) {
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
    fn on_scroll(&self, target: Option<web_sys::Node>) {
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
    fn schedule_update(&self) {
        let pending = self.dom.try_update_value(|d| std::mem::replace(&mut d.frame_pending, true)).unwrap_or(true);
        if pending {
            return;
        }
        let ctl = *self;
        leptos::task::spawn_local(async move {
            browser::next_frame().await;
            if ctl.dom.try_update_value(|d| d.frame_pending = false).is_some() {
                ctl.update(false);
            }
        });
    }

    fn update_after_paint(&self) {
        let ctl = *self;
        leptos::task::spawn_local(async move {
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
    fn order(&self, message: Option<usize>, open: bool) {
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
    fn jump(&self, jump: Jump) {
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
    fn anchor_target(&self, fragment: &str) -> Option<Target> {
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
fn text_width(list: f64) -> f64 {
    (list * 0.92 - 30.0).max(120.0)
}

/// The list width before the list exists: the left pane's share of the
/// window, at most the conversation's maximum width.
fn guessed_list_width() -> f64 {
    let w = crate::browser::viewport().0;
    let pane = if w <= 900.0 { w } else { w * 0.58 };
    pane.min(920.0) - 40.0
}

/// A rendered row: measured, and known to the window while it is in the DOM.
fn measured_row(el: web_sys::Element, (ctl, row): (Ctl, usize)) {
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
fn observed(el: web_sys::Element, (ctl, is_list): (Ctl, bool)) {
    ctl.dom.update_value(|d| {
        if is_list {
            d.list = Some(el.clone());
        }
        if let Some(ro) = &d.ro {
            ro.observe(&el);
        }
    });
}

/// The whole conversation of a document.
#[component]
pub fn Conversation(doc: Arc<Doc>) -> impl IntoView {
    provide_context(CurrentDoc(doc.clone()));
    let expansion = Expansion::expect_or_new();
    expansion.bind(&doc);
    let nav = Navigator::expect_or_new();
    let total = doc.envelope.messages.len();
    let filter = Filter::expect_or_new().0;
    let model =
        StoredValue::new(Model::new(doc.clone(), expansion, text_width(guessed_list_width()), filter.get_untracked()));
    let done = nav.requested_untracked().map_or(0, |j| j.seq);
    let dom = StoredValue::new_local(Dom { done, ..Dom::default() });
    let ctl = Ctl { model, dom, win: RwSignal::new(Win::default()), bar: RwSignal::new(0.0), expansion, nav };
    provide_context(ctl);
    let ro = use_resize_observer(move |entries| ctl.on_resize(entries));
    dom.update_value(|d| d.ro = Some(ro));

    // The first screen: the top, or the message the address names.
    let screen = crate::browser::viewport().1;
    match ctl.anchor_target(&browser::location_hash()) {
        Some(target) => {
            nav.go(target, true);
            if let Some(jump) = nav.requested_untracked() {
                dom.update_value(|d| d.done = jump.seq);
                ctl.jump(jump);
            }
        }
        None => ctl.win.set(Win { span: model.with_value(|md| md.layout.span(0.0, screen * 1.5)), epoch: 0 }),
    }
    Effect::new(move |_| {
        if let Some(jump) = nav.requested() {
            let fresh = dom.try_update_value(|d| {
                let old = d.done;
                d.done = old.max(jump.seq);
                old < jump.seq
            });
            if fresh == Some(true) {
                ctl.jump(jump);
            }
        }
    });
    // A new filter: hidden rows take no room.
    Effect::new(move |prev: Option<()>| {
        let f = filter.get();
        if prev.is_some() {
            let rendered = ctl.rendered();
            model.update_value(|md| md.refilter(expansion, &rendered, f));
            ctl.win.update(|w| w.epoch += 1);
            ctl.schedule_update();
        }
    });
    use_page_scroll(move |target| ctl.on_scroll(target));
    use_hash_change(move |fragment| {
        if let Some(target) = ctl.anchor_target(&fragment) {
            nav.go(target, true);
        }
    });
    // The rest of the overscan after the first paint.
    ctl.update_after_paint();

    let win = ctl.win;
    let pads = Memo::new(move |_| {
        let w = win.get();
        model.with_value(|md| md.layout.pads(w.span))
    });
    let messages = move || {
        let w = win.get();
        model.with_value(|md| md.layout.messages_of(w.span)).map_or(0..0, |(a, b)| a..b + 1)
    };
    let bar = ctl.bar;
    view! {
        <div class="conversation" style=move || format!("--bar-h:{}px", px(bar.get()))>
            <RequestSettings doc=doc.clone()/>
            <div class="conv-sticky" use:observed=(ctl, false)>
                <SessionBar doc=doc.clone()/>
                <SearchBox/>
            </div>
            <VarDescriptions doc=doc.clone()/>
            <div class="conv-tools">
                <span class="muted">{format!("{} · {}", count(total, "message"), count(doc.segment_count(), "segment"))}</span>
                <Outline doc=doc.clone()/>
                <FilterMenu doc=doc.clone()/>
                <button type="button" class="btn small" on:click=move |_| ctl.order(None, true)>
                    <Ico icon=Icon::ChevronsUpDown/>" Expand all"
                </button>
                <button type="button" class="btn small" on:click=move |_| ctl.order(None, false)>
                    <Ico icon=Icon::ChevronsDownUp/>" Collapse all"
                </button>
                <crate::components::editor::ShareLink/>
            </div>
            <FilterStatus doc=doc.clone()/>
            <ol class="messages" use:observed=(ctl, true)
                style:padding-top=move || format!("{}px", px(pads.get().0))
                style:padding-bottom=move || format!("{}px", px(pads.get().1))>
                <For each=messages key=|m| *m let:m>
                    <MessageView doc=doc.clone() index=m/>
                </For>
            </ol>
        </div>
    }
}

/// Chips the session bar shows at first, and how many more each "more" adds.
const CHIPS_SHOWN: usize = 40;
const CHIPS_PAGE: usize = 500;

/// The template variables of the session, as chips above the conversation.
#[component]
fn SessionBar(doc: Arc<Doc>) -> impl IntoView {
    if doc.var_defs.is_empty() {
        return ().into_any();
    }
    let editing = use_context::<crate::edit::Editing>().is_some_and(|e| e.on.get_untracked());
    // At most CHIPS_SHOWN chips at first, then pages of CHIPS_PAGE (a
    // document can declare tens of thousands of variables).
    let n = doc.var_defs.len();
    let limit = RwSignal::new(CHIPS_SHOWN);
    let defs = doc.clone();
    let chips = move || -> Vec<AnyView> {
        defs.var_defs
            .iter()
            .take(limit.get())
            .enumerate()
            .map(|(i, v)| {
                let tip_id = format!("var-tip-{i}");
                let desc = v.description.clone();
                let described_by = desc.as_ref().map(|_| tip_id.clone());
                if editing {
                    let what =
                        crate::components::editor::EditView::Variable { name: v.name.clone(), value: v.value.clone() };
                    if let Some(field) = crate::components::editor::edit_view_now(what) {
                        return field;
                    }
                }
                view! {
                    <li class="chip" tabindex="0" aria-describedby=described_by>
                        <code class="chip-name">{v.name.clone()}</code>
                        <span class="chip-eq">" = "</span>
                        <span class="chip-value">{crate::components::rich::masked_text(&v.value)}</span>
                        {desc.map(|d| view! { <span class="tip" role="tooltip" id=tip_id>{d}</span> })}
                    </li>
                }
                .into_any()
            })
            .collect()
    };
    let more = move || {
        let shown = limit.get().min(n);
        (shown < n).then(|| {
            view! {
                <li>
                    <button type="button" class="link" data-testid="more-vars"
                        on:click=move |_| limit.update(|l| *l = l.saturating_add(CHIPS_PAGE))>
                        {format!("{} more of {} variables", thousands((n - shown) as u64), thousands(n as u64))}
                    </button>
                </li>
            }
        })
    };
    view! {
        <section class="session-bar" aria-label="Session variables">
            <span class="session-label"><Ico icon=Icon::Variable/>" Variables"</span>
            <ul class="chips">{chips}{more}</ul>
        </section>
    }
    .into_any()
}

fn role_icon(role: Role) -> Icon {
    match role {
        Role::System => Icon::Cog,
        Role::User => Icon::User,
        Role::Assistant => Icon::Bot,
        Role::Tool => Icon::Hammer,
    }
}

/// One message: a bubble by role with its header, and the chunks of its
/// segments the window shows (the others stand as padding).
#[component]
pub fn MessageView(doc: Arc<Doc>, index: usize) -> impl IntoView {
    let ctl = Ctl::expect();
    let nav = ctl.nav;
    let filter = Filter::expect_or_new().0;
    let doc_for_filter = doc.clone();
    let m = &doc.envelope.messages[index];
    let total = doc.envelope.messages.len();
    let role = m.role.as_str();
    let foldable = m.segments.iter().any(|s| s.collapsed().is_some() || matches!(s, envelope::Segment::Document(_)));
    let budget = use_context::<Budget>();
    let counted = move || match budget.map(|b| b.counting.get()) {
        Some(Counting::Done(c)) => Some(c),
        _ => None,
    };
    let head = ctl.model.with_value(|md| md.layout.head(index));
    let win = ctl.win;
    let part = Memo::new(move |_| {
        let w = win.get();
        ctl.model.with_value(|md| md.layout.part(w.span, index))
    });
    let empty = m.segments.is_empty();
    let dropped = move || budget.and_then(|b| b.dropped(index));
    let part_tokens =
        move || counted().and_then(|c| c.part_index(index).map(|i| (c.parts[i].tokens, c.parts[i].estimate)));
    let link = format!("#{}", anchor_fragment(&m.id, None));
    let chunked = m.segments.len() > CHUNK;
    let id = m.id.clone();
    let (icon, priority) = (role_icon(m.role), m.truncation_priority);
    // The provider's name and spelling of the role (fidelity extension), cut to a badge.
    let badge_text = |s: &String| envelope::display::shown(&s.chars().take(64).collect::<String>()).into_owned();
    let (name, provider_role) = (m.ext.name.as_ref().map(badge_text), m.ext.provider_role.as_ref().map(badge_text));
    // A reply (or a tool's answer) kept without what it answers is explained.
    let is_reply = matches!(m.role, Role::Assistant | Role::Tool);
    let time = browser::format_time(m.timestamp_ms());
    let for_chunks = doc.clone();
    view! {
        <li class=format!("msg role-{role}") class:dropped=move || dropped().is_some() class:chunked=chunked
            class:flash=move || nav.flashed() == Some(Target::Message(index))
            data-role=role data-message-id=id.clone() data-row=head use:measured_row=(ctl, head) tabindex="-1"
            class:filtered=move || !filter.with(|f| f.shows_message(&doc_for_filter.envelope.messages[index]))
            aria-posinset={index + 1} aria-setsize=total on:click=move |_| nav.select(index)>
            <header class="msg-head">
                <h2 class="role"><Ico icon=icon/>" "{role}</h2>
                {provider_role.map(|r| view! {
                    <span class="badge msg-ext" title="The role as the provider spelled it">
                        <span class="visually-hidden">"provider role "</span>{r}
                    </span>
                })}
                {name.map(|n| view! {
                    <span class="badge msg-ext" title="The message's name">
                        <span class="visually-hidden">"name "</span>{n}
                    </span>
                })}
                <time class="muted">{time}</time>
                <a class="msg-id muted" href=link title="Link to this message"
                    on:click=move |ev| { ev.prevent_default(); nav.reveal_message(index) }>{id.clone()}</a>
                {priority.map(|p| view! { <span class="badge" title="truncationPriority">{format!("priority {p}")}</span> })}
                {move || part_tokens().map(|(t, est)| view! {
                    <span class="badge tok" title="o200k_base tokens this message sends">{format!("{t}{} tok", if est { "*" } else { "" })}</span>
                })}
                {move || dropped().map(|_| view! { <span class="badge bad" data-testid="dropped">"dropped"</span> })}
                {foldable.then(|| view! {
                    <span class="msg-actions">
                        <button type="button" class="link" title="Expand every panel of this message"
                            on:click=move |_| ctl.order(Some(index), true)>"expand all"</button>
                        <button type="button" class="link" title="Collapse every panel of this message"
                            on:click=move |_| ctl.order(Some(index), false)>"collapse all"</button>
                    </span>
                })}
            </header>
            {move || dropped().map(|reason| view! { <p class="drop-reason" data-testid="dropped-reason">{reason}</p> })}
            {move || budget.filter(|_| is_reply).and_then(|b| b.kept_without_question(index)).map(|why| view! {
                <p class="drop-reason kept-why" data-testid="kept-reason">{why}</p>
            })}
            <div class="msg-body"
                style:padding-top=move || format!("{}px", px(part.get().above))
                style:padding-bottom=move || format!("{}px", px(part.get().below))>
                <For each=move || { let p = part.get(); p.first..p.end } key=|c| *c let:c>
                    <ChunkView doc=for_chunks.clone() message=index chunk=c/>
                </For>
                {empty.then(|| view! { <p class="muted">"(no segments)"</p> })}
            </div>
        </li>
    }
}

/// Up to [`CHUNK`] segments of a message, rendered together.
#[component]
fn ChunkView(doc: Arc<Doc>, message: usize, chunk: usize) -> impl IntoView {
    let ctl = Ctl::expect();
    let nav = ctl.nav;
    let budget = use_context::<Budget>();
    let counted = move || match budget.map(|b| b.counting.get()) {
        Some(Counting::Done(c)) => Some(c),
        _ => None,
    };
    let filter = Filter::expect_or_new().0;
    let segments = &doc.envelope.messages[message].segments;
    // A message of one segment has its count in its header only.
    let several = segments.len() > 1;
    let row = ctl.model.with_value(|md| md.layout.chunk_row(message, chunk));
    let slots: Vec<AnyView> = chunk_segments(chunk, segments.len())
        .map(|sj| {
            let at = At { message, segment: sj };
            let badge = move || {
                counted().filter(|_| several).and_then(|c| c.segment_tokens(message, sj)).map(|t| {
                    view! { <span class="tok-badge" title="o200k_base tokens this segment sends">{format!("{t} tok")}</span> }
                })
            };
            let segment = segments[sj].clone();
            let kind = segment.kind();
            let lang = envelope::lang::segment_lang(&segment);
            view! {
                <div class="seg-slot" data-seg=sj lang=lang class:flash=move || nav.flashed().and_then(|t| t.at()) == Some(at)
                    class:filtered=move || filter.with(|f| !f.kinds.is_empty() && !f.kinds.contains(&kind))>
                    <Provider value=SegmentAt(at)>
                        <SegmentView segment=segment.clone() at/>
                    </Provider>
                    {badge}
                </div>
            }
            .into_any()
        })
        .collect();
    view! {
        <div class="chunk" class:cont={chunk > 0} data-row=row use:measured_row=(ctl, row)>{slots}</div>
    }
}

/// A length for a `style` value: to the thousandth of a pixel (finer than
/// any layout unit), without core's float printing (`display::decimal`).
fn px(x: f64) -> String {
    envelope::display::decimal(x, 3)
}
