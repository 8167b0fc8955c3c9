//! Markdown on the page: the core's renderer (`envelope::markdown`:
//! pulldown-cmark, its entity table, the safe writer), linked into the app's
//! module, so that the first screen shows its Markdown rendered in its first
//! frame (issue 24: the complete first screen is the budget, not the first
//! plain-text paint; docs/DECISIONS.md, "Markdown in the app's module").
//!
//! - A text too large or pathological to render at once stays plain until
//!   asked (`components::rich::Markdown`).
//! - If a render traps, the page shows the error screen (a panic is an
//!   abort, as anywhere in the app's module).
//!
//! The only HTML that reaches `inner_html` from a document is [`render`]'s,
//! and it comes from the core renderer ([`install`] replaces it in tests).

use std::cell::RefCell;
use std::rc::Rc;

pub use envelope::markdown::Remote;

type Renderer = Rc<dyn Fn(&str, &[String], Remote) -> String>;

thread_local! {
    static RENDERER: RefCell<Renderer> = RefCell::new(Rc::new(core_render));
}

/// The core's renderer: `vars` flat (name, value, …; the first of two equal
/// names wins).
fn core_render(src: &str, vars: &[String], remote: Remote) -> String {
    let lookup = |name: &str| vars.chunks_exact(2).find(|p| p[0] == name).map(|p| p[1].as_str());
    envelope::markdown::render_markdown_with(src, &lookup, remote)
}

/// Uses `f` as the renderer from now on (tests). It must be as safe as
/// `envelope::markdown`'s.
pub fn install(f: impl Fn(&str, &[String], Remote) -> String + 'static) {
    RENDERER.with(|r| *r.borrow_mut() = Rc::new(f));
}

/// Safe HTML for `src` with the variables `vars` (flat: name, value, …)
/// substituted and marked, and remote images loaded or held (`remote`, the
/// user's consent).
pub fn render(src: &str, vars: &[String], remote: Remote) -> String {
    let f = RENDERER.with(|r| r.borrow().clone());
    f(src, vars, remote)
}
