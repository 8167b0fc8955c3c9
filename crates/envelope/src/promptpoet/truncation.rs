//! PromptPoet's truncation of a rendered template: `Prompt.tokenize()` then
//! `Prompt.truncate(token_limit, truncation_step)` (`prompt.py` lines
//! 190–236, 392–497), planned by [`crate::truncate::plan`] on the parts'
//! token counts.
//!
//! Priorities are whatever the YAML gave. prompt-poet compares them with
//! `== ` (to cut runs) and `> 0` (to keep runs) and sorts by them; so ints,
//! bools and floats work (`True` is 1, `1 == 1.0`), anything else raises
//! `TypeError` at `> 0`. Here the numeric priorities are replaced by their
//! rank among the positive ones (equal values share a rank, order kept),
//! which leaves every comparison prompt-poet makes unchanged; non-positive
//! ones are 0.

use super::{PyValue, Rendered};
use crate::truncate::{self, Limit, PartBudget, Plan, TruncateError};

/// Why PromptPoet's truncation raised.
#[derive(Clone, Debug, PartialEq)]
pub enum TemplateTruncateError {
    /// `ValueError` for the limit or the step, or `TruncationError`.
    Truncate(TruncateError),
    /// `TypeError`: a part's priority cannot be compared with 0.
    Priority { part: usize, message: String },
    /// `ValueError` from `Prompt.tokenize()`: the template has no parts.
    NothingToTokenize,
}

impl std::fmt::Display for TemplateTruncateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateTruncateError::Truncate(e) => e.fmt(f),
            TemplateTruncateError::Priority { part, message } => {
                write!(f, "parts[{part}].truncation_priority: TypeError: {message}")
            }
            TemplateTruncateError::NothingToTokenize => write!(f, "Nothing to tokenize: self._parts=[]."),
        }
    }
}

impl std::error::Error for TemplateTruncateError {}

impl TemplateTruncateError {
    /// The class prompt-poet raises.
    pub fn class(&self) -> &'static str {
        match self {
            TemplateTruncateError::Truncate(TruncateError::LimitNotMet { .. }) => "TruncationError",
            TemplateTruncateError::Truncate(TruncateError::TotalTooLarge { .. }) => "OverflowError",
            TemplateTruncateError::Truncate(_) => "ValueError",
            TemplateTruncateError::Priority { .. } => "TypeError",
            TemplateTruncateError::NothingToTokenize => "ValueError",
        }
    }
}

fn numeric(v: &PyValue) -> Option<f64> {
    match v {
        PyValue::Bool(b) => Some(f64::from(u8::from(*b))),
        PyValue::Int(n) => Some(*n as f64),
        PyValue::BigInt(s) => s.parse().ok(),
        PyValue::Float(f) => Some(*f),
        _ => None,
    }
}

/// Each part's priority as a rank (see the module docs), or prompt-poet's
/// `TypeError` for the first part whose priority cannot be compared.
pub fn priority_ranks(rendered: &Rendered) -> Result<Vec<u64>, TemplateTruncateError> {
    let mut values = Vec::with_capacity(rendered.parts.len());
    for (i, p) in rendered.parts.iter().enumerate() {
        match numeric(&p.truncation_priority) {
            Some(v) => values.push(v),
            None => {
                let name = match &p.truncation_priority {
                    PyValue::Date(_) => "datetime.date",
                    PyValue::DateTime(_) => "datetime.datetime",
                    other => other.type_name(),
                };
                return Err(TemplateTruncateError::Priority {
                    part: i,
                    message: format!("'>' not supported between instances of '{name}' and 'int'"),
                });
            }
        }
    }
    // Exact int comparisons where both are ints that f64 cannot tell apart
    // are not a concern below 2^53; priorities are small.
    let mut positive: Vec<f64> = values.iter().copied().filter(|v| *v > 0.0).collect();
    positive.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    positive.dedup();
    Ok(values.iter().map(|v| if *v > 0.0 { positive.partition_point(|p| p < v) as u64 + 1 } else { 0 }).collect())
}

/// Plans `Prompt.truncate(limit, step)` for a rendered template whose parts
/// have `tokens` tokens each. `-1` is no limit (and the step is not looked at).
pub fn plan(rendered: &Rendered, tokens: &[u64], limit: i64, step: i64) -> Result<Plan, TemplateTruncateError> {
    if rendered.parts.is_empty() {
        // `tokenize()` comes first and refuses an empty prompt (prompt.py 165–166).
        return Err(TemplateTruncateError::NothingToTokenize);
    }
    let limit = Limit::from_promptpoet(limit).map_err(TemplateTruncateError::Truncate)?;
    let step = match limit {
        Limit::None => 1,
        Limit::Tokens(_) if step < 1 => return Err(TemplateTruncateError::Truncate(TruncateError::InvalidStep(step))),
        Limit::Tokens(_) => step as u64,
    };
    let ranks = match limit {
        Limit::None => vec![0; rendered.parts.len()],
        Limit::Tokens(_) => priority_ranks(rendered)?,
    };
    let budgets: Vec<PartBudget> =
        tokens.iter().zip(&ranks).map(|(&tokens, &priority)| PartBudget { tokens, priority }).collect();
    truncate::plan(&budgets, limit, step).map_err(TemplateTruncateError::Truncate)
}

/// `{"target","totalTokens","keptTokens","parts":[{"name","role","priority","tokens","kept"}]}`,
/// the shape `pep truncate` prints for an envelope, with PromptPoet's values.
pub fn report(rendered: &Rendered, tokens: &[u64], plan: &Plan) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = rendered
        .parts
        .iter()
        .zip(tokens)
        .zip(&plan.kept)
        .map(|((p, t), kept)| {
            serde_json::json!({
                "name": p.name.to_json(),
                "role": p.role.to_json(),
                "priority": p.truncation_priority.to_json(),
                "tokens": t,
                "kept": kept,
            })
        })
        .collect();
    serde_json::json!({
        "target": plan.target,
        "totalTokens": plan.total,
        "keptTokens": plan.kept_tokens,
        "parts": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::promptpoet::render;

    #[test]
    fn ranks_keep_prompt_poets_comparisons() {
        let r = render(
            "- {name: a, content: x, truncation_priority: 1.5}\n- {name: b, content: x, truncation_priority: true}\n\
             - {name: c, content: x, truncation_priority: 2}\n- {name: d, content: x, truncation_priority: -3}\n\
             - {name: e, content: x, truncation_priority: 1}\n",
            &serde_json::json!({}),
        )
        .unwrap();
        assert_eq!(priority_ranks(&r).unwrap(), [2, 1, 3, 0, 1]);
    }

    #[test]
    fn where_prompt_poet_raises() {
        let empty = render("[]", &serde_json::json!({})).unwrap();
        assert_eq!(plan(&empty, &[], -1, 1), Err(TemplateTruncateError::NothingToTokenize));
        let r = render("- {name: a, content: x, truncation_priority: high}", &serde_json::json!({})).unwrap();
        assert_eq!(plan(&r, &[1], -1, 0).map(|p| p.kept), Ok(vec![true]));
        let e = plan(&r, &[1], 5, 1).unwrap_err();
        assert_eq!(e.class(), "TypeError");
        assert!(e.to_string().contains("'>' not supported between instances of 'str' and 'int'"), "{e}");
        assert_eq!(plan(&r, &[1], 0, 1).unwrap_err().class(), "ValueError");
    }
}
