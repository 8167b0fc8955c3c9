//! Gemini `generateContent` request → envelope, losslessly
//! (docs/EXTENSIONS.md): `export::replay::gemini` gives the same request back.
//!
//! The body has no model (it is in the URL); the caller gives it
//! (`import::import_with`). The REST API reads field names in camelCase and
//! in snake_case, and the SDKs send both (the REST docs write
//! `system_instruction` and `inline_data`, python-genai `systemInstruction`
//! and `inlineData`); `bytes` go as standard or URL-safe base64
//! (python-genai encodes with `urlsafe_b64encode`). The envelope holds the
//! camelCase meaning and standard base64; how the body wrote it is kept in
//! `shape` flags ([`shape`]) so that the replay writes the same spelling:
//! a snake_case field name among the flags (`mime_type`, `inline_data`,
//! `system_instruction`, `function_declarations`, …) says that field was
//! written so. Spellings mix in real bodies: python-genai sends
//! `"inlineData": {"mime_type": …}` and `"functionDeclarations": [{"parameters_json_schema": …}]`.
//!
//! - `systemInstruction` (a Content) → a first `system` message, one segment
//!   per part; its `role`, if any, verbatim.
//! - `contents[]` → one message per Content: role `user` (or none: flag
//!   `noRole`, or `function`: `providerRole`) → `user`, `model` →
//!   `assistant`; `functionResponse` parts go to a `tool` message, a later
//!   run of other parts to a message that `continues`.
//! - Parts: `text` → text segments (the export's text forms split out, as
//!   for the other formats); `thought: true` text → `reasoning` (its
//!   `thoughtSignature` → `signature`); `inlineData` images, audio and video
//!   → `media` with a `data:` URL, other inline data → `document` with its
//!   bytes; `fileData` → `document` by URL; `functionCall` → a
//!   `tool_call_request` (its `id` as `callId` when it has one);
//!   `functionResponse` → a `tool_call_result` (its `response` object as
//!   JSON text; paired by `id`, else by name and order, as the envelope
//!   pairs calls without ids); any other part (`executableCode`,
//!   `codeExecutionResult`, …) → a `provider_block`, verbatim. A part's
//!   other fields (`thoughtSignature` beside a call, `videoMetadata`,
//!   `displayName`, …) are kept in the segment's `provider`, nested as in
//!   the part.
//! - `tools[]`: each `functionDeclarations` entry → a `tool_overview` item
//!   (`parameters`, or `parametersJsonSchema` with flag `jsonSchema`, as
//!   its schema); any other tool (`googleSearch`, `codeExecution`,
//!   `urlContext`, …) kept whole, named by its key.
//! - Every other top-level field (`generationConfig`, `safetySettings`,
//!   `toolConfig`, `cachedContent`, `labels`, …) → `params`, verbatim.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{forms, join, Builder};
use crate::diag::Rule;
use crate::parse::type_name;
use crate::types::{Ext, Media, MediaType, MessageExt, Reasoning, RequestFormat, Role, Segment};

const ME: RequestFormat = RequestFormat::Gemini;

/// The `shape` flags of a Gemini envelope (docs/EXTENSIONS.md).
pub mod shape {
    /// The inline data was URL-safe base64 (`-` and `_`).
    pub const BASE64URL: &str = "base64url";
    /// A `functionCall` without `args`.
    pub const NO_ARGS: &str = "noArgs";
    /// A `fileData` without `mimeType`.
    pub const NO_MIME: &str = "noMime";
    /// A Content without `role`.
    pub const NO_ROLE: &str = "noRole";
    /// A Content without `parts`.
    pub const NO_PARTS: &str = "noParts";
    /// `parts` was one object, not an array.
    pub const PARTS_OBJECT: &str = "partsObject";
    /// `contents` was one object, not an array (on its message).
    pub const CONTENTS_OBJECT: &str = "contentsObject";
    /// The declaration's schema was `parametersJsonSchema`.
    pub const JSON_SCHEMA: &str = "jsonSchema";
    /// The declaration starts a new `tools[]` entry though the one before
    /// was a declaration too.
    pub const NEW_TOOL: &str = "newTool";
}

/// The body keys read into messages and tools (the rest are `params`).
pub(crate) const RESERVED: [&str; 4] = ["contents", "systemInstruction", "system_instruction", "tools"];

