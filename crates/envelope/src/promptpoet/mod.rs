//! PromptPoet templates (feature `templates`): render a YAML + Jinja2 template
//! with JSON data exactly as prompt-poet 0.0.52 renders
//! `Prompt(template_path=FILE, template_data=DATA)`, and turn the result into
//! an envelope.
//!
//! The pipeline is prompt-poet's (`prompt.py` `Prompt.__init__`, lines
//! 102–161): compile the template ([`jinja`]), check the reserved data keys,
//! render, `yaml.load` the text ([`yaml`]), build one part per list item,
//! clean each part's content (`strip()`, `<|space|>`, the global unescape),
//! and concatenate `string`. Every place prompt-poet raises is an error here,
//! with the template line where Jinja2 knows one. docs/PROMPTPOET.md lists
//! the findings with references into prompt-poet's source, and what differs.

mod envelope;
pub mod jinja;
pub mod pyfmt;
mod tables;
mod truncation;
pub mod yaml;

use std::fmt;

use minijinja::value::Value;
use serde_json::json;

use crate::diag::{Diagnostic, Rule};
pub use envelope::to_envelope;
pub use truncation::{plan as plan_truncation, priority_ranks, report as truncation_report, TemplateTruncateError};
pub use yaml::PyValue;

/// prompt-poet's `SPACE_MARKER`.
pub const SPACE_MARKER: &str = "<|space|>";

/// One rendered part, PromptPoet's `PromptPart` (the fields it prints).
/// Field types are not checked by prompt-poet, so `name`, `role` and
/// `truncation_priority` hold whatever the YAML gave; `content` must be a
/// string for `string` to exist (else prompt-poet raises, and so does [`render`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub name: PyValue,
    /// `"user"` unless the template says otherwise.
    pub role: PyValue,
    pub content: String,
    /// `0` unless the template says otherwise.
    pub truncation_priority: PyValue,
}

impl Part {
    /// `{"name","role","content","truncation_priority"}` in PromptPoet's shape.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "name": self.name.to_json(),
            "role": self.role.to_json(),
            "content": self.content,
            "truncation_priority": self.truncation_priority.to_json(),
        })
    }

    /// The role when it is a string.
    pub fn role_str(&self) -> Option<&str> {
        match &self.role {
            PyValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The priority as prompt-poet's truncation compares it: ints and bools;
    /// `None` for anything else (prompt-poet raises `TypeError` there, or, for
    /// floats, orders them in a way pep does not plan).
    pub fn priority_int(&self) -> Option<i128> {
        match &self.truncation_priority {
            PyValue::Int(n) => Some(*n),
            PyValue::Bool(b) => Some(i128::from(*b)),
            PyValue::Float(f) if f.fract() == 0.0 && f.abs() < 1e18 => Some(*f as i128),
            _ => None,
        }
    }
}

/// A rendered template: prompt-poet's `parts`, `string` and `messages`.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    pub parts: Vec<Part>,
    /// The parts' contents concatenated, without separators.
    pub string: String,
    /// The text Jinja2 produced (what was read as YAML).
    pub yaml: String,
    /// Constructs rendered differently from prompt-poet, each with its rule.
    pub warnings: Vec<Diagnostic>,
}

impl Rendered {
    /// `[{"role", "content"}]`, one per part.
    pub fn messages(&self) -> Vec<serde_json::Value> {
        self.parts.iter().map(|p| json!({"role": p.role.to_json(), "content": p.content})).collect()
    }

    /// `{"parts":[…],"string":…,"messages":[…]}`.
    pub fn to_json(&self) -> serde_json::Value {
        json!({
            "parts": self.parts.iter().map(Part::to_json).collect::<Vec<_>>(),
            "string": self.string,
            "messages": self.messages(),
        })
    }
}

