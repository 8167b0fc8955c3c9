//! The application shell: routes, header, the two panes.

use std::sync::Arc;

use crate::components::icons::Ico;
use leptos::prelude::*;

use crate::browser;
use crate::budget::Budget;
use crate::budget::BudgetChoice;
use crate::components::checks::Checks;
use crate::components::conversation::Conversation;
use crate::components::loader::{
    drag_has_files, on_drop, ImportProgress, ImportedFrom, LoadErrors, Notices, OpenButton, PasteButton, PasteOpen,
    Warnings,
};
use crate::components::protocol_panel::PanelDoc;
use crate::components::reports::{shown, Report};
use crate::components::shortcuts::Shortcuts;
use crate::doc::{Doc, Source};
use crate::edit::Editing;
use crate::find::{Filter, Search};
use crate::markdown;
use crate::nav::Navigator;
use crate::recheck;
use crate::router::{href, Route, Router};
use crate::share;
use crate::split;
use crate::state::{Expansion, Prefs, RemoteConsent, Session};

/// The demos, by letter, with a one-line story each.
pub const DEMOS: [(char, &str); 6] = [
    ('a', "Everyday chat"),
    ('b', "Assistant with memory"),
    ('c', "Skills, progressively disclosed"),
    ('d', "Agent with tools"),
    ('e', "论文审阅 · paper review"),
    ('f', "Long conversation, truncation"),
];

/// The app: state, routes, and the page frame.
#[component]
pub fn App() -> impl IntoView {
    let session = Session::new();
    provide_context(session);
    let prefs = Prefs::init(session);
    provide_context(prefs);
    let router = Router::provide();
    // The saved document is `/doc`'s: opened before the first render there.
    // Elsewhere it is only the header's "Your document" link, so it is
    // opened (parsed) after the route's first paint, not before it.
    if router.route_untracked() == Route::Doc {
        session.restore_user_document();
    } else {
        let restored = StoredValue::new(false);
        Effect::new(move |_| {
            let demo = matches!(router.route(), Route::Demo(c) if DEMOS.iter().any(|&(d, _)| d == c));
            if restored.get_value() || (demo && session.doc.with(Option::is_none)) {
                return;
            }
            restored.set_value(true);
            leptos::task::spawn_local(async move {
                browser::after_next_paint().await;
                // Not over a document the user opened meanwhile.
                if session.user_doc.with_untracked(Option::is_none) {
                    session.restore_user_document();
                }
            });
        });
    }
    Editing::provide();
    provide_context(Expansion::new());
    provide_context(BudgetChoice::default());
    // A share link (`/doc#d=…`) opens its document as the user's own.
    if router.route() == Route::Doc {
        share::open_fragment(session, &browser::location_hash());
    }
    provide_context(crate::hooks::use_service_worker());
    // Said once: the texts stay plain (crate::markdown).
    Effect::new(move |_| {
        if let markdown::Status::Failed(why) = markdown::status() {
            session.notify(format!("Markdown is shown as plain text: {why}."), true);
        }
    });
    // The page's title follows the route.
    Effect::new(move |_| browser::set_title(&router.route().title(|c| DEMOS.iter().any(|&(d, _)| d == c))));
    view! {
        <Frame>
            {move || match router.route() {
                Route::Demo(c) if DEMOS.iter().any(|&(d, _)| d == c) => view! { <DemoPage letter=c/> }.into_any(),
                Route::Doc => view! { <UserDocPage/> }.into_any(),
                Route::Diff => split::deferred(split::COMPARE).into_any(),
                Route::Template => split::deferred(split::TEMPLATE).into_any(),
                Route::Demo(_) | Route::NotFound => view! { <NotFound/> }.into_any(),
            }}
        </Frame>
    }
}

