//! A rendered template as an envelope, so that every view, export and the
//! budget work on it (docs/DECISIONS.md, "PromptPoet templates").
//!
//! - One message per part, in order, with one `text` segment holding the
//!   part's content exactly.
//! - Roles: `system`, `user` and `assistant` map to themselves; any other
//!   role (`tool`, `developer`, a number, …) becomes `user` — PromptPoet's own
//!   default role — with a `template-role` warning naming the part. (An
//!   envelope `tool` message may only hold a paired tool result.)
//! - The message `id` is the part's name as Python prints it (`str(name)`);
//!   an empty name becomes `part-N` (N counts parts from 1) and a name already
//!   used gets ` (2)`, ` (3)`, … so ids stay unique and readable.
//! - `truncationPriority` is the part's priority: always written (an envelope
//!   without it defaults non-system messages to 1, PromptPoet to 0); negative
//!   integers are 0 (they behave alike); a priority that is not an integer
//!   is 0 with a `template-role` warning.
//! - `timestamp` is 0 for every message; `model` is left out.

use std::collections::HashSet;

use serde_json::Number;

use super::{Part, PyValue, Rendered};
use crate::diag::{Diagnostic, Rule};
use crate::types::{Envelope, Message, Role, Segment, Text, VERSION};

/// The envelope of a rendered template, and warnings about what it could not
/// keep as it was (roles, priorities).
pub fn to_envelope(rendered: &Rendered) -> (Envelope, Vec<Diagnostic>) {
    let mut warnings = Vec::new();
    let mut used: HashSet<String> = HashSet::new();
    let mut messages = Vec::with_capacity(rendered.parts.len());
    for (i, part) in rendered.parts.iter().enumerate() {
        let id = unique_id(part, i, &mut used);
        let role = match part.role_str().and_then(Role::parse) {
            Some(r @ (Role::System | Role::User | Role::Assistant)) => r,
            _ => {
                warnings.push(Diagnostic::new(
                    Rule::TemplateRole,
                    format!("messages[{i}].role"),
                    format!("part `{id}` has role {}; the envelope sends it as user", part.role.py_repr()),
                ));
                Role::User
            }
        };
        let priority = match part.priority_int() {
            Some(n) => n.clamp(0, i128::from(u64::MAX)) as u64,
            None => {
                warnings.push(Diagnostic::new(
                    Rule::TemplateRole,
                    format!("messages[{i}].truncationPriority"),
                    format!(
                        "part `{id}` has truncation_priority {}, not an integer; the envelope uses 0 (prompt-poet's truncation would raise)",
                        part.truncation_priority.py_repr()
                    ),
                ));
                0
            }
        };
        messages.push(Message {
            id,
            role,
            segments: vec![Segment::Text(Text { content: part.content.clone(), ext: Default::default() })],
            timestamp: Number::from(0),
            truncation_priority: Some(priority),
            ext: Default::default(),
        });
    }
    (
        Envelope { version: VERSION.to_string(), model: None, prompt: None, params: None, messages, source: None },
        warnings,
    )
}

fn unique_id(part: &Part, index: usize, used: &mut HashSet<String>) -> String {
    let base = match &part.name {
        PyValue::Str(s) if s.trim().is_empty() => format!("part-{}", index + 1),
        other => other.py_str(),
    };
    let base = if base.trim().is_empty() { format!("part-{}", index + 1) } else { base };
    let mut id = base.clone();
    let mut n = 2;
    while !used.insert(id.clone()) {
        id = format!("{base} ({n})");
        n += 1;
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::promptpoet::render;

    #[test]
    fn ids_roles_and_priorities() {
        let r = render(
            "- {name: a, content: one, role: system}\n- {name: a, content: two, role: assistant, truncation_priority: 3}\n\
             - {name: '', content: three, role: tool}\n- {name: 7, content: four, truncation_priority: -2}\n\
             - {name: a, content: five, role: developer, truncation_priority: x}\n",
            &serde_json::json!({}),
        )
        .unwrap();
        let (env, warnings) = to_envelope(&r);
        let ids: Vec<&str> = env.messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["a", "a (2)", "part-3", "7", "a (3)"]);
        let roles: Vec<Role> = env.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::System, Role::Assistant, Role::User, Role::User, Role::User]);
        let prios: Vec<Option<u64>> = env.messages.iter().map(|m| m.truncation_priority).collect();
        assert_eq!(prios, [Some(0), Some(3), Some(0), Some(0), Some(0)]);
        let paths: Vec<&str> = warnings.iter().map(|w| w.path.as_str()).collect();
        assert_eq!(paths, ["messages[2].role", "messages[4].role", "messages[4].truncationPriority"]);
        assert!(warnings.iter().all(|w| w.rule == Rule::TemplateRole));
        assert!(warnings[0].message.contains("'tool'"), "{}", warnings[0].message);
    }
}
