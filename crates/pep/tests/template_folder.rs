//! `pep render` loads `include`, `import` and `extends` from the template
//! file's folder, as prompt-poet 0.0.52 does: every folder case rendered by
//! the real prompt-poet (`crates/envelope/tests/fixtures/promptpoet/folders.json`)
//! gives the same parts through the CLI, and nothing outside the folder is read.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixtures() -> PathBuf {
    root().join("crates/envelope/tests/fixtures/promptpoet")
}

fn pep_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pep")).args(args).current_dir(dir).output().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh temporary folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("pep-template-folder-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn every_folder_case_renders_through_the_cli_as_prompt_poet_does() {
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("folders.json")).unwrap()).unwrap();
    let cases = expected["cases"].as_object().unwrap();
    assert!(cases.len() >= 25);
    let (mut ok, mut failed) = (0, 0);
    for (name, want) in cases {
        let (folder, data) = match name.split_once('/') {
            Some((f, d)) => (f, Some(format!("{d}.json"))),
            None => (name.as_str(), None),
        };
        let dir = fixtures().join("folders").join(folder);
        let data = data.or_else(|| dir.join("data.json").exists().then(|| "data.json".to_string()));
        // Run from the repository root with a path to the template: its folder is the template's.
        let template = dir.join("main.yml.j2");
        let mut args = vec!["render".to_string(), template.to_string_lossy().into_owned()];
        if let Some(d) = data {
            args.push("--data".into());
            args.push(dir.join(d).to_string_lossy().into_owned());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = pep_in(&root(), &args);
        match want.get("error") {
            None => {
                assert!(o.status.success(), "{name}: {}", err(&o));
                let got: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                for key in ["parts", "string", "messages"] {
                    assert_eq!(got[key], want[key], "{name}: {key}");
                }
                ok += 1;
            }
            Some(e) => {
                assert_eq!(o.status.code(), Some(1), "{name}: {}", err(&o));
                let class = e["type"].as_str().unwrap();
                assert!(err(&o).contains(&format!("{class}: ")), "{name}: want {class}, got {}", err(&o));
                // The error names the template file it is in (when not the main one) and the line.
                if let (Some(t), Some(l)) = (e["template"].as_str(), e["line"].as_u64()) {
                    let at = if t == "main.yml.j2" { format!("line {l}") } else { format!("{t} line {l}") };
                    assert!(err(&o).contains(&at), "{name}: want `{at}` in {}", err(&o));
                }
                failed += 1;
            }
        }
    }
    assert_eq!(ok + failed, cases.len());
    assert!(ok >= 14 && failed >= 10, "{ok} rendered, {failed} failed");
}

#[test]
fn a_template_named_without_a_folder_loads_from_the_current_one() {
    let t = TempDir::new("cwd");
    t.write("main.yml.j2", "{% include 'parts/a.yml.j2' %}\n");
    t.write("parts/a.yml.j2", "- name: a\n  content: from the folder\n");
    let o = pep_in(&t.0, &["render", "main.yml.j2"]);
    assert!(o.status.success(), "{}", err(&o));
    let got: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(got["string"], "from the folder");
    // No template-inexact warning for an include any more.
    assert!(!err(&o).contains("template-inexact"), "{}", err(&o));
}

#[test]
fn nothing_outside_the_folder_is_read() {
    let outer = TempDir::new("outer");
    outer.write("secret.yml.j2", "- name: secret\n  content: SECRET\n");
    outer.write("t/sub/x.yml.j2", "- name: x\n  content: x\n");
    let folder = outer.0.join("t");
    let main = folder.join("main.yml.j2");
    let main = main.to_str().unwrap();
    for (text, what) in [
        ("{% include '../secret.yml.j2' %}\n", "a parent piece"),
        ("{% include 'sub/../../secret.yml.j2' %}\n", "a parent piece further in"),
        ("{% include 'sub' %}\n", "a folder"),
        ("{% include 'nope.yml.j2' %}\n", "a missing file"),
        ("{% extends '../secret.yml.j2' %}\n", "extends"),
        ("{% import '../secret.yml.j2' as s %}\n", "import"),
    ] {
        std::fs::write(main, text).unwrap();
        let o = pep_in(&root(), &["render", main]);
        assert_eq!(o.status.code(), Some(1), "{what}: {}", err(&o));
        assert!(err(&o).contains("TemplateNotFound"), "{what}: {}", err(&o));
        assert!(err(&o).contains("line 1"), "{what}: {}", err(&o));
        assert!(!String::from_utf8_lossy(&o.stdout).contains("SECRET"), "{what}");
    }
    // A leading slash names a file in the folder (Jinja2 drops empty pieces), not the root.
    std::fs::write(main, "{% include '/sub/x.yml.j2' %}\n").unwrap();
    let o = pep_in(&root(), &["render", main]);
    assert!(o.status.success(), "{}", err(&o));

    // A symbolic link that leads out of the folder is not followed.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outer.0.join("secret.yml.j2"), folder.join("link.yml.j2")).unwrap();
        std::os::unix::fs::symlink(&outer.0, folder.join("up")).unwrap();
        for name in ["link.yml.j2", "up/secret.yml.j2"] {
            std::fs::write(main, format!("{{% include '{name}' %}}\n")).unwrap();
            let o = pep_in(&root(), &["render", main]);
            assert_eq!(o.status.code(), Some(1), "{name}: {}", err(&o));
            assert!(err(&o).contains("TemplateNotFound"), "{name}: {}", err(&o));
        }
        // One that stays inside is followed, as Jinja2 follows it.
        std::os::unix::fs::symlink(folder.join("sub/x.yml.j2"), folder.join("inside.yml.j2")).unwrap();
        std::fs::write(main, "{% include 'inside.yml.j2' %}\n").unwrap();
        let o = pep_in(&root(), &["render", main]);
        assert!(o.status.success(), "{}", err(&o));
    }
}

#[test]
fn a_missing_include_names_the_template_and_the_line() {
    let t = TempDir::new("missing");
    t.write("main.yml.j2", "- name: a\n  content: a\n{% include 'level1.yml.j2' %}\n");
    t.write("level1.yml.j2", "- name: b\n  content: b\n\n{% include 'nope.yml.j2' %}\n");
    let main = t.0.join("main.yml.j2");
    let o = pep_in(&root(), &["render", main.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("level1.yml.j2 line 4: TemplateNotFound: 'nope.yml.j2' not found in the template's folder"),
        "{}",
        err(&o)
    );
}

#[test]
fn templates_that_include_each_other_stop() {
    let t = TempDir::new("cycle");
    t.write("main.yml.j2", "{% include 'a.yml.j2' %}\n");
    t.write("a.yml.j2", "- name: a\n  content: a\n{% include 'b.yml.j2' %}\n");
    t.write("b.yml.j2", "{% include 'a.yml.j2' %}\n");
    let main = t.0.join("main.yml.j2");
    let o = pep_in(&root(), &["render", main.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("RecursionError"), "{}", err(&o));
    t.write("main.yml.j2", "{% extends 'a.yml.j2' %}\n");
    t.write("a.yml.j2", "{% extends 'main.yml.j2' %}\n");
    let o = pep_in(&root(), &["render", main.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
}
