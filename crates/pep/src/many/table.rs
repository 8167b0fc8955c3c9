//! `pep calls`: the table of calls (or JSON Lines of its rows).

use envelope::jsontext;
use envelope::lint::{self as elint, Settings};
use envelope::recorded::{one_line, Call, Row};
use envelope::term;
use serde_json::{json, Value};

use super::lint::lint_call;
use super::{inputs, plural, reading_notes, usage, Out, Uncaptured};
use crate::calls::{self, error_line, Item, Ordered, Window};
use crate::{Done, Failure, Outcome};

/// `pep calls --format`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum CallsFormat {
    /// An aligned table.
    Text,
    /// JSON Lines: one row a line (the table's columns, with the counted
    /// tokens and the findings), written as they are read.
    Json,
}

/// `pep calls --sort`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Sort {
    /// Start time, earliest first (calls without one after, in file order).
    Start,
    /// Input tokens as counted (o200k_base), most first.
    Tokens,
    /// Duration, longest first.
    Duration,
}

/// `pep calls`.
#[derive(clap::Args)]
pub struct CallsArgs {
    /// Trace files (OTLP/JSON traces and logs, given together), batch files,
    /// JSON Lines of request bodies or envelopes (`-`: stdin).
    #[arg(required = true)]
    pub files: Vec<String>,
    #[arg(long, value_enum, default_value_t = CallsFormat::Text)]
    pub format: CallsFormat,
    /// `--sort tokens` and `--sort duration` hold every row (about 300
    /// bytes a call) to sort them; `start` holds `--window` rows.
    #[arg(long, value_enum, default_value_t = Sort::Start)]
    pub sort: Sort,
    /// Keep the calls that match KEY=VALUE[,KEY=VALUE…]: keys `provider`,
    /// `model`, `dialect` (genai, openllmetry, openinference, openai-batch, …),
    /// `trace` (a prefix of the trace id), `captured` (yes or no). Values
    /// compare without case; a trailing `*` matches a prefix. One key given
    /// twice keeps either; different keys keep both.
    #[arg(long, value_name = "KEY=VALUE,...")]
    pub filter: Vec<String>,
    /// The lint configuration for the findings column (default: pep.toml
    /// here or in a parent directory).
    #[arg(long)]
    pub config: Option<String>,
    /// The configuration's environment ([environments.NAME]).
    #[arg(long)]
    pub env: Option<String>,
    #[command(flatten)]
    pub window: Window,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Provider,
    Model,
    Dialect,
    Trace,
    Captured,
}

/// `--filter`: per key, the values that pass.
struct Filter(Vec<(Key, Vec<String>)>);

impl Filter {
    fn parse(specs: &[String]) -> Result<Filter, Failure> {
        let mut f: Vec<(Key, Vec<String>)> = Vec::new();
        for spec in specs {
            for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let Some((k, v)) = part.split_once('=') else {
                    return Err(usage(format!("error: --filter `{part}`: expected KEY=VALUE")));
                };
                let key = match k.trim() {
                    "provider" => Key::Provider,
                    "model" => Key::Model,
                    "dialect" => Key::Dialect,
                    "trace" => Key::Trace,
                    "captured" => Key::Captured,
                    other => {
                        return Err(usage(format!(
                            "error: --filter: unknown key `{other}` (provider, model, dialect, trace, captured)"
                        )))
                    }
                };
                let v = v.trim().to_lowercase();
                if key == Key::Captured && !["yes", "no", "true", "false"].contains(&v.as_str()) {
                    return Err(usage(format!("error: --filter captured=`{v}`: yes or no")));
                }
                match f.iter_mut().find(|(fk, _)| *fk == key) {
                    Some((_, vs)) => vs.push(v),
                    None => f.push((key, vec![v])),
                }
            }
        }
        Ok(Filter(f))
    }

    fn matches(&self, c: &Call) -> bool {
        let is = |pattern: &str, value: Option<&str>| {
            let value = value.unwrap_or("").to_lowercase();
            match pattern.strip_suffix('*') {
                Some(prefix) => value.starts_with(prefix),
                None => value == pattern,
            }
        };
        self.0.iter().all(|(key, values)| {
            values.iter().any(|v| match key {
                Key::Provider => is(v, c.provider.as_deref()),
                Key::Model => is(v, c.model.as_deref()),
                Key::Dialect => is(v, Some(&c.dialect.code())),
                Key::Trace => c.at.trace_id.as_deref().is_some_and(|t| t.starts_with(v.trim_end_matches('*'))),
                Key::Captured => (v == "yes" || v == "true") == c.envelope().is_some(),
            })
        })
    }
}

