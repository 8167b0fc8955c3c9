//! [`fold`](super::fold) over a stream of calls: the CLI reads JSON Lines a
//! line at a time ([`Reader::line`](super::Reader::line) gives a call as
//! soon as its line completes it), so the other instrumentation's span of
//! the same request may come later. [`Folding`] holds the last `cap` calls
//! and folds each call coming in into a held one that is the same request;
//! a call leaves once `cap` calls have come in after it (or at
//! [`Folding::finish`]). Two spans of one request more than `cap` calls
//! apart stay two calls. Memory: `cap` calls.

use std::collections::{HashMap, VecDeque};

use super::{fold, same_request, Call};

/// See the module's text.
pub struct Folding {
    /// Held calls, in the order they came; `None`: folded into another.
    held: VecDeque<Option<Call>>,
    /// The number of the call at `held[0]` (calls are numbered as they come).
    first: u64,
    /// The numbers of the held calls of each trace that may fold (a trace
    /// id, a span id and a scope: [`same_request`]'s conditions).
    by_trace: HashMap<String, VecDeque<u64>>,
    cap: usize,
}

impl Folding {
    /// Holding at most `cap` calls (at least one).
    pub fn new(cap: u64) -> Folding {
        Folding {
            held: VecDeque::new(),
            first: 0,
            by_trace: HashMap::new(),
            cap: cap.clamp(1, usize::MAX as u64) as usize,
        }
    }

    /// Takes a call in: the calls that leave (oldest first).
    pub fn push(&mut self, mut call: Call) -> Vec<Call> {
        let foldable = call.at.span_id.is_some() && call.scope.is_some();
        let trace = call.at.trace_id.clone().filter(|_| foldable);
        if let Some(t) = &trace {
            let twin = self.by_trace.get(t).and_then(|seqs| {
                seqs.iter()
                    .copied()
                    .find(|&n| self.held[(n - self.first) as usize].as_ref().is_some_and(|h| same_request(h, &call)))
            });
            if let Some(n) = twin {
                let slot = &mut self.held[(n - self.first) as usize];
                if let Some(h) = slot.take() {
                    let mut both = fold(vec![h, call]);
                    // `same_request` held, so `fold` made one of them; were
                    // it not so, both stay.
                    let Some(last) = both.pop() else { return Vec::new() };
                    match both.pop() {
                        None => {
                            *slot = Some(last);
                            return Vec::new();
                        }
                        Some(h) => {
                            *slot = Some(h);
                            call = last;
                        }
                    }
                }
            }
        }
        let n = self.first + self.held.len() as u64;
        if let Some(t) = trace {
            self.by_trace.entry(t).or_default().push_back(n);
        }
        self.held.push_back(Some(call));
        let mut out = Vec::new();
        while self.held.len() > self.cap {
            out.extend(self.pop());
        }
        out
    }

    /// The oldest held call, if not folded into another.
    fn pop(&mut self) -> Option<Call> {
        let slot = self.held.pop_front()?;
        let n = self.first;
        self.first += 1;
        let trace = slot.as_ref().and_then(|c| c.at.trace_id.as_deref());
        if let Some((t, seqs)) = trace.and_then(|t| self.by_trace.get_mut(t).map(|s| (t, s))) {
            if seqs.front() == Some(&n) {
                seqs.pop_front();
            }
            if seqs.is_empty() {
                self.by_trace.remove(t);
            }
        }
        slot
    }

    /// The calls still held, in the order they came.
    pub fn finish(self) -> Vec<Call> {
        self.held.into_iter().flatten().collect()
    }
}
