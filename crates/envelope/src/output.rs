//! A model's output: its text taken from a provider response body, and that
//! text read as strict JSON (D158, D159).
//!
//! [`take_text`] accepts the model's text as it is, or a response body of
//! OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Gemini
//! `generateContent` or Bedrock Converse (also an OpenAI or Gemini batch output
//! line and an Anthropic batch result around one), and gives the text of the first
//! choice or candidate with the format it came from and the model named.
//!
//! [`parse`] reads that text as a strict consumer does (`JSON.parse`,
//! `serde_json`): prose around the JSON and a Markdown code fence are failures,
//! each with its own message saying what and where.

use std::fmt;

use serde_json::{Map, Value};

/// The text of a model's output and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputText {
    /// The text: the joined text parts of the first choice or candidate, or
    /// the input itself when it is not a response body of a known format.
    /// Empty when the response has no text (tool calls only, no candidates).
    pub text: String,
    /// `"text"`, `"openai-chat"`, `"openai-responses"`, `"anthropic"`,
    /// `"gemini"` or `"bedrock"`.
    pub from: &'static str,
    /// The model the response names (`model`, Gemini's `modelVersion`);
    /// Bedrock Converse responses name none.
    pub model: Option<String>,
}

/// Why an output is not strict JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputError {
    /// Nothing but white space.
    Empty,
    /// Not JSON; `line` and `column` are 1-based, as `serde_json` counts them
    /// (the column in bytes).
    NotJson { line: usize, column: usize, message: String },
    /// A JSON object or array with prose before or after it (either may be
    /// empty, not both). `json_at` is the byte offset where the JSON starts.
    ProseAround { before: String, after: String, json_at: usize },
    /// The output is a Markdown code fence (```` ```json ```` … ```` ``` ````);
    /// `lang` is its info string, if any.
    Fenced { lang: Option<String> },
}

/// How many characters of prose a message quotes.
const QUOTE_CHARS: usize = 60;
/// How many places a JSON value may start at are tried when looking for the
/// JSON inside prose (each try may read to the end of the text).
const MAX_STARTS: usize = 8;

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutputError::Empty => f.write_str("the output is empty: there is no JSON to read"),
            OutputError::NotJson { line, column, message } => {
                write!(f, "the output is not JSON: {message} at line {line}, column {column}")
            }
            OutputError::ProseAround { before, after, json_at } => {
                f.write_str("the output has prose around its JSON (a strict JSON parser fails): ")?;
                let mut sep = "";
                if !before.trim().is_empty() {
                    write!(f, "before it {}", quote(before.trim()))?;
                    sep = "; ";
                }
                if !after.trim().is_empty() {
                    write!(f, "{sep}after it {}", quote(after.trim()))?;
                }
                let line = before.matches('\n').count() + 1;
                write!(f, "; the JSON starts at line {line} (byte {json_at})")
            }
            OutputError::Fenced { lang } => {
                f.write_str("the output is a Markdown code fence")?;
                if let Some(lang) = lang {
                    write!(f, " ({})", quote(lang))?;
                }
                f.write_str(" around its JSON, not JSON itself (a strict JSON parser fails on the ``` line)")
            }
        }
    }
}

impl std::error::Error for OutputError {}

