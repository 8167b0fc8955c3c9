//! The application shell: routes, header, the two panes.

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{path, Lazy};

use crate::browser::{self, Theme};
use crate::budget::BudgetChoice;
use crate::components::editor::edit_bar;
use crate::components::icons::{Ico, Icon};
use crate::components::loader::{
    drag_has_files, on_drop, ImportProgress, ImportedFrom, LoadErrors, Notices, OpenButton, PasteButton, PasteOpen,
};
use crate::components::reports::{shown, Report};
use crate::demos::{self, DEMOS};
use crate::edit::Editing;
use crate::pages::{
    CallsRoute, CompareRoute, DemoPage, DemoRoute, NotFound, ResponseRoute, SkillsRoute, TemplateRoute, UserDocPage,
};
use crate::router::{self, href, use_route, Route as Page};
use crate::share;
use crate::state::{Expansion, Prefs, Session};

/// The app: the router around the shell.
#[component]
pub fn App() -> impl IntoView {
    view! {
        <Router base=router::router_base()>
            <Shell/>
        </Router>
    }
}

/// State, routes, and the page frame (inside the router: its location is
/// the route's).
#[component]
fn Shell() -> impl IntoView {
    let session = Session::new();
    provide_context(session);
    provide_context(session.calls);
    provide_context(crate::state::SkillsInbox::new());
    provide_context(crate::state::TemplateInbox::new());
    let prefs = Prefs::init(session);
    provide_context(prefs);
    let route = use_route();
    // Clicks on links to files of the site, not pages of the app, are the browser's.
    crate::hooks::use_file_links(|pathname| {
        router::strip(&router::base(), pathname).is_some_and(|p| Page::parse(p) != Page::NotFound)
    });
    // The saved document is `/doc`'s: opened before the first render there.
    // Elsewhere it is only the header's "Your document" link, so it is
    // opened (parsed) after the route's first paint, not before it.
    if route.get_untracked() == Page::Doc {
        session.restore_user_document();
    } else {
        let restored = StoredValue::new(false);
        Effect::new(move |_| {
            let demo = matches!(route.get(), Page::Demo(c) if demos::exists(c));
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
    if route.get_untracked() == Page::Doc {
        share::open_fragment(session, &browser::location_hash());
    }
    provide_context(crate::hooks::use_service_worker());
    // The page's title follows the route.
    Effect::new(move |_| browser::set_title(&route.get().title(demos::exists)));
    view! {
        <Frame>
            <Routes fallback=|| view! { <NotFound/> }>
                <Route path=path!("/") view=|| view! { <DemoPage letter='a'/> }/>
                <Route path=path!("/demo/:letter") view=DemoRoute/>
                <Route path=path!("/doc") view=UserDocPage/>
                <Route path=path!("/diff") view={Lazy::<CompareRoute>::new()}/>
                <Route path=path!("/template") view={Lazy::<TemplateRoute>::new()}/>
                <Route path=path!("/skills") view={Lazy::<SkillsRoute>::new()}/>
                <Route path=path!("/response") view={Lazy::<ResponseRoute>::new()}/>
                <Route path=path!("/calls") view={Lazy::<CallsRoute>::new()}/>
                <Route path=path!("/calls/:n") view={Lazy::<CallsRoute>::new()}/>
            </Routes>
        </Frame>
    }
}

/// Header, notices, and whatever the route shows; drop target for files.
#[component]
fn Frame(children: Children) -> impl IntoView {
    let session = Session::expect();
    let route = use_route();
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
                {edit_bar()}
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
            <div class="drop-hint" aria-hidden="true">{move || if route.get() == Page::Template {
                "Drop files for the template to include, import or extend"
            } else {
                "Drop a JSON file to open it: an envelope, or an OpenAI or Anthropic request; or a trace and its logs; or SKILL.md files or a folder of skills"
            }}</div>
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
    let route = use_route();
    let editing = Editing::expect();
    let is_dark = move || match prefs.theme.get() {
        Some(theme) => theme == Theme::Dark,
        None => browser::prefers_dark(),
    };
    let toggle_theme = move |_| prefs.theme.set(Some(if is_dark() { Theme::Light } else { Theme::Dark }));
    // On a phone the demo links fold into a menu (CSS shows the button there only).
    let menu = RwSignal::new(false);
    let current = move || match route.get() {
        Page::Demo(c) => format!("Demo {}", c.to_ascii_uppercase()),
        Page::Doc => "Your document".to_string(),
        Page::Diff => "Compare".to_string(),
        Page::Template => "Template".to_string(),
        Page::Skills => "Skills".to_string(),
        Page::Response => "Response".to_string(),
        Page::Calls | Page::Call(_) => "Calls".to_string(),
        Page::NotFound => "Demos".to_string(),
    };
    view! {
        <header class="top">
            <a href=href("/") class="brand">
                <Ico icon=Icon::Braces/>
                <span>"Prompt Envelope"</span>
            </a>
            <button type="button" class="btn demo-menu" aria-expanded=move || menu.get().to_string()
                aria-controls="demo-nav" id="demo-menu-btn" data-testid="demo-menu" on:click=move |_| menu.update(|m| *m = !*m)>
                <span class="demo-menu-label">{current}</span><Ico icon=Icon::ChevronDown/>
            </button>
            <nav class="demos" id="demo-nav" aria-label="Demos" class:open=move || menu.get()
                on:click=move |_| menu.set(false)
                on:keydown=move |ev| if ev.key() == "Escape" { menu.set(false); browser::focus_id("demo-menu-btn") }>
                {DEMOS
                    .iter()
                    .map(|&(c, story)| {
                        view! {
                            <a href=href(&format!("/demo/{c}")) class="demo-link" title=story aria-label=format!("Demo {} · {story}", c.to_ascii_uppercase())
                                aria-current=move || (route.get() == Page::Demo(c)).then_some("page")>
                                {c.to_ascii_uppercase().to_string()}
                            </a>
                        }
                    })
                    .collect::<Vec<_>>()}
                <a href=href("/diff") class="tool-link" data-testid="nav-diff" title="Compare two versions of a prompt"
                    aria-current=move || (route.get() == Page::Diff).then_some("page")>"Compare"</a>
                <a href=href("/template") class="tool-link" data-testid="nav-template" title="Render a PromptPoet template (YAML + Jinja2)"
                    aria-current=move || (route.get() == Page::Template).then_some("page")>"Template"</a>
                <a href=href("/skills") class="tool-link" data-testid="nav-skills" title="What the model sees of SKILL.md files, before and after loading"
                    aria-current=move || (route.get() == Page::Skills).then_some("page")>"Skills"</a>
                <a href=href("/response") class="tool-link" data-testid="nav-response" title="Check a model's output against the document's output schema and a golden output"
                    aria-current=move || (route.get() == Page::Response).then_some("page")>"Response"</a>
                {move || session.calls.current.with(Option::is_some).then(|| view! {
                    <a href=href("/calls") class="tool-link" data-testid="nav-calls" title="The recorded calls read last"
                        aria-current=move || matches!(route.get(), Page::Calls | Page::Call(_)).then_some("page")>"Calls"</a>
                })}
                {move || session.user_doc.get().map(|d| view! {
                    <a href=href("/doc") class="demo-link doc-link" title=d.source.label()
                        aria-current=move || (route.get() == Page::Doc).then_some("page")>
                        "Your document"
                    </a>
                })}
            </nav>
            <div class="header-actions">
                <button type="button" class="btn" data-testid="edit-toggle" aria-pressed=move || editing.on.get().to_string()
                    title="Edit mode: change variable values, texts, tool-call arguments and the model"
                    on:click=move |_| toggle_edit(editing, session)>
                    <Ico icon=Icon::Pencil/><span class="btn-label">{move || if editing.on.get() { " Editing" } else { " Edit" }}</span>
                </button>
                <details class="privacy" data-testid="privacy">
                    <summary>"Privacy"</summary>
                    <p>"Your documents stay in this browser: nothing you open, paste or edit is sent anywhere. The app fetches only its own files; images and media from other hosts load only when you allow it."</p>
                </details>
                <OpenButton/>
                <PasteButton/>
                <button type="button" class="btn icon" title="Dark theme" aria-label="Dark theme"
                    aria-pressed=move || is_dark().to_string() data-testid="theme-toggle" on:click=toggle_theme>
                    <Ico icon=Icon::SunMoon/>
                </button>
            </div>
        </header>
    }
}
