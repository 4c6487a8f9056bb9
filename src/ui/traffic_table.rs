//! The Traffic tab's requests as a table in the manner of a browser's
//! network panel: one row per request (#, time, gap since the previous
//! request of its chain, chain, model, status, latency, input, written,
//! read, output, cost, reason), sortable by any column, filtered by chain,
//! by miss kind and by text (the timeline under it: `timeline.rs`).

use egui::{RichText, Sense, Ui, vec2};
use egui_extras::{Column, TableBuilder};

use super::colors;
use super::command::Command;
use crate::engine::thousands;
use crate::engine::traffic::{MissKind, Row, Traffic, timeline};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    Index,
    Time,
    Gap,
    Chain,
    Model,
    Status,
    Latency,
    Input,
    Written,
    Read,
    Output,
    Cost,
    Reason,
}

impl Col {
    /// Its cells are figures, right-aligned (digits under digits).
    fn is_figure(self) -> bool {
        matches!(
            self,
            Col::Gap
                | Col::Latency
                | Col::Input
                | Col::Written
                | Col::Read
                | Col::Output
                | Col::Cost
        )
    }
}

const COLUMNS: [(Col, &str); 13] = [
    (Col::Index, "#"),
    (Col::Time, "time"),
    (Col::Gap, "gap"),
    (Col::Chain, "chain"),
    (Col::Model, "model"),
    (Col::Status, "status"),
    (Col::Latency, "latency"),
    (Col::Input, "uncached"),
    (Col::Written, "written"),
    (Col::Read, "read"),
    (Col::Output, "output"),
    (Col::Cost, "cost $"),
    (Col::Reason, "reason"),
];

/// How the table is sorted and filtered.
#[derive(Debug, Clone)]
pub struct TableState {
    pub sort: Col,
    pub ascending: bool,
    /// Only this chain (None: every chain).
    pub chain: Option<String>,
    /// Miss kinds hidden.
    pub hidden: Vec<MissKind>,
    /// Only the requests whose model, chain, reason, error or status holds
    /// this text (any case; empty: all).
    pub text: String,
    /// The selected request the table last showed, and the table's
    /// height then: another request (chosen on the timeline, or from
    /// another view), or a table made shorter (the request's pane opened or
    /// resized), scrolls the selected row into sight.
    shown_selected: (Option<usize>, f32),
    /// The rows shown and the filters' choices, worked out once per
    /// traffic and choice, not every frame (100,000 requests sorted and
    /// counted every frame took most of one).
    cache: Cache,
}

/// See [`TableState::cache`].
#[derive(Debug, Clone, Default)]
struct Cache {
    /// The rows shown (indices in the traffic, in order), for the traffic
    /// (its number of requests and the address of their list) and the
    /// sort and filters they were worked out with.
    rows: Option<(RowsKey, Vec<usize>)>,
    /// The chains in order of their first request, and each miss kind with
    /// its count, for the traffic.
    choices: Option<Choices>,
}

/// The traffic's identity, its chains and its miss kinds with their
/// counts.
type Choices = ((usize, usize), Vec<String>, Vec<(MissKind, usize)>);

/// What the rows shown depend on.
#[derive(Debug, Clone, PartialEq)]
struct RowsKey {
    traffic: (usize, usize),
    sort: Col,
    ascending: bool,
    chain: Option<String>,
    hidden: Vec<MissKind>,
    text: String,
}

/// A traffic's identity for the caches: its number of requests and the
/// address of their list (a capture read again, or a live request added,
/// changes one or the other).
pub(super) fn identity(t: &Traffic) -> (usize, usize) {
    (t.requests.len(), t.requests.as_ptr() as usize)
}

impl Default for TableState {
    fn default() -> Self {
        TableState {
            sort: Col::Index,
            ascending: true,
            chain: None,
            hidden: Vec::new(),
            text: String::new(),
            shown_selected: (None, 0.0),
            cache: Cache::default(),
        }
    }
}

impl TableState {
    /// Another traffic shown (a file opened, the proxy started): its
    /// selection is scrolled to, even at the index the last one had.
    pub fn new_traffic(&mut self) {
        self.shown_selected = (None, 0.0);
    }

