//! Finding things: the search box ("n of m", next/previous), the filter by
//! role and segment kind, and the outline of the conversation. The state is
//! in [`crate::find`]; jumps go through the [`Navigator`].

use std::sync::Arc;

use envelope::search::{summary, LIMIT};
use envelope::{Role, KINDS};
use leptos::prelude::*;

use crate::browser;
use crate::budget::{Budget, Counting};
use crate::components::icons::{Ico, Icon};
use crate::doc::Doc;
use crate::find::{Filter, Search};
use crate::format::count;
use crate::hooks::use_key_down;
use crate::nav::Navigator;

/// The search box, with its count and next/previous buttons.
#[component]
pub fn SearchBox() -> impl IntoView {
    // Outside a viewer (a conversation mounted on its own) there is no search.
    let Some(search) = use_context::<Search>() else { return ().into_any() };
    let status = move || {
        if search.running.get() {
            return "Searching…".to_string();
        }
        match search.searched.get() {
            None => String::new(),
            Some(_) => {
                let n = search.matches.with(|m| m.len());
                let more = if n >= LIMIT { "+" } else { "" };
                match (n, search.current.get()) {
                    (0, _) => "No matches".to_string(),
                    (_, Some(i)) => format!("{} of {n}{more}", i + 1),
                    (_, None) => format!("{n}{more} matches"),
                }
            }
        }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
        "Enter" => {
            ev.prevent_default();
            let typed = search.query.get_untracked();
            if search.running.get_untracked() || search.searched.get_untracked().as_deref() != Some(typed.as_str()) {
                search.now();
            } else {
                search.step(if ev.shift_key() { -1 } else { 1 });
            }
        }
        "Escape" if !search.query.get_untracked().is_empty() => {
            ev.prevent_default();
            search.reset();
        }
        _ => {}
    };
    let none = move || search.matches.with(|m| m.is_empty());
    view! {
        <div class="finder" role="search">
            <Ico icon=Icon::Search/>
            <input type="search" class="search-input" data-testid="search" id="search"
                aria-label="Search the conversation (/ or Ctrl+K)" placeholder="Search ( / )" autocomplete="off"
                spellcheck="false" aria-describedby="search-count"
                prop:value=move || search.query.get()
                on:input=move |ev| search.input(event_target_value(&ev))
                on:keydown=on_key/>
            <span class="search-count muted" id="search-count" data-testid="search-count" aria-live="polite">{status}</span>
            <button type="button" class="btn small icon" aria-label="Previous match (Shift+Enter)" title="Previous match (Shift+Enter)"
                data-testid="search-prev" disabled=none on:click=move |_| search.step(-1)>
                <Ico icon=Icon::ChevronUp/>
            </button>
            <button type="button" class="btn small icon" aria-label="Next match (Enter)" title="Next match (Enter)"
                data-testid="search-next" disabled=none on:click=move |_| search.step(1)>
                <Ico icon=Icon::ChevronDown/>
            </button>
        </div>
    }
    .into_any()
}

/// The `name` the conversation's menus share: one open at a time (opening
/// one closes the other, `<details name>`).
const MENUS: &str = "conv-menu";

/// Escape closes the open menu of [`MENUS`], wherever the focus is (not
/// from a dialog's), and the focus returns to its button. Each menu listens;
/// the first to close it takes the key.
fn close_on_escape() {
    use_key_down(|ev| {
        if ev.key() != "Escape" || ev.default_prevented() || browser::query("dialog[open]").is_some() {
            return;
        }
        let Some(summary) = browser::query("details[name=conv-menu][open] > summary") else { return };
        if let Some(menu) = summary.parent_element() {
            let _ = menu.remove_attribute("open");
        }
        browser::focus_quietly(&summary);
        ev.prevent_default();
    });
}

