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

use std::collections::HashMap;
use std::marker::PhantomData;

use serde_json::{Map, Value};

/// How deep `$ref`s and nested schemas may go before a check gives up.
pub const MAX_DEPTH: usize = 64;
/// How much work one check may do: a hostile schema
/// (`{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}` whose branches all fail) must
/// not hang the page. A step is one (schema, value) visit, or one unit of the
/// work a visit does beyond that (an `enum` option or `required` key looked
/// at, a value node compared, 256 bytes of a string measured).
pub const CHECK_STEPS: usize = 100_000;
/// How much work all the argument checks of one document may do together.
pub const DOCUMENT_STEPS: usize = 500_000;

/// Why a check did not finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Skip {
    /// The check needed more than [`CHECK_STEPS`] steps or [`MAX_DEPTH`] levels.
    TooComplex,
    /// The document's budget ([`DOCUMENT_STEPS`]) was spent.
    BudgetSpent,
}

/// The result of checking one value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The problems found, each `"path: what"` (none: the value satisfies the schema).
    Checked(Vec<String>),
    /// The check was cut off; nothing is known (partial findings are dropped:
    /// inside `anyOf`/`oneOf`/`not` a cut branch could turn a pass into a
    /// failure).
    Skipped(Skip),
}

/// Checks values against schemas within one shared budget of steps, and
/// remembers each (schema, value) outcome: a document that calls a tool
/// 5,000 times with the same arguments checks them once. Schemas are told
/// apart by identity (their address), values by their compact JSON.
pub struct Checker<'s> {
    remaining: usize,
    memo: HashMap<(usize, String), Outcome>,
    _schemas: PhantomData<&'s Value>,
}

impl<'s> Checker<'s> {
    /// A checker with `steps` to spend over all its checks.
    pub fn new(steps: usize) -> Self {
        Checker { remaining: steps, memo: HashMap::new(), _schemas: PhantomData }
    }

    /// Steps left.
    pub fn remaining(&self) -> usize {
        self.remaining
    }

    /// `value` against `schema`, from memory when this schema already checked
    /// an equal value (`key`: the value's compact JSON).
    pub fn check_keyed(&mut self, schema: &'s Value, value: &Value, key: String) -> Outcome {
        let id = (schema as *const Value as usize, key);
        if let Some(known) = self.memo.get(&id) {
            return known.clone();
        }
        let outcome = self.run(schema, value);
        self.memo.insert(id, outcome.clone());
        outcome
    }

    /// `value` against `schema`, memoised by the value's compact JSON.
    pub fn check(&mut self, schema: &'s Value, value: &Value) -> Outcome {
        let key = value.to_string();
        self.check_keyed(schema, value, key)
    }

    fn run(&mut self, schema: &Value, value: &Value) -> Outcome {
        if self.remaining == 0 {
            return Outcome::Skipped(Skip::BudgetSpent);
        }
        let limit = self.remaining.min(CHECK_STEPS);
        let mut cx = Cx { root: schema, out: Vec::new(), steps: 0, limit, quiet: 0, failed: false, cut: false };
        cx.check(schema, value, "", 0);
        self.remaining -= cx.steps.min(self.remaining);
        match cx.cut {
            false => Outcome::Checked(cx.out),
            true if cx.steps >= limit && limit < CHECK_STEPS => Outcome::Skipped(Skip::BudgetSpent),
            true => Outcome::Skipped(Skip::TooComplex),
        }
    }
}

/// Problems of `value` against `schema`, each `"path: what"`, where path is
/// relative to the arguments object (`city`, `dates[1]`; empty for the whole);
/// `None` when the check was cut off ([`CHECK_STEPS`], [`MAX_DEPTH`]).
pub fn check(schema: &Value, value: &Value) -> Option<Vec<String>> {
    match Checker::new(CHECK_STEPS).run(schema, value) {
        Outcome::Checked(problems) => Some(problems),
        Outcome::Skipped(_) => None,
    }
}

