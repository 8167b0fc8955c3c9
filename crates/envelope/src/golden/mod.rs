//! Golden outputs: a model's JSON output compared field by field with a
//! reviewed ("golden") output, as `pep test` and the app's Response view do.
//!
//! [`compare`] walks both values and returns every [`Failure`], each at a
//! JSON Pointer into the output (`""` is the whole output). [`Rules`] say how
//! a field is compared, by JSON Pointer patterns where a `*` token matches any
//! array index or object key (`/findings/*/description`):
//!
//! - `ignore`: the field and everything under it is not compared;
//! - `fuzzy` (with a threshold in 0..=1): strings at or under the pointer
//!   pass when their [`similarity`] is at least the threshold;
//! - `exact`: compared exactly — the default for every field not fuzzy, so
//!   listing a pointer here only matters to take a field back out of a fuzzy
//!   subtree.
//!
//! A rule applies to the node at its pointer and to everything under it; when
//! several patterns match, the one with more tokens (the most specific) wins,
//! and among equally specific ones `ignore` beats `exact`, which beats `fuzzy`.
//!
//! Exact comparison: object keys in any order; numbers by value (`1` equals
//! `1.0`); `null` equals only `null`; arrays element by element. An array
//! that grew or shrank is one [`Kind::Length`] failure at the array's path
//! (`[3 items]` → `[4 items]`) plus one [`Kind::Unexpected`] per added item or
//! [`Kind::Missing`] per removed one, after aligning the two arrays on their
//! longest common run of equal items (so one inserted item is one addition,
//! not a change of every item after it).
//!
//! Always built, no dependency beyond `serde_json`: the app uses it too.

pub mod report;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use report::{CaseReport, Group, Status, SuiteReport, Summary};

/// How fields are compared (JSON Pointer patterns; `*` = any index or key).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    pub exact: Vec<String>,
    pub fuzzy: Vec<(String, f64)>,
    pub ignore: Vec<String>,
}

impl Rules {
    /// Every pointer that is not a JSON Pointer (`""` or starting with `/`)
    /// and every threshold outside 0..=1, one message each.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let bad = |p: &str| !p.is_empty() && !p.starts_with('/');
        for (list, ps) in [("exact", &self.exact), ("ignore", &self.ignore)] {
            for p in ps {
                if bad(p) {
                    out.push(format!("{list}: {p:?} is not a JSON Pointer (it must be \"\" or start with '/')"));
                }
            }
        }
        for (p, t) in &self.fuzzy {
            if bad(p) {
                out.push(format!("fuzzy: {p:?} is not a JSON Pointer (it must be \"\" or start with '/')"));
            }
            if !(0.0..=1.0).contains(t) {
                out.push(format!("fuzzy: the threshold of {p:?} is {t}; it must be between 0 and 1"));
            }
        }
        out
    }
}

/// What kind of failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A field of the golden output is not in the output.
    Missing,
    /// The output has a field (or array item) the golden output has not.
    Unexpected,
    /// The two values are of different JSON types.
    Type,
    /// The two values differ (exact comparison).
    Value,
    /// An array has a different number of items.
    Length,
    /// A fuzzy string is less similar than its threshold.
    Fuzzy,
    /// The output does not satisfy the output schema.
    Schema,
    /// The output is not JSON (or has prose or a fence around it).
    Parse,
    /// The prompt could not be rendered, or its lint found errors.
    Render,
    /// The live call failed.
    Live,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Missing => "missing",
            Kind::Unexpected => "unexpected",
            Kind::Type => "type",
            Kind::Value => "value",
            Kind::Length => "length",
            Kind::Fuzzy => "fuzzy",
            Kind::Schema => "schema",
            Kind::Parse => "parse",
            Kind::Render => "render",
            Kind::Live => "live",
        }
    }
}

/// One difference or problem, at a JSON Pointer into the output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub path: String,
    pub kind: Kind,
    pub expected: Option<Value>,
    pub actual: Option<Value>,
    pub message: String,
}

