//! Contrast read from the rendered pixels, not from the palette: the real
//! window drawn by wgpu on a software adapter (Mesa's llvmpipe or lavapipe),
//! every tab in both themes, each text widget's pixels measured against the
//! background they are drawn on (WCAG: 4.5:1 for text, 3:1 for a field's
//! boundary).
//!
//! How a widget is read: its accessibility rectangle is cut from the image;
//! the colour most of its pixels have is the background, the pixel that
//! stands out most from it is the text's colour (at two pixels per point a
//! glyph's stem is fully covered, so the text's own colour is among the
//! pixels). A rectangle with nothing drawn in it (scrolled out of view) is
//! not a reading.

use crate::common;
use crate::window;
use std::collections::HashMap;

use common::*;
use egui::accesskit::Role;
use egui_kittest::kittest::NodeT;
use egui_kittest::{Harness, HarnessBuilder};
use image::RgbaImage;
use prompt_inspector::ui::App;
use prompt_inspector::ui::state::{Tab, ThemeChoice};
use prompt_inspector::ui::traffic_request::DetailTab;
use window::*;

/// WCAG's minimum for text, and for the boundary of a field.
const TEXT: f64 = 4.5;
const BOUNDARY: f64 = 3.0;
const SCALE: f32 = 2.0;

