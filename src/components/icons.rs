//! Icons (Lucide, from icondata). Each icon is defined once, as an SVG
//! `<symbol>` in a hidden sprite at the top of the page, and used by
//! reference: a page with thousands of icons parses no SVG markup per icon.
//!
//! The sprite is static markup in `index.html` (between `<!-- icons:begin -->`
//! and `<!-- icons:end -->`), built from icondata's constants by
//! [`sprite_markup`] and kept equal to it by a native test: the browser parses
//! it while the app's WebAssembly downloads, and neither the markup nor the
//! code that builds it is in the module (issue 11). No envelope string is ever
//! in it. Run `PEP_WRITE_SPRITE=1 cargo test -p pep-app --lib icons` after
//! changing [`ICONS`].
//! (Building it symbol by symbol with `leptos_icons::Symbol` cost about a
//! third of the app's start-up: a template parse and clone per icon; then one
//! `innerHTML` in `main()` cost ~4 ms.)

use leptos::prelude::*;

/// Every icon the app uses, by name.
#[cfg(not(target_arch = "wasm32"))]
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
#[cfg(not(target_arch = "wasm32"))]
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
#[cfg(not(target_arch = "wasm32"))]
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

/// An icon from the sprite (in `index.html`), 1em square unless `size` says otherwise.
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

#[cfg(all(test, not(target_arch = "wasm32")))]
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

    /// `index.html` carries the sprite `sprite_markup()` makes, byte for byte.
    #[test]
    fn index_html_has_the_sprite() {
        const BEGIN: &str = "<!-- icons:begin -->";
        const END: &str = "<!-- icons:end -->";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("index.html");
        let html = std::fs::read_to_string(&path).unwrap();
        let (Some(b), Some(e)) = (html.find(BEGIN), html.find(END)) else {
            panic!("index.html has no {BEGIN} … {END} block for the icon sprite");
        };
        let want = super::sprite_markup();
        let have = &html[b + BEGIN.len()..e];
        if have != want {
            if std::env::var_os("PEP_WRITE_SPRITE").is_some() {
                let out = format!("{}{want}{}", &html[..b + BEGIN.len()], &html[e..]);
                std::fs::write(&path, out).unwrap();
            } else {
                panic!("index.html's icon sprite differs from icons::ICONS: run `PEP_WRITE_SPRITE=1 cargo test -p pep-app --lib icons`");
            }
        }
    }

    /// Every `<Ico name="…"/>` in the app names an icon of the sprite.
    #[test]
    fn used_names_are_in_the_sprite() {
        fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("icons.rs") {
                    out.push(std::fs::read_to_string(p).unwrap());
                }
            }
        }
        let mut files = Vec::new();
        walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
        let mut used = 0;
        for text in &files {
            for part in text.split("<Ico name=\"").skip(1) {
                let name = &part[..part.find('"').unwrap()];
                assert!(ICONS.iter().any(|i| i.0 == name), "<Ico name=\"{name}\"> is not in icons::ICONS");
                used += 1;
            }
        }
        assert!(used > 20, "found only {used} uses of <Ico name=…>");
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = ICONS.iter().map(|i| i.0).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ICONS.len());
    }
}
