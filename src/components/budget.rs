//! The Budget tab: exact o200k_base counts, PromptPoet's truncation to a
//! limit, what each kind of context costs, the cache-hit rate over turns,
//! and the kept prompt as string, tokens, messages and parts.

use std::sync::Arc;

use crate::components::icons::{Ico, Icon};
use envelope::budget::breakpoints::{breakpoints, BreakAt};
use envelope::budget::{cache_curve, category_totals, mean_hit, truncate_report, turn_ends, TurnPoint};
use envelope::export::to_pretty;
use envelope::truncate::Limit;
use leptos::prelude::*;

use crate::browser;
use crate::budget::{truncated_request, Budget, Counted, Counting};
use crate::components::json_view::JsonView;
use crate::doc::Doc;

use envelope::display::decimal;
pub(crate) use envelope::display::thousands as fmt_int;

fn pct(x: f64) -> String {
    format!("{}%", (x * 100.0).round() as i64)
}

/// The Budget tab of the protocol panel (for the document of the [`Budget`] context).
#[component]
pub fn BudgetPanel() -> impl IntoView {
    let budget = Budget::expect();
    // Counts whenever the panel is showing a document not counted yet: the
    // first one, one that arrives after the panel, and each new one.
    Effect::new(move |_| {
        budget.doc.track();
        if matches!(budget.counting.get(), Counting::Idle) {
            budget.ensure_counted();
        }
    });
    view! {
        <div class="budget" data-testid="budget">
            {move || match budget.counting.get() {
                Counting::Idle | Counting::Running => view! {
                    <p class="muted pad" data-testid="budget-loading">"Counting the OpenAI Chat request's o200k_base tokens in a worker…"</p>
                }.into_any(),
                Counting::Failed(e) => view! {
                    <div class="notice error pad" data-testid="budget-error">
                        <p>{format!("The tokenizer could not run: {e}")}</p>
                        <button type="button" class="btn small" data-testid="budget-retry"
                            on:click=move |_| budget.retry()>"Try again"</button>
                    </div>
                }.into_any(),
                Counting::Done(c) => match budget.doc.get() {
                    Some(d) => view! { <BudgetView doc=d counted=c/> }.into_any(),
                    None => ().into_any(),
                },
            }}
        </div>
    }
}

