//! The engine's messages: what the page and the engine worker
//! (`crates/token-worker`, a Web Worker) say to each other, defined once
//! for both. Types only, always built, no web dependency; each is written
//! and read with serde (the worker writes replies and reads requests, the
//! page the other way round), and reuses the core's own types: [`Role`],
//! [`Diagnostic`], [`Notice`], [`Target`], the lint settings and findings
//! ([`crate::lint::Config`], [`crate::lint::Finding`], [`Location`]), the
//! diff's [`Comparison`].
//!
//! Every message to the worker is a JS object `{id, op, …}`, every answer
//! `{id, …}` or `{id, error}`. An operation over JSON text is a module here
//! with `OP` (its name), `Request` (the message's `request`, JSON text) and
//! `Reply` (the answer's `reply`, JSON text; an externally tagged enum, tags
//! in snake_case: `{"linted": {…}}`); the answer also holds `ms`, the time
//! the operation took in the worker. [`ENCODE`], the token counts, travels
//! as typed arrays instead (`crates/token-worker/src/tokens.rs`).
//!
//! A document's own problems are part of a reply (`Failed`, with every
//! error and its path); `error` is for a message the worker cannot serve.
//!
//! [`recorded`] is the one operation with a life of its own: while it reads
//! it posts `{id, progress}` messages before its answer, its files travel
//! beside the request (`files`), and the worker keeps what it read for the
//! page's later requests.
//!
//! [`Role`]: crate::types::Role
//! [`Diagnostic`]: crate::diag::Diagnostic
//! [`Notice`]: crate::diag::Notice
//! [`Target`]: crate::export::Target
//! [`Location`]: crate::locate::Location
//! [`Comparison`]: crate::diff::Comparison

pub mod diff;
pub mod export;
pub mod import;
pub mod lint;
pub mod recorded;
pub mod render;
pub mod response;

/// `encode`: `{texts: string[], ids: bool}` → `{lens: Uint32Array,
/// tokens?: Uint32Array, pieces?: Uint32Array, ms}` (o200k_base counts of
/// each text; with `ids`, every token id and each token's length in UTF-8
/// bytes). A message with no `op` is an `encode` too.
pub const ENCODE: &str = "encode";

#[cfg(test)]
mod tests;
