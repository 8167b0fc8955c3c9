//! Errors both ways: a minijinja error as Python's class and message
//! (`TemplateError`), and the Python errors the filters, methods and
//! operators raise, as minijinja errors.

use minijinja::value::Value;
use minijinja::{Error, ErrorKind};

use crate::promptpoet::pyfmt::PyError;

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
    let message = jinja2_undefined_wording(&message).replace(super::HIDDEN, "");
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

pub(super) fn py_err(e: PyError) -> Error {
    let kind = if e.class == "UndefinedError" { ErrorKind::UndefinedError } else { ErrorKind::InvalidOperation };
    Error::new(kind, format!("{}: {}", e.class, e.message))
}

pub(super) fn err(class: &str, message: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidOperation, format!("{class}: {message}"))
}

pub(super) fn undefined_err(v: &Value) -> Error {
    let _ = v;
    Error::new(ErrorKind::UndefinedError, "UndefinedError: a value is undefined")
}

/// What a filter or a function answers.
pub(super) type FResult = Result<Value, Error>;

/// The error's column, from minijinja's span in `source`, when the span
/// starts on the error's line (`prepare`'s rewrites keep lines, not always
/// columns: a column after a rewritten `~` or `%` on the same line may be
/// off by the rewrite's length).
pub(super) fn with_column(mut t: TemplateError, e: &Error, source: &str) -> TemplateError {
    // Calling an undefined name: Jinja2 says which (`'f' is undefined`).
    if t.message == "value of type undefined is not callable" {
        let callee = e.range().and_then(|r| source.get(r)).and_then(|text| {
            let name: String = text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            (!name.is_empty() && text[name.len()..].trim_start().starts_with('(')).then_some(name)
        });
        if let Some(name) = callee {
            t.class = "UndefinedError".into();
            t.message = format!("'{}' is undefined", name.strip_prefix(super::HIDDEN).unwrap_or(&name));
        }
    }
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
