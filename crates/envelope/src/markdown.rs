//! Safe Markdown → HTML for untrusted text.
//!
//! Every Markdown surface of the web app goes through this module and the output is
//! assigned to `innerHTML`, so this is a security boundary. The rules:
//!
//! - Markdown is GitHub flavoured: CommonMark plus tables, strikethrough, task lists,
//!   footnotes and GFM alert block quotes (`> [!NOTE]`). Heading attributes, metadata
//!   blocks, math, definition lists, super/subscript and wiki links stay off.
//! - Raw HTML is never passed through. An HTML *block* is shown as its source text in
//!   `<pre class="raw-html">…</pre>`; inline HTML is shown as escaped text where it stands.
//!   The model receives that text verbatim, so showing it as written is the honest view.
//! - Link destinations are allowed when they are relative (no scheme: paths, `../x`,
//!   `#fragment`, `?q`, `//host/x`) or use `http`, `https` or `mailto`. Image sources
//!   are allowed only for `http`, `https` and `data:image/…` (a relative image is blocked:
//!   it could only point into the viewer itself). The scheme is read the way a browser's
//!   URL parser reads it (see `url::scheme`); pulldown-cmark has already decoded entities
//!   and backslash escapes in the destination, so `javascript&#58;x` is caught too.
//! - A blocked link becomes `<span class="blocked-link" title="Blocked link: URL">text</span>`,
//!   a blocked image `<span class="blocked-image" title="Blocked image: URL">[image: alt]</span>`.
//!   Allowed links and images are written by pulldown-cmark's HTML writer, which escapes
//!   and percent-encodes `href`/`src` and escapes titles and alt text.
//!
//! ## Variables
//!
//! [`render_markdown_with_vars`] first substitutes every known `{{ name }}` placeholder
//! (grammar of [`crate::template`]) by its value, exactly as the OpenAI export does, and
//! renders the substituted text: the value is Markdown like the text around it, so
//! `**{{x}}**` is bold and a value `# Title` on a line of its own is a heading.
//!
//! Highlighting does not touch the Markdown source (no sentinel characters are inserted,
//! so the parse is exactly the parse of the text the model receives). Instead the
//! renderer remembers the byte ranges the values occupy in the substituted text and maps
//! every text-carrying event (text, inline code, code-block lines, escaped raw HTML) back
//! to the source with pulldown-cmark's offset iterator; the parts that fall inside a
//! value's range are wrapped in
//! `<mark class="var" data-var="NAME" aria-describedby="pep-var-NAME" title="{{NAME}}">…</mark>`
//! (not focusable; the page holds one element `id="pep-var-NAME"` per variable that
//! names it for assistive technology, see [`VAR_DESCRIPTION_PREFIX`]).
//! Edge cases, all deliberate:
//!
//! - A value that spans several elements (it contains `**`, a blank line, a list…) gets
//!   one `<mark>` per text piece, each closed inside its own element, so the HTML stays
//!   well formed.
//! - Values inside attributes — link and image URLs, link titles, code-block info strings,
//!   footnote labels — are substituted but never marked (attributes hold no tags). An
//!   image's alt text is an attribute too, so it is plain.
//! - Text that pulldown-cmark does not take verbatim from the source (a decoded entity
//!   such as `&amp;`, an inline code span that crosses a line break) is marked only when
//!   its whole source range lies inside one value.
//! - Markdown syntax characters of a value (`*`, `#`, `` ` ``…) that the parser consumes
//!   produce no text and therefore no mark; an empty value produces no mark at all.
//! - Unknown placeholders stay as written (and are not marked).

use std::collections::{HashMap, VecDeque};
use std::ops::Range;

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use crate::template::{pieces, Piece};
use crate::url;

/// Safe HTML for untrusted GFM Markdown.
pub fn render_markdown(src: &str) -> String {
    render(src, &[], &[], Remote::Load)
}

/// Safe HTML for untrusted GFM Markdown, with `{{ name }}` placeholders known to `lookup`
/// substituted by their value and the value wrapped as
/// `<mark class="var" data-var="NAME" aria-describedby="pep-var-NAME" title="{{NAME}}">VALUE</mark>`
/// (the user sees the value highlighted, the variable name on hover; assistive
/// technology reads the element `pep-var-NAME` the page provides).
/// Unknown placeholders stay as written. See the module documentation for the edge cases.
pub fn render_markdown_with_vars<'a>(src: &'a str, lookup: &impl Fn(&str) -> Option<&'a str>) -> String {
    render_markdown_with(src, lookup, Remote::Load)
}

/// Whether `http(s)` images in a text may load (the user's consent, issue 12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remote {
    /// Written as `<img>`.
    Load,
    /// Written as `<span class="remote-image" title="Remote image not loaded: URL">[remote image: ALT]</span>`:
    /// nothing is fetched. `data:image/…` images are local and still shown.
    Hold,
}

