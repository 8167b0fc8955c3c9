//! The session: the document on screen and the user's own, opening
//! (big documents read in steps, Cancel) and importing, failed loads and
//! notices, the user document saved for the next visit.

use std::sync::Arc;

use envelope::Diagnostic;
use leptos::prelude::*;

use super::stored::StoredDocument;
use crate::browser;
use crate::doc::{Doc, Origin, Reading, Source};
use crate::format::megabytes;
use crate::worker;

/// Storage key of the user's own document.
pub const DOC_KEY: &str = "pep/v1/document";
/// Set while the saved document is being opened at start, removed once it
/// has been painted: found at the next start, it means that opening did not
/// finish (the tab was closed or froze), and the user is asked first.
pub const OPENING_KEY: &str = "pep/v1/opening";
/// Documents longer than this (UTF-16 units) are not offered to localStorage.
const STORAGE_UNITS: usize = 4_900_000;
/// Documents of at least this many bytes are read in steps, each in a task
/// of its own with a frame painted between them, under a progress line with
/// Cancel (issue 12: the page never freezes). Smaller ones are read at once.
pub const STAGED_FROM: usize = 512 * 1024;
/// The steps of reading a big document (for the progress bar).
pub const LOADING_STEPS: u32 = 5;

/// A big document being opened: which, and how far. The document on screen
/// stays until it is ready; Cancel drops it.
#[derive(Clone, Debug, PartialEq)]
pub struct Loading {
    /// Its source's label (a file name).
    pub what: String,
    /// Steps done, of [`LOADING_STEPS`].
    pub step: u32,
    /// What is being done now ("Checking 100,000 segments…").
    pub doing: String,
}

/// `n` with thousands separators.
fn n(x: usize) -> String {
    envelope::display::thousands(x as u64)
}

/// A document that failed to load: where it came from and every error, or
/// why the engine could not import it (with what to try again).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadFailure {
    pub source: String,
    pub errors: Vec<Diagnostic>,
    /// The engine worker failed (did not load, crashed): its message, and
    /// the bytes to import again.
    pub engine: Option<(String, Retry)>,
}

/// What to open again after the engine failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Retry {
    pub source: Source,
    pub bytes: Arc<[u8]>,
}

/// A message for the user that stays until dismissed.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub id: u64,
    pub text: String,
    pub is_error: bool,
}

/// What the viewer shows and what went wrong loading.
#[derive(Clone, Copy)]
pub struct Session {
    /// The document on screen (each page sets it).
    pub doc: RwSignal<Option<Arc<Doc>>>,
    /// The user's own document (the `/doc` page), persisted.
    pub user_doc: RwSignal<Option<Arc<Doc>>>,
    /// The last failed load; the current view stays.
    pub load_failure: RwSignal<Option<LoadFailure>>,
    /// The saved document's last opening did not finish: it waits for the
    /// user ("Open it" / "Not now"), with its size in bytes.
    /// 0 when there is nothing to ask.
    pub unsafe_restore: RwSignal<usize>,
    /// Warnings of the current document were dismissed.
    pub warnings_dismissed: RwSignal<bool>,
    pub notices: RwSignal<Vec<Notice>>,
    /// What the engine is importing now (its source's label), if anything.
    pub importing: RwSignal<Option<String>>,
    /// A big document being read on the page, step by step.
    pub loading: RwSignal<Option<Loading>>,
    /// The recorded calls read last (a file of many calls opens the Calls
    /// view, not a document).
    pub calls: crate::calls::Calls,
    /// Counts opens: only the latest one's result is applied.
    opening: StoredValue<u64>,
    /// The lineage whose edits could not be saved (said once).
    save_failed: StoredValue<Option<u64>>,
}

