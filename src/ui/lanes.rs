//! A layer's budget picture in two lanes on one token scale: above, what
//! the block sends, in its order (title and separators, then each kept or
//! trimmed fragment's kept text, then DEBUG markers), against the budget
//! line, with the free space outlined and only the excess past the
//! available line in red; below, faded, what trimming cut and what was
//! dropped or disabled. Kept text never runs past the line unless the layer
//! really overflows.

use egui::{Rect, Sense, Stroke, StrokeKind, Ui, pos2, vec2};

use super::colors;
use super::command::Command;
use super::state::AppState;
use super::thousands;
use crate::engine::assembly::assemble::{FragmentResult, LayerResult};
use crate::engine::{Assembly, Status};

/// What a run of tokens in a lane is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Part<'a> {
    /// The block's title and the separators between fragments.
    Frame,
    /// What the DEBUG markers add (sent only while they are on).
    Markers,
    /// The agent's own text in the block that no fragment holds (an
    /// OpenCode or OpenClaw prompt joined around the user's files).
    Agent,
    /// A fragment's text: sent (upper lane) or cut (lower lane).
    Fragment(&'a FragmentResult),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment<'a> {
    pub part: Part<'a>,
    /// Tokens from the lane's start.
    pub start: u64,
    pub tokens: u64,
}

impl Segment<'_> {
    pub fn end(&self) -> u64 {
        self.start + self.tokens
    }
}

/// A layer's two lanes and what is left.
#[derive(Debug, Clone, PartialEq)]
pub struct Lanes<'a> {
    /// What the block sends, in order; it ends at the layer's `used` plus
    /// the agent's own text in it.
    pub sent: Vec<Segment<'a>>,
    /// What trimming cut (in fragment order), then dropped, then disabled.
    pub cut: Vec<Segment<'a>>,
    /// Tokens of the available budget (budget + inflow) still free.
    pub free: u64,
    /// Tokens past the available line.
    pub over: u64,
}

/// The lanes of layer `l`: every token the block costs is in `sent`
/// (its end is `l.used` plus `l.agent_own`), every token trimming removed
/// is in `cut`.
pub fn lanes<'a>(a: &'a Assembly, l: &LayerResult) -> Lanes<'a> {
    let frags: Vec<&FragmentResult> = a.fragments.iter().filter(|f| f.layer == l.layer).collect();
    let present: u64 = frags.iter().map(|f| f.kept_tokens).sum();
    // The block as sent: the agent's own entries among the user's files
    // (Claude Code's built-in skills in its listing) are fragments too.
    let sent_tokens = l.used + l.agent_own;
    let own_in_fragments: u64 = frags
        .iter()
        .filter(|f| f.is_agents_own())
        .map(|f| f.kept_tokens)
        .sum();
    let agent = l.agent_own.saturating_sub(own_in_fragments);
    let frame = sent_tokens.saturating_sub(present + l.markers + agent);
    let mut sent = Vec::new();
    let mut at = 0;
    let push = |lane: &mut Vec<Segment<'a>>, at: &mut u64, part, tokens: u64| {
        if tokens > 0 {
            lane.push(Segment {
                part,
                start: *at,
                tokens,
            });
            *at += tokens;
        }
    };
    push(&mut sent, &mut at, Part::Agent, agent);
    push(&mut sent, &mut at, Part::Frame, frame);
    for f in &frags {
        push(&mut sent, &mut at, Part::Fragment(f), f.kept_tokens);
    }
    push(
        &mut sent,
        &mut at,
        Part::Markers,
        l.markers.min(sent_tokens),
    );
    let mut cut = Vec::new();
    let mut at = 0;
    let rank = |f: &FragmentResult| match f.status {
        Status::Dropped => 1,
        Status::Disabled => 2,
        _ => 0,
    };
    let mut removed: Vec<&&FragmentResult> = frags.iter().collect();
    removed.sort_by_key(|f| rank(f));
    for f in removed {
        let tokens = f.tokens.saturating_sub(f.kept_tokens);
        push(&mut cut, &mut at, Part::Fragment(f), tokens);
    }
    Lanes {
        sent,
        cut,
        free: l.available.saturating_sub(l.used.saturating_sub(l.markers)),
        over: l.used.saturating_sub(l.available),
    }
}

/// The widest lane of any layer, in tokens: one scale for all, so bars
/// compare.
pub fn scale(a: &Assembly) -> u64 {
    a.layers
        .iter()
        .map(|l| {
            let x = lanes(a, l);
            let cut = x.cut.last().map_or(0, Segment::end);
            (l.used + l.agent_own).max(l.available).max(cut)
        })
        .max()
        .unwrap_or(1)
        .max(1)
}

