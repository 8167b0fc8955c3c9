//! The pages the routes show: a demo, the user's document, not found, and
//! the lazy routes (Compare, Template, Skills, Response, Calls) whose code is a split module fetched
//! on the route's first visit.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::Params;
use leptos_router::hooks::use_params;
use leptos_router::params::Params;
use leptos_router::LazyRoute;

use crate::browser;
use crate::components::viewer::Viewer;
use crate::doc::{Doc, Source};
use crate::recheck;
use crate::router::href;
use crate::share;
use crate::state::Session;

/// `/demo/:letter`'s parameter.
#[derive(Params, Clone, Debug, PartialEq, Eq)]
struct DemoParams {
    letter: Option<String>,
}

/// `/demo/:letter`: the demo of that letter, or not found (a letter with no
/// demo, or more than one lowercase ASCII letter).
#[component]
pub fn DemoRoute() -> impl IntoView {
    let params = use_params::<DemoParams>();
    let letter = Memo::new(move |_| {
        params.with(|p| {
            let l = p.as_ref().ok()?.letter.as_deref()?;
            match l.as_bytes() {
                [c @ b'a'..=b'z'] if crate::demos::exists(*c as char) => Some(*c as char),
                _ => None,
            }
        })
    });
    move || match letter.get() {
        Some(c) => view! { <DemoPage letter=c/> }.into_any(),
        None => view! { <NotFound/> }.into_any(),
    }
}

/// Shows a demo: in the first render when `index.html` has already fetched
/// it (the usual case on a first visit), else once it arrives.
#[component]
pub fn DemoPage(letter: char) -> impl IntoView {
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
pub fn UserDocPage() -> impl IntoView {
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

#[component]
pub fn NotFound() -> impl IntoView {
    view! {
        <div class="empty pad" data-testid="not-found">
            <h2>"Page not found"</h2>
            <p>"There is nothing at this address."</p>
            <p><a href=href("/")>"Go to the first demo"</a></p>
        </div>
    }
}

/// A lazy route whose view is a split view: fetched on the route's first
/// visit (or when the router preloads it), "Loading…" meanwhile, an error
/// with Retry if it cannot be fetched (`split::deferred`).
macro_rules! split_route {
    ($(#[$doc:meta])* $name:ident, $split:path) => {
        $(#[$doc])*
        pub struct $name;

        impl LazyRoute for $name {
            fn data() -> Self {
                $name
            }

            async fn view(_: Self) -> AnyView {
                crate::split::deferred($split).into_any()
            }

            async fn preload() {
                let _ = ($split.load)().await;
            }
        }
    };
}

split_route!(
    /// `/diff`, over the split view `components::compare::COMPARE`.
    CompareRoute,
    crate::components::compare::COMPARE
);
split_route!(
    /// `/template`, over the split view `components::template::TEMPLATE`.
    TemplateRoute,
    crate::components::template::TEMPLATE
);
split_route!(
    /// `/skills`, over the split view `components::skills::SKILLS`.
    SkillsRoute,
    crate::components::skills::SKILLS
);
split_route!(
    /// `/response`, over the split view `components::response::RESPONSE`.
    ResponseRoute,
    crate::components::response::RESPONSE
);
split_route!(
    /// `/calls` and `/calls/:n`, over the split view `components::calls::CALLS`.
    CallsRoute,
    crate::components::calls::CALLS
);
