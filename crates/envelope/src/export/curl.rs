//! The request as a shell command: `curl` posting the JSON body.
//!
//! The API key is read from the environment when the command runs
//! (`$OPENAI_API_KEY`, `$ANTHROPIC_API_KEY`, inside double quotes); the
//! command never contains a key. The body is the pretty JSON of the request
//! in single quotes, each `'` in it written `'\''`: inside single quotes a
//! POSIX shell takes every byte literally (no `$`, `` ` ``, `\` or `!`
//! expansion), so any content reaches curl unchanged. `--data-raw` sends it
//! as is (unlike `-d`, a body starting with `@` is not read as a file name).

use serde_json::Value;

/// The OpenAI Chat Completions endpoint.
pub const OPENAI_URL: &str = "https://api.openai.com/v1/chat/completions";
/// The Anthropic Messages endpoint.
pub const ANTHROPIC_URL: &str = "https://api.anthropic.com/v1/messages";
/// The Anthropic API version header the request is written for.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// `s` as one single-quoted shell word.
pub fn shell_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for ch in s.chars() {
        if ch == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(ch);
        }
    }
    out.push('\'');
    out
}

/// The body as sent: pretty JSON, exactly as the JSON export shows it
/// (control and bidi characters as `\u` escapes, [`crate::jsontext`]),
/// without its final newline.
pub fn body_text(body: &Value) -> String {
    crate::jsontext::pretty(body)
}

fn command(url: &str, headers: &[&str], body: &Value) -> String {
    let mut out = format!("curl {url} \\\n");
    for h in headers {
        out.push_str(&format!("  -H \"{h}\" \\\n"));
    }
    out.push_str("  --data-raw ");
    out.push_str(&shell_quote(&body_text(body)));
    out.push('\n');
    out
}

/// The command that posts an OpenAI Chat Completions body.
pub fn openai(body: &Value) -> String {
    command(OPENAI_URL, &["Content-Type: application/json", "Authorization: Bearer $OPENAI_API_KEY"], body)
}

/// The command that posts an Anthropic Messages body.
pub fn anthropic(body: &Value) -> String {
    command(
        ANTHROPIC_URL,
        &[
            "Content-Type: application/json",
            "x-api-key: $ANTHROPIC_API_KEY",
            &format!("anthropic-version: {ANTHROPIC_VERSION}"),
        ],
        body,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("a"), "'a'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
