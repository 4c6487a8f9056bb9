//! Colours with meaning, the same in every view: one per status, one per
//! layer (the Okabe–Ito palette, told apart with colour-blindness), one
//! stable hue per fragment.

use egui::{Color32, Rect, Sense, Ui, pos2, vec2};

use crate::engine::Status;
use crate::engine::usage::Input;

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

/// Layer `layer` (1–4), in every view that shows layers.
pub fn layer(layer: u8, dark: bool) -> Color32 {
    // Okabe–Ito: blue, reddish purple, bluish green, orange; lighter on dark.
    let (light, darkc) = match layer {
        1 => ((0x00, 0x72, 0xB2), (0x56, 0xB4, 0xE9)),
        2 => ((0xCC, 0x79, 0xA7), (0xE0, 0x9F, 0xC8)),
        3 => ((0x00, 0x9E, 0x73), (0x3C, 0xC8, 0x9A)),
        _ => ((0xD5, 0x5E, 0x00), (0xE6, 0x9F, 0x00)),
    };
    let (r, g, b) = if dark { darkc } else { light };
    Color32::from_rgb(r, g, b)
}

/// Tool definitions (before the system blocks in a request).
pub fn tools(dark: bool) -> Color32 {
    if dark {
        Color32::from_rgb(0xB0, 0xA0, 0x70)
    } else {
        Color32::from_rgb(0x8C, 0x7A, 0x3C)
    }
}

pub const HISTORY: Color32 = Color32::from_rgb(0x99, 0x99, 0x99);
pub const CURRENT: Color32 = Color32::from_rgb(0xF0, 0xE4, 0x42);

/// A colour swatch and its label as one widget: in a wrapping row they move
/// to the next line together, never apart.
pub fn swatch_label(ui: &mut egui::Ui, color: Color32, text: &str) {
    use egui::text::{LayoutJob, TextFormat};
    let font = egui::TextStyle::Body.resolve(ui.style());
    let mut job = LayoutJob::default();
    job.append(
        "■ ",
        0.0,
        TextFormat {
            font_id: font.clone(),
            color,
            ..Default::default()
        },
    );
    job.append(
        text,
        0.0,
        TextFormat {
            font_id: font,
            color: ui.visuals().text_color(),
            ..Default::default()
        },
    );
    ui.add(egui::Label::new(job).extend());
}

/// One request's input as a stacked bar on a shared axis: read (green),
/// written (orange), uncached (grey), in that order; `scale` is the widest
/// request. The Cache tab's predictions and the Traffic tab's recorded
/// requests use this one bar, so the same figures look the same.
pub fn usage_bar(ui: &mut Ui, u: &Input, scale: u64, width: f32, sense: Sense) -> egui::Response {
    let (rect, resp) = ui.allocate_exact_size(vec2(width, 14.0), sense);
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let mut x = rect.left();
    for (t, c) in [
        (u.cache_read_input_tokens, READ),
        (u.cache_creation_input_tokens, WRITE),
        (u.input_tokens, UNCACHED),
    ] {
        let w = rect.width() * t as f32 / scale.max(1) as f32;
        painter.rect_filled(
            Rect::from_min_size(pos2(x, rect.top()), vec2(w, rect.height())),
            0.0,
            c,
        );
        x += w;
    }
    resp
}
