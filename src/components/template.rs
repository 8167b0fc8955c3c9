//! The Template view (`/template`): a PromptPoet template (YAML + Jinja2) and
//! its data (JSON) in two editors with line numbers, rendered in the engine
//! as prompt-poet 0.0.52 renders them (debounced, as the user types), the
//! result shown as the conversation with the usual panels (export, raw,
//! budget, checks) and as PromptPoet's parts (name, role, priority, tokens).
//! An error names its line and column, in the editor it concerns; the last
//! good render stays on screen meanwhile. The template and data are kept in
//! this browser's storage.
//!
//! `include`, `import` and `extends` load from the files the user opens
//! ("Open a folder…" or "Add files…") or drops on the page: they are read once, by their path in
//! the folder, and sent with each render (they are not kept in storage).
//!
//! Template text is hostile: it is never evaluated on the page; the engine
//! runs it in the core's minijinja sandbox (only the files sent, bounded work).

use std::collections::BTreeMap;
use std::sync::Arc;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::browser;
use crate::components::dom::{el, Static, E};
use crate::components::viewer::Viewer;
use crate::doc::{Doc, Source};
use crate::router::href;
use crate::state::{Session, TemplateInbox};
use crate::worker;
use crate::worker::render::{Failure, FailureSource, Part, Reply};
use envelope::display::thousands as fmt_int;

/// Storage key of the template and its data.
pub const TEMPLATE_KEY: &str = "pep/v1/template";
/// Pause after the last keystroke before rendering.
const DEBOUNCE_MS: i32 = 300;
/// The most files read for `include` & co. (the renderer loads at most as
/// many: `promptpoet::jinja::MAX_TEMPLATES`, in the worker's module only).
const MAX_FILES: usize = 256;
/// The largest file read (the renderer's `MAX_SOURCE`).
const MAX_FILE_BYTES: f64 = (4 << 20) as f64;
/// The most bytes read in all (they go to the worker with every render).
const MAX_TOTAL_BYTES: f64 = (16 << 20) as f64;

/// A file's path in the opened folder: `webkitRelativePath` without the
/// folder's own name (what `include` names), or the file's name.
fn path_in_folder(file: &web_sys::File) -> String {
    let path = browser::relative_path(file);
    match path.split_once('/') {
        Some((_, rest)) if !rest.is_empty() => rest.to_string(),
        _ => path,
    }
}

/// Reads the picked files into the map the renderer loads from; says what
/// was left out.
async fn read_files(list: Vec<web_sys::File>) -> (BTreeMap<String, String>, Vec<String>) {
    let (mut files, mut skipped, mut total) = (BTreeMap::new(), Vec::new(), 0.0);
    for file in list {
        let path = path_in_folder(&file);
        if files.len() >= MAX_FILES {
            skipped.push(format!("{path} (more than {MAX_FILES} files)"));
        } else if file.size() > MAX_FILE_BYTES {
            skipped.push(format!("{path} (larger than 4 MB)"));
        } else if total + file.size() > MAX_TOTAL_BYTES {
            skipped.push(format!("{path} (more than 16 MB in all)"));
        } else {
            total += file.size();
            match browser::read_file(&file).await.map(String::from_utf8) {
                Ok(Ok(text)) => {
                    files.insert(path, text);
                }
                Ok(Err(_)) => skipped.push(format!("{path} (not UTF-8 text)")),
                Err(e) => skipped.push(format!("{path} ({e})")),
            }
        }
    }
    (files, skipped)
}

/// The template and data as stored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StoredTemplate {
    pub template: String,
    pub data: String,
}

/// A successful render.
#[derive(Clone, Debug)]
struct Rendered {
    doc: Arc<Doc>,
    parts: Vec<Part>,
    ms: f64,
}

/// What the status line says.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    Empty,
    Rendering,
    Done {
        ms: f64,
        parts: usize,
        warnings: Vec<String>,
    },
    Error(Failure),
    /// The engine could not answer.
    Engine(String),
}

/// "line 3, column 14" (1-based), or what is known of it.
pub fn where_(f: &Failure) -> String {
    let what = match f.source {
        FailureSource::Data => "data",
        FailureSource::Rendered => "rendered YAML",
        FailureSource::Template => "template",
    };
    match (f.line, f.column) {
        (Some(l), Some(c)) => format!("{what}, line {l}, column {c}"),
        (Some(l), None) => format!("{what}, line {l}"),
        _ => what.to_string(),
    }
}

