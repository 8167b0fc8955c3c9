//! `render`: a PromptPoet template and its data rendered in the engine (the
//! Jinja and YAML engines stay out of the page's module, and the hostile
//! template runs only in the core's sandboxed minijinja). The reply is read
//! through `serde_json::Value` ([`super::read`]).

use serde_json::Value;

pub use pep_token_worker::render::{Failure, Part};
use pep_token_worker::render::{Request, OP};

use super::read::{diagnostic, diagnostics_text, n, opt_s, s, u, variant};

/// What the page gets.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Rendered { envelope: String, parts: Vec<Part>, warnings: Vec<String> },
    Failed { failure: Failure, warnings: Vec<String> },
}

/// Renders `template` with `data` (JSON text), with the time the render
/// took in the engine (ms). `Err` says why the engine could not answer.
pub async fn render_timed(template: String, data: String) -> Result<(Reply, f64), String> {
    let (v, ms): (Value, f64) = super::call_json_timed(OP, &Request { template, data }).await?;
    let r = read(&v).ok_or_else(|| "the engine worker's `render` reply does not read; reload the page".to_string())?;
    Ok((r, ms))
}

/// The reply's JSON as the page's types.
pub fn read(v: &Value) -> Option<Reply> {
    let (tag, c) = variant(v)?;
    let warnings = diagnostics_text(c, "warnings");
    match tag {
        "rendered" => Some(Reply::Rendered {
            envelope: s(c, "envelope"),
            parts: c
                .get("parts")?
                .as_array()?
                .iter()
                .map(|p| Part {
                    name: s(p, "name"),
                    role: s(p, "role"),
                    priority: s(p, "priority"),
                    tokens: n(p, "tokens"),
                    chars: u(p, "chars").unwrap_or(0),
                })
                .collect(),
            warnings,
        }),
        "failed" => {
            let f = c.get("failure")?;
            Some(Reply::Failed {
                failure: Failure {
                    source: s(f, "source"),
                    diagnostic: diagnostic(f.get("diagnostic")?)?,
                    class: s(f, "class"),
                    line: u(f, "line"),
                    column: u(f, "column"),
                    text: opt_s(f, "text"),
                },
                warnings,
            })
        }
        _ => None,
    }
}
