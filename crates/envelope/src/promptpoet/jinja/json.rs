//! `json.dumps` as Jinja2's `tojson` calls it.

use std::fmt::Write as _;

use minijinja::value::{Value, ValueKind};
use minijinja::Error;

use super::args::{kind_name, py_cmp};
use super::errors::err;
use crate::promptpoet::pyfmt;

/// `json.dumps(v, sort_keys=True, indent=…)` with `ensure_ascii=True`.
pub(super) fn json_dump(v: &Value, indent: Option<&str>, depth: usize, out: &mut String) -> Result<(), Error> {
    if depth > 200 {
        return Err(err("RecursionError", "maximum recursion depth exceeded"));
    }
    let nl = |out: &mut String, d: usize| {
        if let Some(ind) = indent {
            out.push('\n');
            for _ in 0..d {
                out.push_str(ind);
            }
        }
    };
    match v.kind() {
        ValueKind::None => out.push_str("null"),
        ValueKind::Bool => out.push_str(if v.is_true() { "true" } else { "false" }),
        ValueKind::Number => {
            if v.is_integer() {
                out.push_str(&pyfmt::number_str(v));
            } else {
                let f = f64::try_from(v.clone()).unwrap_or(f64::NAN);
                out.push_str(&if f.is_nan() {
                    "NaN".into()
                } else if f.is_infinite() {
                    if f > 0.0 { "Infinity" } else { "-Infinity" }.into()
                } else {
                    pyfmt::float_repr(f)
                });
            }
        }
        ValueKind::String => json_str(v.as_str().unwrap_or_default(), out),
        ValueKind::Seq | ValueKind::Iterable => {
            let items: Vec<Value> = v.try_iter()?.collect();
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    if indent.is_none() {
                        out.push(' ');
                    }
                }
                nl(out, depth + 1);
                json_dump(it, indent, depth + 1, out)?;
            }
            nl(out, depth);
            out.push(']');
        }
        ValueKind::Map => {
            let mut pairs: Vec<(String, Value, Value)> = Vec::new();
            for k in v.try_iter()? {
                let key = match k.kind() {
                    ValueKind::String => k.as_str().unwrap_or_default().to_string(),
                    ValueKind::Bool => if k.is_true() { "true" } else { "false" }.to_string(),
                    ValueKind::None => "null".to_string(),
                    ValueKind::Number => pyfmt::number_str(&k),
                    _ => {
                        return Err(err(
                            "TypeError",
                            format!("keys must be str, int, float, bool or None, not {}", kind_name(&k)),
                        ))
                    }
                };
                let val = v.get_item(&k).unwrap_or_default();
                pairs.push((key, k, val));
            }
            // sort_keys compares the original keys.
            let mut failure = None;
            pairs.sort_by(|a, b| match py_cmp(&a.1, &b.1) {
                Ok(o) => o,
                Err(e) => {
                    failure.get_or_insert(e);
                    std::cmp::Ordering::Equal
                }
            });
            if let Some(e) = failure {
                return Err(e);
            }
            if pairs.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            out.push('{');
            for (i, (k, _, val)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                    if indent.is_none() {
                        out.push(' ');
                    }
                }
                nl(out, depth + 1);
                json_str(k, out);
                out.push_str(": ");
                json_dump(val, indent, depth + 1, out)?;
            }
            nl(out, depth);
            out.push('}');
        }
        _ => return Err(err("TypeError", format!("Object of type {} is not JSON serializable", kind_name(v)))),
    }
    Ok(())
}

fn json_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