/// `/template`.
#[component]
pub fn TemplatePage() -> impl IntoView {
    let session = Session::expect();
    let stored = match browser::load::<StoredTemplate>(TEMPLATE_KEY) {
        Ok(s) => s.unwrap_or_default(),
        Err(e) => {
            session.notify(format!("The saved template could not be read ({e}); starting empty."), true);
            StoredTemplate::default()
        }
    };
    let template = RwSignal::new(stored.template);
    let data = RwSignal::new(stored.data);
    let files = RwSignal::new(BTreeMap::<String, String>::new());
    let status = RwSignal::new(Status::Empty);
    let rendered = RwSignal::new(None::<Rendered>);
    let doc = Signal::derive(move || rendered.with(|r| r.as_ref().map(|r| r.doc.clone())));
    let seq = StoredValue::new(0u64);
    let save_failed = StoredValue::new(false);

    // Render (and save) after the user pauses.
    Effect::new(move |_| {
        let (t, d, f) = (template.get(), data.get(), files.get());
        let n = seq.get_value() + 1;
        seq.set_value(n);
        match browser::save(TEMPLATE_KEY, &StoredTemplate { template: t.clone(), data: d.clone() }) {
            Ok(()) => save_failed.set_value(false),
            Err(e) => {
                if !save_failed.get_value() {
                    session.notify(format!("The template could not be saved for the next visit: {e}"), true);
                }
                save_failed.set_value(true);
            }
        }
        if t.trim().is_empty() {
            status.set(Status::Empty);
            return;
        }
        status.set(Status::Rendering);
        browser::after(DEBOUNCE_MS, move || {
            if seq.try_get_value() != Some(n) {
                return;
            }
            let data = if d.trim().is_empty() { "{}".to_string() } else { d };
            leptos::task::spawn_local(async move {
                let r = worker::render::render_timed(t, data, f).await;
                if seq.try_get_value() != Some(n) {
                    return;
                }
                match r {
                    Ok((Reply::Rendered { envelope, parts, warnings }, ms)) => {
                        match Doc::load(Source::Template, envelope.as_bytes()) {
                            Ok(doc) => {
                                let warnings = warnings.iter().map(ToString::to_string).collect();
                                status.try_set(Status::Done { ms, parts: parts.len(), warnings });
                                session.show(doc.clone());
                                rendered.try_set(Some(Rendered { doc, parts, ms }));
                            }
                            Err(errors) => {
                                status.try_set(Status::Engine(format!(
                                    "the rendered envelope does not read: {}",
                                    errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
                                )));
                            }
                        }
                    }
                    Ok((Reply::Failed { failure, .. }, _)) => {
                        status.try_set(Status::Error(failure));
                    }
                    Err(e) => {
                        status.try_set(Status::Engine(e));
                    }
                }
            });
        });
    });

    let loading_example = RwSignal::new(false);
    let load_example = move |_| {
        loading_example.set(true);
        leptos::task::spawn_local(async move {
            let t = browser::fetch_text(&href("/demos/templates/chat.yaml.j2")).await;
            let d = browser::fetch_text(&href("/demos/templates/chat.data.json")).await;
            loading_example.try_set(false);
            match (t, d) {
                (Ok(t), Ok(d)) => {
                    template.try_set(t);
                    data.try_set(d);
                }
                (Err(e), _) | (_, Err(e)) => session.notify(format!("The example could not be fetched: {e}"), true),
            }
        });
    };
    // A folder replaces the files; "Add files…" and files dropped on the
    // page add to them.
    let take_files = move |list: Vec<web_sys::File>, add: bool| {
        if list.is_empty() {
            return;
        }
        leptos::task::spawn_local(async move {
            let (read, skipped) = read_files(list).await;
            if !skipped.is_empty() {
                session.notify(format!("Not loaded for include: {}", skipped.join(", ")), true);
            }
            if add {
                files.try_update(|f| {
                    for (k, v) in read {
                        let total: usize = f.iter().filter(|(p, _)| **p != k).map(|(_, t)| t.len()).sum();
                        if (f.len() < MAX_FILES || f.contains_key(&k)) && (total + v.len()) as f64 <= MAX_TOTAL_BYTES {
                            f.insert(k, v);
                        }
                    }
                });
            } else {
                files.try_set(read);
            }
        });
    };
    let open_files = move |ev: web_sys::Event, add: bool| {
        use wasm_bindgen::JsCast;
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let list: Vec<web_sys::File> =
            input.files().map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect()).unwrap_or_default();
        input.set_value("");
        take_files(list, add);
    };
    // Files dropped on the page while it shows (the frame's drop handler
    // hands them over): added, as with "Add files…".
    if let Some(inbox) = use_context::<TemplateInbox>() {
        Effect::new(move |_| {
            if inbox.0.with(Option::is_none) {
                return;
            }
            if let Some(list) = inbox.take() {
                take_files(list, true);
            }
        });
    }
    let error_line = move |source: FailureSource| {
        Signal::derive(move || {
            status.with(|s| match s {
                Status::Error(f) if f.source == source => f.line,
                _ => None,
            })
        })
    };
    view! {
        <div class="template-page">
            <section class="template-editors pad" data-testid="template">
                <div class="template-bar">
                    <h2>"PromptPoet template"</h2>
                    <button type="button" class="btn" data-testid="template-example" on:click=load_example
                        disabled=move || loading_example.get()
                        title="A chat with system instructions, a loop over the history and truncation priorities">
                        "Load the example"
                    </button>
                    <label class="btn" title="The folder the template's include, import and extends load from">
                        "Open a folder…"
                        <input type="file" prop:webkitdirectory=true class="visually-hidden"
                            data-testid="template-folder" on:change=move |ev| open_files(ev, false)/>
                    </label>
                    <label class="btn" title="Files the template's include, import and extends load, by name">
                        "Add files…"
                        <input type="file" multiple class="visually-hidden"
                            data-testid="template-files" on:change=move |ev| open_files(ev, true)/>
                    </label>
                    <StatusLine status/>
                </div>
                {move || files.with(|f| (!f.is_empty()).then(|| {
                    let names = f.keys().cloned().collect::<Vec<_>>().join(", ");
                    view! {
                        <p class="muted template-files" data-testid="template-loaded-files">
                            {format!("include, import and extends load from {}: {names} ", crate::format::count(f.len(), "file"))}
                            <button type="button" class="btn" data-testid="template-forget-files"
                                on:click=move |_| files.set(BTreeMap::new())>"Forget them"</button>
                        </p>
                    }
                }))}
                <div class="editors">
                    <Editor label="Template (YAML + Jinja2)" testid="template-source" text=template error_line=error_line(FailureSource::Template)/>
                    <Editor label="Data (JSON)" testid="template-data" text=data error_line=error_line(FailureSource::Data)/>
                </div>
                {move || rendered.get().map(|r| view! { <PartsTable parts=r.parts ms=r.ms/> })}
            </section>
            <Show when=move || doc.with(Option::is_some)
                fallback=|| view! { <p class="muted pad" data-testid="template-empty">"The rendered conversation shows here: write a template, or load the example."</p> }>
                <Viewer doc/>
            </Show>
        </div>
    }
}

