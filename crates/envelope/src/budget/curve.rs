//! The cache curve in O((parts + turns) log parts), plus the token
//! comparisons where consecutive kept prompts differ.
//!
//! Planning every turn's prefix and comparing whole prompts is quadratic
//! (100,000 messages: 50,000 turns × 100,000 parts). Instead:
//!
//! 1. **Plans, incrementally.** PromptPoet's walk removes whole runs of equal
//!    priority in a fixed order (priority high to low, then document order)
//!    until the removed tokens reach the target, the last run partly, from
//!    its first part. A prefix's runs are the document's runs cut at the
//!    prefix, in the same order. So each run gets its *rank* in that order
//!    once; a Fenwick tree over ranks holds each run's tokens inside the
//!    current prefix (parts are added as turns grow); the walk's stopping run
//!    is the first rank whose cumulative tokens reach the target (one
//!    descent), and the parts removed from it a binary search over the
//!    document's prefix sums. A plan is then `(w, k)`: ranks below `w`
//!    removed whole, the first `k` parts of rank `w` removed.
//! 2. **Where two plans differ.** Only runs of ranks between the two plans'
//!    `w` (both ends included) change; each gives an interval of parts whose
//!    status differs. Before the first such part the two prompts are the same
//!    parts, so their common prefix is at least the kept ids there; a
//!    Fenwick tree over runs (in document order) holds each run's removed ids
//!    under the current plan, so the kept ids before any part are a query.
//! 3. **The rest, compared.** From the first difference the two prompts'
//!    ids are compared as [`crate::truncate::common_prefix_len`] does; where
//!    both reach the same part at the same offset they are equal up to the
//!    next difference, which is skipped to at once. Finding the next kept
//!    part skips removed runs through a segment tree of ranks.
//!
//! Only step 3 can cost more than a logarithm per turn, and only while the
//! two prompts' ids agree across parts that are not aligned (many identical
//! messages): then it is linear in that stretch, which is at most the kept
//! prompt (at most the limit).

use std::collections::BTreeSet;

use crate::parts::Part;
use crate::truncate::{matching_prefix, target_for, Limit, MAX_TOTAL_TOKENS};

use super::{plan_prefix, prefix_len, TurnPoint};
use crate::truncate::{common_prefix_len, PartBudget};

/// A Fenwick tree of sums.
struct Fenwick(Vec<u128>);

impl Fenwick {
    fn new(n: usize) -> Self {
        Fenwick(vec![0; n + 1])
    }

    fn add(&mut self, i: usize, delta: i128) {
        let mut i = i + 1;
        while i < self.0.len() {
            self.0[i] = self.0[i].wrapping_add_signed(delta);
            i += i & i.wrapping_neg();
        }
    }

    /// Sum of the first `i` entries.
    fn prefix(&self, i: usize) -> u128 {
        let (mut i, mut sum) = (i.min(self.0.len() - 1), 0u128);
        while i > 0 {
            sum = sum.wrapping_add(self.0[i]);
            i &= i - 1;
        }
        sum
    }

    /// The smallest `j` with `prefix(j + 1) >= target` (`target > 0`), or
    /// the length when the whole sum is below it.
    fn first_reaching(&self, target: u128) -> usize {
        let n = self.0.len() - 1;
        let (mut pos, mut rest) = (0usize, target);
        let mut step = n.checked_next_power_of_two().map_or(0, |p| if p > n { p / 2 } else { p });
        if step == 0 && n > 0 {
            step = 1;
        }
        while step > 0 {
            let next = pos + step;
            if next <= n && self.0[next] < rest {
                pos = next;
                rest -= self.0[next];
            }
            step /= 2;
        }
        pos
    }
}

/// Maximum of ranks over runs, to find the next run not removed whole.
struct MaxTree {
    size: usize,
    tree: Vec<usize>,
}

impl MaxTree {
    fn new(values: &[usize]) -> Self {
        let size = values.len().next_power_of_two().max(1);
        let mut tree = vec![0; 2 * size];
        tree[size..size + values.len()].copy_from_slice(values);
        for i in (1..size).rev() {
            tree[i] = tree[2 * i].max(tree[2 * i + 1]);
        }
        MaxTree { size, tree }
    }

