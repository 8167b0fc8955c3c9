//! The envelopes whose exports are checked against the providers' own
//! request types (provider_types.rs, provider_types_gemini_bedrock.rs): the
//! demos, the request corpus (imported), and 150 generated envelopes.

use std::path::PathBuf;

use envelope::export::params::Provider;
use envelope::{parse, Envelope};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use crate::common::*;

/// The envelopes whose exports are checked.
pub fn envelopes() -> Vec<(String, Envelope)> {
    let mut out: Vec<(String, Envelope)> = DEMOS.iter().map(|d| (format!("demo {d}"), demo(d).envelope)).collect();
    let dir = root().join("crates/envelope/tests/fixtures/requests");
    for sub in ["openai", "responses", "anthropic"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(sub)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let imported = envelope::import::import(&text).unwrap_or_else(|e| panic!("{}: {e:#?}", f.display()));
            out.push((f.display().to_string(), imported.envelope));
        }
    }
    let mut runner = TestRunner::deterministic();
    for i in 0..150 {
        let doc = arb_envelope().new_tree(&mut runner).unwrap().current();
        let mut e = parse(&doc.to_string()).unwrap().envelope;
        // Settings no provider defines pass through as written (with a
        // notice); the typed requests rightly do not know them.
        if let Some(p) = &mut e.params {
            p.retain(|k, _| Provider::ALL.iter().any(|pr| pr.known().contains(&k.as_str())));
        }
        out.push((format!("generated {i}"), e));
    }
    out
}
