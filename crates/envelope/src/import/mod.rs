//! Import: a provider's request body → an envelope, plus notices.
//!
//! [`import`] reads JSON text, [`detect`]s its format (a Prompt Envelope,
//! or an OpenAI Chat Completions, OpenAI Responses or Anthropic Messages
//! request body) and hands it to that format's module, which builds the
//! envelope through a shared [`Builder`]: text through [`forms`] (the
//! export's own text forms come back as their segments), calls and results
//! paired by id, tools gathered into one `tool_overview`, request settings
//! into `params`. Nothing is dropped silently: every field without a place
//! in the envelope is a [`Notice`] with its JSON path. Malformed input gives
//! every error with its path, as for envelopes; the envelope made is then
//! validated like a loaded one (its warnings travel with it).
//!
//! Messages are numbered `m1`, `m2`, … in order. Requests carry no times:
//! every timestamp is 0 ("unknown"), so importing one request twice gives
//! the same envelope, byte for byte.

pub mod anthropic;
pub mod forms;
pub mod openai_chat;
pub mod openai_responses;

use std::collections::HashMap;

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
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Envelope, Format::OpenaiChat, Format::OpenaiResponses, Format::Anthropic];

    /// The CLI's `--from` value: `envelope`, `openai`, `responses`, `anthropic`.
    pub fn code(self) -> &'static str {
        match self {
            Format::Envelope => "envelope",
            Format::OpenaiChat => "openai",
            Format::OpenaiResponses => "responses",
            Format::Anthropic => "anthropic",
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
        }
    }

    /// "Prompt Envelope", "OpenAI Chat", "OpenAI Responses", "Anthropic Messages":
    /// the app says "Imported from {label}".
    pub fn label(self) -> &'static str {
        match self {
            Format::Envelope => "Prompt Envelope",
            Format::OpenaiChat => "OpenAI Chat",
            Format::OpenaiResponses => "OpenAI Responses",
            Format::Anthropic => "Anthropic Messages",
        }
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
    let mut b = Builder::default();
    let model = b.model(body);
    match format {
        Format::OpenaiChat => openai_chat::read(body, &mut b),
        Format::OpenaiResponses => openai_responses::read(body, &mut b),
        Format::Anthropic | Format::Envelope => anthropic::read(body, &mut b),
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
}

impl Signals {
    fn chat(&mut self, what: String) {
        self.chat.get_or_insert(what);
    }
    fn anthropic(&mut self, what: String) {
        self.anthropic.get_or_insert(what);
    }
}

const TRIED: &str = "the formats tried: a Prompt Envelope (`version` and `messages` with `segments`), an OpenAI Chat request (`messages` with `role` and `content`), an OpenAI Responses request (`input` or `instructions`), an Anthropic Messages request (`messages` and `max_tokens` or a top-level `system`)";

/// The format of a body: an envelope has `version` and `messages` whose
/// entries have `segments`; a body with `input` or `instructions` and no
/// `messages` is OpenAI Responses; a body with `messages` is Anthropic
/// Messages when it has a field only Anthropic has (a top-level `system`, a
/// `tool_use`/`tool_result`/`image`-with-`source`/`document`/`thinking`
/// block, a tool with `input_schema`, `stop_sequences`, `top_k`, …) and
/// OpenAI Chat when it has one only Chat has (a `system`/`developer`/`tool`
/// message, `tool_calls`, an `image_url` part, a nested `function` tool,
/// `max_completion_tokens`, …); with neither, `max_tokens` says Anthropic and
/// its absence Chat. A body with both is ambiguous (an error: name the format).
pub fn detect(value: &Value) -> Result<Format, Diagnostic> {
    let none = |found: &str| {
        Diagnostic::new(Rule::ImportFormat, "", format!("{found}; {TRIED}"))
            .with_hint("name the format (pep import --from openai|responses|anthropic)")
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
        if o.contains_key("input") || o.contains_key("instructions") {
            return Ok(Format::OpenaiResponses);
        }
        return Err(none("the body has no `messages` array, `input` or `instructions`"));
    };
    let mut s = Signals::default();
    for key in ["system", "stop_sequences", "top_k", "thinking", "anthropic_version", "mcp_servers", "container"] {
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
    match (s.chat, s.anthropic) {
        (Some(c), Some(a)) => Err(Diagnostic::new(
            Rule::ImportAmbiguousFormat,
            "",
            format!("the body has OpenAI Chat fields ({c}) and Anthropic Messages fields ({a})"),
        )
        .with_hint("name the format (pep import --from openai|anthropic)")),
        (Some(_), None) => Ok(Format::OpenaiChat),
        (None, Some(_)) => Ok(Format::Anthropic),
        (None, None) if o.contains_key("max_tokens") => Ok(Format::Anthropic),
        (None, None) => Ok(Format::OpenaiChat),
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
        Ext { cache_control: o.get("cache_control").cloned(), provider: Builder::rest(o, known), join_previous: false }
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
            ext: Ext { cache_control, provider: Some(bag), join_previous: false },
        });
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
        if !self.tools.is_empty() {
            let seg = Segment::ToolOverview(ToolOverview { items: std::mem::take(&mut self.tools), collapsed: true });
            match self.messages.first_mut() {
                Some((Role::System, segs, _)) => segs.push(seg),
                _ => self.messages.insert(0, (Role::System, vec![seg], MessageExt::default())),
            }
        }
        let messages = self
            .messages
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
        let envelope = Envelope {
            version: VERSION.to_string(),
            model,
            params: (!params.is_empty()).then_some(params),
            source: format.request_format(),
            messages,
        };
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
        for name in ["Prompt Envelope", "OpenAI Chat", "OpenAI Responses", "Anthropic Messages"] {
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
