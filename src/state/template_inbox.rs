//! Files dropped on the Template page (`/template`): the frame's drop handler
//! hands them to the page, which reads them as it reads "Add files…"
//! (templates `include`, `import` and `extends` find them by name), instead
//! of opening them as documents. The page takes them out, so a later visit
//! does not add them again.

use leptos::prelude::*;

/// The files dropped and not yet taken by the Template page.
#[derive(Clone, Copy)]
pub struct TemplateInbox(pub RwSignal<Option<Vec<web_sys::File>>, LocalStorage>);

impl TemplateInbox {
    pub fn new() -> Self {
        TemplateInbox(RwSignal::new_local(None))
    }

    /// Hands `files` to the Template page (added to any not yet taken).
    pub fn put(&self, files: Vec<web_sys::File>) {
        self.0.update(|slot| slot.get_or_insert_with(Vec::new).extend(files));
    }

    /// The files dropped since the last take.
    pub fn take(&self) -> Option<Vec<web_sys::File>> {
        self.0.try_update(Option::take).flatten()
    }
}

impl Default for TemplateInbox {
    fn default() -> Self {
        Self::new()
    }
}
