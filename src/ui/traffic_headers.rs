//! The Traffic tab's exchange as the wire had it: the Headers tab (the
//! selected request's HTTP headers and its answer's, as the proxy recorded
//! them: a credential's value is never there, the capture holds
//! `[REDACTED]`) and the Response tab (status, time, usage, cost).

use egui::{RichText, Ui};

use super::Command;

use crate::engine::thousands;
use crate::engine::traffic::{Cost, Headers};

/// Both lists, each a grid of names and values in the order sent: the
/// answer's first (as DevTools has them: the shorter list, and what the
/// provider said), side by side when the pane is wide enough.
pub fn show(ui: &mut Ui, headers: Option<&Headers>) {
    let Some(h) = headers else {
        ui.weak("  no headers recorded: the capture was made by a release of the proxy that did not record them, or is not a capture");
        return;
    };
    let lists = [
        ("Response headers", "response-headers", &h.response),
        ("Request headers", "request-headers", &h.request),
    ];
    if ui.available_width() >= SIDE_BY_SIDE {
        ui.columns(2, |cols| {
            for ((title, id, pairs), ui) in lists.into_iter().zip(cols.iter_mut()) {
                list(ui, title, id, pairs);
            }
        });
    } else {
        for (title, id, pairs) in lists {
            list(ui, title, id, pairs);
            ui.add_space(8.0);
        }
    }
}

/// The pane's width from which the two lists go side by side.
const SIDE_BY_SIDE: f32 = 900.0;

/// One list: its title with its count, then its names and values.
fn list(ui: &mut Ui, title: &str, id: &str, pairs: &[(String, String)]) {
    ui.label(RichText::new(format!("{title} ({})", pairs.len())).strong());
    if pairs.is_empty() {
        ui.weak("  none recorded (no answer came)");
        return;
    }
    // Names in a column as wide as the longest (at most 45% of the
    // list), each value wrapping in what is left: laid out in one pass, so
    // no row is drawn before its height is known.
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let char_w = ui.fonts_mut(|f| f.glyph_width(&font, 'x'));
    let longest = pairs
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    let name_w = (longest as f32 * char_w + 16.0).min(ui.available_width() * 0.45);
    ui.push_id(id, |ui| {
        for (name, value) in pairs {
            ui.horizontal_top(|ui| {
                ui.allocate_ui_with_layout(
                    egui::vec2(name_w, 0.0),
                    egui::Layout::left_to_right(egui::Align::TOP),
                    |ui| {
                        ui.set_min_width(name_w);
                        ui.add(
                            egui::Label::new(RichText::new(name).monospace().strong()).truncate(),
                        )
                        .on_hover_text(name);
                    },
                );
                header_value(ui, value);
            });
        }
    });
}

/// A value as it reads: a list without spaces (`anthropic-beta`'s
/// `a-2025-05-14,b-2025-04-11`) breaks only after its commas, never
/// inside an item or its date; anything else wraps as text does, and an
/// item wider than the pane wraps within itself.
fn header_value(ui: &mut Ui, value: &str) {
    let text = |t: &str| RichText::new(t).monospace();
    if value.contains(' ') || !value.contains(',') {
        ui.add(egui::Label::new(text(value)).wrap());
        return;
    }
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 0.0;
        for item in value.split_inclusive(',') {
            let width = ui.fonts_mut(|f| {
                f.layout_no_wrap(item.to_string(), font.clone(), egui::Color32::WHITE)
                    .size()
                    .x
            });
            let label = egui::Label::new(text(item));
            if width <= ui.max_rect().width() {
                ui.add(label.extend());
            } else {
                ui.add(label.wrap());
            }
        }
    });
}

/// The answer as recorded: its status and time, the usage the provider
/// reported (each figure), its cost, who sent the request.
pub fn response(ui: &mut Ui, r: &crate::engine::traffic::Row) {
    let n = |v: u64| thousands(v);
    let mut rows: Vec<(&str, String)> = vec![
        ("time", r.time.clone()),
        ("model", r.model.clone()),
        (
            "status",
            r.status
                .map_or("not recorded".into(), |s| format!("HTTP {s}")),
        ),
        (
            "latency",
            r.latency_ms
                .map_or("not recorded".into(), |l| format!("{} ms", n(l))),
        ),
    ];
    if let Some(api) = r.api {
        rows.push(("API", api.to_string()));
    }
    match &r.usage {
        Some(u) => {
            rows.push(("uncached", format!("{} tokens", n(u.input_tokens))));
            rows.push((
                "written",
                if u.reports_creation || u.cache_creation_input_tokens > 0 {
                    format!("{} tokens", n(u.cache_creation_input_tokens))
                } else {
                    format!(
                        "{} tokens (the provider reports no writes)",
                        n(u.cache_creation_input_tokens)
                    )
                },
            ));
            rows.push(("read", format!("{} tokens", n(u.cache_read_input_tokens))));
            rows.push(("output", format!("{} tokens", n(u.output_tokens))));
            if u.reasoning_tokens > 0 {
                rows.push((
                    "of which reasoning",
                    format!("{} tokens", n(u.reasoning_tokens)),
                ));
            }
        }
        None => rows.push(("usage", "none reported".into())),
    }
    rows.push((
        "cost",
        match r.cost() {
            Cost::Priced(c) => format!("${c:.5}"),
            Cost::NoUsage => "unknown: the answer reported no usage".into(),
            Cost::NoPrice => "not priced (the model is not in the model table)".into(),
        },
    ));
    if let Some(c) = r.agent_cost_usd {
        rows.push(("the agent's own figure", format!("${c:.5}")));
    }
    if let Some(rel) = &r.release {
        rows.push(("sent by", format!("{} ({})", rel.name(), rel.from)));
    }
    if let Some(e) = &r.error {
        rows.push(("error", e.clone()));
    }
    egui::Grid::new("traffic-response")
        .num_columns(2)
        .striped(true)
        .show(ui, |ui| {
            for (k, v) in rows {
                ui.weak(k);
                ui.add(egui::Label::new(RichText::new(v).monospace()).wrap());
                ui.end_row();
            }
        });
}

/// How much of an answer's body is drawn (a copy takes all of it).
const SHOWN_BYTES: usize = 64 * 1024;

/// The answer's body as recorded (a JSON body or an SSE stream's events),
/// its first 64 KiB drawn, with a copy of all of it.
pub fn response_body(ui: &mut Ui, text: Option<&str>, out: &mut Vec<Command>) {
    ui.add_space(8.0);
    let Some(text) = text else {
        ui.weak("No response body recorded (a capture from an earlier proxy, a transcript, or no answer came)");
        return;
    };
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(format!(
                "Response body as recorded ({} bytes)",
                thousands(text.len())
            ))
            .strong(),
        );
        if ui.button("Copy the response").clicked() {
            out.push(Command::CopyText(text.to_string()));
        }
    });
    let shown = &text[..text.floor_char_boundary(SHOWN_BYTES)];
    ui.add(egui::Label::new(RichText::new(shown).monospace()).wrap());
    if shown.len() < text.len() {
        ui.weak(format!(
            "… {} bytes more: copy the response for all of it",
            thousands((text.len() - shown.len()) as u64)
        ));
    }
}
