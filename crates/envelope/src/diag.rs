//! Diagnostics: errors and warnings with a JSON path (or a line) saying where.

use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The document is rejected.
    Error,
    /// The document loads; a UI lists the warning.
    Warning,
}

/// One finding about a document.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Where: a JSON path such as `messages[3].segments[1].toolName`, or
    /// `line 3 column 7` for syntax errors; empty for the document as a whole.
    pub path: String,
    /// What is wrong, in a sentence without a trailing full stop.
    pub message: String,
}

impl Diagnostic {
    pub fn error(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { severity: Severity::Error, path: path.into(), message: message.into() }
    }

    pub fn warning(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { severity: Severity::Warning, path: path.into(), message: message.into() }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The index of the message this diagnostic points into, if any
    /// (`messages[3]…` → 3).
    pub fn message_index(&self) -> Option<usize> {
        let rest = self.path.strip_prefix("messages[")?;
        rest[..rest.find(']')?].parse().ok()
    }
}

impl fmt::Display for Diagnostic {
    /// `PATH: message`, or just `message` when there is no path.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_message_index() {
        let d = Diagnostic::error("messages[12].segments[0].toolName", "missing field");
        assert_eq!(d.to_string(), "messages[12].segments[0].toolName: missing field");
        assert_eq!(d.message_index(), Some(12));
        assert_eq!(Diagnostic::warning("", "x").to_string(), "x");
        assert_eq!(Diagnostic::warning("version", "x").message_index(), None);
    }
}
