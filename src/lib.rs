//! Prompt Envelope viewer: a client-side Leptos app over the `envelope` core.
//!
//! The core computes (validation, export, Markdown, tokens, truncation);
//! this crate only turns its results into views and events. `browser` and
//! `hooks` are the only modules that call browser APIs directly.

pub mod app;
pub mod browser;
pub mod budget;
pub mod components;
pub mod demos;
pub mod doc;
pub mod edit;
pub mod find;
pub mod format;
pub mod hooks;
pub mod markdown;
pub mod nav;
pub mod pages;
pub mod recheck;
pub mod router;
pub mod secrets;
pub mod share;
pub mod split;
pub mod state;
pub mod window;
pub mod worker;

pub use app::App;

/// Keeps a panic's message for the error screen: index.html's crash script
/// shows it when the abort that follows reaches the page as a trap. Release
/// builds do not call this: their panics abort at once
/// (`panic=immediate-abort`, scripts/trunk.sh), no hook runs, and the screen
/// names the trap instead.
pub fn install_panic_screen() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        if let Some(window) = web_sys::window() {
            let _ = js_sys::Reflect::set(&window, &"__pepPanic".into(), &info.to_string().into());
        }
    }));
}
