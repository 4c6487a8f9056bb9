//! The problems panel: one list (errors first, then warnings, then cache
//! breakers) grouped by file, each kind with its mark, filtered by kind and
//! by text, each with its file, line and fragment; a click selects the
//! fragment it is about, "Open at line" opens the file in the user's
//! editor, F8 / Shift+F8 go to the next or previous one. The tab and the
//! status bar show the same count.

use egui::{RichText, Ui};

use super::colors;
use super::command::Command;
use super::state::AppState;
use crate::engine::problems::{Kind, Problem};

/// Which kinds and text are shown (all by default), and the problem F8
/// last went to.
#[derive(Debug, Clone, Default)]
pub struct ProblemsView {
    pub hidden: Vec<Kind>,
    /// Only the problems whose file, message or fragment holds this text
    /// (any case).
    pub text: String,
    /// The problem gone to with F8 / Shift+F8 (its index in the list).
    pub current: Option<usize>,
}

impl ProblemsView {
    /// Whether problem `p` is shown.
    fn shows(&self, p: &Problem) -> bool {
        let text = self.text.trim().to_lowercase();
        !self.hidden.contains(&p.kind)
            && (text.is_empty()
                || p.location().to_lowercase().contains(&text)
                || p.message.to_lowercase().contains(&text)
                || p.fragment
                    .as_deref()
                    .is_some_and(|f| f.to_lowercase().contains(&text)))
    }

    /// The problems shown, by their index in `all`, in the order shown:
    /// grouped by file, the files in the order of their first problem
    /// (errors first), each file's in the list's order.
    pub fn shown(&self, all: &[Problem]) -> Vec<usize> {
        let mut files: Vec<&str> = Vec::new();
        for p in all.iter().filter(|p| self.shows(p)) {
            if !files.contains(&p.file.as_str()) {
                files.push(&p.file);
            }
        }
        files
            .iter()
            .flat_map(|f| {
                all.iter()
                    .enumerate()
                    .filter(move |(_, p)| p.file == *f && self.shows(p))
                    .map(|(i, _)| i)
            })
            .collect()
    }

    /// Goes to the next (or previous) problem shown, wrapping around; the
    /// fragment it is about, to select.
    pub fn step(&mut self, all: &[Problem], forward: bool) -> Option<String> {
        let shown = self.shown(all);
        if shown.is_empty() {
            self.current = None;
            return None;
        }
        let at = self
            .current
            .and_then(|c| shown.iter().position(|&i| i == c));
        let next = match (at, forward) {
            (None, true) => 0,
            (None, false) => shown.len() - 1,
            (Some(i), true) => (i + 1) % shown.len(),
            (Some(i), false) => (i + shown.len() - 1) % shown.len(),
        };
        self.current = Some(shown[next]);
        all[shown[next]].fragment.clone()
    }
}

pub(super) fn color(k: Kind) -> egui::Color32 {
    match k {
        Kind::Error => colors::ERROR,
        Kind::Warning => colors::WARNING,
        Kind::CacheBreaker => colors::CACHE_BREAKER,
    }
}

/// A kind's mark before its rows, as editors show them.
pub(super) fn icon(k: Kind) -> &'static str {
    match k {
        Kind::Error => "×",
        Kind::Warning => "▲",
        Kind::CacheBreaker => "●",
    }
}

/// The panel: the kinds and a text filter, then the problems grouped by
/// file; a clicked location pushes [`Command::Select`], "Open at line"
/// [`Command::OpenInEditor`]; F8 / Shift+F8 go from one to the next.
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
        ui.label("Filter");
        ui.add(
            egui::TextEdit::singleline(&mut view.text)
                .hint_text("file, message or fragment")
                .desired_width(180.0),
        );
        ui.separator();
        for k in Kind::ALL {
            let n = all.iter().filter(|p| p.kind == k).count();
            let mut on = !view.hidden.contains(&k);
            let label = RichText::new(format!("{} {}", icon(k), plural(n, k.word())))
                .color(colors::text(ui, color(k)));
            if ui.checkbox(&mut on, label).changed() {
                view.hidden.retain(|h| *h != k);
                if !on {
                    view.hidden.push(k);
                }
            }
        }
        ui.separator();
        // One phrase: wrapped whole, never "previous" alone on a line.
        ui.weak("F8\u{a0}next\u{a0}·\u{a0}Shift+F8\u{a0}previous");
    });
    let shown = view.shown(all);
    if shown.is_empty() {
        ui.weak("No problem matches the filter.");
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("problems-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let mut at = 0;
            while at < shown.len() {
                let file = &all[shown[at]].file;
                let n = shown[at..]
                    .iter()
                    .take_while(|&&i| all[i].file == *file)
                    .count();
                let title = if file.is_empty() { "workspace" } else { file };
                egui::CollapsingHeader::new(
                    RichText::new(format!("{title}  ({})", plural(n, "problem"))).strong(),
                )
                .id_salt(("problems-file", file))
                .default_open(true)
                .show(ui, |ui| {
                    for &i in &shown[at..at + n] {
                        row(ui, state, &all[i], view.current == Some(i), out);
                    }
                });
                at += n;
            }
        });
}

fn row(ui: &mut Ui, state: &AppState, p: &Problem, current: bool, out: &mut Vec<Command>) {
    let frame = egui::Frame::new().inner_margin(2.0);
    let frame = if current {
        frame.fill(ui.visuals().selection.bg_fill.gamma_multiply(0.4))
    } else {
        frame
    };
    frame.show(ui, |ui| {
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(
                colors::text(ui, color(p.kind)),
                format!("{} {}", icon(p.kind), p.kind.word()),
            );
            // A location with a fragment is a link that selects it; one without
            // (a file that could not be read) is plain text, as readable.
            match &p.fragment {
                Some(f) => {
                    if ui
                        .link(RichText::new(p.location()).monospace())
                        .on_hover_text(format!("Select {f}"))
                        .clicked()
                    {
                        out.push(match p.line {
                            Some(l) => Command::SelectLine(f.clone(), l),
                            None => Command::Select(f.clone()),
                        });
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
    });
}

/// `1 warning`, `2 warnings`.
pub fn plural(n: usize, word: &str) -> String {
    crate::engine::plural(n, word)
}
