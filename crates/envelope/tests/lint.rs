//! `pep lint`'s rules, each with a document that triggers it and one that
//! does not; settings; locations; and that no output format echoes a secret.
#![cfg(feature = "lint")]

use envelope::lint::{self, Config, FileReport, Finding, Settings};
use envelope::{Rule, Severity};
use serde_json::{json, Value};

fn doc(messages: Value) -> Value {
    json!({"version": "1.0", "model": "gpt-4o", "messages": messages})
}

fn msg(id: &str, role: &str, segments: Value) -> Value {
    json!({"id": id, "role": role, "timestamp": 1767225600000u64, "segments": segments})
}

fn text(s: &str) -> Value {
    json!({"kind": "text", "content": s})
}

fn sys(s: &str) -> Value {
    json!({"kind": "system_prompt", "content": s, "collapsed": true})
}

fn var(name: &str, value: &str) -> Value {
    json!({"kind": "static_var", "name": name, "value": value})
}

fn run(d: &Value, settings: &Settings) -> FileReport {
    let text = serde_json::to_string_pretty(d).unwrap();
    lint::lint("doc.json", text.as_bytes(), settings)
}

fn of(r: &FileReport, rule: Rule) -> Vec<&Finding> {
    r.findings.iter().filter(|f| f.diagnostic.rule == rule).collect()
}

fn settings(v: Value) -> Settings {
    serde_json::from_value::<Config>(v).unwrap().settings(None).unwrap()
}

/// A built-at-run-time key, so that no secret-looking literal is in the source.
fn openai_key() -> String {
    format!("sk-proj-{}", "Zx9_Qw8-Er7Ty6Ui5Op4".repeat(5))
}

/// Roughly `n` tokens of varied prose.
fn prose(n: usize, seed: &str) -> String {
    let words = ["deploy", "cluster", "latency", "budget", "cache", "token", "review", "schema", "rollout", "metric"];
    (0..n).map(|i| format!("{}{}", words[(i * 7 + seed.len()) % words.len()], i % 13)).collect::<Vec<_>>().join(" ")
}

#[test]
fn token_budget_and_segment_share() {
    let d = doc(json!([msg("s", "system", json!([sys(&prose(300, "a"))])), msg("u", "user", json!([text("hi")]))]));
    let r = run(&d, &settings(json!({"max_tokens": 200})));
    let b = of(&r, Rule::TokenBudget);
    assert_eq!(b.len(), 1, "{:#?}", r.findings);
    assert!(b[0].diagnostic.message.contains("over the budget of 200"), "{}", b[0].diagnostic.message);
    assert_eq!(b[0].diagnostic.severity, Severity::Error);
    assert_eq!((b[0].location.line, b[0].location.column), (Some(1), Some(1)));
    let s = of(&r, Rule::SegmentBudget);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].diagnostic.path, "messages[0].segments[0]");
    assert!(r.has_errors());
    // Under budget, and no budget at all: nothing.
    let r = run(&d, &settings(json!({"max_tokens": 100000})));
    assert!(of(&r, Rule::TokenBudget).is_empty() && of(&r, Rule::SegmentBudget).is_empty());
    let r = run(&d, &Settings::default());
    assert!(of(&r, Rule::TokenBudget).is_empty() && !r.has_errors());
}

#[test]
fn budgets_per_environment() {
    let d = doc(json!([msg("u", "user", json!([text(&prose(300, "b"))]))]));
    let cfg: Config = serde_json::from_value(json!({
        "environments": {"staging": {"max_tokens": 4096}, "production": {"max_tokens": 100, "segment_share": 1.0}}
    }))
    .unwrap();
    let prod = run(&d, &cfg.settings(Some("production")).unwrap());
    let b = of(&prod, Rule::TokenBudget);
    assert!(b[0].diagnostic.message.contains("over the production budget of 100"), "{}", b[0].diagnostic.message);
    assert!(of(&prod, Rule::SegmentBudget).len() == 1);
    assert!(of(&run(&d, &cfg.settings(Some("staging")).unwrap()), Rule::TokenBudget).is_empty());
}

