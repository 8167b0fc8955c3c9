//! `encode`: o200k_base token counts (and ids) of the strings the page
//! sends. The encoder is built, and run over ~100 KB of mixed text, before
//! the first count (not when the worker starts: an import should not wait
//! for the tokenizer), so the browser has compiled its hot loops with the
//! optimising tier before the first real count; `ms` leaves that out.

use std::sync::Once;

use envelope::tokens;

/// What `encode` answers, before it becomes typed arrays.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoded {
    /// Tokens per text.
    pub lens: Vec<u32>,
    /// All token ids, flattened (with ids only).
    pub ids: Vec<u32>,
    /// Each token's length in UTF-8 bytes (with ids only).
    pub pieces: Vec<u32>,
}

/// Counts (and with `with_ids`, encodes) each text.
pub fn encode_all<S: AsRef<str>>(texts: impl IntoIterator<Item = S>, with_ids: bool) -> Encoded {
    warm();
    let mut out = Encoded::default();
    for text in texts {
        let text = text.as_ref();
        if with_ids {
            let enc = tokens::encode(text);
            out.pieces.extend(tokens::byte_spans(&enc).into_iter().map(|r| (r.end - r.start) as u32));
            out.lens.push(enc.len() as u32);
            out.ids.extend(enc);
        } else {
            out.lens.push(tokens::count(text) as u32);
        }
    }
    out
}

/// Builds the encoder and exercises it, once.
pub fn warm() {
    static WARM: Once = Once::new();
    WARM.call_once(|| {
        tokens::warm_up();
        const SAMPLE: &str = "Morning! ☕ Big day: we're shipping orders-api 2.14 to prod today. \
            SELECT id, created_at FROM events WHERE ts >= '2026-03-29 01:30+00';\n\
            fn main() { println!(\"{}\", 40 + 2); }\n\t    \
            论文审阅：请检查第三节的实验设计与统计方法是否合理。\
            Ünïcödé tëxt, émojis 🎉👍, numbers 1234567890 and    spaces.\n\n";
        let _ = tokens::count(&SAMPLE.repeat(100_000 / SAMPLE.len()));
        let _ = tokens::encode(&SAMPLE.repeat(25_000 / SAMPLE.len()));
    });
}

/// Answers an `encode` message into `out`.
#[cfg(target_arch = "wasm32")]
pub(crate) fn answer(data: &wasm_bindgen::JsValue, out: &js_sys::Object) -> Result<(), String> {
    use crate::worker::{get, now, set};
    use js_sys::{Array, Uint32Array};
    use wasm_bindgen::{JsCast, JsValue};

    let texts = get(data, "texts").dyn_into::<Array>().map_err(|_| "texts must be an array of strings".to_string())?;
    let with_ids = get(data, "ids").as_bool().unwrap_or(false);
    warm();
    let t0 = now();
    let enc = encode_all(texts.iter().map(|t| t.as_string().unwrap_or_default()), with_ids);
    set(out, "lens", &Uint32Array::from(&enc.lens[..]));
    if with_ids {
        set(out, "tokens", &Uint32Array::from(&enc.ids[..]));
        set(out, "pieces", &Uint32Array::from(&enc.pieces[..]));
    }
    set(out, "ms", &JsValue::from_f64(now() - t0));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_ids_agree_with_the_core() {
        let texts = ["Hello, world!", "", "论文审阅 <|endoftext|>"];
        let plain = encode_all(texts, false);
        assert_eq!(plain.lens, texts.iter().map(|t| tokens::count(t) as u32).collect::<Vec<_>>());
        assert!(plain.ids.is_empty() && plain.pieces.is_empty());
        let full = encode_all(texts, true);
        assert_eq!(full.lens, plain.lens);
        let want: Vec<u32> = texts.iter().flat_map(|t| tokens::encode(t)).collect();
        assert_eq!(full.ids, want);
        // The pieces cover every byte of the texts, in order.
        let bytes: u32 = full.pieces.iter().sum();
        assert_eq!(bytes as usize, texts.iter().map(|t| t.len()).sum::<usize>());
    }
}