/// Where the render failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The data is not a JSON object (prompt-poet takes a dict).
    Data,
    /// Compiling the template (`TemplateSyntaxError`, `TemplateAssertionError`).
    Syntax,
    /// Rendering it (`UndefinedError`, or a Python error inside an expression).
    Render,
    /// Reading the rendered text as YAML.
    Yaml,
    /// Building the parts (prompt-poet's own checks and Python's argument rules).
    Parts,
}

impl Stage {
    pub fn rule(self) -> Rule {
        match self {
            Stage::Data => Rule::TemplateData,
            Stage::Syntax => Rule::TemplateSyntax,
            Stage::Render => Rule::TemplateRender,
            Stage::Yaml => Rule::TemplateYaml,
            Stage::Parts => Rule::TemplatePart,
        }
    }
}

/// Why a template did not render: where prompt-poet raises.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderError {
    pub stage: Stage,
    /// The Python exception class prompt-poet raises (`TypeError`,
    /// `UndefinedError`, `ScannerError`, …); for YAML syntax errors the class
    /// may be `ScannerError` where PyYAML says `ParserError`.
    pub class: String,
    pub message: String,
    /// The loaded template (`include`, `import`, `extends`) the error is in,
    /// as the loader was asked for it; `None`: the template rendered.
    pub template: Option<String>,
    /// 1-based line in the template (in `template` when it is set).
    pub line: Option<usize>,
    /// 1-based column in the template, where known.
    pub column: Option<usize>,
    /// 1-based line in the rendered text (YAML errors).
    pub rendered_line: Option<usize>,
    /// That line's text, for showing.
    pub rendered_text: Option<String>,
    /// Warnings found before the failure.
    pub warnings: Vec<Diagnostic>,
}

impl RenderError {
    fn new(stage: Stage, class: impl Into<String>, message: impl Into<String>) -> Box<Self> {
        Box::new(RenderError {
            stage,
            class: class.into(),
            message: message.into(),
            template: None,
            line: None,
            column: None,
            rendered_line: None,
            rendered_text: None,
            warnings: Vec::new(),
        })
    }

    /// The error as a diagnostic (path `line N` or `rendered line N`).
    pub fn diagnostic(&self) -> Diagnostic {
        let path = match (&self.template, self.line, self.rendered_line) {
            (Some(t), Some(l), _) => format!("{t} line {l}"),
            (Some(t), None, _) => t.clone(),
            (None, Some(l), _) => format!("line {l}"),
            (None, None, Some(r)) => format!("rendered line {r}"),
            _ => String::new(),
        };
        let mut d = Diagnostic::new(self.stage.rule(), path, format!("{}: {}", self.class, self.message));
        if let Some(t) = &self.rendered_text {
            d = d.with_hint(format!("the rendered line reads: {}", t.trim_end()));
        }
        d
    }
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.diagnostic().fmt(f)
    }
}

impl std::error::Error for RenderError {}

// ---------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------

/// JSON → template value, as `json.load` gives Python values: integers stay
/// integers, `1.0` stays a float; integers beyond 128 bits (Python keeps them
/// exact) become floats, noted in `inexact`.
fn to_value(v: &serde_json::Value, inexact: &mut bool) -> Value {
    match v {
        serde_json::Value::Null => Value::from(()),
        serde_json::Value::Bool(b) => Value::from(*b),
        serde_json::Value::Number(n) => {
            let text = n.to_string();
            let is_int = !text.contains(['.', 'e', 'E']);
            if is_int {
                if let Ok(i) = text.parse::<i64>() {
                    return Value::from(i);
                }
                if let Ok(i) = text.parse::<i128>() {
                    return Value::from(i);
                }
                if let Ok(u) = text.parse::<u128>() {
                    return Value::from(u);
                }
                *inexact = true;
            }
            Value::from(text.parse::<f64>().unwrap_or(f64::NAN))
        }
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(a) => Value::from(a.iter().map(|x| to_value(x, inexact)).collect::<Vec<_>>()),
        serde_json::Value::Object(o) => {
            Value::from_pairs(o.iter().map(|(k, x)| (Value::from(k.as_str()), to_value(x, inexact))))
        }
    }
}

