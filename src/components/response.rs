//! The Response view (`/response`): a model's output for the document on
//! screen, checked as `pep test` checks it. The user pastes or opens the
//! output (the model's text, or a provider response body of any supported
//! format) and, optionally, a golden output; "Check" sends them to the
//! engine (`worker::response`), which takes the text out of a response body,
//! reads it as JSON (prose around it fails, and says so), validates it
//! against the document's output schema with the strict validator (each
//! violation at its JSON Pointer) and compares it with the golden output
//! field by field under the match rules (`- expected` / `+ actual`).
//!
//! The output schema is the document's own (`envelope::output_schema::find`:
//! `response_format`, `text.format`, `output_config.format`,
//! `responseSchema`, …), shown with where it was found; a pasted schema
//! replaces it. Nothing leaves the page: the engine is a worker of this page.
//! Every string here (output, schema, golden, messages quoting them) is
//! hostile and shown as text.

use std::sync::Arc;

use envelope::output_schema::{find, OutputSchema};
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::format::count;
use crate::state::Session;
use crate::worker;
use crate::worker::response::{Comparison, Difference, Parsed, Reply, Request, Rules, Validation, Violation};

/// A file opened into a text box larger than this is refused (outputs and
/// golden files are small; a response body of a few MB at most).
const MAX_BYTES: f64 = 16e6;
/// A value in the diff is shown in at most this many characters.
const VALUE_CHARS: usize = 300;

/// The check's state.
#[derive(Clone, Debug, PartialEq)]
enum Checking {
    Idle,
    Running,
    Done(Arc<Reply>, SchemaFrom),
    /// The check could not be made: why.
    Failed(String),
}

/// Which schema a check used.
#[derive(Clone, Debug, PartialEq)]
enum SchemaFrom {
    None,
    /// The document's, found at this path.
    Document(String),
    Pasted,
}

/// The match rules from the form: ignore, one JSON Pointer per line; fuzzy,
/// a pointer and a threshold per line (`/summary 0.6`). Empty lines are
/// skipped; a line that does not read is the error, with its number.
fn parse_rules(ignore: &str, fuzzy: &str) -> Result<Rules, String> {
    let mut rules = Rules::default();
    for line in ignore.lines().map(str::trim).filter(|l| !l.is_empty()) {
        rules.ignore.push(line.to_string());
    }
    for (n, line) in fuzzy.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (pointer, threshold) = line
            .rsplit_once(char::is_whitespace)
            .ok_or_else(|| format!("Fuzzy, line {}: a pointer and a threshold, e.g. “/summary 0.6”", n + 1))?;
        let t: f64 = threshold
            .parse()
            .ok()
            .filter(|t: &f64| (0.0..=1.0).contains(t))
            .ok_or_else(|| format!("Fuzzy, line {}: the threshold must be a number from 0 to 1", n + 1))?;
        rules.fuzzy.push((pointer.trim().to_string(), t));
    }
    for p in rules.ignore.iter().chain(rules.fuzzy.iter().map(|(p, _)| p)) {
        if !p.starts_with('/') {
            return Err(format!("{p:?} is not a JSON Pointer: it starts with “/”, e.g. /summary or /items/*/id"));
        }
    }
    Ok(rules)
}

/// The schema pasted by the user, read as JSON (its error with line and column).
fn pasted_schema(text: &str) -> Result<Value, String> {
    serde_json::from_str(text)
        .map_err(|e| format!("The pasted schema is not JSON (line {}, column {}): {e}", e.line(), e.column()))
}

/// Where the text came from, for people.
fn source_name(from: &str) -> &'static str {
    match from {
        "openai-chat" => "an OpenAI Chat Completions response",
        "openai-responses" => "an OpenAI Responses response",
        "anthropic" => "an Anthropic Messages response",
        "gemini" => "a Gemini response",
        "bedrock" => "a Bedrock Converse response",
        _ => "a response body",
    }
}

/// A value in the diff: a Length's `[3 items]` as written, any other value
/// as compact JSON, cut at [`VALUE_CHARS`].
fn value_text(kind: &str, v: &Option<Value>) -> String {
    match v {
        None => "(absent)".to_string(),
        Some(Value::String(s)) if kind == "length" => s.clone(),
        Some(v) => {
            let s = v.to_string();
            if s.chars().count() <= VALUE_CHARS {
                s
            } else {
                format!("{}…", s.chars().take(VALUE_CHARS).collect::<String>())
            }
        }
    }
}

