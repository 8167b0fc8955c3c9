//! The protocol's data model (§1–2), as typed Rust values.
//!
//! Documents are read by [`crate::parse`], which reports every problem with a
//! path; these types only *serialise* (back to the protocol's JSON shape, with
//! the same camelCase names and `kind` tag), so there is one way in.

use serde::Serialize;
use serde_json::{Map, Number, Value};

/// The only protocol version this crate reads.
pub const VERSION: &str = "1.0";

/// A whole document: `{ version, model?, params?, messages }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Envelope {
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Extension (docs/DECISIONS.md): the request's settings (`temperature`,
    /// `max_tokens`, `tool_choice`, …) as the provider spells them, key order
    /// kept. Not model input; passed through on export.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    pub messages: Vec<Message>,
}

/// Who speaks a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::System, Role::User, Role::Assistant, Role::Tool];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// One message: an ordered list of typed segments.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub id: String,
    pub role: Role,
    pub segments: Vec<Segment>,
    /// Milliseconds since the epoch, kept as written.
    pub timestamp: Number,
    /// Extension (§5): how eagerly the truncation preview drops this message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncation_priority: Option<u64>,
}

impl Message {
    /// The timestamp as a float of milliseconds (for display; see
    /// [`crate::number`] for why not `Number::as_f64`).
    pub fn timestamp_ms(&self) -> f64 {
        crate::number::value(self.timestamp.as_str()).unwrap_or(0.0)
    }
}

/// The eleven segment kinds (§2), tagged by `kind`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Segment {
    Text(Text),
    StaticVar(StaticVar),
    SystemPrompt(SystemPrompt),
    Memory(Memory),
    Skills(Skills),
    ToolOverview(ToolOverview),
    ToolCallRequest(ToolCallRequest),
    ToolCallResult(ToolCallResult),
    Document(Document),
    LongText(LongText),
    Media(Media),
}

/// Every `kind` tag, in the spec's order.
pub const KINDS: [&str; 11] = [
    "text",
    "static_var",
    "system_prompt",
    "memory",
    "skills",
    "tool_overview",
    "tool_call_request",
    "tool_call_result",
    "document",
    "long_text",
    "media",
];

impl Segment {
    /// The `kind` tag of this segment.
    pub fn kind(&self) -> &'static str {
        match self {
            Segment::Text(_) => "text",
            Segment::StaticVar(_) => "static_var",
            Segment::SystemPrompt(_) => "system_prompt",
            Segment::Memory(_) => "memory",
            Segment::Skills(_) => "skills",
            Segment::ToolOverview(_) => "tool_overview",
            Segment::ToolCallRequest(_) => "tool_call_request",
            Segment::ToolCallResult(_) => "tool_call_result",
            Segment::Document(_) => "document",
            Segment::LongText(_) => "long_text",
            Segment::Media(_) => "media",
        }
    }

    /// The document's default collapse state, for kinds that have one.
    pub fn collapsed(&self) -> Option<bool> {
        match self {
            Segment::SystemPrompt(s) => Some(s.collapsed),
            Segment::Memory(s) => Some(s.collapsed),
            Segment::Skills(s) => Some(s.collapsed),
            Segment::ToolOverview(s) => Some(s.collapsed),
            Segment::ToolCallRequest(s) => Some(s.collapsed),
            Segment::ToolCallResult(s) => Some(s.collapsed),
            Segment::LongText(s) => Some(s.collapsed),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Text {
    pub content: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StaticVar {
    pub name: String,
    pub value: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SystemPrompt {
    pub content: String,
    pub collapsed: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Memory {
    pub items: Vec<MemoryItem>,
    pub collapsed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MemoryItem {
    pub title: String,
    pub content: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skills {
    pub items: Vec<SkillItem>,
    pub collapsed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A skill: L1 (`name`, `description`) is always in context; L2 (`body`) only when `loaded`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkillItem {
    pub name: String,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loaded: Option<bool>,
}

impl SkillItem {
    pub fn is_loaded(&self) -> bool {
        self.loaded == Some(true)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolOverview {
    pub items: Vec<ToolItem>,
    pub collapsed: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolItem {
    pub name: String,
    pub description: String,
    /// Human summary, e.g. `city: string, days?: int`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<String>,
    /// JSON Schema of the arguments, key order kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRequest {
    pub tool_name: String,
    /// Key order kept as written.
    pub arguments: Map<String, Value>,
    pub collapsed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallResult {
    pub tool_name: String,
    pub result: String,
    pub success: bool,
    pub collapsed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    pub file_name: String,
    pub mime_type: String,
    pub snippet: String,
    pub size_bytes: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parsed_content: Option<String>,
}

impl Document {
    /// What the model reads: the parsed content, or the snippet when there is
    /// none (an empty `parsedContent` counts as none, as `a || b` would).
    pub fn model_text(&self) -> &str {
        match &self.parsed_content {
            Some(p) if !p.is_empty() => p,
            _ => &self.snippet,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LongText {
    pub content: String,
    pub char_count: i64,
    pub collapsed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MediaType {
    Image,
    Audio,
    Video,
}

impl MediaType {
    pub fn as_str(self) -> &'static str {
        match self {
            MediaType::Image => "image",
            MediaType::Audio => "audio",
            MediaType::Video => "video",
        }
    }

    pub fn parse(s: &str) -> Option<MediaType> {
        [MediaType::Image, MediaType::Audio, MediaType::Video].into_iter().find(|m| m.as_str() == s)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Media {
    pub media_type: MediaType,
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alt_text: Option<String>,
}
