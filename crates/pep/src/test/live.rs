//! `pep test --live`: each rendered request sent to its provider
//! (`crate::live::send_all`, bounded concurrency, retries with backoff),
//! each reply's text taken as the case's output.

use std::path::PathBuf;

use envelope::export::Target;
use envelope::golden::{Failure, Kind};
use envelope::types::RequestFormat;

use super::suite::{Broken, Suite};
use super::{Got, Rendered};
use crate::live::{self, LiveConfig, LiveJob};

/// The export target of a request format.
pub fn target(f: RequestFormat) -> Target {
    match f {
        RequestFormat::Openai => Target::OpenaiChat,
        RequestFormat::Responses => Target::OpenaiResponses,
        RequestFormat::Anthropic => Target::Anthropic,
        RequestFormat::Gemini => Target::Gemini,
        RequestFormat::Bedrock => Target::Bedrock,
    }
}

/// Sends the suite's rendered requests; a case whose prompt did not render,
/// or has lint errors, is not sent.
pub fn outputs(
    s: &Suite,
    rendered: &[Rendered],
    record: Option<PathBuf>,
    concurrency: Option<usize>,
    retries: Option<u32>,
) -> Result<Vec<Got>, Broken> {
    let mut cfg = LiveConfig::from_env();
    cfg.record = record;
    if let Some(c) = concurrency {
        cfg.concurrency = c.max(1);
    }
    if let Some(r) = retries {
        cfg.retries = r;
    }
    let mut jobs = Vec::new();
    let mut index = Vec::new();
    for (i, (c, r)) in s.cases.iter().zip(rendered).enumerate() {
        // A prompt that failed to render or lint (a secret in it, say) is not sent.
        if !r.failures.is_empty() {
            continue;
        }
        if let (Some(env), Some(body)) = (&r.envelope, &r.request) {
            jobs.push(LiveJob { name: c.name.clone(), format: s.send, body: body.clone(), model: env.model.clone() });
            index.push(i);
        }
    }
    // Nothing is sent when a job cannot be (no key, Bedrock, …): the run is broken.
    live::check(&jobs, &cfg).map_err(|e| vec![format!("{}: error: --live: {e}", s.prompt_file)])?;
    let replies = live::send_all(jobs, &cfg);
    let mut got: Vec<Got> = s
        .cases
        .iter()
        .map(|_| {
            Got::None(Failure::new(
                "",
                Kind::Live,
                "not sent: the rendered prompt has errors (the render failures above)",
            ))
        })
        .collect();
    for (i, reply) in index.into_iter().zip(replies) {
        got[i] = match reply {
            Ok(r) => Got::Bytes { text: r.body },
            Err(e) => Got::None(Failure::new("", Kind::Live, e.to_string())),
        };
    }
    Ok(got)
}
