use crate::components::icons::{Ico, Icon};
use envelope::validate::media_url_ok;
use envelope::{Media, MediaType};
use leptos::prelude::*;

use crate::state::RemoteConsent;

/// Whether a URL may be a `src` here: what validation allows (http(s), or
/// `data:image/…` for images), except `data:` audio and video, which get an
/// icon card rather than a player.
pub fn src_allowed(media_type: MediaType, url: &str) -> bool {
    media_url_ok(media_type, url)
        && (media_type == MediaType::Image
            || !url.trim_start().get(..5).is_some_and(|s| s.eq_ignore_ascii_case("data:")))
}

/// Images as thumbnails (an icon card when they fail to load); audio and
/// video with the native player for http(s) URLs, else an icon card.
#[component]
pub fn MediaSegment(segment: Media) -> impl IntoView {
    let Media { media_type, url, alt_text, .. } = segment;
    view! {
        <div class="seg seg-media" data-kind="media" data-media-type=media_type.as_str()>
            <MediaView media_type url alt=alt_text.unwrap_or_default()/>
        </div>
    }
}

/// One image, audio or video by URL, as [`MediaSegment`] shows it (also a
/// tool result's image blocks): remote media held until the user consents.
#[component]
pub fn MediaView(
    media_type: MediaType,
    /// The URL as written (http(s) or `data:`).
    url: String,
    /// The alternative text (empty: none).
    alt: String,
) -> impl IntoView {
    let failed = RwSignal::new(false);
    let icon = match media_type {
        MediaType::Image => Icon::ImageOff,
        MediaType::Audio => Icon::Music,
        MediaType::Video => Icon::Video,
    };
    let allowed = src_allowed(media_type, &url);
    let inline = InlineData::read(&url);
    // Remote media waits for the user's consent (state::RemoteConsent):
    // until then no `src` points at another host.
    let remote = allowed && envelope::markdown::is_remote(&url);
    let consent = RemoteConsent::expect();
    let card = {
        let (url, alt) = (inline.as_ref().map_or_else(|| url.clone(), |d| d.label.clone()), alt.clone());
        let inline = inline.clone();
        move || {
            view! {
                <div class="media-card">
                    <Ico icon=icon size="1.6em"/>
                    <div>
                        <div class="media-type">{media_type.as_str()}</div>
                        <div class="media-url">{url.clone()}</div>
                        {(!alt.is_empty()).then(|| view! { <div class="media-alt">{alt.clone()}</div> })}
                        {mismatch_note(&inline)}
                    </div>
                </div>
            }
        }
    };
    let (held_url, held_alt) = (url.clone(), alt.clone());
    let held = move || {
        view! {
            <div class="media-card media-held" data-testid="media-held">
                <Ico icon=icon size="1.6em"/>
                <div>
                    <div class="media-type">{format!("Remote {} not loaded", media_type.as_str())}</div>
                    <div class="media-url">{envelope::remote::host(&held_url)}</div>
                    {(!held_alt.is_empty()).then(|| view! { <div class="media-alt">{held_alt.clone()}</div> })}
                    <button type="button" class="btn small" on:click=move |_| consent.allow_this()>"Load remote media"</button>
                </div>
            </div>
        }
    };
    let build = move || match (media_type, allowed) {
        (MediaType::Image, true) => {
            let (url, alt, card, inline) = (url.clone(), alt.clone(), card.clone(), inline.clone());
            view! {
                {move || if failed.get() {
                    card().into_any()
                } else {
                    view! {
                        <figure class="media-image">
                            <img src=url.clone() alt=alt.clone() loading="lazy" referrerpolicy="no-referrer"
                                on:error=move |_| failed.set(true)/>
                            {(!alt.is_empty()).then(|| view! { <figcaption>{alt.clone()}</figcaption> })}
                            {mismatch_note(&inline)}
                        </figure>
                    }.into_any()
                }}
            }
            .into_any()
        }
        (MediaType::Audio, true) => view! {
            <div class="media-player">
                <audio controls=true preload="none" src=url.clone()></audio>
                {card()}
            </div>
        }
        .into_any(),
        (MediaType::Video, true) => view! {
            <div class="media-player">
                <video controls=true preload="none" src=url.clone()></video>
                {card()}
            </div>
        }
        .into_any(),
        _ => card().into_any(),
    };
    move || if !remote || consent.allowed() { build().into_any() } else { held().into_any() }
}

/// A `data:` URL as the page shows it: never its base64 text, but its
/// declared type and size, and the type its bytes have when that differs.
#[derive(Clone, Debug, PartialEq)]
struct InlineData {
    /// "data: image/png · 12.3 KB".
    label: String,
    /// "The bytes are JPEG (image/jpeg), not image/png as declared."
    mismatch: Option<String>,
}

impl InlineData {
    fn read(url: &str) -> Option<InlineData> {
        let d = envelope::sniff::data_url(url)?;
        let declared = d.declared.map(|t| envelope::display::shown(t).into_owned());
        let label = format!(
            "data: {} · {}",
            declared.as_deref().unwrap_or("no declared type"),
            crate::components::segments::document::human_size(d.byte_len() as u64)
        );
        let mismatch = d.mismatch().map(|a| match &declared {
            Some(t) => format!("The bytes are {} ({}), not {t} as declared.", a.name, a.mime),
            None => format!("The bytes are {} ({}).", a.name, a.mime),
        });
        Some(InlineData { label, mismatch })
    }
}

fn mismatch_note(inline: &Option<InlineData>) -> Option<impl IntoView> {
    let note = inline.as_ref()?.mismatch.clone()?;
    Some(view! { <div class="media-sniffed" data-testid="media-sniffed">{note}</div> })
}

#[cfg(test)]
mod tests {
    use super::InlineData;

    #[test]
    fn inline_data_is_labelled_never_shown() {
        // A JPEG declared as PNG, 18 bytes.
        let url = "data:image/png;base64,/9j/4AAQSkZJRgABAQEASABI";
        let d = InlineData::read(url).unwrap();
        assert_eq!(d.label, "data: image/png · 18 B");
        assert_eq!(d.mismatch.as_deref(), Some("The bytes are JPEG (image/jpeg), not image/png as declared."));
        assert!(!d.label.contains("/9j/"));
        let ok = InlineData::read("data:image/jpeg;base64,/9j/4AAQSkZJRgABAQEASABI").unwrap();
        assert_eq!(ok.mismatch, None);
        assert_eq!(InlineData::read("https://example.com/a.png"), None);
    }
}