// ---------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------

fn inexact(line: Option<usize>, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Rule::TemplateInexact, line.map(|l| format!("line {l}")).unwrap_or_default(), message)
}

const JINJA_FILTERS: &[&str] = &[
    "abs",
    "attr",
    "batch",
    "capitalize",
    "center",
    "count",
    "d",
    "default",
    "dictsort",
    "e",
    "escape",
    "filesizeformat",
    "first",
    "float",
    "forceescape",
    "format",
    "groupby",
    "indent",
    "int",
    "items",
    "join",
    "last",
    "length",
    "list",
    "lower",
    "map",
    "max",
    "min",
    "pprint",
    "random",
    "reject",
    "rejectattr",
    "replace",
    "reverse",
    "round",
    "safe",
    "select",
    "selectattr",
    "slice",
    "sort",
    "string",
    "striptags",
    "sum",
    "title",
    "tojson",
    "trim",
    "truncate",
    "unique",
    "upper",
    "urlencode",
    "urlize",
    "wordcount",
    "wordwrap",
    "xmlattr",
];

const JINJA_TESTS: &[&str] = &[
    "!=",
    "<",
    "<=",
    "==",
    ">",
    ">=",
    "boolean",
    "callable",
    "defined",
    "divisibleby",
    "eq",
    "equalto",
    "escaped",
    "even",
    "false",
    "filter",
    "float",
    "ge",
    "greaterthan",
    "gt",
    "in",
    "integer",
    "iterable",
    "le",
    "lessthan",
    "lower",
    "lt",
    "mapping",
    "ne",
    "none",
    "number",
    "odd",
    "sameas",
    "sequence",
    "string",
    "test",
    "true",
    "undefined",
    "upper",
];

/// Static warnings about what the template uses.
fn usage_warnings(usage: &jinja::Usage) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let mut add = |kind: &str, name: &str, line: usize, out: &mut Vec<Diagnostic>| {
        if let Some(why) = jinja::inexact_reason(kind, name) {
            if seen.insert((kind.to_string(), name.to_string())) {
                out.push(inexact(Some(line), format!("the `{name}` {kind} {why}")));
            }
        }
    };
    for (n, l) in &usage.filters {
        add("filter", n, *l, &mut out);
    }
    for (n, l) in &usage.methods {
        add("method", n, *l, &mut out);
    }
    for (n, l) in &usage.functions {
        add("function", n, *l, &mut out);
    }
    out
}

/// Filters and tests Jinja2 does not know: a `TemplateAssertionError` when
/// the template compiles.
fn check_usage(usage: &jinja::Usage) -> Result<(), jinja::TemplateError> {
    let fail = |message: String, line: usize| jinja::TemplateError {
        class: "TemplateAssertionError".into(),
        message,
        line: Some(line),
        column: None,
        syntax: true,
    };
    if let Some((name, line)) = usage.filters.iter().find(|(n, _)| !JINJA_FILTERS.contains(&n.as_str())) {
        return Err(fail(format!("No filter named '{name}'."), *line));
    }
    if let Some((name, line)) = usage.tests.iter().find(|(n, _)| !JINJA_TESTS.contains(&n.as_str())) {
        return Err(fail(format!("No test named '{name}'."), *line));
    }
    Ok(())
}

/// Renders `template` with `data` as prompt-poet 0.0.52 renders a template
/// file alone in its folder: `include`, `import` and `extends` find nothing
/// (`TemplateNotFound`). The error is boxed: it carries the warnings found
/// before it.
pub fn render(template: &str, data: &serde_json::Value) -> Result<Rendered, Box<RenderError>> {
    render_with(template, data, &|_| None)
}

