//! Computing a comparison (feature `diff`): matching, line diffs, token
//! counts, the text report. The result types are the module's ([`super`]).

use serde_json::Value;
use similar::DiffTag;

use super::align::{align, line_diff};
use super::{cache, json, Comparison, FieldChange, Line, LineTag, MessageDiff, SegmentDiff, Status};
use crate::diag::Diagnostic;
use crate::display::thousands;
use crate::export::{contributions, Contributions, Piece};
use crate::parse::Loaded;
use crate::types::*;

/// Reads either side of a comparison: an envelope, or (with the `providers`
/// feature) an OpenAI Chat, OpenAI Responses or Anthropic Messages request,
/// imported. A body that is not recognisably a request is read as an
/// envelope, so its errors are the envelope's.
pub fn load_any(bytes: &[u8]) -> Result<Loaded, Vec<Diagnostic>> {
    #[cfg(feature = "providers")]
    {
        use crate::import::{self, Format};
        let text = crate::parse::utf8(bytes).map_err(|e| vec![e])?;
        let value = crate::parse::json(text)?;
        match import::detect(&value) {
            Ok(format) if format != Format::Envelope => {
                import::import_value(value, Some(format)).map(import::Imported::into_loaded)
            }
            _ => crate::parse::from_value(value),
        }
    }
    #[cfg(not(feature = "providers"))]
    crate::parse::parse_bytes(bytes)
}

/// The lines of a diff with context (for JSON and the app).
pub fn lines(a: &str, b: &str) -> Vec<Vec<Line>> {
    let d = similar::TextDiff::from_lines(a, b);
    d.grouped_ops(2)
        .iter()
        .map(|group| {
            group
                .iter()
                .flat_map(|op| d.iter_changes(op))
                .map(|c| Line {
                    tag: match c.tag() {
                        similar::ChangeTag::Equal => LineTag::Equal,
                        similar::ChangeTag::Delete => LineTag::Delete,
                        similar::ChangeTag::Insert => LineTag::Insert,
                    },
                    text: c.value().strip_suffix('\n').unwrap_or(c.value()).to_string(),
                })
                .collect()
        })
        .collect()
}

fn segment_json(s: &Segment) -> Value {
    serde_json::to_value(s).unwrap_or(Value::Null)
}

/// What a segment sends, as one text (text; a call's name and arguments; a
/// result; an image's URL); for segments that send no message text (a
/// variable, tool declarations), their JSON.
fn sent_text(c: &Contributions, mi: usize, sj: usize, s: &Segment) -> String {
    let piece = c.messages.get(mi).and_then(|m| m.pieces.iter().find(|(j, _)| *j == sj)).map(|(_, p)| p);
    match piece {
        Some(Piece::Text(t)) => t.clone(),
        Some(Piece::Image { url }) => format!("[image: {url}]"),
        Some(Piece::Call { name, arguments, .. }) => format!("{name}({arguments})"),
        Some(Piece::Result { content, .. }) => content.clone(),
        None => serde_json::to_string_pretty(&segment_json(s)).unwrap_or_default(),
    }
}

/// One side: the envelope, what it sends and its counts.
struct Side<'a> {
    env: &'a Envelope,
    c: Contributions,
    /// The prompt as counted items (see [`cache`]).
    items: Vec<cache::Placed>,
    /// Tokens per message (by index): [`message_tokens`].
    tokens: Vec<u64>,
    total: u64,
}

impl<'a> Side<'a> {
    fn new(env: &'a Envelope) -> Self {
        let c = contributions(env);
        // The items are the parts' strings (and images) in order, so their
        // counts add up to the parts' counts: tokenize once.
        let items = cache::items(env, &c);
        let tokens = message_tokens(env, &items);
        let total = items.iter().map(|p| p.tokens).sum();
        Side { env, c, items, tokens, total }
    }
}

/// Tokens per message (by index) of the counted `items`: each message's
/// part (the Budget tab's count), and the `tools` array's tokens in the
/// message that declares the tools (the first with a `tool_overview` that
/// has items), so that a message holding only tool declarations is not
/// "0 tokens" and the messages add up to the total.
fn message_tokens(env: &Envelope, items: &[cache::Placed]) -> Vec<u64> {
    let mut tokens = vec![0; env.messages.len()];
    let declares = env
        .messages
        .iter()
        .position(|m| m.segments.iter().any(|s| matches!(s, Segment::ToolOverview(o) if !o.items.is_empty())));
    for p in items {
        if let Some(mi) = p.message.or(declares) {
            tokens[mi] += p.tokens;
        }
    }
    tokens
}

