//! Reading speed of the strict JSON reader (`envelope::jsonread`, which sees
//! duplicate keys) against `serde_json::from_str::<Value>` (what reading used
//! before), and of the whole `parse_bytes`, on the given files and on a
//! ~40 MB envelope built from the first one (its messages repeated, ids made
//! unique). The two readers run in turn, median of 7
//! each; `parse_bytes` median of 5. Prints one JSON object.
//!
//! Usage: read_speed FILE...

use std::hint::black_box;
use std::time::Instant;

use serde_json::Value;

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v[2]
}

/// `doc` with its messages repeated until the text is at least `bytes` long.
fn grown(doc: &str, bytes: usize) -> String {
    let v: Value = serde_json::from_str(doc).expect("JSON");
    let messages = v["messages"].as_array().cloned().unwrap_or_default();
    let mut out = v.clone();
    let mut all = Vec::new();
    let mut round = 0;
    while serde_json::to_string(&Value::Array(all.clone())).map_or(0, |s| s.len()) < bytes && !messages.is_empty() {
        for m in &messages {
            let mut m = m.clone();
            if let Some(id) = m.get("id").and_then(Value::as_str) {
                m["id"] = format!("{id}~{round}").into();
            }
            all.push(m);
        }
        round += 1;
    }
    out["messages"] = Value::Array(all);
    serde_json::to_string(&out).expect("serialises")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn time_ms(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

/// The two readers run in turn (7 rounds), so that a change of machine load
/// affects both alike.
fn row(name: &str, text: &str) -> String {
    let (mut serde, mut strict) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        serde.push(time_ms(|| drop(black_box(serde_json::from_str::<Value>(text)))));
        strict.push(time_ms(|| drop(black_box(envelope::jsonread::read(text)))));
    }
    let (serde, strict) = (median(serde), median(strict));
    let parse = median_ms(|| drop(black_box(envelope::parse_bytes(text.as_bytes()))));
    format!(
        "{{\"file\":\"{name}\",\"bytes\":{},\"serde_json_ms\":{serde:.1},\"jsonread_ms\":{strict:.1},\"ratio\":{:.3},\"parse_bytes_ms\":{parse:.1}}}",
        text.len(),
        strict / serde
    )
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    assert!(!files.is_empty(), "usage: read_speed FILE...");
    let mut rows = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("a UTF-8 file");
        rows.push(row(f, &text));
    }
    let first = std::fs::read_to_string(&files[0]).expect("a UTF-8 file");
    rows.push(row(&format!("{} ×n (~40 MB)", files[0]), &grown(&first, 40_000_000)));
    println!("{{\"rows\":[{}]}}", rows.join(","));
}
