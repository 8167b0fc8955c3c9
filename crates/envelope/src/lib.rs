//! Prompt Envelope Protocol core: no web dependencies, tested natively.
//!
//! - [`parse`] reads a document and reports every problem with its path;
//! - [`export`] turns it into an OpenAI Chat Completions request;
//! - [`skill`] reads SKILL.md files, [`markdown`] renders untrusted Markdown
//!   to safe HTML, [`template`] handles `{{ name }}` variables;
//! - [`truncate`] is PromptPoet's cache-aware truncation; `tokens` (feature
//!   `tokenizer`) counts exact o200k_base tokens.

pub mod budget;
pub mod calls;
pub mod diag;
pub mod display;
pub mod export;
pub mod jsonread;
pub mod jsontext;
pub mod jsonview;
pub mod markdown;
pub mod parse;
pub mod parts;
pub mod schema;
pub mod skill;
pub mod template;
pub mod term;
#[cfg(feature = "tokenizer")]
pub mod tokens;
pub mod truncate;
pub mod types;
mod url;
pub mod validate;

pub use diag::{Diagnostic, Rule, Severity};
pub use parse::{parse, parse_bytes, Loaded};
pub use types::*;
