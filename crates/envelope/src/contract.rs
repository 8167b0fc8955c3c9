//! Strict JSON Schema validation of a model's output (feature `contract`,
//! D157): the `jsonschema` crate, draft 2020-12 unless the schema's `$schema`
//! names another draft, every keyword honoured (`null` is not a string,
//! `additionalProperties: false` refuses extra fields), no reference fetched
//! from the network or from files (an external `$ref` does not compile).
//!
//! A [`Violation`] is reported at its instance path (a JSON Pointer into the
//! output, `""` for the root) with the keyword that failed; messages quote at
//! most a short preview of the value.

use std::fmt;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

/// One way the instance breaks the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON Pointer into the instance (`""` = the root, `/findings/0/severity`).
    /// For `required`, the object missing the property (the message names it).
    pub path: String,
    /// The schema keyword that failed (`type`, `required`, `enum`, `maximum`,
    /// `additionalProperties`, …).
    pub keyword: String,
    /// What is wrong, in one line, at most [`MAX_MESSAGE`] characters.
    pub message: String,
}

/// A schema that does not compile: its message says where in the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// JSON Pointer into the schema where the problem is (`""` when the
    /// validator does not say).
    pub at: String,
    pub message: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at.is_empty() {
            write!(f, "the schema does not compile: {}", self.message)
        } else {
            write!(f, "the schema does not compile at {}: {}", self.at, self.message)
        }
    }
}

impl std::error::Error for SchemaError {}

/// A compiled schema.
pub struct Schema {
    validator: jsonschema::Validator,
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Schema")
    }
}

/// The longest message a [`Violation`] or [`SchemaError`] carries, in characters.
pub const MAX_MESSAGE: usize = 300;
/// How many characters of an instance value a message quotes.
const PREVIEW_CHARS: usize = 60;
/// Values and schemas nested deeper than this are refused before the
/// validator (which recurses) sees them; serde_json's parser stops at 128.
pub const MAX_DEPTH: usize = 256;
/// At most this many violations are reported for one instance.
pub const MAX_VIOLATIONS: usize = 1000;

/// Compiles `schema` strictly: the schema itself is checked against its
/// draft's meta-schema; references resolve only inside the schema.
pub fn compile(schema: &Value) -> Result<Schema, SchemaError> {
    if deeper_than(schema, MAX_DEPTH) {
        return Err(SchemaError {
            at: String::new(),
            message: format!("the schema is nested more than {MAX_DEPTH} levels deep"),
        });
    }
    let validator = jsonschema::options().offline().build(schema).map_err(|e| schema_error(&e))?;
    Ok(Schema { validator })
}

/// A compile error: where in the schema (the meta-schema's instance path is
/// the user's schema), and what.
fn schema_error(e: &jsonschema::ValidationError<'_>) -> SchemaError {
    let message = match e.kind() {
        ValidationErrorKind::Referencing(jsonschema::ReferencingError::Unretrievable { uri, .. }) => format!(
            "the reference {} points outside the schema: references are resolved only inside \
             it (nothing is fetched from the network or from files)",
            quoted(uri)
        ),
        _ => e.masked_with(preview(e.instance())).to_string(),
    };
    SchemaError { at: e.instance_path().as_str().to_owned(), message: truncate(&message, MAX_MESSAGE) }
}

/// Whether `v` has arrays or objects nested more than `limit` deep (no recursion).
fn deeper_than(v: &Value, limit: usize) -> bool {
    let mut stack = vec![(v, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(o) => Box::new(o.values()),
            _ => continue,
        };
        if depth >= limit {
            return true;
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    false
}

/// `'s'`, at most [`PREVIEW_CHARS`] characters of it.
fn quoted(s: &str) -> String {
    format!("'{}'", truncate(s, PREVIEW_CHARS))
}

impl Schema {
    /// Every violation of the schema by `instance`, in the validator's order
    /// (at most [`MAX_VIOLATIONS`]); empty when it is valid.
    pub fn check(&self, instance: &Value) -> Vec<Violation> {
        if deeper_than(instance, MAX_DEPTH) {
            return vec![Violation {
                path: String::new(),
                keyword: "depth".to_owned(),
                message: format!("the value is nested more than {MAX_DEPTH} levels deep: not checked"),
            }];
        }
        self.validator
            .iter_errors(instance)
            .take(MAX_VIOLATIONS)
            .map(|e| {
                let shown = preview(e.instance());
                let message = match e.kind() {
                    // All the allowed values when they are few and short.
                    ValidationErrorKind::Enum { options } => match options.as_array() {
                        Some(list) if render(options, 160).1 => format!(
                            "{shown} is not one of {}",
                            list.iter().map(Value::to_string).collect::<Vec<_>>().join(", ")
                        ),
                        _ => e.masked_with(shown).to_string(),
                    },
                    _ => e.masked_with(shown).to_string(),
                };
                Violation {
                    path: e.instance_path().as_str().to_owned(),
                    keyword: e.kind().keyword().to_owned(),
                    message: truncate(&message, MAX_MESSAGE),
                }
            })
            .collect()
    }

    /// Whether `instance` is valid (faster than [`Schema::check`]).
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }
}

/// A short rendering of a value for messages: compact JSON, at most
/// [`PREVIEW_CHARS`] characters (the value is never serialised further).
fn preview(v: &Value) -> String {
    let (text, whole) = render(v, PREVIEW_CHARS * 4 + 4);
    let shown = truncate(&text, PREVIEW_CHARS);
    if !whole && !shown.ends_with('…') {
        format!("{shown}…")
    } else {
        shown
    }
}

/// Compact JSON of `v`, at most `cap` bytes (lossy at a cut character), and
/// whether that is all of it. Never serialises past the cap.
fn render(v: &Value, cap: usize) -> (String, bool) {
    let mut out = Limited { buf: Vec::new(), cap };
    // The writer refuses bytes past its cap: the error only ends the rendering.
    let whole = serde_json::to_writer(&mut out, v).is_ok();
    (String::from_utf8_lossy(&out.buf).into_owned(), whole)
}

/// A writer that keeps at most `cap` bytes and then fails.
struct Limited {
    buf: Vec<u8>,
    cap: usize,
}

impl std::io::Write for Limited {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let room = self.cap.saturating_sub(self.buf.len());
        if room == 0 {
            return Err(std::io::Error::other("preview full"));
        }
        let n = room.min(data.len());
        self.buf.extend_from_slice(&data[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `s` cut to `max` characters (an ellipsis marks the cut).
fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}
