//! The welcome screen: open the sample, a folder, or a recent workspace.

use egui::{RichText, Ui};

use super::colors;
use super::command::{self, Command};
use super::state::AppState;

pub fn show(ui: &mut Ui, state: &AppState, sample_available: bool, out: &mut Vec<Command>) {
    ui.vertical_centered(|ui| {
        ui.add_space(60.0);
        ui.heading(RichText::new("prompt-inspector").size(28.0));
        ui.label("See how your agent's layered system prompt is assembled, trimmed and cached.");
        ui.add_space(20.0);
        if sample_available
            && ui
                .button(RichText::new("Open the sample workspace").size(18.0))
                .clicked()
        {
            out.push(Command::OpenSample);
        }
        let key = command::key_text(ui.ctx(), &Command::ShowOpenDialog);
        if ui.button(format!("Open a folder… ({key})")).clicked() {
            out.push(Command::ShowOpenDialog);
        }
        ui.weak("or drop a workspace folder onto this window");
        if !state.recent.is_empty() {
            ui.add_space(16.0);
            ui.strong("Recent workspaces");
            for p in &state.recent {
                if ui.link(p.display().to_string()).clicked() {
                    out.push(Command::Open(p.clone()));
                }
            }
        }
        if let Some(e) = &state.error {
            ui.add_space(12.0);
            ui.colored_label(colors::text(ui, colors::ERROR), e);
        }
    });
}
