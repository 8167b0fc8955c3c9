//! Icons (Lucide, from icondata). Each icon is defined once, as an SVG
//! `<symbol>` in a hidden sprite at the top of the page, and used by
//! reference: a page with thousands of icons parses no SVG markup per icon.
//!
//! The sprite is one string of markup built from icondata's constants and
//! parsed by the browser in one `innerHTML`: no envelope string is ever in it.
//! (Building it symbol by symbol with `leptos_icons::Symbol` cost about a
//! third of the app's start-up: a template parse and clone per icon.)

use leptos::prelude::*;

/// Every icon the app uses, by name.
pub const ICONS: &[(&str, icondata::Icon)] = &[
    ("arrow-down", icondata::LuArrowDown),
    ("arrow-up", icondata::LuArrowUp),
    ("bot", icondata::LuBot),
    ("braces", icondata::LuBraces),
    ("brain", icondata::LuBrain),
    ("chevron-down", icondata::LuChevronDown),
    ("chevron-right", icondata::LuChevronRight),
    ("chevron-up", icondata::LuChevronUp),
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
    ("link", icondata::LuLink),
    ("pencil", icondata::LuPencil),
    ("redo", icondata::LuRedo2),
    ("undo", icondata::LuUndo2),
    ("keyboard", icondata::LuKeyboard),
    ("list", icondata::LuList),
    ("list-filter", icondata::LuListFilter),
    ("message-square", icondata::LuMessageSquare),
    ("music", icondata::LuMusic),
    ("search", icondata::LuSearch),
    ("sparkles", icondata::LuSparkles),
    ("sun-moon", icondata::LuSunMoon),
    ("terminal", icondata::LuTerminal),
    ("triangle-alert", icondata::LuTriangleAlert),
    ("user", icondata::LuUser),
    ("variable", icondata::LuVariable),
    ("video", icondata::LuVideo),
    ("wrench", icondata::LuWrench),
];

/// The attributes of an icon's `<symbol>` (absent ones `None`).
fn symbol_attributes(icon: icondata::Icon) -> [(&'static str, Option<&'static str>); 9] {
    [
        ("viewBox", icon.view_box),
        ("x", icon.x),
        ("y", icon.y),
        ("style", icon.style),
        ("stroke-linecap", icon.stroke_linecap),
        ("stroke-linejoin", icon.stroke_linejoin),
        ("stroke-width", icon.stroke_width),
        ("stroke", icon.stroke),
        ("fill", Some(icon.fill.unwrap_or("currentColor"))),
    ]
}

/// The sprite's markup: an `<svg>` of one `<symbol id="i-NAME">` per icon.
pub fn sprite_markup() -> String {
    let mut out = String::with_capacity(16 * 1024);
    out.push_str(r#"<svg xmlns="http://www.w3.org/2000/svg" style="display:none">"#);
    for &(name, icon) in ICONS {
        out.push_str(r#"<symbol id="i-"#);
        out.push_str(name);
        out.push('"');
        for (key, value) in symbol_attributes(icon) {
            if let Some(v) = value {
                out.push(' ');
                out.push_str(key);
                out.push_str("=\"");
                out.push_str(v);
                out.push('"');
            }
        }
        out.push('>');
        out.push_str(icon.data);
        out.push_str("</symbol>");
    }
    out.push_str("</svg>");
    out
}

/// The sprite: render once, before any [`Ico`].
#[component]
pub fn IconSprite() -> impl IntoView {
    view! { <div class="icon-sprite" aria-hidden="true" inner_html=sprite_markup()></div> }
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
    fn sprite_attributes_are_plain_constants() {
        // The markup is built by concatenation: no value may need escaping.
        for &(name, icon) in ICONS {
            assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{name}");
            for v in super::symbol_attributes(icon).into_iter().filter_map(|(_, v)| v) {
                assert!(!v.contains(['"', '<', '>', '&']), "{name}: {v}");
            }
        }
        let m = super::sprite_markup();
        assert_eq!(m.matches("<symbol ").count(), ICONS.len());
        assert!(m.contains(r#"<symbol id="i-bot" viewBox="0 0 24 24""#), "{}", &m[..200]);
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = ICONS.iter().map(|i| i.0).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ICONS.len());
    }
}
