//! What rendering Markdown costs on pathological input: for each text
//! segment of the given envelopes, its size, the time `render_markdown`
//! takes (median of 3) and whether `markdown::fallback` sends it to plain
//! text. Prints one JSON object.
//!
//! Usage: markdown_cost FILE...

use std::hint::black_box;
use std::time::Instant;

use envelope::Segment;

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v[1]
}

fn main() {
    let mut rows = Vec::new();
    for file in std::env::args().skip(1) {
        let bytes = std::fs::read(&file).expect("readable file");
        let loaded = envelope::parse_bytes(&bytes).expect("a valid envelope");
        for m in &loaded.envelope.messages {
            for s in &m.segments {
                let Segment::Text(t) = s else { continue };
                let src = &t.content;
                let ms = median_ms(|| drop(black_box(envelope::markdown::render_markdown(src))));
                let check = median_ms(|| {
                    let _ = black_box(envelope::display::markdown_fallback(black_box(src)));
                });
                let verdict = envelope::display::markdown_fallback(src).map_or("markdown".to_string(), |f| f.to_string());
                let head: String = src.chars().take(12).collect();
                rows.push(format!(
                    "{{\"head\":{},\"bytes\":{},\"render_ms\":{ms:.2},\"check_ms\":{check:.3},\"verdict\":{}}}",
                    serde_json::Value::from(head),
                    src.len(),
                    serde_json::Value::from(verdict)
                ));
            }
        }
    }
    println!("{{\"rows\":[\n{}\n]}}", rows.join(",\n"));
}
