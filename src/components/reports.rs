//! What the app says about a document it read, and its rarer notices (issue
//! 11: out of the first load): the errors of a failed load, where an
//! imported request came from, the document's warnings (each path a link to
//! what it concerns), the saved document that did not finish opening last
//! time, and a new version waiting.
//!
//! No demo shows any of them on its first screen, so their views are one
//! split module (`reports`), fetched the first time one has something to
//! say. `components::loader`'s `LoadErrors`, `ImportedFrom` and `Warnings`
//! and the app's `SafeStart` and `UpdateAvailable` decide whether there is
//! something to show (main module) and show [`shown`]; until the module is
//! here nothing is shown (no "Loading…" line that would push the page down
//! twice), and if it cannot be fetched the place says so with a Retry
//! (`split::deferred_quiet`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use leptos::prelude::*;

use crate::components::icons::{Ico, Icon};
use crate::format::count;
use crate::nav::{Navigator, Target};
use crate::router::use_navigate;
use crate::split::Split;
use crate::state::Session;

/// Which report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    /// The last failed load's errors (or the engine's failure, with "Try again").
    LoadErrors,
    /// "Imported from …" and the import's notes.
    ImportedFrom,
    /// The shown document's warnings.
    Warnings,
    /// The saved document did not finish opening last time: open it, or not now.
    SafeStart,
    /// A new version of the app is waiting: Reload.
    Update,
}

/// The report `what`, built when the reports' module is here: nothing until
/// then, an error with Retry if it cannot be fetched.
pub fn shown(what: Report) -> impl IntoView {
    type Build = fn() -> Pin<Box<dyn Future<Output = AnyView>>>;
    let build: Build = match what {
        Report::LoadErrors => || Box::pin(async { view_now(Report::LoadErrors) }),
        Report::ImportedFrom => || Box::pin(async { view_now(Report::ImportedFrom) }),
        Report::Warnings => || Box::pin(async { view_now(Report::Warnings) }),
        Report::SafeStart => || Box::pin(async { view_now(Report::SafeStart) }),
        Report::Update => || Box::pin(async { view_now(Report::Update) }),
    };
    crate::split::deferred_quiet(Split { name: "report", loaded, load: || Box::pin(load()), build })
}

/// The reports' views. In a release build for the browser this is a split
/// point: their code is fetched the first time one of them is shown.
#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(reports, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_reports))
)]
fn report_view(what: Report) -> Result<AnyView, ::leptos::wasm_split::SplitLoaderError> {
    Ok(match what {
        Report::LoadErrors => view! { <LoadErrorsBody/> }.into_any(),
        Report::ImportedFrom => view! { <ImportedFromBody/> }.into_any(),
        Report::Warnings => view! { <WarningsBody/> }.into_any(),
        Report::SafeStart => view! { <SafeStartBody/> }.into_any(),
        Report::Update => view! { <UpdateBody/> }.into_any(),
    })
}

// The reports' module: `loaded()`, `load()`.
crate::split::split_loader!(LOADED, fn loaded, load, preload_reports);

/// A report's view now (nothing while the module is not here).
fn view_now(what: Report) -> AnyView {
    #[cfg(pep_split)]
    let view = if loaded() { crate::split::now(report_view(what)).and_then(Result::ok) } else { None };
    #[cfg(not(pep_split))]
    let view = report_view(what).ok();
    view.unwrap_or_else(|| ().into_any())
}

/// Errors of the last failed load, with their paths, or the engine's
/// failure with "Try again"; the view behind stays.
#[component]
fn LoadErrorsBody() -> impl IntoView {
    let session = Session::expect();
    let navigate = use_navigate();
    move || {
        session.load_failure.get().map(|f| {
            let n = f.errors.len();
            let headline = match &f.engine {
                Some(_) => format!(" {} could not be imported", f.source),
                None => format!(" {} could not be loaded: {}", f.source, count(n, "error")),
            };
            let engine = f.engine.map(|(message, retry)| {
                let navigate = navigate.clone();
                let again = move |_| {
                    let (retry, navigate) = (retry.clone(), navigate.clone());
                    session.load_failure.set(None);
                    leptos::task::spawn_local(async move {
                        session.open_and_show(retry.source, retry.bytes, navigate).await;
                    });
                };
                view! {
                    <p data-testid="engine-error">
                        {format!("The import runs in a second module of this page (a Web Worker), which failed: {message}.")}
                    </p>
                    <button type="button" class="btn small" data-testid="load-retry" on:click=again>"Try again"</button>
                }
            });
            view! {
                <section class="notice error" data-testid="load-errors" role="alert">
                    <header>
                        <Ico icon=Icon::TriangleAlert/>
                        <strong>{headline}</strong>
                        <button type="button" class="link" on:click=move |_| session.load_failure.set(None)>"Dismiss"</button>
                    </header>
                    <p class="muted">"The document on screen is unchanged."</p>
                    {engine}
                    <PathList items=f.errors.into_iter().map(|d| (d.path, d.message)).collect() whole="(document)"/>
                </section>
            }
        })
    }
}

