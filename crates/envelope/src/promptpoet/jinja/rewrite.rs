//! Finding `~` and `%` in the template's syntax tree and rewriting each
//! `a ~ b` / `a % b`, in the source, to a call of the function with Python's
//! semantics (`super::operators`); what the template uses, for warnings.

use minijinja::machinery::{ast, parse};
use minijinja::syntax::SyntaxConfig;

use super::errors::{error_of, with_column, TemplateError};

pub(super) const CONCAT_FN: &str = "__pp_concat";
pub(super) const MOD_FN: &str = "__pp_mod";
/// Marks a template name imported without context (`__pp_nc(name)` prefixes
/// it with [`NO_CONTEXT`]).
pub(super) const NC_FN: &str = "__pp_nc";
/// Every other loaded template name becomes `__pp_load(name)` (the loads of
/// one render are counted there).
pub(super) const LOAD_FN: &str = "__pp_load";
/// The prefix of a template name imported without context.
pub const NO_CONTEXT: char = '\u{1}';
/// The prefix a name gets where Jinja2 would not see it (a free `loop`; a
/// data name in a template imported without context): undefined there.
pub const HIDDEN: &str = "__pp_nc_";

/// Names Jinja2's environment defines for every template (its globals), and
/// pep's helpers.
const GLOBALS: &[&str] = &[
    "range",
    "dict",
    "lipsum",
    "cycler",
    "joiner",
    "namespace",
    "caller",
    "varargs",
    "kwargs",
    "self",
    "super",
    "true",
    "false",
    "none",
    "True",
    "False",
    "None",
    CONCAT_FN,
    MOD_FN,
    NC_FN,
    LOAD_FN,
];

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
    /// The template names those statements write as constants (fetched
    /// before rendering).
    pub load_names: Vec<String>,
}

/// A rewrite of source bytes `start..end`.
struct Edit {
    start: usize,
    end: usize,
    how: How,
}

