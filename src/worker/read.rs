//! Reading the engine's JSON replies on the page through `serde_json::Value`
//! rather than each reply type's derived `Deserialize`: the derived code
//! (a visitor per struct and a sequence reader per list type) cost the first
//! load more than these accessors. The types are the worker crate's; its
//! tests keep their JSON in step with the core's.

use envelope::{Diagnostic, Rule, Severity};
use serde_json::Value;

pub fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or_default().to_string()
}

pub fn opt_s(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

pub fn u(v: &Value, k: &str) -> Option<usize> {
    v.get(k).and_then(Value::as_u64).map(|n| n as usize)
}

pub fn n(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

pub fn b(v: &Value, k: &str) -> bool {
    v.get(k).and_then(Value::as_bool).unwrap_or(false)
}

pub fn list<'a>(v: &'a Value, k: &str) -> impl Iterator<Item = &'a Value> {
    v.get(k).and_then(Value::as_array).map(|a| a.iter()).into_iter().flatten()
}

/// A diagnostic as the core serialises it; `None` when its code is unknown
/// to this page (a worker newer than the page).
pub fn diagnostic(v: &Value) -> Option<Diagnostic> {
    let rule = Rule::from_code(v.get("code")?.as_str()?)?;
    let severity = match v.get("severity")?.as_str()? {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => Severity::Info,
    };
    let mut d = Diagnostic::new(rule, s(v, "path"), s(v, "message")).with_severity(severity);
    d.hint = opt_s(v, "hint");
    Some(d)
}

/// Diagnostics as `path: message` lines.
pub fn diagnostics_text(v: &Value, k: &str) -> Vec<String> {
    list(v, k)
        .map(|e| {
            let (p, m) = (s(e, "path"), s(e, "message"));
            if p.is_empty() {
                m
            } else {
                format!("{p}: {m}")
            }
        })
        .collect()
}

/// The one variant of an externally tagged enum: (tag, content).
pub fn variant(v: &Value) -> Option<(&str, &Value)> {
    let o = v.as_object()?;
    let (k, c) = o.iter().next()?;
    Some((k.as_str(), c))
}

#[cfg(test)]
mod tests {
    //! Each reader against the worker crate's own serialisation of a reply
    //! with every field set: a renamed or missing field fails here.
    use pep_token_worker::{diff, lint, render};
    use serde_json::json;

    use super::*;

    fn diag() -> Diagnostic {
        Diagnostic::new(Rule::SensitiveWord, "messages[1].segments[0].content", "sensitive word")
            .with_hint("remove it")
            .with_severity(Severity::Error)
    }

    #[test]
    fn lint_replies_read_back() {
        let finding = lint::Finding {
            diagnostic: diag(),
            location: lint::Location {
                message: Some(1),
                message_id: Some("u1".into()),
                segment: Some(0),
                field: Some("content".into()),
                pointer: "/messages/1/segments/0/content".into(),
                line: Some(9),
                column: Some(4),
                end_line: Some(9),
                end_column: Some(12),
            },
        };
        let sent = lint::Reply::Linted { findings: vec![finding.clone()], tokens: Some(42) };
        let got = crate::worker::lint::read(&serde_json::to_value(&sent).unwrap()).unwrap();
        assert_eq!(got, crate::worker::lint::Reply::Linted { findings: vec![finding], tokens: Some(42) });
        let bad = lint::Reply::BadSettings { error: "no".into() };
        assert_eq!(
            crate::worker::lint::read(&serde_json::to_value(&bad).unwrap()),
            Some(crate::worker::lint::Reply::BadSettings { error: "no".into() })
        );
    }

    #[test]
    fn diff_replies_read_back() {
        let comparison = diff::Comparison {
            equal: false,
            fields: vec![diff::FieldChange { path: "model".into(), before: Some(json!("a")), after: Some(json!("b")) }],
            messages: vec![diff::MessageDiff {
                status: diff::Status::Changed,
                before: Some(0),
                after: Some(1),
                id: "m".into(),
                previous_id: Some("old".into()),
                role: "user".into(),
                tokens_before: Some(3),
                tokens_after: Some(5),
                segments: vec![diff::SegmentDiff {
                    status: diff::Status::Added,
                    before: None,
                    after: Some(2),
                    kind: "text".into(),
                    text: vec![vec![diff::Line { tag: "insert".into(), text: "x".into() }]],
                    fields: vec![diff::FieldChange { path: "content".into(), before: None, after: Some(json!(1)) }],
                }],
                fields: vec![],
            }],
            tokens_before: 10,
            tokens_after: 12,
            cache: diff::CacheBreak {
                reusable: 7,
                total: 12,
                previous_total: 10,
                model_changed: true,
                identical: false,
                in_tools: true,
                message: Some(1),
                message_id: Some("m".into()),
                segment: Some(2),
            },
            sentence: "the first 7 of 12".into(),
        };
        let sent = diff::Reply::Compared { comparison: comparison.clone(), before: "{}".into(), after: "{}".into() };
        let got = crate::worker::diff::read(&serde_json::to_value(&sent).unwrap()).unwrap();
        assert_eq!(got, crate::worker::diff::Reply::Compared { comparison });
        let failed = diff::Reply::Failed { side: "after".into(), errors: vec![diag()] };
        assert_eq!(
            crate::worker::diff::read(&serde_json::to_value(&failed).unwrap()),
            Some(crate::worker::diff::Reply::Failed {
                side: "after".into(),
                errors: vec!["messages[1].segments[0].content: sensitive word".into()]
            })
        );
    }

    #[test]
    fn render_replies_read_back() {
        let part = render::Part { name: "a".into(), role: "system".into(), priority: "0".into(), tokens: 4, chars: 9 };
        let sent = render::Reply::Rendered { envelope: "{}".into(), parts: vec![part.clone()], warnings: vec![diag()] };
        let got = crate::worker::render::read(&serde_json::to_value(&sent).unwrap()).unwrap();
        assert_eq!(
            got,
            crate::worker::render::Reply::Rendered {
                envelope: "{}".into(),
                parts: vec![part],
                warnings: vec!["messages[1].segments[0].content: sensitive word".into()]
            }
        );
        let failure = render::Failure {
            source: "template".into(),
            diagnostic: diag(),
            class: "TemplateSyntaxError".into(),
            line: Some(3),
            column: Some(14),
            text: Some("x".into()),
        };
        let sent = render::Reply::Failed { failure: failure.clone(), warnings: vec![] };
        assert_eq!(
            crate::worker::render::read(&serde_json::to_value(&sent).unwrap()),
            Some(crate::worker::render::Reply::Failed { failure, warnings: vec![] })
        );
    }
}
