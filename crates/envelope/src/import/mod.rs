//! Import: a provider's request body → an envelope, plus notices.
//!
//! [`import`] reads JSON text, [`detect`]s its format (a Prompt Envelope,
//! or an OpenAI Chat Completions, OpenAI Responses, Anthropic Messages,
//! Gemini `generateContent` or Bedrock Converse request body) and hands it
//! to that format's module, which builds the
//! envelope through a shared [`Builder`]: text through [`forms`] (the
//! export's own text forms come back as their segments), calls and results
//! paired by id, tools gathered into one `tool_overview`, request settings
//! into `params`. Nothing is dropped silently: every field without a place
//! in the envelope is a [`Notice`] with its JSON path. Malformed input gives
//! every error with its path, as for envelopes; the envelope made is then
//! validated like a loaded one (its warnings travel with it).
//!
//! Gemini and Bedrock bodies do not name their model (it is in the URL):
//! [`import_with`] takes it from outside (a flag, a trace), and the replay
//! never writes it into the body.
//!
//! Messages are numbered `m1`, `m2`, … in order. Requests carry no times:
//! every timestamp is 0 ("unknown"), so importing one request twice gives
//! the same envelope, byte for byte.

pub mod anthropic;
pub mod bedrock;
pub mod forms;
pub mod gemini;
pub mod openai_chat;
pub mod openai_responses;

use std::collections::{HashMap, VecDeque};

use base64::Engine;
use serde_json::{Map, Value};

pub use crate::diag::Notice;
use crate::diag::{Diagnostic, Rule};
use crate::locator::Locator;
use crate::parse::{self, type_name, Loaded};
use crate::types::*;
use crate::validate::media_url_ok;

/// What a body is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Envelope,
    OpenaiChat,
    OpenaiResponses,
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
    /// Amazon Bedrock Converse.
    Bedrock,
}

impl Format {
    pub const ALL: [Format; 6] = [
        Format::Envelope,
        Format::OpenaiChat,
        Format::OpenaiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::Bedrock,
    ];

    /// The CLI's `--from` value: `envelope`, `openai`, `responses`,
    /// `anthropic`, `gemini`, `bedrock`.
    pub fn code(self) -> &'static str {
        match self {
            Format::Envelope => "envelope",
            Format::OpenaiChat => "openai",
            Format::OpenaiResponses => "responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::Bedrock => "bedrock",
        }
    }

    pub fn from_code(code: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.code() == code)
    }

    /// The envelope's `source` for a request of this format.
    pub fn request_format(self) -> Option<RequestFormat> {
        match self {
            Format::Envelope => None,
            Format::OpenaiChat => Some(RequestFormat::Openai),
            Format::OpenaiResponses => Some(RequestFormat::Responses),
            Format::Anthropic => Some(RequestFormat::Anthropic),
            Format::Gemini => Some(RequestFormat::Gemini),
            Format::Bedrock => Some(RequestFormat::Bedrock),
        }
    }

    /// "Prompt Envelope", "OpenAI Chat", "OpenAI Responses", "Anthropic
    /// Messages", "Gemini", "Bedrock Converse": the app says "Imported from {label}".
    pub fn label(self) -> &'static str {
        match self.request_format() {
            None => "Prompt Envelope",
            Some(f) => f.label(),
        }
    }

    /// Whether the format's body leaves the model out (it is in the URL).
    pub fn model_in_url(self) -> bool {
        matches!(self, Format::Gemini | Format::Bedrock)
    }
}

/// A body read into an envelope.
#[derive(Clone, Debug)]
pub struct Imported {
    pub envelope: Envelope,
    /// The envelope as JSON: the document as written for an envelope, the
    /// envelope made for a request (what a raw view shows).
    pub raw: Value,
    pub format: Format,
    /// What did not carry over as it was (always empty for an envelope).
    pub notices: Vec<Notice>,
    /// The envelope's validation warnings (§3).
    pub warnings: Vec<Diagnostic>,
}

impl Imported {
    /// As a loaded document.
    pub fn into_loaded(self) -> Loaded {
        Loaded { envelope: self.envelope, raw: self.raw, warnings: self.warnings }
    }
}

/// Reads JSON text of any format (detected).
pub fn import(text: &str) -> Result<Imported, Vec<Diagnostic>> {
    import_as(text, None)
}

/// Reads JSON text as `from`, or as the format [`detect`] finds.
pub fn import_as(text: &str, from: Option<Format>) -> Result<Imported, Vec<Diagnostic>> {
    import_value(parse::json(text)?, from)
}

/// Reads bytes (UTF-8 JSON) as `from`, or as the format [`detect`] finds.
pub fn import_bytes(bytes: &[u8], from: Option<Format>) -> Result<Imported, Vec<Diagnostic>> {
    import_as(parse::utf8(bytes).map_err(|e| vec![e])?, from)
}

/// Reads a JSON value as `from`, or as the format [`detect`] finds.
pub fn import_value(value: Value, from: Option<Format>) -> Result<Imported, Vec<Diagnostic>> {
    import_with(value, from, None)
}

