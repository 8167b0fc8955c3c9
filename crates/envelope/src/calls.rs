//! Tool calls: which result answers which request (§2), and the ids they
//! carry in the OpenAI export (§4).

use std::collections::{HashMap, VecDeque};

use crate::types::{Envelope, Segment};

/// Where a segment stands: message index and segment index in the envelope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct At {
    pub message: usize,
    pub segment: usize,
}

/// A `tool_call_request`, in document order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub at: At,
    pub tool_name: String,
    /// `callId` as written.
    pub call_id: Option<String>,
    /// The id the export gives it: `callId`, or `call_{n}` with `n` its
    /// 1-based position among all requests.
    pub export_id: String,
}

/// A `tool_call_result`, in document order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Result {
    pub at: At,
    pub tool_name: String,
    pub call_id: Option<String>,
    /// Index into [`Calls::requests`] of the request it answers.
    pub request: Option<usize>,
}

/// Every request and result of an envelope, paired.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Calls {
    pub requests: Vec<Request>,
    pub results: Vec<Result>,
    /// The results answering each request, by index, in document order:
    /// those of request `i` are `answers[answer_start[i]..answer_start[i + 1]]`.
    answer_start: Vec<usize>,
    answers: Vec<usize>,
}

impl Calls {
    /// Pairs results with requests in the spec's two passes: first every
    /// result with a `callId` takes the request with that `callId` (the first
    /// one, should there be several); then each remaining result *without* a
    /// `callId`, in document order, takes the earliest still-unpaired request
    /// of the same `toolName` that stands before it. A result whose `callId`
    /// matches no request stays unpaired: an explicit id is never guessed past.
    ///
    /// Linear in the number of segments: the second pass keeps, per tool
    /// name, the queue of requests not taken by the first pass in document
    /// order. The front of a queue is the earliest still-unpaired request of
    /// that name; if it does not stand before the result, no request of the
    /// name does.
    pub fn pair(envelope: &Envelope) -> Calls {
        let mut calls = Calls::default();
        for (mi, m) in envelope.messages.iter().enumerate() {
            for (sj, s) in m.segments.iter().enumerate() {
                let at = At { message: mi, segment: sj };
                match s {
                    Segment::ToolCallRequest(r) => {
                        let n = calls.requests.len() + 1;
                        calls.requests.push(Request {
                            at,
                            tool_name: r.tool_name.clone(),
                            call_id: r.call_id.clone(),
                            export_id: r.call_id.clone().unwrap_or_else(|| format!("call_{n}")),
                        });
                    }
                    Segment::ToolCallResult(r) => calls.results.push(Result {
                        at,
                        tool_name: r.tool_name.clone(),
                        call_id: r.call_id.clone(),
                        request: None,
                    }),
                    _ => {}
                }
            }
        }
        let mut by_id: HashMap<&str, usize> = HashMap::new();
        for (i, r) in calls.requests.iter().enumerate() {
            if let Some(id) = &r.call_id {
                by_id.entry(id.as_str()).or_insert(i);
            }
        }
        let mut taken = vec![false; calls.requests.len()];
        for res in calls.results.iter_mut() {
            if let Some(id) = &res.call_id {
                if let Some(&i) = by_id.get(id.as_str()) {
                    res.request = Some(i);
                    taken[i] = true;
                }
            }
        }
        let mut queues: HashMap<&str, VecDeque<usize>> = HashMap::new();
        for (i, q) in calls.requests.iter().enumerate().filter(|(i, _)| !taken[*i]) {
            queues.entry(q.tool_name.as_str()).or_default().push_back(i);
        }
        for res in calls.results.iter_mut().filter(|r| r.call_id.is_none()) {
            let Some(queue) = queues.get_mut(res.tool_name.as_str()) else { continue };
            if let Some(&i) = queue.front().filter(|&&i| calls.requests[i].at < res.at) {
                queue.pop_front();
                res.request = Some(i);
            }
        }
        calls.index_answers();
        calls
    }

