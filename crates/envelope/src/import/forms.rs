//! The export's own text forms, recognised in imported text, so that an
//! exported envelope comes back as the segments it was.
//!
//! The export (§4) joins a message's segments with `"\n\n"` and writes
//! memory, skills, documents and non-image media as text:
//! `## Memory\n- title: content`, `## Skills\n- name: description` (plus
//! `\n\n### Skill: name\n\nbody` per loaded skill), `[Document: file (mime,
//! N bytes)]\ncontent`, `[audio: URL] alt`. A text is split at a `"\n\n"`
//! only where one of these forms starts; each form is read and then written
//! back, and it is taken only when that gives the very same bytes, so the
//! split never changes the text the model receives. Everything else stays
//! one text segment: `system_prompt` in a system message, `text` elsewhere,
//! and `long_text` (collapsed) beyond [`LONG_TEXT_CHARS`] characters.
//!
//! In a user message `[image: URL]` stays text: there an image segment is
//! exported as an image part, not as this text.

use crate::export::segment_text;
use crate::template::Vars;
use crate::types::*;
use crate::validate::media_url_ok;

/// A plain text longer than this many characters (Unicode scalar values,
/// as `charCount` counts) becomes a collapsed `long_text`: about a thousand
/// tokens, two screens of reading.
pub const LONG_TEXT_CHARS: usize = 4000;

const MEMORY: &str = "## Memory\n";
const SKILLS: &str = "## Skills\n";
const DOCUMENT: &str = "[Document: ";
const SKILL_HEADER: &str = "### Skill: ";

/// What a text contributes, in order.
enum Part {
    Text(String),
    Seg(Box<Segment>),
}

/// The segments for the text of a message of `role` (none for an empty text).
pub fn segments(text: &str, role: Role) -> Vec<Segment> {
    if text.is_empty() {
        return vec![];
    }
    let starts = split_points(text, role);
    let mut parts: Vec<Part> = Vec::new();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(text.len(), |next| next - 2);
        chunk(&text[start..end], role, &mut parts);
    }
    // Adjacent texts were separated by "\n\n" in the original.
    let mut out = Vec::new();
    let mut run: Vec<String> = Vec::new();
    for p in parts {
        match p {
            Part::Text(t) => run.push(t),
            Part::Seg(s) => {
                if !run.is_empty() {
                    out.push(plain(run.join("\n\n"), role));
                    run.clear();
                }
                out.push(*s);
            }
        }
    }
    if !run.is_empty() {
        out.push(plain(run.join("\n\n"), role));
    }
    out
}

/// The segment for plain text.
pub fn plain(content: String, role: Role) -> Segment {
    if role == Role::System {
        return Segment::SystemPrompt(SystemPrompt { content, collapsed: true, ext: Default::default() });
    }
    let chars = content.chars().count();
    if chars > LONG_TEXT_CHARS {
        Segment::LongText(LongText { content, char_count: chars as i64, collapsed: true, ext: Default::default() })
    } else {
        Segment::Text(Text { content, ext: Default::default() })
    }
}

fn prefixes(role: Role) -> &'static [&'static str] {
    if role == Role::User {
        &[MEMORY, SKILLS, DOCUMENT, "[audio: ", "[video: "]
    } else {
        &[MEMORY, SKILLS, DOCUMENT, "[image: ", "[audio: ", "[video: "]
    }
}

/// Byte offsets where chunks start: 0, and every position right after a
/// `"\n\n"` where a form starts, if the chunk before it is not empty.
fn split_points(text: &str, role: Role) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut out = vec![0];
    for p in 2..bytes.len() {
        if bytes[p - 2] == b'\n'
            && bytes[p - 1] == b'\n'
            && p - 2 > *out.last().unwrap_or(&0)
            && prefixes(role).iter().any(|f| bytes[p..].starts_with(f.as_bytes()))
        {
            out.push(p);
        }
    }
    out
}

/// Reads one chunk: a form (and the text after it), or text.
fn chunk(chunk: &str, role: Role, out: &mut Vec<Part>) {
    let found = if chunk.starts_with(MEMORY) {
        memory(chunk)
    } else if chunk.starts_with(SKILLS) {
        skills(chunk)
    } else if chunk.starts_with(DOCUMENT) {
        document(chunk)
    } else {
        media(chunk, role)
    };
    if let Some((seg, used)) = found {
        // The form must write back to exactly the bytes it was read from.
        if segment_text(&seg, &Vars::default()).as_deref() == Some(&chunk[..used]) {
            if used == chunk.len() {
                out.push(Part::Seg(Box::new(seg)));
                return;
            }
            if let Some(rest) = chunk[used..].strip_prefix("\n\n").filter(|r| !r.is_empty()) {
                out.push(Part::Seg(Box::new(seg)));
                out.push(Part::Text(rest.to_string()));
                return;
            }
        }
    }
    out.push(Part::Text(chunk.to_string()));
}

