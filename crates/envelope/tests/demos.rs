//! The demos: each validates without warnings, together they cover every
//! kind, their exports match the golden files byte for byte and are valid
//! OpenAI requests, and their skills equal the SKILL.md files they come from.
//!
//! `UPDATE_GOLDEN=1 cargo test -p envelope --test demos` rewrites the golden
//! files (review the diff before committing).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use async_openai::types::chat::CreateChatCompletionRequest;
use envelope::export::openai_json;
use envelope::skill::parse_skill;
use envelope::{parse, Segment, KINDS};

const DEMOS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn demo(name: &str) -> envelope::Loaded {
    let path = root().join("demos").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(&text).unwrap_or_else(|e| panic!("demo {name} is invalid: {e:#?}"))
}

#[test]
fn every_demo_is_valid_without_warnings() {
    for d in DEMOS {
        let loaded = demo(d);
        assert!(loaded.warnings.is_empty(), "demo {d} warns: {:#?}", loaded.warnings);
    }
}

#[test]
fn demos_cover_every_kind_and_media_type() {
    let mut kinds = BTreeSet::new();
    let mut media = BTreeSet::new();
    for d in DEMOS {
        for m in demo(d).envelope.messages {
            for s in m.segments {
                if let Segment::Media(x) = &s {
                    media.insert(x.media_type.as_str());
                }
                kinds.insert(s.kind());
            }
        }
    }
    // The protocol's eleven kinds; the fidelity extension's two come from
    // imported requests (tests/round_trip.rs).
    assert_eq!(kinds, KINDS[..11].iter().copied().collect::<BTreeSet<_>>());
    assert_eq!(media, ["audio", "image", "video"].into_iter().collect());
}

#[test]
fn demo_f_is_long_and_has_priorities() {
    let f = demo("f").envelope;
    assert!(f.messages.len() >= 40);
    let priorities: BTreeSet<u64> = f.messages.iter().filter_map(|m| m.truncation_priority).collect();
    assert!(priorities.len() >= 2, "{priorities:?}");
}

#[test]
fn exports_match_golden_files_and_are_valid_requests() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for d in DEMOS {
        let out = openai_json(&demo(d).envelope);
        let typed: Result<CreateChatCompletionRequest, _> = serde_json::from_str(&out);
        assert!(typed.is_ok(), "demo {d}: {:?}", typed.err());
        let golden = root().join("crates/envelope/tests/fixtures/golden").join(format!("{d}.openai.json"));
        if update {
            std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
            std::fs::write(&golden, &out).unwrap();
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
        assert!(out == want, "demo {d}: export differs from {}", golden.display());
    }
}

#[test]
fn demo_skills_equal_their_skill_files() {
    let mut seen = 0;
    for d in DEMOS {
        for m in demo(d).envelope.messages {
            for s in m.segments {
                let Segment::Skills(list) = s else { continue };
                for item in list.items {
                    let path = root().join("demos/skills").join(&item.name).join("SKILL.md");
                    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    let (skill, warnings) = parse_skill(&text, Some(&item.name)).unwrap();
                    assert!(warnings.is_empty(), "{}: {warnings:?}", path.display());
                    assert_eq!(skill.name.as_deref(), Some(item.name.as_str()));
                    assert_eq!(skill.description.as_deref(), Some(item.description.as_str()), "{}", item.name);
                    if let Some(body) = &item.body {
                        assert_eq!(&skill.body, body, "{}: body", item.name);
                    }
                    seen += 1;
                }
            }
        }
    }
    assert!(seen >= 4, "only {seen} skills in the demos");
}
