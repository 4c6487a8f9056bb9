//! The Traffic tab's selected request: its parts (tools, system blocks,
//! messages) as token bars in the Prompt view's colours, each part's files,
//! and what the provider counted beyond them.

use std::path::PathBuf;

use egui::{Rect, RichText, Sense, Ui, vec2};

use super::colors;
use super::command::Command;
use super::thousands;
use crate::engine::traffic::profile_check::Against;
use crate::engine::traffic::{Cost, Traffic};

/// A part's colour: a tool's, its system block's layer's, the
/// conversation's (faded for a server's chat template).
fn part_color(label: &str, dark: bool) -> egui::Color32 {
    if label == crate::engine::traffic::TEMPLATE {
        colors::faded(colors::HISTORY)
    } else if label.starts_with("tool") {
        colors::tools(dark)
    } else if let Some(n) = label.strip_prefix("system block ") {
        colors::layer(n.parse().unwrap_or(1), dark)
    } else {
        colors::HISTORY
    }
}

/// The width of a part's figure ("1,234,567 tokens").
const FIGURE_WIDTH: f32 = 110.0;

/// A part's figure, right-aligned in a column of its own width (a
/// right-to-left cell would take every point left and push the bar past
/// the pane's edge).
fn figure_cell(ui: &mut Ui, text: String) {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let color = ui.visuals().text_color();
    let w = ui.fonts_mut(|f| f.layout_no_wrap(text.clone(), font, color).size().x);
    ui.horizontal(|ui| {
        ui.add_space((FIGURE_WIDTH - w).max(0.0));
        ui.label(text);
    });
}

/// Where a part's text comes from: each file in the file's colour.
fn part_sources(ui: &mut Ui, src: &crate::engine::traffic::attribution::PartSource, dark: bool) {
    ui.horizontal_wrapped(|ui| {
        for (file, tokens) in &src.from_files {
            ui.colored_label(
                colors::text(ui, colors::fragment(file, dark)),
                format!("{file} {}", thousands(*tokens)),
            );
        }
        if src.from_no_file > 0 && !src.from_files.is_empty() {
            ui.weak(format!("· no file {}", thousands(src.from_no_file)));
        }
    });
}

/// A recorded request's parts (tools, system blocks, messages) as token
/// bars, coloured as in the Prompt view; breakpoints marked.
pub fn parts(
    ui: &mut Ui,
    counted: &crate::engine::traffic::Parts,
    attribution: Option<&crate::engine::traffic::attribution::Attribution>,
) {
    let parts = &counted.parts;
    if parts.is_empty() {
        ui.weak("  (no request body recorded: a transcript has usage only)");
        return;
    }
    // Their sum and who counted them first: a long request's parts run
    // below the fold.
    ui.add(egui::Label::new(RichText::new(format!("  {}", counted.summary())).weak()).wrap());
    let dark = ui.visuals().dark_mode;
    let max = parts.iter().map(|p| p.tokens).max().unwrap_or(1).max(1);
    // Label, figure, then the bar, and the files in what is left.
    let width = (ui.available_width() * 0.3).clamp(60.0, 480.0);
    egui::Grid::new("traffic-parts")
        .num_columns(4)
        .show(ui, |ui| {
            for (i, p) in parts.iter().enumerate() {
                let color = part_color(&p.label, dark);
                ui.label(
                    RichText::new(format!(
                        "  {}{}",
                        p.label,
                        if p.breakpoint { " · breakpoint" } else { "" }
                    ))
                    .monospace(),
                );
                figure_cell(ui, format!("{} tokens", thousands(p.tokens)));
                let (rect, bar) = ui.allocate_exact_size(vec2(width, 10.0), Sense::hover());
                let role = egui::accesskit::Role::ProgressIndicator;
                bar.widget_info(|| {
                    egui::WidgetInfo::labeled(role, true, format!("bar of part {}", i + 1))
                });
                let color = colors::graphic(ui, color);
                ui.painter().rect_filled(
                    Rect::from_min_size(
                        rect.min,
                        vec2(rect.width() * p.tokens as f32 / max as f32, rect.height()),
                    ),
                    0.0,
                    color,
                );
                match attribution.and_then(|a| a.parts.get(i)) {
                    Some(src) => part_sources(ui, src, dark),
                    None => {
                        ui.label("");
                    }
                }
                ui.end_row();
            }
            // What the provider counted beyond the parts: a part of its own.
            if let Some((what, d)) = counted.unaccounted() {
                ui.label(RichText::new(format!("  ({what})")).monospace());
                figure_cell(ui, format!("{:+} tokens", d));
                let (rect, _) = ui.allocate_exact_size(vec2(width, 10.0), Sense::hover());
                let w = rect.width() * (d.unsigned_abs() as f32 / max as f32).min(1.0);
                ui.painter().rect_stroke(
                    Rect::from_min_size(rect.min, vec2(w, rect.height())),
                    0.0,
                    egui::Stroke::new(1.5, colors::WARNING),
                    egui::StrokeKind::Inside,
                );
                ui.end_row();
            }
        });
}

