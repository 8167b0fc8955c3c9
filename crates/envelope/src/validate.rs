//! The semantic rules of §3, over a decoded envelope.

use std::collections::{HashMap, HashSet};

use crate::calls::{At, Calls};
use crate::diag::{Diagnostic, Rule};
use crate::locator::Locator;
use crate::schema;
use crate::skill::{skill_description_problem, skill_name_problem};
use crate::template::{for_each_text_field, placeholders};
use crate::types::*;

/// Every semantic error and warning of `envelope`. `incomplete` says that
/// some message or segment failed to decode; checks that would then report
/// consequences of that failure (a result whose request did not decode looks
/// unpaired) are skipped.
pub fn check(envelope: &Envelope, loc: &Locator, incomplete: bool) -> Vec<Diagnostic> {
    let mut v = Validator { envelope, loc, out: Vec::new() };
    v.message_ids();
    v.placement();
    v.variables();
    let tools = v.tools();
    v.skills();
    v.media_and_long_text();
    let calls = Calls::pair(envelope);
    v.call_ids(&calls);
    if !incomplete {
        v.pairing(&calls);
    }
    v.arguments(&calls, &tools);
    v.call_order(&calls);
    v.out
}

struct Validator<'a> {
    envelope: &'a Envelope,
    loc: &'a Locator,
    out: Vec<Diagnostic>,
}

/// OpenAI's rule for function names: `^[a-zA-Z0-9_-]{1,64}$`.
pub fn openai_name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether a media URL's scheme is allowed (§3): http, https, or `data:`
/// (`data:image/…` for images). The scheme is read as a browser's URL parser
/// reads it (`url::scheme`), in any case: `HTTPS:x` and `https:x`
/// pass, and `\u{a0}https://x`, which a browser reads as a relative path, does not.
pub fn media_url_ok(media_type: MediaType, url: &str) -> bool {
    let clean = crate::url::clean(url);
    match crate::url::scheme(&clean) {
        Some((scheme, rest)) => match scheme.as_str() {
            "http" | "https" => true,
            "data" => media_type != MediaType::Image || rest.get(..6).is_some_and(|m| m.eq_ignore_ascii_case("image/")),
            _ => false,
        },
        None => false,
    }
}

impl<'a> Validator<'a> {
    fn seg(&self, at: At) -> String {
        self.loc.segment(at.message, at.segment)
    }

    fn add(&mut self, rule: Rule, path: String, msg: String) {
        self.out.push(Diagnostic::new(rule, path, msg));
    }

    fn segments(&self) -> impl Iterator<Item = (At, &'a Segment)> + 'a {
        self.envelope
            .messages
            .iter()
            .enumerate()
            .flat_map(|(mi, m)| m.segments.iter().enumerate().map(move |(sj, s)| (At { message: mi, segment: sj }, s)))
    }

    fn message_ids(&mut self) {
        // Every readable id of the document, including those of messages
        // that failed to decode (the locator keeps them).
        let loc = self.loc;
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, id) in loc.ids() {
            if let Some(&first) = seen.get(id.as_str()) {
                self.add(
                    Rule::DuplicateMessageId,
                    format!("messages[{i}].id"),
                    format!("duplicate message id `{id}` (also messages[{first}])"),
                );
            } else {
                seen.insert(id, *i);
            }
        }
    }

    fn placement(&mut self) {
        for (at, s) in self.segments() {
            let role = self.envelope.messages[at.message].role;
            let problem = match (s, role) {
                (Segment::ToolCallRequest(_), r) if r != Role::Assistant => {
                    format!(
                        "tool_call_request is only allowed in an assistant message, not in a {} message",
                        r.as_str()
                    )
                }
                (Segment::ToolCallResult(_), r) if r != Role::Tool => {
                    format!("tool_call_result is only allowed in a tool message, not in a {} message", r.as_str())
                }
                (s, Role::Tool) if !matches!(s, Segment::ToolCallResult(_)) => {
                    format!("a tool message may hold only tool_call_result segments, not {}", s.kind())
                }
                _ => continue,
            };
            self.add(Rule::MisplacedSegment, self.seg(at), problem);
        }
    }

