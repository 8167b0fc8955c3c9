//! The browser's APIs as functions (with `hooks/`, the only code that calls
//! the browser's globals; see `lib.rs`): clipboard, download, storage,
//! fetch, files, theme, the address and history, geometry and scrolling,
//! focus, elements made for the page, timers and frames (one way to wait:
//! [`sleep`]), the panic screen. Everything returns `Result<_, String>` with
//! a sentence a user can read, or a neutral value; nothing here panics on a
//! missing API.

use js_sys::Reflect;
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A JavaScript exception or rejection as a sentence.
pub fn js_err(e: JsValue) -> String {
    e.as_string()
        .or_else(|| e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())))
        .unwrap_or_else(|| format!("{e:?}"))
}

fn window() -> Result<web_sys::Window, String> {
    web_sys::window().ok_or_else(|| "no window".to_string())
}

/// Keeps a panic's message for the error screen: index.html's crash script
/// shows it when the abort that follows reaches the page as a trap. Release
/// builds do not call this: their panics abort at once
/// (`panic=immediate-abort`, scripts/trunk.sh), no hook runs, and the screen
/// names the trap instead.
pub fn install_panic_screen() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        if let Some(window) = web_sys::window() {
            let _ = Reflect::set(&window, &"__pepPanic".into(), &info.to_string().into());
        }
    }));
}

/// A new `<tag>` element of the page's document (not in the page yet).
pub fn create_element(tag: &str) -> Option<web_sys::Element> {
    web_sys::window()?.document()?.create_element(tag).ok()
}

/// A text node of the page's document holding `text` (never parsed as HTML).
pub fn create_text_node(text: &str) -> Option<web_sys::Text> {
    Some(web_sys::window()?.document()?.create_text_node(text))
}

/// Copies `text` to the clipboard: the async Clipboard API where there is
/// one, else a hidden textarea and `execCommand("copy")`.
pub async fn copy_text(text: &str) -> Result<(), String> {
    let w = window()?;
    let clipboard = w.navigator().clipboard();
    // `navigator.clipboard` is undefined outside secure contexts.
    if !JsValue::from(clipboard.clone()).is_undefined() && JsFuture::from(clipboard.write_text(text)).await.is_ok() {
        return Ok(());
    }
    copy_with_exec_command(&w, text)
}

fn copy_with_exec_command(w: &web_sys::Window, text: &str) -> Result<(), String> {
    let doc = w.document().ok_or("no document")?;
    let area: web_sys::HtmlTextAreaElement = doc.create_element("textarea").map_err(js_err)?.unchecked_into();
    area.set_value(text);
    area.set_attribute("style", "position:fixed;top:-1000px;opacity:0").ok();
    let body = doc.body().ok_or("no body")?;
    body.append_child(&area).map_err(js_err)?;
    area.select();
    let ok = doc.unchecked_ref::<web_sys::HtmlDocument>().exec_command("copy").unwrap_or(false);
    area.remove();
    if ok {
        Ok(())
    } else {
        Err("the browser refused to copy (no clipboard access)".into())
    }
}

/// Saves `text` as a file named `file_name`.
pub fn download_text(file_name: &str, text: &str, mime: &str) -> Result<(), String> {
    let w = window()?;
    let doc = w.document().ok_or("no document")?;
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(js_err)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js_err)?;
    let a: web_sys::HtmlAnchorElement = doc.create_element("a").map_err(js_err)?.unchecked_into();
    a.set_href(&url);
    a.set_download(file_name);
    a.set_attribute("style", "display:none").ok();
    if let Some(body) = doc.body() {
        body.append_child(&a).ok();
    }
    a.click();
    a.remove();
    // Revoke after the click has been handled.
    after(1000, move || {
        web_sys::Url::revoke_object_url(&url).ok();
    });
    Ok(())
}

/// A text file `index.html` started fetching before the app loaded
/// (`window.__pepPrefetch = {url, promise, text?}`): the demo of the address.
pub enum Prefetched {
    /// It has arrived: the first render can show the document directly.
    Ready(String),
    /// Still on its way: await this instead of fetching again.
    Pending(js_sys::Promise),
}

