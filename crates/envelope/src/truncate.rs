//! PromptPoet's cache-aware truncation (prompt-poet 0.0.52, `Prompt.truncate`),
//! as a pure function over per-part token counts, plus the prefix-cache
//! simulation of PROTOCOL.md §5.
//!
//! # What PromptPoet 0.0.52 does (read from `prompt_poet/prompt.py`)
//!
//! `truncate(token_limit, truncation_step)`:
//! 1. If `token_limit == -1` it returns at once: nothing is removed and
//!    `truncation_step` is never looked at (so any step, even 0, is accepted).
//! 2. Otherwise `token_limit < 1` raises `ValueError`, then `truncation_step < 1`
//!    raises `ValueError` (the limit is checked first).
//! 3. `target = ceil(max(0, total - limit) / step) * step`, `total` being the
//!    untruncated prompt's tokens.
//! 4. Blocks: one left-to-right pass cuts the parts into maximal runs of adjacent
//!    parts with *equal* priority (priority-0 parts form runs too, so they
//!    separate runs); only runs with priority `> 0` are kept; they are sorted by
//!    priority, highest first, with Python's stable sort (`reverse=True` keeps
//!    equal keys in document order).
//! 5. If `target == 0` or there are no such runs, nothing is removed. Otherwise,
//!    for each run in that order: if `removed + run_tokens <= target` the whole
//!    run is removed; else its parts are removed one at a time from its first
//!    (oldest) part, each removal adding the part's tokens and then stopping the
//!    run as soon as `removed >= target`. After each run, `removed >= target`
//!    ends the walk. Parts are removed whole.
//! 6. If the kept parts' tokens are still `> limit`, the prompt is reset to all
//!    parts and `TruncationError` is raised naming the kept count
//!    (`num_tokens`, measured *after* the attempted removal) and `token_limit`.
//!    A kept total equal to the limit is fine.
//!
//! # Where this differs from, or sharpens, the PROTOCOL.md §5 restatement
//!
//! - **Partial runs always stop the walk.** A run is only entered part by part
//!   when `removed + run_tokens > target`, so removing its parts one by one must
//!   reach `removed >= target` inside it; the spec's "and stop" is therefore
//!   implied, not an extra rule.
//! - **Zero-token parts.** They follow the mechanics literally: when
//!   `target == 0` nothing at all is removed (not even zero-token parts); a
//!   zero-token part inside a whole-removed run is removed with it; a run of
//!   zero-token parts reached while `removed < target` is removed whole
//!   (`removed + 0 <= target`); inside a partially removed run, zero-token parts
//!   *before* the part that reaches the target are removed and those *after* it
//!   are kept; runs after the stop are kept.
//! - **Step default.** PromptPoet's default `truncation_step` is `None`, and
//!   with a limit set that fails (`None < 1` is a `TypeError` in Python 3). The
//!   spec's default of 1 is used instead; [`plan`] always takes a step.
//! - **Priorities.** PromptPoet accepts any integer; negative priorities behave
//!   exactly like 0 (filtered by `> 0`; a non-positive part between two runs
//!   separates them whatever its value), so [`PartBudget::priority`] is a `u64`
//!   and the JSON reader maps negative priorities to 0. An explicit `null`
//!   priority makes real PromptPoet fail with `TypeError` (`None > 0`); here, as
//!   the spec says, null or missing means 0.
//! - **Very large totals.** PromptPoet computes the target with float division
//!   (`math.ceil(surplus / step)`). For totals up to 2^53 that equals exact
//!   integer ceiling division (proved in `target_for`); beyond 2^53 it does not,
//!   so such totals are rejected with [`TruncateError::TotalTooLarge`] instead of
//!   emulating float rounding. (Python would not raise there.)
//! - **Reported total.** After truncation PromptPoet's `prompt.tokens` is the
//!   kept parts' tokens, so `total_tokens` in the JSON answer is the kept total;
//!   PromptPoet's private `_total_tokens` stays the untruncated total.
//!
//! Verified against the real prompt-poet 0.0.52 on 400 generated cases
//! (`tests/fixtures/truncate/cases.json`, made by `gen.py` next to it).

use std::fmt;

use serde_json::Value;

/// One part's budget: its tokens and its truncation priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PartBudget {
    pub tokens: u64,
    /// 0 = never removed; higher priorities are removed first.
    pub priority: u64,
}

/// The token limit: none (PromptPoet's `-1`) or a number of tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    None,
    Tokens(u64),
}