#[component]
fn BudgetView(doc: Arc<Doc>, counted: Arc<Counted>) -> impl IntoView {
    let budget = Budget::expect();
    let total = counted.total;
    let (limit, step) = (budget.limit, budget.step);
    // The slider reaches the limit a document starts with (a model's
    // context window is often above the request's total) and the one set.
    let slider_max = total.max(Budget::default_limit(&doc, total)).max(limit.get_untracked()).max(1);
    let on_limit = move |ev: web_sys::Event| {
        if let Ok(v) = event_target_value(&ev).trim().parse::<u64>() {
            budget.set(v, step.get_untracked());
        }
    };
    let on_step = move |ev: web_sys::Event| {
        if let Ok(v) = event_target_value(&ev).trim().parse::<u64>() {
            budget.set(limit.get_untracked(), v);
        }
    };
    let plan = budget.plan;
    let summary = move || {
        plan.get().map(|p| match p {
            Ok(p) => view! {
                <div class="budget-summary" data-testid="budget-summary">
                    <div><span class="label">"Before"</span><strong>{fmt_int(p.total)}</strong></div>
                    <div><span class="label">"Target to remove"</span><strong>{fmt_int(p.target)}</strong></div>
                    <div><span class="label">"After"</span><strong data-testid="kept-tokens">{fmt_int(p.kept_tokens)}</strong></div>
                    <div><span class="label">"Limit"</span><strong>{fmt_int(limit.get())}</strong></div>
                    <div><span class="label">"Dropped parts"</span><strong>{p.kept.iter().filter(|k| !**k).count()}</strong></div>
                </div>
            }
            .into_any(),
            Err(e) => view! {
                <div class="budget-summary" data-testid="budget-summary">
                    <div><span class="label">"Before"</span><strong>{fmt_int(total)}</strong></div>
                    <div><span class="label">"Limit"</span><strong>{fmt_int(limit.get())}</strong></div>
                </div>
                <p class="notice error" data-testid="budget-error">{e.to_string()}</p>
            }.into_any(),
        })
    };
    let estimate = counted.parts.iter().any(|p| p.estimate);
    view! {
        <div class="budget-body">
            <p class="muted small">
                {format!(
                    "The OpenAI Chat request (whatever the Export tab shows): {} o200k_base tokens in {} parts, counted in a worker in {} ms ({} ms in the tokenizer).",
                    fmt_int(total), counted.parts.len(), decimal(counted.elapsed_ms, 0), decimal(counted.worker_ms, 0)
                )}
                {estimate.then_some(" Images count a fixed 85 tokens each (an estimate).")}
            </p>
            <div class="budget-controls">
                <label>"Token limit "
                    <input type="number" min="1" data-testid="limit-input" prop:value=move || limit.get().to_string() on:change=on_limit/>
                </label>
                <input type="range" min="1" max=slider_max.to_string() data-testid="limit-slider" aria-label="Token limit"
                    prop:value=move || limit.get().min(slider_max).to_string() on:input=on_limit/>
                <label>"Step "
                    <input type="number" min="1" data-testid="step-input" prop:value=move || step.get().to_string() on:change=on_step/>
                </label>
            </div>
            {summary}
            <ContextBar doc=doc.clone() counted=counted.clone()/>
            <CacheChart doc=doc.clone() counted=counted.clone()/>
            <CacheBreakpoints doc=doc.clone() counted=counted.clone()/>
            <PartsTable counted=counted.clone()/>
            <Inspect doc=doc.clone() counted=counted.clone()/>
        </div>
    }
}

/// A stacked bar of the kept tokens by category, against the limit.
#[component]
fn ContextBar(doc: Arc<Doc>, counted: Arc<Counted>) -> impl IntoView {
    let budget = Budget::expect();
    let bar = move || {
        let kept = match budget.plan.get() {
            Some(Ok(p)) => p.kept,
            _ => vec![true; counted.parts.len()],
        };
        let totals = category_totals(&doc.envelope, &counted.parts, &kept);
        let limit = budget.limit.get();
        let scale = (counted.total.max(limit)).max(1) as f64;
        let segments: Vec<AnyView> = totals
            .iter()
            .filter(|(_, t)| *t > 0)
            .map(|&(c, t)| {
                let w = t as f64 / scale * 100.0;
                view! { <span class=format!("bar-seg cat-{}", c.slug()) style=format!("width:{}%", decimal(w, 3)) title=format!("{}: {} tokens", c.label(), fmt_int(t))></span> }
                    .into_any()
            })
            .collect();
        let legend: Vec<AnyView> = totals
            .iter()
            .filter(|(_, t)| *t > 0)
            .map(|&(c, t)| {
                view! { <li><span class=format!("swatch cat-{}", c.slug())></span>{c.label()}" "<span class="muted">{fmt_int(t)}</span></li> }.into_any()
            })
            .collect();
        let marker = (limit as f64 / scale * 100.0).min(100.0);
        view! {
            <div class="ctx-bar" data-testid="context-bar">
                {segments}
                <span class="limit-mark" style=format!("left:{}%", decimal(marker, 3)) title=format!("limit {}", fmt_int(limit))></span>
            </div>
            <ul class="legend">{legend}</ul>
        }
    };
    view! {
        <section class="budget-section">
            <h3>"Context by category (kept)"</h3>
            {bar}
        </section>
    }
}

