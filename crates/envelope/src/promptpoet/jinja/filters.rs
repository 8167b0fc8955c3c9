//! The filters whose output differs from Jinja2's, Jinja2's filters
//! minijinja lacks, the ones pep does not reproduce, and the tests.

use minijinja::value::{Kwargs, Rest, Value, ValueKind};
use minijinja::Error;

use super::args::{bind, items_of, kind_name, opt_bool, opt_int, py_cmp, str_arg};
use super::errors::{err, py_err, FResult};
use super::json::json_dump;
use super::pystr::{
    is_cased, py_capitalize, py_center, py_lower, py_replace, py_split, py_splitlines, py_upper, strip_chars,
};
use crate::promptpoet::pyfmt::{self, is_py_space, py_repr, py_str, PercentArgs};

pub(super) fn f_string(value: Value) -> Value {
    if value.is_safe() {
        value
    } else {
        Value::from(py_str(&value))
    }
}

pub(super) fn f_upper(value: Value) -> Value {
    Value::from(py_upper(&py_str(&value)))
}

pub(super) fn f_lower(value: Value) -> Value {
    Value::from(py_lower(&py_str(&value)))
}

pub(super) fn f_capitalize(value: Value) -> Value {
    Value::from(py_capitalize(&py_str(&value)))
}

/// Jinja2's `title`: split on runs of `-`, white space and `({[<`; each piece
/// gets its first character upper-cased and the rest lower-cased.
pub(super) fn f_title(value: Value) -> Value {
    let s = py_str(&value);
    let is_sep = |c: char| c == '-' || is_py_space(c) || matches!(c, '(' | '{' | '[' | '<');
    let mut out = String::with_capacity(s.len());
    let mut piece = String::new();
    let mut in_sep: Option<bool> = None;
    let flush = |piece: &mut String, out: &mut String| {
        let mut it = piece.chars();
        if let Some(first) = it.next() {
            out.extend(first.to_uppercase());
            out.push_str(&py_lower(it.as_str()));
        }
        piece.clear();
    };
    for c in s.chars() {
        let sep = is_sep(c);
        if in_sep.is_some_and(|prev| prev != sep) {
            flush(&mut piece, &mut out);
        }
        piece.push(c);
        in_sep = Some(sep);
    }
    flush(&mut piece, &mut out);
    Value::from(out)
}

pub(super) fn f_trim(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("trim", args, &kwargs, &["chars"])?;
    let chars = str_arg(&a[0], "strip arg")?;
    Ok(Value::from(strip_chars(&py_str(&value), chars.as_deref(), true, true)))
}

pub(super) fn f_replace(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("replace", args, &kwargs, &["old", "new", "count"])?;
    let old =
        a[0].as_ref().map(py_str).ok_or_else(|| err("TypeError", "do_replace() missing required argument 'old'"))?;
    let new =
        a[1].as_ref().map(py_str).ok_or_else(|| err("TypeError", "do_replace() missing required argument 'new'"))?;
    let count = match &a[2] {
        None => -1,
        Some(v) if v.is_none() => -1,
        Some(v) => opt_int(&Some(v.clone()), -1)?,
    };
    Ok(Value::from(py_replace(&py_str(&value), &old, &new, count)))
}

/// Jinja2's `make_attrgetter`: dotted path, integer parts are indices.
fn get_path(item: &Value, path: &Value) -> Value {
    let Some(p) = path.as_str() else {
        return item.get_item(path).unwrap_or_default();
    };
    let mut v = item.clone();
    for part in p.split('.') {
        let key = part.parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::from(part));
        v = match v.get_item(&key) {
            Ok(x) if !x.is_undefined() => x,
            _ => v.get_attr(part).unwrap_or_default(),
        };
    }
    v
}

pub(super) fn f_join(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("join", args, &kwargs, &["d", "attribute"])?;
    let sep = a[0].as_ref().map(py_str).unwrap_or_default();
    let items = items_of(&value)?;
    let parts: Vec<String> = items
        .iter()
        .map(|it| match &a[1] {
            Some(attr) if !attr.is_none() => py_str(&get_path(it, attr)),
            _ => py_str(it),
        })
        .collect();
    Ok(Value::from(parts.join(&sep)))
}

