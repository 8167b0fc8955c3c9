//! The engine's `lint`, `diff` and `render` operations as the page drives
//! them (JSON text in, JSON text out): each reply deserialises into the
//! messages' types (`envelope::engine`, which the page reads too) and says
//! what the core says.

use std::path::{Path, PathBuf};

use envelope::diff::{LineTag, Status};
use envelope::engine::render::FailureSource;
use envelope::engine::{diff, lint, render};
use envelope::lint::{Config, Level};
use envelope::{Rule, Severity};
use pep_token_worker::json_op_named;
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap()
}

fn send<Q: serde::Serialize, R: serde::de::DeserializeOwned>(op: &str, request: &Q) -> R {
    let handle = json_op_named(op).unwrap_or_else(|| panic!("no op {op}"));
    let reply = handle(&serde_json::to_string(request).unwrap()).unwrap_or_else(|e| panic!("{op}: {e}"));
    serde_json::from_str(&reply).unwrap_or_else(|e| panic!("{op} reply does not read: {e}\n{reply}"))
}

fn lint_doc(text: &str, settings: Config) -> lint::Reply {
    send(lint::OP, &lint::Request { envelope: text.into(), settings })
}

#[test]
fn lint_gives_the_cores_findings_for_every_demo() {
    for name in ["a", "b", "c", "d", "e", "f"] {
        let text = read(&format!("demos/{name}.json"));
        let lint::Reply::Linted { findings, tokens } = lint_doc(&text, Default::default()) else {
            panic!("{name}: settings refused")
        };
        let core = envelope::lint::lint("document", text.as_bytes(), &Default::default());
        assert_eq!(findings.len(), core.findings.len(), "{name}");
        for (f, c) in findings.iter().zip(&core.findings) {
            assert_eq!(f.diagnostic, c.diagnostic);
            assert_eq!(f.location, c.location);
        }
        assert_eq!(tokens, core.tokens, "{name}");
        assert!(tokens.unwrap_or(0) > 0, "{name}: the request's tokens are counted");
    }
}

#[test]
fn a_sensitive_word_is_found_where_it_stands() {
    let text = read("demos/a.json");
    let lint::Reply::Linted { findings, .. } = lint_doc(&text, Default::default()) else { panic!() };
    assert!(findings.iter().all(|f| f.diagnostic.rule != Rule::SensitiveWord));
    let settings = Config { sensitive_words: vec!["timestamptz".into()], ..Default::default() };
    let lint::Reply::Linted { findings, .. } = lint_doc(&text, settings) else { panic!() };
    let hits: Vec<_> = findings.iter().filter(|f| f.diagnostic.rule == Rule::SensitiveWord).collect();
    assert!(!hits.is_empty(), "{findings:#?}");
    for h in &hits {
        let (m, s) = (h.location.message.unwrap(), h.location.segment.unwrap());
        let doc: Value = serde_json::from_str(&text).unwrap();
        let seg = &doc["messages"][m]["segments"][s];
        assert!(seg.to_string().to_lowercase().contains("timestamptz"), "{seg}");
        assert!(h.location.line.is_some() && h.location.column.is_some());
    }
}

#[test]
fn budget_and_rule_levels_apply_and_bad_settings_are_refused() {
    let text = read("demos/f.json");
    let settings = Config { max_tokens: Some(1000), ..Default::default() };
    let lint::Reply::Linted { findings, .. } = lint_doc(&text, settings.clone()) else { panic!() };
    let over = findings.iter().find(|f| f.diagnostic.rule == Rule::TokenBudget).expect("over budget");
    assert_eq!(over.diagnostic.severity, Rule::TokenBudget.default_severity());
    let mut raised = settings;
    raised.rules.insert("token-budget".into(), Level::Warning);
    let lint::Reply::Linted { findings, .. } = lint_doc(&text, raised) else { panic!() };
    let over = findings.iter().find(|f| f.diagnostic.rule == Rule::TokenBudget).unwrap();
    assert_eq!(over.diagnostic.severity, Severity::Warning);

    let mut bad = Config::default();
    bad.rules.insert("no-such-rule".into(), Level::Off);
    match lint_doc(&text, bad) {
        lint::Reply::BadSettings { error } => assert!(error.contains("no-such-rule"), "{error}"),
        r => panic!("{r:?}"),
    }
    let bad = Config { segment_share: Some(2.0), ..Default::default() };
    assert!(matches!(lint_doc(&text, bad), lint::Reply::BadSettings { .. }));
}