impl Session {
    pub fn new() -> Self {
        Session {
            doc: RwSignal::new(None),
            user_doc: RwSignal::new(None),
            load_failure: RwSignal::new(None),
            warnings_dismissed: RwSignal::new(false),
            notices: RwSignal::new(Vec::new()),
            importing: RwSignal::new(None),
            loading: RwSignal::new(None),
            calls: crate::calls::Calls { current: RwSignal::new(None) },
            unsafe_restore: RwSignal::new(0),
            opening: StoredValue::new(0),
            save_failed: StoredValue::new(None),
        }
    }

    pub fn expect() -> Self {
        expect_context::<Session>()
    }

    /// Shows a notice until the user dismisses it.
    pub fn notify(&self, text: impl Into<String>, is_error: bool) {
        let text = text.into();
        self.notices.update(|n| {
            let id = n.iter().map(|x| x.id + 1).max().unwrap_or(0);
            n.push(Notice { id, text, is_error });
        });
    }

    /// Shows `doc` in the viewer.
    pub fn show(&self, doc: Arc<Doc>) {
        self.warnings_dismissed.set(false);
        self.doc.set(Some(doc));
    }

    /// Loads the user's bytes; on success shows `/doc`, or `/calls` for
    /// text of many recorded calls (through `navigate`).
    pub async fn open_and_show(
        self,
        source: Source,
        bytes: Arc<[u8]>,
        navigate: impl Fn(&str, crate::router::NavigateOptions),
    ) -> bool {
        let opened = self.open(source, Input::Bytes(bytes)).await;
        if let Some(path) = opened {
            navigate(path, Default::default());
        }
        opened.is_some()
    }

    /// Reads the user's bytes: an envelope here, a request body in the
    /// engine (`importing` says so meanwhile; the view on screen stays). On
    /// success it becomes the user document (and is saved); on failure the
    /// errors are listed and nothing else changes. Resolves to whether it
    /// loaded (false too when a later open overtook it).
    ///
    /// The opening code is a split point (`opening`): in a release build for
    /// the browser it is fetched with the first open (no first screen opens
    /// a document of the user's); a failed fetch is a load error.
    pub async fn open_user_document(self, source: Source, bytes: Arc<[u8]>) -> bool {
        self.open(source, Input::Bytes(bytes)).await == Some("/doc")
    }

