//! `pep tokens` and `pep truncate`: exact o200k_base counts and PromptPoet's
//! cache-aware truncation, from the command line.

use envelope::export::contributions;
use std::collections::HashMap;

use envelope::parts::{assemble, part_strings, part_texts};
use envelope::tokens;
use envelope::truncate::{self, Limit, PartBudget};

use crate::{leak, load, read, Failure};

/// `pep tokens [FILE|-]`: the count of the raw UTF-8 text, and a newline.
pub fn tokens(file: Option<&str>) -> Result<String, Failure> {
    let file = file.unwrap_or("-");
    let bytes = read(file)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        Failure::input(format!("{file}: error: not valid UTF-8 (invalid byte at offset {})", e.valid_up_to()))
    })?;
    Ok(format!("{}\n", tokens::count(text)))
}

fn truncate_failure(e: truncate::TruncateError) -> Failure {
    Failure { lines: vec![format!("error: {e}")], code: 2 }
}

/// `pep truncate --limit N [--step K] [--request] FILE`: the report, or
/// with `--request` the OpenAI Chat request of the kept parts.
pub fn truncate_envelope(file: &str, limit: i64, step: i64, request: bool) -> Result<String, Failure> {
    let loaded = load(file)?;
    let env = &loaded.envelope;
    let texts = part_texts(env, &contributions(env));
    // The report shows parts, not segments: only the part strings are
    // counted (segment counts would double the tokenizer's work), each
    // distinct string once.
    let mut seen: HashMap<&str, u64> = HashMap::new();
    let counts: Vec<u64> =
        part_strings(&texts).into_iter().map(|s| *seen.entry(s).or_insert_with(|| tokens::count(s) as u64)).collect();
    let parts = assemble(&texts, &counts, &[]);
    let budgets: Vec<PartBudget> = parts.iter().map(|p| p.budget()).collect();
    let limit = Limit::from_promptpoet(limit).map_err(truncate_failure)?;
    let step = match (limit, u64::try_from(step)) {
        (Limit::None, _) => 1,
        (_, Ok(s)) if s >= 1 => s,
        _ => return Err(truncate_failure(truncate::TruncateError::InvalidStep(step))),
    };
    let plan = truncate::plan(&budgets, limit, step).map_err(truncate_failure)?;
    let out = if request {
        envelope::budget::kept_request(env, &contributions(env), &parts, &plan.kept)
    } else {
        envelope::budget::truncate_report(&parts, &plan)
    };
    let text = envelope::export::to_pretty(&out);
    leak(seen);
    leak((out, parts, texts, loaded));
    Ok(text)
}

/// `pep truncate --parts FILE`: PromptPoet's own shape, token counts given.
/// `--limit`/`--step` on the command line override the file's.
pub fn truncate_parts(file: &str, limit: Option<i64>, step: Option<i64>) -> Result<String, Failure> {
    let bytes = read(file)?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        Failure::input(format!("{file}: error: not valid UTF-8 (invalid byte at offset {})", e.valid_up_to()))
    })?;
    let mut input = truncate::read_promptpoet(text).map_err(|e| Failure::input(format!("{file}: error: {e}")))?;
    if let Some(l) = limit {
        input.token_limit = l;
    }
    if let Some(step) = step {
        input.truncation_step = step;
    }
    let plan = truncate::plan_promptpoet_input(&input).map_err(truncate_failure)?;
    Ok(plan.to_json() + "\n")
}
