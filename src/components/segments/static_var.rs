use crate::components::icons::{Ico, Icon};
use envelope::StaticVar;
use leptos::prelude::*;

use crate::components::rich::masked_text;

/// Where a template variable is defined. Its value lives in the session
/// bar; in the bubble a small marker says the message defines it.
#[component]
pub fn StaticVarSegment(segment: StaticVar) -> impl IntoView {
    let title = segment.description.clone().unwrap_or_else(|| "Template variable".into());
    view! {
        <div class="seg seg-var" data-kind="static_var" title=title>
            <Ico icon=Icon::Variable/>
            <span class="var-def">
                "defines "<code>{format!("{{{{{}}}}}", segment.name)}</code>" = "
                <span class="var-value">{move || masked_text(&segment.value)}</span>
            </span>
        </div>
    }
}
