//! The Calls view (`/calls`, `/calls/:n`; issue 22): the recorded calls
//! read last — a summary of the file (calls, tokens per call as a chart,
//! the most frequent findings, what could not be read) and a windowed table
//! (only the rows near the viewport are in the DOM) sorted by a click on a
//! column's header, filtered by words, walked with the keyboard; and one
//! call in the viewer, with previous / next, back to the table, the model's
//! reply as recorded (output, not part of the request) after the
//! conversation, and "Compare with the previous call".
//!
//! The file is read in the engine (`crate::calls`); this module only shows
//! what it answers.

use std::sync::Arc;

use leptos::context::Provider;
use leptos::prelude::*;

use crate::browser;
use crate::calls::{self, Calls, Col, Phase, Recording, Table};
use crate::components::compare::{self, Pick};
use crate::components::conversation::After;
use crate::components::rich::CurrentDoc;
use crate::components::segments::SegmentView;
use crate::components::viewer::Viewer;
use crate::doc::{Doc, Source};
use crate::format::{count, megabytes};
use crate::router::{href, use_navigate};
use crate::state::Session;
use crate::worker::recorded::{self as engine, Reply, Row};
use envelope::display::thousands;

/// A row's height in the table (CSS: `.calls-table tbody tr`).
const ROW_H: f64 = 33.0;
/// Rows rendered above and below the visible ones.
const OVERSCAN: usize = 8;
/// Bars of the tokens chart, at most.
const BARS: usize = 60;

/// `/calls` and `/calls/:n`.
#[component]
pub fn CallsPage() -> impl IntoView {
    let calls = Calls::expect();
    // `/calls/:n` has the parameter, `/calls` not (each route makes its own view).
    let params = leptos_router::hooks::use_params_map();
    // `Some(None)`: a parameter that is no call's number.
    let call = move || params.with(|p| p.get("n").map(|n| crate::router::call_number(&n)));
    move || {
        match (call(), calls.current.get()) {
        (_, None) => view! {
            <main class="empty pad" id="main" tabindex="-1" data-testid="calls-none">
                <h2>"No calls read yet"</h2>
                <p>"Open or drop a file of recorded model calls: an OpenTelemetry trace (OTLP/JSON, as a Collector's file exporter writes it) and its logs together, an OpenAI or Anthropic batch file, or JSON Lines of request bodies."</p>
                <p><a href=href("/")>"Back to the demos"</a></p>
            </main>
        }
        .into_any(),
        (Some(None), _) => view! {
            <main class="empty pad" id="main" tabindex="-1" data-testid="not-found">
                <h2>"Page not found"</h2>
                <p>"There is no such call."</p>
                <p><a href=href("/calls")>"Back to calls"</a></p>
            </main>
        }
        .into_any(),
        (Some(Some(n)), Some(rec)) => view! { <CallPage rec number=n/> }.into_any(),
        (_, Some(rec)) => view! { <CallsTable rec/> }.into_any(),
    }
    }
}

/// The order the table shows (tracked).
fn order(rec: Recording) -> Arc<Vec<u32>> {
    rec.order.get().0
}

/// The table of calls with the file's summary.
#[component]
fn CallsTable(rec: Recording) -> impl IntoView {
    let order = rec.order;
    view! {
        <main class="calls-page" id="main" tabindex="-1" data-testid="calls" aria-labelledby="calls-title">
            <Summary rec/>
            <FilterBox rec order/>
            <Rows rec order/>
        </main>
    }
}

