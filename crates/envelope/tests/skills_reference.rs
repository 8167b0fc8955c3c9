//! SKILL.md parsing against real files.
//!
//! - Our own fixtures in `tests/fixtures/skills/<folder>/SKILL.md` always run, also as
//!   CRLF + BOM variants.
//! - When the reference checkout of anthropics/skills exists next to the workspace
//!   (`../shared/reference/anthropic-skills/`, not shipped with the project), every
//!   `*/SKILL.md` there is parsed too and checked against values extracted independently
//!   here and against hand-written expectations for several files.

use std::fs;
use std::path::{Path, PathBuf};

use envelope::skill::{parse_skill, AllowedTools, Skill};
use envelope::{Diagnostic, Severity};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/skills");
const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/reference/anthropic-skills");

/// Every `<folder>/SKILL.md` under `root`, sorted by folder.
fn skill_files(root: &str) -> Vec<(String, PathBuf)> {
    let mut out: Vec<_> = fs::read_dir(root)
        .unwrap_or_else(|e| panic!("{root}: {e}"))
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let path = entry.path().join("SKILL.md");
            path.is_file().then(|| (entry.file_name().to_string_lossy().into_owned(), path))
        })
        .collect();
    out.sort();
    out
}

/// The body as the module documents it, computed differently: the lines after the second
/// `---` line, without the leading blank ones, then trailing white space trimmed.
fn expected_body(text: &str) -> String {
    let text = text.trim_start_matches('\u{feff}');
    let mut delimiters = 0;
    let mut lines = Vec::new();
    for line in text.split('\n') {
        if delimiters < 2 {
            if line.trim_end_matches(['\r', ' ', '\t']) == "---" {
                delimiters += 1;
            }
            continue;
        }
        if lines.is_empty() && line.trim().is_empty() {
            continue;
        }
        lines.push(line);
    }
    assert_eq!(delimiters, 2, "test helper expects front matter");
    lines.join("\n").trim_end().to_owned()
}

/// The value of a one-line plain `key: value` in the front matter, if written that way.
fn plain_value(text: &str, key: &str) -> Option<String> {
    let front = text.split("\n---").next()?;
    let line = front.lines().find_map(|l| l.strip_prefix(&format!("{key}: ")))?;
    let v = line.trim_end();
    let special = v.starts_with(['|', '>', '"', '\'', '[', '{', '&', '*', '!']);
    (!special).then(|| v.to_owned())
}

fn parse_file(folder: &str, path: &Path) -> (String, Skill, Vec<Diagnostic>) {
    let text = fs::read_to_string(path).unwrap();
    match parse_skill(&text, Some(folder)) {
        Ok((skill, diags)) => (text, skill, diags),
        Err(diags) => panic!("{}: {diags:?}", path.display()),
    }
}

fn warning_paths(diags: &[Diagnostic]) -> Vec<&str> {
    assert!(diags.iter().all(|d| d.severity == Severity::Warning), "{diags:?}");
    diags.iter().map(|d| d.path.as_str()).collect()
}

/// Checks that hold for any well-formed file: body, plain one-line fields, and that
/// the name matches the folder unless a folder-mismatch warning says otherwise.
fn check_generic(folder: &str, text: &str, skill: &Skill, diags: &[Diagnostic]) {
    assert_eq!(skill.body, expected_body(text), "{folder}: body");
    for (key, value) in [("name", &skill.name), ("description", &skill.description), ("license", &skill.license)] {
        if let Some(expected) = plain_value(text, key) {
            assert_eq!(value.as_deref(), Some(expected.as_str()), "{folder}: {key}");
        }
    }
    let mismatch = diags.iter().any(|d| d.path == "name" && d.message.contains("differs from its folder"));
    assert_eq!(skill.name.as_deref() != Some(folder), mismatch, "{folder}: {diags:?}");
    let too_long = diags.iter().any(|d| d.path == "description" && d.message.contains("at most 1024"));
    let chars = skill.description.as_deref().map_or(0, |d| d.chars().count());
    assert_eq!(chars > 1024, too_long, "{folder}: {diags:?}");
}

// ---- our fixtures ---------------------------------------------------------------------

