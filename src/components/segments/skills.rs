use envelope::{SkillItem, Skills};
use leptos::prelude::*;

use crate::components::icons::Icon;
use crate::components::panel::{Collapsible, Toggle};
use crate::components::rich::{Markdown, VarText};
use crate::format::count;

/// Skills: a green panel; each skill shows L1 (name and description) and
/// expands to L2, its body. Skills whose body is in context are marked.
#[component]
pub fn SkillsSegment(segment: Skills) -> impl IntoView {
    let loaded = segment.items.iter().filter(|s| s.is_loaded()).count();
    let badge = format!("{} · {loaded} loaded", count(segment.items.len(), "skill"));
    let subtitle = segment.description.clone();
    let items = segment.items;
    view! {
        <div class="seg seg-skills" data-kind="skills">
            <Collapsible open=!segment.collapsed title="Skills" subtitle badge icon=Icon::Sparkles tone="green">
                <ul class="skill-list">
                    {items.iter().enumerate().map(|(i, s)| view! { <SkillRow skill=s.clone() index=i/> }).collect::<Vec<_>>()}
                </ul>
            </Collapsible>
        </div>
    }
}

/// One skill (item `index` of the segment): L1 always, L2 on demand.
#[component]
fn SkillRow(skill: SkillItem, index: usize) -> impl IntoView {
    let toggle = Toggle::item(index, false);
    let open = toggle.open;
    let loaded = skill.is_loaded();
    let body = skill.body.clone();
    let has_body = body.is_some();
    view! {
        <li class="skill" class:loaded=loaded>
            <div class="skill-l1">
                <button type="button" class="skill-name" aria-expanded=toggle.aria() disabled=!has_body
                    on:click=move |_| toggle.flip()>
                    <code>{skill.name.clone()}</code>
                </button>
                {if loaded {
                    view! { <span class="badge ok" title="Its body is in the model's context">"loaded (L2 in context)"</span> }.into_any()
                } else {
                    view! { <span class="badge" title="Only the name and description are in context">"L1 only"</span> }.into_any()
                }}
                <p class="skill-desc"><VarText text=skill.description.clone()/></p>
            </div>
            {move || {
                open.get()
                    .then(|| body.clone())
                    .flatten()
                    .map(|b| view! { <div class="skill-l2"><Markdown source=b/></div> })
            }}
        </li>
    }
}