/// A pointer as shown: the root named.
fn path_text(p: &str) -> String {
    if p.is_empty() {
        "(the whole output)".to_string()
    } else {
        p.to_string()
    }
}

/// `/response`.
#[component]
pub fn ResponsePage() -> impl IntoView {
    let session = Session::expect();
    let found: Memo<Option<OutputSchema>> =
        Memo::new(move |_| session.doc.with(|d| d.as_ref().and_then(|d| find(&d.envelope))));
    let doc_label = move || session.doc.with(|d| d.as_ref().map(|d| d.source.label()));
    let output = RwSignal::new(String::new());
    let golden = RwSignal::new(String::new());
    let schema_text = RwSignal::new(String::new());
    let ignore = RwSignal::new(String::new());
    let fuzzy = RwSignal::new(String::new());
    let state = RwSignal::new(Checking::Idle);
    let asked = StoredValue::new(0u64);
    let heading = NodeRef::<leptos::html::H3>::new();
    let page = NodeRef::<leptos::html::Main>::new();

    let check = move |_| {
        let seq = asked.get_value() + 1;
        asked.set_value(seq);
        let request = (|| {
            let rules = parse_rules(&ignore.get_untracked(), &fuzzy.get_untracked())?;
            let pasted = schema_text.get_untracked();
            let (schema, from) = if !pasted.trim().is_empty() {
                (Some(pasted_schema(&pasted)?), SchemaFrom::Pasted)
            } else {
                match found.get_untracked() {
                    Some(s) => (Some(s.schema), SchemaFrom::Document(s.at)),
                    None => (None, SchemaFrom::None),
                }
            };
            let g = golden.get_untracked();
            let golden = (!g.trim().is_empty()).then_some(g);
            Ok::<_, String>((Request { schema, output: output.get_untracked(), golden, rules }, from))
        })();
        let focus_results = move || {
            leptos::task::spawn_local(async move {
                browser::next_frame().await;
                if let Some(h) = heading.try_get_untracked().flatten() {
                    // The results from their heading, as far up as the page's own
                    // scroller goes (not `scrollIntoView`, which also scrolls the
                    // app's clipped frame on a phone and pushes the header out).
                    if let Some(m) = page.try_get_untracked().flatten() {
                        let top = h.get_bounding_client_rect().top() - m.get_bounding_client_rect().top();
                        m.set_scroll_top(m.scroll_top() + top as i32 - 8);
                    }
                    browser::focus(&h);
                }
            });
        };
        match request {
            Err(e) => {
                state.set(Checking::Failed(e));
                focus_results();
            }
            Ok((request, from)) => {
                state.set(Checking::Running);
                leptos::task::spawn_local(async move {
                    let r = worker::response::check(request).await;
                    if asked.try_get_value() != Some(seq) {
                        return;
                    }
                    state.try_set(match r {
                        Ok(reply) => Checking::Done(Arc::new(reply), from),
                        Err(e) => Checking::Failed(format!("The engine could not check the output: {e}")),
                    });
                    focus_results();
                });
            }
        }
    };

    view! {
        <main class="response-page pad" id="main" tabindex="-1" data-testid="response" node_ref=page>
            <h2>"Check a response"</h2>
            <p class="muted">"Paste or open a model’s output for the document on screen: its text, or a provider’s response body (OpenAI, Anthropic, Gemini, Bedrock). It is read as JSON, validated against the document’s output schema (strictly: null is not a string, extra fields are refused where the schema says so) and compared field by field with a golden output, as "<code>"pep test"</code>" does. Nothing is sent anywhere: the check runs in this page."</p>
            <section class="response-schema" aria-labelledby="response-schema-h" data-testid="response-schema">
                <h3 id="response-schema-h">"Output schema"</h3>
                {move || match (found.get(), doc_label()) {
                    (Some(s), label) => view! { <FoundSchema s label/> }.into_any(),
                    (None, Some(label)) => view! {
                        <p data-testid="response-no-schema">{format!("This document ({label}) asks for no output schema: its settings have no response_format, text.format, output_config.format or responseSchema. Paste a schema below to validate against it.")}</p>
                    }.into_any(),
                    (None, None) => view! {
                        <p data-testid="response-no-schema">"No document is on screen yet, so there is no output schema to use: open a document or a demo first, or paste a schema below."</p>
                    }.into_any(),
                }}
                <details class="response-paste-schema" open=move || found.with_untracked(Option::is_none)>
                    <summary>{move || if found.with(Option::is_some) { "Use another schema instead" } else { "Paste a schema" }}</summary>
                    <TextBox label="JSON Schema (replaces the document’s when not empty)" testid="response-schema-text" text=schema_text rows=6/>
                </details>
            </section>
            <div class="response-inputs">
                <TextBox label="Model output (its text, or a provider response body)" testid="response-output" text=output rows=10 open=true/>
                <TextBox label="Golden output (optional; JSON)" testid="response-golden" text=golden rows=10 open=true/>
            </div>
            <details class="response-rules" data-testid="response-rules">
                <summary>"Match rules"</summary>
                <p class="muted">"As in pep-test.toml’s [match]: every field is compared exactly (numbers by value) unless a rule names it. JSON Pointers; * matches any array index or key."</p>
                <div class="response-inputs">
                    <TextBox label="Ignore (one pointer per line)" testid="response-ignore" text=ignore rows=3/>
                    <TextBox label="Fuzzy (a pointer and a threshold from 0 to 1 per line: /summary 0.6)" testid="response-fuzzy" text=fuzzy rows=3/>
                </div>
            </details>
            <div class="row response-actions">
                <button type="button" class="btn primary" data-testid="response-check" on:click=check
                    disabled=move || state.with(|s| *s == Checking::Running)>"Check"</button>
            </div>
            {move || (!matches!(state.get(), Checking::Idle)).then(|| view! {
                <section class="response-results" aria-labelledby="response-results-h" data-testid="response-results">
                    <h3 id="response-results-h" tabindex="-1" node_ref=heading>"Results"</h3>
                    {move || match state.get() {
                        Checking::Idle => ().into_any(),
                        Checking::Running => view! {
                            <p class="muted" role="status" data-testid="response-running"><span class="spinner" aria-hidden="true"></span>" Checking in the engine…"</p>
                        }.into_any(),
                        Checking::Failed(e) => view! { <p class="notice error" role="alert" data-testid="response-error">{e}</p> }.into_any(),
                        Checking::Done(reply, from) => view! { <Results reply from/> }.into_any(),
                    }}
                </section>
            })}
        </main>
    }
}

