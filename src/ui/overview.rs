//! The layer overview: one stacked bar per layer (a segment per fragment,
//! width = tokens, colour = status) with the budget and inflow on the same
//! scale, and the context-window bar.

use egui::{Color32, CornerRadius, Rect, Sense, Stroke, StrokeKind, Ui, pos2, vec2};

use super::colors;
use super::command::Command;
use super::state::AppState;
use crate::engine::{Assembly, Status, assembly::assemble::FragmentResult};

fn layer_name(l: u8) -> &'static str {
    match l {
        1 => "identity",
        2 => "safety",
        3 => "capabilities",
        _ => "dynamic",
    }
}

/// Width a fragment takes in the bar: what it costs now, plus (faded) what
/// trimming removed; disabled fragments show what they would cost.
fn segment_parts(f: &FragmentResult) -> (u64, u64) {
    match f.status {
        Status::Kept => (f.kept_tokens as u64, 0),
        Status::Summarized | Status::Truncated => (
            f.kept_tokens as u64,
            (f.tokens - f.kept_tokens.min(f.tokens)) as u64,
        ),
        Status::Dropped | Status::Disabled => (0, f.tokens as u64),
    }
}

fn fragment_tooltip(ui: &mut Ui, f: &FragmentResult) {
    ui.strong(&f.id);
    ui.label(format!(
        "{}:{} · layer {} · priority {}",
        f.source, f.line, f.layer, f.priority
    ));
    ui.label(format!("{} tokens → {} kept", f.tokens, f.kept_tokens));
    ui.colored_label(colors::status(f.status), f.status.as_str());
    ui.label(&f.reason);
}

/// Draws every layer's bar; a clicked segment pushes [`Command::Select`].
pub fn layers(ui: &mut Ui, state: &AppState, a: &Assembly, out: &mut Vec<Command>) {
    // One scale for all layers, so bars compare.
    let scale = a
        .layers
        .iter()
        .map(|l| {
            let demand: u64 = a
                .fragments
                .iter()
                .filter(|f| f.layer == l.layer)
                .map(|f| {
                    let (k, c) = segment_parts(f);
                    k + c
                })
                .sum();
            demand.max(l.available).max(l.used).max(l.budget + l.inflow)
        })
        .max()
        .unwrap_or(1)
        .max(1) as f32;
    for l in &a.layers {
        ui.add_space(4.0);
        ui.horizontal(|ui| {
            ui.strong(format!("Layer {} · {}", l.layer, layer_name(l.layer)));
            if l.cache {
                ui.weak(format!("cached {}", l.ttl.as_str()));
            } else {
                ui.weak("not cached");
            }
        });
        let over = if l.overflow > 0 {
            format!("  — {} over!", l.overflow)
        } else {
            String::new()
        };
        ui.label(format!(
            "{} / {} used (budget {} + inflow {}){over}",
            l.used, l.available, l.budget, l.inflow
        ));
        let width = ui.available_width().max(50.0);
        let (rect, _) = ui.allocate_exact_size(vec2(width, 22.0), Sense::hover());
        let painter = ui.painter_at(rect.expand(2.0));
        let visuals = ui.visuals();
        painter.rect_filled(rect, CornerRadius::same(3), visuals.extreme_bg_color);
        let px = |t: u64| rect.left() + rect.width() * (t as f32 / scale);
        // Budget band: budget solid outline, inflow lighter.
        let budget_x = px(l.budget);
        let avail_x = px(l.available);
        painter.rect_filled(
            Rect::from_min_max(pos2(budget_x, rect.top()), pos2(avail_x, rect.bottom())),
            0.0,
            visuals.selection.bg_fill.gamma_multiply(0.25),
        );
        let mut x_tokens = 0u64;
        let frags: Vec<&FragmentResult> =
            a.fragments.iter().filter(|f| f.layer == l.layer).collect();
        // Present fragments first (in order), then dropped, then disabled.
        let mut ordered: Vec<&FragmentResult> = frags
            .iter()
            .copied()
            .filter(|f| !matches!(f.status, Status::Dropped | Status::Disabled))
            .collect();
        ordered.extend(
            frags
                .iter()
                .copied()
                .filter(|f| f.status == Status::Dropped),
        );
        ordered.extend(
            frags
                .iter()
                .copied()
                .filter(|f| f.status == Status::Disabled),
        );
        for f in ordered {
            let (kept, cut) = segment_parts(f);
            if kept + cut == 0 {
                continue;
            }
            let x0 = px(x_tokens);
            let xk = px(x_tokens + kept);
            let x1 = px(x_tokens + kept + cut);
            let color = colors::status(f.status);
            let seg = Rect::from_min_max(
                pos2(x0, rect.top() + 2.0),
                pos2(x1.max(x0 + 1.0), rect.bottom() - 2.0),
            );
            if kept > 0 {
                painter.rect_filled(
                    Rect::from_min_max(seg.min, pos2(xk.max(x0 + 1.0), seg.max.y)),
                    0.0,
                    color,
                );
            }
            if cut > 0 {
                painter.rect_filled(
                    Rect::from_min_max(pos2(xk, seg.min.y), seg.max),
                    0.0,
                    colors::faded(color),
                );
            }
            painter.line_segment(
                [pos2(x1, seg.top()), pos2(x1, seg.bottom())],
                Stroke::new(1.0, visuals.extreme_bg_color),
            );
            if state.selected.as_deref() == Some(f.id.as_str()) {
                painter.rect_stroke(
                    seg,
                    0.0,
                    Stroke::new(2.0, visuals.strong_text_color()),
                    StrokeKind::Outside,
                );
            }
            let id = ui.scope_id().with(("segment", l.layer, &f.id));
            let resp = ui
                .interact(seg, id, Sense::click())
                .on_hover_ui(|ui| fragment_tooltip(ui, f));
            if resp.clicked() {
                out.push(Command::Select(f.id.clone()));
            }
            x_tokens += kept + cut;
        }
        painter.line_segment(
            [
                pos2(budget_x, rect.top() - 2.0),
                pos2(budget_x, rect.bottom() + 2.0),
            ],
            Stroke::new(2.0, visuals.text_color()),
        );
        painter.line_segment(
            [
                pos2(avail_x, rect.top() - 2.0),
                pos2(avail_x, rect.bottom() + 2.0),
            ],
            Stroke::new(1.0, visuals.weak_text_color()),
        );
    }
    ui.add_space(4.0);
    ui.horizontal_wrapped(|ui| {
        for s in Status::ALL {
            let (r, _) = ui.allocate_exact_size(vec2(10.0, 10.0), Sense::hover());
            ui.painter().rect_filled(r, 2.0, colors::status(s));
            ui.label(s.as_str());
        }
        ui.weak("│ budget line, shaded: inflow");
    });
}

