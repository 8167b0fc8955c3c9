//! Recorded calls on the page (issue 22): the recording read last (a trace
//! and its logs, a batch file, JSON Lines of bodies), read in the engine
//! (`worker::recorded`) with progress and Cancel; how the Calls view sorts
//! and filters it, and where it was left; the pure arithmetic of its table
//! (order, times, the tokens chart, the call to compare with).
//!
//! The context ([`Calls`]) is the app's (one signal); a [`Recording`]'s
//! signals are made when a read starts, under a root owner of their own,
//! not a view's (they outlive the Calls page while the user looks at a
//! call), and dropped when the next read replaces it.

use std::cmp::Ordering;
use std::sync::Arc;

use leptos::prelude::*;

use crate::worker::recorded::{self as engine, Frequent, Given, ReadError, Reply, Row};

/// The Calls view's context: the recording read last, if any.
#[derive(Clone, Copy)]
pub struct Calls {
    pub current: RwSignal<Option<Recording>>,
}

impl Calls {
    pub fn provide() {
        provide_context(Calls { current: RwSignal::new(None) });
    }

    pub fn expect() -> Calls {
        expect_context::<Calls>()
    }
}

/// Where reading stands.
#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    Reading {
        bytes: u64,
        total: u64,
        calls: u64,
        file: String,
    },
    Done,
    /// The engine could not read (it failed to load, crashed): why.
    Failed(String),
    Cancelled,
}

/// What the read's answer says beyond its rows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub errors: Vec<ReadError>,
    pub error_count: u64,
    pub notes: Vec<String>,
    pub skipped_spans: u64,
    pub late_events: u64,
    pub frequent: Vec<Frequent>,
    pub capture_hints: Vec<(String, String)>,
    /// Rows folded into another's call (one request recorded twice): not listed.
    pub folded: usize,
}

/// A recording's state, apart from its rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Meta {
    /// The inputs' names, for people: `traces.jsonl and logs.jsonl`.
    pub names: String,
    pub phase: Phase,
    pub outcome: Outcome,
}

/// How the table is sorted and filtered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub sort: Col,
    pub ascending: bool,
    /// Words that must all appear (any case) in the provider, model,
    /// dialect, trace id or last user text.
    pub filter: String,
}

impl Default for Table {
    fn default() -> Self {
        Table { sort: Col::Start, ascending: true, filter: String::new() }
    }
}

/// Where the user left the table (kept while they look at a call).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Place {
    pub scroll_top: f64,
    /// The row (position in the order) that had the focus.
    pub focus: usize,
    /// A call was shown since: back in the table, its row takes the focus.
    pub from_call: bool,
}

/// The recording read last.
#[derive(Clone, Copy)]
pub struct Recording {
    /// The page's number for it (the engine keeps only the last).
    pub number: u64,
    pub meta: RwSignal<Meta>,
    /// Every row, by index (the order the engine read them).
    pub rows: StoredValue<Vec<Row>>,
    /// How many rows the table shows (rows arrive in batches while reading;
    /// the table catches up a few times a second).
    pub shown: RwSignal<usize>,
    pub table: RwSignal<Table>,
    pub place: StoredValue<Place>,
    /// The table's order as shown (positions into `rows`), brought up to
    /// `shown` and `table` by [`refresh_order`].
    pub order: RwSignal<Order>,
    /// The order is being made again (a sort, a filter, over many rows).
    pub sorting: RwSignal<bool>,
    /// The order last made: for the rows shown then and the settings then.
    cache: StoredValue<Option<Cached>>,
    /// Numbers the orders asked for: only the latest is shown.
    order_seq: StoredValue<u64>,
    /// What was read, to read it again.
    given: StoredValue<Vec<Given>, LocalStorage>,
}

/// An order computed: the rows shown then, the table's settings then, the order.
type Cached = (usize, Table, Arc<Vec<u32>>);

/// The table's order (positions into the rows), compared by identity.
#[derive(Clone, Debug)]
pub struct Order(pub Arc<Vec<u32>>);

