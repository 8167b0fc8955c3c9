//! The request as a shell command: `curl` posting the JSON body.
//!
//! The API key is read from the environment when the command runs
//! (`$OPENAI_API_KEY`, `$ANTHROPIC_API_KEY`, `$GEMINI_API_KEY`, inside
//! double quotes); the
//! command never contains a key. The body is the pretty JSON of the request
//! in single quotes, each `'` in it written `'\''`: inside single quotes a
//! POSIX shell takes every byte literally (no `$`, `` ` ``, `\` or `!`
//! expansion), so any content reaches curl unchanged. `--data-raw` sends it
//! as is (unlike `-d`, a body starting with `@` is not read as a file name).

use serde_json::Value;

use crate::diag::Notice;

/// The OpenAI Chat Completions endpoint.
pub const OPENAI_URL: &str = "https://api.openai.com/v1/chat/completions";
/// The Anthropic Messages endpoint.
pub const ANTHROPIC_URL: &str = "https://api.anthropic.com/v1/messages";
/// The Anthropic API version header the request is written for.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The Gemini API's base; the URL is `{GEMINI_BASE}/models/{model}:generateContent`.
pub const GEMINI_BASE: &str = "https://generativelanguage.googleapis.com/v1beta";
/// What the Gemini URL holds when the envelope names no Gemini model.
pub const GEMINI_MODEL_PLACEHOLDER: &str = "MODEL_NAME";

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

/// The Gemini `generateContent` URL for `model` (`gemini-2.5-flash`,
/// `models/gemini-2.5-flash`, `tunedModels/my-model`), each path segment
/// percent-encoded; `None` for a model that is not Gemini's.
pub fn gemini_url(model: &str) -> Option<String> {
    let (collection, name) = match model.split_once('/') {
        Some((c @ ("models" | "tunedModels"), name)) => (c, name),
        Some(_) => return None,
        None => ("models", model),
    };
    let lower = name.to_ascii_lowercase();
    let gemini = collection == "tunedModels" || ["gemini", "gemma", "learnlm"].iter().any(|p| lower.contains(p));
    if !gemini || name.is_empty() {
        return None;
    }
    let mut path = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            path.push(b as char);
        } else {
            path.push_str(&format!("%{b:02X}"));
        }
    }
    Some(format!("{GEMINI_BASE}/{collection}/{path}:generateContent"))
}

/// The command that posts a Gemini `generateContent` body. The model is in
/// the URL: the envelope's, or (when it names no Gemini model)
/// [`GEMINI_MODEL_PLACEHOLDER`], with a notice to replace it.
pub fn gemini(body: &Value, model: Option<&str>, notices: &mut Vec<Notice>) -> String {
    let url = match model.map(|m| (m, gemini_url(m))) {
        Some((_, Some(url))) => url,
        named => {
            let why = match named {
                Some((m, _)) => format!("`{m}` is not a Gemini model"),
                None => "the envelope names no model".to_string(),
            };
            notices.push(Notice::new(
                "model",
                format!(
                    "{why}; Gemini takes the model in the URL: replace {GEMINI_MODEL_PLACEHOLDER} in the command (e.g. gemini-2.5-flash)"
                ),
            ));
            format!("{GEMINI_BASE}/models/{GEMINI_MODEL_PLACEHOLDER}:generateContent")
        }
    };
    command(&shell_quote(&url), &["Content-Type: application/json", "x-goog-api-key: $GEMINI_API_KEY"], body)
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

    #[test]
    fn gemini_urls() {
        let u = |m| gemini_url(m);
        assert_eq!(
            u("gemini-2.5-flash").as_deref(),
            Some("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent")
        );
        assert_eq!(
            u("models/gemini-2.0-flash").as_deref(),
            Some(&*format!("{GEMINI_BASE}/models/gemini-2.0-flash:generateContent"))
        );
        assert_eq!(u("tunedModels/mine").as_deref(), Some(&*format!("{GEMINI_BASE}/tunedModels/mine:generateContent")));
        assert_eq!(
            u("gemini x';rm -rf ~").as_deref(),
            Some(&*format!("{GEMINI_BASE}/models/gemini%20x%27%3Brm%20-rf%20~:generateContent"))
        );
        assert_eq!(u("gemini/../../x"), None);
        assert_eq!(u("gpt-4o"), None);
        assert_eq!(u("publishers/google/models/gemini"), None);
        let mut n = Vec::new();
        let cmd = gemini(&serde_json::json!({"contents": []}), None, &mut n);
        assert!(
            cmd.starts_with(
                "curl 'https://generativelanguage.googleapis.com/v1beta/models/MODEL_NAME:generateContent' \\\n"
            ),
            "{cmd}"
        );
        assert!(cmd.contains("-H \"x-goog-api-key: $GEMINI_API_KEY\""), "{cmd}");
        assert_eq!(n.len(), 1);
        assert!(n[0].message.contains("MODEL_NAME"));
    }
}