/// The file's summary: reading progress and Cancel, the figures, the chart,
/// the most frequent findings, what could not be read.
#[component]
fn Summary(rec: Recording) -> impl IntoView {
    let calls = Calls::expect();
    let names = move || rec.meta.with(|m| m.names.clone());
    let phase = Memo::new(move |_| rec.meta.with(|m| m.phase.clone()));
    let progress = move || {
        match phase.get() {
        Phase::Reading { bytes, total, calls: n, file } => view! {
            <div class="notice progress" data-testid="calls-progress" role="status">
                <span class="spinner" aria-hidden="true"></span>
                <span>{format!(" Reading {file} in the engine (a Web Worker): {} of {} · {}", megabytes(bytes as usize), megabytes(total as usize), count(n as usize, "call"))}</span>
                <progress max=total.max(1) value=bytes aria-label="Reading progress"></progress>
                <button type="button" class="btn small" data-testid="calls-cancel" on:click=move |_| calls::cancel(rec)>"Cancel"</button>
            </div>
        }
        .into_any(),
        Phase::Done => ().into_any(),
        Phase::Cancelled => view! {
            <div class="notice" data-testid="calls-cancelled" role="status">
                <span>"Reading was cancelled."</span>
                <button type="button" class="btn small" data-testid="calls-again" on:click=move |_| calls::read_again(calls, rec)>"Read again"</button>
            </div>
        }
        .into_any(),
        Phase::Failed(e) => view! {
            <div class="notice error" data-testid="calls-failed" role="alert">
                <span>{format!("The engine could not read the file: {e}. ")}</span>
                <button type="button" class="btn small" data-testid="calls-again" on:click=move |_| calls::read_again(calls, rec)>"Try again"</button>
            </div>
        }
        .into_any(),
    }
    };
    let done = Memo::new(move |_| phase.with(|p| *p == Phase::Done));
    let figures = Memo::new(move |_| {
        let n = rec.shown.get();
        let done = done.get();
        rec.rows.with_value(|r| Figures::of(&r[..n.min(r.len())], done))
    });
    let outcome = Memo::new(move |_| rec.meta.with(|m| m.outcome.clone()));
    view! {
        <section class="calls-summary pad" aria-label="Summary" data-testid="calls-summary">
            <h2 id="calls-title">"Calls"<span class="muted calls-names">{move || format!(" · {}", names())}</span></h2>
            {progress}
            {move || {
                let f = figures.get();
                (f.calls > 0).then(|| view! {
                    <div class="calls-figures">
                        <ul class="calls-facts" data-testid="calls-count">
                            <li><strong>{thousands(f.calls as u64)}</strong>{if f.calls == 1 { " call" } else { " calls" }}</li>
                            <li>{format!("{} with content", thousands(f.captured as u64))}</li>
                            {(f.calls > f.captured).then(|| view! {
                                <li class="warn-text">{format!("{} without (content not captured)", thousands((f.calls - f.captured) as u64))}</li>
                            })}
                            {(f.stated > 0).then(|| view! {
                                <li data-testid="calls-recorded">{format!("input tokens as recorded: {} in all{}", thousands(f.tokens),
                                    f.median.map(|m| format!(", {} per call (median)", thousands(m))).unwrap_or_default())}</li>
                            })}
                            {(f.counted_calls > 0).then(|| view! {
                                <li data-testid="calls-counted">{format!("as we count them: {} in all{}", thousands(f.counted),
                                    f.counted_median.map(|m| format!(", {} per call (median)", thousands(m))).unwrap_or_default())}</li>
                            })}
                            {(f.followers > 0).then(|| view! {
                                <li data-testid="calls-reuse" title="Each call's prompt against the previous call of its trace (or, without a trace, of its file): the tokens up to the first that differs, which a provider's prefix cache holding that call could serve (o200k_base; not rounded to a provider's cache blocks)">
                                    {format!("the previous call's cache could serve {} of the {} tokens of the {} that follow another ({})",
                                        thousands(f.reusable), thousands(f.follower_tokens), count(f.followers, "call"),
                                        calls::percent(f.reusable, f.follower_tokens))}
                                </li>
                            })}
                            <li>{count(f.findings, "finding")}</li>
                        </ul>
                        {move || done.get().then(|| view! { <Chart rec/> })}
                    </div>
                })
            }}
            {move || {
                let o = outcome.get();
                view! {
                    {(!o.capture_hints.is_empty()).then(|| view! {
                        <div class="notice warn" data-testid="calls-capture">
                            <p><strong>"Content not captured"</strong>" for some calls: the recording has the call but not its messages."</p>
                            <ul>{o.capture_hints.iter().map(|(d, h)| view! { <li>{format!("{d}: {h}")}</li> }).collect::<Vec<_>>()}</ul>
                        </div>
                    })}
                    {(!o.frequent.is_empty()).then(|| view! {
                        <details class="calls-frequent" data-testid="calls-frequent">
                            <summary>"Most frequent findings"</summary>
                            <ol>{o.frequent.iter().map(|f| view! {
                                <li>{f.message.clone()}<span class="muted">{format!(" · {}", count(f.calls as usize, "call"))}</span></li>
                            }).collect::<Vec<_>>()}</ol>
                        </details>
                    })}
                    {(o.error_count > 0).then(|| view! {
                        <details class="notice error" data-testid="calls-errors" open=true>
                            <summary>{format!("{} could not be read", count(o.error_count as usize, "line or file"))}</summary>
                            <ul class="path-list">{o.errors.iter().map(|e| view! { <li>{e.to_string()}</li> }).collect::<Vec<_>>()}</ul>
                            {(o.error_count as usize > o.errors.len()).then(|| view! {
                                <p class="muted">{format!("The first {} are listed.", thousands(o.errors.len() as u64))}</p>
                            })}
                        </details>
                    })}
                    {(!o.notes.is_empty() || o.skipped_spans > 0 || o.late_events > 0).then(|| view! {
                        <details class="calls-notes" data-testid="calls-notes">
                            <summary>"Notes"</summary>
                            <ul>
                                {(o.skipped_spans > 0).then(|| view! { <li>{format!("{} read that are not model calls (HTTP, agent, tool, workflow…)", count(o.skipped_spans as usize, "span"))}</li> })}
                                {(o.late_events > 0).then(|| view! { <li>{format!("{} came after their call (the messages were on the span too)", count(o.late_events as usize, "log event"))}</li> })}
                                {o.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect::<Vec<_>>()}
                            </ul>
                        </details>
                    })}
                }
            }}
        </section>
    }
}

