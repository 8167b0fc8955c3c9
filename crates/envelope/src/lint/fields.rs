//! Every field of a document whose text the model receives, as written (before
//! variable substitution), with its path: what the secrets, sensitive-word
//! and duplicate-text checks read.
//!
//! Sent (§4): text, system prompt and long text content; memory titles and
//! contents; skill names, descriptions and loaded bodies; tool names,
//! descriptions and the strings of their schemas; tool-call names and the
//! strings of their arguments; tool results; a document's file name, MIME
//! type and parsed content (or snippet); media URLs, and alt text except for
//! a user message's image (which is sent as an image part); the value of a
//! `static_var` once per placeholder that uses it. Not sent: ids, `collapsed`,
//! descriptions of segments and variables, a tool's `parameters` summary.

use std::collections::HashMap;

use serde_json::Value;

use crate::template::placeholders;
use crate::types::*;

/// One sent field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field<'a> {
    pub message: usize,
    pub segment: usize,
    /// Path below the segment (`content`, `items[2].description`, `arguments.query`).
    pub field: String,
    pub text: &'a str,
    /// How many times it is sent (a variable's value: once per use).
    pub times: usize,
}

impl Field<'_> {
    /// The full diagnostic path.
    pub fn path(&self) -> String {
        format!("messages[{}].segments[{}].{}", self.message, self.segment, self.field)
    }
}

/// The strings inside a JSON value (object values and array items), each
/// with its path below `base`.
fn json_strings<'a>(v: &'a Value, base: String, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::String(s) => out.push((base, s)),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                json_strings(x, format!("{base}[{i}]"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                json_strings(x, format!("{base}.{k}"), out);
            }
        }
        _ => {}
    }
}

/// Every sent field of `envelope`, in document order.
pub fn sent(envelope: &Envelope) -> Vec<Field<'_>> {
    let mut out = Vec::new();
    let mut vars: Vec<Field> = Vec::new();
    for (mi, m) in envelope.messages.iter().enumerate() {
        for (sj, s) in m.segments.iter().enumerate() {
            let f = |field: String, text| Field { message: mi, segment: sj, field, text, times: 1 };
            match s {
                Segment::StaticVar(v) => vars.push(f("value".into(), &v.value)),
                Segment::ToolOverview(o) => {
                    for (k, t) in o.items.iter().enumerate() {
                        out.push(f(format!("items[{k}].name"), &t.name));
                        out.push(f(format!("items[{k}].description"), &t.description));
                        if let Some(schema) = &t.schema {
                            let mut strings = Vec::new();
                            json_strings(schema, format!("items[{k}].schema"), &mut strings);
                            out.extend(strings.into_iter().map(|(p, t)| f(p, t)));
                        }
                    }
                }
                Segment::ToolCallRequest(r) => {
                    out.push(f("toolName".into(), &r.tool_name));
                    let mut strings = Vec::new();
                    for (k, v) in &r.arguments {
                        json_strings(v, format!("arguments.{k}"), &mut strings);
                    }
                    out.extend(strings.into_iter().map(|(p, t)| f(p, t)));
                }
                Segment::ToolCallResult(r) => out.push(f("result".into(), &r.result)),
                Segment::Media(md) => {
                    out.push(f("url".into(), &md.url));
                    let user_image = md.media_type == MediaType::Image && m.role == Role::User;
                    if let (Some(alt), false) = (&md.alt_text, user_image) {
                        out.push(f("altText".into(), alt));
                    }
                }
                Segment::Document(d) => {
                    out.push(f("fileName".into(), &d.file_name));
                    text_fields(s, &mut |field, text| out.push(f(field, text)));
                }
                _ => text_fields(s, &mut |field, text| out.push(f(field, text))),
            }
        }
    }
    // A variable's value is sent once per placeholder that uses it.
    let mut used: HashMap<&str, usize> = HashMap::new();
    for fld in &out {
        for p in placeholders(fld.text) {
            *used.entry(p.name).or_default() += 1;
        }
    }
    let mut seen = std::collections::HashSet::new();
    for mut v in vars {
        let Segment::StaticVar(sv) = &envelope.messages[v.message].segments[v.segment] else { continue };
        // The first definition of a name is the one substituted.
        if seen.insert(sv.name.as_str()) {
            if let Some(&n) = used.get(sv.name.as_str()) {
                v.times = n;
                out.push(v);
            }
        }
    }
    out.sort_by_key(|f| (f.message, f.segment));
    out
}