    fn variables(&mut self) {
        let mut defined: HashMap<&str, (At, &str)> = HashMap::new();
        let mut order: Vec<(&str, At)> = Vec::new();
        for (at, s) in self.segments() {
            if let Segment::StaticVar(v) = s {
                match defined.get(v.name.as_str()) {
                    Some(&(first, value)) if value != v.value => {
                        let msg = format!(
                            "static_var `{}` is already defined with a different value (at {})",
                            v.name,
                            self.seg(first)
                        );
                        self.add(Rule::ConflictingVariable, format!("{}.value", self.seg(at)), msg);
                    }
                    Some(_) => {}
                    None => {
                        defined.insert(&v.name, (at, &v.value));
                        order.push((&v.name, at));
                    }
                }
            }
        }
        let mut used: HashSet<String> = HashSet::new();
        let mut missing: Vec<(String, String)> = Vec::new();
        for (at, s) in self.segments() {
            for_each_text_field(s, |field, text| {
                for p in placeholders(text) {
                    used.insert(p.name.to_string());
                    if !defined.contains_key(p.name) {
                        missing.push((format!("{}.{field}", self.seg(at)), p.name.to_string()));
                    }
                }
            });
        }
        missing.dedup();
        for (path, name) in missing {
            self.add(
                Rule::UndeclaredVariable,
                path,
                format!("placeholder {{{{{name}}}}} has no static_var; it is sent as written"),
            );
        }
        for (name, at) in order {
            if !used.contains(name) {
                self.add(
                    Rule::UnusedVariable,
                    format!("{}.name", self.seg(at)),
                    format!("static_var `{name}` is never used by a {{{{{name}}}}} placeholder"),
                );
            }
        }
    }

    /// Tool declarations, by name (first wins); reports duplicates and what OpenAI refuses.
    fn tools(&mut self) -> HashMap<&'a str, &'a ToolItem> {
        let mut tools: HashMap<&str, &ToolItem> = HashMap::new();
        let mut first_at: HashMap<&str, String> = HashMap::new();
        for (at, s) in self.segments() {
            let Segment::ToolOverview(o) = s else { continue };
            for (k, t) in o.items.iter().enumerate() {
                let path = format!("{}.items[{k}]", self.seg(at));
                // A provider's server tool is no function: its name is not
                // called, and two (say `mcp` tools) may share it.
                if t.is_server() {
                    continue;
                }
                if let Some(first) = first_at.get(t.name.as_str()) {
                    let msg = format!("a tool named `{}` is already declared (at {first})", t.name);
                    self.add(Rule::DuplicateTool, format!("{path}.name"), msg);
                    continue;
                }
                first_at.insert(&t.name, path.clone());
                tools.insert(&t.name, t);
                if !openai_name_ok(&t.name) {
                    self.add(
                        Rule::InvalidToolName,
                        format!("{path}.name"),
                        format!("OpenAI refuses the tool name `{}`: it must match ^[a-zA-Z0-9_-]{{1,64}}$", t.name),
                    );
                }
                if let Some(schema) = &t.schema {
                    match schema.get("type") {
                        Some(serde_json::Value::String(ty)) if ty == "object" => {}
                        other => {
                            let found = other.map_or("no type".to_string(), |t| format!("type {t}"));
                            self.add(Rule::ToolSchemaNotObject, format!("{path}.schema"), format!("OpenAI refuses a parameters schema whose top-level type is not \"object\" (found {found})"));
                        }
                    }
                }
            }
        }
        tools
    }

    fn skills(&mut self) {
        for (at, s) in self.segments() {
            let Segment::Skills(list) = s else { continue };
            for (k, item) in list.items.iter().enumerate() {
                let path = format!("{}.items[{k}]", self.seg(at));
                if let Some(p) = skill_name_problem(&item.name) {
                    self.add(Rule::SkillName, format!("{path}.name"), format!("skill name `{}`: {p}", item.name));
                }
                if let Some(p) = skill_description_problem(&item.description) {
                    self.add(Rule::SkillDescription, format!("{path}.description"), p);
                }
                if item.is_loaded() && item.body.is_none() {
                    self.add(
                        Rule::SkillBodyMissing,
                        format!("{path}.body"),
                        format!("skill `{}` is marked loaded but has no body", item.name),
                    );
                }
            }
        }
    }

    fn media_and_long_text(&mut self) {
        for (at, s) in self.segments() {
            match s {
                Segment::Media(m) if !media_url_ok(m.media_type, &m.url) => {
                    let allowed = match m.media_type {
                        MediaType::Image => "http, https or data:image/…",
                        _ => "http, https or data:",
                    };
                    let shown: String = m.url.chars().take(60).collect();
                    self.add(
                        Rule::MediaUrlScheme,
                        format!("{}.url", self.seg(at)),
                        format!("{} URL `{shown}` is not allowed: use {allowed}", m.media_type.as_str()),
                    );
                }
                Segment::LongText(t) => {
                    let n = t.content.chars().count() as i64;
                    if n != t.char_count {
                        self.add(
                            Rule::CharCountMismatch,
                            format!("{}.charCount", self.seg(at)),
                            format!(
                                "charCount is {} but content has {n} character{}",
                                t.char_count,
                                if n == 1 { "" } else { "s" }
                            ),
                        );
                    }
                }
                _ => {}
            }
        }
    }

