//! The conversation pane: session bar, then message bubbles in a *window*:
//! only the rows near the viewport are in the DOM, whatever the document's
//! size, across messages and within a message ([`crate::window`] does the
//! arithmetic). `scroll` measures rows as they render, keeps what the
//! user looks at still while heights change above it (anchored on the first
//! visible row), and carries out the [`Navigator`]'s jumps; this module
//! holds the views.

mod scroll;

use std::sync::Arc;

use envelope::calls::At;
use envelope::display::thousands;
use envelope::Role;
use leptos::context::Provider;
use leptos::prelude::*;

use crate::browser;
use crate::budget::{Budget, Counting};
use crate::components::finder::{FilterMenu, FilterStatus, Outline, SearchBox};
use crate::components::icons::{Ico, Icon};
use crate::components::panel::SegmentAt;
use crate::components::rich::{CurrentDoc, VarDescriptions};
use crate::components::segments::SegmentView;
use crate::components::settings::RequestSettings;
use crate::doc::Doc;
use crate::find::Filter;
use crate::format::count;
use crate::hooks::{use_hash_change, use_page_scroll, use_resize_observer};
use crate::nav::{anchor_fragment, Navigator, Target};
use crate::state::Expansion;
use crate::window::{chunk_segments, CHUNK};
use scroll::{guessed_list_width, measured_row, observed, text_width, Ctl, Dom, Model, Win};

/// The first render, in window heights from the top of the list: the rows
/// the window shows (the list starts below the header, so one height reaches
/// past the window's bottom), and the overscan after the first paint
/// (`update_after_paint`). A row below the fold is elements the first
/// screen's style, layout and paint pay for (D197).
const FIRST_SCREENS: f64 = 1.0;

/// What a page shows after the conversation's last message (a recorded
/// call's reply, which is not part of the request), as a context of the
/// page around the viewer.
#[derive(Clone)]
pub struct After(pub ViewFn);

