//! `cache-variable` and `cache-timestamp`: what cuts the reusable prefix.
//!
//! A provider's prompt cache reuses the longest prefix of the prompt's tokens
//! that an earlier request had. A value that changes per request — a
//! substituted variable, the current time — ends that prefix where it stands.
//! Positions are o200k_base tokens of the strings the export sends, in order
//! (the `tools` part first, then each message: the parts of the Budget tab).

use super::fields::Field;
use super::{thousands, Ctx, Raw};
use crate::diag::Rule;
use crate::export::contributions;
use crate::parts::part_texts;
use crate::template::{placeholders, Vars};
use crate::tokens;
use crate::types::*;

/// Tokens of `s` that end at or before byte `offset`.
fn tokens_before(s: &str, offset: usize) -> u64 {
    if offset >= s.len() {
        return tokens::count(s) as u64;
    }
    let ids = tokens::encode(s);
    tokens::byte_spans(&ids).iter().take_while(|r| r.end <= offset).count() as u64
}

/// Where in the export a byte of one part string stands, in tokens.
struct Position {
    /// Index of the part (into the part list).
    part: usize,
    /// Tokens before it in the whole export.
    before: u64,
    /// Tokens before it within its part.
    before_in_part: u64,
}

/// The token position of byte `offset` of string `si` of part `pi`.
fn position(ctx: &Ctx, pi: usize, si: usize, offset: usize) -> Position {
    let parts = ctx.parts();
    let texts = ctx.part_texts();
    let earlier: u64 = parts[..pi].iter().map(|p| p.tokens).sum();
    let in_part: u64 = texts[pi].strings[..si].iter().map(|s| tokens::count(s) as u64).sum::<u64>()
        + tokens_before(&texts[pi].strings[si], offset);
    Position { part: pi, before: earlier + in_part, before_in_part: in_part }
}

/// The first byte where two strings differ.
fn first_difference(a: &str, b: &str) -> usize {
    a.char_indices().zip(b.chars()).find(|((_, x), y)| x != y).map_or(a.len().min(b.len()), |((i, _), _)| i)
}

/// `cache-variable`: the first substituted variable in export order.
pub fn variables(ctx: &Ctx) -> Vec<Raw> {
    let vars = Vars::of(ctx.envelope);
    let Some((pi, si, offset)) = first_substitution(ctx, &vars) else { return Vec::new() };
    let pos = position(ctx, pi, si, offset);
    let parts = ctx.parts();
    let total = ctx.total_tokens();
    let part = &parts[pos.part];
    // The placeholder in the document that made the difference.
    let (path, span, name) = match source_of(ctx, part.message, &vars) {
        Some(found) => found,
        None => return Vec::new(),
    };
    let after = total - pos.before;
    let in_system = match part.role {
        Some(Role::System) => {
            format!(" ({} of them in this system message)", thousands(part.tokens - pos.before_in_part))
        }
        None => format!(" ({} of them in the tool declarations)", thousands(part.tokens - pos.before_in_part)),
        _ => String::new(),
    };
    vec![Raw::new(
        Rule::CacheVariable,
        path,
        format!(
            "the first variable substitution, {{{{{name}}}}}, is at token {} of {}: when its value changes, the {} tokens after it{in_system} are not reused from the prompt cache",
            thousands(pos.before),
            thousands(total),
            thousands(after)
        ),
    )
    .span(span)
    .hint("keep what changes per request at the end of the prompt, after the stable instructions")]
}

/// Whether a segment's substituted fields use a known variable.
fn uses_a_variable(s: &Segment, vars: &Vars) -> bool {
    let mut found = false;
    crate::template::for_each_text_field(s, |_, text| {
        found = found || placeholders(text).iter().any(|p| vars.get(p.name).is_some());
    });
    found
}

