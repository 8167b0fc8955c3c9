//! Secrets on the page (issue 21): API keys, tokens, private keys and
//! passwords in a document's texts are shown masked (the issuer's public
//! prefix and stars, `envelope::secrets::mask`), each with a "show" button
//! that reveals it in place ([`secret_view`]); "Copy link",
//! Copy and Download can redact them first ([`redact_json`]).
//!
//! - **The detector** is the core's (`envelope::secrets`, shared with `pep
//!   lint`'s `secret` check). In a release build for the browser it is a
//!   split point (module `secrets`, [`Detector`]): its matchers are not in
//!   the first load (docs/DECISIONS.md, "Secrets masked on the page"). It is
//!   fetched once the first screen is complete ([`preload`]), at once when the
//!   saved document is restored at start ([`ensure`]), and every other
//!   document (opened, pasted, dropped, a share link, an import) waits for
//!   it before it is shown (`state::Session::open`).
//! - **Until it is here** texts show as written; every view that asked
//!   ([`in_text`], [`in_json_string`] track the detector's arrival) is then
//!   rebuilt masked. Where there is no split (debug builds, tests, native)
//!   it is here from the start.
//! - **Revealed** secrets are kept by value for the page's life
//!   ([`is_revealed`], [`toggle`]): a view that is rebuilt (the conversation's
//!   window unmounts rows freely) shows them as the user left them, in the
//!   conversation and in the JSON views alike.

use std::cell::Cell;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use leptos::prelude::*;

use crate::browser;

/// A secret in a text, as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Byte range in the text (a JSON string token: escapes as written).
    pub range: Range<usize>,
    /// What it is ("OpenAI API key").
    pub kind: &'static str,
    /// The secret (decoded, for a JSON string).
    pub secret: String,
    /// What is shown in its place (a JSON string: as JSON string content).
    pub masked: String,
}

/// The detector's entry points (code of the split module `secrets`).
#[derive(Clone, Copy)]
pub struct Detector {
    /// The secrets in plain text.
    pub text: fn(&str) -> Vec<Found>,
    /// The secrets in a JSON string token (quotes included).
    pub json_string: fn(&str) -> Vec<Found>,
    /// JSON text (or a cURL command) with every secret masked.
    pub redact_json: fn(&str) -> String,
    /// A Markdown text and its variables' values with their secrets masked
    /// (see [`masked_markdown`]).
    pub markdown: fn(&str, &[String]) -> Option<Masked>,
    /// The views of masked secrets.
    pub views: Views,
}

/// A Markdown text, its variables (flat: name, value, …) and their secrets.
pub type Masked = (String, Vec<String>, Vec<Found>);

/// The views of secrets ([`text_view`], [`reveal_all_view`]: code of the detector's module).
#[derive(Clone, Copy)]
pub struct Views {
    /// A part of a text (at `base` in it) with its secrets masked, each with its button.
    pub text: fn(&str, usize, &[Found]) -> Vec<AnyView>,
    /// One button for the secrets of a rendered Markdown text.
    pub reveal_all: fn(Vec<Found>) -> AnyView,
}

fn found_in_text(text: &str) -> Vec<Found> {
    envelope::secrets::find(text)
        .into_iter()
        .map(|s| Found {
            kind: s.kind,
            secret: text[s.range.clone()].to_string(),
            masked: envelope::secrets::mask(&text[s.range.clone()], s.public),
            range: s.range,
        })
        .collect()
}

fn found_in_json_string(token: &str) -> Vec<Found> {
    envelope::secrets::find_in_json_string(token)
        .into_iter()
        .map(|s| Found { range: s.range, kind: s.kind, secret: s.secret, masked: s.masked })
        .collect()
}

fn redact_json_text(text: &str) -> String {
    envelope::secrets::redact_json(text).into_owned()
}

