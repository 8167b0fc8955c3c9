//! The app's addresses. `leptos_router` routes the app (`app.rs`: one
//! `<Route>` per page, the pages the first screen does not need as lazy
//! routes); this module holds what the pages share about addresses: the
//! typed page of a path ([`Route`]: titles, the header's current link), the
//! base path the app is served under, and navigation.
//!
//! Paths inside the app are written from the base: `/`, `/demo/c`, `/doc`.
//! [`href`] turns one into the address to put in a link; the address bar
//! shows the base followed by the path. The base is read once from the page's
//! `<base href>` (Trunk writes `--public-url` into `<base data-trunk-public-url>`),
//! `/` when there is none.
//!
//! Adding a page: a variant of [`Route`], an arm in [`Route::parse`], and its
//! `<Route>` in `app.rs`.

use std::cell::OnceCell;

use leptos::prelude::*;

use crate::browser;

/// A page of the app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// `/demo/:letter` (a single lowercase ASCII letter); `/` is demo `a`.
    /// Whether a demo of that letter exists is the page's business.
    Demo(char),
    /// `/doc`: the user's own document.
    Doc,
    /// `/diff`: two documents compared.
    Diff,
    /// `/template`: a PromptPoet template rendered live.
    Template,
    /// `/skills`: SKILL.md files, what the model sees before and after loading.
    Skills,
    /// `/response`: a model's output for the document on screen, checked
    /// against its output schema and a golden output.
    Response,
    /// `/calls`: the recorded calls read last (a trace, a batch file).
    Calls,
    /// `/calls/:n`: call `n` (1-based, in the order read) of those.
    Call(u32),
    /// Any other path.
    NotFound,
}

impl Route {
    /// The page's title (`Demo D · Prompt Envelope`); `demo_exists` says
    /// whether a demo of a letter exists.
    pub fn title(&self, demo_exists: impl Fn(char) -> bool) -> String {
        let page = match *self {
            Route::Demo(c) if demo_exists(c) => format!("Demo {}", c.to_ascii_uppercase()),
            Route::Doc => "Your document".to_string(),
            Route::Diff => "Compare".to_string(),
            Route::Template => "Template".to_string(),
            Route::Skills => "Skills".to_string(),
            Route::Response => "Response".to_string(),
            Route::Calls => "Calls".to_string(),
            Route::Call(n) => format!("Call {n}"),
            Route::Demo(_) | Route::NotFound => "Page not found".to_string(),
        };
        format!("{page} · Prompt Envelope")
    }

    /// The page of a path relative to the base (`/doc`). A trailing slash
    /// is ignored; the query and fragment must already be gone.
    pub fn parse(path: &str) -> Route {
        let trimmed = path.strip_prefix('/').unwrap_or(path);
        let trimmed = match trimmed.strip_suffix('/') {
            Some(t) if !t.is_empty() => t,
            _ => trimmed,
        };
        let mut parts = trimmed.split('/');
        match (parts.next().unwrap_or(""), parts.next(), parts.next()) {
            ("", None, _) => Route::Demo('a'),
            ("demo", Some(id), None) => match id.as_bytes() {
                [c @ b'a'..=b'z'] => Route::Demo(*c as char),
                _ => Route::NotFound,
            },
            ("doc", None, _) => Route::Doc,
            ("diff", None, _) => Route::Diff,
            ("template", None, _) => Route::Template,
            ("skills", None, _) => Route::Skills,
            ("response", None, _) => Route::Response,
            ("calls", None, _) => Route::Calls,
            ("calls", Some(n), None) => call_number(n).map_or(Route::NotFound, Route::Call),
            _ => Route::NotFound,
        }
    }
}

/// A call's number in a path: decimal, from 1, no leading zero.
pub fn call_number(s: &str) -> Option<u32> {
    if s.starts_with('0') || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `base` + `path` for an app path: `("/x/", "/doc")` → `/x/doc`.
pub fn join(base: &str, path: &str) -> String {
    let base = base.strip_suffix('/').unwrap_or(base);
    format!("{base}{path}")
}

/// The app path of an address's path, or `None` when it lies outside the
/// base: `("/x/", "/x/doc")` → `/doc`, `("/x/", "/x")` → `/`.
pub fn strip<'a>(base: &str, pathname: &'a str) -> Option<&'a str> {
    let base = base.strip_suffix('/').unwrap_or(base);
    match pathname.strip_prefix(base)? {
        "" => Some("/"),
        rest if rest.starts_with('/') => Some(rest),
        _ => None,
    }
}

thread_local! {
    static BASE: OnceCell<String> = const { OnceCell::new() };
}

