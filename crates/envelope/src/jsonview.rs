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

/// For each line, the line that closes the object or array it opens (pretty
/// JSON: an opening `{`/`[` ends its line, the closing one starts a later
/// line), else `None`. Lines that are not pretty JSON (a minified raw document)
/// simply fold nothing. Linear.
pub fn fold_ends(text: &str, lines: &[(usize, usize)]) -> Vec<Option<usize>> {
    let mut ends = vec![None; lines.len()];
    let mut open: Vec<usize> = Vec::new();
    for (i, &(a, b)) in lines.iter().enumerate() {
        let line = &text[a..b];
        let head = line.trim_start();
        if head.starts_with(['}', ']']) {
            if let Some(o) = open.pop() {
                // Only a fold of at least one line between.
                if i > o + 1 {
                    ends[o] = Some(i);
                }
            }
        }
        let tail = line.trim_end();
        // `"key": {`, `[`, `}, {` — not a string that ends in a brace (it ends in a quote).
        if tail.ends_with(['{', '[']) {
            open.push(i);
        }
    }
    ends
}

/// [`line_ranges`] and [`fold_ends`] built a slice at a time, so that a
/// viewer can index a text of tens of megabytes between frames (the page
/// stays responsive) and show how far it got. Stepping to the end gives
/// exactly what the two functions give.
#[derive(Clone, Debug, Default)]
pub struct LineIndex {
    /// Byte ranges of the lines found so far (without their `\n`).
    pub lines: Vec<(usize, usize)>,
    /// For each line so far, the line that closes what it opens.
    pub ends: Vec<Option<usize>>,
    /// Where the next step starts (the start of an unfinished line).
    at: usize,
    open: Vec<usize>,
    done: bool,
}

impl LineIndex {
    pub fn new() -> LineIndex {
        LineIndex::default()
    }