/// A Markdown text and the values of its variables (flat: name, value, …)
/// with every secret not revealed replaced by its mask written with U+2217
/// `∗` for `*` (Markdown would read a run of `*` as emphasis), and their
/// secrets; `None` when they hold none (tracked: what the user reveals).
fn markdown_masked(text: &str, vars: &[String]) -> Option<Masked> {
    let mut found = Vec::new();
    let mut mask = |text: &str| {
        let here = found_in_text(text);
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for f in &here {
            out.push_str(&text[last..f.range.start]);
            if is_revealed(&f.secret) {
                out.push_str(&f.secret);
            } else {
                out.push_str(&f.masked.replace('*', "\u{2217}"));
            }
            last = f.range.end;
        }
        out.push_str(&text[last..]);
        found.extend(here);
        out
    };
    let src = mask(text);
    let vars = vars.iter().enumerate().map(|(i, v)| if i % 2 == 1 { mask(v) } else { v.clone() }).collect();
    (!found.is_empty()).then_some((src, vars, found))
}

#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(secrets, wasm_split_path = ::leptos::wasm_split, fallible)
)]
fn detector() -> Result<Detector, ::leptos::wasm_split::SplitLoaderError> {
    Ok(Detector {
        text: found_in_text,
        json_string: found_in_json_string,
        redact_json: redact_json_text,
        markdown: markdown_masked,
        views: Views { text: text_view, reveal_all: reveal_all_view },
    })
}

thread_local! {
    static DETECTOR: Cell<Option<Detector>> = const { Cell::new(None) };
    /// Whether a fetch once the first screen is complete was asked for ([`preload`]).
    static ASKED: Cell<bool> = const { Cell::new(false) };
    /// Notified when the detector arrives.
    static ARRIVED: ArcTrigger = ArcTrigger::new();
    static REVEALED: ArcRwSignal<HashSet<String>> = ArcRwSignal::new(HashSet::new());
}

/// The detector now, or `None` while it loads (tracked: a view that asked
/// is rebuilt when it arrives). Asks for it ([`preload`]).
fn current() -> Option<Detector> {
    #[cfg(not(pep_split))]
    return detector().ok();
    #[cfg(pep_split)]
    {
        ARRIVED.with(ArcTrigger::track);
        let d = DETECTOR.with(Cell::get);
        if d.is_none() {
            preload();
        }
        d
    }
}

/// Fetches the detector once the first screen is complete, unless it is
/// here or asked for. Cheap to call from every text.
pub fn preload() {
    if ASKED.with(|a| a.replace(true)) {
        return;
    }
    leptos::task::spawn_local(async {
        browser::first_screen_complete().await;
        fetch().await;
    });
}

/// Fetches the module (once it is here, at once) and keeps the detector;
/// after a failure the next text asks again.
async fn fetch() -> Option<Detector> {
    let d = crate::split::split_call!(detector()).ok();
    match d {
        Some(_) => {
            DETECTOR.with(|c| c.set(d));
            ARRIVED.with(ArcTrigger::notify);
        }
        None => ASKED.with(|a| a.set(false)),
    }
    d
}

/// The detector, fetched now if it is not here (a document about to be
/// shown waits for it); `None` if it cannot be fetched (the caller says so:
/// its texts show as written).
pub async fn ensure() -> Option<Detector> {
    match DETECTOR.with(Cell::get) {
        Some(d) => Some(d),
        None => fetch().await,
    }
}

/// What the page says when the detector cannot be fetched.
pub const UNFETCHED: &str = crate::split::unfetched!(
    "Secrets in this document are shown unmasked: the code that masks them could not be loaded",
    "."
);

/// The secrets in `text` (none while the detector loads; tracked).
pub fn in_text(text: &str) -> Vec<Found> {
    current().map_or_else(Vec::new, |d| (d.text)(text))
}

/// The secrets in a JSON string token, quotes included (none while the
/// detector loads; tracked).
pub fn in_json_string(token: &str) -> Vec<Found> {
    current().map_or_else(Vec::new, |d| (d.json_string)(token))
}

/// The views of secrets, once the detector is here (tracked).
pub fn views() -> Option<Views> {
    current().map(|d| d.views)
}

