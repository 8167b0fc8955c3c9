//! `yaml.load(text, Loader=yaml.CSafeLoader)` as prompt-poet 0.0.52 calls it
//! (`prompt.py` line 645): libyaml's YAML 1.1 syntax and PyYAML's
//! `SafeLoader` types.
//!
//! yaml-rust2 reads the syntax (YAML 1.2, which agrees with libyaml on what
//! templates write); this module composes its events into nodes and applies
//! PyYAML's YAML 1.1 implicit resolution to plain scalars (`yes`/`on`/`off`
//! booleans, `010` octal, `1:30` sexagesimal, `0b`/`0x`, `1_000`, `.inf`,
//! dates and times, `~`), explicit tags (`!!str`, `!!int`, …), merge keys
//! (`<<`) and duplicate keys (the last value wins, in the first key's place).
//! Before parsing, the text gets libyaml's reader checks (control characters
//! are refused) and its line breaks: NEL (U+0085) is a line feed, LS/PS
//! (U+2028/9) end a line but stay in the text (see [`load`]).

use std::collections::HashMap;
use std::fmt;

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A Python value built by PyYAML's `SafeConstructor`.
#[derive(Clone, Debug, PartialEq)]
pub enum PyValue {
    None,
    Bool(bool),
    /// An `int` that fits 128 bits.
    Int(i128),
    /// A larger `int`, as its decimal digits (with `-`).
    BigInt(String),
    Float(f64),
    Str(String),
    /// `!!binary`.
    Bytes(Vec<u8>),
    /// `datetime.date` / `datetime.datetime`, as Python's `str()` prints it.
    Date(String),
    DateTime(String),
    List(Vec<PyValue>),
    /// Key order as Python's `dict` keeps it.
    Dict(Vec<(PyValue, PyValue)>),
    /// `!!set` (Python's iteration order is not reproduced: YAML order).
    Set(Vec<PyValue>),
}

impl PyValue {
    /// Python's type name, as `TypeError` messages spell it.
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::None => "NoneType",
            PyValue::Bool(_) => "bool",
            PyValue::Int(_) | PyValue::BigInt(_) => "int",
            PyValue::Float(_) => "float",
            PyValue::Str(_) => "str",
            PyValue::Bytes(_) => "bytes",
            PyValue::Date(_) => "date",
            PyValue::DateTime(_) => "datetime",
            PyValue::List(_) => "list",
            PyValue::Dict(_) => "dict",
            PyValue::Set(_) => "set",
        }
    }

    /// Python's `str(value)`.
    pub fn py_str(&self) -> String {
        match self {
            PyValue::Str(s) => s.clone(),
            PyValue::Date(s) | PyValue::DateTime(s) | PyValue::BigInt(s) => s.clone(),
            other => other.py_repr(),
        }
    }

    /// Python's `repr(value)`.
    pub fn py_repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            PyValue::None => out.push_str("None"),
            PyValue::Bool(true) => out.push_str("True"),
            PyValue::Bool(false) => out.push_str("False"),
            PyValue::Int(n) => out.push_str(&n.to_string()),
            PyValue::BigInt(s) => out.push_str(s),
            PyValue::Float(f) => out.push_str(&super::pyfmt::float_repr(*f)),
            PyValue::Str(s) => out.push_str(&super::pyfmt::str_repr(s)),
            PyValue::Bytes(b) => out.push_str(&super::pyfmt::bytes_repr(b)),
            PyValue::Date(s) => out.push_str(&date_repr(s)),
            PyValue::DateTime(s) => out.push_str(&datetime_repr(s)),
            PyValue::List(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write_repr(out);
                }
                out.push(']');
            }
            PyValue::Set(items) if items.is_empty() => out.push_str("set()"),
            PyValue::Set(items) => {
                out.push('{');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    v.write_repr(out);
                }
                out.push('}');
            }
            PyValue::Dict(pairs) => {
                out.push('{');
                for (i, (k, v)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write_repr(out);
                    out.push_str(": ");
                    v.write_repr(out);
                }
                out.push('}');
            }
        }
    }

    /// The JSON shape documented in docs/PROMPTPOET.md ("JSON shapes"): JSON
    /// types where they exist, floats as Python's repr (non-finite ones as
    /// strings), dates, times and bytes as `str()`, mapping keys as `str()`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            PyValue::None => J::Null,
            PyValue::Bool(b) => J::Bool(*b),
            PyValue::Int(n) => number(&n.to_string()),
            PyValue::BigInt(s) => number(s),
            PyValue::Float(f) if f.is_nan() => J::String("nan".into()),
            PyValue::Float(f) if f.is_infinite() => J::String(if *f > 0.0 { "inf" } else { "-inf" }.into()),
            PyValue::Float(f) => number(&super::pyfmt::float_repr(*f)),
            PyValue::Str(s) => J::String(s.clone()),
            PyValue::Bytes(_) | PyValue::Date(_) | PyValue::DateTime(_) => J::String(self.py_str()),
            PyValue::List(items) | PyValue::Set(items) => J::Array(items.iter().map(PyValue::to_json).collect()),
            PyValue::Dict(pairs) => {
                let mut map = serde_json::Map::new();
                for (k, v) in pairs {
                    map.insert(k.py_str(), v.to_json());
                }
                J::Object(map)
            }
        }
    }

    /// Python's `==` between keys (`1 == 1.0 == True`), for dict keys.
    fn key_eq(&self, other: &PyValue) -> bool {
        match (self.as_number(), other.as_number()) {
            (Some(a), Some(b)) => a == b,
            (None, None) => self == other,
            _ => false,
        }
    }

    fn as_number(&self) -> Option<f64> {
        match self {
            PyValue::Bool(b) => Some(f64::from(u8::from(*b))),
            PyValue::Int(n) => Some(*n as f64),
            PyValue::Float(f) => Some(*f),
            _ => None,
        }
    }

    fn hashable(&self) -> bool {
        !matches!(self, PyValue::List(_) | PyValue::Dict(_) | PyValue::Set(_))
    }
}

