//! Component tests in headless Chromium (wasm-bindgen-test). Each segment
//! component renders its kind with the document's default state and toggles;
//! the protocol panel switches tabs; the loader lists path errors for a bad
//! document and keeps the current view.
#![cfg(target_arch = "wasm32")]
#![allow(dead_code)]

use std::sync::Arc;

use leptos::mount::mount_to;
use leptos::prelude::*;
use leptos::task::tick;
use pep_app::components::conversation::Conversation;
use pep_app::components::protocol_panel::ProtocolPanel;
use pep_app::doc::{Doc, Source};
use pep_app::state::{Expansion, Prefs, Session};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

/// One message per segment kind, with non-default collapse states to tell
/// "from the data" apart from "hard-coded".
const ALL_KINDS: &str = r##"{
  "version": "1.0",
  "messages": [
    {"id": "s", "role": "system", "timestamp": 1767225600000, "segments": [
      {"kind": "static_var", "name": "who", "value": "Ann", "description": "The user"},
      {"kind": "system_prompt", "content": "Line one for {{who}}\nline two", "collapsed": false},
      {"kind": "memory", "items": [{"title": "City", "content": "Oslo"}], "collapsed": true},
      {"kind": "skills", "items": [
        {"name": "pdf-tools", "description": "Reads PDFs", "body": "# PDF\nUse it.", "loaded": true},
        {"name": "charts", "description": "Draws charts", "body": "# Charts"}
      ], "collapsed": false},
      {"kind": "tool_overview", "items": [
        {"name": "weather", "description": "Forecast", "parameters": "city: string",
         "schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
      ], "collapsed": true}
    ]},
    {"id": "u", "role": "user", "timestamp": 1767225601000, "segments": [
      {"kind": "text", "content": "Hello **{{who}}** <script>window.__pwned = 1</script>"},
      {"kind": "long_text", "content": "first line\nsecond line\nthird line\nfourth", "charCount": 40, "collapsed": true},
      {"kind": "document", "fileName": "paper.pdf", "mimeType": "application/pdf", "snippet": "Abstract…", "sizeBytes": 2411724, "parsedContent": "Full text"},
      {"kind": "media", "mediaType": "image", "url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "altText": "figure"},
      {"kind": "media", "mediaType": "audio", "url": "data:audio/mp3;base64,AAAA"}
    ]},
    {"id": "a", "role": "assistant", "timestamp": 1767225602000, "segments": [
      {"kind": "tool_call_request", "toolName": "weather", "arguments": {"city": "Oslo", "note": "LONGVALUE"}, "collapsed": false, "callId": "c1"},
      {"kind": "tool_call_request", "toolName": "weather", "arguments": {"city": "Bergen"}, "collapsed": true, "callId": "c2"}
    ]},
    {"id": "t", "role": "tool", "timestamp": 1767225603000, "segments": [
      {"kind": "tool_call_result", "toolName": "weather", "result": "sunny", "success": true, "collapsed": true, "callId": "c1"},
      {"kind": "tool_call_result", "toolName": "weather", "result": "error: timeout", "success": false, "collapsed": false, "callId": "c2"}
    ]}
  ]
}"##;

fn all_kinds_doc() -> Arc<Doc> {
    let long = "x".repeat(300);
    let text = ALL_KINDS.replace("LONGVALUE", &long);
    Doc::load(Source::Pasted, text.as_bytes()).unwrap_or_else(|e| panic!("{e:?}"))
}

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A fresh host element: a scroll box the size of the viewport over the
/// page (earlier hosts removed, no fragment in the address), so the
/// conversation's window sees a viewport-sized band whatever the test page
/// holds.
fn host() -> HtmlElement {
    for old in all(&document().document_element().unwrap(), "section.test-host") {
        old.remove();
    }
    let w = web_sys::window().unwrap();
    let path = w.location().pathname().unwrap();
    w.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path)).unwrap();
    // The app's style sheet, as in the app (layout, sticky headers, no
    // scroll anchoring by the browser: the window does its own).
    if document().get_element_by_id("app-css").is_none() {
        let style = document().create_element("style").unwrap();
        style.set_id("app-css");
        style.set_text_content(Some(include_str!("../style/main.css")));
        document().head().unwrap().append_child(&style).unwrap();
    }
    // A component mounted here is mounted as in a page whose first screen
    // has been shown: the JSON view renders all its rows at once (on the
    // first screen it holds back the rows below the fold: D181, tested
    // end to end).
    pep_app::browser::mark_first_screen_complete();
    let el: HtmlElement = document().create_element("section").unwrap().unchecked_into();
    el.set_class_name("test-host");
    el.set_attribute("style", "position:fixed;inset:0;overflow:auto;background:#fff;z-index:10").unwrap();
    document().body().unwrap().append_child(&el).unwrap();
    el
}

/// Resolves after the next animation frame.
async fn next_frame() {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().request_animation_frame(&resolve).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

/// Lets the conversation's window measure what it rendered and extend to
/// its overscan (a few frames).
async fn settle() {
    for _ in 0..4 {
        next_frame().await;
        tick().await;
    }
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length()).map(|i| list.item(i).unwrap().unchecked_into()).collect()
}

fn one(root: &Element, selector: &str) -> Element {
    root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no element matches {selector}"))
}

fn click(el: &Element) {
    el.unchecked_ref::<HtmlElement>().click();
}

/// `aria-expanded` of the first toggle inside the segment of `kind` number `n`.
fn expanded(root: &Element, kind: &str, n: usize) -> String {
    let seg = &all(root, &format!("[data-kind={kind}]"))[n];
    one(seg, "[aria-expanded]").get_attribute("aria-expanded").unwrap()
}

fn toggle(root: &Element, kind: &str, n: usize) {
    let seg = &all(root, &format!("[data-kind={kind}]"))[n];
    click(&one(seg, "[aria-expanded]"));
}

fn mount_conversation(doc: Arc<Doc>) -> (HtmlElement, impl Drop) {
    let el = host();
    let handle = mount_to(el.clone(), move || {
        provide_context(Session::new());
        provide_context(Expansion::new());
        view! { <Conversation doc=doc.clone()/> }
    });
    (el, handle)
}

#[wasm_bindgen_test]
async fn every_kind_renders_once_with_its_data_attribute() {
    let (el, _h) = mount_conversation(all_kinds_doc());
    settle().await;
    for (kind, n) in [
        ("text", 1),
        ("static_var", 1),
        ("system_prompt", 1),
        ("memory", 1),
        ("skills", 1),
        ("tool_overview", 1),
        ("tool_call_request", 2),
        ("tool_call_result", 2),
        ("document", 1),
        ("long_text", 1),
        ("media", 2),
    ] {
        assert_eq!(all(&el, &format!("[data-kind={kind}]")).len(), n, "kind {kind}");
    }
    let roles: Vec<String> = all(&el, "[data-role]").iter().map(|m| m.get_attribute("data-role").unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "tool"]);
    assert_eq!(all(&el, "[data-message-id]")[2].get_attribute("data-message-id").unwrap(), "a");
}

#[wasm_bindgen_test]
async fn collapse_defaults_come_from_the_data_and_toggle() {
    let (el, _h) = mount_conversation(all_kinds_doc());
    settle().await;
    // system_prompt collapsed:false → open, body rendered.
    assert_eq!(expanded(&el, "system_prompt", 0), "true");
    assert!(one(&el, "[data-kind=system_prompt]").text_content().unwrap().contains("Line one for Ann"));
    toggle(&el, "system_prompt", 0);
    tick().await;
    assert_eq!(expanded(&el, "system_prompt", 0), "false");
    assert!(!one(&el, "[data-kind=system_prompt]").text_content().unwrap().contains("Line one"));

    // memory collapsed:true → closed until toggled.
    assert_eq!(expanded(&el, "memory", 0), "false");
    assert!(!one(&el, "[data-kind=memory]").text_content().unwrap().contains("Oslo"));
    toggle(&el, "memory", 0);
    tick().await;
    assert_eq!(expanded(&el, "memory", 0), "true");
    assert!(one(&el, "[data-kind=memory]").text_content().unwrap().contains("Oslo"));

    // tool_overview collapsed:true.
    assert_eq!(expanded(&el, "tool_overview", 0), "false");
    // tool_call_request: first expanded (collapsed:false), second collapsed.
    assert_eq!(expanded(&el, "tool_call_request", 0), "true");
    assert_eq!(expanded(&el, "tool_call_request", 1), "false");
    // tool_call_result: success collapsed, failure expanded (from the data).
    assert_eq!(expanded(&el, "tool_call_result", 0), "false");
    assert_eq!(expanded(&el, "tool_call_result", 1), "true");
    assert!(one(&el, "[data-kind=tool_call_result].fail").text_content().unwrap().contains("error: timeout"));
    toggle(&el, "tool_call_result", 0);
    tick().await;
    assert!(all(&el, "[data-kind=tool_call_result]")[0].text_content().unwrap().contains("sunny"));
}

#[wasm_bindgen_test]
async fn skills_disclose_l2_and_mark_loaded() {
    let (el, _h) = mount_conversation(all_kinds_doc());
    settle().await;
    let skills = one(&el, "[data-kind=skills]");
    assert_eq!(all(&skills, ".skill.loaded").len(), 1);
    assert!(!skills.text_content().unwrap().contains("Use it."), "L2 hidden at first");
    click(&one(&skills, ".skill-name"));
    tick().await;
    assert!(skills.text_content().unwrap().contains("Use it."), "L2 shown after the click");
    assert_eq!(one(&skills, ".skill-name").get_attribute("aria-expanded").unwrap(), "true");
}

#[wasm_bindgen_test]
async fn tool_schema_unfolds_per_tool() {
    let (el, _h) = mount_conversation(all_kinds_doc());
    settle().await;
    toggle(&el, "tool_overview", 0);
    tick().await;
    let tools = one(&el, "[data-kind=tool_overview]");
    assert!(all(&tools, "pre.json").is_empty());
    click(&one(&tools, ".tool-head"));
    tick().await;
    let schema = one(&tools, "pre.json").text_content().unwrap();
    assert!(schema.contains("\"city\""), "{schema}");
    assert!(tools.text_content().unwrap().contains("city: string"));
}