/// `text` (JSON, or a cURL command) with every secret masked: "redact
/// secrets first" on Copy link, Copy and Download.
pub async fn redact_json(text: &str) -> Result<String, String> {
    match ensure().await {
        Some(d) => Ok((d.redact_json)(text)),
        None => Err(crate::split::unfetched!("the secrets detector could not be loaded").into()),
    }
}

/// `text` as it is, or with its secrets masked (`redact`).
pub async fn redacted(text: Arc<str>, redact: bool) -> Result<Arc<str>, String> {
    if !redact {
        return Ok(text);
    }
    redact_json(&text).await.map(Into::into)
}

/// The file name of a redacted download: `demo-d.openai.redacted.json`.
pub fn redacted_name(name: &str) -> String {
    match name.rfind('.') {
        Some(dot) => format!("{}.redacted{}", &name[..dot], &name[dot..]),
        None => format!("{name}.redacted"),
    }
}

/// Whether the user revealed `secret` (tracked).
pub fn is_revealed(secret: &str) -> bool {
    REVEALED.with(|r| r.with(|r| r.contains(secret)))
}

/// Reveals `secret`, or masks it again.
pub fn toggle(secret: &str) {
    REVEALED.with(|r| {
        r.update(|r| {
            if !r.remove(secret) {
                r.insert(secret.to_string());
            }
        })
    });
}

/// Reveals (`on`) or masks again every one of `secrets`.
pub fn set_revealed(secrets: &[Found], on: bool) {
    REVEALED.with(|r| {
        r.update(|r| {
            for f in secrets {
                if on {
                    r.insert(f.secret.clone());
                } else {
                    r.remove(&f.secret);
                }
            }
        })
    });
}

/// A Markdown text and the values of its variables (flat: name, value, …)
/// with every secret not revealed masked (with `∗`, not `*`, which
/// Markdown reads as emphasis), and their secrets; `None` when they hold
/// none or while the detector loads (tracked).
pub fn masked_markdown(text: &str, vars: &[String]) -> Option<Masked> {
    current().and_then(|d| (d.markdown)(text, vars))
}

/// `text` with every secret masked, cut after `max` characters (then `…`):
/// an outline's first words (no button: the message itself has them).
pub fn masked_head(text: &str, max: usize) -> String {
    let found = in_text(text);
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for f in &found {
        out.push_str(&text[last..f.range.start]);
        out.push_str(&f.masked);
        last = f.range.end;
    }
    out.push_str(&text[last..]);
    if let Some((i, _)) = out.char_indices().nth(max) {
        out.truncate(i);
        out.push('…');
    }
    out
}

/// The cut point of a text shown cut at `at` bytes, moved to the end of a
/// secret the cut would split (shown masked whole, never in part).
pub fn cut_point(found: &[Found], at: usize) -> usize {
    found.iter().find(|f| f.range.start < at && at < f.range.end).map_or(at, |f| f.range.end)
}

// ---- The views of masked secrets: code of the detector's split module
// (only `detector` refers to them, through `Views`), so that a page without
// a secret never runs them and they are not in the first load.

/// Text as a text node, absurd runs of combining marks collapsed.
fn plain_text(text: &str) -> AnyView {
    envelope::display::shown(text).into_owned().into_any()
}

/// `part` of a text whose secrets are `found` (ranges in that text; `base`:
/// where `part` starts in it): text nodes, each secret that starts in it as
/// [`secret_view`] (the rest of one that starts before it is left out).
fn text_view(part: &str, base: usize, found: &[Found]) -> Vec<AnyView> {
    let end = base + part.len();
    let mut out = Vec::new();
    let mut at = base;
    for f in found.iter().filter(|f| f.range.end > base && f.range.start < end) {
        if f.range.start > at {
            out.push(plain_text(&part[at - base..f.range.start - base]));
        }
        if f.range.start >= base {
            out.push(secret_view(f.clone()));
        }
        at = at.max(f.range.end.min(end));
    }
    if at < end || out.is_empty() {
        out.push(plain_text(&part[at - base..]));
    }
    out
}

