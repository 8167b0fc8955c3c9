//! Shared by the provider tests: the demos, and a generator of valid
//! envelopes that uses every kind and the text the export's forms look for.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use envelope::parse;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

pub const DEMOS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn demo(name: &str) -> envelope::Loaded {
    let path = root().join("demos").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(&text).unwrap_or_else(|e| panic!("demo {name} is invalid: {e:#?}"))
}

/// Text that mixes plain words, any characters, shell and JSON specials,
/// placeholders, and the beginnings (whole or broken) of the export's forms.
pub fn arb_text() -> impl Strategy<Value = String> {
    let frag = prop_oneof![
        4 => "[a-zA-Z0-9 ,.]{1,14}",
        2 => ".{1,6}",
        1 => Just("\n\n".to_string()),
        1 => Just("\n".to_string()),
        1 => Just("'".to_string()),
        1 => Just("\"$HOME `id` \\ $(x) !".to_string()),
        1 => Just("{{v}}".to_string()),
        1 => Just("{{ nope }}".to_string()),
        1 => Just("## Memory\n- a: b".to_string()),
        1 => Just("## Skills\n- s: d\n\n### Skill: s\n\nbody".to_string()),
        1 => Just("[Document: f (1).txt (text/plain, 3 bytes)]\nabc".to_string()),
        1 => Just("[image: https://x.test/i.png] alt".to_string()),
        1 => Just("[audio: https://x.test/a.mp3]".to_string()),
        1 => Just("### Skill: s\n\n".to_string()),
        1 => Just("]".to_string()),
        1 => Just("- k: v".to_string()),
    ];
    prop::collection::vec(frag, 0..6).prop_map(|v| v.concat())
}

fn nonempty_text() -> impl Strategy<Value = String> {
    arb_text().prop_map(|t| if t.is_empty() { "x".to_string() } else { t })
}

fn image_url() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9]{1,8}".prop_map(|s| format!("https://x.test/{s}.png")),
        Just("data:image/png;base64,iVBORw0KGgo=".to_string()),
        Just("data:image/svg+xml;base64,PHN2Zy8+".to_string()),
        Just("data:image/png,raw".to_string()),
    ]
}

fn media(images_ok: bool) -> impl Strategy<Value = Value> {
    let kind = if images_ok {
        prop_oneof![Just("image"), Just("audio"), Just("video")].boxed()
    } else {
        prop_oneof![Just("audio"), Just("video")].boxed()
    };
    (kind, image_url(), "[a-z]{1,5}", prop::option::of(arb_text())).prop_map(|(kind, img, s, alt)| {
        let url = if kind == "image" { img } else { format!("https://x.test/{s}.mp3") };
        let mut m = json!({"kind": "media", "mediaType": kind, "url": url});
        if let Some(a) = alt {
            m["altText"] = a.into();
        }
        m
    })
}

fn document() -> impl Strategy<Value = Value> {
    (
        arb_text(),
        prop_oneof![Just("text/plain".to_string()), Just("application/pdf".to_string()), arb_text()],
        any::<u32>(),
        arb_text(),
        prop::option::of(arb_text()),
    )
        .prop_map(|(name, mime, size, snippet, parsed)| {
            let mut d =
                json!({"kind": "document", "fileName": name, "mimeType": mime, "snippet": snippet, "sizeBytes": size});
            if let Some(p) = parsed {
                d["parsedContent"] = p.into();
            }
            d
        })
}

fn long_text() -> impl Strategy<Value = Value> {
    (arb_text(), 0usize..2, any::<bool>()).prop_map(|(t, long, collapsed)| {
        let content = if long == 1 { format!("{t}{}", "long ".repeat(900)) } else { t };
        json!({"kind": "long_text", "content": content, "charCount": content.chars().count(), "collapsed": collapsed})
    })
}

fn memory() -> impl Strategy<Value = Value> {
    prop::collection::vec((arb_text(), arb_text()), 0..3)
        .prop_map(|items| json!({"kind": "memory", "collapsed": true, "items": items.into_iter().map(|(t, c)| json!({"title": t, "content": c})).collect::<Vec<_>>()}))
}

fn skills() -> impl Strategy<Value = Value> {
    prop::collection::vec(
        ("[a-z]{1,4}", arb_text(), prop::option::of(arb_text()), prop::option::of(any::<bool>())),
        0..3,
    )
    .prop_map(|items| {
        let items: Vec<Value> = items
            .into_iter()
            .map(|(n, d, body, loaded)| {
                let mut it = json!({"name": n, "description": d});
                if let Some(b) = body {
                    it["body"] = b.into();
                }
                if let Some(l) = loaded {
                    it["loaded"] = l.into();
                }
                it
            })
            .collect();
        json!({"kind": "skills", "collapsed": false, "items": items})
    })
}

fn text() -> impl Strategy<Value = Value> {
    arb_text().prop_map(|t| json!({"kind": "text", "content": t}))
}

fn var() -> impl Strategy<Value = Value> {
    Just(json!({"kind": "static_var", "name": "v", "value": "VALUE"}))
}

fn system_seg() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => nonempty_text().prop_map(|t| json!({"kind": "system_prompt", "content": t, "collapsed": true})),
        1 => memory(),
        1 => skills(),
        1 => text(),
        1 => long_text(),
        1 => document(),
        1 => media(true),
        1 => var(),
    ]
}

