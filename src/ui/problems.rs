//! The problems panel: one list (errors first, then warnings, then cache
//! breakers), filtered by kind, each with its file, line and fragment; a
//! click selects the fragment it is about, "Open at line" opens the file in
//! the user's editor. The tab and the status bar show the same count.

use egui::{RichText, Ui};

use super::colors;
use super::command::Command;
use super::state::AppState;
use crate::engine::problems::{Kind, Problem};

/// Which kinds are shown (all by default).
#[derive(Debug, Clone, Default)]
pub struct ProblemsView {
    pub hidden: Vec<Kind>,
}

fn color(k: Kind) -> egui::Color32 {
    match k {
        Kind::Error => colors::ERROR,
        Kind::Warning => colors::WARNING,
        Kind::CacheBreaker => colors::CACHE_BREAKER,
    }
}

/// The panel; a clicked location pushes [`Command::Select`], "Open at
/// line" [`Command::OpenInEditor`].
pub fn show(ui: &mut Ui, state: &AppState, view: &mut ProblemsView, out: &mut Vec<Command>) {
    let all = &state.problems;
    if state.loaded.is_none() {
        return;
    }
    if all.is_empty() {
        ui.label("No problems: every file was read and understood, nothing over budget, no cache breaker.");
        return;
    }
    ui.horizontal_wrapped(|ui| {
        for k in Kind::ALL {
            let n = all.iter().filter(|p| p.kind == k).count();
            let mut on = !view.hidden.contains(&k);
            let label = RichText::new(plural(n, k.word())).color(colors::text(ui, color(k)));
            if ui.checkbox(&mut on, label).changed() {
                view.hidden.retain(|h| *h != k);
                if !on {
                    view.hidden.push(k);
                }
            }
        }
    });
    egui::ScrollArea::vertical()
        .id_salt("problems-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for p in all.iter().filter(|p| !view.hidden.contains(&p.kind)) {
                row(ui, state, p, out);
            }
        });
}

fn row(ui: &mut Ui, state: &AppState, p: &Problem, out: &mut Vec<Command>) {
    ui.horizontal_wrapped(|ui| {
        ui.colored_label(colors::text(ui, color(p.kind)), p.kind.word());
        // A location with a fragment is a link that selects it; one without
        // (a file that could not be read) is plain text, as readable.
        match &p.fragment {
            Some(f) => {
                if ui
                    .link(RichText::new(p.location()).monospace())
                    .on_hover_text(format!("Select {f}"))
                    .clicked()
                {
                    out.push(Command::Select(f.clone()));
                }
            }
            None => {
                ui.label(RichText::new(p.location()).monospace())
                    .on_hover_text("No fragment comes from here to select");
            }
        }
        ui.label(&p.message);
        if let Some(root) = &state.root
            && !p.file.is_empty()
            && !p.file.starts_with('/')
            && !p.file.starts_with("~/")
            && !p.file.split('/').any(|c| c == "..")
            && ui.small_button("Open at line").clicked()
        {
            out.push(Command::OpenInEditor(root.join(&p.file), p.line));
        }
    });
}

/// `1 warning`, `2 warnings`.
pub fn plural(n: usize, word: &str) -> String {
    crate::engine::plural(n as u64, word)
}