impl PartialEq for Order {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The rows' start order (the table's default order): the table's own when
/// it is sorted so (`None` until it is up to date: tracked, it comes), else
/// made (a sort of every row, once: the table was sorted otherwise).
pub fn start_order(rec: Recording, shown: usize) -> Option<Arc<Vec<u32>>> {
    let default = Table::default();
    rec.order.track();
    let own = rec
        .cache
        .try_with_value(|c| c.as_ref().filter(|(n, t, _)| *n == shown && *t == default).map(|(_, _, o)| o.clone()))
        .flatten();
    if own.is_some() || rec.table.with_untracked(|t| *t == default) {
        return own;
    }
    Some(Arc::new(rec.rows.try_with_value(|r| order(&r[..shown.min(r.len())], &default)).unwrap_or_default()))
}

/// Rows sorted per step when the whole order is made again (a sort by
/// another column, a new filter): each step sorts this many rows more and
/// merges them in, in a task of its own, so that no task sorts 100,000
/// rows at once.
pub const ORDER_STEP: usize = 10_000;

/// Brings the table's order up to the rows shown and the table's settings:
/// rows added under the same settings are merged in at once (linear);
/// anything else is made again [`ORDER_STEP`] rows per task, the old order
/// on screen meanwhile (`sorting` says so). A later call overtakes an
/// earlier one still under way.
async fn refresh_order(rec: Recording, shown: usize, table: Table) {
    let Some(seq) = rec.order_seq.try_update_value(|n| {
        *n += 1;
        *n
    }) else {
        return;
    };
    let current = || rec.order_seq.try_get_value() == Some(seq);
    let before = rec
        .cache
        .try_with_value(|c| c.as_ref().filter(|(n, t, _)| *n <= shown && *t == table).map(|(n, _, o)| (*n, o.clone())))
        .flatten();
    let made = match before {
        Some((n, _)) if n == shown => return,
        Some((n, old)) => rec.rows.try_with_value(|r| extend_order(&r[..shown.min(r.len())], &old, n, &table)),
        None => {
            if shown > ORDER_STEP {
                rec.sorting.try_set(true);
            }
            let mut o: Vec<u32> = Vec::new();
            let mut k = 0;
            loop {
                let next = (k + ORDER_STEP).min(shown);
                let Some(step) = rec.rows.try_with_value(|r| extend_order(&r[..next.min(r.len())], &o, k, &table))
                else {
                    return;
                };
                o = step;
                k = next;
                if k >= shown {
                    break;
                }
                crate::browser::yield_now().await;
                if !current() {
                    return;
                }
            }
            Some(o)
        }
    };
    let Some(o) = made else { return };
    if !current() {
        return;
    }
    let o = Arc::new(o);
    rec.cache.try_set_value(Some((shown, table, o.clone())));
    rec.order.try_set(Order(o));
    rec.sorting.try_set(false);
}

thread_local! {
    static NUMBER: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    /// The owner of the recording's signals: a root of its own, not a
    /// view's (they outlive the Calls page while a call is shown, and a
    /// read started from a button must not go with the view the button
    /// was in). Dropped, with them, when the next read replaces it.
    static OWNER: std::cell::RefCell<Option<Owner>> = const { std::cell::RefCell::new(None) };
}

