use envelope::Text;
use leptos::prelude::*;

use crate::components::rich::Markdown;

/// Conversation text: Markdown (GFM) through the core's safe renderer.
#[component]
pub fn TextSegment(segment: Text) -> impl IntoView {
    view! {
        <div class="seg seg-text" data-kind="text">
            <Markdown source=segment.content/>
        </div>
    }
}