/// [`render_markdown_with_vars`], with remote images loaded or held.
pub fn render_markdown_with<'a>(src: &'a str, lookup: &impl Fn(&str) -> Option<&'a str>, remote: Remote) -> String {
    let mut text = String::with_capacity(src.len());
    let mut vars = Vec::new();
    // One opening tag per distinct variable name.
    let mut tags: Vec<String> = Vec::new();
    let mut tag_of: HashMap<&str, usize> = HashMap::new();
    for piece in pieces(src, lookup) {
        match piece {
            Piece::Text(t) => text.push_str(t),
            Piece::Var { name, value } => {
                let start = text.len();
                text.push_str(value);
                if value.is_empty() {
                    continue;
                }
                let tag = *tag_of.entry(name).or_insert_with(|| {
                    tags.push(mark_open(name));
                    tags.len() - 1
                });
                vars.push(VarSpan { range: start..text.len(), tag });
            }
        }
    }
    render(&text, &vars, &tags, remote)
}

/// The Markdown dialect: GFM.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM
}

/// The id prefix of the element that describes a variable (`pep-var-NAME`),
/// which a `<mark>` refers to with `aria-describedby`.
pub const VAR_DESCRIPTION_PREFIX: &str = "pep-var-";

/// `<mark …>` for a variable.
fn mark_open(name: &str) -> String {
    let mut open = String::with_capacity(64 + 2 * name.len());
    open.push_str("<mark class=\"var\" data-var=\"");
    escape_attr(name, &mut open);
    open.push_str("\" aria-describedby=\"");
    open.push_str(VAR_DESCRIPTION_PREFIX);
    escape_attr(name, &mut open);
    open.push_str("\" title=\"{{");
    escape_attr(name, &mut open);
    open.push_str("}}\">");
    open
}

/// Where a substituted value lies in the substituted text.
struct VarSpan {
    range: Range<usize>,
    /// Index of its opening `<mark>` tag.
    tag: usize,
}

fn render(src: &str, vars: &[VarSpan], tags: &[String], remote: Remote) -> String {
    let events = Renderer {
        remote,
        inner: Parser::new_ext(src, options()).into_offset_iter(),
        src,
        vars,
        tags,
        cursor: 0,
        pending: VecDeque::new(),
        closers: Vec::new(),
    };
    let mut html = String::with_capacity(src.len() + src.len() / 2);
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// The parser's events made safe (and marked), streamed to the HTML writer.
struct Renderer<'a, I> {
    inner: I,
    src: &'a str,
    /// Sorted, non-overlapping, non-empty.
    vars: &'a [VarSpan],
    tags: &'a [String],
    /// Index into `vars` where the search for the next text event starts.
    cursor: usize,
    /// Events produced but not yet handed out (one source event can become several).
    pending: VecDeque<Event<'a>>,
    /// One entry per open link or image: the HTML that closes it when it was blocked,
    /// `None` when pulldown-cmark writes it.
    closers: Vec<Option<&'static str>>,
    remote: Remote,
}

impl<'a, I: Iterator<Item = (Event<'a>, Range<usize>)>> Iterator for Renderer<'a, I> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some(event);
            }
            let (event, range) = self.inner.next()?;
            if let Some(event) = self.event(event, range) {
                return Some(event);
            }
        }
    }
}

impl<'a, I> Renderer<'a, I> {
    /// Handles one parser event: returns its replacement, or queues several in `pending`.
    fn event(&mut self, event: Event<'a>, range: Range<usize>) -> Option<Event<'a>> {
        Some(match event {
            // Raw HTML is shown as text, never interpreted.
            Event::Text(text) | Event::Html(text) | Event::InlineHtml(text) => return self.text(text, range, false),
            Event::Code(text) => return self.text(text, range, true),
            Event::Start(Tag::HtmlBlock) => html("<pre class=\"raw-html\">"),
            // A task's box, named for assistive technology (it is read-only).
            Event::TaskListMarker(true) => {
                html("<input type=\"checkbox\" disabled=\"\" checked=\"\" aria-label=\"done\"/>")
            }
            Event::TaskListMarker(false) => html("<input type=\"checkbox\" disabled=\"\" aria-label=\"not done\"/>"),
            Event::End(TagEnd::HtmlBlock) => html("</pre>\n"),
            Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
                if link_type == LinkType::Email || link_allowed(&dest_url) {
                    self.closers.push(None);
                    Event::Start(Tag::Link { link_type, dest_url, title, id })
                } else {
                    self.closers.push(Some("</span>"));
                    Event::Html(blocked_open("blocked-link", "Blocked link: ", &dest_url, "").into())
                }
            }
            Event::Start(Tag::Image { link_type, dest_url, title, id }) => {
                if self.remote == Remote::Hold && is_remote(&dest_url) {
                    self.closers.push(Some("]</span>"));
                    let open = blocked_open("remote-image", "Remote image not loaded: ", &dest_url, "[remote image: ");
                    Event::Html(open.into())
                } else if image_allowed(&dest_url) {
                    self.closers.push(None);
                    Event::Start(Tag::Image { link_type, dest_url, title, id })
                } else {
                    self.closers.push(Some("]</span>"));
                    let open = blocked_open("blocked-image", "Blocked image: ", &dest_url, "[image: ");
                    Event::Html(open.into())
                }
            }
            Event::End(end @ (TagEnd::Link | TagEnd::Image)) => match self.closers.pop() {
                Some(Some(close)) => html(close),
                _ => Event::End(end),
            },
            other => other,
        })
    }