/// A field in either spelling: its value and whether it was snake_case;
/// `Err(())` when both spellings are there.
pub(crate) fn either<'a>(o: &'a Map<String, Value>, camel: &str, snake: &str) -> Result<Option<(&'a Value, bool)>, ()> {
    match (o.get(camel), o.get(snake)) {
        (Some(_), Some(_)) if camel != snake => Err(()),
        (Some(v), _) => Ok(Some((v, false))),
        (None, Some(v)) => Ok(Some((v, true))),
        (None, None) => Ok(None),
    }
}

/// Adds the flag `snake` (the field's snake_case name) when it was written so.
pub(crate) fn snake_flag(flags: &mut Vec<String>, snake_case: bool, snake: &str) {
    if snake_case {
        flags.push(snake.to_string());
    }
}

/// `camel`, or `snake` when `snake_case`.
pub(crate) fn spell<'a>(camel: &'a str, snake: &'a str, snake_case: bool) -> &'a str {
    if snake_case {
        snake
    } else {
        camel
    }
}

/// The alphabet of a base64 text: standard, URL-safe (`Some(true)`), or
/// neither (mixed, or other characters: `None`). A text in the letters,
/// digits and `=` common to both is standard.
pub(crate) fn alphabet(data: &str) -> Option<bool> {
    let mut std = false;
    let mut url = false;
    for b in data.bytes() {
        match b {
            b'+' | b'/' => std = true,
            b'-' | b'_' => url = true,
            b'=' => {}
            b if b.is_ascii_alphanumeric() => {}
            _ => return None,
        }
    }
    match (std, url) {
        (true, true) => None,
        (_, url) => Some(url),
    }
}

/// URL-safe base64 in the standard alphabet (padding as written).
pub(crate) fn to_standard(data: &str) -> String {
    data.chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect()
}

/// What the whole body's reading needs besides the builder.
struct Cx {
    /// Ids of calls that a later `functionResponse` answers by id.
    answered: HashSet<String>,
}

