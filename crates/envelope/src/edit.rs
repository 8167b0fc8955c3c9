//! Edits in place: the few changes the app's Edit mode makes to a document
//! (a variable's value, a text, tool-call arguments, the model), each applied
//! to an [`Envelope`] and answering its exact inverse, so an undo stack is a
//! list of inverses. Pure: no UI, tested natively.
//!
//! An edit never touches what it does not name: applying it and then its
//! inverse gives back the envelope it started from, field for field
//! (`Replace` puts a whole segment back, so even a `long_text`'s `charCount`
//! that disagreed with its content before the edit is restored as it was).

use std::fmt;

use serde_json::{Map, Value};

use crate::diag::{Diagnostic, Rule};
use crate::types::{Envelope, Segment};

/// One change to a document.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Sets (or, with `None`, removes) the envelope's `model`.
    Model(Option<String>),
    /// Sets the value of every `static_var` named `name` (the protocol
    /// forbids two definitions of one name with different values).
    Variable { name: String, value: String },
    /// Sets a text: the `content` of a `text`, `system_prompt` or
    /// `long_text` segment (`item: None`; a `long_text`'s `charCount`
    /// follows its content), the `content` of memory item `item`, or the
    /// `body` of skill item `item`.
    Text { message: usize, segment: usize, item: Option<usize>, text: String },
    /// Sets a `tool_call_request`'s arguments.
    Arguments { message: usize, segment: usize, arguments: Map<String, Value> },
    /// Puts a segment back as it was (what the other edits' inverses are).
    Replace { message: usize, segment: usize, with: Box<Segment> },
    /// Several edits as one step (in order; the inverse undoes them in reverse).
    Batch(Vec<Edit>),
}

/// Why an edit does not apply to a document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditError {
    NoMessage(usize),
    NoSegment {
        message: usize,
        segment: usize,
    },
    NoItem {
        message: usize,
        segment: usize,
        item: usize,
    },
    /// The segment is of a kind the edit does not change.
    WrongKind {
        message: usize,
        segment: usize,
        kind: &'static str,
        edit: &'static str,
    },
    /// No `static_var` has this name.
    NoVariable(String),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::NoMessage(m) => write!(f, "messages[{m}] does not exist"),
            EditError::NoSegment { message, segment } => {
                write!(f, "messages[{message}].segments[{segment}] does not exist")
            }
            EditError::NoItem { message, segment, item } => {
                write!(f, "messages[{message}].segments[{segment}].items[{item}] does not exist")
            }
            EditError::WrongKind { message, segment, kind, edit } => {
                write!(f, "messages[{message}].segments[{segment}] is a {kind} segment: it has no {edit} to edit")
            }
            EditError::NoVariable(name) => write!(f, "no static_var is named {name:?}"),
        }
    }
}

impl std::error::Error for EditError {}

