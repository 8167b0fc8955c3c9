//! `use_key_down`: calls back with every `keydown` of the page (the
//! keyboard shortcuts), until the component goes.

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub fn use_key_down(f: impl Fn(web_sys::KeyboardEvent) + 'static) {
    let Some(w) = web_sys::window() else { return };
    let callback = Closure::<dyn Fn(web_sys::KeyboardEvent)>::new(f);
    let _ = w.add_event_listener_with_callback("keydown", callback.as_ref().unchecked_ref());
    let kept = SendWrapper::new((w, callback));
    on_cleanup(move || {
        let (w, callback) = kept.take();
        let _ = w.remove_event_listener_with_callback("keydown", callback.as_ref().unchecked_ref());
    });
}
