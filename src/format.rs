//! How the page writes counts and sizes.

/// `1 item`, `3 items`: a count with its noun (plural by adding `s`).
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", envelope::display::thousands(n as u64))
    }
}

/// "62.2 MB".
pub fn megabytes(bytes: usize) -> String {
    format!("{} MB", envelope::display::decimal(bytes as f64 / 1e6, 1))
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts() {
        assert_eq!(super::count(0, "line"), "0 lines");
        assert_eq!(super::count(1, "line"), "1 line");
        assert_eq!(super::count(12, "error"), "12 errors");
        assert_eq!(super::count(49_999, "warning"), "49,999 warnings");
    }
}
