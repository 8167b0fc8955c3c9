//! Building an envelope from recorded messages (the telemetry dialects):
//! roles, text (through the importers' `forms`, so the export's own forms
//! come back as their segments), tool calls paired with their results by
//! id, tools into one `tool_overview`, media and files; every recorded
//! field without a place as a notice with its path.

use std::collections::{HashMap, HashSet};

use base64::Engine;
use serde_json::{Map, Value};

use crate::diag::{Diagnostic, Notice};
use crate::import::forms;
use crate::locator::Locator;
use crate::types::*;
use crate::validate::media_url_ok;

/// Messages (or an output) being built.
#[derive(Default)]
pub(crate) struct Conv {
    /// The provider's request format, when the recording says which.
    pub format: Option<RequestFormat>,
    messages: Vec<(Role, Vec<Segment>, MessageExt)>,
    tools: Vec<ToolItem>,
    tool_names: HashSet<String>,
    /// Call id → tool name, and the ids already answered.
    calls: HashMap<String, String>,
    answered: HashSet<String>,
    /// The name of the last call made without an id.
    last_call: Option<String>,
    pub notices: Vec<Notice>,
}

/// A JSON value as the text a model reads: a string as it is, anything
/// else as compact JSON.
pub(crate) fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A tool result's content as text: a string as it is; a list of blocks
/// (`{"type": "text", "text"}`, Bedrock's `{"text"}` / `{"json"}`) as their
/// texts joined by a blank line; anything else as JSON.
pub(crate) fn result_text(v: &Value) -> String {
    // A list of blocks recorded as JSON text.
    if let Value::String(s) = v {
        if s.trim_start().starts_with("[{") {
            if let Ok(list @ Value::Array(_)) = serde_json::from_str::<Value>(s) {
                let text = result_text(&list);
                if !text.starts_with('[') {
                    return text;
                }
            }
        }
    }
    if let Value::Array(blocks) = v {
        let texts: Option<Vec<String>> = blocks
            .iter()
            .map(|b| match (b.get("text"), b.get("json")) {
                (Some(Value::String(t)), _) => Some(t.clone()),
                (_, Some(j)) if b.as_object().is_some_and(|o| o.len() == 1) => Some(j.to_string()),
                _ => None,
            })
            .collect();
        if let Some(texts) = texts {
            return texts.join("\n\n");
        }
    }
    as_text(v)
}

impl Conv {
    pub fn new(format: Option<RequestFormat>) -> Conv {
        Conv { format, ..Conv::default() }
    }

    pub fn note(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.notices.push(Notice::new(path, message));
    }

    /// A recorded field with no place: its value is shown in the notice.
    pub fn unplaced(&mut self, path: impl Into<String>, value: &Value) {
        let shown = crate::recorded::otlp::shown(value);
        self.note(path, format!("recorded, with no place in the envelope: {shown}"));
    }

    pub fn has_messages(&self) -> bool {
        !self.messages.is_empty()
    }

    /// Appends a message (an empty one too: it was sent).
    pub fn push(&mut self, role: Role, segments: Vec<Segment>, ext: MessageExt) {
        self.messages.push((role, segments, ext));
    }

    /// The segments of a text (its forms; one empty text for `""`).
    pub fn text(&self, text: &str, role: Role) -> Vec<Segment> {
        if text.is_empty() {
            return vec![forms::plain(String::new(), role)];
        }
        forms::segments(text, role)
    }

