//! Reading a document: JSON text → [`Envelope`], with every problem reported.
//!
//! Reading runs in two passes. The *structural* pass walks the JSON value and
//! builds the typed model field by field, collecting every missing, mistyped
//! or unknown field with its path instead of stopping at the first. The
//! *semantic* pass ([`crate::validate`]) then checks the rules of §3 over what
//! was read. A document with any error is rejected; warnings travel beside a
//! valid document.

use serde_json::{Map, Value};

use crate::diag::{Diagnostic, Rule};
use crate::locator::Locator;
use crate::types::*;
use crate::validate;

/// A valid document, the JSON it was read from, and its warnings.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub envelope: Envelope,
    /// The document as written (key order kept): what a "raw protocol" view shows.
    pub raw: Value,
    pub warnings: Vec<Diagnostic>,
}

/// Reads a document from bytes: invalid UTF-8 is an error that gives its line,
/// column and byte offset.
pub fn parse_bytes(bytes: &[u8]) -> Result<Loaded, Vec<Diagnostic>> {
    parse(utf8(bytes).map_err(|e| vec![e])?)
}

/// The bytes as text, or the `invalid-utf8` error with its line, column and offset.
pub fn utf8(bytes: &[u8]) -> Result<&str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let (line, column) = line_column(&bytes[..at]);
        Diagnostic::new(
            Rule::InvalidUtf8,
            format!("line {line} column {column}"),
            format!("the file is not valid UTF-8 (invalid byte at offset {at})"),
        )
    })
}

fn line_column(prefix: &[u8]) -> (usize, usize) {
    let line = prefix.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = prefix.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&prefix[line_start..]).chars().count() + 1;
    (line, column)
}

/// Reads a document from JSON text. Duplicate keys are errors
/// (`duplicate-key`); the rest of the document is still checked, with the
/// later value of each duplicate (as JavaScript reads it).
pub fn parse(text: &str) -> Result<Loaded, Vec<Diagnostic>> {
    let (value, duplicates) = read_json(text).map_err(|e| vec![e])?;
    if duplicates.is_empty() {
        return from_value(value);
    }
    let mut errors = duplicates;
    if let Err(more) = from_value(value) {
        errors.extend(more);
    }
    Err(errors)
}

/// JSON text as a value (a leading byte-order mark allowed) and the
/// `duplicate-key` errors of its objects, or the one error that says why it
/// is not JSON: `empty-document`, or `invalid-json` with its line and column
/// (nesting deeper than 128 levels included).
pub fn read_json(text: &str) -> Result<(Value, Vec<Diagnostic>), Diagnostic> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(Diagnostic::new(Rule::EmptyDocument, "", "the document is empty (expected a JSON object)"));
    }
    let (value, duplicates) = crate::jsonread::read(text).map_err(|e| syntax_error(&e))?;
    let duplicates = duplicates
        .into_iter()
        .map(|d| {
            Diagnostic::new(
                Rule::DuplicateKey,
                d.path,
                format!("duplicate key `{}`: this object already has one, and readers disagree on which counts", d.key),
            )
            .with_hint("remove one of the two")
        })
        .collect();
    Ok((value, duplicates))
}

/// JSON text as a value, or every reason it is not one ([`read_json`]'s
/// error, or each duplicate key).
pub fn json(text: &str) -> Result<Value, Vec<Diagnostic>> {
    let (value, duplicates) = read_json(text).map_err(|e| vec![e])?;
    if duplicates.is_empty() {
        Ok(value)
    } else {
        Err(duplicates)
    }
}

/// A JSON syntax error as a diagnostic whose path is `line L column C`.
pub fn syntax_error(e: &serde_json::Error) -> Diagnostic {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    let message = match message {
        "recursion limit exceeded" => "nesting is too deep (more than 128 levels)",
        m => m,
    };
    Diagnostic::new(
        Rule::InvalidJson,
        format!("line {} column {}", e.line(), e.column()),
        format!("invalid JSON: {message}"),
    )
}

/// Reads a document from an already-parsed JSON value.
pub fn from_value(raw: Value) -> Result<Loaded, Vec<Diagnostic>> {
    let decoded = Decoded::of(&raw);
    decoded.check(raw)
}

