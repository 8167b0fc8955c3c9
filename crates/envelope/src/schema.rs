//! Checking tool-call arguments against a tool's JSON Schema (a warning, §3).
//!
//! This is a deliberate subset of JSON Schema, the keywords that tool
//! declarations use: `type` (a name or a list), `enum`, `const`,
//! `properties`, `required`, `additionalProperties` (boolean or schema),
//! `items`, `minItems`/`maxItems`, `minLength`/`maxLength`,
//! `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`, `anyOf`,
//! `oneOf`, `allOf`, `not`, and local `$ref`s (`#/$defs/…`,
//! `#/definitions/…`). Other keywords (`pattern`, `format`,
//! `patternProperties`, …) are ignored, so a value is never flagged for them
//! (with `patternProperties`, `additionalProperties` is not applied either).
//! `enum` and `const` compare numbers by value. A full validator crate would pull a
//! regex engine and URL handling into the web app's WASM for a warning; this
//! one is a few hundred lines and never panics.

use serde_json::{Map, Value};

/// How deep `$ref`s and nested schemas may go before checking gives up.
const MAX_DEPTH: usize = 64;
/// How many (schema, value) visits one check may make: a hostile schema
/// (`{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}`) must not hang the page.
const MAX_STEPS: usize = 100_000;

/// Problems of `value` against `schema`, each `"path: what"`, where path is
/// relative to the arguments object (`city`, `dates[1]`; empty for the whole).
pub fn check(schema: &Value, value: &Value) -> Vec<String> {
    let mut cx = Cx { root: schema, out: Vec::new(), steps: 0 };
    cx.check(schema, value, "", 0);
    cx.out
}

struct Cx<'a> {
    root: &'a Value,
    out: Vec<String>,
    steps: usize,
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn at(path: &str) -> &str {
    if path.is_empty() {
        "arguments"
    } else {
        path
    }
}

fn is_type(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => match v {
            Value::Number(n) => n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0),
            _ => false,
        },
        _ => true, // an unknown type name constrains nothing we understand
    }
}

/// JSON Schema's equality (for `enum` and `const`): numbers by value
/// (`1.0` equals `1`, `0.50` equals `0.5`), though the document keeps the
/// text as written; objects regardless of key order.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.to_string() == y.to_string() || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::String(s) if s.chars().count() > 40 => format!("\"{}…\"", s.chars().take(40).collect::<String>()),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
        other => other.to_string(),
    }
}

