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
use leptos::prelude::*;

use crate::browser;
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

/// After the first screen is complete (`browser::first_screen_complete`), the semantic pass of `doc`, which `slot` shows.
/// While `slot` still holds `doc`, a document with warnings takes its place
/// and an invalid one is taken out; when `slot` has moved on to another
/// document the outcome is `Clean` (nothing of it is on screen). The caller
/// does the rest: say why, or show the new version elsewhere.
pub async fn settle(doc: Arc<Doc>, pending: Pending, slot: RwSignal<Option<Arc<Doc>>>) -> Outcome {
    browser::first_screen_complete().await;
    let outcome = check(doc.clone(), pending).await;
    let shown = slot.try_with_untracked(|s| s.as_ref().is_some_and(|s| Arc::ptr_eq(s, &doc))) == Some(true);
    match outcome {
        Outcome::Warned(checked) if shown => {
            slot.try_set(Some(checked.clone()));
            Outcome::Warned(checked)
        }
        Outcome::Invalid(errors) if shown => {
            slot.try_set(None);
            Outcome::Invalid(errors)
        }
        Outcome::Unavailable => Outcome::Unavailable,
        _ => Outcome::Clean,
    }
}

/// Runs the semantic pass of `doc`.
async fn check(doc: Arc<Doc>, pending: Pending) -> Outcome {
    let found = crate::split::split_call!(semantic_pass(doc.clone(), pending));
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