/// "Imported from Anthropic Messages" for a document read from a request,
/// with the import's notices (what had no place in the envelope) a click away.
#[component]
fn ImportedFromBody() -> impl IntoView {
    let session = Session::expect();
    move || {
        let doc = session.doc.get()?;
        let origin = doc.origin.clone()?;
        let n = origin.notices.len();
        let items: Vec<(String, String)> = origin.notices.into_iter().map(|d| (d.path, d.message)).collect();
        Some(view! {
            <section class="notice info imported" data-testid="imported-from" data-format=origin.format.as_str()>
                <header>
                    <Ico icon=Icon::FileCode/>
                    <span>" Imported from "<strong>{origin.format.label()}</strong>
                        {(n == 0).then_some(" — everything in it has a place in the envelope.")}</span>
                </header>
                {(n > 0).then(|| view! {
                    <Notes summary=format!("{} not carried over as written", count(n, "note")) items whole="(request)"
                        toggle_testid="import-notices-toggle" list_testid="import-notices"/>
                })}
            </section>
        })
    }
}

/// `path message` lines (an empty path reads as `whole`).
#[component]
pub fn PathList(
    items: Vec<(String, String)>,
    whole: &'static str,
    #[prop(default = None)] testid: Option<&'static str>,
) -> impl IntoView {
    view! {
        <ul class="diag-list" data-testid=testid>
            {items.into_iter().map(|(path, message)| view! {
                <li><code class="path">{if path.is_empty() { whole.to_string() } else { path }}</code>" "{message}</li>
            }).collect::<Vec<_>>()}
        </ul>
    }
}

/// A disclosure: `summary` as a toggle, the [`PathList`] below it when open.
#[component]
pub fn Notes(
    #[prop(into)] summary: String,
    items: Vec<(String, String)>,
    whole: &'static str,
    #[prop(optional)] toggle_testid: Option<&'static str>,
    #[prop(optional)] list_testid: Option<&'static str>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let items = StoredValue::new(items);
    view! {
        <button type="button" class="link notes-toggle" data-testid=toggle_testid
            aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|o| *o = !*o)>
            <Ico icon=Icon::Info/>" "{summary}
        </button>
        <Show when=move || open.get()>
            <PathList items=items.get_value() whole testid=list_testid/>
        </Show>
    }
}

/// Warnings shown one by one up to this many; more are grouped by rule.
const WARNINGS_FLAT: usize = 6;
/// Warnings of a group listed before its "show all".
const GROUP_SHOWN: usize = 5;
/// At most this many of a group are rendered even when "show all" is on
/// (the count says how many there are; `pep lint` lists every one).
const GROUP_MAX: usize = 500;

/// Where a diagnostic points in the conversation: a segment, or a message.
fn diag_target(d: &envelope::Diagnostic) -> Option<Target> {
    let message = d.message_index()?;
    Some(match d.segment_index() {
        Some(segment) => Target::Segment(envelope::calls::At { message, segment }),
        None => Target::Message(message),
    })
}

/// A diagnostic's path: a link that reveals its message or segment when it
/// points into the conversation (and a navigator is at hand), else code.
#[component]
fn PathLink(diag: envelope::Diagnostic, whole: &'static str) -> impl IntoView {
    let nav = use_context::<Navigator>();
    let path = diag.path.clone();
    match (diag_target(&diag), nav) {
        (Some(target), Some(nav)) => view! {
            <button type="button" class="link path" title="Show this in the conversation"
                on:click=move |_| nav.go(target, true)>{path}</button>
        }
        .into_any(),
        _ => view! { <code class="path">{if path.is_empty() { whole.to_string() } else { path }}</code> }.into_any(),
    }
}

