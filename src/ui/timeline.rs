//! The Traffic tab's timeline: the cache entries each chain wrote, a lane
//! per chain, each bar from its write to its expiry, every request a tick
//! (a write orange, a read green, a failure red), on a time axis with
//! labels. It opens on the requests (their lifetimes run on past the
//! right edge) when they take a small part of the whole span; Ctrl and
//! the wheel (or a pinch) zoom about the pointer, a drag pans, a double
//! click or the buttons fit the requests or the whole lifetimes.

use egui::{RichText, Sense, Ui, pos2, vec2};

use super::colors;
use super::command::Command;
use crate::engine::thousands;
use crate::engine::traffic::{Row, Traffic, timeline};

/// What part of the time the timeline shows (seconds from the first
/// request), kept by the Traffic view, with what it drew from the last
/// traffic it was shown (read again only when the requests change).
#[derive(Debug, Clone, Default)]
pub struct Zoom {
    /// The range chosen by the user (None: the default fit).
    pub range: Option<(f64, f64)>,
    /// The first request's time the range was chosen for: another capture
    /// starts again from the default.
    pub first: f64,
    /// The lanes of the traffic last shown.
    lanes: Option<Lanes>,
    /// The height it took when last drawn.
    height: Option<f32>,
    /// Where its time axis ran when last drawn: the x of its range's start
    /// and the width of the range (the lanes' names in a gutter after it).
    pub axis_x: Option<(f32, f32)>,
}

/// What the timeline draws of one traffic, worked out once: the cache
/// entries, the chains in order of their first request, the span.
#[derive(Debug, Clone)]
struct Lanes {
    /// The traffic it was worked out for (`traffic_table::identity`).
    key: (usize, usize),
    /// The cache entries (`log.all`, in the order written).
    log: timeline::EntryLog,
    /// Each entry's lane.
    entry_lanes: Vec<usize>,
    chains: Vec<String>,
    /// Each chain's lane.
    lane_of: std::collections::HashMap<String, usize>,
    /// Each dated request: its index in the traffic, its time, its lane.
    dated: Vec<(usize, f64, usize)>,
    /// A request's number (`#N`) → its place in `dated`: the selected
    /// tick found at once, not by a walk of every request each frame.
    dated_by_number: std::collections::HashMap<usize, usize>,
    first: f64,
    /// The last request, and the last expiry (or request), in seconds
    /// from the first request.
    last: f64,
    span: f64,
    /// The ticks and bars of the last frame's view, kept until the range,
    /// the width, the lanes shown or the requests change: finding them
    /// walks every request and cache entry (a third of a frame at 100,000).
    drawn: Option<Drawn>,
}

/// The ticks and the bars' spans of one view of the lanes.
#[derive(Debug, Clone)]
struct Drawn {
    key: DrawnKey,
    marks: Vec<Mark>,
    /// Each bar: its entry, its left and right x, its row.
    spans: Vec<(usize, f32, f32, usize)>,
}

/// What the ticks' and bars' places depend on: the range shown, the axis
/// (its x and width, and the plot's ends), the row of each lane.
type DrawnKey = ([u64; 2], [u32; 4], Vec<Option<usize>>);

impl Lanes {
    fn of(t: &Traffic) -> Option<Lanes> {
        let first = t.requests.iter().filter_map(|r| r.at).reduce(f64::min)?;
        let mut lanes = Lanes {
            key: super::traffic_table::identity(t),
            log: Default::default(),
            entry_lanes: Vec::new(),
            chains: Vec::new(),
            lane_of: Default::default(),
            dated: Vec::new(),
            dated_by_number: Default::default(),
            first,
            last: 0.0,
            span: 1.0,
            drawn: None,
        };
        lanes.take_in(t, 0);
        Some(lanes)
    }

    /// Takes in the traffic's requests from the `from`th on (all of them,
    /// or those a live capture added since).
    fn take_in(&mut self, t: &Traffic, from: usize) {
        self.drawn = None;
        for (i, r) in t.requests.iter().enumerate().skip(from) {
            let Some(at) = r.at else { continue };
            let lane = match self.lane_of.get(r.chain.as_str()) {
                Some(&l) => l,
                None => {
                    self.chains.push(r.chain.clone());
                    self.lane_of.insert(r.chain.clone(), self.chains.len() - 1);
                    self.chains.len() - 1
                }
            };
            // The first request of a number, as a walk would find it.
            self.dated_by_number
                .entry(r.index)
                .or_insert(self.dated.len());
            self.dated.push((i, at, lane));
            self.last = self.last.max(at - self.first);
            if let Some(e) = self.log.push(r) {
                let expires = self.log.all[e].expires_at - self.first;
                self.span = self.span.max(expires);
                if e == self.entry_lanes.len() {
                    self.entry_lanes.push(lane);
                }
            }
        }
        self.span = self.span.max(self.last);
        self.key = super::traffic_table::identity(t);
    }
}

