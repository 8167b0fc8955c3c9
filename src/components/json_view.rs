//! The JSON view: pretty JSON, coloured, folding, its long texts rendered a
//! screen at a time (the protocol panel's export and raw tabs, the Budget
//! tab's kept request).

use std::sync::Arc;

use envelope::jsonview::LineIndex;
use leptos::html;
use leptos::prelude::*;

use crate::browser;
use crate::components::rich::json_line_abbrev;
use crate::nav::Navigator;
use crate::secrets;

/// Files up to this many lines render whole; longer ones render the lines on screen.
const VIRTUAL_FROM_LINES: usize = 3000;
/// Height of one JSON line in pixels (the CSS sets the same).
const LINE_H: usize = 18;
const LINE_PX: f64 = LINE_H as f64;
/// Texts longer than this are indexed (lines, folds) this many bytes at a
/// time, a task each, so a document of tens of megabytes never freezes the
/// page while its JSON view prepares.
const INDEX_SLICE: usize = 1_000_000;

/// Lines and fold ends of a JSON text.
type Lines = (Arc<Vec<(usize, usize)>>, Arc<Vec<Option<usize>>>);

fn lines_of(ix: LineIndex) -> Lines {
    (Arc::new(ix.lines), Arc::new(ix.ends))
}

/// Pretty JSON, coloured, in a focusable scroll region named `label`.
/// Objects and arrays fold (a button on their opening line; ↑/↓ move between
/// those buttons, one tab stop for all); a long `data:` URL shows abbreviated
/// (Copy and Download take the text whole). Long texts render only the lines
/// on screen; a text of several megabytes is first indexed a slice per task
/// (with its progress shown), so the page stays responsive meanwhile.
#[component]
pub fn JsonView(
    #[prop(into)] text: Arc<str>,
    /// The line each envelope message's entry opens on (the OpenAI Chat
    /// request): the view then scrolls to the selected message's entry, and
    /// a click on an entry selects its message in the conversation.
    #[prop(default = None)]
    entries: Option<Arc<Vec<Option<usize>>>>,
    #[prop(into, default = "JSON".to_string())] label: String,
) -> impl IntoView {
    if text.len() <= INDEX_SLICE {
        let mut ix = LineIndex::new();
        ix.step(&text, usize::MAX);
        return view! { <JsonLines text lines=lines_of(ix) entries label/> }.into_any();
    }
    let total = text.len();
    let indexed = RwSignal::new(None::<Lines>);
    let progress = RwSignal::new(0usize);
    {
        let text = text.clone();
        leptos::task::spawn_local(async move {
            let mut ix = LineIndex::new();
            while !ix.step(&text, INDEX_SLICE) {
                // Gone (another tab, another document): stop.
                if progress.try_set(ix.position()).is_some() {
                    return;
                }
                browser::sleep(0).await;
            }
            indexed.try_set(Some(lines_of(ix)));
        });
    }
    (move || match indexed.get() {
        Some(lines) => view! { <JsonLines text=text.clone() lines entries=entries.clone() label=label.clone()/> }.into_any(),
        None => view! {
            <p class="muted pad" role="status" data-testid="json-indexing">
                <span class="spinner" aria-hidden="true"></span>
                {move || format!(" Preparing the JSON view ({}): {} %", crate::format::megabytes(total), (progress.get() as u64 * 100 / total.max(1) as u64))}
            </p>
        }
        .into_any(),
    })
    .into_any()
}

/// Characters a row of the JSON pane holds at the usual width (a window
/// ~1,400 px wide): the spacer's estimate of the rows below the first screen.
const ROW_CHARS: usize = 80;
/// Characters a row holds in a wide pane (a window ~2,200 px wide): the first
/// screen's rows are counted with it, so that they fill the pane (D196).
const WIDE_ROW_CHARS: usize = 120;

