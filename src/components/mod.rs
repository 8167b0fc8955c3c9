//! View components. Shared pieces (panels, rich text) are components of
//! their own; each segment kind has its own component under `segments`.

pub mod budget;
pub mod checks;
pub mod compare;
pub mod conversation;
pub mod dom;
pub mod editor;
pub mod finder;
pub mod icons;
pub mod loader;
pub mod panel;
pub mod protocol_panel;
pub mod reports;
pub mod rich;
pub mod secret;
pub mod segments;
pub mod settings;
pub mod shortcuts;
pub mod template;

/// `1 item`, `3 items`: a count with its noun (plural by adding `s`).
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", envelope::display::thousands(n as u64))
    }
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
