//! The protocol panel: the export (OpenAI Chat, made here; OpenAI Responses,
//! Anthropic and cURL, made by the engine on demand) and the raw envelope,
//! live, with copy and download; the Budget tab; and the Checks tab.

use std::sync::Arc;

use crate::components::icons::{Ico, Icon};
use envelope::export::Target;
use envelope::Notice;
use leptos::prelude::*;

use crate::browser;
use crate::budget::{truncated_request, Budget, Counting};
use crate::components::checks::{Checks, ChecksBadge};
use crate::components::json_view::JsonView;
use crate::doc::{Doc, Export};
use crate::format::count;
use crate::split;
use crate::state::{Prefs, Tab};
use crate::worker;
use envelope::export::to_pretty;

/// Where the export pick made for an imported document is remembered: the
/// document's fingerprint (`Doc::fingerprint`). Restored after a reload, that
/// document shows the pick again rather than its own format.
const PICKED_FOR_KEY: &str = "pep/v1/export-picked-for";
/// Notices listed at most (the count says how many there are; `pep export`
/// lists every one).
const NOTICES_SHOWN: usize = 500;

/// The export tab's content for the picked format.
#[derive(Clone, Debug, PartialEq)]
pub enum ExportState {
    /// No document.
    Empty,
    /// The engine is making it (OpenAI Chat: the page, after the first
    /// screen is painted).
    Preparing(Target),
    Ready(Export),
    /// The engine could not make it: why.
    Failed(Target, String),
}

/// What Copy and Download take: the shown text, its file name and MIME type.
pub fn shown_file(doc: &Doc, tab: Tab, export: &ExportState) -> Option<(Arc<str>, String, &'static str)> {
    let stem = doc.source.stem();
    match (tab, export) {
        (Tab::Raw, _) => Some((doc.raw_text(), format!("{stem}.envelope.json"), "application/json")),
        (Tab::Openai, ExportState::Ready(e)) => Some((e.text.clone(), e.target.file_name(&stem), e.target.mime_type())),
        _ => None,
    }
}

/// Which request the export tab shows when a Budget limit drops parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Full,
    /// What the conversation shows: the kept parts only.
    Truncated,
}

/// The request after truncation as the export tab offers it: its text and
/// the limit that made it (for the file name).
#[derive(Clone, Debug, PartialEq)]
pub struct Truncated {
    pub text: Arc<str>,
    pub limit: u64,
    pub step: u64,
}

/// The download name of a truncated request: `demo-f.openai.truncated-3000.json`
/// (`-step-250` added for a step other than 1).
pub fn truncated_file_name(stem: &str, limit: u64, step: u64) -> String {
    if step > 1 {
        format!("{stem}.openai.truncated-{limit}-step-{step}.json")
    } else {
        format!("{stem}.openai.truncated-{limit}.json")
    }
}