/// Parts of the context window, in the spirit of Claude Code's `/context`.
pub struct ContextPart {
    pub label: String,
    pub tokens: u64,
    pub color: Color32,
}

pub fn context_bar(ui: &mut Ui, parts: &[ContextPart], window: u64, threshold: Option<f64>) {
    let used: u64 = parts.iter().map(|p| p.tokens).sum();
    ui.label(format!(
        "Context window: {} of {} tokens ({:.1}%)",
        used,
        window,
        used as f64 * 100.0 / window.max(1) as f64
    ));
    let width = ui.available_width().max(50.0);
    let (rect, _) = ui.allocate_exact_size(vec2(width, 16.0), Sense::hover());
    let painter = ui.painter_at(rect.expand(3.0));
    painter.rect_filled(rect, 3.0, ui.visuals().extreme_bg_color);
    let mut x = rect.left();
    for p in parts {
        let w = (rect.width() * p.tokens as f32 / window.max(1) as f32).max(if p.tokens > 0 {
            2.0
        } else {
            0.0
        });
        let r = Rect::from_min_size(pos2(x, rect.top()), vec2(w, rect.height()));
        painter.rect_filled(r, 0.0, p.color);
        ui.interact(r, ui.scope_id().with(("ctx", &p.label)), Sense::hover())
            .on_hover_text(format!("{}: {} tokens", p.label, p.tokens));
        x += w;
    }
    if let Some(t) = threshold {
        let tx = rect.left() + rect.width() * t as f32;
        painter.line_segment(
            [pos2(tx, rect.top() - 3.0), pos2(tx, rect.bottom() + 3.0)],
            Stroke::new(2.0, super::colors::ERROR),
        );
    }
    ui.horizontal_wrapped(|ui| {
        for p in parts.iter().filter(|p| p.tokens > 0) {
            let (r, _) = ui.allocate_exact_size(vec2(10.0, 10.0), Sense::hover());
            ui.painter().rect_filled(r, 2.0, p.color);
            ui.label(format!("{} {}", p.label, p.tokens));
        }
        if let Some(t) = threshold {
            ui.weak(format!("│ auto-compact at {:.0}%", t * 100.0));
        }
    });
}

/// The context-window bar of the session's request: tools, each system
/// block, and the output reserved, against the model's window.
pub fn request_context_bar(ui: &mut Ui, l: &crate::engine::Inspection) {
    let a = &l.assembly;
    let dark = ui.visuals().dark_mode;
    let mut parts = vec![ContextPart {
        label: "tools".into(),
        tokens: a.tools_tokens as u64,
        color: colors::fragment("tools", dark),
    }];
    for b in &a.blocks {
        parts.push(ContextPart {
            label: format!("layer {}", b.layer),
            tokens: b.tokens as u64,
            color: colors::fragment(&format!("layer{}", b.layer), dark),
        });
    }
    parts.push(ContextPart {
        label: "reserved output".into(),
        tokens: l.workspace.settings.history.reserved_output,
        color: colors::UNCACHED,
    });
    context_bar(
        ui,
        &parts,
        l.prepared.model.context_window,
        Some(l.workspace.settings.history.auto_compact_threshold),
    );
}
