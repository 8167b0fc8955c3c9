//! The hostile inputs of issue #12 that fit a test, built in process: each is
//! read, validated, exported and truncated within a generous time limit, so
//! that a quadratic pass (pairing, argument checks, tool-message runs…) fails
//! here. `bench/hostile-gen.mjs` builds the full set for `scripts/bench.sh`.
//!
//! Limits are for an unoptimised (debug) build on a loaded 2-core machine;
//! the release CLI is ~10–30 times faster.

use std::time::{Duration, Instant};

use envelope::budget::truncate_report;
use envelope::diag::group_by_rule;
use envelope::display::{collapse_marks, markdown_fallback};
use envelope::export::{contributions, openai_json};
use envelope::parts::{count_parts, part_texts};
use envelope::truncate::{plan, Limit};
use envelope::{parse, Loaded, Segment};

fn msg(id: &str, role: &str, segments: &[String]) -> String {
    format!(r#"{{"id":"{id}","role":"{role}","timestamp":1700000000000,"segments":[{}]}}"#, segments.join(","))
}

fn doc(messages: &[String]) -> String {
    format!(r#"{{"version":"1.0","messages":[{}]}}"#, messages.join(",\n"))
}

fn req(name: &str, args: &str) -> String {
    format!(r#"{{"kind":"tool_call_request","toolName":"{name}","arguments":{args},"collapsed":false}}"#)
}

fn res(name: &str) -> String {
    format!(r#"{{"kind":"tool_call_result","toolName":"{name}","result":"ok","success":true,"collapsed":true}}"#)
}

fn text(s: &str) -> String {
    serde_json::json!({"kind": "text", "content": s}).to_string()
}

/// One tool `t` with `schema`, called `n` times with distinct arguments, results by name.
fn schema_calls(n: usize, schema: &str) -> String {
    let tools = format!(
        r#"{{"kind":"tool_overview","items":[{{"name":"t","description":"d","schema":{schema}}}],"collapsed":true}}"#
    );
    let calls: Vec<String> = (0..n).map(|i| req("t", &format!(r#"{{"i":{i}}}"#))).collect();
    let results: Vec<String> = (0..n).map(|_| res("t")).collect();
    doc(&[msg("s", "system", &[tools]), msg("a", "assistant", &calls), msg("r", "tool", &results)])
}

/// `d0` = allOf [d1, d1], … `d29`: 2^30 paths, 31 levels deep.
fn wide_schema() -> String {
    let mut defs = serde_json::Map::new();
    for i in 0..30 {
        let next = serde_json::json!({"$ref": format!("#/$defs/d{}", i + 1)});
        defs.insert(format!("d{i}"), serde_json::json!({"allOf": [next.clone(), next]}));
    }
    defs.insert("d30".into(), serde_json::json!({}));
    serde_json::json!({"type": "object", "$defs": defs, "allOf": [{"$ref": "#/$defs/d0"}]}).to_string()
}

/// `n` requests in one assistant message, then one tool message per result, paired by name.
fn name_pairs(n: usize) -> String {
    let names = ["search", "fetch", "read", "write"];
    let calls: Vec<String> = (0..n).map(|i| req(names[i % 4], &format!(r#"{{"q":{i}}}"#))).collect();
    let mut ms = vec![msg("a", "assistant", &calls)];
    ms.extend((0..n).map(|i| msg(&format!("r{i}"), "tool", &[res(names[i % 4])])));
    doc(&ms)
}

fn within<T>(what: &str, limit: Duration, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let out = f();
    let took = t.elapsed();
    eprintln!("{what}: {took:?}");
    assert!(took < limit, "{what} took {took:?} (limit {limit:?})");
    out
}

/// Read + validate, export, and truncate (one "token" per byte, to half the total).
fn run_all(name: &str, text: &str, limit: Duration) -> Loaded {
    let loaded = within(&format!("{name}: read and validate"), limit, || parse(text)).unwrap_or_else(|e| {
        panic!("{name}: {:?}", &e[..e.len().min(3)]);
    });
    let exported = within(&format!("{name}: export"), limit, || openai_json(&loaded.envelope));
    assert!(exported.len() > 10);
    within(&format!("{name}: truncate"), limit, || {
        let e = &loaded.envelope;
        let parts = count_parts(&part_texts(e, &contributions(e)), |s| s.len() as u64);
        let total: u64 = parts.iter().map(|p| p.tokens).sum();
        let budgets: Vec<_> = parts.iter().map(|p| p.budget()).collect();
        if let Ok(p) = plan(&budgets, Limit::Tokens((total / 2).max(1)), 1) {
            assert!(!truncate_report(&parts, &p).to_string().is_empty());
        }
    });
    loaded
}

const SECONDS: fn(u64) -> Duration = Duration::from_secs;

#[test]
fn self_referencing_schema_called_800_times() {
    // As in the issue (passes at every level: cut at depth 64) and with a
    // `required` every call misses (every branch fails).
    for schema in [
        r##"{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}"##,
        r##"{"type":"object","required":["x"],"anyOf":[{"$ref":"#"},{"$ref":"#"}]}"##,
    ] {
        let loaded = run_all("schema-800", &schema_calls(800, schema), SECONDS(5));
        assert!(loaded.warnings.len() <= 800 * 2 + 2, "{}", loaded.warnings.len());
    }
}

#[test]
fn wide_schema_spends_one_budget_for_5000_calls() {
    let loaded = run_all("schema-wide-5000", &schema_calls(5000, &wide_schema()), SECONDS(20));
    let skipped: Vec<_> = loaded.warnings.iter().filter(|d| d.code() == "checks-skipped").collect();
    assert_eq!(skipped.len(), 1);
    assert!(
        skipped[0].message.starts_with("the arguments of 5000 of 5000 calls were not checked"),
        "{}",
        skipped[0].message
    );
}

#[test]
fn forty_thousand_calls_paired_by_name() {
    let loaded = run_all("pairs-40k", &name_pairs(40_000), SECONDS(15));
    assert!(loaded.warnings.is_empty(), "{:?}", &loaded.warnings[..1]);
}

#[test]
fn one_message_with_100000_segments_and_20000_messages() {
    let segs: Vec<String> = (0..100_000).map(|i| text(&format!("{i} words"))).collect();
    run_all("segments-100k", &doc(&[msg("u", "user", &segs)]), SECONDS(15));
    let ms: Vec<String> = (0..20_000)
        .map(|i| msg(&format!("m{i}"), if i % 2 == 0 { "user" } else { "assistant" }, &[text(&format!("message {i}"))]))
        .collect();
    run_all("messages-20k", &doc(&ms), SECONDS(15));
}

#[test]
fn fifty_thousand_unused_variables_group_into_one() {
    let vars: Vec<String> =
        (0..50_000).map(|i| format!(r#"{{"kind":"static_var","name":"v{i}","value":"x"}}"#)).collect();
    let loaded = run_all("unused-vars-50k", &doc(&[msg("u", "user", &vars)]), SECONDS(15));
    assert_eq!(loaded.warnings.len(), 50_000);
    let groups = within("group", SECONDS(1), || group_by_rule(&loaded.warnings));
    assert_eq!(groups.len(), 1);
    assert_eq!((groups[0].rule.code(), groups[0].count()), ("unused-variable", 50_000));
}

#[test]
fn pathological_markdown_and_combining_marks_are_shown_cheaply() {
    let shapes: Vec<String> = ["[", "![", "[a](", "*_", "**a*", "> ", "1. ", "`a``", "<a ", "[a][", "~~a", ">*", "[^"]
        .iter()
        .map(|u| u.repeat(57_000 / u.len()))
        .collect();
    let segs: Vec<String> = shapes.iter().map(|s| text(s)).collect();
    let loaded = run_all("markdown", &doc(&[msg("u", "user", &segs)]), SECONDS(5));
    within("markdown_fallback", SECONDS(1), || {
        for s in &loaded.envelope.messages[0].segments {
            let Segment::Text(t) = s else { panic!() };
            assert!(markdown_fallback(&t.content).is_some(), "{}", &t.content[..12]);
        }
    });
    let zalgo = format!("a{}", "\u{301}".repeat(80_000));
    let loaded = run_all("combining-80k", &doc(&[msg("u", "user", &[text(&zalgo)])]), SECONDS(5));
    let Segment::Text(t) = &loaded.envelope.messages[0].segments[0] else { panic!() };
    assert_eq!(t.content, zalgo, "kept as written");
    let shown = within("collapse_marks", SECONDS(1), || collapse_marks(&t.content));
    assert_eq!(shown.hidden, 80_000 + 1 - envelope::display::MAX_CLUSTER_CHARS);
}