/// The whole conversation of a document.
#[component]
pub fn Conversation(doc: Arc<Doc>) -> impl IntoView {
    provide_context(CurrentDoc(doc.clone()));
    let expansion = Expansion::expect_or_new();
    expansion.bind(&doc);
    let nav = Navigator::expect_or_new();
    let total = doc.envelope.messages.len();
    let filter = Filter::expect_or_new().0;
    let model =
        StoredValue::new(Model::new(doc.clone(), expansion, text_width(guessed_list_width()), filter.get_untracked()));
    let done = nav.requested_untracked().map_or(0, |j| j.seq);
    let dom = StoredValue::new_local(Dom { done, ..Dom::default() });
    let ctl = Ctl { model, dom, win: RwSignal::new(Win::default()), bar: RwSignal::new(0.0), expansion, nav };
    provide_context(ctl);
    let ro = use_resize_observer(move |entries| ctl.on_resize(entries));
    dom.update_value(|d| d.ro = Some(ro));

    // The first screen: the top, or the message the address names.
    let screen = crate::browser::viewport().1;
    match ctl.anchor_target(&browser::location_hash()) {
        Some(target) => {
            nav.go(target, true);
            if let Some(jump) = nav.requested_untracked() {
                dom.update_value(|d| d.done = jump.seq);
                ctl.jump(jump);
            }
        }
        None => ctl.win.set(Win { span: model.with_value(|md| md.layout.span(0.0, screen * FIRST_SCREENS)), epoch: 0 }),
    }
    Effect::new(move |_| {
        if let Some(jump) = nav.requested() {
            let fresh = dom.try_update_value(|d| {
                let old = d.done;
                d.done = old.max(jump.seq);
                old < jump.seq
            });
            if fresh == Some(true) {
                ctl.jump(jump);
            }
        }
    });
    // A new filter: hidden rows take no room.
    Effect::new(move |prev: Option<()>| {
        let f = filter.get();
        if prev.is_some() {
            let rendered = ctl.rendered();
            model.update_value(|md| md.refilter(expansion, &rendered, f));
            ctl.win.update(|w| w.epoch += 1);
            ctl.schedule_update();
        }
    });
    use_page_scroll(move |target| ctl.on_scroll(target));
    use_hash_change(move |fragment| {
        if let Some(target) = ctl.anchor_target(&fragment) {
            nav.go(target, true);
        }
    });
    // The rest of the overscan after the first paint.
    ctl.update_after_paint();

    let win = ctl.win;
    let pads = Memo::new(move |_| {
        let w = win.get();
        model.with_value(|md| md.layout.pads(w.span))
    });
    let messages = move || {
        let w = win.get();
        model.with_value(|md| md.layout.messages_of(w.span)).map_or(0..0, |(a, b)| a..b + 1)
    };
    view! {
        <div class="conversation">
            <RequestSettings doc=doc.clone()/>
            <div class="conv-sticky" use:observed=(ctl, false)>
                <SessionBar doc=doc.clone()/>
                <SearchBox/>
            </div>
            <VarDescriptions doc=doc.clone()/>
            <div class="conv-tools">
                <span class="muted">{format!("{} · {}", count(total, "message"), count(doc.segment_count(), "segment"))}</span>
                <Outline doc=doc.clone()/>
                <FilterMenu doc=doc.clone()/>
                <button type="button" class="btn small" on:click=move |_| ctl.order(None, true)>
                    <Ico icon=Icon::ChevronsUpDown/>" Expand all"
                </button>
                <button type="button" class="btn small" on:click=move |_| ctl.order(None, false)>
                    <Ico icon=Icon::ChevronsDownUp/>" Collapse all"
                </button>
                <crate::components::editor::ShareLink/>
            </div>
            <FilterStatus doc=doc.clone()/>
            <ol class="messages" use:observed=(ctl, true)
                style:padding-top=move || format!("{}px", px(pads.get().0))
                style:padding-bottom=move || format!("{}px", px(pads.get().1))>
                <For each=messages key=|m| *m let:m>
                    <MessageView doc=doc.clone() index=m/>
                </For>
            </ol>
            {use_context::<After>().map(|a| a.0.run())}
        </div>
    }
}

/// Chips the session bar shows at first, and how many more each "more" adds.
const CHIPS_SHOWN: usize = 40;
const CHIPS_PAGE: usize = 500;

/// The template variables of the session, as chips above the conversation.
#[component]
fn SessionBar(doc: Arc<Doc>) -> impl IntoView {
    if doc.var_defs.is_empty() {
        return ().into_any();
    }
    let editing = use_context::<crate::edit::Editing>().is_some_and(|e| e.on.get_untracked());
    // At most CHIPS_SHOWN chips at first, then pages of CHIPS_PAGE (a
    // document can declare tens of thousands of variables).
    let n = doc.var_defs.len();
    let limit = RwSignal::new(CHIPS_SHOWN);
    let defs = doc.clone();
    let chips = move || -> Vec<AnyView> {
        defs.var_defs
            .iter()
            .take(limit.get())
            .enumerate()
            .map(|(i, v)| {
                let tip_id = format!("var-tip-{i}");
                let desc = v.description.clone();
                let described_by = desc.as_ref().map(|_| tip_id.clone());
                if editing {
                    let what =
                        crate::components::editor::EditView::Variable { name: v.name.clone(), value: v.value.clone() };
                    if let Some(field) = crate::components::editor::edit_view_now(what) {
                        return field;
                    }
                }
                view! {
                    <li class="chip" tabindex="0" aria-describedby=described_by>
                        <code class="chip-name">{v.name.clone()}</code>
                        <span class="chip-eq">" = "</span>
                        <span class="chip-value">{crate::components::rich::masked_text(&v.value)}</span>
                        {desc.map(|d| view! { <span class="tip" role="tooltip" id=tip_id>{d}</span> })}
                    </li>
                }
                .into_any()
            })
            .collect()
    };
    let more = move || {
        let shown = limit.get().min(n);
        (shown < n).then(|| {
            view! {
                <li>
                    <button type="button" class="link" data-testid="more-vars"
                        on:click=move |_| limit.update(|l| *l = l.saturating_add(CHIPS_PAGE))>
                        {format!("{} more of {} variables", thousands((n - shown) as u64), thousands(n as u64))}
                    </button>
                </li>
            }
        })
    };
    view! {
        <section class="session-bar" aria-label="Session variables">
            <span class="session-label"><Ico icon=Icon::Variable/>" Variables"</span>
            <ul class="chips">{chips}{more}</ul>
        </section>
    }
    .into_any()
}