/// Renders `template` with `data` as prompt-poet 0.0.52 renders
/// `Prompt(template_path=FOLDER/FILE, template_data=DATA)`: `include`,
/// `import`, `from … import` and `extends` load the templates they name
/// through `loader`.
///
/// The loader contract: it is asked for a name relative to the template's
/// folder, already resolved as Jinja2's `FileSystemLoader` resolves it
/// (`/`-separated, no empty, `.` or `..` piece, no backslash, never
/// absolute — [`jinja::normalize_name`]); it answers the file's text, or
/// `None` when there is no such file (or it must not be read: a loader over
/// a real folder also refuses what resolves outside it, e.g. through a
/// symbolic link). It may be asked for a name the render never reaches
/// (constant names are fetched ahead) and at most [`jinja::MAX_TEMPLATES`]
/// times per render.
pub fn render_with(
    template: &str,
    data: &serde_json::Value,
    loader: &dyn Fn(&str) -> Option<String>,
) -> Result<Rendered, Box<RenderError>> {
    let mut warnings = Vec::new();
    let fail = |mut e: Box<RenderError>, warnings: &Vec<Diagnostic>| {
        e.warnings = warnings.clone();
        Err(e)
    };

    // 1. Template(...) compiles the template (template.py line 160 / 169–170).
    // A byte-order mark stays in the source (Jinja2's loader reads UTF-8, not
    // UTF-8-SIG); libyaml skips it at the start of the rendered text.
    let source = jinja::normalize_source(template);
    let (prepared, usage) = match jinja::prepare(&source) {
        Ok(x) => x,
        Err(e) => {
            let mut err = RenderError::new(Stage::Syntax, e.class, e.message);
            err.line = e.line;
            err.column = e.column;
            return fail(err, &warnings);
        }
    };
    if let Err(e) = check_usage(&usage) {
        let mut err = RenderError::new(Stage::Syntax, e.class, e.message);
        err.line = e.line;
        return fail(err, &warnings);
    }
    warnings.extend(usage_warnings(&usage));

    // 2. _load_special_template_data (prompt.py lines 557–577).
    let Some(obj) = data.as_object() else {
        return fail(RenderError::new(Stage::Data, "TypeError", "the template data must be a JSON object"), &warnings);
    };
    for key in ["token_limit", "escape_special_characters"] {
        if obj.contains_key(key) {
            return fail(
                RenderError::new(
                    Stage::Parts,
                    "ValueError",
                    format!("`{key}` is a reserved key in the template data."),
                ),
                &warnings,
            );
        }
    }
    let mut big_ints = false;
    let mut ctx: Vec<(Value, Value)> =
        obj.iter().map(|(k, v)| (Value::from(k.as_str()), to_value(v, &mut big_ints))).collect();
    if big_ints {
        warnings.push(inexact(
            None,
            "the data holds integers beyond 128 bits; pep reads them as floats (Python keeps them exact)",
        ));
    }
    ctx.push((Value::from("token_limit"), Value::from(-1)));
    ctx.push((
        Value::from("escape_special_characters"),
        Value::from_function(|s: Value| -> Result<Value, minijinja::Error> {
            match s.as_str() {
                Some(s) => Ok(Value::from(jinja::escape_special_characters(s))),
                None if s.is_undefined() => Err(minijinja::Error::new(
                    minijinja::ErrorKind::UndefinedError,
                    "UndefinedError: the value passed to escape_special_characters is undefined",
                )),
                None => Err(minijinja::Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    "AttributeError: the value passed to escape_special_characters has no attribute 'replace'",
                )),
            }
        }),
    ));

    // 3. render_template (template.py line 110).
    let env = jinja::environment();
    let rendered = if usage.loads.is_empty() {
        jinja::render(env, &prepared, Value::from_pairs(ctx)).map_err(|e| (e, None))
    } else {
        let mut usages = jinja::LoadedUsage::new();
        let loaded =
            jinja::render_loading(env, &prepared, &usage, Value::from_pairs(ctx), loader, &check_usage, &mut usages);
        let result = loaded.map_err(|e| (e.error, e.template));
        for (name, u) in &usages {
            for mut w in usage_warnings(u) {
                w.path = if w.path.is_empty() { name.clone() } else { format!("{name} {}", w.path) };
                warnings.push(w);
            }
        }
        result
    };
    let text = match rendered {
        Ok(t) => t,
        Err((e, template)) => {
            let stage = if e.syntax { Stage::Syntax } else { Stage::Render };
            let mut err = RenderError::new(stage, e.class, e.message);
            err.template = template;
            err.line = e.line;
            err.column = e.column;
            return fail(err, &warnings);
        }
    };

    // 4. yaml.load(..., Loader=yaml.CSafeLoader) (prompt.py line 645).
    let mut notes = yaml::LoadNotes::default();
    let loaded = match yaml::load(&text, &mut notes) {
        Ok(v) => v,
        Err(e) => {
            let mut err = RenderError::new(Stage::Yaml, e.class, e.message);
            err.rendered_line = e.line;
            err.rendered_text = e.line.and_then(|l| text.split('\n').nth(l.saturating_sub(1))).map(str::to_string);
            return fail(err, &warnings);
        }
    };
    if notes.line_separators {
        warnings.push(inexact(
            None,
            "the rendered text holds U+2028/U+2029: libyaml breaks lines there; pep follows it, but folded and plain scalars may differ (escape data with escape_special_characters)",
        ));
    }
    if notes.unordered_or_unprintable {
        warnings.push(inexact(None, "the YAML holds a !!set; Python orders sets by hash"));
    }

    // 5. The parts (prompt.py lines 647–672).
    let data_keys: Vec<&str> =
        obj.keys().map(String::as_str).chain(["token_limit", "escape_special_characters"]).collect();
    let items: Vec<PyValue> = match loaded {
        PyValue::List(items) | PyValue::Set(items) => items,
        PyValue::Str(s) => s.chars().map(|c| PyValue::Str(c.to_string())).collect(),
        PyValue::Dict(pairs) => pairs.into_iter().map(|(k, _)| k).collect(),
        PyValue::Bytes(b) => b.into_iter().map(|x| PyValue::Int(i128::from(x))).collect(),
        other => {
            let name = match &other {
                PyValue::Date(_) => "datetime.date".to_string(),
                PyValue::DateTime(_) => "datetime.datetime".to_string(),
                o => o.type_name().to_string(),
            };
            return fail(
                RenderError::new(Stage::Parts, "TypeError", format!("object of type '{name}' has no len()")),
                &warnings,
            );
        }
    };
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        match build_part(item, &data_keys) {
            Ok(p) => parts.push(p),
            Err(e) => return fail(e, &warnings),
        }
    }

    // 6. `string` (prompt.py line 294): fails on the first non-str content.
    let mut string = String::new();
    let mut contents = Vec::with_capacity(parts.len());
    for p in parts {
        match p {
            (part, None) => {
                string.push_str(&part.content);
                contents.push(part);
            }
            (_, Some(bad)) => {
                return fail(
                    RenderError::new(
                        Stage::Parts,
                        "TypeError",
                        format!("can only concatenate str (not \"{}\") to str", bad.type_name()),
                    ),
                    &warnings,
                );
            }
        }
    }
    Ok(Rendered { parts: contents, string, yaml: text, warnings })
}

