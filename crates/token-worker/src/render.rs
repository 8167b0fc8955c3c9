//! `render`: a PromptPoet template (YAML + Jinja2) and its data (JSON text)
//! → the parts prompt-poet 0.0.52 builds and the envelope made of them
//! (`envelope::promptpoet`), or the error where prompt-poet raises, with
//! its line (and column where known) in the template or in the data.
//!
//! The template is hostile text: it runs only in the core's minijinja
//! environment (the only files it can load are the ones the page sent, a
//! fuel limit, no Python). The messages:
//! [`envelope::engine::render`].

use envelope::engine::render::{Failure, FailureSource, Part, Reply, Request};
use envelope::Diagnostic;

/// Renders the template with the data.
pub fn run(request: Request) -> Result<Reply, String> {
    use envelope::promptpoet::{render_with, to_envelope, Stage};
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
                    source: FailureSource::Data,
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
    let files = &request.files;
    match render_with(&request.template, &data, &|name| files.get(name).cloned()) {
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
                Stage::Data => FailureSource::Data,
                Stage::Yaml => FailureSource::Rendered,
                _ if e.line.is_none() && e.rendered_line.is_some() => FailureSource::Rendered,
                _ => FailureSource::Template,
            };
            let line = if source == FailureSource::Rendered { e.rendered_line } else { e.line };
            // An error in a loaded file: its line is not the editor's; the
            // message says where it is.
            let mut diagnostic = e.diagnostic();
            let (line, column) = match &e.template {
                Some(_) => {
                    diagnostic.message = format!("{}: {}", diagnostic.path, diagnostic.message);
                    (None, None)
                }
                None => (line, e.column),
            };
            Ok(Reply::Failed {
                failure: Failure {
                    source,
                    diagnostic,
                    class: e.class.clone(),
                    line,
                    column,
                    text: e.rendered_text.clone(),
                },
                warnings: e.warnings.clone(),
            })
        }
    }
}

/// [`run`] over JSON text.
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
