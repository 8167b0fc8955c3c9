//! `envelope::truncate`: hand-worked cases, golden cases from the real
//! prompt-poet 0.0.52 (`fixtures/truncate/cases.json`, made by `gen.py`), the
//! PromptPoet JSON reader, and the prefix-cache simulation.

use envelope::truncate::{
    cache_hits, cache_turns, common_prefix_len, mean_hit, plan, plan_promptpoet, plan_promptpoet_json, weighted_hit,
    Limit, PartBudget, Plan, PromptPoetError, TruncateError,
};
use proptest::prelude::*;
use serde_json::Value;

fn pb(tokens: u64, priority: u64) -> PartBudget {
    PartBudget { tokens, priority }
}

/// Kept flags as a string of part letters, e.g. "BC".
fn kept_letters(p: &Plan) -> String {
    p.kept_indices().map(|i| (b'A' + i as u8) as char).collect()
}

fn run(parts: &[PartBudget], limit: u64, step: u64) -> Plan {
    plan(parts, Limit::Tokens(limit), step).expect("plan")
}

// --- hand-worked cases --------------------------------------------------------

#[test]
fn equal_priority_runs_go_in_document_order() {
    // A(10,p1) B(5,p0) C(10,p1): two separate p1 runs, A's first.
    // total 25, limit 15 -> target 10: A fits whole (0+10 <= 10), then 10 >= 10 stops.
    let parts = [pb(10, 1), pb(5, 0), pb(10, 1)];
    let p = run(&parts, 15, 1);
    assert_eq!((p.target, p.total, p.kept_tokens), (10, 25, 15));
    assert_eq!(kept_letters(&p), "BC");
}

#[test]
fn higher_priority_first_then_document_order() {
    // A(5,p2) B(5,p1) C(5,p2) D(5,p3): order D, A, C, B.
    let parts = [pb(5, 2), pb(5, 1), pb(5, 2), pb(5, 3)];
    assert_eq!(kept_letters(&run(&parts, 15, 1)), "ABC"); // target 5: D
    assert_eq!(kept_letters(&run(&parts, 10, 1)), "BC"); // target 10: D, A
    assert_eq!(kept_letters(&run(&parts, 5, 1)), "B"); // target 15: D, A, C
    assert_eq!(kept_letters(&run(&parts, 1, 1)), ""); // target 19: all
}

#[test]
fn partial_run_removes_from_its_oldest_end_and_stops() {
    // One p1 run A(4) B(4) C(4) and a p2 run D(1) after a p0 part S.
    // total 15, limit 8 -> target 7: D (1) whole; run ABC: 1+12 > 7 -> A (5), B (9 >= 7) stop.
    let parts = [pb(4, 1), pb(4, 1), pb(4, 1), pb(2, 0), pb(1, 2)];
    let p = run(&parts, 8, 1);
    assert_eq!(p.target, 7);
    assert_eq!(kept_letters(&p), "CD");
    assert_eq!(p.kept_tokens, 6);
    assert_eq!(p.removed_tokens(), 9);
}

#[test]
fn merged_versus_separated_runs() {
    // Merging adjacent equal priorities only shows through zero-token parts:
    // merged A(5,p1) Z(0,p1): the run (5) fits the target 5 whole, so Z goes too.
    let merged = [pb(5, 1), pb(0, 1), pb(3, 0)];
    assert_eq!(kept_letters(&run(&merged, 3, 1)), "C");
    // separated by a p0 part: run A (5) is removed whole, 5 >= 5 stops, Z stays.
    let separated = [pb(5, 1), pb(3, 0), pb(0, 1)];
    assert_eq!(kept_letters(&run(&separated, 3, 1)), "BC");
    // A p0 part between two runs of the same priority keeps them apart, and the
    // walk still takes them in document order.
    let parts = [pb(2, 1), pb(1, 0), pb(2, 1), pb(1, 0), pb(2, 1)];
    assert_eq!(kept_letters(&run(&parts, 4, 1)), "BDE"); // target 4: A, C
}

