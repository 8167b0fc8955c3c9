//! `required-variable`: variables the configuration requires every document
//! to declare. (`undeclared-variable` and `unused-variable` are validation
//! warnings, reported by the reader.)

use std::collections::HashSet;

use super::{Ctx, Raw};
use crate::diag::Rule;
use crate::types::Segment;

pub fn check(ctx: &Ctx) -> Vec<Raw> {
    let declared: HashSet<&str> = ctx
        .envelope
        .messages
        .iter()
        .flat_map(|m| &m.segments)
        .filter_map(|s| match s {
            Segment::StaticVar(v) => Some(v.name.as_str()),
            _ => None,
        })
        .collect();
    ctx.settings
        .required_variables
        .iter()
        .filter(|name| !declared.contains(name.as_str()))
        .map(|name| {
            Raw::new(
                Rule::RequiredVariable,
                "messages",
                format!("required variable `{name}` has no static_var (configured in required_variables)"),
            )
            .hint(format!("declare it: {{\"kind\": \"static_var\", \"name\": \"{name}\", \"value\": \"…\"}}"))
        })
        .collect()
}
