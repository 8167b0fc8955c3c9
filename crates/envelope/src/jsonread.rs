//! Reading JSON text strictly: the same [`serde_json::Value`] that
//! `serde_json::from_str` builds (key order kept, numbers as written), plus
//! every key an object names twice, with its path.
//!
//! `serde_json::Value` keeps the last of two equal keys without a word, and
//! readers disagree on which one wins, so a `javascript:` URL can hide behind
//! a later `https:` one for some other reader of the same file. The envelope
//! reader rejects such documents (`duplicate-key`).
//!
//! Syntax errors are serde_json's own (with line and column), and so is the
//! nesting limit of 128 levels: the visitor below reads every nested value
//! through the same deserializer.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};

/// A key an object names a second (or later) time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    /// The path of the repeated key, as the envelope reader writes paths
    /// (`messages[3].segments[0].url`).
    pub path: String,
    pub key: String,
}

/// Reads JSON text into a value, listing the duplicate keys (the later of two
/// equal keys wins in the value, as in `serde_json` and JavaScript).
pub fn read(text: &str) -> Result<(Value, Vec<Duplicate>), serde_json::Error> {
    let mut duplicates = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let value = ValueSeed { path: &Path::ROOT, duplicates: &mut duplicates }.deserialize(&mut de)?;
    de.end()?;
    Ok((value, duplicates))
}

/// serde_json's private name for a number kept as written (feature
/// `arbitrary_precision`): such a number reaches a visitor as a map with this
/// one key and the number's text as its value.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// Where a value stands: a chain of keys and indices, kept on the stack and
/// only rendered when a duplicate is found.
struct Path<'p> {
    parent: Option<&'p Path<'p>>,
    step: Step<'p>,
}

enum Step<'p> {
    Root,
    Key(&'p str),
    Index(usize),
}

