//! `lint`: an envelope and the lint settings → every finding of `pep lint`,
//! each with its rule code and structured location (`envelope::lint`). The
//! messages: [`envelope::engine::lint`].

use envelope::engine::lint::{Reply, Request};

/// Lints the envelope with the settings.
pub fn run(request: Request) -> Result<Reply, String> {
    let settings = match request.settings.settings(None) {
        Ok(s) => s,
        Err(error) => return Ok(Reply::BadSettings { error }),
    };
    let report = envelope::lint::lint("document", request.envelope.as_bytes(), &settings);
    Ok(Reply::Linted { findings: report.findings, tokens: report.tokens })
}

/// [`run`] over JSON text.
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
