//! SKILL.md files (the Agent Skills format): YAML front matter, then a Markdown body.
//!
//! ```text
//! ---
//! name: pdf-tools
//! description: Extract text and tables from PDF files. Use when …
//! license: Apache-2.0
//! allowed-tools: Read Grep
//! metadata:
//!   author: someone
//! ---
//!
//! # PDF tools
//! …
//! ```
//!
//! Decisions where the format leaves room:
//!
//! - **Front matter** is recognised only when the very first line (after an optional
//!   UTF-8 byte order mark) is `---`; it ends at the next line that is `---`. Trailing
//!   spaces, tabs and a `\r` are allowed on both delimiter lines. A `...` line does not
//!   close it. A file without front matter is accepted with the warning "no YAML front
//!   matter" (all fields `None`); an opening `---` that is never closed is an error.
//! - **Body**: everything after the closing delimiter line, with leading blank
//!   (white-space-only) lines removed and trailing white space trimmed. Nothing else is
//!   changed: indentation of the first line, `\r\n` line endings and inner blank lines
//!   stay as written. Without front matter the whole text is the body, trimmed the same way.
//! - **YAML** is parsed with yaml-rust2 (YAML 1.2 core schema). Syntax errors, duplicate
//!   keys and front matter that is not a mapping are errors whose path is `line N` or
//!   `line N column C`, counted in the *file* (1-based). Nesting deeper than
//!   [`MAX_DEPTH`] levels or aliases expanding to more than [`MAX_NODES`] nodes are errors
//!   too (protection against stack exhaustion and "billion laughs"). An empty front matter
//!   (or only comments) is an empty mapping.
//! - **`name`, `description`, `license`, `compatibility`** must be strings. A number or a
//!   boolean (`name: 2024`, `license: true`) is accepted with a warning and kept in its
//!   YAML string form (integers are written in decimal, so `0x10` becomes `16`; floats
//!   keep their spelling). A null value (`name:` with nothing after it) counts as absent,
//!   with a warning saying the key has no value. A list or mapping is an error.
//! - **`allowed-tools`** is kept as written: a string stays [`AllowedTools::Text`] (not
//!   split), a list becomes [`AllowedTools::List`]. Numbers/booleans are converted with a
//!   warning as above; nested lists or mappings are errors.
//! - **`metadata`** must be a mapping (else an error); it becomes a JSON object in the
//!   file's key order. Values convert naturally (strings, integers, floats — non-finite
//!   floats such as `.inf` stay strings —, booleans, null, lists, mappings). Scalar keys
//!   are turned into their string form; list or mapping keys are errors.
//! - **`compatibility`** is checked (a string of 1–500 characters) but not stored: the
//!   [`Skill`] JSON has exactly the keys name, description, license, allowedTools,
//!   metadata and body.
//! - **Unknown keys** (anything but name, description, license, allowed-tools, metadata,
//!   compatibility; keys are case-sensitive) are warnings naming the key.
//! - **Agent Skills rules** are warnings: missing `name`/`description`, a name that breaks
//!   [`skill_name_problem`], a name that differs from the folder, a description that breaks
//!   [`skill_description_problem`]. Warning paths are the key (`name`, `description`,
//!   `metadata.owner`…).
//! - On error, the `Err` holds every diagnostic found (errors and warnings, in order).

use serde_json::{Map, Value};
use yaml_rust2::parser::Parser;
use yaml_rust2::scanner::Marker;
use yaml_rust2::{Event, ScanError, Yaml, YamlLoader};

use crate::diag::{Diagnostic, Rule};

/// Deepest nesting of YAML lists and mappings accepted in front matter.
pub const MAX_DEPTH: usize = 64;
/// Most YAML nodes (after alias expansion) accepted in front matter.
pub const MAX_NODES: usize = 100_000;

/// A parsed SKILL.md.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Skill {
    pub name: Option<String>,
    pub description: Option<String>,
    pub license: Option<String>,
    /// `allowed-tools`, kept as written: a string stays a string, a list a list.
    #[serde(rename = "allowedTools")]
    pub allowed_tools: Option<AllowedTools>,
    pub metadata: Option<Map<String, Value>>,
    /// The Markdown body (see the module documentation for how it is trimmed).
    pub body: String,
}

/// The `allowed-tools` field as written.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum AllowedTools {
    /// `allowed-tools: Read Grep Bash(git:*)`
    Text(String),
    /// `allowed-tools: [Read, Grep]`
    List(Vec<String>),
}

/// The keys the Agent Skills specification allows at the top level.
const KNOWN_KEYS: &[&str] = &["name", "description", "license", "allowed-tools", "metadata", "compatibility"];

