//! `render`: a PromptPoet template (YAML + Jinja2) and its data (JSON text)
//! → the parts prompt-poet 0.0.52 builds and the envelope made of them
//! (`envelope::promptpoet`), or the error where prompt-poet raises, with
//! its line (and column where known) in the template or in the data.
//!
//! The template is hostile text: it runs only in the core's minijinja
//! environment (no file loading, a fuel limit, no Python).

use envelope::Diagnostic;
use serde::{Deserialize, Serialize};

/// The operation's name.
pub const OP: &str = "render";

/// What the page sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub template: String,
    /// The template data as JSON text (an object).
    pub data: String,
}

/// One part in PromptPoet's terms, for showing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// `str(name)`, as Python prints it.
    pub name: String,
    /// The role as Python prints it (`user` by default).
    pub role: String,
    /// `truncation_priority` as Python prints it (`0` by default).
    pub priority: String,
    /// o200k_base tokens of the content.
    pub tokens: u64,
    /// Characters of the content.
    pub chars: usize,
}

/// Where a render failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// `template`, `data` (the JSON does not read, or is not an object) or
    /// `rendered` (the YAML that the template rendered).
    pub source: String,
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

/// Renders the template with the data.
#[cfg(feature = "engine")]
pub fn run(request: Request) -> Result<Reply, String> {
    use envelope::promptpoet::{render, to_envelope, Stage};
    use envelope::Rule;
    let data: serde_json::Value = match serde_json::from_str(&request.data) {
        Ok(v) => v,
        Err(e) => {
            let d = Diagnostic::new(
                Rule::TemplateData,
                format!("line {} column {}", e.line(), e.column()),
                format!("the data is not JSON: {e}"),
            );
            return Ok(Reply::Failed {
                failure: Failure {
                    source: "data".into(),
                    diagnostic: d,
                    class: "JSONDecodeError".into(),
                    line: Some(e.line()),
                    column: Some(e.column()),
                    text: None,
                },
                warnings: Vec::new(),
            });
        }
    };
    match render(&request.template, &data) {
        Ok(r) => {
            let (env, mut warnings) = to_envelope(&r);
            let mut all = r.warnings.clone();
            all.append(&mut warnings);
            let parts = r
                .parts
                .iter()
                .map(|p| Part {
                    name: p.name.py_str(),
                    role: p.role.py_str(),
                    priority: p.truncation_priority.py_str(),
                    tokens: envelope::tokens::count(&p.content) as u64,
                    chars: p.content.chars().count(),
                })
                .collect();
            let value = serde_json::to_value(&env).map_err(|e| e.to_string())?;
            Ok(Reply::Rendered { envelope: envelope::export::to_pretty(&value), parts, warnings: all })
        }
        Err(e) => {
            let source = match e.stage {
                Stage::Data => "data",
                Stage::Yaml => "rendered",
                _ if e.line.is_none() && e.rendered_line.is_some() => "rendered",
                _ => "template",
            };
            let line = if source == "rendered" { e.rendered_line } else { e.line };
            Ok(Reply::Failed {
                failure: Failure {
                    source: source.into(),
                    diagnostic: e.diagnostic(),
                    class: e.class.clone(),
                    line,
                    column: e.column,
                    text: e.rendered_text.clone(),
                },
                warnings: e.warnings.clone(),
            })
        }
    }
}

/// [`run`] over JSON text.
#[cfg(feature = "engine")]
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