/// What the summary says of the rows shown.
#[derive(Clone, Debug, Default, PartialEq)]
struct Figures {
    calls: usize,
    captured: usize,
    /// Calls that state their input tokens, their sum and median.
    stated: usize,
    tokens: u64,
    /// Once the file is read (a sort of every row's count).
    median: Option<u64>,
    /// Our count: calls counted (captured), their sum and median.
    counted_calls: usize,
    counted: u64,
    counted_median: Option<u64>,
    /// Calls that follow another of their trace (or file), their tokens,
    /// and how many of those the previous call's prefix cache could serve.
    followers: usize,
    follower_tokens: u64,
    reusable: u64,
    findings: usize,
}

impl Figures {
    /// Linear while reading; with `whole`, the median too.
    fn of(rows: &[Row], whole: bool) -> Figures {
        let mut f = Figures::default();
        for r in rows.iter().filter(|r| !r.folded) {
            f.calls += 1;
            f.captured += usize::from(r.captured);
            f.findings += r.notices as usize + r.errors as usize;
            if let Some(t) = r.input_tokens {
                f.stated += 1;
                f.tokens += t;
            }
            if let Some(c) = r.counted {
                f.counted_calls += 1;
                f.counted += c;
                if let Some(u) = r.reusable {
                    f.followers += 1;
                    f.follower_tokens += c;
                    f.reusable += u.min(c);
                }
            }
        }
        if whole && f.counted_calls > 0 {
            let mut counted: Vec<u64> = rows.iter().filter(|r| !r.folded).filter_map(|r| r.counted).collect();
            counted.sort_unstable();
            f.counted_median = counted.get(counted.len() / 2).copied();
        }
        if whole && f.stated > 0 {
            let mut tokens: Vec<u64> = rows.iter().filter(|r| !r.folded).filter_map(|r| r.input_tokens).collect();
            tokens.sort_unstable();
            f.median = tokens.get(tokens.len() / 2).copied();
        }
        f
    }
}

/// Input tokens per call (as recorded) in start order: SVG bars, each the
/// mean of a run of calls when there are more calls than bars (drawn once
/// the file is read: it sorts every row by start time).
#[component]
fn Chart(rec: Recording) -> impl IntoView {
    let bars = Memo::new(move |_| {
        let n = rec.shown.get();
        // Until the table's start order is up to date: nothing yet.
        let by_start = calls::start_order(rec, n)?;
        Some(rec.rows.with_value(|r| {
            let r = &r[..n.min(r.len())];
            let which = calls::Tokens::of(r);
            (which, calls::bars_of(r, &by_start, BARS, which))
        }))
    });
    move || {
        let Some((which, bars)) = bars.get() else { return ().into_any() };
        let max = bars.iter().map(|b| b.mean).max().unwrap_or(0);
        if max == 0 {
            return view! { <p class="muted calls-chart-none">"No input tokens are recorded for these calls, and none has its messages to count."</p> }
                .into_any();
        }
        let how = match which {
            calls::Tokens::Recorded => "as recorded",
            calls::Tokens::Counted => "as we count them",
        };
        let (w, h) = (600.0, 72.0);
        let step = w / bars.len() as f64;
        let label = format!(
            "Input tokens per call {how}, in start order: {} bars, the highest {} tokens",
            bars.len(),
            thousands(max)
        );
        let rects = bars
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let bh = if b.stated == 0 { 1.0 } else { (b.mean as f64 / max as f64 * (h - 2.0)).max(1.5) };
                let calls_of = if b.to - b.from == 1 {
                    format!("Call {} in start order", b.from + 1)
                } else {
                    format!("Calls {}–{} in start order", thousands(b.from as u64 + 1), thousands(b.to as u64))
                };
                let tip = if b.stated == 0 {
                    format!("{calls_of}: no input tokens {how}")
                } else {
                    format!(
                        "{calls_of}: {} input tokens{}",
                        thousands(b.mean),
                        if b.to - b.from > 1 { " on average" } else { "" }
                    )
                };
                view! {
                    <rect x=dec(i as f64 * step + step * 0.1) y=dec(h - bh) width=dec(step * 0.8) height=dec(bh)
                        class:none={b.stated == 0}><title>{tip}</title></rect>
                }
            })
            .collect::<Vec<_>>();
        view! {
            <figure class="calls-chart" data-testid="calls-chart">
                <svg viewBox=format!("0 0 {} {}", dec(w), dec(h)) role="img" aria-label=label.clone() preserveAspectRatio="none">
                    {rects}
                </svg>
                <figcaption class="muted">{format!("Input tokens per call ({how}), in start order · highest {}", thousands(max))}</figcaption>
            </figure>
        }
        .into_any()
    }
}

fn dec(x: f64) -> String {
    envelope::display::decimal(x, 1)
}

