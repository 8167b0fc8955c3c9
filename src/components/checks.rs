//! The Checks tab: `pep lint`'s findings for the document on screen, run in
//! the engine (the checks and the tokenizer are not in the page's module),
//! grouped by severity with their rule codes. A finding with a place in the
//! conversation is a button: it brings that segment (or message) into view,
//! opens it and highlights it ([`Navigator`]). The settings a team keeps in
//! `pep.toml` that matter for one person reviewing a prompt (sensitive
//! words, the token budget, a segment's share, required variables, the
//! shortest duplicate) are edited here and kept in preferences.
//!
//! The engine is not loaded for this: the checks run when the tab is shown,
//! or for each document once the engine is running anyway (the badge then
//! counts without a visit to the tab).

use std::sync::Arc;

use envelope::calls::At;
use envelope::Severity;
use leptos::prelude::*;

use crate::components::dom::{el, Static, E};
use crate::doc::Doc;
use crate::format::count;
use crate::nav::Navigator;
use crate::state::{Prefs, Tab};
use crate::worker;
use crate::worker::lint::{settings_from_saved, settings_to_saved, Finding, Reply, Settings};
use envelope::display::thousands as fmt_int;

/// The checks' state for the document on screen.
#[derive(Clone, Debug, PartialEq)]
pub enum Linting {
    /// Not run for this document yet.
    Idle,
    Running,
    Done(Arc<Linted>),
    /// The settings are refused: why.
    BadSettings(String),
    /// The engine could not run them.
    Failed(String),
}

/// The findings of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Linted {
    pub findings: Vec<Finding>,
    /// The time the checks took in the engine.
    pub ms: f64,
    pub tokens: Option<u64>,
}

/// The Checks context of a viewer: the tab bar's badge and the tab read it.
#[derive(Clone, Copy)]
pub struct Checks {
    pub state: RwSignal<Linting>,
    retry: RwSignal<u32>,
}

impl Checks {
    /// Runs the checks for `doc` with the preferences' settings whenever
    /// either changes, while the Checks tab shows or the engine is running.
    pub fn new(doc: Signal<Option<Arc<Doc>>>) -> Checks {
        let prefs = Prefs::expect();
        let checks = Checks { state: RwSignal::new(Linting::Idle), retry: RwSignal::new(0) };
        let asked = StoredValue::new(0u64);
        // The document (by address) and settings of the current result or
        // run: showing the tab again does not run the checks again.
        let done_for = StoredValue::new(None::<(std::sync::Weak<Doc>, serde_json::Value)>);
        Effect::new(move |retried: Option<u32>| {
            let retry = checks.retry.get();
            let settings = prefs.checks.get();
            let shown = prefs.tab.get() == Tab::Checks;
            let Some(d) = doc.get() else {
                done_for.set_value(None);
                checks.state.set(Linting::Idle);
                return retry;
            };
            let same = done_for.with_value(|k| {
                k.as_ref().is_some_and(|(w, s)| w.upgrade().is_some_and(|w| Arc::ptr_eq(&w, &d)) && *s == settings)
            });
            if retried == Some(retry) && same {
                return retry;
            }
            let seq = asked.get_value() + 1;
            asked.set_value(seq);
            if !shown && !worker::is_started() {
                done_for.set_value(None);
                checks.state.set(Linting::Idle);
                return retry;
            }
            done_for.set_value(Some((Arc::downgrade(&d), settings.clone())));
            checks.state.set(Linting::Running);
            let run = Run { checks, asked, seq, done_for, doc: d, settings };
            leptos::task::spawn_local(async move {
                let made = crate::split::split_call!(lint(run));
                match made {
                    Ok(linting) => linting.await,
                    Err(_) if asked.try_get_value() == Some(seq) => {
                        done_for.try_set_value(None);
                        checks.state.try_set(Linting::Failed(
                            crate::split::unfetched!("the Checks tab's code could not be fetched").into(),
                        ));
                    }
                    Err(_) => {}
                }
            });
            retry
        });
        provide_context(checks);
        checks
    }

