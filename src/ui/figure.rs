//! A figure in a table cell: right-aligned (digits under digits), and never
//! half shown: a cell cut by the table's visible edge shows "…" (its figure
//! on hover) rather than its first digits, which would read as another
//! number (265 as "26"). A text cell cut by the edge ends in "…" there (its
//! text on hover), never in the middle of a word or a number. A price in a
//! note is never split from its words either.

use egui::Ui;

/// `text`, right-aligned in the cell; "…" with `text` on hover when the
/// visible area (a table scrolled sideways, a narrow panel) cuts the cell
/// on either side.
pub fn figure(ui: &mut Ui, text: impl Into<egui::WidgetText>) -> egui::Response {
    let text = text.into();
    if is_cut(ui.max_rect(), ui.clip_rect()) {
        let full = text.text().to_string();
        return ui
            .add(egui::Label::new("…").selectable(false))
            .on_hover_text(full);
    }
    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
        ui.add(egui::Label::new(text).truncate().selectable(false))
    })
    .inner
}

/// `text` in a cell, cut with "…" at the cell's end or at the visible
/// area's edge, whichever comes first (the whole text on hover).
pub fn text(ui: &mut Ui, text: impl Into<egui::WidgetText>) -> egui::Response {
    let visible = ui.clip_rect().right() - ui.max_rect().left();
    if visible < ui.available_width() {
        ui.set_max_width(visible.max(8.0));
    }
    ui.add(egui::Label::new(text).truncate().selectable(false))
}

/// Whether `cell` is partly outside `visible` sideways (half a point of
/// slack for rounding).
fn is_cut(cell: egui::Rect, visible: egui::Rect) -> bool {
    cell.right() > visible.right() + 0.5 || cell.left() < visible.left() - 0.5
}

/// `note` with each price ("$0.01234") joined to the words either side by
/// non-breaking spaces: a wrapped note never leaves a price alone on a line.
pub fn price_kept_whole(note: &str) -> String {
    let words: Vec<&str> = note.split(' ').collect();
    let mut out = String::with_capacity(note.len());
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            let glued = w.starts_with('$') || words[i - 1].starts_with('$');
            out.push(if glued { '\u{a0}' } else { ' ' });
        }
        out.push_str(w);
    }
    out
}

/// `line`'s items (`read 12,560 · written 6,639 · …`) each kept on one
/// line: the spaces inside an item made non-breaking, so that a wrapped
/// line breaks only between items, never between a label and its figure.
pub fn items_kept_whole(line: &str) -> String {
    line.split(" · ")
        .map(|item| item.replace(' ', "\u{a0}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// `text` with its first letter in capitals.
pub fn capitalized(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use egui::{Rect, pos2};

    #[test]
    fn a_line_of_items_breaks_only_between_them() {
        let kept = super::items_kept_whole("read 12,560 · written 6,639 · uncached 0");
        assert_eq!(
            kept,
            "read\u{a0}12,560 · written\u{a0}6,639 · uncached\u{a0}0"
        );
    }

    #[test]
    fn a_cell_is_cut_when_either_side_is_outside_the_visible_area() {
        let visible = Rect::from_min_max(pos2(100.0, 0.0), pos2(400.0, 600.0));
        let cell = |l: f32, r: f32| Rect::from_min_max(pos2(l, 20.0), pos2(r, 40.0));
        assert!(!super::is_cut(cell(300.0, 400.0), visible));
        assert!(!super::is_cut(cell(100.0, 400.3), visible));
        assert!(super::is_cut(cell(350.0, 420.0), visible));
        assert!(super::is_cut(cell(80.0, 150.0), visible));
    }

    #[test]
    fn a_price_is_glued_to_its_neighbours_and_nothing_else_is() {
        assert_eq!(
            super::price_kept_whole("cold (1 request): unavoidable: $0.00123 beyond them"),
            "cold (1 request): unavoidable:\u{a0}$0.00123\u{a0}beyond them"
        );
        assert_eq!(super::price_kept_whole("no price here"), "no price here");
    }
}
