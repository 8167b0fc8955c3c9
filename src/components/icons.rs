//! Icons (Lucide, from icondata). Each icon is defined once, as an SVG
//! `<symbol>` in a hidden sprite at the top of the page, and used by
//! reference: a page with thousands of icons parses no SVG markup per icon.
//!
//! [`Icon`] is the list: one variant per icon, its sprite id (`i-NAME`) and
//! its icondata constant written once in [`icons!`]. A view names an icon as
//! `<Ico icon=Icon::Braces/>`, so a misspelt or missing icon does not
//! compile, and the enum is crate-private with `#[deny(dead_code)]`, so an
//! icon no view uses does not compile either (remove it and regenerate the
//! sprite).
//!
//! The sprite is static markup in `index.html` (between `<!-- icons:begin -->`
//! and `<!-- icons:end -->`), built from icondata's constants by
//! [`sprite_markup`] and kept equal to it by a native test: the browser parses
//! it while the app's WebAssembly downloads, and neither the markup nor the
//! code that builds it is in the module (issue 11). No envelope string is ever
//! in it. Run `PEP_WRITE_SPRITE=1 cargo test -p pep-app --lib icons` after
//! adding or removing an icon.
//! (Building it symbol by symbol with `leptos_icons::Symbol` cost about a
//! third of the app's start-up: a template parse and clone per icon; then one
//! `innerHTML` in `main()` cost ~4 ms.)

use leptos::prelude::*;

/// Defines [`Icon`], its ids and (native only: the sprite is built by a
/// test, never in the module) [`SPRITE`], in the sprite's order. `SPRITE`
/// names the icondata constants without making an `Icon`, so the dead-code
/// lint sees only the views' uses.
macro_rules! icons {
    ($($variant:ident = $name:literal => $data:ident,)*) => {
        /// Every icon the app uses.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[deny(dead_code)]
        pub(crate) enum Icon {
            $($variant,)*
        }

        impl Icon {
            /// The `<use>` reference to its symbol: `#i-NAME`.
            pub(crate) const fn href(self) -> &'static str {
                match self {
                    $(Icon::$variant => concat!("#i-", $name),)*
                }
            }
        }

        /// The sprite's icons: (id without `i-`, variant's name, icondata's icon).
        #[cfg(not(target_arch = "wasm32"))]
        const SPRITE: &[(&str, &str, icondata::Icon)] = &[
            $(($name, stringify!($variant), icondata::$data),)*
        ];
    };
}

icons! {
    ArrowDown = "arrow-down" => LuArrowDown,
    ArrowUp = "arrow-up" => LuArrowUp,
    Bot = "bot" => LuBot,
    Braces = "braces" => LuBraces,
    Brain = "brain" => LuBrain,
    ChevronDown = "chevron-down" => LuChevronDown,
    ChevronRight = "chevron-right" => LuChevronRight,
    ChevronUp = "chevron-up" => LuChevronUp,
    ChevronsDownUp = "chevrons-down-up" => LuChevronsDownUp,
    ChevronsUpDown = "chevrons-up-down" => LuChevronsUpDown,
    CircleCheck = "circle-check" => LuCircleCheck,
    CircleX = "circle-x" => LuCircleX,
    ClipboardPaste = "clipboard-paste" => LuClipboardPaste,
    Cog = "cog" => LuCog,
    Copy = "copy" => LuCopy,
    Download = "download" => LuDownload,
    File = "file" => LuFile,
    FileArchive = "file-archive" => LuFileArchive,
    FileAudio = "file-audio" => LuFileAudio,
    FileCode = "file-code" => LuFileCode,
    FileImage = "file-image" => LuFileImage,
    FileSpreadsheet = "file-spreadsheet" => LuFileSpreadsheet,
    FileText = "file-text" => LuFileText,
    FileVideo = "file-video" => LuFileVideo,
    FolderOpen = "folder-open" => LuFolderOpen,
    Hammer = "hammer" => LuHammer,
    ImageOff = "image-off" => LuImageOff,
    Info = "info" => LuInfo,
    Link = "link" => LuLink,
    Pencil = "pencil" => LuPencil,
    Redo = "redo" => LuRedo2,
    Undo = "undo" => LuUndo2,
    List = "list" => LuList,
    ListFilter = "list-filter" => LuListFilter,
    MessageSquare = "message-square" => LuMessageSquare,
    Music = "music" => LuMusic,
    Search = "search" => LuSearch,
    Sparkles = "sparkles" => LuSparkles,
    SunMoon = "sun-moon" => LuSunMoon,
    Terminal = "terminal" => LuTerminal,
    TriangleAlert = "triangle-alert" => LuTriangleAlert,
    User = "user" => LuUser,
    Variable = "variable" => LuVariable,
    Video = "video" => LuVideo,
    Wrench = "wrench" => LuWrench,
}

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
    for &(name, _, icon) in SPRITE {
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
// `Icon` is crate-private (see `icons`); leptos makes the component's
// inner function `pub` whatever the component's own visibility.
#[allow(private_interfaces)]
#[component]
pub(crate) fn Ico(
    /// Which icon.
    icon: Icon,
    /// CSS size, e.g. `"2em"`.
    #[prop(default = "1em")]
    size: &'static str,
) -> impl IntoView {
    view! {
        <svg class="ico" width=size height=size aria-hidden="true" focusable="false">
            <use_ href=icon.href()></use_>
        </svg>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::SPRITE;

    #[test]
    fn sprite_attributes_are_plain_constants() {
        // The markup is built by concatenation: no value may need escaping.
        for &(name, _, icon) in SPRITE {
            assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{name}");
            for v in super::symbol_attributes(icon).into_iter().filter_map(|(_, v)| v) {
                assert!(!v.contains(['"', '<', '>', '&']), "{name}: {v}");
            }
        }
        let m = super::sprite_markup();
        assert_eq!(m.matches("<symbol ").count(), SPRITE.len());
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
                panic!("index.html's icon sprite differs from icons::Icon: run `PEP_WRITE_SPRITE=1 cargo test -p pep-app --lib icons`");
            }
        }
    }

    /// Each id is its variant's name in kebab case (`ChevronsDownUp` →
    /// `chevrons-down-up`), so ids are unique as the variants are.
    #[test]
    fn ids_are_the_variants_in_kebab_case() {
        for &(name, variant, _) in SPRITE {
            let mut kebab = String::new();
            for c in variant.chars() {
                if c.is_ascii_uppercase() && !kebab.is_empty() {
                    kebab.push('-');
                }
                kebab.push(c.to_ascii_lowercase());
            }
            assert_eq!(name, kebab, "Icon::{variant}");
        }
        let mut names: Vec<&str> = SPRITE.iter().map(|i| i.0).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), SPRITE.len());
    }
}