/// The filter box and how many rows it leaves.
#[component]
fn FilterBox(rec: Recording, order: RwSignal<calls::Order>) -> impl IntoView {
    let typed = RwSignal::new(rec.table.with_untracked(|t| t.filter.clone()));
    let asked = StoredValue::new(0u64);
    let on_input = move |ev: web_sys::Event| {
        typed.set(event_target_value(&ev));
        let seq = asked.get_value() + 1;
        asked.set_value(seq);
        leptos::task::spawn_local(async move {
            // Typing is not held up by a refilter per key.
            browser::sleep(120).await;
            if asked.try_get_value() == Some(seq) {
                let f = typed.get_untracked();
                rec.table.try_update(|t| t.filter = f);
            }
        });
    };
    let shown = move || {
        let n = order.with(|o| o.0.len());
        let all = rec.shown.get().saturating_sub(rec.meta.with(|m| m.outcome.folded));
        if n == all {
            count(all, "call")
        } else {
            format!("{} of {}", thousands(n as u64), count(all, "call"))
        }
    };
    view! {
        <div class="calls-tools pad">
            <label class="calls-filter">
                <span>"Filter"</span>
                <input type="search" data-testid="calls-filter" placeholder="provider, model, text…"
                    prop:value=move || typed.get() on:input=on_input/>
            </label>
            <span class="muted" data-testid="calls-shown" role="status">{shown}</span>
            {move || rec.sorting.get().then(|| view! {
                <span class="muted" data-testid="calls-sorting"><span class="spinner" aria-hidden="true"></span>" Sorting…"</span>
            })}
            <span class="muted calls-keys">"↑ ↓ to move, Enter to open"</span>
        </div>
    }
}

/// A column's header: its name, and a button that sorts by it.
struct Head {
    col: Col,
    name: &'static str,
    /// First click sorts descending (numbers: the largest first).
    desc_first: bool,
    class: &'static str,
}

const HEADS: &[Head] = &[
    Head { col: Col::Number, name: "#", desc_first: false, class: "c-num" },
    Head { col: Col::Start, name: "Start (UTC)", desc_first: false, class: "c-start" },
    Head { col: Col::Trace, name: "Trace", desc_first: false, class: "c-trace" },
    Head { col: Col::Provider, name: "Provider", desc_first: false, class: "c-provider" },
    Head { col: Col::Model, name: "Model", desc_first: false, class: "c-model" },
    Head { col: Col::Messages, name: "Messages", desc_first: true, class: "c-n c-msgs" },
    Head { col: Col::Input, name: "Input tokens", desc_first: true, class: "c-n c-input" },
    Head { col: Col::Counted, name: "Counted", desc_first: true, class: "c-n c-counted" },
    Head { col: Col::Duration, name: "Duration", desc_first: true, class: "c-n c-dur" },
    Head { col: Col::Findings, name: "Findings", desc_first: true, class: "c-n c-find" },
    Head { col: Col::Text, name: "Last user text", desc_first: false, class: "c-text" },
];