fn py_in(container: &PyValue, key: &str) -> Result<bool, Box<RenderError>> {
    Ok(match container {
        PyValue::Dict(pairs) => pairs.iter().any(|(k, _)| matches!(k, PyValue::Str(s) if s == key)),
        PyValue::List(items) | PyValue::Set(items) => items.iter().any(|v| matches!(v, PyValue::Str(s) if s == key)),
        PyValue::Str(s) => s.contains(key),
        PyValue::Bytes(_) => {
            return Err(RenderError::new(Stage::Parts, "TypeError", "a bytes-like object is required, not 'str'"));
        }
        other => {
            let name = match other {
                PyValue::Date(_) => "datetime.date",
                PyValue::DateTime(_) => "datetime.datetime",
                o => o.type_name(),
            };
            return Err(RenderError::new(
                Stage::Parts,
                "TypeError",
                format!("argument of type '{name}' is not iterable"),
            ));
        }
    })
}

fn dict_get<'a>(pairs: &'a [(PyValue, PyValue)], key: &str) -> Option<&'a PyValue> {
    pairs.iter().find(|(k, _)| matches!(k, PyValue::Str(s) if s == key)).map(|(_, v)| v)
}

fn truthy(v: &PyValue) -> bool {
    match v {
        PyValue::None => false,
        PyValue::Bool(b) => *b,
        PyValue::Int(n) => *n != 0,
        PyValue::BigInt(_) => true,
        PyValue::Float(f) => *f != 0.0,
        PyValue::Str(s) => !s.is_empty(),
        PyValue::Bytes(b) => !b.is_empty(),
        PyValue::Date(_) | PyValue::DateTime(_) => true,
        PyValue::List(v) | PyValue::Set(v) => !v.is_empty(),
        PyValue::Dict(v) => !v.is_empty(),
    }
}

