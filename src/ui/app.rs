//! The application: owns the state, the worker and the watcher; draws the
//! panels and turns their intents into engine calls.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use egui::{Key, KeyboardShortcut, Modifiers, RichText, Ui};

use super::detail::{self, TokenViewCache};
use super::prompt::PromptLines;
use super::state::{AppState, Persisted, Tab, ThemeChoice};
use super::watch::Watcher;
use super::worker::{Done, Job, Worker};
use super::{colors, fonts, overview, side, table};
use crate::engine::{ModelTable, TokenCounter};

const STORAGE_KEY: &str = "prompt-inspector";

#[derive(Default)]
pub(crate) struct OpenDialog {
    pub(crate) visible: bool,
    pub(crate) path: String,
    pub(crate) picking: Option<Receiver<Option<PathBuf>>>,
    pub(crate) note: Option<String>,
}

/// CPU time of drawing, per frame.
#[derive(Default, Debug, Clone)]
pub struct FrameStats {
    pub last_us: u128,
    pub max_us: u128,
    pub total_us: u128,
    pub frames: u64,
}

impl FrameStats {
    pub fn mean_us(&self) -> u128 {
        self.total_us / self.frames.max(1) as u128
    }
}

pub struct App {
    pub state: AppState,
    pub counter: Arc<TokenCounter>,
    pub table: Arc<ModelTable>,
    pub frames: FrameStats,
    pub font: String,
    pub(crate) worker: Worker,
    pub(crate) watcher: Option<Watcher>,
    pub(crate) watch_tx: Sender<()>,
    pub(crate) watch_rx: Receiver<()>,
    pub(crate) open: OpenDialog,
    pub(crate) token_cache: TokenViewCache,
    pub(crate) prompt_cache: PromptLines,
    pub(crate) focus_filter: bool,
    pub(crate) ctx: egui::Context,
    pub(crate) applied_theme: Option<ThemeChoice>,
    pub(crate) shots: Option<super::shots::ShotPlan>,
    pub cache_view: super::cache::CacheView,
    pub run_panel: super::run::RunPanel,
    pub diff_view: super::diff::DiffView,
    /// Snapshots of the workspace (newest first) and the newest one's key.
    pub snapshots: Vec<PathBuf>,
    pub(crate) latest_snapshot: Option<(String, u64, String)>,
    /// The prediction shown, with the key of what it was computed from.
    pub(crate) prediction: Option<(u64, crate::engine::prediction::Prediction)>,
    pub(crate) prediction_job: Option<(u64, Receiver<crate::engine::prediction::Prediction>)>,
}

/// The bundled sample workspace, wherever it can be found.
pub fn sample_workspace() -> Option<PathBuf> {
    let mut candidates = vec![
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-workspace"),
        PathBuf::from("sample-workspace"),
    ];
    if let Ok(exe) = std::env::current_exe()
        && let Some(dir) = exe.parent()
    {
        candidates.push(dir.join("sample-workspace"));
    }
    candidates
        .into_iter()
        .find(|p| p.join("workspace.yaml").is_file())
}

impl App {
    pub fn new(ctx: &egui::Context, persisted: Option<Persisted>, path: Option<PathBuf>) -> App {
        let font = fonts::install(ctx);
        let table = Arc::new(ModelTable::load().unwrap_or_else(|_| ModelTable::bundled()));
        let counter = Arc::new(TokenCounter::new());
        // Warm the tokenizer off the UI thread.
        std::thread::spawn(|| TokenCounter::warm(crate::engine::Encoding::O200kBase));
        let worker = Worker::spawn(ctx.clone(), counter.clone(), table.clone());
        let (watch_tx, watch_rx) = channel();
        let persisted = persisted.unwrap_or_default();
        let mut app = App {
            state: AppState::from_persisted(&persisted),
            counter,
            table,
            frames: FrameStats::default(),
            font,
            worker,
            watcher: None,
            watch_tx,
            watch_rx,
            open: OpenDialog::default(),
            token_cache: TokenViewCache::default(),
            prompt_cache: PromptLines::default(),
            focus_filter: false,
            ctx: ctx.clone(),
            applied_theme: None,
            shots: super::shots::ShotPlan::from_env(),
            cache_view: super::cache::CacheView::default(),
            run_panel: super::run::RunPanel::default(),
            diff_view: super::diff::DiffView::default(),
            snapshots: Vec::new(),
            latest_snapshot: None,
            prediction: None,
            prediction_job: None,
        };
        if let Some(p) = path.or(persisted.last_workspace.filter(|p| p.is_dir())) {
            app.open(p);
        }
        app
    }