    /// The rows shown, from the cache when nothing they depend on changed.
    fn shown<'t>(&mut self, t: &'t Traffic) -> Vec<&'t Row> {
        let key = RowsKey {
            traffic: identity(t),
            sort: self.sort,
            ascending: self.ascending,
            chain: self.chain.clone(),
            hidden: self.hidden.clone(),
            text: self.text.clone(),
        };
        if self.cache.rows.as_ref().is_none_or(|(k, _)| *k != key) {
            self.cache.rows = Some((key, visible_indices(t, self)));
        }
        let rows = self.cache.rows.as_ref().map_or(&[][..], |(_, r)| r);
        rows.iter().map(|&i| &t.requests[i]).collect()
    }

    /// The traffic whose identity was `before` has had requests added at
    /// its end (the live proxy's feed): the caches worked out for it take
    /// them in where they belong, instead of being worked out again for
    /// every request (100,000 rows sorted and counted again on each).
    pub fn appended(&mut self, t: &Traffic, before: (usize, usize)) {
        let now = identity(t);
        let added = before.0..t.requests.len();
        let mut rows = self.cache.rows.take();
        if let Some((key, shown)) = rows.as_mut().filter(|(k, _)| k.traffic == before) {
            for i in added.clone() {
                let new = &t.requests[i];
                if passes(new, self) {
                    let at = shown.partition_point(|&x| {
                        order(t, self, &t.requests[x], new) != std::cmp::Ordering::Greater
                    });
                    shown.insert(at, i);
                }
            }
            key.traffic = now;
        } else {
            rows = None;
        }
        self.cache.rows = rows;
        if let Some((id, chains, kinds)) = self.cache.choices.as_mut().filter(|c| c.0 == before) {
            count_choices(&t.requests[added], chains, kinds);
            *id = now;
        } else {
            self.cache.choices = None;
        }
    }

    /// The chains and the miss kinds with their counts, from the cache
    /// when the traffic is the same.
    fn choices(&mut self, t: &Traffic) -> (Vec<String>, Vec<(MissKind, usize)>) {
        let id = identity(t);
        if self.cache.choices.as_ref().is_none_or(|c| c.0 != id) {
            let (mut chains, mut kinds) = (Vec::new(), Vec::new());
            count_choices(&t.requests, &mut chains, &mut kinds);
            self.cache.choices = Some((id, chains, kinds));
        }
        let c = self.cache.choices.as_ref().expect("set above");
        (c.1.clone(), c.2.clone())
    }
}

/// Takes `rows` into the chains (each once, in the order first met) and
/// the miss kinds with their counts.
fn count_choices(rows: &[Row], chains: &mut Vec<String>, kinds: &mut Vec<(MissKind, usize)>) {
    let mut seen: std::collections::HashSet<String> = chains.iter().cloned().collect();
    for r in rows {
        if !seen.contains(&r.chain) {
            seen.insert(r.chain.clone());
            chains.push(r.chain.clone());
        }
        if let Some(k) = kind_of(r) {
            match kinds.iter_mut().find(|(x, _)| *x == k) {
                Some((_, n)) => *n += 1,
                None => kinds.push((k, 1)),
            }
        }
    }
}

#[path = "traffic_rows.rs"]
mod rows;
pub use rows::visible;
use rows::{kind_of, order, passes, visible_indices};

/// The chain and miss-kind filters, with the counts they leave.
pub fn filters(ui: &mut Ui, t: &Traffic, s: &mut TableState) {
    let (chains, kinds) = s.choices(t);
    ui.horizontal_wrapped(|ui| {
        ui.label("Filter");
        ui.add(
            egui::TextEdit::singleline(&mut s.text)
                .hint_text("model, chain, reason, error")
                .desired_width(180.0),
        );
        ui.separator();
        ui.label("Chain");
        egui::ComboBox::new("traffic-chain", "")
            .selected_text(s.chain.as_deref().unwrap_or("every chain"))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut s.chain, None, "every chain");
                for c in &chains {
                    ui.selectable_value(&mut s.chain, Some(c.clone()), c);
                }
            });
        ui.separator();
        ui.label("Reasons");
        for (k, n) in kinds {
            let mut on = !s.hidden.contains(&k);
            if ui.checkbox(&mut on, format!("{k} ({n})")).changed() {
                s.hidden.retain(|h| *h != k);
                if !on {
                    s.hidden.push(k);
                }
            }
        }
    });
}

/// `10:09:30`, the time of day of an RFC 3339 time (else as it is).
fn clock(time: &str) -> &str {
    time.get(11..19).unwrap_or(time)
}

