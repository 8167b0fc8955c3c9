//! The "Request settings" strip above the conversation: the envelope's
//! `params` (the request's settings: temperature, max tokens, tool choice…),
//! after its `model`, as compact `key = value` chips. A value that is long or
//! structured is abbreviated; its chip opens the full JSON below the strip.
//! Only documents with `params` have the strip (the demos have none).

use std::sync::Arc;

use envelope::export::to_pretty;
use leptos::prelude::*;
use serde_json::Value;

use crate::components::icons::{Ico, Icon};
use crate::doc::Doc;
use crate::format::count;

/// Values up to this many characters of compact JSON are shown whole.
pub const SHORT_CHARS: usize = 32;

/// What a chip shows for `value`: its compact JSON when short, else an
/// abbreviation (`{…} 3 keys`, `[…] 4 items`, a string cut with `…`); and
/// whether that is an abbreviation (then the full JSON is on demand).
pub fn abbreviate(value: &Value) -> (String, bool) {
    let compact = value.to_string();
    if compact.chars().count() <= SHORT_CHARS {
        return (compact, false);
    }
    let short = match value {
        Value::Object(o) => format!("{{…}} {}", count(o.len(), "key")),
        Value::Array(a) => format!("[…] {}", count(a.len(), "item")),
        Value::String(s) => format!("\"{}…\"", s.chars().take(SHORT_CHARS - 3).collect::<String>()),
        // Numbers as written can be long (arbitrary precision): cut them too.
        _ => format!("{}…", compact.chars().take(SHORT_CHARS - 1).collect::<String>()),
    };
    (short, true)
}

/// The strip, or nothing when the envelope has no `params`.
#[component]
pub fn RequestSettings(doc: Arc<Doc>) -> impl IntoView {
    let Some(params) = doc.envelope.params.clone() else {
        return ().into_any();
    };
    let mut entries: Vec<(String, Value)> = Vec::with_capacity(params.len() + 1);
    if let Some(model) = doc.envelope.model.as_ref().filter(|m| !m.is_empty()) {
        entries.push(("model".into(), Value::String(model.clone())));
    }
    entries.extend(params);
    let open = RwSignal::new(None::<usize>);
    let chips: Vec<AnyView> = entries
        .iter()
        .enumerate()
        .map(|(i, (key, value))| {
            let (text, abbreviated) = abbreviate(value);
            let body = view! {
                <code class="chip-name">{key.clone()}</code>
                <span class="chip-eq">" = "</span>
                <span class="chip-value">{text}</span>
            };
            if abbreviated {
                view! {
                    <li class="chip" data-key=key.clone()>
                        <button type="button" class="chip-open" title="Show the full value"
                            aria-expanded=move || (open.get() == Some(i)).to_string()
                            on:click=move |_| open.update(|o| *o = if *o == Some(i) { None } else { Some(i) })>
                            {body}
                        </button>
                    </li>
                }
                .into_any()
            } else {
                view! { <li class="chip" data-key=key.clone()>{body}</li> }.into_any()
            }
        })
        .collect();
    let full = move || {
        open.get().and_then(|i| entries.get(i)).map(|(key, value)| {
            view! {
                <div class="setting-full" data-testid="setting-full">
                    <code class="chip-name">{key.clone()}</code>
                    <pre class="json" tabindex="0" role="region" aria-label=key.clone()>{to_pretty(value)}</pre>
                </div>
            }
        })
    };
    view! {
        <section class="settings-strip" aria-label="Request settings" data-testid="request-settings">
            <span class="session-label"><Ico icon=Icon::Cog/>" Request settings"</span>
            <ul class="chips">{chips}</ul>
            {full}
        </section>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_values_are_whole_and_long_ones_abbreviated() {
        assert_eq!(abbreviate(&json!(0.2)), ("0.2".into(), false));
        assert_eq!(abbreviate(&json!("auto")), ("\"auto\"".into(), false));
        assert_eq!(abbreviate(&json!(["\n\n"])), (r#"["\n\n"]"#.into(), false));
        assert_eq!(abbreviate(&json!({"type": "auto"})), (r#"{"type":"auto"}"#.into(), false));
        let schema = json!({"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}});
        assert_eq!(abbreviate(&schema), ("{…} 2 keys".into(), true));
        assert_eq!(abbreviate(&json!(["aaaaaaaaaa", "bbbbbbbbbb", "cccccccccc"])), ("[…] 3 items".into(), true));
        let (s, cut) = abbreviate(&json!("论".repeat(40)));
        assert!(cut);
        assert_eq!(s, format!("\"{}…\"", "论".repeat(29)));
        assert_eq!(s.chars().count(), SHORT_CHARS);
    }
}
