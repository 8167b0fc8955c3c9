//! `use_service_worker`: registers the service worker a release build ships
//! (`<meta name="pep-sw" content="sw.js">`, written by scripts/postbuild.mjs;
//! debug builds have none) once the page has loaded, and says when another
//! version of the app is waiting. `Update::apply` lets it take over and
//! reloads: the page never runs two versions' files at once (public/sw.js).
//!
//! Used once, by the app's root: its listeners live as long as the page.

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

thread_local! {
    /// The new version's worker (installed, waiting); `None` with
    /// `available` set when a file of another version was refused and a
    /// plain reload is what updates.
    static WAITING: std::cell::RefCell<Option<web_sys::ServiceWorker>> = const { std::cell::RefCell::new(None) };
}

/// Whether a new version of the app is waiting.
#[derive(Clone, Copy)]
pub struct Update {
    available: RwSignal<bool>,
}

impl Update {
    /// Whether to show "A new version is available".
    pub fn available(&self) -> bool {
        self.available.get()
    }

    /// Switches to the new version: the waiting worker takes over, then the
    /// page reloads (on `controllerchange`).
    pub fn apply(&self) {
        let reload = || {
            if let Some(w) = web_sys::window() {
                let _ = w.location().reload();
            }
        };
        match WAITING.with(|w| w.borrow().clone()) {
            Some(worker) => {
                if worker.post_message(&JsValue::from_str("skip-waiting")).is_err() {
                    reload();
                }
            }
            None => reload(),
        }
    }
}

pub fn use_service_worker() -> Update {
    let update = Update { available: RwSignal::new(false) };
    let Some(window) = web_sys::window() else { return update };
    let Some(document) = window.document() else { return update };
    let Some(script) = document
        .query_selector("meta[name=pep-sw]")
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .filter(|s| !s.is_empty())
    else {
        return update;
    };
    // Absent in old browsers and in insecure contexts (plain http off localhost).
    let navigator = window.navigator();
    if !js_sys::Reflect::has(&navigator, &JsValue::from_str("serviceWorker")).unwrap_or(false) {
        return update;
    }
    let container = navigator.service_worker();
    let register = {
        let container = container.clone();
        move || register(container.clone(), crate::router::href(&format!("/{script}")), update)
    };
    // Not before the first screen is complete: installing downloads the app
    // shell again (public/sw.js, `cache: 'reload'`), which would compete with
    // the first screen for the network and the CPU (registering alone was
    // ~10 ms of the main thread between its frames). After it, and the load
    // event.
    leptos::task::spawn_local(async move {
        crate::browser::first_screen_complete().await;
        if document.ready_state() == "complete" {
            register();
            return;
        }
        let once = Closure::once_into_js(register);
        let opts = web_sys::AddEventListenerOptions::new();
        opts.set_once(true);
        let _ =
            window.add_event_listener_with_callback_and_add_event_listener_options("load", once.unchecked_ref(), &opts);
    });
    update
}

fn register(container: web_sys::ServiceWorkerContainer, url: String, update: Update) {
    let options = web_sys::RegistrationOptions::new();
    options.set_scope(&crate::router::base());
    let promise = container.register_with_options(&url, &options);
    // A file of another version was refused (public/sw.js): a reload updates.
    let on_message = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
        if ev.data().as_string().as_deref() == Some("version-mismatch") {
            update.available.set(true);
        }
    });
    container.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    // The new version took over (after "Reload"): show it.
    let on_change = Closure::<dyn Fn()>::new(move || {
        if update.available.get_untracked() {
            if let Some(w) = web_sys::window() {
                let _ = w.location().reload();
            }
        }
    });
    container.set_oncontrollerchange(Some(on_change.as_ref().unchecked_ref()));
    on_change.forget();
    leptos::task::spawn_local(async move {
        let Ok(reg) = JsFuture::from(promise).await else { return };
        let Ok(reg) = reg.dyn_into::<web_sys::ServiceWorkerRegistration>() else { return };
        // Only an update is news: the first install has no controller yet.
        let offer = move |worker: web_sys::ServiceWorker| {
            if container.controller().is_some() {
                WAITING.with(|w| *w.borrow_mut() = Some(worker));
                update.available.set(true);
            }
        };
        if let Some(waiting) = reg.waiting() {
            offer(waiting);
        }
        let reg2 = reg.clone();
        let on_found = Closure::<dyn Fn()>::new(move || {
            let Some(installing) = reg2.installing() else { return };
            let watched = installing.clone();
            let offer = offer.clone();
            let on_state = Closure::<dyn Fn()>::new(move || {
                if watched.state() == web_sys::ServiceWorkerState::Installed {
                    offer(watched.clone());
                }
            });
            installing.set_onstatechange(Some(on_state.as_ref().unchecked_ref()));
            on_state.forget();
        });
        reg.set_onupdatefound(Some(on_found.as_ref().unchecked_ref()));
        on_found.forget();
    });
}
