//! The diff view: pick two sides (a snapshot, a session assembled live, or
//! the current state), see the summary (fragments, layers, cache impact)
//! above a unified or side-by-side diff coloured by change, grouped by
//! fragment.

use std::path::PathBuf;

use egui::{Color32, RichText, Ui};

use super::command::{self, Command};

use crate::engine::compare::diff::{Diff, DiffLine};
use crate::engine::compare::diff_report;

#[derive(Debug, Clone, PartialEq)]
pub enum Side {
    Live,
    Session(String),
    Snapshot(PathBuf),
    /// A request recorded in a capture (1-based).
    Request {
        capture: PathBuf,
        index: usize,
    },
}

impl Side {
    pub fn label(&self) -> String {
        match self {
            Side::Live => "live (current state)".into(),
            Side::Session(s) => format!("session {s} (live)"),
            Side::Request { capture, index } => format!(
                "request #{index} of {}",
                capture
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            ),
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
    /// Show unchanged fragments too (off: only what changed).
    pub show_all: bool,
    pub result: Option<Result<Diff, String>>,
    pub dirty: bool,
    /// A comparison is under way on the worker.
    pub pending: bool,
    /// Bumped on every comparison asked for; a result of an older one is
    /// ignored, and groups open afresh for a new one.
    pub generation: u64,
    /// Side B's request traced to the open workspace: each part's files
    /// (shown under the part's group, each opening in the editor).
    pub sources: Option<Sources>,
    /// What is typed in each side's "a recorded request" field
    /// (`CAPTURE#N`), and why the last one typed was not taken.
    pub typed: [String; 2],
    pub typed_error: Option<String>,
}

/// A recorded request as typed: `CAPTURE#N` (a capture or transcript of
/// any folder, its request N, 1-based).
pub fn parse_request(text: &str) -> Result<Side, String> {
    let text = text.trim();
    let (file, n) = text
        .rsplit_once('#')
        .ok_or_else(|| format!("“{text}”: a capture and a request number, as FILE#N"))?;
    let index = n
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("“{n}”: not a request number (1 for the first)"))?;
    if file.trim().is_empty() {
        return Err(format!("“{text}”: no capture before the #"));
    }
    Ok(Side::Request {
        capture: PathBuf::from(file.trim()),
        index,
    })
}

/// A recorded request's parts traced to the workspace they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Sources {
    pub root: PathBuf,
    /// The request traced (1-based): shown only while it is side B.
    pub request: usize,
    pub parts: Vec<crate::engine::traffic::attribution::PartSource>,
}

impl Default for DiffView {
    fn default() -> Self {
        DiffView {
            a: Side::Live,
            b: Side::Live,
            side_by_side: false,
            show_all: false,
            result: None,
            dirty: true,
            pending: false,
            generation: 0,
            sources: None,
            typed: Default::default(),
            typed_error: None,
        }
    }
}

const ADD: Color32 = super::colors::GOOD;
const DEL: Color32 = super::colors::ERROR;

/// A side's choices: live, a session, a snapshot, or a recorded request
/// of any capture (typed as `CAPTURE#N`, as `traffic --with` takes it).
fn picker(
    ui: &mut Ui,
    (id, label): (&str, &str),
    side: &mut Side,
    typed: &mut String,
    (sessions, snapshots): (&[String], &[PathBuf]),
    error: &mut Option<String>,
) -> bool {
    let mut changed = false;
    // The side's letter before its box (egui puts a combo's label after
    // it, where it reads as the next box's).
    ui.strong(label);
    egui::ComboBox::from_id_salt(id)
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
            ui.separator();
            ui.label("a recorded request, of any capture:");
            ui.horizontal(|ui| {
                let field = ui.add(
                    egui::TextEdit::singleline(typed)
                        .hint_text("capture.jsonl#3")
                        .desired_width(200.0),
                );
                let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if ui.button("Use").clicked() || enter {
                    match parse_request(typed) {
                        Ok(o) => {
                            *error = None;
                            changed |= *side != o;
                            *side = o;
                            ui.close();
                        }
                        Err(e) => *error = Some(e),
                    }
                }
            });
        });
    changed
}

