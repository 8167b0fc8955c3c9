//! Python 3.11's ways of turning values into text: `str()`, `repr()`,
//! `float.__repr__`, printf-style `%` formatting, `round()`, and the
//! character classes (`isspace`, `isprintable`, `unicodedata.category`) that
//! prompt-poet's output depends on.

use minijinja::value::{Value, ValueKind};

use super::tables::{CATEGORY_C, NOT_PRINTABLE, WHITESPACE};

fn in_ranges(table: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// `ch.isspace()` in Python 3.11 (adds U+001C–U+001F to Rust's white space).
pub fn is_py_space(c: char) -> bool {
    if c.is_ascii() {
        return matches!(c, '\t'..='\r' | '\x1c'..='\x20');
    }
    in_ranges(WHITESPACE, c)
}

/// `unicodedata.category(ch)[0] == "C"` in Python 3.11 (Unicode 14).
pub fn is_category_c(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    in_ranges(CATEGORY_C, c)
}

/// `ch.isprintable()` in Python 3.11.
pub fn is_printable(c: char) -> bool {
    if c.is_ascii() {
        return !c.is_ascii_control();
    }
    !in_ranges(NOT_PRINTABLE, c)
}

/// `str.strip()` with no argument.
pub fn py_strip(s: &str) -> &str {
    s.trim_matches(is_py_space)
}

/// `float.__repr__` (and `str()`): the shortest text that reads back as the
/// same float; plain notation for exponents -4 ≤ e < 16, else `1e+16` style.
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    // Rust's `{:e}` is the shortest round-trip digits: "1.2345e-7".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').expect("exponent");
    let exp: i32 = exp.parse().expect("exponent digits");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let sign = if f < 0.0 { "-" } else { "" };
    let decpt = exp + 1; // digits d1 d2 … with the point after `decpt` of them
    if (-3..=16).contains(&decpt) {
        let n = digits.len() as i32;
        let body = if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if decpt >= n {
            format!("{}{}.0", digits, "0".repeat((decpt - n) as usize))
        } else {
            format!("{}.{}", &digits[..decpt as usize], &digits[decpt as usize..])
        };
        format!("{sign}{body}")
    } else {
        let mant = if digits.len() == 1 { digits.clone() } else { format!("{}.{}", &digits[..1], &digits[1..]) };
        let e = decpt - 1;
        format!("{sign}{mant}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
    }
}

/// `repr(str)`: single quotes unless the text has `'` and no `"`; escapes
/// backslash, the quote, `\t \n \r`, and what `isprintable()` rejects.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if !is_printable(c) => {
                let n = c as u32;
                if n < 0x100 {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n < 0x10000 {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// `repr(bytes)`.
pub fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') { '"' } else { '\'' };
    let mut out = String::from("b");
    out.push(quote);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            c if c as char == quote => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(c as char),
            c => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push(quote);
    out
}

/// Depth past which nested values print as `...` (Python itself would stop
/// with a `RecursionError` near 1000; templates never get close).
const MAX_REPR_DEPTH: usize = 200;

/// Python's `str(value)` for a template value, as Jinja2 prints `{{ value }}`.
pub fn py_str(v: &Value) -> String {
    match v.kind() {
        ValueKind::Undefined => String::new(),
        ValueKind::String => v.as_str().unwrap_or_default().to_string(),
        _ => py_repr(v),
    }
}

/// Python's `repr(value)` for a template value.
pub fn py_repr(v: &Value) -> String {
    let mut out = String::new();
    write_repr(&mut out, v, 0);
    out
}

fn write_repr(out: &mut String, v: &Value, depth: usize) {
    if depth > MAX_REPR_DEPTH {
        out.push_str("...");
        return;
    }
    match v.kind() {
        ValueKind::Undefined => out.push_str("Undefined"),
        ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if v.is_true() { "True" } else { "False" }),
        ValueKind::Number => out.push_str(&number_str(v)),
        ValueKind::String => {
            let s = v.as_str().unwrap_or_default();
            if v.is_safe() {
                out.push_str("Markup(");
                out.push_str(&str_repr(s));
                out.push(')');
            } else {
                out.push_str(&str_repr(s));
            }
        }
        ValueKind::Bytes => out.push_str(&bytes_repr(v.as_bytes().unwrap_or_default())),
        ValueKind::Seq | ValueKind::Iterable => {
            let tuple = v.is_tuple();
            out.push(if tuple { '(' } else { '[' });
            let mut n = 0;
            if let Ok(items) = v.try_iter() {
                for item in items {
                    if n > 0 {
                        out.push_str(", ");
                    }
                    write_repr(out, &item, depth + 1);
                    n += 1;
                }
            }
            if tuple && n == 1 {
                out.push(',');
            }
            out.push(if tuple { ')' } else { ']' });
        }
        ValueKind::Map => {
            if v.as_object().is_some_and(|o| !matches!(o.repr(), minijinja::value::ObjectRepr::Map)) {
                // Namespaces, loops, macros: Python prints an object address.
                out.push_str(&v.to_string());
                return;
            }
            out.push('{');
            if let Ok(keys) = v.try_iter() {
                for (i, k) in keys.enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_repr(out, &k, depth + 1);
                    out.push_str(": ");
                    let value = v.get_item(&k).unwrap_or_default();
                    write_repr(out, &value, depth + 1);
                }
            }
            out.push('}');
        }
        _ => out.push_str(&v.to_string()),
    }
}