pub(super) fn f_format(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let names: Vec<&str> = kwargs.args().collect();
    if !names.is_empty() {
        if !args.is_empty() {
            return Err(err("FilterArgumentError", "can't handle positional and keyword arguments at the same time"));
        }
        let map =
            Value::from_pairs(names.iter().map(|n| (Value::from(*n), kwargs.get::<Value>(n).unwrap_or_default())));
        return pyfmt::percent_format(&py_str(&value), PercentArgs::Mapping(&map)).map(Value::from).map_err(py_err);
    }
    pyfmt::percent_format(&py_str(&value), PercentArgs::Tuple(args.to_vec())).map(Value::from).map_err(py_err)
}

pub(super) fn f_round(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("round", args, &kwargs, &["precision", "method"])?;
    let precision = opt_int(&a[0], 0)?;
    let method = a[1].as_ref().map(py_str).unwrap_or_else(|| "common".into());
    if !matches!(method.as_str(), "common" | "ceil" | "floor") {
        return Err(err("FilterArgumentError", "method must be common, ceil or floor"));
    }
    let is_int = value.is_integer() || value.kind() == ValueKind::Bool;
    if !(value.kind() == ValueKind::Number || value.kind() == ValueKind::Bool) {
        return Err(err("TypeError", format!("type {} doesn't define __round__ method", kind_name(&value))));
    }
    if method == "common" {
        if is_int {
            let n = i128::try_from(value.clone()).unwrap_or(0);
            if precision >= 0 {
                return Ok(Value::from(n));
            }
            // round(int, -k): to a multiple of 10^k, ties to even.
            let p = 10i128.checked_pow((-precision) as u32);
            let Some(p) = p else { return Ok(Value::from(0)) };
            let q = n.div_euclid(p);
            let r = n.rem_euclid(p);
            let up = r * 2 > p || (r * 2 == p && q % 2 != 0);
            return Ok(Value::from((q + i128::from(up)) * p));
        }
        let f = f64::try_from(value).unwrap_or(f64::NAN);
        return Ok(Value::from(pyfmt::round_float(f, precision)));
    }
    let f = f64::try_from(value).unwrap_or(f64::NAN);
    let scale = 10f64.powi(precision as i32);
    let r = if method == "ceil" { (f * scale).ceil() } else { (f * scale).floor() };
    Ok(Value::from(r / scale))
}

pub(super) fn f_center(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("center", args, &kwargs, &["width"])?;
    Ok(Value::from(py_center(&py_str(&value), opt_int(&a[0], 80)?, ' ')))
}

pub(super) fn f_indent(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("indent", args, &kwargs, &["width", "first", "blank"])?;
    let indention = match &a[0] {
        Some(w) if w.kind() == ValueKind::String => w.as_str().unwrap_or_default().to_string(),
        other => " ".repeat(opt_int(other, 4)?.max(0) as usize),
    };
    let (first, blank) = (opt_bool(&a[1], false), opt_bool(&a[2], false));
    let s = py_str(&value) + "\n";
    let lines = py_splitlines(&s, false);
    let mut rv = if blank {
        lines.join(&format!("\n{indention}"))
    } else {
        let mut it = lines.into_iter();
        let mut rv = it.next().unwrap_or_default();
        let rest: Vec<String> = it.map(|l| if l.is_empty() { l } else { format!("{indention}{l}") }).collect();
        if !rest.is_empty() {
            rv.push('\n');
            rv.push_str(&rest.join("\n"));
        }
        rv
    };
    if first {
        rv = format!("{indention}{rv}");
    }
    Ok(if value.is_safe() { Value::from_safe_string(rv) } else { Value::from(rv) })
}

