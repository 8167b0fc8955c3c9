use leptos::prelude::*;
use serde_json::Value;

/// Characters of a `ttl` shown.
const TTL_CHARS: usize = 24;

/// "Cache breakpoint", with " · ttl 1h" when the breakpoint names its
/// lifetime (Anthropic's `cache_control`; the value is the document's).
pub fn cache_label(cache_control: &Value) -> String {
    let ttl = match cache_control.get("ttl") {
        Some(Value::String(s)) => Some(s.chars().take(TTL_CHARS).collect::<String>()),
        Some(Value::Null) | None => None,
        Some(other) => Some(envelope::jsontext::compact(other).chars().take(TTL_CHARS).collect()),
    };
    match ttl {
        Some(t) => format!("Cache breakpoint · ttl {}", envelope::display::shown(&t)),
        None => "Cache breakpoint".to_string(),
    }
}

/// The mark after a segment that ends a cached prefix: the provider caches
/// everything up to and including it.
#[component]
pub fn CacheMark(
    /// The segment's `cacheControl`, verbatim.
    cache_control: Value,
) -> impl IntoView {
    let label = cache_label(&cache_control);
    let raw = envelope::jsontext::compact(&cache_control);
    let title = format!("cacheControl: {}", raw.chars().take(200).collect::<String>());
    view! {
        <div class="cache-mark" role="note" data-testid="cache-mark" title=title>
            <span class="cache-line" aria-hidden="true"></span>
            <span class="cache-label">{label}</span>
            <span class="cache-line" aria-hidden="true"></span>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::cache_label;
    use serde_json::json;

    #[test]
    fn labels() {
        assert_eq!(cache_label(&json!({"type": "ephemeral"})), "Cache breakpoint");
        assert_eq!(cache_label(&json!({"type": "ephemeral", "ttl": "1h"})), "Cache breakpoint · ttl 1h");
        assert_eq!(cache_label(&json!({"ttl": 300})), "Cache breakpoint · ttl 300");
        assert_eq!(cache_label(&json!({"ttl": "x".repeat(100)})), format!("Cache breakpoint · ttl {}", "x".repeat(24)));
    }
}
