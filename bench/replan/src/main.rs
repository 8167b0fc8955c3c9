//! Times `envelope::truncate::plan` on 2,000 parts with varied priorities:
//! 1,000 timed runs (after 100 untimed) per scenario; prints one JSON object.

use std::hint::black_box;
use std::time::Instant;

use envelope::truncate::{plan, Limit, PartBudget};

/// xorshift64*: deterministic, no dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A conversation-like list: a system part (priority 0), then messages whose
/// priority changes in runs of 1–12 parts (0 for pinned ones, 1–6 otherwise),
/// tokens from a few to a few thousand (long-tailed).
fn parts(n: usize, seed: u64) -> Vec<PartBudget> {
    let mut r = Rng(seed);
    let mut out = Vec::with_capacity(n);
    out.push(PartBudget { tokens: 1_200, priority: 0 });
    while out.len() < n {
        let priority = if r.below(10) == 0 { 0 } else { 1 + r.below(6) };
        let run = 1 + r.below(12) as usize;
        for _ in 0..run.min(n - out.len()) {
            let tokens = match r.below(10) {
                0 => 1_000 + r.below(4_000),
                1..=3 => 200 + r.below(800),
                _ => 5 + r.below(200),
            };
            out.push(PartBudget { tokens, priority });
        }
    }
    out
}

fn stats(mut ns: Vec<u64>) -> (f64, f64, f64, f64) {
    ns.sort_unstable();
    let us = |x: u64| x as f64 / 1_000.0;
    let pct = |p: f64| ns[((p / 100.0 * ns.len() as f64).ceil() as usize).clamp(1, ns.len()) - 1];
    let mean = ns.iter().sum::<u64>() as f64 / ns.len() as f64 / 1_000.0;
    (us(pct(50.0)), us(pct(99.0)), us(*ns.last().unwrap()), mean)
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let runs: usize = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(1_000);
    let p = parts(n, 0x5eed);
    let total: u64 = p.iter().map(|b| b.tokens).sum();
    let pinned: u64 = p.iter().filter(|b| b.priority == 0).map(|b| b.tokens).sum();
    // (label, limit, step): the main case cuts 40% at step 1; others for context.
    let cases = [
        ("limit 60% of total, step 1", Limit::Tokens(total * 6 / 10), 1),
        ("limit 90% of total, step 1", Limit::Tokens(total * 9 / 10), 1),
        ("limit 60% of total, step 5000", Limit::Tokens(total * 6 / 10), 5_000),
        ("limit just above the pinned parts, step 1", Limit::Tokens(pinned + 1), 1),
        ("no limit", Limit::None, 1),
    ];
    let mut rows = Vec::new();
    for (label, limit, step) in cases {
        let mut ns = Vec::with_capacity(runs);
        let mut kept = 0usize;
        for i in 0..(100 + runs) {
            let t = Instant::now();
            let r = black_box(plan(black_box(&p), limit, step));
            let dt = t.elapsed().as_nanos() as u64;
            if i >= 100 {
                ns.push(dt);
            }
            kept = r.map(|pl| pl.kept.iter().filter(|k| **k).count()).unwrap_or(usize::MAX);
        }
        let (median, p99, max, mean) = stats(ns);
        rows.push(format!(
            "{{\"case\":\"{label}\",\"median_us\":{median:.3},\"p99_us\":{p99:.3},\"max_us\":{max:.3},\"mean_us\":{mean:.3},\"kept\":{}}}",
            if kept == usize::MAX { "null".to_string() } else { kept.to_string() }
        ));
    }
    println!(
        "{{\"parts\":{n},\"runs\":{runs},\"total_tokens\":{total},\"pinned_tokens\":{pinned},\"cases\":[{}]}}",
        rows.join(",")
    );
}