/// The cache-hit rate per turn: step 1 against the chosen step.
#[component]
fn CacheChart(doc: Arc<Doc>, counted: Arc<Counted>) -> impl IntoView {
    let budget = Budget::expect();
    let ends = turn_ends(&doc.envelope);
    let curves = Memo::new(move |_| {
        let (limit, step) = budget.settled.get();
        let limit = Limit::Tokens(limit.max(1));
        let one = cache_curve(&counted.parts, &counted.part_ids, &ends, limit, 1);
        let chosen = cache_curve(&counted.parts, &counted.part_ids, &ends, limit, step.max(1));
        (one, chosen, step.max(1))
    });
    let chart = move || {
        curves.with(|(one, chosen, step)| {
            if one.len() < 2 {
                return view! { <p class="muted">"Fewer than two turns: nothing to compare."</p> }.into_any();
            }
            let (w, h, pad) = (560.0, 150.0, 28.0);
            let n = one.len();
            let x = move |i: usize| pad + (w - 2.0 * pad) * i as f64 / (n - 1) as f64;
            let y = move |v: f64| h - pad - (h - 2.0 * pad) * v;
            let line = |pts: &[TurnPoint]| {
                pts.iter().enumerate().skip(1).map(|(i, p)| format!("{},{}", decimal(x(i), 1), decimal(y(p.hit()), 1))).collect::<Vec<_>>().join(" ")
            };
            let unmet = chosen.iter().filter(|p| !p.met).count();
            let (m1, mk) = (mean_hit(one), mean_hit(chosen));
            view! {
                <svg class="chart" viewBox=format!("0 0 {w} {h}") role="img"
                    aria-label=format!("Cache hit rate per turn: step 1 mean {}, step {step} mean {}", pct(m1), pct(mk))>
                    <line x1=pad y1=y(0.0) x2=w - pad y2=y(0.0) class="axis"/>
                    <line x1=pad y1=y(1.0) x2=w - pad y2=y(1.0) class="grid"/>
                    <line x1=pad y1=y(0.5) x2=w - pad y2=y(0.5) class="grid"/>
                    <text x=4 y=y(1.0) + 4.0 class="tick">"100%"</text>
                    <text x=4 y=y(0.5) + 4.0 class="tick">"50%"</text>
                    <text x=4 y=y(0.0) + 4.0 class="tick">"0%"</text>
                    <text x=pad y=h - 6.0 class="tick">"turn 1"</text>
                    <text x=w - pad - 40.0 y=h - 6.0 class="tick">{format!("turn {}", n - 1)}</text>
                    <polyline points=line(one) class="series s1"/>
                    {(*step > 1).then(|| view! { <polyline points=line(chosen) class="series sk"/> })}
                </svg>
                <ul class="legend" data-testid="cache-legend">
                    {if *step > 1 {
                        view! {
                            <li><span class="swatch s1"></span>{format!("step 1: mean {}", pct(m1))}</li>
                            <li><span class="swatch sk"></span>{format!("step {step} (chosen): mean {}", pct(mk))}</li>
                        }.into_any()
                    } else {
                        view! { <li><span class="swatch s1"></span>{format!("step 1 (chosen): mean {}", pct(m1))}</li> }.into_any()
                    }}
                    {(unmet > 0).then(|| view! { <li class="muted">{format!("{unmet} turn(s) cannot meet the limit (shown untruncated)")}</li> })}
                </ul>
            }
            .into_any()
        })
    };
    view! {
        <section class="budget-section" data-testid="cache-chart">
            <h3>"Prefix-cache hits over turns"</h3>
            <p class="muted small">"hit(t) = common token prefix of the kept prompts at turns t−1 and t ÷ kept tokens at t."</p>
            {chart}
        </section>
    }
}

