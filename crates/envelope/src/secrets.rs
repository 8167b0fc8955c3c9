//! Secrets in text: credentials found by the formats their issuers
//! document, masked for display and redacted for export. One definition for
//! `pep lint`'s `secret` check (`lint::secrets`), the app's conversation and
//! JSON views (shown masked, revealed one at a time), and "redact secrets
//! first" on Copy link and Download.
//!
//! Hand-written matchers (no regex engine: this module is in the app's first
//! load, ~2 KB): OpenAI (`sk-`, `sk-proj-`, …), Anthropic (`sk-ant-`), AWS
//! access key ids (`AKIA…`) and secret keys next to `aws_secret_access_key`,
//! GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab
//! (`glpat-`), Google API keys (`AIza…`) and OAuth client secrets
//! (`GOCSPX-`), Slack tokens (`xoxb-`, …) and webhooks, Stripe secret and
//! restricted keys (`sk_live_`, `rk_test_`, …) and webhook secrets
//! (`whsec_`), Hugging Face (`hf_`), npm (`npm_`), JSON Web Tokens, PEM
//! private keys, and passwords in connection strings
//! (`postgres://user:PASSWORD@host`, `Password=…;`). Linear in the text.
//!
//! A secret is never echoed whole: [`mask`] keeps the issuer's public prefix
//! and, for long keys, the last four characters (as providers' dashboards
//! do); [`redact`] masks every secret in a text. JSON text (an export, the
//! raw document) is read string by string, escapes decoded
//! ([`find_in_json_string`], [`redact_json`]): `"…\nsk-proj-…"` holds a key
//! the escaped text hides behind `n`.

use std::borrow::Cow;
use std::ops::Range;

/// The longest password value looked for after `password=` (bytes).
const VALUE_MAX: usize = 256;