#[test]
fn secrets_are_found_located_and_masked() {
    let key = openai_key();
    // The key sits after an escaped quote and an escaped é, on line 7 of the pretty text.
    let content = format!("Call the API with \"é\" {key} please");
    let d = doc(json!([msg("s", "system", json!([sys(&content)]))]));
    let pretty = serde_json::to_string_pretty(&d).unwrap().replace('é', "\\u00e9");
    let r = lint::lint("doc.json", pretty.as_bytes(), &Settings::default());
    let s = of(&r, Rule::Secret);
    assert_eq!(s.len(), 1, "{:#?}", r.findings);
    let f = s[0];
    assert_eq!(f.diagnostic.path, "messages[0].segments[0].content");
    assert!(f.diagnostic.message.starts_with("OpenAI API key `sk-proj-****"), "{}", f.diagnostic.message);
    let line = pretty.lines().nth(f.location.line.unwrap() - 1).unwrap();
    let col = f.location.column.unwrap() - 1;
    let end = f.location.end_column.unwrap() - 1;
    let chars: Vec<char> = line.chars().collect();
    assert_eq!(chars[col..end].iter().collect::<String>(), key);
    assert_eq!(
        (f.location.message, f.location.segment, f.location.field.as_deref()),
        (Some(0), Some(0), Some("content"))
    );
    assert_eq!(f.location.pointer, "/messages/0/segments/0/content");
    // No output format holds the key.
    let all = [
        lint::text::render(std::slice::from_ref(&r)),
        lint::json(std::slice::from_ref(&r)).to_string(),
        lint::sarif::render(std::slice::from_ref(&r), "0").to_string(),
        lint::github::render(std::slice::from_ref(&r)),
    ];
    for out in &all {
        assert!(!out.contains(&key) && !out.contains(&key[8..30]), "{out}");
    }
    // The text output quotes the line with the key masked and a caret under it.
    assert!(all[0].contains("sk-proj-****"), "{}", all[0]);
    // Nothing secret: nothing found.
    let d = doc(json!([msg("s", "system", json!([sys("Use the key from the vault; sk-learn is a library.")]))]));
    assert!(of(&run(&d, &Settings::default()), Rule::Secret).is_empty());
}

#[test]
fn secrets_in_arguments_results_and_used_variables_but_not_unused_ones() {
    let key = openai_key();
    let d = doc(json!([
        msg(
            "s",
            "system",
            json!([
                sys("Key: {{k}}"), var("k", &key), var("unused", &key),
                {"kind": "tool_overview", "collapsed": true, "items": [{"name": "f", "description": "d"}]}
            ])
        ),
        msg(
            "a",
            "assistant",
            json!([{"kind": "tool_call_request", "toolName": "f", "arguments": {"auth": {"token": key}}, "collapsed": false}])
        ),
        msg(
            "t",
            "tool",
            json!([{"kind": "tool_call_result", "toolName": "f", "result": format!("echo {key}"), "success": true, "collapsed": true}])
        ),
    ]));
    let r = run(&d, &Settings::default());
    let paths: Vec<&str> = of(&r, Rule::Secret).iter().map(|f| f.diagnostic.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "messages[0].segments[1].value",
            "messages[1].segments[0].arguments.auth.token",
            "messages[2].segments[0].result"
        ]
    );
}

#[test]
fn sensitive_words() {
    let d = doc(json!([msg("u", "user", json!([text("This is Internal-Only data; internals are fine.")]))]));
    let r = run(&d, &settings(json!({"sensitive_words": ["internal-only", "credential"]})));
    let w = of(&r, Rule::SensitiveWord);
    assert_eq!(w.len(), 1);
    assert!(w[0].diagnostic.message.contains("`internal-only`"));
    assert_eq!(w[0].location.end_column.unwrap() - w[0].location.column.unwrap(), 13);
    assert!(of(&run(&d, &settings(json!({"sensitive_words": ["intern"]}))), Rule::SensitiveWord).is_empty());
    assert!(of(&run(&d, &Settings::default()), Rule::SensitiveWord).is_empty());
}