impl Limit {
    /// PromptPoet's integer convention: `-1` means no limit; other values below 1
    /// are [`TruncateError::InvalidLimit`].
    pub fn from_promptpoet(limit: i64) -> Result<Limit, TruncateError> {
        match limit {
            -1 => Ok(Limit::None),
            n if n < 1 => Err(TruncateError::InvalidLimit(n)),
            n => Ok(Limit::Tokens(n as u64)),
        }
    }
}

/// Largest total this module accepts: 2^53 (see the module docs).
pub const MAX_TOTAL_TOKENS: u64 = 1 << 53;

/// The outcome of [`plan`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Tokens to remove: `ceil(max(0, total - limit) / step) * step` (0 without a limit).
    pub target: u64,
    /// All parts' tokens.
    pub total: u64,
    /// The kept parts' tokens (`total` minus what was removed).
    pub kept_tokens: u64,
    /// One flag per input part, in order.
    pub kept: Vec<bool>,
}

impl Plan {
    /// Tokens removed.
    pub fn removed_tokens(&self) -> u64 {
        self.total - self.kept_tokens
    }

    /// Indices of the kept parts, in order.
    pub fn kept_indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.kept.iter().enumerate().filter_map(|(i, &k)| k.then_some(i))
    }
}

/// Why no plan could be made. The first three are where PromptPoet raises.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TruncateError {
    /// Even after removing what the algorithm allows, `kept` tokens exceed `limit`
    /// (PromptPoet's `TruncationError`; the prompt stays untruncated).
    LimitNotMet { kept: u64, limit: u64 },
    /// A limit below 1 other than -1 (PromptPoet's `ValueError`).
    InvalidLimit(i64),
    /// A step below 1 (PromptPoet's `ValueError`).
    InvalidStep(i64),
    /// All parts together exceed [`MAX_TOTAL_TOKENS`] (this module's own limit).
    TotalTooLarge { total: u128 },
}

impl fmt::Display for TruncateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TruncateError::LimitNotMet { kept, limit } => write!(
                f,
                "cannot truncate to the token limit: {kept} tokens would still be kept, \
                 limit is {limit} (parts with priority 0 are never removed)"
            ),
            TruncateError::InvalidLimit(n) => {
                write!(f, "token limit must be a positive integer, or -1 for no limit; got {n}")
            }
            TruncateError::InvalidStep(n) => {
                write!(f, "truncation step must be a positive integer; got {n}")
            }
            TruncateError::TotalTooLarge { total } => {
                write!(f, "the parts total {total} tokens, more than the supported {MAX_TOTAL_TOKENS}")
            }
        }
    }
}

impl std::error::Error for TruncateError {}

/// `ceil(surplus / step) * step`, exactly as Python's
/// `math.ceil(surplus / step) * step` for `surplus <= 2^53`, `step >= 1`.
///
/// Why integer arithmetic is exact there: if `step > surplus > 0` the float
/// quotient lies in `(0, 1)` (it is at least 2^-64, far from underflow) and its
/// ceiling is 1, as here. Otherwise both operands are below 2^53, exact as
/// floats, and IEEE division rounds `q + r/step` (`q`, `r` the integer quotient
/// and remainder) correctly. With `2^k <= q < 2^(k+1)` the float spacing near
/// `q` is `2^(k-52)`, and `step <= surplus / q <= 2^(53-k)`, so a non-zero
/// `r/step >= 2^(k-53)` is at least half a spacing — and exactly half would
/// need `q < 2^k`. So the quotient never rounds down to `q` when `r > 0`, and
/// never past `q + 1` (an integer below 2^53, exactly representable): the float
/// ceiling is the integer ceiling. The product fits in `u64`: it is `step` when
/// the quotient is 1, else below `2 * surplus <= 2^54`.
pub(crate) fn target_for(surplus: u64, step: u64) -> u64 {
    debug_assert!(step >= 1 && surplus <= MAX_TOTAL_TOKENS);
    if surplus == 0 {
        0
    } else {
        surplus.div_ceil(step) * step
    }
}

