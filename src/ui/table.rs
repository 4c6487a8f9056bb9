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
    // One line whatever the width (a wrapped row moved the table down when
    // the detail panel opened): narrower, it scrolls sideways (drag, or
    // Shift and the wheel).
    let compact = ui.available_width() < COMPACT_BELOW;
    egui::ScrollArea::horizontal()
        .id_salt("fragment-filters")
        // A bar that came and went with the width would move the rows.
        .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysHidden)
        .show(ui, |ui| {
            ui.horizontal(|ui| filter_row(ui, state, view, (focus_filter, compact)))
        });
}

/// The width under which the filter row is drawn compact: a shorter box,
/// each chip its colour and count (its status on hover), so that every
/// chip stays in reach of the pointer.
const COMPACT_BELOW: f32 = 760.0;

/// The filter box, its clear button and a chip per status.
fn filter_row(
    ui: &mut Ui,
    state: &AppState,
    view: &mut TableView,
    (focus_filter, compact): (bool, bool),
) {
    ui.label("Filter:");
    let r = ui.add(
        egui::TextEdit::singleline(&mut view.filter)
            .hint_text(if compact {
                "id, source, reason"
            } else {
                "id, source or reason (Ctrl+F)"
            })
            .desired_width(if compact { 130.0 } else { 220.0 }),
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
        // The status's colour on a swatch, the words in the theme's
        // text colour: readable on the chip's fill, selected or not.
        let font = egui::TextStyle::Button.resolve(ui.style());
        let mut job = egui::text::LayoutJob::default();
        let format = |color| egui::TextFormat {
            font_id: font.clone(),
            color,
            ..Default::default()
        };
        let words = if compact {
            count.to_string()
        } else {
            format!("{} {count}", s.as_str())
        };
        let fill = if view.status_filter[i] {
            ui.visuals().selection.bg_fill
        } else {
            ui.visuals().widgets.inactive.weak_bg_fill
        };
        // The dot alone tells the statuses apart in a narrow window: at
        // 3:1 on the chip's fill, selected or not (it was 1.4:1 for the
        // orange on the light theme's selection).
        let dot = colors::visible_on(colors::status(s), &[fill, over_panel(ui, fill)]);
        job.append("● ", 0.0, format(dot));
        let words_color = colors::readable_on(ui.visuals().text_color(), &[fill]);
        job.append(&words, 0.0, format(words_color));
        ui.toggle_value(&mut view.status_filter[i], job)
            .on_hover_text(format!("Show the {} fragments ({count})", s.as_str()));
    }
}

/// A fill as it shows over the panel (a translucent fill is lighter or
/// darker than its channels say).
fn over_panel(ui: &Ui, fill: egui::Color32) -> egui::Color32 {
    colors::over(fill, ui.visuals().panel_fill)
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

const ROW_H: f32 = 20.0;
const HEAD_H: f32 = 22.0;

/// A column's header button: its label with ▲ or ▼ when the table is
/// sorted by it (`ascending`); true when clicked.
pub(super) fn sort_button(ui: &mut Ui, label: &str, ascending: Option<bool>) -> bool {
    let arrow = match ascending {
        Some(true) => " ▲",
        Some(false) => " ▼",
        None => "",
    };
    ui.button(RichText::new(format!("{label}{arrow}")).strong())
        .on_hover_text(format!("Sort by {label}"))
        .clicked()
}

/// A sortable header cell.
fn head(
    h: &mut egui_extras::TableRow,
    sort: (SortColumn, bool),
    label: &str,
    col: SortColumn,
    clicks: &mut Vec<SortColumn>,
) {
    h.col(|ui| {
        // A figure's header over its figures: right-aligned.
        let figure = matches!(
            col,
            SortColumn::Tokens | SortColumn::Kept | SortColumn::Layer | SortColumn::Priority
        );
        let layout = if figure {
            egui::Layout::right_to_left(egui::Align::Center)
        } else {
            egui::Layout::left_to_right(egui::Align::Center)
        };
        ui.with_layout(layout, |ui| {
            if sort_button(ui, label, (sort.0 == col).then_some(sort.1)) {
                clicks.push(col);
            }
        });
    });
}

/// What both halves of the table show.
struct Rows<'a> {
    rows: &'a [usize],
    frags: &'a [crate::engine::assembly::assemble::FragmentResult],
    selected: Option<&'a str>,
    scroll_to: Option<usize>,
    /// The shared vertical offset at the start of this frame.
    offset: f32,
    /// How the table is sorted.
    sort: (SortColumn, bool),
    /// Headers clicked, carried out after the frame.
    sort_clicks: Vec<SortColumn>,
    /// The columns beside the ids scroll sideways (see
    /// [`TableView::columns_overflow`]); set again by this frame.
    overflow: bool,
}

