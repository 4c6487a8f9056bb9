//! The layer overview: per layer its caption and its budget lanes
//! ([`super::lanes`]: what is sent against the budget line, what was cut
//! below it), all on one scale, and the context-window bar.

use egui::{Color32, Rect, Sense, Stroke, Ui, pos2, vec2};

use super::colors;
use super::command::Command;
use super::state::AppState;
use super::thousands;
use crate::engine::Assembly;
use crate::engine::assembly::assemble::LayerResult;

/// Draws every layer's bar; a clicked segment pushes [`Command::Select`].
pub fn layers(ui: &mut Ui, state: &AppState, a: &Assembly, out: &mut Vec<Command>) {
    let agent = state
        .loaded
        .as_ref()
        .is_some_and(|x| x.workspace.profile.agent.is_real_agent());
    // The caching rules of the model (Anthropic's breakpoints, or a prefix
    // cached without them), as the report says them.
    let rules = state
        .loaded
        .as_ref()
        .map_or(crate::engine::Provider::Anthropic, |i| {
            i.prepared.model.provider
        });
    // One scale for all layers, so bars compare: an agent's folder's on
    // what it sends (its layers have no budgets to fill).
    let scale = if agent {
        a.layers
            .iter()
            .map(|l| l.used + l.agent_own)
            .max()
            .unwrap_or(1)
            .max(1)
    } else {
        super::lanes::scale(a)
    };
    for l in &a.layers {
        // An agent's folder: only the layers its files go to (its layers
        // have no budgets of their own to show empty).
        if agent && l.used == 0 && !a.fragments.iter().any(|f| f.layer == l.layer) {
            continue;
        }
        ui.add_space(4.0);
        layer_caption(ui, l, agent, rules);
        super::lanes::layer_lanes(ui, state, a, l, scale, out);
    }
    ui.add_space(4.0);
    super::lanes::legend(ui, !agent);
}

fn layer_caption(ui: &mut Ui, l: &LayerResult, agent: bool, rules: crate::engine::Provider) {
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
        ui.weak(crate::engine::assembly::report::layer_cache(l, rules));
    });
    // DEBUG markers are sent but outside the budget: counted apart, so
    // that the figure against the budget is what the budget holds.
    let within = l.used.saturating_sub(l.markers);
    let markers = if l.markers > 0 {
        format!(
            " + {} tokens of DEBUG markers (outside the budget)",
            thousands(l.markers)
        )
    } else {
        String::new()
    };
    let text = if agent && l.agent_own > 0 {
        // A block the agent's own entries share (its listings): the bar
        // holds both, the figure is the user's, the report's.
        format!(
            "{} tokens of your files{markers} + {} of the agent's own in the same block: {} as sent (the agent's own caps decide what is sent)",
            thousands(within),
            thousands(l.agent_own),
            // The block as sent: the markers are in it.
            thousands(l.used + l.agent_own)
        )
    } else if agent {
        format!(
            "{} tokens{markers} (the agent's own caps decide what is sent, not a layer budget)",
            thousands(within)
        )
    } else {
        format!(
            "{} of {} tokens used{markers} (budget {} + inflow {})",
            thousands(within),
            thousands(l.available),
            thousands(l.budget),
            thousands(l.inflow)
        )
    };
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

/// Parts of the context window, in the spirit of Claude Code's `/context`.
pub struct ContextPart {
    pub label: String,
    pub tokens: u64,
    pub color: Color32,
    /// Counted as in use (an autocompact buffer is drawn, not used).
    pub in_use: bool,
}