    pub fn expect() -> Checks {
        expect_context::<Checks>()
    }

    /// The number of findings, once known (the tab's badge).
    pub fn count(&self) -> Option<usize> {
        self.state.with(|s| match s {
            Linting::Done(l) => Some(l.findings.len()),
            _ => None,
        })
    }
}

/// One run of the checks, for [`lint`].
struct Run {
    checks: Checks,
    /// The run wanted now; `seq` is this one.
    asked: StoredValue<u64>,
    seq: u64,
    done_for: StoredValue<Option<(std::sync::Weak<Doc>, serde_json::Value)>>,
    doc: Arc<Doc>,
    /// As saved (read here, in the Checks tab's module).
    settings: serde_json::Value,
}

impl Run {
    /// Runs the checks in the engine; the result is kept if the run is still wanted.
    async fn go(self) {
        let Run { checks, asked, seq, done_for, doc, settings } = self;
        let r = match settings_from_saved(&settings) {
            Ok(settings) => worker::lint::lint_timed(doc.raw_text().to_string(), settings).await,
            Err(error) => Ok((Reply::BadSettings { error }, 0.0)),
        };
        if asked.try_get_value() != Some(seq) {
            return;
        }
        checks.state.try_set(match r {
            Ok((Reply::Linted { findings, tokens }, ms)) => Linting::Done(Arc::new(Linted { findings, ms, tokens })),
            Ok((Reply::BadSettings { error }, _)) => Linting::BadSettings(error),
            Err(e) => {
                done_for.try_set_value(None);
                Linting::Failed(e)
            }
        });
    }
}

/// Running the checks (the engine's call, reading its findings) is code of
/// the Checks tab's module: in a release build for the browser a split
/// point, fetched with the tab (or with the first run after the engine
/// started for another reason).
#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(checks, wasm_split_path = ::leptos::wasm_split, fallible)
)]
#[allow(clippy::type_complexity)]
fn lint(
    run: Run,
) -> Result<std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>, ::leptos::wasm_split::SplitLoaderError> {
    Ok(Box::pin(run.go()))
}

/// The badge of the tab: the findings' count, coloured by the worst.
#[component]
pub fn ChecksBadge() -> impl IntoView {
    let checks = Checks::expect();
    move || {
        checks.state.with(|s| match s {
            Linting::Done(l) => {
                let (e, w, i) = Reply::counts(&l.findings);
                let class = if e > 0 {
                    "count-badge bad"
                } else if w > 0 {
                    "count-badge warn"
                } else {
                    "count-badge"
                };
                let title = format!("{}, {}, {}", count(e, "error"), count(w, "warning"), count(i, "note"));
                Some(view! { <span class=class data-testid="checks-count" title=title>{l.findings.len()}</span> })
            }
            _ => None,
        })
    }
}

/// Splits a list typed as "a, b; c" or one per line.
pub fn split_list(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in s.split([',', ';', '\n']).map(str::trim).filter(|w| !w.is_empty()) {
        if !out.iter().any(|x| x == w) {
            out.push(w.to_string());
        }
    }
    out
}

/// An optional positive integer typed by the user: empty is none; anything
/// else that is not one is refused with a message.
pub fn parse_limit(s: &str) -> Result<Option<u64>, String> {
    let t = s.trim().replace([',', '_', ' '], "");
    if t.is_empty() {
        return Ok(None);
    }
    match t.parse::<u64>() {
        Ok(0) | Err(_) => Err(format!("“{}” is not a positive whole number", s.trim())),
        Ok(n) => Ok(Some(n)),
    }
}

/// A share typed in percent (`50` → 0.5): above 0, at most 100; empty is the default.
pub fn parse_percent(s: &str) -> Result<Option<f64>, String> {
    let t = s.trim().trim_end_matches('%').trim();
    if t.is_empty() {
        return Ok(None);
    }
    match t.parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(Some(p / 100.0)),
        _ => Err(format!("“{}” is not a percentage above 0 and at most 100", s.trim())),
    }
}