#[component]
fn StatusLine(status: RwSignal<Status>) -> impl IntoView {
    move || {
        match status.get() {
        Status::Empty => view! { <span class="muted" data-testid="template-status">"Nothing to render."</span> }.into_any(),
        Status::Rendering => view! {
            <span class="muted" data-testid="template-status" role="status"><span class="spinner" aria-hidden="true"></span>" Rendering…"</span>
        }
        .into_any(),
        Status::Done { ms, parts, warnings } => {
            let n = warnings.len();
            view! {
                <span class="ok-text" data-testid="template-status">{format!("Rendered {} in {} ms", crate::format::count(parts, "part"), envelope::display::decimal(ms, 0))}</span>
                {(n > 0).then(|| view! {
                    <details class="template-warnings" data-testid="template-warnings">
                        <summary>{crate::format::count(n, "warning")}</summary>
                        <ul>{warnings.into_iter().map(|w| view! { <li>{w}</li> }).collect::<Vec<_>>()}</ul>
                    </details>
                })}
            }
            .into_any()
        }
        Status::Error(f) => {
            let at = where_(&f);
            view! {
                <div class="notice error template-error" data-testid="template-error" role="alert"
                    data-source=f.source.as_str() data-line=f.line.map(|l| l.to_string()) data-column=f.column.map(|c| c.to_string())>
                    <strong>{at}</strong>": "<code>{f.diagnostic.code()}</code>" "{f.diagnostic.message.clone()}
                    {f.text.clone().map(|t| view! { <pre class="template-error-line">{t}</pre> })}
                    <span class="muted">" (the last good render stays below)"</span>
                </div>
            }
            .into_any()
        }
        Status::Engine(e) => view! {
            <div class="notice error" data-testid="template-engine-error" role="alert">{format!("The template could not be rendered: {e}")}</div>
        }
        .into_any(),
    }
    }
}

