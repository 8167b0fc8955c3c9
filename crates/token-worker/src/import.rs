//! `import`: a provider's request body → an envelope, with the notices of
//! what did not carry over, or every error with its path
//! (`envelope::import`). The messages: [`envelope::engine::import`].

use envelope::engine::import::{Reply, Request};
use envelope::import::Format;
use envelope::{Diagnostic, Rule};

/// Reads the request.
pub fn run(request: Request) -> Result<Reply, String> {
    Ok(match envelope::import::import(&request.text) {
        Ok(i) => match i.format.request_format() {
            Some(format) => {
                Reply::Imported { format, envelope: envelope::export::to_pretty(&i.raw), notices: i.notices }
            }
            // The page reads envelopes itself (`meant_as_envelope` takes
            // every body `detect` calls one); this is for anyone else.
            None => Reply::Failed {
                errors: vec![Diagnostic::new(
                    Rule::ImportFormat,
                    "",
                    format!("the body is a {}, not a request to import", Format::Envelope.label()),
                )],
            },
        },
        Err(errors) => Reply::Failed { errors },
    })
}

/// [`run`] over JSON text.
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
