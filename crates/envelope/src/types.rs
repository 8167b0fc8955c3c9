//! The protocol's data model (§1–2), as typed Rust values.
//!
//! Documents are read by [`crate::parse`], which reports every problem with a
//! path; these types only *serialise* (back to the protocol's JSON shape, with
//! the same camelCase names and `kind` tag), so there is one way in for a
//! document. Two plain enums, [`Role`] and [`RequestFormat`], also
//! deserialise: the engine's messages (`crate::engine`) carry them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The only protocol version this crate reads.
pub const VERSION: &str = "1.0";

/// A whole document: `{ version, model?, params?, messages }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Envelope {
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Extension (prompt identity, docs/EXTENSIONS.md): the prompt's name
    /// and version (`{"name": "compliance-report", "version": "2.3.1"}`).
    /// Not model input and not a request field: no export sends it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptId>,
    /// Extension (docs/DECISIONS.md): the request's settings (`temperature`,
    /// `max_tokens`, `tool_choice`, …) as the provider spells them, key order
    /// kept. Not model input; passed through on export.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub params: Option<Map<String, Value>>,
    /// Extension (fidelity, docs/EXTENSIONS.md): the request format this
    /// envelope was imported from (`openai`, `responses`, `anthropic`,
    /// `gemini`, `bedrock`). An export to that format rebuilds the request as
    /// it was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<RequestFormat>,
    pub messages: Vec<Message>,
}

impl Envelope {
    /// The prompt's name (extension: prompt identity), if the document gives one.
    pub fn prompt_name(&self) -> Option<&str> {
        self.prompt.as_ref().and_then(|p| p.name.as_deref())
    }

    /// The prompt's version (extension: prompt identity), if the document gives one.
    pub fn prompt_version(&self) -> Option<&str> {
        self.prompt.as_ref().and_then(|p| p.version.as_deref())
    }
}

/// Extension (prompt identity, docs/EXTENSIONS.md): which prompt a document
/// is, and which version of it. Both are free, non-empty strings (`"2.3.1"`,
/// `"v2.3.1"`, a date): the version is compared for equality only.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PromptId {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The request formats an envelope can come from (extension: fidelity).
/// Also read (serde) as the engine's `import` reply names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RequestFormat {
    Openai,
    Responses,
    Anthropic,
    /// Gemini `generateContent` (the model is in the URL, not the body).
    Gemini,
    /// Amazon Bedrock Converse (the model is in the URL, not the body).
    Bedrock,
}

impl RequestFormat {
    pub const ALL: [RequestFormat; 5] = [
        RequestFormat::Openai,
        RequestFormat::Responses,
        RequestFormat::Anthropic,
        RequestFormat::Gemini,
        RequestFormat::Bedrock,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            RequestFormat::Openai => "openai",
            RequestFormat::Responses => "responses",
            RequestFormat::Anthropic => "anthropic",
            RequestFormat::Gemini => "gemini",
            RequestFormat::Bedrock => "bedrock",
        }
    }

    pub fn parse(s: &str) -> Option<RequestFormat> {
        RequestFormat::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// "OpenAI Chat", "OpenAI Responses", "Anthropic Messages", "Gemini",
    /// "Bedrock Converse".
    pub fn label(self) -> &'static str {
        match self {
            RequestFormat::Openai => "OpenAI Chat",
            RequestFormat::Responses => "OpenAI Responses",
            RequestFormat::Anthropic => "Anthropic Messages",
            RequestFormat::Gemini => "Gemini",
            RequestFormat::Bedrock => "Bedrock Converse",
        }
    }
}

/// Extension (fidelity): what a provider's block or part carried besides
/// what its segment types: a cache breakpoint, the provider's own fields
/// (kept verbatim, re-emitted for the envelope's `source` only), and whether
/// its text shared one provider text part with the segment before it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ext {
    /// Anthropic's `cache_control`, verbatim: a cache breakpoint after this block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
    /// The block's fields that have no place in the envelope, verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<Map<String, Value>>,
    /// Sent in one text part with the segment before, joined by `"\n\n"`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub join_previous: bool,
    /// How the provider wrote what the segment holds, where its format
    /// allows more than one way (a snake_case field name, `base64url`, … — flags read
    /// only by the replay to the envelope's `source`; docs/EXTENSIONS.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shape: Vec<String>,
}

impl Ext {
    pub fn is_empty(&self) -> bool {
        self.cache_control.is_none() && self.provider.is_none() && !self.join_previous && self.shape.is_empty()
    }

    /// Whether the shape flag `flag` is set.
    pub fn has_shape(&self, flag: &str) -> bool {
        self.shape.iter().any(|f| f == flag)
    }
}

/// Who speaks a message. Also read (serde) as the engine's `diff` reply
/// names it; a document's role is read by [`Role::parse`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
    /// Extension (fidelity): the provider's extras of this message.
    #[serde(flatten)]
    pub ext: MessageExt,
}

/// Extension (fidelity): what a provider's message carried besides its
/// role and content.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageExt {
    /// The message's `name` (OpenAI Chat: few-shot `example_user`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The role as the provider spelled it when it differs from `role`
    /// (`developer` for a system message).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_role: Option<String>,
    /// The content was an array of parts (not one string).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub content_parts: bool,
    /// This message and the one before were one provider message (a turn
    /// that held tool results and text, say).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub continues: bool,
    /// The message's other fields (an item `id`, `status`, …), verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<Map<String, Value>>,
    /// How the provider wrote the message, where its format allows more
    /// than one way (`noRole`, `partsObject`, … — flags read only by the
    /// replay to the envelope's `source`; docs/EXTENSIONS.md).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shape: Vec<String>,
}

