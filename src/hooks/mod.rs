//! Hooks: browser event sources tied to a component's life (set up when it
//! is built, removed on cleanup), one per file. With `browser`, the only
//! places that call the browser's globals (the invariant is in `lib.rs`).

mod use_file_links;
mod use_hash_change;
mod use_key_down;
mod use_page_scroll;
mod use_resize_observer;
mod use_service_worker;

pub use use_file_links::use_file_links;
pub use use_hash_change::use_hash_change;
pub use use_key_down::use_key_down;
pub use use_page_scroll::use_page_scroll;
pub use use_resize_observer::{use_resize_observer, ResizeObserverHandle};
pub use use_service_worker::{use_service_worker, Update};
