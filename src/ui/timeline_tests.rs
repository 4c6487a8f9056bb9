//! Tests of the timeline: its lanes, the range it opens on, and a live
//! capture's requests taken in one at a time.

use super::*;

#[test]
fn at_most_eight_lanes_or_the_chosen_chains_alone() {
    let chains: Vec<String> = (0..10).map(|i| format!("chain {i}")).collect();
    let all = rows_of(&chains, None);
    assert_eq!(all.iter().flatten().count(), 8);
    assert_eq!((all[7], all[8]), (Some(7), None));
    let one = rows_of(&chains, Some("chain 9"));
    assert_eq!(one.iter().flatten().collect::<Vec<_>>(), [&0]);
    assert_eq!(one[9], Some(0));
}

#[test]
fn the_requests_are_shown_when_they_take_a_small_part_of_the_span() {
    // 8 requests in 2 s, entries to 5 minutes after.
    // (a margin of 4 % each side: the first label fits, little is empty).
    assert_eq!(default_range(2.0, 302.0), (-0.08, 2.08));
    // Requests over most of the span: the whole of it.
    assert_eq!(default_range(200.0, 300.0), (-3.0, 303.0));
}

#[test]
fn zooming_keeps_the_time_under_the_pointer_where_it_is() {
    let z = zoom_about((0.0, 100.0), 25.0, 2.0, 100.0);
    assert_eq!(z, (12.5, 62.5));
    // Out, at most ten times the whole span.
    assert_eq!(zoom_about((0.0, 100.0), 0.0, 0.001, 100.0), (0.0, 1000.0));
    // In, at least a tenth of a second.
    let z = zoom_about((0.0, 1.0), 0.5, 1000.0, 100.0);
    assert!((z.1 - z.0 - 0.1).abs() < 1e-9, "{z:?}");
}

#[test]
fn labels_stand_apart_and_read_as_time_from_the_first_request() {
    assert_eq!(step((0.0, 300.0), 1000.0), 30.0);
    assert_eq!(step((0.0, 3.0), 1000.0), 0.5);
    assert_eq!(tick_label(1.5), "+1.5s");
    assert_eq!(tick_label(30.0), "+30s");
    assert_eq!(tick_label(-0.5), "−0.5s");
    assert_eq!(
        tick_label(120.0),
        format!("+{}", crate::engine::duration(120))
    );
}

#[test]
fn requests_added_live_make_the_lanes_a_fresh_read_makes() {
    use crate::ui::traffic_table::tests::{first, traffic};
    let whole = traffic(90);
    let mut zoom = Zoom::default();
    let mut live = first(&whole, 30);
    zoom.lanes = Lanes::of(&live);
    for r in &whole.requests[30..] {
        let before = crate::ui::traffic_table::identity(&live);
        live.requests.push(r.clone());
        zoom.appended(&live, before);
    }
    let taken_in = zoom.lanes.expect("kept, not worked out again");
    let fresh = Lanes::of(&whole).unwrap();
    let mut by_write = taken_in.log.all.clone();
    by_write.sort_by(|a, b| a.written_at.total_cmp(&b.written_at));
    assert_eq!(by_write, timeline::entries(&whole));
    assert_eq!(by_write.len(), fresh.log.all.len());
    assert!(by_write.len() > 3 && by_write.iter().any(|e| e.ended_by.is_some()));
    let lane = |l: &Lanes, i: usize| l.chains[l.entry_lanes[i]].clone();
    for (i, e) in taken_in.log.all.iter().enumerate() {
        assert_eq!(lane(&taken_in, i), e.chain);
    }
    // A request's number finds its tick (the selected one) at once.
    for (k, d) in fresh.dated.iter().enumerate() {
        assert_eq!(fresh.dated_by_number[&whole.requests[d.0].index], k);
    }
    assert_eq!(taken_in.dated_by_number, fresh.dated_by_number);
    assert_eq!(
        (
            taken_in.chains,
            taken_in.dated,
            taken_in.first,
            taken_in.last,
            taken_in.span
        ),
        (
            fresh.chains,
            fresh.dated,
            fresh.first,
            fresh.last,
            fresh.span
        )
    );
}

#[test]
fn a_pixel_of_a_lane_shows_the_request_there_that_tells_most() {
    let t = crate::ui::traffic_table::tests::traffic(90);
    let lanes = Lanes::of(&t).unwrap();
    let rows: Vec<Option<usize>> = (0..lanes.chains.len()).map(Some).collect();
    // Ten pixels for the whole span: many requests share each pixel.
    let rect = egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(10.0, 60.0));
    let x = |at: f64| (9.0 * (at - lanes.first) / lanes.last) as f32;
    let marks = marks(&t, &lanes, &rows, (&x, rect));
    assert!(marks.len() < t.requests.len() / 3, "{}", marks.len());
    for &(i, cx, row) in &marks {
        let best = lanes
            .dated
            .iter()
            .filter(|d| d.2 == row && x(d.1) as usize == cx as usize)
            .map(|d| kind(&t.requests[d.0]))
            .max();
        assert_eq!(Some(kind(&t.requests[i])), best, "#{i}");
    }
    assert!(
        marks
            .iter()
            .any(|m| kind(&t.requests[m.0]) == TickKind::Write)
    );
}