fn role_icon(role: Role) -> Icon {
    match role {
        Role::System => Icon::Cog,
        Role::User => Icon::User,
        Role::Assistant => Icon::Bot,
        Role::Tool => Icon::Hammer,
    }
}

/// One message: a bubble by role with its header, and the chunks of its
/// segments the window shows (the others stand as padding).
#[component]
pub fn MessageView(doc: Arc<Doc>, index: usize) -> impl IntoView {
    let ctl = Ctl::expect();
    let nav = ctl.nav;
    let filter = Filter::expect_or_new().0;
    let doc_for_filter = doc.clone();
    let m = &doc.envelope.messages[index];
    let total = doc.envelope.messages.len();
    let role = m.role.as_str();
    let foldable = m.segments.iter().any(|s| s.collapsed().is_some() || matches!(s, envelope::Segment::Document(_)));
    let budget = use_context::<Budget>();
    let counted = move || match budget.map(|b| b.counting.get()) {
        Some(Counting::Done(c)) => Some(c),
        _ => None,
    };
    let head = ctl.model.with_value(|md| md.layout.head(index));
    let win = ctl.win;
    let part = Memo::new(move |_| {
        let w = win.get();
        ctl.model.with_value(|md| md.layout.part(w.span, index))
    });
    let empty = m.segments.is_empty();
    let dropped = move || budget.and_then(|b| b.dropped(index));
    let part_tokens =
        move || counted().and_then(|c| c.part_index(index).map(|i| (c.parts[i].tokens, c.parts[i].estimate)));
    let link = format!("#{}", anchor_fragment(&m.id, None));
    let chunked = m.segments.len() > CHUNK;
    let id = m.id.clone();
    let (icon, priority) = (role_icon(m.role), m.truncation_priority);
    // The provider's name and spelling of the role (fidelity extension), cut to a badge.
    let badge_text = |s: &String| envelope::display::shown(&s.chars().take(64).collect::<String>()).into_owned();
    let (name, provider_role) = (m.ext.name.as_ref().map(badge_text), m.ext.provider_role.as_ref().map(badge_text));
    // A reply (or a tool's answer) kept without what it answers is explained.
    let is_reply = matches!(m.role, Role::Assistant | Role::Tool);
    let time = browser::format_time(m.timestamp_ms());
    let for_chunks = doc.clone();
    view! {
        <li class=format!("msg role-{role}") class:dropped=move || dropped().is_some() class:chunked=chunked
            class:flash=move || nav.flashed() == Some(Target::Message(index))
            data-role=role data-message-id=id.clone() data-row=head use:measured_row=(ctl, head) tabindex="-1"
            class:filtered=move || !filter.with(|f| f.shows_message(&doc_for_filter.envelope.messages[index]))
            aria-posinset={index + 1} aria-setsize=total on:click=move |_| nav.select(index)>
            // A chunked message's head sticks under the session bar: its offset
            // is set on the head itself, not inherited from the conversation (a
            // value there restyled every element under it when the bar was measured).
            <header class="msg-head" style=move || chunked.then(|| format!("top:{}px", px(ctl.bar.get())))>
                <h2 class="role"><Ico icon=icon/>" "{role}</h2>
                {provider_role.map(|r| view! {
                    <span class="badge msg-ext" title="The role as the provider spelled it">
                        <span class="visually-hidden">"provider role "</span>{r}
                    </span>
                })}
                {name.map(|n| view! {
                    <span class="badge msg-ext" title="The message's name">
                        <span class="visually-hidden">"name "</span>{n}
                    </span>
                })}
                <time class="muted">{time}</time>
                <a class="msg-id muted" href=link title="Link to this message"
                    on:click=move |ev| { ev.prevent_default(); nav.reveal_message(index) }>{id.clone()}</a>
                {priority.map(|p| view! { <span class="badge" title="truncationPriority">{format!("priority {p}")}</span> })}
                {move || part_tokens().map(|(t, est)| view! {
                    <span class="badge tok" title="o200k_base tokens this message sends">{format!("{t}{} tok", if est { "*" } else { "" })}</span>
                })}
                {move || dropped().map(|_| view! { <span class="badge bad" data-testid="dropped">"dropped"</span> })}
                {foldable.then(|| view! {
                    <span class="msg-actions">
                        <button type="button" class="link" title="Expand every panel of this message"
                            on:click=move |_| ctl.order(Some(index), true)>"expand all"</button>
                        <button type="button" class="link" title="Collapse every panel of this message"
                            on:click=move |_| ctl.order(Some(index), false)>"collapse all"</button>
                    </span>
                })}
            </header>
            {move || dropped().map(|reason| view! { <p class="drop-reason" data-testid="dropped-reason">{reason}</p> })}
            {move || budget.filter(|_| is_reply).and_then(|b| b.kept_without_question(index)).map(|why| view! {
                <p class="drop-reason kept-why" data-testid="kept-reason">{why}</p>
            })}
            <div class="msg-body"
                style:padding-top=move || format!("{}px", px(part.get().above))
                style:padding-bottom=move || format!("{}px", px(part.get().below))>
                <For each=move || { let p = part.get(); p.first..p.end } key=|c| *c let:c>
                    <ChunkView doc=for_chunks.clone() message=index chunk=c/>
                </For>
                {empty.then(|| view! { <p class="muted">"(no segments)"</p> })}
            </div>
        </li>
    }
}