/// The first paragraph: up to the first `"\n\n"`.
fn paragraph(s: &str) -> &str {
    s.find("\n\n").map_or(s, |i| &s[..i])
}

/// `- a: b` lines, a line not starting with `- ` continuing the previous item.
fn list_items(body: &str) -> Option<Vec<(String, String)>> {
    let mut items: Vec<(String, String)> = Vec::new();
    for line in body.split('\n') {
        match line.strip_prefix("- ").and_then(|l| l.split_once(": ")) {
            Some((a, b)) => items.push((a.to_string(), b.to_string())),
            None => {
                let last = items.last_mut()?;
                last.1.push('\n');
                last.1.push_str(line);
            }
        }
    }
    (!items.is_empty()).then_some(items)
}

fn memory(chunk: &str) -> Option<(Segment, usize)> {
    let para = paragraph(chunk);
    let items = list_items(&para[MEMORY.len()..])?;
    let items = items.into_iter().map(|(title, content)| MemoryItem { title, content }).collect();
    Some((Segment::Memory(Memory { items, collapsed: true, description: None }), para.len()))
}

fn skills(chunk: &str) -> Option<(Segment, usize)> {
    let para = paragraph(chunk);
    let mut items: Vec<SkillItem> = list_items(&para[SKILLS.len()..])?
        .into_iter()
        .map(|(name, description)| SkillItem { name, description, body: None, loaded: None })
        .collect();
    let mut used = para.len();
    // Loaded bodies follow in list order: `\n\n### Skill: name\n\nbody`.
    let mut next_item = 0;
    while let Some(rest) = chunk[used..].strip_prefix("\n\n").and_then(|r| r.strip_prefix(SKILL_HEADER)) {
        let Some((name, _)) = rest.split_once("\n\n") else { break };
        let Some(k) = (next_item..items.len()).find(|&k| items[k].name == name) else { break };
        let body_start = used + 2 + SKILL_HEADER.len() + name.len() + 2;
        let body_end = body_end(chunk, body_start, &items[k + 1..]);
        items[k].body = Some(chunk[body_start..body_end].to_string());
        items[k].loaded = Some(true);
        next_item = k + 1;
        used = body_end;
    }
    Some((Segment::Skills(Skills { items, collapsed: true, description: None }), used))
}

/// Where a skill body that starts at `from` ends: before the next
/// `\n\n### Skill: n\n\n` naming one of the `later` skills, or at the end.
fn body_end(chunk: &str, from: usize, later: &[SkillItem]) -> usize {
    let marker = "\n\n### Skill: ";
    let mut at = from;
    while let Some(off) = chunk[at..].find(marker) {
        let start = at + off;
        let after = &chunk[start + marker.len()..];
        if let Some((name, _)) = after.split_once("\n\n") {
            if later.iter().any(|it| it.name == name) {
                return start;
            }
        }
        at = start + 1;
    }
    chunk.len()
}

/// How much of a long document's text the `snippet` shows.
const SNIPPET_CHARS: usize = 200;

fn document(chunk: &str) -> Option<(Segment, usize)> {
    let (header, content) = chunk.split_once('\n')?;
    let inner = header.strip_prefix(DOCUMENT)?.strip_suffix(" bytes)]")?;
    let (left, size) = inner.rsplit_once(", ")?;
    if size.is_empty() || !size.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let size_bytes: u64 = size.parse().ok()?;
    let (file_name, mime_type) = left.rsplit_once(" (")?;
    Some((Segment::Document(document_segment(file_name, mime_type, size_bytes, content)), chunk.len()))
}

/// A document whose model text is `content`: the snippet is its beginning;
/// `parsedContent` holds it whole when it is longer than that.
pub fn document_segment(file_name: &str, mime_type: &str, size_bytes: u64, content: &str) -> Document {
    let cut = content.char_indices().nth(SNIPPET_CHARS).map_or(content.len(), |(i, _)| i);
    Document {
        file_name: file_name.to_string(),
        mime_type: mime_type.to_string(),
        snippet: content[..cut].to_string(),
        size_bytes,
        parsed_content: (cut < content.len()).then(|| content.to_string()),
        data: None,
        url: None,
        file_id: None,
        ext: Default::default(),
    }
}

