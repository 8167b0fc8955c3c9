//! Prompt Envelope Protocol core: no web dependencies, tested natively.
//!
//! - [`parse`] reads a document and reports every problem with its path;
//! - [`export`] turns it into an OpenAI Chat Completions request (and, with
//!   the `providers` feature, an OpenAI Responses or Anthropic Messages
//!   request or a cURL command); `import` (feature `providers`) reads those
//!   three request formats back into envelopes;
//! - [`skill`] reads SKILL.md files, [`markdown`] renders untrusted Markdown
//!   to safe HTML, [`template`] handles `{{ name }}` variables;
//! - [`truncate`] is PromptPoet's cache-aware truncation; `tokens` (feature
//!   `tokenizer`) counts exact o200k_base tokens;
//! - `promptpoet` (feature `templates`) renders PromptPoet's YAML + Jinja2
//!   templates as prompt-poet 0.0.52 does and turns them into envelopes.
//! - [`engine`] holds the messages between the app and its engine worker
//!   (lint, diff, import, export, render), read and written by both.

pub mod budget;
pub mod calls;
#[cfg(feature = "contract")]
pub mod contract;
pub mod diag;
pub mod diff;
pub mod display;
pub mod edit;
pub mod engine;
pub mod export;
pub mod golden;
#[cfg(feature = "providers")]
pub mod import;
pub mod jsonread;
pub mod jsontext;
pub mod jsonview;
pub mod lang;
pub mod lint;
pub mod locate;
pub mod locator;
pub mod markdown;
pub mod number;
pub mod output;
pub mod output_schema;
pub mod parse;
pub mod parts;
#[cfg(feature = "templates")]
pub mod promptpoet;
#[cfg(feature = "recorded")]
pub mod recorded;
pub mod recording;
pub mod remote;
pub mod schema;
pub mod search;
pub mod secrets;
pub mod share;
pub mod skill;
pub mod skills;
pub mod sniff;
pub mod template;
pub mod term;
#[cfg(feature = "tokenizer")]
pub mod tokens;
pub mod truncate;
pub mod types;
mod url;
pub mod validate;

pub use diag::{Diagnostic, Notice, Rule, Severity};
pub use parse::{parse, parse_bytes, Loaded};
pub use types::*;
