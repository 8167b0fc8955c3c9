//! `export`: the export of a document to a target other than OpenAI Chat
//! (which the page makes itself), in the engine.

use std::sync::Arc;

use envelope::engine::export::{Reply, Request, OP};
use envelope::export::Target;

use crate::doc::{Doc, Export};

/// The export of `doc` to `target`, from the engine: the text `pep export
/// --format` prints, and its notices. `Err` says why there is none.
pub async fn export(doc: &Doc, target: Target) -> Result<Export, String> {
    let request = Request { envelope: doc.raw_text().to_string(), target };
    match super::call_json(OP, &request).await? {
        Reply::Exported { text, notices } => Ok(Export { target, text: text.into(), notices: notices.into() }),
        Reply::Failed { errors } => Err(format!(
            "the engine could not read the document: {}",
            errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
        )),
    }
}

/// The export of `doc` to `target`: at hand, or made by the engine and kept.
pub async fn ensure(doc: Arc<Doc>, target: Target) -> Result<Export, String> {
    if let Some(e) = doc.export_ready(target) {
        return Ok(e);
    }
    let e = export(&doc, target).await?;
    doc.keep_export(e.clone());
    Ok(e)
}
