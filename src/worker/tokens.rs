//! `encode`: o200k_base counts (and ids) of the strings the OpenAI Chat
//! request sends, for the Budget tab.

use js_sys::{Array, Object, Uint32Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::{call, get, set};

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

fn u32s(v: JsValue) -> Vec<u32> {
    v.dyn_into::<Uint32Array>().map(|a| a.to_vec()).unwrap_or_default()
}

/// Texts are sent to the worker in batches of about this many bytes: each
/// batch is copied into JavaScript strings and cloned into the worker in a
/// task of its own (tens of ms), never the whole document in one (at
/// 100,000 parts, over a second).
const BATCH_BYTES: usize = 2_000_000;

/// Counts (and with `ids`, encodes) each text in the worker, in batches of
/// about [`BATCH_BYTES`] (the answers are put together in order).
pub async fn encode(texts: &[&str], ids: bool) -> Result<Encoded, String> {
    let mut all = Encoded::default();
    let mut start = 0;
    while start < texts.len() || (start == 0 && texts.is_empty()) {
        let mut end = start;
        let mut bytes = 0;
        while end < texts.len() && (end == start || bytes + texts[end].len() <= BATCH_BYTES) {
            bytes += texts[end].len();
            end += 1;
        }
        let part = encode_batch(&texts[start..end], ids).await?;
        if start == 0 && end == texts.len() {
            return Ok(part);
        }
        all.lens.extend(part.lens);
        all.ids.extend(part.ids);
        all.pieces.extend(part.pieces);
        all.ms += part.ms;
        start = end;
    }
    Ok(all)
}

/// One request to the worker.
async fn encode_batch(texts: &[&str], ids: bool) -> Result<Encoded, String> {
    let array = Array::new_with_length(texts.len() as u32);
    for (i, t) in texts.iter().enumerate() {
        array.set(i as u32, JsValue::from_str(t));
    }
    let message = Object::new();
    set(&message, "op", &JsValue::from_str("encode"));
    set(&message, "texts", &array);
    set(&message, "ids", &JsValue::from_bool(ids));
    let data = call(message).await?;
    Ok(Encoded {
        lens: u32s(get(&data, "lens")),
        ids: u32s(get(&data, "tokens")),
        pieces: u32s(get(&data, "pieces")),
        ms: get(&data, "ms").as_f64().unwrap_or(0.0),
    })
}
