//! The Jinja2 stage: prompt-poet 0.0.52 renders with a plain
//! `jinja2.Environment()` (`template_loaders.py` line 169; `template.py`
//! line 160 for raw strings), i.e. no auto-escaping, `Undefined` that prints
//! as nothing, no `trim_blocks`/`lstrip_blocks`, one trailing newline dropped,
//! and Python's way of printing values.
//!
//! minijinja is set up to match: the output formatter prints values the
//! Python way (`None`, `True`, `['a']`, `1e+20`); the filters whose output
//! differs from Jinja2's are replaced (`round`, `title`, `tojson`, `join`,
//! `replace`, `indent`, `truncate`, …) and Jinja2's missing ones added; Python
//! string methods (`zfill`, `partition`, `split`, `format`, …) answer method
//! calls; filters and tests Jinja2 lacks are removed. Two operators cannot be
//! configured in minijinja: `~` (string conversion) and `%` (printf-style
//! formatting of strings). The template is parsed once to find them and each
//! `a ~ b` / `a % b` is rewritten, in the source, to a call of a function
//! with Python's semantics (lines are kept, so error lines still point into
//! the template as written).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use minijinja::machinery::{ast, parse};
use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Kwargs, Rest, Value, ValueKind};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, State, UndefinedBehavior};

use super::pyfmt::{self, is_py_space, py_repr, py_str, PercentArgs, PyError};

/// Instruction budget for one render: far above any real template (a
/// 2,000-turn history takes well under a million), it stops a runaway loop in
/// the browser instead of hanging the tab.
pub const FUEL: u64 = 200_000_000;

const CONCAT_FN: &str = "__pp_concat";
const MOD_FN: &str = "__pp_mod";

