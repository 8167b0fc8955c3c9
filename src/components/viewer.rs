//! The viewer of one document: the conversation and the protocol panel side
//! by side (one at a time on a phone), with the draggable divider; the
//! contexts its views share (navigation, budget, checks, search, filter,
//! remote-media consent).

use std::sync::Arc;

use leptos::prelude::*;

use crate::browser;
use crate::budget::Budget;
use crate::components::checks::Checks;
use crate::components::conversation::Conversation;
use crate::components::icons::{Ico, Icon};
use crate::components::loader::Warnings;
use crate::components::protocol_panel::ProtocolPanel;
use crate::components::shortcuts::Shortcuts;
use crate::doc::Doc;
use crate::edit::Editing;
use crate::find::{Filter, Search};
use crate::nav::Navigator;
use crate::state::{Prefs, RemoteConsent};

/// The two panes for a document, with the draggable divider.
#[component]
pub fn Viewer(#[prop(into)] doc: Signal<Option<Arc<Doc>>>) -> impl IntoView {
    let prefs = Prefs::expect();
    let editing = Editing::expect();
    let nav = Navigator::new();
    provide_context(nav);
    provide_context(Budget::new(doc));
    let consent = RemoteConsent::new(doc, prefs);
    provide_context(consent);
    Checks::new(doc);
    let filter = Filter(RwSignal::new(Default::default()));
    provide_context(filter);
    provide_context(Search::new(doc, filter, nav));
    let split = prefs.split;
    // The protocol panel (tabs, export, JSON) is half of the first screen
    // (issue 24). A document made at once (`Doc::at_once`, every demo) has it
    // in the conversation's own first frame (D183); a larger one's joins in
    // the frame after the conversation's first paint, so that the
    // conversation is not held back by its export (D113).
    let at_once = move || doc.with_untracked(|d| d.as_ref().is_some_and(|d| d.at_once()));
    let panel = RwSignal::new(at_once());
    let started = StoredValue::new(false);
    Effect::new(move |_| {
        if started.get_value() || doc.with(Option::is_none) {
            return;
        }
        started.set_value(true);
        let now = at_once();
        if now && !panel.get_untracked() {
            panel.set(true);
        }
        leptos::task::spawn_local(async move {
            if !now {
                browser::after_next_paint().await;
                panel.try_set(true);
            }
            // The panel's first frame: the first screen is complete. What
            // waits for the mark (the rows below the fold, the overscan, the
            // cold module) starts once the page is idle after it.
            browser::after_next_paint().await;
            browser::idle(250).await;
            browser::mark_first_screen_complete();
        });
    });
    let dragging = RwSignal::new(false);
    // On a phone one pane shows at a time; the bottom bar switches (CSS hides it on wider screens).
    let protocol = RwSignal::new(false);
    let on_move = move |ev: web_sys::PointerEvent| {
        if !dragging.get_untracked() {
            return;
        }
        let width = browser::viewport().0;
        split.set((ev.client_x() as f64 / width * 100.0).clamp(20.0, 80.0));
    };
    let on_key = move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
        "ArrowLeft" => split.update(|s| *s = (*s - 2.0).max(20.0)),
        "ArrowRight" => split.update(|s| *s = (*s + 2.0).min(80.0)),
        _ => {}
    };
    view! {
        <Shortcuts doc/>
        <main class="panes" id="main" tabindex="-1" aria-label="Document" class:show-protocol=move || protocol.get()
            style=move || format!("--split:{}%", envelope::display::decimal(split.get(), 2))
            on:pointermove=on_move
            on:pointerup=move |_| dragging.set(false)
            on:pointerleave=move |_| dragging.set(false)>
            <div class="pane left">
                <Warnings/>
                <RemoteMediaBar doc/>
                {move || match doc.get() {
                    // Edit mode shows other views of the segments: rebuilt on a toggle.
                    Some(d) => { editing.on.track(); view! { <Conversation doc=d/> }.into_any() }
                    None => view! { <p class="muted pad">"Loading…"</p> }.into_any(),
                }}
            </div>
            <div class="divider" role="separator" aria-orientation="vertical" tabindex="0"
                aria-label="Resize panes" aria-valuenow=move || envelope::display::decimal(split.get(), 0)
                class:active=move || dragging.get()
                on:pointerdown=move |ev| { ev.prevent_default(); dragging.set(true) }
                on:keydown=on_key></div>
            <div class="pane right">
                {move || panel.get().then(|| view! { <ProtocolPanel doc/> })}
            </div>
        </main>
        <nav class="pane-switch" aria-label="Panes" data-testid="pane-switch">
            <button type="button" aria-pressed=move || (!protocol.get()).to_string() data-testid="show-conversation"
                on:click=move |_| protocol.set(false)>
                <Ico icon=Icon::MessageSquare/>" Conversation"
            </button>
            <button type="button" aria-pressed=move || protocol.get().to_string() data-testid="show-protocol"
                on:click=move |_| protocol.set(true)>
                <Ico icon=Icon::Braces/>" Protocol"
            </button>
        </nav>
    }
}

/// Asks before anything of the document is fetched from another host: how
/// many remote media files, from which hosts; "Load remote media" (this
/// document) or "Always for this browser" (a preference).
#[component]
fn RemoteMediaBar(#[prop(into)] doc: Signal<Option<Arc<Doc>>>) -> impl IntoView {
    let consent = RemoteConsent::expect();
    let found = Memo::new(move |_| {
        doc.with(|d| d.as_ref().map(|d| envelope::remote::remote_media(&d.envelope)).unwrap_or_default())
    });
    move || {
        let r = found.get();
        (!r.is_empty() && !consent.allowed()).then(|| {
            let shown: Vec<&str> = r.hosts.iter().take(3).map(String::as_str).collect();
            let more = r.hosts.len().saturating_sub(shown.len());
            let hosts = if more > 0 { format!("{} and {more} more", shown.join(", ")) } else { shown.join(", ") };
            let files = if r.count == 1 { "1 remote media file".to_string() } else { format!("{} remote media files", r.count) };
            view! {
                <div class="notice remote-media" role="region" aria-label="Remote media" data-testid="remote-media">
                    <span>{format!("This document links {files} ({hosts}). Nothing is fetched from other hosts until you allow it.")}</span>
                    <span class="actions">
                        <button type="button" class="btn" data-testid="remote-allow" on:click=move |_| consent.allow_this()>"Load remote media"</button>
                        <button type="button" class="btn" data-testid="remote-always" on:click=move |_| consent.allow_always()>"Always for this browser"</button>
                    </span>
                </div>
            }
        })
    }
}
