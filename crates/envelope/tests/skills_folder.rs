//! Folders of SKILL.md files read together (`envelope::skills`): our own
//! fixtures always; the reference checkout of anthropics/skills when it is
//! next to the workspace (`../shared/reference/anthropic-skills/`, not
//! shipped with the project). L1 and L2 are checked against the export of
//! the skills envelope, and against the fields as `parse_skill` reads them.

use std::fs;

use envelope::export::openai_request;
use envelope::skill::parse_skill;
use envelope::skills::{read_skills, SkillFile, SkillSet};
use envelope::Rule;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/skills");
const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/reference/anthropic-skills");

/// Every `<folder>/SKILL.md` of `root`, as a browser's folder input names them (`root/folder/SKILL.md`).
fn folder(root: &str, name: &str) -> Vec<SkillFile> {
    let mut out = Vec::new();
    for entry in fs::read_dir(root).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path().join("SKILL.md");
        if path.is_file() {
            let shown = format!("{name}/{}/SKILL.md", entry.file_name().to_string_lossy());
            out.push(SkillFile::new(shown, fs::read(&path).unwrap()));
        }
    }
    // In no particular order, as a browser hands them.
    out.reverse();
    out
}

fn system_text(set: &SkillSet, loaded: Option<usize>) -> String {
    let env = envelope::parse::from_value(set.envelope(loaded)).expect("the skills envelope validates").envelope;
    openai_request(&env)["messages"][0]["content"].as_str().unwrap().to_owned()
}

fn check(set: &SkillSet) {
    assert_eq!(set.errors(), 0);
    let files: Vec<&str> = set.entries.iter().map(|e| e.file.as_str()).collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
    assert_eq!(system_text(set, None), set.listing);
    for (i, (entry, l)) in set.entries.iter().zip(set.listed()).enumerate() {
        let text = fs::read_to_string(entry.file.replacen("fixtures", FIXTURES, 1).replacen("reference", REFERENCE, 1))
            .unwrap();
        let (skill, _) = parse_skill(&text, entry.folder.as_deref()).unwrap();
        let (name, description) = (skill.name.unwrap(), skill.description.unwrap());
        assert_eq!(l.l1, format!("- {name}: {description}"));
        assert_eq!(l.l2, format!("\n\n### Skill: {name}\n\n{}", skill.body));
        assert_eq!(system_text(set, Some(i)), format!("{}{}", set.listing, l.l2));
        // Every warning has the line of its key.
        for f in &entry.findings {
            let line = f.line.unwrap_or_else(|| panic!("{}: no line for {:?}", entry.file, f));
            let key = f.diagnostic.path.split(['.', '[']).next().unwrap();
            assert!(text.lines().nth(line - 1).unwrap().starts_with(&format!("{key}:")), "{}: {f:?}", entry.file);
        }
    }
    // (A description may hold line breaks: the listing is not one line per skill.)
    let l1s: Vec<&str> = set.listed().map(|l| l.l1.as_str()).collect();
    assert_eq!(set.listing, format!("## Skills\n{}", l1s.join("\n")));
}

#[test]
fn our_fixtures_folder() {
    let set = read_skills(folder(FIXTURES, "fixtures"));
    assert_eq!(set.entries.len(), 5);
    check(&set);
    let warned: Vec<(&str, &str, Option<usize>)> = set
        .entries
        .iter()
        .flat_map(|e| e.findings.iter().map(move |f| (e.file.as_str(), f.diagnostic.path.as_str(), f.line)))
        .collect();
    assert_eq!(
        warned,
        [("fixtures/api-style-guide/SKILL.md", "description", Some(3)), ("fixtures/starter/SKILL.md", "name", Some(2)),]
    );
}

#[test]
fn the_same_skill_twice_is_a_duplicate_name() {
    let mut files = folder(FIXTURES, "fixtures");
    let starter = fs::read(format!("{FIXTURES}/starter/SKILL.md")).unwrap();
    files.push(SkillFile::new("more/starter-skill/SKILL.md", starter));
    let set = read_skills(files);
    let dups: Vec<&str> = set
        .entries
        .iter()
        .filter(|e| e.findings.iter().any(|f| f.diagnostic.rule == Rule::SkillDuplicateName))
        .map(|e| e.file.as_str())
        .collect();
    assert_eq!(dups, ["fixtures/starter/SKILL.md", "more/starter-skill/SKILL.md"]);
    assert_eq!(set.listing.matches("\n- starter-skill: ").count(), 2);
}

#[test]
fn the_reference_skills_when_present() {
    if !std::path::Path::new(REFERENCE).is_dir() {
        eprintln!("skipped: {REFERENCE} is not there");
        return;
    }
    let set = read_skills(folder(REFERENCE, "reference"));
    assert!(set.entries.len() >= 10, "{}", set.entries.len());
    check(&set);
    // `template/` is named `template-skill`: its one warning.
    let template = set.entries.iter().find(|e| e.file == "reference/template/SKILL.md").unwrap();
    assert_eq!(template.findings.len(), 1);
    assert_eq!(template.findings[0].line, Some(2));
}