impl Failure {
    pub fn new(path: impl Into<String>, kind: Kind, message: impl Into<String>) -> Failure {
        Failure { path: path.into(), kind, expected: None, actual: None, message: message.into() }
    }
}

/// A value with its type for messages: `string "abc"`, `number 3`, and
/// `null` alone (its type and its value are one word).
fn typed(v: &Value) -> String {
    match v {
        Value::Null => "null".to_owned(),
        _ => format!("{} {}", type_name(v), short(v, 60)),
    }
}

/// The JSON type name of a value, as messages say it.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A JSON Pointer token: `~` as `~0`, `/` as `~1`.
pub fn escape_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn unescape_token(t: &str) -> String {
    t.replace("~1", "/").replace("~0", "~")
}

/// A compiled pattern: its tokens, `None` for `*`.
#[derive(Debug)]
struct Pattern {
    tokens: Vec<Option<String>>,
}

impl Pattern {
    fn new(p: &str) -> Pattern {
        let tokens = if p.is_empty() {
            Vec::new()
        } else {
            p.split('/').skip(1).map(|t| if t == "*" { None } else { Some(unescape_token(t)) }).collect()
        };
        Pattern { tokens }
    }

    /// Whether the pattern names `path` or one of its ancestors.
    fn covers(&self, path: &[String]) -> bool {
        self.tokens.len() <= path.len() && self.tokens.iter().zip(path).all(|(t, p)| t.as_ref().is_none_or(|t| t == p))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Exact,
    Fuzzy(f64),
    Ignore,
}

struct Compiled {
    rules: Vec<(Pattern, Mode, u8)>,
}

impl Compiled {
    fn new(r: &Rules) -> Compiled {
        let mut rules = Vec::new();
        rules.extend(r.ignore.iter().map(|p| (Pattern::new(p), Mode::Ignore, 2)));
        rules.extend(r.exact.iter().map(|p| (Pattern::new(p), Mode::Exact, 1)));
        rules.extend(r.fuzzy.iter().map(|(p, t)| (Pattern::new(p), Mode::Fuzzy(*t), 0)));
        Compiled { rules }
    }

    fn mode(&self, path: &[String]) -> Mode {
        let mut best: Option<(usize, u8, Mode)> = None;
        for (p, m, rank) in &self.rules {
            if p.covers(path) {
                let key = (p.tokens.len(), *rank);
                if best.is_none_or(|(l, r, _)| key > (l, r)) {
                    best = Some((key.0, key.1, *m));
                }
            }
        }
        best.map_or(Mode::Exact, |b| b.2)
    }
}

fn pointer(path: &[String]) -> String {
    path.iter().map(|t| format!("/{}", escape_token(t))).collect()
}

/// Every failure of `actual` against the golden `expected`, in document order.
pub fn compare(expected: &Value, actual: &Value, rules: &Rules) -> Vec<Failure> {
    let c = Compiled::new(rules);
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk(&c, expected, actual, &mut path, &mut out);
    out
}

/// Numbers by value: integers exactly, anything else as f64.
pub fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    let int = |n: &serde_json::Number| n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from));
    match (int(a), int(b)) {
        (Some(x), Some(y)) => x == y,
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => a == b,
        },
    }
}

/// Exact equality under the rules' ignores (numbers by value).
fn equal(c: &Compiled, a: &Value, b: &Value, path: &mut Vec<String>) -> bool {
    let mut out = Vec::new();
    walk(c, a, b, path, &mut out);
    out.is_empty()
}

