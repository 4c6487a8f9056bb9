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
    // Modal: the window behind takes no input while it is open; Escape or
    // a click outside closes it.
    let shown = egui::Modal::new(egui::Id::unique("open-dialog")).show(ctx, |ui| {
        ui.heading("Open a workspace folder");
        ui.horizontal(|ui| {
            ui.label("Folder");
            let mut field = egui::TextEdit::singleline(&mut dialog.path)
                .desired_width(360.0)
                .show(ui);
            if std::mem::take(&mut dialog.focus) {
                // Focused with its text selected: typing replaces it.
                use egui::text::{CCursor, CCursorRange};
                let all =
                    CCursorRange::two(CCursor::new(0), CCursor::new(dialog.path.chars().count()));
                field.state.cursor.set_char_range(Some(all));
                field.state.store(ui.ctx(), field.response.id);
                field.response.request_focus();
            }
            let r = field.response;
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
    if shown.should_close() {
        out.push(Command::CloseOpenDialog);
    }
}