impl Zoom {
    /// The traffic whose identity was `before` has had requests added at
    /// its end (the live proxy's feed): the lanes take them in, instead of
    /// being worked out again for every request; a request dated before
    /// the first (its times would all move) works them out again.
    pub fn appended(&mut self, t: &Traffic, before: (usize, usize)) {
        let Some(lanes) = self.lanes.as_mut().filter(|l| l.key == before) else {
            self.lanes = None;
            return;
        };
        let earlier = t.requests[before.0..]
            .iter()
            .filter_map(|r| r.at)
            .any(|at| at < lanes.first);
        if earlier {
            self.lanes = None;
        } else {
            lanes.take_in(t, before.0);
        }
    }
}

#[path = "timeline_marks.rs"]
mod marks;
use marks::{bar_spans, bars, marks};
#[path = "timeline_range.rs"]
mod range;
pub use range::{default_range, step, tick_label, zoom_about};
use range::{requests, whole};

/// The timeline under the Traffic table; a click on a tick selects its
/// request. What it draws is bounded by its width, whatever the number of
/// requests: a tick per lane and pixel, one interaction for the lanes (the
/// tooltip and the click go to the tick or bar under the pointer).
pub fn timeline_view(
    ui: &mut Ui,
    t: &Traffic,
    (selected, zoom, chain): (Option<usize>, &mut Zoom, Option<&str>),
    source: Option<&std::path::PathBuf>,
    out: &mut Vec<Command>,
) {
    let key = super::traffic_table::identity(t);
    if zoom.lanes.as_ref().is_none_or(|l| l.key != key) {
        zoom.lanes = Lanes::of(t);
    }
    let Some(lanes) = zoom.lanes.take() else {
        return;
    };
    if zoom.first != lanes.first {
        (zoom.range, zoom.first) = (None, lanes.first);
    }
    let top = ui.cursor().top();
    let mut lanes = lanes;
    draw(ui, t, &mut lanes, (selected, zoom, chain), source, out);
    zoom.height = Some(ui.cursor().top() - top);
    zoom.lanes = Some(lanes);
}

/// The ticks and bars of the view `key` names, worked out unless the
/// lanes keep them already.
fn keep_drawn(
    t: &Traffic,
    lanes: &mut Lanes,
    key: DrawnKey,
    (x, plot): (&dyn Fn(f64) -> f32, egui::Rect),
) {
    if lanes.drawn.as_ref().is_none_or(|d| d.key != key) {
        let marks = marks(t, lanes, &key.2, (x, plot));
        let spans = bar_spans(lanes, &key.2, (x, plot));
        lanes.drawn = Some(Drawn { key, marks, spans });
    }
}

/// At most this many lanes are drawn (a chain each); the table's Chain
/// filter shows any one.
const MAX_LANES: usize = 8;

/// The row each lane is drawn in (None: not drawn): the chosen chain's
/// alone, else the first [`MAX_LANES`].
fn rows_of(chains: &[String], chosen: Option<&str>) -> Vec<Option<usize>> {
    match chosen {
        Some(c) => chains.iter().map(|x| (x == c).then_some(0)).collect(),
        None => (0..chains.len())
            .map(|l| (l < MAX_LANES).then_some(l))
            .collect(),
    }
}