#[test]
fn step_rounds_the_target_up() {
    // A(10) B(10) C(10) at p1, S(5) at p0; total 35, limit 30, surplus 5.
    let parts = [pb(10, 1), pb(10, 1), pb(10, 1), pb(5, 0)];
    let p = run(&parts, 30, 1);
    assert_eq!((p.target, kept_letters(&p).as_str(), p.kept_tokens), (5, "BCD", 25));
    let p = run(&parts, 30, 7);
    assert_eq!((p.target, kept_letters(&p).as_str()), (7, "BCD"));
    let p = run(&parts, 30, 12);
    assert_eq!((p.target, kept_letters(&p).as_str(), p.kept_tokens), (12, "CD", 15));
    let p = run(&parts, 30, 20);
    assert_eq!((p.target, kept_letters(&p).as_str()), (20, "CD"));
    let p = run(&parts, 30, 5);
    assert_eq!((p.target, kept_letters(&p).as_str()), (5, "BCD"));
    // surplus exactly a multiple of the step: no rounding.
    let p = run(&parts, 15, 10);
    assert_eq!((p.target, kept_letters(&p).as_str()), (20, "CD"));
}

#[test]
fn step_larger_than_the_total_removes_everything_removable() {
    let parts = [pb(3, 1), pb(4, 2), pb(2, 0)];
    let p = run(&parts, 8, 100);
    assert_eq!(p.target, 100);
    assert_eq!(kept_letters(&p), "C");
    assert_eq!(p.kept_tokens, 2);
}

#[test]
fn limit_at_or_above_total_removes_nothing() {
    let parts = [pb(3, 1), pb(0, 2), pb(4, 1)];
    for limit in [7, 8, 1000] {
        for step in [1, 3, 1000] {
            let p = run(&parts, limit, step);
            assert_eq!(p.target, 0);
            assert_eq!(p.kept, vec![true; 3]);
            assert_eq!(p.kept_tokens, 7);
        }
    }
}

#[test]
fn kept_equal_to_the_limit_is_fine() {
    let parts = [pb(6, 0), pb(4, 1)];
    let p = run(&parts, 6, 1);
    assert_eq!((kept_letters(&p).as_str(), p.kept_tokens), ("A", 6));
}

#[test]
fn impossible_limits_report_kept_and_limit() {
    // Only priority-0 parts: nothing can go.
    let parts = [pb(25, 0), pb(15, 0)];
    let e = plan(&parts, Limit::Tokens(30), 1).unwrap_err();
    assert_eq!(e, TruncateError::LimitNotMet { kept: 40, limit: 30 });
    let msg = e.to_string();
    assert!(msg.contains("40") && msg.contains("30"), "{msg}");
    // Some removal happens first; the error names what would still be kept.
    let parts = [pb(25, 0), pb(10, 1)];
    assert_eq!(plan(&parts, Limit::Tokens(20), 1), Err(TruncateError::LimitNotMet { kept: 25, limit: 20 }));
}

#[test]
fn priority_zero_is_never_removed() {
    let parts = [pb(5, 0), pb(5, 3), pb(5, 0), pb(5, 1), pb(0, 0)];
    let p = run(&parts, 10, 1000);
    assert_eq!(kept_letters(&p), "ACE");
    assert!(p.kept_indices().all(|i| parts[i].priority == 0 || p.kept[i]));
}

