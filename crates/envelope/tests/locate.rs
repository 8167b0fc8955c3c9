//! The position-tracking scanner agrees with serde_json: for any JSON value,
//! written pretty or minified (or with escapes everywhere, or after a BOM),
//! every JSON pointer of the value resolves to a span that parses back to the
//! value at that pointer; and no bytes make it panic.

use envelope::locate::{escape_token, SourceMap};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        "\\PC{0,8}".prop_map(Value::from),
        prop_oneof![Just("a/b~c"), Just("\"q\"\\"), Just("é👍\u{2028}"), Just("\n\t")].prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
            prop::collection::vec(("\\PC{0,5}|0|12|a/b|~", inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    out.push(at.clone());
    match v {
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| pointers(x, format!("{at}/{i}"), out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| pointers(x, format!("{at}/{}", escape_token(k)), out)),
        _ => {}
    }
}

/// Every character escaped as `\uXXXX` inside strings (keys too).
fn escape_all(text: &str) -> String {
    let v: Value = serde_json::from_str(text).unwrap();
    fn esc(s: &str) -> String {
        let mut out = String::from("\"");
        for u in s.encode_utf16() {
            out.push_str(&format!("\\u{u:04x}"));
        }
        out.push('"');
        out
    }
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => out.push_str(&esc(s)),
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(x, out);
                }
                out.push(']');
            }
            Value::Object(o) => {
                out.push_str("{ ");
                for (i, (k, x)) in o.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" ,\n");
                    }
                    out.push_str(&esc(k));
                    out.push_str(" :\r\n\t");
                    write(x, out);
                }
                out.push_str(" }");
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(&v, &mut out);
    out
}

fn check(text: &str, value: &Value) {
    let map = SourceMap::new(text);
    assert!(map.is_json(), "{text}");
    let mut ps = Vec::new();
    pointers(value, String::new(), &mut ps);
    for p in ps {
        let f = map.find_pointer(&p).unwrap_or_else(|| panic!("{p} in {text}"));
        assert!(f.exact, "{p} not found in {text}");
        let got: Value = serde_json::from_str(&text[f.value.clone()]).unwrap();
        assert_eq!(&got, value.pointer(&p).unwrap(), "{p} in {text}");
        if let Some(k) = f.key {
            let key: String = serde_json::from_str(&text[k]).unwrap();
            assert_eq!(escape_token(&key), p.rsplit('/').next().unwrap());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn spans_agree_with_serde(v in arb_json()) {
        // Duplicate keys collapse in `v`; the texts are written from it.
        let compact = serde_json::to_string(&v).unwrap();
        check(&compact, &v);
        check(&serde_json::to_string_pretty(&v).unwrap(), &v);
        check(&format!("\u{feff} \n{compact}\n"), &v);
        check(&escape_all(&compact), &v);
    }

    #[test]
    fn any_bytes_scan_without_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes);
        let map = SourceMap::new(&text);
        // The scanner runs on text serde_json accepted; it may accept more.
        if serde_json::from_str::<Value>(&text).is_ok() {
            prop_assert!(map.is_json());
        }
        for p in ["", "/0", "/a/b", "/~1/1"] {
            let _ = map.find_pointer(p);
        }
    }
}
