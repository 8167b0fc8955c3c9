//! Text search over a document, as the viewer shows it: every field of
//! every segment (collapsed or not), variables substituted in the prose the
//! model reads, and the variables' own names and values.
//!
//! Two steps, both resumable so a caller can spread them over several
//! tasks: [`Index::add`] folds the searchable text of some messages once
//! (linear in their text), [`Index::find`] looks for a query in a range of
//! the indexed fields (linear in their text: `str::match_indices`).
//!
//! Case: [`fold`] maps a character to its lowercase form for ASCII, Latin-1,
//! Latin Extended-A, basic Greek and Cyrillic — exactly what
//! `char::to_lowercase` gives there (tested) — and leaves every other
//! character as it is (no Unicode table: the app's module stays small).
//! Each mapping keeps the character's UTF-8 length, so a byte offset in the
//! folded text is the same offset in the original. Accents are not removed
//! (`é` ≠ `e`); CJK has no case and matches as written. Matches do not
//! overlap (`aa` occurs twice in `aaaa`).

use std::ops::Range;

use crate::calls::At;
use crate::template::Vars;
use crate::types::{Envelope, Segment};

/// The most matches a search reports (the count then reads "10,000+").
pub const LIMIT: usize = 10_000;

/// `c` in lowercase, where the fold covers it (module docs); else `c`.
pub fn fold_char(c: char) -> char {
    let u = c as u32;
    let lower = match u {
        0x41..=0x5A => u + 0x20,
        0xC0..=0xDE if u != 0xD7 => u + 0x20,
        // Latin Extended-A: pairs, capital first (İ, U+0130, lowercases to
        // two characters and stays; ı, ĸ, ŉ, ſ have no capital here).
        0x100..=0x12F | 0x132..=0x137 | 0x14A..=0x177 if u.is_multiple_of(2) => u + 1,
        0x139..=0x148 | 0x179..=0x17E if !u.is_multiple_of(2) => u + 1,
        0x178 => 0xFF,
        0x386 => 0x3AC,
        0x388..=0x38A => u + 37,
        0x38C => 0x3CC,
        0x38E..=0x38F => u + 63,
        0x391..=0x3AB if u != 0x3A2 => u + 0x20,
        0x400..=0x40F => u + 0x50,
        0x410..=0x42F => u + 0x20,
        _ => u,
    };
    char::from_u32(lower).unwrap_or(c)
}

/// `s` with [`fold_char`] applied: the same length in bytes.
pub fn fold(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.chars().map(fold_char).collect()
}

/// A query, folded. `None` for an empty one (nothing to look for).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Query(String);

impl Query {
    /// The query as typed (spaces kept: `"a b"` finds that, not `a` and `b`).
    pub fn new(text: &str) -> Option<Query> {
        (!text.is_empty()).then(|| Query(fold(text)))
    }
}

/// Which field of a segment a match is in (what the viewer shows, in its order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// `content` of text, system_prompt, long_text (variables substituted).
    Content,
    /// A static_var's name, value, description.
    VarName,
    VarValue,
    VarDescription,
    /// A memory or skills segment's own description.
    Description,
    /// An item's title (memory) or name (skill, tool).
    ItemName,
    /// An item's content (memory), description (skill, tool).
    ItemText,
    /// A skill's body.
    ItemBody,
    /// A tool's parameter summary.
    ItemParameters,
    /// A call's or result's tool name.
    ToolName,
    /// A call's id.
    CallId,
    /// An argument's name (item: its index).
    ArgumentName,
    /// An argument's value as shown: strings as written, other values JSON.
    ArgumentValue,
    /// A tool result's text.
    Result,
    /// A document's file name, MIME type, snippet, parsed content.
    FileName,
    MimeType,
    Snippet,
    ParsedContent,
    /// A media item's alternative text, and its URL unless it is a `data:` URL.
    AltText,
    Url,
}

/// One searchable string.
#[derive(Clone, Debug)]
struct Entry {
    at: At,
    item: Option<usize>,
    field: Field,
    folded: String,
}

/// One occurrence of the query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    pub at: At,
    /// The item (memory entry, skill, tool, argument) it is in, if any.
    pub item: Option<usize>,
    pub field: Field,
    /// Byte range in the field's text (as shown: variables substituted).
    pub range: (usize, usize),
    /// Its place among the matches of its segment (0 for the first), which
    /// a view uses to find it in the segment's rendered text.
    pub nth: usize,
}