/// The table: a click on a header sorts by it (again: the other way), a
/// click on a row selects that request.
pub fn table(
    ui: &mut Ui,
    t: &Traffic,
    s: &mut TableState,
    selected: Option<usize>,
    source: Option<&std::path::PathBuf>,
    out: &mut Vec<Command>,
) {
    let rows = s.shown(t);
    let mut sort_click: Option<Col> = None;
    // In a box of its own height (the room it was given, its header and
    // the sideways bar under it apart): the columns' lines end with the
    // table, and its last row is above the bar, not under it.
    let bar = ui.spacing().scroll.allocated_width();
    let height = (ui.available_height() - 26.0 - bar).clamp(34.0, 420.0);
    let moved = arrow_keys(ui, &rows, selected, source, out).or_else(|| {
        let chosen = selected.filter(|_| (selected, height) != s.shown_selected);
        chosen.and_then(|i| rows.iter().position(|r| r.index == i))
    });
    s.shown_selected = (selected, height);
    let size = vec2(ui.available_width(), height + 26.0);
    ui.allocate_ui(size, |ui| {
        ui.set_max_height(size.y);
        sorted_table(
            ui,
            t,
            &rows,
            s,
            (selected, source, moved),
            &mut sort_click,
            out,
        );
    });
    if let Some(c) = sort_click {
        s.ascending = if s.sort == c { !s.ascending } else { true };
        s.sort = c;
    }
}

/// Arrow keys move the selection through the rows as listed (when no text
/// field has the keyboard); the row moved to, to scroll to it.
fn arrow_keys(
    ui: &Ui,
    rows: &[&Row],
    selected: Option<usize>,
    source: Option<&std::path::PathBuf>,
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
    let at = selected.and_then(|s| rows.iter().position(|r| r.index == s));
    let next = match (at, down) {
        (None, _) => 0,
        (Some(i), true) => (i + 1).min(rows.len() - 1),
        (Some(i), false) => i.saturating_sub(1),
    };
    (Some(next) != at).then(|| {
        out.push(Command::SelectRequest {
            capture: source.cloned(),
            index: rows[next].index,
        });
        next
    })
}

/// The table itself, its header clicks into `sort_click`.
fn sorted_table(
    ui: &mut Ui,
    t: &Traffic,
    rows: &[&Row],
    s: &TableState,
    (selected, source, moved): (Option<usize>, Option<&std::path::PathBuf>, Option<usize>),
    sort_click: &mut Option<Col>,
    out: &mut Vec<Command>,
) {
    // The box it was given, less its header.
    let height = (ui.available_height() - 26.0).max(34.0);
    let mut b = TableBuilder::new(ui)
        .id_salt("traffic-table")
        .striped(true)
        .resizable(true)
        .sense(Sense::click())
        // A row chosen elsewhere (the timeline, an arrow key, another
        // view) is in sight at once, as in DevTools: not after an
        // animation a key held down or a screenshot overtakes.
        .animate_scrolling(false)
        .max_scroll_height(height)
        // Not the default 200 points: in a short room the table scrolls
        // within it, never runs over what is under it.
        .min_scrolled_height(height.min(60.0))
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center));
    if let Some(row) = moved {
        b = b.scroll_to_row(row, None);
    }
    let cols = shown_columns(t);
    for (col, _) in &cols {
        b = b.column(match col {
            // What is left of the width: the table never runs past it.
            Col::Reason => Column::remainder().at_least(60.0).clip(true),
            Col::Model => Column::initial(104.0).at_least(60.0).clip(true),
            Col::Time => Column::initial(68.0).at_least(50.0).clip(true),
            Col::Status => Column::initial(58.0).at_least(44.0).clip(true),
            // Figures at the width of their header and a few digits (an
            // auto column takes all a right-aligned cell offers: at 1024
            // px the cost and the reason were pushed off the table).
            Col::Index => Column::initial(40.0).at_least(30.0),
            Col::Gap | Col::Output => Column::initial(58.0).at_least(36.0),
            Col::Latency | Col::Cost => Column::initial(72.0).at_least(36.0),
            Col::Input | Col::Written | Col::Read => Column::initial(68.0).at_least(36.0),
            _ => Column::auto().at_least(36.0),
        });
    }
    b.header(22.0, |mut h| {
        for &(col, label) in &cols {
            h.col(|ui| {
                // A figure's header over its figures: right-aligned.
                let layout = if col.is_figure() {
                    egui::Layout::right_to_left(egui::Align::Center)
                } else {
                    egui::Layout::left_to_right(egui::Align::Center)
                };
                ui.with_layout(layout, |ui| {
                    let sorted = (s.sort == col).then_some(s.ascending);
                    if super::table::sort_button(ui, label, sorted) {
                        *sort_click = Some(col);
                    }
                });
            });
        }
    })
    .body(|body| {
        body.rows(20.0, rows.len(), |mut row| {
            let r = rows[row.index()];
            row.set_selected(selected == Some(r.index));
            cells(&mut row, t, (r, selected == Some(r.index)), &cols);
            if row.response().clicked() {
                out.push(Command::SelectRequest {
                    capture: source.cloned(),
                    index: r.index,
                });
            }
        });
    });
}

