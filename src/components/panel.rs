//! Collapsible panels and toggles: every toggle is a real `<button>` with
//! `aria-expanded`; its first state comes from the document, later states
//! from the user, the message's or the global "expand/collapse all".

use crate::components::icons::Ico;
use leptos::prelude::*;

use crate::state::{Expansion, MessageOrder, Order};

/// A toggle's state: open or not, and a way to flip it.
#[derive(Clone, Copy)]
pub struct Toggle {
    pub open: Memo<bool>,
    local: RwSignal<Order>,
    expansion: Option<Expansion>,
}

impl Toggle {
    /// A toggle that starts `open`, and obeys "expand/collapse all" orders
    /// given after its own last toggle.
    pub fn new(open: bool) -> Toggle {
        let expansion = use_context::<Expansion>();
        let message = use_context::<MessageOrder>();
        let local = RwSignal::new(Order { seq: 0, open });
        let open = Memo::new(move |_| {
            let mut best = local.get();
            for order in [expansion.map(|e| e.global.get()), message.map(|m| m.0.get())].into_iter().flatten() {
                if order.seq > best.seq {
                    best = order;
                }
            }
            best.open
        });
        Toggle { open, local, expansion }
    }

    pub fn flip(&self) {
        let seq = self.expansion.map_or(self.local.get_untracked().seq + 1, |e| e.next());
        self.local.set(Order { seq, open: !self.open.get_untracked() });
    }

    pub fn aria(&self) -> impl Fn() -> &'static str + Copy + 'static {
        let open = self.open;
        move || if open.get() { "true" } else { "false" }
    }
}

/// A panel with a heading button and a body rendered only while open.
#[component]
pub fn Collapsible(
    /// Open at first render (the document's `!collapsed`).
    open: bool,
    /// The heading.
    #[prop(into)]
    title: String,
    /// A small label after the heading ("12 lines").
    #[prop(optional, into)]
    badge: Option<String>,
    /// A muted line under the heading (the segment's `description`).
    #[prop(default = None)]
    subtitle: Option<String>,
    /// Icon before the heading.
    icon: &'static str,
    /// Colour mark: `grey`, `purple`, `green`, `orange`, `blue`.
    tone: &'static str,
    /// The body.
    children: ChildrenFn,
) -> impl IntoView {
    let toggle = Toggle::new(open);
    let is_open = toggle.open;
    view! {
        <div class=format!("panel tone-{tone}") class:open=move || is_open.get()>
            <button type="button" class="panel-head" aria-expanded=toggle.aria() on:click=move |_| toggle.flip()>
                <span class="chev" aria-hidden="true"><Ico name="chevron-right"/></span>
                <span class="panel-icon" aria-hidden="true"><Ico name=icon/></span>
                <span class="panel-titles">
                    <span class="panel-title">{title}</span>
                    {subtitle.map(|s| view! { <span class="panel-sub">{s}</span> })}
                </span>
                {badge.map(|b| view! { <span class="badge">{b}</span> })}
            </button>
            {move || is_open.get().then(|| view! { <div class="panel-body">{children()}</div> })}
        </div>
    }
}

/// A small "show more / show less" button for a folded value.
#[component]
pub fn MoreButton(toggle: Toggle) -> impl IntoView {
    let open = toggle.open;
    view! {
        <button type="button" class="more" aria-expanded=toggle.aria() on:click=move |_| toggle.flip()>
            {move || if open.get() { "show less" } else { "show more" }}
        </button>
    }
}