    /// A tool call. `arguments`: an object, or JSON text of one; anything
    /// else is kept in the segment's `provider` field with a notice.
    pub fn call(&mut self, path: &str, id: Option<&str>, name: &str, arguments: Option<&Value>) -> Segment {
        let mut ext = Ext::default();
        let args = match arguments {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(o)) => o.clone(),
            Some(Value::String(s)) if s.trim().is_empty() => Map::new(),
            Some(v @ Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(o)) => o,
                _ => {
                    self.note(
                        path,
                        "the call's arguments are not a JSON object: kept as recorded in `provider.arguments`",
                    );
                    ext.provider = Some(Map::from_iter([("arguments".to_string(), v.clone())]));
                    Map::new()
                }
            },
            Some(v) => {
                self.note(path, "the call's arguments are not a JSON object: kept as recorded in `provider.arguments`");
                ext.provider = Some(Map::from_iter([("arguments".to_string(), v.clone())]));
                Map::new()
            }
        };
        match id.filter(|i| !i.is_empty()) {
            Some(id) => {
                self.calls.insert(id.to_string(), name.to_string());
            }
            None => self.last_call = Some(name.to_string()),
        }
        Segment::ToolCallRequest(ToolCallRequest {
            tool_name: name.to_string(),
            arguments: args,
            collapsed: false,
            call_id: id.filter(|i| !i.is_empty()).map(str::to_string),
            ext,
        })
    }

    /// Whether a call with this id was made.
    pub fn has_call(&self, id: &str) -> bool {
        self.calls.contains_key(id)
    }

    /// Whether the call `id` was answered.
    pub fn is_answered(&self, id: &str) -> bool {
        self.answered.contains(id)
    }

    /// A tool result answering call `id` (its tool name from that call).
    pub fn result(&mut self, id: Option<&str>, name: Option<&str>, response: &Value) -> Segment {
        let id = id.filter(|i| !i.is_empty());
        let tool_name = name
            .map(str::to_string)
            .or_else(|| id.and_then(|i| self.calls.get(i).cloned()))
            .or_else(|| self.last_call.clone())
            .unwrap_or_default();
        if let Some(i) = id {
            self.answered.insert(i.to_string());
        }
        Segment::ToolCallResult(ToolCallResult {
            tool_name,
            result: as_text(response),
            success: true,
            collapsed: true,
            call_id: id.map(str::to_string),
            content: None,
            ext: Ext::default(),
        })
    }

    /// A declared function tool. A second tool of one name: a notice.
    pub fn tool(
        &mut self,
        path: &str,
        name: &str,
        description: &str,
        schema: Option<Value>,
        extra: Option<Map<String, Value>>,
    ) {
        if !self.tool_names.insert(name.to_string()) {
            self.note(path, format!("a second tool named `{name}`: the first is kept"));
            return;
        }
        self.tools.push(ToolItem {
            name: name.to_string(),
            description: description.to_string(),
            parameters: None,
            schema,
            ext: Ext { provider: extra, ..Ext::default() },
        });
    }

    /// A tool kept whole (not a function: a provider's server tool).
    pub fn tool_verbatim(&mut self, name: &str, whole: Map<String, Value>) {
        // Kept whole with a `type`, it is a server tool (several may share a
        // name); without one, its name must be unique like a function's.
        if !whole.contains_key("type") && !self.tool_names.insert(name.to_string()) {
            let shown = crate::recorded::otlp::shown(&Value::Object(whole));
            self.note("", format!("a second tool named `{name}`, not kept: {shown}"));
            return;
        }
        self.tools.push(ToolItem {
            name: name.to_string(),
            description: String::new(),
            parameters: None,
            schema: None,
            ext: Ext { provider: Some(whole), ..Ext::default() },
        });
    }

    /// Something with no segment of its own: a provider block when the
    /// provider's format is known (kept verbatim, sent to that format
    /// again), else a notice.
    pub fn block(&mut self, path: &str, block: &Map<String, Value>) -> Option<Segment> {
        match self.format {
            Some(format) => Some(Segment::ProviderBlock(ProviderBlock {
                format,
                block: block.clone(),
                collapsed: true,
                ext: Ext::default(),
            })),
            None => {
                self.unplaced(path, &Value::Object(block.clone()));
                None
            }
        }
    }

    /// Inline bytes (base64): an image, audio or video as media (a data
    /// URL), anything else as a document holding the bytes. The text is
    /// never shown as text.
    pub fn blob(&mut self, path: &str, modality: Option<&str>, mime: Option<&str>, data: &str) -> Option<Segment> {
        if data.trim().is_empty() {
            let what = modality.or(mime).unwrap_or("inline data");
            self.note(path, format!("{what} recorded without its bytes"));
            return None;
        }
        if !is_base64(data) {
            let shown = crate::recorded::otlp::shown(&Value::String(data.chars().take(40).collect()));
            self.note(path, format!("inline data that is not base64, not kept: {shown}"));
            return None;
        }
        let declared = mime.map(str::trim).filter(|m| !m.is_empty());
        let sniffed = crate::sniff::sniff_base64(data);
        let mime = match (declared, crate::sniff::mismatch(declared, sniffed)) {
            (Some(d), Some(actual)) => {
                self.note(
                    path,
                    format!(
                        "declared `{d}`, but the bytes are {} (`{}`): read as {}",
                        actual.name, actual.mime, actual.mime
                    ),
                );
                actual.mime.to_string()
            }
            (None, Some(actual)) => actual.mime.to_string(),
            (Some(d), None) => d.to_string(),
            (None, None) => match modality.map(str::to_ascii_lowercase).as_deref() {
                Some("image") => "image/*".into(),
                Some("audio") => "audio/*".into(),
                Some("video") => "video/*".into(),
                _ => "application/octet-stream".into(),
            },
        };
        let kind = media_kind(if sniffed.is_some() { None } else { modality }, &mime);
        match kind {
            Some(media_type) => {
                let url = format!("data:{mime};base64,{}", data.trim());
                if !media_url_ok(media_type, &url) {
                    self.note(
                        path,
                        format!("inline {} with the media type `{mime}`: kept as a document", media_type.as_str()),
                    );
                    return self.document_bytes(path, &mime, data);
                }
                Some(Segment::Media(Media { media_type, url, alt_text: None, ext: Ext::default() }))
            }
            None => self.document_bytes(path, &mime, data),
        }
    }

    fn document_bytes(&mut self, path: &str, mime: &str, data: &str) -> Option<Segment> {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(data.trim()))
            .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(data.trim().trim_end_matches('=')));
        let bytes = match decoded {
            Ok(b) => b,
            Err(e) => {
                self.note(path, format!("inline data that is not base64 ({e}): not kept"));
                return None;
            }
        };
        let text = if mime.starts_with("text/") || mime.ends_with("json") {
            String::from_utf8(bytes.clone()).ok()
        } else {
            None
        };
        let mut d = forms::document_segment("", mime, bytes.len() as u64, text.as_deref().unwrap_or(""));
        d.data = Some(base64::engine::general_purpose::STANDARD.encode(&bytes));
        Some(Segment::Document(d))
    }

    /// Content by URI: media for http(s) images, audio and video; a
    /// document by URL otherwise.
    pub fn uri(&mut self, modality: Option<&str>, mime: Option<&str>, uri: &str) -> Segment {
        let mime = mime.unwrap_or("");
        if let Some(media_type) = media_kind(modality, mime) {
            if media_url_ok(media_type, uri) {
                return Segment::Media(Media { media_type, url: uri.to_string(), alt_text: None, ext: Ext::default() });
            }
        }
        let mut d = forms::document_segment(uri.rsplit('/').next().unwrap_or(""), mime, 0, "");
        d.url = Some(uri.to_string());
        Segment::Document(d)
    }

    /// A file the provider holds (by id).
    pub fn file_id(&mut self, mime: Option<&str>, file_id: &str) -> Segment {
        let mut d = forms::document_segment("", mime.unwrap_or(""), 0, "");
        d.file_id = Some(file_id.to_string());
        Segment::Document(d)
    }

    pub fn reasoning(&self, content: &str) -> Segment {
        Segment::Reasoning(Reasoning {
            content: content.to_string(),
            summary: None,
            signature: None,
            encrypted: None,
            collapsed: true,
            ext: Ext::default(),
        })
    }

    /// The messages as output (`o1`, `o2`, …): no tools, no validation.
    pub fn into_output_messages(self) -> (Vec<Message>, Vec<Notice>) {
        let messages = self
            .messages
            .into_iter()
            .enumerate()
            .map(|(i, (role, segments, ext))| Message {
                id: format!("o{}", i + 1),
                role,
                segments,
                timestamp: 0.into(),
                truncation_priority: None,
                ext,
            })
            .collect();
        (messages, self.notices)
    }

    /// The envelope (tools in one `tool_overview` at the end of the first
    /// message when it is a system message, else in a system message of
    /// their own first), its validation errors, the notices.
    pub fn finish(
        mut self,
        model: Option<String>,
        params: Option<Map<String, Value>>,
    ) -> (Envelope, Vec<Diagnostic>, Vec<Notice>) {
        let envelope = crate::import::assemble(
            std::mem::take(&mut self.messages),
            std::mem::take(&mut self.tools),
            model,
            params.filter(|p| !p.is_empty()),
            self.format,
        );
        let errors = crate::validate::check(&envelope, &Locator::identity(&envelope), false)
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect();
        (envelope, errors, self.notices)
    }
}

/// Whether a text is base64 (either alphabet, padded or not, white space
/// allowed): checked by its characters, in one pass.
fn is_base64(data: &str) -> bool {
    let t = data.trim().trim_end_matches('=');
    !t.is_empty()
        && t.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_' | b'\n' | b'\r'))
}

/// The media type of inline data: image, audio or video by the modality or
/// the MIME type; `None` for anything else (a PDF, text).
fn media_kind(modality: Option<&str>, mime: &str) -> Option<MediaType> {
    match modality.map(str::to_ascii_lowercase).as_deref() {
        Some("image") => return Some(MediaType::Image),
        Some("audio") => return Some(MediaType::Audio),
        Some("video") => return Some(MediaType::Video),
        _ => {}
    }
    let m = mime.to_ascii_lowercase();
    if m.starts_with("image/") {
        Some(MediaType::Image)
    } else if m.starts_with("audio/") {
        Some(MediaType::Audio)
    } else if m.starts_with("video/") {
        Some(MediaType::Video)
    } else {
        None
    }
}