/// A cell's text: not selectable, so that a click selects the row; cut
/// with "…" where the cell or the visible area ends.
fn cell(ui: &mut Ui, text: impl Into<egui::WidgetText>) -> egui::Response {
    super::figure::text(ui, text)
}

/// A figure, right-aligned in its column (digits under digits), never half
/// shown.
fn num(ui: &mut Ui, text: impl Into<egui::WidgetText>) {
    super::figure::figure(ui, text);
}

/// One request's cells, in the order of the columns shown.
fn cells(
    row: &mut egui_extras::TableRow,
    t: &Traffic,
    (r, selected): (&Row, bool),
    cols: &[(Col, &str)],
) {
    for (col, _) in cols {
        row.col(|ui| cell_of(ui, *col, t, (r, selected)));
    }
}

/// A request's cell of column `col` (`selected`: its row is; a figure in
/// colour would not read on the selection's fill, so it is in the text's).
fn cell_of(ui: &mut Ui, col: Col, t: &Traffic, (r, selected): (&Row, bool)) {
    let u = r.usage;
    let n = |x: Option<u64>| x.map_or("–".to_string(), thousands);
    let colored = |ui: &Ui, c, s: String| RichText::new(s).color(colors::text(ui, c));
    // A cache figure in its colour, but none for nothing (a zero read is
    // not a hit) and none on the selected row.
    let figure = |ui: &Ui, c, x: Option<u64>| {
        if selected || x.is_none_or(|x| x == 0) {
            RichText::new(n(x))
        } else {
            colored(ui, c, n(x))
        }
    };
    match col {
        Col::Index => {
            cell(ui, RichText::new(format!("#{}", r.index)).monospace());
        }
        Col::Time => {
            cell(ui, clock(&r.time)).on_hover_text(&r.time);
        }
        Col::Gap => num(
            ui,
            timeline::gap(t, r).map_or(String::new(), crate::engine::elapsed),
        ),
        Col::Chain => {
            cell(ui, r.chain.as_str());
        }
        Col::Model => {
            cell(ui, r.model.as_str());
        }
        Col::Status => {
            let text = r.status.map_or(String::new(), |s| format!("HTTP {s}"));
            if r.error.is_some() || r.status.is_some_and(|s| s >= 400) {
                cell(ui, colored(ui, colors::ERROR, text));
            } else {
                cell(ui, text);
            }
        }
        Col::Latency => num(
            ui,
            r.latency_ms
                .map_or(String::new(), |l| format!("{} ms", thousands(l))),
        ),
        Col::Input => num(ui, n(u.map(|u| u.input_tokens))),
        Col::Written => {
            let text = figure(ui, colors::WRITE, u.map(|u| u.cache_creation_input_tokens));
            num(ui, text);
        }
        Col::Read => {
            let text = figure(ui, colors::READ, u.map(|u| u.cache_read_input_tokens));
            num(ui, text);
        }
        Col::Output => num(ui, n(u.map(|u| u.output_tokens))),
        Col::Cost => num(ui, r.cost().cell("no price")),
        Col::Reason => {
            let text = match (&r.miss, &r.error) {
                (_, Some(e)) => e.clone(),
                (Some(m), None) => format!("{}: {}", m.kind, m.detail),
                (None, None) => String::new(),
            };
            cell(ui, text.as_str()).on_hover_text(text.as_str());
        }
    }
}

/// The columns worth their width for these requests: a transcript has no
/// HTTP status or latency (the agent wrote no such thing), so those go.
/// The columns that tell the rows apart: the status only when some answer
/// differs from the rest or failed (every one `HTTP 200`: in the detail),
/// the chain only when there are two; the room goes to the reason.
fn shown_columns(t: &Traffic) -> Vec<(Col, &'static str)> {
    let first = t.requests.first().and_then(|r| r.status);
    let status = t
        .requests
        .iter()
        .any(|r| r.error.is_some() || r.status.is_some_and(|s| s >= 300) || r.status != first);
    let latency = t.requests.iter().any(|r| r.latency_ms.is_some());
    let chains = t
        .requests
        .iter()
        .any(|r| t.requests.first().is_some_and(|f| f.chain != r.chain));
    COLUMNS
        .into_iter()
        .filter(|(c, _)| match c {
            Col::Status => status,
            Col::Latency => latency,
            Col::Chain => chains,
            _ => true,
        })
        .collect()
}

#[cfg(test)]
#[path = "traffic_table_tests.rs"]
pub(super) mod tests;