/// Which parts PromptPoet 0.0.52's `Prompt.truncate(limit, step)` keeps.
///
/// `step` is ignored when `limit` is [`Limit::None`] (as in PromptPoet). Runs in
/// O(n log n) for n parts with one small allocation for the runs.
pub fn plan(parts: &[PartBudget], limit: Limit, step: u64) -> Result<Plan, TruncateError> {
    let limit = match limit {
        Limit::None => None,
        Limit::Tokens(0) => return Err(TruncateError::InvalidLimit(0)),
        Limit::Tokens(n) => Some(n),
    };
    if limit.is_some() && step == 0 {
        return Err(TruncateError::InvalidStep(0));
    }
    let total_wide: u128 = parts.iter().map(|p| u128::from(p.tokens)).sum();
    if total_wide > u128::from(MAX_TOTAL_TOKENS) {
        return Err(TruncateError::TotalTooLarge { total: total_wide });
    }
    let total = total_wide as u64;
    let mut kept = vec![true; parts.len()];
    let Some(limit) = limit else {
        return Ok(Plan { target: 0, total, kept_tokens: total, kept });
    };

    let target = target_for(total.saturating_sub(limit), step);
    let mut removed = 0u64;
    if target > 0 {
        // Maximal runs of equal priority, kept only when priority > 0.
        struct Run {
            start: usize,
            end: usize, // exclusive
            priority: u64,
            tokens: u64,
        }
        let mut runs: Vec<Run> = Vec::new();
        let mut start = 0;
        while start < parts.len() {
            let priority = parts[start].priority;
            let mut end = start;
            let mut tokens = 0u64;
            while end < parts.len() && parts[end].priority == priority {
                tokens += parts[end].tokens;
                end += 1;
            }
            if priority > 0 {
                runs.push(Run { start, end, priority, tokens });
            }
            start = end;
        }
        // Stable: equal priorities stay in document order.
        runs.sort_by_key(|r| std::cmp::Reverse(r.priority));

        for run in &runs {
            if removed + run.tokens <= target {
                kept[run.start..run.end].fill(false);
                removed += run.tokens;
            } else {
                for i in run.start..run.end {
                    removed += parts[i].tokens;
                    kept[i] = false;
                    if removed >= target {
                        break;
                    }
                }
            }
            if removed >= target {
                break;
            }
        }
    }

    let kept_tokens = total - removed;
    if kept_tokens > limit {
        return Err(TruncateError::LimitNotMet { kept: kept_tokens, limit });
    }
    Ok(Plan { target, total, kept_tokens, kept })
}

// ---------------------------------------------------------------------------
// PromptPoet's own JSON shape (for `pep truncate --parts FILE`)
// ---------------------------------------------------------------------------

/// Error of [`plan_promptpoet`]: bad input (CLI exit 1) or a truncation error
/// where PromptPoet raises (CLI exit 2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PromptPoetError {
    /// The input is not the expected JSON shape.
    Input(String),
    /// PromptPoet would raise (or the total is too large, see [`TruncateError`]).
    Truncate(TruncateError),
}

impl PromptPoetError {
    /// The CLI's exit code: 1 for malformed input, 2 for truncation errors.
    pub fn exit_code(&self) -> i32 {
        match self {
            PromptPoetError::Input(_) => 1,
            PromptPoetError::Truncate(_) => 2,
        }
    }
}

impl fmt::Display for PromptPoetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PromptPoetError::Input(m) => write!(f, "invalid input: {m}"),
            PromptPoetError::Truncate(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PromptPoetError {}

impl From<TruncateError> for PromptPoetError {
    fn from(e: TruncateError) -> Self {
        PromptPoetError::Truncate(e)
    }
}

/// A part as read from PromptPoet-shaped JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedPart {
    pub name: String,
    pub budget: PartBudget,
}

/// PromptPoet-shaped input, read and checked for shape (not yet for limit/step).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptPoetInput {
    /// As given; -1 (also when missing or null, PromptPoet's default) = no limit.
    pub token_limit: i64,
    /// As given; 1 when missing or null.
    pub truncation_step: i64,
    pub parts: Vec<NamedPart>,
}

/// The answer for PromptPoet-shaped input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptPoetPlan {
    /// Names of the kept parts, in order.
    pub kept: Vec<String>,
    /// Tokens of the kept parts (`len(prompt.tokens)` after truncation).
    pub total_tokens: u64,
    pub plan: Plan,
}

impl PromptPoetPlan {
    /// `{"kept":[names in order],"total_tokens":N}`.
    pub fn to_json(&self) -> String {
        crate::jsontext::compact(&serde_json::json!({ "kept": self.kept, "total_tokens": self.total_tokens }))
    }
}