/// Parses a SKILL.md given as bytes: invalid UTF-8 is replaced by U+FFFD, with a warning.
pub fn parse_skill_bytes(bytes: &[u8], folder: Option<&str>) -> Result<(Skill, Vec<Diagnostic>), Vec<Diagnostic>> {
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_skill(text, folder),
        Err(_) => {
            let text = String::from_utf8_lossy(bytes);
            let warning =
                Diagnostic::new(Rule::SkillUtf8, "", "the file is not valid UTF-8; invalid bytes were replaced");
            match parse_skill(&text, folder) {
                Ok((skill, mut diags)) => {
                    diags.insert(0, warning);
                    Ok((skill, diags))
                }
                Err(mut diags) => {
                    diags.insert(0, warning);
                    Err(diags)
                }
            }
        }
    }
}

/// Parses a SKILL.md. `folder`: the name of the directory holding it, if known (the
/// Agent Skills rule says `name` must equal it).
///
/// `Ok` carries the skill and its warnings; `Err` every diagnostic, at least one an error.
pub fn parse_skill(text: &str, folder: Option<&str>) -> Result<(Skill, Vec<Diagnostic>), Vec<Diagnostic>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (yaml, body) = match split_front_matter(text) {
        Split::None => {
            let skill = Skill {
                name: None,
                description: None,
                license: None,
                allowed_tools: None,
                metadata: None,
                body: trim_body(text).to_owned(),
            };
            return Ok((skill, vec![Diagnostic::new(Rule::SkillNoFrontMatter, "", "no YAML front matter")]));
        }
        Split::Unclosed => {
            return Err(vec![Diagnostic::new(
                Rule::SkillFrontMatter,
                "line 1",
                "front matter opened by `---` is never closed by a `---` line",
            )]);
        }
        Split::Found { yaml, body } => (yaml, body),
    };
    // The YAML starts on the file's second line.
    let root = load_yaml(yaml, 1).map_err(|d| vec![d])?;
    let mut b = Builder { diags: Vec::new(), errors: 0 };
    let skill = b.skill(&root, trim_body(body), folder);
    if b.errors > 0 {
        Err(b.diags)
    } else {
        Ok((skill, b.diags))
    }
}

/// Agent Skills name rule: 1–64 characters of `a-z 0-9 -`, no leading, trailing or
/// double hyphen. `None` = fine; otherwise what is wrong.
pub fn skill_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("name is empty".into());
    }
    let len = name.chars().count();
    if len > 64 {
        return Some(format!("name has {len} characters; at most 64 are allowed"));
    }
    if let Some(c) = name.chars().find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-')) {
        let hint = if c.is_ascii_uppercase() { " (use lowercase)" } else { "" };
        return Some(format!("name contains {c:?}; only lowercase letters a-z, digits and hyphens are allowed{hint}"));
    }
    if name.starts_with('-') {
        return Some("name starts with a hyphen".into());
    }
    if name.ends_with('-') {
        return Some("name ends with a hyphen".into());
    }
    if name.contains("--") {
        return Some("name contains two hyphens in a row".into());
    }
    None
}

/// `description` must be non-empty (not just white space) and at most 1024 characters
/// (Unicode scalar values). `None` = fine; otherwise what is wrong.
pub fn skill_description_problem(description: &str) -> Option<String> {
    if description.trim().is_empty() {
        return Some("description is empty".into());
    }
    let len = description.chars().count();
    (len > 1024).then(|| format!("description has {len} characters; at most 1024 are allowed"))
}

// ---- front matter ---------------------------------------------------------------------

pub(crate) enum Split<'a> {
    None,
    Unclosed,
    Found { yaml: &'a str, body: &'a str },
}

fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches([' ', '\t', '\r', '\n']) == "---"
}

pub(crate) fn split_front_matter(text: &str) -> Split<'_> {
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else {
        return Split::None;
    };
    if !is_delimiter(first) {
        return Split::None;
    }
    let yaml_start = first.len();
    let mut pos = yaml_start;
    for line in lines {
        if is_delimiter(line) {
            return Split::Found { yaml: &text[yaml_start..pos], body: &text[pos + line.len()..] };
        }
        pos += line.len();
    }
    Split::Unclosed
}

/// Leading blank lines removed, trailing white space trimmed.
fn trim_body(body: &str) -> &str {
    let mut rest = body;
    while let Some(nl) = rest.find('\n') {
        if rest[..nl].trim().is_empty() {
            rest = &rest[nl + 1..];
        } else {
            break;
        }
    }
    rest.trim_end()
}

// ---- YAML -----------------------------------------------------------------------------

/// `line N column C` in the file, for a marker in YAML that starts after `line_offset`
/// lines of the file.
fn file_position(mark: &Marker, line_offset: usize) -> String {
    format!("line {} column {}", mark.line() + line_offset, mark.col() + 1)
}