/// The table: a header row of sort buttons, and the rows near the viewport
/// between two spacers of the others' height.
#[component]
fn Rows(rec: Recording, order: RwSignal<calls::Order>) -> impl IntoView {
    let navigate = use_navigate();
    let place = rec.place.get_value();
    let scroller = NodeRef::<leptos::html::Div>::new();
    let top = RwSignal::new(place.scroll_top);
    let height = RwSignal::new(browser::viewport().1);
    let focus = RwSignal::new(place.focus);
    let ro = crate::hooks::use_resize_observer(move |sized| {
        if let Some((_, h)) = sized.last() {
            height.set(*h);
        }
    });
    // Where the user left it: scrolled back when the table is there.
    Effect::new(move |done: Option<bool>| {
        if done == Some(true) {
            return true;
        }
        let Some(el) = scroller.get() else { return false };
        ro.observe(&el);
        el.set_scroll_top(place.scroll_top as i32);
        if place.from_call {
            // Back from a call: its row has the focus (a keyboard user goes on from there).
            rec.place.try_update_value(|p| p.from_call = false);
            leptos::task::spawn_local(async move {
                browser::next_frame().await;
                browser::next_frame().await;
                let Some(el) = scroller.try_get_untracked().flatten() else { return };
                if let Ok(Some(link)) = el.query_selector(&format!("tr[data-pos=\"{}\"] a", place.focus)) {
                    browser::focus(&link);
                }
            });
        }
        true
    });
    let range = Memo::new(move |_| {
        let n = order.with(|o| o.0.len());
        let first = ((top.get() / ROW_H).floor().max(0.0) as usize).saturating_sub(OVERSCAN).min(n);
        let visible = (height.get() / ROW_H).ceil() as usize + 2 * OVERSCAN;
        (first, (first + visible).min(n))
    });
    let rows_shown = move || {
        let (a, b) = range.get();
        let o = order.get().0;
        // A row changed in place (counted once the engine's tokenizer is
        // ready; once the whole file is read, a request recorded twice: the
        // call kept has its notice more) is a new item.
        rec.rows.with_value(|r| {
            (a..b)
                .map(|p| {
                    let i = o[p];
                    let version = r
                        .get(i as usize)
                        .map_or((0, None), |r| (u64::from(r.notices) + u64::from(r.errors), r.counted));
                    (p, i, version)
                })
                .collect::<Vec<_>>()
        })
    };
    // The focusable row: the one focused last when it is rendered, else the first rendered.
    let tab_pos = Memo::new(move |_| {
        let (a, b) = range.get();
        let f = focus.get();
        if f >= a && f < b {
            f
        } else {
            a
        }
    });
    let on_scroll = move |_| {
        if let Some(el) = scroller.try_get_untracked().flatten() {
            let t = el.scroll_top() as f64;
            top.set(t);
            rec.place.try_update_value(|p| p.scroll_top = t);
        }
    };
    // Moves the focus to row `q` (a position), scrolling it into view.
    let move_to = move |q: usize| {
        let n = order.with_untracked(|o| o.0.len());
        if n == 0 {
            return;
        }
        let q = q.min(n - 1);
        focus.set(q);
        rec.place.try_update_value(|p| p.focus = q);
        let Some(el) = scroller.try_get_untracked().flatten() else { return };
        let head = el.query_selector("thead").ok().flatten().map_or(0.0, |h| h.client_height() as f64);
        let (t, h) = (el.scroll_top() as f64, el.client_height() as f64);
        let y = q as f64 * ROW_H;
        if y < t {
            el.set_scroll_top(y as i32);
        } else if y + ROW_H > t + h - head {
            el.set_scroll_top((y + ROW_H - h + head).ceil() as i32);
        }
        top.set(el.scroll_top() as f64);
        leptos::task::spawn_local(async move {
            browser::next_frame().await;
            let Some(el) = scroller.try_get_untracked().flatten() else { return };
            if let Ok(Some(link)) = el.query_selector(&format!("tr[data-pos=\"{q}\"] a")) {
                browser::focus(&link);
            }
        });
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let page = ((height.get_untracked() / ROW_H) as usize).saturating_sub(2).max(1);
        let at = focus.get_untracked();
        let n = order.with_untracked(|o| o.0.len());
        let q = match ev.key().as_str() {
            "ArrowDown" => at + 1,
            "ArrowUp" => at.saturating_sub(1),
            "PageDown" => at + page,
            "PageUp" => at.saturating_sub(page),
            "Home" => 0,
            "End" => n.saturating_sub(1),
            _ => return,
        };
        ev.prevent_default();
        move_to(q);
    };
    let sort_by = move |h: &'static Head| {
        rec.table.update(|t| {
            if t.sort == h.col {
                t.ascending = !t.ascending;
            } else {
                *t = Table { sort: h.col, ascending: !h.desc_first, filter: std::mem::take(&mut t.filter) };
            }
        });
    };
    let heads = HEADS
        .iter()
        .map(|h| {
            let sorted = move || {
                rec.table.with(|t| match (t.sort == h.col, t.ascending) {
                    (false, _) => "none",
                    (true, true) => "ascending",
                    (true, false) => "descending",
                })
            };
            view! {
                <th scope="col" class=h.class aria-sort=sorted>
                    <button type="button" class="sort" data-col=h.name on:click=move |_| sort_by(h)>
                        {h.name}
                        <span class="sort-mark" aria-hidden="true">{move || match sorted() { "ascending" => "▲", "descending" => "▼", _ => "" }}</span>
                    </button>
                </th>
            }
        })
        .collect::<Vec<_>>();
    let total = move || order.with(|o| o.0.len()) + 1;
    let pads = move || {
        let (a, b) = range.get();
        let n = order.with(|o| o.0.len());
        (a as f64 * ROW_H, (n - b) as f64 * ROW_H)
    };
    let empty = move || {
        (order.with(|o| o.0.is_empty()) && rec.shown.get() > 0).then(|| {
            view! { <p class="muted pad" data-testid="calls-no-match">"No call matches the filter."</p> }
        })
    };
    view! {
        <div class="calls-scroll" node_ref=scroller on:scroll=on_scroll data-testid="calls-scroll">
            <table class="calls-table" data-testid="calls-table" aria-rowcount=total aria-labelledby="calls-title">
                <thead><tr aria-rowindex="1">{heads}</tr></thead>
                <tbody on:keydown=on_key>
                    <tr class="spacer" aria-hidden="true" style:height=move || format!("{}px", pads().0)></tr>
                    <For each=rows_shown key=|item| *item let:item>
                        {
                            let (p, i, _) = item;
                            let row = rec.rows.with_value(|r| r.get(i as usize).cloned()).unwrap_or_default();
                            let navigate = navigate.clone();
                            view! { <CallRow row pos=p tab=Signal::derive(move || tab_pos.get() == p)
                                on_focus=Callback::new(move |_| { focus.set(p); rec.place.try_update_value(|pl| pl.focus = p); })
                                on_open=Callback::new(move |n: u32| navigate(&format!("/calls/{n}"), Default::default()))/> }
                        }
                    </For>
                    <tr class="spacer" aria-hidden="true" style:height=move || format!("{}px", pads().1)></tr>
                </tbody>
            </table>
            {empty}
        </div>
    }
}