fn walk(c: &Compiled, e: &Value, a: &Value, path: &mut Vec<String>, out: &mut Vec<Failure>) {
    let mode = c.mode(path);
    if mode == Mode::Ignore {
        return;
    }
    let here = || pointer(path);
    match (e, a) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, ve) in x {
                path.push(k.clone());
                match y.get(k) {
                    Some(va) => walk(c, ve, va, path, out),
                    None => lone(
                        c,
                        path,
                        Kind::Missing,
                        ve,
                        "missing from the output (the golden output has it)".into(),
                        out,
                    ),
                }
                path.pop();
            }
            for (k, va) in y {
                if !x.contains_key(k) {
                    path.push(k.clone());
                    lone(c, path, Kind::Unexpected, va, "not in the golden output".into(), out);
                    path.pop();
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => arrays(c, x, y, path, out),
        (Value::String(x), Value::String(y)) => {
            if x == y {
                return;
            }
            match mode {
                Mode::Fuzzy(t) => {
                    let s = similarity(x, y);
                    if s < t {
                        out.push(Failure {
                            path: here(),
                            kind: Kind::Fuzzy,
                            expected: Some(e.clone()),
                            actual: Some(a.clone()),
                            message: format!("similarity {s:.2} is below the threshold {t} (Sørensen–Dice, lexical)"),
                        });
                    }
                }
                _ => out.push(Failure {
                    path: here(),
                    kind: Kind::Value,
                    expected: Some(e.clone()),
                    actual: Some(a.clone()),
                    message: format!("expected {}, got {}", short(e, 80), short(a, 80)),
                }),
            }
        }
        (Value::Number(x), Value::Number(y)) => {
            if !numbers_equal(x, y) {
                out.push(Failure {
                    path: here(),
                    kind: Kind::Value,
                    expected: Some(e.clone()),
                    actual: Some(a.clone()),
                    message: format!("expected {x}, got {y}"),
                });
            }
        }
        (Value::Bool(x), Value::Bool(y)) => {
            if x != y {
                out.push(Failure {
                    path: here(),
                    kind: Kind::Value,
                    expected: Some(e.clone()),
                    actual: Some(a.clone()),
                    message: format!("expected {x}, got {y}"),
                });
            }
        }
        (Value::Null, Value::Null) => {}
        _ => out.push(Failure {
            path: here(),
            kind: Kind::Type,
            expected: Some(e.clone()),
            actual: Some(a.clone()),
            message: format!("expected {}, got {}", typed(e), typed(a)),
        }),
    }
}

/// Largest product of lengths aligned on their longest common subsequence;
/// longer arrays are compared position by position.
const ALIGN_LIMIT: usize = 250_000;

/// A field or item on one side only, at `path` (unless ignored there):
/// `Missing` carries the golden value as expected, `Unexpected` the output's
/// as actual.
fn lone(c: &Compiled, path: &[String], kind: Kind, value: &Value, message: String, out: &mut Vec<Failure>) {
    if c.mode(path) == Mode::Ignore {
        return;
    }
    let (expected, actual) = match kind {
        Kind::Missing => (Some(value.clone()), None),
        _ => (None, Some(value.clone())),
    };
    out.push(Failure { path: pointer(path), kind, expected, actual, message });
}

fn arrays(c: &Compiled, x: &[Value], y: &[Value], path: &mut Vec<String>, out: &mut Vec<Failure>) {
    if x.len() == y.len() {
        for (i, (ve, va)) in x.iter().zip(y).enumerate() {
            path.push(i.to_string());
            walk(c, ve, va, path, out);
            path.pop();
        }
        return;
    }
    let items = |n: usize| Value::String(format!("[{n} item{}]", if n == 1 { "" } else { "s" }));
    out.push(Failure {
        path: pointer(path),
        kind: Kind::Length,
        expected: Some(items(x.len())),
        actual: Some(items(y.len())),
        message: format!(
            "the array has {} item{}, the golden output {}",
            y.len(),
            if y.len() == 1 { "" } else { "s" },
            x.len()
        ),
    });
    // Pairs (i, j) of items kept in order; the rest were removed or added.
    let pairs = if x.len().saturating_mul(y.len()) <= ALIGN_LIMIT { lcs(c, x, y, path) } else { Vec::new() };
    let mut i = 0;
    let mut j = 0;
    for (pi, pj) in pairs.into_iter().chain(std::iter::once((x.len(), y.len()))) {
        // The gap before the pair: compare position by position, then the rest.
        let n = (pi - i).min(pj - j);
        for k in 0..n {
            path.push((j + k).to_string());
            walk(c, &x[i + k], &y[j + k], path, out);
            path.pop();
        }
        for (k, ve) in x.iter().enumerate().take(pi).skip(i + n) {
            path.push(k.to_string());
            let message = format!("item {k} of the golden output is missing: {}", short(ve, 80));
            lone(c, path, Kind::Missing, ve, message, out);
            path.pop();
        }
        for (k, va) in y.iter().enumerate().take(pj).skip(j + n) {
            path.push(k.to_string());
            lone(c, path, Kind::Unexpected, va, format!("item {k} was added: {}", short(va, 80)), out);
            path.pop();
        }
        if pi == x.len() {
            break;
        }
        i = pi + 1;
        j = pj + 1;
    }
}