/// Reads the body into `b`; returns the settings (`params`).
pub(crate) fn read(body: &Map<String, Value>, b: &mut Builder) -> Map<String, Value> {
    let cx = Cx { answered: answered_ids(body) };
    match either(body, "systemInstruction", "system_instruction") {
        Err(()) => b.error(
            Rule::WrongType,
            "systemInstruction",
            "the body has both `systemInstruction` and `system_instruction`; send one",
        ),
        Ok(None) => {}
        Ok(Some((v, snake))) => {
            let path = spell("systemInstruction", "system_instruction", snake);
            system(b, &cx, v, path, snake);
        }
    }
    match body.get("contents") {
        None => b.error(Rule::MissingField, "contents", "missing field `contents` (expected an array of Content)"),
        Some(Value::Array(list)) => {
            for (i, c) in list.iter().enumerate() {
                content(b, &cx, c, &format!("contents[{i}]"), false);
            }
        }
        Some(v @ Value::Object(_)) => content(b, &cx, v, "contents", true),
        Some(other) => b.error(
            Rule::WrongType,
            "contents",
            format!("expected an array of Content (or one Content), found {}", type_name(other)),
        ),
    }
    let mut tools_read = false;
    match body.get("tools") {
        Some(Value::Array(list)) if !list.is_empty() => {
            tools_read = true;
            let mut after_declarations = false;
            for (i, t) in list.iter().enumerate() {
                after_declarations = tool(b, t, &format!("tools[{i}]"), after_declarations);
            }
        }
        Some(Value::Array(_)) | None => {}
        Some(other) => {
            tools_read = true;
            b.error(Rule::WrongType, "tools", format!("expected an array of Tool, found {}", type_name(other)))
        }
    }
    body.iter()
        .filter(|(k, _)| !RESERVED.contains(&k.as_str()) || (k.as_str() == "tools" && !tools_read))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The ids of calls a `functionResponse` with that id answers later (those
/// pair by id; the others by name and order).
fn answered_ids(body: &Map<String, Value>) -> HashSet<String> {
    let mut calls = HashSet::new();
    let mut answered = HashSet::new();
    let contents: Vec<&Value> = match body.get("contents") {
        Some(Value::Array(l)) => l.iter().collect(),
        Some(v) => vec![v],
        None => vec![],
    };
    for c in contents {
        let parts: Vec<&Value> = match c.get("parts") {
            Some(Value::Array(l)) => l.iter().collect(),
            Some(v) => vec![v],
            None => vec![],
        };
        for p in parts.into_iter().filter_map(Value::as_object) {
            if let Some(id) = id_of(either(p, "functionCall", "function_call").ok().flatten()) {
                calls.insert(id.to_string());
            }
            if let Some(id) = id_of(either(p, "functionResponse", "function_response").ok().flatten()) {
                if calls.contains(id) {
                    answered.insert(id.to_string());
                }
            }
        }
    }
    answered
}

fn id_of(v: Option<(&Value, bool)>) -> Option<&str> {
    v.and_then(|(x, _)| x.get("id")).and_then(Value::as_str)
}

/// The `parts` of a Content: the parts and the message flags their form gives.
fn parts_of<'a>(b: &mut Builder, c: &'a Map<String, Value>, path: &str) -> Option<(Vec<&'a Value>, Vec<String>)> {
    match c.get("parts") {
        None => Some((vec![], vec![shape::NO_PARTS.into()])),
        Some(Value::Array(l)) => Some((l.iter().collect(), vec![])),
        Some(v @ Value::Object(_)) => Some((vec![v], vec![shape::PARTS_OBJECT.into()])),
        Some(other) => {
            b.error(
                Rule::WrongType,
                join(path, "parts"),
                format!("expected an array of parts (or one part), found {}", type_name(other)),
            );
            None
        }
    }
}

fn system(b: &mut Builder, cx: &Cx, v: &Value, path: &str, snake: bool) {
    let Some(c) = b.object(v, path, "a Content (the system instruction)") else { return };
    let Some((parts, mut flags)) = parts_of(b, c, path) else { return };
    snake_flag(&mut flags, snake, "system_instruction");
    let mut segs = Vec::new();
    for (j, p) in parts.iter().enumerate() {
        let pp = part_path(path, j, flags.iter().any(|f| f == shape::PARTS_OBJECT));
        if let Some((_, seg)) = part(b, cx, p, &pp, Role::System) {
            segs.extend(seg);
        }
    }
    let ext = MessageExt {
        content_parts: true,
        provider: Builder::others(c, &["parts"]),
        shape: flags,
        ..MessageExt::default()
    };
    b.push_ext(path, Role::System, segs, ext);
}

fn part_path(path: &str, j: usize, single: bool) -> String {
    if single {
        format!("{path}.parts")
    } else {
        format!("{path}.parts[{j}]")
    }
}

fn content(b: &mut Builder, cx: &Cx, v: &Value, path: &str, single: bool) {
    let Some(c) = b.object(v, path, "a Content") else { return };
    let mut flags: Vec<String> = Vec::new();
    if single {
        flags.push(shape::CONTENTS_OBJECT.into());
    }
    let mut provider_role = None;
    let role = match c.get("role") {
        None => {
            flags.push(shape::NO_ROLE.into());
            Role::User
        }
        Some(Value::String(r)) => match r.as_str() {
            "user" => Role::User,
            "model" => Role::Assistant,
            "function" => {
                provider_role = Some("function".to_string());
                Role::User
            }
            other => {
                b.error(
                    Rule::ImportUnknownRole,
                    join(path, "role"),
                    format!("unknown role `{other}` (Gemini has user and model; the system instruction is top-level)"),
                );
                return;
            }
        },
        Some(other) => {
            b.error(Rule::WrongType, join(path, "role"), format!("expected a string, found {}", type_name(other)));
            return;
        }
    };
    let Some((parts, part_flags)) = parts_of(b, c, path) else { return };
    let single_part = part_flags.iter().any(|f| f == shape::PARTS_OBJECT);
    flags.extend(part_flags);
    // Runs of function responses and of other parts, in order: each run one
    // envelope message, the later ones `continues`.
    let mut runs: Vec<(Role, Vec<Segment>)> = Vec::new();
    for (j, p) in parts.iter().enumerate() {
        let Some((seg_role, segs)) = part(b, cx, p, &part_path(path, j, single_part), role) else { continue };
        match runs.last_mut() {
            Some((r, list)) if *r == seg_role => list.extend(segs),
            _ => runs.push((seg_role, segs)),
        }
    }
    if runs.is_empty() {
        runs.push((role, vec![]));
    }
    let provider = Builder::others(c, &["role", "parts"]);
    for (k, (r, segs)) in runs.into_iter().enumerate() {
        let ext = if k == 0 {
            MessageExt {
                provider_role: provider_role.clone(),
                content_parts: true,
                provider: provider.clone(),
                shape: std::mem::take(&mut flags),
                ..MessageExt::default()
            }
        } else {
            MessageExt { content_parts: true, continues: true, ..MessageExt::default() }
        };
        b.push_ext(path, r, segs, ext);
    }
}

/// The data keys of a part, in both spellings.
const DATA: [(&str, &str); 5] = [
    ("text", "text"),
    ("inlineData", "inline_data"),
    ("fileData", "file_data"),
    ("functionCall", "function_call"),
    ("functionResponse", "function_response"),
];

/// One part: the role of the envelope message it belongs in, and its segments.
fn part(b: &mut Builder, cx: &Cx, v: &Value, path: &str, role: Role) -> Option<(Role, Vec<Segment>)> {
    let o = b.object(v, path, "a part")?;
    let verbatim = |o: &Map<String, Value>| Some((role, vec![Builder::block_whole(ME, o)]));
    let present: Vec<(&str, &str, bool)> = DATA
        .iter()
        .flat_map(|(camel, snake)| {
            let c = o.contains_key(*camel).then_some((*camel, *camel, false));
            let s = (camel != snake && o.contains_key(*snake)).then_some((*camel, *snake, true));
            c.into_iter().chain(s)
        })
        .collect();
    // A part is one of its kinds; anything else is kept whole.
    let [(kind, key, snake)] = present.as_slice() else { return verbatim(o) };
    let (kind, key, snake) = (*kind, *key, *snake);
    let inner = o.get(key)?;
    match kind {
        "text" => text(b, o, path, role),
        "inlineData" => {
            let Value::Object(d) = inner else { return wrong(b, path, key, inner, "an object (a Blob)") };
            let Some(seg) = inline_data(b, o, d, &join(path, key), key, snake) else { return verbatim(o) };
            Some((role, vec![seg?]))
        }
        "fileData" => {
            let Value::Object(d) = inner else { return wrong(b, path, key, inner, "an object (a FileData)") };
            let Some(seg) = file_data(b, o, d, &join(path, key), key, snake) else { return verbatim(o) };
            Some((role, vec![seg?]))
        }
        "functionCall" if role == Role::Assistant => {
            let Value::Object(f) = inner else { return wrong(b, path, key, inner, "an object (a FunctionCall)") };
            let Some(seg) = function_call(b, cx, o, f, &join(path, key), key, snake) else { return verbatim(o) };
            Some((role, vec![seg?]))
        }
        "functionResponse" if role == Role::User => {
            let Value::Object(f) = inner else { return wrong(b, path, key, inner, "an object (a FunctionResponse)") };
            match function_response(b, o, f, &join(path, key), key, snake) {
                Some(Some(seg)) => Some((Role::Tool, vec![seg])),
                Some(None) => None,
                None => {
                    let name = f.get("name").and_then(Value::as_str).unwrap_or("");
                    b.note(
                        join(path, key),
                        format!(
                            "this functionResponse of `{name}` answers no earlier functionCall; it is kept as a block"
                        ),
                    );
                    verbatim(o)
                }
            }
        }
        _ => verbatim(o),
    }
}

fn wrong<T>(b: &mut Builder, path: &str, key: &str, v: &Value, want: &str) -> Option<T> {
    b.error(Rule::WrongType, join(path, key), format!("expected {want}, found {}", type_name(v)));
    None
}

/// `{key: inner_rest}` plus the part's other fields: the part's fields the
/// segment does not hold, nested as in the part (`None` when there are none).
fn bag(
    o: &Map<String, Value>,
    known: &[&str],
    key: &str,
    inner_rest: Option<Map<String, Value>>,
) -> Option<Map<String, Value>> {
    let mut bag = Builder::others(o, known).unwrap_or_default();
    if let Some(r) = inner_rest {
        bag.insert(key.to_string(), Value::Object(r));
    }
    (!bag.is_empty()).then_some(bag)
}

fn text(b: &mut Builder, o: &Map<String, Value>, path: &str, role: Role) -> Option<(Role, Vec<Segment>)> {
    let t = b.req_str(o, path, "text")?;
    if o.get("thought") == Some(&Value::Bool(true)) {
        let Ok(sig) = either(o, "thoughtSignature", "thought_signature") else {
            return Some((role, vec![Builder::block_whole(ME, o)]));
        };
        let (signature, snake) = match sig {
            None => (None, false),
            Some((Value::String(s), snake)) => (Some(s.clone()), snake),
            Some(_) => return Some((role, vec![Builder::block_whole(ME, o)])),
        };
        let sig_key = spell("thoughtSignature", "thought_signature", snake);
        let ext = Ext {
            provider: Builder::others(o, &["text", "thought", sig_key]),
            shape: if snake { vec!["thought_signature".into()] } else { vec![] },
            ..Ext::default()
        };
        return Some((
            role,
            vec![Segment::Reasoning(Reasoning {
                content: t.to_string(),
                summary: None,
                signature,
                encrypted: None,
                collapsed: true,
                ext,
            })],
        ));
    }
    let ext = Ext { provider: Builder::others(o, &["text"]), ..Ext::default() };
    let mut segs = b.block_text(t, role, ext);
    super::mark_text_forms(&mut segs);
    Some((role, segs))
}

/// A string field of a Blob or FileData in either spelling: its value and
/// whether it was snake_case (`None`: both spellings, or not a string: keep
/// the part whole).
fn string_field<'a>(d: &'a Map<String, Value>, camel: &str, snake: &str) -> Option<(Option<&'a str>, bool)> {
    match either(d, camel, snake) {
        Err(()) => None,
        Ok(None) => Some((None, false)),
        Ok(Some((Value::String(m), s))) => Some((Some(m), s)),
        Ok(Some(_)) => None,
    }
}

