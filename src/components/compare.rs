//! The Compare view (`/diff`): two documents — a demo, the document last
//! shown, or one pasted or opened — compared in the engine (`pep diff`):
//! messages side by side (the previous version left, the new one right),
//! changed text marked line by line, token counts and their deltas, and the
//! cache break point marked in both conversations.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::app::DEMOS;
use crate::browser;
use crate::components::budget::fmt_int;
use crate::router::href;
use crate::state::Session;
use crate::worker;
use crate::worker::diff::{Comparison, Line, MessageDiff, Reply, SegmentDiff, Status};

/// Where one side's document comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pick {
    Demo(char),
    /// The document last shown in the viewer.
    Current,
    /// Pasted or opened text (and its name).
    Text(String, Arc<str>),
}

impl Pick {
    fn code(&self) -> String {
        match self {
            Pick::Demo(c) => format!("demo-{c}"),
            Pick::Current => "current".into(),
            Pick::Text(..) => "text".into(),
        }
    }
}

/// The comparison's state.
#[derive(Clone, Debug, PartialEq)]
enum Comparing {
    Idle,
    Running,
    Done(Arc<Comparison>),
    /// A side does not read or could not be had: why.
    Failed(String),
}

/// `+12` / `-3` / `±0`.
pub fn delta(before: u64, after: u64) -> String {
    match after.cmp(&before) {
        std::cmp::Ordering::Greater => format!("+{}", fmt_int(after - before)),
        std::cmp::Ordering::Less => format!("−{}", fmt_int(before - after)),
        std::cmp::Ordering::Equal => "±0".into(),
    }
}

/// The row (index into `messages`) that holds the cache break point: the
/// new version's message named by the break, or, when the break has no
/// message (the model changed, or the tools), the first row.
pub fn break_row(c: &Comparison) -> Option<usize> {
    if c.cache.identical {
        return None;
    }
    match c.cache.message {
        Some(m) => c.messages.iter().position(|r| r.after == Some(m)).or(Some(0)),
        None => Some(0),
    }
}

async fn text_of(session: Session, pick: &Pick) -> Result<String, String> {
    match pick {
        Pick::Demo(c) => browser::fetch_text(&href(&format!("/demos/{c}.json")))
            .await
            .map_err(|e| format!("demo {} could not be fetched: {e}", c.to_ascii_uppercase())),
        Pick::Current => session
            .doc
            .get_untracked()
            .map(|d| d.raw_text().to_string())
            .ok_or_else(|| "no document has been shown yet: open one first, or pick a demo".to_string()),
        Pick::Text(_, t) => Ok(t.to_string()),
    }
}

/// `/diff`.
#[component]
pub fn ComparePage() -> impl IntoView {
    let session = Session::expect();
    let before = RwSignal::new(Pick::Demo('a'));
    let after =
        RwSignal::new(if session.doc.with_untracked(Option::is_some) { Pick::Current } else { Pick::Demo('b') });
    let state = RwSignal::new(Comparing::Idle);
    let asked = StoredValue::new(0u64);
    Effect::new(move |_| {
        let (a, b) = (before.get(), after.get());
        let seq = asked.get_value() + 1;
        asked.set_value(seq);
        state.set(Comparing::Running);
        leptos::task::spawn_local(async move {
            let r = async {
                let ta = text_of(session, &a).await.map_err(|e| format!("Before: {e}"))?;
                let tb = text_of(session, &b).await.map_err(|e| format!("After: {e}"))?;
                match worker::diff::diff(ta, tb).await? {
                    Reply::Compared { comparison, .. } => Ok(Arc::new(comparison)),
                    Reply::Failed { side, errors } => Err(format!(
                        "{} does not read: {}",
                        if side == "before" { "Before" } else { "After" },
                        errors.iter().take(5).map(|e| e.to_string()).collect::<Vec<_>>().join("; ")
                    )),
                }
            }
            .await;
            if asked.try_get_value() == Some(seq) {
                state.try_set(match r {
                    Ok(c) => Comparing::Done(c),
                    Err(e) => Comparing::Failed(e),
                });
            }
        });
    });
    view! {
        <main class="compare pad" data-testid="compare">
            <h2>"Compare two versions"</h2>
            <p class="muted">"What changed from the previous version (left) to the new one (right), in the text the model receives, and how much of the previous version's prompt cache the new one can reuse (o200k_base tokens of the OpenAI Chat request)."</p>
            <div class="compare-picks">
                <Picker label="Before" testid="compare-before" pick=before/>
                <Picker label="After" testid="compare-after" pick=after/>
            </div>
            {move || match state.get() {
                Comparing::Idle | Comparing::Running => view! {
                    <p class="muted" data-testid="compare-loading" role="status">
                        <span class="spinner" aria-hidden="true"></span>" Comparing in the engine…"
                    </p>
                }.into_any(),
                Comparing::Failed(e) => view! {
                    <p class="notice error" data-testid="compare-error" role="alert">{e}</p>
                }.into_any(),
                Comparing::Done(c) => view! { <ComparisonView c/> }.into_any(),
            }}
        </main>
    }
}

