//! View components. Shared pieces (panels, rich text) are components of
//! their own; each segment kind has its own component under `segments`.

pub mod budget;
pub mod conversation;
pub mod icons;
pub mod loader;
pub mod panel;
pub mod protocol_panel;
pub mod rich;
pub mod segments;
