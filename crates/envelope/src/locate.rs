//! Where a diagnostic points: a structured location (message, segment, field,
//! JSON pointer) derived from its path, and its line and column in the source
//! text, found by a small position-tracking JSON scanner.
//!
//! Diagnostics carry a path such as `messages[3].segments[1].toolName`.
//! [`location`] turns it into a [`Location`]: the message index and id, the
//! segment index, the field below the segment, an RFC 6901 JSON pointer
//! (`/messages/3/segments/1/toolName`) and, given a [`SourceMap`] of the text
//! the document was read from, the line and column of the value (or of the
//! key, for a field that should not be there).
//!
//! The scanner ([`SourceMap::new`]) reads the text once, without recursion,
//! and records for every value its byte span, its key's span and its
//! children, so that any number of pointers resolve in time proportional to
//! their depth. It accepts what `serde_json` accepts (a leading byte-order
//! mark too); on malformed text it gives a map with lines only.
//!
//! Lines count from 1; columns count Unicode scalar values from 1 (a
//! byte-order mark is not a column), as editors and SARIF's
//! `unicodeCodePoints` column kind do.

use std::ops::Range;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::diag::{Diagnostic, Rule};

/// One step of a path: an object key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// A structured location inside a document (a lint finding's; the engine's
/// `lint` reply carries it to the app).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    /// Index of the message in the document's `messages`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<usize>,
    /// That message's `id`, when it has a readable one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Index of the segment in the message's `segments`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub segment: Option<usize>,
    /// The path below the segment (or the message, or the envelope), e.g.
    /// `items[2].description`; `None` when the location is the segment itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// RFC 6901 JSON pointer; empty for the whole document.
    pub pointer: String,
    /// 1-based line of the start, when the source text is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column (Unicode scalar values) of the start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// 1-based line of the end (exclusive column below).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<usize>,
    /// 1-based column just after the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_column: Option<usize>,
}

/// `s` escaped as one RFC 6901 reference token (`~` → `~0`, `/` → `~1`).
pub fn escape_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The RFC 6901 pointer of a list of steps.
pub fn pointer(steps: &[Step]) -> String {
    let mut out = String::new();
    for s in steps {
        out.push('/');
        match s {
            Step::Key(k) => out.push_str(&escape_token(k)),
            Step::Index(i) => out.push_str(&i.to_string()),
        }
    }
    out
}

/// Steps written as a diagnostic path (`items[2].description`).
pub fn path_of(steps: &[Step]) -> String {
    let mut out = String::new();
    for s in steps {
        match s {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
        }
    }
    out
}

/// Splits a diagnostic path into steps. Paths are written `a.b[3].c`; a key
/// may itself hold `.` or `[` (an unknown field named `a.b`), so where the
/// document is given, keys are matched against the object's real keys (the
/// longest key the path continues with wins). `None` for `line L column C`.
pub fn steps(path: &str, doc: Option<&Value>) -> Option<Vec<Step>> {
    if path.is_empty() {
        return Some(Vec::new());
    }
    if line_column_path(path).is_some() {
        return None;
    }
    let mut out = Vec::new();
    let mut rest = path;
    let mut node = doc;
    let mut first = true;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('[') {
            if let Some(close) = after.find(']') {
                if let Ok(i) = after[..close].parse::<usize>() {
                    out.push(Step::Index(i));
                    node = node.and_then(|v| v.get(i));
                    rest = &after[close + 1..];
                    first = false;
                    continue;
                }
            }
        }
        let key_text = if first {
            rest
        } else if let Some(r) = rest.strip_prefix('.') {
            r
        } else {
            rest
        };
        first = false;
        let ends_here = |k: &str| {
            key_text.starts_with(k) && matches!(key_text.as_bytes().get(k.len()), None | Some(b'.') | Some(b'['))
        };
        let known = node
            .and_then(Value::as_object)
            .and_then(|o| o.keys().filter(|k| !k.is_empty() && ends_here(k)).max_by_key(|k| k.len()).cloned());
        let key = known.unwrap_or_else(|| {
            // Up to the next `.` or `[` (a `[` that opened no index is text).
            let skip = usize::from(key_text.starts_with('['));
            let end = key_text[skip..].find(['.', '[']).map_or(key_text.len(), |e| e + skip);
            key_text[..end].to_string()
        });
        rest = &key_text[key.len()..];
        node = node.and_then(|v| v.get(&key));
        out.push(Step::Key(key));
    }
    Some(out)
}