/// The structural pass done, the semantic one still to run: reading split
/// in two steps so that a caller with a deadline (the app, between frames)
/// can run each in its own task. `Decoded::of(&raw).check(raw)` is
/// [`from_value`].
#[derive(Debug)]
pub struct Decoded {
    envelope: Option<Envelope>,
    errors: Vec<Diagnostic>,
    locator: Locator,
    incomplete: bool,
}

impl Decoded {
    /// The structural pass over `raw`.
    pub fn of(raw: &Value) -> Decoded {
        let mut d = Decoder::default();
        let envelope = d.envelope(raw);
        Decoded { envelope, errors: d.errors, locator: d.locator, incomplete: d.incomplete }
    }

    /// How many messages and segments decoded (for progress).
    pub fn size(&self) -> (usize, usize) {
        self.envelope.as_ref().map_or((0, 0), |e| (e.messages.len(), e.messages.iter().map(|m| m.segments.len()).sum()))
    }

    /// The semantic pass ([`crate::validate`]): the document (with `raw`,
    /// the value it was decoded from) and its warnings, or every error.
    pub fn check(self, raw: Value) -> Result<Loaded, Vec<Diagnostic>> {
        let Decoded { envelope, mut errors, locator, incomplete } = self;
        if let Some(envelope) = &envelope {
            errors.extend(validate::check(envelope, &locator, incomplete));
        }
        let (errors, warnings): (Vec<_>, Vec<_>) = errors.into_iter().partition(|d| d.is_error());
        match envelope {
            Some(envelope) if errors.is_empty() => Ok(Loaded { envelope, raw, warnings }),
            _ => Err(errors),
        }
    }

    /// A document shown before its semantic pass, and that pass still to run
    /// ([`Pending`]): for a reader that shows a document it trusts at once
    /// and checks it a moment later (the app's own demos and the document it
    /// saved itself, checked after the first paint). When the structural pass
    /// found an error, `Err` holds its errors (the semantic pass does not run).
    /// `Loaded::warnings` holds the structural pass's warnings; with those
    /// [`Pending::check`] adds, they are the warnings of [`Decoded::check`],
    /// in its order, and it adds an error exactly where `check` fails.
    pub fn provisional(self, raw: Value) -> Result<(Loaded, Pending), Vec<Diagnostic>> {
        let Decoded { envelope, errors, locator, incomplete } = self;
        let (errors, warnings): (Vec<_>, Vec<_>) = errors.into_iter().partition(|d| d.is_error());
        match envelope {
            Some(envelope) if errors.is_empty() => {
                Ok((Loaded { envelope, raw, warnings }, Pending { locator, incomplete }))
            }
            _ => Err(errors),
        }
    }
}

/// The semantic pass of a document shown before it ([`Decoded::provisional`]).
#[derive(Debug)]
pub struct Pending {
    locator: Locator,
    incomplete: bool,
}

impl Pending {
    /// The semantic pass ([`crate::validate`]) over `envelope`, the document
    /// [`Decoded::provisional`] gave: its errors and warnings, in
    /// [`Decoded::check`]'s order. Any error means the document does not load.
    pub fn check(&self, envelope: &Envelope) -> Vec<Diagnostic> {
        validate::check(envelope, &self.locator, self.incomplete)
    }
}

/// [`parse_bytes`] with the semantic pass left to run ([`Decoded::provisional`]):
/// reading, JSON (duplicate keys included) and structural errors are `Err`.
pub fn parse_provisional(bytes: &[u8]) -> Result<(Loaded, Pending), Vec<Diagnostic>> {
    let text = utf8(bytes).map_err(|e| vec![e])?;
    let (value, duplicates) = read_json(text).map_err(|e| vec![e])?;
    if !duplicates.is_empty() {
        return Err(duplicates);
    }
    Decoded::of(&value).provisional(value)
}

/// Whether a JSON value is meant as a Prompt Envelope rather than as a
/// provider's request body: an object with `version`, or whose `messages`
/// hold an entry with `segments`. No request format has either, so a reader
/// that also takes requests (the app) reads such a value as an envelope, and
/// a damaged envelope gets the envelope's errors rather than a request's.
/// (`import::detect` is stricter: it needs both, to tell formats apart.)
pub fn meant_as_envelope(value: &Value) -> bool {
    let Value::Object(o) = value else { return false };
    o.contains_key("version")
        || o.get("messages").and_then(Value::as_array).is_some_and(|m| m.iter().any(|x| x.get("segments").is_some()))
}