/// A secret found in a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Secret {
    /// What it is ("OpenAI API key").
    pub kind: &'static str,
    /// Byte range in the text.
    pub range: Range<usize>,
    /// Bytes at its start that are public (the issuer's prefix).
    pub public: usize,
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn b62(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// A token that starts with `prefix` at a word boundary and continues with at
/// least `min` (at most `max`) bytes of `class`, ending at a boundary.
struct Prefixed {
    kind: &'static str,
    prefix: &'static str,
    class: fn(u8) -> bool,
    min: usize,
    max: usize,
    /// The body must hold a digit (random keys do; words do not).
    digit: bool,
}

const PREFIXED: &[Prefixed] = &[
    Prefixed { kind: "Anthropic API key", prefix: "sk-ant-", class: b64url, min: 32, max: 200, digit: true },
    Prefixed { kind: "OpenAI API key", prefix: "sk-", class: b64url, min: 32, max: 250, digit: true },
    Prefixed { kind: "GitHub token", prefix: "ghp_", class: b62, min: 36, max: 255, digit: false },
    Prefixed { kind: "GitHub token", prefix: "gho_", class: b62, min: 36, max: 255, digit: false },
    Prefixed { kind: "GitHub token", prefix: "ghu_", class: b62, min: 36, max: 255, digit: false },
    Prefixed { kind: "GitHub token", prefix: "ghs_", class: b62, min: 36, max: 255, digit: false },
    Prefixed { kind: "GitHub token", prefix: "ghr_", class: b62, min: 36, max: 255, digit: false },
    Prefixed {
        kind: "GitHub token",
        prefix: "github_pat_",
        class: |b| b62(b) || b == b'_',
        min: 22,
        max: 255,
        digit: false,
    },
    Prefixed { kind: "GitLab token", prefix: "glpat-", class: b64url, min: 20, max: 100, digit: false },
    Prefixed { kind: "Google API key", prefix: "AIza", class: b64url, min: 35, max: 35, digit: false },
    Prefixed { kind: "Google OAuth client secret", prefix: "GOCSPX-", class: b64url, min: 28, max: 28, digit: false },
    Prefixed { kind: "AWS access key id", prefix: "AKIA", class: aws, min: 16, max: 16, digit: false },
    Prefixed { kind: "AWS access key id", prefix: "ASIA", class: aws, min: 16, max: 16, digit: false },
    Prefixed { kind: "Stripe secret key", prefix: "sk_live_", class: b62, min: 16, max: 250, digit: false },
    Prefixed { kind: "Stripe secret key", prefix: "sk_test_", class: b62, min: 16, max: 250, digit: false },
    Prefixed { kind: "Stripe restricted key", prefix: "rk_live_", class: b62, min: 16, max: 250, digit: false },
    Prefixed { kind: "Stripe restricted key", prefix: "rk_test_", class: b62, min: 16, max: 250, digit: false },
    Prefixed { kind: "Stripe webhook secret", prefix: "whsec_", class: b62, min: 24, max: 100, digit: false },
    Prefixed { kind: "Slack token", prefix: "xoxb-", class: slack, min: 10, max: 255, digit: true },
    Prefixed { kind: "Slack token", prefix: "xoxp-", class: slack, min: 10, max: 255, digit: true },
    Prefixed { kind: "Slack token", prefix: "xoxa-", class: slack, min: 10, max: 255, digit: true },
    Prefixed { kind: "Slack token", prefix: "xoxr-", class: slack, min: 10, max: 255, digit: true },
    Prefixed { kind: "Slack token", prefix: "xoxs-", class: slack, min: 10, max: 255, digit: true },
    Prefixed { kind: "Slack token", prefix: "xoxe-", class: slack, min: 10, max: 255, digit: true },
    Prefixed {
        kind: "Slack webhook URL",
        prefix: "https://hooks.slack.com/services/",
        class: |b| b62(b) || b == b'/' || b == b'_',
        min: 20,
        max: 200,
        digit: false,
    },
    Prefixed {
        kind: "Hugging Face token",
        prefix: "hf_",
        class: |b| b.is_ascii_alphabetic(),
        min: 34,
        max: 64,
        digit: false,
    },
    Prefixed { kind: "npm token", prefix: "npm_", class: b62, min: 36, max: 36, digit: false },
];

fn aws(b: u8) -> bool {
    b.is_ascii_uppercase() || b.is_ascii_digit()
}

fn slack(b: u8) -> bool {
    b62(b) || b == b'-'
}

/// The length of the run of `class` bytes at the start of `bytes`.
fn run(bytes: &[u8], class: fn(u8) -> bool) -> usize {
    bytes.iter().take_while(|&&b| class(b)).count()
}

/// Every [`PREFIXED`] token, in one pass over the text.
fn prefixed(text: &str, out: &mut Vec<Secret>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let first = bytes[i];
        let mut next = i + 1;
        if matches!(first, b's' | b'g' | b'A' | b'G' | b'r' | b'w' | b'x' | b'h' | b'n') {
            for p in PREFIXED.iter().filter(|p| p.prefix.as_bytes()[0] == first) {
                if !bytes[i..].starts_with(p.prefix.as_bytes()) {
                    continue;
                }
                if i > 0 && is_word(bytes[i - 1]) && !p.prefix.starts_with("https:") {
                    continue;
                }
                // `sk-ant-` is Anthropic's, not OpenAI's.
                if p.prefix == "sk-" && text[i..].starts_with("sk-ant-") {
                    continue;
                }
                let body = i + p.prefix.len();
                let n = run(&bytes[body..], p.class);
                if n < p.min || n > p.max || (p.digit && !bytes[body..body + n].iter().any(u8::is_ascii_digit)) {
                    continue;
                }
                // The key type after the prefix is public too (`sk-proj-`, `sk-ant-api03-`).
                let typed = ["proj-", "svcacct-", "admin-", "api03-", "admin01-"]
                    .iter()
                    .find(|t| p.prefix.starts_with("sk-") && text[body..].starts_with(*t))
                    .map_or(0, |t| t.len());
                out.push(Secret { kind: p.kind, range: i..body + n, public: p.prefix.len() + typed });
                next = body + n;
                break;
            }
        }
        i = next;
    }
}

/// The next case-insensitive (ASCII) occurrence of `needle` at or after `from`.
fn find_ci(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let first = needle[0].to_ascii_lowercase();
    (from..hay.len().saturating_sub(needle.len() - 1))
        .find(|&i| hay[i].to_ascii_lowercase() == first && hay[i..i + needle.len()].eq_ignore_ascii_case(needle))
}