/// `(line, column)` of a `line L column C` path.
pub fn line_column_path(path: &str) -> Option<(usize, usize)> {
    let rest = path.strip_prefix("line ")?;
    let (l, c) = rest.split_once(" column ")?;
    Some((l.parse().ok()?, c.parse().ok()?))
}

/// The structured location of a diagnostic in a document: `doc` is the JSON
/// value (for ids and keys holding `.`), `source` the text's map (for lines).
pub fn location(d: &Diagnostic, doc: Option<&Value>, source: Option<&SourceMap>) -> Location {
    located(&d.path, d.rule, None, doc, source)
}

/// Like [`location`], for a path and rule, with an optional byte range inside
/// the string value at the path (a secret or a placeholder inside a text).
pub fn located(
    path: &str,
    rule: Rule,
    span: Option<Range<usize>>,
    doc: Option<&Value>,
    source: Option<&SourceMap>,
) -> Location {
    let Some(steps) = steps(path, doc) else {
        // `line L column C`: JSON syntax errors count bytes, UTF-8 errors characters.
        let mut loc = Location::default();
        if let Some((line, col)) = line_column_path(path) {
            let col = match (rule, source) {
                (Rule::InvalidJson, Some(src)) => src.lines.byte_column_to_char(line, col.saturating_sub(1)) + 1,
                _ => col,
            };
            loc.line = Some(line.max(1));
            loc.column = Some(col.max(1));
        }
        return loc;
    };
    let mut loc = Location { pointer: pointer(&steps), ..Location::default() };
    let mut below = 0;
    if let [Step::Key(m), Step::Index(i), rest @ ..] = steps.as_slice() {
        if m == "messages" {
            loc.message = Some(*i);
            loc.message_id = doc
                .and_then(|d| d.get("messages"))
                .and_then(|ms| ms.get(*i))
                .and_then(|msg| msg.get("id"))
                .and_then(Value::as_str)
                .map(str::to_string);
            below = 2;
            if let [Step::Key(s), Step::Index(j), ..] = rest {
                if s == "segments" {
                    loc.segment = Some(*j);
                    below = 4;
                }
            }
        }
    }
    if steps.len() > below {
        loc.field = Some(path_of(&steps[below..]));
    }
    if let Some(src) = source {
        if let Some(found) = src.find(&steps) {
            let on_key = matches!(rule, Rule::UnknownField | Rule::DuplicateKey) && found.exact;
            let range = match (&span, found.key) {
                (_, Some(k)) if on_key => k,
                (Some(s), _) if found.exact => src.string_range(found.value.clone(), s.clone()),
                _ => found.value.clone(),
            };
            let (l, c) = src.lines.line_col(range.start);
            // An object or array is marked by its opening bracket.
            let container =
                range == found.value && src.text.as_bytes().get(range.start).is_some_and(|b| matches!(b, b'{' | b'['));
            let end = if container { range.start + 1 } else { range.end };
            let (el, ec) = src.lines.line_col(end);
            loc.line = Some(l);
            loc.column = Some(c);
            loc.end_line = Some(el);
            loc.end_column = Some(ec);
        }
    }
    loc
}

/// Line starts of a text, for byte offset → line and column.
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
    /// Bytes of a leading byte-order mark (0 or 3).
    bom: usize,
}