pub(super) fn f_truncate(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("truncate", args, &kwargs, &["length", "killwords", "end", "leeway"])?;
    let s = py_str(&value);
    let length = opt_int(&a[0], 255)?;
    let killwords = opt_bool(&a[1], false);
    let end = a[2].as_ref().map(py_str).unwrap_or_else(|| "...".into());
    let leeway = match &a[3] {
        None => 5,
        Some(v) if v.is_none() => 5,
        other => opt_int(other, 5)?,
    };
    let end_len = end.chars().count() as i64;
    if length < end_len {
        return Err(err("AssertionError", format!("expected length >= {end_len}, got {length}")));
    }
    if leeway < 0 {
        return Err(err("AssertionError", format!("expected leeway >= 0, got {leeway}")));
    }
    let n = s.chars().count() as i64;
    if n <= length + leeway {
        return Ok(Value::from(s));
    }
    let head: String = s.chars().take((length - end_len) as usize).collect();
    if killwords {
        return Ok(Value::from(head + &end));
    }
    let cut = match head.rfind(' ') {
        Some(i) => head[..i].to_string(),
        None => head,
    };
    Ok(Value::from(cut + &end))
}

pub(super) fn f_wordcount(value: Value) -> Value {
    let s = py_str(&value);
    let mut n = 0;
    let mut in_word = false;
    for c in s.chars() {
        let w = c.is_alphanumeric() || c == '_';
        if w && !in_word {
            n += 1;
        }
        in_word = w;
    }
    Value::from(n)
}

/// `textwrap.wrap(line, width, expand_tabs=False, replace_whitespace=False,
/// break_long_words, break_on_hyphens)` per paragraph, joined with `wrapstring`.
pub(super) fn f_wordwrap(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("wordwrap", args, &kwargs, &["width", "break_long_words", "wrapstring", "break_on_hyphens"])?;
    let width = opt_int(&a[0], 79)?;
    if width <= 0 {
        return Err(err("ValueError", format!("invalid width {width} (must be > 0)")));
    }
    let width = width as usize;
    let break_long = opt_bool(&a[1], true);
    let wrapstring = a[2].as_ref().filter(|v| !v.is_none()).map(py_str).unwrap_or_else(|| "\n".into());
    let hyphens = opt_bool(&a[3], true);
    let s = py_str(&value);
    let paragraphs: Vec<String> = py_splitlines(&s, false)
        .iter()
        .map(|line| wrap_line(line, width, break_long, hyphens).join(&wrapstring))
        .collect();
    Ok(Value::from(paragraphs.join(&wrapstring)))
}

/// A port of `TextWrapper._split` (white space runs and words; with
/// `break_on_hyphens`, words split after hyphens between letters) and
/// `_wrap_chunks`.
fn wrap_line(text: &str, width: usize, break_long: bool, hyphens: bool) -> Vec<String> {
    // textwrap's whitespace is ASCII '\t\n\x0b\x0c\r '.
    let ws = |c: char| matches!(c, '\t' | '\n' | '\x0b' | '\x0c' | '\r' | ' ');
    let mut chunks: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_ws: Option<bool> = None;
    for c in text.chars() {
        let w = ws(c);
        if cur_ws.is_some_and(|p| p != w) {
            chunks.push(std::mem::take(&mut cur));
        }
        cur.push(c);
        cur_ws = Some(w);
    }
    if !cur.is_empty() {
        chunks.push(cur);
    }
    if hyphens {
        let mut split = Vec::new();
        for ch in chunks {
            if ch.chars().next().is_some_and(ws) {
                split.push(ch);
                continue;
            }
            let cs: Vec<char> = ch.chars().collect();
            let mut start = 0;
            for i in 1..cs.len().saturating_sub(1) {
                if cs[i] == '-' && cs[i - 1].is_alphabetic() && cs[i + 1].is_alphabetic() {
                    split.push(cs[start..=i].iter().collect());
                    start = i + 1;
                }
            }
            split.push(cs[start..].iter().collect());
        }
        chunks = split;
    }
    let len = |s: &str| s.chars().count();
    let mut lines: Vec<String> = Vec::new();
    chunks.reverse();
    while !chunks.is_empty() {
        let mut cur_line: Vec<String> = Vec::new();
        let mut cur_len = 0usize;
        if !lines.is_empty() && chunks.last().is_some_and(|c| c.trim_matches(ws).is_empty()) {
            chunks.pop();
        }
        while let Some(last) = chunks.last() {
            let l = len(last);
            if cur_len + l <= width {
                cur_len += l;
                cur_line.push(chunks.pop().unwrap_or_default());
            } else {
                break;
            }
        }
        if let Some(last) = chunks.last() {
            if len(last) > width {
                // _handle_long_word
                let space_left = if width < 1 { 1 } else { width - cur_len };
                if break_long {
                    let last = chunks.pop().unwrap_or_default();
                    let cs: Vec<char> = last.chars().collect();
                    let mut end = space_left.min(cs.len());
                    if hyphens && cs.len() > space_left {
                        if let Some(h) = cs[..space_left].iter().rposition(|&c| c == '-') {
                            if h > 0 && cs[..h].iter().any(|&c| c != '-') {
                                end = h + 1;
                            }
                        }
                    }
                    cur_line.push(cs[..end].iter().collect());
                    chunks.push(cs[end..].iter().collect());
                } else if cur_line.is_empty() {
                    cur_line.push(chunks.pop().unwrap_or_default());
                }
            }
        }
        if cur_line.last().is_some_and(|c| c.trim_matches(ws).is_empty()) {
            cur_line.pop();
        }
        if !cur_line.is_empty() {
            lines.push(cur_line.concat());
        }
    }
    lines
}

