//! Prompt Envelope Protocol core: no web dependencies, tested natively.

pub mod diag;
pub mod template;

pub use diag::{Diagnostic, Severity};