/// The document's schema: where it was found, its name, and the schema.
#[component]
fn FoundSchema(s: OutputSchema, label: Option<String>) -> impl IntoView {
    let pretty = serde_json::to_string_pretty(&s.schema).unwrap_or_default();
    let mut about = format!("From {}", s.at);
    if let Some(l) = label {
        about.push_str(&format!(" of {l}"));
    }
    if let Some(n) = &s.name {
        about.push_str(&format!(", named “{n}”"));
    }
    match s.strict {
        Some(true) => about.push_str(", strict"),
        Some(false) => about.push_str(", not strict"),
        None => {}
    }
    about.push('.');
    let openapi = s.openapi();
    view! {
        <p data-testid="response-schema-from">{about}</p>
        {openapi.then(|| view! {
            <p class="muted">"This is Gemini’s OpenAPI subset; it is checked as JSON Schema, which reads the same keywords."</p>
        })}
        <details class="response-schema-json">
            <summary>"Show the schema"</summary>
            <pre class="response-pre" tabindex="0" role="region" aria-label="The output schema" data-testid="response-schema-json">{pretty}</pre>
        </details>
    }
}

/// A labelled text box, and a file opened into it.
#[component]
fn TextBox(
    label: &'static str,
    testid: &'static str,
    text: RwSignal<String>,
    rows: u32,
    /// Whether it has "Open a file…".
    #[prop(optional)]
    open: bool,
) -> impl IntoView {
    let id = format!("{testid}-box");
    let failed = RwSignal::new(None::<String>);
    let on_file = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            if file.size() > MAX_BYTES {
                failed.set(Some(format!("{} is too large to check here (over 16 MB).", file.name())));
            } else {
                leptos::task::spawn_local(async move {
                    match browser::read_file(&file).await {
                        Ok(bytes) => {
                            failed.try_set(None);
                            text.try_set(String::from_utf8_lossy(&bytes).into_owned());
                        }
                        Err(e) => {
                            failed.try_set(Some(format!("{} could not be read: {e}", file.name())));
                        }
                    }
                });
            }
        }
        input.set_value("");
    };
    view! {
        <div class="response-box">
            <div class="response-box-head">
                <label for=id.clone()>{label}</label>
                {open.then(|| view! {
                    <label class="btn small" title="Open a file into this box">
                        "Open a file…"
                        <input type="file" class="visually-hidden" data-testid=format!("{testid}-file")
                            accept=".json,.txt,.jsonl,application/json,text/plain" on:change=on_file/>
                    </label>
                })}
            </div>
            <textarea id=id data-testid=testid spellcheck="false" autocomplete="off" rows=rows.to_string()
                prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            {move || failed.get().map(|e| view! { <p class="notice error" role="alert">{e}</p> })}
        </div>
    }
}