/// An integer or float value as Python prints it.
pub fn number_str(v: &Value) -> String {
    if v.is_integer() {
        if let Ok(n) = i128::try_from(v.clone()) {
            return n.to_string();
        }
        if let Ok(n) = u128::try_from(v.clone()) {
            return n.to_string();
        }
    }
    match f64::try_from(v.clone()) {
        Ok(f) => float_repr(f),
        Err(_) => v.to_string(),
    }
}

/// Python's `round(x, ndigits)` for a float: correctly rounded, ties to even
/// on the exact binary value (so `round(2.675, 2)` is 2.67).
pub fn round_float(x: f64, ndigits: i64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    if ndigits >= 0 {
        if ndigits > 330 {
            return x;
        }
        // Rust's fixed-precision formatting is exact and rounds ties to even.
        let s = format!("{:.*}", ndigits as usize, x);
        return s.parse().unwrap_or(x);
    }
    let k = (-ndigits) as usize;
    if k > 330 {
        return 0.0f64.copysign(x);
    }
    // Round the exact integer part at 10^k (floats this large, or with a
    // fraction, decide by their exact decimal digits).
    let int_text = format!("{:.0}", x.abs().trunc());
    let frac_nonzero = x.abs().fract() != 0.0;
    let digits = int_text.as_bytes();
    if digits.len() < k {
        // |x| < 10^k: 0 unless above half.
        let half_len = k;
        let above_half = digits.len() == half_len && digits[0] >= b'5';
        let _ = above_half;
        // Compare with 5·10^(k-1).
        let half = format!("5{}", "0".repeat(k - 1));
        let cmp = cmp_decimal(&int_text, &half);
        let up = cmp == std::cmp::Ordering::Greater || (cmp == std::cmp::Ordering::Equal && frac_nonzero);
        let r = if up { format!("1{}", "0".repeat(k)) } else { "0".into() };
        return r.parse::<f64>().unwrap_or(0.0).copysign(x);
    }
    let (head, tail) = int_text.split_at(digits.len() - k);
    let half = format!("5{}", "0".repeat(k - 1));
    let cmp = cmp_decimal(tail, &half);
    let last_odd = head.bytes().last().is_some_and(|d| (d - b'0') % 2 == 1);
    let up = match cmp {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => frac_nonzero || last_odd,
    };
    let mut head = if head.is_empty() { "0".to_string() } else { head.to_string() };
    if up {
        head = add_one(&head);
    }
    let r = format!("{head}{}", "0".repeat(k));
    r.parse::<f64>().unwrap_or(x).copysign(x)
}

