//! The timeline's ranges in seconds from the first request: the fits
//! (the requests, the whole lifetimes), a zoom about a point, the step
//! between labelled ticks and their labels.

/// The whole span: from the first request to the last expiry (or
/// request), in seconds from the first request.
pub(super) fn whole(span: f64) -> (f64, f64) {
    let span = span.max(1.0);
    // A margin each side: the first tick clear of the lane's edge.
    (-span * 0.01, span * 1.01)
}

/// The requests' own span, with a margin each side: 4 % of it (50 ms at
/// least), room for the first tick's label and no more (half a second
/// each side left a sixth of 8 requests in 2 s empty, at negative times).
pub(super) fn requests(last: f64) -> (f64, f64) {
    let pad = (last * 0.04).max(0.05);
    (-pad, last + pad)
}

/// The range shown when the user chose none: the requests, when they
/// take under a fifth of the whole span (8 requests in 2 s on a 5-minute
/// axis would fill 10 px), else the whole span.
pub fn default_range(last: f64, span: f64) -> (f64, f64) {
    if last < span / 5.0 {
        requests(last)
    } else {
        whole(span)
    }
}

/// `range` zoomed by `factor` (above 1: in) about `at`, kept between a
/// tenth of a second and ten times the whole span.
pub fn zoom_about(range: (f64, f64), at: f64, factor: f64, span: f64) -> (f64, f64) {
    let width = ((range.1 - range.0) / factor).clamp(0.1, span.max(1.0) * 10.0);
    let share = if range.1 > range.0 {
        ((at - range.0) / (range.1 - range.0)).clamp(0.0, 1.0)
    } else {
        0.5
    };
    let start = at - width * share;
    (start, start + width)
}

/// The step between two labelled ticks for `range` on `px` points: the
/// first of 0.1 s … 1 h whose labels stand 80 points apart at least.
pub fn step(range: (f64, f64), px: f32) -> f64 {
    const STEPS: [f64; 18] = [
        0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0,
        3600.0, 7200.0, 21600.0,
    ];
    let per_point = (range.1 - range.0) / f64::from(px.max(1.0));
    STEPS
        .into_iter()
        .find(|s| s / per_point >= 80.0)
        .unwrap_or(STEPS[STEPS.len() - 1])
}

/// A tick's label: seconds from the first request (`+1.5s`, `+2m`,
/// `+1m30s`).
pub fn tick_label(at: f64) -> String {
    let sign = if at < 0.0 { "−" } else { "+" };
    let a = at.abs();
    let text = if a < 10.0 && a.fract().abs() > 1e-6 {
        format!("{a:.1}s")
    } else if a < 60.0 {
        format!("{}s", a.round() as u64)
    } else {
        crate::engine::duration(a.round() as u64)
    };
    format!("{sign}{text}")
}