#[test]
fn zero_token_parts() {
    // target 0: nothing is removed, not even zero-token parts.
    let parts = [pb(0, 5), pb(3, 1)];
    assert_eq!(kept_letters(&run(&parts, 3, 1)), "AB");
    // A zero-token run reached while removed < target is removed whole.
    let parts = [pb(0, 5), pb(3, 1), pb(2, 0)];
    assert_eq!(kept_letters(&run(&parts, 2, 1)), "C");
    // Inside a partially removed run: zero-token parts before the part that
    // reaches the target go, those after it stay.
    let parts = [pb(0, 1), pb(4, 1), pb(0, 1), pb(4, 1), pb(1, 0)];
    let p = run(&parts, 5, 1); // total 9, target 4: Z, A(4) -> stop
    assert_eq!(kept_letters(&p), "CDE");
    // Zero-token runs after the stop stay.
    let parts = [pb(4, 2), pb(1, 0), pb(0, 1)];
    assert_eq!(kept_letters(&run(&parts, 1, 1)), "BC");
}

#[test]
fn no_limit_keeps_everything_and_ignores_the_step() {
    let parts = [pb(100, 1), pb(100, 2)];
    for step in [0, 1, 7] {
        let p = plan(&parts, Limit::None, step).unwrap();
        assert_eq!(p, Plan { target: 0, total: 200, kept_tokens: 200, kept: vec![true, true] });
    }
}

#[test]
fn invalid_limit_and_step() {
    let parts = [pb(1, 1)];
    assert_eq!(plan(&parts, Limit::Tokens(0), 1), Err(TruncateError::InvalidLimit(0)));
    assert_eq!(plan(&parts, Limit::Tokens(5), 0), Err(TruncateError::InvalidStep(0)));
    // PromptPoet checks the limit first.
    assert_eq!(plan(&parts, Limit::Tokens(0), 0), Err(TruncateError::InvalidLimit(0)));
    assert_eq!(Limit::from_promptpoet(-7), Err(TruncateError::InvalidLimit(-7)));
}

#[test]
fn empty_prompt() {
    let p = run(&[], 1, 1);
    assert_eq!((p.target, p.total, p.kept_tokens, p.kept.len()), (0, 0, 0, 0));
}

// --- golden cases from prompt-poet 0.0.52 ----------------------------------------

const GOLDEN: &str = include_str!("fixtures/truncate/cases.json");

/// `num_tokens=K token_limit=L` from PromptPoet's TruncationError message.
fn python_numbers(msg: &str) -> (u64, u64) {
    let num = |key: &str| -> u64 {
        let at = msg.find(key).unwrap_or_else(|| panic!("{key} in {msg}")) + key.len();
        msg[at..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
    };
    (num("num_tokens="), num("token_limit="))
}

/// The PromptPoet-shaped JSON for a compact golden case (part i is "p<i>").
fn promptpoet_input(case: &Value) -> String {
    let parts: Vec<Value> = case["parts"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            serde_json::json!({
                "name": format!("p{i}"),
                "role": "user",
                "content": "x",
                "truncation_priority": p[1],
                "tokens": p[0],
            })
        })
        .collect();
    serde_json::json!({
        "token_limit": case["token_limit"],
        "truncation_step": case["truncation_step"],
        "parts": parts,
    })
    .to_string()
}

