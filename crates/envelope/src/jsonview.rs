//! Syntax colouring of pretty-printed JSON, one line at a time, so a viewer
//! can colour only the lines on screen.

/// What a run of characters is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    /// An object key, quotes included.
    Key,
    Str,
    Num,
    /// `true`, `false`, `null`.
    Lit,
    /// Braces, brackets, `:` and `,`, and white space.
    Punct,
}

impl Token {
    /// CSS class of the token.
    pub fn class(self) -> &'static str {
        match self {
            Token::Key => "j-key",
            Token::Str => "j-str",
            Token::Num => "j-num",
            Token::Lit => "j-lit",
            Token::Punct => "j-p",
        }
    }
}

/// Splits one line of JSON into coloured runs that concatenate to the line.
/// Works on any text (a line that is not JSON is split sensibly, never lost).
pub fn highlight_line(line: &str) -> Vec<(Token, &str)> {
    let bytes = line.as_bytes();
    let mut out: Vec<(Token, &str)> = Vec::new();
    let mut i = 0;
    let mut start = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            if start < i {
                out.push((Token::Punct, &line[start..i]));
            }
            let s = i;
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
            // A string followed by optional spaces and `:` is a key.
            let rest = line[i..].trim_start();
            let tok = if rest.starts_with(':') { Token::Key } else { Token::Str };
            out.push((tok, &line[s..i]));
            start = i;
        } else if b == b'-' || b.is_ascii_digit() || b.is_ascii_alphabetic() {
            if start < i {
                out.push((Token::Punct, &line[start..i]));
            }
            let s = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'-' | b'+' | b'.')) {
                i += 1;
            }
            let word = &line[s..i];
            let tok = if matches!(word, "true" | "false" | "null") { Token::Lit } else { Token::Num };
            out.push((tok, word));
            start = i;
        } else {
            i += 1;
        }
    }
    if start < bytes.len() {
        out.push((Token::Punct, &line[start..]));
    }
    out
}

/// Byte ranges of the lines of `text` (without their `\n`).
pub fn line_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in text.bytes().enumerate() {
        if b == b'\n' {
            out.push((start, i));
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_keys_strings_numbers_and_literals() {
        let line = r#"    "a \"q\"": ["x", -1.5e3, true, null],"#;
        let runs = highlight_line(line);
        let joined: String = runs.iter().map(|r| r.1).collect();
        assert_eq!(joined, line);
        let kinds: Vec<Token> = runs.iter().filter(|r| r.0 != Token::Punct).map(|r| r.0).collect();
        assert_eq!(kinds, [Token::Key, Token::Str, Token::Num, Token::Lit, Token::Lit]);
    }

    #[test]
    fn unterminated_strings_and_unicode_are_kept() {
        for line in ["\"abc", "\"é\\", "“quoted” 中文 ,", ""] {
            let joined: String = highlight_line(line).iter().map(|r| r.1).collect();
            assert_eq!(joined, line);
        }
    }

    #[test]
    fn lines() {
        assert_eq!(line_ranges("a\nbc\n"), [(0, 1), (2, 4)]);
        assert_eq!(line_ranges("a\n\nb"), [(0, 1), (2, 2), (3, 4)]);
    }
}
