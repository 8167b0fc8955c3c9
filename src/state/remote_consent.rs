//! Consent to load a document's remote media.

use std::sync::Arc;

use leptos::prelude::*;

use super::prefs::Prefs;
use crate::doc::Doc;

/// Whether remote media (http(s) images, audio, video) may load in the
/// document on screen: after "Load remote media" for this document, or
/// always when the preference says so (issue 12). Nothing remote is
/// requested before.
#[derive(Clone, Copy)]
pub struct RemoteConsent {
    /// The document (its `Arc`'s address; 0: none) the user allowed; another document asks again.
    allowed_doc: RwSignal<usize>,
    doc: Signal<Option<Arc<Doc>>>,
    always: RwSignal<bool>,
}

impl RemoteConsent {
    pub fn new(doc: Signal<Option<Arc<Doc>>>, prefs: Prefs) -> Self {
        RemoteConsent { allowed_doc: RwSignal::new(0), doc, always: prefs.remote_media }
    }

    /// The viewer's consent; outside a viewer (a component on its own), none:
    /// remote media is held.
    pub fn expect() -> Self {
        use_context::<RemoteConsent>().unwrap_or_else(|| RemoteConsent {
            allowed_doc: RwSignal::new(0),
            doc: Signal::stored(None),
            always: RwSignal::new(false),
        })
    }

    fn key(doc: &Option<Arc<Doc>>) -> usize {
        doc.as_ref().map_or(0, |d| Arc::as_ptr(d) as usize)
    }

    /// Whether remote media loads now (reactive).
    pub fn allowed(&self) -> bool {
        self.always.get() || {
            let key = self.doc.with(Self::key);
            key != 0 && self.allowed_doc.get() == key
        }
    }

    /// "Load remote media": for this document.
    pub fn allow_this(&self) {
        self.allowed_doc.set(self.doc.with_untracked(Self::key));
    }

    /// "Always for this browser".
    pub fn allow_always(&self) {
        self.always.set(true);
    }
}
