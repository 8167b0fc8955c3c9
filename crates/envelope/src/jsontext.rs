//! JSON text that is safe on a terminal and in JavaScript source: serde_json's
//! output, except that inside strings (and keys) every character
//! [`crate::term::is_unsafe`] names that serde_json writes raw — DEL, the C1
//! controls, U+2028/U+2029 and the bidi embeddings, overrides and isolates —
//! is written as a `\u` escape. serde_json already escapes the C0 controls.
//!
//! The result is the same JSON value (a `\u` escape and the raw character are
//! equal JSON), and byte for byte serde_json's text whenever no such character
//! occurs. `pep export` prints [`pretty`]; the app shows, copies and downloads
//! the same text (through `export::to_pretty`).

use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

/// Pretty JSON (two-space indent), no final newline.
pub fn pretty<T: Serialize + ?Sized>(value: &T) -> String {
    write(value, PrettyFormatter::with_indent(b"  "))
}

/// Compact JSON.
pub fn compact<T: Serialize + ?Sized>(value: &T) -> String {
    write(value, CompactFormatter)
}

fn write<T: Serialize + ?Sized, F: Formatter>(value: &T, formatter: F) -> String {
    let mut out = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Escaping(formatter));
    // Serialising a `Value` (or any map with string keys) cannot fail.
    if value.serialize(&mut ser).is_err() {
        return String::new();
    }
    // serde_json writes UTF-8; the escapes are ASCII.
    String::from_utf8(out).unwrap_or_default()
}

/// Whether serde_json writes `c` raw although a terminal or a JavaScript
/// parser must not see it raw.
fn needs_escape(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A formatter that escapes [`needs_escape`] characters in string fragments
/// and otherwise writes what the wrapped one writes.
struct Escaping<F>(F);

impl<F: Formatter> Formatter for Escaping<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let bytes = fragment.as_bytes();
        let (mut last, mut at) = (0, 0);
        while let Some(i) = crate::term::candidate(bytes, at) {
            let c = fragment[i..].chars().next().unwrap_or(' ');
            if needs_escape(c) {
                writer.write_all(&bytes[last..i])?;
                write!(writer, "\\u{:04x}", c as u32)?;
                last = i + c.len_utf8();
            }
            at = i + c.len_utf8();
        }
        writer.write_all(&bytes[last..])
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    #[test]
    fn unsafe_characters_in_strings_and_keys_are_escaped() {
        let v = json!({"k\u{9b}": ["\u{1b}]0;x\u{7}", "a\u{7f}b\u{85}c", "\u{2028}\u{2029}", "x\u{202e}y\u{2066}z\u{2069}"]});
        assert_eq!(
            compact(&v),
            r#"{"k\u009b":["\u001b]0;x\u0007","a\u007fb\u0085c","\u2028\u2029","x\u202ey\u2066z\u2069"]}"#
        );
        for text in [compact(&v), pretty(&v)] {
            assert!(!text.chars().any(|c| crate::term::is_unsafe(c) && c != '\n'), "{text:?}");
            assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v, "the same JSON value");
        }
    }

    #[test]
    fn numbers_stay_as_written() {
        let v: Value = serde_json::from_str(r#"{"a":1.50,"b":[1e400]}"#).unwrap();
        assert_eq!(compact(&v), v.to_string());
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            any::<String>().prop_map(Value::from),
            "[a\u{0}\u{1b}\u{7f}\u{80}\u{9b}\u{9f}\u{a0}\u{2028}\u{202e}\u{2069}\u{206a}é]{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 32, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
                prop::collection::vec(("[a\u{9b}\u{202e}]{0,3}", inner), 0..5)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Same value as serde_json's text; same bytes when nothing needs escaping.
        #[test]
        fn equal_json_and_identical_when_safe(v in arb_json()) {
            for (mine, theirs) in [(pretty(&v), serde_json::to_string_pretty(&v).unwrap()), (compact(&v), v.to_string())] {
                prop_assert_eq!(serde_json::from_str::<Value>(&mine).unwrap(), v.clone());
                prop_assert!(!mine.chars().any(|c| crate::term::is_unsafe(c) && c != '\n'));
                if !theirs.chars().any(needs_escape) {
                    prop_assert_eq!(mine, theirs);
                }
            }
        }
    }
}
