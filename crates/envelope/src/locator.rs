//! Positions in the decoded model → positions in the document. The
//! structural pass ([`crate::parse`]) leaves out a message or segment that
//! does not decode, so the model's `messages[i]` may be the document's
//! `messages[k]`; the semantic pass ([`crate::validate`]) writes its paths
//! through a [`Locator`] so that they are the document's.

use crate::types::Envelope;

/// Maps positions in the decoded model back to positions in the document
/// (they differ only where a message or segment failed to decode).
#[derive(Clone, Debug, Default)]
pub struct Locator {
    messages: Vec<usize>,
    segments: Vec<Vec<usize>>,
    /// Every readable message `id` of the document, `(position, id)` in
    /// document order, whether or not its message decoded: what the
    /// duplicate-id check reads.
    ids: Vec<(usize, String)>,
}

impl Locator {
    /// The identity map for a fully decoded envelope.
    pub fn identity(envelope: &Envelope) -> Self {
        Self {
            messages: (0..envelope.messages.len()).collect(),
            segments: envelope.messages.iter().map(|m| (0..m.segments.len()).collect()).collect(),
            ids: envelope.messages.iter().map(|m| m.id.clone()).enumerate().collect(),
        }
    }

    /// The next decoded message is the document's `messages[position]`,
    /// and its segments are the document's at `segments` (in order).
    pub(crate) fn push_message(&mut self, position: usize, segments: Vec<usize>) {
        self.messages.push(position);
        self.segments.push(segments);
    }

    /// The document's `messages[position]` has the readable id `id`
    /// (whether or not the message decodes).
    pub(crate) fn push_id(&mut self, position: usize, id: String) {
        self.ids.push((position, id));
    }

    /// Every readable message id, `(position, id)` in document order.
    pub fn ids(&self) -> &[(usize, String)] {
        &self.ids
    }

    /// The position in the document of the decoded message `mi`.
    pub fn position(&self, mi: usize) -> usize {
        self.messages.get(mi).copied().unwrap_or(mi)
    }

    /// `messages[i]` for the decoded message `mi`.
    pub fn message(&self, mi: usize) -> String {
        format!("messages[{}]", self.position(mi))
    }

    /// `messages[i].segments[j]` for the decoded segment `sj` of message `mi`.
    pub fn segment(&self, mi: usize, sj: usize) -> String {
        let j = self.segments.get(mi).and_then(|s| s.get(sj)).copied().unwrap_or(sj);
        format!("{}.segments[{j}]", self.message(mi))
    }
}
