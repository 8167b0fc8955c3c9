//! `render`: a PromptPoet template and its data rendered in the engine (the
//! Jinja and YAML engines stay out of the page's module, and the hostile
//! template runs only in the core's sandboxed minijinja).

pub use envelope::engine::render::{Failure, FailureSource, Part, Reply};
use envelope::engine::render::{Request, OP};

/// Renders `template` with `data` (JSON text) and the other templates of
/// its folder (`files`, by path), with the time the render took in the
/// engine (ms). `Err` says why the engine could not answer.
pub async fn render_timed(
    template: String,
    data: String,
    files: std::collections::BTreeMap<String, String>,
) -> Result<(Reply, f64), String> {
    super::call_json_timed(OP, &Request { template, data, files }).await
}