fn severity_label(s: Severity) -> (&'static str, &'static str) {
    match s {
        Severity::Error => ("Errors", "error"),
        Severity::Warning => ("Warnings", "warning"),
        Severity::Info => ("Notes", "info"),
    }
}

/// Where a finding is, for people: "message 3 (`id`) · segment 2 · line 35:99".
pub fn place(f: &Finding) -> String {
    let l = &f.location;
    let mut parts = Vec::new();
    match (l.message, &l.message_id) {
        (Some(m), Some(id)) => parts.push(format!("message {} ({id})", m + 1)),
        (Some(m), None) => parts.push(format!("message {}", m + 1)),
        _ => parts.push("document".to_string()),
    }
    if let Some(s) = l.segment {
        parts.push(format!("segment {}", s + 1));
    }
    if let Some(field) = &l.field {
        parts.push(field.clone());
    }
    parts.join(" · ")
}

/// The Checks tab.
#[component]
pub fn ChecksPanel() -> impl IntoView {
    let checks = Checks::expect();
    view! {
        <div class="checks" data-testid="checks">
            <ChecksSettings/>
            {move || match checks.state.get() {
                Linting::Idle | Linting::Running => view! {
                    <p class="muted pad" data-testid="checks-loading" role="status">
                        <span class="spinner" aria-hidden="true"></span>
                        " Running the checks in the engine (a Web Worker, loaded once)…"
                    </p>
                }.into_any(),
                Linting::BadSettings(e) => view! {
                    <p class="notice error pad" data-testid="checks-settings-error" role="alert">{format!("The settings are refused: {e}")}</p>
                }.into_any(),
                Linting::Failed(e) => view! {
                    <div class="notice error pad" data-testid="checks-failed" role="alert">
                        <p>{format!("The checks could not run: {e}")}</p>
                        <button type="button" class="btn small" data-testid="checks-retry"
                            on:click=move |_| checks.retry.update(|n| *n += 1)>"Try again"</button>
                    </div>
                }.into_any(),
                Linting::Done(l) => view! { <Findings linted=l/> }.into_any(),
            }}
        </div>
    }
}

#[component]
fn Findings(linted: Arc<Linted>) -> impl IntoView {
    let nav = Navigator::expect_or_new();
    // One listener for every finding (they are static elements).
    let on_click = move |ev: web_sys::MouseEvent| {
        use wasm_bindgen::JsCast;
        let Some(item) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|t| t.closest("[data-testid=check-item]").ok().flatten())
        else {
            return;
        };
        let num = |k: &str| item.get_attribute(k).and_then(|v| v.parse::<usize>().ok());
        match (num("data-message"), num("data-segment")) {
            (Some(message), Some(segment)) => nav.reveal(At { message, segment }, true),
            (Some(message), None) => nav.reveal_message(message),
            _ => {}
        }
    };
    let content: Box<dyn FnOnce() -> Vec<E>> = Box::new(move || findings(&linted));
    view! { <div on:click=on_click><Static class="checks-findings" content/></div> }
}

