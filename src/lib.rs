//! Prompt Envelope viewer: a client-side Leptos app over the `envelope` core.
//!
//! The core computes (validation, export, Markdown, tokens, truncation);
//! this crate only turns its results into views and events. `browser` and
//! `hooks` are the only modules that call browser APIs directly.

pub mod app;
pub mod browser;
pub mod budget;
pub mod components;
pub mod doc;
pub mod edit;
pub mod find;
pub mod hooks;
pub mod markdown;
pub mod nav;
pub mod recheck;
pub mod router;
pub mod share;
pub mod split;
pub mod state;
pub mod window;
pub mod worker;

pub use app::App;

/// Replaces the page with an error screen that shows the panic message
/// (as text), so a crash is never a blank page.
pub fn install_panic_screen() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_crash_screen(&info.to_string());
    }));
}

/// Replaces the page body with the error screen.
pub fn show_crash_screen(message: &str) {
    if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
        render_crash_screen(&body, message);
    }
}

/// The error screen inside `host`: a fixed explanation and `message` as text.
pub fn render_crash_screen(host: &web_sys::Element, message: &str) {
    host.set_inner_html(
        "<div class=\"crash\" role=\"alert\" data-testid=\"crash\"><h1>Something went wrong</h1>\
         <p>The viewer hit an internal error and stopped. Reload the page to start again; \
         your saved document is kept.</p><pre id=\"crash-message\"></pre></div>",
    );
    if let Ok(Some(pre)) = host.query_selector("#crash-message") {
        pre.set_text_content(Some(message));
    }
}
