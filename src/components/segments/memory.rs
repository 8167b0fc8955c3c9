use envelope::Memory;
use leptos::prelude::*;

use crate::components::icons::Icon;
use crate::components::panel::Collapsible;
use crate::components::rich::VarText;
use crate::format::count;

/// Memory: a purple collapsible panel with a title–content list.
#[component]
pub fn MemorySegment(segment: Memory) -> impl IntoView {
    let n = segment.items.len();
    let badge = count(n, "item");
    let subtitle = segment.description.clone();
    let items = segment.items;
    view! {
        <div class="seg seg-memory" data-kind="memory">
            <Collapsible open=!segment.collapsed title="Memory" subtitle badge icon=Icon::Brain tone="purple">
                <dl class="memory-list">
                    {items
                        .iter()
                        .map(|it| {
                            view! {
                                <dt><VarText text=it.title.clone()/></dt>
                                <dd><VarText text=it.content.clone()/></dd>
                            }
                        })
                        .collect::<Vec<_>>()}
                </dl>
            </Collapsible>
        </div>
    }
}