/// The document's cache breakpoints (the fidelity extension's
/// `cacheControl`), in the order a provider caches the request: where each
/// stands, its ttl, and the tokens up to it (what a cache hit there saves).
/// Nothing when there are none.
#[component]
fn CacheBreakpoints(doc: Arc<Doc>, counted: Arc<Counted>) -> impl IntoView {
    let list = breakpoints(&doc.envelope, &counted.parts);
    (!list.is_empty()).then(|| {
        let rows: Vec<AnyView> = list
            .into_iter()
            .map(|b| {
                let at = match &b.at {
                    BreakAt::Tool { name, .. } => format!("tool {name}"),
                    BreakAt::Segment { message, segment } => {
                        let id = doc.envelope.messages.get(*message).map_or("", |m| m.id.as_str());
                        format!("message {id} · segment {}", segment + 1)
                    }
                };
                let tokens = format!("{}{}", if b.estimate { "≈ " } else { "" }, fmt_int(b.tokens));
                view! {
                    <tr data-testid="breakpoint">
                        <td>{at}</td>
                        <td>{b.ttl.unwrap_or_else(|| "5m (default)".into())}</td>
                        <td class="num">{tokens}</td>
                    </tr>
                }
                .into_any()
            })
            .collect();
        view! {
            <section class="budget-section" data-testid="cache-breakpoints">
                <h3>"Cache breakpoints"</h3>
                <p class="muted small">"The provider caches the request up to each breakpoint (tools, then system, then messages): a cache hit there saves these tokens (o200k_base counts of what the export sends; ≈: images or uncounted blocks before it)."</p>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Cache breakpoints">
                    <table class="parts">
                        <thead><tr><th>"Where"</th><th>"TTL"</th><th>"Tokens up to it"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </section>
        }
    })
}

/// Every part: tokens, priority, kept or dropped.
#[component]
fn PartsTable(counted: Arc<Counted>) -> impl IntoView {
    let budget = Budget::expect();
    let total = counted.parts.len();
    // Rows are rendered a page at a time (at 100,000 parts, one table of
    // every row costs seconds of the main thread).
    let shown = RwSignal::new(PARTS_PAGE.min(total));
    // One slot per page, rendered once when "show more" reaches it.
    let pages: Vec<AnyView> = (0..total.div_ceil(PARTS_PAGE))
        .map(|k| {
            let start = k * PARTS_PAGE;
            let on = Memo::new(move |_| shown.get() > start);
            let counted = counted.clone();
            (move || on.get().then(|| part_rows(&counted, budget, start..(start + PARTS_PAGE).min(total)))).into_any()
        })
        .collect();
    let more = move || {
        let left = total - shown.get();
        (left > 0).then(|| {
            let next = left.min(PARTS_PAGE);
            view! {
                <button type="button" class="btn small" data-testid="parts-more"
                    on:click=move |_| shown.update(|n| *n = (*n + PARTS_PAGE).min(total))>
                    {format!("Show {} more parts ({} not shown)", fmt_int(next as u64), fmt_int(left as u64))}
                </button>
            }
        })
    };
    view! {
        <section class="budget-section">
            <h3>"Parts"</h3>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Parts">
                <table class="parts" data-testid="parts-table">
                    <thead><tr><th>"Part"</th><th>"Role"</th><th>"Priority"</th><th>"Tokens"</th><th>"State"</th></tr></thead>
                    <tbody>{pages}</tbody>
                </table>
            </div>
            {more}
        </section>
    }
}

/// Parts-table rows rendered per "show more".
const PARTS_PAGE: usize = 500;

/// The rows of the parts `range`.
fn part_rows(counted: &Counted, budget: Budget, range: std::ops::Range<usize>) -> Vec<AnyView> {
    counted.parts[range.clone()]
        .iter()
        .zip(range)
        .map(|(p, i)| {
            // The part's own flag: a re-plan touches only the rows that flip.
            let kept = move || budget.kept(i);
            view! {
                <tr class:dropped=move || !kept() data-part=p.name.clone()>
                    <td><code>{p.name.clone()}</code></td>
                    <td>{p.role.map_or("tools", |r| r.as_str())}</td>
                    <td class="num">{p.priority}</td>
                    <td class="num">{fmt_int(p.tokens)}{p.estimate.then_some("*")}</td>
                    <td data-testid="part-kept">{move || if kept() { "kept" } else { "dropped" }}</td>
                </tr>
            }
            .into_any()
        })
        .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    Json,
    String,
    Tokens,
    Messages,
    Parts,
}