/// One row of the table: its number is the link that opens the call.
#[component]
fn CallRow(
    row: Row,
    /// Its position in the table's order.
    pos: usize,
    /// Whether its link is the table's tab stop.
    tab: Signal<bool>,
    on_focus: Callback<()>,
    /// Opens call `n` (1-based): a click anywhere on the row.
    on_open: Callback<u32>,
) -> impl IntoView {
    let n = row.index + 1;
    let trace = row.at.trace_id.clone().unwrap_or_default();
    let short: String = trace.chars().take(8).collect();
    let findings = u64::from(row.notices) + u64::from(row.errors);
    let text = match (&row.last_user, row.captured, row.messages) {
        (_, false, _) => view! {
            <span class="badge warn" title="The recording has this call but not its messages: see the summary for how to capture them">"content not captured"</span>
        }
        .into_any(),
        (_, true, 0) => view! { <span class="badge" title="The request has no messages">"empty"</span> }.into_any(),
        (Some(t), true, _) => view! { <span title=t.clone()>{t.clone()}</span> }.into_any(),
        (None, true, _) => view! { <span class="muted">"(no user text)"</span> }.into_any(),
    };
    let counted_tip = match (row.counted, row.reusable) {
        (Some(c), Some(r)) => format!(
            "{} input tokens as counted (o200k_base); the previous call of its {} sent the first {} too",
            thousands(c),
            if row.at.trace_id.is_some() { "trace" } else { "file" },
            thousands(r.min(c))
        ),
        (Some(c), None) => format!("{} input tokens as counted (o200k_base)", thousands(c)),
        (None, _) => "Not counted: the recording does not hold the messages".to_string(),
    };
    let label = format!(
        "Call {n}{}{}",
        row.model.as_deref().map(|m| format!(", {m}")).unwrap_or_default(),
        if row.captured { "" } else { ", content not captured" }
    );
    view! {
        <tr data-pos=pos data-index=row.index aria-rowindex=pos + 2 class:uncaptured=!row.captured
            on:click=move |ev: web_sys::MouseEvent| {
                // The link opens by itself; elsewhere on the row, a click opens too.
                let on_link = ev.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
                    .is_some_and(|e| e.closest("a").ok().flatten().is_some());
                if !on_link && !browser::has_selection() {
                    on_open.run(n);
                }
            }>
            <td class="c-num"><a href=href(&format!("/calls/{n}")) class="call-link" aria-label=label
                tabindex=move || if tab.get() { "0" } else { "-1" } on:focus=move |_| on_focus.run(())>{n}</a></td>
            <td class="c-start">{row.start_ns.map_or_else(|| "—".to_string(), calls::clock)}</td>
            <td class="c-trace mono" title=trace.clone()>{if short.is_empty() { "—".to_string() } else { short }}</td>
            <td class="c-provider">{row.provider.clone().unwrap_or_else(|| "—".into())}</td>
            <td class="c-model" title=row.model.clone().unwrap_or_default()>{row.model.clone().unwrap_or_else(|| "—".into())}</td>
            <td class="c-n c-msgs">{row.messages}</td>
            <td class="c-n c-input">{row.input_tokens.map_or_else(|| "—".to_string(), thousands)}</td>
            <td class="c-n c-counted" title=counted_tip>{row.counted.map_or_else(|| "—".to_string(), thousands)}</td>
            <td class="c-n c-dur">{row.duration_ns.map_or_else(|| "—".to_string(), calls::duration)}</td>
            <td class="c-n c-find" class:bad={row.errors > 0}
                title=format!("{} · {}", count(row.notices as usize, "notice"), count(row.errors as usize, "error"))>{findings}</td>
            <td class="c-text">{text}</td>
        </tr>
    }
}

/// One call, fetched from the engine.
#[derive(Clone)]
enum Fetched {
    Loading,
    Ready(Arc<Shown>),
    /// The engine no longer holds the recording (or failed): why.
    Gone(String),
}

/// A call as the page shows it.
struct Shown {
    call: engine::Call,
    /// Its request, when captured and valid.
    doc: Option<Arc<Doc>>,
    /// Why the request made is not a valid envelope.
    invalid: Vec<envelope::Diagnostic>,
    /// The model's reply as recorded.
    output: Option<Arc<Doc>>,
}

/// A call's label as a document's source (downloads are named after it).
fn source_of(row: &Row) -> Source {
    let stem = row.at.file.rsplit(['/', '\\']).next().unwrap_or(&row.at.file);
    let stem = stem.split('.').next().unwrap_or(stem);
    Source::File(format!("{stem}-call-{}", row.index + 1))
}

fn shown(call: engine::Call) -> Shown {
    let (doc, invalid) = match call.envelope.as_deref().map(envelope::parse) {
        Some(Ok(loaded)) => (Some(Doc::new(source_of(&call.row), loaded)), vec![]),
        Some(Err(errors)) => (None, errors),
        None => (None, vec![]),
    };
    let output = call
        .output
        .as_deref()
        .and_then(|t| envelope::parse(t).ok())
        .map(|loaded| Doc::new(Source::File("output".into()), loaded));
    Shown { call, doc, invalid, output }
}