/// A JSON number from Python's text for it (exact with `arbitrary_precision`).
fn number(text: &str) -> serde_json::Value {
    serde_json::from_str::<serde_json::Number>(text).map(serde_json::Value::Number).unwrap_or(serde_json::Value::Null)
}

fn date_repr(s: &str) -> String {
    // "2024-06-24" → datetime.date(2024, 6, 24)
    let n: Vec<u32> = s.split('-').filter_map(|p| p.parse().ok()).collect();
    match n.as_slice() {
        [y, m, d] => format!("datetime.date({y}, {m}, {d})"),
        _ => s.to_string(),
    }
}

fn datetime_repr(s: &str) -> String {
    // Rarely printed (a datetime inside a list in a name); the str() form is
    // close enough to read and is marked inexact by the caller.
    format!("datetime.datetime({s})")
}

/// The YAML error classes PyYAML raises (`yaml.reader.ReaderError`,
/// `yaml.scanner.ScannerError`, `yaml.composer.ComposerError`,
/// `yaml.constructor.ConstructorError`), plus the Python errors that escape
/// constructors unwrapped (a `ValueError` for `2024-02-30`, a `KeyError` for
/// `!!bool maybe`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// `ReaderError`, `ScannerError` (also for what PyYAML calls `ParserError`:
    /// the two parsers split syntax errors differently), `ComposerError`,
    /// `ConstructorError`, `ValueError`, `KeyError`.
    pub class: &'static str,
    pub message: String,
    /// 1-based line of the rendered text, when known.
    pub line: Option<usize>,
    /// Character offset yaml-rust2 marked (for the quoted-scalar fix-up).
    at: Option<usize>,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}: {} (rendered line {l})", self.class, self.message),
            None => write!(f, "{}: {}", self.class, self.message),
        }
    }
}

impl YamlError {
    fn new(class: &'static str, message: impl Into<String>, line: Option<usize>) -> Self {
        YamlError { class, message: message.into(), line, at: None }
    }
}

/// Node count (aliases expanded) above which a document is refused: an alias
/// bomb would otherwise take all memory (PyYAML shares the objects instead).
pub const MAX_NODES: usize = 1_000_000;
/// Nesting depth above which a document is refused.
pub const MAX_DEPTH: usize = 256;

/// Stand-in for LS/PS while yaml-rust2 reads the text (see [`load`]).
const LS_MARK: char = '\u{10FFFE}';
const PS_MARK: char = '\u{10FFFF}';

#[derive(Debug)]
enum Node {
    Scalar { value: String, style: TScalarStyle, tag: Option<String>, line: usize, id: usize },
    Seq { items: Vec<Node>, tag: Option<String>, line: usize, id: usize },
    Map { pairs: Vec<(Node, Node)>, tag: Option<String>, line: usize, id: usize },
}

impl Node {
    fn line(&self) -> usize {
        match self {
            Node::Scalar { line, .. } | Node::Seq { line, .. } | Node::Map { line, .. } => *line,
        }
    }

    /// What PyYAML 6.0.4's merge compares keys by: `id(key_node.value)`. An
    /// alias shares its node's objects; CPython also shares the empty string
    /// and every one-character string below U+0100, so such keys are one
    /// object wherever they are written.
    fn merge_identity(&self) -> MergeId {
        match self {
            Node::Scalar { value, .. } if value.chars().count() <= 1 && value.chars().all(|c| (c as u32) < 0x100) => {
                MergeId::Interned(value.clone())
            }
            Node::Scalar { id, .. } | Node::Seq { id, .. } | Node::Map { id, .. } => MergeId::Node(*id),
        }
    }
}

#[derive(PartialEq, Eq, Hash)]
enum MergeId {
    Interned(String),
    Node(usize),
}

impl Node {
    fn deep_clone(&self, budget: &mut usize) -> Result<Node, YamlError> {
        *budget = budget.checked_sub(1).ok_or_else(too_large)?;
        Ok(match self {
            Node::Scalar { value, style, tag, line, id } => {
                Node::Scalar { value: value.clone(), style: *style, tag: tag.clone(), line: *line, id: *id }
            }
            Node::Seq { items, tag, line, id } => Node::Seq {
                items: items.iter().map(|n| n.deep_clone(budget)).collect::<Result<_, _>>()?,
                tag: tag.clone(),
                line: *line,
                id: *id,
            },
            Node::Map { pairs, tag, line, id } => Node::Map {
                pairs: pairs.iter().map(|(k, v)| Ok((k.deep_clone(budget)?, v.deep_clone(budget)?))).collect::<Result<
                    _,
                    YamlError,
                >>(
                )?,
                tag: tag.clone(),
                line: *line,
                id: *id,
            },
        })
    }
}

fn too_large() -> YamlError {
    YamlError::new(
        "ValueError",
        format!("the YAML expands (through aliases) to more than {MAX_NODES} nodes; refused"),
        None,
    )
}

/// libyaml's reader: the characters a YAML stream may hold.
fn allowed_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{7E}' | '\u{85}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        || ('\u{10000}'..='\u{10FFFF}').contains(&c)
}

/// Everything [`load`] found that it could not reproduce exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadNotes {
    /// The text held U+2028/U+2029 in a place where libyaml folds differently.
    pub line_separators: bool,
    /// A `!!set` (printed in YAML order, Python's is hash order) or a datetime
    /// printed inside a collection.
    pub unordered_or_unprintable: bool,
}