/// Every segment of message `mi` of `side` as added (or removed), with the
/// whole text it sends as inserted (or deleted) lines.
fn whole_message(side: &Side, mi: usize, status: Status) -> Vec<SegmentDiff> {
    let removed = status == Status::Removed;
    let m = &side.env.messages[mi];
    m.segments
        .iter()
        .enumerate()
        .map(|(j, s)| {
            let t = sent_text(&side.c, mi, j, s);
            let (text, sent) =
                if removed { (lines(&t, ""), (t, String::new())) } else { (lines("", &t), (String::new(), t)) };
            SegmentDiff {
                status,
                before: removed.then_some(j),
                after: (!removed).then_some(j),
                kind: s.kind().into(),
                text,
                fields: Vec::new(),
                sent,
            }
        })
        .collect()
}

/// Pairs of message indices: by id, then by position (within the gap between
/// id-matched messages) and role.
fn match_messages(a: &Envelope, b: &Envelope) -> Vec<(Option<usize>, Option<usize>)> {
    let mut pair_of_a: Vec<Option<usize>> = vec![None; a.messages.len()];
    let mut taken_b = vec![false; b.messages.len()];
    let by_id: std::collections::HashMap<&str, usize> =
        b.messages.iter().enumerate().rev().map(|(j, m)| (m.id.as_str(), j)).collect();
    for (i, m) in a.messages.iter().enumerate() {
        if let Some(&j) = by_id.get(m.id.as_str()) {
            if !taken_b[j] {
                pair_of_a[i] = Some(j);
                taken_b[j] = true;
            }
        }
    }
    // Messages whose id changed: in order, within the same gap between
    // id-matched messages, with the same role.
    let id_pairs = pair_of_a.clone();
    for i in 0..a.messages.len() {
        if pair_of_a[i].is_some() {
            continue;
        }
        let lo = id_pairs[..i].iter().rev().flatten().next().map_or(0, |&j| j + 1);
        let hi = id_pairs[i + 1..].iter().flatten().next().copied().unwrap_or(b.messages.len()).max(lo);
        if let Some(j) = (lo..hi).find(|&j| !taken_b[j] && b.messages[j].role == a.messages[i].role) {
            pair_of_a[i] = Some(j);
            taken_b[j] = true;
        }
    }
    // Order: the second document's, with each removed message before the
    // next message of the first document that has a partner.
    type Row = ((usize, u8, usize), (Option<usize>, Option<usize>));
    let mut rows: Vec<Row> = Vec::new();
    for (j, taken) in taken_b.iter().enumerate() {
        if !taken {
            rows.push(((j, 1, 0), (None, Some(j))));
        }
    }
    for (i, p) in pair_of_a.iter().enumerate() {
        match p {
            Some(j) => rows.push(((*j, 1, 0), (Some(i), Some(*j)))),
            None => {
                let next = pair_of_a[i..].iter().flatten().next().copied().unwrap_or(b.messages.len());
                rows.push(((next, 0, i), (Some(i), None)));
            }
        }
    }
    rows.sort_by_key(|r| r.0);
    rows.into_iter().map(|r| r.1).collect()
}