/// A textarea with line numbers (the line of an error marked). The textarea
/// scrolls (up to the box's height) and the gutter follows its scroll, so a
/// number stays beside its line.
#[component]
pub fn Editor(
    label: &'static str,
    testid: &'static str,
    text: RwSignal<String>,
    #[prop(into)] error_line: Signal<Option<usize>>,
) -> impl IntoView {
    let lines = Memo::new(move |_| text.with(|t| t.split('\n').count().max(1)));
    let gutter = move || {
        let err = error_line.get();
        (1..=lines.get())
            .map(|n| {
                view! { <span class="ln" class:err=err == Some(n)>{n}"\n"</span> }
            })
            .collect::<Vec<_>>()
    };
    let gutter_el = NodeRef::<leptos::html::Pre>::new();
    let follow = move |ev: web_sys::Event| {
        let area: web_sys::HtmlTextAreaElement = event_target(&ev);
        if let Some(g) = gutter_el.get_untracked() {
            g.set_scroll_top(area.scroll_top());
        }
    };
    view! {
        <label class="editor">
            <span class="editor-label">{label}</span>
            <div class="editor-box">
                <pre class="gutter" aria-hidden="true" node_ref=gutter_el>{gutter}</pre>
                <textarea data-testid=testid spellcheck="false" wrap="off" autocomplete="off"
                    rows=move || (lines.get() + 1).to_string()
                    prop:value=move || text.get()
                    on:scroll=follow
                    on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            </div>
        </label>
    }
}

#[component]
fn PartsTable(parts: Vec<Part>, ms: f64) -> impl IntoView {
    let content: Box<dyn FnOnce() -> Vec<E>> = Box::new(move || parts_table(&parts, ms));
    view! { <Static class="template-parts-box" content/> }
}

/// The parts in PromptPoet's terms, as static elements.
fn parts_table(parts: &[Part], ms: f64) -> Vec<E> {
    let total: u64 = parts.iter().map(|p| p.tokens).sum();
    let rows = parts.iter().map(|p| {
        el("tr")
            .attr("data-testid", "template-part")
            .leaf("td", "", &p.name)
            .leaf("td", "", &p.role)
            .leaf("td", "num", &p.priority)
            .leaf("td", "num", &fmt_int(p.tokens))
    });
    let head = el("thead").child(
        el("tr")
            .leaf("th", "", "name")
            .leaf("th", "", "role")
            .leaf("th", "", "truncation_priority")
            .leaf("th", "", "tokens"),
    );
    vec![el("details")
        .class("template-parts")
        .attr("open", "")
        .child(el("summary").text(&format!(
            "Parts (PromptPoet): {} tokens of content, o200k_base · rendered in {} ms",
            fmt_int(total),
            envelope::display::decimal(ms, 0)
        )))
        .child(el("table").attr("data-testid", "template-parts").child(head).child(el("tbody").children(rows)))]
}

// `/template` is a split view: its code comes with the route's first visit.
crate::split::split_view!(TEMPLATE, "Template page", template, || view! { <TemplatePage/> });

#[cfg(test)]
mod tests {
    use super::*;
    use envelope::{Diagnostic, Rule};

    #[test]
    fn an_error_says_where() {
        let f = |source, line, column| Failure {
            source,
            diagnostic: Diagnostic::new(Rule::TemplateSyntax, "", "x"),
            class: "TemplateSyntaxError".into(),
            line,
            column,
            text: None,
        };
        assert_eq!(where_(&f(FailureSource::Template, Some(3), Some(14))), "template, line 3, column 14");
        assert_eq!(where_(&f(FailureSource::Data, Some(2), None)), "data, line 2");
        assert_eq!(where_(&f(FailureSource::Rendered, None, None)), "rendered YAML");
        let stored: StoredTemplate = serde_json::from_str(r#"{"template":"- content: hi","data":"{}"}"#).unwrap();
        assert_eq!(stored.template, "- content: hi");
    }
}
