//! One frame of the window: the menu bar, the status bar, the controls and
//! bars on the left, the detail on the right and the tabs in the middle.
//! Everything here reads the state and pushes commands; `App::apply` runs
//! them after the frame is drawn.

use std::path::PathBuf;
use std::time::Instant;

use egui::{RichText, Ui};

use super::app::App;
use super::command::{self, Command, ENTRIES, Facts, Kind, Menu};
use super::state::{Tab, ThemeChoice};
use super::thousands;
use super::{
    cache, colors, controls, detail, diff, overview, problems, prompt, table, test_run, traffic,
    welcome,
};

/// Below this width (logical points) the side panels give way to the tabs
/// (at 1280 the fragment table then shows its status and reason).
const NARROW: f32 = 1400.0;

impl App {
    /// Draws the whole window (also used by the GUI tests).
    pub fn show(&mut self, ui: &mut Ui) {
        let started = Instant::now();
        let ctx = ui.ctx().clone();
        self.poll();
        self.apply_theme(&ctx);
        let mut out = command::pressed(&ctx, &self.facts());
        dropped_folder(&ctx, &mut out);
        self.menu_bar(ui, &mut out);
        self.status_bar(ui, &mut out);
        if self.state.loaded.is_some() {
            self.main_view(ui, &mut out);
        } else {
            egui::CentralPanel::default().show(ui, |ui| match &self.state.busy {
                Some(busy) => {
                    ui.vertical_centered(|ui| {
                        ui.add_space(80.0);
                        ui.spinner();
                        ui.label(busy);
                    });
                }
                None => welcome::show(ui, &self.state, self.sample.is_some(), &mut out),
            });
        }
        super::open_dialog::show(&ctx, &mut self.open, &mut out);
        if self.shortcuts_open {
            shortcuts(&ctx, &mut self.shortcuts_open);
        }
        if self.agents_view.open {
            super::agents::show(
                &ctx,
                &mut self.agents_view,
                self.observed_dir.as_deref(),
                &mut out,
            );
        }
        for c in out {
            self.apply(c);
        }
        // Work the frame's state needs is asked for here, after drawing.
        if self.state.tab == super::state::Tab::Cache {
            self.request_prediction();
        }
        if self.state.loaded.is_some()
            && self.is_idle()
            && let Some(mut plan) = self.shots.take()
        {
            plan.step(&ctx, self);
            self.shots = Some(plan);
        }
        if let Some(log) = &mut self.layout_log {
            let tab = format!("{:?}", self.state.tab);
            log.flush(&ctx, &tab, self.state.selected.as_deref());
        }
        let us = started.elapsed().as_micros();
        self.frames.last_us = us;
        self.frames.max_us = self.frames.max_us.max(us);
        self.frames.total_us += us;
        self.frames.frames += 1;
    }

    fn apply_theme(&mut self, ctx: &egui::Context) {
        if self.applied_theme != Some(self.state.theme) {
            ctx.set_theme(match self.state.theme {
                ThemeChoice::System => egui::ThemePreference::System,
                ThemeChoice::Light => egui::ThemePreference::Light,
                ThemeChoice::Dark => egui::ThemePreference::Dark,
            });
            self.applied_theme = Some(self.state.theme);
        }
    }