#[test]
fn lint_reports_a_document_that_does_not_read() {
    let lint::Reply::Linted { findings, tokens } = lint_doc("{\"version\": \"1.0\"}", Default::default()) else {
        panic!()
    };
    assert!(tokens.is_none());
    assert!(findings.iter().any(|f| f.diagnostic.is_error()), "{findings:?}");
}

fn diff_docs(before: &str, after: &str) -> diff::Reply {
    send(diff::OP, &diff::Request { before: before.into(), after: after.into() })
}

#[test]
fn diff_gives_the_cores_comparison_and_both_envelopes() {
    let a = read("demos/a.json");
    let mut v: Value = serde_json::from_str(&a).unwrap();
    // Change the second message's text: the break point falls there.
    let last = v["messages"].as_array().unwrap().len() - 1;
    let seg = v["messages"][last]["segments"][0]["content"].as_str().unwrap().to_string();
    v["messages"][last]["segments"][0]["content"] = Value::from(format!("{seg}\nOne more line."));
    let b = serde_json::to_string_pretty(&v).unwrap();
    let diff::Reply::Compared { comparison, before, after } = diff_docs(&a, &b) else { panic!() };
    let core =
        envelope::diff::compare_in_full(&envelope::parse(&a).unwrap().envelope, &envelope::parse(&b).unwrap().envelope);
    assert_eq!(
        serde_json::to_value(&comparison).unwrap(),
        serde_json::to_value(&core).unwrap(),
        "the reply keeps every field"
    );
    assert!(!comparison.equal);
    assert_eq!(comparison.cache.message, Some(last));
    assert!(comparison.cache.reusable > 0 && comparison.cache.reusable < comparison.cache.total);
    let changed = comparison.messages.iter().find(|m| m.status == Status::Changed).unwrap();
    assert_eq!(changed.after, Some(last));
    let lines: Vec<_> = changed.segments[0].text.iter().flatten().filter(|l| l.tag == LineTag::Insert).collect();
    assert!(lines.iter().any(|l| l.text == "One more line."), "{lines:?}");
    assert!(envelope::parse(&before).is_ok() && envelope::parse(&after).is_ok());
    assert!(comparison.cache.sentence().contains("reusable"));

    let diff::Reply::Compared { comparison, .. } = diff_docs(&a, &a) else { panic!() };
    assert!(comparison.equal && comparison.cache.identical);
}

#[test]
fn diff_imports_requests_and_names_the_side_that_does_not_read() {
    let a = read("demos/a.json");
    let request = json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}).to_string();
    let diff::Reply::Compared { comparison, after, .. } = diff_docs(&a, &request) else { panic!() };
    assert!(!comparison.equal && comparison.cache.model_changed || comparison.cache.reusable == 0);
    assert!(envelope::parse(&after).is_ok());
    match diff_docs(&a, "{\"version\": 1") {
        diff::Reply::Failed { side, errors } => {
            assert_eq!(side, diff::Side::After);
            assert!(!errors.is_empty());
        }
        r => panic!("{r:?}"),
    }
}

fn render_t(template: &str, data: &str) -> render::Reply {
    send(render::OP, &render::Request { template: template.into(), data: data.into(), files: Default::default() })
}

#[test]
fn render_gives_the_parts_and_the_envelope_of_the_example() {
    let t = read("demos/templates/chat.yaml.j2");
    let d = read("demos/templates/chat.data.json");
    let render::Reply::Rendered { envelope: text, parts, .. } = render_t(&t, &d) else { panic!() };
    let core = envelope::promptpoet::render(&t, &serde_json::from_str(&d).unwrap()).unwrap();
    assert_eq!(parts.len(), core.parts.len());
    assert_eq!(parts[0].name, "system instructions");
    assert_eq!(parts[0].role, "system");
    assert_eq!(parts[0].priority, "0");
    assert_eq!(parts[0].tokens, envelope::tokens::count(&core.parts[0].content) as u64);
    let env = envelope::parse(&text).unwrap().envelope;
    assert_eq!(env.messages.len(), parts.len());
    assert_eq!(env.messages[0].id, "system instructions");

    // Edited data changes the result.
    let mut data: Value = serde_json::from_str(&d).unwrap();
    data["company"] = Value::from("Zeta Kettles");
    let render::Reply::Rendered { envelope: text2, .. } = render_t(&t, &data.to_string()) else { panic!() };
    assert!(text2.contains("Zeta Kettles") && !text.contains("Zeta Kettles"));
}

