//! The fragment detail: source text, rendered text, counts, and a token view
//! that colours every token (like tiktokenizer).

use std::ops::Range;

use egui::text::LayoutJob;
use egui::{Color32, FontId, RichText, TextFormat, Ui};

use super::colors;
use super::thousands;
use crate::engine::assembly::assemble::{FragmentResult, PreparedFragment};
use crate::engine::problems::Problem;
use crate::engine::workspace::types::WordsKind;
use crate::engine::{Encoding, TokenCounter};

/// Token spans of the fragment shown, cached by (id, text).
#[derive(Default)]
pub struct TokenViewCache {
    key: Option<(String, u64)>,
    spans: Vec<Range<usize>>,
}

/// Longest text the token view colours (longer texts show their start).
const TOKEN_VIEW_BYTES: usize = 24_000;

impl TokenViewCache {
    fn spans(
        &mut self,
        counter: &TokenCounter,
        enc: Encoding,
        id: &str,
        text: &str,
    ) -> &[Range<usize>] {
        let h = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        if self.key.as_ref().map(|(i, k)| (i.as_str(), *k)) != Some((id, h)) {
            let mut cut = text.len().min(TOKEN_VIEW_BYTES);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            self.spans = counter.token_spans(enc, &text[..cut]);
            self.key = Some((id.to_string(), h));
        }
        &self.spans
    }
}

const TOKEN_COLORS: [Color32; 6] = [
    Color32::from_rgb(0x6B, 0xA3, 0xD6),
    Color32::from_rgb(0xE3, 0x9B, 0x5B),
    Color32::from_rgb(0x8C, 0xC8, 0x6E),
    Color32::from_rgb(0xD4, 0x7F, 0xB8),
    Color32::from_rgb(0xC9, 0xB4, 0x58),
    Color32::from_rgb(0x7E, 0xC4, 0xC1),
];

fn token_view(ui: &mut Ui, text: &str, spans: &[Range<usize>]) {
    let mut job = LayoutJob::default();
    let font = FontId::monospace(12.5);
    for (i, r) in spans.iter().enumerate() {
        let bg = TOKEN_COLORS[i % TOKEN_COLORS.len()].gamma_multiply(0.45);
        let piece = text[r.clone()].replace('\n', "↵\n");
        // The text readable (WCAG AA) on the fill as it shows on the panel.
        let shown = super::colors::over(bg, ui.visuals().panel_fill);
        let color = super::colors::readable_on(ui.visuals().text_color(), &[shown]);
        job.append(
            &piece,
            0.0,
            TextFormat {
                font_id: font.clone(),
                color,
                background: bg,
                ..Default::default()
            },
        );
    }
    if spans.last().map(|r| r.end).unwrap_or(0) < text.len() {
        job.append(
            "\n… (token view shows the first 24 KB)",
            0.0,
            TextFormat {
                font_id: font,
                color: ui.visuals().weak_text_color(),
                ..Default::default()
            },
        );
    }
    job.wrap.max_width = ui.available_width();
    ui.label(job);
}

/// The fragment's id, status, place, counts and (a memory file) its own
/// text's tokens.
fn heading(ui: &mut Ui, f: &FragmentResult, enc: Encoding) {
    ui.heading(RichText::new(&f.id).monospace());
    ui.horizontal_wrapped(|ui| {
        ui.colored_label(
            colors::text(ui, colors::status(f.status)),
            RichText::new(f.status.as_str()).strong(),
        );
        ui.label(format!("layer {} · priority {}", f.layer, f.priority));
    });
    ui.label(format!("{}:{}", f.source, f.line));
    ui.label(format!(
        "fragment {} tokens → kept {} ({})",
        thousands(f.tokens),
        thousands(f.kept_tokens),
        enc.as_str()
    ))
    .on_hover_text(
        "fragment tokens: its full text counted alone; kept: what the prompt holds of it, counted alone",
    );
    // A memory file under the heading the agent writes before it: the
    // file's own text as the agent's /context counts it (`context`); a
    // listing's entry around a file's description.
    if let Some(own) = f.file_tokens() {
        let (file, words) = match f.agent_words.map(|w| w.kind) {
            Some(WordsKind::ListingEntry) => (
                "the file's description",
                "(as traffic --against counts it); the rest, {}, is the agent's listing entry around it",
            ),
            Some(WordsKind::Markers) => (
                "the file's own text",
                "(as /context counts it); the rest, {}, is the agent's markers around it",
            ),
            _ => (
                "the file's own text",
                "(as /context counts it); the rest, {}, is the heading the agent writes before it",
            ),
        };
        ui.weak(format!(
            "of which {file}: {} tokens {}",
            thousands(own),
            words.replace("{}", &thousands(f.heading_tokens))
        ));
    }
}

