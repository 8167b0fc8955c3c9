//! `use_page_scroll`: calls back on every scroll anywhere in the page (a
//! capturing listener on the window: element scrolls do not bubble) with the
//! node that scrolled, and on window resizes with `None`.

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub fn use_page_scroll(f: impl Fn(Option<web_sys::Node>) + 'static) {
    let Some(w) = web_sys::window() else { return };
    let f = std::rc::Rc::new(f);
    let on_scroll = {
        let f = f.clone();
        Closure::<dyn Fn(web_sys::Event)>::new(move |ev: web_sys::Event| {
            f(ev.target().and_then(|t| t.dyn_into::<web_sys::Node>().ok()));
        })
    };
    let on_resize = Closure::<dyn Fn(web_sys::Event)>::new(move |_: web_sys::Event| f(None));
    let options = web_sys::AddEventListenerOptions::new();
    options.set_capture(true);
    options.set_passive(true);
    let _ = w.add_event_listener_with_callback_and_add_event_listener_options(
        "scroll",
        on_scroll.as_ref().unchecked_ref(),
        &options,
    );
    let _ = w.add_event_listener_with_callback("resize", on_resize.as_ref().unchecked_ref());
    let kept = SendWrapper::new((w, on_scroll, on_resize));
    on_cleanup(move || {
        let (w, on_scroll, on_resize) = kept.take();
        let _ = w.remove_event_listener_with_callback_and_bool("scroll", on_scroll.as_ref().unchecked_ref(), true);
        let _ = w.remove_event_listener_with_callback("resize", on_resize.as_ref().unchecked_ref());
    });
}
