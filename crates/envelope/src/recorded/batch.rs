//! Batch files and plain request bodies:
//! - OpenAI Batch input, one request a line: `{custom_id, method, url, body}`;
//!   the body is read by the importer `url` names (`/v1/chat/completions` →
//!   OpenAI Chat, `/v1/responses` → OpenAI Responses, `/v1/messages` →
//!   Anthropic Messages);
//! - Anthropic Message Batches: a document `{"requests": [{custom_id, params}]}`
//!   (what `messages.batches.create` sends) or one `{custom_id, params}` a line;
//! - a request body or an envelope, alone or one a line (its format detected).
//!
//! Each is a call with no times and no output; its `At` has the line, the
//! index in `requests` and the `custom_id`. A body the importer refuses is
//! an error located by file, line and the JSON path within the line
//! (`body.messages[2].content`).

use serde_json::{Map, Value};

use super::{At, Call, Content, Dialect, Error, Usage};
use crate::diag::{Diagnostic, Notice};
use crate::import::{self, Format, Imported};
use crate::parse::type_name;

/// The provider of a request format (`openai`, `anthropic`, …).
pub fn provider_of(format: Format) -> Option<&'static str> {
    match format.code() {
        "openai" | "responses" => Some("openai"),
        "anthropic" => Some("anthropic"),
        "gemini" => Some("gcp.gemini"),
        "bedrock" => Some("aws.bedrock"),
        _ => None,
    }
}

/// The format of an OpenAI Batch line's `url`.
fn format_of_url(url: &str) -> Option<Format> {
    let path = url.split('?').next().unwrap_or(url).trim_end_matches('/');
    match path {
        "/v1/chat/completions" | "/chat/completions" => Some(Format::OpenaiChat),
        "/v1/responses" | "/responses" => Some(Format::OpenaiResponses),
        "/v1/messages" | "/messages" => Some(Format::Anthropic),
        _ => None,
    }
}

fn prefixed(path: &str, inner: &str) -> String {
    if inner.is_empty() {
        path.to_string()
    } else if inner.starts_with('[') || inner.starts_with("line ") {
        format!("{path}{}{inner}", if inner.starts_with('[') { "" } else { " " })
    } else {
        format!("{path}.{inner}")
    }
}

fn errors(at: &At, path: &str, diags: Vec<Diagnostic>) -> Vec<Error> {
    diags
        .into_iter()
        .map(|d| {
            let path = prefixed(path, &d.path);
            Error { path, ..Error::of(at.clone(), d) }
        })
        .collect()
}

/// A call of an imported body.
fn call(at: At, dialect: Dialect, imported: Imported, path: &str) -> Call {
    let notices = imported.notices.into_iter().map(|n| Notice::new(prefixed(path, &n.path), n.message)).collect();
    Call {
        at,
        start_ns: None,
        end_ns: None,
        name: None,
        parent_span_id: None,
        scope: None,
        provider: provider_of(imported.format).map(str::to_string),
        model: imported.envelope.model.clone(),
        dialect,
        content: Content::Captured(Box::new(imported.envelope)),
        output: None,
        usage: Usage::default(),
        error_status: None,
        notices,
        errors: vec![],
    }
}

/// A JSON value that is not an object: not a call.
pub(super) fn plain(at: At, value: Value) -> Result<Vec<Call>, Vec<Error>> {
    Err(vec![Error::record(
        at,
        "",
        format!(
            "expected a JSON object (an OTLP export, a batch request, a request body or an envelope), found {}",
            type_name(&value)
        ),
    )])
}

