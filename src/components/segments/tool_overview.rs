use envelope::{ToolItem, ToolOverview};
use leptos::prelude::*;

use crate::components::icons::Icon;
use crate::components::panel::{Collapsible, Toggle};
use crate::components::rich::{JsonBlock, VarText};
use crate::format::count;

/// The tools the model may call: an orange panel; each tool expands to its
/// parameter summary and its JSON Schema.
#[component]
pub fn ToolOverviewSegment(segment: ToolOverview) -> impl IntoView {
    let n = segment.items.len();
    let badge = count(n, "tool");
    let items = segment.items;
    view! {
        <div class="seg seg-tools" data-kind="tool_overview">
            <Collapsible open=!segment.collapsed title="Tools" badge icon=Icon::Wrench tone="orange">
                <ul class="tool-list">
                    {items.iter().enumerate().map(|(i, t)| view! { <ToolRow tool=t.clone() index=i/> }).collect::<Vec<_>>()}
                </ul>
            </Collapsible>
        </div>
    }
}

/// One tool (item `index` of the segment); its schema unfolds.
#[component]
fn ToolRow(tool: ToolItem, index: usize) -> impl IntoView {
    let toggle = Toggle::item(index, false);
    let open = toggle.open;
    let schema = tool.schema.as_ref().map(|s| serde_json::to_string_pretty(s).unwrap_or_default());
    let parameters = tool.parameters.clone();
    view! {
        <li class="tool">
            <button type="button" class="tool-head" aria-expanded=toggle.aria() on:click=move |_| toggle.flip()>
                <code class="tool-name">{tool.name.clone()}</code>
            </button>
            <p class="tool-desc"><VarText text=tool.description.clone()/></p>
            {move || {
                open.get()
                    .then(|| {
                        view! {
                            <div class="tool-detail">
                                {parameters.clone().map(|p| view! { <p class="tool-params"><span class="label">"Parameters: "</span><code>{p}</code></p> })}
                                {match schema.clone() {
                                    Some(s) => view! { <JsonBlock text=s/> }.into_any(),
                                    None => view! { <p class="muted">"No JSON Schema: exported as an empty object schema."</p> }.into_any(),
                                }}
                            </div>
                        }
                    })
            }}
        </li>
    }
}
