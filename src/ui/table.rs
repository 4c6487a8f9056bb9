//! The fragment table: sortable by any column, filtered by text and status,
//! virtualised (only visible rows are laid out), selection shared with the
//! bars and the prompt view.

use egui::{RichText, Sense, Ui};
use egui_extras::{Column, TableBuilder};

use super::colors;
use super::command::Command;
use super::state::{AppState, SortColumn, TableView, status_index};
use crate::engine::Status;

/// The filter row (the table's own view state); `focus_filter` puts the
/// cursor in the filter box.
pub fn filters(ui: &mut Ui, state: &AppState, view: &mut TableView, focus_filter: bool) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Filter:");
        let r = ui.add(
            egui::TextEdit::singleline(&mut view.filter)
                .hint_text("id, source or reason (Ctrl+F)")
                .desired_width(220.0),
        );
        if focus_filter {
            r.request_focus();
        }
        if !view.filter.is_empty()
            && ui
                .small_button("clear")
                .on_hover_text("Clear the filter")
                .clicked()
        {
            view.filter.clear();
        }
        ui.separator();
        for s in Status::ALL {
            let i = status_index(s);
            let count = state
                .assembly()
                .map(|a| a.fragments.iter().filter(|f| f.status == s).count())
                .unwrap_or(0);
            let text = RichText::new(format!("{} {count}", s.as_str()))
                .color(colors::text(ui, colors::status(s)));
            ui.toggle_value(&mut view.status_filter[i], text);
        }
    });
}

/// Arrow keys move the selection through the rows as listed (when no text
/// field has the keyboard): the row moved to, to scroll to it.
fn arrow_keys(
    ui: &Ui,
    rows: &[usize],
    frags: &[crate::engine::assembly::assemble::FragmentResult],
    selected: Option<&str>,
    out: &mut Vec<Command>,
) -> Option<usize> {
    if ui.ctx().egui_wants_keyboard_input() || rows.is_empty() {
        return None;
    }
    let (up, down) = ui.input(|i| {
        (
            i.key_pressed(egui::Key::ArrowUp),
            i.key_pressed(egui::Key::ArrowDown),
        )
    });
    if !up && !down {
        return None;
    }
    let at = selected.and_then(|id| rows.iter().position(|&r| frags[r].id == id));
    let next = match (at, down) {
        (None, _) => 0,
        (Some(i), true) => (i + 1).min(rows.len() - 1),
        (Some(i), false) => i.saturating_sub(1),
    };
    (Some(next) != at).then(|| {
        out.push(Command::Select(frags[rows[next]].id.clone()));
        next
    })
}

/// The table; a clicked row pushes [`Command::Select`].
pub fn table(ui: &mut Ui, state: &AppState, view: &mut TableView, out: &mut Vec<Command>) {
    let Some(loaded) = state.loaded.as_ref() else {
        return;
    };
    let rows = view.visible_rows(&loaded.assembly);
    let frags = &loaded.assembly.fragments;
    let selected = state.selected.as_deref();
    let scroll_to = arrow_keys(ui, &rows, frags, selected, out);
    let mut sort_clicks: Vec<SortColumn> = Vec::new();
    // Wide reasons scroll sideways instead of being cut.
    egui::ScrollArea::horizontal()
        .id_salt("fragment-table-h")
        .show(ui, |ui| {
            let mut builder = TableBuilder::new(ui);
            if let Some(i) = scroll_to {
                builder = builder.scroll_to_row(i, None);
            }
            builder
                .id_salt("fragment-table")
                .striped(true)
                .resizable(true)
                .sense(Sense::click())
                .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
                .column(Column::initial(165.0).at_least(80.0).clip(true))
                .column(Column::exact(62.0))
                .column(Column::exact(58.0))
                .column(Column::initial(120.0).at_least(60.0).clip(true))
                .column(Column::exact(70.0))
                .column(Column::exact(58.0))
                .column(Column::exact(96.0))
                .column(Column::initial(520.0).at_least(120.0).clip(true))
                .header(22.0, |mut h| {
                    let mut head = |h: &mut egui_extras::TableRow, label: &str, col: SortColumn| {
                        h.col(|ui| {
                            let arrow = if view.sort == col {
                                if view.sort_ascending { " ▲" } else { " ▼" }
                            } else {
                                ""
                            };
                            if ui
                                .button(RichText::new(format!("{label}{arrow}")).strong())
                                .on_hover_text(format!("Sort by {label}"))
                                .clicked()
                            {
                                sort_clicks.push(col);
                            }
                        });
                    };
                    head(&mut h, "id", SortColumn::Id);
                    head(&mut h, "layer", SortColumn::Layer);
                    head(&mut h, "prio", SortColumn::Priority);
                    head(&mut h, "source", SortColumn::Source);
                    head(&mut h, "tokens", SortColumn::Tokens);
                    head(&mut h, "kept", SortColumn::Kept);
                    head(&mut h, "status", SortColumn::Status);
                    head(&mut h, "reason", SortColumn::Order);
                })
                .body(|body| {
                    body.rows(20.0, rows.len(), |mut row| {
                        let f = &frags[rows[row.index()]];
                        row.set_selected(selected == Some(f.id.as_str()));
                        row.col(|ui| {
                            ui.add(egui::Label::new(&f.id).truncate().selectable(false));
                        });
                        row.col(|ui| {
                            ui.label(f.layer.to_string());
                        });
                        row.col(|ui| {
                            ui.label(f.priority.to_string());
                        });
                        row.col(|ui| {
                            ui.add(egui::Label::new(&f.source).truncate().selectable(false));
                        });
                        row.col(|ui| {
                            ui.label(f.tokens.to_string());
                        });
                        row.col(|ui| {
                            ui.label(f.kept_tokens.to_string());
                        });
                        row.col(|ui| {
                            ui.colored_label(
                                colors::text(ui, colors::status(f.status)),
                                f.status.as_str(),
                            );
                        });
                        row.col(|ui| {
                            ui.add(egui::Label::new(&f.reason).truncate().selectable(false));
                        });
                        if row.response().clicked() {
                            out.push(Command::Select(f.id.clone()));
                        }
                    });
                });
        });
    for c in sort_clicks {
        view.toggle_sort(c);
    }
}
