//! The layer overview: one stacked bar per layer (a segment per fragment,
//! width = tokens, colour = status) with the budget and inflow on the same
//! scale, and the context-window bar.

use egui::{Color32, CornerRadius, Rect, Sense, Stroke, StrokeKind, Ui, pos2, vec2};

use super::colors;
use super::command::Command;
use super::state::AppState;
use super::thousands;
use crate::engine::assembly::assemble::{FragmentResult, LayerResult};
use crate::engine::{Assembly, Status};

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
    ui.colored_label(
        colors::text(ui, colors::status(f.status)),
        f.status.as_str(),
    );
    ui.label(&f.reason);
}

/// Draws every layer's bar; a clicked segment pushes [`Command::Select`].
pub fn layers(ui: &mut Ui, state: &AppState, a: &Assembly, out: &mut Vec<Command>) {
    // One scale for all layers, so bars compare.
    let scale = a
        .layers
        .iter()
        .map(|l| {
            // What the bar draws: the block (used) and what trimming cut.
            let cut: u64 = a
                .fragments
                .iter()
                .filter(|f| f.layer == l.layer)
                .map(|f| segment_parts(f).1)
                .sum();
            (l.used + cut).max(l.available).max(l.budget + l.inflow)
        })
        .max()
        .unwrap_or(1)
        .max(1) as f32;
    for l in &a.layers {
        ui.add_space(4.0);
        let agent = state
            .loaded
            .as_ref()
            .is_some_and(|x| x.workspace.profile.name != "layered");
        layer_caption(ui, l, agent);
        layer_bar(ui, state, a, l, scale, out);
    }
    ui.add_space(4.0);
    legend(ui);
}

fn layer_caption(ui: &mut Ui, l: &LayerResult, agent: bool) {
    let dark = ui.visuals().dark_mode;
    ui.horizontal_wrapped(|ui| {
        ui.label(
            egui::RichText::new(format!(
                "Layer {} · {}",
                l.layer,
                crate::engine::assembly::report::layer_name(l, agent)
            ))
            .strong()
            .color(colors::text(ui, colors::layer(l.layer, dark))),
        );
        use crate::engine::workspace::settings::Placement;
        ui.weak(match (l.placement, l.cache) {
            (Placement::FirstUserMessage, _) => "in the first user message, not cached".to_string(),
            (Placement::SystemMessage, true) => {
                format!("a system message, cached {}", l.ttl.as_str())
            }
            (_, true) => format!("cached {}", l.ttl.as_str()),
            (_, false) => "not cached".to_string(),
        });
    });
    let text = format!(
        "{} of {} tokens used (budget {} + inflow {})",
        thousands(l.used),
        thousands(l.available),
        thousands(l.budget),
        thousands(l.inflow)
    );
    ui.add(egui::Label::new(text).wrap())
        .on_hover_text("used: the exact token count of this layer's system block (title, separators and markers included)");
    if l.overflow > 0 {
        ui.add(
            egui::Label::new(
                egui::RichText::new(format!(
                    "{} tokens over its budget{}",
                    thousands(l.overflow),
                    if l.layer <= 2 { " (never trimmed)" } else { "" }
                ))
                .color(colors::text(ui, colors::ERROR)),
            )
            .wrap(),
        );
    }
}

/// Fragments present first (in order), then dropped, then disabled.
fn bar_order(a: &Assembly, layer: u8) -> Vec<&FragmentResult> {
    let frags: Vec<&FragmentResult> = a.fragments.iter().filter(|f| f.layer == layer).collect();
    let rank = |f: &FragmentResult| match f.status {
        Status::Dropped => 1,
        Status::Disabled => 2,
        _ => 0,
    };
    let mut ordered = frags;
    ordered.sort_by_key(|f| rank(f));
    ordered
}