/// Parses `text` like `yaml.load(text, Loader=yaml.CSafeLoader)`.
///
/// An empty stream (only comments or white space) is `None`, like PyYAML.
/// NEL becomes a line feed before parsing, as libyaml reads it; U+2028/U+2029
/// become a stand-in character followed by a line feed, so that lines and
/// indentation break where libyaml breaks them, and the stand-ins are turned
/// back into the separators in the values (where libyaml keeps them in place
/// of the folded line feed).
pub fn load(text: &str, notes: &mut LoadNotes) -> Result<PyValue, YamlError> {
    if let Some((i, c)) = text.char_indices().find(|&(_, c)| !allowed_char(c)) {
        return Err(YamlError::new(
            "ReaderError",
            format!(
                "unacceptable character #x{:04x}: control characters are not allowed (position {})",
                c as u32,
                text[..i].chars().count()
            ),
            None,
        ));
    }
    let mut prepared = String::with_capacity(text.len());
    for c in text.strip_prefix('\u{feff}').unwrap_or(text).chars() {
        match c {
            '\u{85}' => prepared.push('\n'),
            '\u{2028}' => {
                notes.line_separators = true;
                prepared.push(LS_MARK);
                prepared.push('\n');
            }
            '\u{2029}' => {
                notes.line_separators = true;
                prepared.push(PS_MARK);
                prepared.push('\n');
            }
            c => prepared.push(c),
        }
    }
    let mut fixes = 0;
    let root = loop {
        match compose(&prepared) {
            Err(e) if e.message == "invalid indentation in quoted scalar" && fixes < MAX_QUOTED_FIXES => {
                match e.at.and_then(|at| indent_quoted(&prepared, at)) {
                    Some(fixed) => {
                        prepared = fixed;
                        fixes += 1;
                    }
                    None => return Err(e),
                }
            }
            other => break other?,
        }
    };
    let Some(root) = root else { return Ok(PyValue::None) };
    let mut ctx = Construct { notes, depth: 0 };
    ctx.construct(root)
}

/// Multi-line quoted scalars fixed up per document (each costs a re-parse).
const MAX_QUOTED_FIXES: usize = 2_000;

/// libyaml lets the continuation lines of a quoted scalar sit at any
/// indentation (`content: '{{ text }}'` with multi-line data); yaml-rust2
/// wants them inside the block. Leading white space of those lines is folded
/// away in either, so indenting them to the quote's column changes nothing
/// but lets yaml-rust2 read them. `at` is the quote's character offset; lines
/// that start a document marker (`---`, `...`) are left for the error.
fn indent_quoted(text: &str, at: usize) -> Option<String> {
    let start = text.char_indices().nth(at).map(|(i, _)| i)?;
    let quote = text[start..].chars().next()?;
    if quote != '\'' && quote != '"' {
        return None;
    }
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let pad = text[line_start..start].chars().count();
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(&text[..start + 1]);
    let mut chars = text[start + 1..].char_indices().peekable();
    let mut end = None;
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if quote == '"' => {
                out.push(c);
                if let Some((_, n)) = chars.next() {
                    out.push(n);
                    if n == '\n' {
                        push_pad(&mut out, &text[start + 1 + i + 2..], pad);
                    }
                }
            }
            '\'' if quote == '\'' && chars.peek().is_some_and(|&(_, n)| n == '\'') => {
                out.push_str("''");
                chars.next();
            }
            c if c == quote => {
                end = Some(start + 1 + i);
                break;
            }
            '\n' => {
                out.push('\n');
                push_pad(&mut out, &text[start + 1 + i + 1..], pad);
            }
            c => out.push(c),
        }
    }
    let end = end?;
    out.push_str(&text[end..]);
    Some(out)
}

fn push_pad(out: &mut String, rest: &str, pad: usize) {
    let marker = (rest.starts_with("---") || rest.starts_with("..."))
        && rest[3..].chars().next().is_none_or(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    if !marker {
        out.extend(std::iter::repeat_n(' ', pad));
    }
}

/// Events → one document's node tree (or `None` for an empty stream).
fn compose(text: &str) -> Result<Option<Node>, YamlError> {
    enum Open {
        Seq(Vec<Node>, Option<String>, usize, usize),
        Map(Vec<(Node, Node)>, Option<Node>, Option<String>, usize, usize),
    }
    fn line_of(mark: &Marker) -> usize {
        mark.line()
    }
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Open> = Vec::new();
    let mut anchors: HashMap<usize, Node> = HashMap::new();
    let mut documents = 0usize;
    let mut root: Option<Node> = None;
    let mut budget = MAX_NODES;
    let mut next_id = 0usize;
    let mut fresh = || {
        next_id += 1;
        next_id
    };
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            let mut line = e.marker().line();
            if e.info() == "while scanning a plain scalar, found a tab" {
                // yaml-rust2 marks the scalar's start; libyaml (and so PyYAML)
                // the line of the offending tab.
                if let Some(l) =
                    text.split('\n').enumerate().skip(line).find(|(_, l)| l.trim_start_matches(' ').starts_with('\t'))
                {
                    line = l.0 + 1;
                }
            }
            let mut err = YamlError::new("ScannerError", e.info().to_string(), Some(line));
            err.at = Some(e.marker().index());
            err
        })?;
        let line = line_of(&mark);
        let done: Option<(Node, usize)> = match event {
            Event::StreamEnd => break,
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(YamlError::new(
                        "ComposerError",
                        "expected a single document in the stream, but found another document",
                        Some(line),
                    ));
                }
                None
            }
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => None,
            Event::Alias(id) => {
                let node = anchors
                    .get(&id)
                    .ok_or_else(|| YamlError::new("ComposerError", "found undefined alias", Some(line)))?;
                Some((node.deep_clone(&mut budget)?, 0))
            }
            Event::Scalar(value, style, anchor, tag) => {
                budget = budget.checked_sub(1).ok_or_else(too_large)?;
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                Some((Node::Scalar { value, style, tag, line, id: fresh() }, anchor))
            }
            Event::SequenceStart(anchor, tag) => {
                budget = budget.checked_sub(1).ok_or_else(too_large)?;
                if stack.len() >= MAX_DEPTH {
                    return Err(YamlError::new(
                        "ValueError",
                        format!("YAML nested deeper than {MAX_DEPTH} levels"),
                        Some(line),
                    ));
                }
                stack.push(Open::Seq(Vec::new(), tag.map(|t| format!("{}{}", t.handle, t.suffix)), line, anchor));
                None
            }
            Event::MappingStart(anchor, tag) => {
                budget = budget.checked_sub(1).ok_or_else(too_large)?;
                if stack.len() >= MAX_DEPTH {
                    return Err(YamlError::new(
                        "ValueError",
                        format!("YAML nested deeper than {MAX_DEPTH} levels"),
                        Some(line),
                    ));
                }
                stack.push(Open::Map(Vec::new(), None, tag.map(|t| format!("{}{}", t.handle, t.suffix)), line, anchor));
                None
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Open::Seq(items, tag, line, anchor)) => {
                    Some((Node::Seq { items, tag, line, id: fresh() }, anchor))
                }
                _ => return Err(YamlError::new("ScannerError", "unbalanced sequence end", Some(line))),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Open::Map(pairs, None, tag, line, anchor)) => {
                    Some((Node::Map { pairs, tag, line, id: fresh() }, anchor))
                }
                _ => return Err(YamlError::new("ScannerError", "unbalanced mapping end", Some(line))),
            },
        };
        let Some((node, anchor)) = done else { continue };
        if anchor > 0 {
            let copy = node.deep_clone(&mut budget)?;
            anchors.insert(anchor, copy);
        }
        match stack.last_mut() {
            None => root = Some(node),
            Some(Open::Seq(items, ..)) => items.push(node),
            Some(Open::Map(pairs, pending, ..)) => match pending.take() {
                None => *pending = Some(node),
                Some(key) => pairs.push((key, node)),
            },
        }
    }
    Ok(root)
}

