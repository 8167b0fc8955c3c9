//! Navigation in the conversation: the context other views (search, the
//! outline, the Checks tab, keyboard shortcuts, per-message links) use to
//! bring any message or segment into view, however far away and whether or
//! not the window has rendered it; and the per-message anchors of the
//! address (`#m=<message id>`, optionally `&s=<segment index>`).

use envelope::calls::At;
use leptos::prelude::*;

/// Where to go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A message (index in the document).
    Message(usize),
    /// A segment: rendered, its own panel opened.
    Segment(At),
    /// An item of a segment (a skill, a tool, an argument): the segment's
    /// panel and the item's opened.
    Item(At, usize),
}

impl Target {
    pub fn message(&self) -> usize {
        match self {
            Target::Message(m) => *m,
            Target::Segment(at) | Target::Item(at, _) => at.message,
        }
    }

    /// The segment, unless the target is a whole message.
    pub fn at(&self) -> Option<At> {
        match self {
            Target::Message(_) => None,
            Target::Segment(at) | Target::Item(at, _) => Some(*at),
        }
    }
}

/// A request to go somewhere (numbered: the newest wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jump {
    pub target: Target,
    /// Highlight the target for a moment once it is in view.
    pub highlight: bool,
    /// Move the keyboard focus to it once it is rendered (`j`/`k`).
    pub focus: bool,
    pub seq: u64,
}

/// The conversation's navigation, as a context (provided above both panes,
/// so the protocol panel can use it too).
#[derive(Clone, Copy)]
pub struct Navigator {
    jump: RwSignal<Option<Jump>>,
    flash: RwSignal<Option<Jump>>,
    current: RwSignal<Option<usize>>,
    /// The message last jumped to or clicked (the JSON pane follows it).
    selected: RwSignal<Option<usize>>,
    seq: StoredValue<u64>,
}

impl Navigator {
    pub fn new() -> Self {
        Navigator {
            jump: RwSignal::new(None),
            flash: RwSignal::new(None),
            current: RwSignal::new(None),
            selected: RwSignal::new(None),
            seq: StoredValue::new(0),
        }
    }

    pub fn expect() -> Self {
        expect_context::<Navigator>()
    }

    /// The navigator of the enclosing view, or a new one provided from here down.
    pub fn expect_or_new() -> Self {
        use_context::<Navigator>().unwrap_or_else(|| {
            let n = Navigator::new();
            provide_context(n);
            n
        })
    }

    /// Brings `target` into view: renders it (however far), opens what
    /// hides it, scrolls to it, and highlights it for a moment if asked.
    /// The address's fragment follows (`#m=…`), without a history entry.
    pub fn go(&self, target: Target, highlight: bool) {
        self.send(target, highlight, false);
    }

    fn send(&self, target: Target, highlight: bool, focus: bool) {
        self.seq.update_value(|s| *s += 1);
        let seq = self.seq.get_value();
        self.jump.set(Some(Jump { target, highlight, focus, seq }));
        self.select(target.message());
    }

    /// Makes `message` the selected one (a click in it, or a jump).
    pub fn select(&self, message: usize) {
        self.selected.set(Some(message));
    }

    /// The selected message (tracked).
    pub fn selected(&self) -> Option<usize> {
        self.selected.get()
    }

    /// [`Navigator::go`] to a message, which then takes the keyboard focus.
    pub fn focus_message(&self, index: usize) {
        self.send(Target::Message(index), true, true);
    }

    /// [`Navigator::go`] to a segment.
    pub fn reveal(&self, at: At, highlight: bool) {
        self.go(Target::Segment(at), highlight);
    }

    /// [`Navigator::go`] to a message, highlighted.
    pub fn reveal_message(&self, index: usize) {
        self.go(Target::Message(index), true);
    }

    /// The latest request (for the conversation, which carries it out).
    pub fn requested(&self) -> Option<Jump> {
        self.jump.get()
    }

    pub fn requested_untracked(&self) -> Option<Jump> {
        self.jump.get_untracked()
    }

    /// The message at the top of the conversation's viewport, as the user
    /// scrolls (for an outline, or "next message").
    pub fn current_message(&self) -> Signal<Option<usize>> {
        self.current.into()
    }

    /// Set by the conversation as it scrolls.
    pub fn set_current(&self, message: Option<usize>) {
        if self.current.get_untracked() != message {
            self.current.set(message);
        }
    }

    /// What is highlighted now (tracked).
    pub fn flashed(&self) -> Option<Target> {
        self.flash.with(|f| f.map(|j| j.target))
    }

    /// Highlights `jump`'s target until `clear_flash(jump.seq)`.
    pub fn set_flash(&self, jump: Jump) {
        self.flash.set(Some(jump));
    }

    /// Ends the highlight of jump `seq` (not a newer one).
    pub fn clear_flash(&self, seq: u64) {
        if self.flash.try_get_untracked().flatten().is_some_and(|j| j.seq == seq) {
            self.flash.set(None);
        }
    }
}

impl Default for Navigator {
    fn default() -> Self {
        Self::new()
    }
}

// ---- anchors in the address ---------------------------------------------

/// A place named by the address's fragment: `m=<message id>` and, if
/// present, `&s=<segment index>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Anchor {
    pub message: String,
    pub segment: Option<usize>,
}

/// Reads a fragment (with or without `#`); `None` when it names no message.
pub fn parse_anchor(fragment: &str) -> Option<Anchor> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let mut message = None;
    let mut segment = None;
    for pair in fragment.split('&') {
        match pair.split_once('=') {
            Some(("m", v)) => message = Some(percent_decode(v)),
            Some(("s", v)) => segment = v.parse().ok(),
            _ => {}
        }
    }
    message.filter(|m| !m.is_empty()).map(|message| Anchor { message, segment })
}

/// The fragment (without `#`) that names message `id` (and a segment).
pub fn anchor_fragment(id: &str, segment: Option<usize>) -> String {
    let mut out = format!("m={}", percent_encode(id));
    if let Some(s) = segment {
        out.push_str(&format!("&s={s}"));
    }
    out
}

/// Percent-encodes all but RFC 3986's unreserved characters (ids are any
/// string: `&`, `=`, `#`, spaces and non-ASCII are all escaped).
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes (invalid ones stay as written; bytes that are not
/// UTF-8 become U+FFFD).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_round_trip_any_id() {
        for id in ["d-a1", "a b&c=d#e", "论文-1", "%41", "x\u{202e}y", "-._~"] {
            for seg in [None, Some(0), Some(12)] {
                let fragment = anchor_fragment(id, seg);
                assert!(!fragment.contains(' ') && !fragment.contains('#'), "{fragment}");
                assert_eq!(parse_anchor(&fragment), Some(Anchor { message: id.to_string(), segment: seg }));
                assert_eq!(parse_anchor(&format!("#{fragment}")).unwrap().message, id);
            }
        }
    }

    #[test]
    fn fragments_that_name_no_message() {
        assert_eq!(parse_anchor(""), None);
        assert_eq!(parse_anchor("#"), None);
        assert_eq!(parse_anchor("#m="), None);
        assert_eq!(parse_anchor("#top"), None);
        assert_eq!(parse_anchor("#s=3"), None);
        // A bad segment index is ignored, the message kept.
        assert_eq!(parse_anchor("#m=x&s=-1"), Some(Anchor { message: "x".into(), segment: None }));
        // Invalid escapes stay as written.
        assert_eq!(parse_anchor("#m=%zz%4").unwrap().message, "%zz%4");
        assert_eq!(anchor_fragment("d-a1", None), "m=d-a1");
    }
}