/// The structural pass alone: the model (when the document is an object with
/// `version` and `messages`), with the messages and segments that decoded,
/// and the structural errors. For tools and tests that look at documents the
/// semantic rules reject.
pub fn decode(raw: &Value) -> (Option<Envelope>, Vec<Diagnostic>) {
    let mut d = Decoder::default();
    let envelope = d.envelope(raw);
    (envelope, d.errors)
}

#[derive(Default)]
struct Decoder {
    errors: Vec<Diagnostic>,
    locator: Locator,
    /// Some message or segment could not be decoded and is missing from the model.
    incomplete: bool,
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The JSON type of a value, for messages ("found a number").
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What a field holds, for "expected …" messages.
#[derive(Clone, Copy)]
enum Want {
    Str,
    Bool,
    /// An integer ≥ 0.
    Count,
    /// Any integer.
    Int,
    Number,
    Object,
    Array,
}

impl Want {
    fn describe(self) -> &'static str {
        match self {
            Want::Str => "a string",
            Want::Bool => "a boolean",
            Want::Count => "a non-negative integer",
            Want::Int => "an integer",
            Want::Number => "a number",
            Want::Object => "an object",
            Want::Array => "an array",
        }
    }
}

/// One JSON object being decoded: reads fields and reports unknown ones.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl Decoder {
    fn err(&mut self, rule: Rule, path: impl Into<String>, message: impl Into<String>) {
        self.errors.push(Diagnostic::new(rule, path, message));
    }

    fn object<'a>(&mut self, v: &'a Value, path: &str, what: &str) -> Option<Obj<'a>> {
        match v {
            Value::Object(map) => Some(Obj { map, path: path.to_string() }),
            other => {
                self.err(Rule::WrongType, path, format!("expected {what} (an object), found {}", type_name(other)));
                None
            }
        }
    }

    /// Reports fields of `o` not in `allowed`.
    fn unknown_fields(&mut self, o: &Obj, allowed: &[&str], what: &str) {
        for key in o.map.keys() {
            if !allowed.contains(&key.as_str()) {
                let mut msg = format!("unknown field `{key}` in {what}");
                if let Some(near) = near_miss(key, allowed) {
                    msg.push_str(&format!("; did you mean `{near}`?"));
                } else {
                    msg.push_str(&format!("; expected one of: {}", allowed.join(", ")));
                }
                self.err(Rule::UnknownField, join(&o.path, key), msg);
            }
        }
    }

    /// A required field: reports it when missing or of the wrong type.
    fn req<'a>(&mut self, o: &Obj<'a>, key: &str, want: Want) -> Option<&'a Value> {
        match o.map.get(key) {
            None => {
                self.err(
                    Rule::MissingField,
                    join(&o.path, key),
                    format!("missing field `{key}` (expected {})", want.describe()),
                );
                None
            }
            Some(v) => self.typed(v, &join(&o.path, key), want),
        }
    }

    /// An optional field: absent or `null` is `None`.
    fn opt<'a>(&mut self, o: &Obj<'a>, key: &str, want: Want) -> Option<Option<&'a Value>> {
        match o.map.get(key) {
            None | Some(Value::Null) => Some(None),
            Some(v) => self.typed(v, &join(&o.path, key), want).map(Some),
        }
    }

    fn typed<'a>(&mut self, v: &'a Value, path: &str, want: Want) -> Option<&'a Value> {
        let ok = match want {
            Want::Str => v.is_string(),
            Want::Bool => v.is_boolean(),
            Want::Count => v.as_u64().is_some(),
            Want::Int => v.as_i64().is_some(),
            Want::Number => v.is_number(),
            Want::Object => v.is_object(),
            Want::Array => v.is_array(),
        };
        if ok {
            Some(v)
        } else {
            let found = match (want, v) {
                (Want::Count | Want::Int, Value::Number(n)) => format!("the number {n}"),
                _ => type_name(v).to_string(),
            };
            self.err(Rule::WrongType, path, format!("expected {}, found {found}", want.describe()));
            None
        }
    }

    fn string(&mut self, o: &Obj, key: &str) -> Option<String> {
        self.req(o, key, Want::Str).and_then(Value::as_str).map(str::to_string)
    }

    fn opt_string(&mut self, o: &Obj, key: &str) -> Option<Option<String>> {
        self.opt(o, key, Want::Str).map(|v| v.and_then(Value::as_str).map(str::to_string))
    }

    fn boolean(&mut self, o: &Obj, key: &str) -> Option<bool> {
        self.req(o, key, Want::Bool).and_then(Value::as_bool)
    }

    fn envelope(&mut self, v: &Value) -> Option<Envelope> {
        let o = self.object(v, "", "the document")?;
        self.unknown_fields(
            &o,
            &["$schema", "version", "model", "prompt", "params", "source", "messages"],
            "the envelope",
        );
        // `$schema` names the JSON Schema an editor validates against; it is
        // not part of the model and is only checked to be a string.
        self.opt(&o, "$schema", Want::Str);
        let params = self.opt(&o, "params", Want::Object).map(|v| v.and_then(Value::as_object).cloned());
        let version = self.string(&o, "version");
        if let Some(ver) = &version {
            if ver != VERSION {
                self.err(
                    Rule::UnsupportedVersion,
                    "version",
                    format!("unsupported version \"{ver}\"; this reader supports \"{VERSION}\""),
                );
            }
        }
        let model = self.opt_string(&o, "model");
        let prompt = self.prompt(&o);
        let source = self.format(&o, "source");
        let messages = self.req(&o, "messages", Want::Array).and_then(Value::as_array).map(|list| {
            let mut out = Vec::with_capacity(list.len());
            for (i, m) in list.iter().enumerate() {
                match self.message(m, i) {
                    Some((msg, segments)) => {
                        self.locator.push_message(i, segments);
                        out.push(msg);
                    }
                    None => self.incomplete = true,
                }
            }
            out
        });
        // A bad `version` or `model` is reported above; the messages are
        // still checked, so that every error of the document is listed.
        Some(Envelope {
            version: version.unwrap_or_else(|| VERSION.to_string()),
            model: model.flatten(),
            prompt: prompt.flatten(),
            params: params.flatten(),
            source: source.flatten(),
            messages: messages?,
        })
    }

    /// The message at `index` and the positions of the segments that decoded.
    fn message(&mut self, v: &Value, index: usize) -> Option<(Message, Vec<usize>)> {
        let path = &format!("messages[{index}]");
        let o = self.object(v, path, "a message")?;
        self.unknown_fields(
            &o,
            &[
                "id",
                "role",
                "segments",
                "timestamp",
                "truncationPriority",
                "name",
                "providerRole",
                "contentParts",
                "continues",
                "provider",
                "shape",
            ],
            "a message",
        );
        let ext = self.message_ext(&o);
        let id = self.string(&o, "id");
        if let Some(id) = &id {
            self.locator.push_id(index, id.clone());
        }
        let role = self.string(&o, "role").and_then(|r| {
            let role = Role::parse(&r);
            if role.is_none() {
                self.err(
                    Rule::UnknownRole,
                    join(path, "role"),
                    format!("unknown role `{r}`; expected one of: system, user, assistant, tool"),
                );
            }
            role
        });
        let timestamp = self.req(&o, "timestamp", Want::Number).and_then(|v| match v {
            Value::Number(n) if timestamp_ok(n) => Some(n.clone()),
            Value::Number(n) => {
                self.err(
                    Rule::WrongType,
                    join(path, "timestamp"),
                    format!(
                        "timestamp {n} is out of range: expected milliseconds since the epoch between \
                         -8.64e15 and 8.64e15 (what a JavaScript Date holds)"
                    ),
                );
                None
            }
            _ => None,
        });
        let priority = self.opt(&o, "truncationPriority", Want::Count).map(|v| v.and_then(Value::as_u64));
        let segments = self.req(&o, "segments", Want::Array).and_then(Value::as_array).map(|list| {
            let mut out = Vec::with_capacity(list.len());
            let mut positions = Vec::with_capacity(list.len());
            for (j, s) in list.iter().enumerate() {
                match self.segment(s, &format!("{path}.segments[{j}]")) {
                    Some(seg) => {
                        out.push(seg);
                        positions.push(j);
                    }
                    None => self.incomplete = true,
                }
            }
            (out, positions)
        });
        // Without a role or segments the message cannot be checked (its id
        // still counts for duplicates, above).
        let (Some(role), Some((segments, positions))) = (role, segments) else { return None };
        // A bad id, timestamp or priority is reported above; the message is
        // kept (with placeholders) so that its segments are checked too.
        let message = Message {
            id: id.unwrap_or_default(),
            role,
            segments,
            timestamp: timestamp.unwrap_or_else(|| serde_json::Number::from(0)),
            truncation_priority: priority.flatten(),
            ext: ext.unwrap_or_default(),
        };
        Some((message, positions))
    }

    fn segment(&mut self, v: &Value, path: &str) -> Option<Segment> {
        let o = self.object(v, path, "a segment")?;
        let kind = self.string(&o, "kind")?;
        let fields: &[&str] = match kind.as_str() {
            "text" => &["kind", "content", EXT[0], EXT[1], EXT[2], EXT[3]],
            "static_var" => &["kind", "name", "value", "description"],
            "system_prompt" => &["kind", "content", "collapsed", EXT[0], EXT[1], EXT[2], EXT[3]],
            "memory" | "skills" => &["kind", "items", "collapsed", "description"],
            "tool_overview" => &["kind", "items", "collapsed"],
            "tool_call_request" => {
                &["kind", "toolName", "arguments", "collapsed", "callId", EXT[0], EXT[1], EXT[2], EXT[3]]
            }
            "tool_call_result" => &[
                "kind",
                "toolName",
                "result",
                "success",
                "collapsed",
                "callId",
                "content",
                EXT[0],
                EXT[1],
                EXT[2],
                EXT[3],
            ],
            "document" => &[
                "kind",
                "fileName",
                "mimeType",
                "snippet",
                "sizeBytes",
                "parsedContent",
                "data",
                "url",
                "fileId",
                EXT[0],
                EXT[1],
                EXT[2],
                EXT[3],
            ],
            "long_text" => &["kind", "content", "charCount", "collapsed", EXT[0], EXT[1], EXT[2], EXT[3]],
            "media" => &["kind", "mediaType", "url", "altText", EXT[0], EXT[1], EXT[2], EXT[3]],
            "reasoning" => {
                &["kind", "content", "summary", "signature", "encrypted", "collapsed", EXT[0], EXT[1], EXT[2], EXT[3]]
            }
            "provider_block" => &["kind", "format", "block", "collapsed", EXT[0], EXT[1], EXT[2], EXT[3]],
            other => {
                self.err(
                    Rule::UnknownKind,
                    join(path, "kind"),
                    format!("unknown kind `{other}`; expected one of: {}", KINDS.join(", ")),
                );
                return None;
            }
        };
        self.unknown_fields(&o, fields, &format!("a {kind} segment"));
        let before = self.errors.len();
        let ext = if fields.contains(&EXT[0]) { self.ext(&o) } else { Some(Ext::default()) };
        let mut seg = self.segment_body(&kind, &o);
        if self.errors.len() > before {
            return None;
        }
        if let (Some(seg), Some(ext)) = (seg.as_mut(), ext) {
            if let Some(e) = seg.ext_mut() {
                *e = ext;
            }
        }
        seg
    }

    /// The fidelity extension's fields of a segment or tool item.
    fn ext(&mut self, o: &Obj) -> Option<Ext> {
        let cache_control = self.opt(o, EXT[0], Want::Object).map(|v| v.cloned());
        let provider = self.opt(o, EXT[1], Want::Object).map(|v| v.and_then(Value::as_object).cloned());
        let join_previous = self.opt(o, EXT[2], Want::Bool).map(|v| v.and_then(Value::as_bool).unwrap_or(false));
        let shape = self.shape(o);
        Some(Ext { cache_control: cache_control?, provider: provider?, join_previous: join_previous?, shape: shape? })
    }

    /// The fidelity extension's `shape`: an array of strings (flags).
    fn shape(&mut self, o: &Obj) -> Option<Vec<String>> {
        match self.opt(o, EXT[3], Want::Array)? {
            None => Some(Vec::new()),
            Some(list) => {
                let mut out = Vec::new();
                let mut ok = true;
                for (k, item) in list.as_array()?.iter().enumerate() {
                    match self.typed(item, &format!("{}.{}[{k}]", o.path, EXT[3]), Want::Str) {
                        Some(v) => out.push(v.as_str().unwrap_or_default().to_string()),
                        None => ok = false,
                    }
                }
                ok.then_some(out)
            }
        }
    }

    /// The fidelity extension's fields of a message.
    fn message_ext(&mut self, o: &Obj) -> Option<MessageExt> {
        let name = self.opt_string(o, "name");
        let provider_role = self.opt_string(o, "providerRole");
        let flag =
            |d: &mut Self, key: &str| d.opt(o, key, Want::Bool).map(|v| v.and_then(Value::as_bool).unwrap_or(false));
        let content_parts = flag(self, "contentParts");
        let continues = flag(self, "continues");
        let provider = self.opt(o, "provider", Want::Object).map(|v| v.and_then(Value::as_object).cloned());
        let shape = self.shape(o);
        Some(MessageExt {
            name: name?,
            provider_role: provider_role?,
            content_parts: content_parts?,
            continues: continues?,
            provider: provider?,
            shape: shape?,
        })
    }

    /// Extension (prompt identity): `prompt: {name?, version?}`, each a
    /// non-empty string; any other field is an error at its path.
    fn prompt(&mut self, o: &Obj) -> Option<Option<PromptId>> {
        let Some(v) = self.opt(o, "prompt", Want::Object)? else { return Some(None) };
        let p = self.object(v, &join(&o.path, "prompt"), "the prompt's identity")?;
        self.unknown_fields(&p, &["name", "version"], "the prompt's identity");
        let name = self.opt_string(&p, "name");
        let version = self.opt_string(&p, "version");
        let mut ok = true;
        for (key, value) in [("name", &name), ("version", &version)] {
            if let Some(Some(s)) = value {
                if s.is_empty() {
                    self.err(
                        Rule::WrongType,
                        join(&p.path, key),
                        format!("the prompt's {key} is empty; give a non-empty string or leave `{key}` out"),
                    );
                    ok = false;
                }
            }
        }
        let (name, version) = (name?, version?);
        ok.then_some(Some(PromptId { name, version }))
    }

    /// A request format's code (`openai`, `responses`, `anthropic`, `gemini`, `bedrock`).
    fn format(&mut self, o: &Obj, key: &str) -> Option<Option<RequestFormat>> {
        let code = self.opt_string(o, key)?;
        let Some(code) = code else { return Some(None) };
        match RequestFormat::parse(&code) {
            Some(f) => Some(Some(f)),
            None => {
                self.err(
                    Rule::WrongType,
                    join(&o.path, key),
                    format!("unknown format `{code}`; expected one of: openai, responses, anthropic, gemini, bedrock"),
                );
                None
            }
        }
    }

    fn segment_body(&mut self, kind: &str, o: &Obj) -> Option<Segment> {
        Some(match kind {
            "text" => Segment::Text(Text { content: self.string(o, "content")?, ext: Ext::default() }),
            "static_var" => {
                let (name, value, description) =
                    (self.string(o, "name"), self.string(o, "value"), self.opt_string(o, "description"));
                Segment::StaticVar(StaticVar { name: name?, value: value?, description: description? })
            }
            "system_prompt" => {
                let (content, collapsed) = (self.string(o, "content"), self.boolean(o, "collapsed"));
                Segment::SystemPrompt(SystemPrompt { content: content?, collapsed: collapsed?, ext: Ext::default() })
            }
            "memory" => {
                let items = self.items(o, "a memory item", |d, item| {
                    d.unknown_fields(item, &["title", "content"], "a memory item");
                    let (title, content) = (d.string(item, "title"), d.string(item, "content"));
                    Some(MemoryItem { title: title?, content: content? })
                });
                let (collapsed, description) = (self.boolean(o, "collapsed"), self.opt_string(o, "description"));
                Segment::Memory(Memory { items: items?, collapsed: collapsed?, description: description? })
            }
            "skills" => {
                let items = self.items(o, "a skill item", |d, item| {
                    d.unknown_fields(item, &["name", "description", "body", "loaded"], "a skill item");
                    let (name, description) = (d.string(item, "name"), d.string(item, "description"));
                    let body = d.opt_string(item, "body");
                    let loaded = d.opt(item, "loaded", Want::Bool).map(|v| v.and_then(Value::as_bool));
                    Some(SkillItem { name: name?, description: description?, body: body?, loaded: loaded? })
                });
                let (collapsed, description) = (self.boolean(o, "collapsed"), self.opt_string(o, "description"));
                Segment::Skills(Skills { items: items?, collapsed: collapsed?, description: description? })
            }
            "tool_overview" => {
                let items = self.items(o, "a tool item", |d, item| {
                    d.unknown_fields(
                        item,
                        &["name", "description", "parameters", "schema", EXT[0], EXT[1], EXT[2], EXT[3]],
                        "a tool item",
                    );
                    let (name, description) = (d.string(item, "name"), d.string(item, "description"));
                    let parameters = d.opt_string(item, "parameters");
                    let schema = d.opt(item, "schema", Want::Object).map(|v| v.cloned());
                    let ext = d.ext(item);
                    Some(ToolItem {
                        name: name?,
                        description: description?,
                        parameters: parameters?,
                        schema: schema?,
                        ext: ext?,
                    })
                });
                let collapsed = self.boolean(o, "collapsed");
                Segment::ToolOverview(ToolOverview { items: items?, collapsed: collapsed? })
            }
            "tool_call_request" => {
                let tool_name = self.string(o, "toolName");
                let arguments = self.req(o, "arguments", Want::Object).and_then(Value::as_object).cloned();
                let (collapsed, call_id) = (self.boolean(o, "collapsed"), self.opt_string(o, "callId"));
                Segment::ToolCallRequest(ToolCallRequest {
                    tool_name: tool_name?,
                    arguments: arguments?,
                    collapsed: collapsed?,
                    call_id: call_id?,
                    ext: Ext::default(),
                })
            }
            "tool_call_result" => {
                let (tool_name, result) = (self.string(o, "toolName"), self.string(o, "result"));
                let (success, collapsed) = (self.boolean(o, "success"), self.boolean(o, "collapsed"));
                let call_id = self.opt_string(o, "callId");
                let content = self.opt(o, "content", Want::Array).map(|v| v.and_then(Value::as_array).cloned());
                Segment::ToolCallResult(ToolCallResult {
                    tool_name: tool_name?,
                    result: result?,
                    success: success?,
                    collapsed: collapsed?,
                    call_id: call_id?,
                    content: content?,
                    ext: Ext::default(),
                })
            }
            "document" => {
                let (file_name, mime_type) = (self.string(o, "fileName"), self.string(o, "mimeType"));
                let snippet = self.string(o, "snippet");
                let size_bytes = self.req(o, "sizeBytes", Want::Count).and_then(Value::as_u64).and_then(|n| {
                    if n > MAX_SAFE_INTEGER {
                        self.err(
                            Rule::WrongType,
                            join(&o.path, "sizeBytes"),
                            format!("sizeBytes {n} is out of range: at most 2^53 - 1 ({MAX_SAFE_INTEGER}), the largest integer every JSON reader holds exactly"),
                        );
                        return None;
                    }
                    Some(n)
                });
                let parsed_content = self.opt_string(o, "parsedContent");
                let (data, url, file_id) =
                    (self.opt_string(o, "data"), self.opt_string(o, "url"), self.opt_string(o, "fileId"));
                Segment::Document(Document {
                    file_name: file_name?,
                    mime_type: mime_type?,
                    snippet: snippet?,
                    size_bytes: size_bytes?,
                    parsed_content: parsed_content?,
                    data: data?,
                    url: url?,
                    file_id: file_id?,
                    ext: Ext::default(),
                })
            }
            "long_text" => {
                let content = self.string(o, "content");
                let char_count = self.req(o, "charCount", Want::Int).and_then(Value::as_i64);
                let collapsed = self.boolean(o, "collapsed");
                Segment::LongText(LongText {
                    content: content?,
                    char_count: char_count?,
                    collapsed: collapsed?,
                    ext: Ext::default(),
                })
            }
            "media" => {
                let media_type = self.string(o, "mediaType").and_then(|t| {
                    let m = MediaType::parse(&t);
                    if m.is_none() {
                        self.err(
                            Rule::UnknownMediaType,
                            join(&o.path, "mediaType"),
                            format!("unknown mediaType `{t}`; expected one of: image, audio, video"),
                        );
                    }
                    m
                });
                let (url, alt_text) = (self.string(o, "url"), self.opt_string(o, "altText"));
                Segment::Media(Media { media_type: media_type?, url: url?, alt_text: alt_text?, ext: Ext::default() })
            }
            "reasoning" => {
                let content = self.string(o, "content");
                let summary = self.opt(o, "summary", Want::Array).and_then(|v| match v {
                    None => Some(None),
                    Some(list) => {
                        let mut out = Vec::new();
                        for (k, item) in list.as_array()?.iter().enumerate() {
                            out.push(
                                self.typed(item, &format!("{}.summary[{k}]", o.path), Want::Str)?.as_str()?.to_string(),
                            );
                        }
                        Some(Some(out))
                    }
                });
                let (signature, encrypted) = (self.opt_string(o, "signature"), self.opt_string(o, "encrypted"));
                let collapsed = self.boolean(o, "collapsed");
                Segment::Reasoning(Reasoning {
                    content: content?,
                    summary: summary?,
                    signature: signature?,
                    encrypted: encrypted?,
                    collapsed: collapsed?,
                    ext: Ext::default(),
                })
            }
            "provider_block" => {
                let format = self.req(o, "format", Want::Str).map(|_| ()).and_then(|_| self.format(o, "format"));
                let block = self.req(o, "block", Want::Object).and_then(Value::as_object).cloned();
                let collapsed = self.boolean(o, "collapsed");
                Segment::ProviderBlock(ProviderBlock {
                    format: format??,
                    block: block?,
                    collapsed: collapsed?,
                    ext: Ext::default(),
                })
            }
            _ => return None,
        })
    }

    /// The `items` array of a list segment, each item decoded by `item`.
    fn items<T>(&mut self, o: &Obj, what: &str, mut item: impl FnMut(&mut Self, &Obj) -> Option<T>) -> Option<Vec<T>> {
        let list = self.req(o, "items", Want::Array)?.as_array()?;
        let mut out = Vec::with_capacity(list.len());
        let mut ok = true;
        for (k, v) in list.iter().enumerate() {
            let path = format!("{}.items[{k}]", o.path);
            match self.object(v, &path, what).and_then(|obj| item(self, &obj)) {
                Some(t) => out.push(t),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }
}

/// The fidelity extension's segment fields (docs/EXTENSIONS.md).
const EXT: [&str; 4] = ["cacheControl", "provider", "joinPrevious", "shape"];

/// The largest integer every JSON reader holds exactly (JavaScript's
/// `Number.MAX_SAFE_INTEGER`, 2^53 - 1): the bound of `sizeBytes`.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The bound of `timestamp`, in milliseconds either side of the epoch: what a
/// JavaScript `Date` holds (±100,000,000 days).
pub const MAX_TIMESTAMP_MS: f64 = 8.64e15;

/// Whether a timestamp is a finite number of milliseconds a `Date` can hold
/// (`1e400`, which `arbitrary_precision` keeps as written, is not).
fn timestamp_ok(n: &serde_json::Number) -> bool {
    crate::number::value(n.as_str()).is_some_and(|ms| ms.is_finite() && ms.abs() <= MAX_TIMESTAMP_MS)
}

/// A known field that differs from `key` only in ASCII case or `_`/`-`
/// (`tool_name` → `toolName`). Known fields are ASCII; folding Unicode case
/// as well would put core's case tables (~7 KB) in the app for lookalikes
/// such as the Kelvin sign, which stay unknown fields without a suggestion.
fn near_miss<'a>(key: &str, allowed: &[&'a str]) -> Option<&'a str> {
    let norm = |s: &str| s.chars().filter(|c| *c != '_' && *c != '-').collect::<String>().to_ascii_lowercase();
    let k = norm(key);
    allowed.iter().copied().find(|a| norm(a) == k)
}