/// The first substitution in export order, as (part, string, byte offset).
///
/// Each candidate — the tool declarations, then each message whose fields use
/// a variable — is exported again in a small envelope where every variable's
/// value is changed at its first character; the first byte where its strings
/// differ from the real ones is the first substitution (a use may send
/// nothing, e.g. the alt text of a user's image: then the next candidate).
fn first_substitution(ctx: &Ctx, vars: &Vars) -> Option<(usize, usize, usize)> {
    let env = ctx.envelope;
    let mark = |s: &Segment| -> Segment {
        let mut s = s.clone();
        if let Segment::StaticVar(v) = &mut s {
            let marker = if v.value.starts_with('\u{E000}') { '\u{E001}' } else { '\u{E000}' };
            v.value.insert(0, marker);
        }
        s
    };
    let all_vars: Vec<Segment> = env
        .messages
        .iter()
        .flat_map(|m| &m.segments)
        .filter(|s| matches!(s, Segment::StaticVar(_)))
        .map(mark)
        .collect();
    if all_vars.is_empty() {
        return None;
    }
    let holder = |segments: Vec<Segment>, role: Role| Message {
        id: String::new(),
        role,
        segments,
        timestamp: serde_json::Number::from(0),
        truncation_priority: None,
        ext: Default::default(),
    };
    let texts = ctx.part_texts();
    let compare = |mini: Envelope, part: usize, mini_part: usize| -> Option<(usize, usize, usize)> {
        let marked = part_texts(&mini, &contributions(&mini));
        let (real, fake) = (&texts.get(part)?.strings, &marked.get(mini_part)?.strings);
        real.iter()
            .zip(fake)
            .enumerate()
            .find(|(_, (x, y))| x != y)
            .map(|(si, (x, y))| (part, si, first_difference(x, y)))
    };
    let tools: Vec<Segment> = env
        .messages
        .iter()
        .flat_map(|m| &m.segments)
        .filter(|s| matches!(s, Segment::ToolOverview(_)))
        .cloned()
        .collect();
    if tools.iter().any(|s| uses_a_variable(s, vars)) {
        let mini = Envelope {
            version: env.version.clone(),
            prompt: None,
            model: None,
            params: None,
            messages: vec![holder(tools, Role::System), holder(all_vars.clone(), Role::System)],
            source: None,
        };
        if let Some(hit) = compare(mini, 0, 0) {
            return Some(hit);
        }
    }
    let first_message_part = usize::from(texts.first().is_some_and(|t| t.message.is_none()));
    for (mi, m) in env.messages.iter().enumerate() {
        if !m.segments.iter().any(|s| uses_a_variable(s, vars)) {
            continue;
        }
        let mut target = m.clone();
        target.segments = target.segments.iter().map(mark).collect();
        let mini = Envelope {
            version: env.version.clone(),
            prompt: None,
            model: None,
            params: None,
            messages: vec![target, holder(all_vars.clone(), Role::System)],
            source: None,
        };
        // The mini envelope's tools part (if any) comes first.
        let mini_part =
            usize::from(m.segments.iter().any(|s| matches!(s, Segment::ToolOverview(o) if !o.items.is_empty())));
        if let Some(hit) = compare(mini, first_message_part + mi, mini_part) {
            return Some(hit);
        }
    }
    None
}

/// The first placeholder of a known variable in message `mi` (or in the tool
/// declarations), as (path, span, name).
fn source_of(ctx: &Ctx, mi: Option<usize>, vars: &Vars) -> Option<(String, std::ops::Range<usize>, String)> {
    let mut found = None;
    let envelope = ctx.envelope;
    let mut visit = |mi: usize, sj: usize, s: &Segment| {
        if found.is_some() {
            return;
        }
        crate::template::for_each_text_field(s, |field, text| {
            if found.is_some() {
                return;
            }
            if let Some(p) = placeholders(text).into_iter().find(|p| vars.get(p.name).is_some()) {
                found = Some((format!("messages[{mi}].segments[{sj}].{field}"), p.range.clone(), p.name.to_string()));
            }
        });
    };
    match mi {
        Some(mi) => {
            for (sj, s) in envelope.messages[mi].segments.iter().enumerate() {
                visit(mi, sj, s);
            }
        }
        None => {
            for (mi, m) in envelope.messages.iter().enumerate() {
                for (sj, s) in m.segments.iter().enumerate() {
                    if matches!(s, Segment::ToolOverview(_)) {
                        visit(mi, sj, s);
                    }
                }
            }
        }
    }
    found
}