/// `"…"` with at most [`QUOTE_CHARS`] characters of `s`, control characters
/// escaped.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for (n, c) in s.chars().enumerate() {
        if n == QUOTE_CHARS {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() || is_invisible(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Characters that change how the rest of a line reads (bidirectional
/// controls, zero-width characters): shown escaped in messages.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// Reads `text` as strict JSON: any JSON value, white space around it allowed,
/// nothing else (no prose, no code fence, no byte-order mark).
pub fn parse(text: &str) -> Result<Value, OutputError> {
    if text.trim().is_empty() {
        return Err(OutputError::Empty);
    }
    let err = match serde_json::from_str::<Value>(text) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let trimmed = text.trim_start();
    if let Some(rest) = trimmed.strip_prefix("```").or_else(|| trimmed.strip_prefix("~~~")) {
        let info = rest.split('\n').next().unwrap_or("");
        let lang = info.trim().trim_start_matches(['`', '~']).trim();
        let lang = lang.split_whitespace().next().map(str::to_owned);
        return Err(OutputError::Fenced { lang });
    }
    if let Some((at, len)) = find_json(text) {
        return Err(OutputError::ProseAround {
            before: text[..at].to_owned(),
            after: text[at + len..].to_owned(),
            json_at: at,
        });
    }
    Err(not_json(&err))
}

fn not_json(err: &serde_json::Error) -> OutputError {
    let full = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    OutputError::NotJson { line: err.line().max(1), column: err.column().max(1), message }
}

/// The first JSON object or array inside `text` (byte offset and length),
/// trying at most [`MAX_STARTS`] places where one may start.
fn find_json(text: &str) -> Option<(usize, usize)> {
    let starts = text.char_indices().filter(|(_, c)| *c == '{' || *c == '[').map(|(i, _)| i).take(MAX_STARTS);
    for at in starts {
        let mut values = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
        if let Some(Ok(v)) = values.next() {
            if v.is_object() || v.is_array() {
                return Some((at, values.byte_offset()));
            }
        }
    }
    None
}

/// Takes a model's text out of a provider response body (see the module
/// documentation); anything else is the text itself (`from` = `"text"`).
pub fn take_text(bytes: &str) -> OutputText {
    let plain = || OutputText { text: bytes.to_owned(), from: "text", model: None };
    let body = bytes.trim_start_matches('\u{feff}').trim();
    if !body.starts_with('{') {
        return plain();
    }
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(body) else {
        return plain();
    };
    from_body(&obj, 0).unwrap_or_else(plain)
}

fn model_of(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The text of a response body of a known format, or `None`.
fn from_body(obj: &Map<String, Value>, depth: u8) -> Option<OutputText> {
    if depth < 2 {
        if let Some(response) = obj.get("response").and_then(Value::as_object) {
            // An OpenAI batch output line: {"custom_id", "response": {"status_code", "body"}}.
            if let Some(body) = response
                .get("body")
                .and_then(Value::as_object)
                .filter(|_| response.contains_key("status_code") || obj.contains_key("custom_id"))
            {
                return from_body(body, depth + 1);
            }
            // A Gemini batch output line: {"key", "response": {"candidates", …}}.
            if let Some(found) = from_body(response, depth + 1) {
                return Some(found);
            }
        }
        // An Anthropic batch result: {"custom_id", "result": {"type": "succeeded", "message"}}.
        if let Some(message) =
            obj.get("result").and_then(Value::as_object).and_then(|r| r.get("message")).and_then(Value::as_object)
        {
            return from_body(message, depth + 1);
        }
    }
    openai_chat(obj)
        .or_else(|| openai_responses(obj))
        .or_else(|| anthropic(obj))
        .or_else(|| gemini(obj))
        .or_else(|| bedrock(obj))
}

fn openai_chat(obj: &Map<String, Value>) -> Option<OutputText> {
    let choices = obj.get("choices")?.as_array()?;
    let typed = obj.get("object").and_then(Value::as_str) == Some("chat.completion");
    let first = choices.first();
    let message = first.and_then(|c| c.get("message")).and_then(Value::as_object);
    if !typed && message.is_none() {
        return None;
    }
    let mut text = String::new();
    if let Some(message) = message {
        match message.get("content") {
            Some(Value::String(s)) => text.push_str(s),
            Some(Value::Array(parts)) => {
                for part in parts {
                    match part.get("type").and_then(Value::as_str) {
                        Some("text") | None => {
                            if let Some(s) = part.get("text").and_then(Value::as_str) {
                                text.push_str(s);
                            }
                        }
                        Some("refusal") => {
                            if let Some(s) = part.get("refusal").and_then(Value::as_str) {
                                text.push_str(s);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        if text.is_empty() {
            if let Some(s) = message.get("refusal").and_then(Value::as_str) {
                text.push_str(s);
            }
        }
    }
    Some(OutputText { text, from: "openai-chat", model: model_of(obj, "model") })
}

fn openai_responses(obj: &Map<String, Value>) -> Option<OutputText> {
    let typed = obj.get("object").and_then(Value::as_str) == Some("response");
    let output = obj.get("output").and_then(Value::as_array);
    let items_typed = output
        .is_some_and(|items| !items.is_empty() && items.iter().all(|i| i.get("type").is_some_and(Value::is_string)));
    if !typed && !items_typed {
        return None;
    }
    let mut text = String::new();
    for item in output.into_iter().flatten() {
        if item.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        let Some(content) = item.get("content").and_then(Value::as_array) else {
            continue;
        };
        for part in content {
            let field = match part.get("type").and_then(Value::as_str) {
                Some("output_text") => "text",
                Some("refusal") => "refusal",
                _ => continue,
            };
            if let Some(s) = part.get(field).and_then(Value::as_str) {
                text.push_str(s);
            }
        }
    }
    if text.is_empty() {
        if let Some(s) = obj.get("output_text").and_then(Value::as_str) {
            text.push_str(s);
        }
    }
    Some(OutputText { text, from: "openai-responses", model: model_of(obj, "model") })
}

fn anthropic(obj: &Map<String, Value>) -> Option<OutputText> {
    let content = obj.get("content")?.as_array()?;
    let typed = obj.get("type").and_then(Value::as_str) == Some("message");
    let assistant = obj.get("role").and_then(Value::as_str) == Some("assistant");
    if !(typed || assistant && obj.contains_key("stop_reason")) {
        return None;
    }
    let mut text = String::new();
    for block in content {
        if block.get("type").and_then(Value::as_str) != Some("text") {
            continue;
        }
        if let Some(s) = block.get("text").and_then(Value::as_str) {
            text.push_str(s);
        }
    }
    Some(OutputText { text, from: "anthropic", model: model_of(obj, "model") })
}

fn gemini(obj: &Map<String, Value>) -> Option<OutputText> {
    let candidates = obj.get("candidates")?.as_array()?;
    let mut text = String::new();
    let parts =
        candidates.first().and_then(|c| c.get("content")).and_then(|c| c.get("parts")).and_then(Value::as_array);
    for part in parts.into_iter().flatten() {
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if let Some(s) = part.get("text").and_then(Value::as_str) {
            text.push_str(s);
        }
    }
    Some(OutputText { text, from: "gemini", model: model_of(obj, "modelVersion") })
}

fn bedrock(obj: &Map<String, Value>) -> Option<OutputText> {
    let message = obj.get("output")?.get("message")?.as_object()?;
    let content = message.get("content")?.as_array()?;
    let mut text = String::new();
    for block in content {
        if let Some(s) = block.get("text").and_then(Value::as_str) {
            text.push_str(s);
        }
    }
    Some(OutputText { text, from: "bedrock", model: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_json_passes() {
        assert_eq!(parse(" {\"a\": 1}\n").unwrap(), serde_json::json!({"a": 1}));
    }

    #[test]
    fn prose_before_is_named() {
        let e = parse("Here's your report:\n{\"a\": 1}").unwrap_err();
        assert_eq!(
            e,
            OutputError::ProseAround { before: "Here's your report:\n".into(), after: String::new(), json_at: 20 }
        );
        let m = e.to_string();
        assert!(m.contains("\"Here's your report:\""), "{m}");
        assert!(m.contains("line 2 (byte 20)"), "{m}");
    }

    #[test]
    fn fence_is_its_own_failure() {
        assert_eq!(parse("```json\n{\"a\": 1}\n```"), Err(OutputError::Fenced { lang: Some("json".into()) }));
        assert_eq!(parse("```\n{}\n```"), Err(OutputError::Fenced { lang: None }));
    }

    #[test]
    fn not_json_says_where() {
        let e = parse("{\n  \"a\": 1,,\n}").unwrap_err();
        let OutputError::NotJson { line, column, .. } = &e else { panic!("{e:?}") };
        assert_eq!((*line, *column), (2, 10));
        assert!(e.to_string().contains("line 2, column 10"), "{e}");
    }
}
