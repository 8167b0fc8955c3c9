//! Request settings (`params`) between providers.
//!
//! An envelope's `params` are kept as the provider they came from spells
//! them. Exporting to that provider passes them through unchanged; exporting
//! to another translates the common ones (the output-token limit, stop
//! sequences, `tool_choice`, structured output, reasoning effort, the end
//! user) and leaves out, with a notice, those that have no equivalent. A key
//! no provider here defines is passed through with a notice (it may be newer
//! than this table). Translation is idempotent: a target's own spelling
//! passes through as written, so exporting an imported export gives the
//! same bytes.
//!
//! Gemini and Bedrock nest their settings (`generationConfig.temperature`,
//! `inferenceConfig.maxTokens`, `toolConfig.functionCallingConfig`,
//! `toolConfig.toolChoice`): to another provider each field is read on its
//! own ([`expand`]) and translated as the flat settings are; to Gemini or
//! Bedrock the common settings are written into those objects.

use serde_json::{json, Map, Value};

use crate::diag::Notice;

/// A provider's request format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    OpenaiChat,
    OpenaiResponses,
    Anthropic,
    Gemini,
    Bedrock,
}

impl Provider {
    pub const ALL: [Provider; 5] =
        [Provider::OpenaiChat, Provider::OpenaiResponses, Provider::Anthropic, Provider::Gemini, Provider::Bedrock];

    /// The name users know: "OpenAI Chat", "OpenAI Responses", "Anthropic
    /// Messages", "Gemini", "Bedrock Converse".
    pub fn label(self) -> &'static str {
        self.format().label()
    }

    /// The request format.
    pub fn format(self) -> crate::types::RequestFormat {
        use crate::types::RequestFormat as F;
        match self {
            Provider::OpenaiChat => F::Openai,
            Provider::OpenaiResponses => F::Responses,
            Provider::Anthropic => F::Anthropic,
            Provider::Gemini => F::Gemini,
            Provider::Bedrock => F::Bedrock,
        }
    }

    /// The body keys the export writes from the conversation itself.
    pub fn reserved(self) -> &'static [&'static str] {
        match self {
            Provider::OpenaiChat => &["model", "messages", "tools"],
            Provider::OpenaiResponses => &["model", "input", "instructions", "tools"],
            Provider::Anthropic => &["model", "system", "messages", "tools"],
            Provider::Gemini => &["contents", "systemInstruction", "system_instruction", "tools"],
            Provider::Bedrock => &["messages", "system"],
        }
    }

    /// The other body keys the provider's request defines.
    pub fn known(self) -> &'static [&'static str] {
        match self {
            Provider::OpenaiChat => CHAT,
            Provider::OpenaiResponses => RESPONSES,
            Provider::Anthropic => ANTHROPIC,
            Provider::Gemini => GEMINI,
            Provider::Bedrock => BEDROCK,
        }
    }
}

/// OpenAI Chat Completions (`CreateChatCompletionRequest`), besides the reserved keys.
const CHAT: &[&str] = &[
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "metadata",
    "modalities",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "prompt_cache_retention",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "service_tier",
    "stop",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "tool_choice",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options",
];

/// OpenAI Responses (`CreateResponse`), besides the reserved keys.
const RESPONSES: &[&str] = &[
    "background",
    "context_management",
    "conversation",
    "include",
    "max_output_tokens",
    "max_tool_calls",
    "metadata",
    "parallel_tool_calls",
    "previous_response_id",
    "prompt",
    "prompt_cache_key",
    "prompt_cache_retention",
    "reasoning",
    "safety_identifier",
    "service_tier",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "text",
    "tool_choice",
    "top_logprobs",
    "top_p",
    "truncation",
    "user",
];

/// Anthropic Messages (`MessageCreateParams` of API version 2023-06-01, the
/// version the cURL export names), besides the reserved keys.
const ANTHROPIC: &[&str] = &[
    "container",
    "inference_geo",
    "max_tokens",
    "metadata",
    "output_config",
    "service_tier",
    "stop_sequences",
    "stream",
    "temperature",
    "thinking",
    "tool_choice",
    "top_k",
    "top_p",
];

/// Gemini `generateContent`, besides the reserved keys (both spellings).
const GEMINI: &[&str] = &[
    "cachedContent",
    "cached_content",
    "generationConfig",
    "generation_config",
    "labels",
    "modelArmorConfig",
    "safetySettings",
    "safety_settings",
    "serviceTier",
    "toolConfig",
    "tool_config",
];

/// Bedrock Converse, besides the reserved keys.
const BEDROCK: &[&str] = &[
    "additionalModelRequestFields",
    "additionalModelResponseFieldPaths",
    "guardrailConfig",
    "inferenceConfig",
    "outputConfig",
    "performanceConfig",
    "projectIdentifier",
    "promptVariables",
    "requestMetadata",
    "serviceTier",
    "toolConfig",
];

/// Builds the translated settings in order; the first writer of a key wins.
struct Out<'a> {
    to: Provider,
    map: Map<String, Value>,
    notices: &'a mut Vec<Notice>,
    /// The setting's path as the envelope has it, when it is a field of a
    /// nested setting (`generationConfig.topK`): notices name it.
    shown: Option<String>,
}