#[wasm_bindgen_test]
async fn long_argument_values_fold_behind_show_more() {
    let (el, _h) = mount_conversation(all_kinds_doc());
    settle().await;
    let call = &all(&el, "[data-kind=tool_call_request]")[0];
    let more = one(call, "button.more");
    assert_eq!(more.get_attribute("aria-expanded").unwrap(), "false");
    assert!(!call.text_content().unwrap().contains(&"x".repeat(300)));
    click(&more);
    tick().await;
    assert!(call.text_content().unwrap().contains(&"x".repeat(300)));
    assert!(call.text_content().unwrap().contains("c1"), "the call id is shown");
}

#[wasm_bindgen_test]
async fn long_text_document_and_media() {
    let (el, _h) = mount_conversation(all_kinds_doc());
    settle().await;
    let long = one(&el, "[data-kind=long_text]");
    assert!(long.text_content().unwrap().contains("40 characters"));
    assert!(!long.text_content().unwrap().contains("third line"));
    toggle(&el, "long_text", 0);
    tick().await;
    assert!(one(&el, "[data-kind=long_text]").text_content().unwrap().contains("third line"));

    let doc = one(&el, "[data-kind=document]");
    assert!(doc.text_content().unwrap().contains("paper.pdf"));
    assert!(doc.text_content().unwrap().contains("2.4 MB"));
    assert!(!doc.text_content().unwrap().contains("Full text"));
    toggle(&el, "document", 0);
    tick().await;
    assert!(one(&el, "[data-kind=document]").text_content().unwrap().contains("Full text"));

    let media = all(&el, "[data-kind=media]");
    assert_eq!(one(&media[0], "img").get_attribute("alt").unwrap(), "figure");
    // Audio with a data: URL gets an icon card, not a player.
    assert!(all(&media[1], "audio").is_empty());
    assert_eq!(all(&media[1], ".media-card").len(), 1);
}

#[wasm_bindgen_test]
async fn variables_are_highlighted_and_markdown_is_safe() {
    let (el, _h) = mount_conversation(all_kinds_doc());
    settle().await;
    let text = one(&el, "[data-kind=text]");
    let mark = one(&text, "mark.var");
    assert_eq!(mark.text_content().unwrap(), "Ann");
    assert_eq!(mark.get_attribute("data-var").unwrap(), "who");
    assert_eq!(mark.get_attribute("title").unwrap(), "{{who}}");
    assert!(all(&text, "script").is_empty());
    assert!(text.text_content().unwrap().contains("<script>"), "raw HTML shows as text");
    let chip = one(&el, ".session-bar .chip");
    assert!(chip.text_content().unwrap().contains("who"));
    assert!(chip.text_content().unwrap().contains("Ann"));
    assert!(chip.text_content().unwrap().contains("The user"));
}

/// Markdown is rendered in the first render (the core's renderer is linked
/// into the app's module): safe, variables substituted and marked.
#[wasm_bindgen_test]
async fn markdown_is_rendered_at_once_and_safe() {
    let (el, _h) = mount_conversation(all_kinds_doc());
    tick().await;
    click(&all(&el, "[data-kind=skills] .skill-name")[0]);
    tick().await;
    let text = one(&el, "[data-kind=text]");
    assert!(all(&text, ".md-plain").is_empty(), "rendered, not plain");
    let mark = one(&text, ".md strong mark.var");
    assert_eq!(mark.text_content().unwrap(), "Ann");
    assert_eq!(mark.get_attribute("title").unwrap(), "{{who}}");
    assert!(all(&text, "script").is_empty());
    assert!(text.text_content().unwrap().contains("<script>"), "raw HTML shows as text");
    assert_eq!(one(&el, "[data-kind=skills] .skill-l2 .md h1").text_content().unwrap(), "PDF");
}

#[wasm_bindgen_test]
async fn expand_and_collapse_all() {
    let (el, _h) = mount_conversation(all_kinds_doc());
    settle().await;
    let expand_all = all(&el, ".conv-tools button")[0].clone();
    let collapse_all = all(&el, ".conv-tools button")[1].clone();
    click(&collapse_all);
    tick().await;
    let states: Vec<String> = all(&el, ".panel-head, .call-head, .result-head, .long-head")
        .iter()
        .map(|b| b.get_attribute("aria-expanded").unwrap())
        .collect();
    assert!(states.iter().all(|s| s == "false"), "{states:?}");
    click(&expand_all);
    tick().await;
    assert_eq!(expanded(&el, "memory", 0), "true");
    // A later toggle of one panel wins over the global order.
    toggle(&el, "memory", 0);
    tick().await;
    assert_eq!(expanded(&el, "memory", 0), "false");
    assert_eq!(expanded(&el, "tool_overview", 0), "true");
    // Per message: collapse all in the system message only.
    let sys = one(&el, "[data-role=system]");
    click(&all(&sys, ".msg-actions button")[1]);
    tick().await;
    assert_eq!(expanded(&el, "tool_overview", 0), "false");
    assert_eq!(expanded(&el, "tool_call_request", 0), "true", "other messages keep their state");
}

#[wasm_bindgen_test]
async fn protocol_panel_switches_tabs() {
    let doc = all_kinds_doc();
    let expected_openai = doc.openai_text().to_string();
    let expected_raw = doc.raw_text().to_string();
    let el = host();
    let _h = mount_to(el.clone(), move || {
        let session = Session::new();
        provide_context(session);
        let prefs = Prefs::init(session);
        prefs.tab.set(pep_app::state::Tab::Openai);
        prefs.export.set(envelope::export::Target::OpenaiChat);
        provide_context(prefs);
        let signal = Signal::stored(Some(doc.clone()));
        view! { <ProtocolPanel doc=signal/> }
    });
    // The JSON follows the first paint of the page.
    assert!(until(|| el.query_selector("[data-testid=protocol-json]").ok().flatten().is_some()).await);
    let text = |el: &Element| one(el, "[data-testid=protocol-json]").text_content().unwrap();
    // The view abbreviates the long `data:` image URL (Copy and Download keep it whole).
    let shown = |t: &str| -> String {
        t.trim_end_matches('\n')
            .lines()
            .map(|l| match (l.find("\"data:image"), l.rfind('"')) {
                (Some(a), Some(b)) if b > a => {
                    let token = &l[a..=b];
                    l.replacen(token, &envelope::jsonview::abbreviate_data_url(token).unwrap_or(token.to_string()), 1)
                }
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    };
    assert_eq!(text(&el), shown(&expected_openai));
    assert_eq!(one(&el, "[data-testid=tab-openai]").get_attribute("aria-selected").unwrap(), "true");
    click(&one(&el, "[data-testid=tab-raw]"));
    tick().await;
    assert_eq!(one(&el, "[data-testid=tab-raw]").get_attribute("aria-selected").unwrap(), "true");
    assert!(text(&el).contains("\"kind\": \"static_var\""));
    assert_eq!(text(&el), shown(&expected_raw));
    click(&one(&el, "[data-testid=tab-openai]"));
    tick().await;
    assert!(text(&el).contains("\"tool_calls\""));
}

/// Waits (a few ticks) until `f` holds.
async fn until(mut f: impl FnMut() -> bool) -> bool {
    for _ in 0..50 {
        if f() {
            return true;
        }
        gloo_timers_sleep(20).await;
    }
    false
}

async fn gloo_timers_sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

#[wasm_bindgen_test]
async fn loader_lists_path_errors_and_keeps_the_current_view() {
    web_sys::window().unwrap().local_storage().unwrap().unwrap().clear().unwrap();
    let el = host();
    let _h = mount_to(el.clone(), pep_app::App);
    tick().await;
    // Load a good document through "Paste…".
    let paste = |json: String| {
        let el = el.clone();
        async move {
            let open = all(&el, ".header-actions button")
                .into_iter()
                .find(|b| b.text_content().unwrap().contains("Paste"))
                .unwrap();
            if all(&el, "dialog[open]").is_empty() {
                click(&open);
                tick().await;
            }
            let area: web_sys::HtmlTextAreaElement = one(&el, "[data-testid=paste-json]").unchecked_into();
            area.set_value(&json);
            area.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
            tick().await;
            click(&one(&el, "[data-testid=paste-load]"));
            tick().await;
        }
    };
    paste(ALL_KINDS.replace("LONGVALUE", "short")).await;
    // The conversation shows it (through its window: the count, and the top).
    let shows_it = || {
        el.query_selector(".conv-tools .muted")
            .ok()
            .flatten()
            .is_some_and(|c| c.text_content().unwrap().starts_with("4 messages"))
            && ids(&el).first().map(String::as_str) == Some("s")
    };
    assert!(until(shows_it).await, "the pasted document shows");

    // A bad one: every error listed with its path, the view unchanged.
    let bad = ALL_KINDS
        .replace(
            "\"toolName\": \"weather\", \"arguments\": {\"city\": \"Bergen\"}",
            "\"arguments\": {\"city\": \"Bergen\"}",
        )
        .replace("\"role\": \"user\"", "\"role\": \"human\"");
    paste(bad).await;
    assert!(until(|| !all(&el, "[data-testid=load-errors]").is_empty()).await);
    let errors = one(&el, "[data-testid=load-errors]").text_content().unwrap();
    assert!(errors.contains("messages[1].role"), "{errors}");
    assert!(errors.contains("unknown role `human`"), "{errors}");
    assert!(errors.contains("messages[2].segments[1].toolName"), "{errors}");
    assert!(shows_it(), "the current view stays");

    // A syntax error gives line and column.
    paste("{\n  \"version\": \"1.0\",\n  oops\n}".to_string()).await;
    assert!(until(|| one(&el, "[data-testid=load-errors]").text_content().unwrap().contains("line 3 column 3")).await);
    assert!(shows_it());

    // The file input reports errors the same way.
    let input: web_sys::HtmlInputElement = one(&el, "[data-testid=open-file]").unchecked_into();
    let dt = web_sys::DataTransfer::new().unwrap();
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str("{\"version\": \"2.0\", \"messages\": []}"));
    let file = web_sys::File::new_with_str_sequence(&parts, "old.json").unwrap();
    dt.items().add_with_file(&file).unwrap();
    input.set_files(dt.files().as_ref());
    input.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
    assert!(until(|| one(&el, "[data-testid=load-errors]").text_content().unwrap().contains("old.json")).await);
    let errors = one(&el, "[data-testid=load-errors]").text_content().unwrap();
    assert!(errors.contains("version"), "{errors}");
    assert!(shows_it());
}

// ---- truncation preview ---------------------------------------------------

use pep_app::budget::{Budget, Counted};
use pep_app::components::budget::BudgetPanel;
use pep_app::worker::tokens::Encoded;

/// Counts with one "token" per byte: the view logic is tested here, the
/// tokenizer by the core's oracle tests and the end-to-end tests.
fn byte_counts(doc: &Doc) -> Counted {
    use envelope::parts::{part_strings, part_texts, segment_strings};
    let texts = part_texts(&doc.envelope, doc.contributions());
    let enc = |strings: Vec<&str>| Encoded {
        lens: strings.iter().map(|s| s.len() as u32).collect(),
        ids: strings.iter().flat_map(|s| s.bytes().map(u32::from)).collect(),
        pieces: strings.iter().flat_map(|s| s.bytes().map(|_| 1)).collect(),
        ms: 0.0,
    };
    let parts = enc(part_strings(&texts));
    let segs = enc(segment_strings(&texts));
    Counted::build(texts, parts, &segs)
}

const CHAT: &str = r##"{"version": "1.0", "messages": [
  {"id": "sys", "role": "system", "timestamp": 0, "segments": [{"kind": "system_prompt", "content": "0123456789", "collapsed": true}]},
  {"id": "u1", "role": "user", "timestamp": 1, "truncationPriority": 2, "segments": [{"kind": "text", "content": "aaaaaaaaaaaaaaaaaaaa"}]},
  {"id": "a1", "role": "assistant", "timestamp": 2, "truncationPriority": 2, "segments": [{"kind": "text", "content": "bbbbbbbbbbbbbbbbbbbb"}]},
  {"id": "u2", "role": "user", "timestamp": 3, "segments": [{"kind": "text", "content": "cccccccccc"}]},
  {"id": "a2", "role": "assistant", "timestamp": 4, "segments": [{"kind": "text", "content": "dddddddddd"}]}
]}"##;

