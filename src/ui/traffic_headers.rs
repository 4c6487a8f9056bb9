//! The Traffic tab's exchange as the wire had it: the Headers tab (the
//! selected request's HTTP headers and its answer's, as the proxy recorded
//! them: a credential's value is never there, the capture holds
//! `[REDACTED]`) and the Response tab (status, time, usage, cost).

use egui::{RichText, Ui};

use super::Command;

use crate::engine::thousands;
use crate::engine::traffic::Headers;

/// Both lists, each a grid of names and values in the order sent.
pub fn show(ui: &mut Ui, headers: Option<&Headers>) {
    let Some(h) = headers else {
        ui.weak("  no headers recorded: the capture was made by a release of the proxy that did not record them, or is not a capture");
        return;
    };
    for (title, id, pairs) in [
        ("Request headers", "request-headers", &h.request),
        ("Response headers", "response-headers", &h.response),
    ] {
        ui.label(RichText::new(format!("{title} ({})", pairs.len())).strong());
        if pairs.is_empty() {
            ui.weak("  none recorded (no answer came)");
            continue;
        }
        egui::Grid::new(id)
            .num_columns(2)
            .striped(true)
            .spacing([16.0, 2.0])
            .show(ui, |ui| {
                for (name, value) in pairs {
                    ui.label(RichText::new(name).monospace().strong());
                    ui.add(egui::Label::new(RichText::new(value).monospace()).wrap());
                    ui.end_row();
                }
            });
        ui.add_space(8.0);
    }
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
        if r.priced {
            format!("${:.5}", r.cost_usd)
        } else {
            "not priced (the model is not in the model table)".into()
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
                thousands(text.len() as u64)
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
