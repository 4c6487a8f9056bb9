//! The Traffic tab's selected request: its parts (tools, system blocks,
//! messages) as token bars in the Prompt view's colours, each part's files,
//! and what the provider counted beyond them.

use egui::{Rect, RichText, Sense, Ui, vec2};

use super::colors;
use super::thousands;

/// A recorded request's parts (tools, system blocks, messages) as token
/// bars, coloured as in the Prompt view; breakpoints marked.
pub fn parts(
    ui: &mut Ui,
    counted: &crate::engine::traffic::Parts,
    attribution: Option<&crate::engine::traffic::attribution::Attribution>,
) {
    let parts = &counted.parts;
    if parts.is_empty() {
        ui.weak("  (no request body recorded: a transcript has usage only)");
        return;
    }
    // Their sum and who counted them first: a long request's parts run
    // below the fold.
    ui.add(egui::Label::new(RichText::new(format!("  {}", counted.summary())).weak()).wrap());
    let dark = ui.visuals().dark_mode;
    let max = parts.iter().map(|p| p.tokens).max().unwrap_or(1).max(1);
    // Label, figure, then the bar in what is left (the figure never cut).
    let width = (ui.available_width() - 420.0).clamp(60.0, 480.0);
    egui::Grid::new("traffic-parts")
        .num_columns(4)
        .show(ui, |ui| {
            for (i, p) in parts.iter().enumerate() {
                let color = if p.label == crate::engine::traffic::TEMPLATE {
                    colors::faded(colors::HISTORY)
                } else if p.label.starts_with("tool") {
                    colors::tools(dark)
                } else if let Some(n) = p.label.strip_prefix("system block ") {
                    colors::layer(n.parse().unwrap_or(1), dark)
                } else {
                    colors::HISTORY
                };
                ui.label(
                    RichText::new(format!(
                        "  {}{}",
                        p.label,
                        if p.breakpoint { " · breakpoint" } else { "" }
                    ))
                    .monospace(),
                );
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.label(format!("{} tokens", thousands(p.tokens)));
                });
                let (rect, _) = ui.allocate_exact_size(vec2(width, 10.0), Sense::hover());
                ui.painter().rect_filled(
                    Rect::from_min_size(
                        rect.min,
                        vec2(rect.width() * p.tokens as f32 / max as f32, rect.height()),
                    ),
                    0.0,
                    color,
                );
                // Where its text comes from: each file in the file's colour.
                ui.horizontal_wrapped(|ui| {
                    let Some(src) = attribution.and_then(|a| a.parts.get(i)) else {
                        return;
                    };
                    for (file, tokens) in &src.from_files {
                        ui.colored_label(
                            colors::text(ui, colors::fragment(file, dark)),
                            format!("{file} {}", thousands(*tokens)),
                        );
                    }
                    if src.from_no_file > 0 && !src.from_files.is_empty() {
                        ui.weak(format!("· no file {}", thousands(src.from_no_file)));
                    }
                });
                ui.end_row();
            }
            // What the provider counted beyond the parts: a part of its own.
            if let Some((what, d)) = counted.unaccounted() {
                ui.label(RichText::new(format!("  ({what})")).monospace());
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.label(format!("{:+} tokens", d));
                });
                let (rect, _) = ui.allocate_exact_size(vec2(width, 10.0), Sense::hover());
                let w = rect.width() * (d.unsigned_abs() as f32 / max as f32).min(1.0);
                ui.painter().rect_stroke(
                    Rect::from_min_size(rect.min, vec2(w, rect.height())),
                    0.0,
                    egui::Stroke::new(1.5, colors::WARNING),
                    egui::StrokeKind::Inside,
                );
                ui.end_row();
            }
        });
}