/// The folded text of the messages indexed so far, field by field in
/// document order.
#[derive(Clone, Debug, Default)]
pub struct Index {
    entries: Vec<Entry>,
    /// Messages `0..messages` are indexed.
    messages: usize,
}

impl Index {
    /// Indexes the whole document.
    pub fn build(envelope: &Envelope, vars: &Vars) -> Index {
        let mut index = Index::default();
        index.add(envelope, vars, usize::MAX);
        index
    }

    /// Indexes the next messages, about `segments` segments' worth (at least
    /// one message); returns whether the document is now fully indexed.
    pub fn add(&mut self, envelope: &Envelope, vars: &Vars, segments: usize) -> bool {
        let mut done = 0usize;
        while self.messages < envelope.messages.len() && (done == 0 || done < segments) {
            let m = self.messages;
            for (s, segment) in envelope.messages[m].segments.iter().enumerate() {
                let at = At { message: m, segment: s };
                each_field(segment, vars, |item, field, text| {
                    if !text.is_empty() {
                        self.entries.push(Entry { at, item, field, folded: fold(text) });
                    }
                });
            }
            done += envelope.messages[m].segments.len().max(1);
            self.messages += 1;
        }
        self.messages >= envelope.messages.len()
    }

    /// Whether every message of `envelope` is indexed.
    pub fn is_complete(&self, envelope: &Envelope) -> bool {
        self.messages >= envelope.messages.len()
    }

    /// The number of fields indexed (what [`Index::find`]'s ranges count).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Appends the matches of `query` in fields `fields` to `out`, until
    /// `out` holds [`LIMIT`]; `nth` continues from `out`'s last match.
    pub fn find(&self, query: &Query, fields: Range<usize>, out: &mut Vec<Match>) {
        let end = fields.end.min(self.entries.len());
        for e in &self.entries[fields.start.min(end)..end] {
            if out.len() >= LIMIT {
                return;
            }
            let first = match out.last() {
                Some(last) if last.at == e.at => last.nth + 1,
                _ => 0,
            };
            for (nth, (start, hit)) in (first..).zip(e.folded.match_indices(query.0.as_str())) {
                out.push(Match { at: e.at, item: e.item, field: e.field, range: (start, start + hit.len()), nth });
                if out.len() >= LIMIT {
                    return;
                }
            }
        }
    }

    /// Every match of `text` in the document (at most [`LIMIT`]).
    pub fn search(&self, text: &str) -> Vec<Match> {
        let mut out = Vec::new();
        if let Some(q) = Query::new(text) {
            self.find(&q, 0..self.len(), &mut out);
        }
        out
    }
}

