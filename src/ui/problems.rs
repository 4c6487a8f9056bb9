//! The problems panel: every diagnostic with its file, line and fragment; a
//! click selects what it is about.

use egui::{RichText, Ui};

use super::colors;
use super::command::Command;
use super::state::AppState;
use crate::engine::Severity;

/// The panel; a clicked location pushes [`Command::Select`].
pub fn show(ui: &mut Ui, state: &AppState, out: &mut Vec<Command>) {
    let Some(l) = state.loaded.as_ref() else {
        return;
    };
    let all = l.diagnostics();
    if all.is_empty() {
        ui.label("No problems: every file was read and understood.");
        return;
    }
    let errors = all.iter().filter(|d| d.severity == Severity::Error).count();
    ui.label(format!(
        "{}, {}",
        plural(errors, "error"),
        plural(all.len() - errors, "warning")
    ));
    egui::ScrollArea::vertical()
        .id_salt("problems-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for d in &all {
                ui.horizontal_wrapped(|ui| {
                    let (icon, color) = match d.severity {
                        Severity::Error => ("error", colors::ERROR),
                        Severity::Warning => ("warning", colors::WARNING),
                    };
                    ui.colored_label(colors::text(ui, color), icon);
                    let target = d.fragment.clone().unwrap_or_else(|| d.file.clone());
                    if ui
                        .link(RichText::new(d.location()).monospace())
                        .on_hover_text(format!("Select {target}"))
                        .clicked()
                    {
                        out.push(Command::Select(target));
                    }
                    ui.label(&d.message);
                });
            }
        });
}

/// `1 warning`, `2 warnings`.
pub fn plural(n: usize, word: &str) -> String {
    crate::engine::plural(n as u64, word)
}