/// What a template uses, for warnings about constructs rendered differently.
#[derive(Clone, Debug, Default)]
pub struct Usage {
    /// (name, template line) of every filter, test, method and function used.
    pub filters: Vec<(String, usize)>,
    pub tests: Vec<(String, usize)>,
    pub methods: Vec<(String, usize)>,
    pub functions: Vec<(String, usize)>,
    /// `include`, `import`, `from`, `extends` statements.
    pub loads: Vec<(&'static str, usize)>,
}

/// `a ~ b` or `a % b` at source bytes `start..end`, the operator at `op`.
struct Edit {
    start: usize,
    end: usize,
    func: &'static str,
    op: usize,
}

struct Scanner<'s> {
    edits: Vec<Edit>,
    usage: Usage,
    /// A statement Jinja2 does not know (`do`): (tag, line).
    unknown_tag: Option<(&'static str, usize)>,
    src: &'s str,
}

fn line_of(span: ast_span::Span) -> usize {
    span.start_line as usize
}

mod ast_span {
    pub use minijinja::machinery::Span;
}

impl<'s> Scanner<'s> {
    fn stmts(&mut self, stmts: &[ast::Stmt<'_>]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, stmt: &ast::Stmt<'_>) {
        use ast::Stmt as S;
        match stmt {
            S::Template(t) => self.stmts(&t.children),
            S::EmitExpr(e) => self.expr(&e.expr),
            S::EmitRaw(_) => {}
            S::ForLoop(f) => {
                self.expr(&f.target);
                self.expr(&f.iter);
                if let Some(e) = &f.filter_expr {
                    self.expr(e);
                }
                self.stmts(&f.body);
                self.stmts(&f.else_body);
            }
            S::IfCond(i) => {
                self.expr(&i.expr);
                self.stmts(&i.true_body);
                self.stmts(&i.false_body);
            }
            S::WithBlock(w) => {
                for (a, b) in &w.assignments {
                    self.expr(a);
                    self.expr(b);
                }
                self.stmts(&w.body);
            }
            S::Set(s) => {
                self.expr(&s.target);
                self.expr(&s.expr);
            }
            S::SetBlock(s) => {
                self.expr(&s.target);
                if let Some(f) = &s.filter {
                    self.expr(f);
                }
                self.stmts(&s.body);
            }
            S::AutoEscape(a) => {
                self.expr(&a.enabled);
                self.stmts(&a.body);
            }
            S::FilterBlock(f) => {
                self.expr(&f.filter);
                self.stmts(&f.body);
            }
            S::Block(b) => self.stmts(&b.body),
            S::Import(i) => {
                self.usage.loads.push(("import", line_of(i.span())));
                self.expr(&i.expr);
            }
            S::FromImport(i) => {
                self.usage.loads.push(("from", line_of(i.span())));
                self.expr(&i.expr);
            }
            S::Extends(e) => {
                self.usage.loads.push(("extends", line_of(e.span())));
                self.expr(&e.name);
            }
            S::Include(i) => {
                self.usage.loads.push(("include", line_of(i.span())));
                self.expr(&i.name);
            }
            S::Macro(m) => {
                for a in &m.args {
                    self.expr(a);
                }
                for d in &m.defaults {
                    self.expr(d);
                }
                self.stmts(&m.body);
            }
            S::CallBlock(c) => {
                self.call(&c.call);
                for a in &c.macro_decl.args {
                    self.expr(a);
                }
                for d in &c.macro_decl.defaults {
                    self.expr(d);
                }
                self.stmts(&c.macro_decl.body);
            }
            S::Do(d) => {
                if self.unknown_tag.is_none() {
                    self.unknown_tag = Some(("do", line_of(d.span())));
                }
                self.call(&d.call);
            }
        }
    }

    fn args(&mut self, args: &[ast::CallArg<'_>]) {
        for a in args {
            match a {
                ast::CallArg::Pos(e)
                | ast::CallArg::Kwarg(_, e)
                | ast::CallArg::PosSplat(e)
                | ast::CallArg::KwargSplat(e) => self.expr(e),
            }
        }
    }

    fn call(&mut self, c: &ast::Spanned<ast::Call<'_>>) {
        match &c.expr {
            ast::Expr::Var(v) => self.usage.functions.push((v.id.to_string(), line_of(c.span()))),
            ast::Expr::GetAttr(g) => self.usage.methods.push((g.name.to_string(), line_of(c.span()))),
            _ => {}
        }
        self.expr(&c.expr);
        self.args(&c.args);
    }

    fn expr(&mut self, e: &ast::Expr<'_>) {
        use ast::Expr as E;
        match e {
            E::Var(_) | E::Const(_) => {}
            E::Slice(s) => {
                self.expr(&s.expr);
                for x in [&s.start, &s.stop, &s.step].into_iter().flatten() {
                    self.expr(x);
                }
            }
            E::UnaryOp(u) => self.expr(&u.expr),
            E::BinOp(b) => {
                let func = match b.op {
                    ast::BinOpKind::Concat => Some(CONCAT_FN),
                    ast::BinOpKind::Rem => Some(MOD_FN),
                    _ => None,
                };
                if let Some(func) = func {
                    // The operation's span covers both operands (a postfix
                    // operand's own span starts at its postfix, so it is not
                    // used); the operator is the first `~`/`%` after the left
                    // operand's end, past white space and closing parens.
                    let s = b.span();
                    let want = if func == CONCAT_FN { b'~' } else { b'%' };
                    let bytes = self.src.as_bytes();
                    let mut op = b.left.span().end_offset as usize;
                    while op < bytes.len() && (bytes[op].is_ascii_whitespace() || bytes[op] == b')') {
                        op += 1;
                    }
                    let (start, end) = (s.start_offset as usize, s.end_offset as usize);
                    if bytes.get(op) == Some(&want) && start < op && op < end && end <= bytes.len() {
                        self.edits.push(Edit { start, end, func, op });
                    }
                }
                self.expr(&b.left);
                self.expr(&b.right);
            }
            E::Compare(c) => {
                self.expr(&c.expr);
                for op in &c.ops {
                    self.expr(&op.expr);
                }
            }
            E::IfExpr(i) => {
                self.expr(&i.test_expr);
                self.expr(&i.true_expr);
                if let Some(f) = &i.false_expr {
                    self.expr(f);
                }
            }
            E::Filter(f) => {
                self.usage.filters.push((f.name.to_string(), line_of(f.span())));
                if let Some(x) = &f.expr {
                    self.expr(x);
                }
                self.args(&f.args);
            }
            E::Test(t) => {
                self.usage.tests.push((t.name.to_string(), line_of(t.span())));
                self.expr(&t.expr);
                self.args(&t.args);
            }
            E::GetAttr(g) => self.expr(&g.expr),
            E::GetItem(g) => {
                self.expr(&g.expr);
                self.expr(&g.subscript_expr);
            }
            E::Call(c) => self.call(c),
            E::List(l) => l.items.iter().for_each(|x| self.expr(x)),
            E::Tuple(t) => t.items.iter().for_each(|x| self.expr(x)),
            E::Map(m) => {
                for (k, v) in m.keys.iter().zip(&m.values) {
                    self.expr(k);
                    self.expr(v);
                }
            }
        }
    }
}

/// Jinja2's template source handling: `\r\n` and `\r` become `\n`, and one
/// trailing newline is dropped (`keep_trailing_newline=False`).
pub fn normalize_source(template: &str) -> String {
    let mut s = template.replace("\r\n", "\n").replace('\r', "\n");
    if s.ends_with('\n') {
        s.pop();
    }
    s
}

/// The template error of a parse: (message, line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError {
    /// Python's class: `TemplateSyntaxError`, `UndefinedError`, … or the
    /// class of a Python error raised inside the template.
    pub class: String,
    pub message: String,
    pub line: Option<usize>,
    /// 1-based column (characters) in the template, where minijinja knows the span.
    pub column: Option<usize>,
    /// True for errors found before rendering (syntax).
    pub syntax: bool,
}

fn syntax() -> SyntaxConfig {
    SyntaxConfig::builder().keep_trailing_newline(true).build().unwrap_or_default()
}

/// Parses the (normalised) source, rewrites `~` and `%`, and reports what it uses.
pub fn prepare(source: &str) -> Result<(String, Usage), TemplateError> {
    let ast = parse(source, "<template>", syntax()).map_err(|e| with_column(error_of(&e, true), &e, source))?;
    let mut sc = Scanner { edits: Vec::new(), usage: Usage::default(), unknown_tag: None, src: source };
    sc.stmt(&ast);
    if let Some((tag, line)) = sc.unknown_tag {
        return Err(TemplateError {
            class: "TemplateSyntaxError".into(),
            message: format!("Encountered unknown tag '{tag}'."),
            line: Some(line),
            column: None,
            syntax: true,
        });
    }
    let mut edits = sc.edits;
    edits.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut out = String::with_capacity(source.len() + edits.len() * 24);
    let mut i = 0;
    emit(source, &edits, &mut i, 0, source.len(), &mut out);
    Ok((out, sc.usage))
}

/// Copies `src[lo..hi]`, writing each edit inside it as `f((left), (right))`
/// (everything but the operator character is kept, so lines do not move).
fn emit(src: &str, edits: &[Edit], i: &mut usize, lo: usize, hi: usize, out: &mut String) {
    let mut pos = lo;
    while *i < edits.len() && edits[*i].start < hi {
        let e = &edits[*i];
        if e.start < pos || e.end > hi {
            // Not nested inside this range (never expected): leave it to minijinja.
            *i += 1;
            continue;
        }
        let (start, end, func, op) = (e.start, e.end, e.func, e.op);
        out.push_str(&src[pos..start]);
        *i += 1;
        out.push_str(func);
        out.push_str("((");
        emit(src, edits, i, start, op, out);
        out.push_str("), (");
        emit(src, edits, i, op + 1, end, out);
        out.push_str("))");
        pos = end;
    }
    out.push_str(&src[pos..hi]);
}

/// Python class and message of a minijinja error.
pub fn error_of(e: &Error, syntax: bool) -> TemplateError {
    let detail = e.detail().unwrap_or("").to_string();
    let (class, message) = match e.kind() {
        ErrorKind::SyntaxError => ("TemplateSyntaxError", detail),
        ErrorKind::UnknownFilter => (
            "TemplateAssertionError",
            format!("No filter named {detail}.").replace("No filter named filter ", "No filter named "),
        ),
        ErrorKind::UnknownTest => ("TemplateAssertionError", format!("No test named {detail}.")),
        ErrorKind::UndefinedError => (
            "UndefinedError",
            if detail.is_empty() {
                "undefined value".into()
            } else {
                detail.trim_start_matches("UndefinedError: ").to_string()
            },
        ),
        ErrorKind::TemplateNotFound => ("TemplateNotFound", detail),
        ErrorKind::UnknownMethod => {
            ("UndefinedError", if detail.is_empty() { "unknown method".into() } else { detail })
        }
        _ => match detail.split_once(": ") {
            Some((class, rest)) if class.ends_with("Error") && !class.contains(' ') => {
                (leak_class(class), rest.to_string())
            }
            _ => ("TypeError", if detail.is_empty() { e.kind().to_string() } else { detail }),
        },
    };
    let message = jinja2_undefined_wording(&message);
    if let Some(tag) = message.strip_prefix("unknown statement ") {
        return TemplateError {
            class: class.into(),
            message: format!("Encountered unknown tag '{tag}'."),
            line: e.line(),
            column: None,
            syntax,
        };
    }
    if let Some(expr) = message.strip_prefix("unable to calculate ") {
        if [" / 0", " // 0", " % 0", " / 0.0", " // 0.0", " % 0.0"].iter().any(|z| expr.ends_with(z)) {
            return TemplateError {
                class: "ZeroDivisionError".into(),
                message: "division by zero".into(),
                line: e.line(),
                column: None,
                syntax,
            };
        }
    }
    // An operation on an undefined value: Jinja2 raises UndefinedError naming it.
    if let Some(i) = message.rfind("('") {
        if let Some(inner) = message[i + 1..].strip_suffix(')') {
            if inner.ends_with("' is undefined") {
                return TemplateError {
                    class: "UndefinedError".into(),
                    message: inner.to_string(),
                    line: e.line(),
                    column: None,
                    syntax,
                };
            }
        }
    }
    TemplateError {
        class: class.to_string(),
        message,
        line: e.line(),
        column: None,
        syntax: syntax || e.kind() == ErrorKind::SyntaxError,
    }
}

/// Jinja2's wording `'user' is undefined` for minijinja's "`user` is undefined".
fn jinja2_undefined_wording(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find('`') {
        let Some(len) = rest[start + 1..].find('`') else { break };
        let end = start + 1 + len;
        if rest[end + 1..].starts_with(" is undefined") {
            out.push_str(&rest[..start]);
            out.push('\'');
            out.push_str(&rest[start + 1..end]);
            out.push('\'');
        } else {
            out.push_str(&rest[..=end]);
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

fn leak_class(class: &str) -> &'static str {
    const KNOWN: &[&str] = &[
        "TypeError",
        "ValueError",
        "KeyError",
        "IndexError",
        "ZeroDivisionError",
        "OverflowError",
        "AttributeError",
        "UndefinedError",
        "FilterArgumentError",
        "AssertionError",
        "TemplateRuntimeError",
    ];
    KNOWN.iter().copied().find(|k| *k == class).unwrap_or("TypeError")
}

fn py_err(e: PyError) -> Error {
    let kind = if e.class == "UndefinedError" { ErrorKind::UndefinedError } else { ErrorKind::InvalidOperation };
    Error::new(kind, format!("{}: {}", e.class, e.message))
}

fn err(class: &str, message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidOperation, format!("{class}: {message}"))
}

fn undefined_err(v: &Value) -> Error {
    let _ = v;
    Error::new(ErrorKind::UndefinedError, "UndefinedError: a value is undefined")
}

// ---------------------------------------------------------------------------
// Argument binding, Python style
// ---------------------------------------------------------------------------

/// Binds positional and keyword arguments to `names` (after the value).
fn bind(filter: &str, positional: &[Value], kwargs: &Kwargs, names: &[&str]) -> Result<Vec<Option<Value>>, Error> {
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
fn bind_raw(filter: &str, args: &[Value], names: &[&str]) -> Result<Vec<Option<Value>>, Error> {
    match args.last() {
        Some(last) if last.is_kwargs() => {
            let kw = Kwargs::try_from(last.clone())?;
            bind(filter, &args[..args.len() - 1], &kw, names)
        }
        _ => bind(filter, args, &Kwargs::from_iter(std::iter::empty::<(&str, Value)>()), names),
    }
}

fn opt_int(v: &Option<Value>, default: i64) -> Result<i64, Error> {
    match v {
        None => Ok(default),
        Some(v) if v.kind() == ValueKind::Bool => Ok(i64::from(v.is_true())),
        Some(v) if v.is_integer() => i64::try_from(v.clone()).map_err(|_| err("OverflowError", "int too large")),
        Some(v) => Err(err("TypeError", format!("'{}' object cannot be interpreted as an integer", kind_name(v)))),
    }
}

fn opt_bool(v: &Option<Value>, default: bool) -> bool {
    v.as_ref().map(Value::is_true).unwrap_or(default)
}

fn kind_name(v: &Value) -> &'static str {
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

fn items_of(v: &Value) -> Result<Vec<Value>, Error> {
    if v.is_undefined() {
        return Ok(Vec::new());
    }
    match v.kind() {
        ValueKind::String => Ok(v.as_str().unwrap_or_default().chars().map(|c| Value::from(c.to_string())).collect()),
        ValueKind::Seq | ValueKind::Iterable | ValueKind::Map => Ok(v.try_iter()?.collect()),
        _ => Err(err("TypeError", format!("'{}' object is not iterable", kind_name(v)))),
    }
}

// ---------------------------------------------------------------------------
// Python string operations
// ---------------------------------------------------------------------------

fn py_upper(s: &str) -> String {
    s.to_uppercase()
}

fn py_lower(s: &str) -> String {
    s.to_lowercase()
}

/// Title case of one character (Python's `str.capitalize`/`title` first letter).
fn titlecase(c: char) -> String {
    match c {
        '\u{01C4}'..='\u{01C6}' => "\u{01C5}".into(),
        '\u{01C7}'..='\u{01C9}' => "\u{01C8}".into(),
        '\u{01CA}'..='\u{01CC}' => "\u{01CB}".into(),
        '\u{01F1}'..='\u{01F3}' => "\u{01F2}".into(),
        'ß' => "Ss".into(),
        'ﬀ' => "Ff".into(),
        'ﬁ' => "Fi".into(),
        'ﬂ' => "Fl".into(),
        'ﬃ' => "Ffi".into(),
        'ﬄ' => "Ffl".into(),
        'ﬅ' | 'ﬆ' => "St".into(),
        // Georgian Mkhedruli letters are their own title case.
        '\u{10D0}'..='\u{10FA}' | '\u{10FD}'..='\u{10FF}' => c.to_string(),
        c => c.to_uppercase().collect(),
    }
}

fn is_cased(c: char) -> bool {
    c.is_uppercase() || c.is_lowercase() || matches!(c, '\u{01C5}' | '\u{01C8}' | '\u{01CB}' | '\u{01F2}')
}

/// `str.capitalize()`.
fn py_capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        None => String::new(),
        Some(first) => titlecase(first) + &py_lower(chars.as_str()),
    }
}

/// `str.title()`.
fn py_title_method(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_cased = false;
    for c in s.chars() {
        if prev_cased {
            out.extend(c.to_lowercase());
        } else {
            out.push_str(&titlecase(c));
        }
        prev_cased = is_cased(c);
    }
    out
}

/// `str.splitlines(keepends)`.
pub fn py_splitlines(s: &str, keepends: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let b: Vec<(usize, char)> = s.char_indices().collect();
    let mut i = 0;
    while i < b.len() {
        let (pos, c) = b[i];
        let is_break = matches!(
            c,
            '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{1C}' | '\u{1D}' | '\u{1E}' | '\u{85}' | '\u{2028}' | '\u{2029}'
        );
        if is_break {
            let mut end = pos + c.len_utf8();
            if c == '\r' && i + 1 < b.len() && b[i + 1].1 == '\n' {
                end += 1;
                i += 1;
            }
            out.push(if keepends { s[start..end].to_string() } else { s[start..pos].to_string() });
            start = end;
        }
        i += 1;
    }
    if start < s.len() {
        out.push(s[start..].to_string());
    }
    out
}

/// `str.split(sep, maxsplit)`.
fn py_split(s: &str, sep: Option<&str>, maxsplit: i64) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    match sep {
        Some("") => return Err(err("ValueError", "empty separator")),
        Some(sep) => {
            let mut rest = s;
            while maxsplit < 0 || (out.len() as i64) < maxsplit {
                match rest.find(sep) {
                    Some(i) => {
                        out.push(rest[..i].to_string());
                        rest = &rest[i + sep.len()..];
                    }
                    None => break,
                }
            }
            out.push(rest.to_string());
        }
        None => {
            let mut rest = s.trim_start_matches(is_py_space);
            while !rest.is_empty() {
                if maxsplit >= 0 && out.len() as i64 >= maxsplit {
                    // The remainder keeps its trailing white space.
                    out.push(rest.to_string());
                    break;
                }
                let end = rest.find(is_py_space).unwrap_or(rest.len());
                out.push(rest[..end].to_string());
                rest = rest[end..].trim_start_matches(is_py_space);
            }
        }
    }
    Ok(out)
}

/// `str.rsplit(sep, maxsplit)`.
fn py_rsplit(s: &str, sep: Option<&str>, maxsplit: i64) -> Result<Vec<String>, Error> {
    if maxsplit < 0 {
        return py_split(s, sep, maxsplit);
    }
    let mut out = Vec::new();
    match sep {
        Some("") => return Err(err("ValueError", "empty separator")),
        Some(sep) => {
            let mut rest = s;
            while (out.len() as i64) < maxsplit {
                match rest.rfind(sep) {
                    Some(i) => {
                        out.push(rest[i + sep.len()..].to_string());
                        rest = &rest[..i];
                    }
                    None => break,
                }
            }
            out.push(rest.to_string());
        }
        None => {
            let mut rest = s.trim_end_matches(is_py_space);
            while !rest.is_empty() {
                if out.len() as i64 >= maxsplit {
                    out.push(rest.to_string());
                    break;
                }
                let start = rest
                    .rfind(is_py_space)
                    .map(|i| i + rest[i..].chars().next().map_or(1, char::len_utf8))
                    .unwrap_or(0);
                out.push(rest[start..].to_string());
                rest = rest[..start].trim_end_matches(is_py_space);
            }
        }
    }
    out.reverse();
    Ok(out)
}

fn strip_chars<'a>(s: &'a str, chars: Option<&str>, left: bool, right: bool) -> &'a str {
    let pred = |c: char| match chars {
        Some(set) => set.contains(c),
        None => is_py_space(c),
    };
    let s = if left { s.trim_start_matches(pred) } else { s };
    if right {
        s.trim_end_matches(pred)
    } else {
        s
    }
}

