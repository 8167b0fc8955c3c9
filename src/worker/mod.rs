//! The engine worker, from the page's side: spawned on first use (so the
//! first page load fetches none of it), asked with postMessage, answered
//! without blocking the page. One typed async function per operation, in a
//! module each: [`tokens::encode`], [`import::import`], [`export::export`],
//! [`lint::lint_timed`], [`diff::diff`], [`render::render_timed`], [`response::check`],
//! [`recorded::read`] (with progress) and [`recorded::call`].
//! The protocol is documented in the worker crate (`pep_token_worker`); its
//! messages are the core's (`envelope::engine`), which the worker writes and
//! the page reads here into those types (serde, both ways).
//!
//! A worker that fails to load or crashes fails every waiting request with a
//! message (the views show it with "Try again") and is forgotten: the next
//! request starts a fresh one. Nothing waits forever on a dead worker.
//! [`stop`] ends it on purpose (Cancel of a recording's read) the same way.

pub mod diff;
pub mod export;
pub mod import;
pub mod lint;
pub mod recorded;
pub mod render;
pub mod response;
pub mod tokens;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// Where Trunk puts the worker's loader (`data-loader-shim`), under the
/// site's public URL (`crate::router::href`).
pub const WORKER_PATH: &str = "/token-worker_loader.js";

struct Client {
    worker: Worker,
    /// Requests sent before the worker said "ready".
    queue: Option<Vec<JsValue>>,
    waiting: HashMap<u32, (Function, Function)>,
    /// What to call with a request's `{id, progress}` messages (`recorded`).
    progress: HashMap<u32, Box<dyn FnMut(JsValue)>>,
    next: u32,
}

thread_local! {
    static CLIENT: RefCell<Option<Rc<RefCell<Client>>>> = const { RefCell::new(None) };
}

fn get(o: &JsValue, k: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

fn set(o: &Object, k: &str, v: &JsValue) {
    let _ = Reflect::set(o, &JsValue::from_str(k), v);
}

/// Rejects every waiting request (the worker failed to load or crashed),
/// ends the worker, and forgets it: the next request starts a fresh one.
fn fail_all(client: &Rc<RefCell<Client>>, message: &str) {
    let waiting: Vec<_> = {
        let mut c = client.borrow_mut();
        c.worker.set_onmessage(None);
        c.worker.set_onerror(None);
        c.worker.set_onmessageerror(None);
        c.worker.terminate();
        c.queue = None;
        c.progress.clear();
        c.waiting.drain().collect()
    };
    for (_, (_, reject)) in waiting {
        let _ = reject.call1(&JsValue::NULL, &JsValue::from_str(message));
    }
    CLIENT.with(|c| {
        let mut slot = c.borrow_mut();
        if slot.as_ref().is_some_and(|current| Rc::ptr_eq(current, client)) {
            *slot = None;
        }
    });
}

fn spawn() -> Result<Rc<RefCell<Client>>, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(&crate::router::href(WORKER_PATH), &options)
        .map_err(|e| format!("the engine worker could not start: {e:?}"))?;
    let client = Rc::new(RefCell::new(Client {
        worker: worker.clone(),
        queue: Some(Vec::new()),
        waiting: HashMap::new(),
        progress: HashMap::new(),
        next: 0,
    }));
    let weak = Rc::downgrade(&client);
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
        let Some(client) = weak.upgrade() else { return };
        let data = e.data();
        if data.as_string().as_deref() == Some("ready") {
            let mut c = client.borrow_mut();
            for m in c.queue.take().unwrap_or_default() {
                let _ = c.worker.post_message(&m);
            }
            return;
        }
        let id = get(&data, "id").as_f64().unwrap_or(-1.0) as u32;
        let progress = get(&data, "progress");
        if !progress.is_undefined() {
            // Out of the client while it runs (it may ask the engine again).
            let taken = client.borrow_mut().progress.remove(&id);
            if let Some(mut f) = taken {
                f(progress);
                if client.borrow().waiting.contains_key(&id) {
                    client.borrow_mut().progress.insert(id, f);
                }
            }
            return;
        }
        client.borrow_mut().progress.remove(&id);
        let entry = client.borrow_mut().waiting.remove(&id);
        if let Some((resolve, _)) = entry {
            let _ = resolve.call1(&JsValue::NULL, &data);
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    let weak = Rc::downgrade(&client);
    let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        let msg = get(&e, "message")
            .as_string()
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "the engine worker failed to load or stopped".into());
        if let Some(client) = weak.upgrade() {
            fail_all(&client, &msg);
        }
    });
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
    worker.set_onmessageerror(Some(onerror.as_ref().unchecked_ref()));
    onerror.forget();
    Ok(client)
}

