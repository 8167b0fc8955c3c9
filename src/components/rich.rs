//! Text surfaces: Markdown (through the core's safe renderer in the Markdown
//! module, the only document text that goes into `inner_html`), plain text
//! with highlighted variables, and coloured JSON; in all of them secrets are
//! shown masked, each with a button that reveals it (`crate::secrets`).

use std::sync::Arc;

use envelope::display::shown;
use envelope::jsonview::highlight_line;
use envelope::template::{pieces, Piece};
use leptos::prelude::*;

use crate::doc::Doc;
use crate::markdown::{self, Remote};
use crate::secrets::{self, Found};
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
/// rendered by the core's renderer (`crate::markdown`). A text too large or
/// pathological to render at once shows as written until asked, one
/// paragraph per block, variables highlighted (`class="md md-plain"`).
#[component]
pub fn Markdown(
    /// Markdown source as written in the document.
    #[prop(into)]
    source: String,
) -> impl IntoView {
    let doc = CurrentDoc::expect();
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
            None => {
                // Secrets masked before rendering (revealed ones as written),
                // in the text and in the values of its variables.
                let masked = secrets::masked_markdown(&source, &vars);
                let (src, vars) = masked.as_ref().map_or((source.as_str(), &vars[..]), |m| (m.0.as_str(), &m.1[..]));
                // Absurd runs of combining marks collapsed (display only).
                let html =
                    markdown::render(&shown(src), vars, if consent.allowed() { Remote::Load } else { Remote::Hold });
                Some((html, masked.map(|m| m.2)))
            }
        };
        match rendered {
            Some((html, found)) => {
                let reveal = found.zip(secrets::views()).map(|(f, v)| (v.reveal_all)(f));
                view! { <div class="md" inner_html=html></div>{reveal} }.into_any()
            }
            None => {
                // Very long text is shown cut until asked (Copy and Download keep it whole).
                let found = secrets::in_text(&source);
                let (text, hidden) = cut_around(&source, whole, &found);
                let cut_note = (hidden > 0).then(|| cut_note(hidden, whole));
                let blocks: Vec<AnyView> = text
                    .split("\n\n")
                    .map(|b| b.trim_matches(['\r', '\n']))
                    .filter(|b| !b.trim().is_empty())
                    .map(|b| {
                        view! { <p class="plain">{var_pieces(b, offset(&source, b), &found, &doc)}</p> }.into_any()
                    })
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
        let found = secrets::in_text(&text);
        let (shown, hidden) = cut_around(&text, whole, &found);
        view! {
            <span class=format!("plain {class}")>{var_pieces(shown, 0, &found, &doc)}</span>
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
        let found = secrets::in_text(&text);
        let (text, hidden) = cut_around(&text, whole, &found);
        view! {
            <span class=format!("plain {class}")>{with_secrets(text, 0, &found)}</span>
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

/// [`cut`], the cut moved past a secret it would split (`found`: the
/// text's secrets): a secret is shown masked whole, never in part.
pub fn cut_around<'a>(text: &'a str, whole: RwSignal<bool>, found: &[Found]) -> (&'a str, usize) {
    let (head, hidden) = cut(text, whole);
    if hidden == 0 {
        return (head, 0);
    }
    let at = secrets::cut_point(found, head.len());
    (&text[..at], text[at..].chars().count())
}

/// Where `part`, a slice of `text`, starts in it.
pub fn offset(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

/// `part` of a text whose secrets are `found` (ranges in that text; `base`:
/// where `part` starts in it) as text nodes, each secret that starts in it
/// masked with its "show" button (`secrets`' views, the detector's
/// module: with no secret, nothing of it is called).
pub fn with_secrets(part: &str, base: usize, found: &[Found]) -> Vec<AnyView> {
    let end = base + part.len();
    match secrets::views().filter(|_| found.iter().any(|f| f.range.end > base && f.range.start < end)) {
        Some(views) => (views.text)(part, base, found),
        None => vec![plain(part)],
    }
}

/// Text as a text node, absurd runs of combining marks collapsed.
pub fn plain(text: &str) -> AnyView {
    shown(text).into_owned().into_any()
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

/// `part` of a text (at `base` in it; `found`: its secrets) as text nodes,
/// with the session's variables substituted and marked.
fn var_pieces(part: &str, base: usize, found: &[Found], doc: &Doc) -> Vec<AnyView> {
    let mut out = Vec::new();
    for p in pieces(part, &|n: &str| doc.vars.get(n)) {
        match p {
            Piece::Text(t) => out.extend(with_secrets(t, base + offset(part, t), found)),
            Piece::Var { name, value } => out.push(var_mark(name, value).into_any()),
        }
    }
    out
}

/// A substituted value: highlighted, named on hover, and for assistive
/// technology by [`VarDescriptions`] (not a tab stop: there is nothing to do with it).
pub fn var_mark(name: &str, value: &str) -> impl IntoView {
    view! {
        <mark class="var" data-var=name.to_string()
            aria-describedby=format!("{}{name}", envelope::markdown::VAR_DESCRIPTION_PREFIX)
            title=format!("{{{{{name}}}}}")>
            {masked_text(value)}
        </mark>
    }
}

/// `text` with its secrets masked, each with its button (tracked: call it
/// in a reactive closure, the detector may arrive later).
pub fn masked_text(text: &str) -> Vec<AnyView> {
    with_secrets(text, 0, &secrets::in_text(text))
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
    use envelope::jsonview::{abbreviate_data_url, cut_long_string, cut_note, Token, SHOWN_ABBREVIATED};
    let runs: Vec<AnyView> = highlight_line(line)
        .into_iter()
        .map(|(t, s)| {
            // A long `data:` URL, or a string over 20 KB (issue 12: one line of
            // megabytes costs seconds of layout), shown cut.
            let string = matches!(t, Token::Str | Token::Key);
            let title = SHOWN_ABBREVIATED;
            if let Some(short) = abbreviate_data_url(s).filter(|_| string) {
                return view! { <span class=format!("{} j-abbr", t.class()) title=title>{short}</span> }.into_any();
            }
            match cut_long_string(s).filter(|_| string) {
                Some((head, _)) => {
                    // Never cut inside a secret: it is shown masked whole.
                    let found = secrets::in_json_string(s);
                    let head = &s[..secrets::cut_point(&found, head.len())];
                    let note = cut_note(s[head.len()..].chars().count());
                    view! { <span class=format!("{} j-abbr", t.class()) title=title>{with_secrets(head, 0, &found)}{note}</span> }
                        .into_any()
                }
                None => json_token(t, s),
            }
        })
        .collect();
    runs
}

/// One coloured line of JSON.
pub fn json_line(line: &str) -> impl IntoView {
    let runs: Vec<AnyView> = highlight_line(line).into_iter().map(|(t, s)| json_token(t, s)).collect();
    view! { {runs}"\n" }
}

/// One coloured token of JSON, the secrets of a string masked.
fn json_token(t: envelope::jsonview::Token, s: &str) -> AnyView {
    use envelope::jsonview::Token;
    let found = if matches!(t, Token::Str | Token::Key) { secrets::in_json_string(s) } else { Vec::new() };
    view! { <span class=t.class()>{with_secrets(s, 0, &found)}</span> }.into_any()
}
