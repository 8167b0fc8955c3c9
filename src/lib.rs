//! Prompt Envelope viewer: a client-side Leptos app over the `envelope` core.
//!
//! The core computes (validation, export, Markdown, tokens, truncation);
//! this crate only turns its results into views and events.
//!
//! `browser` (functions) and `hooks` (event sources tied to a component's
//! life, one per file) are the only modules that call the browser's global
//! APIs: `window` and `document` and what hangs from them (storage, history,
//! the address, fetch, media queries, the clipboard, performance marks),
//! timers and animation frames, event listeners on the window, observers.
//! `worker` alone creates and talks to the engine's Web Worker. The rest of
//! the app reaches the page only through leptos and through the elements
//! and events it is handed or made by `browser` (a node ref's element, an
//! event's key or target): their own methods, never a global. Delays are
//! `browser::sleep` (or `browser::after`), awaited in a task, and nothing
//! else (docs/DECISIONS.md, "One way to wait").

pub mod app;
pub mod browser;
pub mod budget;
pub mod calls;
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

pub use browser::install_panic_screen;