/// `Some(None)`: an error was reported; `None`: keep the part whole.
fn inline_data(
    b: &mut Builder,
    o: &Map<String, Value>,
    d: &Map<String, Value>,
    path: &str,
    key: &str,
    snake: bool,
) -> Option<Option<Segment>> {
    let (mime, mime_snake) = string_field(d, "mimeType", "mime_type")?;
    let mime_key = spell("mimeType", "mime_type", mime_snake);
    let Some(mime) = mime else {
        b.error(Rule::MissingField, join(path, mime_key), format!("missing field `{mime_key}` (expected a string)"));
        return Some(None);
    };
    let data = match d.get("data") {
        Some(Value::String(s)) => s,
        None => {
            b.error(Rule::MissingField, join(path, "data"), "missing field `data` (expected base64 text)");
            return Some(None);
        }
        Some(_) => return None,
    };
    if let Some(bad) = data.chars().find(|c| !(c.is_ascii_alphanumeric() || "+/=-_".contains(*c))) {
        b.error(
            Rule::ImportBase64,
            join(path, "data"),
            format!("the base64 data does not decode: {bad:?} is not a base64 character"),
        );
        return Some(None);
    }
    // Both alphabets at once: kept whole, as written.
    let url_safe = alphabet(data)?;
    let std = if url_safe { to_standard(data) } else { data.clone() };
    let mut flags = Vec::new();
    snake_flag(&mut flags, snake, key);
    snake_flag(&mut flags, mime_snake, "mime_type");
    if url_safe {
        flags.push(shape::BASE64URL.to_string());
    }
    let ext =
        Ext { provider: bag(o, &[key], key, Builder::others(d, &[mime_key, "data"])), shape: flags, ..Ext::default() };
    let media_type = match mime.split('/').next().unwrap_or("").to_ascii_lowercase().as_str() {
        "image" => Some(MediaType::Image),
        "audio" => Some(MediaType::Audio),
        "video" => Some(MediaType::Video),
        _ => None,
    };
    let url = format!("data:{mime};base64,{std}");
    if let Some(media_type) = media_type.filter(|_| crate::export::base64_data_url(&url) == Some((mime, &std))) {
        if crate::validate::media_url_ok(media_type, &url) {
            return Some(Some(Segment::Media(Media { media_type, url, alt_text: None, ext })));
        }
    }
    let bytes = match super::decode_base64(&std) {
        Ok(bytes) => bytes,
        Err(e) => {
            b.error(Rule::ImportBase64, join(path, "data"), format!("the base64 data does not decode: {e}"));
            return Some(None);
        }
    };
    let text = if super::textual(mime) { String::from_utf8(bytes.clone()).ok() } else { None };
    let mut doc = forms::document_segment("inline data", mime, bytes.len() as u64, text.as_deref().unwrap_or(""));
    doc.data = Some(std);
    doc.ext = ext;
    Some(Some(Segment::Document(doc)))
}