    /// Text (escaped by the HTML writer), with the parts that come from a substituted
    /// value marked. `code`: an inline code span.
    fn text(&mut self, text: CowStr<'a>, range: Range<usize>, code: bool) -> Option<Event<'a>> {
        let wrap = |text: CowStr<'a>| {
            if code {
                Event::Code(text)
            } else {
                Event::Text(text)
            }
        };
        if self.vars.is_empty() {
            return Some(wrap(text));
        }
        // Exact position: the text is a slice of the source.
        let located = match &text {
            CowStr::Borrowed(s) => self.offset_of(s).map(|start| (*s, start)),
            _ => None,
        };
        if let Some((s, start)) = located {
            let end = start + s.len();
            let mut marks = self.vars_overlapping(&(start..end)).iter().peekable();
            if marks.peek().is_none() {
                return Some(wrap(text));
            }
            if code {
                self.pending.push_back(html("<code>"));
            }
            let mut pos = start;
            for var in marks {
                let (a, b) = (var.range.start.max(start), var.range.end.min(end));
                if a > pos {
                    self.pending.push_back(Event::Text(CowStr::Borrowed(&s[pos - start..a - start])));
                }
                self.mark(var.tag, CowStr::Borrowed(&s[a - start..b - start]));
                pos = b;
            }
            if pos < end {
                self.pending.push_back(Event::Text(CowStr::Borrowed(&s[pos - start..])));
            }
            if code {
                self.pending.push_back(html("</code>"));
            }
            return None;
        }
        // Text not taken verbatim from the source: marked only when it lies wholly
        // inside one value.
        match self.vars_overlapping(&range) {
            [var] if var.range.start <= range.start && range.end <= var.range.end => {
                let tag = var.tag;
                if code {
                    self.pending.push_back(html("<code>"));
                }
                self.mark(tag, text);
                if code {
                    self.pending.push_back(html("</code>"));
                }
                None
            }
            _ => Some(wrap(text)),
        }
    }

    fn mark(&mut self, tag: usize, text: CowStr<'a>) {
        let tags: &'a [String] = self.tags;
        self.pending.push_back(Event::Html(CowStr::Borrowed(&tags[tag])));
        self.pending.push_back(Event::Text(text));
        self.pending.push_back(html("</mark>"));
    }

    /// Byte offset of `s` in the source when `s` is a slice of it.
    fn offset_of(&self, s: &str) -> Option<usize> {
        let off = (s.as_ptr() as usize).wrapping_sub(self.src.as_ptr() as usize);
        let end = off.checked_add(s.len())?;
        // Pointer identity: a string inside the source's buffer *is* that part of it.
        (end <= self.src.len() && self.src.get(off..end).is_some()).then_some(off)
    }

    /// The values that overlap `range`. Text events arrive almost always in source
    /// order, so a cursor walks forward; a step back falls back to a binary search.
    fn vars_overlapping(&mut self, range: &Range<usize>) -> &'a [VarSpan] {
        let vars: &'a [VarSpan] = self.vars;
        let mut first = self.cursor.min(vars.len());
        if first > 0 && vars[first - 1].range.end > range.start {
            first = vars.partition_point(|v| v.range.end <= range.start);
        } else {
            while first < vars.len() && vars[first].range.end <= range.start {
                first += 1;
            }
        }
        self.cursor = first;
        let mut last = first;
        while last < vars.len() && vars[last].range.start < range.end {
            last += 1;
        }
        &vars[first..last]
    }
}

fn html(s: &'static str) -> Event<'static> {
    Event::Html(CowStr::Borrowed(s))
}

/// `<span class="CLASS" title="LABEL URL">PREFIX`.
fn blocked_open(class: &str, label: &str, url: &str, prefix: &str) -> String {
    let mut s = String::with_capacity(url.len() + 64);
    s.push_str("<span class=\"");
    s.push_str(class);
    s.push_str("\" title=\"");
    s.push_str(label);
    escape_attr(url, &mut s);
    s.push_str("\">");
    s.push_str(prefix);
    s
}

/// Escapes text for a double-quoted attribute value (or element content).
pub(crate) fn escape_attr(s: &str, out: &mut String) {
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + 1;
    }
    out.push_str(&s[last..]);
}

/// Links: relative, `http`, `https`, `mailto`.
fn link_allowed(url: &str) -> bool {
    match url::scheme(&url::clean(url)) {
        None => true,
        Some((scheme, _)) => matches!(scheme.as_str(), "http" | "https" | "mailto"),
    }
}

/// An `http(s)` URL: fetching it tells another host about the reader.
pub fn is_remote(url: &str) -> bool {
    url::scheme(&url::clean(url)).is_some_and(|(scheme, _)| matches!(scheme.as_str(), "http" | "https"))
}

