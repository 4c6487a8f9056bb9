//! The cache panel: per request a stacked bar (read / written / uncached),
//! cost, and the reasons; totals and the strategy comparison; the
//! context-window bar of the selected request; cache-breaker warnings.

use egui::{RichText, Sense, Ui};

use super::colors;
use super::command::Command;
use super::overview::{self, ContextPart};
use super::thousands;
use crate::engine::Provider;
use crate::engine::assembly::context::ContextUsage;
use crate::engine::cache::prediction::{ContextUse, Prediction};
use crate::engine::cache::predictors::Predicted;

/// The panel's own view: which request's context bar is shown.
#[derive(Default)]
pub struct CacheView {
    pub selected: usize,
}

/// One request's stacked bar (read / written / uncached) on the axis shared
/// by every request (`scale` tokens over `width` points), with the exact
/// figures on hover.
fn usage_bar(ui: &mut Ui, r: &Predicted, scale: u64, width: f32) {
    let resp = colors::usage_bar(ui, &r.usage, scale, width, Sense::hover());
    let u = &r.usage;
    resp.on_hover_text(format!(
        "request {}: read {} · written {} · uncached {} · total {} tokens · ${:.5}",
        r.index + 1,
        thousands(u.cache_read_input_tokens),
        thousands(u.cache_creation_input_tokens),
        thousands(u.input_tokens),
        thousands(r.total_tokens),
        r.cost_usd
    ));
}

fn legend(ui: &mut Ui) {
    ui.horizontal(|ui| {
        for (label, c) in [
            ("read", colors::READ),
            ("written", colors::WRITE),
            ("uncached", colors::UNCACHED),
        ] {
            colors::swatch_label(ui, c, label);
        }
    });
}

/// Draws the panel; choosing other cache rules pushes
/// [`Command::SetProvider`].
pub fn show(
    ui: &mut Ui,
    provider: Option<Provider>,
    view: &mut CacheView,
    (p, usage): (&Prediction, Option<&ContextUsage>),
    out: &mut Vec<Command>,
) {
    provider_bar(ui, provider, p, out);
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("cache-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            // Nothing below is wider than the panel: texts wrap in it.
            ui.set_max_width(ui.available_width());
            ui.add(
                egui::Label::new(
                    RichText::new(format!(
                        "Session '{}': {} requests · {}",
                        p.session,
                        p.requests.len(),
                        figures(&p.totals, p.total_cost_usd)
                    ))
                    .strong(),
                )
                .wrap(),
            );
            // The strategies compared first (the summary), then each request.
            strategies(ui, p);
            ui.separator();
            legend(ui);
            requests(ui, view, p);
            if let Some(c) = p.context.get(view.selected) {
                ui.separator();
                context(ui, view.selected, c, usage);
            }
            warnings(ui, p);
        });
}

fn provider_bar(ui: &mut Ui, provider: Option<Provider>, p: &Prediction, out: &mut Vec<Command>) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Provider:");
        for (label, prov) in [
            ("as the model's", None),
            ("Anthropic", Some(Provider::Anthropic)),
            ("OpenAI", Some(Provider::Openai)),
            ("Gemini", Some(Provider::Gemini)),
            ("prefix match (local)", Some(Provider::Prefix)),
        ] {
            if ui.selectable_label(provider == prov, label).clicked() && provider != prov {
                out.push(Command::SetProvider(prov));
            }
        }
        ui.separator();
        // One piece: where the row is too narrow it goes under it whole,
        // not split after the model's name.
        let note = format!(
            "{} · {}{}",
            p.model,
            p.provider.as_str(),
            if p.estimate {
                " · estimated counts"
            } else {
                ""
            }
        );
        ui.add(egui::Label::new(note).wrap_mode(egui::TextWrapMode::Extend));
    });
}

/// A predicted request's figures, as its row shows them.
fn figures_of(r: &crate::engine::cache::predictors::Predicted) -> String {
    figures(&r.usage, r.cost_usd)
}

/// `read … · written … · uncached … · $…`, each item kept on one line.
fn figures(u: &crate::engine::usage::Input, cost_usd: f64) -> String {
    super::figure::items_kept_whole(&format!(
        "read {} · written {} · uncached {} · ${:.5}",
        thousands(u.cache_read_input_tokens),
        thousands(u.cache_creation_input_tokens),
        thousands(u.input_tokens),
        cost_usd
    ))
}

