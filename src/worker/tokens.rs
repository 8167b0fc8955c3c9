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

/// Texts are sent to the worker in batches of at most this many bytes: each
/// batch is copied into JavaScript strings and cloned into the worker in a
/// task of its own (tens of ms), never the whole document in one (at
/// 100,000 parts, over a second).
const BATCH_BYTES: usize = 1_000_000;
/// And at most this many texts (each is a call across the JavaScript
/// boundary: 100,000 short segments cost as much as megabytes).
const BATCH_TEXTS: usize = 20_000;

/// Counts (and with `ids`, encodes) each text in the worker, in batches of
/// about [`BATCH_BYTES`] (the answers are put together in order).
pub async fn encode(texts: &[&str], ids: bool) -> Result<Encoded, String> {
    let ranges = batches(texts);
    if ranges.len() == 1 {
        return encode_batch(texts, ids).await;
    }
    let mut all = Encoded::default();
    for r in ranges {
        let part = encode_batch(&texts[r], ids).await?;
        all.lens.extend(part.lens);
        all.ids.extend(part.ids);
        all.pieces.extend(part.pieces);
        all.ms += part.ms;
    }
    Ok(all)
}

/// `texts` cut in consecutive batches of at most [`BATCH_BYTES`] (a longer
/// text alone) and [`BATCH_TEXTS`]; one (empty) batch for no texts.
fn batches(texts: &[&str]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < texts.len() || out.is_empty() {
        let (mut end, mut bytes) = (start, 0);
        while end < texts.len()
            && (end == start || (bytes + texts[end].len() <= BATCH_BYTES && end - start < BATCH_TEXTS))
        {
            bytes += texts[end].len();
            end += 1;
        }
        out.push(start..end);
        start = end;
    }
    out
}

/// One request to the worker.
async fn encode_batch(texts: &[&str], ids: bool) -> Result<Encoded, String> {
    let array = Array::new_with_length(texts.len() as u32);
    for (i, t) in texts.iter().enumerate() {
        array.set(i as u32, JsValue::from_str(t));
    }
    let message = Object::new();
    set(&message, "op", &JsValue::from_str(envelope::engine::ENCODE));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_bounded_in_bytes_and_texts_and_cover_everything() {
        assert_eq!(batches(&[]), vec![0..0]);
        assert_eq!(batches(&["a", "b"]), vec![0..2]);
        let big = "x".repeat(BATCH_BYTES + 1);
        assert_eq!(batches(&["a", &big, "b"]), vec![0..1, 1..2, 2..3], "a text over the limit goes alone");
        let many = vec!["seg"; 2 * BATCH_TEXTS + 5];
        let b = batches(&many);
        assert_eq!(b, vec![0..BATCH_TEXTS, BATCH_TEXTS..2 * BATCH_TEXTS, 2 * BATCH_TEXTS..2 * BATCH_TEXTS + 5]);
        let half = "y".repeat(BATCH_BYTES / 2);
        assert_eq!(batches(&[&half, &half, &half]), vec![0..2, 2..3]);
    }
}