    /// Bytes of the text indexed so far.
    pub fn position(&self) -> usize {
        self.at
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Indexes about `budget` more bytes of `text` (always whole lines, at
    /// least one); returns whether the whole text is indexed. `text` must
    /// be the same text at every step.
    pub fn step(&mut self, text: &str, budget: usize) -> bool {
        if self.done {
            return true;
        }
        let bytes = text.as_bytes();
        let stop = self.at.saturating_add(budget.max(1));
        let mut start = self.at;
        while start < bytes.len() {
            let end = bytes[start..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| start + i);
            self.push(text, start, end);
            start = end + 1;
            if start >= stop {
                break;
            }
        }
        self.at = start.min(bytes.len());
        if start >= bytes.len() {
            self.at = bytes.len();
            self.done = true;
        }
        self.done
    }

    fn push(&mut self, text: &str, a: usize, b: usize) {
        let i = self.lines.len();
        self.lines.push((a, b));
        self.ends.push(None);
        let line = &text[a..b];
        if line.trim_start().starts_with(['}', ']']) {
            if let Some(o) = self.open.pop() {
                if i > o + 1 {
                    self.ends[o] = Some(i);
                }
            }
        }
        if line.trim_end().ends_with(['{', '[']) {
            self.open.push(i);
        }
    }
}

/// Strings longer than this that hold a `data:` URL are shown abbreviated.
pub const DATA_URL_SHOWN_FROM: usize = 100;

/// A JSON string token (quotes included) holding a long `data:` URL, as the
/// view shows it: `"data:image/png;base64,iVBORw0K… (12,345 chars)"`. The
/// text itself (copy, download) keeps it whole. `None` for anything else.
pub fn abbreviate_data_url(token: &str) -> Option<String> {
    let inner = token.strip_prefix('"')?.strip_suffix('"').unwrap_or(token.get(1..)?);
    if inner.len() <= DATA_URL_SHOWN_FROM || !inner.starts_with("data:") {
        return None;
    }
    // The media type and encoding (up to the comma, bounded), and a few characters of the data.
    let head_end = inner.find(',').filter(|&c| c < 80).map(|c| c + 1).unwrap_or(40);
    let cut = crate::display::floor_boundary(inner, head_end + 8);
    Some(format!("\"{}… ({} chars)\"", &inner[..cut], crate::display::thousands(inner.chars().count() as u64)))
}

/// A JSON string token longer than this many bytes is shown cut (issue 12):
/// one line of megabytes (the OpenAI request of a message of 100,000
/// segments is one `content` string) costs the browser's layout seconds.
pub const STRING_SHOWN_BYTES: usize = 20_000;

/// A string token longer than [`STRING_SHOWN_BYTES`] as the view shows it:
/// its first bytes (cut at a character boundary) and how many characters
/// are left out. The text itself (copy, download) keeps it whole. `None`
/// for a shorter token.
pub fn cut_long_string(token: &str) -> Option<(&str, usize)> {
    if token.len() <= STRING_SHOWN_BYTES {
        return None;
    }
    let cut = crate::display::floor_boundary(token, STRING_SHOWN_BYTES);
    Some((&token[..cut], token[cut..].chars().count()))
}

/// What the view says of an abbreviated or cut string (its `title`).
pub const SHOWN_ABBREVIATED: &str = "Shown abbreviated; Copy and Download keep it whole";

/// What follows a cut string's head in the view: how many characters are
/// left out, and where to get them.
pub fn cut_note(more: usize) -> String {
    format!(
        " \u{27e8}{} more characters: Copy or Download give them all\u{27e9}",
        crate::display::thousands(more as u64)
    )
}

/// Appends one line of JSON to `out` as the JSON view's HTML: a coloured
/// `<span>` per key, string, number and literal, the punctuation and spaces
/// between them as bare text (they take the `pre.json`'s colour: half the
/// elements of a line, whose style, layout and paint the first screen pays
/// for; D196, D197), no element around the line (its row is), a long `data:`
/// URL abbreviated and a string over [`STRING_SHOWN_BYTES`] cut, as the
/// view's own line (the app's `json_line_abbrev`) shows them; every text
/// escaped, absurd runs of combining marks collapsed. `has_secret` is asked
/// of each string and key token: when one holds a secret the line is not
/// written (`false`, `out` as it was), since a masked secret is a view of its
/// own (its reveal button).
pub fn push_line_html(line: &str, has_secret: &dyn Fn(&str) -> bool, out: &mut String) -> bool {
    let start = out.len();
    for (t, s) in highlight_line(line) {
        let string = matches!(t, Token::Str | Token::Key);
        if string {
            if let Some(short) = abbreviate_data_url(s) {
                push_run(out, t, " j-abbr", &short, "");
                continue;
            }
            if has_secret(s) {
                out.truncate(start);
                return false;
            }
            if let Some((head, more)) = cut_long_string(s) {
                push_run(out, t, " j-abbr", &crate::display::shown(head), &cut_note(more));
                continue;
            }
        }
        if t == Token::Punct {
            crate::markdown::escape_attr(&crate::display::shown(s), out);
        } else {
            push_run(out, t, "", &crate::display::shown(s), "");
        }
    }
    true
}

/// `<span class="{token}{extra}">{text}{note}</span>`, with the view's title when abbreviated.
fn push_run(out: &mut String, t: Token, extra: &str, text: &str, note: &str) {
    out.push_str("<span class=\"");
    out.push_str(t.class());
    out.push_str(extra);
    if extra.is_empty() {
        out.push_str("\">");
    } else {
        out.push_str("\" title=\"");
        out.push_str(SHOWN_ABBREVIATED);
        out.push_str("\">");
    }
    crate::markdown::escape_attr(text, out);
    crate::markdown::escape_attr(note, out);
    out.push_str("</span>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_as_html_is_escaped_coloured_and_whole() {
        let none = |_: &str| false;
        let mut out = String::new();
        let line = r#"  "k<&>": "<script>alert('x')</script>", "n": 1.5, "b": null,"#;
        assert!(push_line_html(line, &none, &mut out));
        assert!(!out.contains("<script>"), "{out}");
        assert!(out.starts_with("  <span class=\"j-key\">&quot;k&lt;&amp;&gt;&quot;</span>: <span"), "{out}");
        assert!(!out.contains("j-p"), "punctuation is bare text: {out}");
        assert!(
            out.contains("<span class=\"j-str\">&quot;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;</span>"),
            "{out}"
        );
        assert!(
            out.contains("<span class=\"j-num\">1.5</span>") && out.contains("<span class=\"j-lit\">null</span>"),
            "{out}"
        );
        assert!(out.ends_with("</span>,"), "no element around the line: {out}");
        // The text a reader sees is the line, every character.
        let text = regex_free_strip(&out);
        assert_eq!(text, line);
    }

    /// The text of a run list: tags dropped, entities decoded.
    fn regex_free_strip(html: &str) -> String {
        let mut out = String::new();
        let mut in_tag = false;
        for c in html.chars() {
            match c {
                '<' => in_tag = true,
                '>' if in_tag => in_tag = false,
                _ if !in_tag => out.push(c),
                _ => {}
            }
        }
        out.replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    #[test]
    fn a_line_as_html_abbreviates_and_cuts_as_the_view_does() {
        let none = |_: &str| false;
        let data = format!("  \"url\": \"data:image/png;base64,{}\"", "A".repeat(5000));
        let mut out = String::new();
        assert!(push_line_html(&data, &none, &mut out));
        assert!(out.contains("j-str j-abbr\" title=\"Shown abbreviated; Copy and Download keep it whole\""), "{out}");
        assert!(out.contains("(5,022 chars)"), "{out}");
        assert!(out.len() < 600);
        let long = format!("  \"text\": \"{}\"", "x".repeat(STRING_SHOWN_BYTES + 10));
        let mut out = String::new();
        assert!(push_line_html(&long, &none, &mut out));
        assert!(out.contains("12 more characters: Copy or Download give them all"), "{out}");
        assert!(out.len() < STRING_SHOWN_BYTES + 300);
    }

    #[test]
    fn a_line_with_a_secret_is_left_to_the_view() {
        let mut out = String::from("before");
        let secret = |s: &str| s.contains("sk-");
        assert!(!push_line_html(r#"  "key": "sk-abc","#, &secret, &mut out));
        assert_eq!(out, "before", "nothing written");
        assert!(push_line_html(r#"  "key": "abc","#, &secret, &mut out));
    }

    #[test]
    fn long_strings_are_cut_at_a_character_boundary() {
        assert_eq!(cut_long_string("\"short\""), None);
        let long = format!("\"{}\"", "é".repeat(STRING_SHOWN_BYTES));
        let (shown, hidden) = cut_long_string(&long).unwrap();
        assert!(shown.len() <= STRING_SHOWN_BYTES && shown.len() > STRING_SHOWN_BYTES - 4);
        assert_eq!(shown.chars().count() + hidden, long.chars().count(), "nothing lost in the count");
        assert!(long.starts_with(shown));
    }

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

    #[test]
    fn folds_objects_and_arrays_of_pretty_json() {
        let text = "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {},\n  \"c\": \"x {\",\n  \"d\": [\n    {\n      \"e\": 1\n    }, {\n      \"f\": 2\n    }\n  ]\n}";
        let lines = line_ranges(text);
        let ends = fold_ends(text, &lines);
        assert_eq!(ends[0], Some(lines.len() - 1), "the root");
        assert_eq!(ends[1], Some(4), "the array a");
        assert_eq!(ends[5], None, "an empty object on one line");
        assert_eq!(ends[6], None, "a string that holds a brace");
        assert_eq!(ends[7], Some(13));
        assert_eq!(ends[8], Some(10));
        assert_eq!(ends[10], Some(12), "`}}, {{` closes one and opens the next");
        // A minified document folds nothing and loses nothing.
        let flat = "{\"a\":[1,{\"b\":2}]}";
        assert_eq!(fold_ends(flat, &line_ranges(flat)), [None]);
        // Unbalanced: no panic.
        let odd = "]\n}\n{\n[";
        assert_eq!(fold_ends(odd, &line_ranges(odd)), [None, None, None, None]);
    }

    #[test]
    fn the_line_index_in_slices_equals_the_whole_pass() {
        let mut text =
            String::from("{\n  \"a\": [\n    1,\n    {\n      \"b\": \"x\\ny\"\n    }\n  ],\n  \"c\": {}\n}");
        for extra in ["", "\n", "\n\n", "tail without newline"] {
            text.push_str(extra);
            let (lines, ends) = (line_ranges(&text), fold_ends(&text, &line_ranges(&text)));
            for budget in [1, 2, 7, 20, 1 << 20] {
                let mut ix = LineIndex::new();
                let mut steps = 0;
                while !ix.step(&text, budget) {
                    steps += 1;
                    assert!(ix.position() < text.len());
                    assert!(steps < 1000);
                }
                assert!(ix.is_done() && ix.step(&text, budget), "stays done");
                assert_eq!(ix.lines, lines, "budget {budget}, extra {extra:?}");
                assert_eq!(ix.ends, ends, "budget {budget}, extra {extra:?}");
                assert_eq!(ix.position(), text.len());
            }
        }
        assert!(LineIndex::new().step("", 10), "an empty text is indexed at once");
        assert!(ends_of("{\n}").iter().all(Option::is_none), "no fold without a line between");
    }

    fn ends_of(text: &str) -> Vec<Option<usize>> {
        let mut ix = LineIndex::new();
        while !ix.step(text, 3) {}
        ix.ends
    }

    #[test]
    fn long_data_urls_are_abbreviated_in_the_view_only() {
        let data = format!("\"data:image/png;base64,iVBORw0KGgo{}\"", "A".repeat(12_320));
        assert_eq!(abbreviate_data_url(&data).unwrap(), "\"data:image/png;base64,iVBORw0K… (12,353 chars)\"");
        assert_eq!(abbreviate_data_url("\"data:,short\""), None);
        assert_eq!(abbreviate_data_url(&format!("\"https://x/{}\"", "a".repeat(200))), None);
        // No comma, multi-byte text: cut on a character boundary.
        let odd = format!("\"data:{}\"", "é".repeat(200));
        assert!(abbreviate_data_url(&odd).unwrap().ends_with("(205 chars)\""));
        assert_eq!(crate::display::thousands(1_234_567), "1,234,567");
        assert_eq!(crate::display::thousands(12), "12");
    }
}