fn file_data(
    b: &mut Builder,
    o: &Map<String, Value>,
    d: &Map<String, Value>,
    path: &str,
    key: &str,
    snake: bool,
) -> Option<Option<Segment>> {
    let (mime, mime_snake) = string_field(d, "mimeType", "mime_type")?;
    let (uri, uri_snake) = string_field(d, "fileUri", "file_uri")?;
    let uri_key = spell("fileUri", "file_uri", uri_snake);
    let Some(uri) = uri else {
        b.error(Rule::MissingField, join(path, uri_key), format!("missing field `{uri_key}` (expected a string)"));
        return Some(None);
    };
    let mime_key = spell("mimeType", "mime_type", mime_snake);
    let mut flags = Vec::new();
    snake_flag(&mut flags, snake, key);
    snake_flag(&mut flags, mime_snake, "mime_type");
    snake_flag(&mut flags, uri_snake, "file_uri");
    if mime.is_none() {
        flags.push(shape::NO_MIME.to_string());
    }
    let name = uri.trim_end_matches('/').rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or("file");
    let mut doc = forms::document_segment(name, mime.unwrap_or("application/octet-stream"), 0, "");
    doc.url = Some(uri.to_string());
    doc.ext =
        Ext { provider: bag(o, &[key], key, Builder::others(d, &[mime_key, uri_key])), shape: flags, ..Ext::default() };
    Some(Some(Segment::Document(doc)))
}