fn luminance([r, g, b]: [u8; 3]) -> f64 {
    let lin = |c: u8| {
        let c = f64::from(c) / 255.0;
        if c <= 0.040_45 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
}

fn ratio(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// A rectangle of the image in pixels, clamped to it; None when empty.
type Px = (u32, u32, u32, u32);

fn clamp(img: &RgbaImage, r: egui::accesskit::Rect) -> Option<Px> {
    let (w, h) = (f64::from(img.width()), f64::from(img.height()));
    let x0 = r.x0.clamp(0.0, w).ceil() as u32;
    let y0 = r.y0.clamp(0.0, h).ceil() as u32;
    let x1 = r.x1.clamp(0.0, w).floor() as u32;
    let y1 = r.y1.clamp(0.0, h).floor() as u32;
    (x1 > x0 + 1 && y1 > y0 + 1).then_some((x0, y0, x1, y1))
}

fn pixel(img: &RgbaImage, x: u32, y: u32) -> [u8; 3] {
    let p = img.get_pixel(x, y).0;
    [p[0], p[1], p[2]]
}

/// The colour most of these pixels have.
fn most_common(pixels: impl Iterator<Item = [u8; 3]>) -> Option<[u8; 3]> {
    let mut n: HashMap<[u8; 3], usize> = HashMap::new();
    for p in pixels {
        *n.entry(p).or_default() += 1;
    }
    n.into_iter().max_by_key(|(c, k)| (*k, *c)).map(|(c, _)| c)
}

/// The background a word is drawn on (the colour most of its row's pixels
/// have) and the colour of its text (the word's pixel that stands out most
/// from it): their contrast, or None when nothing is drawn there (a row
/// scrolled out of view behind another panel).
fn text_reading(img: &RgbaImage, row: Px, word: Px) -> Option<([u8; 3], [u8; 3], f64)> {
    let area =
        |(x0, y0, x1, y1): Px| (y0..y1).flat_map(move |y| (x0..x1).map(move |x| pixel(img, x, y)));
    let bg = most_common(area(row))?;
    let fg = area(word).max_by(|a, b| ratio(*a, bg).total_cmp(&ratio(*b, bg)))?;
    let r = ratio(fg, bg);
    (r > 1.1).then_some((bg, fg, r))
}

/// A field's boundary: the pixels just inside its rectangle against the
/// background just outside it.
fn boundary_reading(img: &RgbaImage, (x0, y0, x1, y1): Px) -> Option<([u8; 3], [u8; 3], f64)> {
    let (w, h) = (img.width(), img.height());
    if x0 < 3 || y0 < 3 || x1 + 3 > w || y1 + 3 > h {
        return None;
    }
    let ring = |inset: i64| {
        let (a, b, c, d) = (
            i64::from(x0) + inset,
            i64::from(y0) + inset,
            i64::from(x1) - 1 - inset,
            i64::from(y1) - 1 - inset,
        );
        let top = (a..=c).flat_map(move |x| [(x, b), (x, d)]);
        let side = (b..=d).flat_map(move |y| [(a, y), (c, y)]);
        top.chain(side)
            .map(|(x, y)| pixel(img, x as u32, y as u32))
            .collect::<Vec<_>>()
    };
    let outside = most_common([-3, -2].into_iter().flat_map(ring))?;
    let edge = [0, 1]
        .into_iter()
        .flat_map(ring)
        .max_by(|a, b| ratio(*a, outside).total_cmp(&ratio(*b, outside)))?;
    Some((outside, edge, ratio(edge, outside)))
}

const FIELDS: [Role; 3] = [Role::TextInput, Role::MultilineTextInput, Role::SpinButton];

/// A word of text as painted: the rectangle of its row (clipped), the
/// rectangle of the word (clipped), and the word.
struct Word {
    row: egui::Rect,
    at: egui::Rect,
    text: String,
}

/// The words of every text the last frame painted: read from its shapes,
/// so a bar or an icon with an accessible name is not taken for text. A
/// word without a letter or digit (a dash, a dot) is left out: its strokes
/// may be thinner than a pixel.
fn painted_words(shapes: &[egui::epaint::ClippedShape]) -> Vec<Word> {
    let mut words = Vec::new();
    for c in shapes {
        collect_words(&c.shape, c.clip_rect, &mut words);
    }
    words
}

fn collect_words(shape: &egui::Shape, clip: egui::Rect, words: &mut Vec<Word>) {
    match shape {
        egui::Shape::Vec(v) => v.iter().for_each(|s| collect_words(s, clip, words)),
        egui::Shape::Text(t) if t.angle == 0.0 && t.opacity_factor > 0.0 => {
            for placed in &t.galley.rows {
                let origin = (t.pos + placed.pos.to_vec2()).to_vec2();
                // The background is read over the row's own glyphs (a row's
                // rectangle may reach over a bar beside the text).
                let Some(row) = placed
                    .row
                    .glyphs
                    .iter()
                    .map(|g| g.logical_rect().translate(origin))
                    .reduce(egui::Rect::union)
                    .map(|r| r.intersect(clip))
                else {
                    continue;
                };
                let mut word: Option<(egui::Rect, String)> = None;
                let mut flush = |word: &mut Option<(egui::Rect, String)>| {
                    if let Some((at, text)) = word.take()
                        && text.chars().any(char::is_alphanumeric)
                    {
                        words.push(Word {
                            row,
                            at: at.intersect(clip),
                            text,
                        });
                    }
                };
                for g in &placed.row.glyphs {
                    if g.chr.is_whitespace() {
                        flush(&mut word);
                        continue;
                    }
                    let r = g.logical_rect().translate(origin);
                    let w = word.get_or_insert_with(|| (r, String::new()));
                    w.0 = w.0.union(r);
                    w.1.push(g.chr);
                }
                flush(&mut word);
            }
        }
        _ => {}
    }
}

fn pixels_of(r: egui::Rect) -> egui::accesskit::Rect {
    let s = f64::from(SCALE);
    egui::accesskit::Rect {
        x0: f64::from(r.min.x) * s,
        y0: f64::from(r.min.y) * s,
        x1: f64::from(r.max.x) * s,
        y1: f64::from(r.max.y) * s,
    }
}

/// Every word and field of the window as drawn now that falls short.
fn shortfalls(h: &mut Harness<'static, Option<App>>, view: &str) -> (usize, Vec<String>) {
    let img = h
        .render()
        .expect("the window renders on a software adapter");
    // To look at what was measured: the images, one per view.
    if let Some(dir) = std::env::var_os("PROMPT_INSPECTOR_CONTRAST_SHOTS") {
        let name = view.replace([' ', ','], "_");
        img.save(std::path::Path::new(&dir).join(format!("{name}.png")))
            .unwrap();
    }
    let mut read = 0;
    let mut short = Vec::new();
    // A disabled control's text is exempt (WCAG 1.4.3): the words inside one.
    let disabled: Vec<egui::Rect> = h
        .root()
        .children_recursive()
        .filter(|n| n.accesskit_node().is_disabled())
        .map(|n| n.rect())
        .collect();
    for w in painted_words(&h.output().shapes) {
        if disabled.iter().any(|d| d.contains_rect(w.at)) {
            continue;
        }
        let (Some(row), Some(at)) = (clamp(&img, pixels_of(w.row)), clamp(&img, pixels_of(w.at)))
        else {
            continue;
        };
        if let Some((bg, fg, r)) = text_reading(&img, row, at) {
            read += 1;
            if r < TEXT {
                short.push(format!(
                    "{view}: {:?}: text {} on {} is {r:.2}:1",
                    w.text,
                    hex(fg),
                    hex(bg)
                ));
            }
        }
    }
    for node in h.root().children_recursive() {
        let n = node.accesskit_node();
        if n.is_hidden() || n.is_disabled() || !FIELDS.contains(&n.role()) {
            continue;
        }
        let Some(px) = n.bounding_box().and_then(|r| clamp(&img, r)) else {
            continue;
        };
        if let Some((out, edge, r)) = boundary_reading(&img, px) {
            read += 1;
            if r < BOUNDARY {
                let label = n.label().unwrap_or_default();
                short.push(format!(
                    "{view}: {:?} {label:?}: boundary {} on {} is {r:.2}:1",
                    n.role(),
                    hex(edge),
                    hex(out)
                ));
            }
        }
    }
    (read, short)
}

fn rendering(theme: egui::Theme) -> HarnessBuilder<Option<App>> {
    Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .with_pixels_per_point(SCALE)
        .with_theme(theme)
        .wgpu()
}

fn show(h: &mut Harness<'static, Option<App>>, tab: Tab) {
    h.state_mut().as_mut().unwrap().state.tab = tab;
    h.run_steps(4);
}

/// The window on `folder` in `theme`, loaded, with the scroll areas' fade
/// off: a scroll area fades the text at its edges as a cue that more
/// follows, and that text is read without it.
fn window_in(theme: egui::Theme, folder: std::path::PathBuf) -> Harness<'static, Option<App>> {
    let mut h = harness_from(rendering(theme), folder);
    h.ctx
        .all_styles_mut(|s| s.spacing.scroll.fade.strength = 0.0);
    h.state_mut().as_mut().unwrap().state.theme = match theme {
        egui::Theme::Light => ThemeChoice::Light,
        egui::Theme::Dark => ThemeChoice::Dark,
    };
    h.run_steps(2);
    h
}

/// What falls short in one theme, and how many texts and fields were read.
#[derive(Default)]
struct Readings {
    read: usize,
    short: Vec<String>,
}

impl Readings {
    fn look(&mut self, h: &mut Harness<'static, Option<App>>, view: String) {
        let (n, s) = shortfalls(h, &view);
        self.read += n;
        self.short.extend(s);
    }
}

/// The sample's tabs, a fragment selected, and a recorded request with
/// each of its detail tabs.
fn read_the_sample(theme: egui::Theme, r: &mut Readings) {
    let capture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-headers/capture.jsonl");
    let mut h = window_in(theme, sample());
    for tab in [
        Tab::Fragments,
        Tab::Prompt,
        Tab::Cache,
        Tab::Problems,
        Tab::Run,
        Tab::Diff,
    ] {
        show(&mut h, tab);
        r.look(&mut h, format!("{theme:?} {tab:?}"));
    }
    show(&mut h, Tab::Fragments);
    h.state_mut().as_mut().unwrap().state.selected = Some("memory.project_context".into());
    h.run_steps(4);
    r.look(&mut h, format!("{theme:?} Fragments, a row selected"));
    open_in_traffic(&mut h, &capture);
    h.state_mut().as_mut().unwrap().traffic_view.selected = Some(1);
    for tab in [
        DetailTab::Parts,
        DetailTab::Files,
        DetailTab::Body,
        DetailTab::Headers,
        DetailTab::Response,
    ] {
        h.state_mut().as_mut().unwrap().traffic_view.detail_tab = tab;
        h.run_steps(4);
        r.look(&mut h, format!("{theme:?} Traffic, a request's {tab:?}"));
    }
}

/// A Claude Code folder (the fixture's): its context window and prompt.
fn read_an_agent_folder(theme: egui::Theme, r: &mut Readings) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    copy_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/agents/claude-code/workspace"),
        &project,
    );
    let mut h = window_in(theme, project);
    for tab in [Tab::Fragments, Tab::Prompt, Tab::Cache] {
        show(&mut h, tab);
        r.look(&mut h, format!("{theme:?} Claude Code folder, {tab:?}"));
    }
}

/// Every tab of the sample and of a Claude Code folder, a fragment and a
/// recorded request selected, in both themes: every word reads at 4.5:1 or
/// more against what it is drawn on, every field's boundary at 3:1, as
/// rendered.
#[test]
fn every_text_and_field_reaches_its_contrast_in_the_rendered_pixels() {
    let mut short = Vec::new();
    for theme in [egui::Theme::Light, egui::Theme::Dark] {
        let mut r = Readings::default();
        read_the_sample(theme, &mut r);
        read_an_agent_folder(theme, &mut r);
        assert!(
            r.read > 400,
            "{theme:?}: only {} texts and fields were read",
            r.read
        );
        short.extend(r.short);
    }
    assert!(
        short.is_empty(),
        "{} fall short:\n{}",
        short.len(),
        short.join("\n")
    );
}
