//! `envelope::tokens` against an independent oracle.
//!
//! `fixtures/tokens/oracle.json` holds o200k_base ids from the npm package
//! `gpt-tokenizer` 4.0.0 (`gen.mjs`), all re-checked against OpenAI's Python
//! `tiktoken` (`crosscheck_tiktoken.py`); two cases where gpt-tokenizer is not
//! exact carry OpenAI's ids (`"source": "openai-tiktoken"`). The scripts are not
//! needed here.
#![cfg(feature = "tokenizer")]

use envelope::tokens;
use serde_json::Value;

const ORACLE: &str = include_str!("fixtures/tokens/oracle.json");

fn build(case: &Value) -> String {
    if let Some(t) = case.get("text") {
        return t.as_str().expect("text").to_owned();
    }
    let mut s = String::new();
    for seg in case["recipe"].as_array().expect("recipe") {
        if let Some(t) = seg.get("text") {
            s.push_str(t.as_str().unwrap());
        } else {
            let unit = seg["repeat"].as_str().unwrap();
            let times = seg["times"].as_u64().unwrap() as usize;
            s.push_str(&unit.repeat(times));
        }
    }
    s
}

/// FNV-1a 64 over the ids, each as 4 little-endian bytes (same as gen.mjs).
fn fnv1a64(ids: &[u32]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for id in ids {
        for b in id.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

fn cases() -> Vec<Value> {
    let v: Value = serde_json::from_str(ORACLE).expect("oracle.json parses");
    v["cases"].as_array().expect("cases").clone()
}

#[test]
fn counts_and_ids_match_the_oracle() {
    let cases = cases();
    assert!(cases.len() >= 60, "fixture has {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let text = build(case);
        let want_count = case["count"].as_u64().unwrap() as usize;
        let ids = tokens::encode(&text);
        let got_count = tokens::count(&text);
        if got_count != want_count || ids.len() != want_count {
            failures.push(format!("{name}: count {got_count}, encode().len() {}, oracle {want_count}", ids.len()));
            continue;
        }
        if let Some(want) = case.get("ids") {
            let want: Vec<u32> = want.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect();
            if ids != want {
                let at = ids.iter().zip(&want).position(|(a, b)| a != b);
                failures.push(format!("{name}: ids differ first at {at:?}"));
            }
        } else {
            let want = case["ids_fnv1a64"].as_str().unwrap();
            let got = fnv1a64(&ids);
            if got != want {
                failures.push(format!("{name}: ids hash {got} != oracle {want}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn pieces_reassemble_the_text() {
    for case in cases() {
        let text = build(&case);
        let ids = tokens::encode(&text);
        let mut bytes = Vec::with_capacity(text.len());
        for &id in &ids {
            let piece = tokens::decode_piece(id);
            assert!(!piece.is_empty(), "{}: empty piece for {id}", case["name"]);
            bytes.extend_from_slice(&piece);
        }
        assert_eq!(bytes, text.as_bytes(), "{}", case["name"]);
        let spans = tokens::byte_spans(&ids);
        assert_eq!(spans.last().map_or(0, |r| r.end), text.len());
    }
}

#[test]
fn special_token_lookalikes_decode_as_text() {
    // Whatever the oracle says, no special id (>= 199_998 in o200k_base) may appear.
    for text in ["<|endoftext|>", "<|endofprompt|>", "a<|endoftext|>b<|endoftext|>", "<|im_start|>user<|im_end|>"] {
        let ids = tokens::encode(text);
        assert!(ids.iter().all(|&id| id < 199_998), "{text}: {ids:?}");
        let bytes: Vec<u8> = ids.iter().flat_map(|&i| tokens::decode_piece(i)).collect();
        assert_eq!(bytes, text.as_bytes());
    }
}

/// ~10 MB built from the fixture's texts, each block numbered so repeats are
/// not identical; `with_runs` adds the recipe cases (20,000-letter words, 5,000
/// spaces, ...), which are single huge BPE pieces and much slower per byte.
fn corpus(with_runs: bool) -> String {
    let texts: Vec<String> = cases().iter().filter(|c| with_runs || c.get("text").is_some()).map(build).collect();
    let mut out = String::with_capacity(10_500_000);
    let mut i = 0;
    while out.len() < 10_000_000 {
        out.push_str(&format!("{i} "));
        out.push_str(&texts[i % texts.len()]);
        out.push('\n');
        i += 1;
    }
    out
}

/// Throughput on ~10 MB of mixed text. Run with
/// `cargo test --release -p envelope --features tokenizer --test tokens_oracle -- --ignored --nocapture`.
#[test]
#[ignore = "benchmark; run explicitly in release mode"]
fn throughput_10mb() {
    tokens::warm_up();
    for (label, text) in [("mixed texts", corpus(false)), ("mixed + huge runs", corpus(true))] {
        let t = std::time::Instant::now();
        let n = tokens::count(&text);
        let dt = t.elapsed().as_secs_f64();
        let t2 = std::time::Instant::now();
        let ids = tokens::encode(&text);
        let dt2 = t2.elapsed().as_secs_f64();
        assert_eq!(ids.len(), n);
        println!(
            "{label}: {} bytes, {n} tokens; count {dt:.3} s = {:.2} M tokens/s ({:.1} MB/s); encode {:.2} M tokens/s",
            text.len(),
            n as f64 / dt / 1e6,
            text.len() as f64 / dt / 1e6,
            n as f64 / dt2 / 1e6
        );
    }
}
