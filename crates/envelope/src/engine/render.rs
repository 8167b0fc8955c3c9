//! `render`: a PromptPoet template (YAML + Jinja2) and its data (JSON text)
//! → the parts prompt-poet 0.0.52 builds and the envelope made of them
//! (`crate::promptpoet`), or the error where prompt-poet raises, with its
//! line (and column where known) in the template or in the data.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::diag::Diagnostic;

/// The operation's name.
pub const OP: &str = "render";

/// What the page sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub template: String,
    /// The template data as JSON text (an object).
    pub data: String,
    /// The other templates of the template's folder, by their path in it
    /// (`/`-separated): what `include`, `import` and `extends` load.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
}

/// One part in PromptPoet's terms, for showing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// `str(name)`, as Python prints it.
    pub name: String,
    /// The role as Python prints it (`user` by default; PromptPoet takes any
    /// value, so not a [`crate::types::Role`]).
    pub role: String,
    /// `truncation_priority` as Python prints it (`0` by default).
    pub priority: String,
    /// o200k_base tokens of the content.
    pub tokens: u64,
    /// Characters of the content.
    pub chars: usize,
}

/// The text a failure's line and column are in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureSource {
    Template,
    /// The JSON does not read, or is not an object.
    Data,
    /// The YAML that the template rendered.
    Rendered,
}

impl FailureSource {
    /// `template`, `data` or `rendered`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureSource::Template => "template",
            FailureSource::Data => "data",
            FailureSource::Rendered => "rendered",
        }
    }
}

/// Where a render failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub source: FailureSource,
    /// The rule (`template-syntax`, `template-render`, …) and message.
    pub diagnostic: Diagnostic,
    /// Python's exception class, as prompt-poet would raise it.
    pub class: String,
    /// 1-based line in `source`.
    pub line: Option<usize>,
    /// 1-based column (characters), where known.
    pub column: Option<usize>,
    /// For `rendered`: that line's text.
    pub text: Option<String>,
}

/// What the worker answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    Rendered {
        /// The envelope (pretty JSON), one message per part.
        envelope: String,
        parts: Vec<Part>,
        /// What prompt-poet would do differently, and what the envelope could
        /// not keep (roles, priorities).
        warnings: Vec<Diagnostic>,
    },
    Failed {
        failure: Failure,
        warnings: Vec<Diagnostic>,
    },
}
