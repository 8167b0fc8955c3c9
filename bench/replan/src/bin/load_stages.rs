//! Where opening a big envelope spends its time, natively: the steps the app
//! runs synchronously when a file is opened (`Doc::load` in src/doc.rs and the
//! save in `Session::open_user_document`), each timed separately (median of 5).
//! Native opt-level 3 is several times faster than the app's WASM (opt-level
//! "z"); the proportions are what matter. Prints one JSON object.
//!
//! Usage: load_stages FILE

use std::hint::black_box;
use std::time::Instant;

use envelope::calls::Calls;
use envelope::export::{contributions, openai_request_filtered, to_pretty};
use envelope::template::Vars;

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

fn main() {
    let file = std::env::args().nth(1).expect("usage: load_stages FILE");
    let bytes = std::fs::read(&file).expect("readable file");
    let loaded = envelope::parse_bytes(&bytes).expect("a valid envelope");
    let env = &loaded.envelope;
    let c = contributions(env);
    let request = openai_request_filtered(env, &c, None, true);
    let openai_text = to_pretty(&request);
    let raw_text = to_pretty(&loaded.raw);
    let stages = [
        ("parse_bytes (JSON, decode, validate)", median_ms(|| drop(black_box(envelope::parse_bytes(&bytes))))),
        ("export::contributions", median_ms(|| drop(black_box(contributions(env))))),
        ("openai_request_filtered", median_ms(|| drop(black_box(openai_request_filtered(env, &c, None, true))))),
        ("to_pretty(request): the OpenAI tab text", median_ms(|| drop(black_box(to_pretty(&request))))),
        ("to_pretty(raw): the Raw tab text", median_ms(|| drop(black_box(to_pretty(&loaded.raw))))),
        ("Vars::of + Calls::pair", median_ms(|| drop(black_box((Vars::of(env), Calls::pair(env)))))),
        (
            "save: JSON-encode the whole text for localStorage",
            median_ms(|| {
                drop(black_box(serde_json::to_string(
                    &serde_json::json!({"name": "big.envelope.json", "text": String::from_utf8_lossy(&bytes)}),
                )))
            }),
        ),
    ];
    let rows: Vec<String> = stages.iter().map(|(k, v)| format!("{{\"stage\":\"{k}\",\"ms\":{v:.2}}}")).collect();
    println!(
        "{{\"file_bytes\":{},\"openai_text_bytes\":{},\"raw_text_bytes\":{},\"stages\":[{}]}}",
        bytes.len(),
        openai_text.len(),
        raw_text.len(),
        rows.join(",")
    );
}