    fn call_ids(&mut self, calls: &Calls) {
        let mut seen: HashMap<&str, At> = HashMap::new();
        for q in &calls.requests {
            let Some(id) = &q.call_id else { continue };
            if let Some(&first) = seen.get(id.as_str()) {
                self.add(
                    Rule::DuplicateCallId,
                    format!("{}.callId", self.seg(q.at)),
                    format!("duplicate callId `{id}` (also at {})", self.seg(first)),
                );
            } else {
                seen.insert(id, q.at);
            }
        }
        // A written callId equal to another request's generated id `call_{n}`.
        for q in calls.requests.iter().filter(|q| q.call_id.is_none()) {
            if let Some(&other) = seen.get(q.export_id.as_str()) {
                self.add(Rule::CallIdCollision, format!("{}.callId", self.seg(other)), format!("callId `{}` equals the id the export generates for the request at {}; OpenAI refuses duplicate tool call ids", q.export_id, self.seg(q.at)));
            }
        }
        let mut answered: HashMap<&str, At> = HashMap::new();
        for r in &calls.results {
            let Some(id) = &r.call_id else { continue };
            if let Some(&first) = answered.get(id.as_str()) {
                self.add(
                    Rule::DuplicateCallId,
                    format!("{}.callId", self.seg(r.at)),
                    format!("duplicate callId `{id}`: the call is already answered at {}", self.seg(first)),
                );
            } else {
                answered.insert(id, r.at);
            }
        }
    }

    fn pairing(&mut self, calls: &Calls) {
        for r in &calls.results {
            match (r.request, &r.call_id) {
                (None, Some(id)) => self.add(Rule::UnpairedResult, format!("{}.callId", self.seg(r.at)), format!("callId `{id}` matches no tool_call_request")),
                (None, None) => self.add(Rule::UnpairedResult,
                    self.seg(r.at),
                    format!("this result of `{}` pairs with no request: there is no earlier unanswered tool_call_request of that tool", r.tool_name),
                ),
                (Some(i), _) => {
                    let q = &calls.requests[i];
                    if q.tool_name != r.tool_name {
                        self.add(Rule::ResultToolMismatch, format!("{}.toolName", self.seg(r.at)), format!("this result names `{}` but answers a call of `{}` (at {})", r.tool_name, q.tool_name, self.seg(q.at)));
                    }
                }
            }
        }
    }

    /// Checks each call's arguments against its tool's schema. All checks
    /// share one budget of steps ([`schema::DOCUMENT_STEPS`]) and equal
    /// arguments of one tool are checked once; calls left unchecked are
    /// reported together in one `checks-skipped` warning.
    fn arguments(&mut self, calls: &Calls, tools: &HashMap<&str, &'a ToolItem>) {
        let mut checker = schema::Checker::new(schema::DOCUMENT_STEPS);
        let mut skipped = Skipped::default();
        for q in &calls.requests {
            let path = self.seg(q.at);
            if !openai_name_ok(&q.tool_name) {
                self.add(
                    Rule::InvalidToolName,
                    format!("{path}.toolName"),
                    format!("OpenAI refuses the tool name `{}`: it must match ^[a-zA-Z0-9_-]{{1,64}}$", q.tool_name),
                );
            }
            let Some(schema) = tools.get(q.tool_name.as_str()).and_then(|t| t.schema.as_ref()) else { continue };
            let Segment::ToolCallRequest(req) = &self.envelope.messages[q.at.message].segments[q.at.segment] else {
                continue;
            };
            let key = serde_json::to_string(&req.arguments).unwrap_or_default();
            let args = serde_json::Value::Object(req.arguments.clone());
            match checker.check_keyed(schema, &args, key) {
                schema::Outcome::Checked(problems) => {
                    for problem in problems {
                        self.add(
                            Rule::ArgumentsSchema,
                            format!("{path}.arguments"),
                            format!("does not satisfy the schema of `{}`: {problem}", q.tool_name),
                        );
                    }
                }
                schema::Outcome::Skipped(why) => skipped.add(why, &q.tool_name, || format!("{path}.arguments")),
            }
        }
        if let Some(d) = skipped.diagnostic(calls.requests.len()) {
            self.out.push(d);
        }
    }