impl<'a> Cx<'a> {
    fn fail(&mut self, path: &str, msg: String) {
        self.out.push(format!("{}: {msg}", at(path)));
    }

    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        let root: &'a Value = self.root;
        root.pointer(pointer)
    }

    /// Whether `value` satisfies `schema`, without recording problems.
    fn passes(&mut self, schema: &Value, value: &Value, depth: usize) -> bool {
        let saved = std::mem::take(&mut self.out);
        self.check(schema, value, "", depth);
        let ok = self.out.is_empty();
        self.out = saved;
        ok
    }

    fn check(&mut self, schema: &Value, value: &Value, path: &str, depth: usize) {
        self.steps += 1;
        if depth > MAX_DEPTH || self.steps > MAX_STEPS {
            return;
        }
        let s = match schema {
            Value::Object(s) => s,
            Value::Bool(false) => return self.fail(path, "no value is allowed here".into()),
            _ => return,
        };
        if let Some(Value::String(r)) = s.get("$ref") {
            if let Some(target) = self.resolve(r) {
                self.check(target, value, path, depth + 1);
            }
        }
        if let Some(t) = s.get("type") {
            let names: Vec<&str> = match t {
                Value::String(n) => vec![n.as_str()],
                Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            if !names.is_empty() && !names.iter().any(|n| is_type(value, n)) {
                self.fail(path, format!("expected {}, found {}", names.join(" or "), describe(value)));
                return;
            }
        }
        if let Some(Value::Array(options)) = s.get("enum") {
            if !options.iter().any(|o| json_eq(o, value)) {
                let list: Vec<String> = options.iter().map(Value::to_string).collect();
                self.fail(path, format!("{} is not one of {}", describe(value), list.join(", ")));
            }
        }
        if let Some(c) = s.get("const") {
            if !json_eq(c, value) {
                self.fail(path, format!("expected {c}, found {}", describe(value)));
            }
        }
        match value {
            Value::Object(obj) => self.object(s, obj, path, depth),
            Value::Array(items) => self.array(s, items, path, depth),
            Value::String(text) => {
                let n = text.chars().count() as u64;
                if let Some(min) = s.get("minLength").and_then(Value::as_u64).filter(|&m| n < m) {
                    self.fail(path, format!("shorter than {min} characters"));
                }
                if let Some(max) = s.get("maxLength").and_then(Value::as_u64).filter(|&m| n > m) {
                    self.fail(path, format!("longer than {max} characters"));
                }
            }
            Value::Number(num) => {
                if let Some(x) = num.as_f64() {
                    self.number(s, x, path);
                }
            }
            _ => {}
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            for sub in all {
                self.check(sub, value, path, depth + 1);
            }
        }
        if let Some(Value::Array(any)) = s.get("anyOf") {
            if !any.iter().any(|sub| self.passes(sub, value, depth + 1)) {
                self.fail(path, "matches none of the schemas in anyOf".into());
            }
        }
        if let Some(Value::Array(one)) = s.get("oneOf") {
            let n = one.iter().filter(|sub| self.passes(sub, value, depth + 1)).count();
            if n != 1 {
                self.fail(path, format!("matches {n} of the schemas in oneOf (expected exactly 1)"));
            }
        }
        if let Some(not) = s.get("not") {
            if self.passes(not, value, depth + 1) {
                self.fail(path, "matches the schema in not".into());
            }
        }
    }

    fn object(&mut self, s: &Map<String, Value>, obj: &Map<String, Value>, path: &str, depth: usize) {
        if let Some(Value::Array(required)) = s.get("required") {
            for key in required.iter().filter_map(Value::as_str) {
                if !obj.contains_key(key) {
                    self.fail(path, format!("missing required property `{key}`"));
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        // `patternProperties` needs a regex engine: with it, which keys are
        // "additional" is unknown, so `additionalProperties` is not applied.
        let patterns = s.get("patternProperties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
        for (key, v) in obj {
            match props.and_then(|p| p.get(key)) {
                Some(sub) => self.check(sub, v, &child(path, key), depth + 1),
                None if patterns => {}
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => self.fail(path, format!("property `{key}` is not allowed")),
                    Some(sub @ Value::Object(_)) => self.check(sub, v, &child(path, key), depth + 1),
                    _ => {}
                },
            }
        }
    }

    fn array(&mut self, s: &Map<String, Value>, items: &[Value], path: &str, depth: usize) {
        let n = items.len() as u64;
        if let Some(min) = s.get("minItems").and_then(Value::as_u64).filter(|&m| n < m) {
            self.fail(path, format!("fewer than {min} items"));
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64).filter(|&m| n > m) {
            self.fail(path, format!("more than {max} items"));
        }
        if let Some(item_schema @ (Value::Object(_) | Value::Bool(_))) = s.get("items") {
            for (i, v) in items.iter().enumerate() {
                self.check(item_schema, v, &format!("{path}[{i}]"), depth + 1);
            }
        }
    }

    fn number(&mut self, s: &Map<String, Value>, x: f64, path: &str) {
        let bound = |k: &str| s.get(k).and_then(Value::as_f64);
        if let Some(m) = bound("minimum").filter(|&m| x < m) {
            self.fail(path, format!("less than the minimum {m}"));
        }
        if let Some(m) = bound("maximum").filter(|&m| x > m) {
            self.fail(path, format!("greater than the maximum {m}"));
        }
        if let Some(m) = bound("exclusiveMinimum").filter(|&m| x <= m) {
            self.fail(path, format!("not greater than {m}"));
        }
        if let Some(m) = bound("exclusiveMaximum").filter(|&m| x >= m) {
            self.fail(path, format!("not less than {m}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn weather() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "units": {"type": "string", "enum": ["metric", "imperial"]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}
            },
            "required": ["city"],
            "additionalProperties": false
        })
    }

    #[test]
    fn valid_arguments_pass() {
        assert!(check(&weather(), &json!({"city": "Paris", "days": 3, "units": "metric"})).is_empty());
        assert!(check(&weather(), &json!({"city": "Paris", "days": 3.0})).is_empty(), "3.0 is an integer");
    }

    #[test]
    fn enum_and_const_compare_numbers_by_value_and_pattern_keys_are_not_additional() {
        // Numbers as written in a document (the text is kept: `1.0`, `0.50`).
        let args: Value =
            serde_json::from_str(r#"{"n": 1.0, "c": 0.50, "o": {"b": 2.0, "a": 1}, "x_a": "ok"}"#).unwrap();
        let s = json!({
            "type": "object",
            "properties": {
                "n": {"enum": [1, 2]},
                "c": {"const": 0.5},
                "o": {"const": {"a": 1, "b": 2}}
            },
            "patternProperties": {"^x_": {"type": "string"}},
            "additionalProperties": false
        });
        assert_eq!(check(&s, &args), Vec::<String>::new());
        let bad: Value = serde_json::from_str(r#"{"n": 1.5, "c": 0.51}"#).unwrap();
        assert_eq!(check(&s, &bad), ["n: 1.5 is not one of 1, 2", "c: expected 0.5, found 0.51"]);
    }

    #[test]
    fn each_violation_is_reported_with_its_path() {
        let problems = check(&weather(), &json!({"days": 30, "units": "kelvin", "tags": ["a", 2, "c"], "extra": true}));
        assert_eq!(
            problems,
            [
                "arguments: missing required property `city`",
                "days: greater than the maximum 14",
                "units: \"kelvin\" is not one of \"metric\", \"imperial\"",
                "tags: more than 2 items",
                "tags[1]: expected string, found 2",
                "arguments: property `extra` is not allowed",
            ]
        );
    }

    #[test]
    fn combinators_refs_and_type_lists() {
        let s = json!({
            "$defs": {"pos": {"type": "number", "exclusiveMinimum": 0}},
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/pos"},
                "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "c": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
                "d": {"type": ["string", "integer"]},
                "e": {"not": {"const": "x"}}
            }
        });
        assert!(check(&s, &json!({"a": 1, "b": null, "c": 1.5, "d": 2, "e": "y"})).is_empty());
        let p = check(&s, &json!({"a": 0, "b": 3, "c": 2, "d": true, "e": "x"}));
        assert_eq!(p.len(), 5, "{p:?}");
    }

    #[test]
    fn self_referencing_schema_terminates() {
        let s = json!({"$ref": "#"});
        assert!(check(&s, &json!({})).is_empty());
    }

    #[test]
    fn exponential_schema_is_cut_off() {
        let s = json!({"anyOf": [{"$ref": "#"}, {"$ref": "#"}]});
        let _ = check(&s, &json!({}));
    }

    #[test]
    fn unknown_keywords_and_non_object_schemas_constrain_nothing() {
        assert!(check(&json!({"pattern": "^a$", "format": "email"}), &json!("zzz")).is_empty());
        assert!(check(&json!(true), &json!(1)).is_empty());
        assert_eq!(check(&json!(false), &json!(1)).len(), 1);
    }
}