/// The right-hand pane.
#[component]
pub fn ProtocolPanel(#[prop(into)] doc: Signal<Option<Arc<Doc>>>) -> impl IntoView {
    let prefs = Prefs::expect();
    let tab = prefs.tab;
    // The format shown (issue 21). A document imported from a request starts
    // on that request's format (its export is the request replayed); once the
    // user picks a format for it, their pick, as for any other document: the
    // saved preference. `picked_in`: the lineage the pick was made in (edits
    // keep it); `picked_for`: the document it was made for, kept for the next
    // visit; `checked`: the lineage already compared with it.
    let picked_in = StoredValue::new(None::<u64>);
    let checked = StoredValue::new(None::<u64>);
    let picked_for = RwSignal::new(browser::load::<u64>(PICKED_FOR_KEY).ok().flatten());
    let target = Memo::new(move |_| {
        let pick = prefs.export.get();
        let saved = picked_for.get();
        doc.with(|d| {
            let Some(d) = d else { return pick };
            let Some(start) = d.imported_target() else { return pick };
            if picked_in.get_value() == Some(d.lineage) {
                return pick;
            }
            if saved.is_some() && checked.get_value() != Some(d.lineage) {
                checked.set_value(Some(d.lineage));
                if saved == Some(d.fingerprint()) {
                    picked_in.set_value(Some(d.lineage));
                    return pick;
                }
            }
            start
        })
    });
    // The viewer provides the checks' context; a panel mounted alone makes its own.
    if use_context::<Checks>().is_none() {
        Checks::new(doc);
    }
    let status = RwSignal::new(None::<(bool, String)>);
    // A document made at once (`Doc::at_once`, every demo) has its JSON in
    // the panel's first frame, which is the conversation's (the viewer,
    // D183); a larger one's follows a frame later rather than lengthening it.
    let at_once = move || doc.with_untracked(|d| d.as_ref().is_some_and(|d| d.at_once()));
    let ready = RwSignal::new(at_once());
    Effect::new(move |_| {
        doc.track();
        if at_once() {
            ready.set(true);
            return;
        }
        ready.set(false);
        leptos::task::spawn_local(async move {
            browser::after_next_paint().await;
            ready.try_set(true);
        });
    });
    // The picked export: at hand (OpenAI Chat, or made before), or asked of
    // the engine while the export tab shows it. `retry` asks again.
    let export = RwSignal::new(ExportState::Empty);
    let retry = RwSignal::new(0u32);
    let asked = StoredValue::new(0u64);
    Effect::new(move |_| {
        retry.track();
        let (Some(d), t) = (doc.get(), target.get()) else {
            export.set(ExportState::Empty);
            return;
        };
        let seq = asked.get_value() + 1;
        asked.set_value(seq);
        // The OpenAI Chat request of a new document of more than
        // `AT_ONCE_SEGMENTS` is made a frame later, in a task of its own (for
        // 100,000 segments, hundreds of ms that the first screen does not
        // wait for).
        if t == Target::OpenaiChat && !d.openai_made() && !d.at_once() {
            export.set(ExportState::Preparing(t));
            leptos::task::spawn_local(async move {
                browser::after_next_paint().await;
                if asked.try_get_value() != Some(seq) {
                    return;
                }
                let made = d.openai_export();
                // Its view (lines, folds, message entries) in a task of its own.
                browser::yield_now().await;
                if asked.try_get_value() == Some(seq) {
                    export.try_set(ExportState::Ready(made));
                }
            });
            return;
        }
        if let Some(e) = d.export_ready(t) {
            export.set(ExportState::Ready(e));
            return;
        }
        export.set(ExportState::Preparing(t));
        // The engine loads only when the export tab shows this format.
        if tab.get() != Tab::Openai {
            return;
        }
        leptos::task::spawn_local(async move {
            let made = worker::export::ensure(d, t).await;
            // Only the latest ask is shown (not one for another document or format).
            if asked.try_get_value() == Some(seq) {
                export.try_set(match made {
                    Ok(e) => ExportState::Ready(e),
                    Err(e) => ExportState::Failed(t, e),
                });
            }
        });
    });
    // After truncation: offered when the Budget plan drops parts (what the
    // conversation greys out), for the OpenAI Chat request Budget counts.
    let budget = use_context::<Budget>();
    let truncated = Memo::new(move |_| {
        let b = budget?;
        let Counting::Done(c) = b.counting.get() else { return None };
        let (limit, step) = b.settled.get();
        let kept = match b.settled_plan.get() {
            Some(Ok(p)) if p.kept.iter().any(|k| !*k) => p.kept,
            _ => return None,
        };
        let d = doc.get()?;
        let text: Arc<str> = to_pretty(&truncated_request(&d, &c, &kept)).into();
        Some(Truncated { text, limit, step })
    });
    let scope_choice = RwSignal::new(None::<Scope>);
    // The scope in force: the user's pick, else what the conversation shows.
    let scope = move || {
        if target.get() != Target::OpenaiChat || truncated.with(Option::is_none) {
            return Scope::Full;
        }
        scope_choice.get().unwrap_or(Scope::Truncated)
    };
    let shown = move || {
        if tab.get() == Tab::Openai && scope() == Scope::Truncated {
            let stem = doc.with(|d| d.as_ref().map(|d| d.source.stem()))?;
            return truncated.get().map(|t| {
                let name = truncated_file_name(&stem, t.limit, t.step);
                (t.text, name, "application/json")
            });
        }
        doc.with(|d| d.as_ref().and_then(|d| export.with(|e| shown_file(d, tab.get(), e))))
    };
    // "Redact secrets": Copy and Download give the text with every secret
    // masked (`envelope::secrets::redact_json`); unticked, byte for byte.
    let redact = RwSignal::new(false);
    let copy = move |_| {
        let Some((t, _, _)) = shown() else { return };
        let redact = redact.get_untracked();
        leptos::task::spawn_local(async move {
            let r = match crate::secrets::redacted(t, redact).await {
                Ok(t) => browser::copy_text(&t).await,
                Err(e) => Err(e),
            };
            status.try_set(Some(match r {
                Ok(()) if redact => (true, "Copied to the clipboard, secrets redacted".to_string()),
                Ok(()) => (true, "Copied to the clipboard".to_string()),
                Err(e) => (false, format!("Copy failed: {e}")),
            }));
        });
    };
    let download = move |_| {
        let Some((t, name, mime)) = shown() else { return };
        if !redact.get_untracked() {
            status.set(Some(match browser::download_text(&name, &t, mime) {
                Ok(()) => (true, format!("Saved {name}")),
                Err(e) => (false, format!("Download failed: {e}")),
            }));
            return;
        }
        let name = crate::secrets::redacted_name(&name);
        leptos::task::spawn_local(async move {
            let saved = crate::secrets::redacted(t, true).await.and_then(|t| browser::download_text(&name, &t, mime));
            status.try_set(Some(match saved {
                Ok(()) => (true, format!("Saved {name}, secrets redacted")),
                Err(e) => (false, format!("Download failed: {e}")),
            }));
        });
    };
    // WAI-ARIA tabs: one tab stop (the selected tab), arrows, Home and End
    // move and select (browser::tablist_key), one tab panel they control.
    let tab_button = move |t: Tab, label: &'static str, testid: &'static str| {
        view! {
            <button type="button" role="tab" class="tab" data-testid=testid id=testid
                aria-selected=move || (tab.get() == t).to_string()
                aria-controls="protocol-tabpanel"
                tabindex=move || if tab.get() == t { "0" } else { "-1" }
                on:click=move |_| { tab.set(t); status.set(None); }>
                {label}
            </button>
        }
    };
    let on_tab_key = move |ev: leptos::ev::KeyboardEvent| {
        if browser::tablist_key(&ev) {
            ev.prevent_default();
        }
    };
    let panel_label = move || match tab.get() {
        Tab::Openai => "tab-openai",
        Tab::Raw => "tab-raw",
        Tab::Budget => "tab-budget",
        Tab::Checks => "tab-checks",
    };
    let pick = move |ev: leptos::ev::Event| {
        let Some(t) = Target::from_code(&event_target_value(&ev)) else { return };
        if let Some(d) = doc.get_untracked() {
            picked_in.set_value(Some(d.lineage));
            if d.imported_target().is_some() {
                let f = d.fingerprint();
                // Not kept (storage blocked or full): the pick holds for this visit.
                let _ = browser::save(PICKED_FOR_KEY, &f);
                picked_for.set(Some(f));
            }
        }
        prefs.export.set(t);
        status.set(None);
    };
    // How many items the shown export cannot carry (said beside the picker;
    // listed above the request).
    let not_carried = move || {
        if scope() != Scope::Full {
            return 0;
        }
        export.with(|e| match e {
            ExportState::Ready(e) => e.notices.len(),
            _ => 0,
        })
    };
    // Made by the Raw tab a slice at a time (RawView): Copy and Download wait
    // for it rather than make a document of tens of MB in one task.
    let raw_made = RwSignal::new(0u32);
    let unavailable = move || {
        if tab.get() == Tab::Raw {
            raw_made.track();
            return doc.with(|d| d.as_ref().is_none_or(|d| d.raw_text_made().is_none()));
        }
        shown().is_none()
    };
    view! {
        <section class="protocol" aria-label="Protocol">
            <div class="protocol-bar">
                <div role="tablist" class="tabs" aria-label="Protocol views" on:keydown=on_tab_key>
                    {tab_button(Tab::Openai, "Export", "tab-openai")}
                    {tab_button(Tab::Raw, "Raw protocol", "tab-raw")}
                    {tab_button(Tab::Budget, "Budget", "tab-budget")}
                    <button type="button" role="tab" class="tab" data-testid="tab-checks" id="tab-checks"
                        title="pep lint's checks: budget, secrets, sensitive words, variables, cache, tools, waste"
                        aria-selected=move || (tab.get() == Tab::Checks).to_string()
                        aria-controls="protocol-tabpanel"
                        tabindex=move || if tab.get() == Tab::Checks { "0" } else { "-1" }
                        on:click=move |_| { tab.set(Tab::Checks); status.set(None); }>
                        "Checks"<ChecksBadge/>
                    </button>
                </div>
                <Show when=move || !matches!(tab.get(), Tab::Budget | Tab::Checks)>
                    <div class="actions">
                        <Show when=move || tab.get() == Tab::Openai && truncated.with(Option::is_some)>
                            <label class="export-format">
                                <span class="visually-hidden">"Request"</span>
                                <select data-testid="export-scope"
                                    title="The whole request, or what is left after the Budget tab's truncation (what the conversation shows)"
                                    disabled=move || target.get() != Target::OpenaiChat
                                    on:change=move |ev| {
                                        scope_choice.set(Some(if event_target_value(&ev) == "full" { Scope::Full } else { Scope::Truncated }));
                                        status.set(None);
                                    }>
                                    <option value="truncated" selected=move || scope() == Scope::Truncated>
                                        {move || truncated.get().map(|t| format!("After truncation ({})", t.limit)).unwrap_or_default()}
                                    </option>
                                    <option value="full" selected=move || scope() == Scope::Full>"Full request"</option>
                                </select>
                            </label>
                        </Show>
                        <Show when=move || tab.get() == Tab::Openai>
                            <label class="export-format">
                                <span class="visually-hidden">"Export format"</span>
                                <select data-testid="export-format" title="The request format to show, copy and download"
                                    prop:value=move || target.get().code() on:change=pick>
                                    {Target::ALL.iter().map(|t| view! {
                                        <option value=t.code() selected=move || target.get() == *t>{t.label()}</option>
                                    }).collect::<Vec<_>>()}
                                </select>
                            </label>
                            <span class="export-count" role="status" data-testid="export-notices-count">
                                {move || match not_carried() {
                                    0 => None,
                                    n => Some(view! { <Ico icon=Icon::Info/>" "{not_carried_text(n)} }),
                                }}
                            </span>
                        </Show>
                        <button type="button" class="btn" data-testid="copy-json" on:click=copy disabled=unavailable>
                            <Ico icon=Icon::Copy/>" Copy"
                        </button>
                        <button type="button" class="btn" data-testid="download-json" on:click=download disabled=unavailable>
                            <Ico icon=Icon::Download/>" Download"
                        </button>
                        <label class="redact-opt" title="Copy and Download give the text with every secret masked (its issuer's prefix and stars)">
                            <input type="checkbox" data-testid="redact-secrets"
                                on:change=move |ev| { redact.set(event_target_checked(&ev)); status.set(None); }/>
                            " Redact secrets"
                        </label>
                    </div>
                </Show>
            </div>
            {move || status.get().map(|(ok, msg)| view! {
                <div class="status" class:error=!ok role="status" data-testid="copy-status">{msg}</div>
            })}
            <div class="tabpanel" role="tabpanel" id="protocol-tabpanel" aria-labelledby=panel_label>
            {move || match tab.get() {
                Tab::Budget => split::deferred(crate::components::budget::BUDGET).into_any(),
                Tab::Checks => split::deferred(crate::components::checks::CHECKS).into_any(),
                _ if !ready.get() => view! { <p class="muted pad">"Preparing the JSON…"</p> }.into_any(),
                Tab::Raw => match doc.get() {
                    Some(d) => view! { <RawView doc=d made=raw_made/> }.into_any(),
                    None => view! { <p class="muted pad">"No document."</p> }.into_any(),
                },
                Tab::Openai => match export.get() {
                    ExportState::Empty => view! { <p class="muted pad">"No document."</p> }.into_any(),
                    ExportState::Preparing(t) => view! {
                        <p class="muted pad" data-testid="export-preparing" role="status">
                            <span class="spinner" aria-hidden="true"></span>
                            {if t == Target::OpenaiChat {
                                format!(" Preparing the {} request…", t.label())
                            } else {
                                format!(" Preparing the {} export in the engine (a Web Worker, loaded once)…", t.label())
                            }}
                        </p>
                    }.into_any(),
                    ExportState::Failed(t, e) => view! {
                        <div class="notice error pad" data-testid="export-error" role="alert">
                            <p>{format!("The {} export could not be made: {e}", t.label())}</p>
                            <button type="button" class="btn small" data-testid="export-retry"
                                on:click=move |_| retry.update(|n| *n += 1)>"Try again"</button>
                        </div>
                    }.into_any(),
                    ExportState::Ready(_) if scope() == Scope::Truncated => match truncated.get() {
                        Some(t) => view! {
                            <p class="muted small pad-x" data-testid="export-truncated-note">
                                {format!("After truncation to {} tokens{}: the request the conversation shows, the dropped messages left out (as `pep truncate --request` prints it).",
                                    t.limit, if t.step > 1 { format!(" (step {})", t.step) } else { String::new() })}
                            </p>
                            <JsonView text=t.text.clone()/>
                        }.into_any(),
                        None => ().into_any(),
                    },
                    ExportState::Ready(e) => {
                        // The OpenAI Chat request maps messages to lines (and back).
                        let entries = (e.target == Target::OpenaiChat)
                            .then(|| doc.get_untracked())
                            .flatten()
                            .map(|d| {
                                Arc::new(envelope::export::openai_chat::message_lines_of(&d.envelope, d.contributions(), &e.text))
                            });
                        view! {
                            <ExportNotices target=e.target notices=e.notices.clone()/>
                            <JsonView text=e.text.clone() entries label=format!("{} request", e.target.label())/>
                        }.into_any()
                    }
                },
            }}
            </div>
        </section>
    }
}