fn compare_segments(a: &Side, ai: usize, b: &Side, bi: usize) -> Vec<SegmentDiff> {
    let (ma, mb) = (&a.env.messages[ai], &b.env.messages[bi]);
    let ka: Vec<String> = ma.segments.iter().map(|s| segment_json(s).to_string()).collect();
    let kb: Vec<String> = mb.segments.iter().map(|s| segment_json(s).to_string()).collect();
    // Equal JSON can still send different text (a variable changed elsewhere).
    let ta: Vec<String> = ma.segments.iter().enumerate().map(|(j, s)| sent_text(&a.c, ai, j, s)).collect();
    let tb: Vec<String> = mb.segments.iter().enumerate().map(|(j, s)| sent_text(&b.c, bi, j, s)).collect();
    let mut out = Vec::new();
    let changed = |i: usize, j: usize| {
        let (sa, sb) = (&ma.segments[i], &mb.segments[j]);
        let fields = json::diff(&segment_json(sa), &segment_json(sb));
        let text = if ta[i] != tb[j] { lines(&ta[i], &tb[j]) } else { Vec::new() };
        SegmentDiff {
            status: Status::Changed,
            before: Some(i),
            after: Some(j),
            kind: sb.kind().into(),
            text,
            fields,
            sent: (ta[i].clone(), tb[j].clone()),
        }
    };
    let one = |status, before: Option<usize>, after: Option<usize>, s: &Segment| SegmentDiff {
        status,
        before,
        after,
        kind: s.kind().into(),
        text: Vec::new(),
        fields: Vec::new(),
        sent: (before.map(|i| ta[i].clone()).unwrap_or_default(), after.map(|j| tb[j].clone()).unwrap_or_default()),
    };
    for op in align(&ka, &kb) {
        let (tag, ra, rb) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                for (i, j) in ra.zip(rb) {
                    if ta[i] != tb[j] {
                        out.push(changed(i, j));
                    }
                }
            }
            DiffTag::Delete => out.extend(ra.map(|i| one(Status::Removed, Some(i), None, &ma.segments[i]))),
            DiffTag::Insert => out.extend(rb.map(|j| one(Status::Added, None, Some(j), &mb.segments[j]))),
            DiffTag::Replace => {
                let n = ra.len().min(rb.len());
                for k in 0..n {
                    let (i, j) = (ra.start + k, rb.start + k);
                    if ma.segments[i].kind() == mb.segments[j].kind() {
                        out.push(changed(i, j));
                    } else {
                        out.push(one(Status::Removed, Some(i), None, &ma.segments[i]));
                        out.push(one(Status::Added, None, Some(j), &mb.segments[j]));
                    }
                }
                out.extend((ra.start + n..ra.end).map(|i| one(Status::Removed, Some(i), None, &ma.segments[i])));
                out.extend((rb.start + n..rb.end).map(|j| one(Status::Added, None, Some(j), &mb.segments[j])));
            }
        }
    }
    out
}

fn message_fields(a: &Message, b: &Message) -> Vec<FieldChange> {
    let strip = |m: &Message| {
        let mut v = serde_json::to_value(m).unwrap_or(Value::Null);
        if let Some(o) = v.as_object_mut() {
            o.remove("segments");
            // How a provider wrote the content (a string or parts, one turn
            // or two) is not what the model receives.
            o.remove("contentParts");
            o.remove("continues");
        }
        v
    };
    json::diff(&strip(a), &strip(b))
}

fn top_fields(a: &Envelope, b: &Envelope) -> Vec<FieldChange> {
    let strip = |e: &Envelope| {
        let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
        if let Some(o) = v.as_object_mut() {
            o.remove("messages");
            // The format a document was imported from is not sent.
            o.remove("source");
        }
        v
    };
    json::diff(&strip(a), &strip(b))
}

/// Compares two envelopes: `a` the previous version, `b` the new one.
pub fn compare(a: &Envelope, b: &Envelope) -> Comparison {
    compare_with(a, b, false)
}

/// As [`compare`], and each added or removed message also lists its
/// segments (all added or all removed), each with the whole text it sends
/// as inserted or deleted lines, as does each segment added to or removed
/// from a changed message: for a view that shows both versions side by side
/// (the app's Compare page), where `pep diff` only names them.
pub fn compare_in_full(a: &Envelope, b: &Envelope) -> Comparison {
    compare_with(a, b, true)
}

fn compare_with(a: &Envelope, b: &Envelope, full: bool) -> Comparison {
    let (sa, sb) = (Side::new(a), Side::new(b));
    let mut messages = Vec::new();
    let fields = top_fields(a, b);
    let mut equal = fields.is_empty();
    for (i, j) in match_messages(a, b) {
        let m = j.map(|j| &b.messages[j]).or(i.map(|i| &a.messages[i])).expect("a row has a side");
        let mut d = MessageDiff {
            status: Status::Unchanged,
            before: i,
            after: j,
            id: m.id.clone(),
            previous_id: None,
            role: m.role,
            tokens_before: i.map(|i| sa.tokens[i]),
            tokens_after: j.map(|j| sb.tokens[j]),
            segments: Vec::new(),
            fields: Vec::new(),
        };
        match (i, j) {
            (Some(i), Some(j)) => {
                let (ma, mb) = (&a.messages[i], &b.messages[j]);
                if ma.id != mb.id {
                    d.previous_id = Some(ma.id.clone());
                }
                d.segments = compare_segments(&sa, i, &sb, j);
                if full {
                    // A segment added to or removed from it: its whole text.
                    for s in d.segments.iter_mut().filter(|s| s.status != Status::Changed) {
                        s.text = lines(&s.sent.0, &s.sent.1);
                    }
                }
                d.fields = message_fields(ma, mb);
                if !d.segments.is_empty() || !d.fields.is_empty() {
                    d.status = Status::Changed;
                }
            }
            (Some(i), None) => {
                d.status = Status::Removed;
                if full {
                    d.segments = whole_message(&sa, i, Status::Removed);
                }
            }
            (None, j) => {
                d.status = Status::Added;
                if let (true, Some(j)) = (full, j) {
                    d.segments = whole_message(&sb, j, Status::Added);
                }
            }
        }
        if d.status != Status::Unchanged {
            equal = false;
        }
        messages.push(d);
    }
    Comparison {
        equal,
        fields,
        messages,
        tokens_before: sa.total,
        tokens_after: sb.total,
        cache: cache::break_point(a, &sa.items, b, &sb.items),
        findings: super::version::check(a, b, false).into_iter().collect(),
    }
}

