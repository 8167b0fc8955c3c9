//! Which panels of the conversation are open: the user's orders and
//! flips, keyed by position, as a context.

use std::collections::HashMap;
use std::sync::Arc;

use leptos::prelude::*;

use crate::doc::Doc;

/// An "expand all"/"collapse all" order or a toggle's own flip: the newest
/// (highest `seq`) that applies to a panel decides whether it is open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Order {
    pub seq: u64,
    pub open: bool,
}

/// Which toggle: a segment's own (`item: None`) or one of its items (a skill,
/// a tool, an argument). Positions, not ids: the document never changes
/// under a view, and a position is what a windowed list can unmount and
/// mount again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ToggleKey {
    pub message: usize,
    pub segment: usize,
    pub item: Option<usize>,
}

impl ToggleKey {
    /// The segment's own toggle.
    pub fn segment(message: usize, segment: usize) -> ToggleKey {
        ToggleKey { message, segment, item: None }
    }
}

/// Every open/closed decision the user made in a conversation: the global
/// and per-message "expand/collapse all" orders and each toggle's own flips.
/// Panels read it (so they can be unmounted and mounted again by the window
/// without losing their state); a toggle never changes the document.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExpansionState {
    global: Option<Order>,
    messages: HashMap<usize, Order>,
    toggles: HashMap<ToggleKey, Order>,
    seq: u64,
}

impl ExpansionState {
    /// Whether `key` is open; `default` is the document's state for it.
    pub fn is_open(&self, key: ToggleKey, default: bool) -> bool {
        [self.toggles.get(&key).copied(), self.messages.get(&key.message).copied(), self.global]
            .into_iter()
            .flatten()
            .max_by_key(|o| o.seq)
            .map_or(default, |o| o.open)
    }

    fn next(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The user opens or closes one toggle.
    pub fn set(&mut self, key: ToggleKey, open: bool) {
        let seq = self.next();
        self.toggles.insert(key, Order { seq, open });
    }

    /// "Expand all" / "Collapse all" in one message.
    pub fn order_message(&mut self, message: usize, open: bool) {
        let seq = self.next();
        self.messages.insert(message, Order { seq, open });
    }

    /// "Expand all" / "Collapse all" in the conversation. Older orders and
    /// flips can no longer win: they are dropped (the store stays small).
    pub fn order_all(&mut self, open: bool) {
        let seq = self.next();
        self.global = Some(Order { seq, open });
        self.messages.clear();
        self.toggles.clear();
    }
}

/// The expansion store of the conversation on screen, as a context.
#[derive(Clone, Copy)]
pub struct Expansion {
    state: RwSignal<ExpansionState>,
    /// The document lineage the state belongs to (edits keep it).
    doc: StoredValue<Option<u64>>,
}

impl Expansion {
    pub fn new() -> Self {
        Expansion { state: RwSignal::new(ExpansionState::default()), doc: StoredValue::new(None) }
    }

    /// The expansion of the enclosing view, or a new one provided from here down.
    pub fn expect_or_new() -> Self {
        use_context::<Expansion>().unwrap_or_else(|| {
            let e = Expansion::new();
            provide_context(e);
            e
        })
    }

    /// Makes the store `doc`'s: a different document starts from its own
    /// defaults; an edited version of the same one keeps what is open.
    pub fn bind(&self, doc: &Arc<Doc>) {
        if self.doc.get_value() != Some(doc.lineage) {
            self.doc.set_value(Some(doc.lineage));
            self.state.set(ExpansionState::default());
        }
    }

    /// Whether `key` is open (tracked: a view re-renders when it changes).
    pub fn is_open(&self, key: ToggleKey, default: bool) -> bool {
        self.state.with(|s| s.is_open(key, default))
    }

    /// The same, untracked (for height estimates).
    pub fn is_open_untracked(&self, key: ToggleKey, default: bool) -> bool {
        self.state.with_untracked(|s| s.is_open(key, default))
    }

    pub fn set(&self, key: ToggleKey, open: bool) {
        self.state.update(|s| s.set(key, open));
    }

    pub fn order_message(&self, message: usize, open: bool) {
        self.state.update(|s| s.order_message(message, open));
    }

    pub fn order_all(&self, open: bool) {
        self.state.update(|s| s.order_all(open));
    }
}

impl Default for Expansion {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_order_or_flip_decides() {
        let mut s = ExpansionState::default();
        let k = ToggleKey::segment(3, 1);
        let item = ToggleKey { item: Some(0), ..k };
        assert!(!s.is_open(k, false), "the document's default first");
        assert!(s.is_open(k, true));
        s.set(k, true);
        assert!(s.is_open(k, false));
        assert!(!s.is_open(item, false), "an item is its own toggle");
        s.order_message(3, false);
        assert!(!s.is_open(k, true), "a later message order wins over the flip");
        assert!(s.is_open(ToggleKey::segment(4, 0), true), "other messages keep theirs");
        s.set(k, true);
        assert!(s.is_open(k, false), "a later flip wins over the message order");
        s.order_all(false);
        assert!(!s.is_open(k, true));
        assert!(!s.is_open(ToggleKey::segment(9, 9), true));
        s.order_message(9, true);
        assert!(s.is_open(ToggleKey::segment(9, 9), false));
        assert!(!s.is_open(k, true));
    }
}
