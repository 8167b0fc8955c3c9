//! Share links on the page: "Copy link" compresses the document with the
//! browser's `CompressionStream("deflate-raw")` and frames it with the
//! core's `envelope::share` (`/doc#d=…`); opening such a link inflates it
//! (stopping at `share::MAX_TEXT_BYTES`) and opens the document as the
//! user's own, as "Open…" does. The fragment never reaches a server.

use std::sync::Arc;

use envelope::share;
use envelope::{Diagnostic, Rule};
use leptos::prelude::*;

use crate::browser;
use crate::doc::{Doc, Source};
use crate::router::href;
use crate::state::{LoadFailure, Session};

/// The link for `doc` (as [`link_for`]), made by code fetched on first use
/// in a release build for the browser (a split point: "Copy link" is rare).
pub async fn make_link(doc: Arc<Doc>, redact: bool) -> Result<(String, usize), String> {
    let made = crate::split::split_call!(link_maker(doc, redact));
    match made {
        Ok(link) => link.await,
        Err(_) => Err(crate::split::unfetched!("the link maker could not be loaded", "; try again").into()),
    }
}

#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(share, wasm_split_path = ::leptos::wasm_split, fallible)
)]
#[allow(clippy::type_complexity)]
fn link_maker(
    doc: Arc<Doc>,
    redact: bool,
) -> Result<
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(String, usize), String>>>>,
    ::leptos::wasm_split::SplitLoaderError,
> {
    Ok(Box::pin(async move { link_for(&doc, redact).await }))
}

/// The link for `doc`, its secrets masked if `redact`
/// (`envelope::secrets::redact_json`), or why there is none (too large, no
/// compressor, no detector).
pub async fn link_for(doc: &Doc, redact: bool) -> Result<(String, usize), String> {
    let text = crate::secrets::redacted(doc.raw_text(), redact).await?;
    let deflated = browser::transform_stream(text.as_bytes(), true, "deflate-raw", usize::MAX)
        .await
        .map_err(|e| format!("the document could not be compressed: {e}"))?;
    let fragment = share::fragment(&deflated).map_err(|d| d.message)?;
    let chars = fragment.len();
    Ok((share::link(&format!("{}{}", browser::origin(), href("/doc")), &fragment), chars))
}

/// The name a shared document is saved under.
pub const SHARED_NAME: &str = "shared-link.json";

/// Opens the document a `#d=` fragment holds, if it holds one: true when
/// it does (it then loads, or fails with its error shown), false for an
/// ordinary anchor. The fragment is removed from the address once read (the
/// document is then saved like an opened one; a reload shows it, not the
/// link's version again). Only the test for `d=` runs here: the reading is
/// a split point (`opening`, with the opening of documents), fetched when a
/// link is opened.
pub fn open_fragment(session: Session, fragment: &str) -> bool {
    if !share::holds_data(fragment) {
        return false;
    }
    let fragment = fragment.to_string();
    leptos::task::spawn_local(async move {
        let made = crate::split::split_call!(link_opener(session, fragment));
        if made.is_ok() {
            crate::state::set_opening_here(true);
        }
        match made {
            Ok(opening) => opening.await,
            Err(_) => {
                browser::replace_hash("");
                session.load_failure.try_set(Some(LoadFailure {
                    source: "Shared link".into(),
                    errors: vec![Diagnostic::new(
                        Rule::ShareLink,
                        "#d",
                        crate::split::unfetched!(
                            "the page's code that opens share links could not be fetched",
                            "; open the link again"
                        ),
                    )],
                    engine: None,
                }));
            }
        }
    });
    true
}

#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(opening, wasm_split_path = ::leptos::wasm_split, fallible)
)]
#[allow(clippy::type_complexity)]
fn link_opener(
    session: Session,
    fragment: String,
) -> Result<std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>, ::leptos::wasm_split::SplitLoaderError> {
    Ok(Box::pin(open_link(session, fragment)))
}

/// Reads the `#d=` fragment and opens its document.
async fn open_link(session: Session, fragment: String) {
    let fail = move |d: Diagnostic| {
        session.load_failure.set(Some(LoadFailure { source: "Shared link".into(), errors: vec![d], engine: None }));
    };
    let deflated = match share::data(&fragment) {
        Ok(None) => return,
        Ok(Some(d)) => d,
        Err(d) => {
            browser::replace_hash("");
            fail(d);
            return;
        }
    };
    browser::replace_hash("");
    let inflated = browser::transform_stream(&deflated, false, "deflate-raw", share::MAX_TEXT_BYTES).await;
    let text = match inflated {
        Ok(bytes) => share::text(bytes),
        Err(e) => Err(Diagnostic::new(
            Rule::ShareLink,
            "#d",
            format!("the link is damaged or too large: its data does not inflate ({e}); was the link cut?"),
        )),
    };
    match text {
        Ok(text) => {
            let bytes: Arc<[u8]> = text.into_bytes().into();
            session.open_user_document(Source::File(SHARED_NAME.into()), bytes).await;
        }
        Err(d) => fail(d),
    }
}