    pub fn from_creation_context(cc: &eframe::CreationContext<'_>, path: Option<PathBuf>) -> App {
        let persisted = cc
            .storage
            .and_then(|s| eframe::get_value::<Persisted>(s, STORAGE_KEY));
        App::new(&cc.egui_ctx, persisted, path)
    }

    /// Opens a workspace folder (loading runs on the worker).
    pub fn open(&mut self, root: PathBuf) {
        let root = root.canonicalize().unwrap_or(root);
        if self.state.root.as_deref() != Some(root.as_path()) {
            self.state.loaded = None;
            self.state.selected = None;
            self.state.session = None;
            self.state.budget_touched = false;
        }
        self.state.root = Some(root.clone());
        self.state.error = None;
        self.state.note_recent(&root);
        self.watcher = match Watcher::start(&root, self.ctx.clone(), self.watch_tx.clone()) {
            Ok(w) => Some(w),
            Err(e) => {
                self.state.error = Some(format!("live reload is off: {e}"));
                None
            }
        };
        self.submit_load();
    }

    fn submit_load(&mut self) {
        let Some(root) = self.state.root.clone() else {
            return;
        };
        self.state.generation += 1;
        self.state.busy = Some(format!("loading {}", root.display()));
        self.worker.submit(Job::Load {
            root,
            session: self.state.session.clone(),
            model: self.state.model.clone(),
            generation: self.state.generation,
        });
    }

    pub fn reload(&mut self) {
        self.state.reloads += 1;
        self.state.last_reload_at = Some(Instant::now());
        self.submit_load();
    }

    fn submit_prepare(&mut self) {
        let Some(l) = &self.state.loaded else { return };
        self.state.generation += 1;
        self.state.busy = Some("preparing".into());
        let mut settings = l.workspace.settings.clone();
        settings.budget = self.state.budget;
        self.worker.submit(Job::Prepare {
            workspace: l.workspace.clone(),
            session: self.state.session.clone(),
            model: self.state.model.clone(),
            settings: Box::new(settings),
            generation: self.state.generation,
        });
    }

    /// True when no load or preparation is under way.
    pub fn is_idle(&self) -> bool {
        self.state.busy.is_none()
    }

    /// Applies what the worker and the watcher reported.
    pub fn poll(&mut self) {
        self.run_panel.poll();
        let mut reload = false;
        while self.watch_rx.try_recv().is_ok() {
            reload = true;
        }
        if reload && self.state.root.is_some() {
            self.reload();
        }
        while let Ok(done) = self.worker.rx.try_recv() {
            match done {
                Done::Progress(msg) => {
                    if self.state.busy.is_some() {
                        self.state.busy = Some(msg);
                    }
                }
                Done::Loaded {
                    generation,
                    workspace,
                    prepared,
                    millis,
                } => {
                    if generation == self.state.generation {
                        self.state.last_load_ms = millis;
                        self.state.apply_loaded(workspace, prepared, &self.counter);
                        self.refresh_snapshots();
                        self.diff_view.dirty = true;
                    }
                }
                Done::Prepared {
                    generation,
                    prepared,
                    millis,
                } => {
                    if generation == self.state.generation {
                        self.state.last_load_ms = millis;
                        self.state.apply_prepared(prepared, &self.counter);
                    }
                }
                Done::Failed {
                    generation,
                    message,
                } => {
                    if generation == self.state.generation {
                        self.state.busy = None;
                        self.state.error = Some(message);
                    }
                }
            }
        }
        if let Some(rx) = &self.open.picking
            && let Ok(choice) = rx.try_recv()
        {
            self.open.picking = None;
            match choice {
                Some(p) => {
                    self.open.visible = false;
                    self.open(p);
                }
                None => {
                    self.open.note = Some(
                        "No folder was chosen. If no dialog appeared, this desktop offers no file dialog: type the folder's path above."
                            .into(),
                    )
                }
            }
        }
    }

