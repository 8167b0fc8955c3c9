//! Text surfaces: Markdown (through the core's safe renderer, the only
//! document text that goes into `inner_html`), plain text with highlighted
//! variables, and coloured JSON.

use std::sync::Arc;

use envelope::jsonview::highlight_line;
use envelope::markdown::render_markdown_with_vars;
use envelope::template::{pieces, Piece};
use leptos::prelude::*;

use crate::doc::Doc;

/// The document the conversation shows, for components deep inside it.
#[derive(Clone)]
pub struct CurrentDoc(pub Arc<Doc>);

impl CurrentDoc {
    pub fn expect() -> Arc<Doc> {
        expect_context::<CurrentDoc>().0
    }
}

/// Markdown with the session's variables substituted and highlighted.
#[component]
pub fn Markdown(
    /// Markdown source as written in the document.
    #[prop(into)]
    source: String,
) -> impl IntoView {
    let doc = CurrentDoc::expect();
    let html = render_markdown_with_vars(&source, &|n: &str| doc.vars.get(n));
    view! { <div class="md" inner_html=html></div> }
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
    let views: Vec<AnyView> = pieces(&text, &|n: &str| doc.vars.get(n))
        .into_iter()
        .map(|p| match p {
            Piece::Text(t) => t.to_string().into_any(),
            Piece::Var { name, value } => var_mark(name, value).into_any(),
        })
        .collect();
    view! { <span class=format!("plain {class}")>{views}</span> }
}

/// A substituted value: highlighted, named on hover and focus.
pub fn var_mark(name: &str, value: &str) -> impl IntoView {
    view! {
        <mark class="var" data-var=name.to_string() tabindex="0" title=format!("{{{{{name}}}}}")>
            {value.to_string()}
        </mark>
    }
}

/// Pretty JSON, coloured (for small values: tool schemas).
#[component]
pub fn JsonBlock(#[prop(into)] text: String) -> impl IntoView {
    let lines: Vec<AnyView> = text.lines().map(|l| json_line(l).into_any()).collect();
    view! { <pre class="json">{lines}</pre> }
}

/// One coloured line of JSON.
pub fn json_line(line: &str) -> impl IntoView {
    let runs: Vec<AnyView> = highlight_line(line)
        .into_iter()
        .map(|(t, s)| view! { <span class=t.class()>{s.to_string()}</span> }.into_any())
        .collect();
    view! { <span class="jl">{runs}"\n"</span> }
}
