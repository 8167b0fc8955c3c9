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
use crate::state::{LoadFailure, Session};

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

/// Reads a picked or dropped file, then loads it.
fn open_file(session: Session, file: web_sys::File, navigate: impl Fn(&str, NavigateOptions) + 'static) {
    let name = file.name();
    leptos::task::spawn_local(async move {
        match browser::read_file(&file).await {
            Ok(bytes) => {
                open_bytes(session, Source::File(name), bytes.into(), navigate).await;
            }
            Err(e) => {
                session.load_failure.try_set(Some(LoadFailure {
                    source: name,
                    errors: vec![envelope::Diagnostic::new(
                        envelope::diag::Rule::UnreadableFile,
                        "",
                        format!("the file could not be read: {e}"),
                    )],
                    engine: None,
                }));
            }
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
            <Ico name="folder-open"/>" Open…"
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

/// The "Paste…" button and its dialog.
#[component]
pub fn PasteButton() -> impl IntoView {
    let session = Session::expect();
    let navigate = use_navigate();
    let open = RwSignal::new(false);
    let text = RwSignal::new(String::new());
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
    let busy = move || session.importing.with(Option::is_some);
    view! {
        <button type="button" class="btn" aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|o| *o = !*o)>
            <Ico name="clipboard-paste"/>" Paste…"
        </button>
        <Show when=move || open.get()>
            <div class="paste-dialog" role="dialog" aria-label="Paste an envelope or a request">
                <label for="paste-area">{format!("Paste JSON: {OPENS}")}</label>
                <textarea id="paste-area" data-testid="paste-json" rows="12" spellcheck="false"
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                <div class="row">
                    <button type="button" class="btn primary" data-testid="paste-load" on:click=load.clone()
                        disabled=busy>{move || if busy() { "Importing…" } else { "Load" }}</button>
                    <button type="button" class="btn" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
            </div>
        </Show>
    }
}

/// Errors of the last failed load, with their paths, or the engine's
/// failure with "Try again"; the view behind stays.
#[component]
pub fn LoadErrors() -> impl IntoView {
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

/// While the engine imports a request: what, and that the view stays.
#[component]
pub fn ImportProgress() -> impl IntoView {
    let session = Session::expect();
    move || {
        session.importing.get().map(|what| {
            view! {
                <div class="notice progress" role="status" data-testid="import-progress">
                    <span class="spinner" aria-hidden="true"></span>
                    {format!(" Importing {what}: reading the request in the engine (a Web Worker, loaded once)…")}
                </div>
            }
        })
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

/// Warnings of the shown document, dismissible.
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
        // A disclosure like every other toggle of the app: a real button with
        // aria-expanded, and "Dismiss" beside it rather than inside it.
        let open = RwSignal::new(false);
        Some(view! {
            <section class="notice warn" data-testid="warnings">
                <header>
                    <button type="button" class="link warn-toggle" aria-expanded=move || open.get().to_string()
                        on:click=move |_| open.update(|o| *o = !*o)>
                        <Ico name="info"/>
                        {format!(" {} — the document loads, but:", count(n, "warning"))}
                    </button>
                    <button type="button" class="link" on:click=move |_| session.warnings_dismissed.set(true)>"Dismiss"</button>
                </header>
                <Show when=move || open.get()>
                    <PathList items=doc.warnings.iter().map(|d| (d.path.clone(), d.message.clone())).collect() whole="(document)"/>
                </Show>
            </section>
        })
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
