//! UI preferences: stored under a versioned key, as signals whose every
//! change is written back.

use envelope::export::Target;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::session::Session;
use crate::browser::{self, Theme};

/// Storage key of UI preferences.
pub const PREFS_KEY: &str = "pep/v1/prefs";

/// Which view of the protocol panel is open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tab {
    #[default]
    Openai,
    Raw,
    Budget,
    Checks,
}

/// UI preferences, persisted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PrefsData {
    /// The colour theme, `None` to follow the system. Stored as `"light"`,
    /// `"dark"` or `null`; anything else reads as `None` (not as unreadable
    /// preferences).
    #[serde(deserialize_with = "theme_or_none")]
    pub theme: Option<Theme>,
    /// Width of the conversation pane, percent of the window.
    pub split: f64,
    pub tab: Tab,
    /// The export tab's format (`Target::code`); an unknown one reads as
    /// OpenAI Chat.
    pub export: String,
    /// Remote media loads in every document without asking ("Always for
    /// this browser").
    pub remote_media: bool,
    /// The Checks tab's settings (`pep.toml`'s top level) as saved: read
    /// with `worker::lint::settings_from_saved` when the Checks tab needs
    /// them, so that start-up holds no code that reads them (issue 11).
    pub checks: serde_json::Value,
}

impl Default for PrefsData {
    fn default() -> Self {
        PrefsData {
            theme: None,
            split: 58.0,
            tab: Tab::Openai,
            export: Target::OpenaiChat.code().into(),
            remote_media: false,
            checks: serde_json::Value::Null,
        }
    }
}

/// A stored theme: `"light"`, `"dark"`, or anything else (`null`, a value a
/// newer version wrote) as `None`, following the system.
fn theme_or_none<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Theme>, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Ok(Theme::deserialize(value).ok())
}

/// Preferences as signals; every change is written back.
#[derive(Clone, Copy)]
pub struct Prefs {
    pub theme: RwSignal<Option<Theme>>,
    pub split: RwSignal<f64>,
    pub tab: RwSignal<Tab>,
    /// The format the export tab shows, copies and downloads.
    pub export: RwSignal<Target>,
    /// Remote media without asking, in every document.
    pub remote_media: RwSignal<bool>,
    /// The Checks tab's settings, as saved (see [`PrefsData::checks`]).
    pub checks: RwSignal<serde_json::Value>,
}

impl Prefs {
    /// Loads preferences (defaults when missing or corrupt, with a notice) and
    /// keeps storage in sync with them.
    pub fn init(session: Session) -> Prefs {
        let data = match browser::load::<PrefsData>(PREFS_KEY) {
            Ok(d) => d.unwrap_or_default(),
            Err(e) => {
                session.notify(format!("Saved preferences were unreadable ({e}); using defaults."), true);
                PrefsData::default()
            }
        };
        let prefs = Prefs {
            theme: RwSignal::new(data.theme),
            split: RwSignal::new(data.split.clamp(20.0, 80.0)),
            tab: RwSignal::new(data.tab),
            export: RwSignal::new(Target::from_code(&data.export).unwrap_or(Target::OpenaiChat)),
            remote_media: RwSignal::new(data.remote_media),
            checks: RwSignal::new(data.checks),
        };
        // Saved on every change; a failure is reported once, not once per
        // change (dragging the divider changes `split` on every pointer move).
        let failing = StoredValue::new(false);
        Effect::new(move |_| {
            let theme = prefs.theme.get();
            browser::apply_theme(theme);
            let data = PrefsData {
                theme,
                split: prefs.split.get(),
                tab: prefs.tab.get(),
                export: prefs.export.get().code().into(),
                remote_media: prefs.remote_media.get(),
                checks: prefs.checks.get(),
            };
            match browser::save(PREFS_KEY, &data) {
                Ok(()) => failing.set_value(false),
                Err(e) => {
                    if !failing.get_value() {
                        session.notify(format!("Preferences could not be saved: {e}"), true);
                    }
                    failing.set_value(true);
                }
            }
        });
        prefs
    }

    pub fn expect() -> Self {
        expect_context::<Prefs>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The theme was stored as a string (`"light"`, `"dark"`, `null` or
    /// absent: follow the system); it reads as the enum and is written the
    /// same way. A value this version does not know follows the system
    /// instead of making every preference unreadable.
    #[test]
    fn the_theme_reads_and_writes_its_stored_strings() {
        for (stored, theme) in [
            (r#"{"theme":"dark","split":58.0}"#, Some(Theme::Dark)),
            (r#"{"theme":"light"}"#, Some(Theme::Light)),
            (r#"{"theme":null}"#, None),
            (r#"{"split":40.0}"#, None),
            (r#"{"theme":"sepia","tab":"raw"}"#, None),
            (r#"{"theme":7}"#, None),
        ] {
            let read: PrefsData = serde_json::from_str(stored).unwrap_or_else(|e| panic!("{stored}: {e}"));
            assert_eq!(read.theme, theme, "{stored}");
        }
        let unknown: PrefsData = serde_json::from_str(r#"{"theme":"sepia","tab":"raw"}"#).unwrap();
        assert_eq!(unknown.tab, Tab::Raw, "the other preferences still read");
        for (theme, json) in [(Some(Theme::Dark), r#""dark""#), (Some(Theme::Light), r#""light""#), (None, "null")] {
            let written = serde_json::to_value(PrefsData { theme, ..PrefsData::default() }).unwrap();
            assert_eq!(written["theme"].to_string(), json);
            assert_eq!(serde_json::from_value::<PrefsData>(written).unwrap().theme, theme);
        }
    }

    #[test]
    fn preferences_saved_before_the_export_picker_still_load() {
        let old: PrefsData = serde_json::from_str(r#"{"theme":"dark","split":40.0,"tab":"raw"}"#).unwrap();
        assert_eq!(old.tab, Tab::Raw);
        assert_eq!(old.export, "openai");
        let new: PrefsData = serde_json::from_str(r#"{"tab":"openai","export":"curl-anthropic"}"#).unwrap();
        assert_eq!(Target::from_code(&new.export), Some(Target::CurlAnthropic));
        use crate::worker::lint::{settings_from_saved, settings_to_saved, Settings};
        assert_eq!(settings_from_saved(&new.checks), Ok(Settings::default()), "preferences from before the Checks tab");
        let with: PrefsData =
            serde_json::from_str(r#"{"tab":"checks","checks":{"sensitive_words":["acme"],"max_tokens":900}}"#).unwrap();
        let read = settings_from_saved(&with.checks).unwrap();
        assert_eq!(
            (with.tab, read.sensitive_words.as_slice(), read.max_tokens),
            (Tab::Checks, &["acme".to_string()][..], Some(900))
        );
        assert_eq!(settings_from_saved(&settings_to_saved(&read)), Ok(read), "written back as read");
        // Settings a newer or damaged version saved no longer make every
        // preference unreadable: only the Checks tab says so.
        let bad: PrefsData = serde_json::from_str(r#"{"theme":"dark","checks":{"max_tokens":"many"}}"#).unwrap();
        assert_eq!(bad.theme, Some(Theme::Dark));
        let e = settings_from_saved(&bad.checks).unwrap_err();
        assert!(e.contains("could not be read"), "{e}");
    }
}