fn user_seg() -> impl Strategy<Value = Value> {
    prop_oneof![4 => text(), 1 => long_text(), 1 => document(), 2 => media(true), 1 => var(), 1 => memory()]
}

fn assistant_seg() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => text(),
        1 => media(true),
        1 => var(),
        3 => (0usize..3, arb_args(), any::<bool>()).prop_map(|(t, args, id)| json!({"CALL": t, "args": args, "id": id})),
    ]
}

/// Tool-call arguments: an object of strings, numbers as written, nested values.
pub fn arb_args() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        arb_text().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(serde_json::from_str::<Value>("1.50").unwrap()),
        Just(serde_json::from_str::<Value>("1e400").unwrap()),
        any::<bool>().prop_map(Value::from),
        Just(Value::Null),
    ];
    let value = leaf.prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::vec(("[a-z]{1,3}", inner), 0..3).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    });
    prop::collection::vec(("[a-z_]{1,6}", value), 0..4)
        .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>()))
}

const TOOLS: [&str; 3] = ["get_weather", "search", "f"];

fn arb_params() -> impl Strategy<Value = Option<Value>> {
    let entries = prop::sample::subsequence(
        vec![
            ("temperature", json!(0.5)),
            ("max_tokens", json!(300)),
            ("max_completion_tokens", json!(200)),
            ("stop", json!(["END"])),
            ("stop_sequences", json!(["STOP"])),
            ("tool_choice", json!("required")),
            ("parallel_tool_calls", json!(false)),
            ("seed", json!(7)),
            ("top_k", json!(5)),
            ("top_p", json!(0.9)),
            ("user", json!("u-1")),
            ("metadata", json!({"user_id": "u-2", "team": "t"})),
            (
                "response_format",
                json!({"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": "object"}}}),
            ),
            ("reasoning_effort", json!("low")),
            ("messages", json!([])),
            ("brand_new_setting", json!({"x": 1})),
        ],
        0..6,
    );
    prop::option::of(entries.prop_shuffle())
        .prop_map(|e| e.map(|e| Value::Object(e.into_iter().map(|(k, v)| (k.to_string(), v)).collect())))
}

/// A valid envelope using every kind: system, user and assistant messages
/// in random order, each call answered by a tool message right after its
/// assistant message (by `callId` or by name, in order) or left unanswered.
pub fn arb_envelope() -> impl Strategy<Value = Value> {
    let message = prop_oneof![
        (Just("system"), prop::collection::vec(system_seg(), 0..4)),
        (Just("user"), prop::collection::vec(user_seg(), 0..4)),
        (Just("assistant"), prop::collection::vec(assistant_seg(), 0..4)),
    ];
    (
        prop::collection::vec(message, 1..7),
        prop::option::of(prop_oneof![Just("gpt-4o"), Just("claude-3-5-haiku-latest"), Just("")]),
        arb_params(),
        prop::option::of(prop::sample::subsequence(TOOLS.to_vec(), 1..=3)),
        prop::collection::vec(any::<bool>(), 8),
    )
        .prop_map(|(messages, model, params, tools, answer)| {
            let mut out: Vec<Value> = Vec::new();
            let mut n_calls = 0usize;
            let mut tools_placed = tools.is_none();
            for (role, segs) in messages {
                let mut segments = Vec::new();
                let mut calls = Vec::new();
                for s in segs {
                    if let Some(t) = s.get("CALL").and_then(Value::as_u64) {
                        n_calls += 1;
                        let name = TOOLS[t as usize];
                        let mut c = json!({"kind": "tool_call_request", "toolName": name, "arguments": s["args"], "collapsed": false});
                        if s["id"] == true {
                            c["callId"] = format!("toolu_{n_calls}").into();
                        }
                        calls.push(c.clone());
                        segments.push(c);
                    } else {
                        segments.push(s);
                    }
                }
                if role == "system" && !tools_placed {
                    let items: Vec<Value> = tools
                        .iter()
                        .flatten()
                        .enumerate()
                        .map(|(i, n)| {
                            let mut t = json!({"name": n, "description": format!("does {n} {{{{v}}}}")});
                            if i % 2 == 0 {
                                t["schema"] = json!({"type": "object", "properties": {"q": {"type": "string"}}});
                            }
                            t
                        })
                        .collect();
                    segments.push(json!({"kind": "tool_overview", "collapsed": true, "items": items}));
                    tools_placed = true;
                }
                out.push(json!({"role": role, "segments": segments}));
                let answered: Vec<Value> = calls
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| answer[(n_calls + i) % answer.len()])
                    .map(|(i, c)| {
                        let mut r = json!({"kind": "tool_call_result", "toolName": c["toolName"], "result": format!("result {i} 'q' \n\n## Memory\n- a: b"), "success": i % 3 != 1, "collapsed": true});
                        if let Some(id) = c.get("callId") {
                            r["callId"] = id.clone();
                        }
                        r
                    })
                    .collect();
                if !answered.is_empty() {
                    out.push(json!({"role": "tool", "segments": answered}));
                }
            }
            let messages: Vec<Value> = out
                .into_iter()
                .enumerate()
                .map(|(i, mut m)| {
                    m["id"] = format!("m{i}").into();
                    m["timestamp"] = (1_700_000_000_000u64 + i as u64).into();
                    m
                })
                .collect();
            let mut doc = json!({"version": "1.0", "messages": messages});
            if let Some(m) = model {
                doc["model"] = m.into();
            }
            if let Some(p) = params {
                doc["params"] = p;
            }
            doc
        })
}