#[test]
fn fixtures_parse_as_expected() {
    let files = skill_files(FIXTURES);
    let folders: Vec<_> = files.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(folders, ["api-style-guide", "csv-insights", "release-notes", "sql-review", "starter"]);
    for (folder, path) in &files {
        let (text, skill, diags) = parse_file(folder, path);
        check_generic(folder, &text, &skill, &diags);
        check_fixture(folder, &skill, &diags);

        // The same file with CRLF line endings and a byte order mark.
        let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
        let (skill2, diags2) = parse_skill(&crlf, Some(folder)).unwrap();
        assert_eq!(skill2.body, expected_body(&crlf), "{folder} (CRLF)");
        assert_eq!(skill2.body, skill.body.replace('\n', "\r\n"), "{folder} (CRLF)");
        assert_eq!(Skill { body: skill.body.clone(), ..skill2 }, skill, "{folder} (CRLF)");
        assert_eq!(diags2, diags, "{folder} (CRLF)");
    }
}

fn check_fixture(folder: &str, skill: &Skill, diags: &[Diagnostic]) {
    match folder {
        "csv-insights" => {
            assert_eq!(skill.name.as_deref(), Some("csv-insights"));
            assert_eq!(skill.license.as_deref(), Some("MIT"));
            assert_eq!(
                skill.allowed_tools,
                Some(AllowedTools::List(vec!["Read".into(), "Bash(python3 scripts/profile.py:*)".into()]))
            );
            assert_eq!(
                serde_json::to_string(&skill.metadata).unwrap(),
                r#"{"author":"data-tools team","version":"2.1","reviewed":true,"tags":["csv","tsv","profiling"]}"#
            );
            assert!(skill.body.starts_with("# CSV insights\n\nProfile the file"));
            assert!(skill.body.ends_with("Never print more than 20 rows of the raw file."));
            assert_eq!(warning_paths(diags), Vec::<&str>::new());
        }
        "release-notes" => {
            assert_eq!(skill.name.as_deref(), Some("release-notes"));
            assert_eq!(
                skill.description.as_deref(),
                Some(
                    "Draft release notes from merged pull requests.\nGroups changes under \
                     \"Added\", \"Fixed\" and \"Removed\"; keeps the tone of the project's \
                     CHANGELOG (café-grade prose, no hype)."
                )
            );
            assert_eq!(skill.license.as_deref(), Some("Apache-2.0"));
            assert_eq!(skill.allowed_tools, Some(AllowedTools::Text("Read Grep Bash(git log:*)".into())));
            assert_eq!(skill.metadata, None);
            assert!(skill.body.starts_with("# Release notes\n"));
            assert!(skill.body.ends_with("- Link each line to its pull request."));
            assert_eq!(warning_paths(diags), Vec::<&str>::new());
        }
        "api-style-guide" => {
            let d = skill.description.as_deref().unwrap();
            assert!(d.starts_with("House style for HTTP APIs: resource naming,"));
            assert!(d.contains("\nUse when designing a new endpoint, reviewing an OpenAPI document, or answering \"how should this API look?\" questions.\n"));
            assert!(d.ends_with("replays the first response for 24 hours."), "`|-` strips the final newline");
            assert_eq!(d.lines().count(), 7);
            assert_eq!(d.chars().count(), 1089);
            assert_eq!(skill.license.as_deref(), Some("CC-BY-4.0"));
            assert_eq!(warning_paths(diags), ["description"]);
            assert_eq!(diags[0].message, "description has 1089 characters; at most 1024 are allowed");
        }
        "sql-review" => {
            assert_eq!(
                skill.description.as_deref(),
                Some(
                    "Review SQL migrations for PostgreSQL before they run in production: \
                     locking, long rewrites, missing indexes and irreversible steps.\n\
                     Use when a pull request touches a migrations folder.\n"
                )
            );
            assert_eq!(skill.license, None);
            assert!(skill.body.ends_with(
                "\n\n    -- an indented code block stays indented\n    ALTER TABLE orders ADD COLUMN note text;"
            ));
            assert_eq!(warning_paths(diags), Vec::<&str>::new());
        }
        "starter" => {
            assert_eq!(skill.name.as_deref(), Some("starter-skill"));
            assert_eq!(
                diags,
                [Diagnostic::new(
                    envelope::diag::Rule::SkillFieldValue,
                    "name",
                    "name `starter-skill` differs from its folder `starter`"
                )]
            );
        }
        other => panic!("no expectations for fixture {other}"),
    }
}

