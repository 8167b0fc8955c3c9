//! `response`: a model's output checked as `pep test` checks it — its text
//! taken (a provider response body of any supported format, or the text as
//! given; `crate::output::take_text`), read as JSON (`crate::output::parse`:
//! prose around the JSON or a code fence is a failure that says so),
//! validated against an output schema (the strict validator,
//! `crate::contract`, which only the engine carries) with each violation at
//! its JSON Pointer, and compared field by field with a golden output
//! (`crate::golden::compare`, under the suite's match rules).
//!
//! The reply mirrors the validator's violations and the comparison's
//! failures as plain data (pointer, kind, values, message), so the page
//! reads them without either module.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The operation's name.
pub const OP: &str = "response";

/// At most this many violations, and as many differences, are listed in a
/// reply (the rest counted).
pub const MAX_LISTED: usize = 200;

/// What the page sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// The output schema (a JSON Schema); `None`: the output is not validated.
    pub schema: Option<Value>,
    /// The model's output as the user gave it: its text, or a provider
    /// response body.
    pub output: String,
    /// The golden output as JSON text; `None`: no comparison.
    pub golden: Option<String>,
    /// The match rules (`pep-test.toml`'s `[match]`).
    #[serde(default)]
    pub rules: Rules,
}

/// The match rules: JSON Pointers, `*` for any array index or object key.
/// Fields none names are compared exactly.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    #[serde(default)]
    pub exact: Vec<String>,
    /// A pointer and its threshold (0..=1) of lexical similarity.
    #[serde(default)]
    pub fuzzy: Vec<(String, f64)>,
    #[serde(default)]
    pub ignore: Vec<String>,
}

/// One schema violation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// JSON Pointer into the output; `""` is the whole output.
    pub path: String,
    /// The schema keyword that failed (`required`, `type`, …).
    pub keyword: String,
    pub message: String,
}

/// One difference from the golden output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// JSON Pointer into the output; `""` is the whole output.
    pub path: String,
    /// `missing`, `unexpected`, `type`, `value`, `length`, `fuzzy`, …
    /// (`pep test`'s kinds).
    pub kind: String,
    /// The golden output's value; absent when the output added it. A
    /// `null` value is `Some(Value::Null)`: written `null`, and absent
    /// when there is none (serde would read `null` as `None`).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub expected: Option<Value>,
    /// The output's value; absent when the output lacks it.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    pub actual: Option<Value>,
    pub message: String,
}

/// A field that is there, `null` included, is `Some` (a missing one is
/// `None` through `default`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The output read as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Parsed {
    Json {
        value: Value,
    },
    /// It does not read as JSON: where and why (prose around it, a code
    /// fence, a syntax error at a line and column, nothing at all).
    Failed {
        message: String,
    },
}

/// The validation against the output schema.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Validation {
    /// No schema was given.
    NoSchema,
    /// The schema itself does not compile: where and why.
    SchemaError { message: String },
    /// The output is not JSON: nothing to validate.
    NotParsed,
    Checked {
        violations: Vec<Violation>,
        /// Violations found beyond [`MAX_LISTED`].
        more: usize,
    },
}

/// The comparison with the golden output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Comparison {
    /// No golden output was given.
    NoGolden,
    /// The golden output is not JSON: where and why.
    GoldenError { message: String },
    /// The output is not JSON: nothing to compare.
    NotParsed,
    Compared {
        differences: Vec<Difference>,
        /// Differences found beyond [`MAX_LISTED`].
        more: usize,
    },
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// Where the text came from: `text` (the output as given),
    /// `openai-chat`, `openai-responses`, `anthropic`, `gemini`, `bedrock`.
    pub text_from: String,
    /// The model a response body names.
    pub model: Option<String>,
    /// The text taken from the output (the output itself when `text_from`
    /// is `text`).
    pub text: String,
    pub parsed: Parsed,
    pub validation: Validation,
    pub comparison: Comparison,
}
