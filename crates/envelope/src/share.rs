//! Share links: a whole document in a URL's fragment, `…/doc#d=<data>`,
//! where `<data>` is the document's JSON text, compressed with raw DEFLATE
//! (RFC 1951) and written in unpadded base64url (RFC 4648 §5). Browsers never
//! send the fragment to a server.
//!
//! The framing (the `d=` key, base64url, the size limits) is always built.
//! Compression is the feature `share` (`miniz_oxide`, for the CLI's `pep
//! share` and the tests); the app compresses with the browser's own
//! `CompressionStream("deflate-raw")`, the same format, and adds no
//! compressor to its bundle (docs/DECISIONS.md, "Editing and sharing").
//!
//! Whatever a fragment holds, reading it ends in the document's text or in a
//! diagnostic (rule `share-link`) saying what is wrong: never a panic, and
//! never more than [`MAX_TEXT_BYTES`] inflated.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use crate::diag::{Diagnostic, Rule};

/// The fragment's key: `#d=…`.
pub const KEY: &str = "d";
/// The longest fragment a link may carry, in characters (after `#`). Every
/// current browser keeps a longer address; chat tools and mail clients cut
/// far shorter ones, so a link is refused past 64 KiB rather than broken.
pub const MAX_FRAGMENT_CHARS: usize = 65_536;
/// The most a link's data may inflate to (a deflate bomb stops here).
pub const MAX_TEXT_BYTES: usize = 16 * 1024 * 1024;

fn error(message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Rule::ShareLink, "#d", message)
}

/// The fragment (without `#`) for compressed data, or why it would be too long.
pub fn fragment(deflated: &[u8]) -> Result<String, Diagnostic> {
    let chars = 2 + deflated.len().div_ceil(3) * 4;
    if chars > MAX_FRAGMENT_CHARS {
        return Err(error(format!(
            "the document is too large for a link: compressed, it needs {chars} characters, more than the \
             {MAX_FRAGMENT_CHARS} a link may carry; download it and send the file instead"
        )));
    }
    Ok(format!("{KEY}={}", URL_SAFE_NO_PAD.encode(deflated)))
}

/// The `d=` value of a fragment (`#a&d=…`), if it has one.
fn value(fragment: &str) -> Option<&str> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    fragment.split('&').find_map(|kv| kv.strip_prefix("d="))
}

/// Whether a fragment holds a document (`d=`), well formed or not: what
/// [`data`] answers `Ok(None)` for does not.
pub fn holds_data(fragment: &str) -> bool {
    value(fragment).is_some()
}

/// The compressed data a fragment carries (`#d=…` or `d=…`, possibly among
/// other `&`-separated keys), or what is wrong with it. `Ok(None)` when the
/// fragment has no `d` key (an ordinary anchor).
pub fn data(fragment: &str) -> Result<Option<Vec<u8>>, Diagnostic> {
    let Some(value) = value(fragment) else {
        return Ok(None);
    };
    if value.len() > MAX_FRAGMENT_CHARS {
        return Err(error(format!(
            "the link's data is {} characters, more than the {MAX_FRAGMENT_CHARS} a link may carry",
            value.len()
        )));
    }
    if value.is_empty() {
        return Err(error("the link holds no document (nothing after #d=)"));
    }
    if let Some((i, c)) = value.char_indices().find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_')) {
        return Err(error(format!(
            "the link is damaged: character {} ({c:?}) is not base64url; was the link cut or changed?",
            i + 1
        )));
    }
    URL_SAFE_NO_PAD
        .decode(value)
        .map(Some)
        .map_err(|e| error(format!("the link is damaged: {e}; was the link cut or changed?")))
}

/// The document's text from inflated bytes, or what is wrong with them.
pub fn text(inflated: Vec<u8>) -> Result<String, Diagnostic> {
    String::from_utf8(inflated).map_err(|e| {
        error(format!(
            "the link's document is not UTF-8 text (byte {}); was the link changed?",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Compresses a document's text and frames it as a fragment (`d=…`).
#[cfg(feature = "share")]
pub fn encode(text: &str) -> Result<String, Diagnostic> {
    fragment(&miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9))
}

/// Reads a fragment back to the document's text. `Ok(None)` when it carries none.
#[cfg(feature = "share")]
pub fn decode(fragment: &str) -> Result<Option<String>, Diagnostic> {
    let Some(deflated) = data(fragment)? else { return Ok(None) };
    let inflated = miniz_oxide::inflate::decompress_to_vec_with_limit(&deflated, MAX_TEXT_BYTES).map_err(|e| {
        if e.status == miniz_oxide::inflate::TINFLStatus::HasMoreOutput {
            error(format!("the link's document inflates to more than {} MB; it is not opened", MAX_TEXT_BYTES >> 20))
        } else {
            error(format!("the link is damaged: its data does not inflate ({:?}); was the link cut?", e.status))
        }
    })?;
    text(inflated).map(Some)
}

/// The whole link: `base` (e.g. `https://host/app/doc`) and the fragment.
pub fn link(base: &str, fragment: &str) -> String {
    let base = base.split('#').next().unwrap_or(base);
    format!("{base}#{fragment}")
}