impl<'a> Lines<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Lines { text, starts, bom }
    }

    /// 1-based line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = crate::display::floor_boundary(self.text, offset);
        let line = self.starts.partition_point(|&s| s <= offset);
        let start = self.starts[line - 1].max(if line == 1 { self.bom } else { 0 }).min(offset);
        (line, self.text[start..offset].chars().count() + 1)
    }

    /// The text of a 1-based line, without its line break.
    pub fn line(&self, line: usize) -> Option<&'a str> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        let start = if line == 1 { start.max(self.bom) } else { start };
        let end = self.starts.get(line).map_or(self.text.len(), |&e| e - 1);
        let s = self.text.get(start..end.max(start))?;
        Some(s.strip_suffix('\r').unwrap_or(s))
    }

    /// Number of lines.
    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based character column of a 0-based byte column on a line, for
    /// `serde_json`'s positions (which count bytes after a stripped BOM).
    pub fn byte_column_to_char(&self, line: usize, byte_col: usize) -> usize {
        let Some(text) = self.line(line) else { return byte_col };
        text[..crate::display::floor_boundary(text, byte_col)].chars().count()
    }
}

/// What the scanner records for one JSON value.
#[derive(Clone, Debug)]
struct Node {
    /// The key token (quotes included) when the value is an object member.
    key: Option<Range<usize>>,
    /// The value's bytes (brackets or quotes included).
    span: Range<usize>,
    /// Indices into `SourceMap::children` of this value's members or items.
    children: Range<u32>,
    container: u8,
}

/// A found value: its span, its key's span, and whether the whole pointer
/// resolved (otherwise the nearest existing ancestor was found).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub value: Range<usize>,
    pub key: Option<Range<usize>>,
    pub exact: bool,
}

/// The source text of a document with the position of every value.
#[derive(Clone, Debug)]
pub struct SourceMap<'a> {
    pub text: &'a str,
    pub lines: Lines<'a>,
    nodes: Vec<Node>,
    children: Vec<u32>,
}

const NONE: u8 = 0;
const OBJECT: u8 = 1;
const ARRAY: u8 = 2;

impl<'a> SourceMap<'a> {
    /// Scans `text`. On text that is not JSON the map knows lines only.
    pub fn new(text: &'a str) -> Self {
        let mut map = SourceMap { text, lines: Lines::new(text), nodes: Vec::new(), children: Vec::new() };
        if Scanner::run(&mut map).is_none() {
            map.nodes.clear();
            map.children.clear();
        }
        map
    }

    /// Whether the text was scanned as JSON.
    pub fn is_json(&self) -> bool {
        !self.nodes.is_empty()
    }

    /// The value at a list of steps, or the nearest ancestor that exists.
    pub fn find(&self, steps: &[Step]) -> Option<Found> {
        let node = self.nodes.first()?;
        let mut at = 0usize;
        let mut found = Found { value: node.span.clone(), key: None, exact: true };
        for step in steps {
            match self.find_from(at, step) {
                Some(c) => {
                    at = c;
                    let n = &self.nodes[c];
                    found = Found { value: n.span.clone(), key: n.key.clone(), exact: true };
                }
                None => {
                    found.exact = false;
                    return Some(found);
                }
            }
        }
        Some(found)
    }

    /// The value at an RFC 6901 pointer (`""` is the document). A token of
    /// digits is an index in an array and a key in an object.
    pub fn find_pointer(&self, pointer: &str) -> Option<Found> {
        let mut steps = Vec::new();
        if !pointer.is_empty() {
            let mut at = Some(0usize);
            for t in pointer.strip_prefix('/')?.split('/') {
                let t = t.replace("~1", "/").replace("~0", "~");
                let is_array = at.and_then(|a| self.nodes.get(a)).is_some_and(|n| n.container == ARRAY);
                let step = match t.parse::<usize>() {
                    Ok(i) if is_array && t == i.to_string() => Step::Index(i),
                    _ => Step::Key(t),
                };
                at = at.and_then(|a| self.find_from(a, &step));
                steps.push(step);
            }
        }
        self.find(&steps)
    }