/// `/calls/:n`: call `n` in the viewer, with the bar to move between calls.
#[component]
fn CallPage(rec: Recording, number: u32) -> impl IntoView {
    let session = Session::expect();
    let calls = Calls::expect();
    let index = number.saturating_sub(1);
    let fetched = RwSignal::new(Fetched::Loading);
    let doc = RwSignal::new(None::<Arc<Doc>>);
    let known = rec.rows.with_value(|r| (index as usize) < r.len());
    if known {
        leptos::task::spawn_local(async move {
            let got = match engine::call(rec.number, index).await {
                Ok(Reply::Call(c)) => Fetched::Ready(Arc::new(shown(*c))),
                Ok(Reply::Gone { message }) => Fetched::Gone(message),
                Ok(_) => Fetched::Gone("the engine answered something else than the call".into()),
                Err(e) => Fetched::Gone(e),
            };
            if let Fetched::Ready(s) = &got {
                if let Some(d) = &s.doc {
                    doc.try_set(Some(d.clone()));
                    session.show(d.clone());
                }
            }
            fetched.try_set(got);
        });
    } else {
        fetched.set(Fetched::Gone(format!(
            "there is no call {number} in {}",
            rec.meta.with_untracked(|m| m.names.clone())
        )));
    }
    // The reply, after the conversation's last message.
    let output = move || match fetched.get() {
        Fetched::Ready(s) => s.output.clone().map(|o| (o, s.call.finish_reasons.clone())),
        _ => None,
    };
    provide_context(After(ViewFn::from(move || {
        view! { {move || output().map(|(o, reasons)| view! { <Output doc=o reasons/> })} }
    })));
    // Where it stands in the table's order.
    let place = Memo::new(move |_| {
        let o = order(rec);
        let at = o.iter().position(|&i| i == index);
        let prev = at.and_then(|p| p.checked_sub(1)).map(|p| o[p]);
        let next = at.and_then(|p| o.get(p + 1).copied());
        (at, o.len(), prev, next)
    });
    // Back in the table, this call is the focused row.
    Effect::new(move |_| {
        if let (Some(p), ..) = place.get() {
            rec.place.try_update_value(|pl| {
                pl.focus = p;
                pl.from_call = true;
                let y = p as f64 * ROW_H;
                if y < pl.scroll_top || y > pl.scroll_top + browser::viewport().1 * 0.6 {
                    pl.scroll_top = (y - ROW_H * 3.0).max(0.0);
                }
            });
        }
    });
    let link = |n: Option<u32>, text: &'static str, testid: &'static str| match n {
        Some(i) => view! { <a href=href(&format!("/calls/{}", i + 1)) class="btn small" data-testid=testid>{text}</a> }
            .into_any(),
        None => {
            view! { <span class="btn small disabled" aria-disabled="true" data-testid=testid>{text}</span> }.into_any()
        }
    };
    let comparing = RwSignal::new(None::<String>);
    let navigate = use_navigate();
    let compare_previous = move |_| {
        let prev = rec.rows.with_value(|r| {
            let o = order(rec);
            calls::previous(&r[..rec.shown.get_untracked().min(r.len())], &o, index)
        });
        let Some(prev) = prev else { return };
        let navigate = navigate.clone();
        comparing.set(Some("Fetching both calls from the engine…".into()));
        leptos::task::spawn_local(async move {
            let this = match fetched.get_untracked() {
                Fetched::Ready(s) => s.call.envelope.clone(),
                _ => None,
            };
            let before = match engine::call(rec.number, prev).await {
                Ok(Reply::Call(c)) => c.envelope,
                _ => None,
            };
            match (before, this) {
                (Some(b), Some(a)) => {
                    compare::seed(
                        Pick::Text(format!("call {}", prev + 1), b.into()),
                        Pick::Text(format!("call {number}"), a.into()),
                    );
                    comparing.try_set(None);
                    navigate("/diff", Default::default());
                }
                (None, _) => {
                    comparing.try_set(Some(format!("Call {} has no request to compare (its content was not captured, or the engine no longer holds it).", prev + 1)));
                }
                (_, None) => {
                    comparing.try_set(Some("This call has no request to compare.".into()));
                }
            }
        });
    };
    let has_previous = move || {
        rec.rows.with_value(|r| {
            let o = order(rec);
            calls::previous(&r[..rec.shown.get().min(r.len())], &o, index).is_some()
        })
    };
    let position = move || match place.get() {
        (Some(p), n, ..) => format!("Call {} of {}", thousands(p as u64 + 1), thousands(n as u64)),
        (None, ..) => format!("Call {number} (not in the filtered list)"),
    };
    let details = move || {
        match fetched.get() {
        Fetched::Loading => view! {
            <p class="muted pad" role="status" data-testid="call-loading"><span class="spinner" aria-hidden="true"></span>" Fetching the call from the engine…"</p>
        }
        .into_any(),
        Fetched::Gone(why) => view! {
            <div class="notice error pad-x" role="alert" data-testid="call-gone">
                <span>{format!("This call cannot be shown: {why}. ")}</span>
                <button type="button" class="btn small" on:click=move |_| calls::read_again(calls, rec)>"Read the file again"</button>
            </div>
        }
        .into_any(),
        Fetched::Ready(s) => call_notes(&s).into_any(),
    }
    };
    view! {
        <div class="call-page">
            <nav class="call-bar" aria-label="Calls" data-testid="call-bar">
                <strong data-testid="call-position">{position}</strong>
                {move || { let (_, _, p, _) = place.get(); link(p, "‹ Previous", "call-prev") }}
                {move || { let (_, _, _, n) = place.get(); link(n, "Next ›", "call-next") }}
                <a href=href("/calls") class="btn small" data-testid="call-back">"Back to calls"</a>
                <button type="button" class="btn small" data-testid="call-compare" disabled=move || !has_previous()
                    title="The previous call of the same trace, else the one before it in the list, against this one (Compare)"
                    on:click=compare_previous>"Compare with the previous call"</button>
                {move || fetched.with(|f| match f { Fetched::Ready(s) => Some(call_facts(&s.call)), _ => None })}
            </nav>
            {move || comparing.get().map(|c| view! { <p class="notice pad-x" role="status" data-testid="call-comparing">{c}</p> })}
            {details}
            {move || doc.with(Option::is_some).then(|| view! { <Viewer doc/> })}
        </div>
    }
}