/// A bar of `size` with each part's segment on an axis of `total` tokens
/// (a part with tokens at least 2 points wide), its figure on hover; the
/// bar's rectangle and its painter.
fn segments(
    ui: &mut Ui,
    (width, height): (f32, f32),
    parts: &[ContextPart],
    (total, salt): (u64, &str),
) -> (Rect, egui::Painter) {
    let (rect, _) = ui.allocate_exact_size(vec2(width, height), Sense::hover());
    let painter = ui.painter_at(rect.expand(3.0));
    painter.rect_filled(rect, 3.0, ui.visuals().extreme_bg_color);
    let mut x = rect.left();
    for (i, p) in parts.iter().enumerate() {
        let min = if p.tokens > 0 { 2.0 } else { 0.0 };
        let w = (rect.width() * p.tokens as f32 / total.max(1) as f32).max(min);
        let r = Rect::from_min_size(pos2(x, rect.top()), vec2(w, rect.height()));
        let next = parts[i + 1..].iter().any(|p| p.tokens > 0);
        let fill = Rect::from_min_size(r.min, vec2(w - colors::gap_after(w, next), r.height()));
        painter.rect_filled(fill, 0.0, colors::graphic(ui, p.color));
        ui.interact(r, ui.scope_id().with((salt, &p.label)), Sense::hover())
            .on_hover_text(format!("{}: {} tokens", p.label, thousands(p.tokens)));
        x += w;
    }
    (rect, painter)
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
    let (rect, painter) = segments(ui, (width, 16.0), parts, (window, "ctx"));
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
        // What is drawn but not in use (an autocompact buffer) is named,
        // so that the zoom's end and the figure above agree.
        let kept_free: u64 = parts.iter().filter(|p| !p.in_use).map(|p| p.tokens).sum();
        let free = if kept_free > 0 {
            format!(", {} of them kept free", thousands(kept_free))
        } else {
            String::new()
        };
        ui.weak(format!(
            "Zoomed in: the same parts on an axis of their {} tokens{free}, not of the window",
            thousands(drawn)
        ));
        segments(ui, (width, 12.0), parts, (drawn, "ctx-zoom"));
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

/// The context-window bar of the session's request: the categories and
/// figures of `context` (for an agent folder `/context`'s, with the agent's
/// own parts and the rows per memory file, subagent and skill; else the
/// tools, each layer, the messages), what is kept free drawn after them;
/// before `context`'s figures are there, the tools and each system block.
pub fn request_context_bar(
    ui: &mut Ui,
    l: &crate::engine::Inspection,
    usage: Option<&crate::engine::assembly::context::ContextUsage>,
) {
    let dark = ui.visuals().dark_mode;
    if let Some(u) = usage {
        let threshold = u
            .agent
            .is_none()
            .then_some(l.workspace.settings.history.auto_compact_threshold);
        return usage_context(ui, u, (dark, &l.prepared.session), threshold);
    }
    let a = &l.assembly;
    let mut parts = vec![ContextPart {
        label: "tools".into(),
        tokens: a.tools_tokens,
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
            tokens: b.tokens,
            color: colors::layer(b.layer, dark),
            in_use: true,
        });
    }
    parts.push(ContextPart {
        label: "Reserved output".into(),
        tokens: l.workspace.settings.history.reserved_output,
        color: colors::UNCACHED,
        in_use: false,
    });
    context_bar(
        ui,
        &parts,
        l.prepared.model.context_window,
        Some(l.workspace.settings.history.auto_compact_threshold),
    );
}

/// `context`'s categories in use, then what is kept free at the end (an
/// agent's autocompact buffer, a workspace's reserved output), as parts of
/// a context bar: the side panel's and the Cache tab's.
pub fn usage_parts(
    u: &crate::engine::assembly::context::ContextUsage,
    dark: bool,
) -> Vec<ContextPart> {
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
    let buffer = u
        .rows
        .iter()
        .find(|r| r.name == "Autocompact buffer" || r.name == "Reserved output");
    if let Some(b) = buffer {
        parts.push(ContextPart {
            label: b.name.clone(),
            tokens: b.tokens,
            color: colors::UNCACHED,
            in_use: false,
        });
    }
    parts
}

/// The context window as `context` counts it: the categories in use, what
/// is kept free at the end (an agent's autocompact buffer, a workspace's
/// reserved output), and the rows per file.
fn usage_context(
    ui: &mut Ui,
    u: &crate::engine::assembly::context::ContextUsage,
    (dark, session): (bool, &str),
    threshold: Option<f64>,
) {
    let parts = usage_parts(u, dark);
    ui.strong(format!(
        "{} · {}",
        u.agent.as_deref().unwrap_or("this workspace"),
        u.model
    ));
    context_notes(ui, u);
    // Not one request's (the Cache tab has each request's): the whole
    // conversation, its answers included, as `context` counts it.
    ui.weak(format!("Session '{session}' after its last turn"));
    context_bar(ui, &parts, u.window, threshold);
    // What is kept free is in the bar's legend already; a category of no
    // tokens (an agent without an autocompact buffer) says nothing.
    let kept_free = |r: &&crate::engine::assembly::context::Row| {
        parts.iter().any(|p| !p.in_use && p.label == r.name)
    };
    for r in u
        .rows
        .iter()
        .filter(|r| !r.in_use && r.tokens > 0 && !kept_free(r))
    {
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
    for (title, items, beyond) in u.item_groups() {
        if items.is_empty() {
            continue;
        }
        let note = crate::engine::assembly::context::group_note(title);
        let header = egui::CollapsingHeader::new(format!("{title} ({})", items.len()))
            .id_salt(("context-items", title))
            .show(ui, |ui| {
                if let Some(n) = note {
                    ui.add(egui::Label::new(egui::RichText::new(n).weak()).wrap());
                }
                egui::Grid::new(("context-grid", title))
                    .striped(true)
                    .show(ui, |ui| {
                        for i in items {
                            ui.label(&i.source);
                            ui.label(&i.name);
                            ui.label(thousands(i.tokens));
                            ui.end_row();
                        }
                        // What the category holds beyond its files.
                        if let Some(i) = beyond {
                            ui.weak(&i.source);
                            ui.weak(&i.name);
                            ui.weak(thousands(i.tokens));
                            ui.end_row();
                        }
                    });
            });
        if let Some(n) = note {
            header.header_response.on_hover_text(n);
        }
    }
}

/// The context view's notes: another release, the home memory left out
/// (warnings), and what the Messages row holds without a session.
fn context_notes(ui: &mut Ui, u: &crate::engine::assembly::context::ContextUsage) {
    for n in u.other_release.iter().chain(&u.home_memory_not_counted) {
        ui.add(
            egui::Label::new(egui::RichText::new(n).color(colors::text(ui, colors::WARNING)))
                .wrap(),
        );
    }
    if let Some(n) = &u.messages_note {
        ui.add(egui::Label::new(egui::RichText::new(n).weak()).wrap());
    }
}
