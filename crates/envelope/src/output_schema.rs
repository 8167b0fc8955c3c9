//! The output schema a document asks the model to follow: the JSON Schema
//! of a request's structured-output setting, read from the envelope's
//! `params` as the provider spells it (an imported request keeps its
//! settings verbatim, docs/EXTENSIONS.md).
//!
//! | provider | setting | schema at |
//! |---|---|---|
//! | OpenAI Chat | `response_format: {type: "json_schema", json_schema: {name, schema, strict}}` | `params.response_format.json_schema.schema` |
//! | OpenAI Responses | `text.format: {type: "json_schema", name, schema, strict}` | `params.text.format.schema` |
//! | Anthropic | `output_config.format: {type: "json_schema", schema}`; the older beta `output_format` | `params.output_config.format.schema`, `params.output_format.schema` |
//! | Gemini | `generationConfig.responseJsonSchema`, else `responseSchema` (both spellings of each) | `params.generationConfig.responseJsonSchema` … |
//! | Bedrock Converse | `outputConfig.textFormat: {type: "json_schema", structure: {jsonSchema: {schema, name}}}`, the schema a JSON *string* | `params.outputConfig.textFormat.structure.jsonSchema.schema` |
//!
//! Gemini's `responseSchema` is Google's OpenAPI 3.0 subset (`"type":
//! "OBJECT"`, `nullable`, `propertyOrdering`), not JSON Schema: it is returned
//! as written; [`OutputSchema::openapi`] says so. A setting without a schema
//! (`{"type": "json_object"}`, `{"type": "text"}`, `responseMimeType` alone)
//! is no output schema. A Bedrock schema string that is not JSON is none either.
//!
//! Always built, no dependencies: the app reads it too.

use serde_json::{Map, Value};

use crate::types::{Envelope, RequestFormat};

/// A document's output schema and where it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSchema {
    /// The schema, as written (a Bedrock schema string parsed).
    pub schema: Value,
    /// The schema's name, where the setting gives one (`json_schema.name`).
    pub name: Option<String>,
    /// The setting's `strict`, where it gives one.
    pub strict: Option<bool>,
    /// Where the schema is, as a dotted path from the envelope
    /// (`params.response_format.json_schema.schema`).
    pub at: String,
}

impl OutputSchema {
    /// Whether the schema is Gemini's OpenAPI subset (`responseSchema`)
    /// rather than JSON Schema.
    pub fn openapi(&self) -> bool {
        self.at.ends_with(".responseSchema") || self.at.ends_with(".response_schema")
    }
}

/// The output schema the envelope's settings ask for, if any. With a
/// `source`, that format's setting is looked at first; then every format's,
/// in the order of the table above (a hand-written envelope may carry any).
pub fn find(env: &Envelope) -> Option<OutputSchema> {
    let params = env.params.as_ref()?;
    let first = env.source;
    let order = first.into_iter().chain(RequestFormat::ALL.into_iter().filter(|f| Some(*f) != first));
    for format in order {
        if let Some(found) = of_format(params, format) {
            return Some(found);
        }
    }
    None
}

fn of_format(params: &Map<String, Value>, format: RequestFormat) -> Option<OutputSchema> {
    match format {
        RequestFormat::Openai => chat(params),
        RequestFormat::Responses => responses(params),
        RequestFormat::Anthropic => anthropic(params),
        RequestFormat::Gemini => gemini(params),
        RequestFormat::Bedrock => bedrock(params),
    }
}

fn is_json_schema(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("json_schema")
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A schema is an object or a boolean (JSON Schema allows `true`); anything
/// else is not one.
fn schema_value(v: Option<&Value>) -> Option<Value> {
    v.filter(|s| s.is_object() || s.is_boolean()).cloned()
}

fn chat(params: &Map<String, Value>) -> Option<OutputSchema> {
    let rf = params.get("response_format").filter(|v| is_json_schema(v))?;
    let inner = rf.get("json_schema")?;
    Some(OutputSchema {
        schema: schema_value(inner.get("schema"))?,
        name: string(inner, "name"),
        strict: inner.get("strict").and_then(Value::as_bool),
        at: "params.response_format.json_schema.schema".into(),
    })
}

fn responses(params: &Map<String, Value>) -> Option<OutputSchema> {
    let format = params.get("text")?.get("format").filter(|v| is_json_schema(v))?;
    Some(OutputSchema {
        schema: schema_value(format.get("schema"))?,
        name: string(format, "name"),
        strict: format.get("strict").and_then(Value::as_bool),
        at: "params.text.format.schema".into(),
    })
}

fn anthropic(params: &Map<String, Value>) -> Option<OutputSchema> {
    let (format, at) = match params.get("output_config").and_then(|c| c.get("format")).filter(|v| is_json_schema(v)) {
        Some(f) => (f, "params.output_config.format.schema"),
        None => (params.get("output_format").filter(|v| is_json_schema(v))?, "params.output_format.schema"),
    };
    Some(OutputSchema { schema: schema_value(format.get("schema"))?, name: None, strict: None, at: at.into() })
}

fn gemini(params: &Map<String, Value>) -> Option<OutputSchema> {
    for config in ["generationConfig", "generation_config"] {
        let Some(c) = params.get(config) else { continue };
        for key in ["responseJsonSchema", "response_json_schema", "responseSchema", "response_schema"] {
            if let Some(schema) = schema_value(c.get(key)) {
                return Some(OutputSchema { schema, name: None, strict: None, at: format!("params.{config}.{key}") });
            }
        }
    }
    None
}

fn bedrock(params: &Map<String, Value>) -> Option<OutputSchema> {
    let tf = params.get("outputConfig")?.get("textFormat").filter(|v| is_json_schema(v))?;
    let js = tf.get("structure")?.get("jsonSchema")?;
    let schema = match js.get("schema")? {
        Value::String(s) => serde_json::from_str::<Value>(s).ok(),
        other => Some(other.clone()),
    };
    Some(OutputSchema {
        schema: schema_value(schema.as_ref())?,
        name: string(js, "name"),
        strict: None,
        at: "params.outputConfig.textFormat.structure.jsonSchema.schema".into(),
    })
}
