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
        Status::Dropped => Color32::from_rgb(0x8D, 0x6E, 0x63),
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

/// WCAG's relative luminance of a colour (sRGB).
pub fn luminance(c: Color32) -> f64 {
    let lin = |v: u8| {
        let v = v as f64 / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(c.r()) + 0.7152 * lin(c.g()) + 0.0722 * lin(c.b())
}

/// WCAG's contrast ratio of two opaque colours (1 to 21).
pub fn contrast(a: Color32, b: Color32) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

/// The contrast every text and chip reaches against its background
/// (WCAG AA for normal text).
pub const MIN_CONTRAST: f64 = 4.5;

/// The contrast [`readable_on`] aims at: above [`MIN_CONTRAST`], as a
/// thin stroke (a CJK glyph, a small figure) covers no pixel fully and
/// renders lighter than its colour (tests/gui_contrast.rs reads the pixels).
const AIM: f64 = 5.0;

/// `c` as a text colour on `bg`: the same hue, darkened (on a light
/// background) or lightened (on a dark one) just enough to reach
/// [`MIN_CONTRAST`] with a margin ([`AIM`]); unchanged when it already does.
pub fn readable_on(c: Color32, bgs: &[Color32]) -> Color32 {
    toward_contrast(c, bgs, AIM)
}

/// The contrast a graphic that carries meaning reaches against what is
/// around it: a swatch, a bar's segment (WCAG 1.4.11's 3:1, with a margin).
const GRAPHIC_AIM: f64 = 3.2;

/// `c` as a swatch or a bar's fill on `bgs`: the same hue, darkened or
/// lightened just enough to reach 3:1 ([`GRAPHIC_AIM`]).
pub fn visible_on(c: Color32, bgs: &[Color32]) -> Color32 {
    toward_contrast(c, bgs, GRAPHIC_AIM)
}

/// `c` as a swatch or a bar's fill in this theme: on its panels and in
/// the wells bars are drawn in.
pub fn graphic(ui: &Ui, c: Color32) -> Color32 {
    visible_on(c, &graphic_backgrounds(ui.visuals()))
}

/// What swatches and bars are drawn on: the text backgrounds and the
/// wells (a bar's empty part).
pub fn graphic_backgrounds(v: &egui::Visuals) -> [Color32; 4] {
    let [a, b, c] = backgrounds(v);
    [a, b, c, v.extreme_bg_color]
}

fn toward_contrast(c: Color32, bgs: &[Color32], aim: f64) -> Color32 {
    // Asked for every label, swatch, bar and timeline tick each frame, of
    // a handful of colours on a theme's few backgrounds: each answer is
    // kept (the search costs up to 160 contrasts, each with its powers).
    type Key = (Color32, [Color32; 4], usize, u64);
    thread_local! {
        static KEPT: std::cell::RefCell<std::collections::HashMap<Key, Color32>> =
            std::cell::RefCell::default();
    }
    if bgs.len() > 4 {
        return search_contrast(c, bgs, aim);
    }
    let mut padded = [Color32::TRANSPARENT; 4];
    padded[..bgs.len()].copy_from_slice(bgs);
    let key = (c, padded, bgs.len(), aim.to_bits());
    if let Some(x) = KEPT.with_borrow(|k| k.get(&key).copied()) {
        return x;
    }
    let x = search_contrast(c, bgs, aim);
    KEPT.with_borrow_mut(|k| {
        if k.len() > 1024 {
            k.clear();
        }
        k.insert(key, x);
    });
    x
}

fn search_contrast(c: Color32, bgs: &[Color32], aim: f64) -> Color32 {
    let ok = |x: Color32| bgs.iter().all(|bg| contrast(x, *bg) >= aim);
    if ok(c) {
        return c;
    }
    let mean: f64 = bgs.iter().map(|b| luminance(*b)).sum::<f64>() / bgs.len().max(1) as f64;
    let toward = if mean > 0.18 {
        Color32::BLACK
    } else {
        Color32::WHITE
    };
    let mix = |t: f32| {
        let m = |a: u8, b: u8| (a as f32 + (b as f32 - a as f32) * t).round() as u8;
        Color32::from_rgb(
            m(c.r(), toward.r()),
            m(c.g(), toward.g()),
            m(c.b(), toward.b()),
        )
    };
    (1..=40)
        .map(|i| mix(i as f32 / 40.0))
        .find(|x| ok(*x))
        .unwrap_or(toward)
}

/// The backgrounds text is drawn on in a theme: panels, windows, and the
/// faint stripes of tables.
pub fn backgrounds(v: &egui::Visuals) -> [Color32; 3] {
    // The stripe is drawn over the panel (premultiplied: it may add light
    // without covering).
    let f = v.faint_bg_color;
    let p = v.panel_fill;
    let over = |a: u8, b: u8| (a as u32 + b as u32 * (255 - f.a() as u32) / 255).min(255) as u8;
    let stripe = Color32::from_rgb(over(f.r(), p.r()), over(f.g(), p.g()), over(f.b(), p.b()));
    [v.panel_fill, v.window_fill, stripe]
}

/// A colour as it shows over an opaque background (egui's colours are
/// premultiplied: a translucent text colour is lighter or darker than its
/// channels say).
pub fn over(c: Color32, bg: Color32) -> Color32 {
    let k = 255 - c.a() as u32;
    let m = |a: u8, b: u8| (a as u32 + b as u32 * k / 255).min(255) as u8;
    Color32::from_rgb(m(c.r(), bg.r()), m(c.g(), bg.g()), m(c.b(), bg.b()))
}

/// The app's theme: egui's, with its weak text (hints, secondary figures)
/// made opaque and readable on every background ([`MIN_CONTRAST`]).
pub fn visuals(dark: bool) -> egui::Visuals {
    let mut v = if dark {
        egui::Visuals::dark()
    } else {
        egui::Visuals::light()
    };
    // A field, a check box's box, a drag value: a border at 3:1 against
    // the panel (WCAG 1.4.11; measured from the rendered pixels by
    // tests/gui_contrast.rs). egui draws none in the dark theme, and a
    // light grey one (2.8:1) in the light theme.
    let border = if dark { 110 } else { 125 };
    v.widgets.inactive.bg_stroke = egui::Stroke::new(1.0, Color32::from_gray(border));
    if !dark {
        // Light: a text field and an empty bar lane are near-white on
        // white; a darker well shows them.
        v.widgets.noninteractive.bg_stroke = egui::Stroke::new(1.0, Color32::from_gray(190));
        v.extreme_bg_color = Color32::from_gray(228);
    }
    if dark {
        // egui's text (#8C8C8C) is 4.8:1 on a table's stripe: small and
        // cut words (a thin stroke never fully covers a pixel) render
        // under 4.5:1.
        v.widgets.noninteractive.fg_stroke.color = Color32::from_gray(160);
    }
    // Weak text (hints, secondary figures) is drawn on panels and in the
    // wells of text fields (a field's hint).
    let on = backgrounds(&v);
    let wells = [on[0], on[1], on[2], v.extreme_bg_color];
    let weak = over(v.weak_text_color(), v.panel_fill);
    v.weak_text_color = Some(readable_on(weak, &wells));
    v.hyperlink_color = readable_on(v.hyperlink_color, &on);
    v
}

/// Sets [`visuals`] for both themes.
pub fn install(ctx: &egui::Context) {
    ctx.set_visuals_of(egui::Theme::Dark, visuals(true));
    ctx.set_visuals_of(egui::Theme::Light, visuals(false));
    // Solid scroll bars, beside the content and drawn whole: a panel whose
    // content goes on below the window says so without a hover (egui's
    // floating bars are a thin line until hovered).
    ctx.all_styles_mut(|s| s.spacing.scroll = egui::style::ScrollStyle::solid());
    // Light: egui's handle (a widget's fill, #E6E6E6) all but vanishes on
    // the bar's well (#E4E4E4); the widgets' text colour shows it.
    ctx.style_mut_of(egui::Theme::Light, |s| {
        s.spacing.scroll.foreground_color = true;
    });
}

/// `c` as text in this theme (see [`readable_on`]).
pub fn text(ui: &Ui, c: Color32) -> Color32 {
    readable_on(c, &backgrounds(ui.visuals()))
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

/// Content that silently breaks caching (a problem of its own kind).
pub const CACHE_BREAKER: Color32 = Color32::from_rgb(0xAB, 0x47, 0xBC);

/// DEBUG markers (in the prompt view and the budget lanes).
pub const MARKER: Color32 = Color32::from_rgb(0xFD, 0xD8, 0x35);

pub const READ: Color32 = Color32::from_rgb(0x43, 0xA0, 0x47);
pub const WRITE: Color32 = Color32::from_rgb(0xFB, 0x8C, 0x00);
pub const UNCACHED: Color32 = Color32::from_rgb(0x78, 0x90, 0x9C);

/// Layer `layer` (1–4), in every view that shows layers.
pub fn layer(layer: u8, dark: bool) -> Color32 {
    // Okabe–Ito: blue, reddish purple, bluish green, orange; lighter on dark.
    let (light, darkc) = match layer {
        // The agent's own blocks (not your files): a neutral grey.
        0 => ((0x5E, 0x5E, 0x5E), (0xA8, 0xA8, 0xA8)),
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

/// One `/context` category's colour (the same in every view).
pub fn category(name: &str, dark: bool) -> Color32 {
    match name {
        "System prompt" => layer(0, dark),
        "System tools" | "Tool definitions" => tools(dark),
        "Custom agents" => layer(3, dark),
        "Memory files" => layer(2, dark),
        "Skills" => layer(1, dark),
        "Messages" => HISTORY,
        "Autocompact buffer" | "Reserved output" => UNCACHED,
        n if n.starts_with("Layer ") => layer(n[6..7].parse().unwrap_or(4), dark),
        _ => HISTORY,
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
            color: graphic(ui, color),
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
    let parts = [
        (u.cache_read_input_tokens, graphic(ui, READ)),
        (u.cache_creation_input_tokens, graphic(ui, WRITE)),
        (u.input_tokens, graphic(ui, UNCACHED)),
    ];
    for (i, (t, c)) in parts.iter().enumerate() {
        let w = rect.width() * *t as f32 / scale.max(1) as f32;
        let next = parts[i + 1..].iter().any(|(t, _)| *t > 0);
        painter.rect_filled(
            Rect::from_min_size(
                pos2(x, rect.top()),
                vec2(w - gap_after(w, next), rect.height()),
            ),
            0.0,
            *c,
        );
        x += w;
    }
    resp
}

/// The gap left after a bar's segment of width `w` when another follows:
/// neighbouring fills of a bar need not differ by 3:1 (read and written
/// are of one luminance once each reaches 3:1 on the light theme), so each
/// ends on the well, which they all differ from (WCAG 1.4.11).
pub fn gap_after(w: f32, next: bool) -> f32 {
    if next && w > 3.0 { 1.5 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every colour with a meaning in a theme: statuses, layers (the
    /// agent's own included), the cache's and the problems'.
    fn meaning(dark: bool) -> Vec<Color32> {
        let mut palette = vec![
            ERROR,
            WARNING,
            GOOD,
            READ,
            WRITE,
            UNCACHED,
            MARKER,
            HISTORY,
            CURRENT,
            CACHE_BREAKER,
            tools(dark),
        ];
        palette.extend((0..=4).map(|l| layer(l, dark)));
        palette.extend(Status::ALL.map(status));
        palette
    }

    /// Every colour this palette gives text, in both themes, through
    /// [`text`]'s adjustment, and the themes' own text colours.
    #[test]
    fn every_text_colour_reaches_wcag_aa_in_both_themes() {
        for dark in [false, true] {
            let v = visuals(dark);
            let bgs = backgrounds(&v);
            let mut palette = meaning(dark);
            palette.extend(
                ["soul", "agents", "skill.sql", "memory.daily", "x"].map(|id| fragment(id, dark)),
            );
            for c in palette {
                let t = readable_on(c, &bgs);
                for bg in bgs {
                    let r = contrast(t, bg);
                    assert!(
                        r >= MIN_CONTRAST,
                        "{c:?} → {t:?} on {bg:?} (dark {dark}): {r:.2}"
                    );
                }
            }
            for (name, c) in [("text", v.text_color()), ("weak text", v.weak_text_color())] {
                for bg in bgs {
                    let r = contrast(over(c, bg), bg);
                    assert!(
                        r >= MIN_CONTRAST,
                        "{name} {c:?} on {bg:?} (dark {dark}): {r:.2}"
                    );
                }
            }
        }
    }

    /// Swatches and bars: every colour with a meaning is told from the
    /// panels and the wells at 3:1 in both themes (WCAG 1.4.11), the
    /// light theme's yellow DEBUG marker included.
    #[test]
    fn every_swatch_and_bar_colour_reaches_3_to_1_in_both_themes() {
        for dark in [false, true] {
            let bgs = graphic_backgrounds(&visuals(dark));
            for c in meaning(dark) {
                let v = visible_on(c, &bgs);
                for bg in bgs {
                    let r = contrast(v, bg);
                    assert!(r >= 3.0, "{c:?} → {v:?} on {bg:?} (dark {dark}): {r:.2}");
                }
            }
        }
        // The light theme's yellow was 1.3:1 on white: it is darkened.
        let light = graphic_backgrounds(&visuals(false));
        assert_ne!(visible_on(MARKER, &light), MARKER);
    }

    #[test]
    fn a_colour_that_already_reads_is_left_as_it_is() {
        assert_eq!(
            readable_on(Color32::BLACK, &[Color32::WHITE]),
            Color32::BLACK
        );
        assert!((contrast(Color32::BLACK, Color32::WHITE) - 21.0).abs() < 1e-9);
    }
}
