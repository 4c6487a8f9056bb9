//! The controls: session, model, budget sliders, DEBUG markers.

use egui::Ui;

use super::command::Command;
use super::state::AppState;
use crate::engine::ModelTable;

pub fn show(
    ui: &mut Ui,
    state: &AppState,
    table: &ModelTable,
    profiles: &[String],
    out: &mut Vec<Command>,
) {
    let Some(loaded) = state.loaded.as_ref() else {
        return;
    };
    selectors(ui, loaded, table, profiles, out);
    ui.add(
        egui::Label::new(
            egui::RichText::new(format!(
                "{}: {}",
                loaded.workspace.profile.name, loaded.workspace.profile.why
            ))
            .weak(),
        )
        .wrap(),
    );
    if let Some(rel) = &loaded.workspace.profile.user_memory {
        home_memory_switch(ui, state, rel, out);
    }
    if loaded.workspace.profile.agent.runs_in_a_subfolder() {
        runs_in(ui, state, out);
    }
    if let Some(caps) = loaded.workspace.caps {
        agent_caps(ui, state, loaded, caps, out);
    }
    budget_sliders(ui, state, loaded, out);
}

/// Session, model and profile pickers.
fn selectors(
    ui: &mut Ui,
    loaded: &crate::engine::Inspection,
    table: &ModelTable,
    profiles: &[String],
    out: &mut Vec<Command>,
) {
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
                            out.push(Command::SetSession(name.clone()));
                        }
                    }
                });
            ui.end_row();
            model_picker(ui, table, &model_now, out);
            ui.end_row();
            let chosen = loaded.workspace.profile.id();
            egui::ComboBox::new("profile-combo", "Profile")
                .selected_text(&chosen)
                .width(180.0)
                .show_ui(ui, |ui| {
                    for name in profiles {
                        if ui.selectable_label(*name == chosen, name).clicked() && *name != chosen {
                            out.push(Command::SetProfile(name.clone()));
                        }
                    }
                })
                .response
                .on_hover_text("How the folder becomes a prompt: which agent's rules assemble it");
            ui.end_row();
        });
}

/// The model picker, searchable: a field above the list keeps the
/// models whose id or provider holds what is typed (the table has dozens).
fn model_picker(ui: &mut Ui, table: &ModelTable, model_now: &str, out: &mut Vec<Command>) {
    let query_id = ui.make_persistent_id("model-search");
    let shown = egui::ComboBox::new("model-combo", "Model")
        .selected_text(model_now)
        .width(180.0)
        .height(360.0)
        .show_ui(ui, |ui| {
            let (mut query, opened) = ui
                .data_mut(|d| d.get_temp::<(String, bool)>(query_id))
                .unwrap_or_default();
            let field = ui.add(
                egui::TextEdit::singleline(&mut query)
                    .hint_text("Search models")
                    .desired_width(f32::INFINITY),
            );
            // The field takes the keyboard when the list opens.
            if !opened {
                field.request_focus();
            }
            ui.data_mut(|d| d.insert_temp(query_id, (query.clone(), true)));
            let q = query.trim().to_lowercase();
            let mut any = false;
            for m in table.models.iter().filter(|m| {
                q.is_empty()
                    || m.id.to_lowercase().contains(&q)
                    || m.provider.as_str().to_lowercase().contains(&q)
            }) {
                any = true;
                let label = format!(
                    "{} · {}{}",
                    m.id,
                    m.provider.as_str(),
                    if m.estimate { " (est.)" } else { "" }
                );
                if ui.selectable_label(m.id == model_now, label).clicked() && m.id != model_now {
                    out.push(Command::SetModel(m.id.clone()));
                }
            }
            if !any {
                ui.weak(format!("No model matches '{}'", query.trim()));
            }
        });
    // Closed: the next opening starts with an empty search.
    if shown.inner.is_none() {
        ui.data_mut(|d| d.remove::<(String, bool)>(query_id));
    }
}

