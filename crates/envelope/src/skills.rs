//! Several SKILL.md files read together (a folder of skills, or files
//! given one by one): for each, what the model sees **before** the skill is
//! loaded — its L1, the line `- {name}: {description}` of the `skills`
//! segment's listing, which every request carries — and **after** — its L2,
//! `\n\n### Skill: {name}\n\n{body}`, added when it is loaded (PROTOCOL §4).
//! Both texts come from the export's own code ([`crate::export`]'s segment
//! text), so they are the bytes the request sends.
//!
//! - Each file is parsed by [`crate::skill::parse_skill_bytes`] with its
//!   folder (the directory holding it), so a `name` that differs from the
//!   folder is a warning. Every diagnostic carries the **line** of the file
//!   it concerns when there is one: a key's line for a warning about a
//!   field (`metadata.owner` → the line of `owner:`), the line of a syntax
//!   error.
//! - A file is **listed** (an item of the skills segment) unless it has an
//!   error: unreadable, no front matter (here an error: without it a file
//!   is not a skill), front matter that is not YAML or not a mapping, a
//!   field of the wrong type. A missing `name` is listed under its folder's
//!   name (the name the Agent Skills rule says it must have), a missing
//!   `description` as empty, each with its warning.
//! - Files are sorted by path (a browser hands a folder's files in no set
//!   order). Two listed skills with one `name` are each warned
//!   (`skill-duplicate-name`), naming the others' files; both stay listed,
//!   as a naive listing would send them.
//! - [`SkillSet::envelope`] is one system message holding one `skills`
//!   segment: every listed skill with its body, none loaded (or one), to
//!   open in the ordinary viewer.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Value};
use yaml_rust2::parser::Parser;
use yaml_rust2::Event;

use crate::diag::{Diagnostic, Rule, Severity};
use crate::export::segment_text;
use crate::skill::{parse_skill_bytes, split_front_matter, Skill, Split};
use crate::template::Vars;
use crate::types::{Segment, SkillItem, Skills};

/// The heading the listing starts with (PROTOCOL §4).
const HEADING: &str = "## Skills\n";

/// One file to read: its path as given (shown, and sorted on), the folder
/// holding it (for the name rule), and its bytes or why they could not be read.
#[derive(Clone, Debug)]
pub struct SkillFile {
    pub path: String,
    pub folder: Option<String>,
    pub content: Result<Vec<u8>, String>,
}

impl SkillFile {
    /// A file read from `path` (`/` or `\` separated); its folder is the
    /// path's last directory ([`folder_of`]).
    pub fn new(path: impl Into<String>, bytes: Vec<u8>) -> Self {
        let path = path.into();
        SkillFile { folder: folder_of(&path), path, content: Ok(bytes) }
    }

    /// A file that could not be read, and why.
    pub fn unreadable(path: impl Into<String>, why: impl Into<String>) -> Self {
        let path = path.into();
        SkillFile { folder: folder_of(&path), path, content: Err(why.into()) }
    }
}

/// The directory holding a file, from its path: `skills/pdf/SKILL.md` →
/// `pdf`; `SKILL.md`, `./SKILL.md` → none.
pub fn folder_of(path: &str) -> Option<String> {
    let mut parts = path.rsplit(['/', '\\']);
    parts.next()?;
    parts.next().filter(|f| !matches!(*f, "" | "." | "..")).map(str::to_owned)
}

/// A diagnostic and the line of the file it concerns (1-based), if any.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

impl Finding {
    pub fn is_error(&self) -> bool {
        self.diagnostic.severity == Severity::Error
    }
}

/// What the model sees of a listed skill.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Listed {
    /// As listed (the front matter's, or the folder's when it has none).
    pub name: String,
    pub description: String,
    /// Before loading: `- {name}: {description}`, one line of the listing.
    pub l1: String,
    /// After loading, added to the listing: `\n\n### Skill: {name}\n\n{body}`.
    pub l2: String,
    /// The file as parsed (front matter fields and body).
    pub skill: Skill,
    /// The line of the `name:` key, if written.
    #[serde(skip)]
    pub name_line: Option<usize>,
}