/// `a`, `a and b`, `a, b and c`.
pub fn names(list: &[String]) -> String {
    match list {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// How often the table catches up with the rows read (ms).
const SHOW_EVERY_MS: f64 = 400.0;

/// Reads `given` in the engine as the new recording (the one before is
/// dropped); the Calls view shows it as it comes.
pub fn start(calls: Calls, given: Vec<Given>) {
    let number = NUMBER.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let list: Vec<String> = given.iter().map(Given::name).collect();
    let owner = Owner::new_root(None);
    let rec = owner.with(|| Recording {
        number,
        meta: RwSignal::new(Meta {
            names: names(&list),
            phase: Phase::Reading { bytes: 0, total: 0, calls: 0, file: list.first().cloned().unwrap_or_default() },
            outcome: Outcome::default(),
        }),
        rows: StoredValue::new(Vec::new()),
        shown: RwSignal::new(0),
        table: RwSignal::new(Table::default()),
        place: StoredValue::new(Place::default()),
        order: RwSignal::new(Order(Arc::new(Vec::new()))),
        sorting: RwSignal::new(false),
        cache: StoredValue::new(None),
        order_seq: StoredValue::new(0),
        given: StoredValue::new_local(given),
    });
    // The order follows the rows shown and the table's settings.
    owner.with(|| {
        Effect::new(move |_| {
            let shown = rec.shown.get();
            let table = rec.table.get();
            leptos::task::spawn_local(refresh_order(rec, shown, table));
        })
    });
    let old = OWNER.with(|o| o.replace(Some(owner)));
    calls.current.set(Some(rec));
    if let Some(old) = old {
        // Once the views of it are gone (they go with the next render).
        leptos::task::spawn_local(async move {
            crate::browser::sleep(1000).await;
            drop(old);
        });
    }
    leptos::task::spawn_local(read(rec));
}

/// Reads the recording's inputs again (after a Cancel, or when the engine
/// no longer holds them): a new recording.
pub fn read_again(calls: Calls, rec: Recording) {
    if let Some(given) = rec.given.try_get_value() {
        start(calls, given);
    }
}

async fn read(rec: Recording) {
    let given = rec.given.get_value();
    let shown_at = std::rc::Rc::new(std::cell::Cell::new(f64::NEG_INFINITY));
    let at = shown_at.clone();
    let on_progress = move |p: Result<engine::Progress, String>| {
        let Ok(p) = p else { return };
        let n = rec.rows.try_update_value(|r| {
            r.extend(p.rows);
            // Rows sent before the engine's tokenizer was ready, now counted.
            for u in p.updated {
                if let Some(slot) = r.get_mut(u.index as usize) {
                    *slot = u;
                }
            }
            r.len()
        });
        let Some(n) = n else { return };
        rec.meta.try_update(|m| {
            if matches!(m.phase, Phase::Reading { .. }) {
                m.phase = Phase::Reading { bytes: p.bytes, total: p.total, calls: p.calls, file: p.file };
            }
        });
        let now = crate::browser::now_ms();
        if n > 0 && (rec.shown.try_get_untracked() == Some(0) || now - at.get() >= SHOW_EVERY_MS) {
            at.set(now);
            rec.shown.try_set(n);
        }
    };
    let reply = engine::read(rec.number, &given, on_progress).await;
    let cancelled = rec.meta.try_with_untracked(|m| m.phase == Phase::Cancelled);
    match (reply, cancelled) {
        // Disposed (another read replaced it), or cancelled: nothing to show.
        (_, None | Some(true)) => {}
        (
            Ok(Reply::Read {
                rows,
                updated,
                errors,
                error_count,
                notes,
                skipped_spans,
                late_events,
                frequent,
                capture_hints,
                ..
            }),
            _,
        ) => {
            let folded = updated.iter().filter(|u| u.folded).count();
            let n = rec.rows.try_update_value(|r| {
                r.extend(rows);
                for u in updated {
                    if let Some(slot) = r.get_mut(u.index as usize) {
                        *slot = u;
                    }
                }
                r.len()
            });
            // Rows changed in place: the order is made again.
            rec.cache.try_set_value(None);
            rec.meta.try_update(|m| {
                m.phase = Phase::Done;
                m.outcome =
                    Outcome { errors, error_count, notes, skipped_spans, late_events, frequent, capture_hints, folded };
            });
            rec.shown.try_set(n.unwrap_or(0));
        }
        (Ok(_), _) => {
            rec.meta.try_update(|m| m.phase = Phase::Failed("the engine answered something else than the rows".into()));
        }
        (Err(e), _) => {
            rec.meta.try_update(|m| m.phase = Phase::Failed(e));
        }
    }
}

/// Cancel: the read stops (the engine worker is ended), the rows read so
/// far go (the engine no longer holds their calls).
pub fn cancel(rec: Recording) {
    rec.meta.update(|m| m.phase = Phase::Cancelled);
    rec.rows.update_value(Vec::clear);
    rec.shown.set(0);
    engine::cancel();
}

/// A column of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Col {
    /// The call's number (the order read).
    Number,
    Start,
    Trace,
    Provider,
    Model,
    Messages,
    Input,
    /// Input tokens as we count them.
    Counted,
    Duration,
    Findings,
    Text,
}

fn cmp_opt<T: Ord>(a: Option<T>, b: Option<T>) -> Ordering {
    // Missing values last, either way round (flipped back below).
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

fn has_key(r: &Row, col: Col) -> bool {
    match col {
        Col::Start => r.start_ns.is_some(),
        Col::Trace => r.at.trace_id.is_some(),
        Col::Provider => r.provider.is_some(),
        Col::Model => r.model.is_some(),
        Col::Input => r.input_tokens.is_some(),
        Col::Counted => r.counted.is_some(),
        Col::Duration => r.duration_ns.is_some(),
        Col::Text => r.last_user.is_some(),
        Col::Number | Col::Messages | Col::Findings => true,
    }
}

fn cmp_by(col: Col, a: &Row, b: &Row) -> Ordering {
    match col {
        Col::Number => a.index.cmp(&b.index),
        Col::Start => cmp_opt(a.start_ns, b.start_ns),
        Col::Trace => cmp_opt(a.at.trace_id.as_deref(), b.at.trace_id.as_deref()),
        Col::Provider => cmp_opt(a.provider.as_deref(), b.provider.as_deref()),
        Col::Model => cmp_opt(a.model.as_deref(), b.model.as_deref()),
        Col::Messages => a.messages.cmp(&b.messages),
        Col::Input => cmp_opt(a.input_tokens, b.input_tokens),
        Col::Counted => cmp_opt(a.counted, b.counted),
        Col::Duration => cmp_opt(a.duration_ns, b.duration_ns),
        Col::Findings => {
            (u64::from(a.notices) + u64::from(a.errors)).cmp(&(u64::from(b.notices) + u64::from(b.errors)))
        }
        Col::Text => cmp_opt(a.last_user.as_deref(), b.last_user.as_deref()),
    }
}

/// Whether `hay` contains `needle` (lowercase), in any case: ASCII
/// compared byte by byte without a copy, anything else lowercased first.
fn contains_ci(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if hay.is_ascii() && needle.is_ascii() {
        let (h, n) = (hay.as_bytes(), needle.as_bytes());
        return h.len() >= n.len()
            && h.windows(n.len()).any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b));
    }
    hay.to_lowercase().contains(needle)
}

