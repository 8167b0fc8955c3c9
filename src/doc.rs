//! A loaded document and everything derived from it once, at load time:
//! the export text, the raw text, variables and call pairing. Views read it;
//! nothing rewrites it (toggles are UI state); an edit makes a new one
//! (`Doc::edited`) of the same lineage.

use std::sync::{Arc, Mutex, OnceLock};

use envelope::calls::Calls;
use envelope::export::{self, Contributions, Target};
use envelope::parse::Pending;
use envelope::template::Vars;
use envelope::{parse, Diagnostic, Envelope, Loaded, Notice, RequestFormat, Segment};
use serde::{Deserialize, Serialize};

/// Where a document came from; names its downloads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Demo `a`…`f`.
    Demo(char),
    /// A file the user opened or dropped, by name.
    File(String),
    /// Text the user pasted.
    Pasted,
    /// A PromptPoet template rendered on the `/template` page.
    Template,
}

impl Source {
    /// The stem of download names: `demo-d`, `my-chat`, `pasted`.
    pub fn stem(&self) -> String {
        match self {
            Source::Demo(c) => format!("demo-{c}"),
            Source::File(name) => {
                let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
                let base = base.strip_suffix(".json").unwrap_or(base);
                let base = base.strip_suffix(".envelope").unwrap_or(base);
                if base.is_empty() {
                    "envelope".into()
                } else {
                    base.to_string()
                }
            }
            Source::Pasted => "pasted".into(),
            Source::Template => "template".into(),
        }
    }

    /// What the header says about the document.
    pub fn label(&self) -> String {
        match self {
            Source::Demo(c) => format!("Demo {}", c.to_ascii_uppercase()),
            Source::File(name) => name.clone(),
            Source::Pasted => "Pasted document".into(),
            Source::Template => "Rendered template".into(),
        }
    }
}

/// Where an imported document came from: the request format it was read
/// from, and what of the request has no place in the envelope.
///
/// Stored with the user's document (`state::StoredDocument`) as
/// `{format, label, notices}`: `format` as the engine names it (`openai`,
/// `responses`, `anthropic`), and `label` ("Anthropic Messages"), which this
/// version derives from the format and does not read, still written for
/// the versions before it, which require it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Origin {
    pub format: RequestFormat,
    /// The import's notices, by JSON path into the request.
    #[serde(default)]
    pub notices: Vec<Notice>,
}

impl Serialize for Origin {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut o = s.serialize_struct("Origin", 3)?;
        o.serialize_field("format", &self.format)?;
        o.serialize_field("label", self.format.label())?;
        o.serialize_field("notices", &self.notices)?;
        o.end()
    }
}

/// An export as the protocol panel shows, copies and downloads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Export {
    pub target: Target,
    /// What `pep export --format` prints.
    pub text: Arc<str>,
    /// What the target cannot express as the envelope has it.
    pub notices: Arc<[Notice]>,
}

/// What the user's bytes turned out to be.
#[derive(Debug)]
pub enum Reading {
    /// An envelope (read here), or text that is not JSON at all.
    Done(Result<Arc<Doc>, Vec<Diagnostic>>),
    /// JSON not meant as an envelope: a request body for the engine's import.
    Import(String),
}

/// A template variable as the session bar shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDef {
    pub name: String,
    pub value: String,
    pub description: Option<String>,
}

/// Numbers document lineages (see [`Doc::lineage`]).
static LINEAGES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A valid document with what views need, computed once.
#[derive(Debug)]
pub struct Doc {
    pub source: Source,
    /// Which document this is a version of: a loaded document starts a
    /// lineage; its edits keep it (panels stay open, the undo history holds).
    pub lineage: u64,
    pub envelope: Envelope,
    pub warnings: Vec<Diagnostic>,
    /// Set when the document was imported from a provider's request.
    pub origin: Option<Origin>,
    /// The document as loaded (key order kept), for the raw view.
    raw: serde_json::Value,
    openai: OnceLock<Export>,
    /// Exports the engine made (other targets than OpenAI Chat).
    exports: Mutex<Vec<Export>>,
    raw_text: OnceLock<Arc<str>>,
    pub vars: Vars,
    pub var_defs: Vec<VarDef>,
    pub calls: Calls,
    /// What each segment sends (made on first use: the conversation does not
    /// need it, so the first paint does not wait for it).
    contributions: OnceLock<Contributions>,
}

