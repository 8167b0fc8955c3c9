//! Reading a URL's scheme as a browser does: one reader for the Markdown
//! renderer's link and image checks and the validator's media URL rule.

/// A URL as a browser's URL parser sees it before reading the scheme: leading and
/// trailing C0 controls and spaces stripped, ASCII tab, LF and CR removed everywhere.
pub(crate) fn clean(url: &str) -> String {
    url.trim_matches(|c: char| c <= ' ').chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect()
}

/// The scheme of a cleaned URL, lowercased, and what follows its `:`; `None` when the
/// URL is relative. A scheme is `[A-Za-z][A-Za-z0-9+.-]*` followed by `:`; anything else
/// first (including `/`, `?`, `#`, a space or a non-ASCII letter) makes the URL relative,
/// as in the WHATWG URL parser's scheme state.
pub(crate) fn scheme(clean: &str) -> Option<(String, &str)> {
    let colon = clean.find(':')?;
    let scheme = &clean[..colon];
    let mut chars = scheme.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    (first_ok && rest_ok).then(|| (scheme.to_ascii_lowercase(), &clean[colon + 1..]))
}