fn cmp_decimal(a: &str, b: &str) -> std::cmp::Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn add_one(s: &str) -> String {
    let mut d: Vec<u8> = s.bytes().collect();
    let mut i = d.len();
    loop {
        if i == 0 {
            d.insert(0, b'1');
            break;
        }
        i -= 1;
        if d[i] == b'9' {
            d[i] = b'0';
        } else {
            d[i] += 1;
            break;
        }
    }
    String::from_utf8(d).unwrap_or_default()
}

// ---------------------------------------------------------------------------
// printf-style formatting: `"%s" % x` and the `format` filter
// ---------------------------------------------------------------------------

/// A Python exception raised while formatting, by class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PyError {
    pub class: &'static str,
    pub message: String,
}

impl PyError {
    pub fn new(class: &'static str, message: impl Into<String>) -> Self {
        PyError { class, message: message.into() }
    }
}

/// The right-hand side of `%`.
pub enum PercentArgs<'a> {
    /// A tuple (or the `format` filter's positional arguments).
    Tuple(Vec<Value>),
    /// A mapping, for `%(name)s`.
    Mapping(&'a Value),
    /// One value that is neither.
    Single(&'a Value),
}

fn type_name(v: &Value) -> &'static str {
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

/// Python's `fmt % args` (PyUnicode_Format).
pub fn percent_format(fmt: &str, args: PercentArgs<'_>) -> Result<String, PyError> {
    let (list, mapping): (Vec<Value>, Option<&Value>) = match args {
        PercentArgs::Tuple(v) => (v, None),
        PercentArgs::Mapping(m) => (vec![m.clone()], Some(m)),
        PercentArgs::Single(v) => (vec![v.clone()], None),
    };
    let single = list.len() == 1 && mapping.is_none();
    let _ = single;
    let mut next = 0usize;
    let mut used_mapping_key = false;
    let mut out = String::with_capacity(fmt.len());
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let take = |next: &mut usize| -> Result<Value, PyError> {
        let v = list
            .get(*next)
            .cloned()
            .ok_or_else(|| PyError::new("TypeError", "not enough arguments for format string"))?;
        *next += 1;
        Ok(v)
    };
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        if i >= chars.len() {
            return Err(PyError::new("ValueError", "incomplete format"));
        }
        // %(key)
        let mut keyed: Option<Value> = None;
        if chars[i] == '(' {
            let Some(m) = mapping else {
                return Err(PyError::new("TypeError", "format requires a mapping"));
            };
            let mut depth = 1;
            let start = i + 1;
            i += 1;
            while i < chars.len() && depth > 0 {
                match chars[i] {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                i += 1;
            }
            if depth > 0 {
                return Err(PyError::new("ValueError", "incomplete format key"));
            }
            let key: String = chars[start..i - 1].iter().collect();
            let v = m.get_item(&Value::from(key.clone())).unwrap_or_default();
            if v.is_undefined() {
                return Err(PyError::new("KeyError", str_repr(&key)));
            }
            keyed = Some(v);
            used_mapping_key = true;
        }
        // flags
        let (mut left, mut zero, mut plus, mut space, mut alt) = (false, false, false, false, false);
        while i < chars.len() {
            match chars[i] {
                '-' => left = true,
                '0' => zero = true,
                '+' => plus = true,
                ' ' => space = true,
                '#' => alt = true,
                _ => break,
            }
            i += 1;
        }
        // width
        let mut width: usize = 0;
        if i < chars.len() && chars[i] == '*' {
            let w = take(&mut next)?;
            let w = i64::try_from(w).map_err(|_| PyError::new("TypeError", "* wants int"))?;
            if w < 0 {
                left = true;
            }
            width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            while i < chars.len() && chars[i].is_ascii_digit() {
                width = width.saturating_mul(10).saturating_add(chars[i] as usize - '0' as usize);
                i += 1;
            }
        }
        // precision
        let mut precision: Option<usize> = None;
        if i < chars.len() && chars[i] == '.' {
            i += 1;
            if i < chars.len() && chars[i] == '*' {
                let p = take(&mut next)?;
                let p = i64::try_from(p).map_err(|_| PyError::new("TypeError", "* wants int"))?;
                precision = Some(p.max(0) as usize);
                i += 1;
            } else {
                let mut p = 0usize;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    p = p.saturating_mul(10).saturating_add(chars[i] as usize - '0' as usize);
                    i += 1;
                }
                precision = Some(p);
            }
        }
        if width > 100_000 || precision.is_some_and(|p| p > 100_000) {
            return Err(PyError::new("ValueError", "width or precision too big"));
        }
        // length modifier (ignored)
        while i < chars.len() && matches!(chars[i], 'h' | 'l' | 'L') {
            i += 1;
        }
        if i >= chars.len() {
            return Err(PyError::new("ValueError", "incomplete format"));
        }
        let conv = chars[i];
        i += 1;
        if conv == '%' {
            out.push('%');
            continue;
        }
        let arg = match keyed {
            Some(v) => v,
            None => take(&mut next)?,
        };
        let (sign_and_body, numeric): (String, bool) = match conv {
            's' => {
                let mut s = py_str(&arg);
                if let Some(p) = precision {
                    s = s.chars().take(p).collect();
                }
                (s, false)
            }
            'r' | 'a' => {
                let mut s = py_repr(&arg);
                if conv == 'a' {
                    s = ascii_escape(&s);
                }
                if let Some(p) = precision {
                    s = s.chars().take(p).collect();
                }
                (s, false)
            }
            'c' => {
                let s = match arg.kind() {
                    ValueKind::String => {
                        let s = arg.as_str().unwrap_or_default();
                        if s.chars().count() != 1 {
                            return Err(PyError::new("TypeError", "%c requires int or char"));
                        }
                        s.to_string()
                    }
                    ValueKind::Number | ValueKind::Bool if arg.is_integer() || arg.kind() == ValueKind::Bool => {
                        let n = i64::try_from(arg.clone()).unwrap_or(-1);
                        char::from_u32(u32::try_from(n).unwrap_or(u32::MAX))
                            .ok_or_else(|| PyError::new("OverflowError", "%c arg not in range(0x110000)"))?
                            .to_string()
                    }
                    _ => return Err(PyError::new("TypeError", "%c requires int or char")),
                };
                (s, false)
            }
            'd' | 'i' | 'u' | 'x' | 'X' | 'o' => {
                let n = int_arg(&arg, conv)?;
                let (neg, mag) = (n < 0, n.unsigned_abs());
                let mut body = match conv {
                    'x' => format!("{mag:x}"),
                    'X' => format!("{mag:X}"),
                    'o' => format!("{mag:o}"),
                    _ => mag.to_string(),
                };
                if let Some(p) = precision {
                    while body.len() < p {
                        body.insert(0, '0');
                    }
                }
                let prefix = match (alt, conv) {
                    (true, 'x') => "0x",
                    (true, 'X') => "0X",
                    (true, 'o') => "0o",
                    _ => "",
                };
                (sign_prefix(neg, plus, space) + prefix + &body, true)
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let f = float_arg(&arg, conv)?;
                let body = format_float(f.abs(), conv, precision.unwrap_or(6), alt);
                let neg = f.is_sign_negative() && !f.is_nan();
                (sign_prefix(neg, plus, space) + &body, true)
            }
            other => {
                return Err(PyError::new(
                    "ValueError",
                    format!("unsupported format character '{other}' (0x{:x}) at index {}", other as u32, i - 1),
                ))
            }
        };
        let len = sign_and_body.chars().count();
        if len >= width {
            out.push_str(&sign_and_body);
        } else if left {
            out.push_str(&sign_and_body);
            out.extend(std::iter::repeat_n(' ', width - len));
        } else if zero && numeric {
            // Zeros go after the sign and any 0x prefix.
            let body = sign_and_body.as_str();
            let mut split = 0;
            if body.starts_with(['-', '+', ' ']) {
                split = 1;
            }
            if body[split..].starts_with("0x") || body[split..].starts_with("0X") || body[split..].starts_with("0o") {
                split += 2;
            }
            let (head, tail) = body.split_at(split);
            out.push_str(head);
            out.extend(std::iter::repeat_n('0', width - len));
            out.push_str(tail);
        } else {
            out.extend(std::iter::repeat_n(' ', width - len));
            out.push_str(&sign_and_body);
        }
    }
    if mapping.is_none() && next < list.len() {
        return Err(PyError::new("TypeError", "not all arguments converted during string formatting"));
    }
    let _ = used_mapping_key;
    Ok(out)
}