/// The tabs of the selected request's pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DetailTab {
    /// Its parts (tools, system blocks, messages) with tokens and the
    /// files each came from.
    #[default]
    Parts,
    /// The open folder's files in it, and how its profile renders it.
    Files,
    /// Its body as recorded.
    Body,
    /// The request's and the answer's HTTP headers.
    Headers,
    /// The answer: its status, its time, the usage the provider reported,
    /// who sent the request.
    Response,
}

impl DetailTab {
    pub const ALL: [DetailTab; 5] = [
        DetailTab::Parts,
        DetailTab::Files,
        DetailTab::Body,
        DetailTab::Headers,
        DetailTab::Response,
    ];

    /// Its label (fixed, so the tab bar never moves).
    pub fn label(self) -> &'static str {
        match self {
            DetailTab::Parts => "Parts",
            DetailTab::Files => "Your files",
            DetailTab::Body => "Request body",
            DetailTab::Headers => "Headers",
            DetailTab::Response => "Response",
        }
    }
}

/// The selected request: its summary and actions (the way to its diff,
/// copies of its body, learning from it) above tabs of its parts, the
/// folder's files in it and its body; or how to select one.
pub fn selected(
    ui: &mut Ui,
    t: &Traffic,
    (selected, traced, body, tab): (
        Option<usize>,
        Option<&Traced>,
        Option<&Body>,
        &mut DetailTab,
    ),
    (diff_source, learned): (Option<&PathBuf>, Option<&Result<String, String>>),
    out: &mut Vec<Command>,
) {
    let Some(r) = selected.and_then(|i| t.requests.iter().find(|r| r.index == i)) else {
        ui.weak("Click a request (a row, or its tick on the timeline) for its parts, its files and its diff.");
        return;
    };
    let scale = t
        .requests
        .iter()
        .filter_map(|r| r.usage)
        .map(|u| u.input().total())
        .max()
        .unwrap_or(1);
    let width = (ui.available_width() * 0.4).clamp(120.0, 480.0);
    let traced = traced.filter(|(i, _)| *i == r.index);
    let against = traced.and_then(|(_, t)| t.as_ref());
    // The tabs first, so a short pane keeps them; the summary and actions
    // scroll with the tab's content.
    ui.horizontal(|ui| {
        for k in DetailTab::ALL {
            ui.selectable_value(tab, k, k.label());
        }
    });
    ui.separator();
    // Its scroll bar always shown: in a short pane the parts lie below.
    egui::ScrollArea::vertical()
        .id_salt("traffic-scroll")
        .auto_shrink([false, false])
        .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
        .show(ui, |ui| {
            header(
                ui,
                r,
                (body, against, learned),
                diff_source,
                (scale, width),
                out,
            );
            ui.separator();
            tab_content(ui, r, *tab, (traced, against, body), out);
        });
}