/// See [`Doc::at_once`].
pub const AT_ONCE_SEGMENTS: usize = 200;

impl Doc {
    pub fn new(source: Source, loaded: Loaded) -> Arc<Doc> {
        Doc::with_origin(source, loaded, None)
    }

    /// A document imported from a request (`origin`), or not (`None`).
    pub fn with_origin(source: Source, loaded: Loaded, origin: Option<Origin>) -> Arc<Doc> {
        Doc::of_lineage(source, loaded, origin, LINEAGES.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }

    /// A version of the document of `lineage` (a new one's: [`Doc::with_origin`]).
    fn of_lineage(source: Source, loaded: Loaded, origin: Option<Origin>, lineage: u64) -> Arc<Doc> {
        let Loaded { envelope, raw, warnings } = loaded;
        let vars = Vars::of(&envelope);
        let calls = Calls::pair(&envelope);
        let mut var_defs: Vec<VarDef> = Vec::new();
        // Names seen (a linear scan per variable was quadratic: 50,000 variables took 3.8 s).
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for m in &envelope.messages {
            for s in &m.segments {
                if let Segment::StaticVar(v) = s {
                    if seen.insert(v.name.as_str()) {
                        var_defs.push(VarDef {
                            name: v.name.clone(),
                            value: v.value.clone(),
                            description: v.description.clone(),
                        });
                    }
                }
            }
        }
        Arc::new(Doc {
            source,
            lineage,
            origin,
            raw,
            openai: OnceLock::new(),
            exports: Mutex::new(Vec::new()),
            raw_text: OnceLock::new(),
            vars,
            calls,
            var_defs,
            warnings,
            contributions: OnceLock::new(),
            envelope,
        })
    }

    /// What each segment sends, variables substituted and calls paired
    /// (computed on first use).
    pub fn contributions(&self) -> &Contributions {
        self.contributions.get_or_init(|| export::contributions_with(&self.envelope, &self.vars, &self.calls))
    }

    /// The OpenAI request as `pep export` prints it (computed on first use).
    pub fn openai_text(&self) -> Arc<str> {
        self.openai_export().text
    }

    /// The OpenAI Chat export with its notices, made here (computed on first
    /// use): the first screen never waits for the engine. The notices are
    /// `pep export --format openai`'s: what the envelope keeps that Chat
    /// cannot say (none for the replay of a Chat request), then the request's own.
    pub fn openai_export(&self) -> Export {
        self.openai
            .get_or_init(|| {
                let mut notices = Vec::new();
                if self.envelope.source != Some(RequestFormat::Openai) {
                    export::fidelity_notices(&self.envelope, export::params::Provider::OpenaiChat, &mut notices);
                }
                let request =
                    export::openai_chat::request(&self.envelope, self.contributions(), None, true, &mut notices);
                Export { target: Target::OpenaiChat, text: export::to_pretty(&request).into(), notices: notices.into() }
            })
            .clone()
    }

    /// Whether the OpenAI Chat export is made already.
    pub fn openai_made(&self) -> bool {
        self.openai.get().is_some()
    }

    /// The export to `target` if it is at hand: OpenAI Chat always, the
    /// others once the engine has made them.
    pub fn export_ready(&self, target: Target) -> Option<Export> {
        if target == Target::OpenaiChat {
            return Some(self.openai_export());
        }
        self.exports.lock().ok()?.iter().find(|e| e.target == target).cloned()
    }

    /// Keeps an export the engine made, for the next time it is asked for.
    pub fn keep_export(&self, export: Export) {
        if let Ok(mut list) = self.exports.lock() {
            list.retain(|e| e.target != export.target);
            list.push(export);
        }
    }

    /// The document as loaded, pretty-printed with its key order (computed on first use).
    pub fn raw_text(&self) -> Arc<str> {
        self.raw_text.get_or_init(|| export::to_pretty(&self.raw).into()).clone()
    }

    /// The raw text if it is made already.
    pub fn raw_text_made(&self) -> Option<Arc<str>> {
        self.raw_text.get().cloned()
    }

    /// The raw text in pieces (`export::to_pretty_pieces`), for a caller that
    /// makes it between frames and keeps it with [`Doc::keep_raw_text`].
    pub fn raw_pieces(&self) -> export::PrettyPieces<'_> {
        export::to_pretty_pieces(&self.raw)
    }