/// Header, notices, and whatever the route shows; drop target for files.
#[component]
fn Frame(children: Children) -> impl IntoView {
    let session = Session::expect();
    let drop = on_drop(session);
    let dragging = RwSignal::new(false);
    let editing = Editing::expect();
    // Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) undo and redo edits in Edit mode,
    // in a field too (its own undo would fight the document's).
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if !editing.on.get_untracked() || !(ev.ctrl_key() || ev.meta_key()) || ev.alt_key() {
            return;
        }
        // (Edit mode's code: its module is here while Edit mode is on.)
        let redo = match ev.key().to_ascii_lowercase().as_str() {
            "z" => ev.shift_key(),
            "y" => true,
            _ => return,
        };
        ev.prevent_default();
        crate::components::editor::undo_redo(editing, redo);
    };
    provide_context(PasteOpen(RwSignal::new(false)));
    // The skip link focuses the main region (a fragment link would resolve
    // against <base href> and leave the page).
    let skip = move |ev: leptos::ev::MouseEvent| {
        ev.prevent_default();
        browser::focus_id("main");
    };
    view! {
        <a class="skip-link" href="#main" on:click=skip>"Skip to the conversation"</a>
        <div class="app" class:dragging=move || dragging.get() on:keydown=on_key
            on:dragover=move |ev| { if drag_has_files(&ev) { ev.prevent_default(); dragging.set(true); } }
            on:dragleave=move |_| dragging.set(false)
            on:drop=move |ev| { dragging.set(false); drop(ev) }>
            <Header/>
            <Show when=move || editing.on.get()>
                {split::edit_bar()}
            </Show>
            <div class="notices">
                <Notices/>
                <UpdateAvailable/>
                <SafeStart/>
                <ImportProgress/>
                <LoadErrors/>
                <ImportedFrom/>
            </div>
            {children()}
            <div class="drop-hint" aria-hidden="true">"Drop a JSON file to open it: an envelope, or an OpenAI or Anthropic request"</div>
        </div>
    }
}

/// Turns Edit mode on or off. The first time, Edit mode's module is fetched
/// meanwhile (the bar says "Loading…"); when it is here, the conversation is
/// rebuilt with its fields (setting the signal again notifies its readers).
fn toggle_edit(editing: Editing, session: Session) {
    use crate::components::editor::{edit_loaded, load_edit};
    editing.flush();
    if editing.on.get_untracked() {
        editing.on.set(false);
        return;
    }
    editing.on.set(true);
    if !edit_loaded() {
        leptos::task::spawn_local(async move {
            let ok = load_edit().await;
            if editing.on.try_get_untracked() == Some(true) {
                editing.on.try_set(ok);
            }
            if !ok {
                session.notify(crate::split::unfetched!("Edit mode could not be loaded", ": try again."), true);
            }
        });
    }
}

/// The saved document did not finish opening last time: ask before trying again.
#[component]
fn SafeStart() -> impl IntoView {
    let session = Session::expect();
    let pending = Memo::new(move |_| session.unsafe_restore.get() > 0);
    move || pending.get().then(|| shown(Report::SafeStart))
}

/// "A new version is available — Reload" (a new deployment is waiting; public/sw.js).
#[component]
fn UpdateAvailable() -> impl IntoView {
    let update = expect_context::<crate::hooks::Update>();
    move || update.available().then(|| shown(Report::Update))
}

