//! `export`: an envelope → the request of one target, with the notices of
//! what that target cannot express (`envelope::export::render`). The
//! messages: [`envelope::engine::export`].

use envelope::engine::export::{Reply, Request};

/// Renders the envelope for the target.
pub fn run(request: Request) -> Result<Reply, String> {
    Ok(match envelope::parse(&request.envelope) {
        Ok(loaded) => {
            let e = envelope::export::render(&loaded.envelope, request.target);
            Reply::Exported { text: e.text, notices: e.notices }
        }
        Err(errors) => Reply::Failed { errors },
    })
}

/// [`run`] over JSON text.
pub fn handle(request: &str) -> Result<String, String> {
    crate::json_op(request, run)
}
