//! Arguments and values, Python style: positional and keyword arguments
//! bound to names, the type names Python's messages use, iteration and
//! ordering.

use minijinja::value::{Kwargs, Value, ValueKind};
use minijinja::Error;

use super::errors::err;

/// Binds positional and keyword arguments to `names` (after the value).
pub(super) fn bind(
    filter: &str,
    positional: &[Value],
    kwargs: &Kwargs,
    names: &[&str],
) -> Result<Vec<Option<Value>>, Error> {
    let mut out: Vec<Option<Value>> = vec![None; names.len()];
    if positional.len() > names.len() {
        return Err(err(
            "TypeError",
            format!("{filter}() takes at most {} arguments ({} given)", names.len() + 1, positional.len() + 1),
        ));
    }
    for (slot, v) in out.iter_mut().zip(positional) {
        *slot = Some(v.clone());
    }
    for name in kwargs.args() {
        let Some(idx) = names.iter().position(|n| *n == name) else {
            return Err(err("TypeError", format!("{filter}() got an unexpected keyword argument '{name}'")));
        };
        if out[idx].is_some() {
            return Err(err("TypeError", format!("{filter}() got multiple values for argument '{name}'")));
        }
        out[idx] = Some(kwargs.get::<Value>(name)?);
    }
    Ok(out)
}

/// [`bind`] for raw call arguments (a trailing keyword-arguments value).
pub(super) fn bind_raw(filter: &str, args: &[Value], names: &[&str]) -> Result<Vec<Option<Value>>, Error> {
    match args.last() {
        Some(last) if last.is_kwargs() => {
            let kw = Kwargs::try_from(last.clone())?;
            bind(filter, &args[..args.len() - 1], &kw, names)
        }
        _ => bind(filter, args, &Kwargs::from_iter(std::iter::empty::<(&str, Value)>()), names),
    }
}

pub(super) fn opt_int(v: &Option<Value>, default: i64) -> Result<i64, Error> {
    match v {
        None => Ok(default),
        Some(v) if v.kind() == ValueKind::Bool => Ok(i64::from(v.is_true())),
        Some(v) if v.is_integer() => i64::try_from(v.clone()).map_err(|_| err("OverflowError", "int too large")),
        Some(v) => Err(err("TypeError", format!("'{}' object cannot be interpreted as an integer", kind_name(v)))),
    }
}

pub(super) fn opt_bool(v: &Option<Value>, default: bool) -> bool {
    v.as_ref().map(Value::is_true).unwrap_or(default)
}

pub(super) fn kind_name(v: &Value) -> &'static str {
    match v.kind() {
        ValueKind::Undefined => "Undefined",
        ValueKind::None => "NoneType",
        ValueKind::Bool => "bool",
        ValueKind::Number if v.is_integer() => "int",
        ValueKind::Number => "float",
        ValueKind::String => "str",
        ValueKind::Bytes => "bytes",
        ValueKind::Seq if v.is_tuple() => "tuple",
        ValueKind::Seq => "list",
        ValueKind::Map => "dict",
        _ => "object",
    }
}

pub(super) fn items_of(v: &Value) -> Result<Vec<Value>, Error> {
    if v.is_undefined() {
        return Ok(Vec::new());
    }
    match v.kind() {
        ValueKind::String => Ok(v.as_str().unwrap_or_default().chars().map(|c| Value::from(c.to_string())).collect()),
        ValueKind::Seq | ValueKind::Iterable | ValueKind::Map => Ok(v.try_iter()?.collect()),
        _ => Err(err("TypeError", format!("'{}' object is not iterable", kind_name(v)))),
    }
}

pub(super) fn str_arg(v: &Option<Value>, what: &str) -> Result<Option<String>, Error> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => match v.as_str() {
            Some(s) => Ok(Some(s.to_string())),
            None => Err(err("TypeError", format!("{what} must be str or None, not {}", kind_name(v)))),
        },
    }
}

/// Python's ordering for sorting: numbers by value, strings by code point,
/// sequences element-wise; other mixes raise `TypeError`.
pub(super) fn py_cmp(a: &Value, b: &Value) -> Result<std::cmp::Ordering, Error> {
    use std::cmp::Ordering;
    let num = |v: &Value| match v.kind() {
        ValueKind::Bool => Some(f64::from(u8::from(v.is_true()))),
        ValueKind::Number => f64::try_from(v.clone()).ok(),
        _ => None,
    };
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        if a.is_integer() && b.is_integer() {
            if let (Ok(x), Ok(y)) = (i128::try_from(a.clone()), i128::try_from(b.clone())) {
                return Ok(x.cmp(&y));
            }
        }
        return Ok(x.partial_cmp(&y).unwrap_or(Ordering::Equal));
    }
    match (a.kind(), b.kind()) {
        (ValueKind::String, ValueKind::String) => {
            Ok(a.as_str().unwrap_or_default().cmp(b.as_str().unwrap_or_default()))
        }
        (ValueKind::Seq, ValueKind::Seq) => {
            let (x, y): (Vec<Value>, Vec<Value>) = (a.try_iter()?.collect(), b.try_iter()?.collect());
            for (p, q) in x.iter().zip(&y) {
                let o = py_cmp(p, q)?;
                if o != Ordering::Equal {
                    return Ok(o);
                }
            }
            Ok(x.len().cmp(&y.len()))
        }
        _ => Err(err(
            "TypeError",
            format!("'<' not supported between instances of '{}' and '{}'", kind_name(b), kind_name(a)),
        )),
    }
}
