//! `render`: a PromptPoet template and its data rendered in the engine (the
//! Jinja and YAML engines stay out of the page's module, and the hostile
//! template runs only in the core's sandboxed minijinja).

pub use pep_token_worker::render::{Failure, Part, Reply};
use pep_token_worker::render::{Request, OP};

/// Renders `template` with `data` (JSON text). `Ok` is the engine's reply:
/// the envelope and parts, or the error with its line and column; `Err`
/// says why the engine could not answer.
pub async fn render(template: String, data: String) -> Result<Reply, String> {
    super::call_json(OP, &Request { template, data }).await
}

/// [`render`], with the time the render took in the engine (ms).
pub async fn render_timed(template: String, data: String) -> Result<(Reply, f64), String> {
    super::call_json_timed(OP, &Request { template, data }).await
}
