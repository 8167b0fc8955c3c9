//! Text surfaces: Markdown (through the core's safe renderer in the Markdown
//! module, the only document text that goes into `inner_html`), plain text
//! with highlighted variables, and coloured JSON.

use std::sync::Arc;

use envelope::display::shown;
use envelope::jsonview::highlight_line;
use envelope::template::{pieces, Piece};
use leptos::prelude::*;

use crate::doc::Doc;
use crate::markdown::{self, Remote};
use crate::state::RemoteConsent;

/// The document the conversation shows, for components deep inside it.
#[derive(Clone)]
pub struct CurrentDoc(pub Arc<Doc>);

impl CurrentDoc {
    pub fn expect() -> Arc<Doc> {
        expect_context::<CurrentDoc>().0
    }
}

/// Markdown with the session's variables substituted and highlighted,
/// rendered by the Markdown module (`crate::markdown`). Until the module is
/// ready (or when it failed) the text shows as written, one paragraph per
/// block, variables highlighted (`class="md md-plain"`).
#[component]
pub fn Markdown(
    /// Markdown source as written in the document.
    #[prop(into)]
    source: String,
) -> impl IntoView {
    let doc = CurrentDoc::expect();
    markdown::preload();
    // The variables the text uses, for the module: name, value, name, value…
    let mut vars: Vec<String> = Vec::new();
    for p in pieces(&source, &|n: &str| doc.vars.get(n)) {
        if let Piece::Var { name, value } = p {
            vars.push(name.to_string());
            vars.push(value.to_string());
        }
    }
    let consent = RemoteConsent::expect();
    // Pathological or very large Markdown stays plain until asked (issue 12).
    let fallback = envelope::display::markdown_fallback(&source);
    let forced = RwSignal::new(false);
    let whole = RwSignal::new(false);
    move || {
        let held = fallback.filter(|_| !forced.get());
        let rendered = match held {
            Some(_) => None,
            // Absurd runs of combining marks collapsed (display only).
            None => {
                markdown::render(&shown(&source), &vars, if consent.allowed() { Remote::Load } else { Remote::Hold })
            }
        };
        match rendered {
            Some(html) => view! { <div class="md" inner_html=html></div> }.into_any(),
            None => {
                // Very long text is shown cut until asked (Copy and Download keep it whole).
                let (text, hidden) = cut(&source, whole);
                let cut_note = (hidden > 0).then(|| cut_note(hidden, whole));
                let blocks: Vec<AnyView> = text
                    .split("\n\n")
                    .map(|b| b.trim_matches(['\r', '\n']))
                    .filter(|b| !b.trim().is_empty())
                    .map(|b| view! { <p class="plain">{var_pieces(b, &doc)}</p> }.into_any())
                    .collect();
                match held {
                    Some(why) => view! {
                        <div class="md md-fallback">
                            <p class="fallback-note" data-testid="md-fallback">
                                {format!("{why}.")}" "
                                <button type="button" class="btn small" on:click=move |_| forced.set(true)>"Render as Markdown"</button>
                            </p>
                            {blocks}
                            {cut_note}
                        </div>
                    }
                    .into_any(),
                    None => view! { <div class="md md-plain">{blocks}{cut_note}</div> }.into_any(),
                }
            }
        }
    }
}

/// Plain text (kept as written, white space preserved by CSS) with the
/// session's variables substituted and highlighted: the value is shown, the
/// variable's name is on hover and focus.
#[component]
pub fn VarText(
    #[prop(into)] text: String,
    /// Wrapping element class.
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let doc = CurrentDoc::expect();
    let whole = RwSignal::new(false);
    move || {
        let (shown, hidden) = cut(&text, whole);
        view! {
            <span class=format!("plain {class}")>{var_pieces(shown, &doc)}</span>
            {(hidden > 0).then(|| cut_note(hidden, whole))}
        }
    }
}

/// Plain text shown exactly as written (no variables: text the export sends
/// unchanged), white space kept by CSS, cut when very long like [`VarText`].
#[component]
pub fn PlainText(
    #[prop(into)] text: String,
    /// Wrapping element class.
    #[prop(optional)]
    class: &'static str,
) -> impl IntoView {
    let whole = RwSignal::new(false);
    move || {
        let (text, hidden) = cut(&text, whole);
        view! {
            <span class=format!("plain {class}")>{shown(text).into_owned()}</span>
            {(hidden > 0).then(|| cut_note(hidden, whole))}
        }
    }
}

/// `text`, cut after [`envelope::display::PLAIN_MAX_BYTES`] unless `whole`
/// is set, and how many characters the cut leaves out.
pub fn cut(text: &str, whole: RwSignal<bool>) -> (&str, usize) {
    if whole.get() {
        (text, 0)
    } else {
        envelope::display::head(text, envelope::display::PLAIN_MAX_BYTES)
    }
}