/// Takes (once) the prefetched text of `url`, if `index.html` fetched it.
pub fn take_prefetched(url: &str) -> Option<Prefetched> {
    let w = web_sys::window()?;
    let key = JsValue::from_str("__pepPrefetch");
    let entry = js_sys::Reflect::get(&w, &key).ok().filter(|v| v.is_object())?;
    let field = |name: &str| js_sys::Reflect::get(&entry, &JsValue::from_str(name)).ok();
    if field("url")?.as_string().as_deref() != Some(url) {
        return None;
    }
    js_sys::Reflect::delete_property(&w, &key).ok();
    if let Some(text) = field("text").and_then(|t| t.as_string()) {
        return Some(Prefetched::Ready(text));
    }
    field("promise").and_then(|p| p.dyn_into::<js_sys::Promise>().ok()).map(Prefetched::Pending)
}

/// Awaits a prefetch promise from `index.html` (it resolves to the text, or
/// rejects with a message).
pub async fn await_prefetched(promise: js_sys::Promise) -> Result<String, String> {
    let text = JsFuture::from(promise).await.map_err(js_err)?;
    text.as_string().ok_or_else(|| "not text".to_string())
}

/// Fetches a same-origin text file.
pub async fn fetch_text(url: &str) -> Result<String, String> {
    let w = window()?;
    let resp = JsFuture::from(w.fetch_with_str(url)).await.map_err(js_err)?;
    let resp: web_sys::Response = resp.dyn_into().map_err(js_err)?;
    if !resp.ok() {
        return Err(format!("{url}: HTTP {}", resp.status()));
    }
    let text = JsFuture::from(resp.text().map_err(js_err)?).await.map_err(js_err)?;
    text.as_string().ok_or_else(|| format!("{url}: not text"))
}

/// The bytes of a file the user picked or dropped (not decoded: the core
/// reports invalid UTF-8 with its position).
pub async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, String> {
    let buf = JsFuture::from(file.array_buffer()).await.map_err(js_err)?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// The first `n` bytes of a file (all of it when shorter).
pub async fn read_head(file: &web_sys::File, n: usize) -> Result<Vec<u8>, String> {
    let head = file.slice_with_f64_and_f64(0.0, n as f64).map_err(js_err)?;
    let buf = JsFuture::from(head.array_buffer()).await.map_err(js_err)?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

/// localStorage through gloo-storage. A missing key is `Ok(None)`; a value
/// that does not parse is an error (the caller starts with defaults and says so).
///
/// Storage the browser refuses to give (site data blocked) reads as empty;
/// writes then fail with a sentence saying so. (gloo-storage would throw a
/// JavaScript exception, not a Rust error, before the app has a page.)
pub fn load<T: DeserializeOwned>(key: &str) -> Result<Option<T>, String> {
    use gloo_storage::{errors::StorageError, LocalStorage, Storage};
    if local_storage().is_err() {
        return Ok(None);
    }
    match LocalStorage::get::<T>(key) {
        Ok(v) => Ok(Some(v)),
        Err(StorageError::KeyNotFound(_)) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// Writes a value; a full quota or disabled storage is an error to report.
pub fn save<T: Serialize>(key: &str, value: &T) -> Result<(), String> {
    use gloo_storage::{LocalStorage, Storage};
    local_storage()?;
    LocalStorage::set(key, value).map_err(|e| e.to_string())
}

/// Whether storage holds `key` (without reading its value).
pub fn has(key: &str) -> bool {
    local_storage().ok().and_then(|s| s.get_item(key).ok().flatten()).is_some()
}

/// Removes `key` from storage (nothing when storage is unavailable).
pub fn remove(key: &str) {
    if let Ok(s) = local_storage() {
        let _ = s.remove_item(key);
    }
}

fn local_storage() -> Result<web_sys::Storage, String> {
    match window()?.local_storage() {
        Ok(Some(s)) => Ok(s),
        _ => Err("this browser does not let the page store data (site data may be blocked)".into()),
    }
}

/// A colour theme the user chose (`Option<Theme>`: `None` follows the
/// system). Stored as `"light"` / `"dark"` (`state::PrefsData::theme`), the
/// value of the root element's `data-theme` too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    /// Its `data-theme` value (and stored form).
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

/// Sets `data-theme` on the root element (`None`: follow the system).
pub fn apply_theme(theme: Option<Theme>) {
    let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) else {
        return;
    };
    match theme {
        Some(t) => root.set_attribute("data-theme", t.as_str()).ok(),
        None => root.remove_attribute("data-theme").ok(),
    };
}

/// Whether the system prefers a dark theme.
pub fn prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// The path of the page's address (`location.pathname`).
pub fn location_path() -> Option<String> {
    web_sys::window()?.location().pathname().ok()
}

/// Adds a history entry for `url` (same origin) without loading it.
pub fn push_history(url: &str) {
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = h.push_state_with_url(&JsValue::NULL, "", Some(url));
    }
}

/// Replaces the current history entry's address by `url` (same origin).
pub fn replace_history(url: &str) {
    if let Some(h) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(url));
    }
}