struct Construct<'a> {
    notes: &'a mut LoadNotes,
    depth: usize,
}

const TAG: &str = "tag:yaml.org,2002:";

impl Construct<'_> {
    fn construct(&mut self, node: Node) -> Result<PyValue, YamlError> {
        self.depth += 1;
        let out = self.construct_inner(node);
        self.depth -= 1;
        out
    }

    fn construct_inner(&mut self, node: Node) -> Result<PyValue, YamlError> {
        let line = Some(node.line());
        match node {
            Node::Scalar { value, style, tag, line: l, .. } => {
                let value = restore_separators(value);
                let tag: &str = match tag.as_deref() {
                    // `!` (non-specific): a string.
                    Some("!") => "tag:yaml.org,2002:str",
                    Some(t) => t,
                    None if style == TScalarStyle::Plain => resolve_plain(&value),
                    None => "tag:yaml.org,2002:str",
                };
                if tag == "tag:yaml.org,2002:str" {
                    return Ok(PyValue::Str(value));
                }
                self.construct_scalar(tag, value, Some(l))
            }
            Node::Seq { items, tag, .. } => {
                match tag.as_deref() {
                    None | Some("!") => {}
                    Some(t) if t == format!("{TAG}seq") => {}
                    Some(t) if t == format!("{TAG}omap") || t == format!("{TAG}pairs") => {
                        // Lists of one-pair mappings → list of (key, value) tuples.
                        let mut out = Vec::new();
                        for item in items {
                            let Node::Map { pairs, .. } = item else {
                                return Err(YamlError::new(
                                    "ConstructorError",
                                    format!("while constructing an ordered map: expected a mapping of length 1, but found {}", node_kind(&item)),
                                    line,
                                ));
                            };
                            if pairs.len() != 1 {
                                return Err(YamlError::new(
                                    "ConstructorError",
                                    format!("while constructing an ordered map: expected a single mapping item, but found {} items", pairs.len()),
                                    line,
                                ));
                            }
                            let (k, v) = pairs.into_iter().next().expect("one pair");
                            out.push(PyValue::List(vec![self.construct(k)?, self.construct(v)?]));
                        }
                        return Ok(PyValue::List(out));
                    }
                    Some(t) => return Err(unknown_tag(t, line)),
                }
                Ok(PyValue::List(items.into_iter().map(|n| self.construct(n)).collect::<Result<_, _>>()?))
            }
            Node::Map { pairs, tag, .. } => {
                let set = match tag.as_deref() {
                    None | Some("!") => false,
                    Some(t) if t == format!("{TAG}map") => false,
                    Some(t) if t == format!("{TAG}set") => true,
                    Some(t) => return Err(unknown_tag(t, line)),
                };
                let pairs = flatten_merge(pairs)?;
                let mut out: Vec<(PyValue, PyValue)> = Vec::with_capacity(pairs.len());
                for (k, v) in pairs {
                    let key_line = Some(k.line());
                    let key = self.construct(k)?;
                    if !key.hashable() {
                        return Err(YamlError::new(
                            "ConstructorError",
                            "while constructing a mapping: found unhashable key",
                            key_line,
                        ));
                    }
                    let value = self.construct(v)?;
                    match out.iter_mut().find(|(k, _)| k.key_eq(&key)) {
                        Some(slot) => slot.1 = value,
                        None => out.push((key, value)),
                    }
                }
                if set {
                    self.notes.unordered_or_unprintable = true;
                    return Ok(PyValue::Set(out.into_iter().map(|(k, _)| k).collect()));
                }
                Ok(PyValue::Dict(out))
            }
        }
    }

    fn construct_scalar(&mut self, tag: &str, value: String, line: Option<usize>) -> Result<PyValue, YamlError> {
        let Some(kind) = tag.strip_prefix(TAG) else {
            return Err(unknown_tag(tag, line));
        };
        Ok(match kind {
            "str" => PyValue::Str(value),
            "null" => PyValue::None,
            "bool" => match value.to_lowercase().as_str() {
                "yes" | "true" | "on" => PyValue::Bool(true),
                "no" | "false" | "off" => PyValue::Bool(false),
                other => return Err(YamlError::new("KeyError", format!("'{other}'"), line)),
            },
            "int" => construct_int(&value).ok_or_else(|| {
                YamlError::new(
                    "ValueError",
                    format!("invalid literal for int() with base 10: {}", super::pyfmt::str_repr(&value)),
                    line,
                )
            })?,
            "float" => PyValue::Float(construct_float(&value).ok_or_else(|| {
                YamlError::new(
                    "ValueError",
                    format!("could not convert string to float: {}", super::pyfmt::str_repr(&value)),
                    line,
                )
            })?),
            "timestamp" => construct_timestamp(&value).map_err(|m| YamlError::new("ValueError", m, line))?,
            "binary" => PyValue::Bytes(
                decode_base64(&value)
                    .ok_or_else(|| YamlError::new("ConstructorError", "failed to convert base64 data", line))?,
            ),
            "merge" => {
                // A `<<` anywhere but as a mapping key (PyYAML has no constructor for it).
                return Err(unknown_tag(tag, line));
            }
            "seq" | "map" | "set" | "omap" | "pairs" => {
                return Err(YamlError::new(
                    "ConstructorError",
                    format!("expected a {} node, but found scalar", if kind == "seq" { "sequence" } else { "mapping" }),
                    line,
                ))
            }
            _ => return Err(unknown_tag(tag, line)),
        })
    }
}