/// Warnings of the shown document, listed (grouped by rule when there are
/// many), each path a link to what it concerns; dismissible.
#[component]
fn WarningsBody() -> impl IntoView {
    let session = Session::expect();
    move || {
        if session.warnings_dismissed.get() {
            return None;
        }
        let doc = session.doc.get()?;
        if doc.warnings.is_empty() {
            return None;
        }
        let n = doc.warnings.len();
        let body = if n <= WARNINGS_FLAT {
            let items: Vec<AnyView> = doc
                .warnings
                .iter()
                .map(|d| {
                    view! { <li><PathLink diag=d.clone() whole="(document)"/>" "{d.message.clone()}</li> }.into_any()
                })
                .collect();
            view! { <ul class="diag-list" data-testid="warning-list">{items}</ul> }.into_any()
        } else {
            let groups: Vec<AnyView> = envelope::diag::group_by_rule(&doc.warnings)
                .into_iter()
                .map(|g| view! { <WarningGroup doc=doc.clone() group=g/> }.into_any())
                .collect();
            view! { <div class="warn-groups" data-testid="warning-list">{groups}</div> }.into_any()
        };
        Some(view! {
            <section class="notice warn" data-testid="warnings" aria-labelledby="warnings-title">
                <header>
                    <Ico icon=Icon::Info/>
                    <h2 id="warnings-title" class="notice-title">{format!("{} — the document loads, but:", count(n, "warning"))}</h2>
                    <button type="button" class="link" on:click=move |_| session.warnings_dismissed.set(true)>"Dismiss"</button>
                </header>
                {body}
            </section>
        })
    }
}

/// The warnings of one rule: its code and summary, the first few, "show all".
#[component]
fn WarningGroup(doc: Arc<crate::doc::Doc>, group: envelope::diag::Group) -> impl IntoView {
    let all = RwSignal::new(false);
    let n = group.count();
    let items = StoredValue::new(group.items.clone());
    let list = move || {
        let shown = if all.get() { GROUP_MAX } else { GROUP_SHOWN };
        items.with_value(|ix| {
            ix.iter()
                .take(shown)
                .map(|&i| {
                    let d = &doc.warnings[i];
                    view! { <li><PathLink diag=d.clone() whole="(document)"/>" "{d.message.clone()}</li> }.into_any()
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <section class="warn-group" data-rule=group.rule.code()>
            <h3 class="warn-rule"><code>{group.rule.code()}</code>{format!(" · {}", count(n, "warning"))}</h3>
            <ul class="diag-list">{list}</ul>
            {(n > GROUP_SHOWN).then(|| view! {
                <button type="button" class="link" aria-expanded=move || all.get().to_string()
                    on:click=move |_| all.update(|a| *a = !*a)>
                    {move || if all.get() {
                        "show fewer".to_string()
                    } else if n > GROUP_MAX {
                        format!("show {GROUP_MAX} of {}", envelope::display::thousands(n as u64))
                    } else {
                        format!("show all {}", envelope::display::thousands(n as u64))
                    }}
                </button>
            })}
        </section>
    }
}

/// The saved document did not finish opening last time: ask before trying again.
#[component]
fn SafeStartBody() -> impl IntoView {
    let session = Session::expect();
    move || {
        let bytes = session.unsafe_restore.get();
        (bytes > 0).then(|| {
            view! {
                <div class="notice warn" role="alert" data-testid="safe-start">
                    <span>{format!(
                        "Your saved document ({}) did not finish opening last time: the tab was closed or stopped responding. It is still saved.",
                        count(bytes, "byte")
                    )}</span>
                    <span class="actions">
                        <button type="button" class="btn" data-testid="safe-start-open" on:click=move |_| session.restore_now()>"Open it"</button>
                        <button type="button" class="btn" on:click=move |_| session.unsafe_restore.set(0)>"Not now"</button>
                    </span>
                </div>
            }
        })
    }
}

/// "A new version is available — Reload" (a new deployment is waiting; public/sw.js).
#[component]
fn UpdateBody() -> impl IntoView {
    let update = expect_context::<crate::hooks::Update>();
    view! {
        <div class="notice update" role="status" data-testid="update-available">
            <span>"A new version of the app is available."</span>
            <button type="button" class="btn" on:click=move |_| update.apply()>"Reload"</button>
        </div>
    }
}