fn int_field(obj: &serde_json::Map<String, Value>, key: &str, what: &str) -> Result<Option<i64>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_i64() {
            Some(n) => Ok(Some(n)),
            // Integers beyond i64: positive ones saturate (a limit or step that
            // large behaves the same), anything else is malformed.
            None if v.as_u64().is_some() => Ok(Some(i64::MAX)),
            None => Err(format!("`{key}` must be an integer ({what}), got {v}")),
        },
    }
}

/// Read PromptPoet-shaped JSON:
/// `{"token_limit": N, "truncation_step": K, "parts": [{"name", "role", "content",
/// "truncation_priority", "tokens"}]}`.
///
/// `token_limit` missing or null = -1 (no limit, PromptPoet's default);
/// `truncation_step` missing or null = 1; `truncation_priority` missing or null =
/// 0, negative = 0 (same behaviour); `tokens` is a non-negative integer, or an
/// array of token ids whose length is used; `name` is a string; `role`,
/// `content` and unknown keys are ignored.
pub fn read_promptpoet(input: &str) -> Result<PromptPoetInput, String> {
    let root: Value = serde_json::from_str(input).map_err(|e| format!("not JSON: {e}"))?;
    let obj = root.as_object().ok_or("the input must be a JSON object")?;
    let token_limit = int_field(obj, "token_limit", "-1 or a positive number of tokens")?.unwrap_or(-1);
    let truncation_step = int_field(obj, "truncation_step", "a positive number of tokens")?.unwrap_or(1);
    let list = obj.get("parts").ok_or("missing `parts`")?.as_array().ok_or("`parts` must be an array")?;
    let mut parts = Vec::with_capacity(list.len());
    for (i, p) in list.iter().enumerate() {
        let p = p.as_object().ok_or_else(|| format!("parts[{i}] must be an object"))?;
        let name = match p.get("name") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(format!("parts[{i}].name must be a string")),
            None => return Err(format!("parts[{i}] has no `name`")),
        };
        let tokens = match p.get("tokens") {
            Some(Value::Array(ids)) => ids.len() as u64,
            Some(v) => v.as_u64().ok_or_else(|| {
                format!("parts[{i}].tokens must be a non-negative integer or an array of ids, got {v}")
            })?,
            None => return Err(format!("parts[{i}] has no `tokens`")),
        };
        let priority = match p.get("truncation_priority") {
            None | Some(Value::Null) => 0,
            Some(v) => match (v.as_u64(), v.as_i64()) {
                (Some(n), _) => n,
                (None, Some(_negative)) => 0,
                _ => return Err(format!("parts[{i}].truncation_priority must be an integer, got {v}")),
            },
        };
        parts.push(NamedPart { name, budget: PartBudget { tokens, priority } });
    }
    Ok(PromptPoetInput { token_limit, truncation_step, parts })
}

/// Plan already-read PromptPoet input, with PromptPoet's checks in its order.
pub fn plan_promptpoet_input(input: &PromptPoetInput) -> Result<PromptPoetPlan, TruncateError> {
    let limit = Limit::from_promptpoet(input.token_limit)?;
    let step = match limit {
        Limit::None => 1, // PromptPoet never looks at the step without a limit.
        Limit::Tokens(_) if input.truncation_step < 1 => return Err(TruncateError::InvalidStep(input.truncation_step)),
        Limit::Tokens(_) => input.truncation_step as u64,
    };
    let budgets: Vec<PartBudget> = input.parts.iter().map(|p| p.budget).collect();
    let plan = plan(&budgets, limit, step)?;
    let kept = plan.kept_indices().map(|i| input.parts[i].name.clone()).collect();
    Ok(PromptPoetPlan { kept, total_tokens: plan.kept_tokens, plan })
}

/// Read and plan PromptPoet-shaped JSON (see [`read_promptpoet`]).
pub fn plan_promptpoet(input: &str) -> Result<PromptPoetPlan, PromptPoetError> {
    let input = read_promptpoet(input).map_err(PromptPoetError::Input)?;
    Ok(plan_promptpoet_input(&input)?)
}

/// `pep truncate --parts FILE`: the JSON answer `{"kept":[...],"total_tokens":N}`,
/// or an error whose [`PromptPoetError::exit_code`] is 1 (bad input) or 2
/// (PromptPoet would raise).
pub fn plan_promptpoet_json(input: &str) -> Result<String, PromptPoetError> {
    plan_promptpoet(input).map(|p| p.to_json())
}