pub(super) fn f_filesizeformat(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("filesizeformat", args, &kwargs, &["binary"])?;
    let binary = opt_bool(&a[0], false);
    let bytes = to_float(&value)
        .ok_or_else(|| err("ValueError", format!("could not convert string to float: {}", py_repr(&value))))?;
    let base = if binary { 1024.0 } else { 1000.0 };
    let prefixes = if binary {
        ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"]
    } else {
        ["kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"]
    };
    if bytes == 1.0 {
        return Ok(Value::from("1 Byte"));
    }
    if bytes < base {
        return Ok(Value::from(format!("{} Bytes", bytes.trunc() as i64)));
    }
    let mut unit = base;
    for (i, prefix) in prefixes.iter().enumerate() {
        unit = base.powi(i as i32 + 2);
        if bytes < unit {
            return Ok(Value::from(format!("{:.1} {prefix}", base * bytes / unit)));
        }
    }
    Ok(Value::from(format!("{:.1} {}", base * bytes / unit, prefixes[7])))
}

/// Python's `float(value)` for filters (`None` on failure).
fn to_float(v: &Value) -> Option<f64> {
    match v.kind() {
        ValueKind::Bool => Some(f64::from(u8::from(v.is_true()))),
        ValueKind::Number => f64::try_from(v.clone()).ok(),
        ValueKind::String => parse_py_float(v.as_str().unwrap_or_default()),
        _ => None,
    }
}

fn parse_py_float(s: &str) -> Option<f64> {
    let t = s.trim_matches(is_py_space);
    let body = t.strip_prefix(['+', '-']).unwrap_or(t);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity" | "nan") {
        return t.to_ascii_lowercase().replace("infinity", "inf").parse().ok();
    }
    // Underscores only between digits.
    let b = t.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'_' && !(i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            return None;
        }
    }
    let clean: String = t.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() || !clean.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')) {
        return None;
    }
    if !clean.bytes().any(|c| c.is_ascii_digit()) {
        return None;
    }
    clean.parse().ok()
}

/// Python's `int(text, base)`.
fn parse_py_int(s: &str, base: u32) -> Option<i128> {
    let t = s.trim_matches(is_py_space);
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let lower = body.to_ascii_lowercase();
    let (base, digits) = match (base, lower.get(..2)) {
        (16 | 0, Some("0x")) => (16, &body[2..]),
        (8 | 0, Some("0o")) => (8, &body[2..]),
        (2 | 0, Some("0b")) => (2, &body[2..]),
        (0, _) => (10, body),
        (b, _) => (b, body),
    };
    let digits = digits.strip_prefix('_').filter(|_| body.len() != digits.len()).unwrap_or(digits);
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    let n = i128::from_str_radix(&clean, base).ok()?;
    Some(if neg { -n } else { n })
}