    /// Opens the files the user picked or dropped: one document as
    /// [`Session::open_user_document`] does; a file of many recorded calls
    /// (`envelope::engine::recorded::holds_calls`: a trace, logs, a batch
    /// file, JSON Lines), or several files together (a trace and its logs),
    /// as a recording for the Calls view, read in the engine. The page to
    /// show: `/doc` or `/calls`; `None` when nothing opened.
    pub async fn open_user_files(self, files: Vec<web_sys::File>) -> Option<&'static str> {
        let name = files.first()?.name();
        self.open(Source::File(name), Input::Files(files)).await
    }

    async fn open(self, source: Source, input: Input) -> Option<&'static str> {
        let seq = self.start_open()?;
        let label = source.label();
        // The first open fetches the code: said on the progress line (with
        // Cancel), as the steps of a big document are.
        let first = !opening_here();
        if first {
            self.loading.try_set(Some(Loading {
                what: label.clone(),
                step: 0,
                doing: "fetching the page's code that opens documents…".into(),
            }));
        }
        // Shown with its secrets masked from its first paint (crate::secrets).
        if crate::secrets::ensure().await.is_none() {
            self.notify(crate::secrets::UNFETCHED, true);
        }
        let made = crate::split::split_call!(opener(self, seq, source, input));
        if first {
            set_opening_here(made.is_ok());
        }
        match made {
            Ok(opening) => opening.await,
            Err(_) if self.is_current(seq) => {
                self.fail_unreadable(
                    label,
                    crate::split::unfetched!(
                        "the page's code that opens documents could not be fetched",
                        "; try again"
                    ),
                );
                None
            }
            Err(_) => None,
        }
    }

    /// Reads a file, then opens its bytes (the open `seq`); or hands files
    /// of recorded calls to the Calls view. The page to show, if any.
    async fn open_input(self, seq: u64, source: Source, input: Input) -> Option<&'static str> {
        use crate::worker::recorded::Given;
        use envelope::engine::recorded::{holds_calls, HEAD_BYTES};
        let bytes: Arc<[u8]> = match input {
            Input::Bytes(b) => {
                if std::str::from_utf8(&b).is_ok_and(|t| holds_calls("pasted", t, true)) {
                    let text = String::from_utf8_lossy(&b).into_owned();
                    return self.open_calls(seq, vec![Given::Text { name: source.label(), text }]);
                }
                b
            }
            Input::Files(mut files) => {
                let many = files.len() > 1;
                let file = files.swap_remove(0);
                let head = if many { Ok(Vec::new()) } else { browser::read_head(&file, HEAD_BYTES).await };
                let calls = head.as_ref().is_ok_and(|h| {
                    many || holds_calls(&file.name(), &String::from_utf8_lossy(h), file.size() <= HEAD_BYTES as f64)
                });
                if calls {
                    files.insert(0, file);
                    return self.open_calls(seq, files.into_iter().map(Given::File).collect());
                }
                match head.and(browser::read_file(&file).await) {
                    Ok(b) => b.into(),
                    Err(e) => {
                        if self.is_current(seq) {
                            self.fail_unreadable(source.label(), format!("the file could not be read: {e}"));
                        }
                        return None;
                    }
                }
            }
        };
        self.open_bytes(seq, source, bytes).await.then_some("/doc")
    }

    /// Starts reading recorded calls in the engine: the Calls view shows them.
    fn open_calls(self, seq: u64, given: Vec<crate::worker::recorded::Given>) -> Option<&'static str> {
        if !self.is_current(seq) {
            return None;
        }
        self.loading.try_set(None);
        self.load_failure.try_set(None);
        crate::calls::start(self.calls, given);
        Some("/calls")
    }

    async fn open_bytes(self, seq: u64, source: Source, bytes: Arc<[u8]>) -> bool {
        let Some(reading) = self.read(seq, &source, &bytes).await else {
            // Cancelled, or overtaken by a later open.
            return false;
        };
        self.loading.try_set(None);
        let text = match reading {
            Reading::Done(Ok(doc)) => {
                self.importing.try_set(None);
                return self.accept(doc, &bytes);
            }
            Reading::Done(Err(errors)) => {
                self.importing.try_set(None);
                self.fail(LoadFailure { source: source.label(), errors, engine: None });
                return false;
            }
            Reading::Import(text) => text,
        };
        self.importing.try_set(Some(source.label()));
        let reply = worker::import::import(text).await;
        if self.opening.try_get_value() != Some(seq) {
            return false;
        }
        self.importing.try_set(None);
        match reply {
            Ok(worker::import::Reply::Imported { format, envelope, notices }) => {
                let origin = Origin { format, notices };
                match envelope::parse(&envelope) {
                    Ok(loaded) => self.accept(Doc::with_origin(source, loaded, Some(origin)), envelope.as_bytes()),
                    // The engine's envelope always reads; if it ever does not, say so.
                    Err(errors) => {
                        self.fail(LoadFailure { source: source.label(), errors, engine: None });
                        false
                    }
                }
            }
            Ok(worker::import::Reply::Failed { errors }) => {
                self.fail(LoadFailure { source: source.label(), errors, engine: None });
                false
            }
            Err(e) => {
                let label = source.label();
                self.fail(LoadFailure { source: label, errors: vec![], engine: Some((e, Retry { source, bytes })) });
                false
            }
        }
    }

    fn fail(&self, failure: LoadFailure) {
        self.load_failure.try_set(Some(failure));
    }

    /// The open of `source` (a label) ends before its bytes are read: the
    /// progress line goes, and `why` is its `unreadable-file` error.
    fn fail_unreadable(&self, source: String, why: impl Into<String>) {
        self.loading.try_set(None);
        let error = Diagnostic::new(envelope::diag::Rule::UnreadableFile, "", why);
        self.fail(LoadFailure { source, errors: vec![error], engine: None });
    }

    /// Starts an open: the opens started before it are dropped when they
    /// next look. `None` when the session is gone.
    fn start_open(&self) -> Option<u64> {
        self.opening.try_update_value(|n| {
            *n += 1;
            *n
        })
    }

    /// Whether the open `seq` is still the one wanted (not cancelled or overtaken).
    fn is_current(&self, seq: u64) -> bool {
        self.opening.try_get_value() == Some(seq)
    }

    /// Cancel: the document being opened or imported is dropped when its
    /// current step ends; the one on screen stays as it is.
    pub fn cancel_loading(&self) {
        self.start_open();
        self.loading.set(None);
        self.importing.set(None);
    }

    /// Reads the user's bytes: an envelope here; JSON not meant as one
    /// (`parse::meant_as_envelope`) is a request for the engine. Text that
    /// is not UTF-8 JSON gets its error here, whatever it was meant to be.
    /// A document of [`STAGED_FROM`] bytes or more is read in steps (JSON;
    /// the structure; the rules of §3; what the views need), each in a task
    /// of its own after a painted frame that shows the progress: no task
    /// holds the page for the whole read. `None` when the open was cancelled
    /// or overtaken meanwhile.
    async fn read(self, seq: u64, source: &Source, bytes: &[u8]) -> Option<Reading> {
        let what = source.label();
        let staged = bytes.len() >= STAGED_FROM;
        let step = |step: u32, doing: String| {
            if staged {
                self.loading.try_set(Some(Loading { what: what.clone(), step, doing }));
            }
        };
        let go_on = || async move {
            if staged {
                browser::after_next_paint().await;
            }
            self.is_current(seq)
        };
        step(1, format!("reading the JSON ({})…", megabytes(bytes.len())));
        if !go_on().await {
            return None;
        }
        let text = match envelope::parse::utf8(bytes) {
            Ok(t) => t,
            Err(e) => return Some(Reading::Done(Err(vec![e]))),
        };
        let (value, duplicates) = match envelope::parse::read_json(text) {
            Ok(read) => read,
            Err(e) => return Some(Reading::Done(Err(vec![e]))),
        };
        if !envelope::parse::meant_as_envelope(&value) {
            return Some(if duplicates.is_empty() {
                Reading::Import(text.to_string())
            } else {
                Reading::Done(Err(duplicates))
            });
        }
        let list = value.get("messages").and_then(serde_json::Value::as_array);
        let messages = list.map_or(0, Vec::len);
        let segments: usize = list.map_or(0, |l| {
            l.iter().map(|m| m.get("segments").and_then(serde_json::Value::as_array).map_or(0, Vec::len)).sum()
        });
        step(2, format!("reading {} messages and {} segments…", n(messages), n(segments)));
        if !go_on().await {
            return None;
        }
        let decoded = envelope::parse::Decoded::of(&value);
        step(3, format!("checking {} segments against the protocol's rules…", n(segments)));
        if !go_on().await {
            return None;
        }
        let checked = decoded.check(value);
        let loaded = match (checked, duplicates.is_empty()) {
            (Ok(l), true) => l,
            (Ok(_), false) => return Some(Reading::Done(Err(duplicates))),
            (Err(more), _) => return Some(Reading::Done(Err(duplicates.into_iter().chain(more).collect()))),
        };
        step(4, "preparing the view…".into());
        if !go_on().await {
            return None;
        }
        let doc = Doc::new(source.clone(), loaded);
        // Made here, in this step's task, rather than by the protocol panel's
        // first render, where it would lengthen that task (~80 ms at 100,000
        // segments). Demos and the saved document leave it to the panel: the
        // first paint does not wait for it.
        doc.contributions();
        Some(Reading::Done(Ok(doc)))
    }

    /// Makes `doc` the user document and saves `text` (its envelope) for
    /// the next visit; a document too large for storage still opens, with
    /// a notice.
    fn accept(&self, doc: Arc<Doc>, bytes: &[u8]) -> bool {
        self.load_failure.try_set(None);
        // localStorage keeps about 5 million UTF-16 units per site:
        // do not spend time encoding what cannot fit.
        let saved = if !fits_storage(bytes) {
            Err(format!("it is {}, more than the browser's storage keeps (about 5 MB)", megabytes(bytes.len())))
        } else {
            let name = match &doc.source {
                Source::File(n) => Some(n.clone()),
                _ => None,
            };
            let text = String::from_utf8_lossy(bytes).into_owned();
            browser::save(DOC_KEY, &StoredDocument { name, text, imported: doc.origin.clone() })
        };
        if let Err(e) = saved {
            let before = if browser::has(DOC_KEY) {
                " The document saved before stays in storage: the next visit opens that one."
            } else {
                ""
            };
            self.notify(format!("Your document is open but could not be saved for the next visit: {e}.{before}"), true);
        }
        self.user_doc.try_set(Some(doc));
        true
    }

    /// Makes an edited document the user document and saves it; a failed
    /// save is said once per document lineage, not once per keystroke.
    pub fn replace_user_document(&self, doc: Arc<Doc>, text: String) {
        let lineage = doc.lineage;
        let saved = if text.encode_utf16().count() > STORAGE_UNITS {
            Err("it is larger than the browser's storage keeps (about 5 MB)".to_string())
        } else {
            let name = match &doc.source {
                Source::File(n) => Some(n.clone()),
                _ => None,
            };
            browser::save(DOC_KEY, &StoredDocument { name, text, imported: doc.origin.clone() })
        };
        match saved {
            Ok(()) => self.save_failed.set_value(None),
            Err(e) => {
                if self.save_failed.get_value() != Some(lineage) {
                    self.save_failed.set_value(Some(lineage));
                    self.notify(
                        format!("Your edits are on screen but could not be saved for the next visit: {e}."),
                        true,
                    );
                }
            }
        }
        self.user_doc.set(Some(doc));
    }

    /// Restores the user document saved by an earlier visit.
    pub fn restore_user_document(&self) {
        if browser::has(OPENING_KEY) && browser::has(DOC_KEY) {
            let size = browser::load::<StoredDocument>(DOC_KEY).ok().flatten().map_or(0, |d| d.text.len());
            self.unsafe_restore.set(size.max(1));
            return;
        }
        self.restore_now();
    }

    /// Says that the saved document no longer loads (`errors` errors).
    fn no_longer_loads(&self, errors: usize) {
        self.notify(
            format!(
                "The document saved by an earlier visit no longer loads ({}); it was kept in storage untouched.",
                crate::format::count(errors, "error")
            ),
            true,
        );
    }

    /// Opens the saved document, marking the attempt until it is painted.
    pub fn restore_now(&self) {
        self.unsafe_restore.set(0);
        match browser::load::<StoredDocument>(DOC_KEY) {
            Ok(None) => {}
            Ok(Some(stored)) => {
                let _ = browser::save(OPENING_KEY, &stored.text.len());
                leptos::task::spawn_local(async {
                    browser::after_next_paint().await;
                    browser::after_next_paint().await;
                    browser::remove(OPENING_KEY);
                });
                let source = stored.name.map_or(Source::Pasted, Source::File);
                // It was checked when it was opened: shown at once, its
                // semantic pass after the first paint (crate::recheck).
                match envelope::parse::parse_provisional(stored.text.as_bytes()) {
                    Ok((loaded, pending)) => {
                        let doc = Doc::with_origin(source, loaded, stored.imported);
                        self.user_doc.set(Some(doc.clone()));
                        let session = *self;
                        leptos::task::spawn_local(async move {
                            // Its secrets are masked when the detector is here, fetched
                            // now (docs/DECISIONS.md, "Secrets masked on the page").
                            if crate::secrets::ensure().await.is_none() {
                                session.notify(crate::secrets::UNFETCHED, true);
                            }
                            match crate::recheck::settle(doc, pending, session.user_doc).await {
                                crate::recheck::Outcome::Invalid(errors) => session.no_longer_loads(errors.len()),
                                crate::recheck::Outcome::Unavailable => session.notify(
                                    crate::split::unfetched!(
                                        "Your saved document is shown unchecked: the checks could not be loaded",
                                        "."
                                    )
                                    .to_string(),
                                    true,
                                ),
                                // A document with warnings is in `user_doc` now (and shown from there).
                                crate::recheck::Outcome::Clean | crate::recheck::Outcome::Warned(_) => {}
                            }
                        });
                    }
                    Err(errors) => self.no_longer_loads(errors.len()),
                }
            }
            Err(e) => self.notify(format!("The saved document could not be read ({e}); starting without it."), true),
        }
    }
}