/// A timestamp-looking string at a position of `text`: an ISO 8601 date and
/// time (`2025-06-01T09:30`, `2025-06-01 09:30:00Z`), a time with seconds
/// (`09:30:00`), or Unix time in seconds or milliseconds (2017–2033).
pub fn timestamps_in(text: &str) -> Vec<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let digits = |i: usize| b[i.min(b.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.')) {
            i += 1;
            continue;
        }
        let n = digits(i);
        let end = i + n;
        let after = |k: usize| b.get(k).copied();
        // Date and time.
        if n == 4
            && after(end) == Some(b'-')
            && digits(end + 1) == 2
            && after(end + 3) == Some(b'-')
            && digits(end + 4) == 2
        {
            let t = end + 6;
            if matches!(after(t), Some(b'T' | b' '))
                && digits(t + 1) == 2
                && after(t + 3) == Some(b':')
                && digits(t + 4) == 2
            {
                let mut e = t + 6;
                if after(e) == Some(b':') && digits(e + 1) == 2 {
                    e += 3;
                    if after(e) == Some(b'.') {
                        e += 1 + digits(e + 1);
                    }
                }
                if after(e) == Some(b'Z') {
                    e += 1;
                } else if matches!(after(e), Some(b'+' | b'-')) && digits(e + 1) == 2 {
                    e += 3;
                    if after(e) == Some(b':') && digits(e + 1) == 2 {
                        e += 3;
                    }
                }
                out.push(i..e);
                i = e;
                continue;
            }
        }
        // hh:mm:ss
        if (1..=2).contains(&n)
            && after(end) == Some(b':')
            && digits(end + 1) == 2
            && after(end + 3) == Some(b':')
            && digits(end + 4) == 2
        {
            let e = end + 6;
            if !after(e).is_some_and(|c| c.is_ascii_alphanumeric()) {
                out.push(i..e);
                i = e;
                continue;
            }
        }
        // Unix time.
        let unix = (n == 10 || n == 13) && b[i] == b'1' && (b'5'..=b'9').contains(&b[i + 1]);
        if unix && !after(end).is_some_and(|c| c.is_ascii_alphanumeric() || c == b'.') {
            out.push(i..end);
        }
        i = end;
    }
    out
}

/// `cache-timestamp`: timestamp-looking strings in system messages.
pub fn timestamps(ctx: &Ctx, fields: &[Field]) -> Vec<Raw> {
    let mut out = Vec::new();
    let parts = ctx.parts();
    let total = ctx.total_tokens();
    for f in fields {
        let m = &ctx.envelope.messages[f.message];
        if m.role != Role::System || matches!(m.segments[f.segment], Segment::StaticVar(_)) {
            continue;
        }
        for r in timestamps_in(f.text) {
            let stamp = &f.text[r.clone()];
            // Where it stands in the export: its first occurrence in the message's strings.
            let pi = parts.iter().position(|p| p.message == Some(f.message));
            let at = pi.and_then(|pi| {
                ctx.part_texts()[pi].strings.iter().enumerate().find_map(|(si, s)| s.find(stamp).map(|o| (pi, si, o)))
            });
            let message = match at {
                Some((pi, si, o)) => {
                    let pos = position(ctx, pi, si, o);
                    format!(
                        "timestamp-looking `{stamp}` in a system message, at token {} of {}: if it changes per request, the {} tokens after it ({} in this message) are not reused from the prompt cache",
                        thousands(pos.before),
                        thousands(total),
                        thousands(total - pos.before),
                        thousands(parts[pi].tokens - pos.before_in_part)
                    )
                }
                None => format!("timestamp-looking `{stamp}` in a system message: if it changes per request, it cuts the reusable prefix there"),
            };
            out.push(
                Raw::new(Rule::CacheTimestamp, f.path(), message).span(r).hint(
                    "send the current time at the end (e.g. in the latest user message), not in the system prompt",
                ),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_shapes() {
        let found = |t: &str| timestamps_in(t).into_iter().map(|r| t[r].to_string()).collect::<Vec<_>>();
        assert_eq!(found("Now: 2025-06-01T09:30:00Z."), ["2025-06-01T09:30:00Z"]);
        assert_eq!(found("at 2025-06-01 09:30 (+02:00)"), ["2025-06-01 09:30"]);
        assert_eq!(found("2025-06-01T09:30:00.123+02:00 x"), ["2025-06-01T09:30:00.123+02:00"]);
        assert_eq!(
            found("time 09:30:05, epoch 1748770200 or 1748770200123"),
            ["09:30:05", "1748770200", "1748770200123"]
        );
        for none in
            ["2025-06-01", "meet at 09:30", "v1.2.3", "id 1234567890", "x1748770200", "1748770200.5", "12:30:00am"]
        {
            assert!(found(none).is_empty(), "{none}: {:?}", found(none));
        }
    }
}