/// One side's choice: a demo, the current document, or pasted / opened text.
#[component]
fn Picker(label: &'static str, testid: &'static str, pick: RwSignal<Pick>) -> impl IntoView {
    let session = Session::expect();
    let pasting = RwSignal::new(false);
    let pasted = RwSignal::new(String::new());
    let on_select = move |ev: web_sys::Event| {
        let v = event_target_value(&ev);
        if v == "current" {
            pasting.set(false);
            pick.set(Pick::Current);
        } else if v == "paste" {
            pasting.set(true);
        } else if let Some(c) = v.strip_prefix("demo-").and_then(|c| c.chars().next()) {
            pasting.set(false);
            pick.set(Pick::Demo(c));
        }
    };
    let on_file = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            let name = file.name();
            leptos::task::spawn_local(async move {
                if let Ok(bytes) = browser::read_file(&file).await {
                    pasting.try_set(false);
                    pick.try_set(Pick::Text(name, String::from_utf8_lossy(&bytes).into()));
                }
            });
        }
        input.set_value("");
    };
    let selected = move || if pasting.get() { "paste".to_string() } else { pick.with(Pick::code) };
    let current_label = move || {
        session.doc.with(|d| match d {
            Some(d) => format!("The document last shown ({})", d.source.label()),
            None => "The document last shown (none yet)".to_string(),
        })
    };
    view! {
        <div class="compare-pick" data-testid=testid>
            <label>
                <span class="pick-label">{label}</span>
                <select data-testid=format!("{testid}-select") prop:value=selected on:change=on_select>
                    {DEMOS.iter().map(|&(c, story)| {
                        let v = format!("demo-{c}");
                        view! { <option value=v.clone() selected=move || selected() == v>{format!("Demo {} · {story}", c.to_ascii_uppercase())}</option> }
                    }).collect::<Vec<_>>()}
                    <option value="current" selected=move || selected() == "current">{current_label}</option>
                    <option value="text" disabled=true selected=move || selected() == "text">
                        {move || pick.with(|p| match p { Pick::Text(name, _) => format!("Pasted or opened: {name}"), _ => "Pasted or opened (none yet)".into() })}
                    </option>
                    <option value="paste" selected=move || selected() == "paste">"Paste…"</option>
                </select>
            </label>
            <label class="btn small" title="Open a JSON file: an envelope, or an OpenAI or Anthropic request">
                "Open…"
                <input type="file" accept=".json,application/json" class="visually-hidden" data-testid=format!("{testid}-file") on:change=on_file/>
            </label>
            <Show when=move || pasting.get()>
                <div class="compare-paste">
                    <textarea data-testid=format!("{testid}-paste") rows="6" spellcheck="false"
                        placeholder="Paste an envelope or a provider request (JSON)"
                        prop:value=move || pasted.get() on:input=move |ev| pasted.set(event_target_value(&ev))></textarea>
                    <button type="button" class="btn small" data-testid=format!("{testid}-use")
                        on:click=move |_| {
                            pick.set(Pick::Text("pasted".into(), pasted.get_untracked().into()));
                            pasting.set(false);
                        }>"Compare this"</button>
                </div>
            </Show>
        </div>
    }
}

