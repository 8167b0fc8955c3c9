//! The Compare view (`/diff`): two documents — a demo, the document last
//! shown, or one pasted or opened — compared in the engine (`pep diff`):
//! messages side by side (the previous version left, the new one right),
//! changed text marked line by line, token counts and their deltas, and the
//! cache break point marked in both conversations.

use std::sync::Arc;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::components::dom::{el, Static, E};
use crate::demos::DEMOS;
use crate::router::href;
use crate::state::Session;
use crate::worker;
use crate::worker::diff::{Comparison, FieldChange, Line, LineTag, MessageDiff, Reply, SegmentDiff, Side, Status};
use envelope::display::thousands as fmt_int;

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

thread_local! {
    /// The two documents the next `/diff` page starts on, when another view
    /// chose them (a recorded call and the one before it).
    static SEED: std::cell::RefCell<Option<(Pick, Pick)>> = const { std::cell::RefCell::new(None) };
}

/// Makes the next `/diff` page start on `before` and `after` (then the
/// pickers work as usual).
pub fn seed(before: Pick, after: Pick) {
    SEED.with(|s| *s.borrow_mut() = Some((before, after)));
}

/// `/diff`.
#[component]
pub fn ComparePage() -> impl IntoView {
    let session = Session::expect();
    let seeded = SEED.with(|s| s.borrow_mut().take());
    let (first, second) = seeded.unwrap_or_else(|| {
        (Pick::Demo('a'), if session.doc.with_untracked(Option::is_some) { Pick::Current } else { Pick::Demo('b') })
    });
    let before = RwSignal::new(first);
    let after = RwSignal::new(second);
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
                        if side == Side::Before { "Before" } else { "After" },
                        errors.iter().take(5).map(ToString::to_string).collect::<Vec<_>>().join("; ")
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
    let summary = c.clone();
    let content: Box<dyn FnOnce() -> Vec<E>> = Box::new(move || comparison(&summary));
    view! {
        <Static class="compare-result" testid="compare-result" content/>
    }
}

/// The comparison as static elements: the summary, the headings, one row
/// per message (the cache break's marker row before its message).
fn comparison(c: &Comparison) -> Vec<E> {
    let total = format!(
        "{} → {} tokens ({})",
        fmt_int(c.tokens_before),
        fmt_int(c.tokens_after),
        delta(c.tokens_before, c.tokens_after)
    );
    let n = |s: Status| c.messages.iter().filter(|m| m.status == s).count();
    let counts = format!(
        "{} changed, {} added, {} removed, {} unchanged messages",
        n(Status::Changed),
        n(Status::Added),
        n(Status::Removed),
        n(Status::Unchanged)
    );
    let at = break_row(c);
    let mut summary = el("div")
        .class("compare-summary")
        .child(
            el("p")
                .attr("data-testid", "compare-sentence")
                .child(el("strong").text(if c.equal { "Equal. " } else { "" }))
                .text(&c.cache.sentence()),
        )
        .child(el("p").class("muted").attr("data-testid", "compare-tokens").text(&format!("{total} · {counts}")));
    // Findings about the change (`version-not-bumped`), before the fields.
    for f in &c.findings {
        let mut line = el("p")
            .class("compare-finding")
            .attr("data-testid", "compare-finding")
            .attr("data-code", f.rule.code())
            .child(el("strong").text(&format!("{}: ", f.rule.code())))
            .text(&f.message);
        if let Some(hint) = &f.hint {
            line = line.text(&format!(" — {hint}"));
        }
        summary = summary.child(line);
    }
    if !c.fields.is_empty() {
        summary = summary.child(fields(&c.fields));
    }
    let heads = el("div").class("compare-heads").leaf("div", "", "Before").leaf("div", "", "After");
    let mut rows = el("div").class("compare-rows");
    for (i, m) in c.messages.iter().enumerate() {
        if at == Some(i) {
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
                "✂ Cache break: the first {} of {} tokens are reusable ({where_})",
                fmt_int(c.cache.reusable),
                fmt_int(c.cache.total)
            );
            let marker =
                |id: &str| el("div").class("cache-break").attr("data-testid", id).attr("title", &text).text(&text);
            rows = rows.child(
                el("div").class("break-row").child(marker("cache-break-before")).child(marker("cache-break-after")),
            );
        }
        rows = rows.child(message_row(m, at == Some(i), c.cache.segment));
    }
    vec![summary, heads, rows]
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

