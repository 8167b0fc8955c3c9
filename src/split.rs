//! How views the first screen does not show are loaded on demand (issue 11).
//! The mechanism only: each split view is declared beside its component
//! (`split_view!(COMPARE, …)` in `components::compare`), so this module
//! names none of them.
//!
//! Each `split_view!` function is a *split point*: in a release build for the
//! browser (`cfg(pep_split)`, set by `build.rs`) it is compiled as a
//! `wasm_split` function, and the build's split step (`crates/split-step`, run
//! by `scripts/postbuild.mjs`) moves the code only it reaches into a WASM
//! module of its own, fetched the first time the view is shown. Everywhere
//! else (debug builds, `trunk serve`, the component tests, native) the
//! function is an ordinary one and the view renders at once, as before.
//!
//! [`deferred`] shows such a view: "Loading…" until its module has arrived
//! (once per page load), then the view, built synchronously in the reactive
//! context it is shown in (contexts, owners and signals as if it were local).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use leptos::prelude::*;

/// A split view: whether its module is here, how to fetch it, how to build it.
#[derive(Clone, Copy)]
pub struct Split {
    /// For messages: which view.
    pub name: &'static str,
    pub loaded: fn() -> bool,
    pub load: fn() -> Pin<Box<dyn Future<Output = bool>>>,
    pub build: fn() -> Pin<Box<dyn Future<Output = AnyView>>>,
}

/// Polls a future once: the build of a view whose module is loaded completes
/// in its first poll (the loader is memoized), so this gives the view now.
pub fn now<F: Future>(fut: F) -> Option<F::Output> {
    let mut fut = std::pin::pin!(fut);
    match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}

/// The view of `split`: at once when its module is loaded, else a "Loading…"
/// status while it loads (or an error with a Retry if it cannot be fetched).
pub fn deferred(split: Split) -> impl IntoView {
    show(split, true)
}

/// As [`deferred`], but nothing is shown while the module loads: for a view
/// that appears on its own (a report above the conversation), where a
/// "Loading…" line would only move the page twice.
pub fn deferred_quiet(split: Split) -> impl IntoView {
    show(split, false)
}

fn show(split: Split, loading_line: bool) -> impl IntoView {
    // None: loading; Some(true): loaded; Some(false): failed.
    let state = RwSignal::new((split.loaded)().then_some(true));
    let fetch = move || {
        state.set(None);
        leptos::task::spawn_local(async move {
            let ok = (split.load)().await;
            state.set(Some(ok));
        });
    };
    if state.get_untracked().is_none() {
        fetch();
    }
    move || match state.get() {
        Some(true) => now((split.build)())
            .unwrap_or_else(|| view! { <p class="muted pad" role="status">"Loading…"</p> }.into_any()),
        None if !loading_line => ().into_any(),
        None => view! {
            <p class="muted pad" role="status" data-testid="split-loading">
                <span class="spinner" aria-hidden="true"></span>" Loading…"
            </p>
        }
        .into_any(),
        Some(false) => view! {
            <div class="muted pad" role="alert" data-testid="split-failed">
                {format!(crate::split::unfetched!("The {} could not be loaded", ". "), split.name)}
                <button type="button" class="btn" on:click=move |_| fetch()>"Retry"</button>
            </div>
        }
        .into_any(),
    }
}

/// A split function's own "its module is here" flag and its fetch. Each
/// `wasm_split` function has its own loader: its module being here through
/// another function does not make a first call of this one complete at once,
/// so each keeps its flag, set by its own preload.
/// `split_loader!(FLAG, pub fn loaded, load, preload_x)` defines
/// `fn loaded() -> bool` and `async fn load() -> bool` (fetches through
/// `preload_x` and records the outcome); where there is no split (debug
/// builds, tests, native) both say true at once.
macro_rules! split_loader {
    ($flag:ident, $vis:vis fn $loaded:ident, $load:ident, $preload:ident) => {
        #[cfg(pep_split)]
        thread_local! {
            static $flag: ::std::cell::Cell<bool> = const { ::std::cell::Cell::new(false) };
        }

        /// Whether this split function's module is here (always, where there is no split).
        $vis fn $loaded() -> bool {
            #[cfg(pep_split)]
            return $flag.with(|l| l.get());
            #[cfg(not(pep_split))]
            true
        }

        /// Fetches this split function's module (at once where there is none): true when it is here.
        $vis async fn $load() -> bool {
            #[cfg(pep_split)]
            {
                let ok = $preload().await.is_ok();
                $flag.with(|l| l.set(ok));
                ok
            }
            #[cfg(not(pep_split))]
            true
        }
    };
}
pub(crate) use split_loader;

/// Declares a split view: `split_view!(NAME, "what", module_ident, || view!{…})`
/// defines the `Split` constant `NAME`.
macro_rules! split_view {
    ($name:ident, $what:literal, $module:ident, $body:expr) => {
        #[allow(non_snake_case)]
        pub mod $module {
            #[allow(unused_imports)]
            use super::*;

            $crate::split::split_loader!(LOADED, pub fn loaded, fetch, preload);

            pub fn load() -> ::std::pin::Pin<Box<dyn ::std::future::Future<Output = bool>>> {
                Box::pin(fetch())
            }

            #[cfg(pep_split)]
            #[::leptos::wasm_split::wasm_split(
                                                                                $module,
                                                                                wasm_split_path = ::leptos::wasm_split,
                                                                                fallible,
                                                                                preload(preload)
                                                                            )]
            fn build() -> Result<::leptos::prelude::AnyView, ::leptos::wasm_split::SplitLoaderError> {
                Ok(::leptos::prelude::IntoAny::into_any(($body)()))
            }

            #[cfg(pep_split)]
            pub fn build_view() -> ::std::pin::Pin<Box<dyn ::std::future::Future<Output = ::leptos::prelude::AnyView>>>
            {
                Box::pin(async {
                    build().await.unwrap_or_else(|_| {
                        ::leptos::prelude::IntoAny::into_any(::leptos::prelude::view! {
                            <p class="muted pad" role="alert">"This view could not be loaded."</p>
                        })
                    })
                })
            }

            #[cfg(not(pep_split))]
            pub fn build_view() -> ::std::pin::Pin<Box<dyn ::std::future::Future<Output = ::leptos::prelude::AnyView>>>
            {
                let view = ::leptos::prelude::IntoAny::into_any(($body)());
                Box::pin(async move { view })
            }
        }

        pub const $name: $crate::split::Split = $crate::split::Split {
            name: $what,
            loaded: $module::loaded,
            load: $module::load,
            build: $module::build_view,
        };
    };
}
pub(crate) use split_view;

/// How every message says that a split module could not be fetched:
/// `unfetched!("The search could not be loaded", ": try again.")` is
/// `"The search could not be loaded (offline, or a newer version was
/// deployed): try again."` (a literal, so also a `format!` string).
macro_rules! unfetched {
    ($what:literal $(, $then:literal)?) => {
        concat!($what, " (offline, or a newer version was deployed)" $(, $then)?)
    };
}
pub(crate) use unfetched;

/// The result of calling a split function (`#[wasm_split(…, fallible)]`
/// where `cfg(pep_split)`): awaited there, as the call fetches its module
/// first; a plain call elsewhere (debug builds, `trunk serve`, tests,
/// native). In async code: `let made = split_call!(opener(session, input));`
macro_rules! split_call {
    ($call:expr) => {{
        #[cfg(pep_split)]
        let result = $call.await;
        #[cfg(not(pep_split))]
        let result = $call;
        result
    }};
}
pub(crate) use split_call;
