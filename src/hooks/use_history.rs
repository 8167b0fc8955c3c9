//! Back/forward and link clicks, for the router.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlAnchorElement, MouseEvent};

/// Calls `on_pop` when the user goes back or forward (`popstate`), and
/// offers `claim` the path of every plain click on a same-origin link: when
/// it returns true the page handles the click (the browser does not load
/// the address). Clicks with a modifier key or another button, links with a
/// `target`, `download`, `rel="external"`, a query or a fragment, and links
/// to other origins are left to the browser.
pub fn use_history(on_pop: impl Fn() + 'static, claim: impl Fn(&str) -> bool + 'static) {
    let pop = window_event_listener(ev::popstate, move |_| on_pop());
    let click = window_event_listener(ev::click, move |ev: MouseEvent| {
        if let Some(path) = link_path(&ev) {
            if claim(&path) {
                ev.prevent_default();
            }
        }
    });
    on_cleanup(move || {
        pop.remove();
        click.remove();
    });
}

/// The path of the same-origin link a plain click landed on.
fn link_path(ev: &MouseEvent) -> Option<String> {
    if ev.default_prevented() || ev.button() != 0 || ev.meta_key() || ev.ctrl_key() || ev.shift_key() || ev.alt_key() {
        return None;
    }
    let target: web_sys::Element = ev.target()?.dyn_into().ok()?;
    let a: HtmlAnchorElement = target.closest("a[href]").ok()??.dyn_into().ok()?;
    let own_tab = matches!(a.target().as_str(), "" | "_self");
    let external = a.rel().split_ascii_whitespace().any(|r| r.eq_ignore_ascii_case("external"));
    if !own_tab || external || a.has_attribute("download") || !a.search().is_empty() || !a.hash().is_empty() {
        return None;
    }
    let origin = web_sys::window()?.location().origin().ok()?;
    (a.origin() == origin).then(|| a.pathname())
}