/// [`import_value`] with the model from outside the body (a flag, a trace):
/// the envelope's `model` for a Gemini or Bedrock body (whose model is in
/// the URL), and for the other formats when the body names none. An
/// envelope keeps its own.
pub fn import_with(value: Value, from: Option<Format>, model: Option<&str>) -> Result<Imported, Vec<Diagnostic>> {
    let format = match from {
        Some(f) => f,
        None => detect(&value).map_err(|e| vec![e])?,
    };
    if format == Format::Envelope {
        let loaded = parse::from_value(value)?;
        return Ok(Imported {
            envelope: loaded.envelope,
            raw: loaded.raw,
            format,
            notices: vec![],
            warnings: loaded.warnings,
        });
    }
    let Value::Object(body) = &value else {
        return Err(vec![Diagnostic::new(
            Rule::WrongType,
            "",
            format!("expected a JSON object (an {} request body), found {}", format.label(), type_name(&value)),
        )]);
    };
    let outside = model.filter(|m| !m.is_empty()).map(str::to_string);
    let mut b = Builder::default();
    match format {
        Format::Gemini => {
            let params = gemini::read(body, &mut b);
            return b.finish(format, outside, params);
        }
        Format::Bedrock => {
            let params = bedrock::read(body, &mut b);
            return b.finish(format, outside, params);
        }
        _ => {}
    }
    let model = b.model(body).or(outside);
    match format {
        Format::OpenaiChat => openai_chat::read(body, &mut b),
        Format::OpenaiResponses => openai_responses::read(body, &mut b),
        _ => anthropic::read(body, &mut b),
    }
    // An empty `tools` array has no tool to hold: it stays a setting.
    let no_tools = body.get("tools").and_then(Value::as_array).is_some_and(Vec::is_empty);
    // So does an empty Responses `input` (absent is another request).
    let no_input =
        format == Format::OpenaiResponses && body.get("input").and_then(Value::as_array).is_some_and(Vec::is_empty);
    let reserved: &[&str] = match format {
        Format::OpenaiChat => &["model", "messages", "tools"],
        Format::OpenaiResponses => &["model", "input", "instructions", "tools"],
        _ => &["model", "system", "messages", "tools"],
    };
    let params: Map<String, Value> = body
        .iter()
        .filter(|(k, _)| {
            !reserved.contains(&k.as_str())
                || (no_tools && k.as_str() == "tools")
                || (no_input && k.as_str() == "input")
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    b.finish(format, model, params)
}

/// Fields only one format has, with the first one found (for messages).
#[derive(Default)]
struct Signals {
    chat: Option<String>,
    anthropic: Option<String>,
    bedrock: Option<String>,
    /// Bedrock signals besides untyped content blocks (which may also be
    /// another format's blocks that lack their `type`).
    bedrock_strong: bool,
    /// A content block with a `type` (no Bedrock block has one).
    typed_block: bool,
}

impl Signals {
    fn chat(&mut self, what: String) {
        self.chat.get_or_insert(what);
    }
    fn anthropic(&mut self, what: String) {
        self.anthropic.get_or_insert(what);
    }
    fn bedrock(&mut self, what: String) {
        self.bedrock.get_or_insert(what);
    }
}

const TRIED: &str = "the formats tried: a Prompt Envelope (`version` and `messages` with `segments`), an OpenAI Chat request (`messages` with `role` and `content`), an OpenAI Responses request (`input` or `instructions`), an Anthropic Messages request (`messages` and `max_tokens` or a top-level `system`), a Gemini generateContent request (`contents` or `systemInstruction`), a Bedrock Converse request (`messages` whose content blocks have no `type`: `{\"text\": …}`, `{\"toolUse\": …}`)";

/// The content blocks of Bedrock Converse (and of its `system`): each is an
/// object with one of these keys and no `type`.
pub(crate) const BEDROCK_BLOCKS: [&str; 14] = [
    "text",
    "image",
    "document",
    "video",
    "audio",
    "toolUse",
    "toolResult",
    "reasoningContent",
    "cachePoint",
    "guardContent",
    "citationsContent",
    "searchResult",
    "toolResultContent",
    "s3Location",
];

/// Top-level fields only a Bedrock Converse request has.
const BEDROCK_KEYS: [&str; 11] = [
    "inferenceConfig",
    "toolConfig",
    "additionalModelRequestFields",
    "additionalModelResponseFieldPaths",
    "guardrailConfig",
    "promptVariables",
    "requestMetadata",
    "performanceConfig",
    "serviceTier",
    "outputConfig",
    "projectIdentifier",
];

/// Top-level fields of a Gemini request besides `contents` (either spelling).
const GEMINI_KEYS: [&str; 8] = [
    "systemInstruction",
    "system_instruction",
    "generationConfig",
    "generation_config",
    "safetySettings",
    "safety_settings",
    "cachedContent",
    "cached_content",
];

/// A Bedrock content block: an object without `type` holding a Bedrock block key.
fn bedrock_block(v: &Value) -> bool {
    v.as_object().is_some_and(|o| !o.contains_key("type") && o.keys().any(|k| BEDROCK_BLOCKS.contains(&k.as_str())))
}

/// The format of a body: an envelope has `version` and `messages` whose
/// entries have `segments`; a body with `contents` (or a Gemini
/// `systemInstruction`, `generationConfig`, …) and no `messages` is Gemini;
/// a body with `input` or `instructions` and no `messages` is OpenAI
/// Responses. A body with `messages` is Bedrock Converse when it has a field
/// only Bedrock has (content blocks without `type` such as `{"text": …}`,
/// `inferenceConfig`, `toolConfig`, …), Anthropic Messages when it has a
/// field only Anthropic has (a top-level `system` string or typed blocks, a
/// `tool_use`/`tool_result`/`image`-with-`source`/`document`/`thinking`
/// block, a tool with `input_schema`, `stop_sequences`, `top_k`, …) and
/// OpenAI Chat when it has one only Chat has (a `system`/`developer`/`tool`
/// message, `tool_calls`, an `image_url` part, a nested `function` tool,
/// `max_completion_tokens`, …); with none, `max_tokens` says Anthropic and
/// its absence Chat. A body with fields of two is ambiguous (an error: name the format).
pub fn detect(value: &Value) -> Result<Format, Diagnostic> {
    let none = |found: &str| {
        Diagnostic::new(Rule::ImportFormat, "", format!("{found}; {TRIED}"))
            .with_hint("name the format (pep import --from openai|responses|anthropic|gemini|bedrock)")
    };
    let Value::Object(o) = value else {
        return Err(none(&format!("the body is {}, not an object", type_name(value))));
    };
    let messages = o.get("messages").and_then(Value::as_array);
    if o.contains_key("version")
        && messages.is_some_and(|m| m.is_empty() || m.iter().any(|x| x.get("segments").is_some()))
    {
        return Ok(Format::Envelope);
    }
    let Some(messages) = messages else {
        if !o.contains_key("messages") && (o.contains_key("contents") || GEMINI_KEYS.iter().any(|k| o.contains_key(*k)))
        {
            return Ok(Format::Gemini);
        }
        if o.contains_key("input") || o.contains_key("instructions") {
            return Ok(Format::OpenaiResponses);
        }
        // A Bedrock request for a managed prompt may send no messages.
        let bedrock_system =
            o.get("system").and_then(Value::as_array).is_some_and(|b| !b.is_empty() && b.iter().all(bedrock_block));
        if !o.contains_key("messages") && (bedrock_system || BEDROCK_KEYS.iter().any(|k| o.contains_key(*k))) {
            return Ok(Format::Bedrock);
        }
        return Err(none("the body has no `messages` array, `contents`, `input` or `instructions`"));
    };
    let mut s = Signals::default();
    for key in BEDROCK_KEYS {
        if o.contains_key(key) {
            s.bedrock(format!("`{key}`"));
            s.bedrock_strong = true;
        }
    }
    match o.get("system") {
        Some(Value::Array(blocks)) if !blocks.is_empty() && blocks.iter().all(bedrock_block) => {
            s.bedrock("a `system` of untyped blocks".into());
            s.bedrock_strong = true;
        }
        Some(_) => s.anthropic("`system`".into()),
        None => {}
    }
    for key in ["stop_sequences", "top_k", "thinking", "anthropic_version", "mcp_servers", "container"] {
        if o.contains_key(key) {
            s.anthropic(format!("`{key}`"));
        }
    }
    for key in [
        "max_completion_tokens",
        "response_format",
        "n",
        "seed",
        "logprobs",
        "frequency_penalty",
        "presence_penalty",
        "logit_bias",
        "reasoning_effort",
        "modalities",
        "functions",
    ] {
        if o.contains_key(key) {
            s.chat(format!("`{key}`"));
        }
    }
    if let Some(tc) = o.get("tool_choice") {
        match tc {
            Value::String(_) => s.chat("a string `tool_choice`".into()),
            Value::Object(t) if t.contains_key("function") => s.chat("`tool_choice.function`".into()),
            Value::Object(t)
                if matches!(t.get("type").and_then(Value::as_str), Some("any" | "tool" | "auto" | "none")) =>
            {
                s.anthropic("an object `tool_choice`".into())
            }
            _ => {}
        }
    }
    for (i, t) in o.get("tools").and_then(Value::as_array).into_iter().flatten().enumerate() {
        if t.get("function").is_some() {
            s.chat(format!("`tools[{i}].function`"));
        }
        if t.get("input_schema").is_some() {
            s.anthropic(format!("`tools[{i}].input_schema`"));
        }
    }
    for (i, m) in messages.iter().enumerate() {
        let Some(m) = m.as_object() else { continue };
        if let Some(role @ ("system" | "developer" | "tool" | "function")) = m.get("role").and_then(Value::as_str) {
            s.chat(format!("the `{role}` message messages[{i}]"));
        }
        for key in ["tool_calls", "tool_call_id", "function_call", "refusal", "audio"] {
            if m.contains_key(key) {
                s.chat(format!("`messages[{i}].{key}`"));
            }
        }
        for (j, part) in m.get("content").and_then(Value::as_array).into_iter().flatten().enumerate() {
            if bedrock_block(part) {
                s.bedrock(format!("the untyped block messages[{i}].content[{j}]"));
                continue;
            }
            s.typed_block |= part.get("type").is_some();
            let ty = part.get("type").and_then(Value::as_str).unwrap_or("");
            match ty {
                "image_url" | "input_audio" | "file" | "refusal" => {
                    s.chat(format!("the `{ty}` part messages[{i}].content[{j}]"))
                }
                "tool_use" | "tool_result" | "document" | "thinking" | "redacted_thinking" | "server_tool_use"
                | "search_result" => s.anthropic(format!("the `{ty}` block messages[{i}].content[{j}]")),
                "image" if part.get("source").is_some() => {
                    s.anthropic(format!("an `image` block (messages[{i}].content[{j}])"))
                }
                _ => {}
            }
            if part.get("cache_control").is_some() {
                s.anthropic(format!("`cache_control` (messages[{i}].content[{j}])"));
            }
        }
    }
    let ambiguous = |a: (&str, String), b: (&str, String)| {
        Diagnostic::new(
            Rule::ImportAmbiguousFormat,
            "",
            format!("the body has {} fields ({}) and {} fields ({})", a.0, a.1, b.0, b.1),
        )
        .with_hint("name the format (pep import --from openai|anthropic|bedrock)")
    };
    // Untyped blocks beside another format's fields are that format's
    // blocks without their `type` (its import says so).
    let bedrock =
        s.bedrock.filter(|_| s.bedrock_strong || (s.chat.is_none() && s.anthropic.is_none() && !s.typed_block));
    match (s.chat, s.anthropic, bedrock) {
        (_, Some(a), Some(b)) => Err(ambiguous(("Anthropic Messages", a), ("Bedrock Converse", b))),
        (Some(c), _, Some(b)) => Err(ambiguous(("OpenAI Chat", c), ("Bedrock Converse", b))),
        (Some(c), Some(a), None) => Err(ambiguous(("OpenAI Chat", c), ("Anthropic Messages", a))),
        (None, None, Some(_)) => Ok(Format::Bedrock),
        (Some(_), None, None) => Ok(Format::OpenaiChat),
        (None, Some(_), None) => Ok(Format::Anthropic),
        (None, None, None) if o.contains_key("max_tokens") => Ok(Format::Anthropic),
        (None, None, None) => Ok(Format::OpenaiChat),
    }
}

/// `path.key`, or `key` at the top.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// What a field must hold.
#[derive(Clone, Copy)]
pub(crate) enum Want {
    Str,
    Array,
    Object,
    Bool,
}

impl Want {
    fn describe(self) -> &'static str {
        match self {
            Want::Str => "a string",
            Want::Array => "an array",
            Want::Object => "an object",
            Want::Bool => "a boolean",
        }
    }

    fn fits(self, v: &Value) -> bool {
        match self {
            Want::Str => v.is_string(),
            Want::Array => v.is_array(),
            Want::Object => v.is_object(),
            Want::Bool => v.is_boolean(),
        }
    }
}

/// A tool call read so far.
struct Call {
    name: String,
    path: String,
    answered: Option<String>,
}

/// Builds an envelope from a request: collects messages, notices and errors.
#[derive(Default)]
pub struct Builder {
    notices: Vec<Notice>,
    errors: Vec<Diagnostic>,
    messages: Vec<(Role, Vec<Segment>, MessageExt)>,
    calls: HashMap<String, Call>,
    /// Calls a result may answer by name and order (Gemini's calls carry no
    /// id): per tool name, the paths of the calls not yet answered.
    by_name: HashMap<String, VecDeque<String>>,
    tools: Vec<ToolItem>,
    tool_names: HashMap<String, String>,
}

impl Builder {
    pub(crate) fn note(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.notices.push(Notice::new(path, message));
    }

    pub(crate) fn error(&mut self, rule: Rule, path: impl Into<String>, message: impl Into<String>) {
        self.errors.push(Diagnostic::new(rule, path, message));
    }

    /// The fields of `o` besides `known` and `cache_control`, verbatim
    /// (`None` when there are none).
    pub(crate) fn rest(o: &Map<String, Value>, known: &[&str]) -> Option<Map<String, Value>> {
        let rest: Map<String, Value> = o
            .iter()
            .filter(|(k, _)| k.as_str() != "cache_control" && !known.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        (!rest.is_empty()).then_some(rest)
    }

    /// A block's extension fields: its `cache_control` and the fields
    /// besides `known`, kept verbatim.
    pub(crate) fn ext_of(o: &Map<String, Value>, known: &[&str]) -> Ext {
        Ext { cache_control: o.get("cache_control").cloned(), provider: Builder::rest(o, known), ..Ext::default() }
    }

    /// A block with no segment of its own, kept verbatim (its cache
    /// breakpoint apart).
    pub(crate) fn provider_block(format: RequestFormat, o: &Map<String, Value>) -> Segment {
        let mut block = o.clone();
        let cache_control = block.shift_remove("cache_control");
        Segment::ProviderBlock(ProviderBlock {
            format,
            block,
            collapsed: true,
            ext: Ext { cache_control, ..Ext::default() },
        })
    }

    /// A tool kept whole (a server tool, a custom tool): its name as the
    /// item's, the rest verbatim.
    pub(crate) fn tool_verbatim(&mut self, name: &str, t: &Map<String, Value>) {
        let mut bag = t.clone();
        let cache_control = bag.shift_remove("cache_control");
        // Server tools may share a name (two `mcp` tools): they are not
        // functions the model calls by name, so they skip the duplicate check.
        self.tools.push(ToolItem {
            name: name.to_string(),
            description: String::new(),
            parameters: None,
            schema: None,
            ext: Ext { cache_control, provider: Some(bag), ..Ext::default() },
        });
    }

    /// The fields of `o` besides `known`, verbatim, all of them: for the
    /// formats that have no `cache_control` (Gemini, Bedrock), where such a
    /// key is just another field (`None` when there are none).
    pub(crate) fn others(o: &Map<String, Value>, known: &[&str]) -> Option<Map<String, Value>> {
        let rest: Map<String, Value> =
            o.iter().filter(|(k, _)| !known.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect();
        (!rest.is_empty()).then_some(rest)
    }

    /// A block with no segment of its own, kept whole (every field in
    /// `block`: Gemini, Bedrock).
    pub(crate) fn block_whole(format: RequestFormat, o: &Map<String, Value>) -> Segment {
        Segment::ProviderBlock(ProviderBlock { format, block: o.clone(), collapsed: true, ext: Ext::default() })
    }

    /// A tool kept whole, every field in its `provider` (Gemini, Bedrock).
    pub(crate) fn tool_whole(&mut self, name: &str, t: &Map<String, Value>) {
        self.tools.push(ToolItem {
            name: name.to_string(),
            description: String::new(),
            parameters: None,
            schema: None,
            ext: Ext { provider: Some(t.clone()), ..Ext::default() },
        });
    }

    /// The last declared tool, to change.
    pub(crate) fn last_tool_mut(&mut self) -> Option<&mut ToolItem> {
        self.tools.last_mut()
    }

    /// Sets the extension fields of the last declared tool.
    pub(crate) fn last_tool_ext(&mut self, ext: Ext) {
        if let Some(t) = self.tools.last_mut() {
            t.ext = ext;
        }
    }

    pub(crate) fn object<'a>(&mut self, v: &'a Value, path: &str, what: &str) -> Option<&'a Map<String, Value>> {
        match v {
            Value::Object(o) => Some(o),
            other => {
                self.error(Rule::WrongType, path, format!("expected {what} (an object), found {}", type_name(other)));
                None
            }
        }
    }

    /// A field that must be there, of the type wanted.
    pub(crate) fn req<'a>(
        &mut self,
        o: &'a Map<String, Value>,
        path: &str,
        key: &str,
        want: Want,
    ) -> Option<&'a Value> {
        match o.get(key) {
            None => {
                self.error(
                    Rule::MissingField,
                    join(path, key),
                    format!("missing field `{key}` (expected {})", want.describe()),
                );
                None
            }
            Some(v) => self.typed(v, &join(path, key), want),
        }
    }

    /// A field that may be absent or `null`.
    pub(crate) fn opt<'a>(
        &mut self,
        o: &'a Map<String, Value>,
        path: &str,
        key: &str,
        want: Want,
    ) -> Option<&'a Value> {
        match o.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => self.typed(v, &join(path, key), want),
        }
    }

    fn typed<'a>(&mut self, v: &'a Value, path: &str, want: Want) -> Option<&'a Value> {
        if want.fits(v) {
            Some(v)
        } else {
            self.error(Rule::WrongType, path, format!("expected {}, found {}", want.describe(), type_name(v)));
            None
        }
    }

    pub(crate) fn req_str<'a>(&mut self, o: &'a Map<String, Value>, path: &str, key: &str) -> Option<&'a str> {
        self.req(o, path, key, Want::Str).and_then(Value::as_str)
    }

    pub(crate) fn opt_str<'a>(&mut self, o: &'a Map<String, Value>, path: &str, key: &str) -> Option<&'a str> {
        self.opt(o, path, key, Want::Str).and_then(Value::as_str)
    }

    fn model(&mut self, body: &Map<String, Value>) -> Option<String> {
        self.opt_str(body, "", "model").map(str::to_string)
    }

    /// Appends a message.
    pub(crate) fn push(&mut self, path: &str, role: Role, segments: Vec<Segment>) {
        self.push_ext(path, role, segments, MessageExt::default());
    }

    /// Appends a message with the provider's extras.
    pub(crate) fn push_ext(&mut self, path: &str, role: Role, segments: Vec<Segment>, ext: MessageExt) {
        if segments.is_empty() {
            self.note(
                path,
                "this message sends nothing; it is kept empty (an export to its own format sends it as it was)",
            );
        }
        self.messages.push((role, segments, ext));
    }

    /// Appends to the last message when it is of `role`, else starts one.
    pub(crate) fn append(&mut self, role: Role, segments: Vec<Segment>) {
        match self.messages.last_mut() {
            Some((r, segs, _)) if *r == role => segs.extend(segments),
            _ => self.messages.push((role, segments, MessageExt::default())),
        }
    }

    /// The last message, when it is of `role`.
    pub(crate) fn last_mut(&mut self, role: Role) -> Option<&mut (Role, Vec<Segment>, MessageExt)> {
        self.messages.last_mut().filter(|(r, ..)| *r == role)
    }

    /// The segments of a whole string `content`: its forms, or one empty
    /// text for `""` (so that an export to its own format sends `""` again).
    pub(crate) fn string_content(&self, text: &str, role: Role) -> Vec<Segment> {
        if text.is_empty() {
            return vec![forms::plain(String::new(), role)];
        }
        forms::segments(text, role)
    }

    /// The segments of one text part or block with its extras: one plain
    /// segment carrying them, or (with none) the forms, each after the first
    /// marked as joined to the one before (they were one part).
    pub(crate) fn block_text(&self, text: &str, role: Role, ext: Ext) -> Vec<Segment> {
        if !ext.is_empty() || text.is_empty() {
            let mut seg = forms::plain(text.to_string(), role);
            if let Some(e) = seg.ext_mut() {
                *e = ext;
            }
            return vec![seg];
        }
        let mut segs = forms::segments(text, role);
        for s in segs.iter_mut().skip(1) {
            match s.ext_mut() {
                Some(e) => e.join_previous = true,
                // A form without extension fields (memory, skills) cannot say
                // it was joined: keep the part as one plain text.
                None => return vec![forms::plain(text.to_string(), role)],
            }
        }
        segs
    }

    /// A tool call. `path` is where its id is.
    pub(crate) fn call(&mut self, path: &str, id: &str, name: &str, arguments: Map<String, Value>) -> Segment {
        if let Some(first) = self.calls.get(id) {
            let msg = format!("duplicate tool call id `{id}` (also at {})", first.path);
            self.error(Rule::DuplicateCallId, path, msg);
        } else {
            self.calls.insert(id.to_string(), Call { name: name.to_string(), path: path.to_string(), answered: None });
        }
        Segment::ToolCallRequest(ToolCallRequest {
            tool_name: name.to_string(),
            arguments,
            collapsed: false,
            call_id: Some(id.to_string()),
            ext: Default::default(),
        })
    }

    /// A tool call that a result may answer by name and order, as
    /// `Calls::pair` pairs results without a `callId`: with its `id` when it
    /// has one (`path` is where it is). `by_name`: whether a result without
    /// an id may take it (not when a later result answers its id).
    pub(crate) fn call_by_name(
        &mut self,
        path: &str,
        id: Option<&str>,
        name: &str,
        arguments: Map<String, Value>,
        by_name: bool,
    ) -> Segment {
        if by_name {
            self.by_name.entry(name.to_string()).or_default().push_back(path.to_string());
        }
        match id {
            Some(id) => self.call(path, id, name, arguments),
            None => Segment::ToolCallRequest(ToolCallRequest {
                tool_name: name.to_string(),
                arguments,
                collapsed: false,
                call_id: None,
                ext: Default::default(),
            }),
        }
    }

    /// A tool result without an id: it answers the earliest unanswered call
    /// of `name` (`None` when there is none).
    pub(crate) fn result_by_name(&mut self, name: &str, result: String, success: bool) -> Option<Segment> {
        self.by_name.get_mut(name)?.pop_front()?;
        Some(Segment::ToolCallResult(ToolCallResult {
            tool_name: name.to_string(),
            result,
            success,
            collapsed: true,
            call_id: None,
            content: None,
            ext: Default::default(),
        }))
    }

    /// Whether the call `id` came before and is not answered yet.
    pub(crate) fn call_open(&self, id: &str) -> bool {
        self.calls.get(id).is_some_and(|c| c.answered.is_none())
    }

    /// Whether a call with this id came before.
    pub(crate) fn has_call(&self, id: &str) -> bool {
        self.calls.contains_key(id)
    }

    /// A tool result answering the earlier call `id`. `path` is where its id is.
    pub(crate) fn result(&mut self, path: &str, id: &str, result: String, success: bool) -> Option<Segment> {
        let Some(call) = self.calls.get_mut(id) else {
            self.error(Rule::UnpairedResult, path, format!("`{id}` answers no earlier tool call"));
            return None;
        };
        if let Some(first) = &call.answered {
            let msg = format!("tool call `{id}` is already answered at {first}");
            self.error(Rule::DuplicateCallId, path, msg);
            return None;
        }
        call.answered = Some(path.to_string());
        Some(Segment::ToolCallResult(ToolCallResult {
            tool_name: call.name.clone(),
            result,
            success,
            collapsed: true,
            call_id: Some(id.to_string()),
            content: None,
            ext: Default::default(),
        }))
    }

    /// An image at `url` (http, https or `data:image/…`).
    pub(crate) fn image(&mut self, path: &str, url: &str) -> Option<Segment> {
        if !media_url_ok(MediaType::Image, url) {
            let shown: String = url.chars().take(60).collect();
            self.error(
                Rule::MediaUrlScheme,
                path,
                format!("an image URL must be http, https or data:image/…, not `{shown}`"),
            );
            return None;
        }
        Some(Segment::Media(Media {
            media_type: MediaType::Image,
            url: url.to_string(),
            alt_text: None,
            ext: Default::default(),
        }))
    }

    /// A declared tool. `path` is where its name is.
    pub(crate) fn tool(&mut self, path: &str, name: &str, description: &str, schema: Option<Value>) {
        if let Some(first) = self.tool_names.get(name) {
            let msg = format!("two tools named `{name}` (also at {first})");
            self.error(Rule::DuplicateTool, path, msg);
            return;
        }
        self.tool_names.insert(name.to_string(), path.to_string());
        self.tools.push(ToolItem {
            name: name.to_string(),
            description: description.to_string(),
            parameters: None,
            schema,
            ext: Default::default(),
        });
    }

    /// A Chat or Responses `arguments` string: it must hold a JSON object.
    pub(crate) fn arguments(&mut self, path: &str, text: &str) -> Option<Map<String, Value>> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(o)) => Some(o),
            Ok(other) => {
                self.error(
                    Rule::ImportArguments,
                    path,
                    format!("the arguments are {}, not a JSON object", type_name(&other)),
                );
                None
            }
            Err(e) => {
                self.error(Rule::ImportArguments, path, format!("the arguments are not JSON: {e}"));
                None
            }
        }
    }

    /// A document from base64 `data` (`path` is where the data is): its size
    /// is the decoded length; its text, for a textual MIME type in UTF-8, is
    /// the model text; other bytes are not kept (a notice says so).
    pub(crate) fn file(&mut self, path: &str, file_name: &str, mime: &str, data: &str) -> Option<Segment> {
        let bytes = match base64::engine::general_purpose::STANDARD.decode(data.trim()) {
            Ok(b) => b,
            Err(e) => {
                self.error(Rule::ImportBase64, path, format!("the base64 data does not decode: {e}"));
                return None;
            }
        };
        let text = if textual(mime) { String::from_utf8(bytes.clone()).ok() } else { None };
        let mut d = forms::document_segment(file_name, mime, bytes.len() as u64, text.as_deref().unwrap_or(""));
        d.data = Some(data.to_string());
        Some(Segment::Document(d))
    }

    /// A document given as a data URL (or bare base64).
    pub(crate) fn file_data(&mut self, path: &str, file_name: &str, data: &str) -> Option<Segment> {
        match split_data_url(data) {
            Some((mime, true, payload)) => {
                let mime = if mime.is_empty() { mime_of(file_name) } else { mime };
                self.file(path, file_name, mime, payload)
            }
            Some((mime, false, payload)) => {
                self.note(
                    path,
                    "a data URL that is not base64: its text is kept as written (percent escapes are not decoded)",
                );
                let mime = if mime.is_empty() { "text/plain" } else { mime };
                Some(Segment::Document(forms::document_segment(file_name, mime, payload.len() as u64, payload)))
            }
            None => self.file(path, file_name, mime_of(file_name), data),
        }
    }

    /// The envelope: the tools in one `tool_overview` at the end of the
    /// first message when it is a system message, else in a new system
    /// message before the rest; ids `m1…`, timestamps 0.
    fn finish(
        mut self,
        format: Format,
        model: Option<String>,
        params: Map<String, Value>,
    ) -> Result<Imported, Vec<Diagnostic>> {
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        let envelope = assemble(
            std::mem::take(&mut self.messages),
            std::mem::take(&mut self.tools),
            model,
            (!params.is_empty()).then_some(params),
            format.request_format(),
        );
        // Well formed by construction: only the semantic rules (§3) apply.
        let diags = crate::validate::check(&envelope, &Locator::identity(&envelope), false);
        let (errors, warnings): (Vec<_>, Vec<_>) = diags.into_iter().partition(Diagnostic::is_error);
        if errors.is_empty() {
            let raw = serde_json::to_value(&envelope).unwrap_or(Value::Null);
            Ok(Imported { envelope, raw, format, notices: self.notices, warnings })
        } else {
            Err(errors
                .into_iter()
                .map(|e| {
                    Diagnostic::new(
                        Rule::ImportInvalidEnvelope,
                        "",
                        format!("the envelope made from this request is invalid at {}: {}", e.path, e.message),
                    )
                })
                .collect())
        }
    }
}

