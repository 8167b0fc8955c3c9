//! `--format text`: findings as rustc and clippy print them — severity, code
//! and message; the file, line and column; the source line with a caret under
//! the place; the path and the hint. Secrets in quoted lines are masked.

use super::secrets::redact_in_place;
use super::{FileReport, Finding};
use crate::diag::Rule;
use crate::locate::Lines;

/// Longest source line quoted whole; longer ones (minified JSON) are cut
/// around the column.
const WIDTH: usize = 100;

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The quoted line and the caret line, masked and cut to [`WIDTH`].
fn quote(lines: &Lines, f: &Finding, secrets_on_line: &[(usize, usize)]) -> Option<(usize, String, String)> {
    let (line, col) = (f.location.line?, f.location.column?);
    let text = lines.line(line)?;
    let mut chars: Vec<char> = text.chars().map(|c| if c == '\t' { ' ' } else { c }).collect();
    // Mask the secrets found on this line (source columns), then any other
    // secret-looking text.
    for &(a, b) in secrets_on_line {
        for c in chars.iter_mut().take(b.saturating_sub(1)).skip(a.saturating_sub(1)) {
            *c = '*';
        }
    }
    let masked: String = chars.iter().collect();
    let chars: Vec<char> = redact_in_place(&masked).chars().collect();
    let start = col.saturating_sub(1).min(chars.len());
    let width = match (f.location.end_line, f.location.end_column) {
        (Some(el), Some(ec)) if el == line && ec > col => ec - col,
        (Some(el), _) if el > line => chars.len().saturating_sub(start).max(1),
        _ => 1,
    };
    let (from, prefix) = if chars.len() > WIDTH && start > WIDTH / 2 { (start - WIDTH / 2, "…") } else { (0, "") };
    let to = (from + WIDTH).min(chars.len());
    let suffix = if to < chars.len() { "…" } else { "" };
    let shown: String = chars[from..to].iter().collect();
    let caret_at = start - from + prefix.chars().count();
    let caret_len = width.min((to + 1).saturating_sub(start).max(1));
    let carets = format!("{}{}", " ".repeat(caret_at), "^".repeat(caret_len.max(1)));
    Some((line, format!("{prefix}{}{suffix}", shown.trim_end()), carets))
}

/// One finding.
pub fn finding(file: &str, lines: Option<&Lines>, f: &Finding, secrets: &[(usize, usize, usize)]) -> String {
    let d = &f.diagnostic;
    let mut out = format!("{}[{}]: {}\n", d.severity.as_str(), d.code(), d.message);
    let at = match (f.location.line, f.location.column) {
        (Some(l), Some(c)) => format!("{file}:{l}:{c}"),
        _ => file.to_string(),
    };
    let quoted = lines.and_then(|ls| {
        let on_line: Vec<(usize, usize)> =
            secrets.iter().filter(|s| Some(s.0) == f.location.line).map(|s| (s.1, s.2)).collect();
        quote(ls, f, &on_line)
    });
    let gutter = quoted.as_ref().map_or(1, |q| q.0.to_string().len());
    let pad = " ".repeat(gutter);
    out.push_str(&format!("{pad}--> {at}\n"));
    if let Some((line, text, carets)) = quoted {
        out.push_str(&format!("{pad} |\n{line} | {text}\n{pad} | {carets}\n"));
    }
    if !d.path.is_empty() && crate::locate::line_column_path(&d.path).is_none() {
        let id = f.location.message_id.as_deref().map(|id| format!(" (message `{id}`)")).unwrap_or_default();
        out.push_str(&format!("{pad} = at: {}{id}\n", d.path));
    }
    if let Some(h) = &d.hint {
        out.push_str(&format!("{pad} = help: {h}\n"));
    }
    out
}

/// Every report, then a summary line.
pub fn render(reports: &[FileReport]) -> String {
    let mut out = String::new();
    let (mut e, mut w, mut i) = (0, 0, 0);
    for r in reports {
        let lines = r.source.as_deref().map(Lines::new);
        // Secret regions per line (line, start column, end column).
        let secrets: Vec<(usize, usize, usize)> = r
            .findings
            .iter()
            .filter(|f| f.diagnostic.rule == Rule::Secret)
            .filter_map(|f| {
                let l = &f.location;
                (l.end_line == l.line).then_some((l.line?, l.column?, l.end_column?))
            })
            .collect();
        for f in &r.findings {
            out.push_str(&finding(&r.file, lines.as_ref(), f, &secrets));
            out.push('\n');
        }
        let (a, b, c) = r.counts();
        e += a;
        w += b;
        i += c;
    }
    let files = plural(reports.len(), "file");
    if e + w + i == 0 {
        out.push_str(&format!("no problems in {files}\n"));
    } else {
        out.push_str(&format!("{}, {}, {} in {files}\n", plural(e, "error"), plural(w, "warning"), plural(i, "info")));
    }
    out
}
