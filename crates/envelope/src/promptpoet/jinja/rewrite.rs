//! Finding `~` and `%` in the template's syntax tree and rewriting each
//! `a ~ b` / `a % b`, in the source, to a call of the function with Python's
//! semantics (`super::operators`); what the template uses, for warnings.

use minijinja::machinery::{ast, parse};
use minijinja::syntax::SyntaxConfig;

use super::errors::{error_of, with_column, TemplateError};

pub(super) const CONCAT_FN: &str = "__pp_concat";
pub(super) const MOD_FN: &str = "__pp_mod";

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

pub(super) fn syntax() -> SyntaxConfig {
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
