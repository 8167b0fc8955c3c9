//! The page side of the Markdown module (`crates/markdown-module`): the
//! renderer (`envelope::markdown`: pulldown-cmark, its entity table, the safe
//! writer) is a WebAssembly module of its own, so that it is not part of the
//! first load.
//!
//! - **When it loads**: after the frame in which the first document (or the
//!   first Markdown text) was painted ([`preload`]): never before the first
//!   segment is on screen, and at most once per page.
//! - **Until it is ready** a Markdown text shows as plain text with its
//!   variables highlighted (`components::rich::Markdown`), then every one
//!   switches to the rendered HTML at once, reactively ([`status`]).
//! - **If it fails** (the module does not load, or a call throws) it is not
//!   used again: the texts stay plain and the app says so once
//!   ([`Status::Failed`]).
//!
//! The only HTML that reaches `inner_html` from a document is [`render`]'s,
//! and it comes from the core renderer, in the module or (tests)
//! [`install`]ed.

use std::cell::RefCell;
use std::rc::Rc;

pub use envelope::markdown::Remote;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

use crate::browser;
use crate::router::href;

/// Where Trunk puts the module's ES module (`index.html`, `data-bin`).
pub const MODULE_PATH: &str = "/pep-markdown.js";

/// Where the renderer stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Not asked for yet.
    Idle,
    /// Asked for: loading after the next paint.
    Loading,
    /// [`render`] gives HTML.
    Ready,
    /// Will not be used: why, as a sentence.
    Failed(String),
}

type NativeRenderer = Rc<dyn Fn(&str, &[String], Remote) -> String>;

#[derive(Clone)]
enum Renderer {
    /// The module's `render(markdown, vars, remoteImages)`.
    Module(js_sys::Function),
    /// A renderer linked into this module (tests).
    Native(NativeRenderer),
}

thread_local! {
    static STATUS: ArcRwSignal<Status> = ArcRwSignal::new(Status::Idle);
    static RENDERER: RefCell<Option<Renderer>> = const { RefCell::new(None) };
}

fn status_signal() -> ArcRwSignal<Status> {
    STATUS.with(Clone::clone)
}

/// The renderer's status (tracked: a view that reads it is rebuilt when the
/// renderer becomes ready or fails).
pub fn status() -> Status {
    status_signal().get()
}

/// Loads the module after the next paint, unless it is loading, loaded or
/// failed. Cheap to call from every Markdown text.
pub fn preload() {
    let status = status_signal();
    if status.get_untracked() != Status::Idle {
        return;
    }
    status.set(Status::Loading);
    leptos::task::spawn_local(async move {
        browser::after_next_paint().await;
        let loaded = load().await;
        // An installed renderer (tests) wins over a late load.
        if status.get_untracked() != Status::Loading {
            return;
        }
        match loaded {
            Ok(f) => {
                RENDERER.with(|r| *r.borrow_mut() = Some(Renderer::Module(f)));
                browser::mark("pep:markdown-ready");
                status.set(Status::Ready);
            }
            Err(e) => status.set(Status::Failed(format!("the Markdown renderer could not be loaded ({e})"))),
        }
    });
}

async fn load() -> Result<js_sys::Function, String> {
    let module = browser::import_module(&href(MODULE_PATH)).await?;
    let init = browser::function(&module, "default")?;
    browser::await_promise(init.call0(&JsValue::UNDEFINED).map_err(browser::js_err)?).await?;
    browser::function(&module, "render")
}

/// Uses `f` as the renderer from now on (tests: the core's renderer linked
/// in, instead of the module). It must be `envelope::markdown`'s.
pub fn install(f: impl Fn(&str, &[String], Remote) -> String + 'static) {
    RENDERER.with(|r| *r.borrow_mut() = Some(Renderer::Native(Rc::new(f))));
    status_signal().set(Status::Ready);
}

/// Safe HTML for `src` with the variables `vars` (flat: name, value, …)
/// substituted and marked, and remote images loaded or held (`remote`, the
/// user's consent), once the renderer is ready; `None` before, or when it
/// has failed. Tracks [`status`].
pub fn render(src: &str, vars: &[String], remote: Remote) -> Option<String> {
    if status() != Status::Ready {
        return None;
    }
    let renderer = RENDERER.with(|r| r.borrow().clone())?;
    let html = match renderer {
        Renderer::Native(f) => Ok(f(src, vars, remote)),
        Renderer::Module(f) => {
            let list = js_sys::Array::new();
            for v in vars {
                list.push(&JsValue::from_str(v));
            }
            f.call3(&JsValue::UNDEFINED, &JsValue::from_str(src), &list, &JsValue::from_bool(remote == Remote::Load))
                .map_err(browser::js_err)
                .and_then(|h| h.as_string().ok_or_else(|| "it did not return text".to_string()))
        }
    };
    match html {
        Ok(h) => Some(h),
        Err(e) => {
            // The module is not called again (a trap may have left it
            // broken); every text goes back to plain.
            RENDERER.with(|r| *r.borrow_mut() = None);
            let status = status_signal();
            let message = format!("the Markdown renderer stopped ({e})");
            queue_microtask(move || status.set(Status::Failed(message)));
            None
        }
    }
}