fn function_call(
    b: &mut Builder,
    cx: &Cx,
    o: &Map<String, Value>,
    f: &Map<String, Value>,
    path: &str,
    key: &str,
    snake: bool,
) -> Option<Option<Segment>> {
    let name = match f.get("name") {
        Some(Value::String(n)) => n,
        None => {
            b.error(Rule::MissingField, join(path, "name"), "missing field `name` (expected a string)");
            return Some(None);
        }
        Some(_) => return None,
    };
    let (args, no_args) = match f.get("args") {
        None => (Map::new(), true),
        Some(Value::Object(a)) => (a.clone(), false),
        Some(_) => return None,
    };
    let id = match f.get("id") {
        None => None,
        Some(Value::String(id)) => Some(id.as_str()),
        Some(_) => return None,
    };
    if id.is_some_and(|id| b.has_call(id)) {
        // A second call with one id: the envelope could not pair it.
        return None;
    }
    let by_name = !id.is_some_and(|id| cx.answered.contains(id));
    let mut seg = b.call_by_name(&join(path, "id"), id, name, args, by_name);
    let mut flags = Vec::new();
    snake_flag(&mut flags, snake, key);
    if no_args {
        flags.push(shape::NO_ARGS.to_string());
    }
    if let Some(e) = seg.ext_mut() {
        *e = Ext {
            provider: bag(o, &[key], key, Builder::others(f, &["name", "args", "id"])),
            shape: flags,
            ..Ext::default()
        };
    }
    Some(Some(seg))
}

/// `Some(Some(seg))`: a result; `Some(None)`: an error was reported;
/// `None`: keep the part whole (it answers no call, or is not as read).
fn function_response(
    b: &mut Builder,
    o: &Map<String, Value>,
    f: &Map<String, Value>,
    path: &str,
    key: &str,
    snake: bool,
) -> Option<Option<Segment>> {
    let Some(Value::String(name)) = f.get("name") else { return None };
    let Some(Value::Object(response)) = f.get("response") else { return None };
    let id = match f.get("id") {
        None => None,
        Some(Value::String(id)) => Some(id.as_str()),
        Some(_) => return None,
    };
    let result = Value::Object(response.clone()).to_string();
    let success = !(response.len() == 1 && response.contains_key("error"));
    let (mut seg, known): (Segment, &[&str]) = match id {
        Some(id) if b.call_open(id) => (b.result(&join(path, "id"), id, result, success)?, &["name", "response", "id"]),
        // An id that names no open call stays in the part's fields.
        _ => (b.result_by_name(name, result, success)?, &["name", "response"]),
    };
    let mut flags = Vec::new();
    snake_flag(&mut flags, snake, key);
    if let Some(e) = seg.ext_mut() {
        *e = Ext { provider: bag(o, &[key], key, Builder::others(f, known)), shape: flags, ..Ext::default() };
    }
    Some(Some(seg))
}