/// PromptPoet's four views of the kept prompt, and the truncated request.
#[component]
fn Inspect(doc: Arc<Doc>, counted: Arc<Counted>) -> impl IntoView {
    let budget = Budget::expect();
    let view_sel = RwSignal::new(View::Json);
    let status = RwSignal::new(None::<String>);
    // These views follow the settled limit: dragging the slider does not
    // rebuild a large request on every step.
    let kept = move || match budget.settled_plan.get() {
        Some(Ok(p)) => Some(p.kept),
        _ => None,
    };
    let request_text = {
        let (doc, counted) = (doc.clone(), counted.clone());
        Memo::new(move |_| {
            budget.settled_plan.with(|p| match p {
                Some(Ok(p)) => Some(Arc::<str>::from(to_pretty(&truncated_request(&doc, &counted, &p.kept)))),
                _ => None,
            })
        })
    };
    let copy = move |_| {
        let Some(t) = request_text.get_untracked() else { return };
        leptos::task::spawn_local(async move {
            let r = browser::copy_text(&t).await;
            status.try_set(Some(match r {
                Ok(()) => "Copied the truncated request".into(),
                Err(e) => format!("Copy failed: {e}"),
            }));
        });
    };
    let stem = doc.source.stem();
    let download = move |_| {
        let Some(t) = request_text.get_untracked() else { return };
        let name = format!("{stem}.truncated.openai.json");
        status.set(Some(match browser::download_text(&name, &t, "application/json") {
            Ok(()) => format!("Saved {name}"),
            Err(e) => format!("Download failed: {e}"),
        }));
    };
    // WAI-ARIA tabs, as the protocol panel's (browser::tablist_key).
    let tab = move |v: View, label: &'static str| {
        view! {
            <button type="button" role="tab" class="tab" id=format!("kept-tab-{v:?}")
                aria-selected=move || (view_sel.get() == v).to_string() aria-controls="kept-tabpanel"
                tabindex=move || if view_sel.get() == v { "0" } else { "-1" }
                on:click=move |_| view_sel.set(v)>{label}</button>
        }
    };
    let body = move || {
        let k = kept();
        match (view_sel.get(), k) {
            (_, None) => view! { <p class="muted">"No plan: the limit cannot be met."</p> }.into_any(),
            (View::Json, Some(_)) => match request_text.get() {
                Some(t) => view! { <JsonView text=t/> }.into_any(),
                None => ().into_any(),
            },
            (View::Messages, Some(_)) => {
                let t = request_text.get().unwrap_or_else(|| Arc::from(""));
                let messages = serde_json::from_str::<serde_json::Value>(&t)
                    .ok()
                    .and_then(|v| v.get("messages").cloned())
                    .map(|m| to_pretty(&m))
                    .unwrap_or_default();
                view! { <JsonView text=messages/> }.into_any()
            }
            (View::Parts, Some(_)) => {
                let report = match budget.settled_plan.get() {
                    Some(Ok(p)) => to_pretty(&truncate_report(&counted.parts, &p)),
                    _ => String::new(),
                };
                view! { <JsonView text=report/> }.into_any()
            }
            (View::String, Some(k)) => view! { <KeptString counted=counted.clone() kept=k/> }.into_any(),
            (View::Tokens, Some(k)) => view! { <KeptTokens counted=counted.clone() kept=k/> }.into_any(),
        }
    };
    view! {
        <section class="budget-section">
            <div class="inspect-bar">
                <h3>"Kept prompt"</h3>
                <div role="tablist" class="tabs small" aria-label="Kept prompt views"
                    on:keydown=move |ev| if browser::tablist_key(&ev) { ev.prevent_default() }>
                    {tab(View::Json, "Request")}
                    {tab(View::String, "String")}
                    {tab(View::Tokens, "Tokens")}
                    {tab(View::Messages, "Messages")}
                    {tab(View::Parts, "Parts")}
                </div>
                <div class="actions">
                    <button type="button" class="btn small" data-testid="copy-truncated" on:click=copy><Ico icon=Icon::Copy/>" Copy"</button>
                    <button type="button" class="btn small" data-testid="download-truncated" on:click=download><Ico icon=Icon::Download/>" Download"</button>
                </div>
            </div>
            {move || status.get().map(|s| view! { <p class="status" role="status">{s}</p> })}
            <div class="inspect-body" data-testid="inspect" role="tabpanel" id="kept-tabpanel"
                aria-labelledby=move || format!("kept-tab-{:?}", view_sel.get())>{body}</div>
        </section>
    }
}