struct Cx<'a> {
    root: &'a Value,
    out: Vec<String>,
    steps: usize,
    limit: usize,
    /// Inside how many `passes` (where only pass/fail matters: problems are
    /// not written out, and the first one ends the check).
    quiet: usize,
    /// A problem was found in quiet mode.
    failed: bool,
    /// A limit was hit: the outcome is unknown.
    cut: bool,
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
/// text as written; objects regardless of key order. Adds the nodes it
/// compares to `steps`.
fn json_eq(a: &Value, b: &Value, steps: &mut usize) -> bool {
    *steps += 1;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.to_string() == y.to_string() || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q, steps)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w, steps)))
        }
        (Value::String(x), Value::String(y)) => {
            *steps += x.len().min(y.len()) / 256;
            x == y
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

/// `v` as JSON, at most about 100 characters of it.
fn short(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(100) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

impl<'a> Cx<'a> {
    /// Records a problem (in quiet mode only that there is one).
    fn fail(&mut self, path: &str, msg: impl FnOnce() -> String) {
        if self.quiet > 0 {
            self.failed = true;
        } else {
            self.out.push(format!("{}: {}", at(path), msg()));
        }
    }

    /// Spends `n` steps; past the limit the check is cut off.
    fn charge(&mut self, n: usize) {
        self.steps = self.steps.saturating_add(n);
        if self.steps > self.limit {
            self.cut = true;
        }
    }

    /// Nothing more to learn: cut off, or (in quiet mode) already failed.
    fn done(&self) -> bool {
        self.cut || (self.quiet > 0 && self.failed)
    }

    fn resolve(&mut self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        self.charge(pointer.len() / 64);
        let root: &'a Value = self.root;
        root.pointer(pointer)
    }

    /// Whether `value` satisfies `schema`, without recording problems.
    fn passes(&mut self, schema: &Value, value: &Value, depth: usize) -> bool {
        let saved = std::mem::replace(&mut self.failed, false);
        self.quiet += 1;
        self.check(schema, value, "", depth);
        self.quiet -= 1;
        let ok = !self.failed;
        self.failed = saved;
        ok
    }

    fn check(&mut self, schema: &Value, value: &Value, path: &str, depth: usize) {
        self.charge(1);
        if depth > MAX_DEPTH {
            self.cut = true;
        }
        if self.done() {
            return;
        }
        let s = match schema {
            Value::Object(s) => s,
            Value::Bool(false) => return self.fail(path, || "no value is allowed here".into()),
            _ => return,
        };
        if let Some(Value::String(r)) = s.get("$ref") {
            if let Some(target) = self.resolve(r) {
                self.check(target, value, path, depth + 1);
                if self.done() {
                    return;
                }
            }
        }
        if let Some(t) = s.get("type") {
            let names: Vec<&str> = match t {
                Value::String(n) => vec![n.as_str()],
                Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            self.charge(names.len());
            if !names.is_empty() && !names.iter().any(|n| is_type(value, n)) {
                self.fail(path, || format!("expected {}, found {}", names.join(" or "), describe(value)));
                return;
            }
        }
        if let Some(Value::Array(options)) = s.get("enum") {
            let mut steps = 0;
            let found = options.iter().any(|o| json_eq(o, value, &mut steps));
            self.charge(steps);
            if !found {
                self.fail(path, || {
                    let mut list: Vec<String> = options.iter().take(10).map(short).collect();
                    if options.len() > 10 {
                        list.push(format!("… ({} in all)", options.len()));
                    }
                    format!("{} is not one of {}", describe(value), list.join(", "))
                });
            }
        }
        if let Some(c) = s.get("const") {
            let mut steps = 0;
            let equal = json_eq(c, value, &mut steps);
            self.charge(steps);
            if !equal {
                self.fail(path, || format!("expected {}, found {}", short(c), describe(value)));
            }
        }
        if self.done() {
            return;
        }
        match value {
            Value::Object(obj) => self.object(s, obj, path, depth),
            Value::Array(items) => self.array(s, items, path, depth),
            Value::String(text) => {
                let (min, max) =
                    (s.get("minLength").and_then(Value::as_u64), s.get("maxLength").and_then(Value::as_u64));
                if min.is_some() || max.is_some() {
                    self.charge(text.len() / 256);
                    let n = text.chars().count() as u64;
                    if let Some(min) = min.filter(|&m| n < m) {
                        self.fail(path, || format!("shorter than {min} characters"));
                    }
                    if let Some(max) = max.filter(|&m| n > m) {
                        self.fail(path, || format!("longer than {max} characters"));
                    }
                }
            }
            Value::Number(num) => {
                if let Some(x) = num.as_f64() {
                    self.number(s, x, path);
                }
            }
            _ => {}
        }
        if self.done() {
            return;
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            for sub in all {
                self.check(sub, value, path, depth + 1);
                if self.done() {
                    return;
                }
            }
        }
        if let Some(Value::Array(any)) = s.get("anyOf") {
            let matched = any.iter().any(|sub| self.passes(sub, value, depth + 1) && !self.cut);
            if self.cut {
                return;
            }
            if !matched {
                self.fail(path, || "matches none of the schemas in anyOf".into());
            }
        }
        if let Some(Value::Array(one)) = s.get("oneOf") {
            let mut n = 0;
            for sub in one {
                n += usize::from(self.passes(sub, value, depth + 1));
                if self.cut {
                    return;
                }
            }
            if n != 1 {
                self.fail(path, || format!("matches {n} of the schemas in oneOf (expected exactly 1)"));
            }
        }
        if let Some(not) = s.get("not") {
            let passed = self.passes(not, value, depth + 1);
            if self.cut {
                return;
            }
            if passed {
                self.fail(path, || "matches the schema in not".into());
            }
        }
    }

    fn object(&mut self, s: &Map<String, Value>, obj: &Map<String, Value>, path: &str, depth: usize) {
        if let Some(Value::Array(required)) = s.get("required") {
            self.charge(required.len());
            for key in required.iter().filter_map(Value::as_str) {
                if !obj.contains_key(key) {
                    self.fail(path, || format!("missing required property `{key}`"));
                    if self.done() {
                        return;
                    }
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        // `patternProperties` needs a regex engine: with it, which keys are
        // "additional" is unknown, so `additionalProperties` is not applied.
        let patterns = s.get("patternProperties").and_then(Value::as_object).is_some_and(|p| !p.is_empty());
        let additional = s.get("additionalProperties");
        if props.is_none() && (patterns || !matches!(additional, Some(Value::Bool(false) | Value::Object(_)))) {
            return; // nothing applies to any key
        }
        self.charge(obj.len());
        for (key, v) in obj {
            if self.done() {
                return;
            }
            match props.and_then(|p| p.get(key)) {
                Some(sub) => {
                    let key_path = if self.quiet > 0 { String::new() } else { child(path, key) };
                    self.check(sub, v, &key_path, depth + 1)
                }
                None if patterns => {}
                None => match additional {
                    Some(Value::Bool(false)) => self.fail(path, || format!("property `{key}` is not allowed")),
                    Some(sub @ Value::Object(_)) => {
                        let key_path = if self.quiet > 0 { String::new() } else { child(path, key) };
                        self.check(sub, v, &key_path, depth + 1)
                    }
                    _ => {}
                },
            }
        }
    }

    fn array(&mut self, s: &Map<String, Value>, items: &[Value], path: &str, depth: usize) {
        let n = items.len() as u64;
        if let Some(min) = s.get("minItems").and_then(Value::as_u64).filter(|&m| n < m) {
            self.fail(path, || format!("fewer than {min} items"));
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64).filter(|&m| n > m) {
            self.fail(path, || format!("more than {max} items"));
        }
        if let Some(item_schema @ (Value::Object(_) | Value::Bool(_))) = s.get("items") {
            for (i, v) in items.iter().enumerate() {
                if self.done() {
                    return;
                }
                let item_path = if self.quiet > 0 { String::new() } else { format!("{path}[{i}]") };
                self.check(item_schema, v, &item_path, depth + 1);
            }
        }
    }

    fn number(&mut self, s: &Map<String, Value>, x: f64, path: &str) {
        let bound = |k: &str| s.get(k).and_then(Value::as_f64);
        if let Some(m) = bound("minimum").filter(|&m| x < m) {
            self.fail(path, || format!("less than the minimum {m}"));
        }
        if let Some(m) = bound("maximum").filter(|&m| x > m) {
            self.fail(path, || format!("greater than the maximum {m}"));
        }
        if let Some(m) = bound("exclusiveMinimum").filter(|&m| x <= m) {
            self.fail(path, || format!("not greater than {m}"));
        }
        if let Some(m) = bound("exclusiveMaximum").filter(|&m| x >= m) {
            self.fail(path, || format!("not less than {m}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The problems of a check that must finish.
    fn problems(schema: &Value, value: &Value) -> Vec<String> {
        check(schema, value).expect("the check finishes")
    }

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
        assert!(problems(&weather(), &json!({"city": "Paris", "days": 3, "units": "metric"})).is_empty());
        assert!(problems(&weather(), &json!({"city": "Paris", "days": 3.0})).is_empty(), "3.0 is an integer");
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
        assert_eq!(problems(&s, &args), Vec::<String>::new());
        let bad: Value = serde_json::from_str(r#"{"n": 1.5, "c": 0.51}"#).unwrap();
        assert_eq!(problems(&s, &bad), ["n: 1.5 is not one of 1, 2", "c: expected 0.5, found 0.51"]);
    }

    #[test]
    fn each_violation_is_reported_with_its_path() {
        let problems =
            problems(&weather(), &json!({"days": 30, "units": "kelvin", "tags": ["a", 2, "c"], "extra": true}));
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
        assert!(problems(&s, &json!({"a": 1, "b": null, "c": 1.5, "d": 2, "e": "y"})).is_empty());
        let p = problems(&s, &json!({"a": 0, "b": 3, "c": 2, "d": true, "e": "x"}));
        assert_eq!(p.len(), 5, "{p:?}");
    }

    /// `d0` = allOf [d1, d1], …, `d{n-1}` = allOf [dn, dn], `dn` = {}: 2^n paths, n deep.
    pub(crate) fn wide_schema(n: usize) -> Value {
        let mut defs = Map::new();
        for i in 0..n {
            let next = json!({"$ref": format!("#/$defs/d{}", i + 1)});
            defs.insert(format!("d{i}"), json!({"allOf": [next.clone(), next]}));
        }
        defs.insert(format!("d{n}"), json!({}));
        json!({"type": "object", "$defs": defs, "allOf": [{"$ref": "#/$defs/d0"}]})
    }

    #[test]
    fn self_referencing_schema_is_cut_off_at_its_depth() {
        let s = json!({"$ref": "#"});
        assert_eq!(check(&s, &json!({})), None);
        let mut c = Checker::new(DOCUMENT_STEPS);
        assert_eq!(c.check(&s, &json!({})), Outcome::Skipped(Skip::TooComplex));
    }

    #[test]
    fn exponential_schema_is_cut_off_and_reported_as_skipped() {
        // Passing at every level: one branch deep, cut at depth 64.
        let s = json!({"anyOf": [{"$ref": "#"}, {"$ref": "#"}]});
        assert_eq!(check(&s, &json!({})), None);
        // Failing at every level: inside anyOf the first problem settles a
        // branch, so this is linear and finishes.
        let s = json!({"required": ["x"], "anyOf": [{"$ref": "#"}, {"$ref": "#"}]});
        assert_eq!(
            problems(&s, &json!({})),
            ["arguments: missing required property `x`", "arguments: matches none of the schemas in anyOf"]
        );
        // Self-references with allOf (which visits every branch) go deep first: cut at depth 64.
        let s = json!({"type": "object", "allOf": [{"$ref": "#"}, {"$ref": "#"}]});
        assert_eq!(check(&s, &json!({})), None);
        // Wide, not deep: 2^30 paths 31 levels deep, cut at CHECK_STEPS.
        let s = wide_schema(30);
        let mut c = Checker::new(DOCUMENT_STEPS);
        let t = std::time::Instant::now();
        assert_eq!(c.check(&s, &json!({"i": 1})), Outcome::Skipped(Skip::TooComplex));
        let spent = DOCUMENT_STEPS - c.remaining();
        assert!((CHECK_STEPS..CHECK_STEPS + 100).contains(&spent), "{spent}");
        // The same value again: remembered, nothing spent.
        assert_eq!(c.check(&s, &json!({"i": 1})), Outcome::Skipped(Skip::TooComplex));
        assert_eq!(DOCUMENT_STEPS - c.remaining(), spent);
        // Other values spend the rest of the budget, then are skipped at once.
        let mut outcomes = Vec::new();
        for i in 2..40 {
            outcomes.push(c.check(&s, &json!({ "i": i })));
        }
        assert_eq!(c.remaining(), 0);
        // The rest of the budget in checks at their own limit (DOCUMENT_STEPS /
        // CHECK_STEPS − 1, give or take one), then the budget is spent.
        let complex = outcomes.iter().take_while(|o| **o == Outcome::Skipped(Skip::TooComplex)).count();
        let expected = DOCUMENT_STEPS / CHECK_STEPS - 1;
        assert!((expected - 2..=expected).contains(&complex), "{outcomes:?}");
        assert!(outcomes[complex..].iter().all(|o| *o == Outcome::Skipped(Skip::BudgetSpent)), "{outcomes:?}");
        assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    }

    #[test]
    fn identical_values_are_checked_once_per_schema() {
        let s = weather();
        let other = weather();
        let mut c = Checker::new(1_000);
        let bad = json!({"days": "x"});
        let first = c.check(&s, &bad);
        let left = c.remaining();
        assert!(left < 1_000);
        assert_eq!(c.check(&s, &bad), first);
        assert_eq!(c.remaining(), left, "remembered");
        // Another schema (even an equal one) is another check.
        assert_eq!(c.check(&other, &bad), first);
        assert!(c.remaining() < left);
    }

    #[test]
    fn big_enums_and_consts_cost_steps() {
        let options: Vec<Value> = (0..5_000).map(|i| json!(format!("option {i}"))).collect();
        let s = json!({"enum": options});
        let mut c = Checker::new(DOCUMENT_STEPS);
        let Outcome::Checked(p) = c.check(&s, &json!("nope")) else { panic!() };
        assert!(DOCUMENT_STEPS - c.remaining() >= 5_000);
        // The message lists ten options and the count, not five thousand.
        assert!(p[0].ends_with("… (5000 in all)") && p[0].len() < 300, "{}", p[0]);
    }

    #[test]
    fn unknown_keywords_and_non_object_schemas_constrain_nothing() {
        assert!(problems(&json!({"pattern": "^a$", "format": "email"}), &json!("zzz")).is_empty());
        assert!(problems(&json!(true), &json!(1)).is_empty());
        assert_eq!(problems(&json!(false), &json!(1)).len(), 1);
    }
}
