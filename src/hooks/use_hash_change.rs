//! `use_hash_change`: calls back with the new fragment (without `#`) when the
//! address's fragment changes (the user edits it, or goes back or forward).

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub fn use_hash_change(f: impl Fn(String) + 'static) {
    let Some(w) = web_sys::window() else { return };
    let callback = Closure::<dyn Fn(web_sys::Event)>::new(move |_: web_sys::Event| f(crate::browser::location_hash()));
    let _ = w.add_event_listener_with_callback("hashchange", callback.as_ref().unchecked_ref());
    let kept = SendWrapper::new((w, callback));
    on_cleanup(move || {
        let (w, callback) = kept.take();
        let _ = w.remove_event_listener_with_callback("hashchange", callback.as_ref().unchecked_ref());
    });
}
