//! `pep skill DIR|FILE...`: several SKILL.md files (a folder of skills,
//! searched recursively, or files one by one) and what the model sees of
//! each: before it is loaded, its line of the listing (L1); after, its body
//! (L2). Tokens are o200k_base, as `pep tokens` counts them. A table, or
//! `--format json`; each file's errors and warnings on stderr with their line.
//! Exit 1 when a file has an error (it is not listed).

use std::fs;
use std::path::{Path, PathBuf};

use envelope::skills::{read_skills, Finding, SkillFile, SkillSet};
use envelope::{export, tokens};
use serde_json::{json, Value};

use crate::{Done, Failure};

/// Output of `pep skill` over several files.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SkillsFormat {
    Table,
    Json,
}

/// Folders not searched: their SKILL.md files are not skills of the project.
const SKIPPED: &[&str] = &[".git", "node_modules"];

/// The files to read: every argument that is a file, and every `SKILL.md`
/// under each folder (sorted; symbolic links to folders are not followed).
fn gather(args: &[String]) -> Result<Vec<SkillFile>, Failure> {
    let mut files = Vec::new();
    for arg in args {
        let path = Path::new(arg);
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found).map_err(|e| Failure::input(format!("{arg}: error: cannot read the folder: {e}")))?;
            if found.is_empty() {
                return Err(Failure::input(format!("{arg}: error: no SKILL.md file in this folder or below it")));
            }
            found.sort();
            files.extend(found.iter().map(|p| file(p)));
        } else {
            files.push(file(path));
        }
    }
    Ok(files)
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() {
            if !SKIPPED.iter().any(|s| entry.file_name() == *s) {
                walk(&path, found)?;
            }
        } else if entry.file_name() == "SKILL.md" && (kind.is_file() || path.is_file()) {
            found.push(path);
        }
    }
    Ok(())
}

/// A file read, its folder the name of the directory holding it (also for
/// `./SKILL.md`).
fn file(path: &Path) -> SkillFile {
    let shown = path.display().to_string();
    let folder = fs::canonicalize(path)
        .ok()
        .and_then(|p| p.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned()));
    let content = fs::read(path).map_err(|e| e.to_string());
    SkillFile { path: shown, folder, content }
}

/// `FILE:LINE: warning: PATH: message [code]`; without a line (or when the
/// path is already `line N column C`) `FILE: warning: …`, as `pep skill FILE`.
fn finding_line(file: &str, f: &Finding) -> String {
    let d = &f.diagnostic;
    match f.line {
        Some(line) if !d.path.starts_with("line ") => {
            format!("{file}:{line}: {}: {d} [{}]", d.severity.as_str(), d.code())
        }
        _ => crate::line(file, d),
    }
}

/// The tokens of each listed skill's L1 and L2, and of the whole listing.
struct Counts {
    listing: usize,
    /// Per entry: (L1, L2) when listed.
    skills: Vec<Option<(usize, usize)>>,
}

fn count(set: &SkillSet) -> Counts {
    Counts {
        listing: tokens::count(&set.listing),
        skills: set
            .entries
            .iter()
            .map(|e| e.listed.as_ref().map(|l| (tokens::count(&l.l1), tokens::count(&l.l2))))
            .collect(),
    }
}

fn thousands(n: usize) -> String {
    envelope::display::thousands(n as u64)
}

fn plural(n: usize, one: &str) -> String {
    format!("{} {one}{}", thousands(n), if n == 1 { "" } else { "s" })
}

fn table(set: &SkillSet, counts: &Counts) -> String {
    let mut rows = vec![[
        "NAME".to_owned(),
        "FILE".to_owned(),
        "L1 TOKENS".to_owned(),
        "L2 TOKENS".to_owned(),
        "WARNINGS".to_owned(),
    ]];
    for (e, c) in set.entries.iter().zip(&counts.skills) {
        let (name, l1, l2) = match (&e.listed, c) {
            (Some(l), Some((l1, l2))) => (l.name.clone(), thousands(*l1), format!("+{}", thousands(*l2))),
            _ => (format!("({})", plural(e.errors(), "error")), "-".into(), "-".into()),
        };
        rows.push([name, e.file.clone(), l1, l2, thousands(e.warnings())]);
    }
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..5).map(width).collect();
    let mut out = String::new();
    for r in &rows {
        let cell = |i: usize| {
            let pad = widths[i].saturating_sub(r[i].chars().count());
            // Names and files to the left, numbers to the right.
            if i < 2 {
                format!("{}{}", r[i], " ".repeat(pad))
            } else {
                format!("{}{}", " ".repeat(pad), r[i])
            }
        };
        let line = (0..5).map(cell).collect::<Vec<_>>().join("  ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let listed = set.listed().count();
    let mut summary = format!(
        "{} listed: the listing (L1) is {} in every request; loading a skill adds its L2",
        plural(listed, "skill"),
        plural(counts.listing, "token")
    );
    let (errors, warnings) = (set.errors(), set.warnings());
    if errors + warnings > 0 {
        summary.push_str(&format!(" · {} · {}", plural(warnings, "warning"), plural(errors, "error")));
    }
    out.push_str(&format!("\n{summary}\n"));
    out
}

fn json_report(set: &SkillSet, counts: &Counts) -> String {
    let skills: Vec<Value> = set
        .entries
        .iter()
        .zip(&counts.skills)
        .map(|(e, c)| {
            let listed = e.listed.as_ref();
            json!({
                "file": e.file,
                "folder": e.folder,
                "name": listed.map(|l| &l.name),
                "description": listed.map(|l| &l.description),
                "l1": listed.zip(*c).map(|(l, (t, _))| json!({ "text": l.l1, "tokens": t })),
                "l2": listed.zip(*c).map(|(l, (_, t))| json!({ "text": l.l2, "tokens": t })),
                "findings": e.findings,
            })
        })
        .collect();
    export::to_pretty(&json!({
        "listing": { "text": set.listing, "tokens": counts.listing },
        "listed": set.listed().count(),
        "warnings": set.warnings(),
        "errors": set.errors(),
        "skills": skills,
    }))
}

/// `pep skill` over several files or folders.
pub fn run(args: &[String], format: SkillsFormat) -> Result<Done, Failure> {
    let set = read_skills(gather(args)?);
    let counts = count(&set);
    let stdout = match format {
        SkillsFormat::Table => table(&set, &counts),
        SkillsFormat::Json => json_report(&set, &counts),
    };
    let stderr = set.entries.iter().flat_map(|e| e.findings.iter().map(|f| finding_line(&e.file, f))).collect();
    Ok(Done { stdout, stderr, code: u8::from(set.errors() > 0) })
}