fn media(chunk: &str, role: Role) -> Option<(Segment, usize)> {
    let (media_type, rest) = [MediaType::Image, MediaType::Audio, MediaType::Video]
        .into_iter()
        .filter(|t| role != Role::User || *t != MediaType::Image)
        .find_map(|t| chunk.strip_prefix(&format!("[{}: ", t.as_str())).map(|r| (t, r)))?;
    let para = paragraph(rest);
    // The URL ends at the first `]` that ends the paragraph or is followed by a space.
    let close =
        para.match_indices(']').map(|(i, _)| i).find(|&i| i + 1 == para.len() || para[i + 1..].starts_with(' '))?;
    let url = &para[..close];
    if !media_url_ok(media_type, url) {
        return None;
    }
    let alt_text = para[close + 1..].strip_prefix(' ').map(str::to_string);
    let used = chunk.len() - rest.len() + para.len();
    Some((Segment::Media(Media { media_type, url: url.to_string(), alt_text, ext: Default::default() }), used))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str, role: Role) -> Vec<&'static str> {
        segments(text, role).iter().map(Segment::kind).collect()
    }

    /// The segments export back to the text, byte for byte.
    fn round(text: &str, role: Role) -> Vec<Segment> {
        let segs = segments(text, role);
        let back: Vec<String> = segs.iter().filter_map(|s| segment_text(s, &Vars::default())).collect();
        assert_eq!(back.join("\n\n"), text);
        segs
    }

    #[test]
    fn memory_and_skills_with_bodies() {
        let t = "Intro\n\n## Memory\n- Name: Ann\n- City: Oslo\nstill Oslo\n\n## Skills\n- a: does A\n- b: does B\n\n### Skill: b\n\n# B\n\nsteps\n\nOutro";
        let segs = round(t, Role::System);
        assert_eq!(segs.iter().map(Segment::kind).collect::<Vec<_>>(), ["system_prompt", "memory", "skills"]);
        let Segment::Memory(m) = &segs[1] else { panic!() };
        assert_eq!(m.items[1].content, "Oslo\nstill Oslo");
        let Segment::Skills(s) = &segs[2] else { panic!() };
        assert_eq!(s.items[0].loaded, None);
        assert_eq!(s.items[1].body.as_deref(), Some("# B\n\nsteps\n\nOutro"));
    }

    #[test]
    fn two_loaded_bodies_split_at_the_next_header() {
        let t = "## Skills\n- a: A\n- b: B\n\n### Skill: a\n\nbody a\n\n### Skill: x\n\nnot a skill\n\n### Skill: b\n\nbody b";
        let segs = round(t, Role::System);
        let Segment::Skills(s) = &segs[0] else { panic!() };
        assert_eq!(s.items[0].body.as_deref(), Some("body a\n\n### Skill: x\n\nnot a skill"));
        assert_eq!(s.items[1].body.as_deref(), Some("body b"));
    }

    #[test]
    fn documents_and_media() {
        let t = "[Document: report (1).pdf (application/pdf, 2411724 bytes)]\nline\n\nmore\n\n[audio: https://x/a.mp3] voice\n\n[video: https://x/v.mp4]\n\nafter";
        let segs = round(t, Role::User);
        assert_eq!(segs.iter().map(Segment::kind).collect::<Vec<_>>(), ["document", "media", "media", "text"]);
        let Segment::Document(d) = &segs[0] else { panic!() };
        assert_eq!(
            (d.file_name.as_str(), d.mime_type.as_str(), d.size_bytes),
            ("report (1).pdf", "application/pdf", 2411724)
        );
        assert_eq!(d.model_text(), "line\n\nmore");
        let Segment::Media(m) = &segs[1] else { panic!() };
        assert_eq!(m.alt_text.as_deref(), Some("voice"));
    }

    #[test]
    fn image_text_is_media_except_in_user_messages() {
        assert_eq!(kinds("[image: https://x/i.png] chart", Role::Assistant), ["media"]);
        assert_eq!(kinds("[image: https://x/i.png] chart", Role::User), ["text"]);
        // A URL a media segment may not hold stays text.
        assert_eq!(kinds("[audio: javascript:alert(1)]", Role::Assistant), ["text"]);
    }

    #[test]
    fn splits_only_where_a_form_starts() {
        assert_eq!(kinds("a\n\nb\n\n## Not memory\n- x: y", Role::User), ["text"]);
        assert_eq!(kinds("## Memory\nno dash", Role::User), ["text"]);
        assert_eq!(kinds("\n\n## Memory\n- a: b", Role::User), ["text"]);
        assert_eq!(kinds("a\n\n\n## Memory\n- a: b", Role::User), ["text", "memory"]);
        round("a\n\n\n## Memory\n- a: b", Role::User);
        // A form followed only by "\n\n" cannot end there: all text.
        assert_eq!(kinds("## Memory\n- a: b\n\n", Role::User), ["text"]);
        round("## Memory\n- a: b\n\n\n\n[audio: https://x]", Role::User);
    }

    #[test]
    fn long_text_beyond_the_threshold() {
        let long = "x".repeat(LONG_TEXT_CHARS + 1);
        assert_eq!(kinds(&long, Role::User), ["long_text"]);
        assert_eq!(kinds(&"é".repeat(LONG_TEXT_CHARS), Role::User), ["text"]);
        assert_eq!(kinds(&long, Role::System), ["system_prompt"]);
        let Segment::LongText(l) = &segments(&long, Role::Assistant)[0] else { panic!() };
        assert_eq!(l.char_count as usize, LONG_TEXT_CHARS + 1);
    }
}