    /// Keeps `text` (the pieces of [`Doc::raw_pieces`], joined) as the raw text.
    pub fn keep_raw_text(&self, text: String) -> Arc<str> {
        self.raw_text.get_or_init(|| text.into()).clone()
    }

    /// Reads `bytes` as a document.
    pub fn load(source: Source, bytes: &[u8]) -> Result<Arc<Doc>, Vec<Diagnostic>> {
        envelope::parse_bytes(bytes).map(|l| Doc::new(source, l))
    }

    /// Reads `bytes` as a document to show before its semantic pass
    /// (`envelope::parse::Decoded::provisional`): the app's own demos and the
    /// document it saved itself. [`crate::recheck`] runs the pass after the
    /// first paint.
    pub fn load_provisional(source: Source, bytes: &[u8]) -> Result<(Arc<Doc>, Pending), Vec<Diagnostic>> {
        parse::parse_provisional(bytes).map(|(l, pending)| (Doc::new(source, l), pending))
    }

    /// This document with `later` (the semantic pass's warnings) added to its
    /// warnings: the same lineage, a new version to show.
    pub fn with_later_warnings(&self, later: Vec<Diagnostic>) -> Arc<Doc> {
        let warnings = self.warnings.iter().cloned().chain(later).collect();
        let loaded = Loaded { envelope: self.envelope.clone(), raw: self.raw.clone(), warnings };
        Doc::of_lineage(self.source.clone(), loaded, self.origin.clone(), self.lineage)
    }

    /// The document with `envelope` (an edit of its own) in its place: the
    /// loaded JSON with the changed fields written in (`edit::patch_raw`:
    /// key order and everything else kept), read again, so warnings,
    /// exports and the raw view are the edited document's. Answers the
    /// document and its text.
    pub fn edited(&self, source: Source, envelope: &Envelope) -> Result<(Arc<Doc>, String), Vec<Diagnostic>> {
        let mut raw = self.raw.clone();
        envelope::edit::patch_raw(&mut raw, &self.envelope, envelope);
        let text = export::to_pretty(&raw);
        let loaded = parse::from_value(raw)?;
        Ok((Doc::of_lineage(source, loaded, self.origin.clone(), self.lineage), text))
    }

    /// Whether the protocol panel makes its OpenAI Chat export and JSON in
    /// its own first frame: a document of up to [`AT_ONCE_SEGMENTS`] segments
    /// (every demo). A larger one's export and JSON come a frame later, in a
    /// task of their own (for 100,000 segments, hundreds of ms).
    pub fn at_once(&self) -> bool {
        self.segment_count() <= AT_ONCE_SEGMENTS
    }

    /// How many segments the document has.
    pub fn segment_count(&self) -> usize {
        self.envelope.messages.iter().map(|m| m.segments.len()).sum()
    }

    /// The export format the document was imported from (`envelope.source`,
    /// docs/EXTENSIONS.md): where the export picker starts, since exporting
    /// to it replays the request as it was.
    pub fn imported_target(&self) -> Option<Target> {
        self.envelope.source.map(|f| match f {
            RequestFormat::Openai => Target::OpenaiChat,
            RequestFormat::Responses => Target::OpenaiResponses,
            RequestFormat::Anthropic => Target::Anthropic,
            RequestFormat::Gemini => Target::Gemini,
            RequestFormat::Bedrock => Target::Bedrock,
        })
    }

    /// A fingerprint of the document's JSON (FNV-1a over its values in
    /// order): the same in every visit for the same text, so a choice made
    /// for a document is found again when the saved document is restored.
    pub fn fingerprint(&self) -> u64 {
        fingerprint(&self.raw)
    }
}