/// About how many rows a line of `len` bytes takes where a row holds
/// `per_row` characters: the pane wraps long lines.
fn wrapped_rows(len: usize, per_row: usize) -> usize {
    len.div_ceil(per_row).max(1)
}

/// [`JsonView`] once its text's lines are known.
#[component]
fn JsonLines(text: Arc<str>, lines: Lines, entries: Option<Arc<Vec<Option<usize>>>>, label: String) -> impl IntoView {
    let (lines, ends) = lines;
    let n = lines.len();
    let virtual_lines = n > VIRTUAL_FROM_LINES;
    let folded = RwSignal::new(std::collections::HashSet::<usize>::new());
    // The lines shown, in order (all of them until something folds).
    let visible = {
        let ends = ends.clone();
        Memo::new(move |_| {
            folded.with(|f| {
                if f.is_empty() {
                    return None;
                }
                let mut out = Vec::with_capacity(n);
                let mut i = 0;
                while i < n {
                    out.push(i);
                    i = match (f.contains(&i), ends[i]) {
                        (true, Some(e)) => e,
                        _ => i + 1,
                    };
                }
                Some(Arc::new(out))
            })
        })
    };
    let shown = move || visible.get().map_or(n, |v| v.len());
    let at = move |k: usize| visible.with(|v| v.as_ref().map_or(k, |v| v[k]));
    let line_view = {
        let (text, lines, ends) = (text.clone(), lines.clone(), ends.clone());
        move |i: usize, first_fold: bool| {
            let (s, e) = lines[i];
            let is_folded = move || folded.with(|f| f.contains(&i));
            let fold = ends[i].map(|end| {
                view! {
                    <button type="button" class="fold" tabindex=if first_fold { "0" } else { "-1" }
                        aria-expanded=move || (!is_folded()).to_string()
                        aria-label=format!("Lines {}–{}", i + 1, end + 1)
                        on:click=move |_| folded.update(|f| if !f.remove(&i) { f.insert(i); })></button>
                }
            });
            let marker = ends[i].map(|end| {
                let hidden = end - i - 1;
                move || is_folded().then(|| view! { <span class="j-folded">{format!(" … {hidden} lines ")}</span> })
            });
            let line = &text[s..e];
            view! { <span class="jrow" data-line=i>{fold}{json_line_abbrev(line)}{marker}"\n"</span> }
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        use wasm_bindgen::JsCast;
        let Some(t) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
        if !t.class_list().contains("fold") {
            return;
        }
        let Some(region) = t.closest(".json-region").ok().flatten() else { return };
        if browser::roving_step(&region, "button.fold", &t, &ev.key(), ("ArrowUp", "ArrowDown"), false) {
            ev.prevent_default();
        }
    };
    // On the first screen, the rows a screen can hold: the rows below the
    // fold (on demo F 120 of 188, three quarters of the panel's elements)
    // join once the first screen is complete, in a render and a layout of
    // their own; meanwhile a spacer keeps about their height, so the scroll
    // bar does not jump, and the `<pre>` says `data-partial` (D181). (The
    // long texts' window below renders the lines on screen anyway.) A long
    // line counts the rows it wraps to in a wide pane (D196): demo A's
    // system prompt is one line of 24 rows at the usual width. (In a wider
    // pane the spacer may show below the rows for the frame before the rest
    // joins.)
    let head = {
        let rows = (browser::viewport().1 / LINE_PX).ceil() as usize + 10;
        let (mut k, mut filled) = (0, 0);
        while k < n && filled < rows {
            let (s, e) = lines[k];
            filled += wrapped_rows(e - s, WIDE_ROW_CHARS);
            k += 1;
        }
        k
    };
    let all = RwSignal::new(virtual_lines || n <= head || browser::first_screen_is_complete());
    if !all.get_untracked() {
        leptos::task::spawn_local(async move {
            browser::first_screen_marked().await;
            all.try_set(true);
        });
    }
    let scroller = NodeRef::<html::Div>::new();
    let pre = NodeRef::<html::Pre>::new();
    let sync = entries.zip(use_context::<Navigator>());
    // A click here selected the message: the view stays where it is.
    let from_here = StoredValue::new(false);
    if let Some((entries, nav)) = sync.clone() {
        Effect::new(move |_| {
            let Some(m) = nav.selected() else { return };
            if std::mem::replace(&mut *from_here.write_value(), false) {
                return;
            }
            let Some(line) = entries.get(m).copied().flatten() else { return };
            // Its place among the lines shown (a fold may hide it: then nothing moves).
            let Some(k) =
                visible.with_untracked(|v| v.as_ref().map_or(Some(line), |v| v.iter().position(|&x| x == line)))
            else {
                return;
            };
            if virtual_lines {
                if let Some(el) = scroller.get_untracked() {
                    el.set_scroll_top((k as f64 * LINE_PX) as i32);
                }
            } else if let Some(el) = pre
                .get_untracked()
                .and_then(|p| p.query_selector(&format!(".jrow[data-line=\"{line}\"]")).ok().flatten())
            {
                // Only a pane of its own scrolls (not the page, on a phone).
                if let Some(sc) = browser::scroller(&el) {
                    browser::scroll_into_box(&sc, &el);
                }
            } else {
                // A row below the first screen's: again once it is there.
                all.track();
            }
        });
    }
    let on_click = move |ev: web_sys::MouseEvent| {
        // A fold button of the rows made as HTML (`push_row_html`): its line
        // folds or unfolds, and the button made anew keeps the focus.
        let fold = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .and_then(|t| t.closest("button.fold[data-fold]").ok().flatten())
            .and_then(|b| b.get_attribute("data-fold"))
            .and_then(|i| i.parse::<usize>().ok());
        if let Some(i) = fold {
            folded.update(|f| {
                if !f.remove(&i) {
                    f.insert(i);
                }
            });
            leptos::task::spawn_local(async move {
                browser::sleep(0).await;
                if let Some(b) = pre
                    .get_untracked()
                    .and_then(|p| p.query_selector(&format!("button.fold[data-fold=\"{i}\"]")).ok().flatten())
                {
                    browser::focus(&b);
                }
            });
        }
        let Some((entries, nav)) = sync.as_ref() else { return };
        if browser::has_selection() {
            return;
        }
        let Some(line_el) = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .and_then(|t| t.closest(".jrow").ok().flatten())
        else {
            return;
        };
        let Some(line) = line_el.get_attribute("data-line").and_then(|l| l.parse::<usize>().ok()) else { return };
        let message = entries.iter().rposition(|l| l.is_some_and(|l| l <= line));
        if let Some(m) = message {
            from_here.set_value(true);
            nav.reveal_message(m);
        }
    };
    if n <= VIRTUAL_FROM_LINES {
        let first = ends.iter().position(Option::is_some);
        // The lines shown from the `from`-th to before the `to`-th, made as
        // HTML a run at a time (one string, parsed once, instead of a view
        // per token: the panel's JSON is half of the first screen); a line
        // with a masked secret is a view of its own (its reveal button).
        // Tracks the folds and the secrets detector.
        let spans = lines.clone();
        let rows_in = move |from: usize, to: usize| {
            let has_secret = |s: &str| !secrets::in_json_string(s).is_empty();
            let mut out: Vec<AnyView> = Vec::new();
            let mut html = String::new();
            let flush = |html: &mut String, out: &mut Vec<AnyView>| {
                if !html.is_empty() {
                    let chunk = std::mem::take(html);
                    out.push(view! { <span class="jrows" inner_html=chunk></span> }.into_any());
                }
            };
            folded.with(|f| {
                for k in from..to.min(shown()) {
                    let i = at(k);
                    let (s, e) = lines[i];
                    if !push_row_html(&text[s..e], i, ends[i], Some(i) == first, f.contains(&i), &has_secret, &mut html)
                    {
                        flush(&mut html, &mut out);
                        out.push(line_view(i, Some(i) == first).into_any());
                    }
                }
            });
            flush(&mut html, &mut out);
            out
        };
        let head_rows = {
            let rows_in = rows_in.clone();
            move || rows_in(0, head)
        };
        let tail = move || match all.get() {
            true => rows_in(head, usize::MAX),
            false => {
                // About their height, at the usual width.
                let rows: usize =
                    (head..shown()).map(|k| spans[at(k)]).map(|(s, e)| wrapped_rows(e - s, ROW_CHARS)).sum();
                let px = rows * LINE_H;
                vec![view! { <span class="jrows-later" aria-hidden="true" style=format!("display:block;height:{px}px")></span> }
                    .into_any()]
            }
        };
        return view! {
            <div class="json-region json-view" tabindex="0" role="region" aria-label=label on:keydown=on_key>
                <pre class="json" data-testid="protocol-json" data-partial=move || (!all.get()).then_some("")
                    node_ref=pre on:click=on_click>{head_rows}{tail}</pre>
            </div>
        }
        .into_any();
    }
    let top = RwSignal::new(0.0f64);
    let height = RwSignal::new(800.0f64);
    let window = move || {
        let m = shown();
        let first = (top.get() / LINE_PX).floor().max(0.0) as usize;
        let count = (height.get() / LINE_PX).ceil() as usize + 40;
        let first = first.saturating_sub(20).min(m);
        (first, (first + count).min(m))
    };
    let on_scroll = move |_| {
        if let Some(el) = scroller.get() {
            top.set(el.scroll_top() as f64);
            height.set(el.client_height() as f64);
        }
    };
    view! {
        <div class="json-region json-scroll" node_ref=scroller on:scroll=on_scroll data-testid="protocol-json"
            data-lines=n.to_string() tabindex="0" role="region" aria-label=label on:keydown=on_key on:click=on_click>
            <pre class="json json-virtual" style=move || format!("height:{}px", shown() * LINE_H)>
                {move || {
                    let (a, b) = window();
                    // The one tab stop among the fold buttons: the first on screen.
                    let first = (a..b).map(at).find(|&i| ends[i].is_some());
                    let rows: Vec<AnyView> = (a..b)
                        .map(|k| {
                            let i = at(k);
                            view! {
                                <div class="vline" data-line=i style=format!("top:{}px", k * LINE_H)>{line_view(i, Some(i) == first)}</div>
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

/// One row of the JSON view as HTML (the view `line_view` makes): the line,
/// its fold button (`data-fold`: the view's click handler folds it) and, when
/// folded, what it hides. `false` (nothing written) for a line with a secret.
fn push_row_html(
    line: &str,
    i: usize,
    end: Option<usize>,
    first_fold: bool,
    is_folded: bool,
    has_secret: &dyn Fn(&str) -> bool,
    out: &mut String,
) -> bool {
    use std::fmt::Write;
    let start = out.len();
    let _ = write!(out, "<span class=\"jrow\" data-line=\"{i}\">");
    if let Some(end) = end {
        let _ = write!(
            out,
            "<button type=\"button\" class=\"fold\" data-fold=\"{i}\" tabindex=\"{}\" aria-expanded=\"{}\" aria-label=\"Lines {}\u{2013}{}\"></button>",
            if first_fold { 0 } else { -1 },
            !is_folded,
            i + 1,
            end + 1
        );
    }
    if !envelope::jsonview::push_line_html(line, has_secret, out) {
        out.truncate(start);
        return false;
    }
    if let (Some(end), true) = (end, is_folded) {
        let _ = write!(out, "<span class=\"j-folded\"> \u{2026} {} lines </span>", end - i - 1);
    }
    out.push_str("\n</span>");
    true
}
