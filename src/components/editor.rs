//! Edit mode's views: the bar (model, undo/redo, download, share) and one
//! plain field per editable value (textareas: light, no editor library).
//! A field commits its edit when the user pauses typing (or leaves it);
//! what is typed is checked as it is typed (tool-call arguments must be a
//! JSON object: the error says what and where, and nothing is committed).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use envelope::calls::At;
use envelope::edit::{parse_arguments, Edit};
use envelope::Segment;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::components::icons::{Ico, Icon};
use crate::edit::{debounce, Editing};
use crate::state::Session;

/// Milliseconds of pause after which what is typed becomes an edit.
const PAUSE_MS: i32 = 250;

/// Turns what is typed into an edit, or says what is wrong with it.
pub type ToEdit = Rc<dyn Fn(&str) -> Result<Edit, String>>;

fn selection(el: &web_sys::EventTarget) -> Option<(u32, u32)> {
    if let Some(t) = el.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        return Some((t.selection_start().ok()??, t.selection_end().ok()??));
    }
    let i = el.dyn_ref::<web_sys::HtmlInputElement>()?;
    Some((i.selection_start().ok()??, i.selection_end().ok()??))
}

/// One editable value: a textarea (`multiline`) or a one-line input.
#[component]
pub fn EditField(
    /// Identifies the field across rebuilds of the view (focus and caret stay).
    key: String,
    value: String,
    label: String,
    multiline: bool,
    to_edit: ToEdit,
    testid: &'static str,
) -> impl IntoView {
    let editing = Editing::expect();
    let error = RwSignal::new(None::<String>);
    let timer: Rc<Cell<u64>> = Rc::default();
    let original = Rc::new(value.clone());
    let on_input = {
        let (key, to_edit, original) = (key.clone(), to_edit.clone(), original.clone());
        move |ev: web_sys::Event| {
            let v = event_target_value(&ev);
            if let Some((a, b)) = ev.target().as_ref().and_then(selection) {
                editing.focused(&key, a, b);
            }
            match to_edit(&v) {
                Err(e) => {
                    error.set(Some(e));
                    editing.release();
                }
                Ok(edit) => {
                    error.set(None);
                    if v == *original {
                        editing.release();
                        return;
                    }
                    let done = Rc::new(RefCell::new(Some(edit)));
                    let commit: Rc<dyn Fn()> = Rc::new(move || {
                        if let Some(edit) = done.borrow_mut().take() {
                            editing.release();
                            editing.apply(edit);
                        }
                    });
                    editing.hold(commit.clone());
                    debounce(&timer, PAUSE_MS, move || commit());
                }
            }
        }
    };
    let on_focus = {
        let key = key.clone();
        move |ev: web_sys::FocusEvent| {
            if let Some((a, b)) = ev.target().as_ref().and_then(selection) {
                editing.focused(&key, a, b);
            }
        }
    };
    let on_blur = {
        let key = key.clone();
        move |ev: web_sys::FocusEvent| {
            // Looked at once the event is over: a field removed from the page
            // by a rebuild is not left by the user (the rebuilt one takes the
            // focus back); one still there is.
            let Some(node) = ev.target().and_then(|t| t.dyn_into::<web_sys::Node>().ok()) else { return };
            let key = key.clone();
            browser::after(0, move || {
                if node.is_connected() {
                    editing.blurred(&key);
                    editing.flush();
                    editing.seal();
                }
            });
        }
    };
    let area = NodeRef::<html::Textarea>::new();
    let input = NodeRef::<html::Input>::new();
    // Rebuilt while the user typed in it: focus and caret come back.
    if let Some((a, b)) = editing.restore(&key) {
        Effect::new(move |_| {
            if let Some(el) = area.get() {
                let _ = el.focus();
                let _ = el.set_selection_range(a, b);
            } else if let Some(el) = input.get() {
                let _ = el.focus();
                let _ = el.set_selection_range(a, b);
            }
        });
    }
    // Tall enough for the text at ~60 characters a line, within 2..16 rows.
    let rows = value.lines().map(|l| 1 + l.chars().count() / 60).sum::<usize>().clamp(2, 16).to_string();
    let field = if multiline {
        view! {
            <textarea class="edit-field" data-testid=testid data-edit-key=key.clone() aria-label=label.clone()
                rows=rows spellcheck="false" node_ref=area
                on:input=on_input on:focus=on_focus on:blur=on_blur
                aria-invalid=move || error.with(Option::is_some).then_some("true")>{value}</textarea>
        }
        .into_any()
    } else {
        view! {
            <input class="edit-field one-line" data-testid=testid data-edit-key=key.clone() aria-label=label.clone()
                value=value spellcheck="false" node_ref=input
                on:input=on_input on:focus=on_focus on:blur=on_blur
                aria-invalid=move || error.with(Option::is_some).then_some("true")/>
        }
        .into_any()
    };
    view! {
        {field}
        {move || error.get().map(|e| view! { <p class="edit-error" role="alert" data-testid="edit-error">{e}</p> })}
    }
}

