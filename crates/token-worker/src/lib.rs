//! The engine: the viewer's second WebAssembly module, run in a Web Worker
//! that the page starts on first use (the Budget tab, importing a request, an
//! export other than OpenAI Chat), so the first page load fetches none of it.
//! It holds what the first screen does not need: the o200k_base tokenizer,
//! the provider converters, the lint checks, the diff and the PromptPoet
//! template renderer (`envelope`'s features `tokenizer`, `providers`, `lint`,
//! `diff` and `templates`).
//!
//! # Protocol
//!
//! The worker posts the string `"ready"` once it takes messages. Every
//! message to it is an object with a number `id` (echoed in the answer) and
//! an `op` naming the operation:
//!
//! | `op` | message | answer |
//! |---|---|---|
//! | `"encode"`, or none | `{id, op, texts: string[], ids: bool}` | `{id, lens: Uint32Array, tokens?: Uint32Array, pieces?: Uint32Array, ms}` |
//! | `"import"` | `{id, op, request}`: [`import::Request`] as JSON text | `{id, reply, ms}`: [`import::Reply`] as JSON text |
//! | `"export"` | `{id, op, request}`: [`export::Request`] as JSON text | `{id, reply, ms}`: [`export::Reply`] as JSON text |
//! | `"lint"` | `{id, op, request}`: [`lint::Request`] | `{id, reply, ms}`: [`lint::Reply`] |
//! | `"diff"` | `{id, op, request}`: [`diff::Request`] | `{id, reply, ms}`: [`diff::Reply`] |
//! | `"render"` | `{id, op, request}`: [`render::Request`] (a PromptPoet template and its data) | `{id, reply, ms}`: [`render::Reply`] |
//!
//! `encode` ([`tokens`]) keeps its typed arrays for throughput (and, with no
//! `op`, the shape it had before the other operations existed): `lens[i]` is
//! the token count of `texts[i]`; with `ids`, `tokens` holds every token id in
//! order and `pieces` each token's length in UTF-8 bytes. Text that looks like
//! a special token is ordinary text. The other operations take and give JSON
//! text (the types of their modules, which the page deserialises too). A
//! document's own problems are part of a reply (`Failed` with every error and
//! its path); a message the worker cannot serve (an unknown `op`, a request
//! that does not deserialise) is answered `{id, error: string}`. `ms` is the
//! time the operation took in the worker.
//!
//! If the worker fails to load or crashes (the page sees an `error` event),
//! the page fails every waiting request with a message and starts a fresh
//! worker for the next one (`src/worker/mod.rs`).
//!
//! # Adding an operation
//!
//! A module with `OP` (its name), `Request` and `Reply` (serde types, built
//! without the `engine` feature so that the page can use them), and
//! `handle(request: &str) -> Result<String, String>` (with it, usually
//! [`json_op`] over a `run` function); then one line in [`JSON_OPS`]. The
//! page adds a module beside `src/worker/import.rs`. No other operation
//! changes.

pub mod diff;
pub mod export;
pub mod import;
pub mod lint;
pub mod render;
#[cfg(feature = "engine")]
pub mod tokens;

/// An operation over JSON text: the request in, the reply out, or why the
/// message cannot be served.
#[cfg(feature = "engine")]
pub type JsonOp = fn(&str) -> Result<String, String>;

/// The operations that take and give JSON, by name.
#[cfg(feature = "engine")]
pub const JSON_OPS: &[(&str, JsonOp)] = &[
    (import::OP, import::handle),
    (export::OP, export::handle),
    (lint::OP, lint::handle),
    (diff::OP, diff::handle),
    (render::OP, render::handle),
];

/// The JSON operation named `op`.
#[cfg(feature = "engine")]
pub fn json_op_named(op: &str) -> Option<JsonOp> {
    JSON_OPS.iter().find(|(name, _)| *name == op).map(|(_, f)| *f)
}

/// Runs `run` over a request given as JSON text, and gives its reply as
/// JSON text. A request that does not deserialise, and an `Err` of `run`,
/// are the message's error.
#[cfg(feature = "engine")]
pub fn json_op<Q: serde::de::DeserializeOwned, R: serde::Serialize>(
    request: &str,
    run: impl FnOnce(Q) -> Result<R, String>,
) -> Result<String, String> {
    let q: Q = serde_json::from_str(request).map_err(|e| format!("the request does not fit the operation: {e}"))?;
    serde_json::to_string(&run(q)?).map_err(|e| format!("the reply could not be written: {e}"))
}

#[cfg(all(feature = "engine", target_arch = "wasm32"))]
mod worker {
    use js_sys::{Object, Reflect};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    pub(crate) fn get(o: &JsValue, k: &str) -> JsValue {
        Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
    }

    pub(crate) fn set(o: &Object, k: &str, v: &JsValue) {
        let _ = Reflect::set(o, &JsValue::from_str(k), v);
    }

    pub(crate) fn now() -> f64 {
        js_sys::global().unchecked_into::<DedicatedWorkerGlobalScope>().performance().map_or(0.0, |p| p.now())
    }

    /// The answer to one message.
    fn answer(data: &JsValue) -> Object {
        let out = Object::new();
        set(&out, "id", &get(data, "id"));
        let op = get(data, "op").as_string();
        let served = match op.as_deref() {
            None | Some("encode") => crate::tokens::answer(data, &out),
            Some(name) => match crate::json_op_named(name) {
                Some(handle) => {
                    let t0 = now();
                    match get(data, "request").as_string() {
                        Some(request) => handle(&request).map(|reply| {
                            set(&out, "reply", &JsValue::from_str(&reply));
                            set(&out, "ms", &JsValue::from_f64(now() - t0));
                        }),
                        None => Err(format!("`{name}` takes a `request` string")),
                    }
                }
                None => Err(format!("this worker has no operation `{name}` (is the page newer than the worker?)")),
            },
        };
        if let Err(e) = served {
            set(&out, "error", &JsValue::from_str(&e));
        }
        out
    }

    pub fn serve() {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let reply = scope.clone();
        let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let out = answer(&e.data());
            let _ = reply.post_message(&out);
        });
        scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        onmessage.forget();
        let _ = scope.post_message(&JsValue::from_str("ready"));
    }
}

/// Starts answering the page's messages and says `"ready"`.
#[cfg(all(feature = "engine", target_arch = "wasm32"))]
pub use worker::serve;
