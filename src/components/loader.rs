//! Getting documents in: "Open…", drag and drop, "Paste…"; and telling the
//! user what went wrong (load errors with paths, warnings, notices).

use crate::components::count;
use crate::components::icons::Ico;
use crate::router::{use_navigate, NavigateOptions};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::doc::Source;
use crate::state::Session;

/// Loads the user's bytes; on success shows `/doc`.
fn open_bytes(session: Session, source: Source, bytes: Vec<u8>, navigate: impl Fn(&str, NavigateOptions)) {
    if session.open_user_document(source, &bytes) {
        navigate("/doc", Default::default());
    }
}

/// Reads a picked or dropped file, then loads it.
fn open_file(session: Session, file: web_sys::File, navigate: impl Fn(&str, NavigateOptions) + 'static) {
    let name = file.name();
    leptos::task::spawn_local(async move {
        match browser::read_file(&file).await {
            Ok(bytes) => open_bytes(session, Source::File(name), bytes, navigate),
            Err(e) => session.load_failure.set(Some(crate::state::LoadFailure {
                source: name,
                errors: vec![envelope::Diagnostic::new(
                    envelope::diag::Rule::UnreadableFile,
                    "",
                    format!("the file could not be read: {e}"),
                )],
            })),
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
        <label class="btn" title="Open an envelope JSON file">
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
        let bytes = text.get_untracked().into_bytes();
        if session.open_user_document(Source::Pasted, &bytes) {
            open.set(false);
            text.set(String::new());
            navigate("/doc", Default::default());
        }
    };
    view! {
        <button type="button" class="btn" aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|o| *o = !*o)>
            <Ico name="clipboard-paste"/>" Paste…"
        </button>
        <Show when=move || open.get()>
            <div class="paste-dialog" role="dialog" aria-label="Paste an envelope">
                <label for="paste-area">"Paste an envelope JSON document"</label>
                <textarea id="paste-area" data-testid="paste-json" rows="12" spellcheck="false"
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                <div class="row">
                    <button type="button" class="btn primary" data-testid="paste-load" on:click=load.clone()>"Load"</button>
                    <button type="button" class="btn" on:click=move |_| open.set(false)>"Cancel"</button>
                </div>
            </div>
        </Show>
    }
}

/// Errors of the last failed load, with their paths; the view behind stays.
#[component]
pub fn LoadErrors() -> impl IntoView {
    let session = Session::expect();
    move || {
        session.load_failure.get().map(|f| {
            let n = f.errors.len();
            view! {
                <section class="notice error" data-testid="load-errors" role="alert">
                    <header>
                        <Ico name="triangle-alert"/>
                        <strong>{format!(" {} could not be loaded: {}", f.source, count(n, "error"))}</strong>
                        <button type="button" class="link" on:click=move |_| session.load_failure.set(None)>"Dismiss"</button>
                    </header>
                    <p class="muted">"The document on screen is unchanged."</p>
                    <ul class="diag-list">
                        {f.errors.into_iter().map(|d| view! {
                            <li><code class="path">{if d.path.is_empty() { "(document)".to_string() } else { d.path.clone() }}</code>" "{d.message}</li>
                        }).collect::<Vec<_>>()}
                    </ul>
                </section>
            }
        })
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
                    <ul class="diag-list">
                        {doc.warnings.iter().map(|d| view! {
                            <li><code class="path">{d.path.clone()}</code>" "{d.message.clone()}</li>
                        }).collect::<Vec<_>>()}
                    </ul>
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