/// What of Edit mode to show: one entry point, so that all of Edit mode's
/// views are one split module (`crate::split::EDIT`) with one loader.
pub enum EditView {
    /// The bar.
    Bar,
    /// A segment's fields (`None` for a kind with nothing to edit).
    Segment(Box<Segment>, At),
    /// A session variable's value, as a chip's field.
    Variable { name: String, value: String },
}

/// Edit mode's views. In a release build for the browser this is a split
/// point: the code of Edit mode is fetched when Edit mode is first turned on.
#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(edit, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_edit))
)]
fn edit_view(what: EditView) -> Result<Option<AnyView>, ::leptos::wasm_split::SplitLoaderError> {
    Ok(match what {
        EditView::Bar => Some(view! { <EditBar/> }.into_any()),
        EditView::Segment(segment, at) => segment_fields(&segment, at),
        EditView::Variable { name, value } => Some(variable_field(name, value)),
    })
}

/// Undo (or redo, `redo`) from the keyboard in Edit mode: code of Edit
/// mode's module (a split point), called through the module's loader (in a
/// task of its own); nothing happens while the module is not here yet.
pub fn undo_redo(editing: Editing, redo: bool) {
    if !edit_loaded() {
        return;
    }
    leptos::task::spawn_local(async move {
        let done = crate::split::split_call!(edit_step(editing, redo));
        if done.is_err() {
            editing.error.try_set(Some(
                crate::split::unfetched!("Undo could not run: Edit mode's code could not be loaded", ".").into(),
            ));
        }
    });
}

#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(edit, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn edit_step(editing: Editing, redo: bool) -> Result<(), ::leptos::wasm_split::SplitLoaderError> {
    if redo {
        editing.redo();
    } else {
        editing.undo();
    }
    Ok(())
}

// Edit mode's module: `edit_loaded()`, `load_edit()`.
crate::split::split_loader!(EDIT_LOADED, pub fn edit_loaded, load_edit, preload_edit);

/// An Edit mode view now, or `None` (also while its module is not here).
pub fn edit_view_now(what: EditView) -> Option<AnyView> {
    #[cfg(pep_split)]
    {
        if !edit_loaded() {
            return None;
        }
        crate::split::now(edit_view(what)).and_then(Result::ok).flatten()
    }
    #[cfg(not(pep_split))]
    edit_view(what).ok().flatten()
}

/// A segment in Edit mode: its editable values as fields, or `None` for a
/// kind with nothing to edit here (it is shown as usual).
pub fn segment_editor(segment: &Segment, at: At) -> Option<AnyView> {
    edit_view_now(EditView::Segment(Box::new(segment.clone()), at))
}

/// A session variable's value as a field.
fn variable_field(name: String, value: String) -> AnyView {
    let to_edit: ToEdit = Rc::new({
        let name = name.clone();
        move |t: &str| Ok(Edit::Variable { name: name.clone(), value: t.to_string() })
    });
    view! {
        <li class="chip chip-edit">
            <code class="chip-name">{name.clone()}</code>
            <span class="chip-eq">" = "</span>
            <EditField key=format!("var:{name}") value
                label=format!("Value of {name}") multiline=false to_edit testid="edit-variable"/>
        </li>
    }
    .into_any()
}