/// The budget sliders (ranges that never depend on one another), the
/// reset, and the DEBUG markers switch.
fn budget_sliders(
    ui: &mut Ui,
    state: &AppState,
    loaded: &crate::engine::Inspection,
    out: &mut Vec<Command>,
) {
    ui.add_space(6.0);
    ui.strong("Budget");
    if loaded.workspace.profile.agent.is_real_agent() {
        // An agent's folder has no layer budgets to tune: what is sent is
        // the agent's caps' decision (their sliders, when it has caps).
        ui.add(
            egui::Label::new("The agent's own caps decide what is sent: no layer budgets.").wrap(),
        );
        markers_switch(ui, state, out);
        return;
    }
    let mut budget = state.budget;
    let b = &mut budget;
    // Ranges that never depend on another slider, so moving one never
    // rewrites another (a total below the fixed budgets is an overflow the
    // report shows, not something clamped away).
    let max_total = (loaded.default_budget.total * 4)
        .max(8000)
        .max(b.total)
        .max(b.layer1)
        .max(b.layer2);
    let mut changed = false;
    changed |= ui
        .add(
            egui::Slider::new(&mut b.total, 0..=max_total)
                .logarithmic(true)
                .custom_formatter(tokens_field)
                .custom_parser(parse_tokens)
                .text("Total budget"),
        )
        .changed();
    changed |= ui
        .add(
            egui::Slider::new(&mut b.layer1, 0..=max_total)
                .logarithmic(true)
                .custom_formatter(tokens_field)
                .custom_parser(parse_tokens)
                .text("Layer 1 fixed"),
        )
        .changed();
    changed |= ui
        .add(
            egui::Slider::new(&mut b.layer2, 0..=max_total)
                .logarithmic(true)
                .custom_formatter(tokens_field)
                .custom_parser(parse_tokens)
                .text("Layer 2 fixed"),
        )
        .changed();
    changed |= ui
        .add(
            egui::Slider::new(&mut b.layer3_ratio, 0.0..=1.0)
                .fixed_decimals(2)
                .text("Layer 3 ratio"),
        )
        .changed();
    if changed {
        out.push(Command::SetBudget(budget));
    }
    ui.horizontal(|ui| {
        if ui
            .add_enabled(
                state.budget_touched,
                egui::Button::new("Reset to workspace values"),
            )
            .clicked()
        {
            out.push(Command::ResetBudget);
        }
        markers_switch(ui, state, out);
    });
}

/// The DEBUG markers switch.
fn markers_switch(ui: &mut Ui, state: &AppState, out: &mut Vec<Command>) {
    let mut markers = state.debug_markers;
    let key = super::command::key_text(ui.ctx(), &Command::ToggleMarkers);
    if ui
        .checkbox(&mut markers, super::command::label(&Command::ToggleMarkers))
        .on_hover_text(format!(
            "Wrap every fragment in [[DEBUG:id]] … [[/DEBUG:id]] ({key})"
        ))
        .changed()
    {
        out.push(Command::SetMarkers(markers));
    }
}

/// The agent's user-level memory file (`~/.claude/CLAUDE.md`), which it
/// sends with every request: read too, or not.
fn home_memory_switch(ui: &mut Ui, state: &AppState, rel: &str, out: &mut Vec<Command>) {
    let mut on = state.user_memory;
    if ui
        .checkbox(&mut on, format!("Home memory (~/{rel})"))
        .on_hover_text(
            "The agent sends your user-level memory file with every request: shown here when this is on (as --user-memory)",
        )
        .changed()
    {
        out.push(Command::SetUserMemory(on));
    }
}