/// A row of `pep calls`: the core's row, the tokens we count, the findings.
struct CallRow {
    row: Row,
    counted: Option<u64>,
    findings: (usize, usize, usize),
}

impl CallRow {
    fn of(call: &Call, settings: &Settings) -> CallRow {
        let mut row = call.summary();
        // As lint's outputs: a secret is never shown whole.
        row.last_user = row.last_user.map(|t| elint::secrets::redact(&t).into_owned());
        let (counted, findings) = match (call.envelope(), lint_call(call, settings)) {
            (Some(env), Some(report)) => {
                let tokens = report.tokens.unwrap_or_else(|| elint::Ctx::new(env, settings).total_tokens());
                (Some(tokens), report.counts())
            }
            _ => (None, (0, 0, 0)),
        };
        CallRow { row, counted, findings }
    }

    fn json(&self) -> Value {
        let mut v = serde_json::to_value(&self.row).unwrap_or(Value::Null);
        if let Value::Object(o) = &mut v {
            if let Some(s) = self.row.start_ns {
                o.insert("start".into(), format!("{}Z", calls::utc(s).replace(' ', "T")).into());
            }
            if let Some(t) = self.counted {
                o.insert("countedTokens".into(), t.into());
            }
            let (e, w, i) = self.findings;
            o.insert("findings".into(), json!({"errors": e, "warnings": w, "infos": i}));
        }
        v
    }

    /// The table's cells, each on one line and safe for a terminal.
    fn cells(&self) -> [String; 10] {
        let r = &self.row;
        let cell = |s: &str, max: usize| term::escape_line(&one_line(s, max)).into_owned();
        let id = match (&r.at.trace_id, &r.at.custom_id) {
            (Some(t), _) => t.chars().take(8).collect(),
            (None, Some(c)) => cell(c, 24),
            _ => match (r.at.line, r.at.index) {
                (Some(l), _) => format!("line {l}"),
                (None, Some(i)) => format!("requests[{i}]"),
                _ => cell(&r.at.file, 24),
            },
        };
        let dash = || "-".to_string();
        let (e, w, i) = self.findings;
        [
            r.start_ns.map_or_else(dash, calls::utc),
            id,
            r.provider.as_deref().map_or_else(dash, |p| cell(p, 24)),
            r.model.as_deref().map_or_else(dash, |m| cell(m, 40)),
            if r.captured { r.messages.to_string() } else { dash() },
            r.input_tokens.map_or_else(dash, |t| t.to_string()),
            self.counted.map_or_else(dash, |t| t.to_string()),
            r.duration_ns.map_or_else(dash, calls::duration),
            if r.captured { (e + w + i).to_string() } else { dash() },
            if r.captured {
                r.last_user.as_deref().map_or_else(String::new, |t| term::escape_line(t).into_owned())
            } else {
                "(not captured)".to_string()
            },
        ]
    }
}

const HEADER: [&str; 10] =
    ["START (UTC)", "CALL", "PROVIDER", "MODEL", "MSGS", "IN REC", "IN O200K", "DURATION", "FINDINGS", "LAST USER"];
/// Columns aligned right (numbers).
const RIGHT: [bool; 10] = [false, false, false, false, true, true, true, true, true, false];

/// The table's column widths: the header's and the widest cell's.
fn widths(rows: &[[String; 10]]) -> [usize; 10] {
    let mut w = HEADER.map(|h| h.chars().count());
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    w
}

fn table_line(cells: &[String; 10], w: &[usize; 10]) -> String {
    let mut line = String::new();
    for (i, c) in cells.iter().enumerate() {
        if i > 0 {
            line.push_str("  ");
        }
        let pad = w[i].saturating_sub(c.chars().count());
        if i == cells.len() - 1 {
            line.push_str(c);
        } else if RIGHT[i] {
            line.push_str(&" ".repeat(pad));
            line.push_str(c);
        } else {
            line.push_str(c);
            line.push_str(&" ".repeat(pad));
        }
    }
    line.truncate(line.trim_end().len());
    line.push('\n');
    line
}