    /// OpenAI's ordering rules: each call is answered by the tool messages
    /// that directly follow its assistant message.
    fn call_order(&mut self, calls: &Calls) {
        let messages = &self.envelope.messages;
        // The end (exclusive) of the run of tool messages after message `mi`:
        // `run_ends[mi]`, filled from the back in one pass.
        let mut run_ends = vec![messages.len(); messages.len()];
        for mi in (0..messages.len().saturating_sub(1)).rev() {
            run_ends[mi] = if messages[mi + 1].role != Role::Tool { mi + 1 } else { run_ends[mi + 1] };
        }
        let run_end = |mi: usize| run_ends.get(mi).copied().unwrap_or(messages.len());
        for (i, q) in calls.requests.iter().enumerate() {
            let end = run_end(q.at.message);
            let answered = calls.answers_of(i).any(|r| r.at.message > q.at.message && r.at.message < end);
            if !answered {
                let next = if end < messages.len() {
                    format!("before the next non-tool message ({})", self.loc.message(end))
                } else {
                    "by the tool messages that follow it".to_string()
                };
                self.add(
                    Rule::UnansweredCall,
                    self.seg(q.at),
                    format!("OpenAI refuses this: tool call `{}` is not answered {next}", q.export_id),
                );
            }
        }
        for r in &calls.results {
            let Some(i) = r.request else { continue };
            let q = &calls.requests[i];
            let follows = q.at.message < r.at.message && r.at.message < run_end(q.at.message);
            if !follows {
                self.add(Rule::ResultOutOfOrder, self.seg(r.at), format!("OpenAI refuses this: the result of call `{}` does not directly follow (through tool messages only) the assistant message that made the call ({})", q.export_id, self.loc.message(q.at.message)));
            }
        }
    }
}

/// Calls whose argument check was cut off, counted by reason and tool.
#[derive(Default)]
struct Skipped {
    /// Where the first one stands.
    first: Option<String>,
    too_complex: Vec<(String, usize)>,
    budget_spent: Vec<(String, usize)>,
}

impl Skipped {
    fn add(&mut self, why: schema::Skip, tool: &str, path: impl FnOnce() -> String) {
        if self.first.is_none() {
            self.first = Some(path());
        }
        let list = match why {
            schema::Skip::TooComplex => &mut self.too_complex,
            schema::Skip::BudgetSpent => &mut self.budget_spent,
        };
        match list.iter_mut().find(|(t, _)| t == tool) {
            Some((_, n)) => *n += 1,
            None => list.push((tool.to_string(), 1)),
        }
    }

    /// `` `t` ×790, `u` ×2`` (at most five tools, then how many more).
    fn tools(list: &[(String, usize)]) -> String {
        let mut parts: Vec<String> = list.iter().take(5).map(|(t, n)| format!("`{t}` ×{n}")).collect();
        if list.len() > 5 {
            parts.push(format!("and {} more tools", list.len() - 5));
        }
        parts.join(", ")
    }

    /// The one `checks-skipped` warning, if any call was skipped.
    fn diagnostic(&self, calls: usize) -> Option<Diagnostic> {
        let first = self.first.clone()?;
        let count = |l: &[(String, usize)]| l.iter().map(|(_, n)| n).sum::<usize>();
        let (complex, spent) = (count(&self.too_complex), count(&self.budget_spent));
        let mut reasons = Vec::new();
        if complex > 0 {
            reasons.push(format!(
                "{complex} because one check needed more than {} steps or {} levels ({})",
                fmt_thousands(schema::CHECK_STEPS),
                schema::MAX_DEPTH,
                Self::tools(&self.too_complex)
            ));
        }
        if spent > 0 {
            reasons.push(format!(
                "{spent} because the document's budget of {} steps was spent ({})",
                fmt_thousands(schema::DOCUMENT_STEPS),
                Self::tools(&self.budget_spent)
            ));
        }
        let n = complex + spent;
        let msg = format!(
            "the arguments of {n} of {calls} call{} were not checked against their tool's schema: {}",
            if calls == 1 { "" } else { "s" },
            reasons.join("; ")
        );
        Some(
            Diagnostic::new(Rule::ChecksSkipped, first, msg)
                .with_hint("simplify the schema (self-references, anyOf/oneOf fan-out) or check these arguments with a full JSON Schema validator"),
        )
    }
}

/// `1000000` → `1,000,000`.
fn fmt_thousands(n: usize) -> String {
    let digits = n.to_string();
    let groups: Vec<&str> = digits.as_bytes().rchunks(3).rev().map(|g| std::str::from_utf8(g).unwrap_or("")).collect();
    groups.join(",")
}