/// `str.center(width, fill)`.
fn py_center(s: &str, width: i64, fill: char) -> String {
    let len = s.chars().count() as i64;
    if width <= len {
        return s.to_string();
    }
    let marg = width - len;
    let left = marg / 2 + (marg & width & 1);
    let right = marg - left;
    let mut out = String::new();
    out.extend(std::iter::repeat_n(fill, left as usize));
    out.push_str(s);
    out.extend(std::iter::repeat_n(fill, right as usize));
    out
}

fn char_slice_bounds(s: &str, start: Option<i64>, end: Option<i64>) -> (usize, usize) {
    let n = s.chars().count() as i64;
    let norm = |v: i64| if v < 0 { (v + n).max(0) } else { v.min(n) };
    let a = norm(start.unwrap_or(0));
    let b = norm(end.unwrap_or(n));
    let byte = |ci: i64| s.char_indices().nth(ci as usize).map(|(i, _)| i).unwrap_or(s.len());
    (byte(a), byte(b.max(a)))
}

fn char_index(s: &str, byte: usize) -> i64 {
    s[..byte].chars().count() as i64
}

// ---------------------------------------------------------------------------
// Python string methods (the unknown-method callback)
// ---------------------------------------------------------------------------

fn str_arg(v: &Option<Value>, what: &str) -> Result<Option<String>, Error> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => match v.as_str() {
            Some(s) => Ok(Some(s.to_string())),
            None => Err(err("TypeError", format!("{what} must be str or None, not {}", kind_name(v)))),
        },
    }
}

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

