//! One component per segment kind, chosen by [`SegmentView`]'s single `match`.
//! Each segment's root element carries `data-kind`.

mod document;
mod long_text;
mod media;
mod memory;
mod skills;
mod static_var;
mod system_prompt;
mod text;
mod tool_call_request;
mod tool_call_result;
mod tool_overview;

pub use document::{human_size, DocumentSegment};
pub use long_text::LongTextSegment;
pub use media::MediaSegment;
pub use memory::MemorySegment;
pub use skills::SkillsSegment;
pub use static_var::StaticVarSegment;
pub use system_prompt::SystemPromptSegment;
pub use text::TextSegment;
pub use tool_call_request::ToolCallRequestSegment;
pub use tool_call_result::ToolCallResultSegment;
pub use tool_overview::ToolOverviewSegment;

use envelope::calls::At;
use envelope::Segment;
use leptos::prelude::*;

/// Renders one segment by its kind.
#[component]
pub fn SegmentView(
    segment: Segment,
    /// Where it stands (for call pairing).
    at: At,
) -> impl IntoView {
    // Edit mode shows the editable values as fields (a toggle, not an edit).
    if let Some(editing) = use_context::<crate::edit::Editing>() {
        if editing.on.get_untracked() {
            if let Some(v) = crate::components::editor::segment_editor(&segment, at) {
                return v;
            }
        }
    }
    match segment {
        Segment::Text(s) => view! { <TextSegment segment=s/> }.into_any(),
        Segment::StaticVar(s) => view! { <StaticVarSegment segment=s/> }.into_any(),
        Segment::SystemPrompt(s) => view! { <SystemPromptSegment segment=s/> }.into_any(),
        Segment::Memory(s) => view! { <MemorySegment segment=s/> }.into_any(),
        Segment::Skills(s) => view! { <SkillsSegment segment=s/> }.into_any(),
        Segment::ToolOverview(s) => view! { <ToolOverviewSegment segment=s/> }.into_any(),
        Segment::ToolCallRequest(s) => view! { <ToolCallRequestSegment segment=s at/> }.into_any(),
        Segment::ToolCallResult(s) => view! { <ToolCallResultSegment segment=s at/> }.into_any(),
        Segment::Document(s) => view! { <DocumentSegment segment=s/> }.into_any(),
        Segment::LongText(s) => view! { <LongTextSegment segment=s/> }.into_any(),
        Segment::Media(s) => view! { <MediaSegment segment=s/> }.into_any(),
        // Not rendered yet (the fidelity extension's kinds): their kind only.
        Segment::Reasoning(_) => view! { <div class="seg" data-kind="reasoning"></div> }.into_any(),
        Segment::ProviderBlock(_) => view! { <div class="seg" data-kind="provider_block"></div> }.into_any(),
    }
}