/// The path the app is served under, ending with `/` (read once).
pub fn base() -> String {
    BASE.with(|b| b.get_or_init(|| browser::base_path().unwrap_or_else(|| "/".to_string())).clone())
}

/// The address of an app path (for a link: `href("/doc")`) or of a file the
/// app is served with (`href("/demos/a.json")`).
pub fn href(path: &str) -> String {
    join(&base(), path)
}

pub use leptos_router::NavigateOptions;

/// The page the address shows (tracked), read from the router's location.
pub fn use_route() -> Memo<Route> {
    let location = leptos_router::hooks::use_location();
    Memo::new(move |_| location.pathname.with(|p| strip(&base(), p).map_or(Route::NotFound, Route::parse)))
}

/// A function that navigates to an app path (`/doc`): for event handlers
/// and tasks that outlive the component that made them.
pub fn use_navigate() -> impl Fn(&str, NavigateOptions) + Clone + 'static {
    leptos_router::hooks::use_navigate()
}

/// The base path as the router takes it: `""` at the root, `/sub` under a sub-path.
pub fn router_base() -> String {
    base().trim_end_matches('/').to_string()
}

#[cfg(test)]
mod tests {

    #[test]
    fn titles_per_route() {
        let exists = |c: char| ('a'..='f').contains(&c);
        assert_eq!(Route::Demo('d').title(exists), "Demo D · Prompt Envelope");
        assert_eq!(Route::Doc.title(exists), "Your document · Prompt Envelope");
        assert_eq!(Route::Demo('z').title(exists), "Page not found · Prompt Envelope");
        assert_eq!(Route::NotFound.title(exists), "Page not found · Prompt Envelope");
    }

    use super::*;

    #[test]
    fn parses_every_page_and_nothing_else() {
        assert_eq!(Route::parse("/"), Route::Demo('a'));
        assert_eq!(Route::parse(""), Route::Demo('a'));
        assert_eq!(Route::parse("/demo/c"), Route::Demo('c'));
        assert_eq!(Route::parse("/demo/c/"), Route::Demo('c'));
        assert_eq!(Route::parse("/doc"), Route::Doc);
        assert_eq!(Route::parse("/doc/"), Route::Doc);
        assert_eq!(Route::parse("/diff"), Route::Diff);
        assert_eq!(Route::parse("/template/"), Route::Template);
        assert_eq!(Route::parse("/skills"), Route::Skills);
        assert_eq!(Route::Skills.title(|_| true), "Skills · Prompt Envelope");
        assert_eq!(Route::parse("/response"), Route::Response);
        assert_eq!(Route::parse("/response/"), Route::Response);
        assert_eq!(Route::Response.title(|_| true), "Response · Prompt Envelope");
        assert_eq!(Route::parse("/calls"), Route::Calls);
        assert_eq!(Route::parse("/calls/12"), Route::Call(12));
        assert_eq!(Route::Call(12).title(|_| true), "Call 12 · Prompt Envelope");
        assert_eq!(Route::Calls.title(|_| true), "Calls · Prompt Envelope");
        for bad in [
            "/demo",
            "/demo/",
            "/demo/ab",
            "/demo/C",
            "/demo/é",
            "/demo/c/d",
            "/docs",
            "/diff/x",
            "/templates",
            "/skills/x",
            "/skill",
            "/response/x",
            "/responses",
            "/calls/0",
            "/calls/012",
            "/calls/-1",
            "/calls/+1",
            "/calls/1x",
            "/calls/99999999999",
            "/calls/1/2",
            "/doc/x",
            "//",
            "/no/such/page",
            "/demo//c",
        ] {
            assert_eq!(Route::parse(bad), Route::NotFound, "{bad}");
        }
    }

    #[test]
    fn base_paths_join_and_strip() {
        assert_eq!(join("/", "/doc"), "/doc");
        assert_eq!(join("/", "/"), "/");
        assert_eq!(join("/x/y/", "/demo/b"), "/x/y/demo/b");
        assert_eq!(join("/x/y/", "/"), "/x/y/");
        assert_eq!(strip("/", "/doc"), Some("/doc"));
        assert_eq!(strip("/", "/"), Some("/"));
        assert_eq!(strip("/x/", "/x/doc"), Some("/doc"));
        assert_eq!(strip("/x/", "/x/"), Some("/"));
        assert_eq!(strip("/x/", "/x"), Some("/"));
        assert_eq!(strip("/x/", "/xy/doc"), None);
        assert_eq!(strip("/x/", "/doc"), None);
        for path in ["/", "/doc", "/demo/f"] {
            assert_eq!(strip("/p/q/", &join("/p/q/", path)), Some(path));
        }
    }
}