impl Edit {
    /// Applies the edit to `envelope`; answers the edit that undoes it. On
    /// an error the envelope is unchanged (a batch undoes what it applied).
    pub fn apply(&self, envelope: &mut Envelope) -> Result<Edit, EditError> {
        match self {
            Edit::Model(model) => {
                let old = std::mem::replace(&mut envelope.model, model.clone());
                Ok(Edit::Model(old))
            }
            Edit::Variable { name, value } => {
                let mut undo = Vec::new();
                for (mi, m) in envelope.messages.iter_mut().enumerate() {
                    for (sj, s) in m.segments.iter_mut().enumerate() {
                        if let Segment::StaticVar(v) = s {
                            if v.name == *name {
                                undo.push(Edit::Replace { message: mi, segment: sj, with: Box::new(s.clone()) });
                                if let Segment::StaticVar(v) = s {
                                    v.value = value.clone();
                                }
                            }
                        }
                    }
                }
                if undo.is_empty() {
                    return Err(EditError::NoVariable(name.clone()));
                }
                Ok(Edit::Batch(undo))
            }
            Edit::Text { message, segment, item, text } => {
                let (mi, sj) = (*message, *segment);
                let s = segment_mut(envelope, mi, sj)?;
                let old = s.clone();
                let wrong = |kind, edit| EditError::WrongKind { message: mi, segment: sj, kind, edit };
                match (s, item) {
                    (Segment::Text(t), None) => t.content = text.clone(),
                    (Segment::SystemPrompt(t), None) => t.content = text.clone(),
                    (Segment::LongText(t), None) => {
                        t.content = text.clone();
                        t.char_count = i64::try_from(text.chars().count()).unwrap_or(i64::MAX);
                    }
                    (Segment::Memory(m), Some(i)) => {
                        let it = m.items.get_mut(*i).ok_or(EditError::NoItem { message: mi, segment: sj, item: *i })?;
                        it.content = text.clone();
                    }
                    (Segment::Skills(m), Some(i)) => {
                        let it = m.items.get_mut(*i).ok_or(EditError::NoItem { message: mi, segment: sj, item: *i })?;
                        it.body = Some(text.clone());
                    }
                    (s, None) => return Err(wrong(s.kind(), "text")),
                    (s, Some(_)) => return Err(wrong(s.kind(), "items")),
                }
                Ok(Edit::Replace { message: mi, segment: sj, with: Box::new(old) })
            }
            Edit::Arguments { message, segment, arguments } => {
                let (mi, sj) = (*message, *segment);
                let s = segment_mut(envelope, mi, sj)?;
                let old = s.clone();
                match s {
                    Segment::ToolCallRequest(r) => r.arguments = arguments.clone(),
                    s => {
                        return Err(EditError::WrongKind {
                            message: mi,
                            segment: sj,
                            kind: s.kind(),
                            edit: "arguments",
                        })
                    }
                }
                Ok(Edit::Replace { message: mi, segment: sj, with: Box::new(old) })
            }
            Edit::Replace { message, segment, with } => {
                let s = segment_mut(envelope, *message, *segment)?;
                let old = std::mem::replace(s, (**with).clone());
                Ok(Edit::Replace { message: *message, segment: *segment, with: Box::new(old) })
            }
            Edit::Batch(edits) => {
                let mut undo = Vec::with_capacity(edits.len());
                for e in edits {
                    match e.apply(envelope) {
                        Ok(u) => undo.push(u),
                        Err(err) => {
                            for u in undo.iter().rev() {
                                // Each inverse applies: it names what was just changed.
                                let _ = u.apply(envelope);
                            }
                            return Err(err);
                        }
                    }
                }
                undo.reverse();
                Ok(Edit::Batch(undo))
            }
        }
    }

    /// Whether `self` and `next` change the same field (typing in one box
    /// is one undo step, not one per key).
    pub fn same_field(&self, next: &Edit) -> bool {
        match (self, next) {
            (Edit::Model(_), Edit::Model(_)) => true,
            (Edit::Variable { name: a, .. }, Edit::Variable { name: b, .. }) => a == b,
            (
                Edit::Text { message: m1, segment: s1, item: i1, .. },
                Edit::Text { message: m2, segment: s2, item: i2, .. },
            ) => (m1, s1, i1) == (m2, s2, i2),
            (Edit::Arguments { message: m1, segment: s1, .. }, Edit::Arguments { message: m2, segment: s2, .. }) => {
                (m1, s1) == (m2, s2)
            }
            _ => false,
        }
    }
}

fn segment_mut(envelope: &mut Envelope, mi: usize, sj: usize) -> Result<&mut Segment, EditError> {
    envelope
        .messages
        .get_mut(mi)
        .ok_or(EditError::NoMessage(mi))?
        .segments
        .get_mut(sj)
        .ok_or(EditError::NoSegment { message: mi, segment: sj })
}

/// Reads tool-call arguments as typed: a JSON object, or a diagnostic
/// saying what is wrong and where (line and column in the typed text).
pub fn parse_arguments(text: &str) -> Result<Map<String, Value>, Diagnostic> {
    match crate::parse::read_json(text) {
        Ok((Value::Object(map), duplicates)) => match duplicates.into_iter().next() {
            Some(d) => Err(d),
            None => Ok(map),
        },
        Ok((other, _)) => Err(Diagnostic::new(
            Rule::WrongType,
            "arguments",
            format!("arguments must be a JSON object ({{…}}), not {}", crate::parse::type_name(&other)),
        )),
        Err(d) => Err(d),
    }
}

/// An undo history: edits applied to one envelope, their inverses to undo,
/// and what was undone to redo. Typing in one field merges into one step.
#[derive(Clone, Debug, Default)]
pub struct History {
    /// (the edit as made, its inverse), oldest first.
    done: Vec<(Edit, Edit)>,
    /// Inverses of undone steps' inverses (the edits to redo), newest last.
    undone: Vec<Edit>,
    /// Whether the next edit of the same field may merge into the last step.
    open: bool,
}