/// What the user gives to open.
pub enum Input {
    Bytes(Arc<[u8]>),
    /// At least one.
    Files(Vec<web_sys::File>),
}

/// The opening of a document (reading, checking, importing, saving). In a
/// release build for the browser this is a split point, fetched with the
/// first open.
#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(opening, wasm_split_path = ::leptos::wasm_split, fallible)
)]
#[allow(clippy::type_complexity)]
fn opener(
    session: Session,
    seq: u64,
    source: Source,
    input: Input,
) -> Result<
    std::pin::Pin<Box<dyn std::future::Future<Output = Option<&'static str>>>>,
    ::leptos::wasm_split::SplitLoaderError,
> {
    Ok(Box::pin(session.open_input(seq, source, input)))
}

thread_local! {
    /// The opening code has been reached once (its module is here).
    static OPENING_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the opening code is here (always, where there is no split).
fn opening_here() -> bool {
    cfg!(not(pep_split)) || OPENING_HERE.with(std::cell::Cell::get)
}

/// Notes that the opening code's module arrived (a share link's reader,
/// in the same module, counts too).
pub fn set_opening_here(here: bool) {
    OPENING_HERE.with(|h| h.set(here));
}

/// Whether UTF-8 `bytes` are at most [`STORAGE_UNITS`] UTF-16 units (each
/// character of 1–3 bytes is one unit, of 4 bytes two): counted only when
/// the byte length cannot tell.
fn fits_storage(bytes: &[u8]) -> bool {
    if bytes.len() <= STORAGE_UNITS {
        return true;
    }
    if bytes.len() > 3 * STORAGE_UNITS {
        return false;
    }
    String::from_utf8_lossy(bytes).encode_utf16().count() <= STORAGE_UNITS
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_fit_is_told_by_length_and_counted_only_between() {
        assert!(fits_storage(b"{}"));
        assert!(fits_storage(&vec![b'a'; STORAGE_UNITS]));
        assert!(!fits_storage(&vec![b'a'; STORAGE_UNITS + 1]));
        // 3-byte characters: one unit each, so 3 × STORAGE_UNITS bytes fit exactly.
        let cjk = "中".repeat(STORAGE_UNITS / 2);
        assert!(fits_storage(cjk.as_bytes()), "{} bytes, {} units", cjk.len(), STORAGE_UNITS / 2);
        assert!(!fits_storage(&vec![b'a'; 3 * STORAGE_UNITS + 1]));
        // 4-byte characters: two units for four bytes.
        let emoji = "😀".repeat(STORAGE_UNITS / 2 + 1);
        assert!(!fits_storage(emoji.as_bytes()));
    }
}
