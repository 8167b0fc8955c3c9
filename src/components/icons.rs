//! Icons (Lucide, from icondata). [`Icon`] is the list: one variant per
//! icon and its icondata constant, written once in [`icons!`]. A view names an
//! icon as `<Ico icon=Icon::Braces/>`, so a misspelt or missing icon does not
//! compile, and the enum is crate-private with `#[deny(dead_code)]`, so an
//! icon no view uses does not compile either: the module holds the markup of
//! the icons the views use and no other.
//!
//! Each icon is one `<svg>` holding one `<path>`: icondata's shapes (paths,
//! circles, lines, rectangles) joined into a single path's data by a native
//! test, which writes them to `icons/paths.rs` (`Icon::d`) and fails when that
//! file differs from icondata's icons (`PEP_WRITE_ICONS=1 cargo test -p
//! pep-app --lib icons` regenerates it). Every Lucide icon has the same
//! viewBox and stroke, so those are the `.ico` class's (style/main.css). An
//! icon is two elements, whatever its number of shapes: the first screen
//! styles, lays out and paints each of its ~30 icons (D195).
//! (Until D195 the icons were `<symbol>`s of a sprite in `index.html`, each
//! drawn by a `<use>`, whose shadow copy of the symbol cost the first screen
//! more than the markup it saved; before that, a sprite built in `main()`
//! cost ~4 ms, and `leptos_icons::Symbol` a template parse and clone per icon.)

use leptos::prelude::*;

mod paths;