/// The findings as static elements: the summary, then one group per severity.
fn findings(linted: &Linted) -> Vec<E> {
    let (e, w, i) = Reply::counts(&linted.findings);
    let summary = if linted.findings.is_empty() {
        "No findings: every check passed.".to_string()
    } else {
        format!("{}, {}, {}.", count(e, "error"), count(w, "warning"), count(i, "note"))
    };
    let timing = format!(
        "Checked in {} ms{}",
        envelope::display::decimal(linted.ms, 0),
        linted.tokens.map(|t| format!(" · {} tokens (o200k_base)", fmt_int(t))).unwrap_or_default()
    );
    let mut out = vec![el("div")
        .class("checks-summary pad")
        .child(el("p").attr("data-testid", "checks-summary").text(&summary))
        .child(el("p").class("muted small").attr("data-testid", "checks-time").text(&timing))];
    for sev in [Severity::Error, Severity::Warning, Severity::Info] {
        let items: Vec<&Finding> = linted.findings.iter().filter(|f| f.diagnostic.severity == sev).collect();
        if items.is_empty() {
            continue;
        }
        let (title, class) = severity_label(sev);
        let rows = items.iter().map(|f| {
            let target = f.location.message.is_some();
            let line = f.location.line.map(|l| format!(" · line {l}:{}", f.location.column.unwrap_or(1)));
            let mut button = el("button")
                .class("check-item")
                .attr("type", "button")
                .attr("data-testid", "check-item")
                .attr("data-code", f.diagnostic.code())
                .attr_opt("data-message", f.location.message.map(|m| m.to_string()))
                .attr_opt("data-segment", f.location.segment.map(|s| s.to_string()))
                .attr("title", if target { "Show it in the conversation" } else { "About the whole document" })
                .leaf("code", "rule-code", f.diagnostic.code())
                .leaf("span", "check-msg", &f.diagnostic.message)
                .leaf("span", "check-where muted", &format!("{}{}", place(f), line.unwrap_or_default()));
            if !target {
                button = button.attr("disabled", "");
            }
            let mut li = el("li").class(&format!("check {class}")).child(button);
            if let Some(h) = &f.diagnostic.hint {
                li = li.leaf("p", "check-hint muted", h);
            }
            li
        });
        let n = items.len();
        out.push(
            el("section")
                .class(&format!("check-group {class}"))
                .attr("data-testid", &format!("checks-{class}"))
                .child(el("h3").text(title).text(" ").leaf("span", "muted", &format!("({n})")))
                .child(el("ul").class("check-list").children(rows)),
        );
    }
    out
}

/// A change to the settings, or why the typed value is refused.
type Edit = Box<dyn FnOnce(&mut Settings) -> Result<(), String>>;