impl History {
    /// Applies `edit`; a new edit clears what could be redone.
    pub fn apply(&mut self, envelope: &mut Envelope, edit: Edit) -> Result<(), EditError> {
        let inverse = edit.apply(envelope)?;
        self.undone.clear();
        match self.done.last_mut() {
            // Same field as the last step: keep the first inverse.
            Some((last, _)) if self.open && last.same_field(&edit) => *last = edit,
            _ => self.done.push((edit, inverse)),
        }
        self.open = true;
        Ok(())
    }

    /// Ends the current step: the next edit is a step of its own even in
    /// the same field (the field lost focus).
    pub fn seal(&mut self) {
        self.open = false;
    }

    /// Undoes the last step; false when there is none.
    pub fn undo(&mut self, envelope: &mut Envelope) -> bool {
        let Some((_, inverse)) = self.done.pop() else { return false };
        match inverse.apply(envelope) {
            Ok(redo) => {
                self.undone.push(redo);
                self.open = false;
                true
            }
            Err(_) => false,
        }
    }

    /// Redoes the last undone step; false when there is none.
    pub fn redo(&mut self, envelope: &mut Envelope) -> bool {
        let Some(edit) = self.undone.pop() else { return false };
        match edit.apply(envelope) {
            Ok(inverse) => {
                self.done.push((edit, inverse));
                self.open = false;
                true
            }
            Err(_) => false,
        }
    }

    pub fn can_undo(&self) -> bool {
        !self.done.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.undone.is_empty()
    }
}

/// Writes into `raw` (the document's JSON as loaded) the fields an edit
/// changed between `before` and `after`: the model, and in each segment
/// that differs, its editable fields. The rest of `raw` (key order, what
/// the model does not read) stays as it was; reading `raw` again gives
/// `after`. No serialiser is involved (the app's bundle carries none).
pub fn patch_raw(raw: &mut Value, before: &Envelope, after: &Envelope) {
    let Some(doc) = raw.as_object_mut() else { return };
    if before.model != after.model {
        match &after.model {
            Some(m) => {
                doc.insert("model".into(), Value::String(m.clone()));
            }
            None => {
                doc.shift_remove("model");
            }
        }
    }
    let Some(messages) = doc.get_mut("messages").and_then(Value::as_array_mut) else { return };
    for (mi, (a, b)) in before.messages.iter().zip(&after.messages).enumerate() {
        if a == b {
            continue;
        }
        let Some(segments) = messages.get_mut(mi).and_then(|m| m.get_mut("segments")).and_then(Value::as_array_mut)
        else {
            continue;
        };
        for (sj, (x, y)) in a.segments.iter().zip(&b.segments).enumerate() {
            if x == y {
                continue;
            }
            let Some(seg) = segments.get_mut(sj).and_then(Value::as_object_mut) else { continue };
            let text = |s: &str| Value::String(s.to_string());
            match y {
                Segment::Text(t) => {
                    seg.insert("content".into(), text(&t.content));
                }
                Segment::SystemPrompt(t) => {
                    seg.insert("content".into(), text(&t.content));
                }
                Segment::LongText(t) => {
                    seg.insert("content".into(), text(&t.content));
                    seg.insert("charCount".into(), Value::from(t.char_count));
                }
                Segment::StaticVar(v) => {
                    seg.insert("value".into(), text(&v.value));
                }
                Segment::ToolCallRequest(r) => {
                    seg.insert("arguments".into(), Value::Object(r.arguments.clone()));
                }
                Segment::Memory(m) => {
                    if let Some(items) = seg.get_mut("items").and_then(Value::as_array_mut) {
                        for (item, it) in items.iter_mut().zip(&m.items) {
                            if let Some(item) = item.as_object_mut() {
                                item.insert("content".into(), text(&it.content));
                            }
                        }
                    }
                }
                Segment::Skills(m) => {
                    if let Some(items) = seg.get_mut("items").and_then(Value::as_array_mut) {
                        for (item, it) in items.iter_mut().zip(&m.items) {
                            if let Some(item) = item.as_object_mut() {
                                match &it.body {
                                    Some(body) => {
                                        item.insert("body".into(), text(body));
                                    }
                                    None => {
                                        item.shift_remove("body");
                                    }
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
}