const PART_FIELDS: [&str; 7] =
    ["name", "content", "role", "expected_template_data_keys", "tokens", "truncation_priority", "sections"];

/// `PromptPart(**kwargs)`: Python's argument binding of the dataclass.
fn bind_part(kwargs: Vec<(PyValue, PyValue)>) -> Result<[Option<PyValue>; 7], Box<RenderError>> {
    let mut slots: [Option<PyValue>; 7] = Default::default();
    let mut named: Vec<(String, PyValue)> = Vec::with_capacity(kwargs.len());
    for (k, v) in kwargs {
        match k {
            PyValue::Str(s) => named.push((s, v)),
            _ => return Err(RenderError::new(Stage::Parts, "TypeError", "keywords must be strings")),
        }
    }
    for (k, v) in named {
        if k == "self" {
            return Err(RenderError::new(
                Stage::Parts,
                "TypeError",
                "PromptPart.__init__() got multiple values for argument 'self'",
            ));
        }
        match PART_FIELDS.iter().position(|f| *f == k) {
            Some(i) => slots[i] = Some(v),
            None => {
                return Err(RenderError::new(
                    Stage::Parts,
                    "TypeError",
                    format!("PromptPart.__init__() got an unexpected keyword argument '{k}'"),
                ));
            }
        }
    }
    let missing: Vec<&str> =
        ["name", "content"].into_iter().enumerate().filter(|(i, _)| slots[*i].is_none()).map(|(_, n)| n).collect();
    match missing.as_slice() {
        [] => Ok(slots),
        [one] => Err(RenderError::new(
            Stage::Parts,
            "TypeError",
            format!("PromptPart.__init__() missing 1 required positional argument: '{one}'"),
        )),
        _ => Err(RenderError::new(
            Stage::Parts,
            "TypeError",
            "PromptPart.__init__() missing 2 required positional arguments: 'name' and 'content'",
        )),
    }
}

/// The global unescape (prompt.py lines 699–705): a literal backslash-n is a
/// newline, backslash-r a carriage return (the quote replacement is `'`→`'`).
fn unescape(s: &str) -> String {
    s.replace("\\n", "\n").replace("\\r", "\r")
}

/// `_cleanup_content` (prompt.py lines 681–685).
fn cleanup(s: &str) -> String {
    unescape(&pyfmt::py_strip(s).replace(SPACE_MARKER, " "))
}