/// One `tools[]` entry. Returns whether it was a `functionDeclarations`
/// group read as declarations.
fn tool(b: &mut Builder, v: &Value, path: &str, after_declarations: bool) -> bool {
    let Some(t) = b.object(v, path, "a Tool") else { return false };
    let Some(first) = t.keys().next() else {
        b.error(Rule::WrongType, path, "this tool object names no tool");
        return false;
    };
    let group = match either(t, "functionDeclarations", "function_declarations") {
        Ok(Some((Value::Array(list), snake)))
            if t.len() == 1 && !list.is_empty() && list.iter().all(declaration_fits) =>
        {
            Some((list, snake))
        }
        _ => None,
    };
    let Some((list, snake)) = group else {
        let name = first.clone();
        b.tool_whole(&name, t);
        return false;
    };
    let key = spell("functionDeclarations", "function_declarations", snake);
    for (k, d) in list.iter().enumerate() {
        let dp = format!("{path}.{key}[{k}]");
        let Some(d) = d.as_object() else { continue };
        let Some(name) = b.req_str(d, &dp, "name") else { continue };
        let description = d.get("description").and_then(Value::as_str);
        let mut known = vec!["name"];
        if description.is_some_and(|d| !d.is_empty()) {
            known.push("description");
        }
        let mut flags = Vec::new();
        snake_flag(&mut flags, snake, "function_declarations");
        if k == 0 && after_declarations {
            flags.push(shape::NEW_TOOL.to_string());
        }
        let json = either(d, "parametersJsonSchema", "parameters_json_schema").ok().flatten();
        let schema = if let Some(p @ Value::Object(_)) = d.get("parameters") {
            known.push("parameters");
            Some(p.clone())
        } else if let Some((p @ Value::Object(_), json_snake)) = json {
            let json_key = spell("parametersJsonSchema", "parameters_json_schema", json_snake);
            known.push(json_key);
            flags.push(shape::JSON_SCHEMA.to_string());
            snake_flag(&mut flags, json_snake, "parameters_json_schema");
            Some(p.clone())
        } else {
            None
        };
        b.tool(&join(&dp, "name"), name, description.unwrap_or(""), schema);
        b.last_tool_ext(Ext { provider: Builder::others(d, &known), shape: flags, ..Ext::default() });
    }
    true
}

/// A declaration the envelope reads as a tool item: an object with a string
/// `name`, and its JSON Schema in one spelling only.
fn declaration_fits(d: &Value) -> bool {
    let Some(d) = d.as_object() else { return false };
    d.get("name").is_some_and(Value::is_string) && either(d, "parametersJsonSchema", "parameters_json_schema").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphabets() {
        assert_eq!(alphabet("iVBORw0KGgo="), Some(false));
        assert_eq!(alphabet("ab+/"), Some(false));
        assert_eq!(alphabet("ab-_"), Some(true));
        assert_eq!(alphabet("ab+_"), None);
        assert_eq!(alphabet("ab cd"), None);
        assert_eq!(alphabet(""), Some(false));
        assert_eq!(to_standard("a-b_c="), "a+b/c=");
    }

    #[test]
    fn either_spelling() {
        let o = serde_json::json!({"inline_data": 1}).as_object().unwrap().clone();
        assert_eq!(either(&o, "inlineData", "inline_data"), Ok(Some((&Value::from(1), true))));
        let both = serde_json::json!({"inline_data": 1, "inlineData": 2}).as_object().unwrap().clone();
        assert_eq!(either(&both, "inlineData", "inline_data"), Err(()));
        assert_eq!(either(&o, "text", "text"), Ok(None));
    }
}