/// What the selected tab shows.
fn tab_content(
    ui: &mut Ui,
    r: &crate::engine::traffic::Row,
    tab: DetailTab,
    (traced, against, body): (
        Option<&Traced>,
        Option<&Result<Against, String>>,
        Option<&Body>,
    ),
    out: &mut Vec<Command>,
) {
    match tab {
        DetailTab::Parts => {
            let attribution = against
                .and_then(|a| a.as_ref().ok())
                .map(|a| &a.attribution);
            parts(ui, &r.parts, attribution);
        }
        DetailTab::Files => match against {
            Some(a) => trace_ui(ui, a),
            None if traced.is_some() => {
                ui.weak("  tracing it to the open folder's files…");
            }
            None => {
                ui.weak("  open the folder the agent ran in to trace this request to its files");
            }
        },
        DetailTab::Body => match body {
            Some(b) => as_recorded(ui, b),
            None if r.parts.parts.is_empty() => {
                ui.weak("  no request body recorded: a transcript has usage only");
            }
            None => {
                ui.weak("  reading the request from its file…");
            }
        },
        DetailTab::Headers => match body {
            Some(Ok(b)) => headers::show(ui, b.headers.as_ref()),
            Some(Err(e)) => {
                ui.weak(format!("  the request as recorded: {e}"));
            }
            None if r.parts.parts.is_empty() => {
                ui.weak("  no headers recorded: a transcript has usage only");
            }
            None => {
                ui.weak("  reading the request from its file…");
            }
        },
        DetailTab::Response => {
            headers::response(ui, r);
            let recorded = body.and_then(|b| b.as_ref().ok());
            headers::response_body(ui, recorded.and_then(|b| b.response.as_deref()), out);
        }
    }
}

#[path = "traffic_headers.rs"]
mod headers;

/// "Learn the agent's own parts from this request", and what it said.
fn learn_button(
    ui: &mut Ui,
    capture: &std::path::Path,
    r: &crate::engine::traffic::Row,
    out: &mut Vec<Command>,
) {
    let Some(release) = &r.release else {
        return;
    };
    if ui
        .button(format!("Learn {}'s own parts from this request", release.name()))
        .on_hover_text("its system prompt, runtime context and tool definitions, your files and user-level memory left out, kept in your data folder (never a key or a line of your files): this folder's views then use them, labelled as observed")
        .clicked()
    {
        out.push(Command::LearnParts {
            capture: capture.to_path_buf(),
            index: r.index,
        });
    }
}

/// What learning from the request said.
fn learned_said(ui: &mut Ui, learned: Option<&Result<String, String>>) {
    let said = match learned {
        Some(Ok(said)) => RichText::new(said).color(colors::text(ui, colors::READ)),
        Some(Err(e)) => {
            RichText::new(format!("not learned: {e}")).color(colors::text(ui, colors::ERROR))
        }
        None => return,
    };
    ui.add(egui::Label::new(said).wrap());
}

/// `812 bytes`, `14 KB`.
fn size(n: usize) -> String {
    if n < 1024 {
        format!("{n} bytes")
    } else {
        format!("{} KB", thousands(n.div_ceil(1024) as u64))
    }
}

/// What was found of the selected request: its body, its trace, what
/// learning from it said.
type Found<'a> = (
    Option<&'a Body>,
    Option<&'a Result<Against, String>>,
    Option<&'a Result<String, String>>,
);

/// A request's body as recorded, read for the selected request.
pub type Body = Result<super::traffic::RequestText, String>;

/// How much of a body is drawn (a copy takes all of it).
const SHOWN_BYTES: usize = 64 * 1024;

/// A copy of the request's body, and of a curl command that sends it again.
fn copy_buttons(ui: &mut Ui, b: &super::traffic::RequestText, out: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        if ui.button("Copy the body").clicked() {
            out.push(Command::CopyText(b.json.clone()));
        }
        if ui
            .button("Copy as cURL")
            .on_hover_text("a curl command that sends this request again: the key is read from $ANTHROPIC_API_KEY, $OPENAI_API_KEY or $GEMINI_API_KEY, never written in it")
            .clicked()
        {
            out.push(Command::CopyText(b.curl.clone()));
        }
    });
}