fn segment_fields(segment: &Segment, at: At) -> Option<AnyView> {
    let At { message, segment: sj } = at;
    let text_edit = move |item: Option<usize>| -> ToEdit {
        Rc::new(move |t: &str| Ok(Edit::Text { message, segment: sj, item, text: t.to_string() }))
    };
    let key = |item: Option<usize>| match item {
        Some(i) => format!("text:{message}:{sj}:{i}"),
        None => format!("text:{message}:{sj}"),
    };
    let one = |label: String, value: &str| {
        view! {
            <div class="seg seg-edit" data-kind=segment.kind() data-edit="true">
                <EditField key=key(None) value=value.to_string() label multiline=true to_edit=text_edit(None) testid="edit-text"/>
            </div>
        }
        .into_any()
    };
    match segment {
        Segment::Text(t) => Some(one(format!("Text of message {}", message + 1), &t.content)),
        Segment::SystemPrompt(t) => Some(one("System prompt".into(), &t.content)),
        Segment::LongText(t) => Some(one("Long text".into(), &t.content)),
        Segment::Memory(m) => Some(item_fields(
            "memory",
            "Memory",
            "edit-memory",
            m.items.iter().enumerate().map(|(i, it)| {
                (
                    key(Some(i)),
                    it.title.clone(),
                    it.content.clone(),
                    format!("Memory: {}", it.title),
                    text_edit(Some(i)),
                )
            }),
        )),
        Segment::Skills(m) => Some(item_fields(
            "skills",
            "Skills",
            "edit-skill",
            m.items.iter().enumerate().map(|(i, it)| {
                let body = it.body.clone().unwrap_or_default();
                (
                    key(Some(i)),
                    format!("{} (body)", it.name),
                    body,
                    format!("Skill {} body", it.name),
                    text_edit(Some(i)),
                )
            }),
        )),
        Segment::ToolCallRequest(r) => {
            let value = serde_json::to_string_pretty(&r.arguments).unwrap_or_default();
            let to_edit: ToEdit = Rc::new(move |t: &str| match parse_arguments(t) {
                Ok(arguments) => Ok(Edit::Arguments { message, segment: sj, arguments }),
                Err(d) => Err(format!("{}: {}", d.path, d.message)),
            });
            Some(
                view! {
                    <div class="seg seg-edit" data-kind="tool_call_request" data-edit="true">
                        <p class="edit-kind">{format!("{}(…) arguments (JSON object)", r.tool_name)}</p>
                        <EditField key=format!("args:{message}:{sj}") value label=format!("Arguments of {}", r.tool_name)
                            multiline=true to_edit testid="edit-arguments"/>
                    </div>
                }
                .into_any(),
            )
        }
        _ => None,
    }
}

/// The fields of a segment with items (memory, skills): one labelled field
/// per item, given as (key, name shown, value, field label, edit).
fn item_fields(
    kind: &'static str,
    title: &'static str,
    testid: &'static str,
    items: impl Iterator<Item = (String, String, String, String, ToEdit)>,
) -> AnyView {
    let fields: Vec<AnyView> = items
        .map(|(key, name, value, label, to_edit)| {
            view! {
                <label class="edit-item"><span class="edit-item-name">{name}</span>
                    <EditField key value label multiline=true to_edit testid/>
                </label>
            }
            .into_any()
        })
        .collect();
    view! { <div class="seg seg-edit" data-kind=kind data-edit="true"><p class="edit-kind">{title}</p>{fields}</div> }
        .into_any()
}

