use crate::components::icons::{Ico, Icon};
use crate::format::count;
use envelope::calls::At;
use envelope::{MediaType, ToolCallResult};
use leptos::prelude::*;
use serde_json::Value;

use crate::components::panel::Toggle;
use crate::components::rich::{cut_around, cut_note, with_secrets, CurrentDoc};
use crate::components::segments::MediaView;
use crate::nav::Navigator;

/// A tool's answer: a green status bar on success, red on failure, saying
/// which call it answers; the result text unfolds below, with the images
/// and documents of its content blocks (when the provider sent blocks).
#[component]
pub fn ToolCallResultSegment(segment: ToolCallResult, at: At) -> impl IntoView {
    let doc = CurrentDoc::expect();
    let answers = doc.calls.request_for(at).map(|q| q.export_id.clone());
    let request =
        doc.calls.request_for(at).map(|q| (q.at, q.export_id.clone(), doc.envelope.messages[q.at.message].id.clone()));
    let nav = use_context::<Navigator>();
    let toggle = Toggle::new(!segment.collapsed);
    let open = toggle.open;
    let whole = RwSignal::new(false);
    let ok = segment.success;
    let result = segment.result;
    let chars = result.chars().count();
    let blocks: Vec<ResultBlock> = segment.content.iter().flatten().filter_map(ResultBlock::read).collect();
    let images = blocks.iter().filter(|b| matches!(b, ResultBlock::Image { .. })).count();
    view! {
        <div class="seg seg-result" class:ok=ok class:fail=!ok data-kind="tool_call_result">
            <button type="button" class="result-head" aria-expanded=toggle.aria() on:click=move |_| toggle.flip()>
                {if ok {
                    view! { <Ico icon=Icon::CircleCheck/> }.into_any()
                } else {
                    view! { <Ico icon=Icon::CircleX/> }.into_any()
                }}
                <span class="result-status">{if ok { "Success" } else { "Failed" }}</span>
                <span class="result-tool">{segment.tool_name.clone()}</span>
                <span class="result-answers">
                    {match answers {
                        Some(id) => format!("answers {id}"),
                        None => "answers no call".to_string(),
                    }}
                </span>
                {(!ok).then(|| view! { <span class="badge bad">"error"</span> })}
                {(images > 0).then(|| view! { <span class="badge">{count(images, "image")}</span> })}
                <span class="badge">{count(chars, "char")}</span>
            </button>
            {nav.zip(request).map(|(nav, (q, id, mid))| view! {
                <div class="call-links">
                    <button type="button" class="link" data-testid="to-call"
                        title=format!("Go to call {id} (message {mid})")
                        on:mousedown=|ev: leptos::ev::MouseEvent| ev.prevent_default()
                            on:click=move |_| {
                                // A focused link far away holds the window back (Chromium):
                                // jump from an unfocused page, a frame later.
                                crate::browser::blur_active();
                                leptos::task::spawn_local(async move {
                                    crate::browser::after_next_paint().await;
                                    nav.reveal(q, true);
                                });
                            }>
                        <Ico icon=Icon::ArrowUp/>{format!(" Call {id} in {mid}")}
                    </button>
                </div>
            })}
            {move || open.get().then(|| {
                let found = crate::secrets::in_text(&result);
                let (text, hidden) = cut_around(&result, whole, &found);
                view! {
                    <pre class="result-body" tabindex="0" role="region" aria-label="Result">{with_secrets(text, 0, &found)}</pre>
                    {(hidden > 0).then(|| cut_note(hidden, whole))}
                    {(!blocks.is_empty()).then(|| view! {
                        <div class="result-blocks">
                            {blocks.iter().map(|b| b.view()).collect::<Vec<_>>()}
                        </div>
                    })}
                }
            })}
        </div>
    }
}

/// Image MIME types a base64 image block may show as (never SVG).
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// A content block of a tool's result that is not text (the text is
/// `result`): an image to show, or a document (or other block) to name.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultBlock {
    /// An image by URL: a `data:` URL built from base64 data, or the
    /// block's own URL (shown as the media segment shows it: remote held).
    Image { url: String },
    /// A block that cannot be shown (an image of another type, a document,
    /// a search result): its type and title.
    Card { kind: String, title: Option<String>, detail: Option<String> },
}