/// The table: the id column frozen at the left, the other columns beside
/// it scrolling sideways when the panel is narrow, both on one vertical
/// offset; a clicked row pushes [`Command::Select`].
pub fn table(ui: &mut Ui, state: &AppState, view: &mut TableView, out: &mut Vec<Command>) {
    let Some(loaded) = state.loaded.as_ref() else {
        return;
    };
    let rows = view.visible_rows(&loaded.assembly);
    let frags = &loaded.assembly.fragments;
    let selected = state.selected.as_deref();
    let mut scroll_to = arrow_keys(ui, &rows, frags, selected, out);
    // A fragment selected from anywhere (the Problems tab, the Prompt's
    // gutter, a search) is scrolled into view once.
    if selected != view.shown_selection.as_deref() {
        view.shown_selection = selected.map(str::to_string);
        scroll_to = scroll_to.or_else(|| {
            let id = selected?;
            rows.iter().position(|&r| frags[r].id == id)
        });
    }
    let mut r = Rows {
        rows: &rows,
        frags,
        selected,
        scroll_to,
        offset: view.scroll_y,
        sort: (view.sort, view.sort_ascending),
        sort_clicks: Vec::new(),
        overflow: view.columns_overflow,
    };
    let full = ui.available_rect_before_wrap();
    // Narrow (1024 px with the detail panel open): the ids give up width
    // (truncated, in full on hover) so that the figures stay in sight.
    let id_w = 165.0_f32
        .min(full.width() * 0.3)
        .max(110.0_f32.min(full.width() * 0.4));
    let left = egui::Rect::from_min_size(full.min, egui::vec2(id_w, full.height()));
    let right =
        egui::Rect::from_min_max(egui::pos2(full.left() + id_w + 4.0, full.top()), full.max);
    let (id_offset, rows_end) = id_column(ui, left, &mut r, out);
    let offsets = [id_offset, other_columns(ui, right, &mut r, out)];
    // The ids' edge, down to their last row (not to the panel's end).
    ui.painter().vline(
        full.left() + id_w + 2.0,
        full.top()..=rows_end.min(full.bottom()),
        ui.visuals().widgets.noninteractive.bg_stroke,
    );
    ui.allocate_rect(full, Sense::hover());
    // Whichever column moved (wheel, scroll bar, a row scrolled to) leads.
    let shared = r.offset;
    let moved = offsets.into_iter().find(|o| (o - shared).abs() > 0.5);
    if let Some(o) = moved {
        view.scroll_y = o;
        ui.ctx().request_repaint();
    }
    if r.overflow != view.columns_overflow {
        view.columns_overflow = r.overflow;
        ui.ctx().request_repaint();
    }
    for c in r.sort_clicks {
        view.toggle_sort(c);
    }
}

/// The frozen id column; returns its vertical offset after this frame and
/// where its rows end.
fn id_column(ui: &mut Ui, rect: egui::Rect, r: &mut Rows, out: &mut Vec<Command>) -> (f32, f32) {
    let (rows, frags, selected, scroll_to) = (r.rows, r.frags, r.selected, r.scroll_to);
    let (shared, sort) = (r.offset, r.sort);
    let sort_clicks = &mut r.sort_clicks;
    let mut offset = shared;
    let used = ui.scope_builder(egui::UiBuilder::new().max_rect(rect), |ui| {
        let mut b = TableBuilder::new(ui)
            .id_salt("fragment-table-id")
            // As tall as the rows beside it, above their sideways bar.
            .max_scroll_height((rect.height() - HEAD_H - bar_room()).max(ROW_H))
            .vertical_scroll_offset(shared)
            .scroll_bar_visibility(bar_beside_ids(r.overflow));
        if let Some(i) = scroll_to {
            b = b.scroll_to_row(i, None);
        }
        let body = b
            .striped(true)
            .sense(Sense::click())
            .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
            .column(Column::exact(rect.width() - 8.0).clip(true))
            .header(HEAD_H, |mut h| {
                head(&mut h, sort, "id", SortColumn::Id, sort_clicks)
            })
            .body(|body| {
                body.rows(ROW_H, rows.len(), |mut row| {
                    let f = &frags[rows[row.index()]];
                    row.set_selected(selected == Some(f.id.as_str()));
                    row.col(|ui| {
                        let cell = ui.max_rect();
                        ui.add(egui::Label::new(&f.id).truncate().selectable(false));
                        super::layout_log::record(ui.ctx(), |p| p.rows.push((f.id.clone(), cell)));
                    });
                    if row.response().clicked() {
                        out.push(Command::Select(f.id.clone()));
                    }
                });
            });
        offset = body.state.clamped_offset().y;
    });
    (offset, used.response.rect.bottom())
}