/// Edit mode's bar: the model, undo and redo, and downloading the edited document.
#[component]
pub fn EditBar() -> impl IntoView {
    let editing = Editing::expect();
    let session = Session::expect();
    let status = RwSignal::new(None::<(bool, String)>);
    let model_field = move || {
        session.doc.get().map(|d| {
            let to_edit: ToEdit = Rc::new(|t: &str| {
                let t = t.trim();
                Ok(Edit::Model((!t.is_empty()).then(|| t.to_string())))
            });
            view! {
                <label class="edit-model">"Model "
                    <EditField key="model".to_string() value=d.envelope.model.clone().unwrap_or_default()
                        label="Model".to_string() multiline=false to_edit testid="edit-model"/>
                </label>
            }
        })
    };
    let download = move |_| {
        editing.flush();
        let Some(d) = session.doc.get_untracked() else { return };
        let name = format!("{}.envelope.json", d.source.stem());
        status.set(Some(match browser::download_text(&name, &d.raw_text(), "application/json") {
            Ok(()) => (true, format!("Saved {name}")),
            Err(e) => (false, format!("Download failed: {e}")),
        }));
    };
    view! {
        <section class="edit-bar" aria-label="Edit" data-testid="edit-bar">
            {model_field}
            <button type="button" class="btn small" data-testid="edit-undo" title="Undo (Ctrl+Z)"
                disabled=move || !editing.can_undo.get() on:click=move |_| editing.undo()>
                <Ico icon=Icon::Undo/>" Undo"
            </button>
            <button type="button" class="btn small" data-testid="edit-redo" title="Redo (Ctrl+Shift+Z)"
                disabled=move || !editing.can_redo.get() on:click=move |_| editing.redo()>
                <Ico icon=Icon::Redo/>" Redo"
            </button>
            <button type="button" class="btn small" data-testid="download-envelope" on:click=download
                title="The document as edited, as an envelope file">
                <Ico icon=Icon::Download/>" Download envelope"
            </button>
            <span class="muted small">"Edits change your copy (shown at “Your document”), never a demo."</span>
            {move || editing.error.get().map(|e| view! { <p class="edit-error" role="alert">{e}</p> })}
            {move || status.get().map(|(ok, m)| view! { <span class="status" class:error=!ok role="status">{m}</span> })}
        </section>
    }
}

/// "Copy link": the whole document in the link's fragment, with what that means.
#[component]
pub fn ShareLink() -> impl IntoView {
    // Only in the app (a component test may mount a conversation alone).
    let Some(session) = use_context::<Session>() else { return ().into_any() };
    let editing = use_context::<Editing>();
    let status = RwSignal::new(None::<(bool, String)>);
    // "Redact secrets": the link holds the document with every secret masked.
    let redact = RwSignal::new(false);
    let copy = move |_| {
        if let Some(e) = editing {
            e.flush();
        }
        let Some(doc) = session.doc.get_untracked() else { return };
        let redact = redact.get_untracked();
        leptos::task::spawn_local(async move {
            let made = match crate::share::make_link(doc, redact).await {
                Ok((link, chars)) => browser::copy_text(&link).await.map(|()| chars),
                Err(e) => Err(e),
            };
            status.try_set(Some(match made {
                Ok(chars) => (
                    true,
                    format!(
                        "Link copied ({chars} characters after #{}).",
                        if redact { ", secrets redacted" } else { "" }
                    ),
                ),
                Err(e) => (false, format!("No link: {e}")),
            }));
        });
    };
    view! {
        <span class="share">
            <button type="button" class="btn small" data-testid="copy-link" on:click=copy
                title="Copy a link that holds this whole document">
                <Ico icon=Icon::Link/>" Copy link"
            </button>
            <label class="redact-opt small" title="The link holds the document with every secret masked (its issuer's prefix and stars)">
                <input type="checkbox" data-testid="share-redact"
                    on:change=move |ev| { redact.set(event_target_checked(&ev)); status.set(None); }/>
                " Redact secrets"
            </label>
            <span class="muted small share-note">"The document travels in the link after “#”, which browsers never send to a server."</span>
            {move || status.get().map(|(ok, m)| view! {
                <span class="status" class:error=!ok role="status" data-testid="share-status">{m}</span>
            })}
        </span>
    }
    .into_any()
}

/// Edit mode's bar (its module: [`edit_view`]).
pub fn edit_bar() -> impl IntoView {
    crate::split::deferred(crate::split::Split {
        name: "Edit bar",
        loaded: edit_loaded,
        load: || Box::pin(load_edit()),
        build: || {
            let view = edit_view_now(EditView::Bar).unwrap_or_else(|| ().into_any());
            Box::pin(async move { view })
        },
    })
}
