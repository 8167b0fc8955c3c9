//! The user's document as stored under [`super::DOC_KEY`].

use serde::{Deserialize, Serialize};

use crate::doc::Origin;

/// The user's document as stored: its name and exact text (for an imported
/// request, the envelope made from it, and where it came from).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StoredDocument {
    pub name: Option<String>,
    pub text: String,
    /// An origin this version cannot read (a format it does not know) is
    /// dropped: the document still opens, without "Imported from …".
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "origin_or_none")]
    pub imported: Option<Origin>,
}

fn origin_or_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Origin>, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Ok(Origin::deserialize(value).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_documents_with_and_without_an_origin_read_back() {
        let plain: StoredDocument = serde_json::from_str(r#"{"name":null,"text":"{}"}"#).unwrap();
        assert!(plain.imported.is_none());
        assert!(!serde_json::to_string(&plain).unwrap().contains("imported"));
        let origin = Origin {
            format: envelope::RequestFormat::Anthropic,
            notices: vec![envelope::Notice::new("system[1].cache_control", "a cache breakpoint stood here")],
        };
        let doc = StoredDocument { name: Some("r.json".into()), text: "{}".into(), imported: Some(origin.clone()) };
        let back: StoredDocument = serde_json::from_str(&serde_json::to_string(&doc).unwrap()).unwrap();
        assert_eq!(back.imported, Some(origin));
    }

    /// What the versions with `format: String` stored (the format's code and
    /// its label) reads as the typed origin, and is written in that shape.
    #[test]
    fn stored_origins_from_before_the_typed_format_read() {
        use envelope::RequestFormat;
        for (code, format, label) in [
            ("openai", RequestFormat::Openai, "OpenAI Chat"),
            ("responses", RequestFormat::Responses, "OpenAI Responses"),
            ("anthropic", RequestFormat::Anthropic, "Anthropic Messages"),
        ] {
            let stored = format!(
                r#"{{"name":"request.json","text":"{{}}","imported":{{"format":"{code}","label":"{label}","notices":[{{"path":"system[0].cache_control","message":"a cache breakpoint stood here"}}]}}}}"#
            );
            let read: StoredDocument = serde_json::from_str(&stored).unwrap_or_else(|e| panic!("{stored}: {e}"));
            let origin = read.imported.clone().expect(code);
            assert_eq!(origin.format, format);
            assert_eq!(origin.format.label(), label);
            assert_eq!(origin.notices.len(), 1);
            assert_eq!(origin.notices[0].path, "system[0].cache_control");
            // Written as before: the old reader (`format` and `label` as
            // strings, both required) reads it.
            let written = serde_json::to_value(&read).unwrap();
            assert_eq!(written["imported"]["format"], code);
            assert_eq!(written["imported"]["label"], label);
        }
        // Without notices (`#[serde(default)]`), and a format this version
        // does not know: the document still opens, without its origin.
        let bare: StoredDocument =
            serde_json::from_str(r#"{"name":null,"text":"{}","imported":{"format":"anthropic","label":"x"}}"#).unwrap();
        assert_eq!(bare.imported.map(|o| (o.format, o.notices.len())), Some((RequestFormat::Anthropic, 0)));
        let unknown: StoredDocument =
            serde_json::from_str(r#"{"name":"a.json","text":"{}","imported":{"format":"cohere","label":"Cohere"}}"#)
                .unwrap();
        assert!(unknown.imported.is_none());
        assert_eq!(unknown.text, "{}");
    }
}