/// Builds one part; the second value is the content when it is not a string
/// (prompt-poet keeps the part and fails later, on `string`).
fn build_part(item: PyValue, data_keys: &[&str]) -> Result<(Part, Option<PyValue>), Box<RenderError>> {
    let has_sections = py_in(&item, "sections")?;
    let (slots, content, sectioned) = if has_sections {
        let PyValue::Dict(pairs) = item else {
            return Err(RenderError::new(
                Stage::Parts,
                "AttributeError",
                format!("'{}' object has no attribute 'get'", item.type_name()),
            ));
        };
        let name_str = |pairs: &[(PyValue, PyValue)], default: Option<&str>| match dict_get(pairs, "name") {
            Some(v) => v.py_str(),
            None => default.unwrap_or("None").to_string(),
        };
        let sections = dict_get(&pairs, "sections").cloned().unwrap_or(PyValue::List(vec![]));
        if !truthy(&sections) {
            return Err(RenderError::new(
                Stage::Parts,
                "ValueError",
                format!("Part '{}' has empty sections field.", name_str(&pairs, Some("unknown"))),
            ));
        }
        let PyValue::List(sections) = sections else {
            return Err(RenderError::new(
                Stage::Parts,
                "ValueError",
                format!("Part '{}' sections must be a list.", name_str(&pairs, Some("unknown"))),
            ));
        };
        if dict_get(&pairs, "content").is_some() {
            return Err(RenderError::new(
                Stage::Parts,
                "ValueError",
                format!("Part '{}' cannot have both 'content' and 'sections'.", name_str(&pairs, None)),
            ));
        }
        for (idx, s) in sections.iter().enumerate() {
            let PyValue::Dict(sp) = s else {
                return Err(RenderError::new(Stage::Parts, "ValueError", format!("Section {idx} must be a dict.")));
            };
            for field in ["name", "content"] {
                if dict_get(sp, field).is_none() {
                    return Err(RenderError::new(
                        Stage::Parts,
                        "ValueError",
                        format!("Section {idx} missing '{field}' field."),
                    ));
                }
            }
        }
        let mut joined = String::new();
        for (idx, s) in sections.iter().enumerate() {
            let PyValue::Dict(sp) = s else { unreachable!("checked above") };
            match dict_get(sp, "content") {
                Some(PyValue::Str(c)) => {
                    let c = c.trim_start_matches([' ', '\t']).trim_end_matches([' ', '\t']).replace(SPACE_MARKER, " ");
                    joined.push_str(&unescape(&c));
                }
                Some(other) => {
                    return Err(RenderError::new(
                        Stage::Parts,
                        "TypeError",
                        format!("sequence item {idx}: expected str instance, {} found", other.type_name()),
                    ));
                }
                None => unreachable!("checked above"),
            }
        }
        let content = pyfmt::py_strip(&joined).to_string();
        let kwargs: Vec<(PyValue, PyValue)> = pairs
            .into_iter()
            .filter(|(k, _)| !matches!(k, PyValue::Str(s) if s == "sections" || s == "content"))
            .collect();
        let mut slots = {
            let mut with_content = kwargs;
            with_content.push((PyValue::Str("content".into()), PyValue::Str(content.clone())));
            bind_part(with_content)?
        };
        slots[6] = Some(PyValue::List(sections));
        (slots, PyValue::Str(content), true)
    } else {
        let PyValue::Dict(pairs) = item else {
            return Err(RenderError::new(
                Stage::Parts,
                "TypeError",
                format!(
                    "prompt_poet.prompt.PromptPart() argument after ** must be a mapping, not {}",
                    item.type_name()
                ),
            ));
        };
        let slots = bind_part(pairs)?;
        let content = slots[1].clone().unwrap_or(PyValue::None);
        (slots, content, false)
    };

    // tokens (prompt.py lines 655–658)
    if slots[4].as_ref().is_some_and(|t| *t != PyValue::None) {
        return Err(RenderError::new(
            Stage::Parts,
            "ValueError",
            "Token encoding is not allowed to be set in the template.",
        ));
    }
    // expected_template_data_keys (lines 674–679)
    if let Some(keys) = slots[3].as_ref().filter(|k| truthy(k)) {
        let listed: Vec<PyValue> = match keys {
            PyValue::List(v) | PyValue::Set(v) => v.clone(),
            PyValue::Dict(p) => p.iter().map(|(k, _)| k.clone()).collect(),
            PyValue::Str(s) => s.chars().map(|c| PyValue::Str(c.to_string())).collect(),
            other => {
                return Err(RenderError::new(
                    Stage::Parts,
                    "TypeError",
                    format!("'{}' object is not iterable", other.type_name()),
                ));
            }
        };
        let mut missing = Vec::new();
        for k in listed {
            if !k.py_str().is_empty() && matches!(k, PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_)) {
                return Err(RenderError::new(
                    Stage::Parts,
                    "TypeError",
                    format!("unhashable type: '{}'", k.type_name()),
                ));
            }
            let present = matches!(&k, PyValue::Str(s) if data_keys.contains(&s.as_str()));
            if !present {
                missing.push(k);
            }
        }
        if !missing.is_empty() {
            let repr = part_repr(&slots);
            return Err(RenderError::new(
                Stage::Parts,
                "ValueError",
                format!(
                    "Missing replacement values for keys: missing_keys={} part={repr}",
                    PyValue::List(missing).py_repr()
                ),
            ));
        }
    }
    let [name, _, role, _, _, priority, _] = slots;
    let part = |content: String| Part {
        name: name.clone().unwrap_or(PyValue::None),
        role: role.clone().unwrap_or(PyValue::Str("user".into())),
        content,
        truncation_priority: priority.clone().unwrap_or(PyValue::Int(0)),
    };
    Ok(match content {
        PyValue::Str(s) if sectioned => (part(s), None),
        PyValue::Str(s) => (part(cleanup(&s)), None),
        other => (part(String::new()), Some(other)),
    })
}