/// Mounts the conversation and the Budget tab over one document, with counts.
fn mount_budget() -> (HtmlElement, impl Drop, Budget) {
    mount_budget_of(CHAT)
}

/// As [`mount_budget`], over the document `text`.
fn mount_budget_of(text: &str) -> (HtmlElement, impl Drop, Budget) {
    let doc = Doc::load(Source::Pasted, text.as_bytes()).unwrap();
    let el = host();
    let slot = Arc::new(std::sync::Mutex::new(None));
    let slot2 = slot.clone();
    let handle = mount_to(el.clone(), move || {
        let session = Session::new();
        provide_context(session);
        provide_context(Prefs::init(session));
        provide_context(Expansion::new());
        let signal = Signal::stored(Some(doc.clone()));
        let budget = Budget::new(signal);
        provide_context(budget);
        budget.counted(&doc, byte_counts(&doc));
        *slot2.lock().unwrap() = Some(budget);
        view! { <Conversation doc=doc.clone()/> <BudgetPanel/> }
    });
    let budget = slot.lock().unwrap().take().unwrap();
    (el, handle, budget)
}

fn part_states(el: &Element) -> Vec<String> {
    all(el, "[data-testid=part-kept]").iter().map(|c| c.text_content().unwrap()).collect()
}

#[wasm_bindgen_test]
async fn budget_marks_dropped_parts_in_the_table_and_the_conversation() {
    let (el, _h, budget) = mount_budget();
    tick().await;
    // No model: the limit starts at the total (70), nothing dropped.
    assert_eq!(budget.limit.get_untracked(), 70);
    assert_eq!(part_states(&el), ["kept"; 5]);
    assert!(all(&el, "[data-testid=dropped]").is_empty());
    // Token badges per message; a message of one segment does not repeat
    // its count on the segment (issue 10).
    assert!(one(&el, "[data-message-id=u1]").text_content().unwrap().contains("20 tok"));
    assert!(all(&el, "[data-message-id]").iter().all(|m| all(m, ".seg-slot").len() == 1));
    assert_eq!(all(&el, ".tok-badge").len(), 0);

    // Limit 45: target 25. The priority-2 run (u1, a1: 40 tokens) is more
    // than the target, so its parts go oldest first: u1 (removed 20 < 25),
    // then a1 (removed 40 ≥ 25). Kept: 10 + 10 + 10 = 30.
    budget.set(45, 1);
    tick().await;
    assert_eq!(part_states(&el), ["kept", "dropped", "dropped", "kept", "kept"]);
    assert_eq!(one(&el, "[data-testid=kept-tokens]").text_content().unwrap(), "30");
    let dropped: Vec<String> = all(&el, "[data-testid=dropped]")
        .iter()
        .map(|d| d.closest("[data-message-id]").unwrap().unwrap().get_attribute("data-message-id").unwrap())
        .collect();
    assert_eq!(dropped, ["u1", "a1"]);
    assert!(one(&el, "[data-message-id=u1] [data-testid=dropped-reason]")
        .text_content()
        .unwrap()
        .contains("priority 2"));

    // Limit 55 with step 10: target ceil(15/10)*10 = 20: only u1 goes.
    budget.set(55, 10);
    tick().await;
    assert_eq!(part_states(&el), ["kept", "dropped", "kept", "kept", "kept"]);

    // A limit below the never-removed system prompt: an error that says why.
    budget.set(5, 1);
    tick().await;
    let err = one(&el, "[data-testid=budget-error]").text_content().unwrap();
    assert!(err.contains("limit is 5"), "{err}");
    assert!(all(&el, "[data-testid=dropped]").is_empty(), "nothing is marked when no plan exists");
}

#[wasm_bindgen_test]
async fn budget_controls_and_views() {
    let (el, _h, budget) = mount_budget();
    tick().await;
    let input: web_sys::HtmlInputElement = one(&el, "[data-testid=limit-input]").unchecked_into();
    input.set_value("45");
    input.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
    tick().await;
    assert_eq!(budget.limit.get_untracked(), 45);
    let slider: web_sys::HtmlInputElement = one(&el, "[data-testid=limit-slider]").unchecked_into();
    assert_eq!(slider.max(), "70");
    slider.set_value("60");
    slider.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    tick().await;
    assert_eq!(budget.limit.get_untracked(), 60);
    assert!(one(&el, "[data-testid=context-bar]").child_element_count() >= 2);
    // The truncated request follows the settled limit (after a pause).
    let settled = until(|| {
        let text = one(&el, "[data-testid=inspect]").text_content().unwrap();
        text.contains("\"role\": \"user\"") && !text.contains("aaaa")
    })
    .await;
    let request = one(&el, "[data-testid=inspect]").text_content().unwrap();
    assert!(settled, "u1 is dropped at 60: {request}");
    assert!(request.contains("cccc"));
    // The token view draws one span per token.
    let tokens_tab = all(&el, ".inspect-bar .tab").into_iter().find(|t| t.text_content().unwrap() == "Tokens").unwrap();
    click(&tokens_tab);
    tick().await;
    assert_eq!(all(&el, "[data-testid=kept-token-view] .tok").len(), 10 + 20 + 10 + 10);
    // The parts view is `pep truncate`'s report.
    let parts_tab = all(&el, ".inspect-bar .tab").into_iter().find(|t| t.text_content().unwrap() == "Parts").unwrap();
    click(&parts_tab);
    tick().await;
    let report = one(&el, "[data-testid=inspect]").text_content().unwrap();
    assert!(report.contains("\"keptTokens\": 50"), "{report}");
    assert!(one(&el, "[data-testid=cache-chart] svg polyline").get_attribute("points").is_some());
}

#[wasm_bindgen_test]
async fn the_budget_lists_cache_breakpoints_with_the_tokens_up_to_each() {
    // One "token" per byte (`byte_counts`): tools (their JSON), then the
    // system prompt, then the user's segments.
    let text = serde_json::json!({"version": "1.0", "messages": [
        {"id": "sys", "role": "system", "timestamp": 0, "segments": [
            {"kind": "system_prompt", "content": "0123456789", "collapsed": false,
             "cacheControl": {"type": "ephemeral", "ttl": "1h"}},
            {"kind": "tool_overview", "collapsed": true,
             "items": [{"name": "search", "description": "d", "cacheControl": {"type": "ephemeral"}}]}]},
        {"id": "u1", "role": "user", "timestamp": 1, "segments": [
            {"kind": "text", "content": "aaaaa"},
            {"kind": "media", "mediaType": "image", "url": "https://img.example/x.png"},
            {"kind": "text", "content": "bbbbb", "cacheControl": {"type": "ephemeral"}}]}
    ]})
    .to_string();
    let (el, _h, _budget) = mount_budget_of(&text);
    tick().await;
    let doc = Doc::load(Source::Pasted, text.as_bytes()).unwrap();
    let counted = byte_counts(&doc);
    let tools = counted.parts.iter().find(|p| p.message.is_none()).unwrap().tokens;
    let cells = |row: &Element| all(row, "td").iter().map(|c| c.text_content().unwrap()).collect::<Vec<_>>();
    let rows: Vec<Vec<String>> =
        all(&el, "[data-testid=cache-breakpoints] [data-testid=breakpoint]").iter().map(cells).collect();
    let n = envelope::display::thousands;
    let user: u64 = (0..3).filter_map(|j| counted.segment_tokens(1, j)).sum();
    assert_eq!(
        rows,
        [
            vec!["tool search".to_string(), "5m (default)".into(), n(tools)],
            vec!["message sys · segment 1".into(), "1h".into(), n(tools + 10)],
            // The image before it makes the count an estimate.
            vec!["message u1 · segment 3".into(), "5m (default)".into(), format!("≈ {}", n(tools + 10 + user))],
        ]
    );
    assert_eq!(one(&el, "[data-testid=cache-breakpoints] h3").text_content().unwrap(), "Cache breakpoints");

    // A document without any: no section.
    let (el, _h, _budget) = mount_budget();
    tick().await;
    assert!(all(&el, "[data-testid=cache-breakpoints]").is_empty());
}