// ---------------------------------------------------------------------------
// Prefix-cache simulation (PROTOCOL.md §5, end)
// ---------------------------------------------------------------------------

/// Length of the common prefix of two token sequences, each given as the
/// concatenation of its parts' token ids.
///
/// Exact, and cheap when the two prompts share parts: a part that is the very
/// same slice in both (same address and length, e.g. both turns borrow the
/// message's cached ids) is skipped without reading it; other stretches are
/// compared in blocks, whatever the part boundaries.
pub fn common_prefix_len<A: AsRef<[u32]>, B: AsRef<[u32]>>(a: &[A], b: &[B]) -> u64 {
    let (mut i, mut j) = (0usize, 0usize); // part indices
    let (mut oi, mut oj) = (0usize, 0usize); // offsets inside the parts
    let mut n = 0u64;
    loop {
        while i < a.len() && oi == a[i].as_ref().len() {
            i += 1;
            oi = 0;
        }
        while j < b.len() && oj == b[j].as_ref().len() {
            j += 1;
            oj = 0;
        }
        if i == a.len() || j == b.len() {
            return n;
        }
        let x = &a[i].as_ref()[oi..];
        let y = &b[j].as_ref()[oj..];
        if std::ptr::eq(x, y) {
            n += x.len() as u64;
            oi += x.len();
            oj += y.len();
            continue;
        }
        let m = x.len().min(y.len());
        let same = matching_prefix(&x[..m], &y[..m]);
        n += same as u64;
        if same < m {
            return n;
        }
        oi += m;
        oj += m;
    }
}

/// Length of the common prefix of two equally long slices.
pub(crate) fn matching_prefix(x: &[u32], y: &[u32]) -> usize {
    const BLOCK: usize = 64;
    let mut at = 0;
    for (cx, cy) in x.chunks(BLOCK).zip(y.chunks(BLOCK)) {
        if cx == cy {
            at += cx.len();
        } else {
            return at + cx.iter().zip(cy).take_while(|(p, q)| p == q).count();
        }
    }
    at
}

/// Cache figures for one turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TurnCache {
    /// Common token prefix with the previous turn's kept prompt (0 at turn 0).
    pub prefix: u64,
    /// Kept tokens at this turn.
    pub kept: u64,
}

impl TurnCache {
    /// `prefix / kept`, 0 when nothing is kept.
    pub fn hit(&self) -> f64 {
        if self.kept == 0 {
            0.0
        } else {
            self.prefix as f64 / self.kept as f64
        }
    }
}

/// Per-turn cache figures. `turns[t]` is the kept prompt at turn t, as the
/// token-id slices of its kept parts in order.
pub fn cache_turns<T, P>(turns: &[T]) -> Vec<TurnCache>
where
    T: AsRef<[P]>,
    P: AsRef<[u32]>,
{
    let mut out = Vec::with_capacity(turns.len());
    for (t, turn) in turns.iter().enumerate() {
        let parts = turn.as_ref();
        let kept = parts.iter().map(|p| p.as_ref().len() as u64).sum();
        let prefix = if t == 0 { 0 } else { common_prefix_len(turns[t - 1].as_ref(), parts) };
        out.push(TurnCache { prefix, kept });
    }
    out
}

/// hit(t) = common prefix of the kept prompts at turns t-1 and t / kept tokens
/// at turn t; hit(0) = 0 (and 0 for a turn that keeps nothing).
pub fn cache_hits<T, P>(turns: &[T]) -> Vec<f64>
where
    T: AsRef<[P]>,
    P: AsRef<[u32]>,
{
    cache_turns(turns).iter().map(TurnCache::hit).collect()
}

/// Arithmetic mean of the given hit rates (0 for none). Turn 0 is always 0;
/// pass `&hits[1..]` to leave it out.
pub fn mean_hit(hits: &[f64]) -> f64 {
    if hits.is_empty() {
        0.0
    } else {
        hits.iter().sum::<f64>() / hits.len() as f64
    }
}

