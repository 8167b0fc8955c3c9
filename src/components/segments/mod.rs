//! One component per segment kind, chosen by [`SegmentView`]'s single `match`.
//! Each segment's root element carries `data-kind`.

mod cache_mark;
mod document;
mod long_text;
mod media;
mod memory;
mod provider_block;
mod reasoning;
mod skills;
mod static_var;
mod system_prompt;
mod text;
mod tool_call_request;
mod tool_call_result;
mod tool_overview;

pub use cache_mark::{cache_label, CacheMark};
pub use document::{human_size, DocumentSegment};
pub use long_text::LongTextSegment;
pub use media::{MediaSegment, MediaView};
pub use memory::MemorySegment;
pub use provider_block::{BlockRole, ProviderBlockSegment};
pub use reasoning::ReasoningSegment;
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
    // A cache breakpoint is marked after the segment, in every mode.
    let cache = segment.cache_control().cloned().map(|c| view! { <CacheMark cache_control=c/> });
    view! { {segment_view(segment, at)}{cache} }.into_any()
}

/// The segment itself: its editor in Edit mode (for kinds with editable
/// values), else its kind's component.
fn segment_view(segment: Segment, at: At) -> AnyView {
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
        Segment::Reasoning(s) => view! { <ReasoningSegment segment=s/> }.into_any(),
        Segment::ProviderBlock(s) => view! { <ProviderBlockSegment segment=s/> }.into_any(),
    }
}
