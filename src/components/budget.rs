//! The token budget view (truncation preview).

use std::sync::Arc;

use leptos::prelude::*;

use crate::doc::Doc;

/// Token counts and PromptPoet's truncation for the document.
#[component]
pub fn BudgetPanel(#[prop(into)] doc: Signal<Option<Arc<Doc>>>) -> impl IntoView {
    view! { <div class="budget pad">{move || doc.with(|d| d.as_ref().map(|d| d.envelope.messages.len()))}</div> }
}