/// Calls `f(item, field, text)` for each searchable field of `segment`, in
/// the order the viewer shows them.
pub fn each_field(segment: &Segment, vars: &Vars, mut f: impl FnMut(Option<usize>, Field, &str)) {
    let sub = |text: &str| vars.apply(text);
    match segment {
        Segment::Text(s) => f(None, Field::Content, &sub(&s.content)),
        Segment::SystemPrompt(s) => f(None, Field::Content, &sub(&s.content)),
        Segment::LongText(s) => f(None, Field::Content, &sub(&s.content)),
        Segment::Reasoning(s) => f(None, Field::Content, &s.content),
        Segment::ProviderBlock(b) => f(None, Field::ToolName, b.tool_name().unwrap_or(b.block_type())),
        Segment::StaticVar(v) => {
            f(None, Field::VarName, &v.name);
            f(None, Field::VarValue, &v.value);
            if let Some(d) = &v.description {
                f(None, Field::VarDescription, d);
            }
        }
        Segment::Memory(s) => {
            if let Some(d) = &s.description {
                f(None, Field::Description, d);
            }
            for (k, it) in s.items.iter().enumerate() {
                f(Some(k), Field::ItemName, &sub(&it.title));
                f(Some(k), Field::ItemText, &sub(&it.content));
            }
        }
        Segment::Skills(s) => {
            if let Some(d) = &s.description {
                f(None, Field::Description, d);
            }
            for (k, it) in s.items.iter().enumerate() {
                f(Some(k), Field::ItemName, &sub(&it.name));
                f(Some(k), Field::ItemText, &sub(&it.description));
                if let Some(body) = &it.body {
                    f(Some(k), Field::ItemBody, &sub(body));
                }
            }
        }
        Segment::ToolOverview(s) => {
            for (k, it) in s.items.iter().enumerate() {
                f(Some(k), Field::ItemName, &it.name);
                f(Some(k), Field::ItemText, &sub(&it.description));
                if let Some(p) = &it.parameters {
                    f(Some(k), Field::ItemParameters, p);
                }
            }
        }
        Segment::ToolCallRequest(s) => {
            f(None, Field::ToolName, &s.tool_name);
            if let Some(id) = &s.call_id {
                f(None, Field::CallId, id);
            }
            for (k, (name, value)) in s.arguments.iter().enumerate() {
                f(Some(k), Field::ArgumentName, name);
                match value {
                    serde_json::Value::String(v) => f(Some(k), Field::ArgumentValue, v),
                    serde_json::Value::Array(_) | serde_json::Value::Object(_) => {
                        f(Some(k), Field::ArgumentValue, &serde_json::to_string_pretty(value).unwrap_or_default())
                    }
                    other => f(Some(k), Field::ArgumentValue, &other.to_string()),
                }
            }
        }
        Segment::ToolCallResult(s) => {
            f(None, Field::ToolName, &s.tool_name);
            f(None, Field::Result, &s.result);
        }
        Segment::Document(d) => {
            f(None, Field::FileName, &d.file_name);
            f(None, Field::MimeType, &d.mime_type);
            f(None, Field::Snippet, &d.snippet);
            if let Some(p) = &d.parsed_content {
                f(None, Field::ParsedContent, &sub(p));
            }
        }
        Segment::Media(m) => {
            if let Some(alt) = &m.alt_text {
                f(None, Field::AltText, &sub(alt));
            }
            if !m.url.trim_start().get(..5).is_some_and(|p| p.eq_ignore_ascii_case("data:")) {
                f(None, Field::Url, &m.url);
            }
        }
    }
}

