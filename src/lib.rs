//! Prompt Envelope viewer: a client-side Leptos app over the `envelope` core.
//!
//! The core computes (validation, export, Markdown, tokens, truncation);
//! this crate only turns its results into views and events. `browser` is
//! the only module that calls browser APIs directly.

pub mod app;
pub mod browser;
pub mod budget;
pub mod components;
pub mod doc;
pub mod state;
pub mod tokens;

pub use app::App;

/// Replaces the page with an error screen that shows the panic message
/// (as text), so a crash is never a blank page.
pub fn install_panic_screen() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let message = info.to_string();
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
        let Some(body) = doc.body() else { return };
        body.set_inner_html(
            "<div class=\"crash\" role=\"alert\"><h1>Something went wrong</h1>\
             <p>The viewer hit an internal error and stopped. Reload the page to start again; \
             your saved document is kept.</p><pre id=\"crash-message\"></pre></div>",
        );
        if let Some(pre) = doc.get_element_by_id("crash-message") {
            pre.set_text_content(Some(&message));
        }
    }));
}
