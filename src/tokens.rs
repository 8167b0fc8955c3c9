//! The tokenizer worker, from the page's side: spawned on first use (so the
//! first page load fetches none of it), asked for counts and ids with
//! postMessage, answered without blocking the page.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect, Uint32Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{MessageEvent, Worker, WorkerOptions, WorkerType};

/// Where Trunk puts the worker's loader (`data-loader-shim`).
pub const WORKER_URL: &str = "/token-worker_loader.js";

/// The worker's answer to one request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Encoded {
    /// Tokens per text.
    pub lens: Vec<u32>,
    /// All token ids, flattened (only when ids were asked for).
    pub ids: Vec<u32>,
    /// Each token's length in UTF-8 bytes (only with ids).
    pub pieces: Vec<u32>,
    /// Milliseconds the worker spent.
    pub ms: f64,
}

struct Client {
    worker: Worker,
    /// Requests sent before the worker said "ready".
    queue: Option<Vec<JsValue>>,
    waiting: HashMap<u32, (Function, Function)>,
    next: u32,
}

thread_local! {
    static CLIENT: RefCell<Option<Rc<RefCell<Client>>>> = const { RefCell::new(None) };
}

fn get(o: &JsValue, k: &str) -> JsValue {
    Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
}

fn u32s(v: JsValue) -> Vec<u32> {
    v.dyn_into::<Uint32Array>().map(|a| a.to_vec()).unwrap_or_default()
}

/// Rejects every waiting request (the worker failed to load or crashed),
/// ends the worker, and forgets it: the next request starts a fresh one.
fn fail_all(client: &Rc<RefCell<Client>>, message: &str) {
    let waiting: Vec<_> = {
        let mut c = client.borrow_mut();
        c.worker.set_onmessage(None);
        c.worker.set_onerror(None);
        c.worker.terminate();
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
    let worker = Worker::new_with_options(WORKER_URL, &options)
        .map_err(|e| format!("the tokenizer worker could not start: {e:?}"))?;
    let client = Rc::new(RefCell::new(Client {
        worker: worker.clone(),
        queue: Some(Vec::new()),
        waiting: HashMap::new(),
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
        let entry = client.borrow_mut().waiting.remove(&id);
        if let Some((resolve, _)) = entry {
            let _ = resolve.call1(&JsValue::NULL, &data);
        }
    });
    worker.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();
    let weak = Rc::downgrade(&client);
    let onerror = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        let msg = get(&e, "message").as_string().unwrap_or_else(|| "the tokenizer worker failed".into());
        if let Some(client) = weak.upgrade() {
            fail_all(&client, &msg);
        }
    });
    worker.set_onerror(Some(onerror.as_ref().unchecked_ref()));
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

/// Counts (and with `ids`, encodes) each text in the worker.
pub async fn encode(texts: &[&str], ids: bool) -> Result<Encoded, String> {
    let client = client()?;
    let array = Array::new_with_length(texts.len() as u32);
    for (i, t) in texts.iter().enumerate() {
        array.set(i as u32, JsValue::from_str(t));
    }
    let message = Object::new();
    let id = {
        let mut c = client.borrow_mut();
        c.next += 1;
        c.next
    };
    let _ = Reflect::set(&message, &"id".into(), &JsValue::from(id));
    let _ = Reflect::set(&message, &"texts".into(), &array);
    let _ = Reflect::set(&message, &"ids".into(), &JsValue::from_bool(ids));
    let promise = Promise::new(&mut |resolve, reject| {
        client.borrow_mut().waiting.insert(id, (resolve, reject));
    });
    {
        let mut c = client.borrow_mut();
        match c.queue.as_mut() {
            Some(q) => q.push(message.into()),
            None => c.worker.post_message(&message).map_err(|e| format!("{e:?}"))?,
        }
    }
    let data = JsFuture::from(promise).await.map_err(|e| e.as_string().unwrap_or_else(|| format!("{e:?}")))?;
    if let Some(err) = get(&data, "error").as_string() {
        return Err(err);
    }
    Ok(Encoded {
        lens: u32s(get(&data, "lens")),
        ids: u32s(get(&data, "tokens")),
        pieces: u32s(get(&data, "pieces")),
        ms: get(&data, "ms").as_f64().unwrap_or(0.0),
    })
}
