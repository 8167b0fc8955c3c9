//! Getting documents in: "Open…", drag and drop, "Paste…" (envelopes, and
//! OpenAI Chat, OpenAI Responses and Anthropic Messages requests, which the
//! engine imports); and telling the user what happened (load errors with
//! paths, the import's progress and origin, warnings, notices).

use std::sync::Arc;

use crate::components::icons::{Ico, Icon};
use crate::components::reports::{shown, Report};
use crate::router::{use_navigate, use_route, NavigateOptions, Route};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::doc::Source;
use crate::state::{is_skill, Session, SkillsInbox, SkillsInput, TemplateInbox, LOADING_STEPS};

/// What the user can open, for titles and hints.
const OPENS: &str = "an envelope, or an OpenAI Chat, OpenAI Responses or Anthropic Messages request; or many calls: an OpenTelemetry trace and its logs, a batch file, JSON Lines";

/// Reads picked or dropped files, then loads them; on success shows `/doc`
/// (one document) or `/calls` (recorded calls: a trace and its logs, …).
fn open_files(session: Session, files: Vec<web_sys::File>, navigate: impl Fn(&str, NavigateOptions) + 'static) {
    leptos::task::spawn_local(async move {
        if let Some(path) = session.open_user_files(files).await {
            navigate(path, Default::default());
        }
    });
}

/// SKILL.md files and folders go to the Skills page (`state::skills`):
/// true when `input` was one and has gone there.
fn to_skills(
    inbox: Option<SkillsInbox>,
    input: Option<SkillsInput>,
    navigate: &impl Fn(&str, NavigateOptions),
) -> bool {
    let (Some(input), Some(inbox)) = (input, inbox) else { return false };
    inbox.put(input);
    navigate("/skills", Default::default());
    true
}

/// The files of a file list.
fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    list.map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect()).unwrap_or_default()
}

/// The "Open…" button and its hidden file input.
#[component]
pub fn OpenButton() -> impl IntoView {
    let session = Session::expect();
    let navigate = use_navigate();
    let inbox = use_context::<SkillsInbox>();
    let on_change = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else {
            return;
        };
        let files = files_of(input.files());
        let skills = files.iter().any(|f| is_skill(&f.name(), &[])).then(|| SkillsInput::Files(files.clone()));
        if !files.is_empty() && !to_skills(inbox, skills, &navigate) {
            open_files(session, files, navigate.clone());
        }
        // Let the same file be picked again.
        input.set_value("");
    };
    view! {
        <label class="btn" title=format!("Open a JSON file: {OPENS}")>
            <Ico icon=Icon::FolderOpen/><span class="btn-label">" Open…"</span>
            <input type="file" accept=".json,.jsonl,.ndjson,application/json,.md,text/markdown" multiple class="visually-hidden"
                data-testid="open-file" on:change=on_change/>
        </label>
    }
}