/// The substituted text fields of a segment (§4), borrowed from it: the
/// list `template::for_each_text_field` walks (a test keeps them equal; that
/// function lends its texts for one call only).
fn text_fields<'a>(s: &'a Segment, f: &mut impl FnMut(String, &'a str)) {
    match s {
        Segment::Text(t) => f("content".into(), &t.content),
        Segment::SystemPrompt(t) => f("content".into(), &t.content),
        Segment::LongText(t) => f("content".into(), &t.content),
        Segment::Memory(m) => {
            for (k, it) in m.items.iter().enumerate() {
                f(format!("items[{k}].title"), &it.title);
                f(format!("items[{k}].content"), &it.content);
            }
        }
        Segment::Skills(sk) => {
            for (k, it) in sk.items.iter().enumerate() {
                f(format!("items[{k}].name"), &it.name);
                f(format!("items[{k}].description"), &it.description);
                if let (true, Some(body)) = (it.is_loaded(), &it.body) {
                    f(format!("items[{k}].body"), body);
                }
            }
        }
        Segment::Document(d) => {
            f("mimeType".into(), &d.mime_type);
            match &d.parsed_content {
                Some(p) if !p.is_empty() => f("parsedContent".into(), p),
                _ => f("snippet".into(), &d.snippet),
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_sent_and_how_often() {
        let e = crate::parse(
            r#"{"version":"1.0","messages":[
            {"id":"s","role":"system","timestamp":0,"segments":[
                {"kind":"system_prompt","content":"Hi {{a}} and {{a}}","collapsed":false},
                {"kind":"static_var","name":"a","value":"VAL","description":"not sent"},
                {"kind":"static_var","name":"unused","value":"x"},
                {"kind":"tool_overview","collapsed":true,"items":[{"name":"f","description":"d","parameters":"p: not sent",
                  "schema":{"type":"object","properties":{"q":{"type":"string","description":"qd"}}}}]}]},
            {"id":"u","role":"user","timestamp":0,"segments":[
                {"kind":"media","mediaType":"image","url":"https://x/i.png","altText":"not sent"},
                {"kind":"document","fileName":"a.txt","mimeType":"text/plain","snippet":"not sent","sizeBytes":1,"parsedContent":"pc"}]},
            {"id":"a","role":"assistant","timestamp":0,"segments":[
                {"kind":"tool_call_request","toolName":"f","arguments":{"q":"arg","n":[1,"two"]},"collapsed":false}]},
            {"id":"t","role":"tool","timestamp":0,"segments":[
                {"kind":"tool_call_result","toolName":"f","result":"res","success":true,"collapsed":true}]}]}"#,
        )
        .unwrap()
        .envelope;
        let got: Vec<(String, &str, usize)> = sent(&e).into_iter().map(|f| (f.path(), f.text, f.times)).collect();
        let want = [
            ("messages[0].segments[0].content", "Hi {{a}} and {{a}}", 1),
            ("messages[0].segments[1].value", "VAL", 2),
            ("messages[0].segments[3].items[0].name", "f", 1),
            ("messages[0].segments[3].items[0].description", "d", 1),
            ("messages[0].segments[3].items[0].schema.type", "object", 1),
            ("messages[0].segments[3].items[0].schema.properties.q.type", "string", 1),
            ("messages[0].segments[3].items[0].schema.properties.q.description", "qd", 1),
            ("messages[1].segments[0].url", "https://x/i.png", 1),
            ("messages[1].segments[1].fileName", "a.txt", 1),
            ("messages[1].segments[1].mimeType", "text/plain", 1),
            ("messages[1].segments[1].parsedContent", "pc", 1),
            ("messages[2].segments[0].toolName", "f", 1),
            ("messages[2].segments[0].arguments.q", "arg", 1),
            ("messages[2].segments[0].arguments.n[1]", "two", 1),
            ("messages[3].segments[0].result", "res", 1),
        ];
        let want: Vec<(String, &str, usize)> = want.iter().map(|(p, t, n)| (p.to_string(), *t, *n)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn text_fields_are_the_substituted_fields() {
        let e = crate::parse(include_str!("../../../../demos/c.json")).unwrap().envelope;
        for m in &e.messages {
            for s in &m.segments {
                let mut a = Vec::new();
                crate::template::for_each_text_field(s, |f, t| a.push((f.to_string(), t.to_string())));
                let mut b = Vec::new();
                text_fields(s, &mut |f, t| b.push((f, t.to_string())));
                if !matches!(s, Segment::ToolOverview(_) | Segment::Media(_)) {
                    assert_eq!(a, b);
                }
            }
        }
    }
}
