//! `envelope::promptpoet::render_with` against the real prompt-poet 0.0.52
//! on templates that load other templates: every folder in
//! `fixtures/promptpoet/folders/` rendered from its `main.yml.j2` with each
//! of its data files must give exactly the parts, string and messages
//! prompt-poet gave (`folders.json`, made by `gen_folders.py`), or fail where
//! prompt-poet raised: the same exception class, in the same template file
//! at the same line (Jinja errors; the wording of minijinja's messages may
//! differ), or the same class and message (Python errors without a line).
#![cfg(feature = "templates")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use envelope::promptpoet::{render_with, RenderError, Stage};
use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/promptpoet")
}

/// Every file under `root`, by its `/`-separated path relative to it.
fn files(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(rel, std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    out
}

fn check_error(name: &str, want: &Value, got: &RenderError) -> Result<(), String> {
    let class = want["type"].as_str().unwrap();
    let message = want["message"].as_str().unwrap();
    let line = want["line"].as_u64().map(|l| l as usize);
    let template = want["template"].as_str().map(|t| if t == "main.yml.j2" { None } else { Some(t.to_string()) });
    if got.class != class {
        return Err(format!("{name}: want {class}: {message}\n   got {}: {}", got.class, got.message));
    }
    if want["category"] == "yaml" {
        return if got.stage == Stage::Yaml { Ok(()) } else { Err(format!("{name}: want a YAML error, got {got:?}")) };
    }
    if let Some(template) = template {
        // The main template loaded again by name is the main template.
        let got_template = got.template.clone().filter(|t| t != "main.yml.j2");
        if got_template != template || got.line != line {
            return Err(format!(
                "{name}: {class} in {:?} line {:?}, want {template:?} line {line:?} ({got})",
                got.template, got.line
            ));
        }
    } else if got.message != message {
        return Err(format!("{name}: want {class}: {message}\n   got {}: {}", got.class, got.message));
    }
    Ok(())
}

#[test]
fn every_folder_renders_as_prompt_poet_does() {
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(dir().join("folders.json")).unwrap()).unwrap();
    let cases = expected["cases"].as_object().unwrap();
    assert!(cases.len() >= 25, "{} cases", cases.len());
    let mut failures = Vec::new();
    let mut passed = 0;
    for (name, want) in cases {
        let (folder, data_file) = match name.split_once('/') {
            Some((f, d)) => (f, Some(format!("{d}.json"))),
            None => (name.as_str(), None),
        };
        let tree = files(&dir().join("folders").join(folder));
        let data_file =
            data_file.or_else(|| tree.keys().find(|k| k.starts_with("data") && k.ends_with(".json")).cloned());
        let data = data_file.map_or(serde_json::json!({}), |d| serde_json::from_str(&tree[&d]).unwrap());
        let got = render_with(&tree["main.yml.j2"], &data, &|n| tree.get(n).cloned());
        match (want.get("error"), got) {
            (Some(e), Err(got)) => match check_error(name, e, &got) {
                Ok(()) => passed += 1,
                Err(f) => failures.push(f),
            },
            (Some(e), Ok(r)) => failures.push(format!("{name}: want error {e}, got {}", r.to_json())),
            (None, Err(got)) => failures.push(format!("{name}: want success, got {got}")),
            (None, Ok(r)) => {
                let j = r.to_json();
                let mut same = true;
                for key in ["parts", "string", "messages"] {
                    if j[key] != want[key] {
                        same = false;
                        failures.push(format!(
                            "{name}: {key} differs\n   want {}\n   got  {}",
                            serde_json::to_string(&want[key]).unwrap(),
                            serde_json::to_string(&j[key]).unwrap()
                        ));
                    }
                }
                if r.warnings.iter().any(|w| w.rule == envelope::Rule::TemplateInexact) {
                    same = false;
                    failures.push(format!("{name}: template-inexact warnings {:?}", r.warnings));
                }
                passed += usize::from(same);
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
    assert_eq!(passed, cases.len());
}

// ---------------------------------------------------------------------------
// Hostile templates: the loader is asked only for names inside the folder,
// and loading is bounded.
// ---------------------------------------------------------------------------

/// Renders `main` with a loader over `files`, recording every name asked.
fn render_recording(
    main: &str,
    files: &BTreeMap<String, String>,
) -> (Result<envelope::promptpoet::Rendered, Box<RenderError>>, Vec<String>) {
    let asked = std::cell::RefCell::new(Vec::new());
    let r = render_with(main, &serde_json::json!({}), &|n| {
        asked.borrow_mut().push(n.to_string());
        files.get(n).cloned()
    });
    (r, asked.into_inner())
}

#[test]
fn the_loader_is_asked_only_for_names_inside_the_folder() {
    let files: BTreeMap<String, String> =
        [("a.yml.j2".to_string(), "- name: a\n  content: a\n".to_string())].into_iter().collect();
    let main = "{% include ['../a.yml.j2', '/etc/passwd', 'x\\\\..\\\\y', 'a/../../b', './/a.yml.j2'] %}\n\
                {% include '..' ignore missing %}{% import '../m' as m %}";
    let (r, asked) = render_recording(main, &files);
    assert!(r.is_err(), "the import of a missing module fails");
    assert!(!asked.is_empty());
    for n in &asked {
        assert!(
            !n.starts_with('/') && !n.contains('\\') && !n.split('/').any(|p| p == ".." || p == "." || p.is_empty()),
            "asked for {n:?}"
        );
    }
    assert!(asked.contains(&"a.yml.j2".to_string()) && asked.contains(&"etc/passwd".to_string()), "{asked:?}");
    // The first name that exists is the one included.
    let (r, _) = render_recording("{% include ['../a.yml.j2', './/a.yml.j2'] %}\n", &files);
    assert_eq!(r.unwrap().string, "a");
}

#[test]
fn loading_is_bounded() {
    // More distinct templates than the limit.
    let n = envelope::promptpoet::jinja::MAX_TEMPLATES + 5;
    let main: String = (0..n).map(|i| format!("{{% include 'f{i}.yml.j2' ignore missing %}}\n")).collect();
    let (r, asked) = render_recording(&main, &BTreeMap::new());
    let e = r.unwrap_err();
    assert!(e.message.contains("templates loaded (pep's limit)"), "{e}");
    assert!(asked.len() <= envelope::promptpoet::jinja::MAX_TEMPLATES, "{}", asked.len());

    // More names computed while rendering than the limit.
    let main = "{% for i in range(1000) %}{% include 'd' ~ i ignore missing %}{% endfor %}";
    let (r, asked) = render_recording(main, &BTreeMap::new());
    let e = r.unwrap_err();
    assert!(e.message.contains("computed while rendering (pep's limit)"), "{e}");
    assert!(asked.len() <= envelope::promptpoet::jinja::MAX_ROUNDS + 1, "{}", asked.len());

    // Each template including the next one twice: 2^40 includes stop on the fuel limit.
    let files: BTreeMap<String, String> = (0..40)
        .map(|i| (format!("t{i}"), format!("{{% include 't{}' %}}{{% include 't{}' %}}x", i + 1, i + 1)))
        .chain([("t40".to_string(), "y".to_string())])
        .collect();
    let t0 = std::time::Instant::now();
    let (r, _) = render_recording("{% include 't0' %}", &files);
    assert!(r.is_err());
    assert!(t0.elapsed().as_secs() < 60, "{:?}", t0.elapsed());

    // A template that includes itself, and two that extend each other.
    let files: BTreeMap<String, String> = [
        ("self".to_string(), "{% include 'self' %}".to_string()),
        ("a".to_string(), "{% extends 'b' %}".to_string()),
        ("b".to_string(), "{% extends 'a' %}".to_string()),
    ]
    .into_iter()
    .collect();
    let (r, _) = render_recording("{% include 'self' %}", &files);
    assert_eq!(r.unwrap_err().class, "RecursionError");
    let (r, _) = render_recording("{% extends 'a' %}", &files);
    assert!(r.is_err());
}

#[test]
fn an_include_needs_no_template_inexact_warning_and_urlencode_none() {
    let files: BTreeMap<String, String> =
        [("a.yml.j2".to_string(), "- name: a\n  content: \"{{ 'a b'|urlencode }}\"\n".to_string())]
            .into_iter()
            .collect();
    let (r, _) = render_recording("{% include 'a.yml.j2' %}\n", &files);
    let r = r.unwrap();
    assert_eq!(r.string, "a%20b");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // A warning inside a loaded template names it.
    let files: BTreeMap<String, String> =
        [("a.yml.j2".to_string(), "- name: a\n\n  content: \"{{ [1]|pprint }}\"\n".to_string())].into_iter().collect();
    let (r, _) = render_recording("{% include 'a.yml.j2' %}\n", &files);
    let r = r.unwrap();
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert_eq!(r.warnings[0].path, "a.yml.j2 line 3");
}

// ---------------------------------------------------------------------------
// Property test: templates that load each other, in any arrangement, never
// panic the renderer (the source rewrites of include/import/extends, `loop`
// and names hidden from modules included).
// ---------------------------------------------------------------------------

mod never_panics {
    use super::*;
    use proptest::prelude::*;

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("- name: a\n  content: ".to_string()),
            Just("\n".to_string()),
            Just("{{ x }}".to_string()),
            Just("{{ loop.index }}".to_string()),
            Just("{% for i in items %}".to_string()),
            Just("{% endfor %}".to_string()),
            Just("{% include 'a' %}".to_string()),
            Just("{%- include 'b' -%}".to_string()),
            Just("{%+ include ['x', 'c'] ignore missing +%}".to_string()),
            Just("{% include 'a' ~ x ignore missing without context %}".to_string()),
            Just("{% include '../a' %}".to_string()),
            Just("{% import 'b' as m %}{{ m.f(x) }}".to_string()),
            Just("{% from 'c' import f with context %}{{ f(1) }}".to_string()),
            Just("{% extends 'a' %}".to_string()),
            Just("{% block body %}".to_string()),
            Just("{% endblock %}".to_string()),
            Just("{{ super() }}".to_string()),
            Just("{% macro f(v) %}{{ v ~ x }}{% endmacro %}".to_string()),
            Just("{% set x = x ~ '%s' % 1 %}".to_string()),
            Just("{{ x|urlencode }}".to_string()),
            Just("{% raw %}{% include 'a' %}{% endraw %}".to_string()),
            Just("'".to_string()),
            Just("{%".to_string()),
            Just("%}".to_string()),
            ".{0,5}",
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..12).prop_map(|p| p.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

        #[test]
        fn loading_never_panics(main in text(), a in text(), b in text(), c in text(), x in ".{0,6}") {
            let files: BTreeMap<String, String> =
                [("a".to_string(), a), ("b".to_string(), b), ("c".to_string(), c)].into_iter().collect();
            let data = serde_json::json!({"x": x, "items": [1, 2]});
            if let Ok(r) = render_with(&main, &data, &|n| files.get(n).cloned()) {
                let (env, _) = envelope::promptpoet::to_envelope(&r);
                let text = serde_json::to_string(&env).unwrap();
                prop_assert!(envelope::parse(&text).is_ok(), "{}", text);
            }
        }
    }
}