#[test]
fn required_undeclared_and_unused_variables() {
    let d = doc(json!([msg(
        "s",
        "system",
        json!([sys("Hello {{user}}, in {{city}}"), var("user", "Sam"), var("tone", "dry")])
    )]));
    let r = run(&d, &settings(json!({"required_variables": ["user", "jurisdiction"]})));
    let req = of(&r, Rule::RequiredVariable);
    assert_eq!(req.len(), 1);
    assert!(req[0].diagnostic.message.contains("`jurisdiction`"));
    let und = of(&r, Rule::UndeclaredVariable);
    assert_eq!(und.len(), 1);
    // The caret covers the placeholder itself.
    assert_eq!(und[0].location.end_column.unwrap() - und[0].location.column.unwrap(), "{{city}}".len());
    assert_eq!(of(&r, Rule::UnusedVariable).len(), 1);
    let r = run(&d, &settings(json!({"required_variables": ["user"]})));
    assert!(of(&r, Rule::RequiredVariable).is_empty());
}

#[test]
fn cache_variable_position() {
    let stable = prose(200, "c");
    // Variable first: almost nothing is reusable.
    let d = doc(json!([msg(
        "s",
        "system",
        json!([sys(&format!("Today is {{{{today}}}}. {stable}")), var("today", "2025-06-01")])
    )]));
    let r = run(&d, &Settings::default());
    let c = of(&r, Rule::CacheVariable);
    assert_eq!(c.len(), 1);
    let m = &c[0].diagnostic.message;
    assert!(m.contains("{{today}}, is at token 3 of "), "{m}");
    assert_eq!(c[0].diagnostic.severity, Severity::Info);
    assert_eq!(c[0].location.end_column.unwrap() - c[0].location.column.unwrap(), 9);
    // Variable last: the position is the whole prompt but the date.
    let d = doc(json!([msg(
        "s",
        "system",
        json!([sys(&format!("{stable} Today is {{{{today}}}}.")), var("today", "2025-06-01")])
    )]));
    let r = run(&d, &Settings::default());
    let m = &of(&r, Rule::CacheVariable)[0].diagnostic.message;
    let total: u64 = r.tokens.unwrap();
    assert!(
        m.contains(&format!(
            "the {} tokens after it",
            total
                - m.split("at token ")
                    .nth(1)
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .replace(',', "")
                    .parse::<u64>()
                    .unwrap()
        )),
        "{m}"
    );
    assert!(m.contains(" of them in this system message"), "{m}");
    // No variable: nothing.
    let d = doc(json!([msg("s", "system", json!([sys(&stable)]))]));
    assert!(of(&run(&d, &Settings::default()), Rule::CacheVariable).is_empty());
}

#[test]
fn cache_timestamps_in_system_messages_only() {
    let d = doc(json!([
        msg("s", "system", json!([sys("Current time: 2025-06-01T09:30:00Z. Be brief.")])),
        msg("u", "user", json!([text("It is 2025-06-01T09:30:00Z now")])),
    ]));
    let r = run(&d, &Settings::default());
    let t = of(&r, Rule::CacheTimestamp);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].diagnostic.path, "messages[0].segments[0].content");
    assert!(t[0].diagnostic.message.contains("at token "), "{}", t[0].diagnostic.message);
    let d = doc(json!([msg("s", "system", json!([sys("Knowledge cutoff: 2024-06-01. Meetings at 09:30.")]))]));
    assert!(of(&run(&d, &Settings::default()), Rule::CacheTimestamp).is_empty());
}

