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

/// A field an output schema requires: its name and the JSON Pointer (RFC
/// 6901) of its property in the schema (`/properties/findings/items/properties/severity`;
/// `/required/2` when the schema requires a name it declares no property for).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequiredField {
    pub name: String,
    pub pointer: String,
}

/// How deep [`required_fields`] walks (nested schemas and `$ref`s together).
pub const MAX_DEPTH: usize = 32;
/// At most this many fields are listed (a hostile schema cannot flood a report).
pub const MAX_FIELDS: usize = 1000;

/// Every field the schema requires, at any depth the model must produce it:
/// the `required` names of the root object, then, for each required
/// property, its own required fields (an object's, an array's `items`'
/// or `prefixItems`', through local `$ref`s `#/…` and `allOf`), in the
/// schema's order. A property that is not required is not walked into (what
/// it requires is only required when the model chooses to write it);
/// `anyOf` / `oneOf` branches are not either (no one branch is required).
/// Bounded by [`MAX_DEPTH`] and [`MAX_FIELDS`]; a `$ref` that leaves the
/// document or points nowhere is skipped; never panics.
pub fn required_fields(schema: &Value) -> Vec<RequiredField> {
    let mut out = Vec::new();
    let mut refs = Vec::new();
    walk(schema, schema, String::new(), 0, &mut refs, &mut out);
    out
}