#[test]
fn render_errors_say_where() {
    let d = read("demos/templates/chat.data.json");
    // A syntax error on line 3, column 14 (the unclosed expression).
    let broken = "- name: a\n  content: |\n    Hello {{ user_query \n";
    let render::Reply::Failed { failure, .. } = render_t(broken, &d) else { panic!() };
    assert_eq!(failure.source, FailureSource::Template);
    assert_eq!(failure.diagnostic.rule, Rule::TemplateSyntax);
    assert_eq!(failure.line, Some(3), "{failure:?}");
    assert!(failure.column.is_some(), "{failure:?}");

    // An unknown filter.
    let render::Reply::Failed { failure, .. } = render_t("- content: \"{{ x | nope }}\"\n", "{\"x\": 1}") else {
        panic!()
    };
    assert_eq!((failure.source.as_str(), failure.line), ("template", Some(1)));

    // Data that is not JSON: line and column in the data.
    let render::Reply::Failed { failure, .. } = render_t("- content: hi\n", "{\n  \"a\": 1,\n  oops\n}") else {
        panic!()
    };
    assert_eq!(failure.source, FailureSource::Data);
    assert_eq!((failure.line, failure.column), (Some(3), Some(3)));

    // YAML that does not read: the line in the rendered text.
    let render::Reply::Failed { failure, .. } = render_t("- content: [unclosed\n", "{}") else { panic!() };
    assert_eq!(failure.source, FailureSource::Rendered);
    assert_eq!(failure.diagnostic.rule, Rule::TemplateYaml);
    assert!(failure.line.is_some());
}

#[test]
fn template_text_cannot_reach_outside_the_sandbox() {
    // No loader: including or importing another file is an error, not a read.
    for t in ["{% include '/etc/passwd' %}", "{% import 'x.j2' as x %}", "{% extends '/etc/hosts' %}"] {
        match render_t(t, "{}") {
            render::Reply::Failed { failure, .. } => assert_eq!(failure.source, FailureSource::Template, "{t}"),
            r => panic!("{t}: {r:?}"),
        }
    }
    // Python internals are not reachable; an endless loop runs out of fuel.
    let r = render_t("- content: \"{{ ''.__class__.__mro__ }}\"\n", "{}");
    if let render::Reply::Rendered { envelope, .. } = &r {
        assert!(!envelope.contains("object"), "{envelope}");
    }
    let t0 = std::time::Instant::now();
    let r = render_t("{% for i in range(100000000) %}{% for j in range(100000000) %}x{% endfor %}{% endfor %}", "{}");
    assert!(matches!(r, render::Reply::Failed { .. }), "{r:?}");
    assert!(t0.elapsed().as_secs() < 30, "bounded");
}

#[test]
fn render_loads_the_other_templates_from_the_files_sent() {
    let files: std::collections::BTreeMap<String, String> = [
        (
            "sections/system.yml.j2".to_string(),
            "- name: system\n  role: system\n  content: be {{ mood }}\n".to_string(),
        ),
        ("sections/bad.yml.j2".to_string(), "- name: b\n\n  content: {{ x.y.z }}\n".to_string()),
    ]
    .into_iter()
    .collect();
    let req = |template: &str| render::Request {
        template: template.into(),
        data: r#"{"mood": "kind"}"#.into(),
        files: files.clone(),
    };
    let render::Reply::Rendered { parts, .. } = send(render::OP, &req("{% include 'sections/system.yml.j2' %}\n"))
    else {
        panic!()
    };
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].role, "system");
    // An error in a loaded file: no line in the editor, the message says where.
    let render::Reply::Failed { failure, .. } = send(render::OP, &req("\n{% include 'sections/bad.yml.j2' %}\n"))
    else {
        panic!()
    };
    assert_eq!(failure.source, FailureSource::Template);
    assert_eq!(failure.line, None);
    assert!(
        failure.diagnostic.message.starts_with("sections/bad.yml.j2 line 3: UndefinedError"),
        "{}",
        failure.diagnostic.message
    );
    // A request without files (an older page) still reads.
    let r: render::Request = serde_json::from_str(r#"{"template": "x", "data": "{}"}"#).unwrap();
    assert!(r.files.is_empty());
}