    /// The child of node `at` that `step` names.
    fn find_from(&self, at: usize, step: &Step) -> Option<usize> {
        let n = self.nodes.get(at)?;
        let kids = &self.children[n.children.start as usize..n.children.end as usize];
        match (step, n.container) {
            (Step::Index(i), ARRAY) => kids.get(*i).map(|&c| c as usize),
            (Step::Key(k), OBJECT) => kids
                .iter()
                .rev()
                .copied()
                .find(|&c| {
                    self.nodes[c as usize]
                        .key
                        .as_ref()
                        .is_some_and(|r| decode_string(&self.text[r.clone()]).as_deref() == Some(k.as_str()))
                })
                .map(|c| c as usize),
            _ => None,
        }
    }

    /// The source byte range of the decoded byte range `inner` of the string
    /// token `token` (quotes included): escapes map to their source text.
    pub fn string_range(&self, token: Range<usize>, inner: Range<usize>) -> Range<usize> {
        let src = &self.text[token.clone()];
        if !src.starts_with('"') {
            return token;
        }
        let (mut decoded, mut i) = (0usize, 1usize);
        let (mut start, mut end) = (None, None);
        let bytes = src.as_bytes();
        while i < bytes.len() - 1 {
            if start.is_none() && decoded >= inner.start {
                start = Some(i);
            }
            if decoded >= inner.end {
                end = Some(i);
                break;
            }
            let (src_len, out_len) = match bytes[i] {
                b'\\' => match bytes.get(i + 1) {
                    Some(b'u') => {
                        let cp = u32::from_str_radix(src.get(i + 2..i + 6).unwrap_or("0"), 16).unwrap_or(0);
                        let pair = (0xD800..0xDC00).contains(&cp) && src.get(i + 6..i + 8) == Some("\\u");
                        if pair {
                            (12, 4)
                        } else {
                            (6, char::from_u32(cp).map_or(3, char::len_utf8))
                        }
                    }
                    _ => (2, 1),
                },
                b => {
                    let n = utf8_len(b);
                    (n, n)
                }
            };
            i += src_len;
            decoded += out_len;
        }
        let start = start.unwrap_or(bytes.len() - 1);
        let end = end.unwrap_or(bytes.len() - 1).max(start);
        token.start + start..token.start + end
    }
}