/// How much of a long prompt the string and token views show at first.
const SHOW_CHARS: usize = 60_000;
const SHOW_TOKENS: usize = 3_000;

/// The kept prompt as one string: the kept parts' strings, a blank line apart.
#[component]
fn KeptString(counted: Arc<Counted>, kept: Vec<bool>) -> impl IntoView {
    let mut text = String::new();
    let kept_texts = counted.texts.iter().enumerate().filter(|(i, _)| kept.get(*i).copied().unwrap_or(true));
    for s in kept_texts.flat_map(|(_, t)| &t.strings) {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(s);
    }
    let n = text.chars().count();
    let shown: String = text.chars().take(SHOW_CHARS).collect();
    view! {
        <pre class="kept-string" tabindex="0" role="region" aria-label="Kept prompt as a string">{shown}</pre>
        {(n > SHOW_CHARS).then(|| view! { <p class="muted">{format!("… {} more characters (copy the request for all of it)", fmt_int((n - SHOW_CHARS) as u64))}</p> })}
    }
}

/// The kept prompt's tokens drawn over its text, as tiktokenizer does.
#[component]
fn KeptTokens(counted: Arc<Counted>, kept: Vec<bool>) -> impl IntoView {
    let mut spans: Vec<AnyView> = Vec::new();
    let mut shown = 0usize;
    let mut total = 0usize;
    'parts: for (pi, t) in counted.texts.iter().enumerate() {
        if !kept.get(pi).copied().unwrap_or(true) {
            continue;
        }
        for (k, s) in t.strings.iter().enumerate() {
            let si = counted.part_strings[pi].start + k;
            let range = counted.string_tokens[si].clone();
            total += range.len();
            if shown >= SHOW_TOKENS {
                continue;
            }
            let bytes = s.as_bytes();
            let mut at = 0usize;
            let mut group_start = 0usize;
            let mut ids: Vec<u32> = Vec::new();
            for ti in range {
                let len = counted.pieces.get(ti).copied().unwrap_or(0) as usize;
                ids.push(counted.ids.get(ti).copied().unwrap_or(0));
                at = (at + len).min(bytes.len());
                // A token may end inside a character: draw it with the next one.
                if !s.is_char_boundary(at) {
                    continue;
                }
                let piece = s[group_start..at].to_string();
                let title = ids.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
                let class = format!("tok t{}", shown % 6);
                spans.push(view! { <span class=class title=title>{piece}</span> }.into_any());
                shown += ids.len();
                ids.clear();
                group_start = at;
                if shown >= SHOW_TOKENS {
                    continue 'parts;
                }
            }
            spans.push(view! { <span class="tok-sep">"\n\n"</span> }.into_any());
        }
    }
    view! {
        <p class="muted small">{format!("{} tokens; hover a token for its id.", fmt_int(total as u64))}</p>
        <pre class="kept-tokens" data-testid="kept-token-view" tabindex="0" role="region" aria-label="Kept prompt as tokens">{spans}</pre>
        {(total > SHOW_TOKENS).then(|| view! { <p class="muted">{format!("First {} tokens shown.", fmt_int(SHOW_TOKENS as u64))}</p> })}
    }
}

// The Budget tab is a split view: its code comes with its first use.
crate::split::split_view!(BUDGET, "Budget tab", budget, || view! { <BudgetPanel/> });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(fmt_int(0), "0");
        assert_eq!(fmt_int(999), "999");
        assert_eq!(fmt_int(1000), "1,000");
        assert_eq!(fmt_int(1234567), "1,234,567");
        assert_eq!(pct(0.456), "46%");
    }
}
