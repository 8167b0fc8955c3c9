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
      {"kind": "media", "mediaType": "image", "url": "data:image/png;base64,iVBORw0KGgo=", "altText": "figure"},
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

/// A fresh host element in the page.
fn host() -> HtmlElement {
    let el: HtmlElement = document().create_element("section").unwrap().unchecked_into();
    document().body().unwrap().append_child(&el).unwrap();
    el
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
    tick().await;
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
    tick().await;
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
    tick().await;
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
    tick().await;
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
    tick().await;
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
    tick().await;
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
    tick().await;
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

/// The only test that installs a renderer: until then the Markdown module
/// is not there (it cannot be imported here) and texts are plain.
#[wasm_bindgen_test]
async fn markdown_is_plain_text_until_the_renderer_is_ready_then_rendered_and_safe() {
    use pep_app::markdown::{self, Status};
    let (el, _h) = mount_conversation(all_kinds_doc());
    tick().await;
    assert_ne!(untrack(markdown::status), Status::Ready);
    click(&all(&el, "[data-kind=skills] .skill-name")[0]);
    tick().await;
    let text = one(&el, "[data-kind=text]");
    let plain = one(&text, ".md.md-plain");
    assert_eq!(
        plain.text_content().unwrap(),
        "Hello **Ann** <script>window.__pwned = 1</script>",
        "as written, variable substituted"
    );
    assert_eq!(one(&plain, "mark.var").get_attribute("data-var").unwrap(), "who");
    assert!(all(&text, "strong").is_empty() && all(&text, "script").is_empty());
    // Blocks are paragraphs, lines kept.
    let skills_body = all(&el, "[data-kind=skills] .skill-l2 .md-plain p");
    assert_eq!(skills_body.iter().map(|p| p.text_content().unwrap()).collect::<Vec<_>>(), vec!["# PDF\nUse it."]);

    markdown::install(|src: &str, vars: &[String]| {
        let lookup = |n: &str| vars.chunks_exact(2).find(|p| p[0] == n).map(|p| p[1].as_str());
        envelope::markdown::render_markdown_with_vars(src, &lookup)
    });
    tick().await;
    let text = one(&el, "[data-kind=text]");
    assert!(all(&text, ".md-plain").is_empty(), "every text switches");
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
    tick().await;
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
        provide_context(prefs);
        let signal = Signal::stored(Some(doc.clone()));
        view! { <ProtocolPanel doc=signal/> }
    });
    // The JSON follows the first paint of the page.
    assert!(until(|| el.query_selector("[data-testid=protocol-json]").ok().flatten().is_some()).await);
    let text = |el: &Element| one(el, "[data-testid=protocol-json]").text_content().unwrap();
    assert_eq!(text(&el), expected_openai.trim_end_matches('\n').to_string() + "\n");
    assert_eq!(one(&el, "[data-testid=tab-openai]").get_attribute("aria-selected").unwrap(), "true");
    click(&one(&el, "[data-testid=tab-raw]"));
    tick().await;
    assert_eq!(one(&el, "[data-testid=tab-raw]").get_attribute("aria-selected").unwrap(), "true");
    assert!(text(&el).contains("\"kind\": \"static_var\""));
    assert_eq!(text(&el), expected_raw.trim_end_matches('\n').to_string() + "\n");
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
            if all(&el, "[data-testid=paste-json]").is_empty() {
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
    assert!(until(|| all(&el, "[data-message-id]").len() == 4).await, "the pasted document shows");

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
    assert_eq!(all(&el, "[data-message-id]").len(), 4, "the current view stays");
    assert_eq!(one(&el, "[data-message-id]").get_attribute("data-message-id").unwrap(), "s");

    // A syntax error gives line and column.
    paste("{\n  \"version\": \"1.0\",\n  oops\n}".to_string()).await;
    assert!(until(|| one(&el, "[data-testid=load-errors]").text_content().unwrap().contains("line 3 column 3")).await);
    assert_eq!(all(&el, "[data-message-id]").len(), 4);

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
    assert_eq!(all(&el, "[data-message-id]").len(), 4);
}

// ---- truncation preview ---------------------------------------------------

use pep_app::budget::{Budget, Counted};
use pep_app::components::budget::BudgetPanel;
use pep_app::tokens::Encoded;

/// Counts with one "token" per byte: the view logic is tested here, the
/// tokenizer by the core's oracle tests and the end-to-end tests.
fn byte_counts(doc: &Doc) -> Counted {
    use envelope::parts::{part_strings, part_texts, segment_strings};
    let texts = part_texts(&doc.envelope, &doc.contributions);
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
    let doc = Doc::load(Source::Pasted, CHAT.as_bytes()).unwrap();
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
    // Token badges per message and per segment.
    assert!(one(&el, "[data-message-id=u1]").text_content().unwrap().contains("20 tok"));
    assert_eq!(all(&el, ".tok-badge").len(), 5);

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
fn the_crash_screen_shows_the_message_as_text() {
    // The panic hook renders into the body; here into a host of its own, so
    // the test runner's page survives.
    let el = host();
    pep_app::render_crash_screen(&el, "panicked at <img src=x onerror=alert(1)>");
    let screen = one(&el, "[data-testid=crash]");
    assert!(screen.text_content().unwrap().contains("Something went wrong"));
    assert_eq!(one(&el, "#crash-message").text_content().unwrap(), "panicked at <img src=x onerror=alert(1)>");
    assert!(all(&el, "img").is_empty());
}

#[wasm_bindgen_test]
async fn warnings_disclose_with_a_button_and_dismiss() {
    // An unused variable: the document loads with one warning.
    let text = r#"{"version": "1.0", "messages": [{"id": "u", "role": "user", "timestamp": 0,
        "segments": [{"kind": "static_var", "name": "unused", "value": "1"}, {"kind": "text", "content": "hi"}]}]}"#;
    let doc = Doc::load(Source::Pasted, text.as_bytes()).unwrap();
    assert_eq!(doc.warnings.len(), 1);
    let el = host();
    let _h = mount_to(el.clone(), move || {
        let session = Session::new();
        provide_context(session);
        session.show(doc.clone());
        view! { <pep_app::components::loader::Warnings/> }
    });
    tick().await;
    let toggle = one(&el, "[data-testid=warnings] button[aria-expanded]");
    assert_eq!(toggle.get_attribute("aria-expanded").unwrap(), "false");
    assert!(all(&el, "[data-testid=warnings] li").is_empty());
    click(&toggle);
    tick().await;
    assert_eq!(toggle.get_attribute("aria-expanded").unwrap(), "true");
    assert!(one(&el, "[data-testid=warnings] li").text_content().unwrap().contains("unused"));
    let dismiss =
        all(&el, "[data-testid=warnings] button").into_iter().find(|b| b.text_content().unwrap() == "Dismiss").unwrap();
    click(&dismiss);
    tick().await;
    assert!(all(&el, "[data-testid=warnings]").is_empty());
}