/// Defines [`Icon`] and (for the native tests) `ALL`.
/// `ALL` names the icondata constants without making an `Icon`, so the
/// dead-code lint sees only the views' uses.
macro_rules! icons {
    ($($variant:ident = $name:literal => $data:ident,)*) => {
        /// Every icon the app uses.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[deny(dead_code)]
        pub(crate) enum Icon {
            $($variant,)*
        }

        /// Every icon: (its name in kebab case, variant's name, icondata's icon).
        #[cfg(all(test, not(target_arch = "wasm32")))]
        const ALL: &[(&str, &str, icondata::Icon)] = &[
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

/// An icon, 1em square unless `size` says otherwise.
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
        <svg class="ico" viewBox="0 0 24 24" width=size height=size aria-hidden="true" focusable="false">
            <path d=icon.d()></path>
        </svg>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::ALL;

    /// What `.ico` (style/main.css) and `Ico`'s viewBox stand for: every
    /// icon is a 24-unit square drawn with a round 2-unit stroke in the
    /// text's colour and no fill. (That its shapes carry nothing but geometry,
    /// so that one path can stand for all of them, is `single_path`'s check,
    /// run on every icon by `the_generated_paths_are_icondatas`.)
    #[test]
    fn every_icon_has_the_shared_frame() {
        for &(name, _, icon) in ALL {
            assert_eq!(icon.view_box, Some("0 0 24 24"), "{name}");
            assert_eq!(icon.stroke_linecap, Some("round"), "{name}");
            assert_eq!(icon.stroke_linejoin, Some("round"), "{name}");
            assert_eq!(icon.stroke_width, Some("2"), "{name}");
            assert_eq!(icon.stroke, Some("currentColor"), "{name}");
            assert!(matches!(icon.fill, None | Some("none")), "{name}: {:?}", icon.fill);
            assert_eq!((icon.x, icon.y, icon.style), (None, None, None), "{name}");
        }
    }

    /// The shapes of an icon's markup as one path's data. A path whose data
    /// starts with a relative moveto gets `M0 0` first: alone, its `m` is
    /// absolute; after another path's data it would be relative to where that
    /// one ended (a lone moveto draws nothing).
    fn single_path(markup: &str) -> Result<String, String> {
        let mut out = String::new();
        for tag in markup.split('<').skip(1) {
            let tag = tag.split('>').next().unwrap_or("").trim_end_matches('/').trim();
            if tag.starts_with('/') {
                continue;
            }
            let (kind, rest) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
            let mut attrs = std::collections::BTreeMap::new();
            let mut rest = rest.trim();
            while !rest.is_empty() {
                let (key, after) = rest.split_once("=\"").ok_or(format!("<{kind}>: {rest}"))?;
                let (value, after) = after.split_once('"').ok_or(format!("<{kind}>: {rest}"))?;
                attrs.insert(key.trim(), value);
                rest = after.trim();
            }
            let known: &[&str] = match kind {
                "path" => &["d"],
                "circle" => &["cx", "cy", "r"],
                "line" => &["x1", "y1", "x2", "y2"],
                "rect" => &["x", "y", "width", "height", "rx", "ry"],
                _ => return Err(format!("<{kind}> is not a shape this converter knows")),
            };
            if let Some(k) = attrs.keys().find(|k| !known.contains(k)) {
                return Err(format!("<{kind}> has {k}=, which one path cannot carry"));
            }
            let num = |k: &str, default: Option<f64>| -> Result<f64, String> {
                match attrs.get(k) {
                    Some(v) => v.parse::<f64>().map_err(|_| format!("<{kind}> {k}={v}")),
                    None => default.ok_or(format!("<{kind}> has no {k}")),
                }
            };
            match kind {
                "path" => {
                    let d = attrs.get("d").ok_or("<path> has no d")?.trim();
                    if d.starts_with('m') && !out.is_empty() {
                        out.push_str("M0 0");
                    }
                    out.push_str(d);
                }
                "circle" => {
                    let (cx, cy, r) = (num("cx", None)?, num("cy", None)?, num("r", None)?);
                    out.push_str(&format!(
                        "M{} {}a{} {} 0 1 0 {} 0a{} {} 0 1 0 {} 0z",
                        n(cx - r),
                        n(cy),
                        n(r),
                        n(r),
                        n(2.0 * r),
                        n(r),
                        n(r),
                        n(-2.0 * r)
                    ));
                }
                "line" => {
                    let (x1, y1, x2, y2) = (num("x1", None)?, num("y1", None)?, num("x2", None)?, num("y2", None)?);
                    out.push_str(&format!("M{} {}L{} {}", n(x1), n(y1), n(x2), n(y2)));
                }
                _ => {
                    let (x, y, w, h) =
                        (num("x", Some(0.0))?, num("y", Some(0.0))?, num("width", None)?, num("height", None)?);
                    // A radius not given is the other one's (SVG's rule), else 0.
                    let radius = |k: &str, other: &str| {
                        if attrs.contains_key(k) {
                            num(k, None)
                        } else {
                            num(other, Some(0.0))
                        }
                    };
                    let (rx, ry) = (radius("rx", "ry")?.min(w / 2.0), radius("ry", "rx")?.min(h / 2.0));
                    if rx == 0.0 || ry == 0.0 {
                        out.push_str(&format!("M{} {}h{}v{}h{}z", n(x), n(y), n(w), n(h), n(-w)));
                    } else {
                        let arc = |dx: f64, dy: f64| format!("a{} {} 0 0 1 {} {}", n(rx), n(ry), n(dx), n(dy));
                        out.push_str(&format!(
                            "M{} {}h{}{}v{}{}h{}{}v{}{}z",
                            n(x + rx),
                            n(y),
                            n(w - 2.0 * rx),
                            arc(rx, ry),
                            n(h - 2.0 * ry),
                            arc(-rx, ry),
                            n(-(w - 2.0 * rx)),
                            arc(-rx, -ry),
                            n(-(h - 2.0 * ry)),
                            arc(rx, -ry)
                        ));
                    }
                }
            }
        }
        if out.is_empty() {
            return Err("no shapes".into());
        }
        Ok(out)
    }

    /// A number as path data writes it: no trailing zeros, at most 4 decimals.
    fn n(v: f64) -> String {
        let s = format!("{:.4}", v);
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" {
            "0".to_string()
        } else {
            s.to_string()
        }
    }

    #[test]
    fn shapes_become_one_path() {
        assert_eq!(
            single_path(r#"<path d="M12 5v14" />\n<path d="m19 12-7 7-7-7" />"#).unwrap(),
            "M12 5v14M0 0m19 12-7 7-7-7"
        );
        assert_eq!(single_path(r#"<path d="m5 12 7-7 7 7" />"#).unwrap(), "m5 12 7-7 7 7");
        assert_eq!(single_path(r#"<circle cx="12" cy="7" r="4" />"#).unwrap(), "M8 7a4 4 0 1 0 8 0a4 4 0 1 0 -8 0z");
        assert_eq!(single_path(r#"<line x1="15" x2="9" y1="9" y2="15" />"#).unwrap(), "M15 9L9 15");
        assert_eq!(
            single_path(r#"<rect width="16" height="12" x="4" y="8" rx="2" />"#).unwrap(),
            "M6 8h12a2 2 0 0 1 2 2v8a2 2 0 0 1 -2 2h-12a2 2 0 0 1 -2 -2v-8a2 2 0 0 1 2 -2z"
        );
        assert_eq!(single_path(r#"<rect width="4" height="2" />"#).unwrap(), "M0 0h4v2h-4z");
        assert_eq!(n(2.5), "2.5");
        assert_eq!(n(0.30000000000000004), "0.3");
        assert!(single_path(r#"<path d="M1 1" fill="currentColor" />"#).unwrap_err().contains("fill="));
        assert!(single_path(r#"<polyline points="1 2 3 4" />"#).is_err());
    }

    /// `icons/paths.rs` is what [`single_path`] makes of icondata's icons.
    #[test]
    fn the_generated_paths_are_icondatas() {
        let mut want = String::from(
            "//! Generated by `PEP_WRITE_ICONS=1 cargo test -p pep-app --lib icons` from\n\
             //! icondata's Lucide icons (`components/icons.rs`): each icon's shapes as one\n\
             //! path's data. Do not edit.\n\n\
             use super::Icon;\n\n\
             impl Icon {\n    \
             /// Its shapes as one path's data, in a 24-unit square.\n    \
             pub(crate) const fn d(self) -> &'static str {\n        \
             match self {\n",
        );
        for &(name, variant, icon) in ALL {
            let d = single_path(icon.data).unwrap_or_else(|e| panic!("{name}: {e}"));
            want.push_str(&format!("            Icon::{variant} => \"{d}\",\n"));
        }
        want.push_str("        }\n    }\n}\n");
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/components/icons/paths.rs");
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            if std::env::var_os("PEP_WRITE_ICONS").is_some() {
                std::fs::write(&path, want).unwrap();
            } else {
                panic!("src/components/icons/paths.rs differs from icondata's icons: run `PEP_WRITE_ICONS=1 cargo test -p pep-app --lib icons`");
            }
        }
    }

    /// Each name is its variant's name in kebab case (`ChevronsDownUp` →
    /// `chevrons-down-up`), so names are unique as the variants are.
    #[test]
    fn names_are_the_variants_in_kebab_case() {
        for &(name, variant, _) in ALL {
            let mut kebab = String::new();
            for c in variant.chars() {
                if c.is_ascii_uppercase() && !kebab.is_empty() {
                    kebab.push('-');
                }
                kebab.push(c.to_ascii_lowercase());
            }
            assert_eq!(name, kebab, "Icon::{variant}");
        }
        let mut names: Vec<&str> = ALL.iter().map(|i| i.0).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
    }
}