#[component]
fn Header() -> impl IntoView {
    let prefs = Prefs::expect();
    let session = Session::expect();
    let router = Router::expect();
    let editing = Editing::expect();
    let is_dark = move || match prefs.theme.get().as_deref() {
        Some("dark") => true,
        Some(_) => false,
        None => browser::prefers_dark(),
    };
    let toggle_theme = move |_| {
        let dark = is_dark();
        prefs.theme.set(Some(if dark { "light" } else { "dark" }.to_string()));
    };
    // On a phone the demo links fold into a menu (CSS shows the button there only).
    let menu = RwSignal::new(false);
    let current = move || match router.route() {
        Route::Demo(c) => format!("Demo {}", c.to_ascii_uppercase()),
        Route::Doc => "Your document".to_string(),
        Route::Diff => "Compare".to_string(),
        Route::Template => "Template".to_string(),
        Route::NotFound => "Demos".to_string(),
    };
    view! {
        <header class="top">
            <a href=href("/") class="brand">
                <Ico name="braces"/>
                <span>"Prompt Envelope"</span>
            </a>
            <button type="button" class="btn demo-menu" aria-expanded=move || menu.get().to_string()
                aria-controls="demo-nav" id="demo-menu-btn" data-testid="demo-menu" on:click=move |_| menu.update(|m| *m = !*m)>
                <span class="demo-menu-label">{current}</span><Ico name="chevron-down"/>
            </button>
            <nav class="demos" id="demo-nav" aria-label="Demos" class:open=move || menu.get()
                on:click=move |_| menu.set(false)
                on:keydown=move |ev| if ev.key() == "Escape" { menu.set(false); browser::focus_id("demo-menu-btn") }>
                {DEMOS
                    .iter()
                    .map(|&(c, story)| {
                        view! {
                            <a href=href(&format!("/demo/{c}")) class="demo-link" title=story aria-label=format!("Demo {} · {story}", c.to_ascii_uppercase())
                                aria-current=move || (router.route() == Route::Demo(c)).then_some("page")>
                                {c.to_ascii_uppercase().to_string()}
                            </a>
                        }
                    })
                    .collect::<Vec<_>>()}
                <a href=href("/diff") class="tool-link" data-testid="nav-diff" title="Compare two versions of a prompt"
                    aria-current=move || (router.route() == Route::Diff).then_some("page")>"Compare"</a>
                <a href=href("/template") class="tool-link" data-testid="nav-template" title="Render a PromptPoet template (YAML + Jinja2)"
                    aria-current=move || (router.route() == Route::Template).then_some("page")>"Template"</a>
                {move || session.user_doc.get().map(|d| view! {
                    <a href=href("/doc") class="demo-link doc-link" title=d.source.label()
                        aria-current=move || (router.route() == Route::Doc).then_some("page")>
                        "Your document"
                    </a>
                })}
            </nav>
            <div class="header-actions">
                <button type="button" class="btn" data-testid="edit-toggle" aria-pressed=move || editing.on.get().to_string()
                    title="Edit mode: change variable values, texts, tool-call arguments and the model"
                    on:click=move |_| toggle_edit(editing, session)>
                    <Ico name="pencil"/><span class="btn-label">{move || if editing.on.get() { " Editing" } else { " Edit" }}</span>
                </button>
                <details class="privacy" data-testid="privacy">
                    <summary>"Privacy"</summary>
                    <p>"Your documents stay in this browser: nothing you open, paste or edit is sent anywhere. The app fetches only its own files; images and media from other hosts load only when you allow it."</p>
                </details>
                <OpenButton/>
                <PasteButton/>
                <button type="button" class="btn icon" title="Dark theme" aria-label="Dark theme"
                    aria-pressed=move || is_dark().to_string() data-testid="theme-toggle" on:click=toggle_theme>
                    <Ico name="sun-moon"/>
                </button>
            </div>
        </header>
    }
}

/// Shows a demo: in the first render when `index.html` has already fetched
/// it (the usual case on a first visit), else once it arrives.
#[component]
fn DemoPage(letter: char) -> impl IntoView {
    let session = Session::expect();
    let failed = RwSignal::new(None::<String>);
    let loaded = RwSignal::new(None::<Arc<Doc>>);
    let url = href(&format!("/demos/{letter}.json"));
    let invalid = move |errors: &[envelope::Diagnostic]| {
        let list: Vec<String> = errors.iter().map(|d| d.to_string()).collect();
        failed.try_set(Some(format!("Demo {letter} is invalid: {}", list.join("; "))));
    };
    let apply = move |fetched: Result<String, String>| match fetched {
        // Shown at once, checked after the first paint (crate::recheck).
        Ok(text) => match Doc::load_provisional(Source::Demo(letter), text.as_bytes()) {
            Ok((doc, pending)) => {
                // Shown only while this page is still there (not after the
                // user has gone on to another route).
                if loaded.try_set(Some(doc.clone())).is_none() {
                    session.show(doc.clone());
                }
                leptos::task::spawn_local(async move {
                    match recheck::settle(doc, pending, loaded).await {
                        recheck::Outcome::Clean => {}
                        recheck::Outcome::Warned(checked) => session.show(checked),
                        recheck::Outcome::Invalid(errors) => invalid(&errors),
                        recheck::Outcome::Unavailable => session.notify(
                            format!(
                                crate::split::unfetched!(
                                    "Demo {} is shown unchecked: the checks could not be loaded",
                                    "."
                                ),
                                letter
                            ),
                            true,
                        ),
                    }
                });
            }
            Err(errors) => invalid(&errors),
        },
        Err(e) => {
            failed.try_set(Some(format!("Demo {letter} could not be fetched: {e}")));
        }
    };
    match browser::take_prefetched(&url) {
        Some(browser::Prefetched::Ready(text)) => apply(Ok(text)),
        Some(browser::Prefetched::Pending(promise)) => {
            leptos::task::spawn_local(async move { apply(browser::await_prefetched(promise).await) })
        }
        None => leptos::task::spawn_local(async move { apply(browser::fetch_text(&url).await) }),
    }
    view! {
        {move || failed.get().map(|e| view! { <p class="notice error pad">{e}</p> })}
        <Viewer doc=loaded/>
    }
}

