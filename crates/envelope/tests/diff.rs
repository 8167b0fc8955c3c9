//! `pep diff`: message and segment matching, token deltas, and the cache break
//! point on pairs whose break point is known.
#![cfg(feature = "diff")]

use envelope::diff::{compare, render_text, Status};
use envelope::tokens::{count, encode};
use envelope::{parse, Envelope};
use serde_json::{json, Value};

fn env(v: &Value) -> Envelope {
    parse(&v.to_string()).unwrap_or_else(|e| panic!("{e:#?}")).envelope
}

fn msg(id: &str, role: &str, segments: Value) -> Value {
    json!({"id": id, "role": role, "timestamp": 0, "segments": segments})
}

fn text(s: &str) -> Value {
    json!({"kind": "text", "content": s})
}

fn sys(s: &str) -> Value {
    json!({"kind": "system_prompt", "content": s, "collapsed": true})
}

fn doc(messages: Value) -> Value {
    json!({"version": "1.0", "messages": messages})
}

const SYS: &str = "You are a careful assistant. Answer briefly and cite sources.";

fn n(s: &str) -> u64 {
    count(s) as u64
}

/// Common prefix of two token sequences.
fn common(a: &str, b: &str) -> u64 {
    encode(a).iter().zip(encode(b)).take_while(|(x, y)| **x == *y).count() as u64
}

#[test]
fn identical_documents() {
    let a = env(&doc(json!([msg("s", "system", json!([sys(SYS)])), msg("u", "user", json!([text("Hello world")]))])));
    let c = compare(&a, &a);
    assert!(c.equal && c.cache.identical);
    assert_eq!((c.cache.reusable, c.cache.total), (n(SYS) + n("Hello world"), n(SYS) + n("Hello world")));
    assert!(c.messages.iter().all(|m| m.status == Status::Unchanged));
    let text = render_text(&c, "a", "b");
    assert!(
        text.contains(&format!("all {} tokens are reusable", c.cache.total))
            && text.ends_with("the documents are equal\n"),
        "{text}"
    );
}

#[test]
fn a_changed_last_message_breaks_inside_it() {
    let a = env(&doc(json!([
        msg("s", "system", json!([sys(SYS)])),
        msg("u", "user", json!([text("Hello world, how are you")]))
    ])));
    let b = env(&doc(json!([
        msg("s", "system", json!([sys(SYS)])),
        msg("u", "user", json!([text("Hello world, who are you")]))
    ])));
    let c = compare(&a, &b);
    assert!(!c.equal);
    let want = n(SYS) + common("Hello world, how are you", "Hello world, who are you");
    assert_eq!(want, n(SYS) + 3); // "Hello", " world", ","
    assert_eq!(c.cache.reusable, want);
    assert_eq!(c.cache.total, n(SYS) + n("Hello world, who are you"));
    assert_eq!((c.cache.message, c.cache.message_id.as_deref(), c.cache.segment), (Some(1), Some("u"), Some(0)));
    let s = c.cache.sentence();
    assert_eq!(
        s,
        format!("the first {want} of {} tokens are reusable from the previous version's cache (the prompts first differ at messages[1] `u`, segments[0])", c.cache.total)
    );
    let m = &c.messages[1];
    assert_eq!(m.status, Status::Changed);
    assert_eq!(m.segments.len(), 1);
    assert_eq!(m.segments[0].text[0].iter().map(|l| l.tag.as_str()).collect::<Vec<_>>(), ["delete", "insert"]);
    assert_eq!(
        (m.tokens_before, m.tokens_after),
        (Some(n("Hello world, how are you")), Some(n("Hello world, who are you")))
    );
}

#[test]
fn appending_a_message_keeps_everything() {
    let base = json!([msg("s", "system", json!([sys(SYS)])), msg("u", "user", json!([text("Q1")]))]);
    let mut more = base.clone();
    more.as_array_mut().unwrap().push(msg("a", "assistant", json!([text("A1")])));
    let (a, b) = (env(&doc(base)), env(&doc(more)));
    let c = compare(&a, &b);
    assert_eq!(c.cache.reusable, n(SYS) + n("Q1"));
    assert_eq!(c.cache.total, n(SYS) + n("Q1") + n("A1"));
    assert_eq!(c.cache.message, Some(2));
    assert_eq!(
        c.messages.iter().map(|m| m.status).collect::<Vec<_>>(),
        [Status::Unchanged, Status::Unchanged, Status::Added]
    );
    // The other way round: the new version is a prefix of the old one.
    let c = compare(&b, &a);
    assert_eq!((c.cache.reusable, c.cache.total), (c.cache.total, n(SYS) + n("Q1")));
    assert!(c.cache.sentence().ends_with("(the new version ends earlier)"));
    assert_eq!(c.messages[2].status, Status::Removed);
}

#[test]
fn a_variable_early_in_the_system_prompt_breaks_there() {
    let d = |today: &str| {
        env(&doc(json!([
            msg(
                "s",
                "system",
                json!([
                    sys("Today is {{today}}. Follow the style guide."),
                    {"kind": "static_var", "name": "today", "value": today}
                ])
            ),
            msg("u", "user", json!([text("Summarise the incident")]))
        ])))
    };
    let c = compare(&d("Monday"), &d("Tuesday"));
    assert_eq!(c.cache.reusable, common("Today is Monday. Follow", "Today is Tuesday. Follow"));
    assert_eq!(c.cache.reusable, 2); // "Today", " is"
    assert_eq!((c.cache.message, c.cache.segment), (Some(0), Some(0)));
    // The variable changed, and the text the system prompt sends with it.
    let segs = &c.messages[0].segments;
    assert_eq!(
        segs.iter().map(|s| (s.kind.as_str(), s.status)).collect::<Vec<_>>(),
        [("system_prompt", Status::Changed), ("static_var", Status::Changed)]
    );
    assert_eq!(segs[1].fields[0].path, "value");
}

