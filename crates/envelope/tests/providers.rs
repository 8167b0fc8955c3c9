//! Import and export between providers: the round trips.
//!
//! - For every valid envelope `e` and each format F of OpenAI Chat, OpenAI
//!   Responses and Anthropic Messages: `export_F(import(export_F(e))) ==
//!   export_F(e)`, byte for byte (the demos, and generated envelopes).

use envelope::export::{render, Target};
use envelope::import::{import, import_as, Format};
use envelope::{parse, Envelope};
use proptest::prelude::*;

mod common;
use common::*;

const FORMATS: [(Target, Format); 3] = [
    (Target::OpenaiChat, Format::OpenaiChat),
    (Target::OpenaiResponses, Format::OpenaiResponses),
    (Target::Anthropic, Format::Anthropic),
];

/// `export(import(export(e))) == export(e)` for each format; returns the first exports.
fn round_trip(e: &Envelope, what: &str) -> Result<Vec<String>, TestCaseError> {
    let mut out = Vec::new();
    for (target, format) in FORMATS {
        let first = render(e, target).text;
        let imported = import_as(&first, Some(format)).map_err(|errs| {
            TestCaseError::fail(format!("{what}: {format:?} export does not import: {errs:#?}\n{first}"))
        })?;
        let second = render(&imported.envelope, target).text;
        prop_assert!(
            first == second,
            "{what}: {format:?} round trip differs\n--- first\n{first}\n--- second\n{second}"
        );
        out.push(first);
    }
    Ok(out)
}

#[test]
fn demos_round_trip_in_every_format_and_are_detected() {
    for d in DEMOS {
        let e = demo(d).envelope;
        let exports = round_trip(&e, d).unwrap();
        for ((_, format), text) in FORMATS.iter().zip(&exports) {
            assert_eq!(import(text).unwrap().format, *format, "demo {d}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn generated_envelopes_round_trip(doc in arb_envelope()) {
        let loaded = parse(&doc.to_string());
        let loaded = match loaded {
            Ok(l) => l,
            Err(errs) => return Err(TestCaseError::fail(format!("generator made an invalid envelope: {errs:#?}\n{doc:#}"))),
        };
        round_trip(&loaded.envelope, "generated")?;
    }
}

#[test]
fn the_generator_covers_every_kind_and_imports_recover_them() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeSet;
    let mut runner = TestRunner::deterministic();
    let (mut made, mut back) = (BTreeSet::new(), BTreeSet::new());
    for _ in 0..300 {
        let doc = arb_envelope().new_tree(&mut runner).unwrap().current();
        let e = parse(&doc.to_string()).unwrap().envelope;
        made.extend(e.messages.iter().flat_map(|m| m.segments.iter().map(|s| s.kind())));
        let again = import(&render(&e, Target::OpenaiChat).text).unwrap().envelope;
        back.extend(again.messages.iter().flat_map(|m| m.segments.iter().map(|s| s.kind())));
    }
    assert_eq!(made, envelope::KINDS.into_iter().collect::<BTreeSet<_>>());
    // Everything but variables comes back as its own kind.
    let expected: BTreeSet<&str> = envelope::KINDS.into_iter().filter(|k| *k != "static_var").collect();
    assert_eq!(back, expected);
}