/// Scrolls the window to the top (a new page starts at its top).
pub fn scroll_to_top() {
    if let Some(w) = web_sys::window() {
        w.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

/// The path of the page's `<base href>` (ending with `/`), if it has one.
pub fn base_path() -> Option<String> {
    let doc = web_sys::window()?.document()?;
    doc.query_selector("base[href]").ok()??;
    let url = web_sys::Url::new(&doc.base_uri().ok()??).ok()?;
    let path = url.pathname();
    Some(if path.ends_with('/') { path } else { format!("{path}/") })
}

/// The function `object[name]`.
fn function(object: &JsValue, name: &str) -> Result<js_sys::Function, String> {
    Reflect::get(object, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| format!("no function `{name}`"))
}

/// Awaits a promise (or a plain value).
async fn await_promise(value: JsValue) -> Result<JsValue, String> {
    JsFuture::from(js_sys::Promise::resolve(&value)).await.map_err(js_err)
}

/// A named mark on the performance timeline (for the bench).
pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// Milliseconds since navigation started (for timing marks).
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// `YYYY-MM-DD HH:MM` in local time for a timestamp in ms since the epoch;
/// nothing for 0, which means "unknown" (imported requests carry no times).
pub fn format_time(ms: f64) -> String {
    if ms == 0.0 {
        return String::new();
    }
    let d = js_sys::Date::new(&JsValue::from_f64(ms));
    if d.get_time().is_nan() {
        return String::new();
    }
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02}",
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date(),
        d.get_hours(),
        d.get_minutes()
    )
}

/// Resolves once the browser has painted the next frame (a task queued from
/// `requestAnimationFrame`, so it runs after that frame, not before it), and
/// after the tasks that frame queued: the timer queued from the frame queues
/// the one that resolves, so whatever else the frame's callbacks queued (the
/// page's own "painted" marks, see bench/SIZE.md) runs first. Background work
/// that waits on this never delays a paint nor what follows it at once.
pub async fn after_next_paint() {
    next_frame().await;
    sleep(0).await;
    sleep(0).await;
}

// ---- geometry and scrolling (the conversation's window) -----------------

/// `el`'s top and bottom in viewport coordinates.
pub fn rect(el: &web_sys::Element) -> (f64, f64) {
    let r = el.get_bounding_client_rect();
    (r.top(), r.bottom())
}

/// The element that scrolls `el`: its nearest ancestor whose content
/// overflows a box that scrolls; `None` when the document scrolls it.
pub fn scroller(el: &web_sys::Element) -> Option<web_sys::Element> {
    let w = web_sys::window()?;
    let root = w.document()?.document_element()?;
    let mut cur = el.parent_element();
    while let Some(p) = cur {
        if p == root {
            return None;
        }
        if p.scroll_height() > p.client_height() {
            let oy = w.get_computed_style(&p).ok().flatten().and_then(|s| s.get_property_value("overflow-y").ok());
            if matches!(oy.as_deref(), Some("auto" | "scroll" | "overlay")) {
                return Some(p);
            }
        }
        cur = p.parent_element();
    }
    None
}

/// The part of the viewport (top, bottom) in which `scroller` shows content.
pub fn visible_band(scroller: Option<&web_sys::Element>) -> (f64, f64) {
    let height = web_sys::window().and_then(|w| w.inner_height().ok()).and_then(|h| h.as_f64()).unwrap_or(0.0);
    match scroller {
        None => (0.0, height),
        Some(s) => {
            let r = s.get_bounding_client_rect();
            let top = r.top() + s.client_top() as f64;
            (top.max(0.0), (top + s.client_height() as f64).min(height))
        }
    }
}

/// How far `scroller` (or the document) is scrolled.
pub fn scroll_position(scroller: Option<&web_sys::Element>) -> f64 {
    match scroller {
        Some(s) => s.scroll_top() as f64,
        None => web_sys::window().and_then(|w| w.scroll_y().ok()).unwrap_or(0.0),
    }
}