fn node_kind(node: &Node) -> &'static str {
    match node {
        Node::Scalar { .. } => "scalar",
        Node::Seq { .. } => "sequence",
        Node::Map { .. } => "mapping",
    }
}

fn unknown_tag(tag: &str, line: Option<usize>) -> YamlError {
    YamlError::new("ConstructorError", format!("could not determine a constructor for the tag '{tag}'"), line)
}

fn restore_separators(s: String) -> String {
    if !s.contains([LS_MARK, PS_MARK]) {
        return s;
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            LS_MARK | PS_MARK => {
                // The line feed (or, folded, the space) yaml-rust2 put after it
                // is the separator itself in libyaml's value.
                if matches!(chars.peek(), Some('\n' | ' ')) {
                    chars.next();
                }
                out.push(if c == LS_MARK { '\u{2028}' } else { '\u{2029}' });
            }
            c => out.push(c),
        }
    }
    out
}

fn is_merge_key(node: &Node) -> bool {
    match node {
        Node::Scalar { value, style, tag, .. } => match tag.as_deref() {
            Some(t) => t == "tag:yaml.org,2002:merge",
            None => *style == TScalarStyle::Plain && value == "<<",
        },
        _ => false,
    }
}

/// `SafeConstructor.flatten_mapping` as of PyYAML 6.0.4: the merged pairs
/// go first, in the order written (a list of mappings in list order), so the
/// mapping's own keys win and, among merged mappings, the later one — except
/// that a key object already merged is skipped ([`Node::merge_identity`]).
fn flatten_merge(pairs: Vec<(Node, Node)>) -> Result<Vec<(Node, Node)>, YamlError> {
    if !pairs.iter().any(|(k, _)| is_merge_key(k)) {
        return Ok(pairs);
    }
    let mut merged: Vec<(Node, Node)> = Vec::new();
    let mut seen: std::collections::HashSet<MergeId> = std::collections::HashSet::new();
    let mut own: Vec<(Node, Node)> = Vec::new();
    let mut take = |group: Vec<(Node, Node)>, merged: &mut Vec<(Node, Node)>| {
        for (k, v) in group {
            if seen.insert(k.merge_identity()) {
                merged.push((k, v));
            }
        }
    };
    for (k, v) in pairs {
        if !is_merge_key(&k) {
            own.push((k, v));
            continue;
        }
        let line = Some(v.line());
        match v {
            Node::Map { pairs, .. } => take(flatten_merge(pairs)?, &mut merged),
            Node::Seq { items, .. } => {
                for item in items {
                    match item {
                        Node::Map { pairs, .. } => take(flatten_merge(pairs)?, &mut merged),
                        other => {
                            return Err(YamlError::new(
                                "ConstructorError",
                                format!(
                                    "while constructing a mapping: expected a mapping for merging, but found {}",
                                    node_kind(&other)
                                ),
                                Some(other.line()),
                            ))
                        }
                    }
                }
            }
            other => {
                return Err(YamlError::new(
                    "ConstructorError",
                    format!(
                    "while constructing a mapping: expected a mapping or list of mappings for merging, but found {}",
                    node_kind(&other)
                ),
                    line,
                ))
            }
        }
    }
    merged.extend(own);
    Ok(merged)
}

// ---------------------------------------------------------------------------
// PyYAML's implicit resolvers (resolver.py), YAML 1.1
// ---------------------------------------------------------------------------

/// The tag PyYAML's `Resolver` gives an untagged plain scalar.
pub fn resolve_plain(v: &str) -> &'static str {
    if is_bool(v) {
        "tag:yaml.org,2002:bool"
    } else if is_float(v) {
        "tag:yaml.org,2002:float"
    } else if is_int(v) {
        "tag:yaml.org,2002:int"
    } else if v == "<<" {
        "tag:yaml.org,2002:merge"
    } else if matches!(v, "" | "~" | "null" | "Null" | "NULL") {
        "tag:yaml.org,2002:null"
    } else if is_timestamp(v) {
        "tag:yaml.org,2002:timestamp"
    } else if v == "=" {
        "tag:yaml.org,2002:value"
    } else {
        "tag:yaml.org,2002:str"
    }
}

fn is_bool(v: &str) -> bool {
    matches!(
        v,
        "yes"
            | "Yes"
            | "YES"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    )
}

fn strip_sign(v: &str) -> &str {
    v.strip_prefix(['-', '+']).unwrap_or(v)
}

/// `[0-9][0-9_]*` (at least one leading digit).
fn digits_underscores(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty() && b[0].is_ascii_digit() && b.iter().all(|c| c.is_ascii_digit() || *c == b'_')
}