/// Images: `http`, `https`, `data:image/…`.
fn image_allowed(url: &str) -> bool {
    let clean = url::clean(url);
    match url::scheme(&clean) {
        Some((scheme, rest)) => match scheme.as_str() {
            "http" | "https" => true,
            "data" => {
                rest.trim_start_matches(|c: char| c <= ' ').get(..6).is_some_and(|m| m.eq_ignore_ascii_case("image/"))
            }
            _ => false,
        },
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- an independent checker for the output -------------------------------------

    const TAGS: &[&str] = &[
        "p",
        "br",
        "hr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "em",
        "strong",
        "del",
        "a",
        "img",
        "code",
        "pre",
        "blockquote",
        "ul",
        "ol",
        "li",
        "input",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "sup",
        "div",
        "span",
        "mark",
    ];
    const ATTRS: &[&str] = &[
        "href",
        "src",
        "alt",
        "title",
        "class",
        "id",
        "style",
        "type",
        "disabled",
        "checked",
        "start",
        "data-var",
        "aria-describedby",
        "aria-label",
    ];

    fn decode_entities(v: &str) -> String {
        let mut out = String::new();
        let mut rest = v;
        while let Some(i) = rest.find('&') {
            out.push_str(&rest[..i]);
            rest = &rest[i..];
            let end = rest.find(';').expect("unterminated entity in attribute");
            let ent = &rest[1..end];
            let c = match ent {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                _ if ent.starts_with("#x") || ent.starts_with("#X") => {
                    char::from_u32(u32::from_str_radix(&ent[2..], 16).unwrap()).unwrap()
                }
                _ if ent.starts_with('#') => char::from_u32(ent[1..].parse::<u32>().unwrap()).unwrap(),
                _ => panic!("unexpected entity &{ent}; in an attribute"),
            };
            out.push(c);
            rest = &rest[end + 1..];
        }
        out.push_str(rest);
        out
    }

    /// Stricter than the renderer: every control character and space is removed (not only
    /// the leading/trailing ones, tab, LF and CR) before looking for a scheme.
    fn url_ok(value: &str, image: bool) -> bool {
        let v: String =
            decode_entities(value).chars().filter(|c| *c > ' ' && *c != '\u{7f}').collect::<String>().to_lowercase();
        // As the WHATWG URL parser reads it: a scheme starts with an ASCII letter, so `-:x` is a relative path.
        let has_scheme = v.find(':').is_some_and(|i| {
            v.as_bytes()[0].is_ascii_alphabetic()
                && v[..i].chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        });
        if image {
            v.starts_with("http:") || v.starts_with("https:") || v.starts_with("data:image/")
        } else {
            !has_scheme || v.starts_with("http:") || v.starts_with("https:") || v.starts_with("mailto:")
        }
    }

    /// Panics unless every `<` in `html` opens an allowed tag with allowed attributes.
    fn assert_safe(html: &str) {
        let b = html.as_bytes();
        let mut i = 0;
        while let Some(off) = html[i..].find('<') {
            i += off + 1;
            if b.get(i) == Some(&b'/') {
                i += 1;
            }
            let name_len = html[i..].find(|c: char| !c.is_ascii_alphanumeric()).unwrap();
            let name = &html[i..i + name_len];
            assert!(TAGS.contains(&name), "tag <{name}> in {html:?}");
            i += name_len;
            loop {
                while b[i] == b' ' || b[i] == b'\n' {
                    i += 1;
                }
                if b[i] == b'>' {
                    i += 1;
                    break;
                }
                if html[i..].starts_with("/>") {
                    i += 2;
                    break;
                }
                let alen = html[i..].find(['=', ' ', '>', '/']).unwrap();
                let attr = &html[i..i + alen];
                assert!(ATTRS.contains(&attr), "attribute {attr:?} on <{name}> in {html:?}");
                i += alen;
                assert_eq!(b[i], b'=', "attribute without value in {html:?}");
                assert_eq!(b[i + 1], b'"', "unquoted attribute in {html:?}");
                let vlen = html[i + 2..].find('"').unwrap();
                let value = &html[i + 2..i + 2 + vlen];
                assert!(!value.contains(['<', '>']), "raw < or > in attribute in {html:?}");
                i += 2 + vlen + 1;
                match attr {
                    "href" => assert!(url_ok(value, false), "href {value:?} in {html:?}"),
                    "src" => assert!(url_ok(value, true), "src {value:?} in {html:?}"),
                    "style" => assert!(
                        ["text-align: left", "text-align: center", "text-align: right"].contains(&value),
                        "style {value:?}"
                    ),
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn the_checker_catches_unsafe_html() {
        for bad in [
            "<script>alert(1)</script>",
            "<p>a < b</p>",
            "<img src=\"x\" onerror=\"alert(1)\" />",
            "<a href=\"javascript:alert(1)\">x</a>",
            "<a href=\"JAVA&#9;SCRIPT&#x3a;alert(1)\">x</a>",
            "<a href=\" data:text/html,x\">x</a>",
            "<img src=\"data:text/html,x\" alt=\"\" />",
            "<img src=\"rel.png\" alt=\"\" />",
            "<a href=x>x</a>",
            "<iframe></iframe>",
        ] {
            let caught = std::panic::catch_unwind(|| assert_safe(bad)).is_err();
            assert!(caught, "checker missed {bad}");
        }
        assert_safe("<p><a href=\"../x:y\" title=\"a &quot;b&quot;\">x</a></p>");
        // Not a scheme for a browser (a scheme starts with a letter): a relative path, allowed.
        assert_safe("<p><a href=\"-:\">r</a></p>");
    }

    #[test]
    fn entity_colon_after_a_non_letter_stays_a_relative_link() {
        // Found by proptest in CI: `-&#58;` decodes to `-:`, which the URL parser reads as a relative path.
        let html = render("[r]: -&#58;\n*[r]: ");
        assert!(html.contains("href=\"-:\""), "{html}");
    }

    fn render(src: &str) -> String {
        let html = render_markdown(src);
        assert_safe(&html);
        html
    }

    fn render_vars<'a>(src: &'a str, vars: &[(&'a str, &'a str)]) -> String {
        let lookup = |n: &str| vars.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        let html = render_markdown_with_vars(src, &lookup);
        assert_safe(&html);
        html
    }

    fn mark(name: &str, value: &str) -> String {
        format!("<mark class=\"var\" data-var=\"{name}\" aria-describedby=\"pep-var-{name}\" title=\"{{{{{name}}}}}\">{value}</mark>")
    }

    // ---- raw HTML ----------------------------------------------------------------------

    #[test]
    fn script_block_is_shown_as_text() {
        let html = render("<script>alert(1)</script>");
        assert_eq!(html, "<pre class=\"raw-html\">&lt;script&gt;alert(1)&lt;/script&gt;</pre>\n");
    }

    #[test]
    fn inline_script_is_shown_as_text() {
        let html = render("hi <script>alert(1)</script> there");
        assert_eq!(html, "<p>hi &lt;script&gt;alert(1)&lt;/script&gt; there</p>\n");
    }

    #[test]
    fn event_handler_attributes_stay_text() {
        let html = render("<img src=x onerror=alert(1)>");
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
        let html = render("a <svg onload=alert(1)> b");
        assert_eq!(html, "<p>a &lt;svg onload=alert(1)&gt; b</p>\n");
        let html = render("<svg onload=alert(1)>\n\n<details open ontoggle=alert(1)>");
        assert!(!html.contains("<svg") && !html.contains("<details"), "{html}");
    }

    #[test]
    fn html_block_keeps_its_lines() {
        let html = render("<div>\n<b>x</b>\n</div>\n\ntext");
        assert_eq!(
            html,
            "<pre class=\"raw-html\">&lt;div&gt;\n&lt;b&gt;x&lt;/b&gt;\n&lt;/div&gt;\n</pre>\n<p>text</p>\n"
        );
    }

    // ---- links and images ----------------------------------------------------------------

    const JS_URLS: &[&str] = &[
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "java\tscript:alert(1)",
        " javascript:alert(1)",
        "javascript&#58;alert(1)",
        "javascript&colon;alert(1)",
        "&#106;avascript:alert(1)",
        "\u{1}javascript:alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html,%3Cscript%3Ealert(1)%3C/script%3E",
        "data:text/html;base64,PHNjcmlwdD4=",
        "file:///etc/passwd",
        "data:image/png;base64,iVBORw0KGgo=",
    ];

    fn blocked_link(html: &str) -> bool {
        html.contains("<span class=\"blocked-link\" title=\"Blocked link: ") && !html.contains("<a ")
    }

    #[test]
    fn dangerous_inline_links_are_blocked() {
        for url in JS_URLS {
            let html = render(&format!("[click](<{url}>)"));
            assert!(blocked_link(&html), "{url:?}: {html}");
            assert!(html.contains(">click</span>"), "{url:?}: {html}");
        }
        // Without angle brackets too (where the syntax allows it).
        let html = render("[x](javascript:alert(1))");
        assert_eq!(html, "<p><span class=\"blocked-link\" title=\"Blocked link: javascript:alert(1)\">x</span></p>\n");
        let html = render("[x](javascript&#58;alert(1))");
        assert!(blocked_link(&html), "{html}");
        let html = render("[x]( javascript:alert(1) \"t\")");
        assert!(blocked_link(&html), "{html}");
    }

    #[test]
    fn dangerous_autolinks_are_blocked() {
        for src in ["<javascript:alert(1)>", "<JAVASCRIPT:alert(1)>", "<vbscript:x>", "<file:///x>"] {
            let html = render(src);
            assert!(blocked_link(&html), "{src}: {html}");
        }
        let html = render("<javascript:alert(1)>");
        assert_eq!(
            html,
            "<p><span class=\"blocked-link\" title=\"Blocked link: javascript:alert(1)\">javascript:alert(1)</span></p>\n"
        );
    }

    #[test]
    fn dangerous_reference_links_are_blocked() {
        for url in ["javascript:alert(1)", "JavaScript:x", "javascript&#58;x", "data:text/html,x"] {
            for form in ["[a][r]", "[r][]", "[r]"] {
                let html = render(&format!("{form}\n\n[r]: {url}"));
                assert!(blocked_link(&html), "{form} {url}: {html}");
            }
        }
        // A destination split over a tab inside angle brackets.
        let html = render("[a][r]\n\n[r]: <java\tscript:x>");
        assert!(blocked_link(&html), "{html}");
    }

    #[test]
    fn remote_images_are_held_until_allowed() {
        let src = "![chart](https://tracker.example/p.png \"t\") ![dot](data:image/png;base64,iVBORw0KGgo=) ![rel](HTTP://x/y)";
        let none = |_: &str| None;
        let held = render_markdown_with(src, &none, Remote::Hold);
        assert_safe(&held);
        assert!(!held.contains("<img src=\"https://tracker"), "{held}");
        assert!(!held.contains("<img src=\"HTTP:"), "{held}");
        assert!(held.contains("<span class=\"remote-image\" title=\"Remote image not loaded: https://tracker.example/p.png\">[remote image: chart]</span>"), "{held}");
        assert!(held.contains("<img src=\"data:image/png;base64,iVBORw0KGgo=\""), "local images still show: {held}");
        let loaded = render_markdown_with(src, &none, Remote::Load);
        assert!(loaded.contains("<img src=\"https://tracker.example/p.png\""), "{loaded}");
        assert_eq!(loaded, render_markdown(src));
        assert!(
            is_remote(" https://a") && is_remote("Http://a") && !is_remote("data:image/png,x") && !is_remote("/rel")
        );
    }

    #[test]
    fn dangerous_images_are_blocked() {
        for url in JS_URLS.iter().filter(|u| !u.starts_with("data:image/")) {
            let html = render(&format!("![alt text](<{url}>)"));
            assert!(html.contains("<span class=\"blocked-image\" title=\"Blocked image: "), "{url:?}: {html}");
            assert!(html.contains("[image: alt text]</span>"), "{url:?}: {html}");
            assert!(!html.contains("<img"), "{url:?}: {html}");
        }
        let html = render("![a][r]\n\n[r]: javascript:alert(1)");
        assert_eq!(
            html,
            "<p><span class=\"blocked-image\" title=\"Blocked image: javascript:alert(1)\">[image: a]</span></p>\n"
        );
        // Relative images would point into the viewer itself.
        assert!(render("![a](img.png)").contains("blocked-image"));
    }

    #[test]
    fn blocked_url_is_escaped_in_the_title() {
        let html = render("[x](<javascript:a\"onmouseover='b'&>)");
        assert!(
            html.contains("title=\"Blocked link: javascript:a&quot;onmouseover=&#39;b&#39;&amp;\">x</span>"),
            "{html}"
        );
    }

    #[test]
    fn safe_links_are_kept() {
        for (src, href) in [
            ("[a](http://example.com/x?y=1)", "http://example.com/x?y=1"),
            ("[a](HTTPS://example.com)", "HTTPS://example.com"),
            ("[a](mailto:me@example.com)", "mailto:me@example.com"),
            ("[a](#section-2)", "#section-2"),
            ("[a](docs/guide.md)", "docs/guide.md"),
            ("[a](../x)", "../x"),
            ("[a](/abs/path)", "/abs/path"),
            ("[a](?q=1)", "?q=1"),
            ("[a](a/b:c)", "a/b:c"),
            ("<https://example.com>", "https://example.com"),
            ("<me@example.com>", "mailto:me@example.com"),
            ("[a][r]\n\n[r]: https://example.com", "https://example.com"),
        ] {
            let html = render(src);
            assert!(html.contains(&format!("<a href=\"{href}\"")), "{src}: {html}");
            assert!(!html.contains("blocked"), "{src}: {html}");
        }
    }

    #[test]
    fn safe_images_are_kept() {
        let html = render("![a png](data:image/png;base64,iVBORw0KGgo=)");
        assert_eq!(html, "<p><img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"a png\" /></p>\n");
        let html = render("![cat](https://example.com/cat.jpg \"A cat\")");
        assert_eq!(html, "<p><img src=\"https://example.com/cat.jpg\" alt=\"cat\" title=\"A cat\" /></p>\n");
        assert!(render("![x](DATA:Image/svg+xml;base64,PHN2Zz4=)").contains("<img src="));
    }

    #[test]
    fn data_image_as_a_link_is_blocked() {
        assert!(blocked_link(&render("[x](data:image/png;base64,iVBORw0KGgo=)")));
    }

    #[test]
    fn nested_blocked_image_and_link_close_the_right_elements() {
        let html = render("[![i](javascript:a)](javascript:b) and [![ok](https://e.com/i.png)](vbscript:c)");
        assert_eq!(
            html,
            "<p><span class=\"blocked-link\" title=\"Blocked link: javascript:b\">\
             <span class=\"blocked-image\" title=\"Blocked image: javascript:a\">[image: i]</span>\
             </span> and <span class=\"blocked-link\" title=\"Blocked link: vbscript:c\">\
             <img src=\"https://e.com/i.png\" alt=\"ok\" /></span></p>\n"
        );
        // A link inside an image description stays inside the alt text, plain.
        let html = render("![a [b](javascript:x) c](https://e.com/i.png)");
        assert_eq!(html, "<p><img src=\"https://e.com/i.png\" alt=\"a b c\" /></p>\n");
    }

    // ---- GFM ---------------------------------------------------------------------------

    #[test]
    fn gfm_extensions_render() {
        let html = render("| a | b |\n|:--|--:|\n| 1 | 2 |");
        assert!(html.contains("<table>") && html.contains("<th style=\"text-align: left\">a</th>"));
        assert!(html.contains("<td style=\"text-align: right\">2</td>"), "{html}");
        assert_eq!(render("~~gone~~"), "<p><del>gone</del></p>\n");
        let html = render("- [x] done\n- [ ] todo");
        assert!(
            html.contains("<li><input type=\"checkbox\" disabled=\"\" checked=\"\" aria-label=\"done\"/>done</li>"),
            "{html}"
        );
        assert!(
            html.contains("<li><input type=\"checkbox\" disabled=\"\" aria-label=\"not done\"/>todo</li>"),
            "{html}"
        );
        let html = render("Text[^1].\n\n[^1]: The note.");
        assert!(html.contains("<sup class=\"footnote-reference\"><a href=\"#1\">1</a></sup>"), "{html}");
        assert!(html.contains("<div class=\"footnote-definition\" id=\"1\">"), "{html}");
        assert!(html.contains("The note."), "{html}");
    }

    #[test]
    fn no_heading_attributes_metadata_or_math() {
        assert_eq!(render("# Title {#id .cls}"), "<h1>Title {#id .cls}</h1>\n");
        assert_eq!(render("$x$"), "<p>$x$</p>\n");
        assert_eq!(render("---\na: b\n---"), "<hr />\n<h2>a: b</h2>\n");
    }

    #[test]
    fn code_is_escaped() {
        assert_eq!(render("`<b>`"), "<p><code>&lt;b&gt;</code></p>\n");
        assert_eq!(
            render("```html\" onclick=\"x\n<script>\n```"),
            "<pre><code class=\"language-html&quot;\">&lt;script&gt;\n</code></pre>\n"
        );
    }

    // ---- variables ---------------------------------------------------------------------

    #[test]
    fn vars_in_text_and_emphasis() {
        let html = render_vars(
            "Hi {{ user }}, **{{user}}** and _{{city}}_ {{unknown}}",
            &[("user", "Ann"), ("city", "Paris")],
        );
        assert_eq!(
            html,
            format!(
                "<p>Hi {}, <strong>{}</strong> and <em>{}</em> {{{{unknown}}}}</p>\n",
                mark("user", "Ann"),
                mark("user", "Ann"),
                mark("city", "Paris")
            )
        );
    }

    #[test]
    fn vars_in_inline_code_and_code_blocks() {
        let html = render_vars("`cd {{dir}}`", &[("dir", "/tmp")]);
        assert_eq!(html, format!("<p><code>cd {}</code></p>\n", mark("dir", "/tmp")));
        let html = render_vars("```{{lang}}\nrun {{cmd}}\nend\n```", &[("lang", "sh"), ("cmd", "<ls>")]);
        assert_eq!(
            html,
            format!("<pre><code class=\"language-sh\">run {}\nend\n</code></pre>\n", mark("cmd", "&lt;ls&gt;"))
        );
        let html = render_vars("    indented {{x}}", &[("x", "1")]);
        assert_eq!(html, format!("<pre><code>indented {}</code></pre>\n", mark("x", "1")));
    }

    #[test]
    fn vars_in_link_text_and_url() {
        let html = render_vars(
            "[see {{site}}]({{url}}/docs \"{{site}}\")",
            &[("site", "Example"), ("url", "https://example.com")],
        );
        assert_eq!(
            html,
            format!(
                "<p><a href=\"https://example.com/docs\" title=\"Example\">see {}</a></p>\n",
                mark("site", "Example")
            )
        );
    }

    #[test]
    fn var_in_a_url_can_be_blocked() {
        let html = render_vars("[x]({{u}})", &[("u", "javascript:alert(1)")]);
        assert!(blocked_link(&html), "{html}");
        let html = render_vars("![{{alt}}]({{u}})", &[("alt", "pic"), ("u", "https://e.com/p.png")]);
        assert_eq!(html, "<p><img src=\"https://e.com/p.png\" alt=\"pic\" /></p>\n");
    }

    #[test]
    fn var_value_is_escaped_markdown() {
        let html = render_vars("a {{x}} b", &[("x", "<script>alert(1)</script>")]);
        assert_eq!(
            html,
            format!(
                "<p>a {}{}{} b</p>\n",
                mark("x", "&lt;script&gt;"),
                mark("x", "alert(1)"),
                mark("x", "&lt;/script&gt;")
            )
        );
        // The value is Markdown: emphasis inside it renders, each text piece is marked.
        let html = render_vars("{{x}}", &[("x", "plain **bold**")]);
        assert_eq!(html, format!("<p>{}<strong>{}</strong></p>\n", mark("x", "plain "), mark("x", "bold")));
        // A value on its own line can be a block.
        let html = render_vars("{{x}}", &[("x", "# Title\n\n- item")]);
        assert_eq!(html, format!("<h1>{}</h1>\n<ul>\n<li>{}</li>\n</ul>\n", mark("x", "Title"), mark("x", "item")));
    }

    #[test]
    fn var_name_and_partial_entities() {
        // An entity decoded from a value is marked; an empty value is not.
        let html = render_vars("{{a}}|{{e}}|", &[("a", "&amp;"), ("e", "")]);
        assert_eq!(html, format!("<p>{}||</p>\n", mark("a", "&amp;")));
        // An entity that straddles the value's edge is not marked.
        let html = render_vars("{{a}}mp;", &[("a", "&a")]);
        assert_eq!(html, "<p>&amp;</p>\n");
    }

    #[test]
    fn private_use_characters_need_no_fallback() {
        // The renderer inserts no sentinels, so private-use characters in the text are inert.
        let src = "\u{E000}0\u{E001}{{x}}\u{E002}";
        let html = render_vars(src, &[("x", "v")]);
        assert_eq!(html, format!("<p>\u{E000}0\u{E001}{}\u{E002}</p>\n", mark("x", "v")));
    }

    #[test]
    fn var_in_raw_html_and_table() {
        let html = render_vars("<div>{{x}}</div>", &[("x", "v")]);
        assert_eq!(html, format!("<pre class=\"raw-html\">&lt;div&gt;{}&lt;/div&gt;</pre>\n", mark("x", "v")));
        let html = render_vars("|h|\n|-|\n|{{x}}|", &[("x", "v")]);
        assert!(html.contains(&format!("<td>{}</td>", mark("x", "v"))), "{html}");
    }

    #[test]
    fn without_vars_matches_plain_rendering() {
        let src = "# T\n\n*a* `b` [c](https://e.com) <i>x</i>";
        assert_eq!(render_vars(src, &[]), render(src));
        assert_eq!(render_vars("{{x}} y", &[("x", "q")]).replace(&mark("x", "q"), "q"), render("q y"));
    }

    // ---- robustness --------------------------------------------------------------------

    #[test]
    fn pathological_inputs_do_not_panic() {
        for unit in [">", "- ", "[", "![", "*", "_", "`", "<", "&#", "| ", "1. ", "[^", "\t", "\\"] {
            let src = unit.repeat(20_000);
            assert_safe(&render_markdown(&src));
        }
        assert_safe(&render_markdown("[a](b \"c\" d)\n[e]: <f> \"g\n\n\0\u{feff}\r\r\n"));
    }

    #[test]
    fn large_document_renders_quickly() {
        let chunk = "# Heading {{x}}\n\nSome *text* with `code`, a [link](https://e.com) and <b>html</b>.\n\n\
                     - item one\n- item two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust\nfn main() {}\n```\n\n";
        let src = chunk.repeat(1_000_000 / chunk.len() + 1);
        let start = std::time::Instant::now();
        let html = render_vars(&src, &[("x", "value")]);
        let elapsed = start.elapsed();
        assert!(html.len() > 1_000_000);
        // Generous for debug builds; release is far below 100 ms.
        assert!(elapsed.as_secs() < 10, "{elapsed:?}");
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        const TOKENS: &[&str] = &[
            "[",
            "]",
            "(",
            ")",
            "![",
            "<",
            ">",
            "\"",
            "'",
            "`",
            "```",
            "*",
            "_",
            "~~",
            "#",
            "-",
            "|",
            "\n",
            "\n\n",
            " ",
            "\t",
            "javascript:",
            "JaVa\tScRiPt:",
            "&#58;",
            "&colon;",
            "&amp;",
            "data:text/html,",
            "data:image/png,",
            "http://e.com",
            "mailto:",
            "script",
            "<script>",
            "</script>",
            " onerror=",
            "onload=alert(1)",
            "<img src=x",
            "<svg",
            "{{x}}",
            "{{ y }}",
            "[^1]",
            "[^1]: ",
            "[r]: ",
            "- [ ] ",
            "> ",
            "\\",
            "\u{E000}",
            "é",
        ];

        fn markdownish() -> impl Strategy<Value = String> {
            prop::collection::vec(prop::sample::select(TOKENS), 0..60).prop_map(|v| v.concat())
        }

        fn check<'a>(src: &'a str) {
            assert_safe(&render_markdown(src));
            let lookup = |n: &str| -> Option<&'a str> {
                match n {
                    "x" => Some("<b onclick=alert(1)>[v](javascript:x)</b>"),
                    "y" => Some("*y*"),
                    _ => None,
                }
            };
            let html = render_markdown_with_vars(src, &lookup);
            assert_safe(&html);
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            #[test]
            fn arbitrary_strings_are_safe(src in any::<String>()) {
                check(&src);
            }

            #[test]
            fn markdownish_strings_are_safe(src in markdownish()) {
                check(&src);
            }
        }
    }
}
