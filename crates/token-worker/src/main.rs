//! The tokenizer worker. Messages in: `{id, texts: string[], ids: bool}`.
//! Messages out: `"ready"` once, then per request
//! `{id, lens: Uint32Array, tokens?: Uint32Array, pieces?: Uint32Array, ms}`
//! (`lens[i]` tokens for `texts[i]`; with `ids`, all token ids flattened in
//! order, and each token's length in bytes of UTF-8), or `{id, error}`.
//! Text that looks like a special token is ordinary text.

#[cfg(target_arch = "wasm32")]
mod worker {
    use envelope::tokens;
    use js_sys::{Array, Object, Reflect, Uint32Array};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    fn get(o: &JsValue, k: &str) -> JsValue {
        Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
    }

    fn set(o: &Object, k: &str, v: &JsValue) {
        let _ = Reflect::set(o, &JsValue::from_str(k), v);
    }

    fn now(scope: &DedicatedWorkerGlobalScope) -> f64 {
        scope.performance().map_or(0.0, |p| p.now())
    }

    fn answer(scope: &DedicatedWorkerGlobalScope, data: &JsValue) -> Object {
        let out = Object::new();
        set(&out, "id", &get(data, "id"));
        let t0 = now(scope);
        let Ok(texts) = get(data, "texts").dyn_into::<Array>() else {
            set(&out, "error", &JsValue::from_str("texts must be an array of strings"));
            return out;
        };
        let with_ids = get(data, "ids").as_bool().unwrap_or(false);
        let mut lens: Vec<u32> = Vec::with_capacity(texts.length() as usize);
        let mut ids: Vec<u32> = Vec::new();
        let mut pieces: Vec<u32> = Vec::new();
        for t in texts.iter() {
            let text = t.as_string().unwrap_or_default();
            if with_ids {
                let enc = tokens::encode(&text);
                pieces.extend(tokens::byte_spans(&enc).into_iter().map(|r| (r.end - r.start) as u32));
                lens.push(enc.len() as u32);
                ids.extend(enc);
            } else {
                lens.push(tokens::count(&text) as u32);
            }
        }
        set(&out, "lens", &Uint32Array::from(&lens[..]));
        if with_ids {
            set(&out, "tokens", &Uint32Array::from(&ids[..]));
            set(&out, "pieces", &Uint32Array::from(&pieces[..]));
        }
        set(&out, "ms", &JsValue::from_f64(now(scope) - t0));
        out
    }

    pub fn start() {
        let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let reply = scope.clone();
        let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            let out = answer(&reply, &e.data());
            let _ = reply.post_message(&out);
        });
        scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
        onmessage.forget();
        // Build the encoder now, so the first request does not wait for it,
        // and run it over ~100 KB of mixed text so that the browser has
        // compiled its hot loops with the optimising tier before the first
        // real count (a fresh module runs its baseline code, ~3× slower).
        tokens::warm_up();
        exercise();
        let _ = scope.post_message(&JsValue::from_str("ready"));
    }

    /// Counts and encodes a sample of every kind of text the tokenizer meets.
    fn exercise() {
        const SAMPLE: &str = "Morning! ☕ Big day: we're shipping orders-api 2.14 to prod today. \
            SELECT id, created_at FROM events WHERE ts >= '2026-03-29 01:30+00';\n\
            fn main() { println!(\"{}\", 40 + 2); }\n\t    \
            论文审阅：请检查第三节的实验设计与统计方法是否合理。\
            Ünïcödé tëxt, émojis 🎉👍, numbers 1234567890 and    spaces.\n\n";
        let _ = tokens::count(&SAMPLE.repeat(100_000 / SAMPLE.len()));
        let _ = tokens::encode(&SAMPLE.repeat(25_000 / SAMPLE.len()));
    }
}

fn main() {
    #[cfg(target_arch = "wasm32")]
    worker::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("token-worker runs in a browser Web Worker; build it with trunk");
}