/// What a segment says to a screen reader and on hover.
fn label(s: &Segment, sent: bool) -> String {
    let n = thousands(s.tokens);
    match s.part {
        Part::Frame => format!("title and separators: {n} tokens sent"),
        Part::Agent => format!("the agent's own text: {n} tokens sent"),
        Part::Markers => format!("DEBUG markers: {n} tokens sent"),
        Part::Fragment(f) if sent => format!("{}: {n} tokens sent ({})", f.id, f.status.as_str()),
        Part::Fragment(f) => match f.status {
            Status::Dropped => format!("{}: {n} tokens dropped", f.id),
            Status::Disabled => format!("{}: {n} tokens disabled", f.id),
            _ => format!("{}: {n} tokens cut ({})", f.id, f.status.as_str()),
        },
    }
}

const SENT_H: f32 = 18.0;
const CUT_H: f32 = 8.0;
const GAP: f32 = 3.0;

/// Draws layer `l`'s lanes at a scale of `scale` tokens for the full width;
/// a clicked fragment pushes [`Command::Select`].
pub fn layer_lanes(
    ui: &mut Ui,
    state: &AppState,
    a: &Assembly,
    l: &LayerResult,
    scale: u64,
    out: &mut Vec<Command>,
) {
    let x = lanes(a, l);
    let width = ui.available_width().max(50.0);
    let height = if x.cut.is_empty() {
        SENT_H
    } else {
        SENT_H + GAP + CUT_H
    };
    let (rect, _) = ui.allocate_exact_size(vec2(width, height), Sense::hover());
    let painter = ui.painter_at(rect.expand(3.0));
    let visuals = ui.visuals().clone();
    // Never past the bar's end: a segment beyond it would widen the panel.
    let px = |t: u64| rect.left() + rect.width() * (t as f32 / scale.max(1) as f32).min(1.0);
    let sent_lane = Rect::from_min_size(rect.min, vec2(width, SENT_H));
    let cut_lane = Rect::from_min_size(
        pos2(rect.left(), rect.top() + SENT_H + GAP),
        vec2(width, CUT_H),
    );
    painter.rect_filled(sent_lane, 3.0, visuals.extreme_bg_color);
    // The free space: outlined up to the available line (an agent's
    // folder has no budget to be free in).
    let agent = state
        .loaded
        .as_ref()
        .is_some_and(|x| x.workspace.profile.agent.is_real_agent());
    if x.free > 0 && !agent {
        let r = Rect::from_min_max(
            pos2(px(l.used), sent_lane.top()),
            pos2(px(l.available), sent_lane.bottom()),
        );
        free_space(ui, &painter, r, (l.layer, x.free));
    }
    let selected = state.selected.as_deref();
    for (lane, segs, sent) in [(sent_lane, &x.sent, true), (cut_lane, &x.cut, false)] {
        for s in segs {
            let r = Rect::from_min_max(
                pos2(px(s.start), lane.top()),
                pos2(px(s.end()).max(px(s.start) + 1.0), lane.bottom()),
            );
            segment(ui, &painter, r, (s, sent, l.layer), selected, out);
        }
    }
    if !agent {
        budget_marks(&painter, sent_lane, rect, &px, l, &visuals);
    }
}

/// One segment of a lane in `r`: a fragment's (sent or cut, outlined when
/// selected, a click selects it), the frame's or the markers'.
fn segment(
    ui: &mut Ui,
    painter: &egui::Painter,
    r: Rect,
    (s, sent, layer): (&Segment, bool, u8),
    selected: Option<&str>,
    out: &mut Vec<Command>,
) {
    let visuals = ui.visuals().clone();
    let color = match s.part {
        Part::Frame => colors::UNCACHED,
        Part::Agent => colors::layer(0, visuals.dark_mode),
        Part::Markers => colors::MARKER,
        Part::Fragment(f) => colors::status(f.status),
    };
    painter.rect_filled(
        r,
        0.0,
        if sent {
            colors::graphic(ui, color)
        } else {
            colors::faded(color)
        },
    );
    if !sent && r.width() > 2.0 {
        // The cut part's pale fill shows "not sent" but not its edges on
        // a light panel (1.1–1.5:1): an outline in the sent colour does
        // (3:1, WCAG 1.4.11).
        painter.rect_stroke(
            r,
            0.0,
            Stroke::new(1.0, colors::graphic(ui, color)),
            StrokeKind::Inside,
        );
    }
    painter.line_segment(
        [pos2(r.max.x, r.top()), pos2(r.max.x, r.bottom())],
        Stroke::new(1.0, visuals.extreme_bg_color),
    );
    let text = label(s, sent);
    let Part::Fragment(f) = s.part else {
        hover(ui, r, (sent, layer, s.start), text);
        return;
    };
    if selected == Some(f.id.as_str()) {
        painter.rect_stroke(
            r,
            0.0,
            Stroke::new(2.0, visuals.strong_text_color()),
            StrokeKind::Outside,
        );
    }
    let id = ui.scope_id().with(("segment", sent, layer, &f.id));
    let resp = ui.interact(r, id, Sense::click());
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, text.clone()));
    if resp
        .on_hover_ui(|ui| fragment_tooltip(ui, f, &text))
        .clicked()
    {
        out.push(Command::Select(f.id.clone()));
    }
}

