use crate::components::icons::{Ico, Icon};
use envelope::Document;
use leptos::prelude::*;

use crate::components::panel::Toggle;
use crate::components::rich::VarText;

/// `2.3 MB`, `512 B`, in decimal units as file managers show them.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KB", "MB", "GB", "TB", "PB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1000.0;
    let mut unit = 0;
    while v >= 999.95 && unit < UNITS.len() - 1 {
        v /= 1000.0;
        unit += 1;
    }
    format!("{} {}", envelope::display::decimal(v, 1), UNITS[unit])
}

/// The icon of a file by its MIME type.
fn file_icon(mime: &str) -> Icon {
    let m = mime.to_ascii_lowercase();
    if m.starts_with("image/") {
        Icon::FileImage
    } else if m.starts_with("audio/") {
        Icon::FileAudio
    } else if m.starts_with("video/") {
        Icon::FileVideo
    } else if m.contains("spreadsheet") || m.contains("csv") || m.contains("excel") {
        Icon::FileSpreadsheet
    } else if m.contains("zip") || m.contains("tar") || m.contains("compressed") {
        Icon::FileArchive
    } else if m.contains("json") || m.contains("javascript") || m.contains("xml") || m.contains("x-") {
        Icon::FileCode
    } else if m.starts_with("text/") || m.contains("pdf") || m.contains("word") || m.contains("document") {
        Icon::FileText
    } else {
        Icon::File
    }
}

/// An uploaded file: a card with an icon by type, name, size, where the
/// provider finds it (URL, file id; its bytes are kept, not shown) and
/// snippet; the parsed content the model reads unfolds.
#[component]
pub fn DocumentSegment(segment: Document) -> impl IntoView {
    let toggle = Toggle::new(false);
    let open = toggle.open;
    let parsed = segment.parsed_content.clone().filter(|p| !p.is_empty());
    let has_parsed = parsed.is_some();
    view! {
        <div class="seg seg-doc" data-kind="document">
            <div class="doc-card">
                <span class="doc-icon" aria-hidden="true"><Ico icon=file_icon(&segment.mime_type) size="2em"/></span>
                <div class="doc-meta">
                    <div class="doc-name">{segment.file_name.clone()}</div>
                    <div class="doc-sub">
                        <span>{segment.mime_type.clone()}</span>" · "
                        <span title=format!("{} bytes", segment.size_bytes)>{human_size(segment.size_bytes)}</span>
                    </div>
                    {segment.url.clone().map(|u| view! {
                        <div class="doc-ref"><span class="label">"URL "</span><span class="doc-ref-val">{envelope::display::shown(&u).into_owned()}</span></div>
                    })}
                    {segment.file_id.clone().map(|f| view! {
                        <div class="doc-ref"><span class="label">"File id "</span><span class="doc-ref-val">{envelope::display::shown(&f).into_owned()}</span></div>
                    })}
                    {segment.data.as_ref().map(|d| {
                        let sniffed = envelope::sniff::mismatch(Some(&segment.mime_type), envelope::sniff::sniff_base64(d));
                        view! {
                            <div class="doc-ref doc-data" data-testid="doc-data">
                                {format!("base64 data kept · {} (not shown)", crate::format::count(d.len(), "char"))}
                            </div>
                            {sniffed.map(|a| view! {
                                <div class="media-sniffed" data-testid="media-sniffed">
                                    {format!("The bytes are {} ({}), not the declared type.", a.name, a.mime)}
                                </div>
                            })}
                        }
                    })}
                    <p class="doc-snippet"><VarText text=segment.snippet.clone()/></p>
                </div>
            </div>
            {has_parsed.then(|| view! {
                <button type="button" class="doc-toggle" aria-expanded=toggle.aria() on:click=move |_| toggle.flip()>
                    {move || if open.get() { "Hide parsed content" } else { "Show parsed content (what the model reads)" }}
                </button>
            })}
            {move || open.get().then(|| parsed.clone()).flatten().map(|p| view! {
                <div class="doc-parsed" tabindex="0" role="region" aria-label="Parsed text"><VarText text=p class="pre"/></div>
            })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::human_size;

    #[test]
    fn sizes() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(999), "999 B");
        assert_eq!(human_size(1000), "1.0 KB");
        assert_eq!(human_size(2_411_724), "2.4 MB");
        assert_eq!(human_size(2_300_000), "2.3 MB");
        assert_eq!(human_size(999_990), "1.0 MB");
        assert_eq!(human_size(u64::MAX), "18446.7 PB");
    }
}
