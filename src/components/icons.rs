//! Icons (Lucide, from icondata). Each icon is defined once, as an SVG
//! `<symbol>` in a hidden sprite at the top of the page, and used by
//! reference: a page with thousands of icons parses no SVG markup per icon.

use leptos::prelude::*;
use leptos_icons::Symbol;

/// Every icon the app uses, by name.
pub const ICONS: &[(&str, icondata::Icon)] = &[
    ("bot", icondata::LuBot),
    ("braces", icondata::LuBraces),
    ("brain", icondata::LuBrain),
    ("chevron-right", icondata::LuChevronRight),
    ("chevrons-down-up", icondata::LuChevronsDownUp),
    ("chevrons-up-down", icondata::LuChevronsUpDown),
    ("circle-check", icondata::LuCircleCheck),
    ("circle-x", icondata::LuCircleX),
    ("clipboard-paste", icondata::LuClipboardPaste),
    ("cog", icondata::LuCog),
    ("copy", icondata::LuCopy),
    ("download", icondata::LuDownload),
    ("file", icondata::LuFile),
    ("file-archive", icondata::LuFileArchive),
    ("file-audio", icondata::LuFileAudio),
    ("file-code", icondata::LuFileCode),
    ("file-image", icondata::LuFileImage),
    ("file-spreadsheet", icondata::LuFileSpreadsheet),
    ("file-text", icondata::LuFileText),
    ("file-video", icondata::LuFileVideo),
    ("folder-open", icondata::LuFolderOpen),
    ("hammer", icondata::LuHammer),
    ("image-off", icondata::LuImageOff),
    ("info", icondata::LuInfo),
    ("music", icondata::LuMusic),
    ("sparkles", icondata::LuSparkles),
    ("sun-moon", icondata::LuSunMoon),
    ("terminal", icondata::LuTerminal),
    ("triangle-alert", icondata::LuTriangleAlert),
    ("user", icondata::LuUser),
    ("variable", icondata::LuVariable),
    ("video", icondata::LuVideo),
    ("wrench", icondata::LuWrench),
];

/// The sprite: render once, before any [`Ico`].
#[component]
pub fn IconSprite() -> impl IntoView {
    ICONS.iter().map(|&(name, icon)| view! { <Symbol id=format!("i-{name}") icon/> }).collect::<Vec<_>>()
}

/// An icon from the sprite, 1em square unless `size` says otherwise.
#[component]
pub fn Ico(
    /// Its name in [`ICONS`].
    name: &'static str,
    /// CSS size, e.g. `"2em"`.
    #[prop(default = "1em")]
    size: &'static str,
) -> impl IntoView {
    view! {
        <svg class="ico" width=size height=size aria-hidden="true" focusable="false">
            <use_ href=format!("#i-{name}")></use_>
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::ICONS;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = ICONS.iter().map(|i| i.0).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ICONS.len());
    }
}
