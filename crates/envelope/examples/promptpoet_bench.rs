//! Render time of the example template (`demos/templates/chat.yaml.j2`) and of
//! the same template with a 2,000-turn history, median of several runs.
//!
//!     cargo run --release -p envelope --features templates --example promptpoet_bench
use std::time::Instant;

use envelope::promptpoet::{render, to_envelope};

fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[t.len() / 2]
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demos/templates");
    let template = std::fs::read_to_string(root.join("chat.yaml.j2")).unwrap();
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("chat.data.json")).unwrap()).unwrap();
    let r = render(&template, &data).unwrap();
    println!("example: {} parts, {} chars", r.parts.len(), r.string.chars().count());
    println!("example render: {:.3} ms (median of 201)", median_ms(201, || drop(render(&template, &data).unwrap())));

    let mut big = data.clone();
    let turns = data["chat_history"].as_array().unwrap().clone();
    let history: Vec<serde_json::Value> = (0..2000).map(|i| turns[i % turns.len()].clone()).collect();
    big["chat_history"] = serde_json::Value::from(history);
    let r = render(&template, &big).unwrap();
    println!(
        "2,000 turns: {} parts, {} chars, {} rendered bytes",
        r.parts.len(),
        r.string.chars().count(),
        r.yaml.len()
    );
    println!("2,000-turn render: {:.1} ms (median of 21)", median_ms(21, || drop(render(&template, &big).unwrap())));
    {
        use envelope::promptpoet::{jinja, yaml};
        let src = jinja::normalize_source(&template);
        println!("  of which Jinja prepare: {:.2} ms", median_ms(21, || drop(jinja::prepare(&src).unwrap())));
        let text = r.yaml.clone();
        println!(
            "  of which YAML load: {:.1} ms",
            median_ms(21, || drop(yaml::load(&text, &mut Default::default()).unwrap()))
        );
        println!(
            "  of which YAML parse events only: {:.1} ms",
            median_ms(21, || {
                let mut p = yaml_rust2::parser::Parser::new_from_str(&text);
                while let Ok((e, _)) = p.next_token() {
                    if e == yaml_rust2::parser::Event::StreamEnd {
                        break;
                    }
                }
            })
        );
    }
    println!(
        "2,000-turn render + to_envelope: {:.1} ms (median of 21)",
        median_ms(21, || drop(to_envelope(&render(&template, &big).unwrap())))
    );
}