fn yaml_error(e: &ScanError, line_offset: usize) -> Diagnostic {
    let info = e.info().strip_suffix('.').unwrap_or(e.info());
    Diagnostic::new(Rule::SkillFrontMatter, file_position(e.marker(), line_offset), format!("invalid YAML: {info}"))
}

/// Loads the front matter as one YAML value (an empty document is `Null`).
fn load_yaml(yaml: &str, line_offset: usize) -> Result<Yaml, Diagnostic> {
    guard_size(yaml, line_offset)?;
    let mut docs = YamlLoader::load_from_str(yaml).map_err(|e| yaml_error(&e, line_offset))?;
    if docs.len() > 1 {
        return Err(Diagnostic::new(
            Rule::SkillFrontMatter,
            format!("line {}", line_offset + 1),
            "front matter holds more than one YAML document",
        ));
    }
    Ok(docs.pop().unwrap_or(Yaml::Null))
}

/// Walks the YAML events once without building anything and rejects documents that
/// nest deeper than [`MAX_DEPTH`] or expand (through aliases) to more than
/// [`MAX_NODES`] nodes, before yaml-rust2 builds (and later recursively drops) them.
/// Syntax errors are left to the real load, which reports them.
fn guard_size(yaml: &str, line_offset: usize) -> Result<(), Diagnostic> {
    struct Open {
        anchor: usize,
        nodes_at_start: usize,
        /// Deepest absolute depth reached inside this collection.
        deepest: usize,
    }
    // anchor id → (nodes, height) of the anchored node.
    let mut anchors: std::collections::HashMap<usize, (usize, usize)> = Default::default();
    let mut open: Vec<Open> = Vec::new();
    let mut nodes = 0usize;
    let mut parser = Parser::new_from_str(yaml);
    loop {
        let Ok((event, mark)) = parser.next_token() else {
            return Ok(());
        };
        let too_deep = |mark: &Marker| {
            Diagnostic::new(
                Rule::SkillFrontMatter,
                file_position(mark, line_offset),
                format!("YAML nested deeper than {MAX_DEPTH} levels"),
            )
        };
        match event {
            Event::StreamEnd => return Ok(()),
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                nodes += 1;
                let depth = open.len() + 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep(&mark));
                }
                open.push(Open { anchor, nodes_at_start: nodes, deepest: depth });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(done) = open.pop() else { continue };
                let depth = open.len() + 1;
                if done.anchor > 0 {
                    let size = nodes - done.nodes_at_start + 1;
                    anchors.insert(done.anchor, (size, done.deepest - depth + 1));
                }
                if let Some(parent) = open.last_mut() {
                    parent.deepest = parent.deepest.max(done.deepest);
                }
            }
            Event::Scalar(_, _, anchor, _) => {
                nodes += 1;
                if anchor > 0 {
                    anchors.insert(anchor, (1, 0));
                }
            }
            Event::Alias(id) => {
                let (size, height) = anchors.get(&id).copied().unwrap_or((1, 0));
                nodes = nodes.saturating_add(size);
                let depth = open.len() + height;
                if depth > MAX_DEPTH {
                    return Err(too_deep(&mark));
                }
                if let Some(parent) = open.last_mut() {
                    parent.deepest = parent.deepest.max(depth);
                }
            }
            _ => {}
        }
        if nodes > MAX_NODES {
            return Err(Diagnostic::new(
                Rule::SkillFrontMatter,
                file_position(&mark, line_offset),
                format!("YAML expands to more than {MAX_NODES} values"),
            ));
        }
    }
}

fn kind_of(y: &Yaml) -> &'static str {
    match y {
        Yaml::Array(_) => "a list",
        Yaml::Hash(_) => "a mapping",
        Yaml::Integer(_) | Yaml::Real(_) => "a number",
        Yaml::Boolean(_) => "a boolean",
        Yaml::Null | Yaml::BadValue | Yaml::Alias(_) => "null",
        Yaml::String(_) => "a string",
    }
}

