//! The Agents window (View › Agents' own parts…): where each agent's own
//! parts (its system prompt, runtime context and tools) come from, the
//! bundled recordings and those learned from the user's requests (the
//! Traffic tab's "Learn", `agents learn`), with the one each agent's
//! folders use marked, and Forget on each learned one (`agents forget`).
//! The list is read when the window opens and after a forget: a few small
//! files, read on the spot.

use std::path::Path;

use egui::{RichText, Ui};

use super::command::Command;
use crate::learn::{Listed, PartsRow};

/// The window's state.
#[derive(Default)]
pub struct AgentsView {
    pub open: bool,
    /// The list as last read, with the observation files that could not
    /// be used; or why it could not be read.
    pub listed: Option<Result<Listed, String>>,
    /// What the last Forget did, in a sentence (or why it failed).
    pub said: Option<Result<String, String>>,
}

impl AgentsView {
    /// Opens the window with the list read afresh.
    pub fn open(&mut self, observed_dir: Option<&Path>) {
        self.open = true;
        self.said = None;
        self.refresh(observed_dir);
    }

    fn refresh(&mut self, observed_dir: Option<&Path>) {
        self.listed = Some(crate::learn::rows(
            crate::profiles_dir().as_deref(),
            observed_dir,
        ));
    }

    /// Forgets the observation `id` kept in `observed_dir`; whether it was
    /// (the folder views then reload to go back to the recording).
    pub fn forget(&mut self, observed_dir: Option<&Path>, id: &str) -> bool {
        let Some(dir) = observed_dir else {
            self.said = Some(Err("no data folder: set XDG_DATA_HOME or HOME".into()));
            return false;
        };
        let done = crate::learn::forget(dir, id);
        let ok = done.is_ok();
        self.said = Some(done.map(|(path, agent)| {
            format!(
                "forgot {id} ({}): {agent}'s folders are back to its bundled recording unless another observation is newer",
                path.display()
            )
        }));
        self.refresh(observed_dir);
        ok
    }
}

/// The window, when open.
pub fn show(
    ctx: &egui::Context,
    view: &mut AgentsView,
    observed_dir: Option<&Path>,
    out: &mut Vec<Command>,
) {
    if !view.open {
        return;
    }
    // Modal, as the open dialog: the window behind is dimmed and takes no
    // input while it is open; Escape, Close or a click outside closes it.
    let width = (ctx.content_rect().width() - 80.0).clamp(320.0, 760.0);
    let shown = egui::Modal::new(egui::Id::unique("agents-dialog")).show(ctx, |ui| {
        ui.set_width(width);
        ui.heading("Agents' own parts");
        body(ui, view, observed_dir, out);
        ui.separator();
        ui.button("Close").clicked()
    });
    if shown.inner || shown.should_close() {
        view.open = false;
    }
}

fn body(ui: &mut Ui, view: &AgentsView, observed_dir: Option<&Path>, out: &mut Vec<Command>) {
    ui.label(
        "Each agent's system prompt, runtime context and tools as a release sends them: recorded with this tool, or learned from your own requests (the Traffic tab's Learn, `prompt-inspector agents learn`).",
    );
    match observed_dir {
        Some(d) => ui.weak(format!("Learned parts are kept in {}", d.display())),
        None => ui
            .weak("No data folder (neither XDG_DATA_HOME nor HOME is set): nothing can be learned"),
    };
    match &view.said {
        Some(Ok(s)) => {
            ui.label(s);
        }
        Some(Err(e)) => {
            ui.colored_label(ui.visuals().error_fg_color, e);
        }
        None => {}
    }
    ui.separator();
    let (rows, bad) = match &view.listed {
        Some(Ok((rows, bad))) => (rows, bad),
        Some(Err(e)) => {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("cannot list the agents' parts: {e}"),
            );
            return;
        }
        None => return,
    };
    egui::ScrollArea::vertical()
        .max_height(ui.ctx().content_rect().height() * 0.6)
        .show(ui, |ui| table(ui, rows, out));
    ui.weak("(used): the one each agent's folders use unless a profile is named: the newest observation, else the newest recording");
    for b in bad {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("unreadable, not used: {b}"),
        );
    }
}

fn table(ui: &mut Ui, rows: &[PartsRow], out: &mut Vec<Command>) {
    egui::Grid::new("agents-grid")
        .num_columns(6)
        .striped(true)
        .spacing([16.0, 4.0])
        .show(ui, |ui| {
            for h in ["agent parts", "release", "blocks", "tools", "source", "kept in"] {
                // A figure's header over its figures: right-aligned.
                if matches!(h, "blocks" | "tools") {
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        ui.label(RichText::new(h).strong())
                    });
                } else {
                    ui.label(RichText::new(h).strong());
                }
            }
            ui.end_row();
            for r in rows {
                let id = if r.default {
                    RichText::new(format!("{} (used)", r.id)).strong()
                } else {
                    RichText::new(&r.id)
                };
                ui.label(id.monospace());
                ui.label(&r.release);
                right(ui, r.blocks);
                right(ui, r.tools);
                ui.label(&r.source);
                match &r.file {
                    Some(f) => {
                        if ui
                            .button(format!("Forget {}", r.id))
                            .on_hover_text(format!(
                                "remove {} ({}'s folders go back to the bundled recording unless another observation is newer)",
                                f.display(),
                                r.agent
                            ))
                            .clicked()
                        {
                            out.push(Command::ForgetParts(r.id.clone()));
                        }
                    }
                    None => {
                        ui.weak("bundled");
                    }
                }
                ui.end_row();
            }
        });
}

/// A count, right-aligned in its cell.
fn right(ui: &mut Ui, n: usize) {
    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
        ui.label(n.to_string());
    });
}
