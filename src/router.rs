//! The app's addresses, without a router crate: which page a path shows
//! ([`Route`]), the base path the app is served under, and navigation
//! (`history.pushState`, back and forward, same-origin link clicks).
//!
//! Paths inside the app are written from the base: `/`, `/demo/c`, `/doc`.
//! [`href`] turns one into the address to put in a link; the address bar
//! shows the base followed by the path. The base is read once from the page's
//! `<base href>` (Trunk writes `--public-url` into `<base data-trunk-public-url>`),
//! `/` when there is none.
//!
//! Adding a page: a variant of [`Route`], an arm in [`Route::parse`], and the
//! arm that shows it in `app.rs`.

use std::cell::OnceCell;

use leptos::prelude::*;

use crate::browser;
use crate::hooks::use_history::use_history;

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
            _ => Route::NotFound,
        }
    }
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

/// How to navigate.
#[derive(Clone, Copy, Debug, Default)]
pub struct NavigateOptions {
    /// Replace the current history entry instead of adding one.
    pub replace: bool,
}

/// The current page, in context (provided by [`Router::provide`] in `App`).
#[derive(Clone, Copy)]
pub struct Router {
    route: RwSignal<Route>,
}

impl Router {
    /// Reads the address, follows back/forward and link clicks, and puts
    /// the router in context.
    pub fn provide() -> Router {
        let router = Router { route: RwSignal::new(current_route()) };
        provide_context(router);
        use_history(move || router.set(current_route()), move |pathname: &str| router.claim(pathname));
        router
    }

    pub fn expect() -> Router {
        expect_context::<Router>()
    }

    /// The current page, untracked (for handlers).
    pub fn route_untracked(&self) -> Route {
        self.route.get_untracked()
    }

    /// The current page (tracked).
    pub fn route(&self) -> Route {
        self.route.get()
    }

    /// Shows the page of `path` (an app path, `/doc`) and records it in the
    /// history. Nothing happens when that page is already shown.
    pub fn navigate(&self, path: &str, options: NavigateOptions) {
        let url = href(path);
        let same = browser::location_path().as_deref() == Some(url.as_str());
        if options.replace || same {
            browser::replace_history(&url);
        } else {
            browser::push_history(&url);
            browser::scroll_to_top();
        }
        self.set(Route::parse(path));
    }

    /// Moves to `path` with a new history entry but the page's scroll kept
    /// (an edited demo becomes `/doc` under the user's hands).
    pub fn move_to(&self, path: &str) {
        browser::push_history(&href(path));
        self.set(Route::parse(path));
    }

    fn set(&self, route: Route) {
        if self.route.get_untracked() != route {
            self.route.set(route);
        }
    }

    /// A same-origin link to `pathname` was clicked: handled here (true) when
    /// it is a page of the app; anything else (a file, another app under the
    /// same host) is left to the browser.
    fn claim(&self, pathname: &str) -> bool {
        let Some(path) = strip(&base(), pathname) else {
            return false;
        };
        if Route::parse(path) == Route::NotFound {
            return false;
        }
        let path = path.to_string();
        self.navigate(&path, NavigateOptions::default());
        true
    }
}

fn current_route() -> Route {
    let pathname = browser::location_path().unwrap_or_else(|| "/".to_string());
    strip(&base(), &pathname).map_or(Route::NotFound, Route::parse)
}

/// A function that navigates (for event handlers and tasks that outlive
/// the component that made them).
pub fn use_navigate() -> impl Fn(&str, NavigateOptions) + Clone + 'static {
    let router = Router::expect();
    move |path: &str, options: NavigateOptions| router.navigate(path, options)
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