#[wasm_bindgen_test]
async fn the_template_gutter_scrolls_with_its_text() {
    use pep_app::components::template::Editor;
    let el = host();
    let text = RwSignal::new((1..=120).map(|n| format!("line {n}")).collect::<Vec<_>>().join("\n"));
    let _h = mount_to(el.clone(), move || {
        view! { <Editor label="Template" testid="tpl" text error_line=Signal::stored(Some(80))/> }
    });
    tick().await;
    let area: web_sys::HtmlTextAreaElement = one(&el, "[data-testid=tpl]").unchecked_into();
    let gutter = one(&el, ".gutter");
    assert!(area.scroll_height() > area.client_height(), "the text scrolls in its box");
    area.set_scroll_top(900);
    assert!(until(|| gutter.scroll_top() == area.scroll_top() && area.scroll_top() > 0).await, "the gutter follows");
    // The error's number stands beside its line (line boxes of 18 px, 6 px
    // of padding above the first): their middles within 2 px.
    let line_mid = area.get_bounding_client_rect().top() + 6.0 + 79.5 * 18.0 - f64::from(area.scroll_top());
    let mark = one(&gutter, ".ln.err");
    assert_eq!(mark.text_content().unwrap().trim(), "80");
    let r = mark.get_bounding_client_rect();
    let mark_mid = (r.top() + r.bottom()) / 2.0;
    assert!((mark_mid - line_mid).abs() < 2.0, "{mark_mid} vs {line_mid}");
    // To the end, too (a horizontal scrollbar does not leave it behind).
    area.set_scroll_top(1_000_000);
    assert!(
        until(|| gutter.scroll_top() == area.scroll_top()).await,
        "{} vs {}",
        gutter.scroll_top(),
        area.scroll_top()
    );
}

#[wasm_bindgen_test]
async fn outline_and_filter_open_one_at_a_time_and_escape_closes_them() {
    let (el, _h) = mount_conversation(all_kinds_doc());
    settle().await;
    let outline: web_sys::HtmlDetailsElement = one(&el, "[data-testid=outline]").unchecked_into();
    let filter: web_sys::HtmlDetailsElement = one(&el, "[data-testid=filter]").unchecked_into();
    let escape = |target: &Element| {
        let init = web_sys::KeyboardEventInit::new();
        init.set_key("Escape");
        init.set_bubbles(true);
        init.set_cancelable(true);
        let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
        target.dispatch_event(&ev).unwrap();
    };
    let active = || document().active_element();

    click(&one(&outline, "summary"));
    assert!(until(|| outline.open() && !all(&el, "[data-testid=outline-list]").is_empty()).await, "the outline opens");
    // Opening the filter closes the outline.
    click(&one(&filter, "summary"));
    assert!(until(|| filter.open() && !outline.open()).await, "one menu at a time");
    // Its choices are made when it first opens (D183).
    assert!(until(|| !all(&filter, "input[type=checkbox]").is_empty()).await, "the filter's choices");
    // Escape from inside the filter (a checkbox focused) closes it; the
    // focus returns to its button.
    let checkbox: HtmlElement = one(&filter, "input[type=checkbox]").unchecked_into();
    checkbox.focus().unwrap();
    escape(&checkbox);
    assert!(!filter.open(), "Escape closes the filter");
    assert_eq!(active(), Some(one(&filter, "summary")));

    // And the outline, with the focus elsewhere on the page.
    click(&one(&outline, "summary"));
    assert!(until(|| outline.open()).await);
    one(&outline, "summary").unchecked_into::<HtmlElement>().blur().unwrap();
    escape(&document().body().unwrap());
    assert!(!outline.open() && !filter.open(), "Escape closes the outline");
    assert_eq!(active(), Some(one(&outline, "summary")));
    // With both closed, Escape does nothing of theirs.
    escape(&document().body().unwrap());
    assert!(!outline.open() && !filter.open());
}

#[wasm_bindgen_test]
async fn a_one_line_system_prompt_shows_open_whatever_its_collapsed() {
    let text = r#"{"version": "1.0", "messages": [
      {"id": "s", "role": "system", "timestamp": 0, "segments": [
        {"kind": "system_prompt", "content": "You are a terse assistant.", "collapsed": true},
        {"kind": "system_prompt", "content": "Line one\nline two", "collapsed": true}]}]}"#;
    let (el, _h) = mount_conversation(Doc::load(Source::Pasted, text.as_bytes()).unwrap());
    settle().await;
    assert_eq!(expanded(&el, "system_prompt", 0), "true", "one short line: open");
    assert!(all(&el, "[data-kind=system_prompt]")[0].text_content().unwrap().contains("You are a terse assistant."));
    assert_eq!(expanded(&el, "system_prompt", 1), "false", "two lines: as the document says");
    // Still a toggle.
    toggle(&el, "system_prompt", 0);
    tick().await;
    assert_eq!(expanded(&el, "system_prompt", 0), "false");
}

#[wasm_bindgen_test]
async fn a_missing_worker_is_reported_not_awaited_forever() {
    let doc = Doc::load(Source::Pasted, CHAT.as_bytes()).unwrap();
    let el = host();
    let _h = mount_to(el.clone(), move || {
        let session = Session::new();
        provide_context(session);
        provide_context(Prefs::init(session));
        let signal = Signal::stored(Some(doc.clone()));
        provide_context(Budget::new(signal));
        view! { <BudgetPanel/> }
    });
    // The test server has no worker script: counting must fail visibly.
    assert!(until(|| !all(&el, "[data-testid=budget-error]").is_empty()).await, "no error shown");
    let first = one(&el, "[data-testid=budget-error]");
    assert!(first.text_content().unwrap().contains("tokenizer"));
    // "Try again" counts again (with a fresh worker): a new error replaces the old one.
    click(&one(&el, "[data-testid=budget-retry]"));
    assert!(
        until(|| !first.is_connected() && !all(&el, "[data-testid=budget-error]").is_empty()).await,
        "retry did not count again"
    );
}

#[wasm_bindgen_test]
async fn a_document_that_arrives_after_the_budget_panel_is_counted() {
    // The Budget tab was the open tab (a saved preference) and the demo's
    // text arrives after the panel is built: counting must start then.
    let doc = Doc::load(Source::Pasted, CHAT.as_bytes()).unwrap();
    let el = host();
    let signal = RwSignal::new(None::<std::sync::Arc<Doc>>);
    let _h = mount_to(el.clone(), move || {
        let session = Session::new();
        provide_context(session);
        provide_context(Prefs::init(session));
        provide_context(Budget::new(signal.into()));
        view! { <BudgetPanel/> }
    });
    tick().await;
    assert!(all(&el, "[data-testid=budget-error]").is_empty());
    signal.set(Some(doc));
    // No worker on the test server: an error proves counting started.
    assert!(until(|| !all(&el, "[data-testid=budget-error]").is_empty()).await, "the new document was never counted");
}

#[wasm_bindgen_test]
async fn warnings_are_listed_and_dismissible() {
    // An unused variable: the document loads with one warning.
    let text = r#"{"version": "1.0", "messages": [{"id": "u", "role": "user", "timestamp": 0,
        "segments": [{"kind": "static_var", "name": "unused", "value": "1"}, {"kind": "text", "content": "hi"}]}]}"#;
    let doc = Doc::load(Source::Pasted, text.as_bytes()).unwrap();
    assert_eq!(doc.warnings.len(), 1);
    let el = host();
    let _h = mount_to(el.clone(), move || {
        let session = Session::new();
        provide_context(session);
        provide_context(pep_app::nav::Navigator::new());
        session.show(doc.clone());
        view! { <pep_app::components::loader::Warnings/> }
    });
    tick().await;
    // Listed at once, not behind a disclosure; the path is a link into the conversation.
    assert!(all(&el, "[data-testid=warnings] button[aria-expanded]").is_empty());
    let item = one(&el, "[data-testid=warnings] li");
    assert!(item.text_content().unwrap().contains("unused"));
    assert!(one(&item, "button.path").text_content().unwrap().starts_with("messages[0].segments[0]"));
    let dismiss =
        all(&el, "[data-testid=warnings] button").into_iter().find(|b| b.text_content().unwrap() == "Dismiss").unwrap();
    click(&dismiss);
    tick().await;
    assert!(all(&el, "[data-testid=warnings]").is_empty());
}

// ---- import, request settings, export formats ------------------------------

use envelope::export::Target;
use envelope::Notice;
use pep_app::doc::{Export, Origin};

/// Settings a request had, a model, and one message without a time.
const WITH_PARAMS: &str = r##"{"version": "1.0", "model": "claude-sonnet-4-5",
  "params": {"temperature": 0.2, "top_k": 5,
    "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "object"}}}},
  "messages": [
    {"id": "m1", "role": "user", "timestamp": 0, "segments": [{"kind": "text", "content": "hi"}]},
    {"id": "m2", "role": "assistant", "timestamp": 1767225600000, "segments": [{"kind": "text", "content": "hello"}]}
  ]}"##;

fn clear_storage() {
    web_sys::window().unwrap().local_storage().unwrap().unwrap().clear().unwrap();
}

/// Mounts the protocol panel over `doc` with the export tab on `target`.
fn mount_panel(doc: Arc<Doc>, target: Target) -> (HtmlElement, impl Drop, Prefs) {
    let el = host();
    let slot = Arc::new(std::sync::Mutex::new(None));
    let slot2 = slot.clone();
    let handle = mount_to(el.clone(), move || {
        let session = Session::new();
        provide_context(session);
        let prefs = Prefs::init(session);
        prefs.tab.set(pep_app::state::Tab::Openai);
        prefs.export.set(target);
        provide_context(prefs);
        *slot2.lock().unwrap() = Some(prefs);
        let signal = Signal::stored(Some(doc.clone()));
        view! { <ProtocolPanel doc=signal/> }
    });
    let prefs = slot.lock().unwrap().take().unwrap();
    (el, handle, prefs)
}

fn json_text(el: &Element) -> String {
    one(el, "[data-testid=protocol-json]").text_content().unwrap()
}

/// The JSON view's text, if it is there now.
fn json_text_now(el: &Element) -> Option<String> {
    el.query_selector("[data-testid=protocol-json]").ok().flatten().and_then(|e| e.text_content())
}

fn pick(el: &Element, code: &str) {
    let select: web_sys::HtmlSelectElement = one(el, "[data-testid=export-format]").unchecked_into();
    select.set_value(code);
    select.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
}

