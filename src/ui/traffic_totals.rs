//! The head of a capture in the Traffic tab: its totals, which agent
//! release sent its requests, and what each kind of miss cost.

use egui::{RichText, Ui};

/// [`release::summary`](crate::engine::traffic::release::summary) of `t`,
/// worked out once per capture (and per release the views assume): it
/// walks every request, 100,000 of them each frame otherwise.
fn release_lines(t: &crate::engine::traffic::Traffic) -> Vec<String> {
    use crate::engine::traffic::release::Assumed;
    type Kept = ((usize, usize), Vec<Assumed>, Vec<String>);
    thread_local! {
        static KEPT: std::cell::RefCell<Option<Kept>> = const { std::cell::RefCell::new(None) };
    }
    let id = super::super::traffic_table::identity(t);
    KEPT.with_borrow_mut(|kept| {
        if let Some((k, a, lines)) = kept.as_ref()
            && *k == id
            && *a == t.assumed
        {
            return lines.clone();
        }
        let lines = crate::engine::traffic::release::summary(t);
        *kept = Some((id, t.assumed.clone(), lines.clone()));
        lines
    })
}

/// Totals, what each class of miss cost, and the 1-hour-TTL counterfactual.
pub(super) fn totals(ui: &mut Ui, t: &crate::engine::traffic::Traffic) {
    ui.add(
        egui::Label::new(
            RichText::new(format!(
                "{} · {}",
                super::super::problems::plural(t.totals.requests, "request"),
                t.totals.headline()
            ))
            .strong(),
        )
        .wrap(),
    );
    // Which agent release sent the requests (and, where this tool's
    // recording of that agent is of another release, both).
    for n in release_lines(t) {
        ui.add(egui::Label::new(RichText::new(n).weak()).wrap());
    }
    // What each kind of miss cost: open where the window is tall enough to
    // leave the table and the selected request their room (the user's
    // choice kept).
    let notes = crate::engine::traffic::notes(t);
    if notes.is_empty() {
        return;
    }
    egui::CollapsingHeader::new("What the writes and misses cost")
        .id_salt("traffic-notes")
        .default_open(ui.ctx().content_rect().height() >= 760.0)
        .show(ui, |ui| {
            for n in notes {
                ui.add(egui::Label::new(super::super::figure::price_kept_whole(&n)).wrap());
            }
        });
}