/// The fragment's problems (each with its file and line), and the line of
/// its file to show (a problem's, chosen in the Problems tab) with whether
/// the detail still has to scroll to it.
pub type Problems<'a> = (&'a [&'a Problem], &'a mut Option<(usize, bool)>);

pub fn show(
    ui: &mut Ui,
    f: &FragmentResult,
    prepared: Option<&PreparedFragment>,
    (enc, counter, cache): (Encoding, &TokenCounter, &mut TokenViewCache),
    (problems, line): Problems<'_>,
) {
    heading(ui, f, enc);
    ui.add(egui::Label::new(RichText::new(&f.reason).italics()).wrap());
    for p in problems {
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(
                colors::text(ui, super::problems::color(p.kind)),
                format!("{} {}", super::problems::icon(p.kind), p.kind.word()),
            );
            ui.label(RichText::new(p.location()).monospace());
            ui.label(&p.message);
        });
    }
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("detail-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::CollapsingHeader::new("Rendered text (what the model receives)")
                .default_open(true)
                .show(ui, |ui| {
                    if f.text.is_empty() {
                        ui.weak("(nothing: the fragment is not in the prompt)");
                    } else {
                        ui.add(egui::Label::new(RichText::new(&*f.text).monospace()).wrap());
                    }
                });
            if let Some(p) = prepared {
                let marked: Vec<usize> = problems
                    .iter()
                    .filter(|x| x.file == p.source)
                    .filter_map(|x| x.line)
                    .chain(line.map(|l| l.0))
                    .collect();
                egui::CollapsingHeader::new("Source text")
                    .default_open(!marked.is_empty())
                    .open(line.is_some_and(|l| l.1).then_some(true))
                    .show(ui, |ui| source_text(ui, p, &marked, line));
                if let Some((s, n)) = &p.summary {
                    egui::CollapsingHeader::new(format!("Summary ({n} tokens)"))
                        .default_open(false)
                        .show(ui, |ui| {
                            ui.add(egui::Label::new(RichText::new(&**s).monospace()).wrap());
                        });
                }
                let shown: &str = if f.text.is_empty() { &p.full } else { &f.text };
                egui::CollapsingHeader::new("Tokens")
                    .default_open(true)
                    .show(ui, |ui| {
                        let spans = cache.spans(counter, enc, &f.id, shown).to_vec();
                        let n = counter.count(enc, shown);
                        let pieces = if spans.len() as u64 == n {
                            String::new()
                        } else {
                            format!(
                                " ({} coloured pieces: tokens that split a character are shown together)",
                                spans.len()
                            )
                        };
                        ui.add(
                            egui::Label::new(
                                RichText::new(format!("{} tokens{pieces}", thousands(n)))
                                    .weak(),
                            )
                            .wrap(),
                        );
                        token_view(ui, shown, &spans);
                    });
            }
        });
}

/// The fragment's source text, each line with its number in its file (from
/// the line its body starts at), the lines with a problem marked; the line
/// asked for scrolled into sight once.
fn source_text(
    ui: &mut Ui,
    p: &PreparedFragment,
    marked: &[usize],
    line: &mut Option<(usize, bool)>,
) {
    const MAX_LINES: usize = 2_000;
    let mark = colors::WARNING.gamma_multiply(0.25);
    for (i, text) in p.raw.lines().take(MAX_LINES).enumerate() {
        let n = p.body_line + i;
        let fill = if marked.contains(&n) {
            mark
        } else {
            Color32::TRANSPARENT
        };
        let r = egui::Frame::new()
            .fill(fill)
            .show(ui, |ui| {
                ui.horizontal_wrapped(|ui| {
                    ui.weak(RichText::new(format!("{n:>4}")).monospace());
                    ui.add(egui::Label::new(RichText::new(text).monospace()).wrap());
                });
            })
            .response;
        if let Some((at, pending @ true)) = line.as_mut()
            && *at == n
        {
            r.scroll_to_me(Some(egui::Align::Center));
            *pending = false;
        }
    }
    if let Some((_, pending)) = line.as_mut() {
        // A line not in this text: nothing to scroll to.
        *pending = false;
    }
}

