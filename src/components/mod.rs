//! View components. Shared pieces (panels, rich text) are components of
//! their own; each segment kind has its own component under `segments`.

pub mod budget;
pub mod calls;
pub mod checks;
pub mod compare;
pub mod conversation;
pub mod dom;
pub mod editor;
pub mod finder;
pub mod icons;
pub mod json_view;
pub mod loader;
pub mod panel;
pub mod protocol_panel;
pub mod reports;
pub mod response;
pub mod rich;
pub mod segments;
pub mod settings;
pub mod shortcuts;
pub mod skills;
pub mod template;
pub mod viewer;
