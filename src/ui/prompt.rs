//! The prompt view: the system blocks as the model receives them, every line
//! coloured by the fragment it came from, block boundaries and cache
//! breakpoints marked, DEBUG markers styled apart. Long lines wrap at the
//! view's width (a continuation shows `↪` in the gutter); virtualised by
//! row, so long prompts scroll smoothly; a fragment selected elsewhere is
//! scrolled into view.

use egui::{RichText, Ui};

use super::colors;
use super::command::Command;
use crate::engine::Assembly;

pub struct Line {
    pub text: String,
    pub fragment: Option<String>,
    /// First line of its fragment (the gutter shows the id there).
    pub first: bool,
    pub header: bool,
    /// A `[[DEBUG:id]]` or `[[/DEBUG:id]]` line.
    pub marker: bool,
    /// The continuation of a line wrapped at the view's width.
    pub wrapped: bool,
}

#[derive(Default)]
pub struct PromptLines {
    key: u64,
    cols: usize,
    pub lines: Vec<Line>,
    /// The selection last scrolled to (a new one scrolls the view).
    scrolled_to: Option<String>,
}

fn key(a: &Assembly) -> u64 {
    let mut h = 0u64;
    for b in &a.blocks {
        h = h.rotate_left(7) ^ xxhash_rust::xxh3::xxh3_64(b.text.as_bytes());
    }
    h
}

fn is_marker(line: &str) -> bool {
    let l = line.trim();
    (l.starts_with("[[DEBUG:") || l.starts_with("[[/DEBUG:")) && l.ends_with("]]")
}

/// Columns a character takes in monospace text: East Asian wide and
/// fullwidth characters and emoji take two.
fn char_cols(c: char) -> usize {
    let u = c as u32;
    let wide = matches!(u,
        0x1100..=0x115F
        | 0x2E80..=0x303E
        | 0x3041..=0x33FF
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xA000..=0xA4CF
        | 0xAC00..=0xD7A3
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFF60
        | 0xFFE0..=0xFFE6
        | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF
        | 0x20000..=0x3FFFD);
    if wide { 2 } else { 1 }
}

/// `line` in rows of at most `cols` columns (one row when it fits or
/// `cols` is 0), split after the last space of a row when there is one in
/// its second half (words stay whole), else on a character boundary.
fn wrap(line: &str, cols: usize) -> Vec<&str> {
    if cols == 0 || line.len() <= cols {
        return vec![line];
    }
    let mut rows = Vec::new();
    let mut start = 0;
    let mut n = 0;
    // Where the row may end, as an editor's word wrap ends it: after its
    // last space that follows text, else after its last punctuation (a
    // path's '/', a word's '-'); a word wider than the row is cut.
    // (The byte after it, and the columns up to it.)
    let mut space: Option<(usize, usize)> = None;
    let mut punct: Option<(usize, usize)> = None;
    let mut text = false;
    for (i, c) in line.char_indices() {
        let w = char_cols(c);
        if n + w > cols && n > 0 && c == ' ' {
            // A space past the edge ends the row (it shows as nothing).
            rows.push(&line[start..i + 1]);
            (start, n, space, punct, text) = (i + 1, 0, None, None, false);
            continue;
        }
        if n + w > cols && n > 0 {
            let cut = match space.or(punct) {
                Some((at, upto)) => (at, n - upto),
                None => (i, 0),
            };
            rows.push(&line[start..cut.0]);
            start = cut.0;
            n = cut.1;
            (space, punct) = (None, None);
            text = n > 0;
        }
        n += w;
        if c == ' ' {
            if text {
                space = Some((i + 1, n));
            }
        } else {
            text = true;
            if matches!(
                c,
                '/' | '\\' | '-' | '_' | '.' | ',' | ';' | ':' | ')' | ']' | '}' | '>'
            ) {
                punct = Some((i + c.len_utf8(), n));
            }
        }
    }
    rows.push(&line[start..]);
    rows
}