#[component]
fn ComparisonView(c: Arc<Comparison>) -> impl IntoView {
    let total = format!(
        "{} → {} tokens ({})",
        fmt_int(c.tokens_before),
        fmt_int(c.tokens_after),
        delta(c.tokens_before, c.tokens_after)
    );
    let counts = {
        let n = |s: Status| c.messages.iter().filter(|m| m.status == s).count();
        format!(
            "{} changed, {} added, {} removed, {} unchanged messages",
            n(Status::Changed),
            n(Status::Added),
            n(Status::Removed),
            n(Status::Unchanged)
        )
    };
    let at = break_row(&c);
    let sentence = c.sentence.clone();
    let fields: Vec<AnyView> = c.fields.iter().map(|f| field_change(&f.path, &f.before, &f.after)).collect();
    let rows: Vec<AnyView> = c
        .messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let marker = (at == Some(i)).then(|| {
                let where_ = if c.cache.model_changed {
                    "the model changed".to_string()
                } else if c.cache.in_tools {
                    "in the tool declarations".to_string()
                } else {
                    match c.cache.segment {
                        Some(s) => format!("at segment {} of this message", s + 1),
                        None => "in this message".to_string(),
                    }
                };
                let text = format!(
                    "Cache break: the first {} of {} tokens are reusable ({where_})",
                    fmt_int(c.cache.reusable),
                    fmt_int(c.cache.total)
                );
                let (t1, t2, t3) = (text.clone(), text.clone(), text.clone());
                view! {
                    <div class="break-row">
                        <div class="cache-break" data-testid="cache-break-before" title=t1>"✂ "{t2}</div>
                        <div class="cache-break" data-testid="cache-break-after" title=t3>"✂ "{text}</div>
                    </div>
                }
            });
            view! { {marker}<MessageRow m=m.clone() breaks=at == Some(i) break_segment=c.cache.segment/> }.into_any()
        })
        .collect();
    view! {
        <section class="compare-result" data-testid="compare-result">
            <div class="compare-summary">
                <p data-testid="compare-sentence"><strong>{if c.equal { "Equal. ".to_string() } else { String::new() }}</strong>{sentence}</p>
                <p class="muted" data-testid="compare-tokens">{total}" · "{counts}</p>
                {(!fields.is_empty()).then(|| view! { <ul class="compare-fields">{fields}</ul> })}
            </div>
            <div class="compare-heads"><div>"Before"</div><div>"After"</div></div>
            <div class="compare-rows">{rows}</div>
        </section>
    }
}

fn short(v: &Option<serde_json::Value>) -> String {
    match v {
        None => "—".into(),
        Some(v) => {
            let s = v.to_string();
            if s.chars().count() > 80 {
                format!("{}…", s.chars().take(80).collect::<String>())
            } else {
                s
            }
        }
    }
}

fn field_change(path: &str, before: &Option<serde_json::Value>, after: &Option<serde_json::Value>) -> AnyView {
    view! {
        <li class="field-change"><code>{path.to_string()}</code>": "<del>{short(before)}</del>" → "<ins>{short(after)}</ins></li>
    }
    .into_any()
}

#[component]
fn MessageRow(m: MessageDiff, breaks: bool, break_segment: Option<usize>) -> impl IntoView {
    let status = match m.status {
        Status::Unchanged => "unchanged",
        Status::Changed => "changed",
        Status::Added => "added",
        Status::Removed => "removed",
    };
    let head = |index: Option<usize>, id: &str, tokens: Option<u64>, other: Option<u64>| {
        index.map(|i| {
            let d = match (tokens, other) {
                (Some(t), Some(o)) if t != o => format!(" ({})", delta(o, t)),
                _ => String::new(),
            };
            view! {
                <div class="cmp-head">
                    <span class=format!("role role-{}", m.role)>{m.role.clone()}</span>
                    <code class="cmp-id">{id.to_string()}</code>
                    <span class="muted">{format!("#{}", i + 1)}</span>
                    <span class="cmp-tokens tok">{tokens.map(|t| format!("{} tokens", fmt_int(t))).unwrap_or_default()}{d}</span>
                </div>
            }
        })
    };
    let left_id = m.previous_id.clone().unwrap_or_else(|| m.id.clone());
    let left_head = head(m.before, &left_id, m.tokens_before, None);
    let right_head = head(m.after, &m.id, m.tokens_after, m.tokens_before);
    let segs = |side_after: bool| -> Vec<AnyView> {
        m.segments
            .iter()
            .filter(|s| if side_after { s.after.is_some() } else { s.before.is_some() })
            .map(|s| segment_side(s, side_after, breaks && side_after && s.after == break_segment))
            .collect()
    };
    let fields: Vec<AnyView> = m.fields.iter().map(|f| field_change(&f.path, &f.before, &f.after)).collect();
    let (left, right) = (segs(false), segs(true));
    let has_fields = !fields.is_empty();
    view! {
        <div class=format!("cmp-row {status}") data-testid="compare-row" data-status=status
            data-before=m.before.map(|b| b.to_string()) data-after=m.after.map(|a| a.to_string())>
            <div class="cmp-side before" class:empty=m.before.is_none()>
                {left_head}
                {m.before.is_some().then_some(left)}
            </div>
            <div class="cmp-side after" class:empty=m.after.is_none()>
                {right_head}
                {m.after.is_some().then_some(right)}
                {has_fields.then(|| view! { <ul class="compare-fields">{fields}</ul> })}
            </div>
        </div>
    }
}