/// "3 items not carried".
fn not_carried_text(n: usize) -> String {
    format!("{} not carried", count(n, "item"))
}

/// What the shown export cannot express as the envelope has it, by path into
/// the envelope: always listed (a heading with the count, then each path and
/// message, as `pep export` notes them), never behind a click.
#[component]
fn ExportNotices(target: Target, notices: Arc<[Notice]>) -> impl IntoView {
    (!notices.is_empty()).then(|| {
        let n = notices.len();
        let heading = format!("{} by {}", not_carried_text(n), target.label());
        let items = notices
            .iter()
            .take(NOTICES_SHOWN)
            .map(|d| {
                let path = if d.path.is_empty() { "(document)".to_string() } else { d.path.clone() };
                view! { <li><code class="path">{path}</code>" "{d.message.clone()}</li> }
            })
            .collect::<Vec<_>>();
        let more = (n > NOTICES_SHOWN).then(|| {
            view! {
                <p class="muted">{format!("The first {NOTICES_SHOWN} are listed; `pep export` lists every one.")}</p>
            }
        });
        view! {
            <section class="export-notices" data-testid="export-notices" aria-labelledby="export-notices-title">
                <h3 id="export-notices-title"><Ico icon=Icon::Info/>" "{heading}</h3>
                <ul class="diag-list" data-testid="export-notices-list" tabindex="0" aria-labelledby="export-notices-title">
                    {items}
                </ul>
                {more}
            </section>
        }
    })
}