#[test]
fn agrees_with_prompt_poet_on_every_golden_case() {
    let root: Value = serde_json::from_str(GOLDEN).unwrap();
    assert_eq!(root["prompt_poet"], "0.0.52");
    let cases = root["cases"].as_array().unwrap();
    assert!(cases.len() >= 200, "only {} cases", cases.len());
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    for (n, case) in cases.iter().enumerate() {
        let input = promptpoet_input(case);
        let expect = &case["expect"];
        let got = plan_promptpoet(&input);
        match expect.get("error").and_then(Value::as_str) {
            None => {
                *kinds.entry("ok").or_default() += 1;
                let got = got.unwrap_or_else(|e| panic!("case {n}: {e}\n{input}"));
                let want: Vec<String> =
                    expect["kept"].as_array().unwrap().iter().map(|v| format!("p{}", v.as_u64().unwrap())).collect();
                assert_eq!(got.kept, want, "case {n}: kept\n{input}");
                assert_eq!(got.total_tokens, expect["total_tokens"].as_u64().unwrap(), "case {n}");
                if let Some(t) = expect.get("target") {
                    assert_eq!(got.plan.target, t.as_u64().unwrap(), "case {n}: target");
                }
                // The JSON answer carries exactly PromptPoet's two facts.
                let json: Value = serde_json::from_str(&got.to_json()).unwrap();
                assert_eq!(json["kept"], serde_json::json!(want));
                assert_eq!(json["total_tokens"], expect["total_tokens"]);
            }
            Some(kind) => {
                *kinds.entry(kind).or_default() += 1;
                let err = match got {
                    Err(PromptPoetError::Truncate(e)) => e,
                    other => panic!("case {n}: expected {kind}, got {other:?}\n{input}"),
                };
                let limit = case["token_limit"].as_i64().unwrap();
                let step = case["truncation_step"].as_i64().unwrap();
                match kind {
                    "limit_not_met" => {
                        let (kept, lim) = python_numbers(expect["message"].as_str().unwrap());
                        assert_eq!(err, TruncateError::LimitNotMet { kept, limit: lim }, "case {n}");
                    }
                    "invalid_limit" => {
                        assert_eq!(err, TruncateError::InvalidLimit(limit), "case {n}")
                    }
                    "invalid_step" => assert_eq!(err, TruncateError::InvalidStep(step), "case {n}"),
                    other => panic!("unknown kind {other}"),
                }
            }
        }
    }
    // The fixture exercises every outcome.
    for k in ["ok", "limit_not_met", "invalid_limit", "invalid_step"] {
        assert!(kinds.get(k).copied().unwrap_or(0) > 0, "no {k} case: {kinds:?}");
    }
}

/// The same cases straight through [`plan`] (priorities below 0 behave as 0).
#[test]
fn plan_agrees_on_the_golden_cases() {
    let root: Value = serde_json::from_str(GOLDEN).unwrap();
    for (n, case) in root["cases"].as_array().unwrap().iter().enumerate() {
        let Some(want) = case["expect"].get("kept") else {
            continue;
        };
        let parts: Vec<PartBudget> = case["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| pb(p[0].as_u64().unwrap(), p[1].as_i64().unwrap().max(0) as u64))
            .collect();
        let limit = match case["token_limit"].as_i64().unwrap() {
            -1 => Limit::None,
            l => Limit::Tokens(l as u64),
        };
        let step = case["truncation_step"].as_i64().unwrap().max(0) as u64;
        let p = plan(&parts, limit, step).unwrap_or_else(|e| panic!("case {n}: {e}"));
        let got: Vec<u64> = p.kept_indices().map(|i| i as u64).collect();
        let want: Vec<u64> = want.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        assert_eq!(got, want, "case {n}");
    }
}

// --- PromptPoet JSON reader ---------------------------------------------------------

#[test]
fn promptpoet_json_answer() {
    let input = r#"{"token_limit": 15, "truncation_step": 1, "parts": [
        {"name": "sys", "role": "system", "content": "You are...", "truncation_priority": 0, "tokens": 5},
        {"name": "old", "role": "user", "content": "hi", "truncation_priority": 1, "tokens": 10},
        {"name": "new", "role": "user", "content": "yo", "tokens": 10, "truncation_priority": 1}
    ]}"#;
    assert_eq!(plan_promptpoet_json(input).unwrap(), r#"{"kept":["sys","new"],"total_tokens":15}"#);
}