/// An envelope from messages read in order (numbered `m1`, `m2`, …, every
/// timestamp 0) and the tools they declared, gathered into one
/// `tool_overview` at the end of the first message when it is a system
/// message, else in a system message of their own first. The importers'
/// [`Builder`] and the recorded calls' builder both end here.
pub(crate) fn assemble(
    mut messages: Vec<(Role, Vec<Segment>, MessageExt)>,
    tools: Vec<ToolItem>,
    model: Option<String>,
    params: Option<Map<String, Value>>,
    source: Option<RequestFormat>,
) -> Envelope {
    if !tools.is_empty() {
        let seg = Segment::ToolOverview(ToolOverview { items: tools, collapsed: true });
        match messages.first_mut() {
            Some((Role::System, segs, _)) => segs.push(seg),
            _ => messages.insert(0, (Role::System, vec![seg], MessageExt::default())),
        }
    }
    let messages = messages
        .into_iter()
        .enumerate()
        .map(|(i, (role, segments, ext))| Message {
            id: format!("m{}", i + 1),
            role,
            segments,
            timestamp: 0.into(),
            truncation_priority: None,
            ext,
        })
        .collect();
    Envelope { version: VERSION.to_string(), model, prompt: None, params, source, messages }
}

/// The `shape` flag of a `media` or `document` segment read from a text
/// part's own text (the export's text form `[image: …]`, `[Document: …]`),
/// not from a media or file part: the replay writes it back as text.
pub(crate) const TEXT_FORM: &str = "textForm";