/// The filter: roles and the segment kinds the document has; what is on
/// is said next to the conversation's count, with a way back.
#[component]
pub fn FilterMenu(doc: Arc<Doc>) -> impl IntoView {
    let filter = Filter::expect_or_new().0;
    close_on_escape();
    let kinds: Vec<&'static str> = KINDS
        .iter()
        .copied()
        .filter(|k| doc.envelope.messages.iter().any(|m| m.segments.iter().any(|s| s.kind() == *k)))
        .collect();
    let roles: Vec<Role> =
        Role::ALL.into_iter().filter(|r| doc.envelope.messages.iter().any(|m| m.role == *r)).collect();
    // The choices are made the first time the menu opens (D183); they stay.
    let opened = RwSignal::new(false);
    let body = move || {
        if !opened.get() {
            return None;
        }
        let roles = roles.clone();
        let kinds = kinds.clone();
        Some(view! {
                <fieldset>
                    <legend>"Roles"</legend>
                    {roles.into_iter().map(|r| view! {
                        <label>
                            <input type="checkbox" data-testid=format!("filter-role-{}", r.as_str())
                                prop:checked=move || filter.with(|f| f.roles.contains(&r))
                                on:change=move |_| filter.update(|f| f.toggle_role(r))/>
                            " "{r.as_str()}
                        </label>
                    }).collect::<Vec<_>>()}
                </fieldset>
                <fieldset>
                    <legend>"Segment kinds"</legend>
                    {kinds.into_iter().map(|k| view! {
                        <label>
                            <input type="checkbox" data-testid=format!("filter-kind-{k}")
                                prop:checked=move || filter.with(|f| f.kinds.contains(&k))
                                on:change=move |_| filter.update(|f| f.toggle_kind(k))/>
                            " "<code>{k}</code>
                        </label>
                    }).collect::<Vec<_>>()}
                </fieldset>
                <p class="muted small">"None ticked shows all. A message shows when its role is ticked and it has a segment of a ticked kind."</p>
        })
    };
    view! {
        <details class="menu filter-menu" data-testid="filter" name=MENUS on:toggle=move |ev| {
            let el: web_sys::HtmlDetailsElement = event_target(&ev);
            if el.open() {
                opened.set(true);
            }
        }>
            <summary class="btn small" class:on=move || filter.with(|f| f.is_active())>
                <Ico icon=Icon::ListFilter/>" Filter"
            </summary>
            <div class="menu-body">{body}</div>
        </details>
    }
}

/// "Filtered: …", how many messages show, and "Show all" (when a filter is on).
#[component]
pub fn FilterStatus(doc: Arc<Doc>) -> impl IntoView {
    let filter = Filter::expect_or_new().0;
    let total = doc.envelope.messages.len();
    move || {
        let f = filter.get();
        f.is_active().then(|| {
            let shown = doc.envelope.messages.iter().filter(|m| f.shows_message(m)).count();
            let mut what: Vec<String> = f.roles.iter().map(|r| r.as_str().to_string()).collect();
            what.extend(f.kinds.iter().map(|k| k.to_string()));
            view! {
                <p class="filter-status" role="status" data-testid="filter-status">
                    <Ico icon=Icon::ListFilter/>
                    {format!(" Filtered ({}): {shown} of {} shown ", what.join(", "), count(total, "message"))}
                    <button type="button" class="link" data-testid="filter-reset"
                        on:click=move |_| filter.set(Default::default())>"Show all"</button>
                </p>
            }
        })
    }
}

/// Outline entries rendered per "Show more".
const OUTLINE_PAGE: usize = 500;

/// The outline: every message (role, first words, tokens once counted); a
/// click jumps to it.
#[component]
pub fn Outline(doc: Arc<Doc>) -> impl IntoView {
    let nav = Navigator::expect();
    let open = RwSignal::new(false);
    let shown = RwSignal::new(OUTLINE_PAGE);
    let budget = use_context::<Budget>();
    let total = doc.envelope.messages.len();
    let filter = Filter::expect_or_new().0;
    close_on_escape();
    let list = move || {
        if !open.get() {
            return None;
        }
        let counted = match budget.map(|b| b.counting.get()) {
            Some(Counting::Done(c)) => Some(c),
            _ => None,
        };
        let current = nav.current_message().get();
        let n = shown.get().min(total);
        let items: Vec<AnyView> = doc.envelope.messages[..n]
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let tokens =
                    counted.as_ref().and_then(|c| c.part_index(i).map(|p| (c.parts[p].tokens, c.parts[p].estimate)));
                // Secrets masked (a key cut at 60 characters could escape the detector).
                let words = crate::secrets::masked_head(&summary(m, &doc.vars, 600), 60);
                let role = m.role.as_str();
                let hidden = filter.with_untracked(|f| !f.shows_message(m));
                view! {
                    <li class:hidden-by-filter=hidden>
                        <button type="button" class=format!("outline-item role-{role}")
                            aria-current=(current == Some(i)).then_some("location")
                            on:click=move |_| nav.focus_message(i)>
                            <span class="outline-role">{role}</span>
                            <span class="outline-words">{if words.is_empty() { "(empty)".to_string() } else { words }}</span>
                            {tokens.map(|(t, est)| view! { <span class="badge tok">{format!("{t}{} tok", if est { "*" } else { "" })}</span> })}
                        </button>
                    </li>
                }
                .into_any()
            })
            .collect();
        Some(view! {
            <ol class="outline-list" data-testid="outline-list">{items}</ol>
            {(n < total).then(|| view! {
                <button type="button" class="btn small" on:click=move |_| shown.update(|s| *s += OUTLINE_PAGE)>
                    {format!("Show {} more of {total}", OUTLINE_PAGE.min(total - n))}
                </button>
            })}
        })
    };
    view! {
        <details class="menu outline" data-testid="outline" name=MENUS on:toggle=move |ev| {
            let el: web_sys::HtmlDetailsElement = event_target(&ev);
            open.set(el.open());
        }>
            <summary class="btn small"><Ico icon=Icon::List/>" Outline"</summary>
            <nav class="menu-body" aria-label="Outline">{list}</nav>
        </details>
    }
}