fn line_ui(ui: &mut Ui, l: &DiffLine) {
    let (color, bg) = match l.tag {
        '+' => (ADD, ADD.gamma_multiply(0.12)),
        '-' => (DEL, DEL.gamma_multiply(0.12)),
        _ => (ui.visuals().weak_text_color(), Color32::TRANSPARENT),
    };
    // Readable on the tinted line as on the panel.
    let panel = ui.visuals().panel_fill;
    let color = super::colors::readable_on(color, &[panel, super::colors::over(bg, panel)]);
    // The sign in a gutter of its own, apart from the text ("-- path" read
    // as a removed "- path" or a removed "-- path"), as editors show it.
    ui.label(
        RichText::new(format!("{} │ {}", l.tag, l.text))
            .monospace()
            .color(color)
            .background_color(bg),
    );
}

fn summary(ui: &mut Ui, d: &Diff) {
    if d.identical {
        ui.colored_label(
            super::colors::text(ui, ADD),
            "Identical: both sides assemble to the same prompt.",
        );
        return;
    }
    for (i, line) in diff_report::change_lines(d, false).iter().enumerate() {
        if i == 0 {
            ui.strong(line.trim());
        } else {
            ui.label(line.trim());
        }
    }
    ui.horizontal_wrapped(|ui| {
        for b in &d.breakpoints {
            let text = format!("breakpoint {} at {}: {}", b.index, b.name, b.state());
            // A new one is written as expected, one below the minimum
            // holds nothing: not a loss.
            if b.new || b.below_minimum {
                ui.label(text);
            } else {
                ui.colored_label(
                    super::colors::text(
                        ui,
                        if b.invalidated || b.expired || b.not_read {
                            DEL
                        } else {
                            ADD
                        },
                    ),
                    text,
                );
            }
        }
    });
    ui.label(diff_report::rewrite_line(d));
}

/// Groups of consecutive lines of one fragment (changed groups first open).
fn groups(lines: &[DiffLine]) -> Vec<(Option<String>, Vec<&DiffLine>)> {
    let mut out: Vec<(Option<String>, Vec<&DiffLine>)> = Vec::new();
    for (j, l) in lines.iter().enumerate() {
        let frag = diff_report::line_fragment(lines, j);
        match out.last_mut() {
            Some((f, v)) if *f == frag => v.push(l),
            _ => out.push((frag, vec![l])),
        }
    }
    out
}

/// Draws the view; asks for a comparison ([`Command::ComputeDiff`]) when
/// its sides changed, and for a snapshot on request.
pub fn show(
    ui: &mut Ui,
    view: &mut DiffView,
    sessions: &[String],
    snapshots: &[PathBuf],
    out: &mut Vec<Command>,
) {
    ui.horizontal_wrapped(|ui| {
        let [ta, tb] = &mut view.typed;
        let lists = (sessions, snapshots);
        let e = &mut view.typed_error;
        let changed = picker(ui, ("diff-a", "A"), &mut view.a, ta, lists, e)
            | picker(ui, ("diff-b", "B"), &mut view.b, tb, lists, e);
        if changed {
            // The files traced were of the request B was before.
            view.sources = None;
            view.dirty = true;
        }
        if ui.button("Compare").clicked() {
            view.dirty = true;
        }
        ui.checkbox(&mut view.side_by_side, "side by side");
        ui.checkbox(&mut view.show_all, "show unchanged fragments");
        let key = command::key_text(ui.ctx(), &Command::SaveSnapshot);
        if ui.button(format!("Save snapshot ({key})")).clicked() {
            out.push(Command::SaveSnapshot);
        }
        if view.pending {
            ui.spinner();
            ui.weak("comparing…");
        }
    });
    if let Some(e) = &view.typed_error {
        ui.colored_label(super::colors::text(ui, DEL), e);
    }
    if view.dirty {
        out.push(Command::ComputeDiff);
    }
    ui.separator();
    let d = match &view.result {
        None => return,
        Some(Err(e)) => {
            ui.colored_label(super::colors::text(ui, DEL), e);
            return;
        }
        Some(Ok(d)) => d,
    };
    egui::ScrollArea::vertical()
        .id_salt("diff-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            summary(ui, d);
            ui.separator();
            fragment_groups(ui, view, d, out);
        });
}

