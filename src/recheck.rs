//! Render first, validate the rest (issue 11): the semantic pass
//! (`envelope::validate`, tool-argument schemas included) of a document the
//! app shows before checking it — its own demos, and the document it saved
//! itself (it was checked when it was opened). The structural pass has run:
//! the document is whole and typed. The semantic pass runs after the first
//! paint; in the usual case it finds nothing and nothing changes.
//!
//! In a release build for the browser the pass is a split point
//! (`recheck`): the checks' code is not in the first load (`bench/SIZE.md`).

use std::sync::Arc;

use envelope::parse::Pending;
use envelope::Diagnostic;

use crate::doc::Doc;

/// What the semantic pass found.
#[derive(Debug)]
pub enum Outcome {
    /// Nothing: the document stays as it is (the usual case).
    Clean,
    /// Warnings: the document with them, to show in its place.
    Warned(Arc<Doc>),
    /// Errors: the document does not load after all.
    Invalid(Vec<Diagnostic>),
    /// The pass's code could not be fetched: the document stays, unchecked.
    Unavailable,
}

#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(recheck, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn semantic_pass(doc: Arc<Doc>, pending: Pending) -> Result<Vec<Diagnostic>, ::leptos::wasm_split::SplitLoaderError> {
    Ok(pending.check(&doc.envelope))
}

/// Runs the semantic pass of `doc` (after the first paint: the caller waits
/// for it).
pub async fn check(doc: Arc<Doc>, pending: Pending) -> Outcome {
    #[cfg(pep_split)]
    let found = semantic_pass(doc.clone(), pending).await;
    #[cfg(not(pep_split))]
    let found = semantic_pass(doc.clone(), pending);
    match found {
        Err(_) => Outcome::Unavailable,
        Ok(later) => outcome(&doc, later),
    }
}

/// The outcome of `later`, the semantic pass's diagnostics of `doc`.
fn outcome(doc: &Doc, later: Vec<Diagnostic>) -> Outcome {
    if later.iter().any(Diagnostic::is_error) {
        Outcome::Invalid(later.into_iter().filter(Diagnostic::is_error).collect())
    } else if later.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Warned(doc.with_later_warnings(later))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Source;

    fn doc_of(json: &str) -> (Arc<Doc>, Pending) {
        Doc::load_provisional(Source::Pasted, json.as_bytes()).unwrap()
    }

    #[test]
    fn outcomes_match_a_full_load() {
        let clean = r#"{"version":"1.0","model":"m","messages":[{"id":"u","role":"user","timestamp":1,"segments":[{"kind":"text","content":"hi"}]}]}"#;
        let warned = r#"{"version":"1.0","model":"m","messages":[{"id":"u","role":"user","timestamp":1,"segments":[{"kind":"text","content":"hi {{who}}"}]}]}"#;
        let invalid = r#"{"version":"1.0","model":"m","messages":[{"id":"u","role":"user","timestamp":1,"segments":[{"kind":"text","content":"a"}]},{"id":"u","role":"user","timestamp":2,"segments":[{"kind":"text","content":"b"}]}]}"#;
        let (d, p) = doc_of(clean);
        assert!(matches!(outcome(&d, p.check(&d.envelope)), Outcome::Clean));
        let (d, p) = doc_of(warned);
        assert!(d.warnings.is_empty(), "shown before the pass, without its warnings");
        match outcome(&d, p.check(&d.envelope)) {
            Outcome::Warned(w) => {
                assert_eq!(w.warnings, Doc::load(Source::Pasted, warned.as_bytes()).unwrap().warnings);
                assert_eq!(w.lineage, d.lineage, "the same document, a new version");
            }
            o => panic!("{o:?}"),
        }
        let (d, p) = doc_of(invalid);
        match outcome(&d, p.check(&d.envelope)) {
            Outcome::Invalid(errors) => assert_eq!(errors, Doc::load(Source::Pasted, invalid.as_bytes()).unwrap_err()),
            o => panic!("{o:?}"),
        }
    }
}