/// Loads a file dropped anywhere on the page.
pub fn on_drop(session: Session) -> impl Fn(web_sys::DragEvent) + Clone + 'static {
    let navigate = use_navigate();
    let inbox = use_context::<SkillsInbox>();
    let templates = use_context::<TemplateInbox>();
    let route = use_route();
    move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        let files = files_of(ev.data_transfer().and_then(|d| d.files()));
        // On the Template page, dropped files are what its templates include.
        if let (Route::Template, Some(templates), false) = (route.get_untracked(), templates, files.is_empty()) {
            templates.put(files);
            return;
        }
        if to_skills(inbox, crate::state::skills_dropped(&ev), &navigate) {
            return;
        }
        if !files.is_empty() {
            open_files(session, files, navigate.clone());
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
///
/// The dialog's form is code of the opening module (a split point, like the
/// open it leads to): the first "Paste…" opens the dialog at once, which says
/// "Loading…" until the module is here (or that it could not be fetched, with
/// Retry); the text area then takes the focus.
#[component]
pub fn PasteButton() -> impl IntoView {
    let open = use_context::<PasteOpen>().map(|p| p.0).unwrap_or_else(|| RwSignal::new(false));
    let form = PasteForm { text: RwSignal::new(String::new()), open, area: NodeRef::<leptos::html::Textarea>::new() };
    provide_context(form);
    let dialog = NodeRef::<leptos::html::Dialog>::new();
    let opener = NodeRef::<leptos::html::Button>::new();
    // Open: shown, and the text area focused (also when it arrives later).
    Effect::new(move |_| {
        let Some(d) = dialog.get() else { return };
        if open.get() {
            browser::show_modal(&d);
            if let Some(a) = form.area.get() {
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
    view! {
        <button type="button" class="btn" node_ref=opener aria-haspopup="dialog" data-testid="paste-open"
            on:click=move |_| open.set(true)>
            <Ico icon=Icon::ClipboardPaste/><span class="btn-label">" Paste…"</span>
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
            {move || open.get().then(|| crate::split::deferred(PASTE_FORM))}
        </dialog>
    }
}

/// What the paste dialog's form works with (the dialog's state, in the main
/// module; a context of the dialog).
#[derive(Clone, Copy)]
pub struct PasteForm {
    text: RwSignal<String>,
    open: RwSignal<bool>,
    area: NodeRef<leptos::html::Textarea>,
}

/// The paste dialog's form, as a split view of the opening module.
const PASTE_FORM: crate::split::Split = crate::split::Split {
    name: "paste form",
    loaded: paste_form_loaded,
    load: || Box::pin(load_paste_form()),
    build: || Box::pin(async { paste_form_now() }),
};

// The form's own loader (`crate::split::split_loader!`).
crate::split::split_loader!(PASTE_FORM_HERE, fn paste_form_loaded, fetch_paste_form, preload_paste_form);

/// The paste dialog's form. In a release build for the browser this is a
/// split point of the opening module.
#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(opening, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_paste_form))
)]
fn paste_form(form: PasteForm) -> Result<AnyView, ::leptos::wasm_split::SplitLoaderError> {
    Ok(view! { <PasteFormView form/> }.into_any())
}

/// Fetches the opening module for the paste form (at once where there is none).
async fn load_paste_form() -> bool {
    let ok = fetch_paste_form().await;
    if ok {
        crate::state::set_opening_here(true);
    }
    ok
}

/// The form now (called when the opening module is here), for the dialog's [`PasteForm`].
fn paste_form_now() -> AnyView {
    let Some(form) = use_context::<PasteForm>() else { return ().into_any() };
    #[cfg(pep_split)]
    let view = crate::split::now(paste_form(form)).and_then(Result::ok);
    #[cfg(not(pep_split))]
    let view = paste_form(form).ok();
    view.unwrap_or_else(|| ().into_any())
}

#[component]
fn PasteFormView(form: PasteForm) -> impl IntoView {
    let session = Session::expect();
    let navigate = use_navigate();
    let inbox = use_context::<SkillsInbox>();
    let PasteForm { text, open, area } = form;
    let load = move |_| {
        let pasted = text.get_untracked();
        let skill = is_skill("", pasted.as_bytes()).then(|| SkillsInput::Text(pasted.clone()));
        if to_skills(inbox, skill, &navigate) {
            open.set(false);
            text.set(String::new());
            return;
        }
        let bytes: Arc<[u8]> = pasted.into_bytes().into();
        let navigate = navigate.clone();
        leptos::task::spawn_local(async move {
            if session.open_and_show(Source::Pasted, bytes, navigate).await {
                open.try_set(false);
                text.try_set(String::new());
            }
        });
    };
    let busy = move || session.importing.with(Option::is_some) || session.loading.with(Option::is_some);
    view! {
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
    }
}

/// Errors of the last failed load, with their paths, or the engine's
/// failure with "Try again"; the view behind stays (`reports`).
#[component]
pub fn LoadErrors(
    /// The copy inside the paste dialog (shown while it is open; the one in
    /// the page's notices waits until it closes).
    #[prop(optional)]
    inside_dialog: bool,
) -> impl IntoView {
    let session = Session::expect();
    let dialog_open = use_context::<PasteOpen>().map(|p| p.0);
    let failed = Memo::new(move |_| session.load_failure.with(Option::is_some));
    move || {
        if !inside_dialog && dialog_open.is_some_and(|o| o.get()) {
            return None;
        }
        failed.get().then(|| shown(Report::LoadErrors))
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
/// with the import's notices a click away (`reports`).
#[component]
pub fn ImportedFrom() -> impl IntoView {
    let session = Session::expect();
    let imported = Memo::new(move |_| session.doc.with(|d| d.as_ref().is_some_and(|d| d.origin.is_some())));
    move || imported.get().then(|| shown(Report::ImportedFrom))
}

/// Warnings of the shown document, listed, each path a link to what it
/// concerns; dismissible (`reports`).
#[component]
pub fn Warnings() -> impl IntoView {
    let session = Session::expect();
    let any = Memo::new(move |_| {
        !session.warnings_dismissed.get() && session.doc.with(|d| d.as_ref().is_some_and(|d| !d.warnings.is_empty()))
    });
    move || any.get().then(|| shown(Report::Warnings))
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