/// One file read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkillEntry {
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// `None` when the file has an error (it is not a skill the model sees).
    pub listed: Option<Listed>,
    /// Errors and warnings, in the parser's order, with their lines.
    pub findings: Vec<Finding>,
}

impl SkillEntry {
    pub fn errors(&self) -> usize {
        self.findings.iter().filter(|f| f.is_error()).count()
    }

    pub fn warnings(&self) -> usize {
        self.findings.len() - self.errors()
    }
}

/// Every file read, sorted by path.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SkillSet {
    pub entries: Vec<SkillEntry>,
    /// What every request carries: `## Skills\n` and one L1 line per listed
    /// skill (empty when none is listed).
    pub listing: String,
}

impl SkillSet {
    /// The listed skills, in order.
    pub fn listed(&self) -> impl Iterator<Item = &Listed> {
        self.entries.iter().filter_map(|e| e.listed.as_ref())
    }

    pub fn errors(&self) -> usize {
        self.entries.iter().map(SkillEntry::errors).sum()
    }

    pub fn warnings(&self) -> usize {
        self.entries.iter().map(SkillEntry::warnings).sum()
    }

    /// An envelope of one system message holding one `skills` segment with
    /// every listed skill and its body; none loaded, or the listed skill of
    /// index `loaded`.
    pub fn envelope(&self, loaded: Option<usize>) -> Value {
        let items: Vec<Value> = self
            .listed()
            .enumerate()
            .map(|(i, l)| {
                json!({
                    "name": l.name,
                    "description": l.description,
                    "body": l.skill.body,
                    "loaded": loaded == Some(i),
                })
            })
            .collect();
        let n = items.len();
        let what = match loaded.and_then(|i| self.listed().nth(i)) {
            Some(l) => format!("`{}` loaded", l.name),
            None => "none loaded".to_owned(),
        };
        let description = format!("{n} skill{} read from SKILL.md files; {what}", if n == 1 { "" } else { "s" });
        json!({
            "version": "1.0",
            "messages": [{
                "id": "skills",
                "role": "system",
                "timestamp": 0,
                "segments": [{ "kind": "skills", "collapsed": false, "description": description, "items": items }],
            }],
        })
    }
}

/// Reads every file (see the module documentation).
pub fn read_skills(files: Vec<SkillFile>) -> SkillSet {
    let mut files = files;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut entries: Vec<SkillEntry> = files.into_iter().map(read_one).collect();
    warn_duplicate_names(&mut entries);
    let items: Vec<SkillItem> = entries
        .iter()
        .filter_map(|e| e.listed.as_ref())
        .map(|l| item(&l.name, &l.description, &l.skill.body, false))
        .collect();
    let listing = segment_text(&skills_segment(items), &Vars::default()).unwrap_or_default();
    SkillSet { entries, listing }
}

fn item(name: &str, description: &str, body: &str, loaded: bool) -> SkillItem {
    SkillItem {
        name: name.to_owned(),
        description: description.to_owned(),
        body: Some(body.to_owned()),
        loaded: Some(loaded),
    }
}

fn skills_segment(items: Vec<SkillItem>) -> Segment {
    Segment::Skills(Skills { items, collapsed: false, description: None })
}

/// L1 and L2 of one skill, as the export writes them: the segment's text
/// with the skill alone, not loaded (the listing's heading and its line),
/// then loaded (the same, and what loading adds).
fn texts(name: &str, description: &str, body: &str) -> (String, String) {
    let vars = Vars::default();
    let text = |loaded| segment_text(&skills_segment(vec![item(name, description, body, loaded)]), &vars);
    let before = text(false).unwrap_or_default();
    let after = text(true).unwrap_or_default();
    let l1 = before.strip_prefix(HEADING).unwrap_or(&before).to_owned();
    let l2 = after.strip_prefix(before.as_str()).unwrap_or(&after).to_owned();
    (l1, l2)
}