/// What a cut text leaves out, and "Show all" (sets `whole`).
pub fn cut_note(hidden: usize, whole: RwSignal<bool>) -> impl IntoView {
    view! {
        <span class="cut-note" data-testid="text-cut">
            {format!(
                "{} more characters are not shown (Copy or Download give the whole text).",
                envelope::display::thousands(hidden as u64),
            )}" "
            <button type="button" class="btn small" on:click=move |_| whole.set(true)>"Show all (slow)"</button>
        </span>
    }
}

/// `text` as text nodes, with the session's variables substituted and marked.
fn var_pieces(text: &str, doc: &Doc) -> Vec<AnyView> {
    pieces(text, &|n: &str| doc.vars.get(n))
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => shown(t).into_owned().into_any(),
            Piece::Var { name, value } => var_mark(name, value).into_any(),
        })
        .collect()
}

/// A substituted value: highlighted, named on hover, and for assistive
/// technology by [`VarDescriptions`] (not a tab stop: there is nothing to do with it).
pub fn var_mark(name: &str, value: &str) -> impl IntoView {
    view! {
        <mark class="var" data-var=name.to_string()
            aria-describedby=format!("{}{name}", envelope::markdown::VAR_DESCRIPTION_PREFIX)
            title=format!("{{{{{name}}}}}")>
            {shown(value).into_owned()}
        </mark>
    }
}

/// One hidden element per session variable, `id="pep-var-NAME"`, that the
/// marks of substituted values name with `aria-describedby` ("variable NAME").
#[component]
pub fn VarDescriptions(doc: Arc<Doc>) -> impl IntoView {
    // Only for the variables a text uses (the others are never marked):
    // 50,000 unused variables made 50,000 elements. A document without
    // variables has nothing to describe: its texts are not scanned.
    let mut used = std::collections::HashSet::new();
    if !doc.var_defs.is_empty() {
        for m in &doc.envelope.messages {
            for s in &m.segments {
                envelope::template::for_each_text_field(s, |_, text| {
                    used.extend(envelope::template::placeholders(text).into_iter().map(|p| p.name.to_string()));
                });
            }
        }
    }
    let items: Vec<AnyView> = doc
        .var_defs
        .iter()
        .filter(|v| used.contains(&v.name))
        .map(|v| {
            let id = format!("{}{}", envelope::markdown::VAR_DESCRIPTION_PREFIX, v.name);
            view! { <span id=id>{format!("variable {}", v.name)}</span> }.into_any()
        })
        .collect();
    view! { <div hidden>{items}</div> }
}

/// Pretty JSON, coloured (for small values: tool schemas).
#[component]
pub fn JsonBlock(#[prop(into)] text: String) -> impl IntoView {
    let lines: Vec<AnyView> = text.lines().map(|l| json_line(l).into_any()).collect();
    view! { <pre class="json" tabindex="0" role="region" aria-label="JSON Schema">{lines}</pre> }
}

/// One coloured line of JSON (without its line break), a long `data:` URL abbreviated
/// (`envelope::jsonview::abbreviate_data_url`; the text itself stays whole).
pub fn json_line_abbrev(line: &str) -> impl IntoView {
    use envelope::jsonview::{abbreviate_data_url, cut_long_string, Token};
    let runs: Vec<AnyView> = highlight_line(line)
        .into_iter()
        .map(|(t, s)| {
            // A long `data:` URL, or a string over 20 KB (issue 12: one line of
            // megabytes costs seconds of layout), shown cut.
            let abbr = match t {
                Token::Str | Token::Key => abbreviate_data_url(s).or_else(|| {
                    cut_long_string(s).map(|(head, hidden)| {
                        format!(
                            "{} \u{27e8}{} more characters: Copy or Download give them all\u{27e9}",
                            shown(head),
                            envelope::display::thousands(hidden as u64)
                        )
                    })
                }),
                _ => None,
            };
            match abbr {
                Some(short) => view! { <span class=format!("{} j-abbr", t.class()) title="Shown abbreviated; Copy and Download keep it whole">{short}</span> }.into_any(),
                None => view! { <span class=t.class()>{shown(s).into_owned()}</span> }.into_any(),
            }
        })
        .collect();
    view! { <span class="jl">{runs}</span> }
}

/// One coloured line of JSON.
pub fn json_line(line: &str) -> impl IntoView {
    let runs: Vec<AnyView> = highlight_line(line)
        .into_iter()
        .map(|(t, s)| view! { <span class=t.class()>{shown(s).into_owned()}</span> }.into_any())
        .collect();
    view! { <span class="jl">{runs}"\n"</span> }
}
