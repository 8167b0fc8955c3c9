//! Application state: a few signals in newtype contexts, and persistence
//! under versioned localStorage keys (a corrupt or missing value is never
//! fatal: the app starts with defaults and says so).
//!
//! One file per context: `session` (the document on screen and the user's,
//! opening and importing, failures and notices), `stored` (the user's
//! document as stored), `prefs` (UI preferences), `expansion` (open/closed
//! panels), `remote_consent` (whether remote media may load), `skills` (SKILL.md
//! files and folders handed to the Skills page).

mod expansion;
mod prefs;
mod remote_consent;
mod session;
mod skills;
mod stored;
mod template_inbox;

pub use expansion::{Expansion, ExpansionState, Order, ToggleKey};
pub use prefs::{Prefs, PrefsData, Tab, PREFS_KEY};
pub use remote_consent::RemoteConsent;
pub use session::{
    set_opening_here, Input, LoadFailure, Loading, Notice, Retry, Session, DOC_KEY, LOADING_STEPS, OPENING_KEY,
    STAGED_FROM,
};
pub use skills::{dropped as skills_dropped, is_skill, SkillsInbox, SkillsInput};
pub use stored::StoredDocument;
pub use template_inbox::TemplateInbox;