/// The lines of the diff grouped by fragment, each group collapsible (the
/// changed ones open); unchanged groups hidden unless asked for.
fn fragment_groups(ui: &mut Ui, view: &DiffView, d: &Diff, out: &mut Vec<Command>) {
    let sources = view.sources.as_ref().filter(|s| {
        d.recorded && matches!(view.b, Side::Request { index, .. } if index == s.request)
    });
    let groups = groups(&d.lines);
    // Which block each group belongs to, and which blocks changed.
    let mut block_of = Vec::with_capacity(groups.len());
    let mut block = 0usize;
    for (frag, lines) in &groups {
        if frag.is_none() && lines.first().is_some_and(|l| l.text.starts_with("=== ")) {
            block += 1;
        }
        block_of.push(block);
    }
    let changed_blocks: Vec<usize> = groups
        .iter()
        .zip(&block_of)
        .filter(|((_, lines), _)| lines.iter().any(|l| l.tag != ' '))
        .map(|(_, b)| *b)
        .collect();
    let hidden = unchanged_fragments(&groups);
    if !view.show_all && !hidden.is_empty() {
        ui.weak(format!(
            "{} hidden: their text is the same on both sides",
            crate::engine::plural(hidden.len(), "fragment")
        ));
    }
    for (i, ((frag, lines), blk)) in groups.into_iter().zip(block_of).enumerate() {
        let changed = lines.iter().any(|l| l.tag != ' ');
        let header = frag.is_none();
        // A recorded request's positions are its fragments: their
        // groups already name them.
        if header && d.recorded {
            continue;
        }
        if !view.show_all && !changed && (!header || !changed_blocks.contains(&blk)) {
            continue;
        }
        let title = match &frag {
            Some(f) => format!("{}{f}", if changed { "● " } else { "" }),
            None => lines
                .first()
                .map(|l| l.text.trim_matches(['=', ' ']).to_string())
                .unwrap_or_else(|| format!("system block {blk}")),
        };
        let id = ui.make_persistent_id(("diff-group", view.generation, i));
        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, changed)
            .show_header(ui, |ui| {
                ui.label(RichText::new(title).monospace());
                // Where a recorded part's text came from, beside its name.
                if let (Some(s), Some(f)) = (sources, &frag) {
                    part_files(ui, s, f, out);
                }
            })
            .body(|ui| group_lines(ui, &lines, view.side_by_side));
    }
}

/// The fragments whose text is the same on both sides (fragments, not
/// groups: a fragment's text can come in two groups), each once; only
/// those with text on a side (the summary above lists those whose status
/// changed with no text on either side).
fn unchanged_fragments<'g>(groups: &'g [(Option<String>, Vec<&DiffLine>)]) -> Vec<&'g str> {
    let with = |changed: bool| -> Vec<&'g str> {
        groups
            .iter()
            .filter(|(_, lines)| lines.iter().any(|l| l.tag != ' ') == changed)
            .filter_map(|(f, _)| f.as_deref())
            .collect()
    };
    let shown = with(true);
    let mut hidden = with(false);
    hidden.retain(|f| !shown.contains(f));
    hidden.sort_unstable();
    hidden.dedup();
    hidden
}

/// A group's lines, one column, or side by side (removed left, added
/// right, the same on both).
fn group_lines(ui: &mut Ui, lines: &[&DiffLine], side_by_side: bool) {
    if side_by_side {
        ui.columns(2, |cols| {
            for l in lines {
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
        for l in lines {
            line_ui(ui, l);
        }
    }
}

/// The workspace files a recorded part's text came from, each a button
/// that opens the file in the editor.
fn part_files(ui: &mut Ui, s: &Sources, part: &str, out: &mut Vec<Command>) {
    let Some(p) = s.parts.iter().find(|p| p.label == part) else {
        return;
    };
    if p.from_files.is_empty() {
        return;
    }
    let dark = ui.visuals().dark_mode;
    ui.weak("from");
    for (file, tokens) in &p.from_files {
        let text = RichText::new(format!("{file} · {}", super::thousands(*tokens)))
            .color(super::colors::text(ui, super::colors::fragment(file, dark)));
        if ui
            .button(text)
            .on_hover_text(format!("Open {file} in the editor"))
            .clicked()
        {
            out.push(Command::OpenInEditor(s.root.join(file), None));
        }
    }
    if p.from_no_file > 0 {
        ui.weak(format!("· no file {}", super::thousands(p.from_no_file)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(tag: char, text: &str, fragment: &str) -> DiffLine {
        DiffLine {
            tag,
            text: text.into(),
            fragment: Some(fragment.into()),
        }
    }

    #[test]
    fn a_fragment_is_hidden_once_and_only_when_none_of_its_text_changed() {
        let lines = vec![
            line(' ', "same", "a"),
            line(' ', "same", "b"),
            line('+', "new", "a"),
            line(' ', "same", "b"),
            line(' ', "same", "c"),
        ];
        let groups = groups(&lines);
        assert_eq!(unchanged_fragments(&groups), vec!["b", "c"]);
    }
}