    fn shortcuts(&mut self, ctx: &egui::Context) {
        let cmd = |k| KeyboardShortcut::new(Modifiers::COMMAND, k);
        if ctx.input_mut(|i| i.consume_shortcut(&cmd(Key::O))) {
            self.show_open_dialog();
        }
        if ctx.input_mut(|i| i.consume_shortcut(&cmd(Key::S))) {
            self.save_snapshot();
        }
        if ctx.input_mut(|i| i.consume_shortcut(&cmd(Key::R))) {
            self.reload();
        }
        if ctx.input_mut(|i| i.consume_shortcut(&cmd(Key::F))) {
            self.state.tab = Tab::Fragments;
            self.focus_filter = true;
        }
        if ctx.input_mut(|i| i.consume_shortcut(&cmd(Key::D))) {
            self.state.debug_markers = !self.state.debug_markers;
            self.state.reassemble(&self.counter);
        }
        let dropped: Vec<PathBuf> = ctx.input(|i| {
            i.raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        if let Some(p) = dropped.into_iter().next() {
            let dir = if p.is_dir() {
                p
            } else {
                p.parent().map(Path::to_path_buf).unwrap_or(p)
            };
            self.open(dir);
        }
    }

    fn show_open_dialog(&mut self) {
        self.open.visible = true;
        self.open.note = None;
        if self.open.path.is_empty()
            && let Some(r) = &self.state.root
        {
            self.open.path = r.display().to_string();
        }
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

    fn select(&mut self, target: String) {
        if let Some(a) = self.state.assembly() {
            if a.fragments.iter().any(|f| f.id == target) {
                self.state.selected = Some(target);
            } else if let Some(f) = a.fragments.iter().find(|f| f.source == target) {
                self.state.selected = Some(f.id.clone());
            }
        }
    }

    /// Draws the whole window (also used by the GUI tests).
    pub fn show(&mut self, ui: &mut Ui) {
        let started = Instant::now();
        let ctx = ui.ctx().clone();
        self.poll();
        self.apply_theme(&ctx);
        self.shortcuts(&ctx);
        self.menu_bar(ui);
        self.status_bar(ui);
        if self.state.loaded.is_some() {
            self.main_view(ui);
        } else {
            egui::CentralPanel::default().show(ui, |ui| {
                if let Some(busy) = &self.state.busy {
                    ui.vertical_centered(|ui| {
                        ui.add_space(80.0);
                        ui.spinner();
                        ui.label(busy);
                    });
                    return;
                }
                match side::welcome(ui, &self.state, sample_workspace().is_some()) {
                    Some(side::WelcomeAction::OpenSample) => {
                        if let Some(p) = sample_workspace() {
                            self.open(p);
                        }
                    }
                    Some(side::WelcomeAction::OpenDialog) => self.show_open_dialog(),
                    Some(side::WelcomeAction::OpenRecent(p)) => self.open(p),
                    None => {}
                }
            });
        }
        self.open_dialog(&ctx);
        if self.state.loaded.is_some()
            && self.is_idle()
            && let Some(mut plan) = self.shots.take()
        {
            if plan.step(&ctx, self) {
                self.state.reassemble(&self.counter);
            }
            self.shots = Some(plan);
        }
        let us = started.elapsed().as_micros();
        self.frames.last_us = us;
        self.frames.max_us = self.frames.max_us.max(us);
        self.frames.total_us += us;
        self.frames.frames += 1;
    }

    fn menu_bar(&mut self, ui: &mut Ui) {
        egui::Panel::top("menu-bar").show(ui, |ui| {
            egui::MenuBar::new().ui(ui, |ui| {
                ui.menu_button("File", |ui| {
                    if ui.button("Open folder…  Ctrl+O").clicked() {
                        self.show_open_dialog();
                        ui.close();
                    }
                    if ui
                        .add_enabled(
                            self.state.root.is_some(),
                            egui::Button::new("Reload  Ctrl+R"),
                        )
                        .clicked()
                    {
                        self.reload();
                        ui.close();
                    }
                    if let Some(p) = sample_workspace()
                        && ui.button("Open the sample workspace").clicked()
                    {
                        self.open(p);
                        ui.close();
                    }
                    ui.separator();
                    ui.label(RichText::new("Recent").weak());
                    let recent = self.state.recent.clone();
                    for p in recent {
                        if ui.button(p.display().to_string()).clicked() {
                            self.open(p);
                            ui.close();
                        }
                    }
                });
                ui.menu_button("View", |ui| {
                    for (t, label) in [
                        (ThemeChoice::System, "Follow the system theme"),
                        (ThemeChoice::Light, "Light"),
                        (ThemeChoice::Dark, "Dark"),
                    ] {
                        if ui.radio(self.state.theme == t, label).clicked() {
                            self.state.theme = t;
                        }
                    }
                    ui.separator();
                    if ui
                        .checkbox(&mut self.state.debug_markers, "DEBUG markers  Ctrl+D")
                        .changed()
                    {
                        self.state.reassemble(&self.counter);
                    }
                });
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

    fn main_view(&mut self, ui: &mut Ui) {
        egui::Panel::left("controls")
            .resizable(true)
            .default_size(340.0)
            .min_size(260.0)
            .show(ui, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("left-scroll")
                    .show(ui, |ui| {
                        let out = side::controls(ui, &mut self.state, &self.table);
                        if out.budget_changed || out.markers_changed {
                            self.state.reassemble(&self.counter);
                        }
                        if out.reset {
                            self.state.reset_budget(&self.counter);
                        }
                        if let Some(s) = out.session {
                            self.state.session = Some(s);
                            self.submit_prepare();
                        }
                        if let Some(m) = out.model {
                            self.state.model = m;
                            self.submit_prepare();
                        }
                        ui.separator();
                        if let Some(l) = &self.state.loaded {
                            let clicked = overview::layers(ui, &self.state, &l.assembly);
                            ui.separator();
                            let a = &l.assembly;
                            let mut parts = vec![overview::ContextPart {
                                label: "tools".into(),
                                tokens: a.tools_tokens as u64,
                                color: colors::fragment("tools", ui.visuals().dark_mode),
                            }];
                            for b in &a.blocks {
                                parts.push(overview::ContextPart {
                                    label: format!("layer {}", b.layer),
                                    tokens: b.tokens as u64,
                                    color: colors::fragment(
                                        &format!("layer{}", b.layer),
                                        ui.visuals().dark_mode,
                                    ),
                                });
                            }
                            parts.push(overview::ContextPart {
                                label: "reserved output".into(),
                                tokens: l.workspace.settings.history.reserved_output,
                                color: colors::UNCACHED,
                            });
                            overview::context_bar(
                                ui,
                                &parts,
                                l.prepared.model.context_window,
                                Some(l.workspace.settings.history.auto_compact_threshold),
                            );
                            if let Some(id) = clicked {
                                self.state.selected = Some(id);
                            }
                        }
                    });
            });
        egui::Panel::right("detail").resizable(true).default_size(360.0).min_size(240.0).show(ui, |ui| {
            let Some(l) = &self.state.loaded else { return };
            match self.state.selected.as_ref().and_then(|id| l.assembly.fragments.iter().find(|f| &f.id == id)) {
                Some(f) => {
                    let p = l.prepared.fragments.iter().find(|p| p.id == f.id);
                    detail::show(ui, f, p, l.prepared.encoding, &self.counter, &mut self.token_cache);
                }
                None => {
                    ui.weak("Select a fragment in the bars, the table or the prompt to see its text and tokens.");
                }
            }
        });
        egui::CentralPanel::default().show(ui, |ui| {
            let problems = self
                .state
                .loaded
                .as_ref()
                .map(|l| l.workspace.diagnostics.len() + l.prepared.diagnostics.len())
                .unwrap_or(0);
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.state.tab, Tab::Fragments, "Fragments");
                ui.selectable_value(&mut self.state.tab, Tab::Prompt, "Prompt");
                ui.selectable_value(&mut self.state.tab, Tab::Cache, "Cache");
                ui.selectable_value(&mut self.state.tab, Tab::Run, "Test run");
                ui.selectable_value(&mut self.state.tab, Tab::Diff, "Diff");
                ui.selectable_value(
                    &mut self.state.tab,
                    Tab::Problems,
                    format!("Problems ({problems})"),
                );
            });
            ui.separator();
            match self.state.tab {
                Tab::Cache => self.cache_tab(ui),
                Tab::Run => self.run_tab(ui),
                Tab::Diff => self.diff_tab(ui),
                Tab::Fragments => {
                    table::filters(ui, &mut self.state, std::mem::take(&mut self.focus_filter));
                    let out = table::table(ui, &mut self.state);
                    if let Some(id) = out.clicked {
                        self.state.selected = Some(id);
                    }
                }
                Tab::Prompt => self.prompt_tab(ui),
                Tab::Problems => {
                    if let Some(target) = side::problems(ui, &self.state) {
                        self.select(target);
                    }
                }
            }
        });
    }
}

impl eframe::App for App {
    fn logic(&mut self, _ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.poll();
    }

    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.state.persisted());
    }
}
