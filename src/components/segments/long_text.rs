use envelope::LongText;
use leptos::prelude::*;

use crate::components::panel::Toggle;
use crate::components::rich::VarText;
use crate::format::count;

/// Pasted material: collapsed it shows its first two lines and a character
/// count; it expands to the full text.
#[component]
pub fn LongTextSegment(segment: LongText) -> impl IntoView {
    let toggle = Toggle::new(!segment.collapsed);
    let open = toggle.open;
    let chars = segment.content.chars().count();
    let lines = segment.content.lines().count();
    let preview: String = segment.content.lines().take(2).collect::<Vec<_>>().join("\n");
    let content = segment.content;
    view! {
        <div class="seg seg-long" data-kind="long_text">
            <button type="button" class="long-head" aria-expanded=toggle.aria() on:click=move |_| toggle.flip()>
                <span class="badge">{count(chars, "character")}</span>
                <span class="badge">{count(lines, "line")}</span>
                <span class="long-action">{move || if open.get() { "Collapse" } else { "Expand full text" }}</span>
            </button>
            {move || if open.get() {
                view! { <div class="long-body" tabindex="0" role="region" aria-label="Full text"><VarText text=content.clone() class="pre"/></div> }.into_any()
            } else {
                view! { <div class="long-preview"><VarText text=preview.clone() class="pre"/></div> }.into_any()
            }}
        </div>
    }
}
