//! Secrets as the page shows them: masked, each with a "show" button that
//! reveals it in place (`crate::secrets`). Code of the detector's split
//! module: only `secrets::detector` refers to these functions (through
//! `secrets::Views`), so that a page without a secret never runs them and
//! their views are not in the first load.

use leptos::prelude::*;

use crate::components::rich::plain;
use crate::secrets::{self, Found};

/// `part` of a text whose secrets are `found` (ranges in that text; `base`:
/// where `part` starts in it): text nodes, each secret that starts in it as
/// [`secret_view`] (the rest of one that starts before it is left out).
pub fn text(part: &str, base: usize, found: &[Found]) -> Vec<AnyView> {
    let end = base + part.len();
    let mut out = Vec::new();
    let mut at = base;
    for f in found.iter().filter(|f| f.range.end > base && f.range.start < end) {
        if f.range.start > at {
            out.push(plain(&part[at - base..f.range.start - base]));
        }
        if f.range.start >= base {
            out.push(secret_view(f.clone()));
        }
        at = at.max(f.range.end.min(end));
    }
    if at < end || out.is_empty() {
        out.push(plain(&part[at - base..]));
    }
    out
}

/// A secret, masked (the issuer's prefix and stars), with a button that
/// shows it in place and masks it again. A click does not reach the row
/// around it (a JSON line selects its message).
fn secret_view(f: Found) -> AnyView {
    let Found { kind, secret, masked, .. } = f;
    let secret = StoredValue::new(secret);
    let open = move || secret.with_value(|s| secrets::is_revealed(s));
    view! {
        <span class="secret" data-testid="secret" class:open=open>
            <span class="secret-text">
                {move || if open() { secret.with_value(|s| envelope::display::shown(s).into_owned()) } else { masked.clone() }}
            </span>
            <button type="button" class="secret-btn" data-testid="secret-toggle"
                on:click=move |ev| {
                    ev.stop_propagation();
                    secret.with_value(|s| secrets::toggle(s));
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
pub fn reveal_all(found: Vec<Found>) -> AnyView {
    let n = found.len();
    let found = StoredValue::new(found);
    let open = move || found.with_value(|f| f.iter().all(|f| secrets::is_revealed(&f.secret)));
    let label = move || {
        // The visible words first (WCAG 2.5.3, label in name).
        if open() {
            "Hide secrets: mask this text's secrets again".to_string()
        } else {
            format!("Show secrets: the {} in this text", crate::components::count(n, "masked secret"))
        }
    };
    view! {
        <p class="secret-all">
            <button type="button" class="secret-btn" data-testid="secrets-toggle" aria-label=label
                on:click=move |_| found.with_value(|f| secrets::set_revealed(f, !open()))>
                {move || if open() { "hide secrets" } else { "show secrets" }}
            </button>
        </p>
    }
    .into_any()
}