/// Up to [`CHUNK`] segments of a message, rendered together.
#[component]
fn ChunkView(doc: Arc<Doc>, message: usize, chunk: usize) -> impl IntoView {
    let ctl = Ctl::expect();
    let nav = ctl.nav;
    let budget = use_context::<Budget>();
    let counted = move || match budget.map(|b| b.counting.get()) {
        Some(Counting::Done(c)) => Some(c),
        _ => None,
    };
    let filter = Filter::expect_or_new().0;
    let segments = &doc.envelope.messages[message].segments;
    // A message of one segment has its count in its header only.
    let several = segments.len() > 1;
    let row = ctl.model.with_value(|md| md.layout.chunk_row(message, chunk));
    let slots: Vec<AnyView> = chunk_segments(chunk, segments.len())
        .map(|sj| {
            let at = At { message, segment: sj };
            let badge = move || {
                counted().filter(|_| several).and_then(|c| c.segment_tokens(message, sj)).map(|t| {
                    view! { <span class="tok-badge" title="o200k_base tokens this segment sends">{format!("{t} tok")}</span> }
                })
            };
            let segment = segments[sj].clone();
            let kind = segment.kind();
            let lang = envelope::lang::segment_lang(&segment);
            view! {
                <div class="seg-slot" data-seg=sj lang=lang class:flash=move || nav.flashed().and_then(|t| t.at()) == Some(at)
                    class:filtered=move || filter.with(|f| !f.kinds.is_empty() && !f.kinds.contains(&kind))>
                    <Provider value=SegmentAt(at)>
                        <SegmentView segment=segment.clone() at/>
                    </Provider>
                    {badge}
                </div>
            }
            .into_any()
        })
        .collect();
    view! {
        <div class="chunk" class:cont={chunk > 0} data-row=row use:measured_row=(ctl, row)>{slots}</div>
    }
}

/// A length for a `style` value: to the thousandth of a pixel (finer than
/// any layout unit), without core's float printing (`display::decimal`).
fn px(x: f64) -> String {
    envelope::display::decimal(x, 3)
}
