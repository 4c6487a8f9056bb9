//! The timeline's ticks and cache bars for one view: which request each
//! lane's pixel shows, and where each cache entry's bar runs (worked out
//! when the view changes, drawn every frame).

use egui::{Ui, pos2};

use super::{LANE, Lanes, Mark, RowTop, Traffic, bar_fill, kind};

/// The ticks: one per lane and pixel, the request there that tells most
/// (a failure over a write over a read, else the first), each with its x
/// and its row.
pub(super) fn marks(
    t: &Traffic,
    lanes: &Lanes,
    row_of: &[Option<usize>],
    (x, rect): (&dyn Fn(f64) -> f32, egui::Rect),
) -> Vec<Mark> {
    let mut marks: Vec<Mark> = Vec::new();
    let mut taken = vec![vec![None; rect.width().ceil() as usize + 1]; lanes.chains.len()];
    for &(i, at, l) in &lanes.dated {
        let cx = x(at);
        let Some(row) = row_of[l] else { continue };
        if cx < rect.left() || cx > rect.right() {
            continue;
        }
        let slot: &mut Option<usize> = &mut taken[l][(cx - rect.left()) as usize];
        match *slot {
            Some(m) if kind(&t.requests[marks[m].0]) >= kind(&t.requests[i]) => {}
            Some(m) => marks[m] = (i, cx, row),
            None => {
                *slot = Some(marks.len());
                marks.push((i, cx, row));
            }
        }
    }
    marks
}

/// The cache entries' bars, one per lane and pixel range (on a light lane
/// a paler green would hardly show): each entry's left and right x and its
/// row, one of the same place kept.
pub(super) fn bar_spans(
    lanes: &Lanes,
    row_of: &[Option<usize>],
    (x, rect): (&dyn Fn(f64) -> f32, egui::Rect),
) -> Vec<(usize, f32, f32, usize)> {
    let mut spans: Vec<(usize, f32, f32, usize)> = Vec::new();
    for (i, e) in lanes.log.all.iter().enumerate() {
        let (l, r) = (x(e.written_at), x(e.expires_at).max(x(e.written_at) + 2.0));
        let Some(row) = row_of[lanes.entry_lanes[i]] else {
            continue;
        };
        if r < rect.left() || l > rect.right() {
            continue;
        }
        let (l, r) = (l.round(), r.round());
        if spans
            .last()
            .is_some_and(|&(_, pl, pr, prow)| (pl, pr, prow) == (l, r, row))
        {
            continue;
        }
        spans.push((i, l, r, row));
    }
    spans
}

/// The bars of `spans`, drawn: each entry with its rect.
pub(super) fn bars(
    ui: &Ui,
    painter: &egui::Painter,
    spans: &[(usize, f32, f32, usize)],
    y: &RowTop<'_>,
) -> Vec<(usize, egui::Rect)> {
    let lane = LANE;
    let fill = bar_fill(ui);
    spans
        .iter()
        .map(|&(i, l, r, row)| {
            let top = y(row) + 4.0;
            let bar = egui::Rect::from_min_max(pos2(l, top), pos2(r, top + lane - 8.0));
            painter.rect_filled(bar, 2.0, fill);
            (i, bar)
        })
        .collect()
}
