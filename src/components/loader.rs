//! Getting documents in: "Open…", drag and drop, "Paste…" (envelopes, and
//! OpenAI Chat, OpenAI Responses and Anthropic Messages requests, which the
//! engine imports); and telling the user what happened (load errors with
//! paths, the import's progress and origin, warnings, notices).

use std::sync::Arc;

use crate::components::count;
use crate::components::icons::Ico;
use crate::router::{use_navigate, NavigateOptions};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::doc::Source;
use crate::nav::{Navigator, Target};
use crate::state::{Session, LOADING_STEPS};

/// What the user can open, for titles and hints.
const OPENS: &str = "an envelope, or an OpenAI Chat, OpenAI Responses or Anthropic Messages request";

/// Loads the user's bytes; on success shows `/doc`.
async fn open_bytes(
    session: Session,
    source: Source,
    bytes: Arc<[u8]>,
    navigate: impl Fn(&str, NavigateOptions),
) -> bool {
    let opened = session.open_user_document(source, bytes).await;
    if opened {
        navigate("/doc", Default::default());
    }
    opened
}

/// Reads a picked or dropped file, then loads it; on success shows `/doc`.
fn open_file(session: Session, file: web_sys::File, navigate: impl Fn(&str, NavigateOptions) + 'static) {
    leptos::task::spawn_local(async move {
        if session.open_user_file(file).await {
            navigate("/doc", Default::default());
        }
    });
}

/// The "Open…" button and its hidden file input.
#[component]
pub fn OpenButton() -> impl IntoView {
    let session = Session::expect();
    let navigate = use_navigate();
    let on_change = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
            return;
        };
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            open_file(session, file, navigate.clone());
        }
        // Let the same file be picked again.
        input.set_value("");
    };
    view! {
        <label class="btn" title=format!("Open a JSON file: {OPENS}")>
            <Ico name="folder-open"/><span class="btn-label">" Open…"</span>
            <input type="file" accept=".json,application/json" class="visually-hidden" data-testid="open-file"
                on:change=on_change/>
        </label>
    }
}

/// Loads a file dropped anywhere on the page.
pub fn on_drop(session: Session) -> impl Fn(web_sys::DragEvent) + Clone + 'static {
    let navigate = use_navigate();
    move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        let file = ev.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0));
        if let Some(file) = file {
            open_file(session, file, navigate.clone());
        }
    }
}

/// Whether the paste dialog is open (provided by the frame): while it is,
/// the load errors show inside it rather than behind it.
#[derive(Clone, Copy)]
pub struct PasteOpen(pub RwSignal<bool>);

/// The "Paste…" button and its dialog: a modal `<dialog>` (the page behind
/// is inert, so focus stays inside; Escape closes it). Focus goes to the
/// text area when it opens and back to "Paste…" however it closes (Load,
/// Cancel, Escape). A failed load lists its errors inside the dialog.
#[component]
pub fn PasteButton() -> impl IntoView {
    let session = Session::expect();
    let navigate = use_navigate();
    let open = use_context::<PasteOpen>().map(|p| p.0).unwrap_or_else(|| RwSignal::new(false));
    let text = RwSignal::new(String::new());
    let dialog = NodeRef::<leptos::html::Dialog>::new();
    let area = NodeRef::<leptos::html::Textarea>::new();
    let opener = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        let Some(d) = dialog.get() else { return };
        if open.get() {
            browser::show_modal(&d);
            if let Some(a) = area.get() {
                browser::focus(&a);
            }
        } else {
            browser::close_dialog(&d);
        }
    });
    // However it closed (Escape is the browser's), the state follows and
    // focus returns to the button that opened it.
    let on_close = move |_| {
        open.set(false);
        if let Some(b) = opener.get_untracked() {
            browser::focus(&b);
        }
    };
    let load = move |_| {
        let bytes: Arc<[u8]> = text.get_untracked().into_bytes().into();
        let navigate = navigate.clone();
        leptos::task::spawn_local(async move {
            if open_bytes(session, Source::Pasted, bytes, navigate).await {
                open.try_set(false);
                text.try_set(String::new());
            }
        });
    };
    let busy = move || session.importing.with(Option::is_some) || session.loading.with(Option::is_some);
    view! {
        <button type="button" class="btn" node_ref=opener aria-haspopup="dialog" data-testid="paste-open"
            on:click=move |_| open.set(true)>
            <Ico name="clipboard-paste"/><span class="btn-label">" Paste…"</span>
        </button>
        <dialog class="paste-dialog" node_ref=dialog aria-labelledby="paste-title" data-testid="paste-dialog"
            on:close=on_close
            on:keydown=move |ev| {
                if let Some(d) = dialog.get_untracked() {
                    if browser::trap_tab(&d, &ev) {
                        ev.prevent_default();
                    }
                }
            }>
            <h2 id="paste-title" class="dialog-title">"Paste an envelope or a request"</h2>
            <label for="paste-area">{format!("Paste JSON: {OPENS}")}</label>
            <textarea id="paste-area" node_ref=area data-testid="paste-json" rows="12" spellcheck="false"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            <Show when=move || open.get()>
                <LoadErrors inside_dialog=true/>
            </Show>
            <div class="row">
                <button type="button" class="btn primary" data-testid="paste-load" on:click=load.clone()
                    disabled=busy>{move || if busy() { "Opening…" } else { "Load" }}</button>
                // Cancel also stops an open in progress (the document on screen stays).
                <button type="button" class="btn" data-testid="paste-cancel" on:click=move |_| {
                    if busy() {
                        session.cancel_loading();
                    }
                    open.set(false);
                }>"Cancel"</button>
            </div>
        </dialog>
    }
}