    /// The first index `>= from` whose value is `>= w`.
    fn first_at_least(&self, from: usize, w: usize) -> Option<usize> {
        self.find(1, 0, self.size, from, w)
    }

    fn find(&self, node: usize, lo: usize, hi: usize, from: usize, w: usize) -> Option<usize> {
        if hi <= from || self.tree[node] < w {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let mid = (lo + hi) / 2;
        self.find(2 * node, lo, mid, from, w).or_else(|| self.find(2 * node + 1, mid, hi, from, w))
    }
}

struct Run {
    start: usize,
    end: usize,
    /// Position in the removal order; `usize::MAX` for priority 0 (never removed).
    rank: usize,
}

/// Which parts of the first `n` a plan removes: runs of rank `< w` whole,
/// and the first `k` parts of the run of rank `w`.
#[derive(Clone, Copy, Default)]
struct PlanAt {
    n: usize,
    w: usize,
    k: usize,
}

struct Curve<'a> {
    ids: &'a [Vec<u32>],
    /// Prefix sums of tokens (`tok[i]`: parts before `i`) and of id lengths.
    tok: Vec<u128>,
    len: Vec<u128>,
    runs: Vec<Run>,
    run_of: Vec<usize>,
    /// Run index of each rank.
    by_rank: Vec<usize>,
    ranks: MaxTree,
}

impl Curve<'_> {
    fn ids_of(&self, i: usize) -> &[u32] {
        self.ids.get(i).map_or(&[], Vec::as_slice)
    }

    /// Parts of run `r` that `p` removes.
    fn removed_in(&self, r: usize, p: PlanAt) -> usize {
        let run = &self.runs[r];
        match run.rank {
            rank if rank < p.w => run.end - run.start,
            rank if rank == p.w => p.k,
            _ => 0,
        }
    }

    /// Ids removed by `p` from run `r`, as the Fenwick over runs holds them.
    fn removed_ids(&self, r: usize, p: PlanAt) -> u128 {
        let start = self.runs[r].start;
        self.len[start + self.removed_in(r, p)] - self.len[start]
    }

    /// Ids of the parts before `x` (`x <= p.n`) that `p` keeps.
    fn kept_ids_before(&self, x: usize, p: PlanAt, removed: &Fenwick) -> u128 {
        let Some(&r) = self.run_of.get(x) else {
            return self.len[x] - removed.prefix(self.runs.len());
        };
        let start = self.runs[r].start;
        let inside = (start + self.removed_in(r, p)).min(x);
        self.len[x] - removed.prefix(r) - (self.len[inside] - self.len[start])
    }

    /// The first part at or after `i` (and before `p.n`) that `p` keeps.
    fn next_kept(&self, mut i: usize, p: PlanAt) -> Option<usize> {
        while i < p.n {
            let r = self.run_of[i];
            let run = &self.runs[r];
            if run.rank > p.w || (run.rank == p.w && i >= run.start + p.k) {
                return Some(i);
            }
            if run.rank == p.w {
                i = run.start + p.k;
                continue;
            }
            i = self.runs[self.ranks.first_at_least(r + 1, p.w)?].start;
        }
        None
    }

    /// The common id prefix of the prompts of plans `a` and `b` (`a.n <= b.n`),
    /// `removed` holding `b`'s removed ids per run, `diffs` the sorted
    /// intervals of parts whose status differs.
    fn common(&self, a: PlanAt, b: PlanAt, diffs: &[(usize, usize)], removed: &Fenwick) -> u128 {
        let first = diffs.first().map_or(a.n, |d| d.0).min(a.n);
        let mut common = self.kept_ids_before(first, b, removed);
        let (mut ia, mut ib) = (self.next_kept(first, a), self.next_kept(first, b));
        let (mut oa, mut ob) = (0usize, 0usize);
        let mut d = 0;
        loop {
            let (Some(pa), Some(pb)) = (ia, ib) else { return common };
            if pa == pb && oa == ob {
                // The same part at the same offset: equal up to the next difference.
                while d < diffs.len() && diffs[d].1 <= pa {
                    d += 1;
                }
                let to = diffs.get(d).map_or(a.n, |x| x.0.max(pa)).min(a.n);
                common += self.kept_ids_before(to, b, removed) - self.kept_ids_before(pa, b, removed) - oa as u128;
                ia = self.next_kept(to, a);
                ib = self.next_kept(to, b);
                (oa, ob) = (0, 0);
                continue;
            }
            let (x, y) = (&self.ids_of(pa)[oa..], &self.ids_of(pb)[ob..]);
            let m = x.len().min(y.len());
            let same = matching_prefix(&x[..m], &y[..m]);
            common += same as u128;
            if same < m {
                return common;
            }
            (oa, ob) = (oa + m, ob + m);
            if oa == self.ids_of(pa).len() {
                ia = self.next_kept(pa + 1, a);
                oa = 0;
            }
            if ob == self.ids_of(pb).len() {
                ib = self.next_kept(pb + 1, b);
                ob = 0;
            }
        }
    }
}