fn header(a: &Assembly, i: usize, breakpoint: &mut usize) -> String {
    let b = &a.blocks[i];
    let cache = if !b.placement.is_system() && !b.cache_control {
        format!(" · {}", b.placement.words())
    } else if b.cache_control {
        *breakpoint += 1;
        // Non-breaking spaces keep a phrase on one row when the header
        // wraps ("breakpoint 2 ━━", "26 tokens").
        format!(
            " · cached\u{a0}{} ◀\u{a0}breakpoint\u{a0}{breakpoint}",
            b.ttl.as_str()
        )
    } else {
        " · no\u{a0}breakpoint of its own".into()
    };
    match (&b.label, b.layer) {
        (Some(name), 0) => format!(
            "━━ block\u{a0}{} · ◆ {name}, not your files · {}\u{a0}tokens{cache}\u{a0}━━",
            i + 1,
            crate::engine::thousands(b.tokens)
        ),
        _ => format!(
            "━━ system block\u{a0}{} · layer\u{a0}{} · {}\u{a0}tokens{cache}\u{a0}━━",
            i + 1,
            b.layer,
            crate::engine::thousands(b.tokens)
        ),
    }
}

/// Splits the blocks into attributed rows, wrapping at `cols` characters
/// (0: no wrapping).
pub fn lines(a: &Assembly, cols: usize) -> Vec<Line> {
    let mut out = Vec::new();
    let mut breakpoint = 0;
    for i in 0..a.blocks.len() {
        let title = header(a, i, &mut breakpoint);
        for (k, row) in wrap(&title, cols).into_iter().enumerate() {
            out.push(Line {
                text: row.to_string(),
                fragment: None,
                first: false,
                header: true,
                marker: false,
                wrapped: k > 0,
            });
        }
        let b = &a.blocks[i];
        let mut offset = 0;
        let mut last: Option<&str> = None;
        for line in b.text.split('\n') {
            let frag = b
                .fragment_at(offset)
                .or_else(|| b.fragment_at(offset.saturating_sub(1)));
            let frag = if line.is_empty() && frag.is_none() {
                None
            } else {
                frag
            };
            let marker = is_marker(line);
            for (k, row) in wrap(line, cols).into_iter().enumerate() {
                out.push(Line {
                    text: row.to_string(),
                    fragment: frag.map(str::to_string),
                    first: k == 0 && frag.is_some() && frag != last,
                    header: false,
                    marker,
                    wrapped: k > 0,
                });
            }
            if frag.is_some() {
                last = frag;
            }
            offset += line.len() + 1;
        }
    }
    out
}

impl PromptLines {
    /// The rows for these blocks at `cols` characters a row, made again
    /// only when the blocks or the width changed.
    pub fn refresh(&mut self, a: &Assembly, cols: usize) {
        let k = key(a);
        if k != self.key || cols != self.cols || self.lines.is_empty() {
            self.lines = lines(a, cols);
            self.key = k;
            self.cols = cols;
        }
    }

    /// The first row of fragment `id`.
    pub fn row_of(&self, id: &str) -> Option<usize> {
        self.lines
            .iter()
            .position(|l| l.fragment.as_deref() == Some(id))
    }
}

/// What the gutter shows for a span: a fragment's id, or, for the agent's
/// own text (`(Claude Code 2.1.332: system prompt)`), the part's name with
/// a mark that it is the agent's (`◆ system prompt`; the release is in the
/// block's header), so that it is not cut to `(Claude Code 2.1.3…`.
fn gutter_name(id: &str) -> String {
    match id
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .and_then(|s| s.split_once(": "))
    {
        Some((_, part)) => format!("◆ {part}"),
        None => id.to_string(),
    }
}

const ROW_H: f32 = 18.0;

/// The gutter's width (the fragments' ids): narrower in a narrow view (at
/// 1024 px beside the detail panel the text had some 30 characters a
/// row), where a long id is cut with "…" and shown whole on hover.
fn gutter_width(ui: &Ui) -> f32 {
    if ui.available_width() < 600.0 {
        100.0
    } else {
        150.0
    }
}

/// Characters of monospace text that fit beside a gutter of `gutter`.
fn columns(ui: &Ui, gutter: f32) -> usize {
    let font = egui::TextStyle::Monospace.resolve(ui.style());
    let w = ui.fonts_mut(|f| f.glyph_width(&font, 'M')).max(1.0);
    // Two characters of room besides the spacing: a row of exactly the
    // width ran a few pixels past it (a horizontal scroll bar over the
    // last row).
    let text = ui.available_width() - gutter - 24.0 - 2.0 * w;
    ((text / w).floor() as usize).max(20)
}