/// `(?::[0-5]?[0-9])+` — the sexagesimal tail.
fn sexagesimal_tail(s: &str) -> bool {
    if s.is_empty() {
        return false;
    }
    s.split(':').skip(1).all(|part| {
        let b = part.as_bytes();
        match b.len() {
            1 => b[0].is_ascii_digit(),
            2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
            _ => false,
        }
    }) && s.starts_with(':')
}

/// `[eE][-+][0-9]+`, optional.
fn optional_exponent(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    let Some(rest) = s.strip_prefix(['e', 'E']) else { return false };
    let Some(digits) = rest.strip_prefix(['-', '+']) else { return false };
    !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
}

/// `[0-9_]*` followed by an optional exponent.
fn fraction_then_exponent(s: &str) -> bool {
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '_')).unwrap_or(s.len());
    optional_exponent(&s[end..])
}

fn is_float(v: &str) -> bool {
    // [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    let unsigned = strip_sign(v);
    if let Some(dot) = unsigned.find('.') {
        let (int, rest) = (&unsigned[..dot], &unsigned[dot + 1..]);
        if digits_underscores(int) && fraction_then_exponent(rest) {
            return true;
        }
        // [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
        if let Some(colon) = int.find(':') {
            if digits_underscores(&int[..colon])
                && sexagesimal_tail(&int[colon..])
                && rest.bytes().all(|c| c.is_ascii_digit() || c == b'_')
            {
                return true;
            }
        }
    }
    // \.[0-9][0-9_]*(?:[eE][-+][0-9]+)?   (no sign)
    if let Some(rest) = v.strip_prefix('.') {
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '_')).unwrap_or(rest.len());
        if rest.as_bytes().first().is_some_and(u8::is_ascii_digit) && optional_exponent(&rest[end..]) {
            return true;
        }
    }
    // [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
    matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(v, ".nan" | ".NaN" | ".NAN")
}

fn is_int(v: &str) -> bool {
    let u = strip_sign(v);
    let all = |s: &str, f: fn(u8) -> bool| !s.is_empty() && s.bytes().all(f);
    if let Some(b) = u.strip_prefix("0b") {
        return all(b, |c| c == b'0' || c == b'1' || c == b'_');
    }
    if let Some(x) = u.strip_prefix("0x") {
        return all(x, |c| c.is_ascii_hexdigit() || c == b'_');
    }
    if let Some(o) = u.strip_prefix('0') {
        return o.is_empty() || all(o, |c| (b'0'..=b'7').contains(&c) || c == b'_');
    }
    // [1-9][0-9_]* optionally with a sexagesimal tail
    let b = u.as_bytes();
    if b.is_empty() || !(b'1'..=b'9').contains(&b[0]) {
        return false;
    }
    match u.find(':') {
        None => b.iter().all(|c| c.is_ascii_digit() || *c == b'_'),
        Some(colon) => digits_underscores(&u[..colon]) && sexagesimal_tail(&u[colon..]),
    }
}

fn is_timestamp(v: &str) -> bool {
    parse_timestamp(v, true).is_some()
}

/// Hour, minute, second, fraction and zone as written.
type Clock<'a> = (&'a str, &'a str, &'a str, Option<&'a str>, Option<&'a str>);

struct Stamp<'a> {
    year: &'a str,
    month: &'a str,
    day: &'a str,
    time: Option<Clock<'a>>,
}

/// The timestamp regular expressions: `strict` is the resolver's (a date alone
/// needs two-digit month and day), otherwise the constructor's.
fn parse_timestamp(v: &str, strict: bool) -> Option<Stamp<'_>> {
    if !v.is_ascii() {
        return None;
    }
    let b = v.as_bytes();
    let digits =
        |s: &str, min: usize, max: usize| (min..=max).contains(&s.len()) && s.bytes().all(|c| c.is_ascii_digit());
    if b.len() < 8 || !digits(&v[..4], 4, 4) || b[4] != b'-' {
        return None;
    }
    let rest = &v[5..];
    let m_end = rest.find('-')?;
    let month = &rest[..m_end];
    let rest = &rest[m_end + 1..];
    let d_end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let day = &rest[..d_end];
    if !digits(month, 1, 2) || !digits(day, 1, 2) {
        return None;
    }
    let rest = &rest[d_end..];
    if rest.is_empty() {
        if strict && (month.len() != 2 || day.len() != 2) {
            return None;
        }
        return Some(Stamp { year: &v[..4], month, day, time: None });
    }
    // (?:[Tt]|[ \t]+)
    let rest = if let Some(r) = rest.strip_prefix(['T', 't']) {
        r
    } else {
        let r = rest.trim_start_matches([' ', '\t']);
        if r.len() == rest.len() {
            return None;
        }
        r
    };
    let h_end = rest.find(':')?;
    let hour = &rest[..h_end];
    let rest = &rest[h_end + 1..];
    if !digits(hour, 1, 2) || rest.len() < 5 {
        return None;
    }
    let minute = rest.get(..2)?;
    if !digits(minute, 2, 2) || rest.as_bytes()[2] != b':' {
        return None;
    }
    let second = rest.get(3..5)?;
    if !digits(second, 2, 2) {
        return None;
    }
    let mut rest = &rest[5..];
    let mut fraction = None;
    if let Some(r) = rest.strip_prefix('.') {
        let end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
        fraction = Some(&r[..end]);
        rest = &r[end..];
    }
    let rest = rest.trim_start_matches([' ', '\t']);
    let tz = if rest.is_empty() {
        None
    } else if rest == "Z" {
        Some("Z")
    } else {
        let sign = rest.as_bytes()[0];
        if sign != b'-' && sign != b'+' {
            return None;
        }
        let body = &rest[1..];
        let (h, m) = match body.find(':') {
            Some(i) => (&body[..i], Some(&body[i + 1..])),
            None => (body, None),
        };
        if !digits(h, 1, 2) || m.is_some_and(|m| !digits(m, 2, 2)) {
            return None;
        }
        Some(rest)
    };
    Some(Stamp { year: &v[..4], month, day, time: Some((hour, minute, second, fraction, tz)) })
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// `construct_yaml_timestamp` and `datetime`'s checks and `str()`.
fn construct_timestamp(v: &str) -> Result<PyValue, String> {
    let Some(st) = parse_timestamp(v, false) else {
        // PyYAML: `match` is None and `.groupdict()` fails.
        return Err("'NoneType' object has no attribute 'groupdict'".into());
    };
    let num = |s: &str| s.parse::<i64>().unwrap_or(0);
    let (year, month, day) = (num(st.year), num(st.month), num(st.day));
    if year < 1 {
        return Err(format!("year {year} is out of range"));
    }
    if !(1..=12).contains(&month) {
        return Err("month must be in 1..12".into());
    }
    if day < 1 || day > days_in_month(year, month) {
        return Err("day is out of range for month".into());
    }
    let date = format!("{year:04}-{month:02}-{day:02}");
    let Some((h, mi, s, fraction, tz)) = st.time else {
        return Ok(PyValue::Date(date));
    };
    let (h, mi, s) = (num(h), num(mi), num(s));
    if h > 23 {
        return Err("hour must be in 0..23".into());
    }
    if mi > 59 {
        return Err("minute must be in 0..59".into());
    }
    if s > 59 {
        return Err("second must be in 0..59".into());
    }
    let micro = match fraction {
        Some(f) if !f.is_empty() => {
            let mut f: String = f.chars().take(6).collect();
            while f.len() < 6 {
                f.push('0');
            }
            num(&f)
        }
        _ => 0,
    };
    let mut out = format!("{date} {h:02}:{mi:02}:{s:02}");
    if micro != 0 {
        out.push_str(&format!(".{micro:06}"));
    }
    match tz {
        None => {}
        Some("Z") => out.push_str("+00:00"),
        Some(tz) => {
            let negative = tz.starts_with('-');
            let body = &tz[1..];
            let (th, tm) = match body.find(':') {
                Some(i) => (num(&body[..i]), num(&body[i + 1..])),
                None => (num(body), 0),
            };
            let minutes = th * 60 + tm;
            if minutes >= 24 * 60 {
                return Err(
                    "offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24).".into(),
                );
            }
            let sign = if negative && minutes != 0 { '-' } else { '+' };
            out.push_str(&format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60));
        }
    }
    Ok(PyValue::DateTime(out))
}

