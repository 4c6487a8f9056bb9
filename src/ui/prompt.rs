//! The prompt view: the system blocks as the model receives them, every line
//! coloured by the fragment it came from, block boundaries and cache
//! breakpoints marked. Virtualised by line, so long prompts scroll smoothly.

use egui::{RichText, Ui};

use super::colors;
use super::command::Command;
use crate::engine::Assembly;

pub struct Line {
    pub text: String,
    pub fragment: Option<String>,
    /// First line of its fragment (the gutter shows the id there).
    pub first: bool,
    pub header: bool,
}

#[derive(Default)]
pub struct PromptLines {
    key: u64,
    pub lines: Vec<Line>,
}

fn key(a: &Assembly) -> u64 {
    let mut h = 0u64;
    for b in &a.blocks {
        h = h.rotate_left(7) ^ xxhash_rust::xxh3::xxh3_64(b.text.as_bytes());
    }
    h
}

/// Splits the blocks into attributed lines.
pub fn lines(a: &Assembly) -> Vec<Line> {
    let mut out = Vec::new();
    let mut breakpoint = 0;
    for (i, b) in a.blocks.iter().enumerate() {
        let cache = if !b.placement.is_system() && !b.cache_control {
            format!(" · {}", b.placement.words())
        } else if b.cache_control {
            breakpoint += 1;
            format!(
                " · cache_control {} ◀ breakpoint {breakpoint}",
                b.ttl.as_str()
            )
        } else {
            " · not cached".into()
        };
        out.push(Line {
            text: match (&b.label, b.layer) {
                (Some(name), 0) => format!(
                    "━━ block {} · from {name}, not your files · {} tokens{cache} ━━",
                    i + 1,
                    b.tokens
                ),
                _ => format!(
                    "━━ system block {} · layer {} · {} tokens{cache} ━━",
                    i + 1,
                    b.layer,
                    b.tokens
                ),
            },
            fragment: None,
            first: false,
            header: true,
        });
        let mut offset = 0;
        let mut last: Option<&str> = None;
        for line in b.text.split('\n') {
            let frag = b
                .fragment_at(offset)
                .or_else(|| b.fragment_at(offset.saturating_sub(1)));
            let frag = if line.is_empty() && frag.is_none() {
                None
            } else {
                frag
            };
            out.push(Line {
                text: line.to_string(),
                fragment: frag.map(str::to_string),
                first: frag.is_some() && frag != last,
                header: false,
            });
            if frag.is_some() {
                last = frag;
            }
            offset += line.len() + 1;
        }
    }
    out
}

impl PromptLines {
    pub fn refresh(&mut self, a: &Assembly) {
        let k = key(a);
        if k != self.key || self.lines.is_empty() {
            self.lines = lines(a);
            self.key = k;
        }
    }
}

/// Draws the prompt; clicking a line (its text or its gutter) pushes
/// [`Command::Select`] for the fragment it belongs to.
pub fn show(
    ui: &mut Ui,
    cache: &mut PromptLines,
    a: &Assembly,
    selected: Option<&str>,
    out: &mut Vec<Command>,
) {
    cache.refresh(a);
    let dark = ui.visuals().dark_mode;
    let row_h = 18.0;
    ui.spacing_mut().item_spacing.y = 0.0;
    egui::ScrollArea::both()
        .id_salt("prompt-scroll")
        .auto_shrink([false, false])
        .show_rows(ui, row_h, cache.lines.len(), |ui, range| {
            for line in &cache.lines[range] {
                ui.allocate_ui_with_layout(
                    egui::vec2(ui.available_width(), row_h),
                    egui::Layout::left_to_right(egui::Align::Center),
                    |ui| {
                        let gutter = if line.first {
                            line.fragment.clone().unwrap_or_default()
                        } else {
                            String::new()
                        };
                        let g = ui
                            .allocate_ui_with_layout(
                                egui::vec2(150.0, row_h),
                                egui::Layout::left_to_right(egui::Align::Center),
                                |ui| {
                                    ui.set_min_width(150.0);
                                    ui.add(
                                        egui::Label::new(RichText::new(gutter).monospace().weak())
                                            .truncate()
                                            .sense(egui::Sense::click()),
                                    )
                                },
                            )
                            .inner;
                        let mut clicked = g.clicked();
                        let mut text = RichText::new(&line.text).monospace();
                        if line.header {
                            text = text.strong().color(ui.visuals().strong_text_color());
                        } else if let Some(f) = &line.fragment {
                            text = text.color(colors::text(ui, colors::fragment(f, dark)));
                            if selected == Some(f.as_str()) {
                                text = text.background_color(
                                    ui.visuals().selection.bg_fill.gamma_multiply(0.35),
                                );
                            }
                        }
                        clicked |= ui
                            .add(egui::Label::new(text).extend().sense(egui::Sense::click()))
                            .clicked();
                        if clicked && let Some(f) = &line.fragment {
                            out.push(Command::Select(f.clone()));
                        }
                    },
                );
            }
        });
}
