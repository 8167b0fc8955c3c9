//! Python string methods (`zfill`, `partition`, `split`, `format`, …) and
//! `list.index`: minijinja's unknown-method callback.

use minijinja::value::{Value, ValueKind};
use minijinja::{Error, State};

use super::args::{bind_raw, items_of, kind_name, opt_bool, opt_int, str_arg};
use super::errors::err;
use super::pystr::{
    char_index, char_slice_bounds, is_cased, py_capitalize, py_center, py_lower, py_replace, py_rsplit, py_split,
    py_splitlines, py_title_method, py_upper, strip_chars,
};
use crate::promptpoet::pyfmt::{self, is_py_space, py_repr, py_str};

fn string_method(state: &State, s: &str, method: &str, args: &[Value]) -> Result<Option<Value>, Error> {
    let strs = |v: Vec<String>| Value::from(v.into_iter().map(Value::from).collect::<Vec<_>>());
    let v = match method {
        "upper" => Value::from(py_upper(s)),
        "lower" | "casefold" => Value::from(py_lower(s)),
        "swapcase" => {
            Value::from(
                s.chars()
                    .map(|c| {
                        if c.is_uppercase() {
                            c.to_lowercase().collect::<String>()
                        } else {
                            c.to_uppercase().collect()
                        }
                    })
                    .collect::<String>(),
            )
        }
        "capitalize" => Value::from(py_capitalize(s)),
        "title" => Value::from(py_title_method(s)),
        "strip" | "lstrip" | "rstrip" => {
            let a = bind_raw(method, args, &["chars"])?;
            let chars = str_arg(&a[0], "strip arg")?;
            Value::from(strip_chars(s, chars.as_deref(), method != "rstrip", method != "lstrip"))
        }
        "zfill" => {
            let a = bind_raw(method, args, &["width"])?;
            let width = opt_int(&a[0], 0)?.max(0) as usize;
            let n = s.chars().count();
            if n >= width {
                Value::from(s)
            } else {
                let (sign, rest) = match s.chars().next() {
                    Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
                    _ => (String::new(), s),
                };
                Value::from(format!("{sign}{}{rest}", "0".repeat(width - n)))
            }
        }
        "center" | "ljust" | "rjust" => {
            let a = bind_raw(method, args, &["width", "fillchar"])?;
            let width = opt_int(&a[0], 0)?;
            let fill = match &a[1] {
                None => ' ',
                Some(f) => {
                    let f = f.as_str().unwrap_or_default();
                    let mut it = f.chars();
                    match (it.next(), it.next()) {
                        (Some(c), None) => c,
                        _ => return Err(err("TypeError", "The fill character must be exactly one character long")),
                    }
                }
            };
            let len = s.chars().count() as i64;
            let pad = (width - len).max(0) as usize;
            Value::from(match method {
                "center" => py_center(s, width, fill),
                "ljust" => format!("{s}{}", std::iter::repeat_n(fill, pad).collect::<String>()),
                _ => format!("{}{s}", std::iter::repeat_n(fill, pad).collect::<String>()),
            })
        }
        "partition" | "rpartition" => {
            let a = bind_raw(method, args, &["sep"])?;
            let sep = str_arg(&a[0], "sep")?.ok_or_else(|| err("TypeError", "must be str, not NoneType"))?;
            if sep.is_empty() {
                return Err(err("ValueError", "empty separator"));
            }
            let found = if method == "partition" { s.find(&sep) } else { s.rfind(&sep) };
            let parts: [String; 3] = match found {
                Some(i) => [s[..i].to_string(), sep.clone(), s[i + sep.len()..].to_string()],
                None if method == "partition" => [s.to_string(), String::new(), String::new()],
                None => [String::new(), String::new(), s.to_string()],
            };
            Value::from(minijinja::value::Tuple::from(parts.into_iter().map(Value::from).collect::<Vec<_>>()))
        }
        "split" | "rsplit" => {
            let a = bind_raw(method, args, &["sep", "maxsplit"])?;
            let sep = str_arg(&a[0], "sep")?;
            let max = opt_int(&a[1], -1)?;
            strs(if method == "split" { py_split(s, sep.as_deref(), max)? } else { py_rsplit(s, sep.as_deref(), max)? })
        }
        "splitlines" => {
            let a = bind_raw(method, args, &["keepends"])?;
            strs(py_splitlines(s, opt_bool(&a[0], false)))
        }
        "startswith" | "endswith" => {
            let a = bind_raw(method, args, &["prefix", "start", "end"])?;
            let (lo, hi) = char_slice_bounds(
                s,
                a[1].as_ref().map(|v| i64::try_from(v.clone()).unwrap_or(0)),
                a[2].as_ref().and_then(|v| i64::try_from(v.clone()).ok()),
            );
            let hay = &s[lo..hi];
            let cands: Vec<String> = match &a[0] {
                Some(v) if v.kind() == ValueKind::String => vec![v.as_str().unwrap_or_default().to_string()],
                Some(v) if v.is_tuple() => v.try_iter()?.map(|x| x.as_str().unwrap_or_default().to_string()).collect(),
                _ => {
                    return Err(err(
                        "TypeError",
                        format!(
                            "{method} first arg must be str or a tuple of str, not {}",
                            a[0].as_ref().map(kind_name).unwrap_or("NoneType")
                        ),
                    ))
                }
            };
            Value::from(cands.iter().any(|c| {
                if method == "startswith" {
                    hay.starts_with(c.as_str())
                } else {
                    hay.ends_with(c.as_str())
                }
            }))
        }
        "find" | "rfind" | "index" | "rindex" | "count" => {
            let a = bind_raw(method, args, &["sub", "start", "end"])?;
            let sub = str_arg(&a[0], "sub")?.ok_or_else(|| err("TypeError", "must be str, not NoneType"))?;
            let (lo, hi) = char_slice_bounds(
                s,
                a[1].as_ref().map(|v| i64::try_from(v.clone()).unwrap_or(0)),
                a[2].as_ref().and_then(|v| i64::try_from(v.clone()).ok()),
            );
            let hay = &s[lo..hi];
            if method == "count" {
                let n = if sub.is_empty() { hay.chars().count() + 1 } else { hay.matches(sub.as_str()).count() };
                Value::from(n)
            } else {
                let found = if method.starts_with('r') { hay.rfind(sub.as_str()) } else { hay.find(sub.as_str()) };
                match found {
                    Some(i) => Value::from(char_index(s, lo + i)),
                    None if method.ends_with("index") => return Err(err("ValueError", "substring not found")),
                    None => Value::from(-1),
                }
            }
        }
        "replace" => {
            let a = bind_raw(method, args, &["old", "new", "count"])?;
            let old = str_arg(&a[0], "replace() argument 1")?.unwrap_or_default();
            let new = str_arg(&a[1], "replace() argument 2")?.unwrap_or_default();
            let count = opt_int(&a[2], -1)?;
            Value::from(py_replace(s, &old, &new, count))
        }
        "removeprefix" => {
            let a = bind_raw(method, args, &["prefix"])?;
            let p = str_arg(&a[0], "prefix")?.unwrap_or_default();
            Value::from(s.strip_prefix(p.as_str()).unwrap_or(s))
        }
        "removesuffix" => {
            let a = bind_raw(method, args, &["suffix"])?;
            let p = str_arg(&a[0], "suffix")?.unwrap_or_default();
            Value::from(if p.is_empty() { s } else { s.strip_suffix(p.as_str()).unwrap_or(s) })
        }
        "join" => {
            let a = bind_raw(method, args, &["iterable"])?;
            let items = items_of(a[0].as_ref().unwrap_or(&Value::UNDEFINED))?;
            let mut parts = Vec::with_capacity(items.len());
            for (i, it) in items.iter().enumerate() {
                match it.as_str() {
                    Some(x) => parts.push(x.to_string()),
                    None => {
                        return Err(err(
                            "TypeError",
                            format!("sequence item {i}: expected str instance, {} found", kind_name(it)),
                        ))
                    }
                }
            }
            Value::from(parts.join(s))
        }
        "isdigit" | "isnumeric" | "isdecimal" => Value::from(!s.is_empty() && s.chars().all(|c| c.is_numeric())),
        "isalpha" => Value::from(!s.is_empty() && s.chars().all(char::is_alphabetic)),
        "isalnum" => Value::from(!s.is_empty() && s.chars().all(char::is_alphanumeric)),
        "isspace" => Value::from(!s.is_empty() && s.chars().all(is_py_space)),
        "isascii" => Value::from(s.is_ascii()),
        "islower" => Value::from(s.chars().any(is_cased) && !s.chars().any(|c| c.is_uppercase())),
        "isupper" => Value::from(s.chars().any(is_cased) && !s.chars().any(|c| c.is_lowercase())),
        "istitle" => {
            let mut prev_cased = false;
            let mut any = false;
            let mut ok = true;
            for c in s.chars() {
                if c.is_uppercase() || matches!(c, '\u{01C5}' | '\u{01C8}' | '\u{01CB}' | '\u{01F2}') {
                    if prev_cased {
                        ok = false;
                    }
                    prev_cased = true;
                    any = true;
                } else if c.is_lowercase() {
                    if !prev_cased {
                        ok = false;
                    }
                    prev_cased = true;
                    any = true;
                } else {
                    prev_cased = false;
                }
            }
            Value::from(ok && any)
        }
        "format" => Value::from(str_format(state, s, args)?),
        "expandtabs" => {
            let a = bind_raw(method, args, &["tabsize"])?;
            let size = opt_int(&a[0], 8)?.max(0) as usize;
            let mut out = String::new();
            let mut col = 0usize;
            for c in s.chars() {
                match c {
                    '\t' => {
                        if size > 0 {
                            let n = size - col % size;
                            out.extend(std::iter::repeat_n(' ', n));
                            col += n;
                        }
                    }
                    '\n' | '\r' => {
                        out.push(c);
                        col = 0;
                    }
                    c => {
                        out.push(c);
                        col += 1;
                    }
                }
            }
            Value::from(out)
        }
        _ => return Ok(None),
    };
    Ok(Some(v))
}