/// Scrolls `scroller` (or the document) by `dy` px at once (never smoothly:
/// the window's corrections must land before the next paint); returns the
/// new position.
pub fn scroll_by(scroller: Option<&web_sys::Element>, dy: f64) -> f64 {
    match scroller {
        Some(s) => s.set_scroll_top((s.scroll_top() as f64 + dy).round() as i32),
        None => {
            if let Some(w) = web_sys::window() {
                w.scroll_to_with_x_and_y(w.scroll_x().unwrap_or(0.0), w.scroll_y().unwrap_or(0.0) + dy);
            }
        }
    }
    scroll_position(scroller)
}

/// The address's fragment without `#` (empty when there is none).
pub fn location_hash() -> String {
    let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    hash.strip_prefix('#').unwrap_or(&hash).to_string()
}

/// Replaces the address's fragment (no new history entry; `""` removes it).
pub fn replace_hash(fragment: &str) {
    let Some(w) = web_sys::window() else { return };
    let Ok(history) = w.history() else { return };
    let location = w.location();
    let base = format!("{}{}", location.pathname().unwrap_or_default(), location.search().unwrap_or_default());
    let url = if fragment.is_empty() { base } else { format!("{base}#{fragment}") };
    // The router's state object stays as it is.
    let state = history.state().unwrap_or(JsValue::NULL);
    let _ = history.replace_state_with_url(&state, "", Some(&url));
}

/// Bytes through the browser's `CompressionStream` (`compress`) or
/// `DecompressionStream` with `format` (`"deflate-raw"`); reading stops with
/// an error past `limit` output bytes (a deflate bomb).
pub async fn transform_stream(bytes: &[u8], compress: bool, format: &str, limit: usize) -> Result<Vec<u8>, String> {
    let w = window()?;
    let name = if compress { "CompressionStream" } else { "DecompressionStream" };
    let ctor = Reflect::get(&w, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| format!("this browser has no {name} (Chrome 80, Firefox 113, Safari 16.4 or later have it)"))?;
    let args = js_sys::Array::of1(&JsValue::from_str(format));
    let transform = Reflect::construct(&ctor, &args).map_err(js_err)?;
    let input = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&input);
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(js_err)?;
    let stream: JsValue = blob.stream().into();
    let piped = function(&stream, "pipeThrough")?.call1(&stream, &transform).map_err(js_err)?;
    let reader = function(&piped, "getReader")?.call0(&piped).map_err(js_err)?;
    let read = function(&reader, "read")?;
    let mut out = Vec::new();
    loop {
        let chunk = await_promise(read.call0(&reader).map_err(js_err)?).await?;
        if Reflect::get(&chunk, &JsValue::from_str("done")).ok().and_then(|d| d.as_bool()) == Some(true) {
            return Ok(out);
        }
        let value = Reflect::get(&chunk, &JsValue::from_str("value")).map_err(js_err)?;
        let array = value.dyn_into::<js_sys::Uint8Array>().map_err(|_| "the stream gave no bytes".to_string())?;
        if out.len() + array.length() as usize > limit {
            if let Ok(cancel) = function(&reader, "cancel") {
                let _ = cancel.call0(&reader);
            }
            return Err(format!("more than {} MB", limit >> 20));
        }
        let at = out.len();
        out.resize(at + array.length() as usize, 0);
        array.copy_to(&mut out[at..]);
    }
}

/// The page's address up to the fragment (`origin + pathname`).
pub fn page_url() -> String {
    web_sys::window()
        .map(|w| {
            let l = w.location();
            format!("{}{}", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default())
        })
        .unwrap_or_default()
}

/// The origin of the page (`https://host`).
pub fn origin() -> String {
    web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default()
}

// ---- finding and navigation ---------------------------------------------

/// Resolves after a zero-delay timeout: the task ends here, so a long job
/// that awaits this between steps never blocks input or a paint for long.
pub async fn yield_now() {
    sleep(0).await;
}

/// Sets the page's title.
pub fn set_title(title: &str) {
    if let Some(d) = web_sys::window().and_then(|w| w.document()) {
        d.set_title(title);
    }
}

/// The focused element, if any (not `<body>`).
pub fn active_element() -> Option<web_sys::Element> {
    let d = web_sys::window()?.document()?;
    let el = d.active_element()?;
    (Some(&el) != d.body().map(web_sys::Element::from).as_ref()).then_some(el)
}