/// A fragment's cells beside its id: its status (in its colour but on the
/// selected row), its figures right-aligned, its source and reason.
fn fragment_cells(
    row: &mut egui_extras::TableRow,
    f: &crate::engine::assembly::assemble::FragmentResult,
    on: bool,
    width: Columns,
) {
    row.col(|ui| {
        // Its colour would not read on the
        // selection's fill: the text's there.
        if on {
            ui.label(f.status.as_str());
        } else {
            ui.colored_label(
                colors::text(ui, colors::status(f.status)),
                f.status.as_str(),
            );
        }
    });
    // Figures right-aligned (digits under digits).
    let figures = [
        (SortColumn::Tokens, crate::engine::thousands(f.tokens)),
        (SortColumn::Kept, crate::engine::thousands(f.kept_tokens)),
        (SortColumn::Layer, f.layer.to_string()),
        (
            SortColumn::Priority,
            format!(
                "{}{}",
                if f.priority < 0 { "-" } else { "" },
                crate::engine::thousands(f.priority.unsigned_abs())
            ),
        ),
    ];
    for (_, text) in figures.into_iter().filter(|(c, _)| width.shows(*c)) {
        row.col(|ui| {
            super::figure::figure(ui, text);
        });
    }
    if width.shows(SortColumn::Source) {
        row.col(|ui| {
            super::figure::text(ui, &f.source);
        });
    }
    row.col(|ui| {
        // Cut to the column (in full on hover, and in the detail).
        super::figure::text(ui, &f.reason);
    });
}

/// Which columns sit beside the ids, by the table's width: all of them;
/// narrower, the layer and priority go (they are in the detail), then the
/// source, then (1024 px with the detail open) the full count. The reason,
/// what the table is for, stays in sight at every width.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Columns {
    Full,
    Compact,
    Counts,
    Narrow,
}

impl Columns {
    fn for_width(w: f32) -> Columns {
        if w >= 860.0 {
            Columns::Full
        } else if w >= 700.0 {
            Columns::Compact
        } else if w >= 420.0 {
            Columns::Counts
        } else {
            Columns::Narrow
        }
    }

    fn shows(self, c: SortColumn) -> bool {
        use SortColumn::*;
        match self {
            Columns::Full => true,
            Columns::Compact => !matches!(c, Layer | Priority),
            Columns::Counts => !matches!(c, Layer | Priority | Source),
            Columns::Narrow => matches!(c, Status | Kept | Reason),
        }
    }

    /// Each shown column's header label, sort and fixed width, in order.
    fn heads(self) -> impl Iterator<Item = (&'static str, SortColumn, f32)> {
        HEADS.into_iter().filter(move |(_, c, _)| self.shows(*c))
    }

    /// What the shown columns of a fixed width take together.
    fn fixed(self) -> f32 {
        self.heads().map(|(_, _, w)| w).sum()
    }
}

/// The columns beside the ids, in order: header, sort, and the width of
/// the status's and each figure's column (0: the source and the reason
/// share what is left).
const HEADS: [(&str, SortColumn, f32); 7] = [
    ("status", SortColumn::Status, 96.0),
    ("tokens", SortColumn::Tokens, 70.0),
    ("kept", SortColumn::Kept, 58.0),
    ("layer", SortColumn::Layer, 50.0),
    ("prio", SortColumn::Priority, 50.0),
    ("source", SortColumn::Source, 0.0),
    ("reason", SortColumn::Reason, 0.0),
];

/// The room the columns' sideways bar takes under their rows (a solid
/// bar, with its margins).
fn bar_room() -> f32 {
    egui::style::ScrollStyle::solid().allocated_width() + 8.0
}