fn layer_bar(
    ui: &mut Ui,
    state: &AppState,
    a: &Assembly,
    l: &LayerResult,
    scale: f32,
    out: &mut Vec<Command>,
) {
    let width = ui.available_width().max(50.0);
    let (rect, _) = ui.allocate_exact_size(vec2(width, 22.0), Sense::hover());
    let painter = ui.painter_at(rect.expand(2.0));
    let visuals = ui.visuals().clone();
    painter.rect_filled(rect, CornerRadius::same(3), visuals.extreme_bg_color);
    // Never past the bar's end: a segment beyond it would widen the panel.
    let px = |t: u64| rect.left() + rect.width() * (t as f32 / scale).min(1.0);
    // Budget band: budget solid outline, inflow lighter.
    let budget_x = px(l.budget);
    let avail_x = px(l.available);
    painter.rect_filled(
        Rect::from_min_max(pos2(budget_x, rect.top()), pos2(avail_x, rect.bottom())),
        0.0,
        visuals.selection.bg_fill.gamma_multiply(0.25),
    );
    let mut x_tokens = 0u64;
    let present: u64 = a
        .fragments
        .iter()
        .filter(|f| f.layer == l.layer)
        .map(|f| f.kept_tokens as u64)
        .sum();
    // Title and separators: what the block costs beyond its fragments.
    let frame = l.used.saturating_sub(present);
    let mut frame_drawn = false;
    let draw_frame = |x_tokens: &mut u64, ui: &mut Ui| {
        if frame == 0 {
            return;
        }
        let seg = Rect::from_min_max(
            pos2(px(*x_tokens), rect.top() + 2.0),
            pos2(
                px(*x_tokens + frame).max(px(*x_tokens) + 1.0),
                rect.bottom() - 2.0,
            ),
        );
        painter.rect_filled(seg, 0.0, colors::UNCACHED);
        ui.interact(seg, ui.scope_id().with(("frame", l.layer)), Sense::hover())
            .on_hover_text(format!(
                "title, separators and markers: {} tokens",
                thousands(frame)
            ));
        *x_tokens += frame;
    };
    for f in bar_order(a, l.layer) {
        let (kept, cut) = segment_parts(f);
        if kept + cut == 0 {
            continue;
        }
        if !frame_drawn && matches!(f.status, Status::Dropped | Status::Disabled) {
            draw_frame(&mut x_tokens, ui);
            frame_drawn = true;
        }
        let seg = Rect::from_min_max(
            pos2(px(x_tokens), rect.top() + 2.0),
            pos2(
                px(x_tokens + kept + cut).max(px(x_tokens) + 1.0),
                rect.bottom() - 2.0,
            ),
        );
        paint_segment(
            &painter,
            seg,
            px(x_tokens + kept),
            kept,
            cut,
            colors::status(f.status),
            &visuals,
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
    if !frame_drawn {
        draw_frame(&mut x_tokens, ui);
    }
    budget_marks(&painter, rect, &px, l, &visuals);
}

/// The excess past the available line in red, then the budget line (solid)
/// and the available line (light).
fn budget_marks(
    painter: &egui::Painter,
    rect: Rect,
    px: &dyn Fn(u64) -> f32,
    l: &LayerResult,
    visuals: &egui::Visuals,
) {
    let (budget_x, avail_x) = (px(l.budget), px(l.available));
    // Over budget: the excess past the available line, in red.
    if l.used > l.available {
        painter.rect_filled(
            Rect::from_min_max(
                pos2(avail_x, rect.top()),
                pos2(px(l.used), rect.top() + 5.0),
            ),
            0.0,
            colors::ERROR,
        );
        painter.rect_filled(
            Rect::from_min_max(
                pos2(avail_x, rect.bottom() - 5.0),
                pos2(px(l.used), rect.bottom()),
            ),
            0.0,
            colors::ERROR,
        );
    }
    for (x, w, c) in [
        (budget_x, 2.0, visuals.text_color()),
        (avail_x, 1.0, visuals.weak_text_color()),
    ] {
        painter.line_segment(
            [pos2(x, rect.top() - 2.0), pos2(x, rect.bottom() + 2.0)],
            Stroke::new(w, c),
        );
    }
}

fn paint_segment(
    painter: &egui::Painter,
    seg: Rect,
    xk: f32,
    kept: u64,
    cut: u64,
    color: Color32,
    visuals: &egui::Visuals,
) {
    if kept > 0 {
        painter.rect_filled(
            Rect::from_min_max(seg.min, pos2(xk.max(seg.min.x + 1.0), seg.max.y)),
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
        [pos2(seg.max.x, seg.top()), pos2(seg.max.x, seg.bottom())],
        Stroke::new(1.0, visuals.extreme_bg_color),
    );
}

fn legend(ui: &mut Ui) {
    ui.horizontal_wrapped(|ui| {
        for s in Status::ALL {
            colors::swatch_label(ui, colors::status(s), s.as_str());
        }
        ui.weak("│ budget line, shaded: inflow, red: over budget");
    });
}

/// Parts of the context window, in the spirit of Claude Code's `/context`.
pub struct ContextPart {
    pub label: String,
    pub tokens: u64,
    pub color: Color32,
    /// Counted as in use (an autocompact buffer is drawn, not used).
    pub in_use: bool,
}

pub fn context_bar(ui: &mut Ui, parts: &[ContextPart], window: u64, threshold: Option<f64>) {
    let used: u64 = parts.iter().filter(|p| p.in_use).map(|p| p.tokens).sum();
    ui.add(
        egui::Label::new(format!(
            "Context window: {} of {} tokens ({:.1}%)",
            thousands(used),
            thousands(window),
            used as f64 * 100.0 / window.max(1) as f64
        ))
        .wrap(),
    );
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
            .on_hover_text(format!("{}: {} tokens", p.label, thousands(p.tokens)));
        x += w;
    }
    if let Some(t) = threshold {
        let tx = rect.left() + rect.width() * t as f32;
        painter.line_segment(
            [pos2(tx, rect.top() - 3.0), pos2(tx, rect.bottom() + 3.0)],
            Stroke::new(2.0, super::colors::ERROR),
        );
    }
    // A window far larger than what is in it: the same parts again on an
    // axis of what is drawn, so a 300-token part of a 1M window shows.
    let drawn: u64 = parts.iter().map(|p| p.tokens).sum();
    if drawn > 0 && drawn * 10 < window {
        ui.weak(format!(
            "zoomed: 0 to {} tokens (the parts above, not the window)",
            thousands(drawn)
        ));
        let (zoom, _) = ui.allocate_exact_size(vec2(width, 12.0), Sense::hover());
        let painter = ui.painter_at(zoom.expand(3.0));
        painter.rect_filled(zoom, 3.0, ui.visuals().extreme_bg_color);
        let mut x = zoom.left();
        for p in parts {
            let w = (zoom.width() * p.tokens as f32 / drawn as f32).max(if p.tokens > 0 {
                2.0
            } else {
                0.0
            });
            let r = Rect::from_min_size(pos2(x, zoom.top()), vec2(w, zoom.height()));
            painter.rect_filled(r, 0.0, p.color);
            ui.interact(
                r,
                ui.scope_id().with(("ctx-zoom", &p.label)),
                Sense::hover(),
            )
            .on_hover_text(format!("{}: {} tokens", p.label, thousands(p.tokens)));
            x += w;
        }
    }
    ui.horizontal_wrapped(|ui| {
        for p in parts.iter().filter(|p| p.tokens > 0) {
            colors::swatch_label(
                ui,
                p.color,
                &format!("{} · {}", p.label, thousands(p.tokens)),
            );
        }
        if let Some(t) = threshold {
            ui.weak(format!("│ auto-compact at {:.0}%", t * 100.0));
        }
    });
}

/// The context-window bar of the session's request: for an agent folder,
/// `/context`'s categories with the agent's own parts (and the rows per
/// memory file, subagent and skill); else the tools, each system block and
/// the output reserved, against the model's window.
pub fn request_context_bar(
    ui: &mut Ui,
    l: &crate::engine::Inspection,
    usage: Option<&crate::engine::assembly::context::ContextUsage>,
) {
    let dark = ui.visuals().dark_mode;
    if let Some(u) = usage.filter(|u| u.agent.is_some()) {
        return agent_context(ui, u, dark);
    }
    let a = &l.assembly;
    let mut parts = vec![ContextPart {
        label: "tools".into(),
        tokens: a.tools_tokens as u64,
        color: colors::tools(dark),
        in_use: true,
    }];
    for b in &a.blocks {
        parts.push(ContextPart {
            label: if b.layer == 0 {
                "the agent's own".to_string()
            } else {
                format!("layer {}", b.layer)
            },
            tokens: b.tokens as u64,
            color: colors::layer(b.layer, dark),
            in_use: true,
        });
    }
    parts.push(ContextPart {
        label: "reserved output".into(),
        tokens: l.workspace.settings.history.reserved_output,
        color: colors::UNCACHED,
        in_use: true,
    });
    context_bar(
        ui,
        &parts,
        l.prepared.model.context_window,
        Some(l.workspace.settings.history.auto_compact_threshold),
    );
}

/// An agent folder's context window as the agent fills it: the categories
/// in use, the autocompact buffer at the end, and the rows per file.
fn agent_context(ui: &mut Ui, u: &crate::engine::assembly::context::ContextUsage, dark: bool) {
    let mut parts: Vec<ContextPart> = u
        .rows
        .iter()
        .filter(|r| r.in_use)
        .map(|r| ContextPart {
            label: r.name.clone(),
            tokens: r.tokens,
            color: colors::category(&r.name, dark),
            in_use: true,
        })
        .collect();
    let buffer = u.rows.iter().find(|r| r.name == "Autocompact buffer");
    if let Some(b) = buffer {
        parts.push(ContextPart {
            label: b.name.clone(),
            tokens: b.tokens,
            color: colors::UNCACHED,
            in_use: false,
        });
    }
    ui.strong(format!(
        "{} · {}",
        u.agent.as_deref().unwrap_or(""),
        u.model
    ));
    context_bar(ui, &parts, u.window, None);
    for r in u.rows.iter().filter(|r| !r.in_use) {
        ui.weak(format!(
            "{}: {} tokens{}",
            r.name,
            thousands(r.tokens),
            if r.name.contains("deferred") {
                " (not sent: loaded on demand)"
            } else {
                ""
            }
        ));
    }
    if u.estimate {
        ui.weak("Counted with o200k_base: this model's tokenizer is not public.");
    }
    for (title, items) in u.item_groups() {
        if items.is_empty() {
            continue;
        }
        egui::CollapsingHeader::new(format!("{title} ({})", items.len()))
            .id_salt(("context-items", title))
            .show(ui, |ui| {
                egui::Grid::new(("context-grid", title))
                    .striped(true)
                    .show(ui, |ui| {
                        for i in items {
                            ui.label(&i.source);
                            ui.label(&i.name);
                            ui.label(thousands(i.tokens));
                            ui.end_row();
                        }
                    });
            });
    }
}