/// `eyJ….eyJ….sig`: a JSON Web Token (its header and payload are base64url JSON objects).
fn jwt(text: &str, out: &mut Vec<Secret>) {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(off) = text[from..].find("eyJ") {
        let start = from + off;
        from = start + 3;
        if start > 0 && is_word(bytes[start - 1]) {
            continue;
        }
        let h = run(&bytes[start..], b64url);
        let p0 = start + h;
        if h < 10 || bytes.get(p0) != Some(&b'.') || !text[p0 + 1..].starts_with("eyJ") {
            continue;
        }
        let p = run(&bytes[p0 + 1..], b64url);
        let s0 = p0 + 1 + p;
        if p < 10 || bytes.get(s0) != Some(&b'.') {
            continue;
        }
        let s = run(&bytes[s0 + 1..], b64url);
        if s < 16 {
            continue;
        }
        out.push(Secret { kind: "JSON Web Token", range: start..s0 + 1 + s, public: 3 });
        from = s0 + 1 + s;
    }
}

/// `-----BEGIN … PRIVATE KEY-----` through its END line (or the header alone).
fn pem(text: &str, out: &mut Vec<Secret>) {
    let mut from = 0;
    let mut no_end = false;
    while let Some(off) = text[from..].find("-----BEGIN ") {
        let start = from + off;
        from = start + 11;
        let Some(close) = text[from..].find("-----") else { break };
        let label = &text[from..from + close];
        if !label.ends_with("PRIVATE KEY") && !label.ends_with("PRIVATE KEY BLOCK") || label.contains('\n') {
            continue;
        }
        let header_end = from + close + 5;
        // No END after one header means none after a later one either: looked
        // for once (many headers without an END stay linear).
        let end = if no_end {
            None
        } else {
            text[header_end..].find("-----END ").and_then(|e| {
                let e = header_end + e;
                text[e + 9..].find("-----").map(|c| e + 9 + c + 5)
            })
        };
        no_end = end.is_none();
        let end = end.unwrap_or(header_end);
        out.push(Secret { kind: "private key", range: start..end, public: header_end - start });
        from = end;
    }
}

/// A value that stands for a password rather than being one.
fn placeholder_value(v: &str) -> bool {
    v.is_empty()
        || v.chars().all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
        || v.starts_with("{{")
        || v.starts_with("${")
        || v.starts_with('<')
        || v.starts_with('%')
        || v.starts_with('$')
        || v.eq_ignore_ascii_case("password")
}

/// `scheme://user:PASSWORD@host` (the password alone is the secret).
fn url_passwords(text: &str, out: &mut Vec<Secret>) {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(off) = text[from..].find("://") {
        let sep = from + off;
        from = sep + 3;
        let scheme =
            bytes[..sep].iter().rev().take_while(|&&b| b.is_ascii_alphanumeric() || b"+.-".contains(&b)).count();
        if scheme == 0 {
            continue;
        }
        let auth = &text[sep + 3..];
        let end = auth
            .find(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace() || c == '"' || c == '\'')
            .unwrap_or(auth.len());
        let Some(at) = auth[..end].rfind('@') else { continue };
        let Some(colon) = auth[..at].find(':') else { continue };
        let password = &auth[colon + 1..at];
        if placeholder_value(password) {
            continue;
        }
        let start = sep + 3 + colon + 1;
        out.push(Secret { kind: "password in a connection string", range: start..start + password.len(), public: 0 });
    }
}

/// `Password=…;` / `Pwd=…` in key-value connection strings.
fn kv_passwords(text: &str, out: &mut Vec<Secret>) {
    let bytes = text.as_bytes();
    for key in ["password=", "pwd=", "passwd="] {
        let mut from = 0;
        while let Some(start) = find_ci(bytes, key.as_bytes(), from) {
            from = start + key.len();
            if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
                continue;
            }
            let v0 = start + key.len();
            // A password is short: the value is looked for in the next
            // `VALUE_MAX` bytes only (`password=password=…` stays linear).
            let window = &text[v0..crate::display::floor_boundary(text, v0 + VALUE_MAX)];
            let Some(len) = window
                .find(|c: char| c == ';' || c == '&' || c.is_whitespace() || c == '"' || c == '\'')
                .or((window.len() == text.len() - v0).then_some(window.len()))
            else {
                continue;
            };
            if placeholder_value(&text[v0..v0 + len]) {
                continue;
            }
            out.push(Secret { kind: "password in a connection string", range: v0..v0 + len, public: 0 });
        }
    }
}