/// The folder the agent runs in (`--workdir`): the folder opened, or one
/// below it that holds one of its memory files (a file of the same name
/// as one it reads at the top), where it then reads the files on the way.
fn runs_in(ui: &mut Ui, state: &AppState, out: &mut Vec<Command>) {
    let shown = |w: Option<&str>| w.map_or("the folder opened".to_string(), |w| format!("{w}/"));
    ui.horizontal(|ui| {
        egui::ComboBox::new("runs-in-combo", "Runs in")
            .selected_text(shown(state.workdir.as_deref()))
            .width(180.0)
            .show_ui(ui, |ui| {
                let folders = state.runs_in.iter().map(|f| Some(f.as_str()));
                let choices = std::iter::once(None).chain(folders);
                for w in choices {
                    let on = state.workdir.as_deref() == w;
                    if ui.selectable_label(on, shown(w)).clicked() && !on {
                        out.push(Command::SetWorkdir(w.map(str::to_string)));
                    }
                }
            })
            .response
            .on_hover_text(
                "The folder the agent runs in (as --workdir): it reads its memory files from there up, and names that folder in its own text",
            );
    });
}

/// An agent profile's own trimming, in its units (characters), with what
/// they are worth in tokens on this workspace.
fn agent_caps(
    ui: &mut Ui,
    state: &AppState,
    loaded: &crate::engine::Inspection,
    (per_file, total): (usize, usize),
    out: &mut Vec<Command>,
) {
    use crate::engine::thousands;
    let a = &loaded.assembly;
    let (chars, tokens) = a
        .fragments
        .iter()
        .filter_map(|f| f.chars.map(|c| (c.1, f.kept_tokens)))
        .fold((0usize, 0u64), |(c, t), (x, y)| (c + x, t + y));
    let per_char = if chars == 0 {
        0.25
    } else {
        tokens as f64 / chars as f64
    };
    let tok = |n: usize| thousands((n as f64 * per_char).round() as u64);
    ui.add_space(6.0);
    ui.strong(format!(
        "{} caps (characters)",
        loaded.workspace.profile.name
    ));
    let (mut f, mut t) = (per_file, total);
    let mut changed = ui
        .add(
            egui::Slider::new(&mut f, 500..=200_000)
                .logarithmic(true)
                .custom_formatter(tokens_field)
                .custom_parser(parse_tokens)
                .text(format!("Per file (≈ {} tokens)", tok(per_file))),
        )
        .changed();
    changed |= ui
        .add(
            egui::Slider::new(&mut t, 1_000..=1_000_000)
                .logarithmic(true)
                .custom_formatter(tokens_field)
                .custom_parser(parse_tokens)
                .text(format!("Total (≈ {} tokens)", tok(total))),
        )
        .changed();
    if changed {
        out.push(Command::SetCaps(Some((f, t))));
    }
    if state.caps.is_some() && ui.button("Reset caps to the profile's").clicked() {
        out.push(Command::SetCaps(None));
    }
}

/// A budget field's figure with thousands separators (`193,400`), as every
/// other figure in the window.
fn tokens_field(n: f64, _: std::ops::RangeInclusive<usize>) -> String {
    crate::engine::thousands(n.max(0.0).round() as u64)
}

/// What is typed into a budget field: digits, with or without separators
/// (`193,400`, `193 400`, `193_400`).
fn parse_tokens(s: &str) -> Option<f64> {
    let digits: String = s
        .chars()
        .filter(|c| !matches!(c, ',' | '_' | ' ' | '\u{a0}' | '\u{202f}'))
        .collect();
    digits
        .parse::<f64>()
        .ok()
        .filter(|n| n.is_finite() && *n >= 0.0)
}

#[cfg(test)]
mod field_tests {
    use super::*;

    #[test]
    fn budget_fields_read_and_write_separators() {
        assert_eq!(tokens_field(193_400.0, 0..=0), "193,400");
        assert_eq!(parse_tokens("193,400"), Some(193_400.0));
        assert_eq!(parse_tokens("193 400"), Some(193_400.0));
        assert_eq!(parse_tokens("12_000"), Some(12_000.0));
        assert_eq!(parse_tokens("-5"), None);
        assert_eq!(parse_tokens("lots"), None);
    }
}
