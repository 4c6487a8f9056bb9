//! The diff view: pick two sides (a snapshot, a session assembled live, or
//! the current state), see the summary (fragments, layers, cache impact)
//! above a unified or side-by-side diff coloured by change, grouped by
//! fragment.

use std::path::PathBuf;

use egui::{Color32, RichText, Ui};

use crate::engine::diff::{self, Diff, DiffLine};

#[derive(Debug, Clone, PartialEq)]
pub enum Side {
    Live,
    Session(String),
    Snapshot(PathBuf),
}

impl Side {
    pub fn label(&self) -> String {
        match self {
            Side::Live => "live (current state)".into(),
            Side::Session(s) => format!("session {s} (live)"),
            Side::Snapshot(p) => format!(
                "snapshot {}",
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ),
        }
    }
}

pub struct DiffView {
    pub a: Side,
    pub b: Side,
    pub side_by_side: bool,
    pub result: Option<Result<Diff, String>>,
    pub dirty: bool,
    /// Bumped on every new result, so groups open afresh.
    pub generation: u64,
}

impl Default for DiffView {
    fn default() -> Self {
        DiffView {
            a: Side::Live,
            b: Side::Live,
            side_by_side: false,
            result: None,
            dirty: true,
            generation: 0,
        }
    }
}

pub enum DiffIntent {
    Compute,
    SaveSnapshot,
}

const ADD: Color32 = Color32::from_rgb(0x43, 0xA0, 0x47);
const DEL: Color32 = Color32::from_rgb(0xE5, 0x39, 0x35);

fn picker(
    ui: &mut Ui,
    id: &str,
    label: &str,
    side: &mut Side,
    sessions: &[String],
    snapshots: &[PathBuf],
) -> bool {
    let mut changed = false;
    egui::ComboBox::new(id, label)
        .selected_text(side.label())
        .width(280.0)
        .show_ui(ui, |ui| {
            let mut options = vec![Side::Live];
            options.extend(sessions.iter().map(|s| Side::Session(s.clone())));
            options.extend(snapshots.iter().map(|p| Side::Snapshot(p.clone())));
            for o in options {
                if ui.selectable_label(*side == o, o.label()).clicked() && *side != o {
                    *side = o;
                    changed = true;
                }
            }
        });
    changed
}

fn line_ui(ui: &mut Ui, l: &DiffLine) {
    let (color, bg) = match l.tag {
        '+' => (ADD, ADD.gamma_multiply(0.12)),
        '-' => (DEL, DEL.gamma_multiply(0.12)),
        _ => (ui.visuals().weak_text_color(), Color32::TRANSPARENT),
    };
    ui.label(
        RichText::new(format!("{}{}", l.tag, l.text))
            .monospace()
            .color(color)
            .background_color(bg),
    );
}

fn summary(ui: &mut Ui, d: &Diff) {
    if d.identical {
        ui.colored_label(ADD, "Identical: both sides assemble to the same prompt.");
        return;
    }
    for (i, line) in diff::change_lines(d, false).iter().enumerate() {
        if i == 0 {
            ui.strong(line.trim());
        } else {
            ui.label(line.trim());
        }
    }
    ui.horizontal_wrapped(|ui| {
        for b in &d.breakpoints {
            let text = format!(
                "breakpoint {} (block {}, layer {}): {}",
                b.index,
                b.block,
                b.layer,
                if b.invalidated {
                    "invalidated"
                } else {
                    "still valid"
                }
            );
            ui.colored_label(if b.invalidated { DEL } else { ADD }, text);
        }
    });
    ui.label(diff::rewrite_line(d));
}

/// Groups of consecutive lines of one fragment (changed groups first open).
fn groups(lines: &[DiffLine]) -> Vec<(Option<String>, Vec<&DiffLine>)> {
    let mut out: Vec<(Option<String>, Vec<&DiffLine>)> = Vec::new();
    for l in lines {
        let frag = if l.fragment.is_none() && l.text.is_empty() {
            out.last().and_then(|g| g.0.clone())
        } else {
            l.fragment.clone()
        };
        match out.last_mut() {
            Some((f, v)) if *f == frag => v.push(l),
            _ => out.push((frag, vec![l])),
        }
    }
    out
}

pub fn show(
    ui: &mut Ui,
    view: &mut DiffView,
    sessions: &[String],
    snapshots: &[PathBuf],
) -> Option<DiffIntent> {
    let mut intent = None;
    ui.horizontal_wrapped(|ui| {
        view.dirty |= picker(ui, "diff-a", "A", &mut view.a, sessions, snapshots);
        view.dirty |= picker(ui, "diff-b", "B", &mut view.b, sessions, snapshots);
        if ui.button("Compare").clicked() {
            view.dirty = true;
        }
        ui.checkbox(&mut view.side_by_side, "side by side");
        if ui.button("Save snapshot (Ctrl+S)").clicked() {
            intent = Some(DiffIntent::SaveSnapshot);
        }
    });
    if view.dirty {
        intent = intent.or(Some(DiffIntent::Compute));
    }
    ui.separator();
    let d = match &view.result {
        None => return intent,
        Some(Err(e)) => {
            ui.colored_label(DEL, e);
            return intent;
        }
        Some(Ok(d)) => d,
    };
    egui::ScrollArea::vertical()
        .id_salt("diff-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            summary(ui, d);
            ui.separator();
            for (i, (frag, lines)) in groups(&d.lines).into_iter().enumerate() {
                let changed = lines.iter().any(|l| l.tag != ' ');
                let title = match &frag {
                    Some(f) => format!("{}{f}", if changed { "● " } else { "" }),
                    None => "(block header)".into(),
                };
                egui::CollapsingHeader::new(RichText::new(title).monospace())
                    .id_salt(("diff-group", view.generation, i))
                    .default_open(changed)
                    .show(ui, |ui| {
                        if view.side_by_side {
                            ui.columns(2, |cols| {
                                for l in &lines {
                                    match l.tag {
                                        '-' => line_ui(&mut cols[0], l),
                                        '+' => line_ui(&mut cols[1], l),
                                        _ => {
                                            line_ui(&mut cols[0], l);
                                            line_ui(&mut cols[1], l);
                                        }
                                    }
                                }
                            });
                        } else {
                            for l in &lines {
                                line_ui(ui, l);
                            }
                        }
                    });
            }
        });
    intent
}
