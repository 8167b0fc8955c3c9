use crate::components::icons::{Ico, Icon};
use crate::format::count;
use envelope::calls::At;
use envelope::ToolCallRequest;
use leptos::prelude::*;
use serde_json::Value;

use crate::components::panel::{MoreButton, Toggle};
use crate::components::rich::{with_secrets, CurrentDoc};
use crate::nav::Navigator;

/// Values longer than this, or on several lines, fold behind "show more".
const FOLD_CHARS: usize = 200;

/// A call the model made: a dark terminal-style block with the tool name,
/// the call id and the arguments as key/value rows.
#[component]
pub fn ToolCallRequestSegment(segment: ToolCallRequest, at: At) -> impl IntoView {
    let doc = CurrentDoc::expect();
    let id = doc.calls.request_at(at).map(|q| q.export_id.clone()).unwrap_or_default();
    let answered = doc.calls.results_for(at).count();
    let nav = use_context::<Navigator>();
    let results: Vec<(At, String)> =
        doc.calls.results_for(at).map(|r| (r.at, doc.envelope.messages[r.at.message].id.clone())).collect();
    let toggle = Toggle::new(!segment.collapsed);
    let open = toggle.open;
    let rows: Vec<(String, Value)> = segment.arguments.into_iter().collect();
    let n = rows.len();
    view! {
        <div class="seg seg-call" data-kind="tool_call_request">
            <button type="button" class="call-head" aria-expanded=toggle.aria() on:click=move |_| toggle.flip()>
                <Ico icon=Icon::Terminal/>
                <span class="call-tool">{segment.tool_name.clone()}</span>
                <span class="call-id" title="Call id in the export">{id}</span>
                <span class="badge">{count(n, "argument")}</span>
                {(answered == 0).then(|| view! { <span class="badge warn">"unanswered"</span> })}
            </button>
            {nav.filter(|_| !results.is_empty()).map(|nav| view! {
                <div class="call-links">
                    {results.into_iter().map(|(r, mid)| view! {
                        <button type="button" class="link" data-testid="to-result"
                            title=format!("Go to the result (message {mid})")
                            on:mousedown=|ev: leptos::ev::MouseEvent| ev.prevent_default()
                            on:click=move |_| {
                                // A focused link far away holds the window back (Chromium):
                                // jump from an unfocused page, a frame later.
                                crate::browser::blur_active();
                                leptos::task::spawn_local(async move {
                                    crate::browser::after_next_paint().await;
                                    nav.reveal(r, true);
                                });
                            }>
                            <Ico icon=Icon::ArrowDown/>{format!(" Result in {mid}")}
                        </button>
                    }).collect::<Vec<_>>()}
                </div>
            })}
            {move || open.get().then(|| view! {
                <div class="call-args">
                    {if rows.is_empty() { Some(view! { <div class="arg-row muted">"(no arguments)"</div> }) } else { None }}
                    {rows.iter().enumerate().map(|(i, (k, v))| view! { <ArgRow key=k.clone() value=v.clone() index=i/> }).collect::<Vec<_>>()}
                </div>
            })}
        </div>
    }
}

/// One argument: strings as written, other values as compact JSON; long or
/// multi-line values fold (item `index` of the segment).
#[component]
fn ArgRow(key: String, value: Value, index: usize) -> impl IntoView {
    let (text, class) = match &value {
        Value::String(s) => (s.clone(), "arg-str"),
        Value::Number(_) => (value.to_string(), "arg-num"),
        Value::Bool(_) | Value::Null => (value.to_string(), "arg-lit"),
        _ => (serde_json::to_string_pretty(&value).unwrap_or_default(), "arg-json"),
    };
    let long = text.chars().count() > FOLD_CHARS || text.contains('\n');
    let toggle = Toggle::item(index, false);
    let open = toggle.open;
    // Folded: the first line's first FOLD_CHARS characters (a secret they
    // would cut is shown masked whole).
    let first = text.lines().next().unwrap_or("");
    let short = first.char_indices().nth(FOLD_CHARS).map_or(first.len(), |(i, _)| i);
    // Secrets masked (tracked: the detector may arrive after the first paint).
    let value = move || {
        let found = crate::secrets::in_text(&text);
        if long && !open.get() {
            let head = &text[..crate::secrets::cut_point(&found, short)];
            view! { {with_secrets(head, 0, &found)}"…" }.into_any()
        } else {
            with_secrets(&text, 0, &found).into_any()
        }
    };
    view! {
        <div class="arg-row">
            <span class="arg-key">{key}</span>
            <span class=format!("arg-val {class}")>
                {value}
                {long.then(|| view! { " "<MoreButton toggle/> })}
            </span>
        </div>
    }
}