impl Out<'_> {
    fn note(&mut self, key: &str, message: String) {
        let path = self.shown.clone().unwrap_or_else(|| key.to_string());
        self.notices.push(Notice::new(format!("params.{path}"), message));
    }

    fn drop(&mut self, key: &str) {
        let to = self.to.label();
        self.note(key, format!("`{key}` has no {to} equivalent; left out of the {to} request"));
    }

    /// Writes `to_key` (from the setting `key`) unless an earlier setting wrote it.
    fn put(&mut self, key: &str, to_key: &str, value: Value) {
        if self.map.contains_key(to_key) {
            self.note(key, format!("`{to_key}` is already set by an earlier setting; `{key}` is left out"));
        } else {
            self.map.insert(to_key.to_string(), value);
        }
    }

    /// Sets `field` inside the object `to_key` (created where it is first needed).
    fn merge(&mut self, key: &str, to_key: &str, field: &str, value: Value) {
        let slot = self.map.entry(to_key.to_string()).or_insert_with(|| Value::Object(Map::new()));
        match slot {
            Value::Object(o) if !o.contains_key(field) => {
                o.insert(field.to_string(), value);
            }
            _ => self.note(key, format!("`{to_key}.{field}` is already set; `{key}` is left out")),
        }
    }
}

/// `params` translated for `to`, with a notice for every setting left out
/// or passed through unknown. `params` keys that the export writes itself
/// (`model`, `messages`, …) are left out with a notice.
pub fn translate(params: &Map<String, Value>, to: Provider, notices: &mut Vec<Notice>) -> Map<String, Value> {
    let mut out = Out { to, map: Map::new(), notices, shown: None };
    for (key, value) in params {
        let k = key.as_str();
        if to.reserved().contains(&k) {
            out.note(k, format!("`{k}` is written from the envelope itself; this setting is left out"));
            continue;
        }
        match nested_owner(k, value) {
            Some(from) if from != to => {
                for field in expand(k, value, from) {
                    out.shown = Some(field.shown.clone());
                    match field.key {
                        Some(nk) => one(&mut out, &nk, &field.value, params),
                        None => {
                            let to = out.to.label();
                            let note =
                                format!("`{}` has no {to} equivalent; left out of the {to} request", field.shown);
                            out.note(&field.shown, note)
                        }
                    }
                }
                out.shown = None;
            }
            _ => one(&mut out, k, value, params),
        }
    }
    if to == Provider::Anthropic {
        if let Some(v) = params.get("parallel_tool_calls") {
            match v.as_bool() {
                Some(b) => {
                    out.merge("parallel_tool_calls", "tool_choice", "disable_parallel_tool_use", Value::Bool(!b))
                }
                None => out.note("parallel_tool_calls", "`parallel_tool_calls` is not a boolean; left out".into()),
            }
            if let Some(Value::Object(tc)) = out.map.get_mut("tool_choice") {
                if !tc.contains_key("type") {
                    // Created by the merge: the default choice, first.
                    let rest = std::mem::take(tc);
                    tc.insert("type".into(), "auto".into());
                    tc.extend(rest);
                }
            }
        }
    }
    out.map
}

/// One flat setting, translated for `out.to`.
fn one(out: &mut Out, k: &str, value: &Value, params: &Map<String, Value>) {
    match out.to {
        Provider::OpenaiChat => to_chat(out, k, value, params),
        Provider::OpenaiResponses => to_responses(out, k, value, params),
        Provider::Anthropic => to_anthropic(out, k, value),
        #[cfg(feature = "providers")]
        Provider::Gemini => to_gemini(out, k, value, params),
        #[cfg(feature = "providers")]
        Provider::Bedrock => to_bedrock(out, k, value),
        // Without the `providers` feature nothing exports to Gemini or Bedrock.
        #[cfg(not(feature = "providers"))]
        Provider::Gemini | Provider::Bedrock => out.drop(k),
    }
}

/// The provider whose nested settings object `k` is (`generationConfig`,
/// `inferenceConfig`, either's `toolConfig`, …), `None` for a flat setting.
fn nested_owner(k: &str, v: &Value) -> Option<Provider> {
    match k {
        "toolConfig" | "tool_config" => {
            let o = v.as_object()?;
            if o.contains_key("functionCallingConfig") || o.contains_key("function_calling_config") {
                Some(Provider::Gemini)
            } else if o.contains_key("toolChoice") || o.contains_key("tools") {
                Some(Provider::Bedrock)
            } else if k == "tool_config" {
                Some(Provider::Gemini)
            } else {
                None
            }
        }
        // Both have a `serviceTier`: a flat setting.
        "serviceTier" => None,
        _ if GEMINI.contains(&k) => Some(Provider::Gemini),
        _ if BEDROCK.contains(&k) => Some(Provider::Bedrock),
        _ => None,
    }
}

/// One field of a nested setting: where it is (`generationConfig.topK`),
/// and its flat name (`top_k`) and value, or no flat name when it has no
/// equivalent outside its provider.
struct Field {
    shown: String,
    key: Option<String>,
    value: Value,
}