/// `/doc`: the user's own document.
#[component]
fn UserDocPage() -> impl IntoView {
    let session = Session::expect();
    crate::hooks::use_hash_change(move |fragment| {
        share::open_fragment(session, &fragment);
    });
    Effect::new(move |_| {
        if let Some(d) = session.user_doc.get() {
            session.show(d);
        }
    });
    view! {
        <Show when=move || session.user_doc.with(Option::is_some)
            fallback=|| view! {
                <div class="empty pad">
                    <h2>"No document of yours yet"</h2>
                    <p>"Use “Open…” or “Paste…” above, or drop a JSON file anywhere on the page: an envelope, or an OpenAI Chat, OpenAI Responses or Anthropic Messages request."</p>
                    <p><a href=href("/")>"Back to the demos"</a></p>
                </div>
            }>
            <Viewer doc=session.user_doc/>
        </Show>
    }
}

/// The two panes for a document, with the draggable divider.
#[component]
pub(crate) fn Viewer(#[prop(into)] doc: Signal<Option<Arc<Doc>>>) -> impl IntoView {
    let prefs = Prefs::expect();
    let editing = Editing::expect();
    let nav = Navigator::new();
    provide_context(nav);
    provide_context(Budget::new(doc));
    let consent = RemoteConsent::new(doc, prefs);
    provide_context(consent);
    Checks::new(doc);
    let filter = Filter(RwSignal::new(Default::default()));
    provide_context(filter);
    provide_context(Search::new(doc, filter, nav));
    provide_context(PanelDoc(doc));
    let split = prefs.split;
    // The protocol panel (tabs, export, JSON) joins after the first paint
    // of a document: the first frame holds the conversation only, so the
    // panel's DOM, its export and the first call of its code (WebAssembly
    // compiles each function on first use) stay off the first paint. In a
    // release build its code is a split module (`split::PROTOCOL`), fetched
    // first thing after that paint (this effect is created before the
    // Markdown module's, so its after-paint task runs first); the pane says
    // "Loading…" until it is here. Fetched before the paint instead, its
    // requests and instantiation cost the first paint ~35 ms of main thread
    // (docs/DECISIONS.md, "The protocol panel loaded on demand").
    let panel = RwSignal::new(false);
    Effect::new(move |_| {
        if !panel.get() && doc.with(Option::is_some) {
            leptos::task::spawn_local(async move {
                browser::after_next_paint().await;
                if !(split::PROTOCOL.loaded)() {
                    leptos::task::spawn_local(async {
                        // A failure is the pane's to show (`split::deferred` asks again).
                        let _ = (split::PROTOCOL.load)().await;
                    });
                }
                panel.try_set(true);
            });
        }
    });
    // The Markdown module loads after the first paint of a document.
    Effect::new(move |_| {
        if doc.with(Option::is_some) {
            markdown::preload();
        }
    });
    let dragging = RwSignal::new(false);
    // On a phone one pane shows at a time; the bottom bar switches (CSS hides it on wider screens).
    let protocol = RwSignal::new(false);
    let on_move = move |ev: web_sys::PointerEvent| {
        if !dragging.get_untracked() {
            return;
        }
        let width = web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|v| v.as_f64()).unwrap_or(1.0);
        split.set((ev.client_x() as f64 / width * 100.0).clamp(20.0, 80.0));
    };
    let on_key = move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
        "ArrowLeft" => split.update(|s| *s = (*s - 2.0).max(20.0)),
        "ArrowRight" => split.update(|s| *s = (*s + 2.0).min(80.0)),
        _ => {}
    };
    view! {
        <Shortcuts doc/>
        <main class="panes" id="main" tabindex="-1" aria-label="Document" class:show-protocol=move || protocol.get()
            style=move || format!("--split:{}%", envelope::display::decimal(split.get(), 2))
            on:pointermove=on_move
            on:pointerup=move |_| dragging.set(false)
            on:pointerleave=move |_| dragging.set(false)>
            <div class="pane left">
                <Warnings/>
                <RemoteMediaBar doc/>
                {move || match doc.get() {
                    // Edit mode shows other views of the segments: rebuilt on a toggle.
                    Some(d) => { editing.on.track(); view! { <Conversation doc=d/> }.into_any() }
                    None => view! { <p class="muted pad">"Loading…"</p> }.into_any(),
                }}
            </div>
            <div class="divider" role="separator" aria-orientation="vertical" tabindex="0"
                aria-label="Resize panes" aria-valuenow=move || envelope::display::decimal(split.get(), 0)
                class:active=move || dragging.get()
                on:pointerdown=move |ev| { ev.prevent_default(); dragging.set(true) }
                on:keydown=on_key></div>
            <div class="pane right">
                {move || panel.get().then(|| split::deferred(split::PROTOCOL))}
            </div>
        </main>
        <nav class="pane-switch" aria-label="Panes" data-testid="pane-switch">
            <button type="button" aria-pressed=move || (!protocol.get()).to_string() data-testid="show-conversation"
                on:click=move |_| protocol.set(false)>
                <Ico name="message-square"/>" Conversation"
            </button>
            <button type="button" aria-pressed=move || protocol.get().to_string() data-testid="show-protocol"
                on:click=move |_| protocol.set(true)>
                <Ico name="braces"/>" Protocol"
            </button>
        </nav>
    }
}