/// A message's first words, for an outline: its first segment with prose
/// (variables substituted), else what its first segment is; whitespace
/// runs become one space; at most `max` characters (then `…`).
pub fn summary(message: &crate::types::Message, vars: &Vars, max: usize) -> String {
    let mut text = String::new();
    for segment in &message.segments {
        let found = match segment {
            Segment::Text(s) => vars.apply(&s.content),
            Segment::SystemPrompt(s) => vars.apply(&s.content),
            Segment::LongText(s) => vars.apply(&s.content),
            _ => continue,
        };
        if !found.trim().is_empty() {
            text = found;
            break;
        }
    }
    if text.is_empty() {
        text = match message.segments.first() {
            None => String::new(),
            Some(Segment::ToolCallRequest(c)) => format!("{}(…)", c.tool_name),
            Some(Segment::ToolCallResult(r)) => format!("{}: {}", r.tool_name, r.result),
            Some(Segment::Document(d)) => d.file_name.clone(),
            Some(Segment::StaticVar(v)) => format!("{} = {}", v.name, v.value),
            Some(Segment::Media(m)) => m.alt_text.clone().unwrap_or_else(|| "media".into()),
            Some(other) => other.kind().replace('_', " "),
        };
    }
    let mut out = String::new();
    let mut count = 0;
    for word in text.split_whitespace() {
        for c in (!out.is_empty()).then_some(' ').into_iter().chain(word.chars()) {
            if count == max {
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(json: &str) -> (Envelope, Vars) {
        let loaded = crate::parse(json).expect("valid");
        let vars = Vars::of(&loaded.envelope);
        (loaded.envelope, vars)
    }

    fn text_doc(texts: &[&str]) -> (Envelope, Vars) {
        let messages: Vec<String> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                format!(
                    r#"{{"id":"m{i}","role":"user","timestamp":1,"segments":[{{"kind":"text","content":{}}}]}}"#,
                    serde_json::to_string(t).unwrap()
                )
            })
            .collect();
        doc(&format!(r#"{{"version":"1.0","messages":[{}]}}"#, messages.join(",")))
    }

    #[test]
    fn fold_agrees_with_std_where_it_folds_and_keeps_utf8_lengths() {
        let covered = |u: u32| u < 0x180 || (0x386..0x3AC).contains(&u) || (0x400..0x430).contains(&u);
        for u in 0..0x11_0000u32 {
            let Some(c) = char::from_u32(u) else { continue };
            let f = fold_char(c);
            assert_eq!(f.len_utf8(), c.len_utf8(), "{c:?}");
            let mut std_lower = c.to_lowercase();
            let single = match (std_lower.next(), std_lower.next()) {
                (Some(l), None) => Some(l),
                _ => None,
            };
            if covered(u) {
                let want = single.filter(|l| l.len_utf8() == c.len_utf8()).unwrap_or(c);
                assert_eq!(f, want, "U+{u:04X}");
            } else {
                assert_eq!(f, c, "U+{u:04X} is outside the fold and stays");
            }
        }
        assert_eq!(fold("ÉCOLE Ünïcödé ΣΟΦΙΑ МОСКВА İ"), "école ünïcödé σοφια москва İ");
    }

    #[test]
    fn finds_in_every_segment_kind_collapsed_or_not_and_in_variable_values() {
        let (e, vars) = doc(r#"{"version":"1.0","messages":[
            {"id":"s","role":"system","timestamp":1,"segments":[
              {"kind":"system_prompt","content":"Be brief with {{who}}.","collapsed":true},
              {"kind":"static_var","name":"who","value":"Needle Person"},
              {"kind":"memory","collapsed":true,"items":[{"title":"t","content":"a needle in memory"}]},
              {"kind":"skills","collapsed":true,"items":[{"name":"pdf","description":"d","body":"NEEDLE body","loaded":false}]},
              {"kind":"tool_overview","collapsed":true,"items":[{"name":"needle_tool","description":"x"}]}]},
            {"id":"a","role":"assistant","timestamp":2,"segments":[
              {"kind":"tool_call_request","toolName":"needle_tool","arguments":{"q":"needle?","n":{"needle":1}},"collapsed":true,"callId":"c1"}]},
            {"id":"t","role":"tool","timestamp":3,"segments":[
              {"kind":"tool_call_result","toolName":"x","result":"found the needle","success":true,"collapsed":true,"callId":"c1"}]},
            {"id":"u","role":"user","timestamp":4,"segments":[
              {"kind":"document","fileName":"needle.pdf","mimeType":"application/pdf","snippet":"s","sizeBytes":1},
              {"kind":"long_text","content":"nothing","collapsed":true,"charCount":7},
              {"kind":"media","mediaType":"image","url":"https://x/needle.png","altText":"a Needle"}]}]}"#);
        let index = Index::build(&e, &vars);
        let hits = index.search("needle");
        let at = |m: usize, s: usize| At { message: m, segment: s };
        let found: Vec<(At, Option<usize>, Field, usize)> =
            hits.iter().map(|h| (h.at, h.item, h.field, h.nth)).collect();
        assert_eq!(
            found,
            vec![
                (at(0, 0), None, Field::Content, 0),
                (at(0, 1), None, Field::VarValue, 0),
                (at(0, 2), Some(0), Field::ItemText, 0),
                (at(0, 3), Some(0), Field::ItemBody, 0),
                (at(0, 4), Some(0), Field::ItemName, 0),
                (at(1, 0), None, Field::ToolName, 0),
                (at(1, 0), Some(0), Field::ArgumentValue, 1),
                (at(1, 0), Some(1), Field::ArgumentValue, 2),
                (at(2, 0), None, Field::Result, 0),
                (at(3, 0), None, Field::FileName, 0),
                (at(3, 2), None, Field::AltText, 0),
                (at(3, 2), None, Field::Url, 1),
            ]
        );
        // The system prompt is searched as shown: "Be brief with Needle Person."
        assert_eq!(hits[0].range, (14, 20));
        assert!(index.search("{{who}}").is_empty(), "placeholders are shown substituted");
        assert_eq!(index.search("c1").len(), 1, "the call id (the result shows no id field of its own)");
        assert!(index.search("").is_empty());
        assert!(index.search("absent").is_empty());
    }

    #[test]
    fn byte_ranges_point_at_the_original_text_in_any_script() {
        let texts =
            ["論文の査読：本研究は新しい手法を提案する。手法", "ÉCOLE école Ωmega ωMEGA", "x\u{202e}y\u{0}z<script>"];
        let (e, vars) = text_doc(&texts);
        let index = Index::build(&e, &vars);
        for (q, want) in [
            ("手法", vec![(0, 39, 45), (0, 63, 69)]),
            ("école", vec![(1, 0, 6), (1, 7, 13)]),
            ("ωmega", vec![(1, 14, 20), (1, 21, 27)]),
        ] {
            let got: Vec<(usize, usize, usize)> =
                index.search(q).iter().map(|h| (h.at.message, h.range.0, h.range.1)).collect();
            assert_eq!(got, want, "{q}");
            for (m, a, b) in got {
                assert_eq!(fold(&texts[m][a..b]), fold(q));
            }
        }
        let hostile = index.search("\u{202e}y\u{0}z<script>");
        assert_eq!(hostile.len(), 1);
        assert_eq!(hostile[0].range, (1, 1 + "\u{202e}y\u{0}z<script>".len()));
        assert_eq!(index.search("Ω").len(), 2, "Greek folds");
        assert!(index.search("ecole").is_empty(), "accents are not removed");
    }

    #[test]
    fn matches_do_not_overlap_and_nth_counts_within_a_segment() {
        let (e, vars) = text_doc(&["aaaa", "aXa a"]);
        let index = Index::build(&e, &vars);
        let hits = index.search("aa");
        assert_eq!(
            hits.iter().map(|h| (h.at.message, h.range.0, h.nth)).collect::<Vec<_>>(),
            vec![(0, 0, 0), (0, 2, 1)]
        );
        let hits = index.search("A");
        assert_eq!(
            hits.iter().map(|h| (h.at.message, h.nth)).collect::<Vec<_>>(),
            vec![(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2)]
        );
        assert_eq!(index.search("a a").len(), 1, "spaces are part of the query");
    }

    #[test]
    fn indexing_and_finding_in_steps_gives_the_same_matches() {
        let texts: Vec<String> = (0..50).map(|i| format!("line {i} needle {}", "needle ".repeat(i % 3))).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let (e, vars) = text_doc(&refs);
        let whole = Index::build(&e, &vars).search("NEEDLE");
        let mut index = Index::default();
        let mut steps = 0;
        while !index.add(&e, &vars, 7) {
            steps += 1;
        }
        assert!(steps >= 6 && index.is_complete(&e));
        let q = Query::new("needle").unwrap();
        let mut out = Vec::new();
        let mut from = 0;
        while from < index.len() {
            index.find(&q, from..from + 4, &mut out);
            from += 4;
        }
        assert_eq!(out, whole);
        assert_eq!(whole.len(), 50 + (0..50).map(|i| i % 3).sum::<usize>());
    }

    #[test]
    fn summaries_are_first_words_with_variables_and_bounded() {
        let (e, vars) = doc(r#"{"version":"1.0","messages":[
            {"id":"s","role":"system","timestamp":1,"segments":[
              {"kind":"static_var","name":"who","value":"Ada"},
              {"kind":"system_prompt","content":"  Hello\n\n {{who}},   be   brief. ","collapsed":true}]},
            {"id":"a","role":"assistant","timestamp":2,"segments":[
              {"kind":"tool_call_request","toolName":"search","arguments":{},"collapsed":true}]},
            {"id":"u","role":"user","timestamp":3,"segments":[{"kind":"text","content":"论文审阅：这是一个很长的句子"}]},
            {"id":"e","role":"user","timestamp":4,"segments":[]}]}"#);
        let m = &e.messages;
        assert_eq!(summary(&m[0], &vars, 100), "Hello Ada, be brief.");
        assert_eq!(summary(&m[0], &vars, 8), "Hello Ad…");
        assert_eq!(summary(&m[1], &vars, 100), "search(…)");
        assert_eq!(summary(&m[2], &vars, 4), "论文审阅…");
        assert_eq!(summary(&m[3], &vars, 10), "");
    }

    #[test]
    fn the_count_stops_at_the_limit() {
        let big = "x".repeat(LIMIT + 5);
        let (e, vars) = text_doc(&[&big, "x"]);
        assert_eq!(Index::build(&e, &vars).search("x").len(), LIMIT);
    }

    #[test]
    fn a_long_hostile_document_searches_in_linear_time() {
        // 200,000 near-misses and a 10,000-character query of the same letter.
        let hay = "ab".repeat(100_000);
        let (e, vars) = text_doc(&[&hay]);
        let index = Index::build(&e, &vars);
        let t = std::time::Instant::now();
        assert!(index.search(&"a".repeat(10_000)).is_empty());
        assert_eq!(index.search("ba").len(), 99_999.min(LIMIT));
        assert!(t.elapsed().as_secs_f64() < 2.0, "{:?}", t.elapsed());
    }
}