fn read_one(file: SkillFile) -> SkillEntry {
    let SkillFile { path, folder, content } = file;
    let bytes = match content {
        Ok(b) => b,
        Err(why) => {
            let d = Diagnostic::new(Rule::UnreadableFile, "", format!("the file could not be read: {why}"));
            return SkillEntry {
                file: path,
                folder,
                listed: None,
                findings: vec![Finding { diagnostic: d, line: None }],
            };
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines = KeyLines::of(&text);
    let (parsed, diags) = match parse_skill_bytes(&bytes, folder.as_deref()) {
        Ok((skill, diags)) => (Some(skill), diags),
        Err(diags) => (None, diags),
    };
    let mut findings: Vec<Finding> = diags
        .into_iter()
        .map(|d| {
            let d = if d.rule == Rule::SkillNoFrontMatter {
                Diagnostic::new(
                    Rule::SkillNoFrontMatter,
                    "line 1",
                    "no YAML front matter: a SKILL.md starts with a `---` line, then `name:` and `description:`, then `---`",
                )
                .with_severity(Severity::Error)
            } else {
                d
            };
            let line = lines.line(&d.path);
            Finding { diagnostic: d, line }
        })
        .collect();
    let listed = match parsed {
        Some(skill) if !findings.iter().any(Finding::is_error) => {
            let name = match &skill.name {
                Some(n) => n.clone(),
                None => {
                    let fallback = folder.clone().unwrap_or_else(|| stem(&path));
                    for f in findings.iter_mut().filter(|f| f.diagnostic.path == "name") {
                        if f.diagnostic.message == "missing name" {
                            f.diagnostic.message = format!("missing name; listed under its folder's name `{fallback}`");
                        }
                    }
                    fallback
                }
            };
            let description = skill.description.clone().unwrap_or_default();
            let (l1, l2) = texts(&name, &description, &skill.body);
            Some(Listed { name, description, l1, l2, skill, name_line: lines.line("name") })
        }
        _ => None,
    };
    SkillEntry { file: path, folder, listed, findings }
}

/// A file's name without its extension (`notes.md` → `notes`), for a skill
/// without a name or a folder.
fn stem(path: &str) -> String {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    if stem.is_empty() {
        "skill".to_owned()
    } else {
        stem.to_owned()
    }
}

/// Every listed skill whose name another listed skill has gets a warning
/// naming the other files.
fn warn_duplicate_names(entries: &mut [SkillEntry]) {
    let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(l) = &e.listed {
            by_name.entry(l.name.clone()).or_default().push(i);
        }
    }
    let mut groups: Vec<Vec<usize>> = by_name.into_values().filter(|g| g.len() > 1).collect();
    groups.sort();
    for group in groups {
        for &i in &group {
            let others: Vec<String> =
                group.iter().filter(|&&j| j != i).map(|&j| format!("`{}`", entries[j].file)).collect();
            let (name, line) = entries[i].listed.as_ref().map(|l| (l.name.clone(), l.name_line)).unwrap_or_default();
            let d = Diagnostic::new(
                Rule::SkillDuplicateName,
                "name",
                format!(
                    "`{name}` is also the name of {}: the model sees two skills it cannot tell apart",
                    others.join(", ")
                ),
            );
            entries[i].findings.push(Finding { diagnostic: d, line });
        }
    }
}

/// The file line of each node of the front matter, by the path the parser's
/// diagnostics use: `name`, `metadata.owner`, `allowed-tools[1]` (a key's
/// line for a mapping entry, the item's line for a list item).
struct KeyLines(HashMap<String, usize>);

enum Frame {
    Map { path: String, key: Option<String>, expect_key: bool },
    Seq { path: String, index: usize },
}

impl KeyLines {
    /// Empty when the text has no front matter or it does not parse (the
    /// parser's errors then say `line N column C` themselves).
    fn of(text: &str) -> Self {
        let mut lines = HashMap::new();
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let Split::Found { yaml, .. } = split_front_matter(text) else {
            return KeyLines(lines);
        };
        let mut stack: Vec<Frame> = Vec::new();
        let mut parser = Parser::new_from_str(yaml);
        while let Ok((event, mark)) = parser.next_token() {
            // The front matter starts on the file's second line; markers count from 1.
            let line = mark.line() + 1;
            match event {
                Event::StreamEnd => break,
                Event::Scalar(value, ..) => {
                    Self::start(&mut stack, Some(value), line, &mut lines);
                    Self::end(&mut stack);
                }
                Event::Alias(_) => {
                    Self::start(&mut stack, None, line, &mut lines);
                    Self::end(&mut stack);
                }
                Event::MappingStart(..) => {
                    let path = Self::start(&mut stack, None, line, &mut lines);
                    stack.push(Frame::Map { path, key: None, expect_key: true });
                }
                Event::SequenceStart(..) => {
                    let path = Self::start(&mut stack, None, line, &mut lines);
                    stack.push(Frame::Seq { path, index: 0 });
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    stack.pop();
                    Self::end(&mut stack);
                }
                _ => {}
            }
        }
        KeyLines(lines)
    }

    /// A node starts (a scalar's text given): records its line, answers its path.
    fn start(stack: &mut [Frame], scalar: Option<String>, line: usize, lines: &mut HashMap<String, usize>) -> String {
        let child = |parent: &str, name: &str| {
            if parent.is_empty() {
                name.to_owned()
            } else {
                format!("{parent}.{name}")
            }
        };
        match stack.last_mut() {
            None => String::new(),
            Some(Frame::Map { path, key, expect_key: true }) => {
                // A key: its line is the entry's. (A list or mapping as a key has no path.)
                *key = scalar;
                if let Some(k) = key {
                    lines.entry(child(path, k)).or_insert(line);
                }
                String::new()
            }
            Some(Frame::Map { path, key, expect_key: false }) => child(path, key.as_deref().unwrap_or("?")),
            Some(Frame::Seq { path, index }) => {
                let p = format!("{path}[{index}]");
                lines.entry(p.clone()).or_insert(line);
                p
            }
        }
    }

    /// A node ended: a mapping goes from key to value or back, a list to its next item.
    fn end(stack: &mut [Frame]) {
        match stack.last_mut() {
            Some(Frame::Map { expect_key, .. }) => *expect_key = !*expect_key,
            Some(Frame::Seq { index, .. }) => *index += 1,
            None => {}
        }
    }

    /// The line of a diagnostic's path: `line N` / `line N column C` as
    /// written, else the line of the path or of its nearest parent.
    fn line(&self, path: &str) -> Option<usize> {
        if let Some(rest) = path.strip_prefix("line ") {
            return rest.split(' ').next()?.parse().ok();
        }
        let mut p = path;
        while !p.is_empty() {
            if let Some(&l) = self.0.get(p) {
                return Some(l);
            }
            p = &p[..p.rfind(['.', '['])?];
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, text: &str) -> SkillFile {
        SkillFile::new(path, text.as_bytes().to_vec())
    }

    fn one(path: &str, text: &str) -> SkillEntry {
        read_skills(vec![file(path, text)]).entries.remove(0)
    }

    fn lines_of(e: &SkillEntry) -> Vec<(String, Option<usize>)> {
        e.findings.iter().map(|f| (f.diagnostic.path.clone(), f.line)).collect()
    }

    #[test]
    fn folders_from_paths() {
        assert_eq!(folder_of("skills/pdf/SKILL.md").as_deref(), Some("pdf"));
        assert_eq!(folder_of("pdf\\SKILL.md").as_deref(), Some("pdf"));
        assert_eq!(folder_of("SKILL.md"), None);
        assert_eq!(folder_of("./SKILL.md"), None);
        assert_eq!(folder_of("../SKILL.md"), None);
        assert_eq!(folder_of("/SKILL.md"), None);
        assert_eq!(folder_of(""), None);
    }

    #[test]
    fn l1_and_l2_are_the_protocol_texts() {
        let e = one("pdf/SKILL.md", "---\nname: pdf\ndescription: Read PDFs.\n---\n\n# PDF\n\nUse it.\n");
        let l = e.listed.unwrap();
        assert_eq!(l.l1, "- pdf: Read PDFs.");
        assert_eq!(l.l2, "\n\n### Skill: pdf\n\n# PDF\n\nUse it.");
        assert!(e.findings.is_empty(), "{:?}", e.findings);
    }

    #[test]
    fn listing_of_several_sorted_by_path() {
        let set = read_skills(vec![
            file("b/SKILL.md", "---\nname: b\ndescription: Bee.\n---\nB body"),
            file("a/SKILL.md", "---\nname: a\ndescription: Ay.\n---\nA body"),
        ]);
        assert_eq!(set.listing, "## Skills\n- a: Ay.\n- b: Bee.");
        let names: Vec<&str> = set.listed().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(read_skills(vec![]).listing, "");
    }

    #[test]
    fn warnings_carry_the_line_of_their_key() {
        let text = "---\nname: Bad_Name\nlicense: MIT\nmetadata:\n  owner: x\n  nested:\n    k: 1\nallowed-tools:\n  - Read\n  - 7\nmodel: opus\n---\nbody";
        let e = one("Bad_Name/SKILL.md", text);
        assert!(e.listed.is_some());
        assert_eq!(
            lines_of(&e),
            [
                ("allowed-tools[1]".to_string(), Some(10)),
                ("model".to_string(), Some(11)),
                ("name".to_string(), Some(2)),
                ("description".to_string(), None),
            ],
            "{:?}",
            e.findings
        );
        let k = KeyLines::of(text);
        assert_eq!(k.line("metadata.owner"), Some(5));
        assert_eq!(k.line("metadata.nested.k"), Some(7));
        assert_eq!(k.line("metadata.nested.missing"), Some(6));
        assert_eq!(k.line("allowed-tools[0]"), Some(9));
        assert_eq!(k.line("nowhere"), None);
        assert_eq!(k.line("line 4 column 2"), Some(4));
        assert_eq!(k.line(""), None);
        // Flow style, CRLF and a byte order mark count lines the same way.
        let k = KeyLines::of("\u{feff}---\r\nname: a\r\nmetadata: {a: 1,\r\n  b: 2}\r\n---\r\n");
        assert_eq!((k.line("name"), k.line("metadata.a"), k.line("metadata.b")), (Some(2), Some(3), Some(4)));
    }

    #[test]
    fn errors_are_not_listed_and_say_where() {
        let e = one("x/SKILL.md", "---\nname: x\ndescription: [unclosed\n---\nbody");
        assert!(e.listed.is_none());
        assert_eq!(e.errors(), 1);
        assert!(e.findings[0].line.is_some(), "{:?}", e.findings);
        let e = one("x/SKILL.md", "# Just Markdown\n");
        assert!(e.listed.is_none());
        assert_eq!(e.findings[0].diagnostic.rule, Rule::SkillNoFrontMatter);
        assert!(e.findings[0].is_error());
        assert_eq!(e.findings[0].line, Some(1));
        let e = one("x/SKILL.md", "---\nname: [a]\ndescription: d\n---\n");
        assert!(e.listed.is_none());
        assert_eq!(lines_of(&e), [("name".to_string(), Some(2))]);
        let set = read_skills(vec![SkillFile::unreadable("gone/SKILL.md", "permission denied")]);
        assert_eq!(set.errors(), 1);
        assert!(set.entries[0].findings[0].diagnostic.message.contains("permission denied"));
        assert_eq!(set.listing, "");
    }

    #[test]
    fn missing_name_and_description_are_listed_with_warnings() {
        let e = one("tidy/SKILL.md", "---\nlicense: MIT\n---\nBody");
        let l = e.listed.as_ref().unwrap();
        assert_eq!((l.name.as_str(), l.description.as_str()), ("tidy", ""));
        assert_eq!(l.l1, "- tidy: ");
        assert_eq!(e.findings[0].diagnostic.message, "missing name; listed under its folder's name `tidy`");
        assert_eq!(e.findings[1].diagnostic.message, "missing description");
        let e = one("notes.md", "---\ndescription: d\n---\n");
        assert_eq!(e.listed.unwrap().name, "notes");
    }

    #[test]
    fn folder_mismatch_is_a_warning_on_the_name_line() {
        let e = one("skills/starter/SKILL.md", "---\ndescription: d\nname: starter-skill\n---\n");
        assert_eq!(lines_of(&e), [("name".to_string(), Some(3))]);
        assert!(e.findings[0].diagnostic.message.contains("differs from its folder `starter`"));
    }

    #[test]
    fn duplicate_names_warn_every_holder() {
        let set = read_skills(vec![
            file("pdf/SKILL.md", "---\nname: pdf\ndescription: one\n---\n"),
            file("pdf-old/SKILL.md", "---\ndescription: two\nname: pdf\n---\n"),
            file("other/SKILL.md", "---\nname: other\ndescription: three\n---\n"),
        ]);
        let dup: Vec<(&str, Option<usize>, &str)> = set
            .entries
            .iter()
            .flat_map(|e| e.findings.iter().map(move |f| (e.file.as_str(), f, f.line)))
            .filter(|(_, f, _)| f.diagnostic.rule == Rule::SkillDuplicateName)
            .map(|(file, f, line)| (file, line, f.diagnostic.message.as_str()))
            .collect();
        assert_eq!(dup.len(), 2, "{dup:?}");
        assert_eq!(dup[0].0, "pdf-old/SKILL.md");
        assert_eq!(dup[0].1, Some(3));
        assert!(dup[0].2.contains("`pdf/SKILL.md`"), "{dup:?}");
        assert_eq!(dup[1].0, "pdf/SKILL.md");
        assert_eq!(dup[1].1, Some(2));
        // Both stay listed, in path order (`pdf-old/` sorts before `pdf/`).
        assert_eq!(set.listing, "## Skills\n- other: three\n- pdf: two\n- pdf: one");
    }

    #[test]
    fn the_envelope_validates_and_exports_the_same_texts() {
        let set = read_skills(vec![
            file("a/SKILL.md", "---\nname: a\ndescription: Ay {{x}}.\n---\n# A\n\nBody of a."),
            file("b/SKILL.md", "---\nname: b\ndescription: \"Bee\\nsecond line\"\n---\nB"),
            file("c/SKILL.md", "no front matter"),
        ]);
        let content = |loaded: Option<usize>| {
            let loaded_env = crate::parse::from_value(set.envelope(loaded)).expect("valid envelope");
            let request = crate::export::openai_request(&loaded_env.envelope);
            request["messages"][0]["content"].as_str().unwrap().to_owned()
        };
        assert_eq!(content(None), set.listing);
        let listed: Vec<&Listed> = set.listed().collect();
        assert_eq!(listed.len(), 2);
        for (i, l) in listed.iter().enumerate() {
            assert_eq!(content(Some(i)), format!("{}{}", set.listing, l.l2));
            assert!(set.listing.contains(&format!("\n{}", l.l1)));
        }
        // All loaded: the listing, then each L2 in order.
        let mut all = set.envelope(None);
        for it in all["messages"][0]["segments"][0]["items"].as_array_mut().unwrap() {
            it["loaded"] = json!(true);
        }
        let env = crate::parse::from_value(all).unwrap().envelope;
        let text = crate::export::openai_request(&env)["messages"][0]["content"].as_str().unwrap().to_owned();
        assert_eq!(text, format!("{}{}{}", set.listing, listed[0].l2, listed[1].l2));
    }

    #[test]
    fn hostile_files_never_panic() {
        let texts = [
            "",
            "---",
            "---\n---",
            "---\n? [a, b]\n: c\n---\n",
            "---\n- a\n---\n",
            "---\n&a x: *a\n---\n",
            "---\nname: \u{202e}evil\ndescription: \"\\0\"\n---\n<script>x</script>",
        ];
        let files = texts.iter().enumerate().map(|(i, t)| file(&format!("{i}/SKILL.md"), t)).collect();
        let set = read_skills(files);
        assert_eq!(set.entries.len(), texts.len());
        let _ = crate::parse::from_value(set.envelope(None)).expect("valid envelope");
    }
}