/// With nothing selected: the workspace at a glance (files, fragments per
/// status, tokens per layer).
pub fn summary(ui: &mut Ui, ins: &crate::engine::Inspection) {
    let a = &ins.assembly;
    ui.heading("Workspace");
    ui.add(
        egui::Label::new(RichText::new(ins.workspace.root.display().to_string()).monospace())
            .wrap(),
    );
    ui.label(format!(
        "{} read · {} · session {} · {}",
        crate::engine::plural(ins.workspace.files.len(), "file"),
        crate::engine::plural(a.fragments.len(), "fragment"),
        a.session,
        a.model
    ));
    ui.separator();
    egui::Grid::new("summary-status")
        .num_columns(2)
        .show(ui, |ui| {
            for (s, n) in crate::engine::assembly::report::status_counts(a) {
                ui.colored_label(colors::text(ui, colors::status(s)), s.as_str());
                ui.label(thousands(n));
                ui.end_row();
            }
        });
    ui.separator();
    layer_rows(ui, a);
    ui.add_space(8.0);
    ui.weak("Select a fragment in the bars, the table or the prompt to see its text and tokens.");
}

/// The summary's tokens per layer (an agent's folder: the layers that send
/// something, and the agent's own), the tools, and all blocks.
fn layer_rows(ui: &mut Ui, a: &crate::engine::Assembly) {
    let dark = ui.visuals().dark_mode;
    egui::Grid::new("summary-layers")
        .num_columns(2)
        .show(ui, |ui| {
            // An agent's folder has no layer budgets (its own caps decide):
            // the layers that send something, with what they send.
            let agent = a.agent.is_some();
            for l in a
                .layers
                .iter()
                .filter(|l| !agent || l.used + l.agent_own > 0)
            {
                ui.colored_label(
                    colors::text(ui, colors::layer(l.layer, dark)),
                    format!("layer {}", l.layer),
                );
                ui.label(match (agent, l.agent_own) {
                    (false, _) => {
                        format!("{} of {} tokens", thousands(l.used), thousands(l.available))
                    }
                    (true, 0) => format!("{} tokens", thousands(l.used)),
                    // The agent's text in the block is counted once, in
                    // its own row below: the rows sum to the system's.
                    (true, own) => format!(
                        "{} tokens (+ {} of the agent's, below)",
                        thousands(l.used),
                        thousands(own)
                    ),
                });
                ui.end_row();
            }
            if let Some(agent) = &a.agent {
                // Its own blocks, and its own text in the blocks it shares
                // with your files: the report's figure.
                let own: u64 = a
                    .blocks
                    .iter()
                    .filter(|b| b.layer == 0)
                    .map(|b| b.tokens)
                    .sum::<u64>()
                    + a.layers.iter().map(|l| l.agent_own).sum::<u64>();
                ui.colored_label(
                    colors::text(ui, colors::layer(0, dark)),
                    format!("from {agent}"),
                )
                .on_hover_text(
                    "the agent's own blocks, as recorded from its release: not your files",
                );
                ui.label(format!("{} tokens", thousands(own)));
                ui.end_row();
            }
            // Every block, in the system prompt or in a message (an agent's
            // memory goes in its first user message): the sum of the rows
            // above; the tools apart, under it.
            ui.strong("all blocks").on_hover_text(
                "the prompt's blocks, system and messages: the rows above; the tool definitions apart",
            );
            ui.strong(format!("{} tokens", thousands(a.total_tokens)));
            ui.end_row();
            ui.label("tool definitions (apart)");
            ui.label(format!("{} tokens", thousands(a.tools_tokens)));
            ui.end_row();
        });
}

#[cfg(test)]
mod token_view_tests {
    use super::TOKEN_COLORS;
    use crate::ui::colors::{MIN_CONTRAST, contrast, over, readable_on, visuals};

    /// The token view's text reaches WCAG AA on every token's fill, in
    /// both themes.
    #[test]
    fn token_text_is_readable_on_every_fill() {
        for dark in [false, true] {
            let v = visuals(dark);
            for c in TOKEN_COLORS {
                let shown = over(c.gamma_multiply(0.45), v.panel_fill);
                let text = readable_on(v.text_color(), &[shown]);
                let r = contrast(text, shown);
                assert!(r >= MIN_CONTRAST, "{c:?} (dark {dark}): {r:.2}");
            }
        }
    }
}