pub(super) fn cache_curve(parts: &[Part], ids: &[Vec<u32>], ends: &[usize], limit: Limit, step: u64) -> Vec<TurnPoint> {
    // Tools first, then messages in order (as `parts::part_texts` makes
    // them): a turn's parts are a prefix found by binary search, and turns
    // that only grow can be planned incrementally. Anything else is planned
    // turn by turn.
    let key = |p: &Part| p.message.map_or(0, |m| m as u128 + 1);
    let ordered = parts.windows(2).all(|w| key(&w[0]) <= key(&w[1]));
    let sizes: Vec<usize> = match ordered {
        true => ends.iter().map(|&end| parts.partition_point(|p| p.message.is_none_or(|m| m < end))).collect(),
        false => ends.iter().map(|&end| prefix_len(parts, end)).collect(),
    };
    if !ordered || sizes.windows(2).any(|w| w[0] > w[1]) {
        return direct(parts, ids, ends, limit, step);
    }
    incremental(parts, ids, &sizes, limit, step)
}

/// The curve for turns of `sizes` parts each (non-decreasing).
fn incremental(parts: &[Part], ids: &[Vec<u32>], sizes: &[usize], limit: Limit, step: u64) -> Vec<TurnPoint> {
    let n_parts = parts.len();
    let mut tok = vec![0u128; n_parts + 1];
    let mut len = vec![0u128; n_parts + 1];
    for (i, p) in parts.iter().enumerate() {
        tok[i + 1] = tok[i] + u128::from(p.tokens);
        len[i + 1] = len[i] + ids.get(i).map_or(0, Vec::len) as u128;
    }
    // Runs of equal priority and their removal order.
    let mut runs: Vec<Run> = Vec::new();
    let mut run_of = Vec::with_capacity(n_parts);
    for (i, p) in parts.iter().enumerate() {
        match runs.last_mut() {
            Some(r) if parts[r.start].priority == p.priority => r.end = i + 1,
            _ => runs.push(Run { start: i, end: i + 1, rank: usize::MAX }),
        }
        run_of.push(runs.len() - 1);
    }
    let mut by_rank: Vec<usize> = (0..runs.len()).filter(|&r| parts[runs[r].start].priority > 0).collect();
    by_rank.sort_by_key(|&r| (std::cmp::Reverse(parts[runs[r].start].priority), runs[r].start));
    for (rank, &r) in by_rank.iter().enumerate() {
        runs[r].rank = rank;
    }
    let ranks = MaxTree::new(&runs.iter().map(|r| r.rank).collect::<Vec<_>>());
    let c = Curve { ids, tok, len, run_of, by_rank, ranks, runs };

    let limit = match (limit, step) {
        (Limit::None, _) => None,
        (Limit::Tokens(0), _) | (Limit::Tokens(_), 0) => Some(None), // an invalid plan: never met
        (Limit::Tokens(l), _) => Some(Some(l)),
    };
    let mut active = Fenwick::new(c.by_rank.len()); // tokens per rank inside the prefix
    let mut removed = Fenwick::new(c.runs.len()); // ids removed per run by the current plan
    let mut active_ranks: BTreeSet<usize> = BTreeSet::new(); // ranks of runs reached so far
    let mut added = 0usize;
    let mut prev = PlanAt::default();
    let mut out = Vec::with_capacity(sizes.len());
    for &n in sizes {
        for (i, part) in parts.iter().enumerate().take(n).skip(added) {
            let rank = c.runs[c.run_of[i]].rank;
            if rank != usize::MAX {
                active.add(rank, i128::from(part.tokens));
                let r = c.run_of[i];
                if active_ranks.insert(rank) {
                    // Reached for the first time: removed as the previous plan
                    // says (plans only look at runs from here on).
                    removed.add(r, c.removed_ids(r, prev) as i128);
                }
            }
        }
        added = added.max(n);
        let total = c.tok[n];
        // The plan of this prefix, as `truncate::plan` makes it.
        let (plan, kept, met) = match limit {
            _ if total > u128::from(MAX_TOTAL_TOKENS) => (PlanAt { n, ..PlanAt::default() }, total, false),
            None => (PlanAt { n, ..PlanAt::default() }, total, true),
            Some(None) => (PlanAt { n, ..PlanAt::default() }, total, false),
            Some(Some(limit)) => {
                let target = u128::from(target_for((total as u64).saturating_sub(limit), step));
                let mut p = PlanAt { n, ..PlanAt::default() };
                let mut removed_tokens = 0;
                if target > 0 {
                    let j = active.first_reaching(target);
                    let through = active.prefix(j + 1);
                    if j == c.by_rank.len() {
                        p.w = j;
                        removed_tokens = through;
                    } else if through == target {
                        p.w = j + 1;
                        removed_tokens = target;
                    } else {
                        p.w = j;
                        let before = active.prefix(j);
                        let run = &c.runs[c.by_rank[j]];
                        let need = target - before;
                        // The first part of the run whose cumulative tokens reach `need`.
                        let upto = run.end.min(n);
                        let i = c.tok[run.start + 1..=upto].partition_point(|&t| t - c.tok[run.start] < need);
                        p.k = i + 1;
                        removed_tokens = before + (c.tok[run.start + p.k] - c.tok[run.start]);
                    }
                }
                let kept = total - removed_tokens;
                if kept > u128::from(limit) {
                    (PlanAt { n, ..PlanAt::default() }, total, false) // PromptPoet leaves it untruncated
                } else {
                    (p, kept, true)
                }
            }
        };
        // Runs whose status changes, and the removed ids per run for the new plan.
        // (Runs with no part in either prefix cannot change: only the ranks
        // of runs already reached are visited.)
        let (lo, hi) = (prev.w.min(plan.w), prev.w.max(plan.w));
        let mut diffs = Vec::new();
        {
            for &rank in active_ranks.range(lo..=hi) {
                let r = c.by_rank[rank];
                let (was, now) = (c.removed_in(r, prev), c.removed_in(r, plan));
                if was != now {
                    let start = c.runs[r].start;
                    let (from, to) = ((start + was.min(now)).min(prev.n), (start + was.max(now)).min(prev.n));
                    if from < to {
                        diffs.push((from, to));
                    }
                    let delta = c.removed_ids(r, plan) as i128 - c.removed_ids(r, prev) as i128;
                    removed.add(r, delta);
                }
            }
        }
        diffs.sort_unstable();
        let prefix = if out.is_empty() { 0 } else { c.common(prev, plan, &diffs, &removed) };
        out.push(TurnPoint { prefix: clamp(prefix), kept: clamp(kept), met });
        prev = plan;
    }
    out
}