/// `aws_secret_access_key = <40 base64 characters>`.
fn aws_secret(text: &str, out: &mut Vec<Secret>) {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = find_ci(bytes, b"aws_secret_access_key", from) {
        let mut i = at + 21;
        from = i;
        while i < bytes.len() && matches!(bytes[i], b' ' | b'"' | b'\'' | b'=' | b':' | b'\t') {
            i += 1;
        }
        let n = run(&bytes[i..], |b| b.is_ascii_alphanumeric() || b == b'/' || b == b'+' || b == b'=');
        if n == 40 {
            out.push(Secret { kind: "AWS secret access key", range: i..i + 40, public: 0 });
        }
    }
}

/// Every secret in `text`, by start (overlaps removed: the longer wins).
pub fn find(text: &str) -> Vec<Secret> {
    let mut out = Vec::new();
    prefixed(text, &mut out);
    jwt(text, &mut out);
    pem(text, &mut out);
    url_passwords(text, &mut out);
    kv_passwords(text, &mut out);
    aws_secret(text, &mut out);
    out.sort_by_key(|s| (s.range.start, std::cmp::Reverse(s.range.end)));
    let mut kept: Vec<Secret> = Vec::new();
    for s in out {
        match kept.last() {
            Some(k) if s.range.start < k.range.end => {}
            _ => kept.push(s),
        }
    }
    kept
}

/// The masked form of a secret: its public prefix, `****`, and for secrets
/// of 24 characters or more after the prefix, their last four characters.
pub fn mask(secret: &str, public: usize) -> String {
    let public = public.min(secret.len());
    let (head, body) = secret.split_at(if secret.is_char_boundary(public) { public } else { 0 });
    let n = body.chars().count();
    let tail: String = if n >= 24 { body.chars().skip(n - 4).collect() } else { String::new() };
    format!("{head}****{tail}")
}

/// `text` with every secret masked.
pub fn redact(text: &str) -> Cow<'_, str> {
    splice(text, find(text).into_iter().map(|s| (s.range.clone(), mask(&text[s.range], s.public))).collect())
}

/// A secret in a JSON string token ([`find_in_json_string`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonSecret {
    /// What it is ("OpenAI API key").
    pub kind: &'static str,
    /// Byte range in the token's text (escapes as written).
    pub range: Range<usize>,
    /// The secret itself, escapes decoded.
    pub secret: String,
    /// Its [`mask`], written as JSON string content (escaped).
    pub masked: String,
}

/// Reads the content of a JSON string (without its quotes): the decoded text,
/// and where it maps back to (decoded offset, source offset) at each escape's
/// start and end (offsets between two of them map one to one). Total: an
/// unknown escape stands for its character, a bad `\u` for U+FFFD.
fn decode(src: &str) -> (String, Vec<(usize, usize)>) {
    let bytes = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut map = vec![(0, 0)];
    let mut i = 0;
    while i < bytes.len() {
        let Some(off) = src[i..].find('\\') else {
            out.push_str(&src[i..]);
            break;
        };
        out.push_str(&src[i..i + off]);
        i += off;
        map.push((out.len(), i));
        let hex = |at: usize| src.get(at..at + 4).and_then(|h| u32::from_str_radix(h, 16).ok());
        let Some(c) = src[i + 1..].chars().next() else {
            i += 1;
            map.push((out.len(), i));
            break;
        };
        let (ch, len) = match c {
            'u' => match hex(i + 2) {
                Some(hi @ 0xD800..0xDC00) => match (src.get(i + 6..i + 8), hex(i + 8)) {
                    (Some("\\u"), Some(lo @ 0xDC00..0xE000)) => {
                        (char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)), 12)
                    }
                    _ => (None, 6),
                },
                Some(cp) => (char::from_u32(cp), 6),
                None => (None, 2),
            },
            'n' => (Some('\n'), 2),
            't' => (Some('\t'), 2),
            'r' => (Some('\r'), 2),
            'b' => (Some('\u{8}'), 2),
            'f' => (Some('\u{c}'), 2),
            c => (Some(c), 1 + c.len_utf8()),
        };
        out.push(ch.unwrap_or('\u{fffd}'));
        i += len;
        map.push((out.len(), i));
    }
    (out, map)
}