/// Moves focus to `el` without scrolling (the caller placed it).
pub fn focus_quietly(el: &web_sys::Element) {
    if let Some(el) = el.dyn_ref::<web_sys::HtmlElement>() {
        let options = web_sys::FocusOptions::new();
        options.set_prevent_scroll(true);
        let _ = el.focus_with_options(&options);
    }
}

/// The first element matching `selector` in the page.
pub fn query(selector: &str) -> Option<web_sys::Element> {
    web_sys::window()?.document()?.query_selector(selector).ok().flatten()
}

/// Whether typing goes to `el` (a text field, a select, an editable region):
/// single-key shortcuts leave such keys alone.
pub fn is_typing_target(el: &web_sys::Element) -> bool {
    let tag = el.tag_name().to_ascii_lowercase();
    if tag == "textarea" || tag == "select" {
        return true;
    }
    if tag == "input" {
        let kind = el.get_attribute("type").unwrap_or_default().to_ascii_lowercase();
        return !matches!(
            kind.as_str(),
            "checkbox" | "radio" | "button" | "submit" | "reset" | "range" | "color" | "file"
        );
    }
    el.dyn_ref::<web_sys::HtmlElement>().is_some_and(|h| h.is_content_editable())
}

/// The CSS Custom Highlight under which the current search match is painted.
const MATCH_HIGHLIGHT: &str = "pep-match";

/// Paints the `nth` occurrence (0-based; the last one if there are fewer)
/// of `folded_query` in `root`'s text, compared through `fold`, with the
/// CSS Custom Highlight API (the DOM is not touched), and scrolls it into
/// view if `scroll` and it is outside the viewport. Returns the painted
/// range, or `None` when the text is not there as such (Markdown changed
/// it) or the API is missing.
pub fn highlight_match(
    root: &web_sys::Element,
    folded_query: &str,
    nth: usize,
    fold: impl Fn(&str) -> String,
    scroll: bool,
) -> Option<web_sys::Range> {
    let doc = web_sys::window()?.document()?;
    // SHOW_TEXT
    let walker = doc.create_tree_walker_with_what_to_show(root, 4).ok()?;
    let mut nodes: Vec<(web_sys::Node, String, usize)> = Vec::new();
    let mut text = String::new();
    while let Ok(Some(node)) = walker.next_node() {
        let t = node.node_value().unwrap_or_default();
        nodes.push((node, t.clone(), text.len()));
        text.push_str(&t);
    }
    if folded_query.is_empty() {
        return None;
    }
    let folded = fold(&text);
    let starts: Vec<usize> = folded.match_indices(folded_query).map(|(i, _)| i).collect();
    let start = *starts.get(nth).or(starts.last())?;
    let end = start + folded_query.len();
    // A byte offset in the joined text → (node, UTF-16 offset in it).
    let point = |at: usize, is_end: bool| {
        let k = nodes
            .iter()
            .rposition(|(_, t, base)| *base <= at && (at < base + t.len() || (is_end && at == base + t.len())))?;
        let (node, t, base) = &nodes[k];
        let within = t.get(..at - base)?;
        Some((node.clone(), within.encode_utf16().count() as u32))
    };
    let (n0, o0) = point(start, false)?;
    let (n1, o1) = point(end, true)?;
    let range = doc.create_range().ok()?;
    range.set_start(&n0, o0).ok()?;
    range.set_end(&n1, o1).ok()?;
    let global = js_sys::global();
    let ctor: js_sys::Function = js_sys::Reflect::get(&global, &"Highlight".into()).ok()?.dyn_into().ok()?;
    let highlight = js_sys::Reflect::construct(&ctor, &js_sys::Array::of1(&range)).ok()?;
    let css = js_sys::Reflect::get(&global, &"CSS".into()).ok()?;
    let registry = js_sys::Reflect::get(&css, &"highlights".into()).ok()?;
    let set: js_sys::Function = js_sys::Reflect::get(&registry, &"set".into()).ok()?.dyn_into().ok()?;
    set.call2(&registry, &MATCH_HIGHLIGHT.into(), &highlight).ok()?;
    if scroll {
        let r = range.get_bounding_client_rect();
        let h = web_sys::window()?.inner_height().ok()?.as_f64()?;
        if r.top() < 80.0 || r.bottom() > h - 40.0 {
            if let Some(parent) = n0.parent_element() {
                let options = web_sys::ScrollIntoViewOptions::new();
                options.set_block(web_sys::ScrollLogicalPosition::Center);
                parent.scroll_into_view_with_scroll_into_view_options(&options);
            }
        }
    }
    Some(range)
}

