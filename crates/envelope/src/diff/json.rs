//! A field-level diff of two JSON values: which fields were added, removed or
//! changed, with paths such as `messages[3].content` (golden snapshots,
//! changed segment metadata).
//!
//! Objects are compared key by key (key order is not a difference); arrays are
//! aligned with a sequence diff first, so that one inserted message is one
//! addition rather than a change of every message after it; elements in a
//! replaced run are compared position by position.

use serde_json::Value;

use super::FieldChange;

fn key_path(base: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '$');
    match (base.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{base}.{key}"),
        (_, false) => format!("{base}[{}]", Value::from(key)),
    }
}

/// Every difference between `a` and `b`, in document order.
pub fn diff(a: &Value, b: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    walk(a, b, String::new(), &mut out);
    out
}

fn walk(a: &Value, b: &Value, path: String, out: &mut Vec<FieldChange>) {
    if a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => walk(va, vb, key_path(&path, k), out),
                    None => out.push(FieldChange { path: key_path(&path, k), before: Some(va.clone()), after: None }),
                }
            }
            for (k, vb) in y {
                if !x.contains_key(k) {
                    out.push(FieldChange { path: key_path(&path, k), before: None, after: Some(vb.clone()) });
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            let kx: Vec<String> = x.iter().map(Value::to_string).collect();
            let ky: Vec<String> = y.iter().map(Value::to_string).collect();
            for op in super::align::align(&kx, &ky) {
                let (tag, ra, rb) = op.as_tag_tuple();
                match tag {
                    similar::DiffTag::Equal => {}
                    similar::DiffTag::Delete => {
                        for i in ra {
                            out.push(FieldChange {
                                path: format!("{path}[{i}]"),
                                before: Some(x[i].clone()),
                                after: None,
                            });
                        }
                    }
                    similar::DiffTag::Insert => {
                        for j in rb {
                            out.push(FieldChange {
                                path: format!("{path}[{j}]"),
                                before: None,
                                after: Some(y[j].clone()),
                            });
                        }
                    }
                    similar::DiffTag::Replace => {
                        let n = ra.len().min(rb.len());
                        for k in 0..n {
                            // Paths name the new document's positions.
                            walk(&x[ra.start + k], &y[rb.start + k], format!("{path}[{}]", rb.start + k), out);
                        }
                        for (i, v) in x.iter().enumerate().take(ra.end).skip(ra.start + n) {
                            out.push(FieldChange {
                                path: format!("{path}[{i}]"),
                                before: Some(v.clone()),
                                after: None,
                            });
                        }
                        for (j, v) in y.iter().enumerate().take(rb.end).skip(rb.start + n) {
                            out.push(FieldChange {
                                path: format!("{path}[{j}]"),
                                before: None,
                                after: Some(v.clone()),
                            });
                        }
                    }
                }
            }
        }
        _ => out.push(FieldChange { path, before: Some(a.clone()), after: Some(b.clone()) }),
    }
}

/// A value in one line, cut to `max` characters.
pub fn short(v: &Value, max: usize) -> String {
    let s = v.to_string();
    if s.chars().count() <= max {
        s
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

/// The changes as text: `~ path: before → after` for short values, a line
/// diff for changed multi-line or long strings, `+ path = value` and
/// `- path = value` for added and removed fields.
pub fn render(changes: &[FieldChange]) -> String {
    let mut out = String::new();
    for c in changes {
        let path = if c.path.is_empty() { "(the whole document)" } else { &c.path };
        match (&c.before, &c.after) {
            (None, Some(v)) => out.push_str(&format!("+ {path} = {}\n", short(v, 200))),
            (Some(v), None) => out.push_str(&format!("- {path} = {}\n", short(v, 200))),
            (Some(Value::String(a)), Some(Value::String(b)))
                if a.len() + b.len() > 120 || a.contains('\n') || b.contains('\n') =>
            {
                out.push_str(&format!("~ {path}\n"));
                out.push_str(&super::align::line_diff(a, b, "    "));
            }
            (Some(a), Some(b)) => out.push_str(&format!("~ {path}: {} → {}\n", short(a, 120), short(b, 120))),
            (None, None) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_added_removed_changed() {
        let a = json!({"model": "gpt-4o", "messages": [{"role": "system", "content": "a"}, {"role": "user", "content": "q"}], "x": 1});
        let b = json!({"messages": [{"content": "b", "role": "system"}, {"role": "user", "content": "q"}], "model": "gpt-4o", "tools": []});
        let d = diff(&a, &b);
        let paths: Vec<&str> = d.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, ["messages[0].content", "x", "tools"]);
        assert_eq!(d[0].before, Some(json!("a")));
        assert!(diff(&a, &a).is_empty());
        // Key order is not a difference.
        assert!(diff(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1})).is_empty());
    }

    #[test]
    fn arrays_are_aligned() {
        let a = json!([{"id": 1}, {"id": 2}, {"id": 3}]);
        let b = json!([{"id": 1}, {"id": "new"}, {"id": 2}, {"id": 3}]);
        let d = diff(&a, &b);
        assert_eq!(d, [FieldChange { path: "[1]".into(), before: None, after: Some(json!({"id": "new"})) }]);
        let d = diff(&json!({"k": [1, 2, 3]}), &json!({"k": [1, 5, 3]}));
        assert_eq!(d, [FieldChange { path: "k[1]".into(), before: Some(json!(2)), after: Some(json!(5)) }]);
    }

    #[test]
    fn odd_keys_are_quoted_and_text_is_rendered() {
        let d = diff(&json!({"a b": 1, "ok": "x\ny"}), &json!({"a b": 2, "ok": "x\nz"}));
        assert_eq!(d[0].path, "[\"a b\"]");
        let text = render(&d);
        assert_eq!(text, "~ [\"a b\"]: 1 → 2\n~ ok\n      x\n    - y\n    + z\n");
    }
}