/// The dataclass repr of a part, before clean-up.
fn part_repr(slots: &[Option<PyValue>; 7]) -> String {
    let defaults = [
        PyValue::None,
        PyValue::None,
        PyValue::Str("user".into()),
        PyValue::None,
        PyValue::None,
        PyValue::Int(0),
        PyValue::None,
    ];
    let fields: Vec<String> = PART_FIELDS
        .iter()
        .zip(slots.iter().zip(defaults))
        .map(|(name, (v, d))| format!("{name}={}", v.clone().unwrap_or(d).py_repr()))
        .collect();
    format!("PromptPart({})", fields.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(t: &str, d: serde_json::Value) -> Rendered {
        render(t, &d).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn renders_the_seed_example() {
        let r = ok(
            "- name: system instructions\n  role: system\n  content: |\n    You are {{ name }}.\n\n- name: q\n  content: {{ q }}\n",
            json!({"name": "Poet", "q": "Hi"}),
        );
        assert_eq!(r.string, "You are Poet.Hi");
        assert_eq!(r.parts[1].role, PyValue::Str("user".into()));
        assert_eq!(r.parts[1].truncation_priority, PyValue::Int(0));
        assert_eq!(r.messages()[0], json!({"role": "system", "content": "You are Poet."}));
    }

    #[test]
    fn python_printing_and_operators() {
        let r = ok(
            "- name: a\n  content: \"{{ x }} {{ [1.0, none] }} {{ '%05.1f' % 2.25 }} {{ 'a' ~ true }}\"\n",
            json!({}),
        );
        assert_eq!(r.string, "[1.0, None] 002.2 aTrue");
    }

    #[test]
    fn errors_carry_class_and_line() {
        let e = render("- name: a\n  content: {{ x.y }}\n", &json!({})).unwrap_err();
        assert_eq!((e.stage, e.class.as_str(), e.line), (Stage::Render, "UndefinedError", Some(2)));
        let e = render("", &json!({})).unwrap_err();
        assert_eq!((e.class.as_str(), e.message.as_str()), ("TypeError", "object of type 'NoneType' has no len()"));
        let e = render("- name: a\n  content: x\n", &json!({"token_limit": 3})).unwrap_err();
        assert_eq!(e.class, "ValueError");
        let e = render("x", &json!([1])).unwrap_err();
        assert_eq!(e.stage, Stage::Data);
    }
}
