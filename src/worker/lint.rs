//! `lint`: the document's findings (`pep lint`'s checks, with the user's
//! settings) from the engine; the checks and the tokenizer stay out of the
//! page's module.

use serde::Deserialize as _;
use serde_json::Value;

pub use envelope::engine::lint::Reply;
use envelope::engine::lint::{Request, OP};
pub use envelope::lint::Finding;

/// The Checks tab's settings: `pep.toml`'s top level, the core's
/// [`envelope::lint::Config`] (its environments unused).
pub type Settings = envelope::lint::Config;

/// The Checks tab's settings as preferences keep them: the saved JSON, read
/// only when the checks run or the settings are shown (both code of the
/// Checks tab's module), not at start (issue 11). `null`, never set, reads as
/// the defaults.
pub fn settings_from_saved(saved: &Value) -> Result<Settings, String> {
    if saved.is_null() {
        return Ok(Settings::default());
    }
    Settings::deserialize(saved)
        .map_err(|e| format!("the saved settings could not be read ({e}); Reset sets the defaults"))
}

/// Settings as preferences keep them.
pub fn settings_to_saved(settings: &Settings) -> Value {
    serde_json::to_value(settings).unwrap_or(Value::Null)
}

/// Lints `envelope` (JSON text) with `settings`, with the time the checks
/// took in the engine (ms). `Err` says why the engine could not answer.
pub async fn lint_timed(envelope: String, settings: Settings) -> Result<(Reply, f64), String> {
    super::call_json_timed(OP, &Request { envelope, settings }).await
}