#[test]
fn promptpoet_json_defaults() {
    // No step -> 1; null/missing priority -> 0; negative priority -> like 0;
    // tokens may be a list of ids; role/content/unknown keys ignored.
    let input = r#"{"token_limit": 3, "extra": true, "parts": [
        {"name": "a", "tokens": [1, 2, 3], "truncation_priority": null},
        {"name": "b", "tokens": 2, "truncation_priority": 2, "content": {"not": "a string"}},
        {"name": "c", "tokens": 0, "truncation_priority": -4},
        {"name": "d", "tokens": 1, "truncation_priority": 2}
    ]}"#;
    let p = plan_promptpoet(input).unwrap();
    assert_eq!(p.kept, ["a", "c"]);
    assert_eq!(p.total_tokens, 3);
    // No limit (missing, null or -1): everything, whatever the step.
    for lim in ["", r#""token_limit": null,"#, r#""token_limit": -1,"#] {
        let input = format!(
            r#"{{{lim} "truncation_step": 0, "parts": [{{"name": "x", "tokens": 9, "truncation_priority": 1}}]}}"#
        );
        assert_eq!(plan_promptpoet_json(&input).unwrap(), r#"{"kept":["x"],"total_tokens":9}"#, "{input}");
    }
}

#[test]
fn promptpoet_json_errors_have_distinct_exit_codes() {
    let bad_inputs = [
        "not json",
        "[]",
        r#"{"token_limit": 5}"#,
        r#"{"parts": {}}"#,
        r#"{"parts": [{"tokens": 1}]}"#,
        r#"{"parts": [{"name": 3, "tokens": 1}]}"#,
        r#"{"parts": [{"name": "a"}]}"#,
        r#"{"parts": [{"name": "a", "tokens": -1}]}"#,
        r#"{"parts": [{"name": "a", "tokens": 1.5}]}"#,
        r#"{"parts": [{"name": "a", "tokens": 1, "truncation_priority": "high"}]}"#,
        r#"{"parts": [{"name": "a", "tokens": 1, "truncation_priority": 1.5}]}"#,
        r#"{"token_limit": "10", "parts": []}"#,
        r#"{"token_limit": 10, "truncation_step": 2.5, "parts": []}"#,
    ];
    for input in bad_inputs {
        let e = plan_promptpoet_json(input).unwrap_err();
        assert!(matches!(e, PromptPoetError::Input(_)), "{input}: {e:?}");
        assert_eq!(e.exit_code(), 1, "{input}");
    }
    let raised = [
        (r#"{"token_limit": 0, "parts": []}"#, TruncateError::InvalidLimit(0)),
        (r#"{"token_limit": -3, "truncation_step": 0, "parts": []}"#, TruncateError::InvalidLimit(-3)),
        (r#"{"token_limit": 5, "truncation_step": 0, "parts": []}"#, TruncateError::InvalidStep(0)),
        (r#"{"token_limit": 5, "truncation_step": -2, "parts": []}"#, TruncateError::InvalidStep(-2)),
        (
            r#"{"token_limit": 5, "parts": [{"name": "s", "tokens": 9, "truncation_priority": 0}]}"#,
            TruncateError::LimitNotMet { kept: 9, limit: 5 },
        ),
    ];
    for (input, want) in raised {
        let e = plan_promptpoet_json(input).unwrap_err();
        assert_eq!(e, PromptPoetError::Truncate(want), "{input}");
        assert_eq!(e.exit_code(), 2, "{input}");
    }
}

// --- prefix-cache simulation -----------------------------------------------------------

#[test]
fn cache_hits_hand_worked() {
    // turn 0: [1 2 3]; turn 1: [1 2 3][4 5]; turn 2 drops the first part: [4 5][6].
    let turns: Vec<Vec<Vec<u32>>> =
        vec![vec![vec![1, 2, 3]], vec![vec![1, 2, 3], vec![4, 5]], vec![vec![4, 5], vec![6]]];
    let hits = cache_hits(&turns);
    assert_eq!(hits, vec![0.0, 3.0 / 5.0, 0.0]);
    let t = cache_turns(&turns);
    assert_eq!((t[1].prefix, t[1].kept), (3, 5));
    assert!((mean_hit(&hits) - 0.2).abs() < 1e-12);
    assert!((mean_hit(&hits[1..]) - 0.3).abs() < 1e-12);
    assert!((weighted_hit(&t) - 3.0 / 11.0).abs() < 1e-12);
    assert_eq!(mean_hit(&[]), 0.0);
    // A turn that keeps nothing has hit 0, not NaN.
    let empty: Vec<Vec<Vec<u32>>> = vec![vec![vec![1]], vec![]];
    assert_eq!(cache_hits(&empty), vec![0.0, 0.0]);
}

/// The point of the step: a conversation of 40 turns of 100 tokens each with a
/// 1,000-token limit. Step 1 moves the cut every turn (cache almost always
/// missed from the start); a large step moves it rarely.
#[test]
fn larger_step_keeps_the_prefix_cache_warm() {
    let messages: Vec<Vec<u32>> = (0..40u32).map(|m| (0..100).map(|k| m * 1000 + k).collect()).collect();
    let system: Vec<u32> = (0..50).map(|k| 900_000 + k).collect();
    let simulate = |step: u64| -> Vec<f64> {
        let mut turns: Vec<Vec<&[u32]>> = Vec::new();
        for t in 0..messages.len() {
            let mut parts: Vec<&[u32]> = vec![&system];
            parts.extend(messages[..=t].iter().map(Vec::as_slice));
            let budgets: Vec<PartBudget> =
                parts.iter().enumerate().map(|(i, p)| pb(p.len() as u64, u64::from(i > 0))).collect();
            let plan = plan(&budgets, Limit::Tokens(1000), step).unwrap();
            turns.push(plan.kept_indices().map(|i| parts[i]).collect());
        }
        cache_hits(&turns)
    };
    let naive = mean_hit(&simulate(1)[1..]);
    let aware = mean_hit(&simulate(500)[1..]);
    assert!(aware > naive + 0.2, "step 500 {aware:.3} vs step 1 {naive:.3}");
}

// --- properties ----------------------------------------------------------------------

fn flat(parts: &[Vec<u32>]) -> Vec<u32> {
    parts.concat()
}

proptest! {
    #[test]
    fn prefix_by_parts_equals_flat_prefix(
        a in prop::collection::vec(prop::collection::vec(0u32..3, 0..6), 0..6),
        b in prop::collection::vec(prop::collection::vec(0u32..3, 0..6), 0..6),
    ) {
        let (fa, fb) = (flat(&a), flat(&b));
        let want = fa.iter().zip(&fb).take_while(|(x, y)| x == y).count() as u64;
        prop_assert_eq!(common_prefix_len(&a, &b), want);
    }

    #[test]
    fn plan_invariants(
        parts in prop::collection::vec((0u64..20, 0u64..4), 0..30),
        limit in 1u64..200,
        step in 1u64..40,
    ) {
        let budgets: Vec<PartBudget> = parts.iter().map(|&(t, p)| pb(t, p)).collect();
        let total: u64 = budgets.iter().map(|p| p.tokens).sum();
        let fixed: u64 = budgets.iter().filter(|p| p.priority == 0).map(|p| p.tokens).sum();
        match plan(&budgets, Limit::Tokens(limit), step) {
            Ok(p) => {
                prop_assert_eq!(p.total, total);
                prop_assert!(p.kept_tokens <= limit);
                let kept_sum: u64 = p.kept_indices().map(|i| budgets[i].tokens).sum();
                prop_assert_eq!(kept_sum, p.kept_tokens);
                for (i, b) in budgets.iter().enumerate() {
                    if b.priority == 0 { prop_assert!(p.kept[i]); }
                }
                prop_assert_eq!(p.target % step, 0);
                if total <= limit { prop_assert_eq!(p.kept_tokens, total); }
            }
            Err(TruncateError::LimitNotMet { kept, limit: l }) => {
                prop_assert_eq!(l, limit);
                prop_assert!(kept > limit && kept >= fixed);
            }
            Err(e) => prop_assert!(false, "unexpected {e:?}"),
        }
    }
}
