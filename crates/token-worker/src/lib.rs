//! The engine: the viewer's second WebAssembly module, run in a Web Worker
//! that the page starts on first use (the Budget tab, importing a request, an
//! export other than OpenAI Chat), so the first page load fetches none of it.
//! It holds what the first screen does not need: the o200k_base tokenizer,
//! the provider converters, the lint checks, the diff, the PromptPoet
//! template renderer and the reader of recorded calls (`envelope`'s features
//! `tokenizer`, `providers`, `lint`, `diff`, `templates` and `recorded`).
//!
//! # Protocol
//!
//! The messages are the core's, [`envelope::engine`] (the page reads them
//! too): the worker posts the string `"ready"` once it takes messages; every
//! message to it is an object with a number `id` (echoed in the answer) and
//! an `op` naming the operation:
//!
//! | `op` | message | answer |
//! |---|---|---|
//! | `"encode"`, or none | `{id, op, texts: string[], ids: bool}` | `{id, lens: Uint32Array, tokens?: Uint32Array, pieces?: Uint32Array, ms}` |
//! | `"import"` | `{id, op, request}`: [`engine::import::Request`] as JSON text | `{id, reply, ms}`: [`engine::import::Reply`] as JSON text |
//! | `"export"` | `{id, op, request}`: [`engine::export::Request`] | `{id, reply, ms}`: [`engine::export::Reply`] |
//! | `"lint"` | `{id, op, request}`: [`engine::lint::Request`] | `{id, reply, ms}`: [`engine::lint::Reply`] |
//! | `"diff"` | `{id, op, request}`: [`engine::diff::Request`] | `{id, reply, ms}`: [`engine::diff::Reply`] |
//! | `"render"` | `{id, op, request}`: [`engine::render::Request`] (a PromptPoet template and its data) | `{id, reply, ms}`: [`engine::render::Reply`] |
//! | `"response"` | `{id, op, request}`: [`engine::response::Request`] (an output, its schema, a golden output and the match rules) | `{id, reply, ms}`: [`engine::response::Reply`] |
//! | `"recorded"` | `{id, op, request, files?}`: [`engine::recorded::Request`]; `files`, the `File`s a `read` names | `{id, progress}` messages while reading ([`engine::recorded::Progress`]), then `{id, reply, ms}`: [`engine::recorded::Reply`] |
//!
//! `encode` ([`tokens`]) keeps its typed arrays for throughput (and, with no
//! `op`, the shape it had before the other operations existed): `lens[i]` is
//! the token count of `texts[i]`; with `ids`, `tokens` holds every token id in
//! order and `pieces` each token's length in UTF-8 bytes. Text that looks like
//! a special token is ordinary text. The other operations take and give JSON
//! text (the core's types, which the page deserialises too). A
//! document's own problems are part of a reply (`Failed` with every error and
//! its path); a message the worker cannot serve (an unknown `op`, a request
//! that does not deserialise) is answered `{id, error: string}`. `ms` is the
//! time the operation took in the worker.
//!
//! `recorded` ([`recorded`]) is the one operation with a life: a `read`
//! posts any number of `{id, progress}` messages (JSON text: bytes read,
//! calls so far, the rows of the calls read since the last one) before its
//! one answer, which ends the request as for any other operation; and the
//! worker keeps the calls it read (the last recording only) for `call`
//! requests, which name the recording by the page's number and are answered
//! `gone` when the worker no longer holds it. The page cancels a read by
//! ending the worker (nothing else stops a synchronous loop); the next
//! request starts a fresh one, which holds no recording.
//!
//! If the worker fails to load or crashes (the page sees an `error` event),
//! the page fails every waiting request with a message and starts a fresh
//! worker for the next one (`src/worker/mod.rs`).
//!
//! # Adding an operation
//!
//! Its messages in the core, a module of [`envelope::engine`] (`OP`,
//! `Request`, `Reply`); here a module with `handle(request: &str) ->
//! Result<String, String>` (usually [`json_op`] over a `run` function) and
//! one line in [`JSON_OPS`]. The page adds a module beside
//! `src/worker/import.rs`. No other operation changes.
//!
//! [`engine::import::Request`]: envelope::engine::import::Request
//! [`engine::import::Reply`]: envelope::engine::import::Reply
//! [`engine::export::Request`]: envelope::engine::export::Request
//! [`engine::export::Reply`]: envelope::engine::export::Reply
//! [`engine::lint::Request`]: envelope::engine::lint::Request
//! [`engine::lint::Reply`]: envelope::engine::lint::Reply
//! [`engine::diff::Request`]: envelope::engine::diff::Request
//! [`engine::diff::Reply`]: envelope::engine::diff::Reply
//! [`engine::render::Request`]: envelope::engine::render::Request
//! [`engine::render::Reply`]: envelope::engine::render::Reply
//! [`engine::response::Request`]: envelope::engine::response::Request
//! [`engine::response::Reply`]: envelope::engine::response::Reply
//! [`engine::recorded::Request`]: envelope::engine::recorded::Request
//! [`engine::recorded::Progress`]: envelope::engine::recorded::Progress
//! [`engine::recorded::Reply`]: envelope::engine::recorded::Reply

pub mod diff;
pub mod export;
pub mod import;
pub mod lint;
pub mod recorded;
pub mod render;
pub mod response;
pub mod tokens;

use envelope::engine;

/// An operation over JSON text: the request in, the reply out, or why the
/// message cannot be served.
pub type JsonOp = fn(&str) -> Result<String, String>;

/// The operations that take and give JSON, by name.
pub const JSON_OPS: &[(&str, JsonOp)] = &[
    (engine::import::OP, import::handle),
    (engine::export::OP, export::handle),
    (engine::lint::OP, lint::handle),
    (engine::diff::OP, diff::handle),
    (engine::render::OP, render::handle),
    (engine::response::OP, response::handle),
];

/// The JSON operation named `op`.
pub fn json_op_named(op: &str) -> Option<JsonOp> {
    JSON_OPS.iter().find(|(name, _)| *name == op).map(|(_, f)| *f)
}

/// Runs `run` over a request given as JSON text, and gives its reply as
/// JSON text. A request that does not deserialise, and an `Err` of `run`,
/// are the message's error.
pub fn json_op<Q: serde::de::DeserializeOwned, R: serde::Serialize>(
    request: &str,
    run: impl FnOnce(Q) -> Result<R, String>,
) -> Result<String, String> {
    let q: Q = serde_json::from_str(request).map_err(|e| format!("the request does not fit the operation: {e}"))?;
    serde_json::to_string(&run(q)?).map_err(|e| format!("the reply could not be written: {e}"))
}

#[cfg(target_arch = "wasm32")]
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

    /// The answer to one message (progress, for `recorded`, posted through `scope` meanwhile).
    fn answer(data: &JsValue, scope: &DedicatedWorkerGlobalScope) -> Object {
        let out = Object::new();
        set(&out, "id", &get(data, "id"));
        let op = get(data, "op").as_string();
        let served = match op.as_deref() {
            None | Some(envelope::engine::ENCODE) => crate::tokens::answer(data, &out),
            Some(envelope::engine::recorded::OP) => crate::recorded::web::serve(data, &out, scope),
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
            let out = answer(&e.data(), &reply);
            let _ = reply.post_message(&out);
        });
        scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        onmessage.forget();
        let _ = scope.post_message(&JsValue::from_str("ready"));
    }
}

/// Starts answering the page's messages and says `"ready"`.
#[cfg(target_arch = "wasm32")]
pub use worker::serve;