/// The string form of a non-string scalar.
fn scalar_text(y: &Yaml) -> Option<String> {
    match y {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn is_null(y: &Yaml) -> bool {
    matches!(y, Yaml::Null | Yaml::BadValue | Yaml::Alias(_))
}

struct Builder {
    diags: Vec<Diagnostic>,
    errors: usize,
}

impl Builder {
    fn error(&mut self, rule: Rule, path: impl Into<String>, message: impl Into<String>) {
        self.errors += 1;
        self.diags.push(Diagnostic::new(rule, path, message).with_severity(crate::diag::Severity::Error));
    }

    fn warn(&mut self, rule: Rule, path: impl Into<String>, message: impl Into<String>) {
        self.diags.push(Diagnostic::new(rule, path, message).with_severity(crate::diag::Severity::Warning));
    }

    fn skill(&mut self, root: &Yaml, body: &str, folder: Option<&str>) -> Skill {
        let mut skill = Skill {
            name: None,
            description: None,
            license: None,
            allowed_tools: None,
            metadata: None,
            body: body.to_owned(),
        };
        let empty = yaml_rust2::yaml::Hash::new();
        let map = match root {
            Yaml::Hash(map) => map,
            y if is_null(y) => &empty,
            other => {
                let kind = kind_of(other);
                self.error(
                    Rule::SkillFrontMatter,
                    "line 2",
                    format!("front matter must be a YAML mapping, not {kind}"),
                );
                return skill;
            }
        };
        let (mut has_name, mut has_description) = (false, false);
        for (key, value) in map {
            let Some(key) = scalar_text(key) else {
                let kind = kind_of(key);
                self.warn(Rule::SkillUnknownKey, "", format!("unknown key: {kind} used as a key"));
                continue;
            };
            match key.as_str() {
                "name" => {
                    has_name = true;
                    skill.name = self.string_field(&key, value);
                }
                "description" => {
                    has_description = true;
                    skill.description = self.string_field(&key, value);
                }
                "license" => skill.license = self.string_field(&key, value),
                "compatibility" => {
                    if let Some(c) = self.string_field(&key, value) {
                        let len = c.chars().count();
                        if c.trim().is_empty() {
                            self.warn(Rule::SkillFieldValue, &key, "compatibility is empty");
                        } else if len > 500 {
                            self.warn(
                                Rule::SkillFieldValue,
                                &key,
                                format!("compatibility has {len} characters; at most 500 are allowed"),
                            );
                        }
                    }
                }
                "allowed-tools" => skill.allowed_tools = self.allowed_tools(&key, value),
                "metadata" => skill.metadata = self.metadata(&key, value),
                _ => {
                    let known = KNOWN_KEYS.join(", ");
                    self.warn(Rule::SkillUnknownKey, &key, format!("unknown key `{key}` (Agent Skills knows {known})"));
                }
            }
        }
        if !has_name {
            self.warn(Rule::SkillFieldValue, "name", "missing name");
        }
        if let Some(name) = &skill.name {
            if let Some(problem) = skill_name_problem(name) {
                self.warn(Rule::SkillFieldValue, "name", problem);
            }
            if let Some(folder) = folder {
                if name != folder {
                    self.warn(
                        Rule::SkillFieldValue,
                        "name",
                        format!("name `{name}` differs from its folder `{folder}`"),
                    );
                }
            }
        }
        if !has_description {
            self.warn(Rule::SkillFieldValue, "description", "missing description");
        }
        if let Some(problem) = skill.description.as_deref().and_then(skill_description_problem) {
            self.warn(Rule::SkillFieldValue, "description", problem);
        }
        skill
    }

    /// A string field: strings as they are, other scalars converted with a warning,
    /// null absent with a warning, collections an error.
    fn string_field(&mut self, key: &str, value: &Yaml) -> Option<String> {
        match value {
            Yaml::String(s) => Some(s.clone()),
            y if is_null(y) => {
                self.warn(Rule::SkillFieldValue, key, format!("{key} has no value"));
                None
            }
            Yaml::Array(_) | Yaml::Hash(_) => {
                self.error(Rule::SkillFieldType, key, format!("{key} must be a string, not {}", kind_of(value)));
                None
            }
            other => {
                let text = scalar_text(other);
                let kind = kind_of(other);
                self.warn(Rule::SkillFieldType, key, format!("{key} should be a string, not {kind}; read as text"));
                text
            }
        }
    }

    fn allowed_tools(&mut self, key: &str, value: &Yaml) -> Option<AllowedTools> {
        match value {
            Yaml::Array(items) => {
                let mut tools = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let path = format!("{key}[{i}]");
                    match item {
                        Yaml::String(s) => tools.push(s.clone()),
                        Yaml::Integer(_) | Yaml::Real(_) | Yaml::Boolean(_) => {
                            let kind = kind_of(item);
                            self.warn(
                                Rule::SkillFieldType,
                                &path,
                                format!("a tool should be a string, not {kind}; read as text"),
                            );
                            tools.extend(scalar_text(item));
                        }
                        _ => {
                            let kind = kind_of(item);
                            self.error(Rule::SkillFieldType, &path, format!("a tool must be a string, not {kind}"));
                        }
                    }
                }
                Some(AllowedTools::List(tools))
            }
            _ => self.string_field(key, value).map(AllowedTools::Text),
        }
    }

    fn metadata(&mut self, key: &str, value: &Yaml) -> Option<Map<String, Value>> {
        match value {
            Yaml::Hash(_) => match self.json(key, value) {
                Value::Object(map) => Some(map),
                _ => None,
            },
            y if is_null(y) => {
                self.warn(Rule::SkillFieldValue, key, format!("{key} has no value"));
                None
            }
            other => {
                self.error(Rule::SkillFieldType, key, format!("{key} must be a mapping, not {}", kind_of(other)));
                None
            }
        }
    }

    /// YAML → JSON. Depth is bounded by [`guard_size`].
    fn json(&mut self, path: &str, y: &Yaml) -> Value {
        match y {
            Yaml::String(s) => Value::String(s.clone()),
            Yaml::Integer(i) => Value::from(*i),
            Yaml::Real(s) => y
                .as_f64()
                .and_then(serde_json::Number::from_f64)
                .map_or_else(|| Value::String(s.clone()), Value::Number),
            Yaml::Boolean(b) => Value::Bool(*b),
            Yaml::Null | Yaml::BadValue | Yaml::Alias(_) => Value::Null,
            Yaml::Array(items) => {
                Value::Array(items.iter().enumerate().map(|(i, v)| self.json(&format!("{path}[{i}]"), v)).collect())
            }
            Yaml::Hash(map) => {
                let mut out = Map::new();
                for (k, v) in map {
                    let key = match k {
                        Yaml::Null => "null".to_owned(),
                        _ => match scalar_text(k) {
                            Some(key) => key,
                            None => {
                                let kind = kind_of(k);
                                self.error(Rule::SkillFieldType, path, format!("a key must be a string, not {kind}"));
                                continue;
                            }
                        },
                    };
                    let child = format!("{path}.{key}");
                    let value = self.json(&child, v);
                    if out.insert(key, value).is_some() {
                        self.warn(Rule::SkillDuplicateKey, child, "duplicate key; the last value is kept");
                    }
                }
                Value::Object(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Severity;

    fn ok(text: &str) -> (Skill, Vec<Diagnostic>) {
        match parse_skill(text, None) {
            Ok(r) => r,
            Err(e) => panic!("unexpected errors {e:?} for {text:?}"),
        }
    }

    fn err(text: &str) -> Vec<Diagnostic> {
        match parse_skill(text, None) {
            Ok(r) => panic!("expected an error, got {r:?} for {text:?}"),
            Err(e) => {
                assert!(e.iter().any(Diagnostic::is_error), "{e:?}");
                e
            }
        }
    }

    /// A minimal valid front matter plus `extra` lines.
    fn doc(extra: &str) -> String {
        format!("---\nname: my-skill\ndescription: Does things.\n{extra}---\nBody\n")
    }

    fn field(yaml_line: &str) -> (Skill, Vec<Diagnostic>) {
        ok(&format!("---\n{yaml_line}\n---\n"))
    }

    #[test]
    fn minimal_skill() {
        let (s, d) = ok("---\nname: pdf-tools\ndescription: Work with PDFs.\nlicense: MIT\n---\n\n\n# PDF\n\ntext\n\n");
        assert_eq!(s.name.as_deref(), Some("pdf-tools"));
        assert_eq!(s.description.as_deref(), Some("Work with PDFs."));
        assert_eq!(s.license.as_deref(), Some("MIT"));
        assert_eq!(s.allowed_tools, None);
        assert_eq!(s.metadata, None);
        assert_eq!(s.body, "# PDF\n\ntext");
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn scalar_styles() {
        let cases: &[(&str, &str)] = &[
            ("description: plain text: with colon-space? no, # not a comment", ""),
            ("description: plain words", "plain words"),
            ("description: 'single ''quoted'' \\n'", "single 'quoted' \\n"),
            ("description: \"double \\\"quoted\\\"\\nnext \\u00e9 \\t.\"", "double \"quoted\"\nnext é \t."),
            ("description: |\n  line one\n    indented\n  line three\n", "line one\n  indented\nline three\n"),
            ("description: |-\n  line one\n  line two\n\n", "line one\nline two"),
            ("description: >\n  folded\n  lines\n\n  para\n", "folded lines\npara\n"),
            ("description: >-\n  folded\n  lines\n", "folded lines"),
            ("description: plain\n  continued\n  lines", "plain continued lines"),
        ];
        for (yaml, want) in &cases[1..] {
            let (s, _) = field(yaml);
            assert_eq!(s.description.as_deref(), Some(*want), "{yaml}");
        }
        // `key: a: b` is a YAML error (a mapping value where none is allowed).
        let e = err(&format!("---\n{}\n---\n", cases[0].0));
        assert_eq!(e[0].path, "line 2 column 24", "{e:?}");
    }

    #[test]
    fn non_string_scalars_are_read_as_text_with_a_warning() {
        let (s, d) = ok("---\nname: 2024\ndescription: true\nlicense: 1.50\n---\n");
        assert_eq!(s.name.as_deref(), Some("2024"));
        assert_eq!(s.description.as_deref(), Some("true"));
        assert_eq!(s.license.as_deref(), Some("1.50"));
        let paths: Vec<_> = d.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["name", "description", "license"], "{d:?}");
        assert!(d[0].message.contains("should be a string, not a number"), "{d:?}");
    }

    #[test]
    fn null_and_collection_values() {
        let (s, d) = ok("---\nname:\ndescription: ~\n---\n");
        assert_eq!((s.name, s.description), (None, None));
        let msgs: Vec<_> = d.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(msgs, ["name has no value", "description has no value"]);
        let e = err("---\nname: [a, b]\ndescription: {x: 1}\n---\n");
        assert_eq!(e.iter().filter(|d| d.is_error()).count(), 2, "{e:?}");
        assert_eq!(e[0].path, "name");
        assert_eq!(e[0].message, "name must be a string, not a list");
    }

    #[test]
    fn allowed_tools_string_and_list() {
        let (s, d) = ok(&doc("allowed-tools: Read Grep Bash(git:*)\n"));
        assert_eq!(s.allowed_tools, Some(AllowedTools::Text("Read Grep Bash(git:*)".into())));
        assert!(d.is_empty());
        let (s, _) = ok(&doc("allowed-tools:\n  - Read\n  - \"Bash(npm run *)\"\n"));
        assert_eq!(s.allowed_tools, Some(AllowedTools::List(vec!["Read".into(), "Bash(npm run *)".into()])));
        let (s, _) = ok(&doc("allowed-tools: [Read, Write]\n"));
        assert_eq!(serde_json::to_string(&s.allowed_tools).unwrap(), r#"["Read","Write"]"#);
        let e = err(&doc("allowed-tools: [Read, [x]]\n"));
        assert_eq!(e[0].path, "allowed-tools[1]");
    }

    #[test]
    fn metadata_becomes_json() {
        let (s, d) = ok(&doc(
            "metadata:\n  version: \"1.0\"\n  build: 42\n  ratio: 0.5\n  beta: false\n  none: ~\n  inf: .inf\n  tags: [a, b]\n  nested: {k: v}\n  3: three\n",
        ));
        assert!(d.is_empty(), "{d:?}");
        let json = serde_json::to_string(&s.metadata).unwrap();
        assert_eq!(
            json,
            r#"{"version":"1.0","build":42,"ratio":0.5,"beta":false,"none":null,"inf":".inf","tags":["a","b"],"nested":{"k":"v"},"3":"three"}"#
        );
        let e = err(&doc("metadata: just text\n"));
        assert_eq!(
            (e[0].path.as_str(), e[0].message.as_str()),
            ("metadata", "metadata must be a mapping, not a string")
        );
        let e = err(&doc("metadata:\n  ? [a]\n  : x\n"));
        assert_eq!(e[0].path, "metadata");
    }

    #[test]
    fn serializes_with_fixed_keys_and_nulls() {
        let (s, _) = ok("---\nname: a\ndescription: b\n---\nc");
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"{"name":"a","description":"b","license":null,"allowedTools":null,"metadata":null,"body":"c"}"#
        );
    }

    #[test]
    fn missing_front_matter() {
        let (s, d) = ok("\n\n# Just markdown\n\nText.  \n\n");
        assert_eq!(s.body, "# Just markdown\n\nText.");
        assert_eq!(s.name, None);
        assert_eq!(d, [Diagnostic::new(Rule::SkillNoFrontMatter, "", "no YAML front matter")]);
        // Not on the first line: not front matter.
        let (s, d) = ok("\n---\nname: x\n---\n");
        assert_eq!(s.body, "---\nname: x\n---");
        assert_eq!(d.len(), 1);
        let (s, _) = ok("");
        assert_eq!(s.body, "");
        let (_, d) = ok("--- # not a delimiter\nx\n---\n");
        assert_eq!(d[0].message, "no YAML front matter");
    }

    #[test]
    fn unterminated_front_matter() {
        let e = err("---\nname: x\ndescription: y\n");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].path, "line 1");
        assert!(e[0].message.contains("never closed"));
        assert_eq!(err("---")[0].path, "line 1");
        // `...` does not close front matter.
        assert_eq!(err("---\nname: x\n...\nbody")[0].path, "line 1");
    }

    #[test]
    fn malformed_yaml_reports_the_file_line() {
        let e = err("---\nname: ok\ndescription: fine\nlicense: [unclosed\n---\nbody");
        assert_eq!(e.len(), 1);
        assert!(e[0].path.starts_with("line 5"), "{e:?}");
        assert!(e[0].message.starts_with("invalid YAML: "), "{e:?}");
        let e = err("---\nname: a\ndescription: \"bad \\q escape\"\n---\n");
        assert_eq!(e[0].path, "line 3 column 14", "{e:?}");
        assert!(e[0].message.contains("unknown escape"), "{e:?}");
        let e = err("---\nname: a\n  description: b\n---\n");
        assert_eq!(e[0].path, "line 3 column 14", "{e:?}");
        let e = err("---\nname: a\nname: b\n---\n");
        assert!(e[0].path.starts_with("line 3"), "{e:?}");
        assert!(e[0].message.contains("duplicated key"), "{e:?}");
        // With a BOM and CRLF the lines are the same.
        let e = err("\u{feff}---\r\nname: a\r\nx: [\r\n---\r\n");
        assert!(e[0].path.starts_with("line 4"), "{e:?}");
    }

    #[test]
    fn front_matter_must_be_a_mapping() {
        let e = err("---\n- a\n- b\n---\n");
        assert_eq!(e[0].path, "line 2");
        assert_eq!(e[0].message, "front matter must be a YAML mapping, not a list");
        err("---\njust a string\n---\n");
        let (s, d) = ok("---\n# only a comment\n---\nbody");
        assert_eq!(s.body, "body");
        assert_eq!(d.len(), 2, "{d:?}"); // missing name, missing description
        let e = err("---\na: 1\n--- b\n---\n");
        assert!(e[0].message.contains("more than one"), "{e:?}");
    }

    #[test]
    fn crlf_and_bom() {
        let text = "\u{feff}---  \r\nname: crlf-skill\r\ndescription: >-\r\n  folded\r\n  text\r\n---\t\r\n\r\n\r\n# Title\r\n\r\nLine\r\n\r\n";
        let (s, d) = ok(text);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s.name.as_deref(), Some("crlf-skill"));
        assert_eq!(s.description.as_deref(), Some("folded text"));
        assert_eq!(s.body, "# Title\r\n\r\nLine");
    }

    #[test]
    fn body_keeps_first_line_indentation() {
        let (s, _) = ok(&format!("{}   \n\t\n    code\n", doc("").trim_end_matches("Body\n")));
        assert_eq!(s.body, "    code");
        let (s, _) = ok("---\nname: a\ndescription: b\n---");
        assert_eq!(s.body, "");
    }

    #[test]
    fn unknown_keys_warn() {
        let (_, d) = ok(&doc("model: opus\nName: x\ncompatibility: Needs git\n"));
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].path, "model");
        assert!(d[0].message.starts_with("unknown key `model`"), "{d:?}");
        assert_eq!(d[1].path, "Name");
        assert!(d.iter().all(|d| d.severity == Severity::Warning));
    }

    #[test]
    fn compatibility_limit() {
        let (_, d) = ok(&doc(&format!("compatibility: {}\n", "x".repeat(500))));
        assert!(d.is_empty());
        let (_, d) = ok(&doc(&format!("compatibility: {}\n", "x".repeat(501))));
        assert_eq!(d[0].path, "compatibility");
        assert!(d[0].message.contains("501 characters"));
    }

    #[test]
    fn name_rule() {
        assert_eq!(skill_name_problem("pdf-tools-2"), None);
        assert_eq!(skill_name_problem(&"a".repeat(64)), None);
        assert_eq!(skill_name_problem("").as_deref(), Some("name is empty"));
        assert!(skill_name_problem(&"a".repeat(65)).unwrap().contains("65 characters"));
        assert!(skill_name_problem("PDF").unwrap().contains("use lowercase"));
        assert!(skill_name_problem("my_skill").unwrap().contains("'_'"));
        assert!(skill_name_problem("café").unwrap().contains("'é'"));
        assert!(skill_name_problem("my skill").is_some());
        assert_eq!(skill_name_problem("-ab").as_deref(), Some("name starts with a hyphen"));
        assert_eq!(skill_name_problem("ab-").as_deref(), Some("name ends with a hyphen"));
        assert_eq!(skill_name_problem("a--b").as_deref(), Some("name contains two hyphens in a row"));
        assert!(skill_name_problem("-").is_some());
    }

    #[test]
    fn name_rule_warnings_in_files() {
        for bad in ["Bad-Name", "-lead", "trail-", "dou--ble", "under_score", "''"] {
            let (_, d) = ok(&format!("---\nname: {bad}\ndescription: x\n---\n"));
            assert_eq!(d.len(), 1, "{bad}: {d:?}");
            assert_eq!(d[0].path, "name");
        }
        let (_, d) = ok("---\ndescription: x\n---\n");
        assert_eq!(d, [Diagnostic::new(Rule::SkillFieldValue, "name", "missing name")]);
        let (_, d) = ok("---\nname: x\n---\n");
        assert_eq!(d, [Diagnostic::new(Rule::SkillFieldValue, "description", "missing description")]);
    }

    #[test]
    fn description_rule() {
        assert_eq!(skill_description_problem("ok"), None);
        assert_eq!(skill_description_problem(&"é".repeat(1024)), None);
        assert!(skill_description_problem(&"é".repeat(1025)).unwrap().contains("1025 characters"));
        assert_eq!(skill_description_problem(" \n").as_deref(), Some("description is empty"));
        let (s, d) = ok(&format!("---\nname: x\ndescription: {}\n---\n", "word ".repeat(300)));
        assert_eq!(s.description.unwrap().chars().count(), 1499);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].path, "description");
        assert!(d[0].message.contains("1499 characters"));
        let (_, d) = ok("---\nname: x\ndescription: ''\n---\n");
        assert_eq!(d[0].message, "description is empty");
    }

    #[test]
    fn folder_mismatch() {
        let text = "---\nname: my-skill\ndescription: x\n---\n";
        let (_, d) = parse_skill(text, Some("my-skill")).unwrap();
        assert!(d.is_empty());
        let (_, d) = parse_skill(text, Some("other")).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].path, "name");
        assert_eq!(d[0].message, "name `my-skill` differs from its folder `other`");
    }

    #[test]
    fn invalid_utf8_bytes() {
        let (s, d) = parse_skill_bytes(b"---\nname: a\ndescription: b\xff\n---\nok", None).unwrap();
        assert_eq!(s.description.as_deref(), Some("b\u{fffd}"));
        assert_eq!(d.len(), 1);
        assert!(d[0].message.contains("not valid UTF-8"));
    }

    #[test]
    fn deep_nesting_and_alias_bombs_are_rejected() {
        let deep_flow = format!("---\nmetadata: {}{}\n---\n", "[".repeat(200), "]".repeat(200));
        let e = err(&deep_flow);
        assert!(e[0].message.contains("nested deeper") || e[0].message.contains("invalid YAML"), "{e:?}");
        let deep_block = format!("---\nmetadata:\n  {}x\n---\n", "- ".repeat(100_000));
        let e = err(&deep_block);
        assert!(e[0].path.starts_with("line 3 column "), "{e:?}");
        assert!(e[0].message.contains("nested deeper than 64"), "{e:?}");
        let (s, _) = ok(&format!("---\nmetadata:\n  k:\n    {}x\n---\n", "- ".repeat(62)));
        assert!(s.metadata.is_some());
        let mut indented = String::from("---\nmetadata:\n");
        for i in 1..200 {
            indented.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        indented.push_str("---\n");
        assert!(err(&indented)[0].message.contains("nested deeper"));
        // Aliases: exponential expansion.
        let mut bomb = String::from("---\nmetadata:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let p = i - 1;
            bomb.push_str(&format!(
                "  a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        bomb.push_str("---\n");
        assert!(err(&bomb)[0].message.contains("expands to more than"));
        // Aliases: deep chain.
        let mut chain = String::from("---\nmetadata:\n  a0: &a0 [x]\n");
        for i in 1..100 {
            chain.push_str(&format!("  a{i}: &a{i} [*a{}]\n", i - 1));
        }
        chain.push_str("---\n");
        assert!(err(&chain)[0].message.contains("nested deeper"));
        // A modest alias is fine.
        let (s, _) = ok(&doc("metadata:\n  base: &b {k: v}\n  copy: *b\n"));
        assert_eq!(serde_json::to_string(&s.metadata).unwrap(), r#"{"base":{"k":"v"},"copy":{"k":"v"}}"#);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        const TOKENS: &[&str] = &[
            "---",
            "\n",
            "\r\n",
            " ",
            "  ",
            "\t",
            "name",
            "description",
            "metadata",
            "allowed-tools",
            "license",
            "compatibility",
            ":",
            ": ",
            "- ",
            "[",
            "]",
            "{",
            "}",
            ",",
            "'",
            "\"",
            "\\u00",
            "|",
            "|-",
            ">",
            ">-",
            "&a",
            "*a",
            "!!str",
            "!!int",
            "#",
            "?",
            "...",
            "%YAML 1.2",
            "é",
            "\u{feff}",
            "x",
            "42",
            "~",
            "null",
        ];

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            #[test]
            fn arbitrary_text_never_panics(text in any::<String>(), folder in any::<Option<String>>()) {
                let _ = parse_skill(&text, folder.as_deref());
                let _ = parse_skill(&format!("---\n{text}\n---\n"), None);
            }

            #[test]
            fn yamlish_text_never_panics(parts in prop::collection::vec(prop::sample::select(TOKENS), 0..50)) {
                let yaml = parts.concat();
                let text = format!("---\n{yaml}\n---\nbody");
                match parse_skill(&text, Some("x")) {
                    Ok((skill, _)) if !yaml.contains("---") => prop_assert_eq!(skill.body, "body"),
                    Ok(_) => {}
                    Err(diags) => prop_assert!(diags.iter().any(Diagnostic::is_error)),
                }
            }

            #[test]
            fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
                let _ = parse_skill_bytes(&bytes, None);
            }
        }
    }
}