#[wasm_bindgen_test]
async fn the_export_picker_shows_each_format_with_its_notices_and_is_remembered() {
    clear_storage();
    let doc = Doc::load(Source::Pasted, WITH_PARAMS.as_bytes()).unwrap();
    let chat = doc.openai_text().to_string();
    // An export the engine made before (the component test server has no worker).
    doc.keep_export(Export {
        target: Target::Anthropic,
        text: "{\n  \"model\": \"claude-sonnet-4-5\"\n}\n".into(),
        notices: vec![Notice::new("params.response_format", "Anthropic has no response_format; left out")].into(),
    });
    let (el, _h, prefs) = mount_panel(doc, Target::OpenaiChat);
    assert!(until(|| el.query_selector("[data-testid=protocol-json]").ok().flatten().is_some()).await);
    let labels: Vec<String> =
        all(&el, "[data-testid=export-format] option").iter().map(|o| o.text_content().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "OpenAI Chat",
            "OpenAI Responses",
            "Anthropic",
            "Gemini",
            "Bedrock Converse",
            "cURL (OpenAI)",
            "cURL (Anthropic)",
            "cURL (Gemini)"
        ]
    );
    assert_eq!(json_text(&el), chat.trim_end_matches('\n').to_string() + "\n");
    // OpenAI Chat's own notices, listed at once (no click), counted beside
    // the picker: a Claude model, a setting Chat does not have.
    let notices = one(&el, "[data-testid=export-notices]");
    let n = all(&notices, "li").len();
    assert!(n >= 2, "{n}");
    let listed = notices.text_content().unwrap();
    assert!(listed.contains("claude-sonnet-4-5") && listed.contains("params.top_k"), "{listed}");
    assert!(listed.contains(&format!("{n} items not carried by OpenAI Chat")), "{listed}");
    assert_eq!(
        one(&el, "[data-testid=export-notices-count]").text_content().unwrap().trim(),
        format!("{n} items not carried")
    );

    pick(&el, "anthropic");
    tick().await;
    assert_eq!(prefs.export.get_untracked(), Target::Anthropic);
    assert!(until(|| json_text_now(&el).is_some_and(|t| t.contains("\"model\": \"claude-sonnet-4-5\""))).await);
    assert!(!json_text(&el).contains("messages"));
    let notices = one(&el, "[data-testid=export-notices]");
    assert!(notices.text_content().unwrap().contains("1 item not carried by Anthropic"));
    assert!(notices.text_content().unwrap().contains("params.response_format"));
    assert_eq!(one(&el, "[data-testid=export-notices-count]").text_content().unwrap().trim(), "1 item not carried");
    let copy: web_sys::HtmlButtonElement = one(&el, "[data-testid=copy-json]").unchecked_into();
    assert!(!copy.disabled());
    // The choice is saved with the preferences.
    let saved = || {
        web_sys::window()
            .unwrap()
            .local_storage()
            .unwrap()
            .unwrap()
            .get_item("pep/v1/prefs")
            .unwrap()
            .unwrap_or_default()
    };
    assert!(until(|| saved().contains("\"export\":\"anthropic\"")).await, "{}", saved());
}

