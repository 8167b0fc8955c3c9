//! A document shown before its semantic pass (`Decoded::provisional`, the
//! app's demos and saved document) ends with exactly the diagnostics of
//! `parse_bytes`: the same warnings in the same order, and an error exactly
//! where `parse_bytes` fails.

use std::path::{Path, PathBuf};

use envelope::parse::{parse_provisional, Decoded};
use envelope::{parse_bytes, Diagnostic};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// What a provisional read ends with: `Ok(warnings)` or `Err(errors)`.
fn provisional_outcome(bytes: &[u8]) -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
    let (loaded, pending) = parse_provisional(bytes)?;
    let later = pending.check(&loaded.envelope);
    if later.iter().any(Diagnostic::is_error) {
        return Err(later.into_iter().filter(Diagnostic::is_error).collect());
    }
    Ok(loaded.warnings.into_iter().chain(later).collect())
}

#[test]
fn provisional_then_checked_equals_parse_bytes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    files(&root.join("tests/fixtures/envelopes"), &mut all);
    files(&root.join("../../demos"), &mut all);
    // Both passes' warnings, and a semantic error, written here.
    let text = |content: &str, chars: Option<usize>| match chars {
        Some(n) => serde_json::json!({"kind": "long_text", "content": content, "charCount": n, "collapsed": true}),
        None => serde_json::json!({"kind": "text", "content": content}),
    };
    let message = |id: &str, role: &str, segments: Vec<serde_json::Value>| serde_json::json!({"id": id, "role": role, "timestamp": 1767225600000u64, "segments": segments});
    let var = serde_json::json!({"kind": "static_var", "name": "tone", "value": "dry"});
    let call = serde_json::json!({"kind": "tool_call_request", "toolName": "f", "arguments": {}, "collapsed": false});
    let written = [
        vec![
            message("s", "system", vec![var.clone(), text("Hi {{user}}", Some(3))]),
            message("u", "user", vec![text("x", None)]),
        ],
        vec![message("a", "assistant", vec![call]), message("u", "user", vec![text("next", Some(9))])],
        vec![message("u", "user", vec![text("one", None)]), message("u", "user", vec![text("two", None)])],
    ];
    let mut inline = Vec::new();
    for (i, messages) in written.into_iter().enumerate() {
        let doc = serde_json::json!({"version": "1.0", "model": "m", "messages": messages});
        inline.push((PathBuf::from(format!("written #{i}")), serde_json::to_vec(&doc).unwrap()));
    }
    let (mut ok, mut failing, mut warned) = (0, 0, 0);
    let corpus = all.iter().map(|p| (p.clone(), std::fs::read(p).unwrap())).chain(inline);
    for (path, bytes) in corpus {
        let full = parse_bytes(&bytes);
        let provisional = provisional_outcome(&bytes);
        match (&full, &provisional) {
            (Ok(loaded), Ok(warnings)) => {
                assert_eq!(&loaded.warnings, warnings, "{}", path.display());
                ok += 1;
                warned += usize::from(!warnings.is_empty());
            }
            (Err(errors), Err(some)) => {
                // The provisional read stops at the first pass that fails, so
                // its errors are some of the full read's.
                assert!(!some.is_empty(), "{}", path.display());
                for e in some {
                    assert!(errors.contains(e), "{}: {e} is not among {errors:?}", path.display());
                }
                failing += 1;
            }
            _ => panic!("{}: parse_bytes {:?} but provisional {:?}", path.display(), full.is_ok(), provisional.is_ok()),
        }
    }
    assert!(ok >= 8 && failing >= 20 && warned >= 2, "{ok} valid ({warned} with warnings), {failing} invalid");
}

#[test]
fn the_demos_have_nothing_to_say_later() {
    // The app shows a demo before its check: a demo with a warning would make
    // a notice appear after the first paint (and move the page).
    for letter in ["a", "b", "c", "d", "e", "f"] {
        let bytes =
            std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../demos/{letter}.json"))).unwrap();
        let (loaded, pending) = parse_provisional(&bytes).unwrap();
        assert!(loaded.warnings.is_empty(), "demo {letter}: {:?}", loaded.warnings);
        assert_eq!(pending.check(&loaded.envelope), vec![], "demo {letter}");
    }
}

#[test]
fn a_structural_error_is_err_at_once() {
    let raw: serde_json::Value =
        serde_json::json!({"version": "1.0", "model": "m", "messages": [{"id": "a", "role": "user"}]});
    let errors = Decoded::of(&raw).provisional(raw.clone()).unwrap_err();
    assert!(errors.iter().all(Diagnostic::is_error) && !errors.is_empty(), "{errors:?}");
    assert!(parse_provisional(b"{\"a\": 1, \"a\": 2}").is_err());
    assert!(parse_provisional(b"\xff").is_err());
}
