//! Tool calls: which result answers which request (§2), and the ids they
//! carry in the OpenAI export (§4).

use std::collections::HashMap;

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
}

impl Calls {
    /// Pairs results with requests in the spec's two passes: first every
    /// result with a `callId` takes the request with that `callId` (the first
    /// one, should there be several); then each remaining result *without* a
    /// `callId`, in document order, takes the earliest still-unpaired request
    /// of the same `toolName` that stands before it. A result whose `callId`
    /// matches no request stays unpaired: an explicit id is never guessed past.
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
        for res in calls.results.iter_mut().filter(|r| r.call_id.is_none()) {
            let found = calls
                .requests
                .iter()
                .enumerate()
                .take_while(|(_, q)| q.at < res.at)
                .find(|(i, q)| !taken[*i] && q.tool_name == res.tool_name)
                .map(|(i, _)| i);
            if let Some(i) = found {
                taken[i] = true;
                res.request = Some(i);
            }
        }
        calls
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

    /// The result segments that answer a request segment.
    pub fn results_for(&self, request_at: At) -> impl Iterator<Item = &Result> {
        let idx = self.requests.binary_search_by_key(&request_at, |q| q.at).ok();
        self.results.iter().filter(move |r| idx.is_some() && r.request == idx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::decode;

    /// Pairs the calls of a structurally valid document (semantic errors allowed).
    fn calls(json: &str) -> Calls {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        let (envelope, errors) = decode(&v);
        assert!(errors.is_empty(), "{errors:?}");
        Calls::pair(&envelope.unwrap())
    }

    fn req(name: &str, id: Option<&str>) -> String {
        let id = id.map(|i| format!(r#","callId":"{i}""#)).unwrap_or_default();
        format!(r#"{{"kind":"tool_call_request","toolName":"{name}","arguments":{{}},"collapsed":false{id}}}"#)
    }

    fn res(name: &str, id: Option<&str>) -> String {
        let id = id.map(|i| format!(r#","callId":"{i}""#)).unwrap_or_default();
        format!(r#"{{"kind":"tool_call_result","toolName":"{name}","result":"r","success":true,"collapsed":true{id}}}"#)
    }

    fn doc(msgs: &[(&str, Vec<String>)]) -> String {
        let ms: Vec<String> = msgs
            .iter()
            .enumerate()
            .map(|(i, (role, segs))| {
                format!(r#"{{"id":"m{i}","role":"{role}","timestamp":{i},"segments":[{}]}}"#, segs.join(","))
            })
            .collect();
        format!(r#"{{"version":"1.0","messages":[{}]}}"#, ms.join(","))
    }

    #[test]
    fn by_call_id_then_by_name_in_order() {
        let c = calls(&doc(&[
            ("assistant", vec![req("a", None), req("a", None), req("b", Some("x"))]),
            ("tool", vec![res("b", Some("x")), res("a", None), res("a", None)]),
        ]));
        assert_eq!(c.requests.iter().map(|r| r.export_id.as_str()).collect::<Vec<_>>(), ["call_1", "call_2", "x"]);
        assert_eq!(c.results.iter().map(|r| r.request).collect::<Vec<_>>(), [Some(2), Some(0), Some(1)]);
    }

    #[test]
    fn name_pairing_takes_requests_with_ids_too_and_only_earlier_ones() {
        let c = calls(&doc(&[("assistant", vec![req("a", Some("k"))]), ("tool", vec![res("a", None)])]));
        assert_eq!(c.results[0].request, Some(0));
        assert_eq!(c.request_for(At { message: 1, segment: 0 }).unwrap().export_id, "k");
        assert_eq!(c.results_for(At { message: 0, segment: 0 }).count(), 1);
    }

    #[test]
    fn explicit_unknown_id_is_not_guessed() {
        let c = calls(&doc(&[("assistant", vec![req("a", None)]), ("tool", vec![res("a", Some("nope"))])]));
        assert_eq!(c.results[0].request, None);
    }
}
