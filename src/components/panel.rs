//! Collapsible panels and toggles: every toggle is a real `<button>` with
//! `aria-expanded`; its first state comes from the document, later states
//! from the user, the message's or the global "expand/collapse all". The
//! state lives in the conversation's [`Expansion`] store, keyed by position,
//! so a panel the window unmounts comes back as the user left it.

use crate::components::icons::{Ico, Icon};
use envelope::calls::At;
use leptos::prelude::*;

use crate::state::{Expansion, ToggleKey};

/// The segment a component renders, for the toggles inside it (provided by
/// the conversation around each segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentAt(pub At);

/// A toggle's state: open or not, and a way to flip it.
#[derive(Clone, Copy)]
pub struct Toggle {
    pub open: Memo<bool>,
    store: Store,
}

#[derive(Clone, Copy)]
enum Store {
    /// In the conversation: the expansion store.
    Shared { expansion: Expansion, key: ToggleKey },
    /// Outside one (no store or no segment around): the toggle's own.
    Local(RwSignal<bool>),
}

impl Toggle {
    /// The segment's own toggle; `open` is the document's state for it.
    pub fn new(open: bool) -> Toggle {
        Toggle::keyed(None, open)
    }

    /// The toggle of the segment's item `index` (a skill, a tool, an argument).
    pub fn item(index: usize, open: bool) -> Toggle {
        Toggle::keyed(Some(index), open)
    }

    fn keyed(item: Option<usize>, default: bool) -> Toggle {
        match (use_context::<Expansion>(), use_context::<SegmentAt>()) {
            (Some(expansion), Some(SegmentAt(at))) => {
                let key = ToggleKey { message: at.message, segment: at.segment, item };
                let open = Memo::new(move |_| expansion.is_open(key, default));
                Toggle { open, store: Store::Shared { expansion, key } }
            }
            _ => {
                let local = RwSignal::new(default);
                Toggle { open: Memo::new(move |_| local.get()), store: Store::Local(local) }
            }
        }
    }

    pub fn flip(&self) {
        let open = !self.open.get_untracked();
        match self.store {
            Store::Shared { expansion, key } => expansion.set(key, open),
            Store::Local(local) => local.set(open),
        }
    }

    pub fn aria(&self) -> impl Fn() -> &'static str + Copy + 'static {
        let open = self.open;
        move || if open.get() { "true" } else { "false" }
    }
}

/// A panel with a heading button and a body rendered only while open.
// `Icon` is crate-private (see `icons`); leptos makes the component's
// inner function `pub` whatever the component's own visibility.
#[allow(private_interfaces)]
#[component]
pub(crate) fn Collapsible(
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
    icon: Icon,
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
                <span class="chev" aria-hidden="true"><Ico icon=Icon::ChevronRight/></span>
                <span class="panel-icon" aria-hidden="true"><Ico icon=icon/></span>
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