/// `snake_case` → `camelCase` (Gemini reads both).
fn camel(k: &str) -> String {
    let mut out = String::with_capacity(k.len());
    let mut up = false;
    for c in k.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The fields of the nested setting `k` of provider `from`, as flat settings.
fn expand(k: &str, v: &Value, from: Provider) -> Vec<Field> {
    let field = |shown: String, key: Option<&str>, value: Value| Field { shown, key: key.map(str::to_string), value };
    let Value::Object(o) = v else { return vec![field(k.to_string(), None, v.clone())] };
    let mut out = Vec::new();
    match (from, camel(k).as_str()) {
        (Provider::Gemini, "generationConfig") => {
            let mut format: Option<(String, Value)> = None;
            for (f, x) in o {
                let shown = format!("{k}.{f}");
                let flat = match camel(f).as_str() {
                    "temperature" => Some("temperature"),
                    "topP" => Some("top_p"),
                    "topK" => Some("top_k"),
                    "maxOutputTokens" => Some("max_output_tokens"),
                    "stopSequences" => Some("stop_sequences"),
                    "candidateCount" => Some("n"),
                    "seed" => Some("seed"),
                    "presencePenalty" => Some("presence_penalty"),
                    "frequencyPenalty" => Some("frequency_penalty"),
                    "responseLogprobs" => Some("logprobs"),
                    "logprobs" => Some("top_logprobs"),
                    "responseMimeType" | "responseSchema" | "responseJsonSchema" => {
                        format.get_or_insert_with(|| (shown.clone(), Value::Null));
                        continue;
                    }
                    "thinkingConfig" => {
                        out.extend(thinking_config(&shown, x));
                        continue;
                    }
                    _ => None,
                };
                out.push(field(shown, flat, x.clone()));
            }
            if let Some((shown, _)) = format {
                let get = |name: &str| o.iter().find(|(f, _)| camel(f) == name).map(|(_, x)| x);
                let schema = get("responseJsonSchema").or(get("responseSchema"));
                let rf = match (schema, get("responseMimeType").and_then(Value::as_str)) {
                    (Some(s), _) => {
                        Some(json!({"type": "json_schema", "json_schema": {"name": "response", "schema": s}}))
                    }
                    (None, Some("application/json")) => Some(json!({"type": "json_object"})),
                    (None, Some("text/plain")) => Some(json!({"type": "text"})),
                    _ => None,
                };
                out.push(match rf {
                    Some(rf) => field(shown, Some("response_format"), rf),
                    None => field(shown, None, Value::Null),
                });
            }
        }
        (Provider::Gemini, "toolConfig") => {
            for (f, x) in o {
                let shown = format!("{k}.{f}");
                let choice = (camel(f) == "functionCallingConfig").then(|| gemini_choice(x)).flatten();
                out.push(match choice {
                    Some(c) => field(shown, Some("tool_choice"), c),
                    None => field(shown, None, x.clone()),
                });
            }
        }
        (Provider::Bedrock, "inferenceConfig") => {
            for (f, x) in o {
                let flat = match f.as_str() {
                    "maxTokens" => Some("max_tokens"),
                    "temperature" => Some("temperature"),
                    "topP" => Some("top_p"),
                    "stopSequences" => Some("stop_sequences"),
                    _ => None,
                };
                out.push(field(format!("{k}.{f}"), flat, x.clone()));
            }
        }
        (Provider::Bedrock, "toolConfig") => {
            for (f, x) in o {
                let shown = format!("{k}.{f}");
                let choice = (f == "toolChoice").then(|| bedrock_choice(x)).flatten();
                out.push(match choice {
                    Some(c) => field(shown, Some("tool_choice"), c),
                    None => field(shown, None, x.clone()),
                });
            }
        }
        _ => out.push(field(k.to_string(), None, v.clone())),
    }
    out
}

/// Gemini `thinkingConfig` → `reasoning_effort` (`thinkingLevel`) and
/// Anthropic's `thinking` (`thinkingBudget`).
fn thinking_config(shown: &str, v: &Value) -> Vec<Field> {
    let Value::Object(o) = v else {
        return vec![Field { shown: shown.to_string(), key: None, value: v.clone() }];
    };
    o.iter()
        .map(|(f, x)| {
            let shown = format!("{shown}.{f}");
            let (key, value) = match (camel(f).as_str(), x.as_i64()) {
                ("thinkingLevel", _) => (Some("reasoning_effort"), x.clone()),
                ("thinkingBudget", Some(0)) => (Some("thinking"), json!({"type": "disabled"})),
                ("thinkingBudget", Some(n)) if n > 0 => {
                    (Some("thinking"), json!({"type": "enabled", "budget_tokens": n}))
                }
                _ => (None, x.clone()),
            };
            Field { shown, key: key.map(str::to_string), value }
        })
        .collect()
}

/// Gemini `functionCallingConfig` → `tool_choice` (Chat's shape).
fn gemini_choice(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let get = |name: &str| o.iter().find(|(f, _)| camel(f) == name).map(|(_, x)| x);
    let names = get("allowedFunctionNames").and_then(Value::as_array);
    let choice = match get("mode").and_then(Value::as_str).map(str::to_ascii_uppercase).as_deref() {
        Some("AUTO") | None => Choice::Auto,
        Some("NONE") => Choice::None,
        Some("ANY") => match names.map(Vec::as_slice) {
            Some([Value::String(n)]) => Choice::Tool(n.clone()),
            Some([]) | None => Choice::Required,
            Some(_) => return None,
        },
        Some(_) => return None,
    };
    if o.len() > 1 + usize::from(get("allowedFunctionNames").is_some()) {
        return None;
    }
    Some(write_choice(&choice, Provider::OpenaiChat))
}

/// Bedrock `toolChoice` → `tool_choice` (Chat's shape).
fn bedrock_choice(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let [(k, x)] = o.iter().collect::<Vec<_>>()[..] else { return None };
    let choice = match k.as_str() {
        "auto" => Choice::Auto,
        "any" => Choice::Required,
        "tool" => Choice::Tool(x.get("name")?.as_str()?.to_string()),
        _ => return None,
    };
    Some(write_choice(&choice, Provider::OpenaiChat))
}

/// A flat setting into Gemini's `generationConfig` (or the `generation_config`
/// the settings already spell).
#[cfg(feature = "providers")]
fn to_gemini(out: &mut Out, k: &str, v: &Value, params: &Map<String, Value>) {
    let gen = if params.contains_key("generation_config") { "generation_config" } else { "generationConfig" };
    let config = |out: &mut Out, field: &str, value: Value| out.merge(k, gen, field, value);
    match k {
        "temperature" => config(out, "temperature", v.clone()),
        "top_p" => config(out, "topP", v.clone()),
        "top_k" => config(out, "topK", v.clone()),
        "max_tokens" | "max_completion_tokens" | "max_output_tokens" => config(out, "maxOutputTokens", v.clone()),
        "stop" => match v {
            Value::String(_) => config(out, "stopSequences", json!([v])),
            _ => config(out, "stopSequences", v.clone()),
        },
        "stop_sequences" => config(out, "stopSequences", v.clone()),
        "n" => config(out, "candidateCount", v.clone()),
        "seed" => config(out, "seed", v.clone()),
        "presence_penalty" => config(out, "presencePenalty", v.clone()),
        "frequency_penalty" => config(out, "frequencyPenalty", v.clone()),
        "logprobs" => config(out, "responseLogprobs", v.clone()),
        "top_logprobs" => config(out, "logprobs", v.clone()),
        "response_format" => response_format_to_gemini(out, k, v, gen),
        "text" => match v.get("format").and_then(text_format_to_chat) {
            Some(rf) => {
                response_format_to_gemini(out, "text.format", &rf, gen);
                note_other_fields(out, k, v, &["format"]);
            }
            None => out.drop(k),
        },
        "reasoning_effort" => out.merge(k, gen, "thinkingConfig", json!({"thinkingLevel": v})),
        "reasoning" => match v.get("effort") {
            Some(e) => {
                out.merge(k, gen, "thinkingConfig", json!({"thinkingLevel": e}));
                note_other_fields(out, k, v, &["effort"]);
            }
            None => out.drop(k),
        },
        "thinking" => match (v.get("type").and_then(Value::as_str), v.get("budget_tokens")) {
            (Some("enabled"), Some(n)) => out.merge(k, gen, "thinkingConfig", json!({"thinkingBudget": n})),
            (Some("disabled"), _) => out.merge(k, gen, "thinkingConfig", json!({"thinkingBudget": 0})),
            _ => out.drop(k),
        },
        "tool_choice" => match read_choice(v) {
            Some(c) => {
                let fcc = match c {
                    Choice::Auto => json!({"mode": "AUTO"}),
                    Choice::None => json!({"mode": "NONE"}),
                    Choice::Required => json!({"mode": "ANY"}),
                    Choice::Tool(n) => json!({"mode": "ANY", "allowedFunctionNames": [n]}),
                };
                out.merge(k, "toolConfig", "functionCallingConfig", fcc);
            }
            None => out.note(k, "this `tool_choice` has no Gemini equivalent; left out".into()),
        },
        // Bedrock's `{"type": …}` object; Gemini's own string as written.
        "serviceTier" => match v {
            Value::Object(_) => match v.get("type").and_then(Value::as_str) {
                Some(t @ ("priority" | "flex")) => out.put(k, k, t.into()),
                Some("default") => out.put(k, k, "standard".into()),
                _ => {
                    out.note(k, format!("Gemini's `serviceTier` is `standard`, `flex` or `priority`; {v} is left out"))
                }
            },
            _ => out.put(k, k, v.clone()),
        },
        // Its own settings: an object's fields merged (a translated one may
        // have made it), anything else as written.
        _ if GEMINI.contains(&k) => match v {
            Value::Object(o) => {
                for (f, x) in o {
                    out.merge(k, k, f, x.clone());
                }
            }
            _ => out.put(k, k, v.clone()),
        },
        _ if known_elsewhere(k) => out.drop(k),
        _ => unknown(out, k, v),
    }
}

/// Chat's `response_format` → Gemini's `responseMimeType` and `responseJsonSchema`.
#[cfg(feature = "providers")]
fn response_format_to_gemini(out: &mut Out, k: &str, v: &Value, gen: &str) {
    match (v.get("type").and_then(Value::as_str), v.get("json_schema").and_then(|j| j.get("schema"))) {
        (Some("json_schema"), Some(schema)) => {
            out.merge(k, gen, "responseMimeType", "application/json".into());
            out.merge(k, gen, "responseJsonSchema", schema.clone());
        }
        (Some("json_object"), _) => out.merge(k, gen, "responseMimeType", "application/json".into()),
        (Some("text"), _) => {}
        _ => out.note(k, format!("this `{k}` has no Gemini equivalent; left out")),
    }
}

/// A flat setting into Bedrock's `inferenceConfig` or `toolConfig`.
#[cfg(feature = "providers")]
fn to_bedrock(out: &mut Out, k: &str, v: &Value) {
    let inference = |out: &mut Out, field: &str, value: Value| out.merge(k, "inferenceConfig", field, value);
    match k {
        "max_tokens" | "max_completion_tokens" | "max_output_tokens" => inference(out, "maxTokens", v.clone()),
        "temperature" => inference(out, "temperature", v.clone()),
        "top_p" => inference(out, "topP", v.clone()),
        "stop" => match v {
            Value::String(_) => inference(out, "stopSequences", json!([v])),
            _ => inference(out, "stopSequences", v.clone()),
        },
        "stop_sequences" => inference(out, "stopSequences", v.clone()),
        "tool_choice" => match read_choice(v) {
            Some(Choice::Auto) => out.merge(k, "toolConfig", "toolChoice", json!({"auto": {}})),
            Some(Choice::Required) => out.merge(k, "toolConfig", "toolChoice", json!({"any": {}})),
            Some(Choice::Tool(n)) => out.merge(k, "toolConfig", "toolChoice", json!({"tool": {"name": n}})),
            _ => out.note(k, "this `tool_choice` has no Bedrock Converse equivalent; left out".into()),
        },
        // Gemini's string; Bedrock's own `{"type": …}` object as written.
        "serviceTier" => match v.as_str() {
            Some(t @ ("priority" | "flex")) => out.put(k, k, json!({"type": t})),
            Some("standard") => out.put(k, k, json!({"type": "default"})),
            Some(_) => out.note(
                k,
                format!("Bedrock's `serviceTier` type is `default`, `priority`, `flex` or `reserved`; {v} is left out"),
            ),
            None => out.put(k, k, v.clone()),
        },
        _ if BEDROCK.contains(&k) => match v {
            Value::Object(o) => {
                for (f, x) in o {
                    out.merge(k, k, f, x.clone());
                }
            }
            _ => out.put(k, k, v.clone()),
        },
        _ if known_elsewhere(k) => out.drop(k),
        _ => unknown(out, k, v),
    }
}

/// A key no provider here defines.
fn unknown(out: &mut Out, k: &str, value: &Value) {
    let to = out.to.label();
    out.note(k, format!("`{k}` is not a known {to} setting; passed through as written"));
    out.put(k, k, value.clone());
}

fn known_elsewhere(k: &str) -> bool {
    Provider::ALL.iter().any(|p| p.known().contains(&k) || p.reserved().contains(&k))
}

fn to_chat(out: &mut Out, k: &str, v: &Value, params: &Map<String, Value>) {
    match k {
        "max_output_tokens" => out.put(k, "max_completion_tokens", v.clone()),
        "stop_sequences" => out.put(k, "stop", v.clone()),
        "tool_choice" => tool_choice(out, v, params),
        "text" => text_to_chat(out, v),
        "reasoning" => match v.get("effort") {
            Some(e) => {
                out.put(k, "reasoning_effort", e.clone());
                note_other_fields(out, k, v, &["effort"]);
            }
            None => out.drop(k),
        },
        _ if CHAT.contains(&k) => out.put(k, k, v.clone()),
        _ if known_elsewhere(k) => out.drop(k),
        _ => unknown(out, k, v),
    }
}

fn to_responses(out: &mut Out, k: &str, v: &Value, params: &Map<String, Value>) {
    match k {
        "max_tokens" | "max_completion_tokens" => out.put(k, "max_output_tokens", v.clone()),
        "tool_choice" => tool_choice(out, v, params),
        "response_format" => match response_format_to_text(v) {
            Some(f) => out.merge(k, "text", "format", f),
            None => out.note(k, "`response_format` is not an object with a `type`; left out".into()),
        },
        "verbosity" => out.merge(k, "text", "verbosity", v.clone()),
        // Responses streams say nothing of usage (it is always in the last event).
        "stream_options" => match v {
            Value::Object(o) => {
                let kept: Map<String, Value> = o
                    .iter()
                    .filter(|(f, _)| f.as_str() == "include_obfuscation")
                    .map(|(a, b)| (a.clone(), b.clone()))
                    .collect();
                note_other_fields(out, k, v, &["include_obfuscation"]);
                if !kept.is_empty() {
                    out.put(k, k, Value::Object(kept));
                }
            }
            _ => out.put(k, k, v.clone()),
        },
        "reasoning_effort" => out.merge(k, "reasoning", "effort", v.clone()),
        "text" | "reasoning" => match v {
            Value::Object(o) => {
                for (f, x) in o {
                    out.merge(k, k, f, x.clone());
                }
            }
            _ => out.put(k, k, v.clone()),
        },
        _ if RESPONSES.contains(&k) => out.put(k, k, v.clone()),
        _ if known_elsewhere(k) => out.drop(k),
        _ => unknown(out, k, v),
    }
}

fn to_anthropic(out: &mut Out, k: &str, v: &Value) {
    match k {
        "max_completion_tokens" | "max_output_tokens" => out.put(k, "max_tokens", v.clone()),
        "stop" => match v {
            Value::String(_) => out.put(k, "stop_sequences", json!([v])),
            _ => out.put(k, "stop_sequences", v.clone()),
        },
        "tool_choice" => tool_choice(out, v, &Map::new()),
        "parallel_tool_calls" => {} // merged into `tool_choice` after the loop
        "user" => out.merge(k, "metadata", "user_id", v.clone()),
        "metadata" => match v {
            Value::Object(o) => {
                for (f, x) in o {
                    if f == "user_id" {
                        out.merge(k, "metadata", f, x.clone());
                    } else {
                        out.note(
                            &format!("metadata.{f}"),
                            format!("Anthropic's `metadata` holds only `user_id`; `{f}` is left out"),
                        );
                    }
                }
            }
            _ => out.put(k, k, v.clone()),
        },
        "temperature" => {
            if v.as_number().and_then(|n| crate::number::value(n.as_str())).is_some_and(|t| t > 1.0) {
                out.note(k, format!("Anthropic accepts a temperature from 0 to 1; {v} is passed as written"));
            }
            out.put(k, k, v.clone());
        }
        "service_tier" => match v.as_str() {
            Some("auto" | "standard_only") => out.put(k, k, v.clone()),
            _ => out.note(k, format!("Anthropic's `service_tier` is `auto` or `standard_only`; {v} is left out")),
        },
        _ if ANTHROPIC.contains(&k) => out.put(k, k, v.clone()),
        _ if known_elsewhere(k) => out.drop(k),
        _ => unknown(out, k, v),
    }
}

fn note_other_fields(out: &mut Out, k: &str, v: &Value, kept: &[&str]) {
    if let Value::Object(o) = v {
        for f in o.keys().filter(|f| !kept.contains(&f.as_str())) {
            out.note(&format!("{k}.{f}"), format!("`{k}.{f}` has no {} equivalent; left out", out.to.label()));
        }
    }
}

/// Responses' `text` → Chat's `response_format` and `verbosity`.
fn text_to_chat(out: &mut Out, v: &Value) {
    let Value::Object(o) = v else {
        out.drop("text");
        return;
    };
    for (f, x) in o {
        match f.as_str() {
            "format" => match text_format_to_chat(x) {
                Some(rf) => out.put("text.format", "response_format", rf),
                None => out.note("text.format", "`text.format` is not an object with a `type`; left out".into()),
            },
            "verbosity" => out.put("text.verbosity", "verbosity", x.clone()),
            _ => out.note(&format!("text.{f}"), format!("`text.{f}` has no OpenAI Chat equivalent; left out")),
        }
    }
}

/// Chat `{"type":"json_schema","json_schema":{…}}` → Responses `{"type":"json_schema",…}`.
fn response_format_to_text(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let ty = o.get("type")?.as_str()?;
    let mut f = Map::new();
    f.insert("type".into(), ty.into());
    for (k, x) in o {
        match (k.as_str(), x) {
            ("type", _) => {}
            ("json_schema", Value::Object(inner)) if ty == "json_schema" => {
                f.extend(inner.iter().map(|(a, b)| (a.clone(), b.clone())));
            }
            _ => {
                f.insert(k.clone(), x.clone());
            }
        }
    }
    Some(Value::Object(f))
}

/// Responses `{"type":"json_schema","name",…}` → Chat `{"type":"json_schema","json_schema":{…}}`.
fn text_format_to_chat(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let ty = o.get("type")?.as_str()?;
    if ty != "json_schema" {
        return Some(v.clone());
    }
    let inner: Map<String, Value> =
        o.iter().filter(|(k, _)| k.as_str() != "type").map(|(a, b)| (a.clone(), b.clone())).collect();
    Some(json!({"type": "json_schema", "json_schema": inner}))
}

/// A tool choice read from any provider's shape.
#[derive(Clone, Debug, PartialEq)]
enum Choice {
    Auto,
    None,
    Required,
    Tool(String),
}

/// The provider whose shape `v` is, when it says (strings are both OpenAI's).
fn choice_shape(v: &Value) -> Option<Provider> {
    let o = v.as_object()?;
    if o.contains_key("function") {
        return Some(Provider::OpenaiChat);
    }
    match o.get("type").and_then(Value::as_str) {
        Some("auto" | "any" | "tool" | "none") => Some(Provider::Anthropic),
        Some(_) => Some(Provider::OpenaiResponses),
        None => None,
    }
}

fn read_choice(v: &Value) -> Option<Choice> {
    match v {
        Value::String(s) => match s.as_str() {
            "auto" => Some(Choice::Auto),
            "none" => Some(Choice::None),
            "required" => Some(Choice::Required),
            _ => None,
        },
        Value::Object(o) => {
            let name = o
                .get("function")
                .and_then(|f| f.get("name"))
                .or_else(|| o.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string);
            match (o.get("type").and_then(Value::as_str)?, name) {
                ("auto", _) => Some(Choice::Auto),
                ("none", _) => Some(Choice::None),
                ("any", _) => Some(Choice::Required),
                ("tool" | "function", Some(n)) => Some(Choice::Tool(n)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn write_choice(c: &Choice, to: Provider) -> Value {
    match (to, c) {
        (Provider::Anthropic, Choice::Auto) => json!({"type": "auto"}),
        (Provider::Anthropic, Choice::None) => json!({"type": "none"}),
        (Provider::Anthropic, Choice::Required) => json!({"type": "any"}),
        (Provider::Anthropic, Choice::Tool(n)) => json!({"type": "tool", "name": n}),
        (_, Choice::Auto) => "auto".into(),
        (_, Choice::None) => "none".into(),
        (_, Choice::Required) => "required".into(),
        (Provider::OpenaiResponses, Choice::Tool(n)) => json!({"type": "function", "name": n}),
        (_, Choice::Tool(n)) => json!({"type": "function", "function": {"name": n}}),
    }
}

/// `tool_choice` in the target's shape: its own shape passes as written;
/// another's is rewritten (Anthropic's `disable_parallel_tool_use` becomes
/// OpenAI's `parallel_tool_calls` unless that is set too).
fn tool_choice(out: &mut Out, v: &Value, params: &Map<String, Value>) {
    let to = out.to;
    let shape = choice_shape(v);
    let native = match to {
        Provider::Anthropic => shape == Some(Provider::Anthropic),
        Provider::OpenaiResponses => v.is_string() || shape == Some(Provider::OpenaiResponses),
        // Chat's own shapes, and OpenAI's other objects (`allowed_tools`, `custom`) as written.
        Provider::OpenaiChat => {
            v.is_string()
                || shape == Some(Provider::OpenaiChat)
                || (shape == Some(Provider::OpenaiResponses) && v.get("type").is_some_and(|t| t != "function"))
        }
        // Written into their own objects by `to_gemini` and `to_bedrock`.
        Provider::Gemini | Provider::Bedrock => false,
    };
    if native {
        out.put("tool_choice", "tool_choice", v.clone());
        return;
    }
    let Some(choice) = read_choice(v) else {
        out.note("tool_choice", format!("this `tool_choice` has no {} equivalent; left out", to.label()));
        return;
    };
    out.put("tool_choice", "tool_choice", write_choice(&choice, to));
    if to != Provider::Anthropic {
        if let Some(d) = v.get("disable_parallel_tool_use").and_then(Value::as_bool) {
            if !params.contains_key("parallel_tool_calls") {
                out.put("tool_choice.disable_parallel_tool_use", "parallel_tool_calls", Value::Bool(!d));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tr(p: Value, to: Provider) -> (Value, Vec<String>) {
        let mut n = Vec::new();
        let out = translate(p.as_object().unwrap(), to, &mut n);
        (Value::Object(out), n.into_iter().map(|n| n.to_string()).collect())
    }

    #[test]
    fn same_provider_passes_through_in_order() {
        let chat = json!({"temperature": 0.2, "max_tokens": 10, "stop": ["x"], "tool_choice": "required", "seed": 7, "response_format": {"type": "json_object"}});
        let (out, n) = tr(chat.clone(), Provider::OpenaiChat);
        assert_eq!(serde_json::to_string(&out).unwrap(), serde_json::to_string(&chat).unwrap());
        assert!(n.is_empty(), "{n:?}");
        let anth = json!({"max_tokens": 5, "stop_sequences": ["a"], "tool_choice": {"type": "tool", "name": "f", "disable_parallel_tool_use": true}, "top_k": 3, "thinking": {"type": "enabled", "budget_tokens": 2048}});
        let (out, n) = tr(anth.clone(), Provider::Anthropic);
        assert_eq!(serde_json::to_string(&out).unwrap(), serde_json::to_string(&anth).unwrap());
        assert!(n.is_empty(), "{n:?}");
        let resp = json!({"max_output_tokens": 5, "text": {"format": {"type": "json_schema", "name": "x", "schema": {}}}, "reasoning": {"effort": "low"}, "tool_choice": {"type": "function", "name": "f"}});
        let (out, n) = tr(resp.clone(), Provider::OpenaiResponses);
        assert_eq!(serde_json::to_string(&out).unwrap(), serde_json::to_string(&resp).unwrap());
        assert!(n.is_empty(), "{n:?}");
    }

    #[test]
    fn max_tokens_in_each_spelling() {
        for (from, chat, resp, anth) in [
            ("max_tokens", "max_tokens", "max_output_tokens", "max_tokens"),
            ("max_completion_tokens", "max_completion_tokens", "max_output_tokens", "max_tokens"),
            ("max_output_tokens", "max_completion_tokens", "max_output_tokens", "max_tokens"),
        ] {
            let p = json!({ from: 99 });
            assert_eq!(tr(p.clone(), Provider::OpenaiChat).0, json!({ chat: 99 }));
            assert_eq!(tr(p.clone(), Provider::OpenaiResponses).0, json!({ resp: 99 }));
            assert_eq!(tr(p, Provider::Anthropic).0, json!({ anth: 99 }));
        }
        // Two spellings of one limit: the first wins, the second is a notice.
        let (out, n) = tr(json!({"max_completion_tokens": 1, "max_tokens": 2}), Provider::Anthropic);
        assert_eq!(out, json!({"max_tokens": 1}));
        assert_eq!(n.len(), 1, "{n:?}");
    }

    #[test]
    fn stop_and_stop_sequences() {
        assert_eq!(tr(json!({"stop": "END"}), Provider::Anthropic).0, json!({"stop_sequences": ["END"]}));
        assert_eq!(tr(json!({"stop": ["a", "b"]}), Provider::Anthropic).0, json!({"stop_sequences": ["a", "b"]}));
        assert_eq!(tr(json!({"stop_sequences": ["a"]}), Provider::OpenaiChat).0, json!({"stop": ["a"]}));
        let (out, n) = tr(json!({"stop": ["a"]}), Provider::OpenaiResponses);
        assert_eq!(out, json!({}));
        assert_eq!(
            n,
            ["params.stop: `stop` has no OpenAI Responses equivalent; left out of the OpenAI Responses request"]
        );
    }

    #[test]
    fn tool_choice_shapes() {
        let cases = [
            (json!("auto"), json!("auto"), json!("auto"), json!({"type": "auto"})),
            (json!("none"), json!("none"), json!("none"), json!({"type": "none"})),
            (json!("required"), json!("required"), json!("required"), json!({"type": "any"})),
            (
                json!({"type": "function", "function": {"name": "f"}}),
                json!({"type": "function", "function": {"name": "f"}}),
                json!({"type": "function", "name": "f"}),
                json!({"type": "tool", "name": "f"}),
            ),
        ];
        for (chat, chat_out, resp_out, anth_out) in cases {
            assert_eq!(tr(json!({"tool_choice": chat.clone()}), Provider::OpenaiChat).0["tool_choice"], chat_out);
            assert_eq!(tr(json!({"tool_choice": chat.clone()}), Provider::OpenaiResponses).0["tool_choice"], resp_out);
            assert_eq!(tr(json!({"tool_choice": chat}), Provider::Anthropic).0["tool_choice"], anth_out.clone());
            // And back from each target's shape.
            assert_eq!(tr(json!({"tool_choice": anth_out.clone()}), Provider::OpenaiChat).0["tool_choice"], chat_out);
            assert_eq!(tr(json!({"tool_choice": resp_out.clone()}), Provider::OpenaiChat).0["tool_choice"], chat_out);
            assert_eq!(tr(json!({"tool_choice": resp_out}), Provider::Anthropic).0["tool_choice"], anth_out);
        }
    }

    #[test]
    fn parallel_tool_calls_and_disable_parallel_tool_use() {
        let (out, _) = tr(json!({"parallel_tool_calls": false}), Provider::Anthropic);
        assert_eq!(
            serde_json::to_string(&out).unwrap(),
            r#"{"tool_choice":{"type":"auto","disable_parallel_tool_use":true}}"#
        );
        let (out, _) = tr(json!({"tool_choice": "required", "parallel_tool_calls": false}), Provider::Anthropic);
        assert_eq!(out, json!({"tool_choice": {"type": "any", "disable_parallel_tool_use": true}}));
        let (out, _) =
            tr(json!({"tool_choice": {"type": "any", "disable_parallel_tool_use": true}}), Provider::OpenaiChat);
        assert_eq!(serde_json::to_string(&out).unwrap(), r#"{"tool_choice":"required","parallel_tool_calls":false}"#);
        // Idempotent: the translated form translates to itself.
        let (again, _) = tr(out.clone(), Provider::OpenaiChat);
        assert_eq!(serde_json::to_string(&again).unwrap(), serde_json::to_string(&out).unwrap());
    }

    #[test]
    fn response_format_and_text_format() {
        let rf =
            json!({"type": "json_schema", "json_schema": {"name": "r", "schema": {"type": "object"}, "strict": true}});
        let (resp, _) = tr(json!({"response_format": rf.clone(), "verbosity": "low"}), Provider::OpenaiResponses);
        assert_eq!(
            resp,
            json!({"text": {"format": {"type": "json_schema", "name": "r", "schema": {"type": "object"}, "strict": true}, "verbosity": "low"}})
        );
        let (back, n) = tr(resp, Provider::OpenaiChat);
        assert_eq!(back, json!({"response_format": rf, "verbosity": "low"}));
        assert!(n.is_empty());
        let (out, n) = tr(json!({"response_format": {"type": "json_object"}}), Provider::Anthropic);
        assert_eq!(out, json!({}));
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn user_metadata_and_reasoning() {
        let (out, n) = tr(json!({"user": "u1", "metadata": {"user_id": "x", "team": "t"}}), Provider::Anthropic);
        assert_eq!(out, json!({"metadata": {"user_id": "u1"}}));
        assert_eq!(n.len(), 2, "{n:?}");
        assert_eq!(
            tr(json!({"reasoning_effort": "high"}), Provider::OpenaiResponses).0,
            json!({"reasoning": {"effort": "high"}})
        );
        assert_eq!(
            tr(json!({"reasoning": {"effort": "high"}}), Provider::OpenaiChat).0,
            json!({"reasoning_effort": "high"})
        );
    }

    #[test]
    fn reserved_and_unknown_keys() {
        let (out, n) = tr(json!({"messages": [], "temperature": 1, "brand_new": 1}), Provider::OpenaiChat);
        assert_eq!(out, json!({"temperature": 1, "brand_new": 1}));
        assert_eq!(n.len(), 2, "{n:?}");
        assert!(n[0].starts_with("params.messages: "));
        assert!(n[1].contains("passed through"));
        let (out, n) = tr(json!({"temperature": 1.5, "seed": 3, "top_k": 2}), Provider::Anthropic);
        assert_eq!(out, json!({"temperature": 1.5, "top_k": 2}));
        assert_eq!(n.len(), 2, "{n:?}");
    }
}