/// The table as it is written: its widths are the first screen's (every
/// row, when the rows fit in the window).
struct Table {
    format: CallsFormat,
    held: Vec<[String; 10]>,
    widths: Option<[usize; 10]>,
    hold: usize,
    rows: u64,
    uncaptured: u64,
}

impl Table {
    fn add(&mut self, out: &mut Out, r: CallRow) {
        self.rows += 1;
        if !r.row.captured {
            self.uncaptured += 1;
        }
        match self.format {
            CallsFormat::Json => out.out(&(jsontext::compact(&r.json()) + "\n")),
            CallsFormat::Text => match &self.widths {
                Some(w) => out.out(&table_line(&r.cells(), w)),
                None => {
                    self.held.push(r.cells());
                    if self.held.len() >= self.hold {
                        self.flush(out);
                    }
                }
            },
        }
    }

    fn flush(&mut self, out: &mut Out) {
        if self.widths.is_some() {
            return;
        }
        let w = widths(&self.held);
        out.out(&table_line(&HEADER.map(String::from), &w));
        for cells in std::mem::take(&mut self.held) {
            out.out(&table_line(&cells, &w));
        }
        self.widths = Some(w);
    }

    fn finish(&mut self, out: &mut Out, s: &calls::Summary) {
        if let CallsFormat::Text = self.format {
            self.flush(out);
            let mut foot = plural(self.rows as usize, "call");
            if self.uncaptured > 0 {
                foot.push_str(&format!(", {} not captured", self.uncaptured));
            }
            if s.skipped_spans > 0 {
                foot.push_str(&format!("; {} spans that are not model calls passed over", s.skipped_spans));
            }
            out.out(&format!("{foot}\n"));
        }
    }
}

/// `pep calls FILE...`: exit 0, or 1 when a line or file could not be read
/// (the rows that could be are still written).
pub fn calls(args: CallsArgs) -> Outcome {
    let filter = Filter::parse(&args.filter)?;
    let settings = crate::lint::settings(args.config.as_deref(), args.env.as_deref(), None)?;
    let inputs = inputs(&args.files)?;
    let window = args.window.window;
    let mut out = Out::new();
    let mut table = Table {
        format: args.format,
        held: vec![],
        widths: None,
        hold: usize::try_from(window).unwrap_or(usize::MAX),
        rows: 0,
        uncaptured: 0,
    };
    let mut ordered: Ordered<CallRow> = Ordered::new(window);
    let mut all: Vec<CallRow> = Vec::new();
    let mut failed = false;
    let mut uncaptured = Uncaptured::default();
    let summary = calls::read(inputs, window, |item| {
        let call = match item {
            Item::Error(e) => {
                failed = true;
                out.err(&error_line(&e));
                return out.flow();
            }
            Item::Call(c) => c,
        };
        if !filter.matches(&call) {
            return out.flow();
        }
        if call.envelope().is_none() {
            uncaptured.add(&mut out, &call, "listed without messages");
        }
        let row = CallRow::of(&call, &settings);
        if args.sort == Sort::Start {
            if let Some(r) = ordered.push(call.start_ns, row) {
                table.add(&mut out, r);
            }
        } else {
            all.push(row);
        }
        out.flow()
    });
    match args.sort {
        Sort::Start => {}
        Sort::Tokens => all.sort_by_key(|r| std::cmp::Reverse(r.counted.or(r.row.input_tokens))),
        Sort::Duration => all.sort_by_key(|r| std::cmp::Reverse(r.row.duration_ns)),
    }
    for r in ordered.drain().into_iter().chain(all) {
        table.add(&mut out, r);
    }
    table.finish(&mut out, &summary);
    reading_notes(&mut out, &summary);
    uncaptured.hints(&mut out);
    out.finish();
    Ok(Done { code: u8::from(failed), ..Done::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters() {
        assert!(Filter::parse(&["nope=1".into()]).is_err());
        assert!(Filter::parse(&["provider".into()]).is_err());
        assert!(Filter::parse(&["captured=maybe".into()]).is_err());
        let Ok(f) = Filter::parse(&["provider=OpenAI,model=gpt-4o*".into(), "provider=anthropic".into()]) else {
            panic!("a good filter")
        };
        assert_eq!(f.0.len(), 2);
        assert_eq!(f.0[0].1, ["openai", "anthropic"]);
    }
}