/// One side of a changed, added or removed segment: its kind and, for
/// changed text, the hunks with this side's lines (deleted lines on the
/// left, inserted ones on the right, marked).
fn segment_side(s: &SegmentDiff, after: bool, at_break: bool) -> AnyView {
    let index = if after { s.after } else { s.before }.unwrap_or(0);
    let status = match s.status {
        Status::Added => "added",
        Status::Removed => "removed",
        Status::Changed => "changed",
        Status::Unchanged => "unchanged",
    };
    let hunks: Vec<AnyView> = s
        .text
        .iter()
        .map(|hunk| {
            let lines: Vec<AnyView> = hunk
                .iter()
                .filter(|l| l.tag == "equal" || (after && l.tag == "insert") || (!after && l.tag == "delete"))
                .map(line_view)
                .collect();
            view! { <pre class="cmp-hunk">{lines}</pre> }.into_any()
        })
        .collect();
    let fields: Vec<AnyView> = s.fields.iter().map(|f| field_change(&f.path, &f.before, &f.after)).collect();
    view! {
        <div class=format!("cmp-seg {status}") class:at-break=at_break data-testid="compare-segment">
            <div class="cmp-seg-head muted">{format!("segment {} · {} · {status}", index + 1, s.kind)}</div>
            {hunks}
            {(!fields.is_empty() && s.text.is_empty()).then(|| view! { <ul class="compare-fields">{fields}</ul> })}
        </div>
    }
    .into_any()
}

fn line_view(l: &Line) -> AnyView {
    let text = if l.text.is_empty() { " ".to_string() } else { l.text.clone() };
    match l.tag.as_str() {
        "insert" => view! { <ins class="cmp-line" data-testid="compare-ins">{text}</ins> }.into_any(),
        "delete" => view! { <del class="cmp-line" data-testid="compare-del">{text}</del> }.into_any(),
        _ => view! { <span class="cmp-line">{text}</span> }.into_any(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worker::diff::CacheBreak;

    fn row(status: Status, before: Option<usize>, after: Option<usize>) -> MessageDiff {
        MessageDiff {
            status,
            before,
            after,
            id: "m".into(),
            previous_id: None,
            role: "user".into(),
            tokens_before: None,
            tokens_after: None,
            segments: vec![],
            fields: vec![],
        }
    }

    #[test]
    fn the_break_row_is_the_new_versions_message() {
        let cache = CacheBreak {
            reusable: 10,
            total: 20,
            previous_total: 20,
            model_changed: false,
            identical: false,
            in_tools: false,
            message: Some(2),
            message_id: None,
            segment: Some(0),
        };
        let mut c = Comparison {
            equal: false,
            fields: vec![],
            messages: vec![
                row(Status::Unchanged, Some(0), Some(0)),
                row(Status::Removed, Some(1), None),
                row(Status::Unchanged, Some(2), Some(1)),
                row(Status::Changed, Some(3), Some(2)),
            ],
            tokens_before: 20,
            tokens_after: 20,
            cache,
            sentence: String::new(),
        };
        assert_eq!(break_row(&c), Some(3));
        c.cache.message = None;
        assert_eq!(break_row(&c), Some(0), "the model or the tools: at the top");
        c.cache.identical = true;
        assert_eq!(break_row(&c), None);
        assert_eq!(delta(5, 7), "+2");
        assert_eq!(delta(1500, 200), "−1,300");
        assert_eq!(delta(3, 3), "±0");
    }
}