impl ResultBlock {
    /// The block, or `None` for a text block (already in `result`).
    pub fn read(block: &Value) -> Option<ResultBlock> {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
        let source = block.get("source");
        let field = |v: Option<&Value>, k: &str| v.and_then(|v| v.get(k)).and_then(Value::as_str).map(str::to_string);
        let source_type = field(source, "type");
        let media_type = field(source, "media_type");
        match kind {
            "text" => None,
            "image" => {
                let url = match source_type.as_deref() {
                    Some("base64") => {
                        let data = field(source, "data").unwrap_or_default();
                        let mime = media_type.clone().unwrap_or_default().to_ascii_lowercase();
                        let base64 = data.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='));
                        (IMAGE_TYPES.contains(&mime.as_str()) && base64 && !data.is_empty())
                            .then(|| format!("data:{mime};base64,{data}"))
                    }
                    Some("url") => field(source, "url").filter(|u| envelope::markdown::is_remote(u)),
                    _ => None,
                };
                Some(match url {
                    Some(url) => ResultBlock::Image { url },
                    None => ResultBlock::Card {
                        kind: "image".into(),
                        title: None,
                        detail: Some(format!(
                            "not shown ({})",
                            media_type.or(source_type).unwrap_or_else(|| "no source".into())
                        )),
                    },
                })
            }
            _ => Some(ResultBlock::Card {
                kind: if kind.is_empty() { "(no type)".into() } else { kind.to_string() },
                title: block.get("title").and_then(Value::as_str).map(str::to_string),
                detail: media_type.or(source_type),
            }),
        }
    }

    fn view(&self) -> AnyView {
        match self {
            ResultBlock::Image { url } => view! {
                <div class="result-block result-image"><MediaView media_type=MediaType::Image url=url.clone() alt=String::new()/></div>
            }
            .into_any(),
            ResultBlock::Card { kind, title, detail } => view! {
                <div class="result-block result-card" data-testid="result-block">
                    <Ico icon=Icon::File/>
                    <span class="result-card-kind">{short(kind)}</span>
                    {title.as_deref().map(|t| view! { <span class="result-card-title">{short(t)}</span> })}
                    {detail.as_deref().map(|d| view! { <span class="muted">{short(d)}</span> })}
                </div>
            }
            .into_any(),
        }
    }
}

/// A block's label: its first 200 characters, combining-mark runs collapsed.
fn short(s: &str) -> String {
    let cut: String = s.chars().take(200).collect();
    envelope::display::shown(&cut).into_owned()
}

#[cfg(test)]
mod tests {
    use super::ResultBlock;
    use serde_json::json;

    #[test]
    fn blocks_read_as_images_and_cards() {
        assert_eq!(ResultBlock::read(&json!({"type": "text", "text": "hi"})), None);
        let png =
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}});
        assert_eq!(
            ResultBlock::read(&png),
            Some(ResultBlock::Image { url: "data:image/png;base64,iVBORw0KGgo=".into() })
        );
        let svg =
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/svg+xml", "data": "PHN2Zz4="}});
        assert!(matches!(ResultBlock::read(&svg), Some(ResultBlock::Card { .. })));
        let quote = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "a\"b"}});
        assert!(matches!(ResultBlock::read(&quote), Some(ResultBlock::Card { .. })), "not base64: not a URL");
        let remote = json!({"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}});
        assert_eq!(ResultBlock::read(&remote), Some(ResultBlock::Image { url: "https://example.com/a.png".into() }));
        let js = json!({"type": "image", "source": {"type": "url", "url": "javascript:alert(1)"}});
        assert!(matches!(ResultBlock::read(&js), Some(ResultBlock::Card { .. })));
        let doc = json!({"type": "document", "title": "Spec", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBE"}});
        assert_eq!(
            ResultBlock::read(&doc),
            Some(ResultBlock::Card {
                kind: "document".into(),
                title: Some("Spec".into()),
                detail: Some("application/pdf".into())
            })
        );
    }
}