fn fields(changes: &[FieldChange]) -> E {
    el("ul").class("compare-fields").children(changes.iter().map(|f| {
        el("li")
            .class("field-change")
            .leaf("code", "", &f.path)
            .text(": ")
            .leaf("del", "", &short(&f.before))
            .text(" → ")
            .leaf("ins", "", &short(&f.after))
    }))
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Unchanged => "unchanged",
        Status::Changed => "changed",
        Status::Added => "added",
        Status::Removed => "removed",
    }
}

fn message_row(m: &MessageDiff, breaks: bool, break_segment: Option<usize>) -> E {
    let status = status_name(m.status);
    let head = |index: usize, id: &str, tokens: Option<u64>, other: Option<u64>| {
        let d = match (tokens, other) {
            (Some(t), Some(o)) if t != o => format!(" ({})", delta(o, t)),
            _ => String::new(),
        };
        el("div")
            .class("cmp-head")
            .leaf("span", &format!("role role-{}", m.role.as_str()), m.role.as_str())
            .leaf("code", "cmp-id", id)
            .leaf("span", "muted", &format!("#{}", index + 1))
            .leaf(
                "span",
                "cmp-tokens tok",
                &format!("{}{d}", tokens.map(|t| format!("{} tokens", fmt_int(t))).unwrap_or_default()),
            )
    };
    let side = |after: bool| {
        let index = if after { m.after } else { m.before };
        let mut e = el("div").class(&format!(
            "cmp-side {}{}",
            if after { "after" } else { "before" },
            if index.is_none() { " empty" } else { "" }
        ));
        if let Some(i) = index {
            let id = if after { m.id.clone() } else { m.previous_id.clone().unwrap_or_else(|| m.id.clone()) };
            let (tokens, other) = if after { (m.tokens_after, m.tokens_before) } else { (m.tokens_before, None) };
            e = e.child(head(i, &id, tokens, other));
            for s in m.segments.iter().filter(|s| if after { s.after.is_some() } else { s.before.is_some() }) {
                e = e.child(segment_side(s, after, breaks && after && s.after == break_segment));
            }
            if after && !m.fields.is_empty() {
                e = e.child(fields(&m.fields));
            }
        }
        e
    };
    el("div")
        .class(&format!("cmp-row {status}"))
        .attr("data-testid", "compare-row")
        .attr("data-status", status)
        .attr_opt("data-before", m.before.map(|b| b.to_string()))
        .attr_opt("data-after", m.after.map(|a| a.to_string()))
        .child(side(false))
        .child(side(true))
}

/// One side of a changed, added or removed segment: its kind and, for
/// changed text, the hunks with this side's lines (deleted lines on the
/// left, inserted ones on the right, marked).
fn segment_side(s: &SegmentDiff, after: bool, at_break: bool) -> E {
    let index = if after { s.after } else { s.before }.unwrap_or(0);
    let status = status_name(s.status);
    let mut e = el("div")
        .class(&format!("cmp-seg {status}{}", if at_break { " at-break" } else { "" }))
        .attr("data-testid", "compare-segment")
        .leaf("div", "cmp-seg-head muted", &format!("segment {} · {} · {status}", index + 1, s.kind));
    for hunk in &s.text {
        let lines = hunk
            .iter()
            .filter(|l| match l.tag {
                LineTag::Equal => true,
                LineTag::Insert => after,
                LineTag::Delete => !after,
            })
            .map(line_view);
        e = e.child(el("pre").class("cmp-hunk").children(lines));
    }
    if !s.fields.is_empty() && s.text.is_empty() {
        e = e.child(fields(&s.fields));
    }
    e
}

fn line_view(l: &Line) -> E {
    let text = if l.text.is_empty() { " " } else { l.text.as_str() };
    match l.tag {
        LineTag::Insert => el("ins").class("cmp-line").attr("data-testid", "compare-ins").text(text),
        LineTag::Delete => el("del").class("cmp-line").attr("data-testid", "compare-del").text(text),
        LineTag::Equal => el("span").class("cmp-line").text(text),
    }
}

// `/diff` is a split view: its code comes with the route's first visit.
crate::split::split_view!(COMPARE, "Compare page", compare, || view! { <ComparePage/> });

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
            role: envelope::Role::User,
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
            findings: vec![],
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