/// The timeline of `lanes` (worked out from `t`).
fn draw(
    ui: &mut Ui,
    t: &Traffic,
    lanes: &mut Lanes,
    (selected, zoom, chain): (Option<usize>, &mut Zoom, Option<&str>),
    source: Option<&std::path::PathBuf>,
    out: &mut Vec<Command>,
) {
    let (first, last, span) = (lanes.first, lanes.last, lanes.span);
    header(ui, span, last, zoom);
    let row_of = rows_of(&lanes.chains, chain);
    let rows = row_of.iter().flatten().count().max(1);
    if chain.is_none() && lanes.chains.len() > MAX_LANES {
        ui.weak(more_chains(lanes.chains.len()));
    }
    let range = zoom.range.unwrap_or_else(|| default_range(last, span));
    let lane = LANE;
    let width = ui.available_width().max(200.0);
    // The lanes, then the axis's labels in a strip of their own.
    let (whole_rect, resp) = ui.allocate_exact_size(
        vec2(width, lane * rows as f32 + 4.0 + AXIS),
        Sense::click_and_drag(),
    );
    let mut rect = whole_rect;
    rect.max.y -= AXIS;
    // The lanes' names in a gutter of their own at the right: nothing of
    // the lanes (the last bar's end, a tick) is drawn under them.
    let names = lane_galleys(ui, &lanes.chains, &row_of);
    let gutter = names
        .iter()
        .flatten()
        .map(|g| g.size().x)
        .fold(0.0, f32::max)
        + 10.0;
    let mut plot = rect;
    plot.max.x = (rect.max.x - gutter).max(rect.min.x + 40.0);
    let inner = (plot.left() + 4.0, plot.width() - 8.0);
    zoom.axis_x = Some(inner);
    let x = |at: f64| inner.0 + inner.1 * ((at - first - range.0) / (range.1 - range.0)) as f32;
    let time_at = |px: f32| range.0 + f64::from((px - inner.0) / inner.1) * (range.1 - range.0);
    zoom_and_pan(ui, &resp, (range, span, last), &time_at, zoom);
    ui.painter_at(rect)
        .rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let painter = ui.painter_at(plot);
    let y = |row: usize| rect.top() + 2.0 + lane * row as f32;
    let start = start_time(t, lanes);
    let mut axis = whole_rect;
    axis.max.x = plot.max.x;
    grid(ui, axis, (range, start), &|at| x(at + first));
    let key: DrawnKey = (
        [range.0.to_bits(), range.1.to_bits()],
        [inner.0, inner.1, plot.left(), plot.right()].map(f32::to_bits),
        row_of.clone(),
    );
    keep_drawn(t, lanes, key, (&x, plot));
    let lanes = &*lanes;
    let Some(drawn) = &lanes.drawn else { return };
    let bars = bars(ui, &painter, &drawn.spans, &y);
    // The selected tick is drawn last, over the others.
    let marks = &drawn.marks;
    // Ticks at 3:1 on the track and on the cache bars they cross.
    let track = ui.visuals().extreme_bg_color;
    let under = [track, colors::over(bar_fill(ui), track)];
    let tick = |painter: &egui::Painter, at, selected| tick(painter, at, selected, &under);
    for &(i, cx, row) in marks {
        tick(&painter, (&t.requests[i], cx, y(row), lane), false);
    }
    if let Some(&(i, at, l)) =
        selected.and_then(|s| lanes.dated.get(*lanes.dated_by_number.get(&s)?))
    {
        let cx = x(at);
        if let (Some(row), true) = (row_of[l], plot.x_range().contains(cx)) {
            tick(&painter, (&t.requests[i], cx, y(row), lane), true);
        }
    }
    lane_names(ui, names, &row_of, (rect, lane));
    pointed(&resp, t, lanes, (marks, &bars), (rect, lane), source, out);
}

/// The first request's time of day (`10:00:00`), the axis's start.
fn start_time<'t>(t: &'t Traffic, lanes: &Lanes) -> &'t str {
    lanes
        .dated
        .iter()
        .find(|d| d.1 == lanes.first)
        .and_then(|d| t.requests[d.0].time.get(11..19))
        .unwrap_or("")
}

/// Said when there are more chains than lanes.
fn more_chains(chains: usize) -> String {
    format!("The first {MAX_LANES} of {chains} chains: choose one in Chain above to see it here.")
}

/// Each shown lane's chain name, laid out (None: a lane not shown).
fn lane_galleys(
    ui: &Ui,
    chains: &[String],
    row_of: &[Option<usize>],
) -> Vec<Option<std::sync::Arc<egui::Galley>>> {
    let font = egui::FontId::proportional(10.0);
    let color = ui.visuals().weak_text_color();
    chains
        .iter()
        .zip(row_of)
        .map(|(c, row)| row.map(|_| ui.painter().layout_no_wrap(c.clone(), font.clone(), color)))
        .collect()
}

