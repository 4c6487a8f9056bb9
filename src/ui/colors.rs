//! Colours with meaning: one per status, one stable hue per fragment.

use egui::Color32;

use crate::engine::Status;

pub fn status(s: Status) -> Color32 {
    match s {
        Status::Kept => Color32::from_rgb(0x43, 0xA0, 0x47),
        Status::Summarized => Color32::from_rgb(0x1E, 0x88, 0xE5),
        Status::Truncated => Color32::from_rgb(0xFB, 0x8C, 0x00),
        Status::Dropped => Color32::from_rgb(0xE5, 0x39, 0x35),
        Status::Disabled => Color32::from_rgb(0x9E, 0x9E, 0x9E),
    }
}

/// A stable, readable colour for a fragment id (text on the panel background).
pub fn fragment(id: &str, dark: bool) -> Color32 {
    let h = xxhash_rust::xxh3::xxh3_64(id.as_bytes());
    let hue = (h % 360) as f32 / 360.0;
    let (s, v) = if dark { (0.45, 0.95) } else { (0.75, 0.55) };
    egui::ecolor::Hsva::new(hue, s, v, 1.0).into()
}

pub fn faded(c: Color32) -> Color32 {
    c.gamma_multiply(0.35)
}

/// Errors, overflows, disagreements, deletions.
pub const ERROR: Color32 = Color32::from_rgb(0xE5, 0x39, 0x35);
/// Warnings and things to notice (a change since the snapshot).
pub const WARNING: Color32 = Color32::from_rgb(0xFB, 0x8C, 0x00);
/// Agreement and additions.
pub const GOOD: Color32 = Color32::from_rgb(0x43, 0xA0, 0x47);

pub const READ: Color32 = Color32::from_rgb(0x43, 0xA0, 0x47);
pub const WRITE: Color32 = Color32::from_rgb(0xFB, 0x8C, 0x00);
pub const UNCACHED: Color32 = Color32::from_rgb(0x78, 0x90, 0x9C);