/// Whether a row shows under the filter's words (lowercase).
fn matches(r: &Row, words: &[String]) -> bool {
    let fields = [
        r.provider.as_deref(),
        r.model.as_deref(),
        Some(r.dialect.as_str()),
        r.at.trace_id.as_deref(),
        r.last_user.as_deref(),
        Some(r.at.file.as_str()),
    ];
    words.iter().all(|w| fields.iter().flatten().any(|f| contains_ci(f, w)))
}

/// How two rows stand in the table's order: missing values last both
/// ways; ties in the order read.
fn compare(a: &Row, b: &Row, table: &Table) -> Ordering {
    let col = table.sort;
    let o = match (has_key(a, col), has_key(b, col)) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => {
            let o = cmp_by(col, a, b);
            if table.ascending {
                o
            } else {
                o.reverse()
            }
        }
    };
    o.then(a.index.cmp(&b.index))
}

/// The rows `from..` that show under the table's filter, in its order.
fn order_from(rows: &[Row], from: usize, table: &Table) -> Vec<u32> {
    let words: Vec<String> = table.filter.split_whitespace().map(str::to_lowercase).collect();
    let shown = (from as u32..rows.len() as u32).filter(|&i| {
        let r = &rows[i as usize];
        !r.folded && (words.is_empty() || matches(r, &words))
    });
    if let Some(key) = number_key(table.sort) {
        // Numbers: sorted on (missing, key, index) triples, no comparator.
        let mut keyed: Vec<(bool, u64, u32)> = shown
            .map(|i| {
                let k = key(&rows[i as usize]);
                let v = k.unwrap_or(0);
                (k.is_none(), if table.ascending { v } else { u64::MAX - v }, i)
            })
            .collect();
        keyed.sort_unstable();
        return keyed.into_iter().map(|(_, _, i)| i).collect();
    }
    let mut out: Vec<u32> = shown.collect();
    out.sort_by(|&i, &j| compare(&rows[i as usize], &rows[j as usize], table));
    out
}

/// A numeric column's value (`None`: missing), as [`cmp_by`] compares it.
fn number_key(col: Col) -> Option<fn(&Row) -> Option<u64>> {
    Some(match col {
        Col::Number => |r| Some(u64::from(r.index)),
        Col::Start => |r| r.start_ns,
        Col::Messages => |r| Some(u64::from(r.messages)),
        Col::Input => |r| r.input_tokens,
        Col::Counted => |r| r.counted,
        Col::Duration => |r| r.duration_ns,
        Col::Findings => |r| Some(u64::from(r.notices) + u64::from(r.errors)),
        Col::Trace | Col::Provider | Col::Model | Col::Text => return None,
    })
}

