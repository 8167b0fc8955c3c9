//! Keyboard shortcuts of the viewer, and the dialog that lists them (`?`).
//! Single-key shortcuts are ignored while typing in a field; `Ctrl+K`
//! (`⌘K`) works everywhere.

use std::sync::Arc;

use leptos::html;
use leptos::prelude::*;
use send_wrapper::SendWrapper;

use crate::browser;
use crate::doc::Doc;
use crate::find::Filter;
use crate::hooks::use_key_down;
use crate::nav::Navigator;
use crate::state::{Expansion, ToggleKey};
use crate::window::default_open;

/// The shortcuts, as the dialog lists them.
pub const SHORTCUTS: [(&str, &str); 8] = [
    ("/  or  Ctrl+K", "Search the conversation"),
    ("Enter  /  Shift+Enter", "Next / previous match (in the search box)"),
    ("Escape", "Clear the search (in the search box); close the Outline, the Filter or this dialog"),
    ("j", "Next message (focus moves to it)"),
    ("k", "Previous message"),
    ("o", "Open or close the focused segment (or the focused message's first panel)"),
    ("?", "This list"),
    ("Tab", "Move through links and buttons as usual"),
];

/// The message and segment the focus is in (from the DOM: `li.msg`'s
/// `aria-posinset`, `.seg-slot`'s `data-seg`).
fn focused_place() -> (Option<usize>, Option<usize>) {
    let Some(el) = browser::active_element() else { return (None, None) };
    let message = el
        .closest("li.msg")
        .ok()
        .flatten()
        .and_then(|li| li.get_attribute("aria-posinset"))
        .and_then(|p| p.parse::<usize>().ok())
        .and_then(|p| p.checked_sub(1));
    let segment = el
        .closest(".seg-slot")
        .ok()
        .flatten()
        .and_then(|s| s.get_attribute("data-seg"))
        .and_then(|s| s.parse::<usize>().ok());
    (message, segment)
}

/// Listens for the shortcuts while a document is on screen; renders the
/// dialog.
#[component]
pub fn Shortcuts(#[prop(into)] doc: Signal<Option<Arc<Doc>>>) -> impl IntoView {
    let nav = Navigator::expect();
    let filter = expect_context::<Filter>().0;
    let expansion = Expansion::expect_or_new();
    let dialog = NodeRef::<html::Dialog>::new();
    let opener = StoredValue::new_local(None::<SendWrapper<web_sys::Element>>);
    // The message a `j`/`k` sent the focus to, until it gets there (keys
    // pressed faster than the window renders count from it).
    let pending = StoredValue::new(None::<usize>);

    let focus_search = move || {
        if let Some(el) = browser::query("#search") {
            browser::focus_quietly(&el);
            if let Ok(input) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(el) {
                input.select();
            }
        }
    };
    // `j`/`k`: from the focused message, else from the one at the top of
    // the view; messages the filter hides are skipped.
    let move_by = move |step: isize| {
        let Some(doc) = doc.get_untracked() else { return };
        let n = doc.envelope.messages.len();
        let f = filter.get_untracked();
        // Nothing focused: the message at the top of the view comes first.
        let focused = focused_place().0;
        let waiting = pending.get_value().filter(|p| focused != Some(*p));
        let mut i: isize = match (waiting.or(focused), nav.current_message().get_untracked()) {
            (Some(m), _) => m as isize,
            (None, Some(c)) => c as isize - step,
            (None, None) => -1,
        };
        loop {
            i += step;
            if i < 0 || i as usize >= n {
                return;
            }
            if f.shows_message(&doc.envelope.messages[i as usize]) {
                pending.set_value(Some(i as usize));
                nav.focus_message(i as usize);
                return;
            }
        }
    };
    let toggle_focused = move || {
        let Some(doc) = doc.get_untracked() else { return };
        let (Some(m), seg) = focused_place() else { return };
        let Some(message) = doc.envelope.messages.get(m) else { return };
        let s = seg.or_else(|| {
            message.segments.iter().position(|s| s.collapsed().is_some() || matches!(s, envelope::Segment::Document(_)))
        });
        let Some(s) = s.filter(|&s| s < message.segments.len()) else { return };
        let key = ToggleKey::segment(m, s);
        let open = expansion.is_open_untracked(key, default_open(&message.segments[s]));
        expansion.set(key, !open);
    };
    // The list is made the first time the dialog opens: the first screen
    // does not build what it does not show (D183).
    let listed = RwSignal::new(false);
    let open_dialog = move || {
        if let Some(d) = dialog.get_untracked() {
            listed.set(true);
            opener.set_value(browser::active_element().map(SendWrapper::new));
            browser::show_modal(&d);
        }
    };
    use_key_down(move |ev| {
        if ev.default_prevented() || ev.is_composing() || doc.with_untracked(Option::is_none) {
            return;
        }
        let key = ev.key();
        if (ev.ctrl_key() || ev.meta_key()) && !ev.alt_key() && key.eq_ignore_ascii_case("k") {
            ev.prevent_default();
            focus_search();
            return;
        }
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        if browser::active_element().is_some_and(|el| is_blocked(&el)) {
            return;
        }
        match key.as_str() {
            "/" => focus_search(),
            "j" => move_by(1),
            "k" => move_by(-1),
            "o" => toggle_focused(),
            "?" => open_dialog(),
            _ => return,
        }
        ev.prevent_default();
    });
    let on_close = move |_| {
        if let Some(el) = opener.try_update_value(Option::take).flatten() {
            browser::focus_quietly(&el.take());
        }
    };
    let close = move |_| {
        if let Some(d) = dialog.get_untracked() {
            browser::close_dialog(&d);
        }
    };
    view! {
        <dialog class="shortcuts" node_ref=dialog aria-labelledby="shortcuts-title" data-testid="shortcuts" on:close=on_close>
            <h2 id="shortcuts-title">"Keyboard shortcuts"</h2>
            {move || listed.get().then(|| view! {
                <table>
                    <tbody>
                        {SHORTCUTS.iter().map(|(k, what)| view! { <tr><th scope="row"><kbd>{*k}</kbd></th><td>{*what}</td></tr> }).collect::<Vec<_>>()}
                    </tbody>
                </table>
            })}
            <button type="button" class="btn" on:click=close autofocus>"Close"</button>
        </dialog>
    }
}

/// Single keys go to typing, and to an open dialog, not to the shortcuts.
fn is_blocked(el: &web_sys::Element) -> bool {
    browser::is_typing_target(el) || el.closest("dialog[open]").ok().flatten().is_some()
}