    /// What the command table's entries are enabled, shown and checked by.
    pub(crate) fn facts(&self) -> Facts<'_> {
        Facts {
            state: &self.state,
            sample: self.sample.is_some(),
        }
    }

    fn menu_bar(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        let facts = self.facts();
        egui::Panel::top("menu-bar").show(ui, |ui| {
            egui::MenuBar::new().ui(ui, |ui| {
                for menu in Menu::ALL {
                    ui.menu_button(menu.title(), |ui| {
                        menu_entries(ui, menu, &facts, out);
                        if menu == Menu::File {
                            self.recent(ui, out);
                        }
                    });
                }
                ui.separator();
                if let Some(root) = &self.state.root {
                    ui.label(RichText::new(root.display().to_string()).monospace());
                }
                if let Some(busy) = &self.state.busy {
                    ui.spinner();
                    ui.weak(busy);
                }
            });
        });
    }

    /// The File menu's recent workspaces (each opens its folder).
    fn recent(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        ui.separator();
        ui.label(RichText::new("Recent").weak());
        for p in &self.state.recent {
            if ui.button(p.display().to_string()).clicked() {
                out.push(Command::Open(p.clone()));
                ui.close();
            }
        }
    }

    fn status_bar(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        let bar = egui::Panel::bottom("status-bar").show(ui, |ui| {
            // One line at every width (a wrapped bar changed height): the
            // longer texts are cut with "…", whole on hover, each within
            // its share of the width.
            ui.horizontal(|ui| {
                let width = ui.available_width();
                let within = |ui: &mut Ui, share: f32, label: egui::Label| {
                    ui.allocate_ui(egui::vec2(width * share, 18.0), |ui| ui.add(label.truncate()))
                        .inner
                };
                if let Some(l) = &self.state.loaded {
                    let a = &l.assembly;
                    let summary = format!(
                        "{} · {} · tool definitions {} tokens · {} ({}{})",
                        crate::engine::plural(a.fragments.len(), "fragment"),
                        crate::engine::assembly::report::blocks_phrase(a),
                        thousands(a.tools_tokens),
                        a.model,
                        a.tokenizer.as_str(),
                        if a.estimate { ", estimate" } else { "" }
                    );
                    // The summary takes the room; the load's time beside
                    // it (the re-assembly's and the frame's on hover: a
                    // developer's figures, not the reader's).
                    let narrow = width < 1200.0;
                    within(ui, if narrow { 0.66 } else { 0.7 }, egui::Label::new(&summary))
                        .on_hover_text(format!(
                        "{summary}\nsystem tokens: the exact count of every system block; tool definitions: each definition counted as sent, summed"
                    ));
                    ui.separator();
                    // Milliseconds at one decimal: a figure that changes
                    // every frame keeps its width.
                    let loaded = format!("loaded in {} ms", thousands(self.state.last_load_ms as u64));
                    let timings = format!(
                        "{loaded} · re-assembly {:.1} ms · frame {:.1} ms",
                        self.state.last_assemble_us as f64 / 1000.0,
                        self.frames.last_us as f64 / 1000.0
                    );
                    within(
                        ui,
                        if narrow { 0.14 } else { 0.1 },
                        egui::Label::new(egui::RichText::new(&loaded).weak()),
                    )
                    .on_hover_text(&timings);
                    if let Some(name) = self.changed_since_snapshot() {
                        ui.separator();
                        // One line, whatever the name: cut with "…", whole on hover.
                        let text = format!("● changed since snapshot {name}");
                        ui.add(
                            egui::Label::new(
                                egui::RichText::new(&text).color(colors::text(ui, colors::WARNING)),
                            )
                            .truncate(),
                        )
                        .on_hover_text(text);
                    }
                    if self.state.reloads > 0 {
                        ui.separator();
                        ui.weak(format!("reloaded {}×", self.state.reloads));
                    }
                    self.problems_badge(ui, out);
                }
                if let Some(e) = &self.state.error {
                    ui.separator();
                    let text = egui::RichText::new(e).color(colors::text(ui, colors::ERROR));
                    ui.add(egui::Label::new(text).truncate()).on_hover_text(e);
                }
                if let Some(n) = &self.state.notice {
                    ui.separator();
                    let text = egui::RichText::new(n).color(colors::text(ui, colors::GOOD));
                    ui.add(egui::Label::new(text).truncate())
                        .on_hover_text(n.as_str());
                }
            });
        });
        let rect = bar.response.rect;
        super::layout_log::record(ui.ctx(), |p| p.status_bar = Some(rect));
    }

    /// The problems' count in the status bar (the tab's), in the colour of
    /// the worst; a click opens the list.
    fn problems_badge(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        use crate::engine::problems::Kind;
        let all = &self.state.problems;
        let Some(worst) = all.iter().map(|p| p.kind).min() else {
            return;
        };
        let color = match worst {
            Kind::Error => colors::ERROR,
            Kind::Warning => colors::WARNING,
            Kind::CacheBreaker => colors::CACHE_BREAKER,
        };
        ui.separator();
        let text = format!("● {}", super::problems::plural(all.len(), "problem"));
        if ui
            .add(
                egui::Button::new(egui::RichText::new(text).color(colors::text(ui, color)))
                    .frame(false),
            )
            .on_hover_text("Open the Problems tab")
            .clicked()
        {
            out.push(Command::SetTab(Tab::Problems));
        }
    }

    fn main_view(&mut self, ui: &mut Ui, out: &mut Vec<Command>) {
        // A narrow window gives its width to the tabs: the side panels
        // shrink, and the detail panel shows only while a fragment is
        // selected.
        let width = ui.available_width();
        let narrow = width < NARROW;
        // The fragment's detail beside the views of fragments; the Traffic,
        // Diff and Test run tabs have their own and take the width (in a
        // narrow window the whole width: the budget controls are for the
        // views of fragments).
        let fragment_views = matches!(
            self.state.tab,
            Tab::Fragments | Tab::Prompt | Tab::Cache | Tab::Problems
        );
        // One tab bar over the whole width, whatever panels show below it:
        // a tab never moves under the pointer when another is chosen.
        egui::Panel::top("tab-bar").show(ui, |ui| self.tab_bar(ui, out));
        if fragment_views || !narrow {
            self.left_panel(ui, out, narrow);
        }
        if fragment_views && (!narrow || self.state.selected.is_some()) {
            self.detail_panel(ui, narrow);
        }
        egui::CentralPanel::default().show(ui, |ui| {
            let empty = self
                .state
                .assembly()
                .is_some_and(|a| a.fragments.is_empty() && a.blocks.is_empty());
            if empty && matches!(self.state.tab, Tab::Fragments | Tab::Prompt) {
                welcome::empty(ui, self.sample.is_some(), &self.examples, out);
                return;
            }
            match self.state.tab {
                Tab::Fragments => {
                    let focus = std::mem::take(&mut self.focus_filter);
                    table::filters(ui, &self.state, &mut self.table_view, focus);
                    table::table(ui, &self.state, &mut self.table_view, out);
                }
                Tab::Prompt => self.prompt_tab(ui, out),
                Tab::Cache => self.cache_tab(ui, out),
                Tab::Run => {
                    let sessions = self.session_names();
                    test_run::show(ui, &mut self.test_run, &sessions, out);
                }
                Tab::Traffic => traffic::show(ui, &mut self.traffic_view, out),
                Tab::Diff => {
                    let sessions = self.session_names();
                    diff::show(ui, &mut self.diff_view, &sessions, &self.snapshots, out);
                }
                Tab::Problems => problems::show(ui, &self.state, &mut self.problems_view, out),
            }
        });
    }

    fn tab_bar(&self, ui: &mut Ui, out: &mut Vec<Command>) {
        let problems = self.state.problems.len();
        // Wrapped, so that every tab stays reachable in a narrow window.
        ui.horizontal_wrapped(|ui| {
            for (tab, label) in [
                (Tab::Fragments, "Fragments".to_string()),
                (Tab::Prompt, "Prompt".into()),
                (Tab::Cache, "Cache".into()),
                (Tab::Run, "Test run".into()),
                (Tab::Traffic, "Traffic".into()),
                (Tab::Diff, "Diff".into()),
                (Tab::Problems, format!("Problems ({problems})")),
            ] {
                let r = ui.selectable_label(self.state.tab == tab, &label);
                let rect = r.rect;
                super::layout_log::record(ui.ctx(), |p| p.tabs.push((label, rect)));
                if r.clicked() {
                    out.push(Command::SetTab(tab));
                }
            }
        });
    }

    fn left_panel(&self, ui: &mut Ui, out: &mut Vec<Command>, narrow: bool) {
        let (default, min) = if narrow {
            (260.0, 220.0)
        } else {
            (340.0, 260.0)
        };
        egui::Panel::left(if narrow {
            "controls-narrow"
        } else {
            "controls"
        })
        .resizable(true)
        .default_size(default)
        .min_size(min)
        .max_size(520.0)
        .show(ui, |ui| {
            let rect = ui.max_rect();
            super::layout_log::record(ui.ctx(), |p| p.panels.push(("left".into(), rect)));
            // Its scroll bar always shown: more lies below at small sizes.
            egui::ScrollArea::vertical()
                .id_salt("left-scroll")
                .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
                .show(ui, |ui| {
                    controls::show(ui, &self.state, &self.table, &self.profiles, out);
                    ui.separator();
                    let Some(l) = &self.state.loaded else { return };
                    overview::layers(ui, &self.state, &l.assembly, out);
                    ui.separator();
                    overview::request_context_bar(ui, l, self.state.context.as_ref());
                });
        });
    }

    fn detail_panel(&mut self, ui: &mut Ui, narrow: bool) {
        let (default, min) = if narrow {
            (260.0, 200.0)
        } else {
            (360.0, 240.0)
        };
        egui::Panel::right(if narrow { "detail-narrow" } else { "detail" })
            .resizable(true)
            .default_size(default)
            .min_size(min)
            .max_size(560.0)
            .show(ui, |ui| {
                let rect = ui.max_rect();
                super::layout_log::record(ui.ctx(), |p| p.panels.push(("detail".into(), rect)));
                let Some(l) = &self.state.loaded else { return };
                let selected = self
                    .state
                    .selected
                    .as_ref()
                    .and_then(|id| l.assembly.fragments.iter().find(|f| &f.id == id));
                match selected {
                    Some(f) => {
                        let p = l.prepared.fragments.iter().find(|p| p.id == f.id);
                        let problems: Vec<&crate::engine::problems::Problem> = self
                            .state
                            .problems
                            .iter()
                            .filter(|x| x.fragment.as_deref() == Some(f.id.as_str()))
                            .collect();
                        detail::show(
                            ui,
                            f,
                            p,
                            (l.prepared.encoding, &self.counter, &mut self.token_cache),
                            (&problems, &mut self.state.selected_line),
                        );
                    }
                    None => detail::summary(ui, l),
                }
            });
    }

    /// Draws the prediction the app has (the app asks the worker for a
    /// fresh one after the frame's commands, never while drawing).
    fn cache_tab(&mut self, ui: &mut Ui, out: &mut Vec<Command>) {
        match &self.prediction {
            Some((_, p)) => cache::show(
                ui,
                self.state.provider,
                &mut self.cache_view,
                (p, self.state.context.as_ref()),
                out,
            ),
            None => {
                ui.spinner();
                ui.label("predicting…");
            }
        }
    }

    fn prompt_tab(&mut self, ui: &mut Ui, out: &mut Vec<Command>) {
        let Some(l) = &self.state.loaded else { return };
        ui.horizontal(|ui| {
            let mut markers = self.state.debug_markers;
            if ui
                .checkbox(&mut markers, command::label(&Command::ToggleMarkers))
                .changed()
            {
                out.push(Command::SetMarkers(markers));
            }
            if ui.button("Copy as text").clicked() {
                let text: Vec<&str> = l.assembly.blocks.iter().map(|b| b.text.as_str()).collect();
                out.push(Command::CopyText(text.join("\n\n")));
            }
            let api = l.request_api();
            if ui.button(format!("Copy as {api} request JSON")).clicked() {
                out.push(Command::CopyRequestJson);
            }
        });
        prompt::show(
            ui,
            &mut self.prompt_cache,
            &l.assembly,
            self.state.selected.as_deref(),
            out,
        );
    }

    /// Names of the open workspace's sessions.
    pub fn session_names(&self) -> Vec<String> {
        self.state
            .loaded
            .as_ref()
            .map(|l| {
                l.workspace
                    .sessions
                    .iter()
                    .map(|s| s.name.clone())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The entries of the command table in `menu`, drawn as the table says.
fn menu_entries(ui: &mut Ui, menu: Menu, facts: &Facts, out: &mut Vec<Command>) {
    for e in ENTRIES.iter().filter(|e| e.menu == menu) {
        let enabled = (e.enabled)(facts);
        if e.hide_disabled && !enabled {
            continue;
        }
        if e.separated {
            ui.separator();
        }
        let text = e.menu_text(ui.ctx());
        let chosen = match e.kind {
            Kind::Button => {
                let clicked = ui.add_enabled(enabled, egui::Button::new(text)).clicked();
                if clicked {
                    ui.close();
                }
                clicked
            }
            Kind::Check(on) => {
                let mut on = on(facts);
                ui.add_enabled(enabled, egui::Checkbox::new(&mut on, text))
                    .changed()
            }
            Kind::Radio(selected) => ui
                .add_enabled(enabled, egui::RadioButton::new(selected(facts), text))
                .clicked(),
        };
        if chosen {
            out.push(e.command.clone());
        }
    }
}

/// A folder (or a file's folder) dropped onto the window opens it (the
/// worker tells which).
fn dropped_folder(ctx: &egui::Context, out: &mut Vec<Command>) {
    let dropped: Vec<PathBuf> = ctx.input(|i| {
        i.raw
            .dropped_files
            .iter()
            .map(|f| f.path().to_path_buf())
            .filter(|p| !p.as_os_str().is_empty())
            .collect()
    });
    if let Some(p) = dropped.into_iter().next() {
        out.push(Command::OpenDropped(p));
    }
}

/// The keyboard shortcuts: the menu entries' (from the command table) and
/// the other keys, in a window of their own.
fn shortcuts(ctx: &egui::Context, open: &mut bool) {
    egui::Window::new("Keyboard shortcuts")
        .open(open)
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::vec2(0.0, 0.0))
        .show(ctx, |ui| {
            egui::Grid::new("shortcuts-grid")
                .num_columns(2)
                .striped(true)
                .show(ui, |ui| {
                    for e in ENTRIES {
                        if let Some(k) = e.key_text(ctx) {
                            ui.label(RichText::new(k).monospace().strong());
                            ui.label(format!("{} › {}", e.menu.title(), e.label));
                            ui.end_row();
                        }
                    }
                    for (k, what) in super::command::OTHER_KEYS {
                        ui.label(RichText::new(*k).monospace().strong());
                        ui.label(*what);
                        ui.end_row();
                    }
                });
        });
}