/// The columns beside the ids, scrolling sideways; returns their
/// vertical offset after this frame.
fn other_columns(ui: &mut Ui, rect: egui::Rect, r: &mut Rows, out: &mut Vec<Command>) -> f32 {
    let (rows, frags, selected, scroll_to) = (r.rows, r.frags, r.selected, r.scroll_to);
    let (shared, sort, overflow) = (r.offset, r.sort, r.overflow);
    let sort_clicks = &mut r.sort_clicks;
    let mut offset = shared;
    let mut overflows = overflow;
    ui.scope_builder(egui::UiBuilder::new().max_rect(rect), |ui| {
        // Wide reasons scroll sideways (shift+wheel); the id column stays;
        // the wheel alone scrolls the rows.
        ui.style_mut().always_scroll_the_only_direction = false;
        // The sideways bar takes its own room under the rows (a floating
        // one covered the last row).
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        let rows_h = (ui.available_height() - HEAD_H - bar_room()).max(ROW_H);
        let width = Columns::for_width(rect.width());
        let (source_w, reason_w) = text_widths(ui, rect.width(), width);
        let sideways = egui::ScrollArea::horizontal()
            .id_salt("fragment-table-h")
            .show(ui, |ui| {
                // In a child of its own: the columns' resize lines end at
                // the table's bottom (egui_extras draws them down to its
                // parent's), not under the last row to the panel's end.
                ui.vertical(|ui| {
                    let mut b = TableBuilder::new(ui)
                        .id_salt("fragment-table")
                        .max_scroll_height(rows_h)
                        .vertical_scroll_offset(shared)
                        .scroll_bar_visibility(bar_beside_ids(!overflow));
                    if let Some(i) = scroll_to {
                        b = b.scroll_to_row(i, None);
                    }
                    let mut b = b
                        .striped(true)
                        .resizable(true)
                        .sense(Sense::click())
                        .cell_layout(egui::Layout::left_to_right(egui::Align::Center));
                    for (_, _, w) in width.heads().filter(|h| h.2 > 0.0) {
                        b = b.column(Column::exact(w));
                    }
                    if width.shows(SortColumn::Source) {
                        // The source as wide as a wide window allows (an
                        // agent's part names its release).
                        b = b.column(Column::initial(source_w).at_least(60.0).clip(true));
                    }
                    let body = b
                        // The rest of the table (no sideways bar for
                        // nothing); a wide one's long reasons scroll.
                        .column(Column::initial(reason_w).at_least(100.0).clip(true))
                        .header(HEAD_H, |mut h| {
                            for (label, col, _) in width.heads() {
                                head(&mut h, sort, label, col, sort_clicks);
                            }
                        })
                        .body(|body| {
                            body.rows(ROW_H, rows.len(), |mut row| {
                                let f = &frags[rows[row.index()]];
                                let on = selected == Some(f.id.as_str());
                                row.set_selected(on);
                                fragment_cells(&mut row, f, on, width);
                                if row.response().clicked() {
                                    out.push(Command::Select(f.id.clone()));
                                }
                            });
                        });
                    offset = body.state.clamped_offset().y;
                });
            });
        overflows = sideways.content_size.x > sideways.inner_rect.width() + 0.5;
    });
    r.overflow = overflows;
    offset
}

/// The source's and the reason's widths in a table `width` wide: the
/// columns of a fixed width take theirs, each column a gap and the rows'
/// vertical bar its room; all shown, the source a share and the reason the
/// rest, 320 at least (a narrower table scrolls); fewer shown, the source
/// (compact) a share and the reason the rest.
fn text_widths(ui: &Ui, width: f32, columns: Columns) -> (f32, f32) {
    let gap = ui.spacing().item_spacing.x;
    let left = width - columns.fixed();
    match columns {
        Columns::Compact => {
            let source_w = (left * 0.3).clamp(120.0, 240.0);
            let rest = left - source_w - 4.0 * gap - bar_room();
            (source_w, rest.max(100.0))
        }
        Columns::Counts => (0.0, (left - 3.0 * gap - bar_room()).max(100.0)),
        Columns::Narrow => (0.0, (left - 3.0 * gap - bar_room()).max(80.0)),
        Columns::Full => {
            let source_w = (left * 0.3).clamp(120.0, 320.0);
            let gaps = 8.0 * gap + bar_room() + 40.0;
            (source_w, (left - source_w - gaps).max(320.0))
        }
    }
}

/// The rows' vertical bar: shown (when the rows overflow) on the table
/// `shown` says, hidden on the other: one bar, always in sight.
fn bar_beside_ids(shown: bool) -> egui::scroll_area::ScrollBarVisibility {
    if shown {
        egui::scroll_area::ScrollBarVisibility::VisibleWhenNeeded
    } else {
        egui::scroll_area::ScrollBarVisibility::AlwaysHidden
    }
}