/// A secret, masked (the issuer's prefix and stars), with a button that
/// shows it in place and masks it again. A click does not reach the row
/// around it (a JSON line selects its message).
fn secret_view(f: Found) -> AnyView {
    let Found { kind, secret, masked, .. } = f;
    let secret = StoredValue::new(secret);
    let open = move || secret.with_value(|s| is_revealed(s));
    view! {
        <span class="secret" data-testid="secret" class:open=open>
            <span class="secret-text">
                {move || if open() { secret.with_value(|s| envelope::display::shown(s).into_owned()) } else { masked.clone() }}
            </span>
            <button type="button" class="secret-btn" data-testid="secret-toggle"
                on:click=move |ev| {
                    ev.stop_propagation();
                    secret.with_value(|s| toggle(s));
                }
                aria-label=move || format!("{} this {kind}", if open() { "Hide" } else { "Show" })>
                {move || if open() { "hide" } else { "show" }}
            </button>
        </span>
    }
    .into_any()
}

/// One button for all the secrets of a rendered Markdown text (masked
/// before rendering: per-secret buttons would have to go into its HTML).
fn reveal_all_view(found: Vec<Found>) -> AnyView {
    let n = found.len();
    let found = StoredValue::new(found);
    let open = move || found.with_value(|f| f.iter().all(|f| is_revealed(&f.secret)));
    let label = move || {
        // The visible words first (WCAG 2.5.3, label in name).
        if open() {
            "Hide secrets: mask this text's secrets again".to_string()
        } else {
            format!("Show secrets: the {} in this text", crate::format::count(n, "masked secret"))
        }
    };
    view! {
        <p class="secret-all">
            <button type="button" class="secret-btn" data-testid="secrets-toggle" aria-label=label
                on:click=move |_| found.with_value(|f| set_revealed(f, !open()))>
                {move || if open() { "hide secrets" } else { "show secrets" }}
            </button>
        </p>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(prefix: &str, n: usize) -> String {
        format!("{prefix}{}", &"Ab1_Cd2-Ef".repeat(n / 10 + 1)[..n])
    }

    #[test]
    fn found_masked_and_revealed_by_value() {
        let k = key("sk-proj-", 100);
        let text = format!("key: {k} and again {k}");
        let found = in_text(&text);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].kind, found[0].secret.as_str()), ("OpenAI API key", k.as_str()));
        assert!(found[0].masked.starts_with("sk-proj-****") && !found[0].masked.contains(&k[8..30]));
        let (md, vars, _) = masked_markdown(&text, &["k".into(), k.clone()]).unwrap();
        assert!(!vars[1].contains(&k) && vars[0] == "k");
        assert!(!md.contains(&k) && md.contains("sk-proj-\u{2217}\u{2217}\u{2217}\u{2217}"), "{md}");
        assert_eq!(cut_point(&found, 10), found[0].range.end, "a cut inside a secret moves past it");
        assert_eq!(cut_point(&found, 3), 3);
        let head = masked_head(&text, 20);
        assert_eq!(head, format!("key: {}…", &found[0].masked[..15]));
        toggle(&k);
        assert!(is_revealed(&k));
        assert_eq!(masked_markdown(&text, &[]).unwrap().0, text, "revealed: as written");
        assert!(masked_markdown("no secret", &[]).is_none());
        set_revealed(&found, false);
        assert!(!is_revealed(&k));
        assert_eq!(redacted_name("demo-d.openai.json"), "demo-d.openai.redacted.json");
        assert_eq!(redacted_name("x"), "x.redacted");
        let token = format!("\"a\\n{k}\"");
        let j = in_json_string(&token);
        assert_eq!((j.len(), &token[j[0].range.clone()]), (1, k.as_str()));
    }

    #[test]
    fn the_demos_hold_no_secret() {
        // They are shown at first paint, before the detector is here.
        for d in ['a', 'b', 'c', 'd', 'e', 'f'] {
            let path = format!("{}/demos/{d}.json", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(envelope::secrets::redact_json(&text), text, "demo {d}");
        }
    }
}