#[test]
fn tools_model_and_images() {
    let tools =
        |d: &str| json!({"kind": "tool_overview", "collapsed": true, "items": [{"name": "search", "description": d}]});
    let a = env(&doc(json!([msg("s", "system", json!([sys(SYS), tools("Search the web")]))])));
    let b = env(&doc(json!([msg("s", "system", json!([sys(SYS), tools("Search the docs")]))])));
    let c = compare(&a, &b);
    assert!(c.cache.in_tools);
    let tj = |d: &str| {
        json!([{"type": "function", "function": {"name": "search", "description": d, "parameters": {"type": "object", "properties": {}}}}]).to_string()
    };
    assert_eq!(c.cache.reusable, common(&tj("Search the web"), &tj("Search the docs")));
    // A different model shares nothing.
    let mut bm = a.clone();
    bm.model = Some("gpt-4.1".into());
    let c = compare(&a, &bm);
    assert!(c.cache.model_changed && c.cache.reusable == 0);
    assert_eq!(c.fields[0].path, "model");
    // A different image: the break is at the image.
    let img = |u: &str| json!({"kind": "media", "mediaType": "image", "url": u});
    let a = env(&doc(json!([msg("u", "user", json!([text("Look:"), img("https://x/1.png"), text("ok?")]))])));
    let b = env(&doc(json!([msg("u", "user", json!([text("Look:"), img("https://x/2.png"), text("ok?")]))])));
    let c = compare(&a, &b);
    assert_eq!((c.cache.reusable, c.cache.segment), (n("Look:"), Some(1)));
    assert_eq!(c.cache.total, n("Look:") + 85 + n("ok?"));
}

#[test]
fn messages_match_by_id_then_position_and_segments_by_kind() {
    let a = env(&doc(json!([
        msg("s", "system", json!([sys(SYS)])),
        msg("u1", "user", json!([text("one"), text("two")])),
        msg("x", "assistant", json!([text("reply")])),
    ])));
    let b = env(&doc(json!([
        msg("s", "system", json!([sys(SYS)])),
        msg("new", "user", json!([text("inserted")])),
        msg(
            "u1",
            "user",
            json!([text("one"), {"kind": "long_text", "content": "L", "charCount": 1, "collapsed": true}, text("two")])
        ),
        msg("y", "assistant", json!([text("reply!")])),
    ])));
    let c = compare(&a, &b);
    let rows: Vec<(Status, Option<usize>, Option<usize>, &str)> =
        c.messages.iter().map(|m| (m.status, m.before, m.after, m.id.as_str())).collect();
    assert_eq!(
        rows,
        [
            (Status::Unchanged, Some(0), Some(0), "s"),
            (Status::Added, None, Some(1), "new"),
            (Status::Changed, Some(1), Some(2), "u1"),
            // Renamed `x` → `y`: matched by position (2 in both) and role.
            (Status::Changed, Some(2), Some(3), "y"),
        ]
        .iter()
        .map(|r| (r.0, r.1, r.2, r.3))
        .collect::<Vec<_>>()
    );
    assert_eq!(c.messages[3].previous_id.as_deref(), Some("x"));
    let segs: Vec<(Status, &str)> = c.messages[2].segments.iter().map(|s| (s.status, s.kind.as_str())).collect();
    assert_eq!(segs, [(Status::Added, "long_text")]);
    let text = render_text(&c, "a.json", "b.json");
    assert!(text.contains("+ messages[1] `new` (user)"), "{text}");
    assert!(text.contains("~ messages[3] `x` → `y` (assistant)"), "{text}");
    assert!(text.contains("      - reply\n      + reply!\n"), "{text}");
}

#[test]
fn token_counts_are_the_budget_tabs() {
    use envelope::export::contributions;
    use envelope::parts::{count_parts, part_texts};
    for d in ["a", "b", "c", "d", "e", "f"] {
        let text = std::fs::read_to_string(format!("{}/../../demos/{d}.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let e = parse(&text).unwrap().envelope;
        let parts = count_parts(&part_texts(&e, &contributions(&e)), |s| count(s) as u64);
        let c = compare(&e, &e);
        assert_eq!(c.tokens_after, parts.iter().map(|p| p.tokens).sum::<u64>(), "{d}");
        // The tools part counts in the message that declares the tools.
        let tools: u64 = parts.iter().filter(|p| p.message.is_none()).map(|p| p.tokens).sum();
        let declares = e.messages.iter().position(|m| {
            m.segments.iter().any(|s| matches!(s, envelope::Segment::ToolOverview(o) if !o.items.is_empty()))
        });
        for p in parts.iter().filter(|p| p.message.is_some()) {
            let mi = p.message.unwrap();
            let want = p.tokens + if declares == Some(mi) { tools } else { 0 };
            assert_eq!(c.messages[mi].tokens_after, Some(want), "{d} {}", p.name);
        }
        assert!(c.cache.identical && c.cache.reusable == c.tokens_after);
    }
}