    /// Fills `answer_start` and `answers` (a counting sort of the results by request).
    fn index_answers(&mut self) {
        let mut start = vec![0usize; self.requests.len() + 1];
        for r in &self.results {
            if let Some(i) = r.request {
                start[i + 1] += 1;
            }
        }
        for i in 0..self.requests.len() {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut answers = vec![0usize; start[self.requests.len()]];
        for (k, r) in self.results.iter().enumerate() {
            if let Some(i) = r.request {
                answers[next[i]] = k;
                next[i] += 1;
            }
        }
        self.answer_start = start;
        self.answers = answers;
    }

    /// The request a result segment answers (results are in document order:
    /// a binary search).
    pub fn request_for(&self, result_at: At) -> Option<&Request> {
        let i = self.results.binary_search_by_key(&result_at, |r| r.at).ok()?;
        self.results[i].request.map(|q| &self.requests[q])
    }

    /// The request at a segment, if it is one.
    pub fn request_at(&self, at: At) -> Option<&Request> {
        self.requests.binary_search_by_key(&at, |q| q.at).ok().map(|i| &self.requests[i])
    }

    /// The results that answer request `i` (an index into `requests`), in document order.
    pub fn answers_of(&self, i: usize) -> impl Iterator<Item = &Result> {
        let range = match self.answer_start.get(i..i.saturating_add(2)) {
            Some(&[a, b]) => a..b,
            _ => 0..0,
        };
        self.answers[range].iter().map(|&k| &self.results[k])
    }

    /// The result segments that answer a request segment.
    pub fn results_for(&self, request_at: At) -> impl Iterator<Item = &Result> {
        let idx = self.requests.binary_search_by_key(&request_at, |q| q.at).ok();
        self.answers_of(idx.unwrap_or(usize::MAX))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_call_id_then_by_name_in_order() {
        // assistant: a, a, b (callId x); tool: b (x), a, a.
        let c = Calls::pair(&envelope_of(&[
            (2, vec![(true, 0, None), (true, 0, None), (true, 1, Some(0))]),
            (3, vec![(false, 1, Some(0)), (false, 0, None), (false, 0, None)]),
        ]));
        assert_eq!(c.requests.iter().map(|r| r.export_id.as_str()).collect::<Vec<_>>(), ["call_1", "call_2", "x"]);
        assert_eq!(c.results.iter().map(|r| r.request).collect::<Vec<_>>(), [Some(2), Some(0), Some(1)]);
    }

    #[test]
    fn name_pairing_takes_requests_with_ids_too_and_only_earlier_ones() {
        // assistant: a (callId x); tool: a (no callId).
        let c = Calls::pair(&envelope_of(&[(2, vec![(true, 0, Some(0))]), (3, vec![(false, 0, None)])]));
        assert_eq!(c.results[0].request, Some(0));
        assert_eq!(c.request_for(At { message: 1, segment: 0 }).unwrap().export_id, "x");
        assert_eq!(c.results_for(At { message: 0, segment: 0 }).count(), 1);
    }

    #[test]
    fn explicit_unknown_id_is_not_guessed() {
        // assistant: a (no callId); tool: a (callId y, which no request has).
        let c = Calls::pair(&envelope_of(&[(2, vec![(true, 0, None)]), (3, vec![(false, 0, Some(1))])]));
        assert_eq!(c.results[0].request, None);
    }

    /// The pairing as §2 states it, scanning every request for each result
    /// (quadratic; the reference for the property test below).
    fn reference_pairing(c: &Calls) -> Vec<Option<usize>> {
        let mut taken = vec![false; c.requests.len()];
        let mut out = vec![None; c.results.len()];
        for (k, res) in c.results.iter().enumerate() {
            if let Some(id) = &res.call_id {
                if let Some(i) = c.requests.iter().position(|q| q.call_id.as_deref() == Some(id)) {
                    out[k] = Some(i);
                    taken[i] = true;
                }
            }
        }
        for (k, res) in c.results.iter().enumerate().filter(|(_, r)| r.call_id.is_none()) {
            let found = (0..c.requests.len())
                .take_while(|&i| c.requests[i].at < res.at)
                .find(|&i| !taken[i] && c.requests[i].tool_name == res.tool_name);
            if let Some(i) = found {
                taken[i] = true;
                out[k] = Some(i);
            }
        }
        out
    }

    /// `(role, segments)` per message; a segment is `(is_request, tool name, callId)`.
    type Msgs = [(u8, Vec<(bool, u8, Option<u8>)>)];

    fn envelope_of(msgs: &Msgs) -> Envelope {
        use crate::types::*;
        let messages = msgs
            .iter()
            .enumerate()
            .map(|(i, (role, segs))| Message {
                id: format!("m{i}"),
                role: [Role::System, Role::User, Role::Assistant, Role::Tool][*role as usize % 4],
                timestamp: 0.into(),
                truncation_priority: None,
                ext: Default::default(),
                segments: segs
                    .iter()
                    .map(|&(is_request, name, id)| {
                        let tool_name = ["a", "b", "c"][name as usize % 3].to_string();
                        let call_id = id.map(|n| ["x", "y", "z", "call_1", "call_2"][n as usize % 5].to_string());
                        if is_request {
                            Segment::ToolCallRequest(ToolCallRequest {
                                tool_name,
                                arguments: Default::default(),
                                collapsed: false,
                                call_id,
                                ext: Default::default(),
                            })
                        } else {
                            Segment::ToolCallResult(ToolCallResult {
                                tool_name,
                                result: String::new(),
                                success: true,
                                collapsed: false,
                                call_id,
                                content: None,
                                ext: Default::default(),
                            })
                        }
                    })
                    .collect(),
            })
            .collect();
        Envelope { version: "1.0".into(), model: None, prompt: None, params: None, messages, source: None }
    }

    proptest::proptest! {
        /// The queue-based pairing equals the reference, and `results_for`
        /// lists exactly the results paired with each request.
        #[test]
        fn pairing_matches_the_reference(
            msgs in proptest::collection::vec(
                (0u8..4, proptest::collection::vec((proptest::bool::ANY, 0u8..3, proptest::option::weighted(0.3, 0u8..5)), 0..6)),
                0..8,
            )
        ) {
            let c = Calls::pair(&envelope_of(&msgs));
            let got: Vec<Option<usize>> = c.results.iter().map(|r| r.request).collect();
            proptest::prop_assert_eq!(&got, &reference_pairing(&c));
            for (i, q) in c.requests.iter().enumerate() {
                let listed: Vec<At> = c.results_for(q.at).map(|r| r.at).collect();
                let expected: Vec<At> = c.results.iter().filter(|r| r.request == Some(i)).map(|r| r.at).collect();
                proptest::prop_assert_eq!(listed, expected);
            }
        }
    }

    #[test]
    fn pairing_80000_calls_by_name_is_fast() {
        let n = 80_000;
        let mut msgs = vec![(2u8, (0..n).map(|i| (true, (i % 3) as u8, None)).collect::<Vec<_>>())];
        msgs.extend((0..n).map(|i| (3u8, vec![(false, (i % 3) as u8, None)])));
        let e = envelope_of(&msgs);
        let t = std::time::Instant::now();
        let c = Calls::pair(&e);
        assert!(c.results.iter().all(|r| r.request.is_some()));
        // Quadratic pairing (6.4e9 steps) takes minutes here; linear takes milliseconds.
        // The bound leaves room for a debug build on a loaded 2-core machine.
        assert!(t.elapsed().as_secs_f64() < 5.0, "{:?}", t.elapsed());
    }
}