#[component]
fn NotFound() -> impl IntoView {
    view! {
        <div class="empty pad" data-testid="not-found">
            <h2>"Page not found"</h2>
            <p>"There is nothing at this address."</p>
            <p><a href=href("/")>"Go to the first demo"</a></p>
        </div>
    }
}

/// Asks before anything of the document is fetched from another host: how
/// many remote media files, from which hosts; "Load remote media" (this
/// document) or "Always for this browser" (a preference).
#[component]
fn RemoteMediaBar(#[prop(into)] doc: Signal<Option<Arc<Doc>>>) -> impl IntoView {
    let consent = RemoteConsent::expect();
    let found = Memo::new(move |_| {
        doc.with(|d| d.as_ref().map(|d| envelope::remote::remote_media(&d.envelope)).unwrap_or_default())
    });
    move || {
        let r = found.get();
        (!r.is_empty() && !consent.allowed()).then(|| {
            let shown: Vec<&str> = r.hosts.iter().take(3).map(String::as_str).collect();
            let more = r.hosts.len().saturating_sub(shown.len());
            let hosts = if more > 0 { format!("{} and {more} more", shown.join(", ")) } else { shown.join(", ") };
            let files = if r.count == 1 { "1 remote media file".to_string() } else { format!("{} remote media files", r.count) };
            view! {
                <div class="notice remote-media" role="region" aria-label="Remote media" data-testid="remote-media">
                    <span>{format!("This document links {files} ({hosts}). Nothing is fetched from other hosts until you allow it.")}</span>
                    <span class="actions">
                        <button type="button" class="btn" data-testid="remote-allow" on:click=move |_| consent.allow_this()>"Load remote media"</button>
                        <button type="button" class="btn" data-testid="remote-always" on:click=move |_| consent.allow_always()>"Always for this browser"</button>
                    </span>
                </div>
            }
        })
    }
}