/// The selected request's body as recorded (JSON, the first 64 KiB drawn).
fn as_recorded(ui: &mut Ui, body: &Body) {
    let b = match body {
        Ok(b) => b,
        Err(e) => {
            ui.weak(format!("  the request as recorded: {e}"));
            return;
        }
    };
    ui.weak(format!("Request body as recorded ({})", size(b.json.len())));
    let shown = &b.json[..b.json.floor_char_boundary(SHOWN_BYTES)];
    ui.add(egui::Label::new(RichText::new(shown).monospace()).wrap());
    if shown.len() < b.json.len() {
        ui.weak(format!(
            "… {} more: copy the body for all of it",
            size(b.json.len() - shown.len())
        ));
    }
}

/// The selected request's summary: its name, its bar on the shared axis
/// (`scale` tokens over `width` points), its cost and status, the reason
/// for a write or miss, whether its profile renders it differently; then
/// its actions (its diff, copies of its body, learning from it).
fn header(
    ui: &mut Ui,
    r: &crate::engine::traffic::Row,
    (body, against, learned): Found,
    source: Option<&PathBuf>,
    (scale, width): (u64, f32),
    out: &mut Vec<Command>,
) {
    summary_line(ui, r, (scale, width));
    if let Some(m) = &r.miss {
        ui.add(
            egui::Label::new(RichText::new(format!("  {}: {}", m.kind, m.detail)).weak()).wrap(),
        );
    }
    if let Some(e) = &r.error {
        ui.colored_label(colors::text(ui, colors::ERROR), e);
    }
    ui.horizontal_wrapped(|ui| {
        if let (Some(prev), Some(src), false) = (r.previous, source, r.parts.parts.is_empty())
            && ui
                .button(format!("Diff with request #{prev}"))
                .on_hover_text(
                    "what changed since the previous request of this chain, in the Diff view",
                )
                .clicked()
        {
            out.push(Command::DiffRequests {
                capture: src.clone(),
                a: prev,
                b: r.index,
            });
        }
        if let Some(Ok(b)) = body {
            copy_buttons(ui, b, out);
        }
        // A request traced to the open workspace whose sender is known
        // teaches its own parts (`agents learn`).
        if let (Some(src), Some(Ok(_))) = (source, against) {
            learn_button(ui, src, r, out);
        }
    });
    // What the trace found, below the actions: a trace arriving late moves
    // nothing above it.
    if let Some(Ok(a)) = against
        && !a.differences.is_empty()
    {
        ui.colored_label(colors::text(ui, colors::WARNING), differs(a))
            .on_hover_text("each difference in the Your files tab");
    }
    if against.is_some_and(|a| a.is_ok()) {
        learned_said(ui, learned);
    }
}

/// The request's name, its bar on the shared axis, its cost, its status.
fn summary_line(ui: &mut Ui, r: &crate::engine::traffic::Row, (scale, width): (u64, f32)) {
    // Wrapped at a narrow width: the cost and status go to the next line.
    ui.horizontal_wrapped(|ui| {
        let label = format!("#{} · {} · {}", r.index, r.chain, r.model);
        ui.add_sized(
            [240.0, 18.0],
            egui::Button::selectable(true, RichText::new(label).monospace()),
        )
        .on_hover_text(&r.time);
        if let Some(u) = &r.usage {
            bar(ui, u, scale, width);
            let cost = match r.cost() {
                Cost::Priced(c) => format!("${c:.5}"),
                other => other.cell("no price"),
            };
            ui.label(RichText::new(cost).monospace());
        }
        // The answer's status and time (captures); a failure in red.
        if r.status.is_some() || r.latency_ms.is_some() {
            ui.weak("·");
            let status = r.status.map_or(String::new(), |s| format!("HTTP {s}"));
            let latency = r.latency_ms.map_or(String::new(), |l| format!(" · {l} ms"));
            let failed = r.error.is_some() || r.status.is_some_and(|s| s >= 400);
            let text = RichText::new(format!("{status}{latency}")).monospace();
            if failed {
                ui.colored_label(colors::text(ui, colors::ERROR), text);
            } else {
                ui.weak(text);
            }
        }
    });
}

