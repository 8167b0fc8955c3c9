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

mod args;
mod errors;
mod filters;
mod json;
mod load;
mod methods;
mod operators;
mod pystr;
mod rewrite;

use std::collections::BTreeSet;

use minijinja::value::{Rest, Value};
use minijinja::{AutoEscape, Environment, Error, ErrorKind, UndefinedBehavior};

use super::pyfmt::{self, py_str};
use errors::with_column;
use filters::*;
use methods::method_callback;
use operators::{op_concat, op_mod};
use rewrite::{syntax, CONCAT_FN, LOAD_FN, MOD_FN, NC_FN};

pub use errors::{error_of, TemplateError};
pub use load::{
    normalize_name, render_loading, LoadError, LoadedUsage, MAX_LOADS, MAX_ROUNDS, MAX_SOURCE, MAX_TEMPLATES,
};
pub use pystr::py_splitlines;
pub use rewrite::{prepare, prepare_module, Usage, HIDDEN, NO_CONTEXT};
use rewrite::{LOAD_FN as LOAD_FN_NAME, NC_FN as NC_FN_NAME};

/// Instruction budget for one render: far above any real template (a
/// 2,000-turn history takes well under a million), it stops a runaway loop in
/// the browser instead of hanging the tab.
pub const FUEL: u64 = 200_000_000;

/// Jinja2's template source handling: `\r\n` and `\r` become `\n`, and one
/// trailing newline is dropped (`keep_trailing_newline=False`).
pub fn normalize_source(template: &str) -> String {
    let mut s = template.replace("\r\n", "\n").replace('\r', "\n");
    if s.ends_with('\n') {
        s.pop();
    }
    s
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
    env.add_filter("urlencode", f_urlencode);
    for name in ["random", "urlize", "xmlattr"] {
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
    env.add_function(NC_FN, |name: Value| no_context_name(name));
    env.add_function(LOAD_FN, |name: Value| name);
    env
}

/// A template name imported without context, marked [`NO_CONTEXT`].
fn no_context_name(name: Value) -> Value {
    match name.as_str() {
        Some(s) => Value::from(format!("{NO_CONTEXT}{s}")),
        None => name,
    }
}

/// Renders prepared (rewritten) source with `ctx`.
pub fn render(env: &Environment<'static>, source: &str, ctx: Value) -> Result<String, TemplateError> {
    let tmpl = env.template_from_str(source).map_err(|e| with_column(error_of(&e, true), &e, source))?;
    tmpl.render(ctx).map_err(|e| with_column(error_of(&e, false), &e, source))
}

/// Names of the filters, tests, methods and functions whose results pep
/// renders differently from Jinja2 (or not at all), with why.
pub fn inexact_reason(kind: &str, name: &str) -> Option<&'static str> {
    match (kind, name) {
        ("filter", "random") => Some("is random"),
        ("filter", "urlize" | "xmlattr") => Some("is not reproduced (pep stops with an error)"),
        ("filter", "pprint") => Some("prints like repr(); Python's pprint wraps long values at 80 columns"),
        ("filter", "wordwrap") => Some("follows textwrap for plain text; hyphen and long-word details may differ"),
        ("filter", "striptags") => Some("unescapes only numeric and basic named HTML entities"),
        ("filter", "groupby") => Some("groups print differently when printed whole (Jinja2: _GroupTuple(...))"),
        (
            "filter",
            "reverse" | "map" | "select" | "reject" | "selectattr" | "rejectattr" | "batch" | "slice" | "items",
        ) => None,
        ("function", "lipsum") => Some("is random"),
        ("function", "range") => None,
        ("method", "keys" | "values" | "items") => Some("printed directly, Python shows dict_keys([...]) and the like"),
        ("method", "format") => Some("format specs go through minijinja's str.format"),
        (
            "method",
            "append" | "extend" | "insert" | "pop" | "remove" | "update" | "clear" | "setdefault" | "sort" | "reverse"
            | "popitem" | "add" | "discard",
        ) => Some(
            "mutates a list or dict in Python; minijinja's values cannot change (pep stops with an error; use `namespace()` or filters)",
        ),
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
