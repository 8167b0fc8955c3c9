//! The protocol panel: the exact OpenAI request and the raw envelope, live,
//! with copy and download.

use std::sync::Arc;

use crate::components::icons::Ico;
use envelope::jsonview::line_ranges;
use leptos::html;
use leptos::prelude::*;

use crate::browser;
use crate::components::budget::BudgetPanel;
use crate::components::rich::json_line;
use crate::doc::Doc;
use crate::state::{Prefs, Tab};

/// Files up to this many lines render whole; longer ones render the lines on screen.
const VIRTUAL_FROM_LINES: usize = 3000;
/// Height of one JSON line in pixels (the CSS sets the same).
const LINE_PX: f64 = 18.0;

/// The right-hand pane.
#[component]
pub fn ProtocolPanel(#[prop(into)] doc: Signal<Option<Arc<Doc>>>) -> impl IntoView {
    let prefs = Prefs::expect();
    let tab = prefs.tab;
    let status = RwSignal::new(None::<(bool, String)>);
    // The conversation paints first; the JSON follows one frame later
    // rather than lengthening the first screen (for demo F, ~190 coloured
    // lines and their layout; for a large document, far more).
    let ready = RwSignal::new(false);
    Effect::new(move |_| {
        doc.track();
        ready.set(false);
        leptos::task::spawn_local(async move {
            browser::after_next_paint().await;
            ready.try_set(true);
        });
    });
    let text = move || {
        doc.with(|d| {
            d.as_ref().map(|d| match tab.get() {
                Tab::Raw => d.raw_text(),
                _ => d.openai_text(),
            })
        })
    };
    let file_name = move || {
        doc.with(|d| {
            d.as_ref().map(|d| match tab.get() {
                Tab::Raw => format!("{}.envelope.json", d.source.stem()),
                _ => format!("{}.openai.json", d.source.stem()),
            })
        })
    };
    let copy = move |_| {
        let Some(t) = text() else { return };
        leptos::task::spawn_local(async move {
            let r = browser::copy_text(&t).await;
            status.try_set(Some(match r {
                Ok(()) => (true, "Copied to the clipboard".to_string()),
                Err(e) => (false, format!("Copy failed: {e}")),
            }));
        });
    };
    let download = move |_| {
        let (Some(t), Some(name)) = (text(), file_name()) else { return };
        status.set(Some(match browser::download_text(&name, &t, "application/json") {
            Ok(()) => (true, format!("Saved {name}")),
            Err(e) => (false, format!("Download failed: {e}")),
        }));
    };
    let tab_button = move |t: Tab, label: &'static str, testid: &'static str| {
        view! {
            <button type="button" role="tab" class="tab" data-testid=testid
                aria-selected=move || (tab.get() == t).to_string()
                on:click=move |_| { tab.set(t); status.set(None); }>
                {label}
            </button>
        }
    };
    view! {
        <section class="protocol" aria-label="Protocol">
            <div class="protocol-bar">
                <div role="tablist" class="tabs">
                    {tab_button(Tab::Openai, "OpenAI format", "tab-openai")}
                    {tab_button(Tab::Raw, "Raw protocol", "tab-raw")}
                    {tab_button(Tab::Budget, "Budget", "tab-budget")}
                </div>
                <Show when=move || tab.get() != Tab::Budget>
                    <div class="actions">
                        <button type="button" class="btn" data-testid="copy-json" on:click=copy>
                            <Ico name="copy"/>" Copy"
                        </button>
                        <button type="button" class="btn" data-testid="download-json" on:click=download>
                            <Ico name="download"/>" Download"
                        </button>
                    </div>
                </Show>
            </div>
            {move || status.get().map(|(ok, msg)| view! {
                <div class="status" class:error=!ok role="status" data-testid="copy-status">{msg}</div>
            })}
            {move || match tab.get() {
                Tab::Budget => view! { <BudgetPanel/> }.into_any(),
                _ if !ready.get() => view! { <p class="muted pad">"Preparing the JSON…"</p> }.into_any(),
                _ => match text() {
                    Some(t) => view! { <JsonView text=t/> }.into_any(),
                    None => view! { <p class="muted pad">"No document."</p> }.into_any(),
                },
            }}
        </section>
    }
}

/// Pretty JSON, coloured; long texts render only the lines on screen.
#[component]
pub fn JsonView(#[prop(into)] text: Arc<str>) -> impl IntoView {
    let lines = Arc::new(line_ranges(&text));
    let n = lines.len();
    if n <= VIRTUAL_FROM_LINES {
        let rows: Vec<AnyView> = lines.iter().map(|&(a, b)| json_line(&text[a..b]).into_any()).collect();
        return view! { <pre class="json json-view" data-testid="protocol-json">{rows}</pre> }.into_any();
    }
    let scroller = NodeRef::<html::Div>::new();
    let top = RwSignal::new(0.0f64);
    let height = RwSignal::new(800.0f64);
    let window = move || {
        let first = (top.get() / LINE_PX).floor().max(0.0) as usize;
        let count = (height.get() / LINE_PX).ceil() as usize + 40;
        let first = first.saturating_sub(20).min(n);
        (first, (first + count).min(n))
    };
    let on_scroll = move |_| {
        if let Some(el) = scroller.get() {
            top.set(el.scroll_top() as f64);
            height.set(el.client_height() as f64);
        }
    };
    view! {
        <div class="json-scroll" node_ref=scroller on:scroll=on_scroll data-testid="protocol-json"
            data-lines=n.to_string()>
            <pre class="json json-virtual" style=format!("height:{}px", n as f64 * LINE_PX)>
                {move || {
                    let (a, b) = window();
                    let rows: Vec<AnyView> = (a..b)
                        .map(|i| {
                            let (s, e) = lines[i];
                            view! {
                                <div class="vline" style=format!("top:{}px", i as f64 * LINE_PX)>{json_line(&text[s..e])}</div>
                            }
                            .into_any()
                        })
                        .collect();
                    rows
                }}
            </pre>
        </div>
    }
    .into_any()
}