/// Marks the media and documents among the segments of one text part as
/// text forms ([`TEXT_FORM`]).
pub(crate) fn mark_text_forms(segs: &mut [Segment]) {
    for s in segs {
        if let Segment::Media(Media { ext, .. }) | Segment::Document(Document { ext, .. }) = s {
            ext.shape.push(TEXT_FORM.to_string());
        }
    }
}

/// Base64 in the standard alphabet, padded or not.
pub(crate) fn decode_base64(data: &str) -> Result<Vec<u8>, base64::DecodeError> {
    use base64::engine::{general_purpose::GeneralPurpose, DecodePaddingMode, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    LENIENT.decode(data)
}

/// `data:[mime][;params][;base64],payload` → (mime, base64?, payload).
fn split_data_url(s: &str) -> Option<(&str, bool, &str)> {
    if !s.get(..5)?.eq_ignore_ascii_case("data:") {
        return None;
    }
    let (meta, payload) = s[5..].split_once(',')?;
    let base64 =
        meta.len().checked_sub(7).and_then(|i| meta.get(i..)).is_some_and(|t| t.eq_ignore_ascii_case(";base64"));
    let mime = meta.split(';').next().unwrap_or("");
    Some((mime, base64, payload))
}

/// Whether a MIME type is text (read as UTF-8 into the document's content).
fn textual(mime: &str) -> bool {
    let m = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    m.starts_with("text/")
        || m.ends_with("+json")
        || m.ends_with("+xml")
        || [
            "application/json",
            "application/xml",
            "application/yaml",
            "application/x-yaml",
            "application/javascript",
            "application/csv",
        ]
        .contains(&m.as_str())
}

/// A MIME type from a file name's extension.
fn mime_of(file_name: &str) -> &'static str {
    let ext = file_name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        "md" => "text/markdown",
        "csv" => "text/csv",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        "xml" => "application/xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detection() {
        let f = |v: Value| detect(&v).map_err(|e| e.code());
        assert_eq!(f(json!({"version": "1.0", "messages": []})), Ok(Format::Envelope));
        assert_eq!(f(json!({"version": "1.0", "messages": [{"segments": []}]})), Ok(Format::Envelope));
        assert_eq!(
            f(json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]})),
            Ok(Format::OpenaiChat)
        );
        assert_eq!(f(json!({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5})), Ok(Format::Anthropic));
        assert_eq!(
            f(json!({"messages": [{"role": "system", "content": "s"}], "max_tokens": 5})),
            Ok(Format::OpenaiChat)
        );
        assert_eq!(f(json!({"system": "s", "messages": []})), Ok(Format::Anthropic));
        assert_eq!(f(json!({"input": "hi"})), Ok(Format::OpenaiResponses));
        assert_eq!(f(json!({"instructions": "x", "model": "m"})), Ok(Format::OpenaiResponses));
        assert_eq!(f(json!({"prompt": "hi"})), Err("import-format"));
        assert_eq!(f(json!([1])), Err("import-format"));
        assert_eq!(
            f(json!({"system": "s", "messages": [{"role": "tool", "content": "x", "tool_call_id": "a"}]})),
            Err("import-ambiguous-format")
        );
        let e = detect(&json!({"prompt": "hi"})).unwrap_err();
        for name in ["Prompt Envelope", "OpenAI Chat", "OpenAI Responses", "Anthropic Messages", "Gemini", "Bedrock"] {
            assert!(e.message.contains(name), "{}", e.message);
        }
    }

    #[test]
    fn data_urls_and_mime_types() {
        assert_eq!(split_data_url("data:application/pdf;base64,QQ=="), Some(("application/pdf", true, "QQ==")));
        assert_eq!(split_data_url("DATA:text/plain,hi"), Some(("text/plain", false, "hi")));
        assert_eq!(split_data_url("QQ=="), None);
        assert_eq!(split_data_url("data:ééééé,x"), Some(("ééééé", false, "x")));
        assert_eq!(split_data_url("data:é;base64,QQ=="), Some(("é", true, "QQ==")));
        assert!(textual("text/csv") && textual("application/ld+json") && !textual("application/pdf"));
        assert_eq!(mime_of("a.PDF"), "application/pdf");
        assert_eq!(mime_of("noext"), "application/octet-stream");
    }
}