/// The rows the table shows, in its order: positions into `rows`.
pub fn order(rows: &[Row], table: &Table) -> Vec<u32> {
    order_from(rows, 0, table)
}

/// The order of `rows` given `old`, the order of `rows[..from]` under the
/// same table: the new rows sorted and merged in (linear in the rows
/// already ordered: while reading, the table catches up without sorting
/// every row again).
pub fn extend_order(rows: &[Row], old: &[u32], from: usize, table: &Table) -> Vec<u32> {
    let new = order_from(rows, from, table);
    let mut out = Vec::with_capacity(old.len() + new.len());
    let (mut i, mut j) = (0, 0);
    while i < old.len() && j < new.len() {
        if compare(&rows[new[j] as usize], &rows[old[i] as usize], table) == Ordering::Less {
            out.push(new[j]);
            j += 1;
        } else {
            out.push(old[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&old[i..]);
    out.extend_from_slice(&new[j..]);
    out
}

/// The call to compare a call with: the previous call of the same trace
/// (by start time, else the order read), else the one before it in the
/// table's order. `None` for the first.
pub fn previous(rows: &[Row], order: &[u32], index: u32) -> Option<u32> {
    let me = rows.get(index as usize)?;
    if let Some(trace) = me.at.trace_id.as_deref() {
        let key = |r: &Row| (r.start_ns.unwrap_or(u64::MAX), r.index);
        let before = rows
            .iter()
            .filter(|r| r.index != me.index && !r.folded && r.at.trace_id.as_deref() == Some(trace) && key(r) < key(me))
            .max_by_key(|r| key(r));
        if let Some(r) = before {
            return Some(r.index);
        }
    }
    let at = order.iter().position(|&i| i == index)?;
    at.checked_sub(1).map(|p| order[p])
}

/// The civil date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A start time (Unix nanoseconds) as `2025-11-29 10:12:03.123` (UTC).
pub fn clock(ns: u64) -> String {
    let ms = ns / 1_000_000;
    let secs = ms / 1000;
    let (y, mo, d) = civil((secs / 86_400) as i64);
    let s = secs % 86_400;
    format!("{y:04}-{mo:02}-{d:02} {:02}:{:02}:{:02}.{:03}", s / 3600, s / 60 % 60, s % 60, ms % 1000)
}

/// A duration: `842 ms`, `1.24 s`, `2 min 3 s`.
pub fn duration(ns: u64) -> String {
    let ms = ns / 1_000_000;
    if ms < 1000 {
        if ns > 0 && ms == 0 {
            return "<1 ms".into();
        }
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{} s", envelope::display::decimal(ms as f64 / 1000.0, 2))
    } else {
        format!("{} min {} s", ms / 60_000, ms / 1000 % 60)
    }
}

/// `part` of `whole` as a whole percentage, rounded down (so that
/// "100%" means all of it); integers only.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".into();
    }
    format!("{}%", u128::from(part.min(whole)) * 100 / u128::from(whole))
}

/// One bar of the tokens chart: calls `from..to` (positions in start
/// order), their mean input tokens, and how many of them state any.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub from: usize,
    pub to: usize,
    pub mean: u64,
    pub stated: usize,
}

/// Which input tokens the chart draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tokens {
    /// As the recording states them.
    Recorded,
    /// As we count them (when the recording states none: batch files, bodies).
    Counted,
}

impl Tokens {
    /// The recorded ones when any row states them, else ours.
    pub fn of(rows: &[Row]) -> Tokens {
        if rows.iter().any(|r| r.input_tokens.is_some()) {
            Tokens::Recorded
        } else {
            Tokens::Counted
        }
    }

    fn get(self, r: &Row) -> Option<u64> {
        match self {
            Tokens::Recorded => r.input_tokens,
            Tokens::Counted => r.counted,
        }
    }
}

/// Input tokens per call in start order, as at most `max` bars (each the
/// mean of a run of consecutive calls when there are more calls than bars).
pub fn bars(rows: &[Row], max: usize) -> Vec<Bar> {
    bars_of(rows, &order(rows, &Table::default()), max, Tokens::of(rows))
}