/// The settings, edited in place and kept in preferences.
#[component]
fn ChecksSettings() -> impl IntoView {
    let prefs = Prefs::expect();
    // Read from preferences' saved JSON (unreadable settings show as the
    // defaults, the run says why, until an edit or Reset) and written back
    // there; every write refreshes the fields, as Reset needs.
    let settings = Signal::derive(move || settings_from_saved(&prefs.checks.get()).unwrap_or_default());
    let keep = move |s: Settings| prefs.checks.set(settings_to_saved(&s));
    let problem = RwSignal::new(None::<String>);
    let apply = move |f: Edit| {
        let mut s = settings.get_untracked();
        match f(&mut s) {
            Ok(()) => {
                problem.set(None);
                if s != settings.get_untracked() {
                    keep(s);
                }
            }
            Err(e) => problem.set(Some(e)),
        }
    };
    let words = move |ev: web_sys::Event| {
        let v = split_list(&event_target_value(&ev));
        apply(Box::new(move |s| {
            s.sensitive_words = v;
            Ok(())
        }))
    };
    let required = move |ev: web_sys::Event| {
        let v = split_list(&event_target_value(&ev));
        apply(Box::new(move |s| {
            s.required_variables = v;
            Ok(())
        }))
    };
    let max = move |ev: web_sys::Event| {
        let v = parse_limit(&event_target_value(&ev));
        apply(Box::new(move |s| {
            s.max_tokens = v.map_err(|e| format!("Token budget: {e}"))?;
            Ok(())
        }))
    };
    let share = move |ev: web_sys::Event| {
        let v = parse_percent(&event_target_value(&ev));
        apply(Box::new(move |s| {
            s.segment_share = v.map_err(|e| format!("Segment share: {e}"))?;
            Ok(())
        }))
    };
    let dup = move |ev: web_sys::Event| {
        let v = parse_limit(&event_target_value(&ev));
        apply(Box::new(move |s| {
            s.duplicate_min_tokens = v.map_err(|e| format!("Duplicate text: {e}"))?;
            Ok(())
        }))
    };
    let versions = move |ev: web_sys::Event| {
        let on = event_target_checked(&ev);
        apply(Box::new(move |s| {
            // Unchecked is left out of the saved settings, as before the setting existed.
            s.require_prompt_version = on.then_some(true);
            Ok(())
        }))
    };
    let reset = move |_| {
        problem.set(None);
        keep(Settings::default());
    };
    let joined = move |f: fn(&Settings) -> &Vec<String>| settings.with(|s| f(s).join(", "));
    let opt = move |f: fn(&Settings) -> Option<u64>| settings.with(|s| f(s).map(|n| n.to_string()).unwrap_or_default());
    view! {
        <details class="checks-settings pad" data-testid="checks-settings">
            <summary>"Settings "<span class="muted small">"(as in pep.toml; kept in this browser)"</span></summary>
            <div class="checks-form">
                <label>
                    <span>"Sensitive words"</span>
                    <input type="text" data-testid="checks-sensitive-words" placeholder="internal, codename"
                        prop:value=move || joined(|s| &s.sensitive_words) on:change=words/>
                    <small class="muted">"Comma-separated; whole words, any case."</small>
                </label>
                <label>
                    <span>"Token budget"</span>
                    <input type="text" inputmode="numeric" data-testid="checks-max-tokens" placeholder="none"
                        prop:value=move || opt(|s| s.max_tokens) on:change=max/>
                    <small class="muted">"The whole OpenAI Chat request, o200k_base."</small>
                </label>
                <label>
                    <span>"One segment's share (%)"</span>
                    <input type="text" inputmode="decimal" data-testid="checks-segment-share"
                        placeholder="50"
                        prop:value=move || settings.with(|s| s.segment_share.map(|x| format!("{}", x * 100.0)).unwrap_or_default())
                        on:change=share/>
                    <small class="muted">"Of the budget, for any single segment."</small>
                </label>
                <label>
                    <span>"Required variables"</span>
                    <input type="text" data-testid="checks-required-variables" placeholder="none"
                        prop:value=move || joined(|s| &s.required_variables) on:change=required/>
                </label>
                <label>
                    <span>"Duplicate text from (tokens)"</span>
                    <input type="text" inputmode="numeric" data-testid="checks-duplicate-min" placeholder="100"
                        prop:value=move || opt(|s| s.duplicate_min_tokens) on:change=dup/>
                </label>
                <label>
                    <span>"Require a prompt version"</span>
                    <input type="checkbox" data-testid="checks-require-prompt-version"
                        prop:checked=move || settings.with(|s| s.require_prompt_version == Some(true))
                        on:change=versions/>
                    <small class="muted">"Every document needs \"prompt\": {\"version\": …} (prompt-version)."</small>
                </label>
                <button type="button" class="btn small" data-testid="checks-reset" on:click=reset>"Reset"</button>
            </div>
            {move || problem.get().map(|p| view! { <p class="notice error" role="alert" data-testid="checks-input-error">{p}</p> })}
        </details>
    }
}

// The Checks tab is a split view: its code comes with its first use.
crate::split::split_view!(CHECKS, "Checks tab", checks, || view! { <ChecksPanel/> });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_limits_and_percentages_read_as_typed() {
        assert_eq!(split_list(" secret, Internal ;secret\nx "), ["secret", "Internal", "x"]);
        assert!(split_list(" , ;").is_empty());
        assert_eq!(parse_limit(" 8,000 "), Ok(Some(8000)));
        assert_eq!(parse_limit(""), Ok(None));
        assert!(parse_limit("0").is_err() && parse_limit("-3").is_err() && parse_limit("1.5").is_err());
        assert_eq!(parse_percent("25%"), Ok(Some(0.25)));
        assert_eq!(parse_percent(" "), Ok(None));
        assert!(parse_percent("0").is_err() && parse_percent("101").is_err() && parse_percent("x").is_err());
    }
}