/// The longest common subsequence of items equal under the rules.
fn lcs(c: &Compiled, x: &[Value], y: &[Value], path: &mut Vec<String>) -> Vec<(usize, usize)> {
    let (n, m) = (x.len(), y.len());
    let mut eq = vec![false; n * m];
    for i in 0..n {
        for j in 0..m {
            path.push(j.to_string());
            eq[i * m + j] = equal(c, &x[i], &y[j], path);
            path.pop();
        }
    }
    // len[i][j] = LCS of x[i..], y[j..].
    let mut len = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[i * (m + 1) + j] = if eq[i * m + j] {
                len[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                len[(i + 1) * (m + 1) + j].max(len[i * (m + 1) + j + 1])
            };
        }
    }
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if eq[i * m + j] {
            pairs.push((i, j));
            i += 1;
            j += 1;
        } else if len[(i + 1) * (m + 1) + j] >= len[i * (m + 1) + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    pairs
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

/// Lowercased words of letters and digits (any script), everything else a
/// separator.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut w = String::new();
    for ch in s.chars().flat_map(char::to_lowercase) {
        if ch.is_alphanumeric() {
            w.push(ch);
        } else if !w.is_empty() {
            out.push(std::mem::take(&mut w));
        }
    }
    if !w.is_empty() {
        out.push(w);
    }
    out
}

fn dice<T: Ord + Clone>(mut a: Vec<T>, mut b: Vec<T>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    a.sort();
    b.sort();
    // Multiset intersection of two sorted lists.
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * common as f64 / (a.len() + b.len()) as f64
}

/// The lexical similarity of two texts, 0..=1: the larger of two
/// Sørensen–Dice coefficients, `2·|A∩B| / (|A|+|B|)`, computed after
/// lowercasing and turning every character that is not a letter or digit
/// into a word break:
///
/// - over the **sets of words** (reworded sentences keep their nouns,
///   names and numbers);
/// - over the **multisets of character trigrams** of the words joined by
///   one space, with a space before and after (catches inflections —
///   "comply"/"complies" — and texts without spaces, such as Chinese).
///
/// No model, no stemming, no stop words: the same two texts give the same
/// figure everywhere. Identical texts after normalisation give 1; two
/// empty texts give 1; one empty text gives 0. A sentence reworded with the
/// same facts measures about 0.6–0.8; unrelated sentences about 0.1–0.3
/// (see the tests).
pub fn similarity(a: &str, b: &str) -> f64 {
    let wa = words(a);
    let wb = words(b);
    if wa == wb {
        return 1.0;
    }
    let set = |w: &[String]| {
        let mut v = w.to_vec();
        v.sort();
        v.dedup();
        v
    };
    let by_words = dice(set(&wa), set(&wb));
    let grams = |w: &[String]| -> Vec<[char; 3]> {
        let chars: Vec<char> = std::iter::once(' ').chain(w.join(" ").chars()).chain(std::iter::once(' ')).collect();
        chars.windows(3).map(|t| [t[0], t[1], t[2]]).collect()
    };
    let by_grams = dice(grams(&wa), grams(&wb));
    by_words.max(by_grams)
}

#[cfg(test)]
mod tests;