/// `WITH_PARAMS` imported from `source` (`anthropic`, …), its first message
/// saying `hi`, with `text` as its Anthropic export (made before: the test
/// server has no worker).
fn imported(source: &str, hi: &str, text: &str) -> Arc<Doc> {
    let json =
        WITH_PARAMS.replacen('{', &format!(r#"{{"source": "{source}","#), 1).replace(r#""hi""#, &format!("{hi:?}"));
    let doc = Doc::load(Source::Pasted, json.as_bytes()).unwrap();
    doc.keep_export(Export { target: Target::Anthropic, text: text.into(), notices: Vec::new().into() });
    doc
}

fn picker(el: &Element) -> String {
    one(el, "[data-testid=export-format]").unchecked_into::<web_sys::HtmlSelectElement>().value()
}

#[wasm_bindgen_test]
async fn the_export_starts_on_the_format_a_document_was_imported_from_and_then_keeps_the_users_pick() {
    clear_storage();
    // The saved preference is OpenAI Chat; the document came from Anthropic.
    let (el, h, prefs) = mount_panel(imported("anthropic", "hi", "{\"replayed\": 1}\n"), Target::OpenaiChat);
    assert!(until(|| el.query_selector("[data-testid=protocol-json]").ok().flatten().is_some()).await);
    assert_eq!(picker(&el), "anthropic");
    assert!(json_text(&el).contains("replayed"));
    assert!(all(&el, "[data-testid=export-notices]").is_empty(), "a replay carries everything");
    assert_eq!(one(&el, "[data-testid=export-notices-count]").text_content().unwrap(), "");
    assert_eq!(prefs.export.get_untracked(), Target::OpenaiChat, "the start is not a preference");
    // The user's pick holds: for this document, and for it after a reload.
    pick(&el, "openai");
    // (While the export switches, the JSON view may be gone for a moment.)
    assert!(until(|| json_text_now(&el).is_some_and(|t| t.contains("\"messages\""))).await);
    assert_eq!(prefs.export.get_untracked(), Target::OpenaiChat);
    assert!(!all(&el, "[data-testid=export-notices] li").is_empty());
    drop(h);
    let (el, h, _) = mount_panel(imported("anthropic", "hi", "{\"replayed\": 1}\n"), Target::OpenaiChat);
    assert!(until(|| el.query_selector("[data-testid=protocol-json]").ok().flatten().is_some()).await);
    assert_eq!(picker(&el), "openai", "the same document, loaded again");
    drop(h);
    // Another imported document starts on its own format again.
    let (el, _h, _) = mount_panel(imported("anthropic", "hello", "{\"other\": 2}\n"), Target::OpenaiChat);
    assert!(until(|| el.query_selector("[data-testid=protocol-json]").ok().flatten().is_some()).await);
    assert_eq!(picker(&el), "anthropic");
    assert!(json_text(&el).contains("other"));
    // A document without `source` shows the saved preference, as before.
    let (el, _h2, _) = mount_panel(Doc::load(Source::Pasted, WITH_PARAMS.as_bytes()).unwrap(), Target::OpenaiChat);
    assert!(until(|| el.query_selector("[data-testid=protocol-json]").ok().flatten().is_some()).await);
    assert_eq!(picker(&el), "openai");
}

#[wasm_bindgen_test]
async fn export_notices_are_text_however_hostile() {
    clear_storage();
    let doc = Doc::load(Source::Pasted, WITH_PARAMS.as_bytes()).unwrap();
    let hostile = "<img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=2</script>";
    doc.keep_export(Export {
        target: Target::Anthropic,
        text: "{}\n".into(),
        notices: vec![Notice::new(hostile, hostile), Notice::new("", "the whole & <b>document</b>")].into(),
    });
    let (el, _h, _) = mount_panel(doc, Target::Anthropic);
    assert!(until(|| !all(&el, "[data-testid=export-notices] li").is_empty()).await);
    let notices = one(&el, "[data-testid=export-notices]");
    assert!(all(&notices, "img, script, b").is_empty());
    let items: Vec<String> = all(&notices, "li").iter().map(|li| li.text_content().unwrap()).collect();
    assert_eq!(items, [format!("{hostile} {hostile}"), "(document) the whole & <b>document</b>".to_string()]);
    assert_eq!(notices.get_attribute("aria-labelledby").as_deref(), Some("export-notices-title"));
}

#[wasm_bindgen_test]
async fn an_export_the_engine_cannot_make_says_so_and_tries_again() {
    clear_storage();
    let (el, _h, _prefs) = mount_panel(all_kinds_doc(), Target::OpenaiResponses);
    // The test server has no worker: the export fails visibly, never hangs.
    assert!(until(|| !all(&el, "[data-testid=export-error]").is_empty()).await, "no error shown");
    let first = one(&el, "[data-testid=export-error]");
    assert!(first.text_content().unwrap().contains("The OpenAI Responses export could not be made"));
    let copy: web_sys::HtmlButtonElement = one(&el, "[data-testid=copy-json]").unchecked_into();
    assert!(copy.disabled(), "nothing to copy");
    click(&one(&el, "[data-testid=export-retry]"));
    assert!(
        until(|| !first.is_connected() && !all(&el, "[data-testid=export-error]").is_empty()).await,
        "Try again did not ask again"
    );
    // OpenAI Chat needs no engine.
    pick(&el, "openai");
    assert!(until(|| el.query_selector("[data-testid=protocol-json]").ok().flatten().is_some()).await);
    assert!(json_text(&el).contains("\"tool_calls\""));
    assert!(!copy.disabled());
}

#[wasm_bindgen_test]
async fn a_request_the_engine_cannot_import_is_reported_with_try_again_and_the_view_stays() {
    clear_storage();
    let el = host();
    let _h = mount_to(el.clone(), pep_app::App);
    tick().await;
    let paste = |json: String| {
        let el = el.clone();
        async move {
            if all(&el, "dialog[open]").is_empty() {
                let open = all(&el, ".header-actions button")
                    .into_iter()
                    .find(|b| b.text_content().unwrap().contains("Paste"))
                    .unwrap();
                click(&open);
                tick().await;
            }
            let area: web_sys::HtmlTextAreaElement = one(&el, "[data-testid=paste-json]").unchecked_into();
            area.set_value(&json);
            area.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
            tick().await;
            click(&one(&el, "[data-testid=paste-load]"));
            tick().await;
        }
    };
    paste(ALL_KINDS.replace("LONGVALUE", "short")).await;
    assert!(until(|| all(&el, "[data-message-id]").len() == 4).await);
    // An OpenAI Chat request goes to the engine, which is missing here.
    paste(r#"{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}"#.to_string()).await;
    assert!(until(|| !all(&el, "[data-testid=engine-error]").is_empty()).await, "no engine error");
    let banner = one(&el, "[data-testid=load-errors]").text_content().unwrap();
    assert!(banner.contains("Pasted document could not be imported"), "{banner}");
    assert!(all(&el, "[data-testid=import-progress]").is_empty(), "progress ends with the failure");
    assert_eq!(all(&el, "[data-message-id]").len(), 4, "the view stays");
    assert!(all(&el, "[data-testid=imported-from]").is_empty());
    // "Try again" imports again (with a fresh worker): a new failure replaces the old one.
    let first = one(&el, "[data-testid=engine-error]");
    click(&one(&el, "[data-testid=load-retry]"));
    assert!(until(|| !first.is_connected() && !all(&el, "[data-testid=engine-error]").is_empty()).await);
    // Text that is not JSON fails here, without the engine: its line and column.
    paste("{\"model\": \"gpt-4o\",\n oops}".to_string()).await;
    assert!(until(|| one(&el, "[data-testid=load-errors]").text_content().unwrap().contains("line 2 column 2")).await);
    assert!(all(&el, "[data-testid=engine-error]").is_empty());
}

#[wasm_bindgen_test]
async fn an_imported_document_says_where_it_came_from_after_a_reload() {
    clear_storage();
    let origin = Origin {
        format: envelope::RequestFormat::Anthropic,
        notices: vec![
            Notice::new("system[0].cache_control", "a cache breakpoint ({\"type\":\"ephemeral\"}) stood here"),
            Notice::new("messages[1].content[0].citations", "citations are not represented"),
        ],
    };
    let stored = pep_app::state::StoredDocument {
        name: Some("request.json".into()),
        text: WITH_PARAMS.into(),
        imported: Some(origin),
    };
    pep_app::browser::save(pep_app::state::DOC_KEY, &stored).unwrap();
    let el = host();
    let _h = mount_to(el.clone(), move || {
        let session = Session::new();
        provide_context(session);
        session.restore_user_document();
        if let Some(d) = session.user_doc.get_untracked() {
            session.show(d);
        }
        view! { <pep_app::components::loader::ImportedFrom/> }
    });
    tick().await;
    let banner = one(&el, "[data-testid=imported-from]");
    assert_eq!(banner.get_attribute("data-format").unwrap(), "anthropic");
    assert!(banner.text_content().unwrap().contains("Imported from Anthropic Messages"));
    let toggle = one(&banner, "[data-testid=import-notices-toggle]");
    assert!(toggle.text_content().unwrap().contains("2 notes"));
    assert!(all(&el, "[data-testid=import-notices]").is_empty());
    click(&toggle);
    tick().await;
    let items: Vec<String> =
        all(&el, "[data-testid=import-notices] li").iter().map(|l| l.text_content().unwrap()).collect();
    assert_eq!(items.len(), 2);
    assert!(items[0].starts_with("system[0].cache_control"), "{items:?}");
}

#[wasm_bindgen_test]
async fn request_settings_show_params_with_long_values_on_demand() {
    let doc = Doc::load(Source::Pasted, WITH_PARAMS.as_bytes()).unwrap();
    let (el, _h) = mount_conversation(doc);
    tick().await;
    let strip = one(&el, "[data-testid=request-settings]");
    let keys: Vec<String> = all(&strip, ".chip").iter().map(|c| c.get_attribute("data-key").unwrap()).collect();
    assert_eq!(keys, ["model", "temperature", "top_k", "response_format"]);
    assert_eq!(one(&strip, "[data-key=temperature]").text_content().unwrap(), "temperature = 0.2");
    let long = one(&strip, "[data-key=response_format] button");
    assert_eq!(long.get_attribute("aria-expanded").unwrap(), "false");
    assert!(long.text_content().unwrap().contains("{…} 2 keys"));
    assert!(all(&el, "[data-testid=setting-full]").is_empty());
    click(&long);
    tick().await;
    assert_eq!(long.get_attribute("aria-expanded").unwrap(), "true");
    let full = one(&el, "[data-testid=setting-full]").text_content().unwrap();
    assert!(full.contains("\"json_schema\": {"), "{full}");
    // No params, no strip.
    let (plain, _h2) = mount_conversation(all_kinds_doc());
    tick().await;
    assert!(all(&plain, "[data-testid=request-settings]").is_empty());
}

#[wasm_bindgen_test]
async fn unknown_timestamps_show_no_time() {
    let doc = Doc::load(Source::Pasted, WITH_PARAMS.as_bytes()).unwrap();
    let (el, _h) = mount_conversation(doc);
    tick().await;
    let times: Vec<String> = all(&el, "[data-message-id] time").iter().map(|t| t.text_content().unwrap()).collect();
    assert_eq!(times.len(), 2);
    assert_eq!(times[0], "", "timestamp 0 is unknown, not 1970");
    assert!(times[1].starts_with("2026-01-01") || times[1].starts_with("2025-12-31"), "{}", times[1]);
}

// ---- the window ----------------------------------------------------------

use envelope::calls::At;
use pep_app::nav::Navigator;
use pep_app::state::ToggleKey;

/// `n` user messages `m0`…: a text, then a collapsed long text.
fn many_messages(n: usize) -> Arc<Doc> {
    let messages: Vec<String> = (0..n)
        .map(|i| {
            let long = format!("long {i} one\\ntwo\\nthree\\nfour\\nfive");
            let chars = long.replace("\\n", "\n").chars().count();
            format!(
                r#"{{"id": "m{i}", "role": "user", "timestamp": {i}, "segments": [
                    {{"kind": "text", "content": "Message {i}: a few words to give it some height."}},
                    {{"kind": "long_text", "content": "{long}", "charCount": {chars}, "collapsed": true}}]}}"#
            )
        })
        .collect();
    let text = format!(r#"{{"version": "1.0", "messages": [{}]}}"#, messages.join(","));
    Doc::load(Source::Pasted, text.as_bytes()).unwrap_or_else(|e| panic!("{e:?}"))
}

/// One message `one` of `n` text segments.
fn one_big_message(n: usize) -> Arc<Doc> {
    let segments: Vec<String> = (0..n).map(|j| format!(r#"{{"kind": "text", "content": "segment {j}"}}"#)).collect();
    let text = format!(
        r#"{{"version": "1.0", "messages": [{{"id": "one", "role": "user", "timestamp": 0, "segments": [{}]}}]}}"#,
        segments.join(",")
    );
    Doc::load(Source::Pasted, text.as_bytes()).unwrap_or_else(|e| panic!("{e:?}"))
}

/// Mounts the conversation with a navigator and an expansion store the test keeps.
fn mount_with(doc: Arc<Doc>) -> (HtmlElement, impl Drop, Navigator, Expansion) {
    let el = host();
    let slot = Arc::new(std::sync::Mutex::new(None));
    let slot2 = slot.clone();
    let handle = mount_to(el.clone(), move || {
        provide_context(Session::new());
        let (nav, expansion) = (Navigator::new(), Expansion::new());
        provide_context(nav);
        provide_context(expansion);
        *slot2.lock().unwrap() = Some((nav, expansion));
        view! { <Conversation doc=doc.clone()/> }
    });
    let (nav, expansion) = slot.lock().unwrap().take().unwrap();
    (el, handle, nav, expansion)
}

fn ids(el: &Element) -> Vec<String> {
    all(el, "[data-message-id]").iter().map(|m| m.get_attribute("data-message-id").unwrap()).collect()
}

fn top(el: &Element) -> f64 {
    el.get_bounding_client_rect().top()
}

#[wasm_bindgen_test]
async fn only_what_is_near_the_viewport_is_rendered() {
    let (el, _h) = mount_conversation(many_messages(400));
    settle().await;
    let shown = ids(&el);
    assert!(shown.len() > 3 && shown.len() < 150, "{} of 400 messages in the DOM", shown.len());
    assert_eq!(shown[0], "m0");
    // The list is as tall as the whole conversation (padding for the rest).
    assert!(el.scroll_height() > 40 * 400, "scroll height {}", el.scroll_height());
    el.set_scroll_top(el.scroll_height());
    settle().await;
    let shown = ids(&el);
    assert!(shown.contains(&"m399".to_string()), "{shown:?}");
    assert!(!shown.contains(&"m0".to_string()), "{shown:?}");
    assert_eq!(one(&el, "[data-message-id=m399]").get_attribute("aria-posinset").unwrap(), "400");
}

#[wasm_bindgen_test]
async fn a_toggle_survives_scrolling_away_and_back() {
    let (el, _h) = mount_conversation(many_messages(400));
    settle().await;
    let toggle = || one(&el, "[data-message-id=m1] [data-kind=long_text] [aria-expanded]");
    assert_eq!(toggle().get_attribute("aria-expanded").unwrap(), "false");
    click(&toggle());
    tick().await;
    assert_eq!(toggle().get_attribute("aria-expanded").unwrap(), "true");
    el.set_scroll_top(el.scroll_height());
    settle().await;
    assert!(all(&el, "[data-message-id=m1]").is_empty(), "m1 is unmounted far away");
    el.set_scroll_top(0);
    settle().await;
    assert_eq!(toggle().get_attribute("aria-expanded").unwrap(), "true", "m1 comes back open");
    assert!(one(&el, "[data-message-id=m1] [data-kind=long_text]").text_content().unwrap().contains("five"));
    assert_eq!(
        one(&el, "[data-message-id=m2] [data-kind=long_text] [aria-expanded]").get_attribute("aria-expanded").unwrap(),
        "false",
        "the others keep the document's state"
    );
}

#[wasm_bindgen_test]
async fn reveal_renders_opens_scrolls_to_and_highlights_a_far_segment() {
    let (el, _h, nav, _) = mount_with(many_messages(400));
    settle().await;
    assert!(all(&el, "[data-message-id=m350]").is_empty());
    nav.reveal(At { message: 350, segment: 1 }, true);
    tick().await;
    let slot = one(&el, "[data-message-id=m350] [data-seg='1']");
    assert!(slot.class_list().contains("flash"), "highlighted");
    settle().await;
    assert_eq!(one(&slot, "[aria-expanded]").get_attribute("aria-expanded").unwrap(), "true", "opened");
    let (t, b) = (top(&slot), slot.get_bounding_client_rect().bottom());
    let r = el.get_bounding_client_rect();
    assert!(t >= r.top() && b <= r.bottom(), "in view: {t}..{b} in {}..{}", r.top(), r.bottom());
    assert_eq!(web_sys::window().unwrap().location().hash().unwrap(), "#m=m350&s=1", "named in the address");
    // The highlight ends by itself.
    gloo_timers_sleep(1900).await;
    assert!(!slot.class_list().contains("flash"));
    // A message: its bubble comes to the top.
    nav.reveal_message(3);
    settle().await;
    let li = one(&el, "[data-message-id=m3]");
    assert!((top(&li) - r.top()).abs() < 40.0, "m3 at {} (box at {})", top(&li), r.top());
    assert_eq!(web_sys::window().unwrap().location().hash().unwrap(), "#m=m3");
}

#[wasm_bindgen_test]
async fn an_anchor_in_the_address_opens_at_its_message() {
    let doc = many_messages(400);
    let el = host();
    let w = web_sys::window().unwrap();
    w.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("#m=m300")).unwrap();
    let _h = mount_to(el.clone(), move || {
        provide_context(Session::new());
        view! { <Conversation doc=doc.clone()/> }
    });
    settle().await;
    let li = one(&el, "[data-message-id=m300]");
    let r = el.get_bounding_client_rect();
    assert!(top(&li) >= r.top() - 1.0 && top(&li) < r.top() + 60.0, "m300 at {} (box at {})", top(&li), r.top());
    assert!(all(&el, "[data-message-id=m0]").is_empty(), "the top is not rendered");
}

#[wasm_bindgen_test]
async fn a_message_of_many_segments_is_windowed_within() {
    let (el, _h) = mount_conversation(one_big_message(20_000));
    settle().await;
    let slots = all(&el, ".seg-slot").len();
    assert!((10..1_000).contains(&slots), "{slots} of 20,000 segments rendered");
    el.set_scroll_top(el.scroll_height() / 2);
    settle().await;
    let segs: Vec<usize> =
        all(&el, ".seg-slot").iter().map(|s| s.get_attribute("data-seg").unwrap().parse().unwrap()).collect();
    assert!(segs.len() < 1_000, "{} segments rendered", segs.len());
    assert!(segs.iter().all(|&s| (5_000..15_000).contains(&s)), "{segs:?}");
    // One bubble (not one per chunk), its header stuck at the top of the box.
    assert_eq!(ids(&el), ["one"]);
    assert_eq!(all(&el, ".msg-head").len(), 1);
    assert!(one(&el, "[data-message-id=one]").class_list().contains("chunked"));
    let head = top(&one(&el, ".msg-head")) - el.get_bounding_client_rect().top();
    assert!(head.abs() < 2.0, "the header is {head} px from the top of the box");
}

#[wasm_bindgen_test]
async fn the_view_stays_put_when_heights_change_above_it() {
    let (el, _h, _, expansion) = mount_with(many_messages(400));
    settle().await;
    el.set_scroll_top(4_000);
    settle().await;
    let band = el.get_bounding_client_rect().top();
    let lis = all(&el, "[data-message-id]");
    let probe = lis.iter().find(|li| top(li) >= band + 1.0).unwrap().clone();
    let above: Vec<usize> = lis
        .iter()
        .filter(|li| li.get_bounding_client_rect().bottom() < band)
        .map(|li| li.get_attribute("data-message-id").unwrap()[1..].parse().unwrap())
        .collect();
    assert!(above.len() >= 3, "rendered above the viewport: {above:?}");
    let before = top(&probe);
    for m in &above {
        expansion.set(ToggleKey::segment(*m, 1), true);
    }
    settle().await;
    let opened = format!("[data-message-id=m{}] [data-kind=long_text] [aria-expanded=true]", above[0]);
    assert_eq!(all(&el, &opened).len(), 1, "the panels above did open");
    assert!((top(&probe) - before).abs() < 1.5, "moved from {before} to {}", top(&probe));
    // "Collapse all" too (rendered and unrendered rows change).
    click(&all(&el, ".conv-tools button")[1]);
    settle().await;
    assert!((top(&probe) - before).abs() < 1.5, "moved from {before} to {}", top(&probe));
}

/// Markdown too large or pathological to render stays plain, says why, and
/// goes to the renderer on request (issue 12).
#[wasm_bindgen_test]
async fn pathological_markdown_stays_plain_until_asked() {
    let deep = format!("{}deep", "> ".repeat(60));
    let text = serde_json::json!({
        "version": "1.0",
        "messages": [{"id": "u", "role": "user", "timestamp": 0, "segments": [
            {"kind": "text", "content": deep},
            {"kind": "text", "content": "**bold**"}
        ]}]
    })
    .to_string();
    let doc = Doc::load(Source::Pasted, text.as_bytes()).unwrap();
    let (el, _h) = mount_conversation(doc);
    settle().await;
    let texts = all(&el, "[data-kind=text]");
    let note = one(&texts[0], "[data-testid=md-fallback]");
    assert!(note.text_content().unwrap().contains("nested 60 levels deep"), "{}", note.text_content().unwrap());
    assert!(all(&texts[1], "[data-testid=md-fallback]").is_empty(), "an ordinary text is not held");
    click(&one(&note, "button"));
    tick().await;
    let texts = all(&el, "[data-kind=text]");
    assert!(all(&texts[0], "[data-testid=md-fallback]").is_empty(), "asked: no longer held");
    assert!(one(&texts[0], ".md").text_content().unwrap().contains("deep"));
    assert!(!all(&texts[0], ".md blockquote").is_empty(), "rendered on request");
    assert!(!all(&texts[1], ".md strong").is_empty(), "an ordinary text is rendered at once");
}

/// The fidelity extension's data: reasoning (plain, signed; redacted),
/// provider blocks, cache breakpoints, a result's content blocks, a
/// document's source and a message's provider name and role.
fn fidelity_doc() -> Arc<Doc> {
    let signature = "S".repeat(344);
    let text = serde_json::json!({
        "version": "1.0",
        "source": "anthropic",
        "messages": [
            {"id": "s", "role": "system", "timestamp": 0, "providerRole": "developer", "segments": [
                {"kind": "system_prompt", "content": "Be brief.", "collapsed": false,
                 "cacheControl": {"type": "ephemeral", "ttl": "1h"}}
            ]},
            {"id": "u", "role": "user", "timestamp": 1, "name": "example_user", "segments": [
                {"kind": "text", "content": "Look", "cacheControl": {"type": "ephemeral"}},
                {"kind": "document", "fileName": "spec.pdf", "mimeType": "application/pdf", "snippet": "", "sizeBytes": 3,
                 "data": "JVBERg==", "url": "https://files.example/spec.pdf", "fileId": "file_123"}
            ]},
            {"id": "a", "role": "assistant", "timestamp": 2, "segments": [
                {"kind": "reasoning", "content": "Think <b>step</b> by step", "summary": ["First <i>idea</i>", "Second"],
                 "signature": signature, "collapsed": true},
                {"kind": "reasoning", "content": "", "encrypted": "ENC".repeat(10), "collapsed": true},
                {"kind": "provider_block", "format": "anthropic", "collapsed": true,
                 "block": {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "<img src=x onerror=alert(1)>"}}},
                {"kind": "provider_block", "format": "anthropic", "collapsed": false,
                 "block": {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []}},
                {"kind": "tool_call_request", "toolName": "shot", "arguments": {}, "collapsed": true, "callId": "c1"}
            ]},
            {"id": "t", "role": "tool", "timestamp": 3, "segments": [
                {"kind": "tool_call_result", "toolName": "shot", "result": "see image", "success": false, "collapsed": false,
                 "callId": "c1", "content": [
                    {"type": "text", "text": "see image"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                     "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="}},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/svg+xml", "data": "PHN2Zz4="}},
                    {"type": "image", "source": {"type": "url", "url": "https://img.example/a.png"}},
                    {"type": "document", "title": "Report <b>Q3</b>", "source": {"type": "url", "url": "https://x.example/r.pdf"}}
                 ]}
            ]}
        ]
    })
    .to_string();
    Doc::load(Source::Pasted, text.as_bytes()).unwrap_or_else(|e| panic!("{e:?}"))
}

