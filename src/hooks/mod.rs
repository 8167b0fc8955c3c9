//! Hooks: browser events wired to the app for the lifetime of the calling
//! component (one hook per file; each removes its listeners on cleanup).

pub mod use_history;