/// Errors of the last failed load, with their paths, or the engine's
/// failure with "Try again"; the view behind stays.
#[component]
pub fn LoadErrors(
    /// The copy inside the paste dialog (shown while it is open; the one in
    /// the page's notices waits until it closes).
    #[prop(optional)]
    inside_dialog: bool,
) -> impl IntoView {
    let session = Session::expect();
    let navigate = use_navigate();
    let dialog_open = use_context::<PasteOpen>().map(|p| p.0);
    move || {
        if !inside_dialog && dialog_open.is_some_and(|o| o.get()) {
            return None;
        }
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
                        open_bytes(session, retry.source, retry.bytes, navigate).await;
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
                        <Ico name="triangle-alert"/>
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

/// While the engine imports a request, or a big document is read on the
/// page: what, how far, that the view on screen stays, and Cancel (which
/// keeps it). One live region that stays in the page, so that each step is
/// announced.
#[component]
pub fn ImportProgress() -> impl IntoView {
    let session = Session::expect();
    let importing = move || {
        session.importing.get().map(|what| {
            view! {
                <div class="notice progress" data-testid="import-progress">
                    <span class="spinner" aria-hidden="true"></span>
                    <span>{format!(" Importing {what}: reading the request in the engine (a Web Worker, loaded once)…")}</span>
                </div>
            }
        })
    };
    // The line is built once per load (each step changes its text only):
    // a keyboard user's focus on Cancel survives the steps.
    let loading = Memo::new(move |_| session.loading.with(Option::is_some));
    let loading = move || loading.get().then(|| view! { <LoadingLine/> });
    view! { <div class="load-status" role="status" aria-live="polite">{importing}{loading}</div> }
}

/// A big document being read: its step, a bar, and Cancel.
#[component]
fn LoadingLine() -> impl IntoView {
    let session = Session::expect();
    let step_text = move || {
        session.loading.with(|l| {
            l.as_ref()
                .map(|l| {
                    format!(" Opening {}: {} The document on screen stays until this one is ready.", l.what, l.doing)
                })
                .unwrap_or_default()
        })
    };
    let step = move || session.loading.with(|l| l.as_ref().map_or(0, |l| l.step));
    view! {
        <div class="notice progress" data-testid="load-progress">
            <span class="spinner" aria-hidden="true"></span>
            <span data-testid="load-step">{step_text}</span>
            <progress max=LOADING_STEPS value=step aria-label="Opening progress"></progress>
            <button type="button" class="btn small" data-testid="load-cancel" on:click=move |_| session.cancel_loading()>"Cancel"</button>
        </div>
    }
}

/// "Imported from Anthropic Messages" for a document read from a request,
/// with the import's notices (what had no place in the envelope) a click away.
#[component]
pub fn ImportedFrom() -> impl IntoView {
    let session = Session::expect();
    move || {
        let doc = session.doc.get()?;
        let origin = doc.origin.clone()?;
        let n = origin.notices.len();
        let items: Vec<(String, String)> = origin.notices.into_iter().map(|d| (d.path, d.message)).collect();
        Some(view! {
            <section class="notice info imported" data-testid="imported-from" data-format=origin.format>
                <header>
                    <Ico name="file-code"/>
                    <span>" Imported from "<strong>{origin.label}</strong>
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
            <Ico name="info"/>" "{summary}
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
pub fn diag_target(d: &envelope::Diagnostic) -> Option<Target> {
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
pub fn Warnings() -> impl IntoView {
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
                    <Ico name="info"/>
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

/// Notices (storage problems and the like) until dismissed.
#[component]
pub fn Notices() -> impl IntoView {
    let session = Session::expect();
    view! {
        <For each=move || session.notices.get() key=|n| n.id let:n>
            <div class="notice" class:error=n.is_error role="status" data-testid="notice">
                <span>{n.text.clone()}</span>
                <button type="button" class="link" on:click=move |_| session.notices.update(|v| v.retain(|x| x.id != n.id))>"Dismiss"</button>
            </div>
        </For>
    }
}

/// Whether a drag carries files (to show the drop hint only then).
pub fn drag_has_files(ev: &web_sys::DragEvent) -> bool {
    ev.data_transfer().map(|d| d.types().iter().any(|t| t.as_string().as_deref() == Some("Files"))).unwrap_or(false)
}
