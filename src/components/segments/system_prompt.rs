use envelope::SystemPrompt;
use leptos::prelude::*;

use crate::components::icons::Icon;
use crate::components::panel::Collapsible;
use crate::components::rich::Markdown;
use crate::format::count;
use crate::window::one_short_line;

/// The system prompt: a grey collapsible panel labelled with its line count
/// (open at first when the document says so, or when it is one short line).
#[component]
pub fn SystemPromptSegment(segment: SystemPrompt) -> impl IntoView {
    let open = !segment.collapsed || one_short_line(&segment.content);
    let lines = segment.content.lines().count().max(1);
    let badge = count(lines, "line");
    let content = segment.content;
    view! {
        <div class="seg seg-system" data-kind="system_prompt">
            <Collapsible open title="System prompt" badge icon=Icon::Cog tone="grey">
                <Markdown source=content.clone()/>
            </Collapsible>
        </div>
    }
}
