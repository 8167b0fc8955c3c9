//! `pep skill` over several SKILL.md files and folders: the table, the JSON
//! report, warnings with their lines on stderr, and the exit status. The
//! token counts are checked against `pep tokens` of the same texts.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pep")).args(args).current_dir(root()).output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const FIXTURES: &str = "crates/envelope/tests/fixtures/skills";

/// A folder of skills under the temporary directory, removed on drop.
struct Folder(PathBuf);

impl Folder {
    fn new(tag: &str, files: &[(&str, &str)]) -> Folder {
        let dir = std::env::temp_dir().join(format!("pep-skills-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        Folder(dir)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tokens_of(text: &str) -> u64 {
    let f = Folder::new(&format!("tok{}", text.len()), &[("t.txt", text)]);
    let o = pep(&["tokens", &format!("{}/t.txt", f.path())]);
    out(&o).trim().parse().unwrap()
}

#[test]
fn a_folder_as_json_with_tokens_lines_and_warnings() {
    let o = pep(&["skill", "--format", "json", FIXTURES]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    let skills = v["skills"].as_array().unwrap();
    let names: Vec<&str> = skills.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["api-style-guide", "csv-insights", "release-notes", "sql-review", "starter-skill"]);
    assert_eq!(v["listed"], 5);
    assert_eq!(v["errors"], 0);
    // The listing is the heading and every L1 line.
    let lines: Vec<&str> = skills.iter().map(|s| s["l1"]["text"].as_str().unwrap()).collect();
    assert_eq!(v["listing"]["text"], format!("## Skills\n{}", lines.join("\n")));
    for s in skills {
        let (name, description) = (s["name"].as_str().unwrap(), s["description"].as_str().unwrap());
        assert_eq!(s["l1"]["text"], format!("- {name}: {description}"));
        assert!(s["l2"]["text"].as_str().unwrap().starts_with(&format!("\n\n### Skill: {name}\n\n")));
    }
    // Counts are pep tokens' counts of the same texts.
    let starter = &skills[4];
    assert_eq!(starter["l1"]["tokens"], tokens_of(starter["l1"]["text"].as_str().unwrap()));
    assert_eq!(starter["l2"]["tokens"], tokens_of(starter["l2"]["text"].as_str().unwrap()));
    assert_eq!(v["listing"]["tokens"], tokens_of(v["listing"]["text"].as_str().unwrap()));
    // The starter's name differs from its folder: a warning on line 2, in the
    // JSON and on stderr; the API guide's description is too long (line 3).
    assert_eq!(starter["findings"][0]["line"], 2);
    assert_eq!(starter["findings"][0]["code"], "skill-field-value");
    let stderr = err(&o);
    assert!(
        stderr.contains("starter/SKILL.md:2: warning: name: name `starter-skill` differs from its folder `starter` [skill-field-value]"),
        "{stderr}"
    );
    assert!(stderr.contains("api-style-guide/SKILL.md:3: warning: description: description has"), "{stderr}");
}

#[test]
fn a_table_of_files_and_folders_and_errors_exit_1() {
    let f = Folder::new(
        "table",
        &[
            ("skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Read PDFs.\n---\n# PDF\n"),
            ("skills/pdf-old/SKILL.md", "---\ndescription: Old PDFs.\nname: pdf\n---\nOld\n"),
            ("skills/broken/SKILL.md", "---\nname: broken\ndescription: [unclosed\n---\n"),
            ("skills/plain/SKILL.md", "# No front matter\n"),
            ("skills/pdf/reference.md", "---\nname: not-a-skill\n---\n"),
            ("skills/.git/x/SKILL.md", "---\nname: hidden\ndescription: x\n---\n"),
        ],
    );
    let o = pep(&["skill", &format!("{}/skills", f.path())]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let table = out(&o);
    let rows: Vec<&str> = table.lines().collect();
    assert!(rows[0].starts_with("NAME "), "{table}");
    assert!(rows[0].ends_with("L1 TOKENS  L2 TOKENS  WARNINGS"), "{table}");
    // Sorted by path: broken, pdf-old, pdf, plain; reference.md and .git not read.
    assert_eq!(rows.len(), 1 + 4 + 2, "{table}");
    assert!(rows[1].starts_with("(1 error)") && rows[1].contains("broken/SKILL.md"), "{table}");
    assert!(rows[2].starts_with("pdf ") && rows[2].contains("pdf-old/SKILL.md"), "{table}");
    assert!(rows[3].starts_with("pdf ") && rows[3].contains("/pdf/SKILL.md"), "{table}");
    assert!(rows[4].starts_with("(1 error)") && rows[4].contains("plain/SKILL.md"), "{table}");
    assert!(table.contains("2 skills listed: the listing (L1) is "), "{table}");
    assert!(table.contains("3 warnings · 2 errors"), "{table}");
    let stderr = err(&o);
    assert!(stderr.contains("broken/SKILL.md: error: line 4 column 1: invalid YAML"), "{stderr}");
    assert!(stderr.contains("plain/SKILL.md: error: line 1: no YAML front matter"), "{stderr}");
    assert!(stderr.contains("pdf-old/SKILL.md:3: warning: name: `pdf` is also the name of"), "{stderr}");
    assert!(stderr.contains("[skill-duplicate-name]"), "{stderr}");
    // Files given one by one, and --format with one file.
    let a = format!("{}/skills/pdf/SKILL.md", f.path());
    let b = format!("{}/skills/pdf-old/SKILL.md", f.path());
    let o = pep(&["skill", &a, &b]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(out(&o).lines().count(), 1 + 2 + 2);
    let o = pep(&["skill", "--format", "table", &a]);
    assert!(out(&o).starts_with("NAME "), "{}", out(&o));
    // One file without --format: the parsed skill as before.
    let o = pep(&["skill", &a]);
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["name"], "pdf");
    assert_eq!(v["body"], "# PDF");
}

#[test]
fn unreadable_and_empty_inputs() {
    let f = Folder::new("empty", &[("notes/README.md", "x")]);
    let o = pep(&["skill", f.path()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("no SKILL.md file in this folder or below it"), "{}", err(&o));
    let o = pep(&["skill", "--format", "json", "/no/such/SKILL.md", &format!("{FIXTURES}/starter/SKILL.md")]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(v["errors"], 1);
    assert_eq!(v["skills"][0]["name"], serde_json::Value::Null);
    assert_eq!(v["skills"][0]["findings"][0]["code"], "unreadable-file");
    assert!(err(&o).contains("/no/such/SKILL.md: error: the file could not be read"), "{}", err(&o));
}
