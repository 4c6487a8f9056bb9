//! The cache panel: per request a stacked bar (read / written / uncached),
//! cost, and the reasons; totals and the strategy comparison; the
//! context-window bar of the selected request; cache-breaker warnings.

use egui::{Rect, RichText, Sense, Ui, pos2, vec2};

use super::colors;
use super::command::Command;
use super::overview::{self, ContextPart};
use crate::engine::Provider;
use crate::engine::cache::prediction::Prediction;

/// The panel's own view: which request's context bar is shown.
#[derive(Default)]
pub struct CacheView {
    pub selected: usize,
}

fn usage_bar(ui: &mut Ui, read: u64, write: u64, uncached: u64, scale: u64) {
    let width = ui.available_width().clamp(80.0, 420.0);
    let (rect, _) = ui.allocate_exact_size(vec2(width, 14.0), Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, ui.visuals().extreme_bg_color);
    let mut x = rect.left();
    for (t, c) in [
        (read, colors::READ),
        (write, colors::WRITE),
        (uncached, colors::UNCACHED),
    ] {
        let w = rect.width() * t as f32 / scale.max(1) as f32;
        painter.rect_filled(
            Rect::from_min_size(pos2(x, rect.top()), vec2(w, rect.height())),
            0.0,
            c,
        );
        x += w;
    }
}

fn legend(ui: &mut Ui) {
    ui.horizontal(|ui| {
        for (label, c) in [
            ("read", colors::READ),
            ("written", colors::WRITE),
            ("uncached", colors::UNCACHED),
        ] {
            let (r, _) = ui.allocate_exact_size(vec2(10.0, 10.0), Sense::hover());
            ui.painter().rect_filled(r, 2.0, c);
            ui.label(label);
        }
    });
}

/// Draws the panel; choosing other cache rules pushes
/// [`Command::SetProvider`].
pub fn show(
    ui: &mut Ui,
    provider: Option<Provider>,
    view: &mut CacheView,
    p: &Prediction,
    out: &mut Vec<Command>,
) {
    ui.horizontal(|ui| {
        ui.label("Provider:");
        for (label, prov) in [
            ("model's", None),
            ("anthropic", Some(Provider::Anthropic)),
            ("openai", Some(Provider::Openai)),
            ("prefix (local)", Some(Provider::Prefix)),
        ] {
            if ui.selectable_label(provider == prov, label).clicked() && provider != prov {
                out.push(Command::SetProvider(prov));
            }
        }
        ui.separator();
        ui.label(format!(
            "{} · {}{}",
            p.model,
            p.provider.as_str(),
            if p.estimate {
                " · estimated counts"
            } else {
                ""
            }
        ));
    });
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("cache-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            ui.strong(format!(
                "Session '{}': {} requests · read {} · written {} · uncached {} · ${:.5}",
                p.session,
                p.requests.len(),
                p.totals.cache_read_input_tokens,
                p.totals.cache_creation_input_tokens,
                p.totals.input_tokens,
                p.total_cost_usd
            ));
            legend(ui);
            let scale = p.requests.iter().map(|r| r.total_tokens).max().unwrap_or(1);
            for r in &p.requests {
                let selected = view.selected == r.index;
                ui.horizontal(|ui| {
                    let label = format!(
                        "request {} · turn {} · at {}s",
                        r.index + 1,
                        r.turn,
                        r.at_secs
                    );
                    if ui
                        .selectable_label(selected, RichText::new(label).monospace())
                        .clicked()
                    {
                        view.selected = r.index;
                    }
                    usage_bar(
                        ui,
                        r.usage.cache_read_input_tokens,
                        r.usage.cache_creation_input_tokens,
                        r.usage.input_tokens,
                        scale,
                    );
                    ui.label(
                        RichText::new(format!(
                            "read {} · write {} · uncached {} · ${:.5}",
                            r.usage.cache_read_input_tokens,
                            r.usage.cache_creation_input_tokens,
                            r.usage.input_tokens,
                            r.cost_usd
                        ))
                        .monospace(),
                    );
                });
                if let Some(e) = &r.error {
                    ui.colored_label(super::colors::ERROR, e);
                }
                egui::CollapsingHeader::new(format!("why · request {}", r.index + 1))
                    .id_salt(("why", r.index))
                    .default_open(selected)
                    .show(ui, |ui| {
                        for n in &r.notes {
                            ui.add(egui::Label::new(format!("• {n}")).wrap());
                        }
                    });
            }
            ui.separator();
            ui.strong("Strategies over the same requests");
            egui::Grid::new("strategies")
                .striped(true)
                .num_columns(6)
                .show(ui, |ui| {
                    for h in ["strategy", "read", "written", "uncached", "cost", ""] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    for s in &p.strategies {
                        ui.label(s.name);
                        ui.label(s.usage.cache_read_input_tokens.to_string());
                        ui.label(s.usage.cache_creation_input_tokens.to_string());
                        ui.label(s.usage.input_tokens.to_string());
                        ui.label(format!("${:.5}", s.cost_usd));
                        ui.label(if s.name == p.best { "best" } else { "" });
                        ui.end_row();
                    }
                });
            ui.label(format!(
                "Saving of the best strategy over no caching: ${:.5}",
                p.saving_usd
            ));
            if let Some(c) = p.context.get(view.selected) {
                ui.separator();
                ui.strong(format!("Context window at request {}", view.selected + 1));
                let dark = ui.visuals().dark_mode;
                let mut parts = vec![ContextPart {
                    label: "tools".into(),
                    tokens: c.tools,
                    color: colors::fragment("tools", dark),
                }];
                for (layer, t) in &c.system {
                    parts.push(ContextPart {
                        label: format!("layer {layer}"),
                        tokens: *t,
                        color: colors::fragment(&format!("layer{layer}"), dark),
                    });
                }
                parts.push(ContextPart {
                    label: "history".into(),
                    tokens: c.history,
                    color: colors::fragment("history", dark),
                });
                parts.push(ContextPart {
                    label: "user input".into(),
                    tokens: c.current,
                    color: colors::fragment("current", dark),
                });
                parts.push(ContextPart {
                    label: "reserved output".into(),
                    tokens: c.reserved_output,
                    color: colors::UNCACHED,
                });
                overview::context_bar(ui, &parts, c.window, Some(c.threshold));
                if c.crosses_threshold {
                    ui.colored_label(super::colors::ERROR, "crosses the auto-compact threshold");
                }
            }
            if !p.warnings.is_empty() {
                ui.separator();
                ui.strong(format!("Cache-breaker warnings ({})", p.warnings.len()));
                for w in &p.warnings {
                    ui.add(
                        egui::Label::new(format!(
                            "{}:{} [{}] {}",
                            w.file, w.line, w.fragment, w.message
                        ))
                        .wrap(),
                    );
                }
            }
        });
}