/// `construct_yaml_int` (also for explicit `!!int`, where Python's `int()` may fail).
fn construct_int(value: &str) -> Option<PyValue> {
    let v: String = value.chars().filter(|&c| c != '_').collect();
    let (negative, v) = match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, &v[..]),
    };
    let magnitude: Option<Digits> = if v == "0" {
        Some(Digits::from_radix("0", 10)?)
    } else if let Some(b) = v.strip_prefix("0b") {
        Digits::from_radix(b, 2)
    } else if let Some(x) = v.strip_prefix("0x") {
        Digits::from_radix(x, 16)
    } else if v.starts_with('0') {
        Digits::from_radix(v, 8)
    } else if v.contains(':') {
        let mut total = Digits::from_radix("0", 10)?;
        for part in v.split(':') {
            total = total.mul_small(60).add(&Digits::from_radix(part, 10)?);
        }
        Some(total)
    } else {
        // Python's int() also takes surrounding white space; the resolver
        // never hands over such text, explicit `!!int " 5"` does.
        Digits::from_radix(v.trim_matches(|c: char| super::pyfmt::is_py_space(c)), 10)
    };
    let m = magnitude?;
    Some(m.into_value(negative))
}

/// Arbitrary-size non-negative integers, little-endian base 10^9 limbs.
#[derive(Clone)]
struct Digits(Vec<u32>);

impl Digits {
    const BASE: u64 = 1_000_000_000;

    fn from_radix(s: &str, radix: u32) -> Option<Digits> {
        if s.is_empty() {
            return None;
        }
        let mut d = Digits(vec![0]);
        for c in s.chars() {
            let v = c.to_digit(radix)?;
            d = d.mul_small(radix).add(&Digits(vec![v]));
        }
        Some(d)
    }

    fn mul_small(mut self, m: u32) -> Digits {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = (v % Self::BASE) as u32;
            carry = v / Self::BASE;
        }
        while carry > 0 {
            self.0.push((carry % Self::BASE) as u32);
            carry /= Self::BASE;
        }
        self
    }

    fn add(mut self, other: &Digits) -> Digits {
        let mut carry = 0u64;
        for i in 0..self.0.len().max(other.0.len()) {
            if i == self.0.len() {
                self.0.push(0);
            }
            let v = u64::from(self.0[i]) + u64::from(*other.0.get(i).unwrap_or(&0)) + carry;
            self.0[i] = (v % Self::BASE) as u32;
            carry = v / Self::BASE;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self
    }

    fn to_decimal(&self) -> String {
        let mut limbs = self.0.clone();
        while limbs.len() > 1 && limbs.last() == Some(&0) {
            limbs.pop();
        }
        let mut s = limbs.last().map(|l| l.to_string()).unwrap_or_default();
        for l in limbs.iter().rev().skip(1) {
            s.push_str(&format!("{l:09}"));
        }
        s
    }

    fn into_value(self, negative: bool) -> PyValue {
        let text = self.to_decimal();
        let signed = if negative && text != "0" { format!("-{text}") } else { text };
        match signed.parse::<i128>() {
            Ok(n) => PyValue::Int(n),
            Err(_) => PyValue::BigInt(signed),
        }
    }
}