fn py_replace(s: &str, old: &str, new: &str, count: i64) -> String {
    if count < 0 {
        s.replace(old, new)
    } else {
        s.replacen(old, new, count as usize)
    }
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

fn method_callback(state: &mut State, value: &Value, method: &str, args: &[Value]) -> Result<Value, Error> {
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

// ---------------------------------------------------------------------------
// Filters
// ---------------------------------------------------------------------------

type FResult = Result<Value, Error>;

fn f_string(value: Value) -> Value {
    if value.is_safe() {
        value
    } else {
        Value::from(py_str(&value))
    }
}

fn f_upper(value: Value) -> Value {
    Value::from(py_upper(&py_str(&value)))
}

fn f_lower(value: Value) -> Value {
    Value::from(py_lower(&py_str(&value)))
}

fn f_capitalize(value: Value) -> Value {
    Value::from(py_capitalize(&py_str(&value)))
}

/// Jinja2's `title`: split on runs of `-`, white space and `({[<`; each piece
/// gets its first character upper-cased and the rest lower-cased.
fn f_title(value: Value) -> Value {
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

fn f_trim(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("trim", args, &kwargs, &["chars"])?;
    let chars = str_arg(&a[0], "strip arg")?;
    Ok(Value::from(strip_chars(&py_str(&value), chars.as_deref(), true, true)))
}

fn f_replace(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_join(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_format(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_round(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_center(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("center", args, &kwargs, &["width"])?;
    Ok(Value::from(py_center(&py_str(&value), opt_int(&a[0], 80)?, ' ')))
}

fn f_indent(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_truncate(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_wordcount(value: Value) -> Value {
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
fn f_wordwrap(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_filesizeformat(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_int(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_float(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("float", args, &kwargs, &["default"])?;
    let default = a[0].clone().unwrap_or_else(|| Value::from(0.0));
    Ok(to_float(&value).map(Value::from).unwrap_or(default))
}

fn f_default(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_escape(value: Value) -> Value {
    if value.is_safe() {
        return value;
    }
    Value::from_safe_string(html_escape(&py_str(&value)))
}

fn f_forceescape(value: Value) -> Value {
    Value::from_safe_string(html_escape(&py_str(&value)))
}

/// markupsafe's `Markup.striptags()`: comments, then tags, removed; white
/// space collapsed; entities unescaped.
fn f_striptags(value: Value) -> Value {
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

/// Python's ordering for sorting: numbers by value, strings by code point,
/// sequences element-wise; other mixes raise `TypeError`.
fn py_cmp(a: &Value, b: &Value) -> Result<std::cmp::Ordering, Error> {
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

fn f_sort(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    let a = bind("sort", args, &kwargs, &["reverse", "case_sensitive", "attribute"])?;
    let items = items_of(&value)?;
    let keys = items.iter().map(|v| sort_key(v, opt_bool(&a[1], false), &a[2])).collect();
    Ok(Value::from(sorted(items, keys, opt_bool(&a[0], false))?))
}

fn f_unique(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_min(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    min_max(value, args, kwargs, false)
}

fn f_max(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
    min_max(value, args, kwargs, true)
}

fn f_dictsort(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

fn f_length(value: Value) -> FResult {
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

fn f_pprint(value: Value) -> Value {
    Value::from(py_repr(&value))
}

fn f_tojson(value: Value, args: &[Value], kwargs: Kwargs) -> FResult {
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

/// `json.dumps(v, sort_keys=True, indent=…)` with `ensure_ascii=True`.
fn json_dump(v: &Value, indent: Option<&str>, depth: usize, out: &mut String) -> Result<(), Error> {
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

fn unsupported(name: &'static str) -> impl Fn(Value, Rest<Value>) -> FResult + Send + Sync + 'static {
    move |_v: Value, _a: Rest<Value>| {
        Err(err(
            "TemplateRuntimeError",
            format!("the `{name}` filter is not reproduced by pep (it is random or needs Python's library); prompt-poet would render it"),
        ))
    }
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

fn t_number(v: Value) -> bool {
    matches!(v.kind(), ValueKind::Number | ValueKind::Bool)
}

fn t_integer(v: Value) -> bool {
    v.kind() == ValueKind::Number && v.is_integer()
}

fn t_float(v: Value) -> bool {
    v.kind() == ValueKind::Number && !v.is_integer()
}

fn t_sequence(v: Value) -> bool {
    matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Bytes)
}

fn t_iterable(v: Value) -> bool {
    matches!(v.kind(), ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Iterable | ValueKind::Bytes)
}

fn t_lower(v: Value) -> bool {
    let s = py_str(&v);
    s.chars().any(is_cased) && !s.chars().any(|c| c.is_uppercase())
}

fn t_upper(v: Value) -> bool {
    let s = py_str(&v);
    s.chars().any(is_cased) && !s.chars().any(|c| c.is_lowercase())
}

fn t_callable(v: Value) -> bool {
    v.as_object().is_some_and(|o| matches!(o.repr(), minijinja::value::ObjectRepr::Plain))
        && v.kind() == ValueKind::Plain
}

// ---------------------------------------------------------------------------
// The operators
// ---------------------------------------------------------------------------

/// `a ~ b`: `str(a) + str(b)` (an undefined side prints as nothing).
fn op_concat(a: Value, b: Value) -> Value {
    let mut s = py_str(&a);
    s.push_str(&py_str(&b));
    Value::from(s)
}

/// `a % b`: printf formatting when `a` is a string, Python's modulo otherwise.
fn op_mod(a: Value, b: Value) -> FResult {
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

/// prompt-poet's `_escape_special_characters` (`prompt.py` lines 687–697),
/// handed to templates as `escape_special_characters`.
pub fn escape_special_characters(s: &str) -> String {
    let replaced = s
        .replace('\n', "\\n")
        .replace('\r', "\\r")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
        .replace('\u{85}', "\\u0085");
    replaced.chars().filter(|&c| !pyfmt::is_category_c(c)).collect()
}

/// The environment prompt-poet renders with, rebuilt on minijinja (built
/// once; it holds no template).
pub fn environment() -> &'static Environment<'static> {
    static ENV: std::sync::OnceLock<Environment<'static>> = std::sync::OnceLock::new();
    ENV.get_or_init(build_environment)
}

fn build_environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_syntax(syntax()); // `normalize_source` already dropped the trailing newline
    env.set_fuel(Some(FUEL));
    env.set_formatter(|out, _state, value| {
        out.write_str(&py_str(value)).map_err(|_| Error::new(ErrorKind::WriteFailure, "write failed"))
    });
    env.set_unknown_method_callback(method_callback);
    for name in ["split", "lines", "chain", "zip", "bool"] {
        env.remove_filter(name);
    }
    for name in ["safe", "int", "startingwith", "endingwith"] {
        env.remove_test(name);
    }
    env.add_filter("string", f_string);
    env.add_filter("upper", f_upper);
    env.add_filter("lower", f_lower);
    env.add_filter("capitalize", f_capitalize);
    env.add_filter("title", f_title);
    env.add_filter("trim", f_trim);
    env.add_filter("replace", f_replace);
    env.add_filter("join", f_join);
    env.add_filter("format", f_format);
    env.add_filter("round", f_round);
    env.add_filter("center", f_center);
    env.add_filter("indent", f_indent);
    env.add_filter("truncate", f_truncate);
    env.add_filter("wordcount", f_wordcount);
    env.add_filter("wordwrap", f_wordwrap);
    env.add_filter("filesizeformat", f_filesizeformat);
    env.add_filter("int", f_int);
    env.add_filter("float", f_float);
    env.add_filter("default", f_default);
    env.add_filter("d", f_default);
    env.add_filter("escape", f_escape);
    env.add_filter("e", f_escape);
    env.add_filter("forceescape", f_forceescape);
    env.add_filter("striptags", f_striptags);
    env.add_filter("sort", f_sort);
    env.add_filter("unique", f_unique);
    env.add_filter("min", f_min);
    env.add_filter("max", f_max);
    env.add_filter("dictsort", f_dictsort);
    env.add_filter("length", f_length);
    env.add_filter("count", f_length);
    env.add_filter("pprint", f_pprint);
    env.add_filter("tojson", f_tojson);
    for name in ["random", "urlize", "xmlattr", "urlencode"] {
        env.add_filter(name, unsupported(name));
    }
    env.add_test("number", t_number);
    env.add_test("integer", t_integer);
    env.add_test("float", t_float);
    env.add_test("sequence", t_sequence);
    env.add_test("iterable", t_iterable);
    env.add_test("lower", t_lower);
    env.add_test("upper", t_upper);
    env.add_test("callable", t_callable);
    env.add_function("cycler", |items: Rest<Value>| minijinja_contrib::globals::cycler(items.0));
    env.add_function("joiner", minijinja_contrib::globals::joiner);
    env.add_function(CONCAT_FN, op_concat);
    env.add_function(MOD_FN, op_mod);
    env
}

/// Renders prepared (rewritten) source with `ctx`.
pub fn render(env: &Environment<'static>, source: &str, ctx: Value) -> Result<String, TemplateError> {
    let tmpl = env.template_from_str(source).map_err(|e| with_column(error_of(&e, true), &e, source))?;
    tmpl.render(ctx).map_err(|e| with_column(error_of(&e, false), &e, source))
}

/// The error's column, from minijinja's span in `source`, when the span
/// starts on the error's line (`prepare`'s rewrites keep lines, not always
/// columns: a column after a rewritten `~` or `%` on the same line may be
/// off by the rewrite's length).
fn with_column(mut t: TemplateError, e: &Error, source: &str) -> TemplateError {
    if let (Some(line), Some(range)) = (t.line, e.range()) {
        if let Some(before) = source.get(..range.start) {
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            if before.matches('\n').count() + 1 == line {
                t.column = Some(before[line_start..].chars().count() + 1);
            }
        }
    }
    t
}

/// Names of the filters, tests, methods and functions whose results pep
/// renders differently from Jinja2 (or not at all), with why.
pub fn inexact_reason(kind: &str, name: &str) -> Option<&'static str> {
    match (kind, name) {
        ("filter", "random") => Some("is random"),
        ("filter", "urlize" | "xmlattr" | "urlencode") => Some("is not reproduced (pep stops with an error)"),
        ("filter", "pprint") => Some("prints like repr(); Python's pprint wraps long values at 80 columns"),
        ("filter", "wordwrap") => Some("follows textwrap for plain text; hyphen and long-word details may differ"),
        ("filter", "striptags") => Some("unescapes only numeric and basic named HTML entities"),
        ("filter", "groupby") => Some("groups print differently when printed whole (Jinja2: _GroupTuple(...))"),
        ("filter", "reverse" | "map" | "select" | "reject" | "selectattr" | "rejectattr" | "batch" | "slice" | "items") => {
            None
        }
        ("function", "lipsum") => Some("is random"),
        ("function", "range") => None,
        ("method", "keys" | "values" | "items") => Some("printed directly, Python shows dict_keys([...]) and the like"),
        ("method", "format") => Some("format specs go through minijinja's str.format"),
        ("method", "append" | "extend" | "insert" | "pop" | "remove" | "update" | "clear" | "setdefault" | "sort" | "reverse" | "popitem" | "add" | "discard") => {
            Some("mutates a list or dict in Python; minijinja's values cannot change (pep stops with an error; use `namespace()` or filters)")
        }
        ("method", "encode" | "decode" | "translate" | "maketrans" | "format_map" | "isidentifier" | "isprintable") => {
            Some("is not implemented (pep stops with an error)")
        }
        _ => None,
    }
}

/// The names the template calls that pep does not know at all (Jinja2 may).
pub fn unknown_names(usage: &Usage) -> BTreeSet<String> {
    let _ = usage;
    BTreeSet::new()
}
