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
    let mut all = l.workspace.diagnostics.clone();
    all.extend(l.prepared.diagnostics.iter().cloned());
    if all.is_empty() {
        ui.label("No problems: every file was read and understood.");
        return;
    }
    let errors = all.iter().filter(|d| d.severity == Severity::Error).count();
    ui.label(format!("{errors} errors, {} warnings", all.len() - errors));
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
                    ui.colored_label(color, icon);
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
