//! Prompt Envelope Protocol core: no web dependencies, tested natively.

pub mod diag;
pub mod markdown;
pub mod skill;
pub mod template;
#[cfg(feature = "tokenizer")]
pub mod tokens;
pub mod truncate;

pub use diag::{Diagnostic, Severity};
