//! Links the router must leave to the browser.
//!
//! `leptos_router` handles every plain click on a same-origin link under the
//! base path, and leaves to the browser only links with a `target`,
//! `download` or `rel="external"`. This app also leaves to the browser a
//! link to a file of the site that is not one of its pages (`/demos/b.json`,
//! a link in a document's Markdown) and a link with a query or a fragment
//! (`#m=…` is the conversation's own, read by the page on `hashchange`):
//! a capture listener, which runs before the router's, marks such a link
//! `rel="external"` as the click begins.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{HtmlAnchorElement, MouseEvent};

use leptos::prelude::*;

/// While the calling component lives, marks each clicked same-origin link
/// whose path `is_page` refuses (or that has a query or fragment) as
/// external, so that the router leaves it to the browser.
pub fn use_file_links(is_page: impl Fn(&str) -> bool + 'static) {
    let Some(window) = web_sys::window() else { return };
    let on_click = Closure::<dyn Fn(MouseEvent)>::new(move |ev: MouseEvent| {
        let Some(a) = link_of(&ev) else { return };
        let origin = web_sys::window().and_then(|w| w.location().origin().ok());
        if origin.as_deref() != Some(a.origin().as_str()) {
            return;
        }
        if !a.search().is_empty() || !a.hash().is_empty() || !is_page(&a.pathname()) {
            let rel = a.rel();
            if !rel.split_ascii_whitespace().any(|r| r.eq_ignore_ascii_case("external")) {
                a.set_rel(format!("{rel} external").trim_start());
            }
        }
    });
    let f: js_sys::Function = on_click.as_ref().unchecked_ref::<js_sys::Function>().clone();
    let _ = window.add_event_listener_with_callback_and_bool("click", &f, true);
    let kept = send_wrapper::SendWrapper::new((on_click, f));
    on_cleanup(move || {
        let (on_click, f) = kept.take();
        if let Some(w) = web_sys::window() {
            let _ = w.remove_event_listener_with_callback_and_bool("click", &f, true);
        }
        drop(on_click);
    });
}

/// The link a click landed on.
fn link_of(ev: &MouseEvent) -> Option<HtmlAnchorElement> {
    let target: web_sys::Element = ev.target()?.dyn_into().ok()?;
    target.closest("a[href]").ok()??.dyn_into().ok()
}