/// Layer `layer`'s free space, outlined in `r`, its tokens on hover.
fn free_space(ui: &mut Ui, painter: &egui::Painter, r: Rect, (layer, free): (u8, u64)) {
    painter.rect_stroke(
        r.shrink(1.0),
        0.0,
        Stroke::new(1.0, ui.visuals().weak_text_color()),
        StrokeKind::Inside,
    );
    hover(
        ui,
        r,
        ("free", layer),
        format!("free: {} tokens", thousands(free)),
    );
}

fn hover(ui: &mut Ui, r: Rect, salt: impl std::hash::Hash + std::fmt::Debug, text: String) {
    let resp = ui.interact(r, ui.scope_id().with(salt), Sense::hover());
    resp.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Label, true, text.clone()));
    resp.on_hover_text(text);
}

fn fragment_tooltip(ui: &mut Ui, f: &FragmentResult, what: &str) {
    ui.strong(&f.id);
    ui.label(format!(
        "{}:{} · layer {} · priority {}",
        f.source, f.line, f.layer, f.priority
    ));
    ui.label(what);
    ui.label(format!("{} tokens → {} kept", f.tokens, f.kept_tokens));
    ui.colored_label(
        colors::text(ui, colors::status(f.status)),
        f.status.as_str(),
    );
    ui.label(&f.reason);
}

/// The excess past the available line in red (the only red of the bar),
/// then the budget line (solid, across both lanes) and the available line.
fn budget_marks(
    painter: &egui::Painter,
    sent: Rect,
    all: Rect,
    px: &dyn Fn(u64) -> f32,
    l: &LayerResult,
    visuals: &egui::Visuals,
) {
    let (budget_x, avail_x) = (px(l.budget), px(l.available));
    // Over only by what trimming decides on: DEBUG markers are outside the
    // budget (the report's overflow says the same).
    if l.used.saturating_sub(l.markers) > l.available {
        for (top, bottom) in [
            (sent.top(), sent.top() + 5.0),
            (sent.bottom() - 5.0, sent.bottom()),
        ] {
            painter.rect_filled(
                Rect::from_min_max(pos2(avail_x, top), pos2(px(l.used), bottom)),
                0.0,
                colors::ERROR,
            );
        }
    }
    for (x, w, c) in [
        (budget_x, 2.0, visuals.text_color()),
        (avail_x, 1.0, visuals.weak_text_color()),
    ] {
        painter.line_segment(
            [pos2(x, all.top() - 2.0), pos2(x, all.bottom() + 2.0)],
            Stroke::new(w, c),
        );
    }
}

/// What the lanes' colours and marks mean (the budget's marks only where
/// the layers have `budgets`: not an agent's folder).
pub fn legend(ui: &mut Ui, budgets: bool) {
    ui.horizontal_wrapped(|ui| {
        for s in Status::ALL {
            colors::swatch_label(ui, colors::status(s), s.as_str());
        }
        colors::swatch_label(ui, colors::UNCACHED, "title, separators");
        colors::swatch_label(ui, colors::MARKER, "DEBUG markers");
        if !budgets {
            let own = colors::layer(0, ui.visuals().dark_mode);
            colors::swatch_label(ui, own, "the agent's own text");
        }
    });
    let lanes = "Upper lane: what the block sends, in order; lower lane, faded: what trimming cut and what was dropped.";
    let text = if budgets {
        format!(
            "{lanes} The thick line: the layer's budget; the thin one: the budget and its inflow; outlined: free; red: over budget."
        )
    } else {
        lanes.to_string()
    };
    ui.add(egui::Label::new(egui::RichText::new(text).weak()).wrap());
}
