//! Sequence and line alignment (Myers, through `similar`), shared by the
//! comparison of two documents (`compare`) and the JSON diff (`json`).

use similar::{Algorithm, DiffOp};

/// Aligns two sequences (Myers; on native targets with a deadline, after which
/// the alignment is coarser but still correct).
pub(crate) fn align<T: Eq + std::hash::Hash>(a: &[T], b: &[T]) -> Vec<DiffOp> {
    #[cfg(not(target_arch = "wasm32"))]
    let deadline = std::time::Instant::now().checked_add(std::time::Duration::from_secs(2));
    #[cfg(target_arch = "wasm32")]
    let deadline = None;
    similar::capture_diff_slices_deadline(Algorithm::Myers, a, b, deadline)
}

/// A unified line diff of two texts (2 lines of context), each line prefixed
/// by `indent` and `- `, `+ ` or two spaces; `…` between hunks.
pub fn line_diff(a: &str, b: &str, indent: &str) -> String {
    let mut config = similar::TextDiff::configure();
    config.algorithm(Algorithm::Myers);
    #[cfg(not(target_arch = "wasm32"))]
    config.timeout(std::time::Duration::from_secs(2));
    let d = config.diff_lines(a, b);
    let mut out = String::new();
    for (i, group) in d.grouped_ops(2).iter().enumerate() {
        if i > 0 {
            out.push_str(&format!("{indent}…\n"));
        }
        for op in group {
            for c in d.iter_changes(op) {
                let sign = match c.tag() {
                    similar::ChangeTag::Equal => "  ",
                    similar::ChangeTag::Delete => "- ",
                    similar::ChangeTag::Insert => "+ ",
                };
                let line = c.value();
                out.push_str(&format!("{indent}{sign}{}\n", line.strip_suffix('\n').unwrap_or(line)));
            }
        }
    }
    out
}