/// `s` as the content of a JSON string (quotes, backslashes and controls escaped).
fn escape_json(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The secrets in a JSON string token (quotes included, as `jsonview`'s
/// lines give it), found in its decoded text; ranges are in the token's text.
pub fn find_in_json_string(token: &str) -> Vec<JsonSecret> {
    let Some(inner) = token.strip_prefix('"') else { return Vec::new() };
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let make = |s: &Secret, text: &str, range: Range<usize>| JsonSecret {
        kind: s.kind,
        range,
        secret: text[s.range.clone()].to_string(),
        masked: escape_json(&mask(&text[s.range.clone()], s.public)),
    };
    if !inner.contains('\\') {
        return find(inner).iter().map(|s| make(s, inner, s.range.start + 1..s.range.end + 1)).collect();
    }
    let (text, map) = decode(inner);
    let at = |p: usize| {
        let k = map.partition_point(|&(d, _)| d <= p);
        let (d, s) = map[k.max(1) - 1];
        1 + s + (p - d)
    };
    find(&text).iter().map(|s| make(s, &text, at(s.range.start)..at(s.range.end))).collect()
}

/// `text` with `(range, replacement)` pairs (in order, not overlapping) put in.
fn splice(text: &str, parts: Vec<(Range<usize>, String)>) -> Cow<'_, str> {
    if parts.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (r, with) in parts {
        out.push_str(&text[last..r.start]);
        out.push_str(&with);
        last = r.end;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// JSON text (an export, a document; any text is taken) with every secret in
/// its strings masked, each string read with its escapes decoded, and every
/// secret outside strings (a cURL command's shell text) masked as [`redact`]
/// does. The rest stays byte for byte; valid JSON stays valid.
pub fn redact_json(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut parts: Vec<(Range<usize>, String)> = Vec::new();
    let outside = |from: usize, to: usize, parts: &mut Vec<(Range<usize>, String)>| {
        let t = &text[from..to];
        parts.extend(
            find(t).into_iter().map(|s| (from + s.range.start..from + s.range.end, mask(&t[s.range], s.public))),
        );
    };
    let (mut i, mut last) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        outside(last, i, &mut parts);
        let start = i;
        i += 1;
        while i < bytes.len() && bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        i = (i + 1).min(bytes.len());
        for s in find_in_json_string(&text[start..i]) {
            parts.push((start + s.range.start..start + s.range.end, s.masked));
        }
        last = i;
    }
    outside(last, bytes.len(), &mut parts);
    splice(text, parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Test keys are built at run time so that no secret-looking literal sits
    /// in the source (scanners of this repository stay quiet).
    fn key(prefix: &str, body: &str, n: usize) -> String {
        format!("{prefix}{}", &body.repeat(n / body.len() + 1)[..n])
    }

    fn kinds(text: &str) -> Vec<(&'static str, String)> {
        find(text).into_iter().map(|s| (s.kind, text[s.range].to_string())).collect()
    }

    #[test]
    fn provider_formats() {
        let cases = [
            ("OpenAI API key", key("sk-", "aB3dE5fG7h", 48)),
            ("OpenAI API key", key("sk-proj-", "Ab1_Cd2-Ef", 120)),
            ("Anthropic API key", key("sk-ant-api03-", "xY9_zW8-vU", 93)),
            ("GitHub token", key("ghp_", "a1B2c3D4e5", 36)),
            ("GitHub token", key("github_pat_", "11ABCDEFG0_", 82)),
            ("GitLab token", key("glpat-", "x1Y2z3", 20)),
            ("Google API key", key("AIza", "Sy0_a-B1c2", 35)),
            ("Google OAuth client secret", key("GOCSPX-", "a1B2_c3D4-", 28)),
            ("AWS access key id", key("AKIA", "IOSFODNN7EXAMPLE", 16)),
            ("Stripe secret key", key("sk_live_", "4eC39HqLyjWDarjtT1zdp7dc", 24)),
            ("Stripe restricted key", key("rk_test_", "51H2x3", 30)),
            ("Stripe webhook secret", key("whsec_", "a1b2c3", 32)),
            ("Slack token", key("xoxb-", "1234-5678-abcd", 40)),
            ("Slack webhook URL", key("https://hooks.slack.com/services/", "T000/B000/XXXX", 44)),
            ("Hugging Face token", key("hf_", "abcdEFGHij", 34)),
            ("npm token", key("npm_", "a1b2C3d4", 36)),
        ];
        for (kind, k) in &cases {
            let text = format!("config: {k}, done");
            assert_eq!(kinds(&text), [(*kind, k.clone())], "{text}");
        }
    }

    #[test]
    fn jwt_pem_and_passwords() {
        let jwt = format!(
            "{}.{}.{}",
            key("eyJ", "hbGciOiJIUzI1NiJ9", 20),
            key("eyJ", "zdWIiOiIxMjM0In0", 24),
            key("", "SflKxwRJSMeKKF2QT4", 43)
        );
        assert_eq!(kinds(&format!("Bearer {jwt}")), [("JSON Web Token", jwt.clone())]);
        let pem = format!("-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----", key("", "MIIEow", 64));
        assert_eq!(kinds(&format!("key:\n{pem}\nend")), [("private key", pem.clone())]);
        assert!(kinds("-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----").is_empty());
        let pw = key("", "hunter2!", 11);
        assert_eq!(
            kinds(&format!("DATABASE_URL=postgres://app:{pw}@db.internal:5432/orders")),
            [("password in a connection string", pw.clone())]
        );
        assert_eq!(
            kinds(&format!("Server=db;User Id=sa;Password={pw};")),
            [("password in a connection string", pw.clone())]
        );
        let aws = key("", "wJalrXUtnFEMI/K7MDENG/bPxRfiCY", 40);
        assert_eq!(kinds(&format!("aws_secret_access_key = {aws}")), [("AWS secret access key", aws)]);
    }

    #[test]
    fn lookalikes_are_not_secrets() {
        for text in [
            "task-force sk-learn sk-this-is-a-long-but-wordy-identifier-without-digits",
            "postgres://db.internal:5432/orders postgres://user:{{password}}@db postgres://u:${PW}@h",
            "https://example.com/a:b@c is fine? no: https://x.y/path?q=a:b@c",
            "Password=<your password>; pwd=*****; password=password",
            "the AKIA prefix alone, AKIAshort, xAKIAIOSFODNN7EXAMPLEX",
            "eyJhbGciOi.eyJzdWIi.sig (too short)",
            "ghp_tooShort1 AIzaShort",
        ] {
            assert!(kinds(text).is_empty(), "{text}: {:?}", kinds(text));
        }
    }

    #[test]
    fn masks_never_hold_the_secret() {
        let k = key("sk-proj-", "Ab1_Cd2-Ef", 120);
        let m = mask(&k, 8);
        assert!(m.starts_with("sk-proj-****") && m.len() == 16 && !m.contains(&k[8..20]), "{m}");
        assert_eq!(mask("hunter2", 0), "****");
        let text = format!("a {k} b postgres://u:s3cretpw@h c");
        let r = redact(&text);
        assert!(!r.contains(&k) && !r.contains("s3cretpw"), "{r}");
        assert!(r.contains("postgres://u:****@h"), "{r}");
        assert!(matches!(redact("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_strings_are_read_with_their_escapes_decoded() {
        let k = key("sk-proj-", "Ab1_Cd2-Ef", 120);
        // After `\n` the key starts a word of the decoded text, not of the escaped one.
        let token = format!("\"my key:\\n{k}\\tend\"");
        assert!(find(&token).is_empty(), "the escaped text hides it");
        let found = find_in_json_string(&token);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].kind, &token[found[0].range.clone()], found[0].secret.as_str()),
            ("OpenAI API key", k.as_str(), k.as_str())
        );
        assert_eq!(found[0].masked, mask(&k, 8));
        // Escapes inside a secret map back to their source text.
        let pw = "pa\\ss\\wordé1";
        let token = serde_json::to_string(&format!("postgres://u:{pw}@h")).unwrap();
        let token = token.replace('é', "\\u00e9");
        let found = find_in_json_string(&token);
        assert_eq!(found.len(), 1, "{token}");
        assert_eq!(found[0].secret, pw);
        assert_eq!(&token[found[0].range.clone()], "pa\\\\ss\\\\word\\u00e91");
        let token = format!("\"Password=ab\\u00e9\\ud83d\\ude00cd{}; x\"", "x".repeat(30));
        let found = find_in_json_string(&token);
        assert_eq!(found[0].secret, format!("abé😀cd{}", "x".repeat(30)));
        assert_eq!(&token[found[0].range.clone()], &format!("ab\\u00e9\\ud83d\\ude00cd{}", "x".repeat(30)));
        assert_eq!(found[0].masked, "****xxxx");
        assert!(find_in_json_string("not a string").is_empty());
        assert!(find_in_json_string("\"").is_empty());
        assert!(find_in_json_string("\"\\").is_empty());
    }

    #[test]
    fn json_redaction_masks_strings_and_keeps_the_rest() {
        let k = key("sk-ant-api03-", "xY9_zW8-vU", 93);
        let o = key("sk-proj-", "Ab1_Cd2-Ef", 120);
        let doc =
            serde_json::json!({"a": format!("line\n{k}"), "b": [1, 2.50, null], "c": {o.clone(): "Password=\"q\""}});
        let text = serde_json::to_string_pretty(&doc).unwrap().replace("2.5", "2.50");
        let r = redact_json(&text);
        assert!(!r.contains(&k) && !r.contains(&o) && !r.contains(&k[13..40]), "{r}");
        let back: serde_json::Value = serde_json::from_str(&r).unwrap();
        assert_eq!(back["a"], format!("line\n{}", mask(&k, 13)));
        assert!(back["c"].get(mask(&o, 8)).is_some(), "keys too: {r}");
        assert!(r.contains("2.50"), "numbers as written");
        assert!(matches!(redact_json("{\"a\": \"nothing\"}"), Cow::Borrowed(_)));
        // Outside strings (a cURL command's shell text) as `redact` does.
        let curl = format!("curl -H 'x-api-key: {k}' -d '{{\"k\": \"{o}\"}}'");
        let r = redact_json(&curl);
        assert!(!r.contains(&k) && !r.contains(&o), "{r}");
        // Unterminated strings and lone quotes are text too.
        assert_eq!(redact_json("\"abc"), "\"abc");
        assert_eq!(redact_json("\"\\"), "\"\\");
    }

    #[test]
    fn many_near_misses_stay_linear() {
        // The value after `password=` is looked for in a bounded window, and
        // an END line once: 2 MB of each would be quadratic otherwise.
        let t0 = std::time::Instant::now();
        for s in ["password=", "-----BEGIN RSA PRIVATE KEY-----", "pwd=x", "postgres://", "eyJ", "sk-"] {
            let text = s.repeat(2_000_000 / s.len());
            let _ = find(&text);
            let _ = redact_json(&text);
        }
        assert!(t0.elapsed().as_secs() < 60, "{:?}", t0.elapsed());
        let long = format!("password={}", "a".repeat(VALUE_MAX + 1));
        assert!(find(&long).is_empty(), "a value of 257 bytes is no password");
        assert_eq!(find(&format!("password={}", "a".repeat(VALUE_MAX))).len(), 1);
    }

    proptest::proptest! {
        /// Any text: no panic, ranges on char boundaries; a JSON string
        /// redacted as JSON reads back as the string redacted.
        #[test]
        fn any_text(t in "(\\PC|\n|\"|\\\\|sk-|sk-proj-|ghp_|AKIA|eyJ|://|:|@|=|-----BEGIN |password=|[a-zA-Z0-9_.-]{8,40}){0,40}") {
            for s in find(&t) {
                proptest::prop_assert!(t.is_char_boundary(s.range.start) && t.is_char_boundary(s.range.end));
            }
            let _ = redact(&t);
            let _ = redact_json(&t);
            let _ = find_in_json_string(&t);
            for json in [serde_json::to_string(&t).unwrap(), crate::jsontext::compact(&t)] {
                let r = redact_json(&json);
                let back: String = serde_json::from_str(&r).unwrap();
                proptest::prop_assert_eq!(back, redact(&t).into_owned());
            }
        }
    }
}