#[wasm_bindgen_test]
async fn reasoning_is_plain_read_only_and_never_shows_its_signature() {
    let (el, _h) = mount_conversation(fidelity_doc());
    settle().await;
    let reasoning = all(&el, "[data-kind=reasoning]");
    assert_eq!(reasoning.len(), 2);
    let text = reasoning[0].text_content().unwrap();
    assert!(text.contains("Reasoning") && !text.contains("Redacted"), "{text}");
    assert_eq!(one(&reasoning[0], "[data-testid=reasoning-signed]").text_content().unwrap(), "signed · 344 chars");
    assert!(!text.contains("SSSS"), "the signature is never shown");
    assert_eq!(expanded(&el, "reasoning", 0), "false", "collapsed as the document says");
    assert!(!text.contains("step by"), "the text waits until opened");
    toggle(&el, "reasoning", 0);
    tick().await;
    let r = &all(&el, "[data-kind=reasoning]")[0];
    assert_eq!(one(r, ".reasoning-text").text_content().unwrap(), "Think <b>step</b> by step", "plain text, escaped");
    assert!(all(r, "b").is_empty() && all(r, "i").is_empty(), "no markup from the text");
    let summary: Vec<String> = all(r, ".reasoning-summary li").iter().map(|li| li.text_content().unwrap()).collect();
    assert_eq!(summary, ["First <i>idea</i>", "Second"]);
    assert!(!r.text_content().unwrap().contains("SSSS"));
    assert!(all(r, "input, textarea, [contenteditable]").is_empty(), "read-only");

    let redacted = &all(&el, "[data-kind=reasoning]")[1];
    assert!(redacted.text_content().unwrap().contains("Redacted reasoning"));
    assert_eq!(one(redacted, "[data-testid=reasoning-encrypted]").text_content().unwrap(), "encrypted · 30 chars");
    toggle(&el, "reasoning", 1);
    tick().await;
    assert!(!all(&el, "[data-kind=reasoning]")[1].text_content().unwrap().contains("ENCENC"));
}

#[wasm_bindgen_test]
async fn provider_blocks_show_type_tool_format_and_escaped_json() {
    let (el, _h) = mount_conversation(fidelity_doc());
    settle().await;
    let blocks = all(&el, "[data-kind=provider_block]");
    assert_eq!(blocks.len(), 2);
    assert!(blocks[0].class_list().contains("pb-call") && blocks[1].class_list().contains("pb-result"));
    assert_eq!(one(&blocks[0], ".pb-type").text_content().unwrap(), "server_tool_use");
    assert_eq!(one(&blocks[0], ".pb-tool").text_content().unwrap(), "web_search");
    assert!(blocks[0].text_content().unwrap().contains("Anthropic Messages"));
    assert_eq!(one(&blocks[1], ".pb-type").text_content().unwrap(), "web_search_tool_result");
    assert!(all(&blocks[1], ".pb-tool").is_empty(), "a result names no tool");
    // The first is collapsed, the second open (from the data).
    assert_eq!(expanded(&el, "provider_block", 0), "false");
    assert!(one(&blocks[1], "pre.pb-json").text_content().unwrap().contains("\"tool_use_id\": \"srv_1\""));
    toggle(&el, "provider_block", 0);
    tick().await;
    let first = &all(&el, "[data-kind=provider_block]")[0];
    let json = one(first, "pre.pb-json").text_content().unwrap();
    assert!(json.contains("\"query\": \"<img src=x onerror=alert(1)>\""), "{json}");
    assert!(all(first, "img").is_empty(), "the block's strings are text");
}

#[wasm_bindgen_test]
async fn cache_breakpoints_are_marked_after_their_segment() {
    let (el, _h) = mount_conversation(fidelity_doc());
    settle().await;
    let marks = all(&el, "[data-testid=cache-mark]");
    let labels: Vec<String> = marks.iter().map(|m| m.text_content().unwrap()).collect();
    assert_eq!(labels, ["Cache breakpoint · ttl 1h", "Cache breakpoint"]);
    assert!(marks.iter().all(|m| m.get_attribute("role").as_deref() == Some("note")));
    // Right after the segment it belongs to.
    let prev = marks[1].previous_element_sibling().unwrap();
    assert_eq!(prev.get_attribute("data-kind").as_deref(), Some("text"));
    let prev = marks[0].previous_element_sibling().unwrap();
    assert_eq!(prev.get_attribute("data-kind").as_deref(), Some("system_prompt"));
}

