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
    // Each kind's view is a function of its own, not inlined here (the
    // release build keeps single-caller functions apart too, D193): the
    // browser compiles a function whole at its first call, so a document
    // compiles the views of the kinds it has, not all of them.
    match segment {
        Segment::Text(s) => kind(s, |s| view! { <TextSegment segment=s/> }.into_any()),
        Segment::StaticVar(s) => kind(s, |s| view! { <StaticVarSegment segment=s/> }.into_any()),
        Segment::SystemPrompt(s) => kind(s, |s| view! { <SystemPromptSegment segment=s/> }.into_any()),
        Segment::Memory(s) => kind(s, |s| view! { <MemorySegment segment=s/> }.into_any()),
        Segment::Skills(s) => kind(s, |s| view! { <SkillsSegment segment=s/> }.into_any()),
        Segment::ToolOverview(s) => kind(s, |s| view! { <ToolOverviewSegment segment=s/> }.into_any()),
        Segment::ToolCallRequest(s) => kind(s, |s| view! { <ToolCallRequestSegment segment=s at/> }.into_any()),
        Segment::ToolCallResult(s) => kind(s, |s| view! { <ToolCallResultSegment segment=s at/> }.into_any()),
        Segment::Document(s) => kind(s, |s| view! { <DocumentSegment segment=s/> }.into_any()),
        Segment::LongText(s) => kind(s, |s| view! { <LongTextSegment segment=s/> }.into_any()),
        Segment::Media(s) => kind(s, |s| view! { <MediaSegment segment=s/> }.into_any()),
        s @ (Segment::Reasoning(_) | Segment::ProviderBlock(_)) => {
            kind(s, |s| view! { <Extension segment=s/> }.into_any())
        }
    }
}

/// `view(s)` in a function of its own for each kind ([`segment_view`]).
#[inline(never)]
fn kind<S>(s: S, view: impl FnOnce(S) -> AnyView) -> AnyView {
    view(s)
}

/// The views of the fidelity extension's own kinds (reasoning, provider
/// blocks). In a release build for the browser this is a split point: no
/// demo has them, so their code comes with the first document that does.
#[cfg_attr(
    pep_split,
    ::leptos::wasm_split::wasm_split(fidelity, wasm_split_path = ::leptos::wasm_split, fallible, preload(preload_fidelity))
)]
fn extension_view(segment: Segment) -> Result<AnyView, ::leptos::wasm_split::SplitLoaderError> {
    Ok(match segment {
        Segment::Reasoning(s) => view! { <ReasoningSegment segment=s/> }.into_any(),
        Segment::ProviderBlock(s) => view! { <ProviderBlockSegment segment=s/> }.into_any(),
        _ => ().into_any(),
    })
}

crate::split::split_loader!(FIDELITY_LOADED, fn fidelity_loaded, load_fidelity, preload_fidelity);

/// A reasoning or provider-block segment: its view once its module is here
/// ("Loading…" until then; a failed fetch says so, with Retry).
#[component]
fn Extension(segment: Segment) -> impl IntoView {
    // None: loading; Some(ok): fetched or not.
    let state = RwSignal::new(fidelity_loaded().then_some(true));
    let fetch = move || {
        state.set(None);
        leptos::task::spawn_local(async move { state.set(Some(load_fidelity().await)) });
    };
    if state.get_untracked().is_none() {
        fetch();
    }
    let kind = segment.kind();
    move || match state.get() {
        Some(true) => {
            #[cfg(pep_split)]
            let made = crate::split::now(extension_view(segment.clone())).and_then(Result::ok);
            #[cfg(not(pep_split))]
            let made = extension_view(segment.clone()).ok();
            made.unwrap_or_else(|| ().into_any())
        }
        None => view! {
            <div class="seg muted" data-kind=kind role="status">"Loading…"</div>
        }
        .into_any(),
        Some(false) => view! {
            <div class="seg muted" data-kind=kind role="alert">
                {crate::split::unfetched!("This block could not be loaded", ". ")}
                <button type="button" class="btn" on:click=move |_| fetch()>"Retry"</button>
            </div>
        }
        .into_any(),
    }
}