/// "Your agent sends this differently from the P profile: N differences".
fn differs(a: &Against) -> String {
    format!(
        "Your agent sends this differently from the {} profile: {}",
        a.profile,
        crate::engine::plural(a.differences.len(), "difference")
    )
}

/// A request traced to the open workspace, as the Traffic tab keeps it.
pub type Traced = (usize, Option<Result<Against, String>>);

/// The selected request against the open workspace: a banner when its
/// profile renders it differently, and "your files in this request".
fn trace_ui(ui: &mut Ui, against: &Result<Against, String>) {
    let a = match against {
        Err(e) => {
            ui.weak(format!("  not traced to the workspace: {e}"));
            return;
        }
        Ok(a) => a,
    };
    let d = &a.differences;
    if !d.is_empty() {
        egui::Frame::new()
            .stroke(egui::Stroke::new(1.0, colors::WARNING))
            .inner_margin(6.0)
            .show(ui, |ui| {
                ui.colored_label(colors::text(ui, colors::WARNING), differs(a));
                for x in d {
                    let point = serde_json::to_value(x.point)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    ui.label(format!(
                        "{point}{}: the profile {} · the agent {}",
                        x.file
                            .as_deref()
                            .map(|f| format!(" · {f}"))
                            .unwrap_or_default(),
                        x.profile,
                        x.agent
                    ));
                }
            });
    }
    for r in &a.read_in_session {
        ui.weak(format!(
            "{}: loaded during the session (first in {}), not in the prompt the profile renders for its first request",
            r.file, r.part
        ));
    }
    if let Some(note) = &a.not_this_agent {
        ui.label(RichText::new(note).strong());
    }
    if !a.home_not_sent.is_empty() {
        ui.weak(crate::engine::traffic::profile_check_text::home_not_sent_words(&a.home_not_sent));
    }
    let at = &a.attribution;
    ui.label(
        RichText::new(format!(
            "Your files in this request: {} of {} tokens ({} from no file: the agent's own prompt, tools, runtime context)",
            thousands(at.from_files),
            thousands(at.tokens),
            thousands(at.from_no_file)
        ))
        .strong(),
    );
    let dark = ui.visuals().dark_mode;
    egui::Grid::new("traffic-your-files")
        .num_columns(3)
        .show(ui, |ui| {
            for f in &at.files {
                ui.colored_label(colors::text(ui, colors::fragment(&f.path, dark)), &f.path);
                ui.label(format!("{} tokens", thousands(f.tokens)));
                ui.label(match f.sent {
                    crate::engine::traffic::attribution::Sent::Whole => "whole".to_string(),
                    crate::engine::traffic::attribution::Sent::Cut => {
                        format!("cut: {} of {} lines", f.lines_sent, f.lines)
                    }
                    crate::engine::traffic::attribution::Sent::Changed => f.changed_words(),
                    crate::engine::traffic::attribution::Sent::Listed => {
                        "listed (its description)".to_string()
                    }
                    crate::engine::traffic::attribution::Sent::Absent => "not sent".to_string(),
                });
                ui.end_row();
            }
        });
}

fn bar(ui: &mut Ui, u: &crate::engine::Usage, scale: u64, width: f32) -> egui::Response {
    let resp = colors::usage_bar(ui, &u.input(), scale, width, Sense::click());
    resp.on_hover_text(format!(
        "read {} · written {} · uncached {} · output {}",
        thousands(u.cache_read_input_tokens),
        thousands(u.cache_creation_input_tokens),
        thousands(u.input_tokens),
        thousands(u.output_tokens)
    ))
}
