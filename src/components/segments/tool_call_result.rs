use crate::components::count;
use crate::components::icons::Ico;
use envelope::calls::At;
use envelope::ToolCallResult;
use leptos::prelude::*;

use crate::components::panel::Toggle;
use crate::components::rich::{cut, cut_note, CurrentDoc};
use crate::nav::Navigator;

/// A tool's answer: a green status bar on success, red on failure, saying
/// which call it answers; the result text unfolds below.
#[component]
pub fn ToolCallResultSegment(segment: ToolCallResult, at: At) -> impl IntoView {
    let doc = CurrentDoc::expect();
    let answers = doc.calls.request_for(at).map(|q| q.export_id.clone());
    let request =
        doc.calls.request_for(at).map(|q| (q.at, q.export_id.clone(), doc.envelope.messages[q.at.message].id.clone()));
    let nav = use_context::<Navigator>();
    let toggle = Toggle::new(!segment.collapsed);
    let open = toggle.open;
    let whole = RwSignal::new(false);
    let ok = segment.success;
    let result = segment.result;
    let chars = result.chars().count();
    view! {
        <div class="seg seg-result" class:ok=ok class:fail=!ok data-kind="tool_call_result">
            <button type="button" class="result-head" aria-expanded=toggle.aria() on:click=move |_| toggle.flip()>
                {if ok {
                    view! { <Ico name="circle-check"/> }.into_any()
                } else {
                    view! { <Ico name="circle-x"/> }.into_any()
                }}
                <span class="result-status">{if ok { "Success" } else { "Failed" }}</span>
                <span class="result-tool">{segment.tool_name.clone()}</span>
                <span class="result-answers">
                    {match answers {
                        Some(id) => format!("answers {id}"),
                        None => "answers no call".to_string(),
                    }}
                </span>
                <span class="badge">{count(chars, "char")}</span>
            </button>
            {nav.zip(request).map(|(nav, (q, id, mid))| view! {
                <div class="call-links">
                    <button type="button" class="link" data-testid="to-call"
                        title=format!("Go to call {id} (message {mid})")
                        on:mousedown=|ev: leptos::ev::MouseEvent| ev.prevent_default()
                            on:click=move |_| {
                                // A focused link far away holds the window back (Chromium):
                                // jump from an unfocused page, a frame later.
                                crate::browser::blur_active();
                                leptos::task::spawn_local(async move {
                                    crate::browser::after_next_paint().await;
                                    nav.reveal(q, true);
                                });
                            }>
                        <Ico name="arrow-up"/>{format!(" Call {id} in {mid}")}
                    </button>
                </div>
            })}
            {move || open.get().then(|| {
                let (text, hidden) = cut(&result, whole);
                view! {
                    <pre class="result-body" tabindex="0" role="region" aria-label="Result">{envelope::display::shown(text).into_owned()}</pre>
                    {(hidden > 0).then(|| cut_note(hidden, whole))}
                }
            })}
        </div>
    }
}