/// Every request: a label, its bar on the shared axis, its figures, and
/// why it read, wrote or missed.
fn requests(ui: &mut Ui, view: &mut CacheView, p: &Prediction) {
    let scale = p.requests.iter().map(|r| r.total_tokens).max().unwrap_or(1);
    let width = (ui.available_width() * 0.35).clamp(120.0, 420.0);
    // Too narrow for label, bar and figures on one line: the figures go
    // under the bar, whole, rather than cut ("read 0 · w…").
    let stacked = ui.available_width() < 900.0;
    for r in &p.requests {
        let selected = view.selected == r.index;
        egui::Grid::new(("request-row", r.index))
            .num_columns(3)
            .min_col_width(0.0)
            .show(ui, |ui| {
                let label = format!("request {} · turn {}", r.index + 1, r.turn);
                // A fixed-width label column: every bar starts at the same x.
                let resp = ui.add_sized(
                    [170.0, 18.0],
                    egui::Button::selectable(selected, RichText::new(label).monospace()),
                );
                if resp
                    .on_hover_text(format!("at {} s into the session", r.at_secs))
                    .clicked()
                {
                    view.selected = r.index;
                }
                usage_bar(ui, r, scale, width);
                let figures = figures_of(r);
                if !stacked {
                    ui.add(egui::Label::new(RichText::new(&figures).monospace()).truncate())
                        .on_hover_text(figures.as_str());
                }
                ui.end_row();
            });
        if stacked {
            let figures = figures_of(r);
            ui.horizontal(|ui| {
                ui.add_space(24.0);
                ui.add(egui::Label::new(RichText::new(figures).monospace()).wrap());
            });
        }
        if let Some(e) = &r.error {
            ui.add(
                egui::Label::new(RichText::new(e).color(colors::text(ui, colors::ERROR))).wrap(),
            );
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
}

fn strategies(ui: &mut Ui, p: &Prediction) {
    ui.strong("Strategies over the same requests");
    egui::Grid::new("strategies")
        .striped(true)
        .num_columns(6)
        .show(ui, |ui| {
            let right = |ui: &mut Ui, text: RichText| {
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.label(text)
                });
            };
            // A figure's header over its figures: right-aligned.
            ui.strong("strategy");
            for h in ["read", "written", "uncached", "cost"] {
                right(ui, RichText::new(h).strong());
            }
            ui.label("");
            ui.end_row();
            for s in &p.strategies {
                let (short, long) = strategy_words(s.name);
                ui.label(short).on_hover_text(long);
                right(ui, thousands(s.usage.cache_read_input_tokens).into());
                right(ui, thousands(s.usage.cache_creation_input_tokens).into());
                right(ui, thousands(s.usage.input_tokens).into());
                right(ui, format!("${:.5}", s.cost_usd).into());
                ui.label(if s.name == p.best { "◀ best" } else { "" });
                ui.end_row();
            }
        });
    ui.label(format!(
        "Saving of the best strategy over no caching: ${:.5}",
        p.saving_usd
    ));
    // The same requests cost other token totals when the prompt is laid
    // out otherwise (one string joins the blocks: their edges tokenize
    // otherwise): said, so that the rows' sums read.
    let total = |s: &crate::engine::cache::prediction::StrategyResult| {
        let u = &s.usage;
        u.cache_read_input_tokens + u.cache_creation_input_tokens + u.input_tokens
    };
    let totals: Vec<u64> = p.strategies.iter().map(total).collect();
    if totals.iter().any(|t| Some(t) != totals.first()) {
        ui.add(
            egui::Label::new(
                RichText::new(format!(
                    "Each strategy lays the prompt out its own way, so the same requests count {} tokens in all: where the blocks are joined, their edges tokenize differently.",
                    p.strategies
                        .iter()
                        .zip(&totals)
                        .map(|(s, t)| format!("{} {}", strategy_words(s.name).0, thousands(*t)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .weak(),
            )
            .wrap(),
        );
    }
}

/// A strategy as a user would name it, short and in full (the CLI's JSON
/// keeps the id).
fn strategy_words(name: &str) -> (&str, &str) {
    match name {
        "layered" => ("layered", "a breakpoint per cached layer"),
        "single_string" => (
            "one string",
            "the whole prompt as one string, one breakpoint",
        ),
        "none" => (
            "no caching",
            "no breakpoint: nothing is read from the cache",
        ),
        other => (other, other),
    }
}

/// The context window at the selected request, in `context`'s categories
/// (the side panel's): the same tools and system parts, this request's
/// messages in two (its history and this turn), what is kept free.
fn context(ui: &mut Ui, selected: usize, c: &ContextUse, usage: Option<&ContextUsage>) {
    ui.strong(format!(
        "Context window at request {} (as it is sent)",
        selected + 1
    ));
    let dark = ui.visuals().dark_mode;
    if let Some(u) = usage {
        let mut parts = Vec::new();
        for p in overview::usage_parts(u, dark) {
            if p.label != "Messages" {
                parts.push(p);
                continue;
            }
            for (label, tokens, color) in [
                ("Messages: history", c.history, colors::HISTORY),
                ("Messages: this turn", c.current, colors::CURRENT),
            ] {
                parts.push(ContextPart {
                    label: label.into(),
                    tokens,
                    color,
                    in_use: true,
                });
            }
        }
        let threshold = u.agent.is_none().then_some(c.threshold);
        return overview::context_bar(ui, &parts, u.window, threshold);
    }
    // `context`'s categories and meaning of "in use" (the output reserved
    // is kept free, not used), this request's messages in two.
    let mut parts = vec![ContextPart {
        label: "Tool definitions".into(),
        tokens: c.tools,
        color: colors::tools(dark),
        in_use: true,
    }];
    for (layer, t) in &c.system {
        parts.push(ContextPart {
            label: if *layer == 0 {
                "System prompt".to_string()
            } else {
                format!("Layer {layer}")
            },
            tokens: *t,
            color: colors::layer(*layer, dark),
            in_use: true,
        });
    }
    parts.push(ContextPart {
        label: "Messages: history".into(),
        tokens: c.history,
        color: colors::HISTORY,
        in_use: true,
    });
    parts.push(ContextPart {
        label: "Messages: this turn".into(),
        tokens: c.current,
        color: colors::CURRENT,
        in_use: true,
    });
    parts.push(ContextPart {
        label: "Reserved output".into(),
        tokens: c.reserved_output,
        color: colors::UNCACHED,
        in_use: false,
    });
    overview::context_bar(ui, &parts, c.window, Some(c.threshold));
    if c.crosses_threshold {
        ui.colored_label(
            colors::text(ui, colors::ERROR),
            "crosses the auto-compact threshold (with the output reserved)",
        );
    }
}

fn warnings(ui: &mut Ui, p: &Prediction) {
    if p.warnings.is_empty() {
        return;
    }
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