/// `construct_yaml_float`.
fn construct_float(value: &str) -> Option<f64> {
    let v: String = value.chars().filter(|&c| c != '_').collect::<String>().to_lowercase();
    let (sign, v) = match v.as_bytes().first() {
        Some(b'-') => (-1.0, &v[1..]),
        Some(b'+') => (1.0, &v[1..]),
        _ => (1.0, &v[..]),
    };
    if v == ".inf" {
        return Some(sign * f64::INFINITY);
    }
    if v == ".nan" {
        return Some(f64::NAN);
    }
    if v.contains(':') {
        let mut total = 0.0f64;
        for part in v.split(':') {
            total = total * 60.0 + py_float(part)?;
        }
        return Some(sign * total);
    }
    Some(sign * py_float(v)?)
}

/// Python's `float(text)` for the decimal forms YAML hands over.
fn py_float(s: &str) -> Option<f64> {
    let s = s.trim_matches(super::pyfmt::is_py_space);
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    match body.to_ascii_lowercase().as_str() {
        "inf" | "infinity" | "nan" => return s.parse().ok(),
        _ => {}
    }
    // Rust accepts the same decimal syntax, minus a lone "." and with "1." and ".5" fine.
    if body.is_empty() || body == "." || body.starts_with(['e', 'E']) || body.contains("._") {
        return None;
    }
    s.parse().ok()
}

fn decode_base64(s: &str) -> Option<Vec<u8>> {
    // base64.decodebytes: ignores characters outside the alphabet (white space).
    let mut bits = 0u32;
    let mut n = 0u32;
    let mut out = Vec::new();
    let mut pad = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                pad += 1;
                continue;
            }
            _ => continue,
        };
        if pad > 0 {
            return None;
        }
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_str(s: &str) -> Result<PyValue, YamlError> {
        load(s, &mut LoadNotes::default())
    }

    #[test]
    fn resolution_is_yaml_1_1() {
        let cases = [
            ("yes", PyValue::Bool(true)),
            ("Off", PyValue::Bool(false)),
            ("y", PyValue::Str("y".into())),
            ("010", PyValue::Int(8)),
            ("0x1F", PyValue::Int(31)),
            ("0b101", PyValue::Int(5)),
            ("1_000", PyValue::Int(1000)),
            ("1:30", PyValue::Int(90)),
            ("1:30:00", PyValue::Int(5400)),
            ("-1:30", PyValue::Int(-90)),
            ("1e3", PyValue::Str("1e3".into())),
            ("1.5e+3", PyValue::Float(1500.0)),
            ("3.", PyValue::Float(3.0)),
            ("1:30.5", PyValue::Float(90.5)),
            ("09", PyValue::Str("09".into())),
            ("0o10", PyValue::Str("0o10".into())),
            ("~", PyValue::None),
            ("2024-06-24", PyValue::Date("2024-06-24".into())),
            ("2024-6-4", PyValue::Str("2024-6-4".into())),
            ("2001-12-14t21:59:43.10-05:00", PyValue::DateTime("2001-12-14 21:59:43.100000-05:00".into())),
            (
                "123456789012345678901234567890123456789012",
                PyValue::BigInt("123456789012345678901234567890123456789012".into()),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(load_str(text).unwrap(), want, "{text}");
        }
        assert!(matches!(load_str(".nan").unwrap(), PyValue::Float(f) if f.is_nan()));
        assert_eq!(load_str("-.Inf").unwrap(), PyValue::Float(f64::NEG_INFINITY));
    }

    #[test]
    fn merge_and_duplicates() {
        let v = load_str("a: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n  x: 4\n  x: 5\n").unwrap();
        let PyValue::Dict(top) = v else { panic!() };
        assert_eq!(top[1].1.py_repr(), "{'x': 5, 'y': 3}");
        // PyYAML 6.0.4 (checked): one-character keys are one object in CPython, the first merge wins.
        let x = |s: &str| match load_str(s).unwrap() {
            PyValue::Dict(d) => d[d.len() - 1].1.py_repr(),
            _ => panic!(),
        };
        assert_eq!(x("x:\n  <<: [{a: 1}, {a: 2}]"), "{'a': 1}");
        assert_eq!(x("x:\n  <<: [{ab: 1}, {ab: 2}]"), "{'ab': 2}");
        assert_eq!(x("b: &b {ab: 1}\nc: &c {ab: 2}\nx:\n  <<: [*b, *c, *b]"), "{'ab': 2}");
        assert_eq!(x("x:\n  <<: [{\u{e9}: 1}, {\u{e9}: 2}]"), "{'\u{e9}': 1}");
        assert_eq!(x("x:\n  <<: [{\u{101}: 1}, {\u{101}: 2}]"), "{'\u{101}': 2}");
        assert_eq!(x("x:\n  <<: {a: 1}\n  <<: {a: 2}"), "{'a': 1}");
    }

    #[test]
    fn errors_have_classes() {
        assert_eq!(load_str("a: \u{7}").unwrap_err().class, "ReaderError");
        assert_eq!(load_str("a: !x 1").unwrap_err().class, "ConstructorError");
        assert_eq!(load_str("a: 2024-02-30").unwrap_err().class, "ValueError");
        assert_eq!(load_str("a: =").unwrap_err().class, "ConstructorError");
        assert_eq!(load_str("a\n---\nb").unwrap_err().class, "ComposerError");
        assert_eq!(load_str("").unwrap(), PyValue::None);
        assert_eq!(load_str("# only\n").unwrap(), PyValue::None);
    }

    #[test]
    fn line_separators_break_lines_and_stay() {
        let v = load_str("a: |\n  x\u{2028}  y\n").unwrap();
        assert_eq!(v.py_repr(), "{'a': 'x\\u2028y\\n'}");
        let v = load_str("a: x\u{85}b: y\n").unwrap();
        assert_eq!(v.py_repr(), "{'a': 'x', 'b': 'y'}");
    }

    #[test]
    fn alias_bombs_are_refused() {
        let mut doc = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            doc.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n",
                p = i - 1
            ));
        }
        assert!(load_str(&doc).unwrap_err().message.contains("expands"));
    }
}