/// Draws the prompt; clicking a row (its text or its gutter) pushes
/// [`Command::Select`] for the fragment it belongs to.
pub fn show(
    ui: &mut Ui,
    cache: &mut PromptLines,
    a: &Assembly,
    selected: Option<&str>,
    out: &mut Vec<Command>,
) {
    let gutter_w = gutter_width(ui);
    cache.refresh(a, columns(ui, gutter_w));
    let dark = ui.visuals().dark_mode;
    ui.spacing_mut().item_spacing.y = 0.0;
    let mut area = egui::ScrollArea::both()
        .id_salt("prompt-scroll")
        .auto_shrink([false, false]);
    if selected.map(str::to_string) != cache.scrolled_to {
        cache.scrolled_to = selected.map(str::to_string);
        if let Some(row) = selected.and_then(|id| cache.row_of(id)) {
            area = area.vertical_scroll_offset((row as f32 - 2.0).max(0.0) * ROW_H);
        }
    }
    let marker_color = colors::text(ui, colors::MARKER);
    area.show_rows(ui, ROW_H, cache.lines.len(), |ui, range| {
        for line in &cache.lines[range] {
            ui.allocate_ui_with_layout(
                egui::vec2(ui.available_width(), ROW_H),
                egui::Layout::left_to_right(egui::Align::Center),
                |ui| {
                    let gutter = match (line.first, line.wrapped) {
                        (true, _) => gutter_name(line.fragment.as_deref().unwrap_or_default()),
                        (_, true) => "↪".to_string(),
                        _ => String::new(),
                    };
                    let g = ui
                        .allocate_ui_with_layout(
                            egui::vec2(gutter_w, ROW_H),
                            egui::Layout::left_to_right(egui::Align::Center),
                            |ui| {
                                ui.set_min_width(gutter_w);
                                ui.add(
                                    egui::Label::new(RichText::new(gutter).monospace().weak())
                                        .truncate()
                                        .sense(egui::Sense::click()),
                                )
                            },
                        )
                        .inner;
                    let mut clicked = g.clicked();
                    let mut text = RichText::new(&line.text).monospace();
                    if line.header {
                        text = text.strong().color(ui.visuals().strong_text_color());
                    } else if line.marker {
                        text = text.italics().color(marker_color);
                    } else if let Some(f) = &line.fragment {
                        text = text.color(colors::text(ui, colors::fragment(f, dark)));
                    }
                    if !line.header
                        && line.fragment.is_some()
                        && selected == line.fragment.as_deref()
                    {
                        text = text
                            .background_color(ui.visuals().selection.bg_fill.gamma_multiply(0.35));
                    }
                    clicked |= ui
                        .add(egui::Label::new(text).extend().sense(egui::Sense::click()))
                        .clicked();
                    if clicked && let Some(f) = &line.fragment {
                        out.push(Command::Select(f.clone()));
                    }
                },
            );
        }
    });
}

#[cfg(test)]
mod tests {
    use super::{gutter_name, wrap};

    #[test]
    fn the_gutter_names_the_agents_own_part_not_its_release() {
        assert_eq!(
            gutter_name("(Claude Code 2.1.332: system prompt)"),
            "◆ system prompt"
        );
        assert_eq!(gutter_name("skill.typescript"), "skill.typescript");
        assert_eq!(gutter_name("(notes)"), "(notes)");
    }

    #[test]
    fn a_long_line_wraps_at_the_width_on_character_boundaries() {
        assert_eq!(wrap("abcdef", 4), ["abcd", "ef"]);
        // Words stay whole: a row ends after its last space, wherever it
        // falls.
        assert_eq!(wrap("the coding session", 10), ["the coding ", "session"]);
        assert_eq!(
            wrap("one two three four", 9),
            ["one two ", "three ", "four"]
        );
        assert_eq!(wrap("a verylongword", 8), ["a ", "verylong", "word"]);
        assert_eq!(wrap("ab cdefghij", 8), ["ab ", "cdefghij"]);
        // Indentation is no place to end a row.
        assert_eq!(wrap("    abcdefgh", 8), ["    abcd", "efgh"]);
        // Without a space, after the row's last punctuation.
        assert_eq!(wrap("src/engine/cache.rs", 12), ["src/engine/", "cache.rs"]);
        assert_eq!(wrap("x=a-b(c)", 6), ["x=a-", "b(c)"]);
        assert_eq!(wrap("abcd", 4), ["abcd"]);
        assert_eq!(wrap("", 4), [""]);
        // Wide characters take two columns.
        assert_eq!(wrap("日本語のテキスト", 6), ["日本語", "のテキ", "スト"]);
        assert_eq!(wrap("ab日本", 3), ["ab", "日", "本"]);
        assert_eq!(wrap("abc", 0), ["abc"]);
    }
}
