//! The conversation pane: session bar, then message bubbles, rendered in
//! batches as the user scrolls so that huge documents open at once.

use std::sync::Arc;

use crate::components::count;
use crate::components::icons::Ico;
use envelope::calls::At;
use envelope::{Message, Role};
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::budget::{Budget, Counting};
use crate::components::rich::CurrentDoc;
use crate::components::segments::SegmentView;
use crate::components::settings::RequestSettings;
use crate::doc::Doc;
use crate::state::{Expansion, MessageOrder, Order};

/// The first screen: rendered at once.
const FIRST: Batch = Batch { messages: 6, segments: 40 };
/// Rendered in the background after the first screen, one batch per frame
/// (short tasks: the page stays responsive), up to `BACKGROUND_SEGMENTS`.
const BACKGROUND: Batch = Batch { messages: 20, segments: 150 };
const BACKGROUND_SEGMENTS: usize = 1_000;
/// Rendered per "Show more" (or when the end of the list comes near).
const ON_DEMAND: Batch = Batch { messages: 60, segments: 400 };

/// A batch of messages, bounded by messages and by segments.
#[derive(Clone, Copy)]
pub struct Batch {
    pub messages: usize,
    pub segments: usize,
}

/// Where the batch of messages starting at `start` ends.
pub fn batch_end(messages: &[Message], start: usize, batch: Batch) -> usize {
    let mut segs = 0;
    let mut end = start;
    while end < messages.len() && end - start < batch.messages {
        segs += messages[end].segments.len().max(1);
        end += 1;
        if segs >= batch.segments {
            break;
        }
    }
    end
}

/// The whole conversation of a document.
#[component]
pub fn Conversation(doc: Arc<Doc>) -> impl IntoView {
    provide_context(CurrentDoc(doc.clone()));
    let expansion = Expansion::expect_or_new();
    let total = doc.envelope.messages.len();
    let shown = RwSignal::new(batch_end(&doc.envelope.messages, 0, FIRST));
    let more = {
        let doc = doc.clone();
        move || {
            let now = shown.get_untracked();
            if now < total {
                shown.set(batch_end(&doc.envelope.messages, now, ON_DEMAND));
            }
        }
    };
    {
        let doc = doc.clone();
        leptos::task::spawn_local(async move {
            let messages = &doc.envelope.messages;
            loop {
                // One batch per frame, after the paint: the first screen
                // shows before any of the rest is built.
                browser::after_next_paint().await;
                // Stops when the conversation is gone (another document).
                let Some(now) = shown.try_get_untracked() else { break };
                let rendered: usize = messages[..now].iter().map(|m| m.segments.len()).sum();
                if now >= total || rendered >= BACKGROUND_SEGMENTS {
                    break;
                }
                shown.try_set(batch_end(messages, now, BACKGROUND));
            }
        });
    }
    let sentinel = NodeRef::<html::Div>::new();
    observe_near_viewport(sentinel, more.clone());
    let doc_for_list = doc.clone();
    view! {
        <div class="conversation">
            <RequestSettings doc=doc.clone()/>
            <SessionBar doc=doc.clone()/>
            <div class="conv-tools">
                <span class="muted">{format!("{} · {}", count(total, "message"), count(doc.segment_count(), "segment"))}</span>
                <button type="button" class="btn small" on:click=move |_| expansion.order(expansion.global, true)>
                    <Ico name="chevrons-up-down"/>" Expand all"
                </button>
                <button type="button" class="btn small" on:click=move |_| expansion.order(expansion.global, false)>
                    <Ico name="chevrons-down-up"/>" Collapse all"
                </button>
            </div>
            <ol class="messages">
                <For each=move || 0..shown.get() key=|i| *i let:i>
                    <MessageView doc=doc_for_list.clone() index=i/>
                </For>
            </ol>
            <div node_ref=sentinel class="sentinel">
                {move || (shown.get() < total).then(|| {
                    let more = more.clone();
                    view! {
                        <button type="button" class="btn" on:click=move |_| more()>
                            {format!("Show more ({} messages not rendered yet)", total - shown.get())}
                        </button>
                    }
                })}
            </div>
        </div>
    }
}

/// Calls `f` whenever the element comes within two screens of the viewport.
fn observe_near_viewport(target: NodeRef<html::Div>, f: impl Fn() + Clone + 'static) {
    Effect::new(move |_| {
        let Some(el) = target.get() else { return };
        let f = f.clone();
        let callback = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let hit =
                entries.iter().any(|e| e.unchecked_into::<web_sys::IntersectionObserverEntry>().is_intersecting());
            if hit {
                f();
            }
        });
        let options = web_sys::IntersectionObserverInit::new();
        options.set_root_margin("1500px 0px");
        if let Ok(observer) =
            web_sys::IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &options)
        {
            observer.observe(&el);
            let observer = send_wrapper::SendWrapper::new(observer);
            let callback = send_wrapper::SendWrapper::new(callback);
            on_cleanup(move || {
                observer.disconnect();
                drop(callback);
            });
        }
    });
}