/// Provider, model, how it was recorded, when, how long, tokens.
fn call_facts(c: &engine::Call) -> impl IntoView {
    let r = &c.row;
    let mut facts: Vec<String> = Vec::new();
    facts.extend(r.provider.clone());
    facts.extend(r.model.clone());
    facts.push(r.dialect.clone());
    facts.extend(r.start_ns.map(calls::clock));
    facts.extend(r.duration_ns.map(calls::duration));
    if let Some(t) = c.usage.input_tokens {
        facts.push(format!("{} input tokens", thousands(t)));
    }
    if let Some(t) = r.counted {
        facts.push(format!("{} counted", thousands(t)));
    }
    if let Some(t) = r.reusable {
        facts.push(format!("{} sent by the previous call too", thousands(t)));
    }
    if let Some(t) = c.usage.output_tokens {
        facts.push(format!("{} output tokens", thousands(t)));
    }
    let at = r.at.to_string();
    view! {
        <span class="muted call-facts" data-testid="call-facts" title=at>{facts.join(" · ")}</span>
    }
}

/// What is said above the viewer: not captured, invalid, the span's error,
/// the recording's fields with no place in the envelope.
fn call_notes(s: &Shown) -> impl IntoView {
    let c = &s.call;
    let not_captured = c.capture_hint.clone().map(|how| {
        view! {
            <div class="notice warn" data-testid="call-not-captured">
                <p><strong>"Content not captured."</strong>" The recording has this call but not its messages."</p>
                <p>{format!("To capture them: {how}.")}</p>
            </div>
        }
    });
    let invalid = (!s.invalid.is_empty()).then(|| {
        let list = s.invalid.iter().map(|d| view! { <li>{d.to_string()}</li> }).collect::<Vec<_>>();
        let text = c.envelope.clone().unwrap_or_default();
        view! {
            <div class="notice error" data-testid="call-invalid">
                <p>"The request recorded does not make a valid envelope:"</p>
                <ul class="path-list">{list}</ul>
                <details><summary>"The envelope made"</summary><pre class="call-json">{text}</pre></details>
            </div>
        }
    });
    let status = c.error_status.clone().map(|e| {
        view! { <p class="notice error" data-testid="call-status">{format!("The call failed: {e}")}</p> }
    });
    let notices = (!c.notices.is_empty() || !c.errors.is_empty()).then(|| {
        let n = c.notices.len() + c.errors.len();
        let list = c
            .errors
            .iter()
            .map(|d| view! { <li class="bad-text">{d.to_string()}</li> }.into_any())
            .chain(c.notices.iter().map(|x| {
                let path = if x.path.is_empty() { String::new() } else { format!("{}: ", x.path) };
                view! { <li>{format!("{path}{}", x.message)}</li> }.into_any()
            }))
            .collect::<Vec<_>>();
        view! {
            <details class="notice" data-testid="call-findings">
                <summary>{format!("{}: what the recording holds that the envelope does not", count(n, "finding"))}</summary>
                <ul class="path-list">{list}</ul>
            </details>
        }
    });
    view! { <div class="call-notes">{not_captured}{invalid}{status}{notices}</div> }
}

/// The model's reply as recorded, after the conversation: output, not part
/// of the request (not in the export).
#[component]
fn Output(doc: Arc<Doc>, reasons: Vec<String>) -> impl IntoView {
    let messages = doc
        .envelope
        .messages
        .iter()
        .enumerate()
        .map(|(mi, m)| {
            let reason = reasons.get(mi).cloned();
            let segments = m
                .segments
                .iter()
                .enumerate()
                .map(|(sj, s)| {
                    let at = envelope::calls::At { message: mi, segment: sj };
                    view! { <div class="seg-slot"><SegmentView segment=s.clone() at/></div> }
                })
                .collect::<Vec<_>>();
            view! {
                <li class=format!("msg role-{} output-msg", m.role.as_str()) data-testid="output-message">
                    <header class="msg-head">
                        <h3 class="role">{m.role.as_str()}</h3>
                        <span class="badge warn">"output"</span>
                        {reason.map(|r| view! { <span class="badge" title="Finish reason, as recorded">{r}</span> })}
                    </header>
                    <div class="msg-body">{segments}</div>
                </li>
            }
        })
        .collect::<Vec<_>>();
    view! {
        <section class="call-output" aria-labelledby="output-title" data-testid="call-output">
            <h2 id="output-title" class="output-title">"The model's reply, as recorded"</h2>
            <p class="muted">"Output, not part of the request: it is not in the export."</p>
            <Provider value=CurrentDoc(doc.clone())>
                <ol class="output-list">{messages}</ol>
            </Provider>
        </section>
    }
}

crate::split::split_view!(CALLS, "Calls page", calls_view, || view! { <CallsPage/> });