/// Removes the search match's paint.
pub fn clear_match_highlight() {
    let global = js_sys::global();
    let Ok(css) = js_sys::Reflect::get(&global, &"CSS".into()) else { return };
    let Ok(registry) = js_sys::Reflect::get(&css, &"highlights".into()) else { return };
    if let Ok(delete) = js_sys::Reflect::get(&registry, &"delete".into()).and_then(|f| f.dyn_into::<js_sys::Function>())
    {
        let _ = delete.call1(&registry, &MATCH_HIGHLIGHT.into());
    }
}

/// Whether a range still covers text in the page (a removed node
/// collapses the ranges in it).
pub fn range_connected(range: &web_sys::Range) -> bool {
    !range.collapsed() && range.start_container().is_ok_and(|n| n.is_connected())
}

/// Scrolls a scrollable box so that `el` (inside it) is near its top,
/// without moving the page.
pub fn scroll_into_box(scroller: &web_sys::Element, el: &web_sys::Element) {
    let (top, _) = rect(el);
    let (box_top, _) = rect(scroller);
    scroller.set_scroll_top(scroller.scroll_top() + (top - box_top - 8.0) as i32);
}

/// Shows `<dialog>` `el` as a modal (Escape closes it; the page behind is inert).
pub fn show_modal(el: &web_sys::Element) {
    if let Some(d) = el.dyn_ref::<web_sys::HtmlDialogElement>() {
        if !d.open() {
            let _ = d.show_modal();
        }
    }
}

/// Closes `<dialog>` `el`.
pub fn close_dialog(el: &web_sys::Element) {
    if let Some(d) = el.dyn_ref::<web_sys::HtmlDialogElement>() {
        d.close();
    }
}

// ---- waiting (docs/DECISIONS.md, "One way to wait") ---------------------

/// Resolves after `ms` milliseconds: the app's one timer. Every delay in the
/// app is this, awaited in a task ([`after`] spawns one). A wait that a
/// newer one replaces, or that its component outlived, checks after the
/// await whether it still applies (a sequence number, `try_` access), so
/// there is no handle to keep or clear.
pub async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Runs `f` in `ms` milliseconds: [`sleep`] in a task of its own.
pub fn after(ms: i32, f: impl FnOnce() + 'static) {
    wasm_bindgen_futures::spawn_local(async move {
        sleep(ms).await;
        f();
    });
}

/// Resolves in the next animation frame, before its paint (what runs after
/// the await sees the layout of the DOM as it is then; after a zero-delay
/// [`sleep`] where there are no frames).
pub async fn next_frame() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let Some(w) = web_sys::window() else { return };
        if w.request_animation_frame(&resolve).is_err() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Resolves when the browser is idle (`requestIdleCallback`), or after
