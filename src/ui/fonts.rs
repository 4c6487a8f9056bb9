//! Text in any language: a CJK font of the system when there is one, and the
//! bundled subset (assets/fonts) as the last fallback, so Chinese, Japanese
//! and Korean render as glyphs, never as boxes; then a bundled emoji and
//! symbol subset, for the emoji agents' prompts hold.

use std::sync::Arc;

use egui::{FontData, FontDefinitions, FontFamily};

const BUNDLED: &[u8] = include_bytes!("../../assets/fonts/cjk-fallback.ttf");
/// Emoji and symbols (a subset of Symbola, scripts/make-emoji-font.sh):
/// egui's fonts have none, and agents' prompts hold some ("🤖 Generated
/// with …").
const EMOJI: &[u8] = include_bytes!("../../assets/fonts/emoji-fallback.ttf");

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

/// A system font that covers CJK, as read from disk (by the worker: the
/// UI thread reads no file).
pub struct SystemFont {
    pub index: u32,
    pub bytes: Vec<u8>,
}

/// The first CJK font of the system (none with
/// `PROMPT_INSPECTOR_BUNDLED_FONTS_ONLY=1`: tests use it, so that what they
/// check does not depend on the machine's fonts). Reads files: call it off
/// the UI thread.
pub fn read_system() -> Option<SystemFont> {
    if std::env::var_os("PROMPT_INSPECTOR_BUNDLED_FONTS_ONLY").is_some() {
        return None;
    }
    SYSTEM_CJK.iter().find_map(|(p, i)| {
        std::fs::read(p)
            .ok()
            .map(|bytes| SystemFont { index: *i, bytes })
    })
}

/// Installs the fonts: the system's CJK font first when there is one, then
/// the bundled subset.
pub fn install(ctx: &egui::Context, system: Option<SystemFont>) {
    let mut fonts = FontDefinitions::default();
    let mut names: Vec<&str> = Vec::new();
    if let Some(f) = system {
        let mut data = FontData::from_owned(f.bytes);
        data.index = f.index;
        fonts.font_data.insert("system-cjk".into(), Arc::new(data));
        names.push("system-cjk");
    }
    fonts.font_data.insert(
        "bundled-cjk".into(),
        Arc::new(FontData::from_static(BUNDLED)),
    );
    names.push("bundled-cjk");
    fonts.font_data.insert(
        "bundled-emoji".into(),
        Arc::new(FontData::from_static(EMOJI)),
    );
    names.push("bundled-emoji");
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
        list.extend(names.iter().map(|n| n.to_string()));
    }
    ctx.set_fonts(fonts);
}
