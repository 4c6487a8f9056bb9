//! The "Open a workspace folder" dialog: a typed path (always works), the
//! native picker (a job of the worker: it blocks until answered) and a note
//! when the desktop offers no picker.

use std::path::PathBuf;

use egui::Key;

use super::app::OpenDialog;
use super::colors;
use super::command::Command;

pub(crate) fn show(ctx: &egui::Context, dialog: &mut OpenDialog, out: &mut Vec<Command>) {
    if !dialog.visible {
        return;
    }
    egui::Window::new("Open a workspace folder")
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.label("Folder");
                let r = ui.add(egui::TextEdit::singleline(&mut dialog.path).desired_width(360.0));
                if r.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                    out.push(Command::Open(PathBuf::from(dialog.path.trim())));
                }
            });
            ui.horizontal(|ui| {
                if ui
                    .add_enabled(!dialog.picking, egui::Button::new("Browse…"))
                    .clicked()
                {
                    out.push(Command::PickFolder);
                }
                if ui.button("Open").clicked() {
                    out.push(Command::Open(PathBuf::from(dialog.path.trim())));
                }
                if ui.button("Cancel").clicked() {
                    out.push(Command::CloseOpenDialog);
                }
            });
            if let Some(n) = &dialog.note {
                ui.colored_label(colors::text(ui, colors::WARNING), n);
            }
        });
}
