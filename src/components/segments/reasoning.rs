use crate::components::icons::{Ico, Icon};
use crate::format::count;
use envelope::Reasoning;
use leptos::prelude::*;

use crate::components::panel::Toggle;
use crate::components::rich::PlainText;

/// The model's reasoning sent back with the conversation (read-only: a
/// signature or encrypted content is only valid unchanged): a card that
/// unfolds to the text, as written (not Markdown), and the summary. The
/// signature and encrypted content are named with their length, never shown.
#[component]
pub fn ReasoningSegment(segment: Reasoning) -> impl IntoView {
    let toggle = Toggle::new(!segment.collapsed);
    let open = toggle.open;
    let redacted = segment.content.is_empty() && segment.encrypted.is_some();
    let title = if redacted { "Redacted reasoning" } else { "Reasoning" };
    let chars = segment.content.chars().count();
    let signed = segment.signature.as_deref().map(|s| format!("signed · {}", count(s.chars().count(), "char")));
    let encrypted = segment.encrypted.as_deref().map(|s| format!("encrypted · {}", count(s.chars().count(), "char")));
    let summary = segment.summary.unwrap_or_default();
    let content = segment.content;
    view! {
        <div class="seg seg-reasoning" data-kind="reasoning">
            <div class="panel tone-purple" class:open=move || open.get()>
                <button type="button" class="panel-head" aria-expanded=toggle.aria() on:click=move |_| toggle.flip()>
                    <span class="chev" aria-hidden="true"><Ico icon=Icon::ChevronRight/></span>
                    <span class="panel-icon" aria-hidden="true"><Ico icon=Icon::Brain/></span>
                    <span class="panel-titles"><span class="panel-title">{title}</span></span>
                    {(chars > 0).then(|| view! { <span class="badge">{count(chars, "char")}</span> })}
                    {signed.map(|b| view! { <span class="badge" data-testid="reasoning-signed" title="Signature (not shown)">{b}</span> })}
                    {encrypted.map(|b| view! { <span class="badge" data-testid="reasoning-encrypted" title="Encrypted content (not shown)">{b}</span> })}
                </button>
                {move || open.get().then(|| view! {
                        <div class="panel-body">
                            {if content.is_empty() {
                                let why = if redacted { "The provider sent this reasoning encrypted." } else { "(no reasoning text)" };
                                view! { <p class="muted reasoning-none">{why}</p> }.into_any()
                            } else {
                                view! {
                                    <div class="reasoning-text" tabindex="0" role="region" aria-label="Reasoning text">
                                        <PlainText text=content.clone()/>
                                    </div>
                                }.into_any()
                            }}
                            {(!summary.is_empty()).then(|| view! {
                                <div class="reasoning-summary">
                                    <div class="label">"Summary"</div>
                                    <ul>
                                        {summary.iter().map(|s| view! {
                                            <li><PlainText text=s.clone()/></li>
                                        }).collect::<Vec<_>>()}
                                    </ul>
                                </div>
                            })}
                        </div>
                })}
            </div>
        </div>
    }
}