impl MessageExt {
    pub fn is_empty(&self) -> bool {
        *self == MessageExt::default()
    }

    /// Whether the shape flag `flag` is set.
    pub fn has_shape(&self, flag: &str) -> bool {
        self.shape.iter().any(|f| f == flag)
    }
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
    /// Extension (fidelity).
    Reasoning(Reasoning),
    /// Extension (fidelity).
    ProviderBlock(ProviderBlock),
}

/// Every `kind` tag, in the spec's order, then the extensions' kinds.
pub const KINDS: [&str; 13] = [
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
    "reasoning",
    "provider_block",
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
            Segment::Reasoning(_) => "reasoning",
            Segment::ProviderBlock(_) => "provider_block",
        }
    }

    /// The fidelity extension's fields of this segment, for kinds that have them.
    pub fn ext(&self) -> Option<&Ext> {
        match self {
            Segment::Text(s) => Some(&s.ext),
            Segment::SystemPrompt(s) => Some(&s.ext),
            Segment::LongText(s) => Some(&s.ext),
            Segment::Document(s) => Some(&s.ext),
            Segment::Media(s) => Some(&s.ext),
            Segment::ToolCallRequest(s) => Some(&s.ext),
            Segment::ToolCallResult(s) => Some(&s.ext),
            Segment::Reasoning(s) => Some(&s.ext),
            Segment::ProviderBlock(s) => Some(&s.ext),
            _ => None,
        }
    }

    /// The same, to change.
    pub fn ext_mut(&mut self) -> Option<&mut Ext> {
        match self {
            Segment::Text(s) => Some(&mut s.ext),
            Segment::SystemPrompt(s) => Some(&mut s.ext),
            Segment::LongText(s) => Some(&mut s.ext),
            Segment::Document(s) => Some(&mut s.ext),
            Segment::Media(s) => Some(&mut s.ext),
            Segment::ToolCallRequest(s) => Some(&mut s.ext),
            Segment::ToolCallResult(s) => Some(&mut s.ext),
            Segment::Reasoning(s) => Some(&mut s.ext),
            Segment::ProviderBlock(s) => Some(&mut s.ext),
            _ => None,
        }
    }

    /// The segment's cache breakpoint, if it has one.
    pub fn cache_control(&self) -> Option<&Value> {
        self.ext().and_then(|e| e.cache_control.as_ref())
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
            Segment::Reasoning(s) => Some(s.collapsed),
            Segment::ProviderBlock(s) => Some(s.collapsed),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Text {
    pub content: String,
    #[serde(flatten)]
    pub ext: Ext,
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
    #[serde(flatten)]
    pub ext: Ext,
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
    #[serde(flatten)]
    pub ext: Ext,
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
    #[serde(flatten)]
    pub ext: Ext,
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
    /// Extension (fidelity): the result as the provider's content blocks
    /// (text, images, documents), verbatim; `result` is their text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<Value>>,
    #[serde(flatten)]
    pub ext: Ext,
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
    /// Extension (fidelity): the file's bytes, base64 (standard alphabet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// Extension (fidelity): where the provider fetches the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Extension (fidelity): the provider's id of an uploaded file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_id: Option<String>,
    #[serde(flatten)]
    pub ext: Ext,
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
    #[serde(flatten)]
    pub ext: Ext,
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
    #[serde(flatten)]
    pub ext: Ext,
}

/// Extension (fidelity): the model's reasoning sent back with a
/// conversation (Anthropic `thinking` / `redacted_thinking`, OpenAI Responses
/// `reasoning` items). Read-only: a signature or encrypted content is only
/// valid unchanged.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reasoning {
    /// The reasoning text (Anthropic `thinking`; Responses `reasoning_text`
    /// parts joined by `"\n\n"`), empty when the provider sent none.
    pub content: String,
    /// Responses: the `summary_text` parts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Vec<String>>,
    /// Anthropic: the signature that lets the API check the thinking.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// Anthropic `redacted_thinking.data` / Responses `encrypted_content`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<String>,
    pub collapsed: bool,
    #[serde(flatten)]
    pub ext: Ext,
}

/// Extension (fidelity): a provider's block or item with no segment of its
/// own (a server tool's call or result, an MCP call, an item reference, …),
/// verbatim. Sent only to its own format; other exports list it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderBlock {
    pub format: RequestFormat,
    pub block: Map<String, Value>,
    pub collapsed: bool,
    #[serde(flatten)]
    pub ext: Ext,
}

impl ProviderBlock {
    /// The block's `type` (`server_tool_use`, `web_search_call`, …).
    pub fn block_type(&self) -> &str {
        self.block.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// The tool it calls or answers, where it names one.
    pub fn tool_name(&self) -> Option<&str> {
        ["name", "server_label", "tool_name"].iter().find_map(|k| self.block.get(*k).and_then(Value::as_str))
    }
}

impl ToolItem {
    /// A tool kept whole from a request (a provider's server tool: web
    /// search, code execution, MCP, …): no schema, and its provider fields
    /// verbatim: a `type` among them (OpenAI, Anthropic), or the tool's
    /// one wrapping key as its name (Gemini `{"googleSearch": {}}` named
    /// `googleSearch`), or that key's object naming it (Bedrock
    /// `{"systemTool": {"name": "nova_grounding"}}`). The model does not call
    /// it by name.
    pub fn is_server(&self) -> bool {
        self.schema.is_none()
            && self.ext.provider.as_ref().is_some_and(|b| {
                b.contains_key("type")
                    || b.contains_key(&self.name)
                    || (b.len() == 1
                        && b.values().next().and_then(|v| v.get("name")).and_then(Value::as_str)
                            == Some(self.name.as_str()))
            })
    }
}