pub(super) fn f_int(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("int", args, &kwargs, &["default", "base"])?;
    let default = a[0].clone().unwrap_or_else(|| Value::from(0));
    let base = opt_int(&a[1], 10)?;
    let out = match value.kind() {
        ValueKind::Bool => Some(i128::from(value.is_true())),
        ValueKind::Number if value.is_integer() => i128::try_from(value.clone()).ok(),
        ValueKind::Number => f64::try_from(value.clone()).ok().filter(|f| f.is_finite()).map(|f| f.trunc() as i128),
        ValueKind::String => {
            let s = value.as_str().unwrap_or_default();
            parse_py_int(s, u32::try_from(base).unwrap_or(10))
                .or_else(|| parse_py_float(s).filter(|f| f.is_finite()).map(|f| f.trunc() as i128))
        }
        _ => None,
    };
    Ok(out.map(Value::from).unwrap_or(default))
}

pub(super) fn f_float(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("float", args, &kwargs, &["default"])?;
    let default = a[0].clone().unwrap_or_else(|| Value::from(0.0));
    Ok(to_float(&value).map(Value::from).unwrap_or(default))
}

pub(super) fn f_default(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("default", args, &kwargs, &["default_value", "boolean"])?;
    let dflt = a[0].clone().unwrap_or_else(|| Value::from(""));
    if value.is_undefined() || (opt_bool(&a[1], false) && !value.is_true()) {
        Ok(dflt)
    } else {
        Ok(value)
    }
}

/// markupsafe's `escape`.
fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            c => out.push(c),
        }
    }
    out
}

pub(super) fn f_escape(value: Value) -> Value {
    if value.is_safe() {
        return value;
    }
    Value::from_safe_string(html_escape(&py_str(&value)))
}

pub(super) fn f_forceescape(value: Value) -> Value {
    Value::from_safe_string(html_escape(&py_str(&value)))
}

/// markupsafe's `Markup.striptags()`: comments, then tags, removed; white
/// space collapsed; entities unescaped.
pub(super) fn f_striptags(value: Value) -> Value {
    let mut s = py_str(&value);
    while let Some(start) = s.find("<!--") {
        let Some(end) = s[start..].find("-->").map(|e| start + e) else { break };
        s = format!("{}{}", &s[..start], &s[end + 3..]);
    }
    while let Some(start) = s.find('<') {
        let Some(end) = s[start..].find('>').map(|e| start + e) else { break };
        s = format!("{}{}", &s[..start], &s[end + 1..]);
    }
    let collapsed = py_split(&s, None, -1).unwrap_or_default().join(" ");
    Value::from_safe_string(html_unescape(&collapsed))
}