/// What the engine found.
#[component]
fn Results(reply: Arc<Reply>, from: SchemaFrom) -> impl IntoView {
    let parsed_ok = matches!(reply.parsed, Parsed::Json { .. });
    let violations = match &reply.validation {
        Validation::Checked { violations, more } => violations.len() + more,
        _ => 0,
    };
    let differences = match &reply.comparison {
        Comparison::Compared { differences, more } => differences.len() + more,
        _ => 0,
    };
    let broken = matches!(reply.validation, Validation::SchemaError { .. })
        || matches!(reply.comparison, Comparison::GoldenError { .. });
    let pass = parsed_ok && violations == 0 && differences == 0 && !broken;
    let mut problems = Vec::new();
    if !parsed_ok {
        problems.push("the output is not JSON".to_string());
    }
    if violations > 0 {
        problems.push(count(violations, "schema violation"));
    }
    if differences > 0 {
        problems.push(format!("{} from the golden output", count(differences, "difference")));
    }
    if broken {
        problems.push("an input does not read".to_string());
    }
    let summary = if pass { "Passes.".to_string() } else { format!("Fails: {}.", problems.join(", ")) };
    let taken = if reply.text_from == "text" {
        "Read as the model’s text.".to_string()
    } else {
        let model = reply.model.as_ref().map(|m| format!(" (model {m})")).unwrap_or_default();
        format!("Text taken from {}{model}.", source_name(&reply.text_from))
    };
    let reply2 = reply.clone();
    view! {
        <p class="response-verdict" class:ok-text=pass class:bad-text=!pass data-testid="response-verdict">{summary}</p>
        <h4>"Output"</h4>
        <p data-testid="response-taken">{taken}</p>
        {match reply.parsed.clone() {
            Parsed::Json { .. } => view! { <p class="ok-text" data-testid="response-parsed">"It reads as JSON."</p> }.into_any(),
            Parsed::Failed { message } => view! {
                <p class="notice error" data-testid="response-parse-error">{message}</p>
            }.into_any(),
        }}
        {(reply.text_from != "text").then(|| view! {
            <details>
                <summary>"Show the text taken"</summary>
                <pre class="response-pre" tabindex="0" role="region" aria-label="The text taken" data-testid="response-text">{reply2.text.clone()}</pre>
            </details>
        })}
        <h4>"Schema"</h4>
        <SchemaResults validation=reply.validation.clone() from/>
        <h4>"Golden output"</h4>
        <GoldenResults comparison=reply.comparison.clone()/>
    }
}

#[component]
fn SchemaResults(validation: Validation, from: SchemaFrom) -> impl IntoView {
    let which = match from {
        SchemaFrom::Document(at) => format!("the document’s schema ({at})"),
        SchemaFrom::Pasted => "the pasted schema".to_string(),
        SchemaFrom::None => "no schema".to_string(),
    };
    match validation {
        Validation::NoSchema => view! {
            <p class="muted" data-testid="response-schema-none">"Not validated: there is no output schema (paste one above)."</p>
        }
        .into_any(),
        Validation::SchemaError { message } => view! {
            <p class="notice error" data-testid="response-schema-error">{format!("The schema is unusable: {message}")}</p>
        }
        .into_any(),
        Validation::NotParsed => view! {
            <p class="muted" data-testid="response-schema-skipped">"Not validated: the output is not JSON."</p>
        }
        .into_any(),
        Validation::Checked { violations, more } if violations.is_empty() => {
            let _ = more;
            view! { <p class="ok-text" data-testid="response-valid">{format!("Valid against {which}.")}</p> }.into_any()
        }
        Validation::Checked { violations, more } => {
            let n = violations.len() + more;
            view! {
                <p data-testid="response-violations-count">{format!("{} of {which}:", count(n, "violation"))}</p>
                <ul class="response-list">
                    {violations.into_iter().map(|v: Violation| view! {
                        <li data-testid="response-violation" data-path=v.path.clone()>
                            <code class="response-path">{path_text(&v.path)}</code>
                            " "<span class="badge bad">{v.keyword}</span>" "
                            <span>{v.message}</span>
                        </li>
                    }).collect::<Vec<_>>()}
                </ul>
                {(more > 0).then(|| view! { <p class="muted">{format!("and {} more", count(more, "violation"))}</p> })}
            }
            .into_any()
        }
    }
}

