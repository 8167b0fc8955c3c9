//! Edit mode: whether it is on, the undo history of the document being
//! edited, and how an edit becomes the document on screen. The edits
//! themselves are the core's (`envelope::edit`); here they are applied to
//! the document on screen, which then becomes the user's document (`/doc`,
//! saved like an opened one): a demo is never changed, its edited copy is
//! yours.

use std::cell::Cell;
use std::rc::Rc;

use envelope::edit::{Edit, History};
use leptos::prelude::*;

use crate::browser;
use crate::doc::Source;
use crate::router::{use_navigate, use_route, NavigateOptions, Route};
use crate::state::Session;

/// Where an editor is, so the one being typed in keeps focus and caret
/// when the view is rebuilt after its edit: `model`, `var:NAME`,
/// `text:M:S[:I]`, `args:M:S`.
pub type FieldKey = String;

/// The edit context (provided once, at the app's root).
#[derive(Clone, Copy)]
pub struct Editing {
    /// Edit mode is on (off by default; a UI toggle, not an edit).
    pub on: RwSignal<bool>,
    history: StoredValue<History>,
    /// The lineage the history belongs to.
    lineage: StoredValue<Option<u64>>,
    pub can_undo: RwSignal<bool>,
    pub can_redo: RwSignal<bool>,
    /// The last edit that could not be made, as a sentence.
    pub error: RwSignal<Option<String>>,
    /// The field being typed in, and its selection.
    focus: StoredValue<Option<(FieldKey, u32, u32)>>,
    /// Commits the edit an editor holds back while the user types (so undo
    /// and download take it first).
    pending: StoredValue<Option<Rc<dyn Fn()>>, LocalStorage>,
    /// Kept here: edits run from timers, outside any component.
    session: Session,
    route: Memo<Route>,
    /// The router's navigation (an edited demo moves to `/doc`).
    navigate: StoredValue<Navigate, LocalStorage>,
}

/// The router's navigation, kept by the context.
type Navigate = Rc<dyn Fn(&str, NavigateOptions)>;

impl Editing {
    pub fn provide() -> Editing {
        let e = Editing {
            on: RwSignal::new(false),
            history: StoredValue::new(History::default()),
            lineage: StoredValue::new(None),
            can_undo: RwSignal::new(false),
            can_redo: RwSignal::new(false),
            error: RwSignal::new(None),
            focus: StoredValue::new(None),
            pending: StoredValue::new_local(None),
            session: Session::expect(),
            route: use_route(),
            navigate: StoredValue::new_local(Rc::new(use_navigate())),
        };
        provide_context(e);
        e
    }

    pub fn expect() -> Editing {
        expect_context::<Editing>()
    }

    /// Applies `edit` to the document on screen. The result is the user's
    /// document (a demo's edited copy is saved as `demo-x-edited.json` and
    /// shown at `/doc`).
    pub fn apply(&self, edit: Edit) {
        let session = self.session;
        let Some(doc) = session.doc.get_untracked() else { return };
        if self.lineage.get_value() != Some(doc.lineage) {
            self.history.set_value(History::default());
            self.lineage.set_value(Some(doc.lineage));
        }
        let mut envelope = doc.envelope.clone();
        let applied = self.history.try_update_value(|h| h.apply(&mut envelope, edit));
        match applied {
            Some(Ok(())) => self.show(&envelope),
            Some(Err(e)) => self.error.set(Some(format!("This edit could not be made: {e}."))),
            None => {}
        }
    }

    /// Ends the current undo step (a field lost focus).
    pub fn seal(&self) {
        self.history.update_value(History::seal);
    }

    pub fn undo(&self) {
        self.flush();
        self.step(|h, e| h.undo(e));
    }

    pub fn redo(&self) {
        self.flush();
        self.step(|h, e| h.redo(e));
    }

    fn step(&self, f: impl FnOnce(&mut History, &mut envelope::Envelope) -> bool) {
        let session = self.session;
        let Some(doc) = session.doc.get_untracked() else { return };
        if self.lineage.get_value() != Some(doc.lineage) {
            return;
        }
        let mut envelope = doc.envelope.clone();
        if self.history.try_update_value(|h| f(h, &mut envelope)) == Some(true) {
            self.show(&envelope);
        }
    }

    /// Makes `envelope` the document on screen, as the user's document.
    fn show(&self, envelope: &envelope::Envelope) {
        let session = self.session;
        let Some(doc) = session.doc.get_untracked() else { return };
        let source = match &doc.source {
            Source::Demo(c) => Source::File(format!("demo-{c}-edited.json")),
            other => other.clone(),
        };
        match doc.edited(source, envelope) {
            Ok((edited, text)) => {
                self.error.set(None);
                session.replace_user_document(edited.clone(), text);
                session.doc.set(Some(edited));
                // A new history entry, the page's scroll kept (the edit is under the user's hands).
                if self.route.get_untracked() != Route::Doc {
                    let navigate = self.navigate.get_value();
                    navigate("/doc", NavigateOptions { scroll: false, ..Default::default() });
                }
            }
            Err(errors) => {
                let first = errors.first().map_or_else(|| "it no longer reads".to_string(), |d| d.to_string());
                self.error.set(Some(format!("This edit would make the document invalid: {first}.")));
                // The history took the edit: take it back.
                self.history.update_value(|h| {
                    let mut scratch = envelope.clone();
                    h.undo(&mut scratch);
                });
            }
        }
        self.history.with_value(|h| {
            self.can_undo.set(h.can_undo());
            self.can_redo.set(h.can_redo());
        });
    }

    /// The editor that will commit when the user pauses (replaces any other).
    pub fn hold(&self, commit: Rc<dyn Fn()>) {
        self.pending.set_value(Some(commit));
    }

    /// Commits what an editor holds back, if anything.
    pub fn flush(&self) {
        if let Some(commit) = self.pending.try_update_value(Option::take).flatten() {
            commit();
        }
    }

    /// Forgets a held commit (it ran).
    pub fn release(&self) {
        self.pending.set_value(None);
    }

    /// The field `key` has focus, with this selection.
    pub fn focused(&self, key: &str, start: u32, end: u32) {
        self.focus.set_value(Some((key.to_string(), start, end)));
    }

    /// The field lost focus to something else on the page.
    pub fn blurred(&self, key: &str) {
        if self.focus.with_value(|f| f.as_ref().is_some_and(|(k, _, _)| k == key)) {
            self.focus.set_value(None);
        }
    }

    /// The selection to restore if `key` had focus when the view was rebuilt.
    pub fn restore(&self, key: &str) -> Option<(u32, u32)> {
        self.focus.with_value(|f| f.as_ref().filter(|(k, _, _)| k == key).map(|(_, a, b)| (*a, *b)))
    }
}

/// Runs `f` once the user has paused typing for `ms` milliseconds: a newer
/// call on the same `slot` (the number of calls so far) replaces an older
/// one, which then does nothing when its time comes.
pub fn debounce(slot: &Rc<Cell<u64>>, ms: i32, f: impl FnOnce() + 'static) {
    let n = slot.get().wrapping_add(1);
    slot.set(n);
    let slot = slot.clone();
    browser::after(ms, move || {
        if slot.get() == n {
            f();
        }
    });
}