enum How {
    /// `a ~ b` or `a % b`, the operator at byte `op`: `func((a), (b))`.
    Op { func: &'static str, op: usize },
    /// `func((x))`.
    Wrap(&'static str),
    /// A variable renamed.
    Rename(String),
    /// Text inserted at `start` (`end == start`).
    Insert(&'static str),
}

struct Scanner<'s> {
    edits: Vec<Edit>,
    usage: Usage,
    /// A statement Jinja2 does not know (`do`): (tag, line).
    unknown_tag: Option<(&'static str, usize)>,
    src: &'s str,
    /// How many `for` bodies enclose the statement scanned (`loop` is free at 0).
    for_depth: usize,
    /// Every variable read: (name, start, end, a free `loop`).
    vars: Vec<(String, usize, usize, bool)>,
    /// Every name the template binds (`set`, `for`, `with`, macros and their
    /// arguments, imports).
    bound: std::collections::BTreeSet<String>,
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
                self.bind(&f.target);
                self.expr(&f.target);
                self.expr(&f.iter);
                self.for_depth += 1;
                if let Some(e) = &f.filter_expr {
                    self.expr(e);
                }
                self.stmts(&f.body);
                self.for_depth -= 1;
                self.stmts(&f.else_body);
            }
            S::IfCond(i) => {
                self.expr(&i.expr);
                self.stmts(&i.true_body);
                self.stmts(&i.false_body);
            }
            S::WithBlock(w) => {
                for (a, b) in &w.assignments {
                    self.bind(a);
                    self.expr(a);
                    self.expr(b);
                }
                self.stmts(&w.body);
            }
            S::Set(s) => {
                self.bind(&s.target);
                self.expr(&s.target);
                self.expr(&s.expr);
            }
            S::SetBlock(s) => {
                self.bind(&s.target);
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
                self.bind(&i.name);
                let isolated = self.without_context(i.span());
                self.import_name(&i.expr, isolated);
            }
            S::FromImport(i) => {
                self.usage.loads.push(("from", line_of(i.span())));
                for (name, alias) in &i.names {
                    self.bind(alias.as_ref().unwrap_or(name));
                }
                let isolated = self.without_context(i.span());
                self.import_name(&i.expr, isolated);
            }
            S::Extends(e) => {
                self.usage.loads.push(("extends", line_of(e.span())));
                self.import_name(&e.name, false);
            }
            S::Include(i) => {
                self.usage.loads.push(("include", line_of(i.span())));
                self.scope_include(i.span());
                let text = self.src.get(i.span().start_offset as usize..i.span().end_offset as usize).unwrap_or("");
                let words: Vec<&str> = text.split_whitespace().collect();
                let isolated = words.windows(2).any(|w| w == ["without", "context"]);
                self.import_name(&i.name, isolated);
            }
            S::Macro(m) => {
                self.bound.insert(m.name.to_string());
                for a in &m.args {
                    self.bind(a);
                    self.expr(a);
                }
                for d in &m.defaults {
                    self.expr(d);
                }
                // Lexical: a macro or call block inside a `for` sees its `loop`.
                self.stmts(&m.body);
            }
            S::CallBlock(c) => {
                self.call(&c.call);
                for a in &c.macro_decl.args {
                    self.bind(a);
                    self.expr(a);
                }
                for d in &c.macro_decl.defaults {
                    self.expr(d);
                }
                // Lexical: a macro or call block inside a `for` sees its `loop`.
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

    /// The constant template names of a load statement (`'a'`, `['a', 'b']`),
    /// each after `prefix`.
    fn names(&mut self, e: &ast::Expr<'_>, prefix: &str) {
        match e {
            ast::Expr::Const(c) => {
                if let Some(s) = c.value.as_str() {
                    self.usage.load_names.push(format!("{prefix}{s}"));
                }
            }
            ast::Expr::List(l) => l.items.iter().for_each(|x| self.names(x, prefix)),
            ast::Expr::Tuple(t) => t.items.iter().for_each(|x| self.names(x, prefix)),
            _ => {}
        }
    }

    /// The template name of an `import` / `from … import`; without context
    /// it becomes `__pp_nc(name)`, so the module loads with the data hidden.
    fn import_name(&mut self, e: &ast::Expr<'_>, isolated: bool) {
        let span = e.span();
        let (start, end) = (span.start_offset as usize, span.end_offset as usize);
        if start < end && end <= self.src.len() {
            let func = if isolated { NC_FN } else { LOAD_FN };
            self.edits.push(Edit { start, end, how: How::Wrap(func) });
            self.names(e, if isolated { "\u{1}" } else { "" });
        } else {
            self.names(e, "");
        }
        self.expr(e);
    }

    /// Jinja2 renders an included template in a context of its own: what it
    /// sets and the macros it defines do not reach the includer; minijinja
    /// runs it in the includer's frame. So the statement becomes
    /// `{% with %}{% include … %}{% endwith %}` (its white-space control
    /// kept on the outer delimiters).
    fn scope_include(&mut self, span: ast_span::Span) {
        let (start, end) = (span.start_offset as usize, span.end_offset as usize);
        let bytes = self.src.as_bytes();
        if end > bytes.len() || start > end {
            return;
        }
        // After the `{%` (and its `-`/`+`) that opens the statement.
        let open = if self.src[start..].starts_with("{%") {
            let mut p = start + 2;
            if matches!(bytes.get(p), Some(b'-' | b'+')) {
                p += 1;
            }
            Some(p)
        } else {
            let mut p = start;
            while p > 0 && bytes[p - 1].is_ascii_whitespace() {
                p -= 1;
            }
            let q = if p > 0 && matches!(bytes[p - 1], b'-' | b'+') { p - 1 } else { p };
            (q >= 2 && &self.src[q - 2..q] == "{%").then_some(p)
        };
        // Before the `%}` (and its `-`/`+`) that closes it.
        let close = if self.src[..end].ends_with("%}") {
            let mut p = end - 2;
            if p > 0 && matches!(bytes[p - 1], b'-' | b'+') {
                p -= 1;
            }
            Some(p)
        } else {
            let mut p = end;
            while p < bytes.len() && bytes[p].is_ascii_whitespace() {
                p += 1;
            }
            let q = if matches!(bytes.get(p), Some(b'-' | b'+')) { p + 1 } else { p };
            self.src[q..].starts_with("%}").then_some(p)
        };
        if let (Some(open), Some(close)) = (open, close) {
            self.edits.push(Edit { start: open, end: open, how: How::Insert(" with %}{% ") });
            self.edits.push(Edit { start: close, end: close, how: How::Insert(" %}{% endwith ") });
        }
    }

    /// An import statement without `with context` (Jinja2's default for
    /// imports: the module sees only the environment's globals).
    fn without_context(&self, span: ast_span::Span) -> bool {
        let text = self.src.get(span.start_offset as usize..span.end_offset as usize).unwrap_or("");
        let text = text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '%' | '}' | '-' | '+'));
        let words: Vec<&str> = text.split_whitespace().collect();
        !words.ends_with(&["with", "context"])
    }

    /// The names an assignment target binds.
    fn bind(&mut self, e: &ast::Expr<'_>) {
        match e {
            ast::Expr::Var(v) => {
                self.bound.insert(v.id.to_string());
            }
            ast::Expr::List(l) => l.items.iter().for_each(|x| self.bind(x)),
            ast::Expr::Tuple(t) => t.items.iter().for_each(|x| self.bind(x)),
            _ => {}
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
            E::Var(v) => {
                let span = v.span();
                let free_loop = v.id == "loop" && self.for_depth == 0;
                self.vars.push((v.id.to_string(), span.start_offset as usize, span.end_offset as usize, free_loop));
            }
            E::Const(_) => {}
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
                        self.edits.push(Edit { start, end, how: How::Op { func, op } });
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

pub(super) fn syntax() -> SyntaxConfig {
    SyntaxConfig::builder().keep_trailing_newline(true).build().unwrap_or_default()
}

/// Parses the (normalised) source, rewrites `~` and `%`, and reports what it uses.
pub fn prepare(source: &str) -> Result<(String, Usage), TemplateError> {
    prepare_module(source, false)
}

/// [`prepare`], and where Jinja2 would not see a name, renames it to an
/// undefined one (`HIDDEN` + name): a `loop` outside any `for` of the
/// template (Jinja2 does not pass `loop` to an included template), and, when
/// `isolated` (a template imported without context), every name the template
/// does not bind itself and that is not a global.
pub fn prepare_module(source: &str, isolated: bool) -> Result<(String, Usage), TemplateError> {
    let ast = parse(source, "<template>", syntax()).map_err(|e| with_column(error_of(&e, true), &e, source))?;
    let mut sc = Scanner {
        edits: Vec::new(),
        usage: Usage::default(),
        unknown_tag: None,
        src: source,
        for_depth: 0,
        vars: Vec::new(),
        bound: Default::default(),
    };
    sc.stmt(&ast);
    for (name, start, end, free_loop) in std::mem::take(&mut sc.vars) {
        let hide = if name == "loop" {
            free_loop
        } else {
            isolated && !sc.bound.contains(&name) && !GLOBALS.contains(&name.as_str())
        };
        if hide && source.get(start..end) == Some(name.as_str()) {
            sc.edits.push(Edit { start, end, how: How::Rename(format!("{HIDDEN}{name}")) });
        }
    }
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
    let rank = |h: &How| u8::from(matches!(h, How::Rename(_)));
    edits.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)).then(rank(&a.how).cmp(&rank(&b.how))));
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
        let (start, end) = (e.start, e.end);
        out.push_str(&src[pos..start]);
        *i += 1;
        match &e.how {
            How::Op { func, op } => {
                let op = *op;
                out.push_str(func);
                out.push_str("((");
                emit(src, edits, i, start, op, out);
                out.push_str("), (");
                emit(src, edits, i, op + 1, end, out);
                out.push_str("))");
            }
            How::Wrap(func) => {
                out.push_str(func);
                out.push_str("((");
                emit(src, edits, i, start, end, out);
                out.push_str("))");
            }
            How::Insert(text) => {
                out.push_str(text);
                pos = start;
                continue;
            }
            How::Rename(name) => {
                out.push_str(name);
                while *i < edits.len() && edits[*i].start < end {
                    *i += 1;
                }
            }
        }
        pos = end;
    }
    out.push_str(&src[pos..hi]);
}