#[test]
fn unused_tools() {
    let tools = json!({"kind": "tool_overview", "collapsed": true, "items": [
        {"name": "search", "description": "d"}, {"name": "fetch", "description": "d"}]});
    let call = json!({"kind": "tool_call_request", "toolName": "search", "arguments": {}, "collapsed": false});
    let result =
        json!({"kind": "tool_call_result", "toolName": "search", "result": "r", "success": true, "collapsed": true});
    let d = doc(json!([
        msg("s", "system", json!([tools])),
        msg("a", "assistant", json!([call])),
        msg("t", "tool", json!([result]))
    ]));
    let r = run(&d, &Settings::default());
    let u = of(&r, Rule::UnusedTool);
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].diagnostic.path, "messages[0].segments[0].items[1].name");
    assert_eq!(u[0].diagnostic.severity, Severity::Info);
    let d = doc(json!([
        msg(
            "s",
            "system",
            json!([{"kind": "tool_overview", "collapsed": true, "items": [{"name": "search", "description": "d"}]}])
        ),
        msg("a", "assistant", json!([call])),
        msg("t", "tool", json!([result]))
    ]));
    assert!(of(&run(&d, &Settings::default()), Rule::UnusedTool).is_empty());
}

#[test]
fn duplicate_text() {
    let long = prose(150, "d");
    let d = doc(json!([
        msg("u1", "user", json!([text(&long)])),
        msg("u2", "user", json!([text(&format!("Again:\n\n{long}\n\nthanks"))])),
        msg("u3", "user", json!([text(&long)])),
    ]));
    let r = run(&d, &Settings::default());
    let paths: Vec<&str> = of(&r, Rule::DuplicateText).iter().map(|f| f.diagnostic.path.as_str()).collect();
    assert_eq!(paths, ["messages[1].segments[0].content", "messages[2].segments[0].content"]);
    // Short repeats and a higher threshold: nothing.
    let r = run(&d, &settings(json!({"duplicate_min_tokens": 10000})));
    assert!(of(&r, Rule::DuplicateText).is_empty());
    let d = doc(json!([msg("u1", "user", json!([text("ok")])), msg("u2", "user", json!([text("ok")]))]));
    assert!(of(&run(&d, &Settings::default()), Rule::DuplicateText).is_empty());
    // A long variable value substituted twice.
    let d = doc(json!([msg("s", "system", json!([sys("{{policy}}\n\nand again {{policy}}"), var("policy", &long)]))]));
    let r = run(&d, &Settings::default());
    let f = of(&r, Rule::DuplicateText);
    assert_eq!(f.len(), 1);
    assert!(f[0].diagnostic.message.contains("sent 2 times"));
}

#[test]
fn levels_silence_and_raise() {
    let d = doc(json!([msg("s", "system", json!([sys("Hi {{who}}")]))]));
    let r = run(&d, &settings(json!({"rules": {"undeclared-variable": "off"}})));
    assert!(of(&r, Rule::UndeclaredVariable).is_empty());
    let r = run(&d, &settings(json!({"rules": {"undeclared-variable": "error"}})));
    assert_eq!(of(&r, Rule::UndeclaredVariable)[0].diagnostic.severity, Severity::Error);
    assert!(r.has_errors());
}

#[test]
fn invalid_documents_report_errors_with_lines() {
    let text = "{\n  \"version\": \"1.0\",\n  \"messages\": [\n    {\"id\": \"m\", \"role\": \"robot\", \"timestamp\": 0, \"segments\": []}\n  ]\n}\n";
    let r = lint::lint("bad.json", text.as_bytes(), &Settings::default());
    assert!(r.has_errors());
    let f = &r.findings[0];
    assert_eq!(f.diagnostic.rule, Rule::UnknownRole);
    assert_eq!((f.location.line, f.location.column), (Some(4), Some(25)));
    let r = lint::lint("bad.json", b"{\"version\": \"1.0\",\n \"messages\": [}", &Settings::default());
    assert_eq!(r.findings[0].diagnostic.rule, Rule::InvalidJson);
    assert_eq!(r.findings[0].location.line, Some(2));
    let r = lint::lint("bad.json", b"\xff", &Settings::default());
    assert_eq!(r.findings[0].diagnostic.rule, Rule::InvalidUtf8);
}