/// FNV-1a over a JSON value: each value's kind, then its bytes (a string's
/// and a number's text with their lengths, an object's keys and values in order).
fn fingerprint(value: &serde_json::Value) -> u64 {
    use serde_json::Value;
    fn feed(h: &mut u64, bytes: &[u8]) {
        for b in bytes {
            *h = (*h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn text(h: &mut u64, tag: u8, s: &str) {
        feed(h, &[tag]);
        feed(h, &(s.len() as u64).to_le_bytes());
        feed(h, s.as_bytes());
    }
    let mut h = 0xcbf2_9ce4_8422_2325;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Null => feed(&mut h, b"n"),
            Value::Bool(b) => feed(&mut h, if *b { b"t" } else { b"f" }),
            Value::Number(n) => text(&mut h, b'#', n.as_str()),
            Value::String(s) => text(&mut h, b'"', s),
            Value::Array(a) => {
                feed(&mut h, b"[");
                feed(&mut h, &(a.len() as u64).to_le_bytes());
                stack.extend(a.iter().rev());
            }
            Value::Object(o) => {
                feed(&mut h, b"{");
                feed(&mut h, &(o.len() as u64).to_le_bytes());
                for k in o.keys() {
                    text(&mut h, b':', k);
                }
                stack.extend(o.values().rev());
            }
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn download_stems() {
        assert_eq!(Source::Demo('d').stem(), "demo-d");
        assert_eq!(Source::File("C:\\x\\my-chat.envelope.json".into()).stem(), "my-chat");
        assert_eq!(Source::File("notes.txt".into()).stem(), "notes.txt");
        assert_eq!(Source::File(".json".into()).stem(), "envelope");
        assert_eq!(Source::Pasted.stem(), "pasted");
    }

    fn doc(text: &str) -> Arc<Doc> {
        Doc::load(Source::Pasted, text.as_bytes()).unwrap()
    }

    const CHAT: &str = r#"{"version":"1.0","messages":[{"id":"u","role":"user","timestamp":1,"segments":[{"kind":"text","content":"Hi"}]}]}"#;

    #[test]
    fn the_picker_starts_on_the_imported_format() {
        assert_eq!(doc(CHAT).imported_target(), None);
        for (source, target) in
            [("openai", Target::OpenaiChat), ("responses", Target::OpenaiResponses), ("anthropic", Target::Anthropic)]
        {
            let text = CHAT.replacen('{', &format!(r#"{{"source":"{source}","#), 1);
            assert_eq!(doc(&text).imported_target(), Some(target), "{source}");
        }
    }

    #[test]
    fn the_chat_export_notes_what_chat_cannot_carry_unless_it_is_the_replay() {
        let kept = CHAT.replace(r#""content":"Hi""#, r#""content":"Hi","cacheControl":{"type":"ephemeral"}"#);
        for (source, noted) in [("", true), (r#""source":"anthropic","#, true), (r#""source":"openai","#, false)] {
            let d = doc(&kept.replacen('{', &format!("{{{source}"), 1));
            let paths: Vec<String> = d.openai_export().notices.iter().map(|n| n.path.clone()).collect();
            assert_eq!(
                paths.contains(&"messages[0].segments[0].cacheControl".to_string()),
                noted,
                "{source}: {paths:?}"
            );
        }
    }

    #[test]
    fn fingerprints_tell_documents_apart_and_hold_across_loads() {
        let a = doc(CHAT);
        assert_eq!(a.fingerprint(), doc(CHAT).fingerprint(), "the same text, another load");
        assert_eq!(a.fingerprint(), a.with_later_warnings(Vec::new()).fingerprint());
        assert_ne!(a.fingerprint(), doc(&CHAT.replace("Hi", "Ho")).fingerprint());
        // Lengths and kinds are fed too: no two layouts read the same bytes.
        assert_ne!(
            super::fingerprint(&serde_json::json!(["ab", "c"])),
            super::fingerprint(&serde_json::json!(["a", "bc"]))
        );
        assert_ne!(
            super::fingerprint(&serde_json::json!({"a": 1})),
            super::fingerprint(&serde_json::json!({"a": "1"}))
        );
        assert_ne!(super::fingerprint(&serde_json::json!([[1], 2])), super::fingerprint(&serde_json::json!([[1, 2]])));
    }
}
