//! Skills handed to the `/skills` page: SKILL.md files opened, dropped or
//! pasted, or a folder. The opening paths (`components::loader`, in the
//! first screen's module) only tell such input apart ([`is_skill`],
//! [`dropped`]) and leave it here; the page (a split view) reads it.

use leptos::prelude::*;

/// What the user gave.
#[derive(Clone, Debug)]
pub enum SkillsInput {
    /// Files picked or dropped (from a folder input: every file of the
    /// folder, each with its relative path).
    Files(Vec<web_sys::File>),
    /// Dropped files and folders, as the drop's entries (read by the page).
    Entries(Vec<web_sys::FileSystemEntry>),
    /// A pasted SKILL.md.
    Text(String),
}

/// The input the page shows, with a number that changes with each new one.
#[derive(Clone, Copy)]
pub struct SkillsInbox(pub RwSignal<Option<(u64, SkillsInput)>, LocalStorage>);

impl SkillsInbox {
    pub fn new() -> Self {
        SkillsInbox(RwSignal::new_local(None))
    }

    pub fn expect() -> Self {
        expect_context::<SkillsInbox>()
    }

    /// Hands `input` to the page (to show it, navigate to `/skills`).
    pub fn put(&self, input: SkillsInput) {
        self.0.update(|slot| {
            let n = slot.as_ref().map_or(0, |(n, _)| n + 1);
            *slot = Some((n, input));
        });
    }
}

impl Default for SkillsInbox {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether a file (by name) or pasted text (by its first line) is a
/// SKILL.md rather than JSON: a Markdown file name, or text that opens
/// with a YAML front matter line (`---`, after an optional byte order mark).
pub fn is_skill(name: &str, bytes: &[u8]) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".md") || lower.ends_with(".markdown") {
        return true;
    }
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
    let Some(rest) = bytes.strip_prefix(b"---") else { return false };
    let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    rest[..line_end].iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// Skills in a drop: any folder (its entries, read by the page), or any
/// Markdown file among the dropped files. `None`: not skills (the drop
/// opens as a document). Called during the drop event: its items are gone
/// after it.
pub fn dropped(ev: &web_sys::DragEvent) -> Option<SkillsInput> {
    let transfer = ev.data_transfer()?;
    let items = transfer.items();
    let mut entries = Vec::new();
    for i in 0..items.length() {
        let Some(item) = items.get(i) else { continue };
        if item.kind() != "file" {
            continue;
        }
        if let Ok(Some(entry)) = item.webkit_get_as_entry() {
            entries.push(entry);
        }
    }
    if entries.iter().any(|e| e.is_directory()) {
        return Some(SkillsInput::Entries(entries));
    }
    let files = transfer.files()?;
    let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
    files.iter().any(|f| is_skill(&f.name(), &[])).then_some(SkillsInput::Files(files))
}

#[cfg(test)]
mod tests {
    use super::is_skill;

    #[test]
    fn skills_by_name_or_front_matter() {
        assert!(is_skill("SKILL.md", b""));
        assert!(is_skill("notes.MD", b"{}"));
        assert!(is_skill("x.markdown", b""));
        assert!(!is_skill("request.json", b"{\"model\": \"x\"}"));
        assert!(is_skill("", b"---\nname: x\n---\n"));
        assert!(is_skill("", b"\xef\xbb\xbf---  \r\nname: x"));
        assert!(is_skill("", b"---"));
        assert!(!is_skill("", b"--- # not front matter"));
        assert!(!is_skill("", b"----\n"));
        assert!(!is_skill("", b" ---\n"));
        assert!(!is_skill("", b"{\"version\": \"1.0\"}"));
        assert!(!is_skill("", b""));
    }
}