/// [`bars`], given the rows' start order (`by_start`: the table's default order).
pub fn bars_of(rows: &[Row], by_start: &[u32], max: usize, which: Tokens) -> Vec<Bar> {
    let n = by_start.len();
    if n == 0 || max == 0 {
        return vec![];
    }
    let count = n.min(max);
    (0..count)
        .map(|b| {
            let (from, to) = (b * n / count, (b + 1) * n / count);
            let stated: Vec<u64> = by_start[from..to].iter().filter_map(|&i| which.get(&rows[i as usize])).collect();
            let mean = if stated.is_empty() { 0 } else { stated.iter().sum::<u64>() / stated.len() as u64 };
            Bar { from, to, mean, stated: stated.len() }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_are_rounded_down() {
        assert_eq!(percent(1, 3), "33%");
        assert_eq!(percent(999, 1000), "99%");
        assert_eq!(percent(5, 5), "100%");
        assert_eq!(percent(0, 0), "0%");
        assert_eq!(percent(7, 5), "100%");
        assert_eq!(percent(u64::MAX, u64::MAX), "100%");
    }
    use crate::worker::recorded::Row;
    use envelope::engine::recorded::At;

    fn row(index: u32, start: Option<u64>, trace: Option<&str>, model: &str, tokens: Option<u64>) -> Row {
        Row {
            index,
            at: At {
                file: "t.jsonl".into(),
                line: Some(index as u64 + 1),
                trace_id: trace.map(Into::into),
                ..At::default()
            },
            start_ns: start,
            model: Some(model.into()),
            provider: Some(if model.starts_with("claude") { "anthropic" } else { "openai" }.into()),
            dialect: "GenAI semconv".into(),
            captured: true,
            messages: index + 1,
            input_tokens: tokens,
            last_user: Some(format!("Question number {index}")),
            ..Row::default()
        }
    }

    fn rows() -> Vec<Row> {
        vec![
            row(0, Some(30), Some("aa"), "gpt-4o", Some(100)),
            row(1, Some(10), Some("bb"), "claude-sonnet", Some(300)),
            row(2, None, None, "gpt-4o-mini", None),
            row(3, Some(20), Some("aa"), "gpt-4o", Some(200)),
        ]
    }

    #[test]
    fn sorts_with_missing_values_last_both_ways() {
        let r = rows();
        let t = |sort, ascending| Table { sort, ascending, filter: String::new() };
        assert_eq!(order(&r, &t(Col::Start, true)), [1, 3, 0, 2]);
        assert_eq!(order(&r, &t(Col::Start, false)), [0, 3, 1, 2]);
        assert_eq!(order(&r, &t(Col::Input, false)), [1, 3, 0, 2]);
        assert_eq!(order(&r, &t(Col::Model, true)), [1, 0, 3, 2]);
        assert_eq!(order(&r, &t(Col::Number, false)), [3, 2, 1, 0]);
        assert_eq!(order(&r, &t(Col::Messages, true)), [0, 1, 2, 3]);
        // Ties keep the order read.
        assert_eq!(order(&r, &t(Col::Provider, true)), [1, 0, 2, 3]);
    }

    #[test]
    fn filters_on_every_word_in_any_case() {
        let r = rows();
        let t = |f: &str| Table { filter: f.into(), ..Table::default() };
        assert_eq!(order(&r, &t("GPT-4O")), [3, 0, 2]);
        assert_eq!(order(&r, &t("gpt-4o mini")), [2]);
        assert_eq!(order(&r, &t("anthropic")), [1]);
        assert_eq!(order(&r, &t("number 3")), [3]);
        assert_eq!(order(&r, &t("  ")), [1, 3, 0, 2]);
        assert!(order(&r, &t("nothing-like-it")).is_empty());
    }

    #[test]
    fn rows_added_merge_into_the_order_as_a_full_sort_would() {
        let many: Vec<Row> = (0..500u32)
            .map(|i| {
                let start = (i % 7 != 0).then_some(u64::from(i * 7919 % 1000));
                row(
                    i,
                    start,
                    Some(["aa", "bb", "cc"][i as usize % 3]),
                    ["gpt-4o", "claude-x", "gpt-4o-mini"][i as usize % 3],
                    (i % 5 != 0).then_some(u64::from(i * 31 % 97)),
                )
            })
            .collect();
        for table in [
            Table::default(),
            Table { sort: Col::Input, ascending: false, filter: String::new() },
            Table { sort: Col::Model, ascending: true, filter: "GPT".into() },
            Table { sort: Col::Trace, ascending: false, filter: "number 1".into() },
        ] {
            let mut o = order(&many[..0], &table);
            let mut n = 0;
            for step in [1, 7, 60, 132, 300] {
                o = extend_order(&many[..n + step], &o, n, &table);
                n += step;
                assert_eq!(o, order(&many[..n], &table), "{table:?} at {n}");
            }
        }
    }

    #[test]
    fn a_call_folded_into_another_is_neither_listed_nor_compared_with() {
        let mut r = rows();
        r[3].folded = true;
        assert_eq!(order(&r, &Table::default()), [1, 0, 2]);
        let by_start = order(&r, &Table::default());
        // Call 0's trace had call 3 before it: folded, so the list's previous.
        assert_eq!(previous(&r, &by_start, 0), Some(1));
        assert_eq!(extend_order(&r, &order(&r[..2], &Table::default()), 2, &Table::default()), [1, 0, 2]);
    }

    #[test]
    fn case_is_ignored_in_any_script() {
        assert!(contains_ci("GPT-4o-Mini", "4o-mini"));
        assert!(!contains_ci("gpt", "gpt-4"));
        assert!(contains_ci("Ärger im Büro", "büro"));
        assert!(contains_ci("x", ""));
    }

    #[test]
    fn the_previous_call_is_the_traces_else_the_lists() {
        let r = rows();
        let by_start = order(&r, &Table::default());
        // Call 0 (trace aa, at 30) follows call 3 (trace aa, at 20).
        assert_eq!(previous(&r, &by_start, 0), Some(3));
        // Call 3 is its trace's first: the one before it in the list.
        assert_eq!(previous(&r, &by_start, 3), Some(1));
        assert_eq!(previous(&r, &by_start, 1), None);
        assert_eq!(previous(&r, &by_start, 2), Some(0));
        assert_eq!(previous(&r, &by_start, 9), None);
    }

    #[test]
    fn times_and_durations() {
        assert_eq!(clock(0), "1970-01-01 00:00:00.000");
        assert_eq!(clock(1_764_411_123_456_789_000), "2025-11-29 10:12:03.456");
        assert_eq!(clock(951_782_400_000_000_000), "2000-02-29 00:00:00.000");
        assert_eq!(duration(0), "0 ms");
        assert_eq!(duration(999), "<1 ms");
        assert_eq!(duration(842_000_000), "842 ms");
        assert_eq!(duration(1_240_000_000), "1.24 s");
        assert_eq!(duration(123_000_000_000), "2 min 3 s");
    }

    #[test]
    fn bars_are_means_of_runs_in_start_order() {
        let r = rows();
        let b = bars(&r, 10);
        assert_eq!(b.iter().map(|b| b.mean).collect::<Vec<_>>(), [300, 200, 100, 0]);
        assert_eq!(b[3].stated, 0);
        let b = bars(&r, 2);
        assert_eq!(b.iter().map(|b| (b.from, b.to, b.mean)).collect::<Vec<_>>(), [(0, 2, 250), (2, 4, 100)]);
        assert!(bars(&[], 10).is_empty());
        // Without recorded tokens, the chart draws ours.
        let mut counted = rows();
        for r in &mut counted {
            r.counted = r.input_tokens.map(|t| t + 1);
            r.input_tokens = None;
        }
        assert_eq!(Tokens::of(&counted), Tokens::Counted);
        assert_eq!(bars(&counted, 10).iter().map(|b| b.mean).collect::<Vec<_>>(), [301, 201, 101, 0]);
        assert_eq!(Tokens::of(&rows()), Tokens::Recorded);
        let many: Vec<Row> = (0..1000).map(|i| row(i, Some(i as u64), None, "m", Some(i as u64))).collect();
        let b = bars(&many, 48);
        assert_eq!(b.len(), 48);
        assert_eq!(b.iter().map(|b| b.to - b.from).sum::<usize>(), 1000);
        assert!(b.windows(2).all(|w| w[0].mean < w[1].mean));
    }

    #[test]
    fn name_lists() {
        assert_eq!(names(&[]), "");
        assert_eq!(names(&["a".into()]), "a");
        assert_eq!(names(&["a".into(), "b".into(), "c".into()]), "a, b and c");
    }
}