fn client() -> Result<Rc<RefCell<Client>>, String> {
    CLIENT.with(|c| {
        let mut slot = c.borrow_mut();
        if let Some(existing) = slot.as_ref() {
            return Ok(existing.clone());
        }
        let fresh = spawn()?;
        *slot = Some(fresh.clone());
        Ok(fresh)
    })
}

/// Sends `message` (an object with `op` and the operation's fields; the id
/// is added here) and awaits the answer. `Err` when the worker could not
/// load, crashed, or answered `{error}`.
pub async fn call(message: Object) -> Result<JsValue, String> {
    call_with_progress(message, None).await
}

/// [`call`], with `on_progress` called with each `{id, progress}` message's
/// `progress` that comes before the answer.
pub async fn call_with_progress(
    message: Object,
    on_progress: Option<Box<dyn FnMut(JsValue)>>,
) -> Result<JsValue, String> {
    let client = client()?;
    let id = {
        let mut c = client.borrow_mut();
        c.next += 1;
        c.next
    };
    if let Some(f) = on_progress {
        client.borrow_mut().progress.insert(id, f);
    }
    set(&message, "id", &JsValue::from(id));
    let promise = Promise::new(&mut |resolve, reject| {
        client.borrow_mut().waiting.insert(id, (resolve, reject));
    });
    let posted = {
        let mut c = client.borrow_mut();
        match c.queue.as_mut() {
            Some(q) => {
                q.push(message.into());
                Ok(())
            }
            None => c.worker.post_message(&message).map_err(|e| format!("{e:?}")),
        }
    };
    if let Err(e) = posted {
        client.borrow_mut().waiting.remove(&id);
        client.borrow_mut().progress.remove(&id);
        return Err(format!("the engine worker could not be asked: {e}"));
    }
    let data = JsFuture::from(promise).await.map_err(|e| e.as_string().unwrap_or_else(|| format!("{e:?}")))?;
    if let Some(err) = get(&data, "error").as_string() {
        return Err(err);
    }
    Ok(data)
}

/// Runs a JSON operation: `request` serialised, the reply deserialised.
pub async fn call_json<Q: serde::Serialize, R: serde::de::DeserializeOwned>(
    op: &str,
    request: &Q,
) -> Result<R, String> {
    call_json_timed(op, request).await.map(|(r, _)| r)
}

/// [`call_json`], with the time the operation took in the worker (ms).
pub async fn call_json_timed<Q: serde::Serialize, R: serde::de::DeserializeOwned>(
    op: &str,
    request: &Q,
) -> Result<(R, f64), String> {
    let text = serde_json::to_string(request).map_err(|e| format!("the request could not be written: {e}"))?;
    let message = Object::new();
    set(&message, "op", &JsValue::from_str(op));
    set(&message, "request", &JsValue::from_str(&text));
    let data = call(message).await?;
    let reply = get(&data, "reply")
        .as_string()
        .ok_or_else(|| format!("the engine worker answered `{op}` without a reply (is it older than the page?)"))?;
    let ms = get(&data, "ms").as_f64().unwrap_or(0.0);
    Ok((read_reply(op, &reply)?, ms))
}

/// Ends the engine worker now, failing every waiting request with
/// `message` (Cancel: nothing else stops an operation under way); the next
/// request starts a fresh one.
pub fn stop(message: &str) {
    if let Some(client) = CLIENT.with(|c| c.borrow().clone()) {
        fail_all(&client, message);
    }
}

/// Whether the engine is started (a view may then use it without making
/// the page load it).
pub fn is_started() -> bool {
    CLIENT.with(|c| c.borrow().is_some())
}

/// A reply's JSON text as its type; a reply that does not fit is an error
/// that says so (a cached worker older than the page, say).
pub fn read_reply<R: serde::de::DeserializeOwned>(op: &str, reply: &str) -> Result<R, String> {
    serde_json::from_str(reply)
        .map_err(|e| format!("the engine worker's `{op}` reply does not read ({e}); reload the page"))
}