/// Each lane's chain, in the gutter at the lanes' right end.
fn lane_names(
    ui: &Ui,
    names: Vec<Option<std::sync::Arc<egui::Galley>>>,
    row_of: &[Option<usize>],
    (rect, lane): (egui::Rect, f32),
) {
    let painter = ui.painter_at(rect);
    for (shown, row) in names.into_iter().zip(row_of) {
        let (Some(shown), Some(row)) = (shown, row) else {
            continue;
        };
        let at = pos2(
            rect.right() - 4.0,
            rect.top() + 2.0 + lane * (*row as f32 + 0.5),
        );
        let r = egui::Align2::RIGHT_CENTER.anchor_size(at, shown.size());
        painter.galley(r.min, shown, ui.visuals().weak_text_color());
    }
}

/// The height of one lane.
const LANE: f32 = 18.0;

/// A row's top edge, by its number.
type RowTop<'a> = dyn Fn(usize) -> f32 + 'a;

/// A tick drawn: its request's place in the traffic, its x, its row.
type Mark = (usize, f32, usize);

/// The tooltip of the tick (within 4 points) or else the bar under the
/// pointer; a click (not a drag) on a tick selects its request.
fn pointed(
    resp: &egui::Response,
    t: &Traffic,
    lanes: &Lanes,
    (marks, bars): (&[Mark], &[(usize, egui::Rect)]),
    (rect, lane): (egui::Rect, f32),
    source: Option<&std::path::PathBuf>,
    out: &mut Vec<Command>,
) {
    let Some(p) = resp.hover_pos().filter(|p| rect.contains(*p)) else {
        return;
    };
    let l = ((p.y - rect.top() - 2.0) / lane).floor().max(0.0) as usize;
    let near = marks
        .iter()
        .filter(|m| m.2 == l && (m.1 - p.x).abs() <= 4.0)
        .min_by(|a, b| (a.1 - p.x).abs().total_cmp(&(b.1 - p.x).abs()));
    if let Some(&(i, _, _)) = near {
        let r = &t.requests[i];
        resp.clone().on_hover_text_at_pointer(format!(
            "#{} {} · {}",
            r.index,
            r.time.get(11..19).unwrap_or(&r.time),
            r.miss
                .as_ref()
                .map_or(String::new(), |m| format!("{}: {}", m.kind, m.detail))
        ));
        if resp.clicked() {
            out.push(Command::SelectRequest {
                capture: source.cloned(),
                index: r.index,
            });
        }
        return;
    }
    if let Some(&(i, _)) = bars.iter().rev().find(|(_, b)| b.contains(p)) {
        let e = &lanes.log.all[i];
        resp.clone().on_hover_text_at_pointer(format!(
            "{}: {} tokens written by request #{}, last read by #{}; {} TTL, expires {} after its write{}",
            e.chain,
            thousands(e.tokens),
            e.first,
            e.last,
            if e.ttl_secs > 300 { "1h" } else { "5m" },
            crate::engine::duration((e.expires_at - e.written_at) as u64),
            e.ended_by.map_or(String::new(), |n| format!("; gone when request #{n} came"))
        ));
    }
}

/// The line above the lanes: what they show, and the two fits.
/// The height the timeline takes under the table (its separator, its
/// header, its note, its lanes and its axis, with the spacing between
/// them): as last drawn, or else worked out (two lanes before it drew any).
pub fn room(ui: &Ui, zoom: &Zoom, chain: Option<&str>) -> f32 {
    let separator = 8.0;
    if let Some(h) = zoom.height {
        return h + separator;
    }
    let chains = zoom.lanes.as_ref().map_or(2, |l| l.chains.len());
    let rows = if chain.is_some() {
        1
    } else {
        chains.clamp(1, MAX_LANES)
    };
    let line = ui.spacing().interact_size.y + ui.spacing().item_spacing.y;
    let note = if chain.is_none() && chains > MAX_LANES {
        line
    } else {
        0.0
    };
    separator + line + note + LANE * rows as f32 + 4.0 + AXIS + ui.spacing().item_spacing.y
}

fn header(ui: &mut Ui, span: f64, last: f64, zoom: &mut Zoom) {
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(format!(
                "Cache entries over time (write to expiry): requests over {}, the last expiry {} after the first",
                crate::engine::elapsed(last),
                crate::engine::duration(span as u64)
            ))
            .weak(),
        )
        .on_hover_text("Ctrl and the wheel (or a pinch) zoom about the pointer; a drag pans; a double click fits the requests");
        // The fit shown is marked (none once zoomed or panned by hand).
        let shown = zoom.range.unwrap_or_else(|| default_range(last, span));
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            if ui
                .selectable_label(shown == whole(span), "Whole lifetimes")
                .on_hover_text("From the first request to the last expiry")
                .clicked()
            {
                zoom.range = Some(whole(span));
            }
            if ui
                .selectable_label(shown == requests(last), "Requests")
                .on_hover_text("From the first request to the last")
                .clicked()
            {
                zoom.range = Some(requests(last));
            }
        });
    });
}