#[wasm_bindgen_test]
async fn a_failed_result_shows_its_image_and_document_blocks() {
    let (el, _h) = mount_conversation(fidelity_doc());
    settle().await;
    let result = one(&el, "[data-kind=tool_call_result]");
    let badges: Vec<String> = all(&result, ".result-head .badge").iter().map(|b| b.text_content().unwrap()).collect();
    assert!(badges.contains(&"error".to_string()), "{badges:?}");
    assert!(badges.contains(&"2 images".to_string()), "{badges:?}");
    // The PNG as a data: URL; the SVG not as an image; the remote image held.
    let imgs = all(&result, ".result-blocks img");
    assert_eq!(imgs.len(), 1);
    assert!(imgs[0].get_attribute("src").unwrap().starts_with("data:image/png;base64,iVBOR"));
    assert_eq!(all(&result, ".result-blocks [data-testid=media-held]").len(), 1, "remote image waits for consent");
    let cards: Vec<String> =
        all(&result, "[data-testid=result-block]").iter().map(|c| c.text_content().unwrap()).collect();
    assert_eq!(cards.len(), 2, "{cards:?}");
    assert!(cards[0].contains("image") && cards[0].contains("image/svg+xml"), "{cards:?}");
    assert!(cards[1].contains("document") && cards[1].contains("Report <b>Q3</b>"), "{cards:?}");
    assert!(all(&result, ".result-blocks b").is_empty());
}

#[wasm_bindgen_test]
async fn documents_say_where_the_provider_finds_them_and_messages_their_provider_name() {
    let (el, _h) = mount_conversation(fidelity_doc());
    settle().await;
    let doc = one(&el, "[data-kind=document]");
    let text = doc.text_content().unwrap();
    assert!(text.contains("https://files.example/spec.pdf") && text.contains("file_123"), "{text}");
    assert_eq!(one(&doc, "[data-testid=doc-data]").text_content().unwrap(), "base64 data kept · 8 chars (not shown)");
    assert!(!text.contains("JVBERg"), "the data is not shown");
    assert!(all(&doc, "a").is_empty(), "the URL is text, not a link");

    let head = |id: &str| one(&el, &format!("[data-message-id={id}] .msg-head"));
    let system: Vec<String> = all(&head("s"), ".msg-ext").iter().map(|b| b.text_content().unwrap()).collect();
    assert_eq!(system, ["provider role developer"]);
    let user: Vec<String> = all(&head("u"), ".msg-ext").iter().map(|b| b.text_content().unwrap()).collect();
    assert_eq!(user, ["name example_user"]);
    assert!(all(&head("a"), ".msg-ext").is_empty());
}

// Secrets (issue 21): masked wherever a document's text is shown, each with
// a "show" button; Download can redact them first.

/// A key built at run time (no secret-looking literal in the source).
fn test_key(prefix: &str, body: &str) -> String {
    format!("{prefix}{}", body.repeat(100 / body.len() + 1))
}

/// A document with a different secret in a system prompt (Markdown), a
/// variable used in a text, a long text, a tool call's arguments and a result.
fn secrets_doc() -> (Arc<Doc>, [String; 5]) {
    let keys = [
        test_key("sk-proj-", "Md1_Pr2-Om"),
        test_key("sk-ant-api03-", "Va9_rI8-aB"),
        test_key("sk-proj-", "Lo3_Ng4-Tx"),
        test_key("sk-proj-", "Ar5_Gs6-Xy"),
        test_key("sk-ant-api03-", "Re7_Su8-Lt"),
    ];
    let doc = serde_json::json!({"version": "1.0", "messages": [
        {"id": "s", "role": "system", "timestamp": 1, "segments": [
            {"kind": "static_var", "name": "api_key", "value": keys[1]},
            {"kind": "system_prompt", "content": format!("Use **{}** for calls.", keys[0]), "collapsed": false}
        ]},
        {"id": "u", "role": "user", "timestamp": 2, "segments": [
            {"kind": "text", "content": "Key: {{api_key}}"},
            {"kind": "long_text", "content": format!("log line\nexport KEY={}\nend", keys[2]), "charCount": 10, "collapsed": false}
        ]},
        {"id": "a", "role": "assistant", "timestamp": 3, "segments": [
            {"kind": "tool_call_request", "toolName": "call", "arguments": {"token": keys[3]}, "collapsed": false, "callId": "c1"}
        ]},
        {"id": "t", "role": "tool", "timestamp": 4, "segments": [
            {"kind": "tool_call_result", "toolName": "call", "result": format!("ok, used {}", keys[4]), "success": true, "collapsed": false, "callId": "c1"}
        ]}
    ]});
    (Doc::load(Source::Pasted, doc.to_string().as_bytes()).unwrap_or_else(|e| panic!("{e:?}")), keys)
}

/// The secret views whose text starts like `key` (its public prefix and first characters masked).
fn secret_of(root: &Element, masked_start: &str) -> Element {
    all(root, "[data-testid=secret]")
        .into_iter()
        .find(|s| one(s, ".secret-text").text_content().unwrap().starts_with(masked_start))
        .unwrap_or_else(|| panic!("no secret shown as {masked_start}…"))
}

#[wasm_bindgen_test]
async fn secrets_are_masked_and_each_show_button_reveals_only_its_own() {
    let (doc, keys) = secrets_doc();
    let (el, _h) = mount_conversation(doc);
    settle().await;
    let page = || el.text_content().unwrap();
    for k in &keys {
        assert!(!page().contains(k.as_str()), "{k} is masked");
        assert!(!page().contains(&k[k.len() - 40..]), "no long part of it either");
    }
    // Arguments, result, long text, variable chip: one view each, masked as
    // `mask` does (prefix, stars, the last four characters).
    let args = one(&el, "[data-kind=tool_call_request]");
    let secret = one(&args, "[data-testid=secret]");
    let masked = envelope::secrets::mask(&keys[3], 8);
    assert_eq!(one(&secret, ".secret-text").text_content().unwrap(), masked);
    let button = one(&secret, "button");
    assert_eq!(button.get_attribute("type").as_deref(), Some("button"));
    assert_eq!(button.get_attribute("aria-label").as_deref(), Some("Show this OpenAI API key"));
    // A button: keyboard-focusable, activated by Enter and Space.
    button.unchecked_ref::<HtmlElement>().focus().unwrap();
    assert!(document().active_element().is_some_and(|a| a == button));
    click(&button);
    tick().await;
    assert_eq!(one(&secret, ".secret-text").text_content().unwrap(), keys[3], "shown in place");
    assert_eq!(button.get_attribute("aria-label").as_deref(), Some("Hide this OpenAI API key"));
    assert_eq!(button.text_content().unwrap(), "hide");
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(page().contains(k.as_str()), i == 3, "only the one asked for: {i}");
    }
    click(&button);
    tick().await;
    assert!(!page().contains(keys[3].as_str()), "masked again");
    for (seg, k, prefix) in [
        ("[data-kind=tool_call_result]", &keys[4], 13),
        ("[data-kind=long_text]", &keys[2], 8),
        (".session-bar", &keys[1], 13),
        ("[data-kind=static_var]", &keys[1], 13),
    ] {
        let s = secret_of(&one(&el, seg), &envelope::secrets::mask(k, prefix));
        assert!(one(&s, "button").get_attribute("aria-label").unwrap().starts_with("Show this "));
    }
    // Markdown: masked before rendering; plain until the renderer is here
    // (a button per secret), rendered after (one button for the text).
    let md = one(&el, "[data-kind=system_prompt]");
    assert!(md.text_content().unwrap().contains("sk-proj-"), "the public prefix stays");
    let reveal = md.query_selector("[data-testid=secrets-toggle]").unwrap();
    let button = match reveal {
        Some(b) => {
            assert_eq!(
                b.get_attribute("aria-label").as_deref(),
                Some("Show secrets: the 1 masked secret in this text")
            );
            b
        }
        None => one(&md, "[data-testid=secret-toggle]"),
    };
    click(&button);
    tick().await;
    assert!(md.text_content().unwrap().contains(keys[0].as_str()), "revealed");
    assert!(!page().contains(keys[1].as_str()), "not the others");
    // Revealed secrets are kept for the page's life: masked again for the next test.
    click(&one(&md, "[data-testid=secrets-toggle], [data-testid=secret-toggle]"));
    tick().await;
    assert!(!page().contains(keys[0].as_str()));
}

#[wasm_bindgen_test]
async fn secrets_in_the_json_views_are_masked_and_download_can_redact_them() {
    clear_storage();
    let (doc, keys) = secrets_doc();
    let (el, _h, prefs) = mount_panel(doc, Target::OpenaiChat);
    assert!(until(|| el.query_selector("[data-testid=protocol-json]").unwrap().is_some()).await);
    assert!(until(|| !all(&el, "[data-testid=protocol-json] [data-testid=secret]").is_empty()).await);
    let json = json_text(&el);
    for k in &keys {
        assert!(!json.contains(k.as_str()), "{k} masked in the export");
    }
    // The arguments are a JSON string inside a string: still found.
    let masked = envelope::secrets::mask(&keys[3], 8);
    let arg = secret_of(&el, &masked);
    click(&one(&arg, "button"));
    tick().await;
    assert!(json_text(&el).contains(keys[3].as_str()), "revealed in place");
    click(&one(&arg, "button"));
    tick().await;
    // The raw tab too.
    prefs.tab.set(pep_app::state::Tab::Raw);
    assert!(until(|| json_text_now(&el).is_some_and(|t| t.contains("\"version\""))).await);
    for k in &keys {
        assert!(!json_text(&el).contains(k.as_str()), "{k} masked in the raw document");
    }
    // Download, secrets redacted: a file of its own name; plain: as it is.
    let redact: web_sys::HtmlInputElement = one(&el, "[data-testid=redact-secrets]").unchecked_into();
    assert!(!redact.checked(), "off by default: byte for byte");
    redact.click();
    click(&one(&el, "[data-testid=download-json]"));
    assert!(until(|| el.text_content().unwrap().contains("secrets redacted")).await);
    assert_eq!(
        one(&el, "[data-testid=copy-status]").text_content().unwrap(),
        "Saved pasted.envelope.redacted.json, secrets redacted"
    );
}