/// Work per task while the raw text is made (ms).
const RAW_SLICE_MS: f64 = 8.0;
/// Up to this many segments the raw text is made in the tab's first task.
const RAW_AT_ONCE_SEGMENTS: usize = 2_000;

/// The Raw tab: the document's pretty JSON. When it is not made yet it is
/// made a few messages per task (`Doc::raw_pieces`), with its progress: a
/// document of tens of MB would otherwise hold the page for one long task.
#[component]
fn RawView(
    doc: Arc<Doc>,
    /// Bumped when the text is made (Copy and Download wait for it).
    made: RwSignal<u32>,
) -> impl IntoView {
    let bump = made;
    // A document of a few thousand segments at most: made at once (a few ms).
    if doc.raw_text_made().is_some() || doc.segment_count() <= RAW_AT_ONCE_SEGMENTS {
        let text = doc.raw_text();
        made.update(|n| *n += 1);
        return view! { <JsonView text label="Raw protocol"/> }.into_any();
    }
    let text = RwSignal::new(None::<Arc<str>>);
    let progress = RwSignal::new(0usize);
    let total = doc.raw_pieces().remaining().max(1);
    leptos::task::spawn_local(async move {
        let mut pieces = doc.raw_pieces();
        let mut out = String::new();
        loop {
            let t0 = browser::now_ms();
            let mut done = false;
            while browser::now_ms() - t0 < RAW_SLICE_MS {
                match pieces.next() {
                    Some(p) => out.push_str(&p),
                    None => {
                        done = true;
                        break;
                    }
                }
            }
            if done {
                break;
            }
            // Gone (another tab, another document): stop.
            if progress.try_set(total - pieces.remaining()).is_some() {
                return;
            }
            browser::sleep(0).await;
        }
        drop(pieces);
        text.try_set(Some(doc.keep_raw_text(out)));
        bump.try_update(|n| *n += 1);
    });
    (move || match text.get() {
        Some(text) => view! { <JsonView text label="Raw protocol"/> }.into_any(),
        None => view! {
            <p class="muted pad" role="status" data-testid="raw-preparing">
                <span class="spinner" aria-hidden="true"></span>
                {move || format!(" Preparing the raw JSON: {} %", progress.get() * 100 / total)}
            </p>
        }
        .into_any(),
    })
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_and_download_follow_the_shown_export() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/demos/d.json")).unwrap();
        let doc = Doc::load(crate::doc::Source::Demo('d'), text.as_bytes()).unwrap();
        let chat = ExportState::Ready(doc.openai_export());
        let (t, name, mime) = shown_file(&doc, Tab::Openai, &chat).unwrap();
        assert_eq!((&*t, name.as_str(), mime), (&*doc.openai_text(), "demo-d.openai.json", "application/json"));
        let curl =
            ExportState::Ready(Export { target: Target::CurlOpenai, text: "curl".into(), notices: Arc::new([]) });
        assert_eq!(truncated_file_name("demo-f", 3000, 1), "demo-f.openai.truncated-3000.json");
        assert_eq!(truncated_file_name("demo-f", 2500, 250), "demo-f.openai.truncated-2500-step-250.json");
        let (t, name, mime) = shown_file(&doc, Tab::Openai, &curl).unwrap();
        assert_eq!((&*t, name.as_str(), mime), ("curl", "demo-d.openai.sh", "text/x-shellscript"));
        let anthropic =
            ExportState::Ready(Export { target: Target::Anthropic, text: "{}".into(), notices: Arc::new([]) });
        assert_eq!(shown_file(&doc, Tab::Openai, &anthropic).unwrap().1, "demo-d.anthropic.json");
        // The raw tab is the document, whatever the picked export.
        let (t, name, _) = shown_file(&doc, Tab::Raw, &curl).unwrap();
        assert_eq!((&*t, name.as_str()), (&*doc.raw_text(), "demo-d.envelope.json"));
        // Nothing to copy while the engine prepares the export or failed.
        assert!(shown_file(&doc, Tab::Openai, &ExportState::Preparing(Target::Anthropic)).is_none());
        assert!(shown_file(&doc, Tab::Openai, &ExportState::Failed(Target::Anthropic, "x".into())).is_none());
    }
}