#[component]
fn GoldenResults(comparison: Comparison) -> impl IntoView {
    match comparison {
        Comparison::NoGolden => view! {
            <p class="muted" data-testid="response-golden-none">"Not compared: no golden output given."</p>
        }
        .into_any(),
        Comparison::GoldenError { message } => view! {
            <p class="notice error" data-testid="response-golden-error">{message}</p>
        }
        .into_any(),
        Comparison::NotParsed => view! {
            <p class="muted" data-testid="response-golden-skipped">"Not compared: the output is not JSON."</p>
        }
        .into_any(),
        Comparison::Compared { differences, .. } if differences.is_empty() => view! {
            <p class="ok-text" data-testid="response-matches">"Matches the golden output under the match rules."</p>
        }
        .into_any(),
        Comparison::Compared { differences, more } => view! {
            <p data-testid="response-differences-count">{format!("{} (- golden, + output):", count(differences.len() + more, "difference"))}</p>
            <ul class="response-list">
                {differences.into_iter().map(|d: Difference| {
                    let expected = format!("- {}", value_text(&d.kind, &d.expected));
                    let actual = format!("+ {}", value_text(&d.kind, &d.actual));
                    let (path, kind) = (d.path.clone(), d.kind.clone());
                    view! {
                        <li data-testid="response-difference" data-path=path data-kind=kind>
                            <div>
                                <code class="response-path">{path_text(&d.path)}</code>
                                " "<span class="badge warn">{d.kind}</span>" "
                                <span>{d.message}</span>
                            </div>
                            <pre class="response-diff">
                                {d.expected.is_some().then(|| view! { <del data-testid="response-expected">{expected}</del> })}
                                {(d.expected.is_some() && d.actual.is_some()).then_some("\n")}
                                {d.actual.is_some().then(|| view! { <ins data-testid="response-actual">{actual}</ins> })}
                            </pre>
                        </li>
                    }
                }).collect::<Vec<_>>()}
            </ul>
            {(more > 0).then(|| view! { <p class="muted">{format!("and {} more", count(more, "difference"))}</p> })}
        }
        .into_any(),
    }
}

// `/response` is a split view: its code comes with the route's first visit.
crate::split::split_view!(RESPONSE, "Response page", response_page, || view! { <ResponsePage/> });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_read_from_the_form() {
        let r = parse_rules("/id\n\n  /items/*/at  \n", "/summary 0.6\n/notes/* 1").unwrap();
        assert_eq!(r.ignore, ["/id", "/items/*/at"]);
        assert_eq!(r.fuzzy, [("/summary".to_string(), 0.6), ("/notes/*".to_string(), 1.0)]);
        assert!(r.exact.is_empty());
        assert_eq!(parse_rules("", "").unwrap(), Rules::default());
    }

    #[test]
    fn rules_that_do_not_read_say_where() {
        assert_eq!(
            parse_rules("", "\n/summary").unwrap_err(),
            "Fuzzy, line 2: a pointer and a threshold, e.g. “/summary 0.6”"
        );
        assert!(parse_rules("", "/summary 1.5").unwrap_err().contains("from 0 to 1"));
        assert!(parse_rules("", "/summary x").unwrap_err().contains("from 0 to 1"));
        assert!(parse_rules("summary", "").unwrap_err().contains("\"summary\" is not a JSON Pointer"));
    }

    #[test]
    fn values_in_the_diff() {
        assert_eq!(value_text("length", &Some(Value::String("[3 items]".into()))), "[3 items]");
        assert_eq!(value_text("value", &Some(Value::String("[3 items]".into()))), "\"[3 items]\"");
        assert_eq!(value_text("missing", &None), "(absent)");
        let long = Value::String("x".repeat(1000));
        let shown = value_text("value", &Some(long));
        assert_eq!(shown.chars().count(), VALUE_CHARS + 1);
        assert!(shown.ends_with('…'));
        assert_eq!(path_text(""), "(the whole output)");
        assert!(pasted_schema("{\"type\": ").unwrap_err().starts_with("The pasted schema is not JSON (line 1"));
    }
}