fn signed(before: u64, after: u64) -> String {
    let d = after as i64 - before as i64;
    if d >= 0 {
        format!("+{}", thousands(d as u64))
    } else {
        format!("-{}", thousands(d.unsigned_abs()))
    }
}

/// The comparison as text, like `diff -u` over the conversation.
pub fn render_text(c: &Comparison, name_a: &str, name_b: &str) -> String {
    let n = thousands;
    let mut out = format!("--- {name_a}\n+++ {name_b}\n");
    for d in &c.findings {
        out.push_str(&format!("{}[{}]: {}\n", d.severity.as_str(), d.rule.code(), d.message));
        if let Some(h) = &d.hint {
            out.push_str(&format!("  = help: {h}\n"));
        }
    }
    if !c.fields.is_empty() {
        out.push_str(&json::render(&c.fields));
    }
    for m in &c.messages {
        let at = match (m.status, m.before, m.after) {
            (Status::Removed, Some(i), _) => format!("messages[{i}]"),
            (_, _, Some(j)) => format!("messages[{j}]"),
            _ => String::new(),
        };
        let id = match &m.previous_id {
            Some(p) => format!("`{p}` → `{}`", m.id),
            None => format!("`{}`", m.id),
        };
        let role = m.role.as_str();
        match m.status {
            Status::Unchanged => {}
            Status::Added => {
                out.push_str(&format!("+ {at} {id} ({role}): {} tokens\n", n(m.tokens_after.unwrap_or(0))))
            }
            Status::Removed => {
                out.push_str(&format!("- {at} {id} ({role}): {} tokens\n", n(m.tokens_before.unwrap_or(0))))
            }
            Status::Changed => {
                let (tb, ta) = (m.tokens_before.unwrap_or(0), m.tokens_after.unwrap_or(0));
                out.push_str(&format!("~ {at} {id} ({role}): {} → {} tokens ({})\n", n(tb), n(ta), signed(tb, ta)));
                for f in &m.fields {
                    out.push_str(&format!("  {}", json::render(std::slice::from_ref(f))));
                }
                for s in &m.segments {
                    let pos = match (s.status, s.before, s.after) {
                        (Status::Removed, Some(i), _) => format!("segments[{i}]"),
                        (_, _, Some(j)) => format!("segments[{j}]"),
                        _ => String::new(),
                    };
                    match s.status {
                        Status::Added => out.push_str(&format!("  + {pos} {}\n", s.kind)),
                        Status::Removed => out.push_str(&format!("  - {pos} {}\n", s.kind)),
                        _ => {
                            out.push_str(&format!("  ~ {pos} {}\n", s.kind));
                            if s.sent.0 != s.sent.1 {
                                out.push_str(&line_diff(&s.sent.0, &s.sent.1, "      "));
                            }
                            let meta: Vec<_> = s
                                .fields
                                .iter()
                                .filter(|f| {
                                    !matches!((&f.before, &f.after), (Some(Value::String(_)), Some(Value::String(_))))
                                        || s.sent.0 == s.sent.1
                                })
                                .cloned()
                                .collect();
                            for line in json::render(&meta).lines() {
                                out.push_str(&format!("      {line}\n"));
                            }
                        }
                    }
                }
            }
        }
    }
    out.push_str(&format!(
        "tokens: {} → {} ({})\n",
        n(c.tokens_before),
        n(c.tokens_after),
        signed(c.tokens_before, c.tokens_after)
    ));
    out.push_str(&format!("cache: {}\n", c.cache.sentence()));
    if c.equal {
        out.push_str("the documents are equal\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(text: &str) -> Envelope {
        crate::parse(text).unwrap_or_else(|e| panic!("{e:?}")).envelope
    }

    const TOOLS_ONLY: &str = r#"{"version":"1.0","messages":[
        {"id":"t","role":"system","timestamp":0,"segments":[
          {"kind":"tool_overview","collapsed":true,"items":[{"name":"search","description":"Search the web"}]}]},
        {"id":"u","role":"user","timestamp":1,"segments":[{"kind":"text","content":"Hello there"}]}]}"#;

    #[test]
    fn the_tools_count_in_the_message_that_declares_them() {
        let e = env(TOOLS_ONLY);
        let c = compare(&e, &e);
        let items = cache::items(&e, &contributions(&e));
        let tools: u64 = items.iter().filter(|p| p.message.is_none()).map(|p| p.tokens).sum();
        assert!(tools > 0);
        assert_eq!(c.messages[0].tokens_after, Some(tools), "not 0 tokens");
        assert_eq!(c.messages[1].tokens_after, Some(crate::tokens::count("Hello there") as u64));
        let sum: u64 = c.messages.iter().filter_map(|m| m.tokens_after).sum();
        assert_eq!(sum, c.tokens_after, "the messages add up to the total");
        // No tools: nothing moves.
        let plain = env(
            r#"{"version":"1.0","messages":[{"id":"u","role":"user","timestamp":1,"segments":[{"kind":"text","content":"Hi"}]}]}"#,
        );
        assert_eq!(
            message_tokens(&plain, &cache::items(&plain, &contributions(&plain))),
            vec![crate::tokens::count("Hi") as u64]
        );
    }

    #[test]
    fn in_full_an_added_or_removed_message_lists_its_segments_text() {
        let a = env(TOOLS_ONLY);
        let b = env(r#"{"version":"1.0","messages":[
            {"id":"u","role":"user","timestamp":1,"segments":[{"kind":"text","content":"Hello there"}]},
            {"id":"n","role":"assistant","timestamp":2,"segments":[
              {"kind":"text","content":"Line one\nline two"},
              {"kind":"tool_call_request","toolName":"search","arguments":{"q":"x"},"collapsed":true}]}]}"#);
        // `pep diff` names the message only.
        assert!(compare(&a, &b).messages.iter().all(|m| m.status == Status::Unchanged || m.segments.is_empty()));
        let c = compare_in_full(&a, &b);
        let removed = c.messages.iter().find(|m| m.status == Status::Removed).unwrap();
        assert_eq!(removed.segments.len(), 1);
        let s = &removed.segments[0];
        assert_eq!((s.status, s.before, s.after, s.kind.as_str()), (Status::Removed, Some(0), None, "tool_overview"));
        assert!(s.text.iter().flatten().all(|l| l.tag == LineTag::Delete));
        assert!(s.text.iter().flatten().any(|l| l.text.contains("Search the web")), "{:?}", s.text);
        // A segment removed from a changed message: its text too.
        let a2 = env(r#"{"version":"1.0","messages":[{"id":"u","role":"user","timestamp":1,"segments":[
            {"kind":"text","content":"Hello there"},{"kind":"text","content":"P.S. bye"}]}]}"#);
        let u = |c: &Comparison| c.messages.iter().find(|m| m.id == "u").unwrap().segments.clone();
        let s = &u(&compare_in_full(&a2, &b))[0];
        assert_eq!((s.status, s.before), (Status::Removed, Some(1)));
        assert_eq!(s.text, vec![vec![Line { tag: LineTag::Delete, text: "P.S. bye".into() }]]);
        assert!(u(&compare(&a2, &b))[0].text.is_empty(), "`pep diff` names it only");
        let added = c.messages.iter().find(|m| m.status == Status::Added).unwrap();
        let texts: Vec<Vec<(&str, &str)>> = added
            .segments
            .iter()
            .map(|s| s.text.iter().flatten().map(|l| (l.tag.as_str(), l.text.as_str())).collect())
            .collect();
        assert_eq!(
            texts,
            [vec![("insert", "Line one"), ("insert", "line two")], vec![("insert", r#"search({"q":"x"})"#)]]
        );
        assert!(added.segments.iter().enumerate().all(|(j, s)| s.status == Status::Added && s.after == Some(j)));
        // The rest is the comparison `compare` makes.
        let mut plain = compare(&a, &b);
        for m in &mut plain.messages {
            if m.status == Status::Added || m.status == Status::Removed {
                m.segments = c.messages.iter().find(|n| n.id == m.id).unwrap().segments.clone();
            }
        }
        assert_eq!(plain, c);
    }
}
