//! A loaded document and everything derived from it once, at load time:
//! the export text, the raw text, variables and call pairing. Views read it;
//! nothing rewrites it (toggles are UI state).

use std::sync::{Arc, OnceLock};

use envelope::calls::Calls;
use envelope::export::{self, Contributions};
use envelope::template::Vars;
use envelope::{Diagnostic, Envelope, Loaded, Segment};

/// Where a document came from; names its downloads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Demo `a`…`f`.
    Demo(char),
    /// A file the user opened or dropped, by name.
    File(String),
    /// Text the user pasted.
    Pasted,
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
        }
    }

    /// What the header says about the document.
    pub fn label(&self) -> String {
        match self {
            Source::Demo(c) => format!("Demo {}", c.to_ascii_uppercase()),
            Source::File(name) => name.clone(),
            Source::Pasted => "Pasted document".into(),
        }
    }
}

/// A template variable as the session bar shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDef {
    pub name: String,
    pub value: String,
    pub description: Option<String>,
}

/// A valid document with what views need, computed once.
#[derive(Debug)]
pub struct Doc {
    pub source: Source,
    pub envelope: Envelope,
    pub warnings: Vec<Diagnostic>,
    /// The document as loaded (key order kept), for the raw view.
    raw: serde_json::Value,
    openai_text: OnceLock<Arc<str>>,
    raw_text: OnceLock<Arc<str>>,
    pub vars: Vars,
    pub var_defs: Vec<VarDef>,
    pub calls: Calls,
    pub contributions: Contributions,
}

impl Doc {
    pub fn new(source: Source, loaded: Loaded) -> Arc<Doc> {
        let Loaded { envelope, raw, warnings } = loaded;
        let vars = Vars::of(&envelope);
        let calls = Calls::pair(&envelope);
        let contributions = export::contributions_with(&envelope, &vars, &calls);
        let mut var_defs: Vec<VarDef> = Vec::new();
        for m in &envelope.messages {
            for s in &m.segments {
                if let Segment::StaticVar(v) = s {
                    if !var_defs.iter().any(|d| d.name == v.name) {
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
            raw,
            openai_text: OnceLock::new(),
            raw_text: OnceLock::new(),
            vars,
            calls,
            var_defs,
            warnings,
            contributions,
            envelope,
        })
    }

    /// The OpenAI request as `pep export` prints it (computed on first use).
    pub fn openai_text(&self) -> Arc<str> {
        self.openai_text
            .get_or_init(|| {
                let request = export::openai_request_filtered(&self.envelope, &self.contributions, None, true);
                export::to_pretty(&request).into()
            })
            .clone()
    }

    /// The document as loaded, pretty-printed with its key order (computed on first use).
    pub fn raw_text(&self) -> Arc<str> {
        self.raw_text.get_or_init(|| export::to_pretty(&self.raw).into()).clone()
    }

    /// Reads `bytes` as a document.
    pub fn load(source: Source, bytes: &[u8]) -> Result<Arc<Doc>, Vec<Diagnostic>> {
        envelope::parse_bytes(bytes).map(|l| Doc::new(source, l))
    }

    /// How many segments the document has.
    pub fn segment_count(&self) -> usize {
        self.envelope.messages.iter().map(|m| m.segments.len()).sum()
    }
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
}