/// `timeout_ms` at the latest; after a zero-delay [`sleep`] where there is no
/// idle callback. Work that no one is waiting for yields to every task
/// already queued (input, a message) before it starts.
pub async fn idle(timeout_ms: u32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let Some(w) = web_sys::window() else { return };
        let ask =
            Reflect::get(&w, &"requestIdleCallback".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        let options = js_sys::Object::new();
        let _ = Reflect::set(&options, &"timeout".into(), &JsValue::from(timeout_ms));
        if ask.is_none_or(|f| f.call2(&w, &resolve, &options).is_err()) {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Whether the user has selected text in the page (a click that ends a
/// selection is not a "go there").
pub fn has_selection() -> bool {
    let Some(w) = web_sys::window() else { return false };
    let Ok(get) = Reflect::get(&w, &"getSelection".into()).and_then(|f| f.dyn_into::<js_sys::Function>()) else {
        return false;
    };
    get.call0(&w)
        .ok()
        .and_then(|s| Reflect::get(&s, &"isCollapsed".into()).ok())
        .and_then(|c| c.as_bool())
        .is_some_and(|collapsed| !collapsed)
}

// ---- focus, title, keyboard patterns (accessibility) ----------------------

/// Focuses the element with this id (a skip link's target, a tab).
pub fn focus_id(id: &str) {
    let el = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id(id));
    if let Some(el) = el.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    }
}

/// Focuses `el` when it is an HTML element.
pub fn focus(el: &web_sys::Element) {
    if let Some(el) = el.dyn_ref::<web_sys::HtmlElement>() {
        let _ = el.focus();
    }
}

/// WAI-ARIA tabs: Left/Right (wrapping), Home and End on a `role="tab"`
/// inside a `role="tablist"` focus that tab and activate it (a click);
/// answers whether the key was one of them (the caller prevents its default).
pub fn tablist_key(ev: &web_sys::KeyboardEvent) -> bool {
    let Some(tab) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return false };
    let Some(list) = tab.closest("[role=tablist]").ok().flatten() else { return false };
    roving_step(&list, ":scope > [role=tab]", &tab, ev.key().as_str(), ("ArrowLeft", "ArrowRight"), true)
}

/// Roving focus among `selector` inside `container`: `keys` (previous,
/// next), Home and End move focus from `from` (wrapping), give the new
/// element `tabindex=0` and the old `-1`; with `activate` the new one is
/// also clicked. Answers whether the key moved focus.
pub fn roving_step(
    container: &web_sys::Element,
    selector: &str,
    from: &web_sys::Element,
    key: &str,
    keys: (&str, &str),
    activate: bool,
) -> bool {
    let Ok(list) = container.query_selector_all(selector) else { return false };
    let items: Vec<web_sys::Element> = (0..list.length()).filter_map(|i| list.item(i)?.dyn_into().ok()).collect();
    let Some(at) = items.iter().position(|e| e == from) else { return false };
    let n = items.len();
    let to = match key {
        k if k == keys.0 => (at + n - 1) % n,
        k if k == keys.1 => (at + 1) % n,
        "Home" => 0,
        "End" => n - 1,
        _ => return false,
    };
    let _ = from.set_attribute("tabindex", "-1");
    let _ = items[to].set_attribute("tabindex", "0");
    focus(&items[to]);
    if activate {
        if let Some(el) = items[to].dyn_ref::<web_sys::HtmlElement>() {
            el.click();
        }
    }
    true
}

/// Keeps Tab inside `container` (a modal): from its last focusable element
/// Tab goes to the first, from the first Shift+Tab to the last. Answers
/// whether it moved focus (the caller prevents the default).
pub fn trap_tab(container: &web_sys::Element, ev: &web_sys::KeyboardEvent) -> bool {
    if ev.key() != "Tab" {
        return false;
    }
    let sel = "button:not([disabled]), textarea, input, select, a[href], [tabindex]:not([tabindex='-1'])";
    let Ok(list) = container.query_selector_all(sel) else { return false };
    let items: Vec<web_sys::Element> = (0..list.length()).filter_map(|i| list.item(i)?.dyn_into().ok()).collect();
    let (Some(first), Some(last)) = (items.first(), items.last()) else { return false };
    let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
    let to = match (ev.shift_key(), active) {
        (false, Some(a)) if &a == last => first,
        (true, Some(a)) if &a == first => last,
        _ => return false,
    };
    focus(to);
    true
}

/// Takes focus off whatever has it (the page keeps no focused element).
pub fn blur_active() {
    if let Some(el) = active_element().and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.blur();
    }
}

/// The window's inner width and height in CSS pixels (1400 × 900 when there
/// is no window).
pub fn viewport() -> (f64, f64) {
    let Some(w) = web_sys::window() else { return (1400.0, 900.0) };
    let px = |v: Result<JsValue, JsValue>, or: f64| v.ok().and_then(|v| v.as_f64()).unwrap_or(or);
    (px(w.inner_width(), 1400.0), px(w.inner_height(), 900.0))
}

thread_local! {
    /// Whether the first screen is complete, and who waits for it.
    static FIRST_SCREEN: std::cell::RefCell<(bool, Vec<js_sys::Function>)> = const { std::cell::RefCell::new((false, Vec::new())) };
}

/// Says that the first screen is complete (the conversation and the
/// protocol panel painted): what waits in [`first_screen_complete`] goes on.
pub fn mark_first_screen_complete() {
    let waiting = FIRST_SCREEN.with(|f| {
        let mut f = f.borrow_mut();
        f.0 = true;
        std::mem::take(&mut f.1)
    });
    for resolve in waiting {
        let _ = resolve.call0(&JsValue::UNDEFINED);
    }
    // For the glue of a release build: the cold module loads now
    // (scripts/cold-runtime.mjs).
    if let (Some(w), Ok(e)) = (web_sys::window(), web_sys::Event::new("pep-first-screen")) {
        let _ = w.dispatch_event(&e);
    }
}

