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

/// An open folder with nothing to assemble: what a workspace needs, and the
/// sample and examples to start from.
pub fn empty(
    ui: &mut Ui,
    sample_available: bool,
    examples: &[std::path::PathBuf],
    out: &mut Vec<Command>,
) {
    ui.add_space(24.0);
    ui.heading("Nothing to assemble in this folder yet");
    ui.label(
        "A workspace needs at least one file the prompt is made of: SOUL.md, AGENTS.md, \
         IDENTITY.md, TOOLS.md, USER.md or MEMORY.md; CLAUDE.md (a Claude Code project); \
         skills/NAME/SKILL.md; tools/*.json; or fragments/*.yaml with explicit fragments. \
         workspace.yaml (budget, model, layers) and sessions/*.yaml are optional.",
    );
    ui.add_space(8.0);
    ui.horizontal_wrapped(|ui| {
        if sample_available && ui.button("Open the sample workspace").clicked() {
            out.push(Command::OpenSample);
        }
        for e in examples {
            let name = e
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if ui
                .button(format!("Open the {name} example"))
                .on_hover_text(e.display().to_string())
                .clicked()
            {
                out.push(Command::Open(e.clone()));
            }
        }
    });
    ui.weak("The folder is watched: a file added here appears at once.");
}
