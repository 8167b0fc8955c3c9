//! `secret` and `sensitive-word`: credentials and configured words in what
//! the model receives.
//!
//! Secrets are found by the formats their issuers document, with hand-written
//! matchers (no regex engine in the app's worker): OpenAI (`sk-`, `sk-proj-`,
//! …), Anthropic (`sk-ant-`), AWS access key ids (`AKIA…`) and secret keys
//! next to `aws_secret_access_key`, GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`,
//! `ghr_`, `github_pat_`), GitLab (`glpat-`), Google API keys (`AIza…`) and
//! OAuth client secrets (`GOCSPX-`), Slack tokens (`xoxb-`, …) and webhooks,
//! Stripe secret and restricted keys (`sk_live_`, `rk_test_`, …) and webhook
//! secrets (`whsec_`), Hugging Face (`hf_`), npm (`npm_`), SendGrid (`SG.`),
//! JSON Web Tokens, PEM private keys, and passwords in connection strings
//! (`postgres://user:PASSWORD@host`, `Password=…;`).
//!
//! A secret is never echoed whole: [`mask`] keeps the issuer's public prefix
//! and, for long keys, the last four characters (as providers' dashboards
//! do); [`redact`] masks every secret in a text (messages, quoted lines).

use std::borrow::Cow;
use std::ops::Range;

use super::fields::Field;
use super::Raw;
use crate::diag::Rule;

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
    while let Some(off) = text[from..].find("-----BEGIN ") {
        let start = from + off;
        from = start + 11;
        let Some(close) = text[from..].find("-----") else { break };
        let label = &text[from..from + close];
        if !label.ends_with("PRIVATE KEY") && !label.ends_with("PRIVATE KEY BLOCK") || label.contains('\n') {
            continue;
        }
        let header_end = from + close + 5;
        let end = text[header_end..]
            .find("-----END ")
            .and_then(|e| {
                let e = header_end + e;
                text[e + 9..].find("-----").map(|c| e + 9 + c + 5)
            })
            .unwrap_or(header_end);
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
            let len = text[v0..]
                .find(|c: char| c == ';' || c == '&' || c.is_whitespace() || c == '"' || c == '\'')
                .unwrap_or(text.len() - v0);
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
    let found = find(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for s in found {
        out.push_str(&text[last..s.range.start]);
        out.push_str(&mask(&text[s.range.clone()], s.public));
        last = s.range.end;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// `text` with the private part of every secret replaced by `*`, one per
/// character, so that columns stay where they were (quoted source lines).
pub fn redact_in_place(text: &str) -> Cow<'_, str> {
    let found = find(text);
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for s in found {
        let private = s.range.start + s.public.min(s.range.len());
        out.push_str(&text[last..private]);
        out.extend(text[private..s.range.end].chars().map(|c| if c == '\n' { c } else { '*' }));
        last = s.range.end;
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

/// `secret` findings over the sent fields.
pub fn check(fields: &[Field]) -> Vec<Raw> {
    let mut out = Vec::new();
    for f in fields {
        for s in find(f.text) {
            let shown = mask(&f.text[s.range.clone()], s.public);
            out.push(
                Raw::new(Rule::Secret, f.path(), format!("{} `{shown}` in text the model receives", s.kind))
                    .span(s.range)
                    .hint("remove it and rotate it: anything sent to a model is logged and may be repeated"),
            );
        }
    }
    out
}

/// Case-insensitive whole-word occurrences of `word` in `text` (byte ranges).
pub fn word_matches(text: &str, word: &str) -> Vec<Range<usize>> {
    let w: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
    let Some(&first) = w.first() else { return Vec::new() };
    // Word boundaries apply where a word starts or ends with a Latin letter,
    // digit or `_`; words in scripts written without spaces match anywhere.
    let word_edge = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        if c.to_lowercase().next() != Some(first) {
            i += 1;
            continue;
        }
        // Compare lowercase streams.
        let mut k = 0;
        let mut j = i;
        let mut lower = Vec::new();
        while k < w.len() && j < chars.len() {
            lower.clear();
            lower.extend(chars[j].1.to_lowercase());
            if w[k..].starts_with(&lower) {
                k += lower.len();
                j += 1;
            } else {
                break;
            }
        }
        if k == w.len() {
            let end = chars.get(j).map_or(text.len(), |c| c.0);
            let before = i.checked_sub(1).map(|p| chars[p].1);
            let after = chars.get(j).map(|c| c.1);
            let ok_before = !word_edge(w[0]) || boundary(before);
            let ok_after = !word_edge(w[w.len() - 1]) || boundary(after);
            if ok_before && ok_after {
                out.push(start..end);
                i = j;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// `sensitive-word` findings.
pub fn check_words(fields: &[Field], words: &[String]) -> Vec<Raw> {
    let mut out = Vec::new();
    for f in fields {
        for w in words {
            for r in word_matches(f.text, w) {
                out.push(
                    Raw::new(
                        Rule::SensitiveWord,
                        f.path(),
                        format!("sensitive word `{w}` in text the model receives (configured in sensitive_words)"),
                    )
                    .span(r),
                );
            }
        }
    }
    out
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

    proptest::proptest! {
        /// Any text: no panic, ranges on char boundaries, masks without the
        /// private part, column-preserving redaction.
        #[test]
        fn any_text(t in "(\\PC|sk-|ghp_|AKIA|eyJ|://|:|@|=|-----BEGIN |password=|[a-zA-Z0-9_.-]{8,40}){0,40}") {
            for s in find(&t) {
                proptest::prop_assert!(t.is_char_boundary(s.range.start) && t.is_char_boundary(s.range.end));
            }
            proptest::prop_assert_eq!(redact_in_place(&t).chars().count(), t.chars().count());
            let _ = redact(&t);
            for w in ["a", "é", "sk", "İ"] {
                let _ = word_matches(&t, w);
            }
        }
    }

    #[test]
    fn words_match_whole_and_any_case() {
        assert_eq!(word_matches("A Secret, secrets, SECRET.", "secret"), [2..8, 19..25]);
        assert_eq!(word_matches("private_key and private-key", "private_key"), vec![0..11]);
        assert_eq!(word_matches("机密文件 机密", "机密"), [0..6, 13..19]);
        assert!(word_matches("anything", "").is_empty());
        assert_eq!(word_matches("İnternal", "i̇nternal"), vec![0..9]);
    }
}