fn sign_prefix(neg: bool, plus: bool, space: bool) -> String {
    if neg {
        "-".into()
    } else if plus {
        "+".into()
    } else if space {
        " ".into()
    } else {
        String::new()
    }
}

fn ascii_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let n = c as u32;
        if n < 0x80 {
            out.push(c);
        } else if n < 0x100 {
            out.push_str(&format!("\\x{n:02x}"));
        } else if n < 0x10000 {
            out.push_str(&format!("\\u{n:04x}"));
        } else {
            out.push_str(&format!("\\U{n:08x}"));
        }
    }
    out
}

fn int_arg(arg: &Value, conv: char) -> Result<i128, PyError> {
    match arg.kind() {
        ValueKind::Bool => Ok(i128::from(arg.is_true())),
        ValueKind::Number if arg.is_integer() => {
            i128::try_from(arg.clone()).map_err(|_| PyError::new("OverflowError", "int too large"))
        }
        ValueKind::Number if matches!(conv, 'd' | 'i' | 'u') => {
            let f = f64::try_from(arg.clone()).unwrap_or(f64::NAN);
            if f.is_nan() {
                return Err(PyError::new("ValueError", "cannot convert float NaN to integer"));
            }
            if f.is_infinite() {
                return Err(PyError::new("OverflowError", "cannot convert float infinity to integer"));
            }
            Ok(f.trunc() as i128)
        }
        ValueKind::Number => {
            Err(PyError::new("TypeError", format!("%{conv} format: an integer is required, not float")))
        }
        _ => Err(PyError::new(
            "TypeError",
            if matches!(conv, 'd' | 'i' | 'u') {
                format!("%{conv} format: a real number is required, not {}", type_name(arg))
            } else {
                format!("%{conv} format: an integer is required, not {}", type_name(arg))
            },
        )),
    }
}