/// `str.format(*args, **kwargs)`: fields without a format spec print with
/// `str()`/`repr()`; fields with one go through minijinja's Python-compatible
/// `str.format` for that one value.
fn str_format(state: &State, fmt: &str, args: &[Value]) -> Result<String, Error> {
    let _ = state;
    let (positional, kwargs): (&[Value], Option<&Value>) = match args.last() {
        Some(l) if l.is_kwargs() => (&args[..args.len() - 1], Some(l)),
        _ => (args, None),
    };
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let mut auto = 0usize;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' {
            if chars.get(i + 1) == Some(&'{') {
                out.push('{');
                i += 2;
                continue;
            }
            let start = i + 1;
            let mut depth = 1;
            i += 1;
            while i < chars.len() && depth > 0 {
                match chars[i] {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            if depth > 0 {
                return Err(err("ValueError", "expected '}' before end of string"));
            }
            let field: String = chars[start..i - 1].iter().collect();
            let (name_conv, spec) = match field.find(':') {
                Some(p) => (&field[..p], Some(&field[p + 1..])),
                None => (field.as_str(), None),
            };
            let (name, conv) = match name_conv.find('!') {
                Some(p) => (&name_conv[..p], Some(&name_conv[p + 1..])),
                None => (name_conv, None),
            };
            // first part of the name, then .attr / [key]
            let split = name.find(['.', '[']).unwrap_or(name.len());
            let (head, mut rest) = name.split_at(split);
            let mut value = if head.is_empty() {
                let v = positional.get(auto).cloned().ok_or_else(|| {
                    err("IndexError", format!("Replacement index {auto} out of range for positional args tuple"))
                })?;
                auto += 1;
                v
            } else if let Ok(n) = head.parse::<usize>() {
                positional.get(n).cloned().ok_or_else(|| {
                    err("IndexError", format!("Replacement index {n} out of range for positional args tuple"))
                })?
            } else {
                let v = kwargs.map(|k| k.get_item(&Value::from(head)).unwrap_or_default()).unwrap_or_default();
                if v.is_undefined() {
                    return Err(err("KeyError", pyfmt::str_repr(head)));
                }
                v
            };
            while !rest.is_empty() {
                if let Some(r) = rest.strip_prefix('.') {
                    let end = r.find(['.', '[']).unwrap_or(r.len());
                    if matches!(
                        value.kind(),
                        ValueKind::Map
                            | ValueKind::Seq
                            | ValueKind::String
                            | ValueKind::Number
                            | ValueKind::None
                            | ValueKind::Bool
                    ) && value.as_object().is_none_or(|o| {
                        matches!(o.repr(), minijinja::value::ObjectRepr::Map | minijinja::value::ObjectRepr::Seq)
                    }) {
                        // Python's getattr: a dict's keys are not attributes.
                        return Err(err(
                            "AttributeError",
                            format!("'{}' object has no attribute '{}'", kind_name(&value), &r[..end]),
                        ));
                    }
                    value = value.get_attr(&r[..end]).unwrap_or_default();
                    rest = &r[end..];
                } else if let Some(r) = rest.strip_prefix('[') {
                    let end = r.find(']').ok_or_else(|| err("ValueError", "Missing ']' in format string"))?;
                    let key = &r[..end];
                    let k = key.parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::from(key));
                    value = value.get_item(&k).unwrap_or_default();
                    rest = &r[end + 1..];
                } else {
                    break;
                }
            }
            let text = match conv {
                Some("r") => Value::from(py_repr(&value)),
                Some("a") => Value::from(
                    py_repr(&value)
                        .chars()
                        .map(|c| if c.is_ascii() { c.to_string() } else { format!("\\u{:04x}", c as u32) })
                        .collect::<String>(),
                ),
                Some("s") => Value::from(py_str(&value)),
                Some(other) => return Err(err("ValueError", format!("Unknown conversion specifier {other}"))),
                None => value.clone(),
            };
            match spec {
                None | Some("") => out.push_str(&py_str(&text)),
                Some(spec) => {
                    let arg = if text.kind() == ValueKind::String || text.kind() == ValueKind::Number {
                        text
                    } else {
                        Value::from(py_str(&text))
                    };
                    out.push_str(&minijinja::formatting::format(
                        minijinja::formatting::FormatStyle::StrFormat,
                        &format!("{{:{spec}}}"),
                        &[arg],
                    )?);
                }
            }
            continue;
        }
        if c == '}' {
            if chars.get(i + 1) == Some(&'}') {
                out.push('}');
                i += 2;
                continue;
            }
            return Err(err("ValueError", "Single '}' encountered in format string"));
        }
        out.push(c);
        i += 1;
    }
    Ok(out)
}

pub(super) fn method_callback(state: &mut State, value: &Value, method: &str, args: &[Value]) -> Result<Value, Error> {
    if let Some(s) = value.as_str() {
        if let Some(v) = string_method(state, s, method, args)? {
            return Ok(v);
        }
    }
    if value.kind() == ValueKind::Seq && method == "index" {
        let a = bind_raw(method, args, &["value"])?;
        let target = a[0].clone().unwrap_or_default();
        for (i, it) in value.try_iter()?.enumerate() {
            if it == target {
                return Ok(Value::from(i));
            }
        }
        return Err(err("ValueError", format!("{} is not in list", py_repr(&target))));
    }
    minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
}