#[test]
fn text_output_is_like_rustc() {
    let d = doc(json!([msg("s", "system", json!([sys("Hello {{who}}")]))]));
    let r = run(&d, &Settings::default());
    let out = lint::text::render(std::slice::from_ref(&r));
    let want = [
        "warning[undeclared-variable]: placeholder {{who}} has no static_var; it is sent as written",
        "  --> doc.json:12:29",
        "   |",
        "12 |           \"content\": \"Hello {{who}}\",",
        "   |                             ^^^^^^^",
        "   = at: messages[0].segments[0].content (message `s`)",
        "",
    ]
    .join("\n");
    assert!(out.starts_with(&want), "{out}");
    assert!(out.ends_with("0 errors, 1 warning, 0 infos in 1 file\n"), "{out}");
}

#[test]
fn github_annotations() {
    let d = doc(json!([msg("s", "system", json!([sys("Hello {{who}}")]))]));
    let r = lint::lint("dir,1/a:b.json", serde_json::to_string_pretty(&d).unwrap().as_bytes(), &Settings::default());
    let out = lint::github::render(std::slice::from_ref(&r));
    assert_eq!(
        out,
        "::warning file=dir%2C1/a%3Ab.json,line=12,col=29,endLine=12,endColumn=36,title=warning [undeclared-variable]::\
         messages[0].segments[0].content: placeholder {{who}} has no static_var; it is sent as written\n"
    );
}

#[test]
fn the_demos_lint_without_errors_or_warnings() {
    for d in ["a", "b", "c", "d", "e", "f"] {
        let path = format!("{}/../../demos/{d}.json", env!("CARGO_MANIFEST_DIR"));
        let r = lint::lint(&path, &std::fs::read(&path).unwrap(), &Settings::default());
        let bad: Vec<_> = r.findings.iter().filter(|f| f.diagnostic.severity != Severity::Info).collect();
        assert!(bad.is_empty(), "{d}: {bad:#?}");
    }
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    fn with(s: &str) -> Value {
        doc(json!([
            msg(
                "s",
                "system",
                json!([
                    sys(&format!("{s} {{{{v}}}} {s}")),
                    var("v", s),
                    {"kind": "tool_overview", "collapsed": true, "items": [{"name": "f", "description": s, "schema": {"type": "object", "description": s}}]}
                ])
            ),
            msg(
                "u",
                "user",
                json!([text(s), {"kind": "media", "mediaType": "image", "url": format!("https://x/{s}"), "altText": s},
                {"kind": "long_text", "content": s, "charCount": s.chars().count(), "collapsed": true}])
            ),
            msg(
                "a",
                "assistant",
                json!([{"kind": "tool_call_request", "toolName": "f", "arguments": {s: s}, "collapsed": false}])
            ),
            msg(
                "t",
                "tool",
                json!([{"kind": "tool_call_result", "toolName": "f", "result": s, "success": true, "collapsed": true}])
            ),
        ]))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Hostile text in every field: lint, its formats and diff never panic,
        /// and every finding has a line.
        #[test]
        fn hostile_text_everywhere(s in "(\\PC|\n|\"|\\\\|sk-|ghp_|eyJ|\\{\\{|\\}\\}|://|@|:|2025-06-01T09:30:00Z|password=|[a-zA-Z0-9_-]{30,40}){0,30}") {
            let settings = serde_json::from_value::<Config>(json!({"max_tokens": 10, "sensitive_words": ["a", "é"], "duplicate_min_tokens": 1}))
                .unwrap().settings(None).unwrap();
            let d = with(&s);
            for text in [serde_json::to_string_pretty(&d).unwrap(), d.to_string()] {
                let r = lint::lint("h.json", text.as_bytes(), &settings);
                prop_assert!(r.findings.iter().all(|f| f.location.line.is_some()), "{:#?}", r.findings);
                let rs = std::slice::from_ref(&r);
                let _ = (lint::text::render(rs), lint::github::render(rs), lint::sarif::render(rs, "0"), lint::json(rs));
            }
            #[cfg(feature = "diff")]
            {
                let a = envelope::parse(&with("plain").to_string()).unwrap().envelope;
                let b = envelope::parse(&d.to_string()).unwrap().envelope;
                let c = envelope::diff::compare(&a, &b);
                let _ = envelope::diff::render_text(&c, "a", "b");
                prop_assert!(c.cache.reusable <= c.cache.total);
            }
        }
    }
}
