//! Edits in place: each kind applies, its inverse restores the document
//! exactly, and the history undoes and redoes whole steps.

use envelope::edit::{parse_arguments, patch_raw, Edit, EditError, History};
use envelope::{export, parse, Envelope, Rule, Segment};

fn demo(c: char) -> Envelope {
    let text = std::fs::read_to_string(format!("{}/../../demos/{c}.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    parse(&text).unwrap().envelope
}

/// Where the first segment of a kind stands.
fn find(e: &Envelope, kind: &str) -> (usize, usize) {
    for (mi, m) in e.messages.iter().enumerate() {
        for (sj, s) in m.segments.iter().enumerate() {
            if s.kind() == kind {
                return (mi, sj);
            }
        }
    }
    panic!("no {kind}")
}

fn openai(e: &Envelope) -> String {
    export::to_pretty(&export::openai_request(e))
}

/// Applies, checks the change is visible in the export, undoes, checks
/// the envelope is back field for field, and redoes through the inverse.
fn round_trip(mut e: Envelope, edit: Edit, must_appear: &str) {
    let before = e.clone();
    assert!(!openai(&e).contains(must_appear), "{must_appear} already there");
    let undo = edit.apply(&mut e).unwrap();
    assert_ne!(e, before);
    assert!(openai(&e).contains(must_appear), "{must_appear} not in the export after {edit:?}");
    // What was edited still reads as a valid document.
    let text = serde_json::to_string(&e).unwrap();
    assert_eq!(parse(&text).unwrap().envelope, e, "the edited document reads back as itself");
    // The app's way: the loaded JSON patched with the changed fields reads as the edit.
    let mut raw: serde_json::Value = serde_json::to_value(&before).unwrap();
    patch_raw(&mut raw, &before, &e);
    assert_eq!(parse::from_value(raw.clone()).unwrap().envelope, e, "patched raw = edited envelope");
    patch_raw(&mut raw, &e, &before);
    assert_eq!(parse::from_value(raw).unwrap().envelope, before, "patched back");
    let redo = undo.apply(&mut e).unwrap();
    assert_eq!(e, before, "the inverse restores the document");
    redo.apply(&mut e).unwrap();
    assert!(openai(&e).contains(must_appear));
}

#[test]
fn every_demo_serialises_back_to_itself() {
    for c in 'a'..='f' {
        let e = demo(c);
        let text = serde_json::to_string(&e).unwrap();
        assert_eq!(parse(&text).unwrap().envelope, e, "demo {c}");
    }
}

#[test]
fn model_edit_and_its_undo() {
    let e = demo('a');
    round_trip(e.clone(), Edit::Model(Some("gpt-edited-1".into())), "gpt-edited-1");
    let mut e2 = e.clone();
    let undo = Edit::Model(None).apply(&mut e2).unwrap();
    assert_eq!(e2.model, None);
    undo.apply(&mut e2).unwrap();
    assert_eq!(e2, e);
}

#[test]
fn text_system_prompt_and_long_text_edits() {
    let d = demo('d');
    let (mi, sj) = find(&d, "text");
    round_trip(
        d.clone(),
        Edit::Text { message: mi, segment: sj, item: None, text: "Edited question ZX81".into() },
        "ZX81",
    );
    let (mi, sj) = find(&d, "system_prompt");
    round_trip(
        d.clone(),
        Edit::Text { message: mi, segment: sj, item: None, text: "You are QUOKKA.".into() },
        "QUOKKA",
    );
    for c in 'a'..='f' {
        let e = demo(c);
        if e.messages.iter().flat_map(|m| &m.segments).any(|s| s.kind() == "long_text") {
            let (mi, sj) = find(&e, "long_text");
            let mut edited = e.clone();
            Edit::Text { message: mi, segment: sj, item: None, text: "né 世界".into() }.apply(&mut edited).unwrap();
            let Segment::LongText(t) = &edited.messages[mi].segments[sj] else { unreachable!() };
            assert_eq!(t.char_count, 5, "charCount follows the content (scalar values)");
            round_trip(e, Edit::Text { message: mi, segment: sj, item: None, text: "LONGEDIT".into() }, "LONGEDIT");
            return;
        }
    }
    panic!("no demo has a long_text");
}

#[test]
fn memory_and_skill_items() {
    let b = demo('b');
    let (mi, sj) = find(&b, "memory");
    round_trip(b, Edit::Text { message: mi, segment: sj, item: Some(0), text: "Likes WOMBATS".into() }, "WOMBATS");
    let c = demo('c');
    let (mi, sj) = find(&c, "skills");
    let Segment::Skills(s) = &c.messages[mi].segments[sj] else { unreachable!() };
    let loaded = s.items.iter().position(|i| i.is_loaded()).expect("a loaded skill");
    round_trip(
        c,
        Edit::Text { message: mi, segment: sj, item: Some(loaded), text: "# Body PLATYPUS".into() },
        "PLATYPUS",
    );
}

#[test]
fn tool_call_arguments() {
    let d = demo('d');
    let (mi, sj) = find(&d, "tool_call_request");
    let args = parse_arguments(r#"{"city": "Reykjavik-EDIT", "n": 3}"#).unwrap();
    round_trip(d, Edit::Arguments { message: mi, segment: sj, arguments: args }, "Reykjavik-EDIT");
}

#[test]
fn arguments_as_typed_say_what_and_where() {
    let e = parse_arguments("{\n  \"a\": 1,\n  \"b\": \n}").unwrap_err();
    assert_eq!(e.rule, Rule::InvalidJson);
    assert!(e.path.contains("line 4"), "{e}");
    let e = parse_arguments("[1, 2]").unwrap_err();
    assert_eq!(e.rule, Rule::WrongType);
    assert!(e.message.contains("an array"), "{e}");
    let e = parse_arguments(r#"{"a": 1, "a": 2}"#).unwrap_err();
    assert_eq!(e.rule, Rule::DuplicateKey);
    assert!(parse_arguments("{}").unwrap().is_empty());
}

#[test]
fn a_variable_changes_every_definition_and_the_substituted_text() {
    let a = demo('a');
    let defs: Vec<_> = a
        .messages
        .iter()
        .flat_map(|m| &m.segments)
        .filter_map(|s| if let Segment::StaticVar(v) = s { Some(v.name.clone()) } else { None })
        .collect();
    let name = defs.first().expect("demo a has a variable").clone();
    round_trip(a, Edit::Variable { name, value: "VALUE-EDITED".into() }, "VALUE-EDITED");
}

#[test]
fn wrong_targets_are_errors_and_change_nothing() {
    let d = demo('d');
    let mut e = d.clone();
    assert!(Edit::Model(None).apply(&mut e.clone()).is_ok());
    assert_eq!(
        Edit::Text { message: 999, segment: 0, item: None, text: "x".into() }.apply(&mut e),
        Err(EditError::NoMessage(999))
    );
    let (mi, sj) = find(&d, "tool_call_request");
    let err = Edit::Text { message: mi, segment: sj, item: None, text: "x".into() }.apply(&mut e).unwrap_err();
    assert!(err.to_string().contains("tool_call_request"), "{err}");
    assert_eq!(
        Edit::Variable { name: "nope".into(), value: "v".into() }.apply(&mut e),
        Err(EditError::NoVariable("nope".into()))
    );
    // A batch that fails half-way leaves nothing applied.
    let (tm, ts) = find(&d, "text");
    let batch = Edit::Batch(vec![
        Edit::Model(Some("half".into())),
        Edit::Text { message: tm, segment: ts, item: None, text: "half".into() },
        Edit::Text { message: tm, segment: 99, item: None, text: "x".into() },
    ]);
    assert!(batch.apply(&mut e).is_err());
    assert_eq!(e, d);
}

#[test]
fn history_merges_typing_and_undoes_and_redoes_steps() {
    let d = demo('d');
    let (mi, sj) = find(&d, "text");
    let mut e = d.clone();
    let mut h = History::default();
    assert!(!h.can_undo() && !h.can_redo());
    for t in ["a", "ab", "abc"] {
        h.apply(&mut e, Edit::Text { message: mi, segment: sj, item: None, text: t.into() }).unwrap();
    }
    h.seal();
    h.apply(&mut e, Edit::Model(Some("m2".into()))).unwrap();
    let after = e.clone();
    assert!(h.undo(&mut e));
    assert_eq!(e.model, d.model);
    assert!(openai(&e).contains("\"abc\""));
    assert!(h.undo(&mut e), "the three keystrokes are one step");
    assert_eq!(e, d);
    assert!(!h.undo(&mut e));
    assert!(h.redo(&mut e) && h.redo(&mut e));
    assert_eq!(e, after);
    assert!(!h.redo(&mut e));
    // A new edit after an undo drops the redo branch.
    assert!(h.undo(&mut e));
    h.apply(&mut e, Edit::Model(Some("m3".into()))).unwrap();
    assert!(!h.can_redo());
    // A failed edit leaves the history as it was.
    h.seal();
    assert!(h.apply(&mut e, Edit::Model(None)).is_ok());
    assert!(h.apply(&mut e, Edit::Text { message: 0, segment: 999, item: None, text: String::new() }).is_err());
    assert!(h.undo(&mut e));
    assert_eq!(e.model.as_deref(), Some("m3"));
}