fn escape(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn walk<'a>(
    root: &'a Value,
    node: &'a Value,
    at: String,
    depth: usize,
    refs: &mut Vec<&'a str>,
    out: &mut Vec<RequiredField>,
) {
    if depth > MAX_DEPTH || out.len() >= MAX_FIELDS {
        return;
    }
    let Some(o) = node.as_object() else { return };
    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
        // A local reference (`#/$defs/Finding`); one already being walked
        // (a recursive schema) is not walked again.
        if let Some(p) = r.strip_prefix('#') {
            if !refs.contains(&r) {
                if let Some(target) = root.pointer(p) {
                    refs.push(r);
                    walk(root, target, p.to_string(), depth + 1, refs, out);
                    refs.pop();
                }
            }
        }
    }
    if let Some(all) = o.get("allOf").and_then(Value::as_array) {
        for (i, s) in all.iter().enumerate() {
            walk(root, s, format!("{at}/allOf/{i}"), depth + 1, refs, out);
        }
    }
    let props = o.get("properties").and_then(Value::as_object);
    if let Some(required) = o.get("required").and_then(Value::as_array) {
        for (i, name) in required.iter().enumerate() {
            let Some(name) = name.as_str() else { continue };
            if out.len() >= MAX_FIELDS {
                return;
            }
            match props.and_then(|p| p.get(name)) {
                Some(prop) => {
                    let pointer = format!("{at}/properties/{}", escape(name));
                    // Reached again (a `$ref` to a schema already listed): listed once.
                    if out.iter().any(|f| f.pointer == pointer) {
                        continue;
                    }
                    out.push(RequiredField { name: name.to_string(), pointer: pointer.clone() });
                    walk(root, prop, pointer, depth + 1, refs, out);
                }
                None => out.push(RequiredField { name: name.to_string(), pointer: format!("{at}/required/{i}") }),
            }
        }
    }
    match o.get("items") {
        Some(items @ Value::Object(_)) => walk(root, items, format!("{at}/items"), depth + 1, refs, out),
        // Draft 4–2019 tuple form.
        Some(Value::Array(list)) => {
            for (i, s) in list.iter().enumerate() {
                walk(root, s, format!("{at}/items/{i}"), depth + 1, refs, out);
            }
        }
        _ => {}
    }
    if let Some(list) = o.get("prefixItems").and_then(Value::as_array) {
        for (i, s) in list.iter().enumerate() {
            walk(root, s, format!("{at}/prefixItems/{i}"), depth + 1, refs, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::parse::parse;

    fn env(params: Value, source: Option<&str>) -> Envelope {
        let mut doc = json!({"version": "1.0", "params": params, "messages": []});
        if let Some(s) = source {
            doc["source"] = s.into();
        }
        parse(&doc.to_string()).unwrap().envelope
    }

    #[test]
    fn each_providers_setting_is_found() {
        let s = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
        let chat = env(
            json!({"response_format": {"type": "json_schema", "json_schema": {"name": "r", "schema": s, "strict": true}}}),
            None,
        );
        let f = find(&chat).unwrap();
        assert_eq!(
            (f.schema.clone(), f.name.as_deref(), f.strict, f.at.as_str()),
            (s.clone(), Some("r"), Some(true), "params.response_format.json_schema.schema")
        );
        let resp =
            env(json!({"text": {"format": {"type": "json_schema", "name": "n", "schema": s, "strict": false}}}), None);
        let f = find(&resp).unwrap();
        assert_eq!((f.name.as_deref(), f.strict, f.at.as_str()), (Some("n"), Some(false), "params.text.format.schema"));
        let anth =
            env(json!({"output_config": {"effort": "low", "format": {"type": "json_schema", "schema": s}}}), None);
        assert_eq!(find(&anth).unwrap().at, "params.output_config.format.schema");
        let beta = env(json!({"output_format": {"type": "json_schema", "schema": s}}), None);
        assert_eq!(find(&beta).unwrap().at, "params.output_format.schema");
        let gem = env(json!({"generation_config": {"response_schema": {"type": "OBJECT"}}}), None);
        let f = find(&gem).unwrap();
        assert!(f.openapi());
        assert_eq!(f.at, "params.generation_config.response_schema");
        let bed = env(
            json!({"outputConfig": {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {"schema": s.to_string(), "name": "p"}}}}}),
            None,
        );
        let f = find(&bed).unwrap();
        assert_eq!((f.schema.clone(), f.name.as_deref()), (s, Some("p")));
    }

    #[test]
    fn settings_without_a_schema_are_none() {
        for p in [
            json!({"response_format": {"type": "json_object"}}),
            json!({"response_format": {"type": "json_schema"}}),
            json!({"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": "not a schema"}}}),
            json!({"text": {"format": {"type": "text"}}}),
            json!({"text": "json_schema"}),
            json!({"generationConfig": {"responseMimeType": "application/json"}}),
            json!({"outputConfig": {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {"schema": "{not json"}}}}}),
            json!({"output_config": {"format": {"type": "json_schema", "schema": 7}}}),
            json!({}),
        ] {
            assert_eq!(find(&env(p.clone(), None)), None, "{p}");
        }
        assert_eq!(find(&env(Value::Null, None)), None);
    }

    #[test]
    fn the_source_format_is_looked_at_first() {
        let p = json!({
            "response_format": {"type": "json_schema", "json_schema": {"name": "chat", "schema": {}}},
            "text": {"format": {"type": "json_schema", "name": "resp", "schema": {}}}
        });
        assert_eq!(find(&env(p.clone(), None)).unwrap().name.as_deref(), Some("chat"));
        assert_eq!(find(&env(p, Some("responses"))).unwrap().name.as_deref(), Some("resp"));
    }

    #[test]
    fn required_fields_are_walked_through_items_refs_and_all_of() {
        let s = json!({
            "type": "object",
            "properties": {
                "summary": {"type": "string"},
                "findings": {"type": "array", "items": {"$ref": "#/$defs/Finding"}},
                "optional": {"type": "object", "properties": {"deep": {}}, "required": ["deep"]},
                "a/b": {"type": "string"}
            },
            "required": ["summary", "findings", "a/b", "ghost"],
            "$defs": {
                "Finding": {
                    "allOf": [{"required": ["id"], "properties": {"id": {}}}],
                    "properties": {"severity": {}, "next": {"$ref": "#/$defs/Finding"}},
                    "required": ["severity", "next"]
                }
            }
        });
        let got: Vec<(String, String)> = required_fields(&s).into_iter().map(|f| (f.name, f.pointer)).collect();
        let want = [
            ("summary", "/properties/summary"),
            ("findings", "/properties/findings"),
            ("id", "/$defs/Finding/allOf/0/properties/id"),
            ("severity", "/$defs/Finding/properties/severity"),
            ("next", "/$defs/Finding/properties/next"),
            ("a/b", "/properties/a~1b"),
            ("ghost", "/required/3"),
        ];
        assert_eq!(got, want.map(|(a, b)| (a.to_string(), b.to_string())));
    }

    #[test]
    fn hostile_schemas_are_bounded() {
        // A self-referencing schema and a very deep one end; a huge `required` is capped.
        let s = json!({"$ref": "#", "required": ["a"], "properties": {"a": {"$ref": "#"}}});
        assert_eq!(required_fields(&s).len(), 1);
        let mut deep = json!({"required": ["x"], "properties": {"x": {}}});
        for _ in 0..100 {
            deep = json!({"required": ["x"], "properties": {"x": deep}});
        }
        assert_eq!(required_fields(&deep).len(), MAX_DEPTH + 1);
        let names: Vec<String> = (0..5000).map(|i| format!("f{i}")).collect();
        assert_eq!(required_fields(&json!({"required": names})).len(), MAX_FIELDS);
        assert!(required_fields(&json!({"$ref": "https://example.com/s.json"})).is_empty());
        assert!(required_fields(&json!({"$ref": "#/nowhere", "required": [1, null]})).is_empty());
    }
}