/// Ctrl and the wheel (or a pinch) over the lanes zoom about the pointer,
/// a drag pans, a double click fits the requests.
fn zoom_and_pan(
    ui: &Ui,
    resp: &egui::Response,
    (range, span, last): ((f64, f64), f64, f64),
    time_at: &dyn Fn(f32) -> f64,
    zoom: &mut Zoom,
) {
    if resp.double_clicked() {
        zoom.range = Some(requests(last));
        return;
    }
    let width_px = resp.rect.width() - 8.0;
    if resp.dragged() {
        let dx = f64::from(resp.drag_delta().x / width_px.max(1.0)) * (range.1 - range.0);
        zoom.range = Some((range.0 - dx, range.1 - dx));
        return;
    }
    let Some(pointer) = resp.hover_pos() else {
        return;
    };
    let factor = f64::from(ui.input(|i| i.zoom_delta()));
    if (factor - 1.0).abs() > 1e-6 {
        zoom.range = Some(zoom_about(range, time_at(pointer.x), factor, span));
    }
}

/// The height of the axis's labels under the lanes.
const AXIS: f32 = 12.0;

/// The time axis: a faint line through the lanes and a label under them
/// at every step (`rect`: the lanes and the labels' strip).
/// The first request's time of day labels the axis's zero, as the table
/// writes it (`start`).
fn grid(ui: &Ui, rect: egui::Rect, (range, start): ((f64, f64), &str), x: &dyn Fn(f64) -> f32) {
    let painter = ui.painter_at(rect);
    let lanes = egui::Rangef::new(rect.top(), rect.bottom() - AXIS);
    let s = step(range, rect.width());
    let line = ui.visuals().widgets.noninteractive.bg_stroke;
    let color = ui.visuals().weak_text_color();
    let font = egui::FontId::proportional(10.0);
    let mut k = (range.0 / s).ceil();
    while k * s <= range.1 {
        let at = k * s;
        k += 1.0;
        let px = x(at);
        painter.vline(px, lanes, line);
        let label = if at.abs() < 1e-9 && !start.is_empty() {
            start.to_string()
        } else {
            tick_label(at)
        };
        // A label the edge would cut is left out (measured: "+15m00s" is
        // wider than a fixed margin allowed for).
        let galley = painter.layout_no_wrap(label, font.clone(), color);
        let half = galley.size().x / 2.0 + 2.0;
        if px - half < rect.left() || px + half > rect.right() {
            continue;
        }
        let size = galley.size();
        painter.galley(
            pos2(px - size.x / 2.0, rect.bottom() - size.y),
            galley,
            color,
        );
    }
}

/// What a request's tick shows, from what tells least to what tells most
/// (one pixel of a lane shows the request that tells most).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum TickKind {
    Read,
    Write,
    Failure,
}

fn kind(r: &Row) -> TickKind {
    let u = r.usage.unwrap_or_default();
    if r.error.is_some() || r.status.is_some_and(|s| s >= 400) {
        TickKind::Failure
    } else if u.cache_read_input_tokens > 0
        && u.cache_creation_input_tokens <= u.cache_read_input_tokens / 10
    {
        TickKind::Read
    } else {
        TickKind::Write
    }
}

/// One request's tick in its lane: a write orange, a read green, a
/// failure red; the selected one wider.
fn tick(
    painter: &egui::Painter,
    (r, cx, top, lane): (&Row, f32, f32, f32),
    selected: bool,
    under: &[egui::Color32],
) {
    let color = match kind(r) {
        TickKind::Failure => colors::ERROR,
        TickKind::Read => colors::READ,
        TickKind::Write => colors::WRITE,
    };
    let color = colors::visible_on(color, under);
    let stroke = if selected { 4.0 } else { 2.0 };
    painter.line_segment(
        [pos2(cx, top + 1.0), pos2(cx, top + lane - 1.0)],
        egui::Stroke::new(stroke, color),
    );
}

/// A cache entry's bar: a pale read green under the ticks.
fn bar_fill(ui: &Ui) -> egui::Color32 {
    if ui.visuals().dark_mode {
        colors::faded(colors::READ)
    } else {
        colors::READ.gamma_multiply(0.6)
    }
}

#[cfg(test)]
#[path = "timeline_tests.rs"]
mod tests;
