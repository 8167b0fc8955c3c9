//! The functions `~` and `%` are rewritten to (`super::rewrite`), with
//! Python's semantics.

use minijinja::value::{Value, ValueKind};

use super::args::kind_name;
use super::errors::{err, py_err, undefined_err, FResult};
use crate::promptpoet::pyfmt::{self, py_str, PercentArgs};

/// `a ~ b`: `str(a) + str(b)` (an undefined side prints as nothing).
pub(super) fn op_concat(a: Value, b: Value) -> Value {
    let mut s = py_str(&a);
    s.push_str(&py_str(&b));
    Value::from(s)
}

/// `a % b`: printf formatting when `a` is a string, Python's modulo otherwise.
pub(super) fn op_mod(a: Value, b: Value) -> FResult {
    if a.is_undefined() {
        return Err(undefined_err(&a));
    }
    if let Some(s) = a.as_str() {
        let args = if b.is_tuple() {
            PercentArgs::Tuple(b.try_iter()?.collect())
        } else if b.kind() == ValueKind::Map
            && b.as_object().is_some_and(|o| matches!(o.repr(), minijinja::value::ObjectRepr::Map))
        {
            PercentArgs::Mapping(&b)
        } else {
            PercentArgs::Single(&b)
        };
        return pyfmt::percent_format(s, args).map(Value::from).map_err(py_err);
    }
    if b.is_undefined() {
        return Err(undefined_err(&b));
    }
    let num = |v: &Value| matches!(v.kind(), ValueKind::Number | ValueKind::Bool);
    if !num(&a) || !num(&b) {
        return Err(err(
            "TypeError",
            format!("unsupported operand type(s) for %: '{}' and '{}'", kind_name(&a), kind_name(&b)),
        ));
    }
    let int = |v: &Value| {
        if v.kind() == ValueKind::Bool {
            Some(i128::from(v.is_true()))
        } else if v.is_integer() {
            i128::try_from(v.clone()).ok()
        } else {
            None
        }
    };
    if let (Some(x), Some(y)) = (int(&a), int(&b)) {
        if y == 0 {
            return Err(err("ZeroDivisionError", "integer modulo by zero"));
        }
        return Ok(Value::from(x.rem_euclid(y) + if y < 0 && x.rem_euclid(y) != 0 { y } else { 0 }));
    }
    let x = f64::try_from(a.clone()).unwrap_or(f64::NAN);
    let y = f64::try_from(b.clone()).unwrap_or(f64::NAN);
    if y == 0.0 {
        return Err(err("ZeroDivisionError", "float modulo"));
    }
    let mut m = x % y;
    if m != 0.0 {
        if (y < 0.0) != (m < 0.0) {
            m += y;
        }
    } else {
        m = 0.0f64.copysign(y);
    }
    Ok(Value::from(m))
}