fn utf8_len(b: u8) -> usize {
    match b {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// Decodes a JSON string token (quotes included); `None` if malformed.
fn decode_string(token: &str) -> Option<String> {
    if !token.contains('\\') {
        return token.strip_prefix('"')?.strip_suffix('"').map(str::to_string);
    }
    serde_json::from_str::<String>(token).ok()
}

/// The single-pass scanner behind [`SourceMap::new`].
struct Scanner<'m, 'a> {
    map: &'m mut SourceMap<'a>,
    bytes: &'a [u8],
    pos: usize,
}

/// An open container while scanning.
struct Open {
    node: usize,
    kids: Vec<u32>,
    /// The key just read (objects), waiting for its value.
    key: Option<Range<usize>>,
}

impl<'m, 'a> Scanner<'m, 'a> {
    fn run(map: &'m mut SourceMap<'a>) -> Option<()> {
        let bytes = map.text.as_bytes();
        let mut s = Scanner { map, bytes, pos: 0 };
        if s.map.text.starts_with('\u{feff}') {
            s.pos = 3;
        }
        s.document()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn push(&mut self, key: Option<Range<usize>>, span: Range<usize>, container: u8) -> usize {
        self.map.nodes.push(Node { key, span, children: 0..0, container });
        self.map.nodes.len() - 1
    }

    fn string(&mut self) -> Option<Range<usize>> {
        let start = self.pos;
        if self.bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        self.pos += 1;
        loop {
            match self.bytes.get(self.pos)? {
                b'"' => {
                    self.pos += 1;
                    return Some(start..self.pos);
                }
                b'\\' => self.pos += 2,
                b if *b < 0x20 => return None,
                _ => self.pos += 1,
            }
        }
    }

    fn scalar(&mut self) -> Option<Range<usize>> {
        let start = self.pos;
        match self.bytes.get(self.pos)? {
            b'"' => self.string(),
            b't' | b'f' | b'n' => {
                let word =
                    ["true", "false", "null"].into_iter().find(|w| self.bytes[self.pos..].starts_with(w.as_bytes()))?;
                self.pos += word.len();
                Some(start..self.pos)
            }
            b'-' | b'0'..=b'9' => {
                while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.bytes.get(self.pos) {
                    self.pos += 1;
                }
                Some(start..self.pos)
            }
            _ => None,
        }
    }

    fn document(&mut self) -> Option<()> {
        let mut stack: Vec<Open> = Vec::new();
        self.ws();
        // Reads one value at the current position; containers are opened on
        // the stack and closed by the loop below.
        loop {
            // Expect a value.
            self.ws();
            let key = stack.last_mut().and_then(|o| o.key.take());
            let start = self.pos;
            let opened = match self.bytes.get(self.pos)? {
                b'{' => Some(OBJECT),
                b'[' => Some(ARRAY),
                _ => None,
            };
            let node = match opened {
                Some(kind) => {
                    self.pos += 1;
                    let n = self.push(key, start..start, kind);
                    stack.push(Open { node: n, kids: Vec::new(), key: None });
                    n
                }
                None => {
                    let span = self.scalar()?;
                    self.push(key, span, NONE)
                }
            };
            if opened.is_none() {
                if let Some(parent) = stack.last_mut() {
                    parent.kids.push(node as u32);
                }
            }
            // After a value (or an opening bracket): close containers and
            // find where the next value starts.
            let mut just_opened = opened.is_some();
            loop {
                self.ws();
                let Some(top) = stack.last_mut() else {
                    // The document's single value is complete.
                    return (self.pos == self.bytes.len()).then_some(());
                };
                let kind = self.map.nodes[top.node].container;
                let close = if kind == OBJECT { b'}' } else { b']' };
                match self.bytes.get(self.pos)? {
                    b if *b == close => {
                        self.pos += 1;
                        let open = stack.pop()?;
                        let first = self.map.children.len() as u32;
                        self.map.children.extend_from_slice(&open.kids);
                        let last = self.map.children.len() as u32;
                        let n = &mut self.map.nodes[open.node];
                        n.span.end = self.pos;
                        n.children = first..last;
                        if let Some(parent) = stack.last_mut() {
                            parent.kids.push(open.node as u32);
                        }
                        just_opened = false;
                        continue;
                    }
                    b',' if !just_opened => self.pos += 1,
                    _ if just_opened => {}
                    _ => return None,
                }
                if kind == OBJECT {
                    self.ws();
                    let k = self.string()?;
                    self.ws();
                    if self.bytes.get(self.pos) != Some(&b':') {
                        return None;
                    }
                    self.pos += 1;
                    stack.last_mut()?.key = Some(k);
                }
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, pointer: &str) -> (usize, usize) {
        let map = SourceMap::new(text);
        let f = map.find_pointer(pointer).unwrap();
        assert!(f.exact, "{pointer} not found in {text}");
        map.lines.line_col(f.value.start)
    }

    #[test]
    fn pretty_and_minified() {
        let pretty = "{\n  \"a\": [\n    1,\n    {\"b\": \"x\"}\n  ],\n  \"c\": null\n}\n";
        assert_eq!(at(pretty, ""), (1, 1));
        assert_eq!(at(pretty, "/a"), (2, 8));
        assert_eq!(at(pretty, "/a/0"), (3, 5));
        assert_eq!(at(pretty, "/a/1/b"), (4, 11));
        assert_eq!(at(pretty, "/c"), (6, 8));
        let mini = r#"{"a":[1,{"b":"x"}],"c":null}"#;
        assert_eq!(at(mini, "/a/1/b"), (1, 14));
        assert_eq!(at(mini, "/c"), (1, 24));
        let map = SourceMap::new(mini);
        let f = map.find_pointer("/a/1/b").unwrap();
        assert_eq!(&mini[f.key.unwrap()], "\"b\"");
        assert_eq!(&mini[f.value], "\"x\"");
        // Not found: the nearest ancestor, marked inexact.
        let f = map.find_pointer("/a/1/zz").unwrap();
        assert!(!f.exact);
        assert_eq!(&mini[f.value], r#"{"b":"x"}"#);
        assert!(map.find_pointer("/a/9").is_some_and(|f| !f.exact));
    }

    #[test]
    fn escapes_unicode_and_bom() {
        // Keys with escapes and pointer escapes.
        let text = "\u{feff}{\"a/b\": 1, \"t~\": 2, \"\\u00e9\": 3, \"é\\n\": [\"ü\", \"x\"]}";
        assert_eq!(at(text, "/a~1b"), (1, 9));
        assert_eq!(at(text, "/t~0"), (1, 18));
        assert_eq!(at(text, "/é"), (1, 31));
        // Columns count characters, not bytes; the BOM is not a column.
        assert_eq!(at(text, "/é\n/1"), (1, 47));
        assert_eq!(at(text, ""), (1, 1));
        // Multi-byte text before a value on the same line.
        assert_eq!(at("{\"名前\": \"値\", \"k\": 1}", "/k"), (1, 18));
        // Emoji (4 bytes, 1 char) and a surrogate-pair escape.
        assert_eq!(at("{\"x\": \"👍\\ud83d\\udc4d\", \"k\": 1}", "/k"), (1, 29));
    }

    #[test]
    fn ranges_inside_strings_follow_escapes() {
        let text = r#"{"s": "a\"b\u00e9 sk-XYZ"}"#;
        let map = SourceMap::new(text);
        let f = map.find_pointer("/s").unwrap();
        // Decoded: a " b é ␠ s k - X Y Z; "sk-XYZ" starts at decoded byte 6.
        let decoded: String = serde_json::from_str(&text[f.value.clone()]).unwrap();
        let start = decoded.find("sk-").unwrap();
        let r = map.string_range(f.value, start..start + 6);
        assert_eq!(&text[r], "sk-XYZ");
        let f = map.find_pointer("/s").unwrap();
        let r = map.string_range(f.value, 1..2);
        assert_eq!(&text[r], "\\\"");
        let f = map.find_pointer("/s").unwrap();
        let r = map.string_range(f.value, 3..5);
        assert_eq!(&text[r], "\\u00e9");
    }

    #[test]
    fn duplicate_keys_resolve_to_the_last() {
        let text = r#"{"k": 1, "k": 2}"#;
        let map = SourceMap::new(text);
        assert_eq!(&text[map.find_pointer("/k").unwrap().value], "2");
    }

    #[test]
    fn malformed_text_has_lines_only() {
        for bad in ["", "{", "{\"a\":}", "[1,]", "{\"a\" 1}", "[1] x", "\"\\", "{\"a\":1,}", "nul", "[,1]"] {
            let map = SourceMap::new(bad);
            assert!(!map.is_json(), "{bad:?}");
            assert!(map.find(&[]).is_none());
        }
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(SourceMap::new(&deep).is_json());
        assert!(SourceMap::new(&"[".repeat(100_000)).find(&[]).is_none());
    }

    #[test]
    fn lines_and_columns() {
        let l = Lines::new("ab\r\ncé\nx");
        assert_eq!(l.line(1), Some("ab"));
        assert_eq!(l.line(2), Some("cé"));
        assert_eq!(l.line(3), Some("x"));
        assert_eq!(l.line(4), None);
        assert_eq!(l.line_col(5), (2, 2));
        assert_eq!(l.line_col(8), (3, 1));
        assert_eq!(l.byte_column_to_char(2, 3), 2);
    }

    #[test]
    fn paths_become_steps_pointers_and_fields() {
        let doc: Value = serde_json::from_str(
            r#"{"messages":[{"id":"m0","segments":[{"kind":"text","a.b":1,"items":[{"x/y~":2}]}]}]}"#,
        )
        .unwrap();
        let s = steps("messages[0].segments[0].a.b", Some(&doc)).unwrap();
        assert_eq!(s.last(), Some(&Step::Key("a.b".into())));
        assert_eq!(pointer(&s), "/messages/0/segments/0/a.b");
        let s = steps("messages[0].segments[0].items[0].x/y~", Some(&doc)).unwrap();
        assert_eq!(pointer(&s), "/messages/0/segments/0/items/0/x~1y~0");
        assert_eq!(steps("line 3 column 4", None), None);
        assert_eq!(steps("", None), Some(vec![]));
        // Odd keys never loop: `[` that opens no index is part of a key.
        assert_eq!(
            steps("a[x.b", None).unwrap(),
            [Step::Key("a".into()), Step::Key("[x".into()), Step::Key("b".into())]
        );
        assert_eq!(steps("a..b[", None).unwrap().len(), 4);
        let d = Diagnostic::new(Rule::WrongType, "messages[0].segments[0].items[0].x/y~", "m");
        let loc = location(&d, Some(&doc), None);
        assert_eq!(
            (loc.message, loc.message_id.as_deref(), loc.segment, loc.field.as_deref()),
            (Some(0), Some("m0"), Some(0), Some("items[0].x/y~"))
        );
        let loc = location(&Diagnostic::new(Rule::UnsupportedVersion, "version", "m"), Some(&doc), None);
        assert_eq!((loc.message, loc.field.as_deref(), loc.pointer.as_str()), (None, Some("version"), "/version"));
        let loc = location(&Diagnostic::new(Rule::DuplicateMessageId, "messages[0]", "m"), Some(&doc), None);
        assert_eq!((loc.message, loc.segment, loc.field), (Some(0), None, None));
    }

    #[test]
    fn a_diagnostic_located_in_the_source() {
        let text = "{\n  \"version\": \"1.0\",\n  \"messages\": [\n    {\"id\": \"m\", \"oops\": 1}\n  ]\n}";
        let doc: Value = serde_json::from_str(text).unwrap();
        let map = SourceMap::new(text);
        // Unknown field: the key; wrong type: the value; missing: the object.
        let unknown = Diagnostic::new(Rule::UnknownField, "messages[0].oops", "m");
        let loc = location(&unknown, Some(&doc), Some(&map));
        assert_eq!((loc.line, loc.column, loc.end_column), (Some(4), Some(17), Some(23)));
        let wrong = Diagnostic::new(Rule::WrongType, "messages[0].oops", "m");
        let loc = location(&wrong, Some(&doc), Some(&map));
        assert_eq!((loc.line, loc.column, loc.end_column), (Some(4), Some(25), Some(26)));
        let missing = Diagnostic::new(Rule::MissingField, "messages[0].role", "m");
        let loc = location(&missing, Some(&doc), Some(&map));
        assert_eq!((loc.line, loc.column, loc.end_column), (Some(4), Some(5), Some(6)));
        // A syntax error's byte column becomes a character column.
        let text = "{\"é\": x}";
        let e = crate::parse(text).unwrap_err();
        let loc = location(&e[0], None, Some(&SourceMap::new(text)));
        assert_eq!((loc.line, loc.column), (Some(1), Some(7)));
    }
}