fn float_arg(arg: &Value, _conv: char) -> Result<f64, PyError> {
    match arg.kind() {
        ValueKind::Bool => Ok(f64::from(u8::from(arg.is_true()))),
        ValueKind::Number => {
            f64::try_from(arg.clone()).map_err(|_| PyError::new("OverflowError", "int too large to convert to float"))
        }
        _ => Err(PyError::new("TypeError", format!("must be real number, not {}", type_name(arg)))),
    }
}

/// `%e %f %g` (and `E F G`) of a non-negative float, Python's rules.
pub fn format_float(f: f64, conv: char, precision: usize, alt: bool) -> String {
    let upper = conv.is_ascii_uppercase();
    if f.is_nan() {
        return if upper { "NAN".into() } else { "nan".into() };
    }
    if f.is_infinite() {
        return if upper { "INF".into() } else { "inf".into() };
    }
    let out = match conv.to_ascii_lowercase() {
        'f' => {
            let s = format!("{:.*}", precision, f);
            if alt && precision == 0 {
                s + "."
            } else {
                s
            }
        }
        'e' => exp_format(f, precision, alt),
        _ => {
            let p = precision.max(1);
            // The exponent the value has once rounded to p significant digits.
            let e = exp_of(f, p - 1);
            let s = if e < -4 || e >= p as i32 {
                exp_format(f, p - 1, alt)
            } else {
                format!("{:.*}", (p as i32 - 1 - e).max(0) as usize, f)
            };
            if alt {
                if s.contains(['.', 'e']) {
                    s
                } else {
                    s + "."
                }
            } else {
                strip_zeros(&s)
            }
        }
    };
    if upper {
        out.to_uppercase()
    } else {
        out
    }
}

