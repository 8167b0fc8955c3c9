//! `pep diff A B` and `pep export --check GOLDEN`: what changed between two
//! prompt versions, and golden snapshots of the export.

use envelope::diff::{self, json};
use envelope::export;

use crate::{line, read, Done, Failure};

/// Output of `pep diff`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
}

fn load(file: &str) -> Result<envelope::Loaded, Failure> {
    let bytes = read(file).map_err(|f| Failure { code: 2, ..f })?;
    diff::load_any(&bytes).map_err(|errors| Failure { lines: errors.iter().map(|d| line(file, d)).collect(), code: 2 })
}

/// `pep diff A B`: the report and whether the documents differ (exit 1, as
/// `diff` does); unreadable or invalid input exits 2. `check_version`: the
/// verdict is `version-not-bumped` alone (a changed prompt sent with an
/// unchanged, dropped or absent `prompt.version`), for a CI gate.
pub fn run(a: &str, b: &str, format: DiffFormat, check_version: bool) -> Result<(String, bool), Failure> {
    let (la, lb) = (load(a)?, load(b)?);
    let mut c = diff::compare(&la.envelope, &lb.envelope);
    if check_version {
        c.findings = diff::version::check(&la.envelope, &lb.envelope, true).into_iter().collect();
    }
    let out = match format {
        DiffFormat::Text => diff::render_text(&c, a, b),
        DiffFormat::Json => export::to_pretty(&serde_json::to_value(&c).unwrap_or_default()),
    };
    Ok((out, if check_version { !c.findings.is_empty() } else { !c.equal }))
}

/// `pep export --check GOLDEN [--update] FILE`: compares the export with the
/// golden file as JSON (formatting and key order aside). Equal: nothing, exit
/// 0. Different: the field-level diff on stdout, exit 1. `--update` rewrites
/// GOLDEN with the export (and says so on stderr).
pub fn check_golden(output: &str, golden: &str, update: bool) -> Result<(Done, bool), Failure> {
    let previous = std::fs::read(golden);
    let same = |prev: &[u8]| match (
        serde_json::from_slice::<serde_json::Value>(prev),
        serde_json::from_str::<serde_json::Value>(output),
    ) {
        (Ok(g), Ok(o)) => g == o,
        _ => prev == output.as_bytes(),
    };
    if update {
        let said = match &previous {
            Ok(prev) if same(prev) => format!("{golden}: up to date"),
            _ => {
                std::fs::write(golden, output)
                    .map_err(|e| Failure::input(format!("{golden}: error: cannot write: {e}")))?;
                format!("{golden}: updated")
            }
        };
        return Ok((Done { stderr: vec![said], ..Done::default() }, false));
    }
    let prev = previous.map_err(|e| {
        Failure::input(format!("{golden}: error: cannot read the golden file: {e} (run with --update to create it)"))
    })?;
    if same(&prev) {
        return Ok((Done::default(), false));
    }
    let text =
        match (serde_json::from_slice::<serde_json::Value>(&prev), serde_json::from_str::<serde_json::Value>(output)) {
            (Ok(g), Ok(o)) => {
                let changes = json::diff(&g, &o);
                let n = changes.len();
                format!(
                    "{golden}: the export differs from the golden file in {n} field{} (- golden, + export):\n{}",
                    if n == 1 { "" } else { "s" },
                    json::render(&changes)
                )
            }
            _ => format!(
                "{golden}: the export differs from the golden file (- golden, + export):\n{}",
                diff::line_diff(&String::from_utf8_lossy(&prev), output, "")
            ),
        };
    Ok((Done::from(text), true))
}