/// `html.unescape` for numeric references and the common named ones.
fn html_unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let end = rest.find(';').filter(|&e| e <= 32);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let ch = if let Some(num) = name.strip_prefix('#') {
                let n = match num.strip_prefix(['x', 'X']) {
                    Some(h) => u32::from_str_radix(h, 16).ok(),
                    None => num.parse().ok(),
                }?;
                char::from_u32(n).map(|c| c.to_string()).or(Some("\u{FFFD}".into()))
            } else {
                match name {
                    "amp" => Some("&".into()),
                    "lt" => Some("<".into()),
                    "gt" => Some(">".into()),
                    "quot" => Some("\"".into()),
                    "apos" => Some("'".into()),
                    "nbsp" => Some("\u{a0}".into()),
                    _ => None,
                }
            };
            ch.map(|c| (c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push_str(&c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn sort_key(v: &Value, case_sensitive: bool, attribute: &Option<Value>) -> Value {
    let v = match attribute {
        Some(a) if !a.is_none() => get_path(v, a),
        _ => v.clone(),
    };
    if !case_sensitive {
        if let Some(s) = v.as_str() {
            return Value::from(py_lower(s));
        }
    }
    v
}

fn sorted(items: Vec<Value>, keys: Vec<Value>, reverse: bool) -> Result<Vec<Value>, Error> {
    let mut idx: Vec<usize> = (0..items.len()).collect();
    let mut failure: Option<Error> = None;
    idx.sort_by(|&i, &j| {
        let o = match py_cmp(&keys[i], &keys[j]) {
            Ok(o) => o,
            Err(e) => {
                failure.get_or_insert(e);
                std::cmp::Ordering::Equal
            }
        };
        if reverse {
            o.reverse()
        } else {
            o
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    Ok(idx.into_iter().map(|i| items[i].clone()).collect())
}

pub(super) fn f_sort(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("sort", args, &kwargs, &["reverse", "case_sensitive", "attribute"])?;
    let items = items_of(&value)?;
    let keys = items.iter().map(|v| sort_key(v, opt_bool(&a[1], false), &a[2])).collect();
    Ok(Value::from(sorted(items, keys, opt_bool(&a[0], false))?))
}

pub(super) fn f_unique(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("unique", args, &kwargs, &["case_sensitive", "attribute"])?;
    let mut seen: Vec<Value> = Vec::new();
    let mut out = Vec::new();
    for it in items_of(&value)? {
        let k = sort_key(&it, opt_bool(&a[0], false), &a[1]);
        if !seen.contains(&k) {
            seen.push(k);
            out.push(it);
        }
    }
    Ok(Value::from(out))
}

fn min_max(value: Value, args: &[Value], kwargs: Kwargs, max: bool) -> FResult {
    let a = bind(if max { "max" } else { "min" }, args, &kwargs, &["case_sensitive", "attribute"])?;
    let items = items_of(&value)?;
    let mut best: Option<(Value, Value)> = None;
    for it in items {
        let k = sort_key(&it, opt_bool(&a[0], false), &a[1]);
        best = match best {
            None => Some((it, k)),
            Some((bv, bk)) => {
                let o = py_cmp(&k, &bk)?;
                let better = if max { o == std::cmp::Ordering::Greater } else { o == std::cmp::Ordering::Less };
                if better {
                    Some((it, k))
                } else {
                    Some((bv, bk))
                }
            }
        };
    }
    Ok(best.map(|b| b.0).unwrap_or(Value::UNDEFINED))
}

pub(super) fn f_min(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    min_max(value, args, kwargs, false)
}

pub(super) fn f_max(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    min_max(value, args, kwargs, true)
}

pub(super) fn f_dictsort(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("dictsort", args, &kwargs, &["case_sensitive", "by", "reverse"])?;
    if value.kind() != ValueKind::Map {
        return Err(err("AttributeError", format!("'{}' object has no attribute 'items'", kind_name(&value))));
    }
    let by = a[1].as_ref().map(py_str).unwrap_or_else(|| "key".into());
    let pos = match by.as_str() {
        "key" => 0,
        "value" => 1,
        _ => return Err(err("FilterArgumentError", "You can only sort by either \"key\" or \"value\"")),
    };
    let mut items = Vec::new();
    let mut keys = Vec::new();
    for k in value.try_iter()? {
        let v = value.get_item(&k).unwrap_or_default();
        let key = if pos == 0 { k.clone() } else { v.clone() };
        keys.push(sort_key(&key, opt_bool(&a[0], false), &None));
        items.push(Value::from(minijinja::value::Tuple::from(vec![k, v])));
    }
    Ok(Value::from(sorted(items, keys, opt_bool(&a[2], false))?))
}

pub(super) fn f_length(value: Value) -> FResult {
    if value.is_undefined() {
        return Ok(Value::from(0));
    }
    match value.kind() {
        ValueKind::String => Ok(Value::from(value.as_str().unwrap_or_default().chars().count())),
        _ => value
            .len()
            .map(Value::from)
            .ok_or_else(|| err("TypeError", format!("object of type '{}' has no len()", kind_name(&value)))),
    }
}

pub(super) fn f_pprint(value: Value) -> Value {
    Value::from(py_repr(&value))
}

pub(super) fn f_tojson(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("tojson", args, &kwargs, &["indent"])?;
    let indent = match &a[0] {
        None => None,
        Some(v) if v.is_none() => None,
        Some(v) if v.kind() == ValueKind::String => Some(v.as_str().unwrap_or_default().to_string()),
        other => Some(" ".repeat(opt_int(other, 0)?.max(0) as usize)),
    };
    let mut out = String::new();
    json_dump(&value, indent.as_deref(), 0, &mut out)?;
    let safe = out.replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026").replace('\'', "\\u0027");
    Ok(Value::from_safe_string(safe))
}

/// Python's `urllib.parse.quote_from_bytes` of the UTF-8 bytes: letters,
/// digits and `_.-~` kept, `/` kept unless `for_qs`, the rest `%XX`; with
/// `for_qs` `%20` becomes `+` (Jinja2's `url_quote`, `utils.py` 408–428).
fn url_quote(s: &str, for_qs: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'~') || (b == b'/' && !for_qs) {
            out.push(char::from(b));
        } else if b == b' ' && for_qs {
            out.push('+');
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Jinja2's `urlencode` (`filters.py` 147–175): a string (or anything not
/// iterable) is quoted with `/` kept; a dict, or an iterable of pairs,
/// becomes `k=v&…` quoted for a query string (values as `str()`).
pub(super) fn f_urlencode(value: Value) -> FResult {
    let iterable =
        value.is_undefined() || matches!(value.kind(), ValueKind::Seq | ValueKind::Iterable | ValueKind::Map);
    if value.kind() == ValueKind::String || !iterable {
        return Ok(Value::from(url_quote(&py_str(&value), false)));
    }
    let mut pairs = Vec::new();
    if value.kind() == ValueKind::Map {
        for k in value.try_iter()? {
            let v = value.get_item(&k)?;
            pairs.push((k, v));
        }
    } else {
        for item in items_of(&value)? {
            let parts = match item.kind() {
                ValueKind::String | ValueKind::Seq | ValueKind::Iterable | ValueKind::Map => items_of(&item)?,
                _ => return Err(err("TypeError", format!("cannot unpack non-iterable {} object", kind_name(&item)))),
            };
            match parts.len() {
                2 => pairs.push((parts[0].clone(), parts[1].clone())),
                n if n < 2 => {
                    return Err(err("ValueError", format!("not enough values to unpack (expected 2, got {n})")));
                }
                _ => return Err(err("ValueError", "too many values to unpack (expected 2)")),
            }
        }
    }
    let joined: Vec<String> =
        pairs.iter().map(|(k, v)| format!("{}={}", url_quote(&py_str(k), true), url_quote(&py_str(v), true))).collect();
    Ok(Value::from(joined.join("&")))
}

pub(super) fn unsupported(name: &'static str) -> impl Fn(Value, Rest<Value>) -> FResult + Send + Sync + 'static {
    move |_v: Value, _a: Rest<Value>| {
        Err(err(
            "TemplateRuntimeError",
            format!(
                "the `{name}` filter is not reproduced by pep (it is random or needs Python's library); prompt-poet would render it"
            ),
        ))
    }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

pub(super) fn t_number(v: Value) -> bool {
    matches!(v.kind(), ValueKind::Number | ValueKind::Bool)
}

pub(super) fn t_integer(v: Value) -> bool {
    v.kind() == ValueKind::Number && v.is_integer()
}

pub(super) fn t_float(v: Value) -> bool {
    v.kind() == ValueKind::Number && !v.is_integer()
}

pub(super) fn t_sequence(v: Value) -> bool {
    matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Bytes)
}

pub(super) fn t_iterable(v: Value) -> bool {
    matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Iterable | ValueKind::Bytes)
}

pub(super) fn t_lower(v: Value) -> bool {
    let s = py_str(&v);
    s.chars().any(is_cased) && !s.chars().any(|c| c.is_uppercase())
}

pub(super) fn t_upper(v: Value) -> bool {
    let s = py_str(&v);
    s.chars().any(is_cased) && !s.chars().any(|c| c.is_lowercase())
}

pub(super) fn t_callable(v: Value) -> bool {
    v.as_object().is_some_and(|o| matches!(o.repr(), minijinja::value::ObjectRepr::Plain))
        && v.kind() == ValueKind::Plain
}