impl Path<'_> {
    const ROOT: Path<'static> = Path { parent: None, step: Step::Root };

    fn render(&self) -> String {
        let mut steps = Vec::new();
        let mut at = Some(self);
        while let Some(p) = at {
            steps.push(&p.step);
            at = p.parent;
        }
        let mut out = String::new();
        for step in steps.into_iter().rev() {
            match step {
                Step::Root => {}
                Step::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Step::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out
    }
}

struct ValueSeed<'p, 'd> {
    path: &'p Path<'p>,
    duplicates: &'d mut Vec<Duplicate>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_, '_> {
    type Value = Value;

    #[inline]
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    #[inline]
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    #[inline]
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    #[inline]
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    #[inline]
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    #[inline]
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    #[inline]
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    #[inline]
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    #[inline]
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        loop {
            let path = Path { parent: Some(self.path), step: Step::Index(out.len()) };
            match seq.next_element_seed(ValueSeed { path: &path, duplicates: &mut *self.duplicates })? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let Some(first) = access.next_key::<String>()? else { return Ok(Value::Object(Map::new())) };
        if first == NUMBER_TOKEN {
            let text: String = access.next_value()?;
            return text.parse::<Number>().map(Value::Number).map_err(de::Error::custom);
        }
        let mut map = Map::new();
        let mut key = first;
        loop {
            let entry = map.entry(key);
            let value = {
                let path = Path { parent: Some(self.path), step: Step::Key(entry_key(&entry)) };
                if matches!(entry, Entry::Occupied(_)) {
                    self.duplicates.push(Duplicate { path: path.render(), key: entry_key(&entry).to_string() });
                }
                access.next_value_seed(ValueSeed { path: &path, duplicates: &mut *self.duplicates })?
            };
            match entry {
                Entry::Occupied(mut o) => {
                    o.insert(value);
                }
                Entry::Vacant(v) => {
                    v.insert(value);
                }
            }
            match access.next_key::<String>()? {
                Some(k) => key = k,
                None => return Ok(Value::Object(map)),
            }
        }
    }
}

fn entry_key<'e>(entry: &'e Entry<'_>) -> &'e str {
    match entry {
        Entry::Occupied(o) => o.key(),
        Entry::Vacant(v) => v.key(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dups(text: &str) -> Vec<String> {
        read(text).unwrap().1.into_iter().map(|d| d.path).collect()
    }

    #[test]
    fn duplicates_are_found_at_any_depth_with_their_path() {
        assert_eq!(dups(r#"{"a":1,"a":2}"#), ["a"]);
        assert_eq!(
            dups(r#"{"messages":[{"id":"x"},{"segments":[{"url":"javascript:x","kind":"m","url":"https://x"}]}]}"#),
            ["messages[1].segments[0].url"]
        );
        assert_eq!(dups(r#"[{"k":{"z":1,"z":{"y":[],"y":0}}}]"#), ["[0].k.z", "[0].k.z.y"]);
        assert_eq!(dups(r#"{"a":1,"a":2,"a":3}"#), ["a", "a"]);
        assert!(dups(r#"{"a":{"b":1},"b":{"a":1}}"#).is_empty());
    }

    #[test]
    fn the_later_value_wins_in_place_as_in_serde_json() {
        let (v, _) = read(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(v.to_string(), r#"{"a":3,"b":2}"#);
        assert_eq!(v, serde_json::from_str::<Value>(r#"{"a":1,"b":2,"a":3}"#).unwrap());
    }

    #[test]
    fn numbers_are_kept_as_written() {
        let text = r#"{"n":[1.50,1e400,-0,18446744073709551616,-9223372036854775809,0.1,7]}"#;
        let (v, _) = read(text).unwrap();
        // (serde_json writes the exponent's sign; the digits stay.)
        assert_eq!(v.to_string(), r#"{"n":[1.50,1e+400,-0,18446744073709551616,-9223372036854775809,0.1,7]}"#);
        assert_eq!(v, serde_json::from_str::<Value>(text).unwrap());
    }

    #[test]
    fn errors_and_nesting_limit_are_serde_json_s() {
        for bad in ["", "{", r#"{"a":}"#, "[1,]", "{} x", "\"\\u00\"", "01", "[1e]", r#"{"a" 1}"#] {
            let mine = read(bad).unwrap_err();
            let theirs = serde_json::from_str::<Value>(bad).unwrap_err();
            assert_eq!(
                (mine.to_string(), mine.line(), mine.column()),
                (theirs.to_string(), theirs.line(), theirs.column())
            );
        }
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(read(&deep).unwrap_err().to_string(), serde_json::from_str::<Value>(&deep).unwrap_err().to_string());
        let ok = "[".repeat(127) + &"]".repeat(127);
        assert!(read(&ok).is_ok());
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            "-?(0|[1-9][0-9]{0,29})(\\.[0-9]{1,5})?([eE][-+]?[0-9]{1,3})?"
                .prop_map(|s| serde_json::from_str(&s).unwrap()),
            ".{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
                prop::collection::vec(("[a-c$]{0,3}", inner), 0..5)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    proptest! {
        /// Without duplicates the value is serde_json's, for any JSON.
        #[test]
        fn same_value_as_serde_json(v in arb_json(), pretty in any::<bool>()) {
            let text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { v.to_string() };
            let (mine, duplicates) = read(&text).unwrap();
            prop_assert!(duplicates.is_empty());
            prop_assert_eq!(&mine, &serde_json::from_str::<Value>(&text).unwrap());
            prop_assert_eq!(mine.to_string(), v.to_string());
        }

        /// Any text: the same value or the same error as serde_json.
        #[test]
        fn same_outcome_as_serde_json_on_any_text(text in "[\\[\\]{}\":,0-9a-z.eE+\\- \\\\]{0,40}") {
            match (read(&text), serde_json::from_str::<Value>(&text)) {
                (Ok((mine, _)), Ok(theirs)) => prop_assert_eq!(mine, theirs),
                (Err(a), Err(b)) => prop_assert_eq!((a.to_string(), a.line(), a.column()), (b.to_string(), b.line(), b.column())),
                (a, b) => prop_assert!(false, "{:?} vs {:?}", a.map(|x| x.0), b),
            }
        }
    }
}