/// The template variables of the session, as chips above the conversation.
#[component]
fn SessionBar(doc: Arc<Doc>) -> impl IntoView {
    if doc.var_defs.is_empty() {
        return ().into_any();
    }
    let chips: Vec<AnyView> = doc
        .var_defs
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let tip_id = format!("var-tip-{i}");
            let desc = v.description.clone();
            let described_by = desc.as_ref().map(|_| tip_id.clone());
            view! {
                <li class="chip" tabindex="0" aria-describedby=described_by>
                    <code class="chip-name">{v.name.clone()}</code>
                    <span class="chip-eq">" = "</span>
                    <span class="chip-value">{v.value.clone()}</span>
                    {desc.map(|d| view! { <span class="tip" role="tooltip" id=tip_id>{d}</span> })}
                </li>
            }
            .into_any()
        })
        .collect();
    view! {
        <section class="session-bar" aria-label="Session variables">
            <span class="session-label"><Ico name="variable"/>" Variables"</span>
            <ul class="chips">{chips}</ul>
        </section>
    }
    .into_any()
}

fn role_icon(role: Role) -> &'static str {
    match role {
        Role::System => "cog",
        Role::User => "user",
        Role::Assistant => "bot",
        Role::Tool => "hammer",
    }
}

/// One message: a bubble by role, with its segments in order.
#[component]
pub fn MessageView(doc: Arc<Doc>, index: usize) -> impl IntoView {
    let expansion = Expansion::expect_or_new();
    let order = RwSignal::new(Order::default());
    provide_context(MessageOrder(order));
    let m = &doc.envelope.messages[index];
    let role = m.role.as_str();
    let foldable = m.segments.iter().any(|s| s.collapsed().is_some() || matches!(s, envelope::Segment::Document(_)));
    let budget = use_context::<Budget>();
    let counted = move || match budget.map(|b| b.counting.get()) {
        Some(Counting::Done(c)) => Some(c),
        _ => None,
    };
    let segments: Vec<AnyView> = m
        .segments
        .iter()
        .enumerate()
        .map(|(sj, s)| {
            let badge = move || {
                counted().and_then(|c| c.segment_tokens(index, sj)).map(|t| {
                    view! { <span class="tok-badge" title="o200k_base tokens this segment sends">{format!("{t} tok")}</span> }
                })
            };
            view! {
                <div class="seg-slot">
                    <SegmentView segment=s.clone() at=At { message: index, segment: sj }/>
                    {badge}
                </div>
            }
            .into_any()
        })
        .collect();
    let empty = segments.is_empty();
    let dropped = move || budget.and_then(|b| b.dropped(index));
    let part_tokens =
        move || counted().and_then(|c| c.part_index(index).map(|i| (c.parts[i].tokens, c.parts[i].estimate)));
    view! {
        <li class=format!("msg role-{role}") class:dropped=move || dropped().is_some() data-role=role data-message-id=m.id.clone()>
            <header class="msg-head">
                <span class="role"><Ico name=role_icon(m.role)/>" "{role}</span>
                <time class="muted">{browser::format_time(m.timestamp_ms())}</time>
                <span class="msg-id muted" title="Message id">{m.id.clone()}</span>
                {m.truncation_priority.map(|p| view! { <span class="badge" title="truncationPriority">{format!("priority {p}")}</span> })}
                {move || part_tokens().map(|(t, est)| view! {
                    <span class="badge tok" title="o200k_base tokens this message sends">{format!("{t}{} tok", if est { "*" } else { "" })}</span>
                })}
                {move || dropped().map(|_| view! { <span class="badge bad" data-testid="dropped">"dropped"</span> })}
                {foldable.then(|| view! {
                    <span class="msg-actions">
                        <button type="button" class="link" title="Expand every panel of this message"
                            on:click=move |_| expansion.order(order, true)>"expand all"</button>
                        <button type="button" class="link" title="Collapse every panel of this message"
                            on:click=move |_| expansion.order(order, false)>"collapse all"</button>
                    </span>
                })}
            </header>
            {move || dropped().map(|reason| view! { <p class="drop-reason" data-testid="dropped-reason">{reason}</p> })}
            <div class="msg-body">
                {segments}
                {empty.then(|| view! { <p class="muted">"(no segments)"</p> })}
            </div>
        </li>
    }
}