#[test]
fn serialized_fixture_has_the_cli_shape() {
    let text = fs::read_to_string(format!("{FIXTURES}/release-notes/SKILL.md")).unwrap();
    let (skill, _) = parse_skill(&text, Some("release-notes")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&serde_json::to_string_pretty(&skill).unwrap()).unwrap();
    let keys: Vec<_> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["name", "description", "license", "allowedTools", "metadata", "body"]);
    assert_eq!(json["metadata"], serde_json::Value::Null);
    assert_eq!(json["allowedTools"], "Read Grep Bash(git log:*)");
}

// ---- the reference checkout (when present) --------------------------------------------

#[test]
fn reference_skills_parse() {
    if !Path::new(REFERENCE).is_dir() {
        eprintln!("skipping: {REFERENCE} not found (the fixtures test covers the same checks)");
        return;
    }
    let files = skill_files(REFERENCE);
    assert!(files.len() >= 10, "only {} reference skills", files.len());
    let mut checked = Vec::new();
    for (folder, path) in &files {
        let (text, skill, diags) = parse_file(folder, path);
        check_generic(folder, &text, &skill, &diags);
        assert!(skill.name.is_some() && skill.description.is_some(), "{folder}");
        assert!(!skill.body.is_empty(), "{folder}");
        let expected_warnings: &[&str] = match folder.as_str() {
            "template" => &["name"],
            "claude-api" => &["description"],
            _ => &[],
        };
        assert_eq!(warning_paths(&diags), expected_warnings, "{folder}: {diags:?}");
        match folder.as_str() {
            "template" => {
                assert_eq!(skill.name.as_deref(), Some("template-skill"));
                assert_eq!(
                    skill.description.as_deref(),
                    Some("Replace with description of the skill and when Claude should use it.")
                );
                assert_eq!(skill.license, None);
                assert_eq!(diags.len(), 1);
                assert_eq!(diags[0].message, "name `template-skill` differs from its folder `template`");
            }
            "claude-api" => {
                // A `|-` block scalar of three lines, over 1024 characters.
                let d = skill.description.as_deref().unwrap();
                assert!(d.starts_with("Reference for the Claude API / Anthropic SDK — model ids,"), "{d}");
                assert!(
                    d.contains(" token counting, model migration.\nTRIGGER — read BEFORE opening the target file;"),
                    "{d}"
                );
                assert!(d.contains("tool-calls/tokens).\nSKIP only when another provider"), "{d}");
                assert!(d.ends_with("(run this grep FIRST if no provider named — don't Read the file)."), "{d}");
                assert_eq!(d.lines().count(), 3);
                assert!(!d.ends_with('\n'));
                assert_eq!(d.chars().count(), 1068);
                assert_eq!(skill.license.as_deref(), Some("Complete terms in LICENSE.txt"));
                assert!(skill.body.starts_with("# Building LLM-Powered Applications with Claude\n"));
            }
            "webapp-testing" => {
                assert_eq!(skill.name.as_deref(), Some("webapp-testing"));
                assert!(skill
                    .description
                    .as_deref()
                    .unwrap()
                    .starts_with("Toolkit for interacting with and testing local web applications using Playwright."));
                assert_eq!(skill.license.as_deref(), Some("Complete terms in LICENSE.txt"));
            }
            "skill-creator" | "doc-coauthoring" => assert_eq!(skill.license, None, "{folder}"),
            "algorithmic-art" => {
                assert!(skill
                    .description
                    .as_deref()
                    .unwrap()
                    .ends_with("copying existing artists' work to avoid copyright violations."));
            }
            _ => {}
        }
        assert_eq!(skill.allowed_tools, None, "{folder}");
        assert_eq!(skill.metadata, None, "{folder}");
        checked.push(folder.as_str());
    }
    for must in ["template", "claude-api", "webapp-testing", "algorithmic-art", "skill-creator"] {
        assert!(checked.contains(&must), "reference folder {must} missing");
    }
}
