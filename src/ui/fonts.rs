//! Text in any language: a CJK font of the system when there is one, and the
//! bundled subset (assets/fonts) as the last fallback, so Chinese, Japanese
//! and Korean render as glyphs, never as boxes.

use std::sync::Arc;

use egui::{FontData, FontDefinitions, FontFamily};

const BUNDLED: &[u8] = include_bytes!("../../assets/fonts/cjk-fallback.ttf");

/// Fonts of common desktops that cover CJK (first found wins).
const SYSTEM_CJK: &[(&str, u32)] = &[
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
    ("/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc", 2),
    (
        "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
        2,
    ),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),
    (
        "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
        0,
    ),
    ("/System/Library/Fonts/PingFang.ttc", 0),
    ("/System/Library/Fonts/Hiragino Sans GB.ttc", 0),
    ("C:\\Windows\\Fonts\\msyh.ttc", 0),
    ("C:\\Windows\\Fonts\\simsun.ttc", 0),
];

/// Which font covers CJK text (for the About box and the tests).
/// `PROMPT_INSPECTOR_BUNDLED_FONTS_ONLY=1` skips system fonts (tests use it,
/// so that what they check does not depend on the machine's fonts).
pub fn install(ctx: &egui::Context) -> String {
    let mut fonts = FontDefinitions::default();
    let mut names = Vec::new();
    let system_ok = std::env::var_os("PROMPT_INSPECTOR_BUNDLED_FONTS_ONLY").is_none();
    if system_ok
        && let Some((path, index, bytes)) = SYSTEM_CJK
            .iter()
            .find_map(|(p, i)| std::fs::read(p).ok().map(|b| (*p, *i, b)))
    {
        let mut data = FontData::from_owned(bytes);
        data.index = index;
        fonts.font_data.insert("system-cjk".into(), Arc::new(data));
        names.push(("system-cjk".to_string(), path.to_string()));
    }
    fonts.font_data.insert(
        "bundled-cjk".into(),
        Arc::new(FontData::from_static(BUNDLED)),
    );
    names.push(("bundled-cjk".into(), "assets/fonts/cjk-fallback.ttf".into()));
    // Arrows, box drawing and geometric shapes: egui's monospace font has
    // them, its proportional one does not.
    if fonts.font_data.contains_key("Hack") {
        fonts
            .families
            .entry(FontFamily::Proportional)
            .or_default()
            .push("Hack".into());
    }
    for family in [FontFamily::Proportional, FontFamily::Monospace] {
        let list = fonts.families.entry(family).or_default();
        for (name, _) in &names {
            list.push(name.clone());
        }
    }
    ctx.set_fonts(fonts);
    names[0].1.clone()
}