/// Token-weighted rate over all turns: Σ prefix / Σ kept ("cached prompt tokens
/// over total prompt tokens"), 0 when nothing is kept.
pub fn weighted_hit(turns: &[TurnCache]) -> f64 {
    let prefix: u64 = turns.iter().map(|t| t.prefix).sum();
    let kept: u64 = turns.iter().map(|t| t.kept).sum();
    if kept == 0 {
        0.0
    } else {
        prefix as f64 / kept as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pb(tokens: u64, priority: u64) -> PartBudget {
        PartBudget { tokens, priority }
    }

    #[test]
    fn target_rounding() {
        assert_eq!(target_for(0, 7), 0);
        assert_eq!(target_for(1, 7), 7);
        assert_eq!(target_for(7, 7), 7);
        assert_eq!(target_for(8, 7), 14);
        assert_eq!(target_for(5, u64::MAX), u64::MAX);
        assert_eq!(target_for(MAX_TOTAL_TOKENS, 1), MAX_TOTAL_TOKENS);
        assert_eq!(target_for(MAX_TOTAL_TOKENS, 3), MAX_TOTAL_TOKENS + 1);
    }

    /// The float formula agrees with integer ceiling division where both
    /// operands are exact floats (the case the proof in `target_for` covers).
    #[test]
    fn target_matches_float_formula() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let surplus = x % (MAX_TOTAL_TOKENS + 1);
            let step = 1 + (x >> 11) % (1 + (x >> 40) % 1_000_000);
            let float = ((surplus as f64) / (step as f64)).ceil() as u64 * step;
            assert_eq!(target_for(surplus, step), float, "{surplus} / {step}");
        }
    }

    #[test]
    fn too_large_total() {
        let parts = [pb(MAX_TOTAL_TOKENS, 1), pb(1, 1)];
        assert_eq!(
            plan(&parts, Limit::Tokens(10), 1),
            Err(TruncateError::TotalTooLarge { total: u128::from(MAX_TOTAL_TOKENS) + 1 })
        );
        let parts = [pb(u64::MAX, 1), pb(u64::MAX, 1)];
        assert!(matches!(plan(&parts, Limit::None, 1), Err(TruncateError::TotalTooLarge { .. })));
    }

    #[test]
    fn error_messages_state_the_numbers() {
        let e = plan(&[pb(30, 0)], Limit::Tokens(20), 1).unwrap_err();
        assert_eq!(e, TruncateError::LimitNotMet { kept: 30, limit: 20 });
        let m = e.to_string();
        assert!(m.contains("30") && m.contains("20"), "{m}");
        assert!(TruncateError::InvalidLimit(-5).to_string().contains("-5"));
        assert!(TruncateError::InvalidStep(0).to_string().contains('0'));
    }

    #[test]
    fn promptpoet_limit_convention() {
        assert_eq!(Limit::from_promptpoet(-1), Ok(Limit::None));
        assert_eq!(Limit::from_promptpoet(0), Err(TruncateError::InvalidLimit(0)));
        assert_eq!(Limit::from_promptpoet(-2), Err(TruncateError::InvalidLimit(-2)));
        assert_eq!(Limit::from_promptpoet(5), Ok(Limit::Tokens(5)));
    }

    #[test]
    fn prefix_by_parts_matches_flat() {
        let a: Vec<Vec<u32>> = vec![vec![1, 2, 3], vec![], vec![4, 5], vec![6]];
        let b: Vec<Vec<u32>> = vec![vec![1], vec![2, 3, 4], vec![5, 7]];
        assert_eq!(common_prefix_len(&a, &b), 5);
        assert_eq!(common_prefix_len(&a, &a), 6);
        let empty: Vec<Vec<u32>> = vec![];
        assert_eq!(common_prefix_len(&a, &empty), 0);
        // Shared slices take the pointer fast path and still count exactly.
        let shared: Vec<u32> = (0..1000).collect();
        let x: Vec<&[u32]> = vec![&shared, &shared[..10]];
        let y: Vec<&[u32]> = vec![&shared, &shared[..5], &[99]];
        assert_eq!(common_prefix_len(&x, &y), 1005);
    }

    #[test]
    fn plan_is_fast_for_2000_parts() {
        let parts: Vec<PartBudget> = (0..2000u64).map(|i| pb(1 + i % 37, [0, 1, 1, 2, 3][(i % 5) as usize])).collect();
        let total: u64 = parts.iter().map(|p| p.tokens).sum();
        let t = std::time::Instant::now();
        for _ in 0..100 {
            let p = plan(&parts, Limit::Tokens(total / 3), 64).unwrap();
            assert!(p.kept_tokens <= total / 3);
        }
        // 100 plans; even unoptimised this is far below 2 ms each (the bound
        // leaves room for a loaded machine; a quadratic plan is seconds).
        assert!(t.elapsed().as_millis() < 1500, "{:?}", t.elapsed());
    }
}