/// The definition: plan each turn's prefix, compare whole prompts.
pub(super) fn direct(parts: &[Part], ids: &[Vec<u32>], ends: &[usize], limit: Limit, step: u64) -> Vec<TurnPoint> {
    let budgets: Vec<PartBudget> = parts.iter().map(Part::budget).collect();
    let mut out = Vec::with_capacity(ends.len());
    let mut prev: Vec<&[u32]> = Vec::new();
    for &end in ends {
        let n = prefix_len(parts, end);
        let (kept, met) = match plan_prefix(&budgets, n, limit, step) {
            Ok(p) => (p.kept, true),
            Err(_) => (vec![true; n], false),
        };
        let now: Vec<&[u32]> =
            kept.iter().enumerate().filter(|(_, k)| **k).filter_map(|(i, _)| ids.get(i).map(Vec::as_slice)).collect();
        let kept_tokens = kept.iter().zip(&budgets).filter(|(k, _)| **k).map(|(_, b)| b.tokens).sum();
        let prefix = if out.is_empty() { 0 } else { common_prefix_len(&prev, &now) };
        out.push(TurnPoint { prefix, kept: kept_tokens, met });
        prev = now;
    }
    out
}

fn clamp(x: u128) -> u64 {
    u64::try_from(x).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn part(message: Option<usize>, tokens: u64, priority: u64) -> Part {
        Part { name: String::new(), role: None, message, priority, tokens, segment_tokens: vec![], estimate: false }
    }

    /// Parts (an optional tools part, then one per message), their ids (from
    /// a tiny alphabet, so that prompts often agree across misaligned parts),
    /// and the turn ends.
    fn arb_case() -> impl Strategy<Value = (Vec<Part>, Vec<Vec<u32>>, Vec<usize>)> {
        (any::<bool>(), prop::collection::vec((0u64..4, prop::collection::vec(0u32..3, 0..4), any::<bool>()), 0..24))
            .prop_map(|(tools, msgs)| {
                let mut parts = Vec::new();
                let mut ids = Vec::new();
                if tools {
                    parts.push(part(None, 2, 0));
                    ids.push(vec![7, 7]);
                }
                let mut ends = Vec::new();
                for (i, (priority, tokens, turn)) in msgs.into_iter().enumerate() {
                    parts.push(part(Some(i), tokens.len() as u64, priority));
                    ids.push(tokens);
                    if turn {
                        ends.push(i + 1);
                    }
                }
                (parts, ids, ends)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn same_curve_as_the_definition(
            (parts, ids, ends) in arb_case(),
            limit in prop_oneof![Just(Limit::None), (0u64..30).prop_map(Limit::Tokens)],
            step in 0u64..5,
        ) {
            prop_assert_eq!(cache_curve(&parts, &ids, &ends, limit, step), direct(&parts, &ids, &ends, limit, step));
        }

        /// Token counts that differ from the ids' lengths (images, missing ids).
        #[test]
        fn same_curve_when_counts_and_ids_differ(
            (mut parts, mut ids, ends) in arb_case(),
            extra in prop::collection::vec(0u64..3, 0..24),
            drop_ids in 0usize..5,
            limit in (1u64..30).prop_map(Limit::Tokens),
        ) {
            for (p, e) in parts.iter_mut().zip(extra) {
                p.tokens += e;
            }
            ids.truncate(ids.len().saturating_sub(drop_ids));
            prop_assert_eq!(cache_curve(&parts, &ids, &ends, limit, 1), direct(&parts, &ids, &ends, limit, 1));
        }
    }

    #[test]
    fn a_hundred_thousand_messages_are_fast() {
        // 100,000 messages of 1–8 tokens, priorities 1–3, a turn every other message.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut parts = vec![part(None, 50, 0)];
        let mut ids = vec![vec![1; 50]];
        for i in 0..100_000 {
            let n = 1 + (next() % 8) as usize;
            parts.push(part(Some(i), n as u64, 1 + next() % 3));
            ids.push((0..n).map(|_| (next() % 1000) as u32).collect());
        }
        let ends: Vec<usize> = (1..=100_000).step_by(2).collect();
        let t = std::time::Instant::now();
        let curve = cache_curve(&parts, &ids, &ends, Limit::Tokens(20_000), 1);
        assert_eq!(curve.len(), 50_000);
        assert!(curve.iter().all(|p| p.met && p.kept <= 20_000));
        // Quadratic planning took minutes; debug build: a few seconds at most.
        assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
        // Spot-check against the definition on a prefix.
        let short = &ends[..300];
        assert_eq!(
            cache_curve(&parts, &ids, short, Limit::Tokens(2_000), 3),
            direct(&parts, &ids, short, Limit::Tokens(2_000), 3)
        );
    }
}