fn exp_of(f: f64, precision: usize) -> i32 {
    if f == 0.0 {
        return 0;
    }
    let s = format!("{:.*e}", precision, f);
    s.split_once('e').and_then(|(_, e)| e.parse().ok()).unwrap_or(0)
}

fn exp_format(f: f64, precision: usize, alt: bool) -> String {
    let s = format!("{:.*e}", precision, f);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let m = if alt && precision == 0 { format!("{m}.") } else { m.to_string() };
    format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
}

fn strip_zeros(s: &str) -> String {
    let (m, e) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.') } else { m };
    format!("{m}{e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_fast_paths_agree_with_the_tables() {
        for c in (0u8..128).map(char::from) {
            assert_eq!(is_py_space(c), in_ranges(WHITESPACE, c), "{c:?}");
            assert_eq!(is_category_c(c), in_ranges(CATEGORY_C, c), "{c:?}");
            assert_eq!(is_printable(c), !in_ranges(NOT_PRINTABLE, c), "{c:?}");
        }
    }

    #[test]
    fn floats_print_like_python() {
        let cases = [
            (1e20, "1e+20"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.0 / 3.0, "0.3333333333333333"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (-0.0, "-0.0"),
            (2.0, "2.0"),
            (1.5e-7, "1.5e-07"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
        ];
        for (f, want) in cases {
            assert_eq!(float_repr(f), want);
        }
    }

    #[test]
    fn repr_of_strings() {
        assert_eq!(str_repr("it's"), "\"it's\"");
        assert_eq!(str_repr("say \"x\""), "'say \"x\"'");
        assert_eq!(str_repr("both ' \""), "'both \\' \"'");
        assert_eq!(str_repr("\u{e9}\u{200b}\u{7f}\t"), "'\u{e9}\\u200b\\x7f\\t'");
    }

    #[test]
    fn rounding() {
        assert_eq!(round_float(2.675, 2), 2.67);
        assert_eq!(round_float(2.5, 0), 2.0);
        assert_eq!(round_float(3.5, 0), 4.0);
        assert_eq!(round_float(1234.5678, -2), 1200.0);
        assert_eq!(round_float(1250.0, -2), 1200.0);
        assert_eq!(round_float(1350.0, -2), 1400.0);
        assert_eq!(round_float(1250.5, -2), 1300.0);
        assert_eq!(round_float(49.0, -2), 0.0);
        assert_eq!(round_float(51.0, -2), 100.0);
    }

    #[test]
    fn percent() {
        let f = |fmt: &str, args: Vec<Value>| percent_format(fmt, PercentArgs::Tuple(args)).unwrap();
        assert_eq!(f("%05.2f|%-6s|%+d", vec![2.345.into(), "ab".into(), 5.into()]), "02.35|ab    |+5");
        assert_eq!(
            f("%e|%g|%g|%g", vec![12345.678.into(), 0.00001234.into(), 100000.0.into(), 1e6.into()]),
            "1.234568e+04|1.234e-05|100000|1e+06"
        );
        assert_eq!(f("%x|%#x|%o|%c|%%", vec![255.into(), 255.into(), 8.into(), 65.into()]), "ff|0xff|10|A|%");
        assert!(percent_format("%s %s", PercentArgs::Tuple(vec![1.into()])).is_err());
        assert!(percent_format("%s", PercentArgs::Tuple(vec![1.into(), 2.into()])).is_err());
    }
}
