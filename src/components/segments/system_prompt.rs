use envelope::SystemPrompt;
use leptos::prelude::*;

use crate::components::count;
use crate::components::panel::Collapsible;
use crate::components::rich::Markdown;

/// The system prompt: a grey collapsible panel labelled with its line count.
#[component]
pub fn SystemPromptSegment(segment: SystemPrompt) -> impl IntoView {
    let lines = segment.content.lines().count().max(1);
    let badge = count(lines, "line");
    let content = segment.content;
    view! {
        <div class="seg seg-system" data-kind="system_prompt">
            <Collapsible open=!segment.collapsed title="System prompt" badge icon="cog" tone="grey">
                <Markdown source=content.clone()/>
            </Collapsible>
        </div>
    }
}