/// An object that is not OTLP.
pub(super) fn value(mut at: At, value: Value) -> Result<Vec<Call>, Vec<Error>> {
    let Value::Object(o) = value else { return plain(at, value) };
    if o.contains_key("custom_id") && (o.contains_key("response") || o.contains_key("result")) {
        return Err(vec![Error::record(
            at,
            "",
            "a batch results line (`response` / `result`): it holds a reply, not a request; give the batch's input file",
        )]);
    }
    if let Some(id) = o.get("custom_id") {
        at.custom_id = Some(match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        if o.contains_key("params") {
            return anthropic_request(at, o, "").map(|c| vec![c]);
        }
        return openai_line(at, o).map(|c| vec![c]);
    }
    if let Some(requests) = o.get("requests") {
        let Value::Array(list) = requests else {
            return Err(vec![Error::record(
                at,
                "requests",
                format!("expected an array, found {}", type_name(requests)),
            )]);
        };
        let mut calls = Vec::new();
        let mut errs = Vec::new();
        for (i, r) in list.iter().enumerate() {
            let mut rat = at.clone();
            rat.index = Some(i as u64);
            let path = format!("requests[{i}]");
            let Value::Object(ro) = r else {
                errs.push(Error::record(rat, path, format!("expected an object, found {}", type_name(r))));
                continue;
            };
            rat.custom_id = ro.get("custom_id").map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string));
            match anthropic_request(rat, ro.clone(), &path) {
                Ok(c) => calls.push(c),
                Err(e) => errs.extend(e),
            }
        }
        return if errs.is_empty() { Ok(calls) } else { Err(errs) };
    }
    let value = Value::Object(o);
    let format = import::detect(&value).map_err(|d| errors(&at, "", vec![d]))?;
    let imported = import::import_value(value, Some(format)).map_err(|d| errors(&at, "", d))?;
    Ok(vec![call(at, Dialect::Request(format), imported, "")])
}

/// `{custom_id, params}`: `params` is an Anthropic Messages body.
fn anthropic_request(at: At, mut o: Map<String, Value>, path: &str) -> Result<Call, Vec<Error>> {
    let params = o.shift_remove("params").unwrap_or(Value::Null);
    let p = prefixed(path, "params");
    if !params.is_object() {
        return Err(vec![Error::record(
            at,
            p,
            format!("expected an object (a Messages request), found {}", type_name(&params)),
        )]);
    }
    let imported = import::import_value(params, Some(Format::Anthropic)).map_err(|d| errors(&at, &p, d))?;
    let mut c = call(at, Dialect::AnthropicBatch, imported, &p);
    for (k, v) in o.iter().filter(|(k, _)| k.as_str() != "custom_id") {
        c.notices.push(Notice::new(
            prefixed(path, k),
            format!("a batch field with no place in the envelope: {}", super::otlp::shown(v)),
        ));
    }
    Ok(c)
}

/// `{custom_id, method, url, body}`.
fn openai_line(at: At, o: Map<String, Value>) -> Result<Call, Vec<Error>> {
    let Some(url) = o.get("url").and_then(Value::as_str) else {
        return Err(vec![Error::record(at, "url", "an OpenAI Batch line needs `url` (the endpoint its body is for)")]);
    };
    let Some(format) = format_of_url(url) else {
        return Err(vec![Error::record(
            at,
            "url",
            format!(
                "`{url}` is not an endpoint read here (/v1/chat/completions, /v1/responses, /v1/messages): its body is no chat request"
            ),
        )]);
    };
    if let Some(m) = o.get("method").and_then(Value::as_str) {
        if !m.eq_ignore_ascii_case("POST") {
            return Err(vec![Error::record(at, "method", format!("`{m}`: a batch request is a POST"))]);
        }
    }
    let body = o.get("body").cloned().unwrap_or(Value::Null);
    if !body.is_object() {
        return Err(vec![Error::record(
            at,
            "body",
            format!("expected an object (the request body), found {}", type_name(&body)),
        )]);
    }
    let imported = import::import_value(body, Some(format)).map_err(|d| errors(&at, "body", d))?;
    let mut c = call(at, Dialect::OpenaiBatch, imported, "body");
    for (k, v) in o.iter().filter(|(k, _)| !["custom_id", "method", "url", "body"].contains(&k.as_str())) {
        c.notices.push(Notice::new(
            k.clone(),
            format!("a batch field with no place in the envelope: {}", super::otlp::shown(v)),
        ));
    }
    Ok(c)
}