/// Whether the first screen is complete ([`mark_first_screen_complete`]).
pub fn first_screen_is_complete() -> bool {
    FIRST_SCREEN.with(|f| f.borrow().0)
}

/// Resolves once the first screen is complete ([`mark_first_screen_complete`],
/// called by the viewer after the protocol panel's first paint and then an
/// idle callback, D183), or after
/// 5 s on a page that never says so (`/diff`, a page not found; 1.5 s was
/// shorter than a first screen on a busy 2-core machine). When it is already
/// complete it returns at once, without a promise: what awaits it keeps its
/// order among the frame's callbacks (a jump's correction after the
/// conversation's window update, D180). What the first screen leaves out
/// waits here: the conversation's measured overscan, the JSON rows below the
/// fold.
pub async fn first_screen_marked() {
    if first_screen_is_complete() {
        return;
    }
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let now = FIRST_SCREEN.with(|f| {
            let mut f = f.borrow_mut();
            if !f.0 {
                f.1.push(resolve.clone());
            }
            f.0
        });
        if now {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        } else {
            let resolve = resolve.clone();
            after(5000, move || {
                let _ = resolve.call0(&JsValue::UNDEFINED);
            });
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// [`first_screen_marked`], then a moment more: background work the first
/// screen does not need (the secrets detector's fetch, the semantic check,
/// the service worker) waits here, so it neither delays the screen a person
/// waits for nor adds to its bytes (issue 24), and the frame that completes
/// the screen (and whoever measures it) comes first.
pub async fn first_screen_complete() {
    first_screen_marked().await;
    sleep(300).await;
}

/// A file under dropped folders: its path from the drop (`skills/pdf/SKILL.md`)
/// and its entry (read with [`entry_file`]).
pub struct DroppedFile {
    pub path: String,
    pub entry: web_sys::FileSystemFileEntry,
}

/// Every file under dropped entries (folders walked depth first, each
/// folder's listing read in the batches the browser gives), in the order
/// found; at most `max` (then `true`: there were more). Folders named in
/// `skip` are not entered.
pub async fn dropped_files(
    entries: Vec<web_sys::FileSystemEntry>,
    max: usize,
    skip: &[&str],
) -> Result<(Vec<DroppedFile>, bool), String> {
    let mut out = Vec::new();
    let mut stack: Vec<web_sys::FileSystemEntry> = entries.into_iter().rev().collect();
    while let Some(entry) = stack.pop() {
        if entry.is_directory() {
            if skip.contains(&entry.name().as_str()) {
                continue;
            }
            let reader = entry.unchecked_ref::<web_sys::FileSystemDirectoryEntry>().create_reader();
            let mut children = Vec::new();
            loop {
                let promise = js_sys::Promise::new(&mut |resolve, reject| {
                    if let Err(e) = reader.read_entries_with_callback_and_callback(&resolve, &reject) {
                        let _ = reject.call1(&JsValue::UNDEFINED, &e);
                    }
                });
                let batch =
                    JsFuture::from(promise).await.map_err(|e| format!("{}: {}", entry.full_path(), js_err(e)))?;
                let batch: js_sys::Array = batch.unchecked_into();
                if batch.length() == 0 {
                    break;
                }
                children.extend(batch.iter().map(|e| e.unchecked_into::<web_sys::FileSystemEntry>()));
            }
            stack.extend(children.into_iter().rev());
        } else if entry.is_file() {
            if out.len() == max {
                return Ok((out, true));
            }
            let path = entry.full_path();
            let path = path.strip_prefix('/').unwrap_or(&path).to_string();
            out.push(DroppedFile { path, entry: entry.unchecked_into() });
        }
    }
    Ok((out, false))
}

/// The file of a dropped entry.
pub async fn entry_file(entry: &web_sys::FileSystemFileEntry) -> Result<web_sys::File, String> {
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        entry.file_with_callback_and_callback(&resolve, &reject);
    });
    JsFuture::from(promise).await.map(JsCast::unchecked_into).map_err(js_err)
}

/// A file's path in the folder the user picked (`webkitRelativePath`:
/// `skills/pdf/SKILL.md`), or its name when it was not picked in a folder.
pub fn relative_path(file: &web_sys::File) -> String {
    Reflect::get(file, &JsValue::from_str("webkitRelativePath"))
        .ok()
        .and_then(|v| v.as_string())
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| file.name())
}
