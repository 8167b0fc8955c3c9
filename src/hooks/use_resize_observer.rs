//! `use_resize_observer`: one `ResizeObserver` for many elements (their
//! border box, so padding changes count); the callback gets each resized
//! element with its border-box height, all of one frame's changes at once,
//! after layout and before paint.

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Observes and unobserves elements; disconnects when its owner is cleaned up.
#[derive(Clone)]
pub struct ResizeObserverHandle {
    observer: Option<web_sys::ResizeObserver>,
}

impl ResizeObserverHandle {
    pub fn observe(&self, el: &web_sys::Element) {
        if let Some(o) = &self.observer {
            let options = web_sys::ResizeObserverOptions::new();
            options.set_box(web_sys::ResizeObserverBoxOptions::BorderBox);
            o.observe_with_options(el, &options);
        }
    }

    pub fn unobserve(&self, el: &web_sys::Element) {
        if let Some(o) = &self.observer {
            o.unobserve(el);
        }
    }
}

/// The border-box block size of an entry (its height in horizontal text).
fn block_size(entry: &web_sys::ResizeObserverEntry) -> f64 {
    let sizes = entry.border_box_size();
    match sizes.get(0).dyn_into::<web_sys::ResizeObserverSize>() {
        Ok(size) => size.block_size(),
        Err(_) => entry.content_rect().height(),
    }
}

pub fn use_resize_observer(f: impl Fn(Vec<(web_sys::Element, f64)>) + 'static) -> ResizeObserverHandle {
    let callback = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
        let resized = entries
            .iter()
            .map(|e| {
                let entry: web_sys::ResizeObserverEntry = e.unchecked_into();
                (entry.target(), block_size(&entry))
            })
            .collect();
        f(resized);
    });
    let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok();
    let kept = SendWrapper::new((observer.clone(), callback));
    on_cleanup(move || {
        let (observer, callback) = kept.take();
        if let Some(o) = observer {
            o.disconnect();
        }
        drop(callback);
    });
    ResizeObserverHandle { observer }
}
