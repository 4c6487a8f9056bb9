//! Controls (session, model, budget sliders), the problems panel and the
//! welcome screen.

use egui::{RichText, Ui};

use super::state::AppState;
use crate::engine::{ModelTable, Severity};

#[derive(Default)]
pub struct ControlsOut {
    pub budget_changed: bool,
    pub markers_changed: bool,
    pub session: Option<String>,
    pub model: Option<Option<String>>,
    pub reset: bool,
}

pub fn controls(ui: &mut Ui, state: &mut AppState, table: &ModelTable) -> ControlsOut {
    let mut out = ControlsOut::default();
    let Some(loaded) = state.loaded.as_ref() else {
        return out;
    };
    let sessions: Vec<(String, String)> = loaded
        .workspace
        .sessions
        .iter()
        .map(|s| (s.name.clone(), s.description.clone()))
        .collect();
    let current = loaded.prepared.session.clone();
    let model_now = loaded.prepared.model.id.clone();
    egui::Grid::new("selectors")
        .num_columns(1)
        .spacing([8.0, 6.0])
        .show(ui, |ui| {
            egui::ComboBox::new("session-combo", "Session")
                .selected_text(&current)
                .width(180.0)
                .show_ui(ui, |ui| {
                    for (name, desc) in &sessions {
                        let r = ui
                            .selectable_label(*name == current, name)
                            .on_hover_text(desc);
                        if r.clicked() && *name != current {
                            out.session = Some(name.clone());
                        }
                    }
                });
            ui.end_row();
            egui::ComboBox::new("model-combo", "Model")
                .selected_text(&model_now)
                .width(180.0)
                .show_ui(ui, |ui| {
                    for m in &table.models {
                        let label = format!(
                            "{} · {}{}",
                            m.id,
                            m.provider.as_str(),
                            if m.estimate { " (est.)" } else { "" }
                        );
                        if ui.selectable_label(m.id == model_now, label).clicked()
                            && m.id != model_now
                        {
                            out.model = Some(Some(m.id.clone()));
                        }
                    }
                });
            ui.end_row();
        });
    ui.add_space(6.0);
    ui.strong("Budget");
    let b = &mut state.budget;
    let max_total = (loaded.workspace.settings.budget.total * 4).max(8000);
    let mut changed = false;
    changed |= ui
        .add(egui::Slider::new(&mut b.total, 0..=max_total).text("Total budget"))
        .changed();
    let fixed_max = (b.total).max(100);
    changed |= ui
        .add(egui::Slider::new(&mut b.layer1, 0..=fixed_max).text("Layer 1 fixed"))
        .changed();
    changed |= ui
        .add(egui::Slider::new(&mut b.layer2, 0..=fixed_max).text("Layer 2 fixed"))
        .changed();
    changed |= ui
        .add(
            egui::Slider::new(&mut b.layer3_ratio, 0.0..=1.0)
                .fixed_decimals(2)
                .text("Layer 3 ratio"),
        )
        .changed();
    if changed {
        state.budget_touched = true;
        out.budget_changed = true;
    }
    ui.horizontal(|ui| {
        if ui
            .add_enabled(
                state.budget_touched,
                egui::Button::new("Reset to workspace values"),
            )
            .clicked()
        {
            out.reset = true;
        }
        if ui
            .checkbox(&mut state.debug_markers, "DEBUG markers")
            .on_hover_text("Wrap every fragment in [[DEBUG:id]] … [[/DEBUG:id]] (Ctrl+D)")
            .changed()
        {
            out.markers_changed = true;
        }
    });
    out
}

/// The problems panel. Returns a clicked (fragment id or file) target.
pub fn problems(ui: &mut Ui, state: &AppState) -> Option<String> {
    let mut clicked = None;
    let l = state.loaded.as_ref()?;
    let mut all = l.workspace.diagnostics.clone();
    all.extend(l.prepared.diagnostics.iter().cloned());
    if all.is_empty() {
        ui.label("No problems: every file was read and understood.");
        return None;
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
                        Severity::Error => ("error", egui::Color32::from_rgb(0xE5, 0x39, 0x35)),
                        Severity::Warning => ("warning", egui::Color32::from_rgb(0xFB, 0x8C, 0x00)),
                    };
                    ui.colored_label(color, icon);
                    let target = d.fragment.clone().unwrap_or_else(|| d.file.clone());
                    if ui
                        .link(RichText::new(d.location()).monospace())
                        .on_hover_text(format!("Select {target}"))
                        .clicked()
                    {
                        clicked = Some(target);
                    }
                    ui.label(&d.message);
                });
            }
        });
    clicked
}

pub enum WelcomeAction {
    OpenSample,
    OpenDialog,
    OpenRecent(std::path::PathBuf),
}

pub fn welcome(ui: &mut Ui, state: &AppState, sample_available: bool) -> Option<WelcomeAction> {
    let mut action = None;
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
            action = Some(WelcomeAction::OpenSample);
        }
        if ui.button("Open a folder… (Ctrl+O)").clicked() {
            action = Some(WelcomeAction::OpenDialog);
        }
        ui.weak("or drop a workspace folder onto this window");
        if !state.recent.is_empty() {
            ui.add_space(16.0);
            ui.strong("Recent workspaces");
            for p in &state.recent {
                if ui.link(p.display().to_string()).clicked() {
                    action = Some(WelcomeAction::OpenRecent(p.clone()));
                }
            }
        }
        if let Some(e) = &state.error {
            ui.add_space(12.0);
            ui.colored_label(egui::Color32::from_rgb(0xE5, 0x39, 0x35), e);
        }
    });
    action
}
