//! The application: owns the state, the worker and the watcher; draws the
//! panels and turns their intents into engine calls.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use egui::{Key, KeyboardShortcut, Modifiers, RichText, Ui};

use super::detail::{self, TokenViewCache};
use super::prompt::{self, PromptLines};
use super::state::{AppState, Persisted, Tab, ThemeChoice};
use super::watch::Watcher;
use super::worker::{Done, Job, Worker};
use super::{colors, fonts, overview, side, table};
use crate::engine::{ModelTable, TokenCounter};

const STORAGE_KEY: &str = "prompt-inspector";

#[derive(Default)]
struct OpenDialog {
    visible: bool,
    path: String,
    picking: Option<Receiver<Option<PathBuf>>>,
    note: Option<String>,
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
    worker: Worker,
    watcher: Option<Watcher>,
    watch_tx: Sender<()>,
    watch_rx: Receiver<()>,
    open: OpenDialog,
    token_cache: TokenViewCache,
    prompt_cache: PromptLines,
    focus_filter: bool,
    ctx: egui::Context,
    applied_theme: Option<ThemeChoice>,
    shots: Option<super::shots::ShotPlan>,
    pub cache_view: super::cache::CacheView,
    pub run_panel: super::run::RunPanel,
    pub diff_view: super::diff::DiffView,
    /// Snapshots of the workspace (newest first) and the newest one's key.
    pub snapshots: Vec<PathBuf>,
    latest_snapshot: Option<(String, u64, String)>,
    /// The prediction shown, with the key of what it was computed from.
    prediction: Option<(u64, crate::engine::prediction::Prediction)>,
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
            && let Some(plan) = &mut self.shots
            && plan.step(&ctx, &mut self.state)
        {
            self.state.reassemble(&self.counter);
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

    fn status_bar(&mut self, ui: &mut Ui) {
        egui::Panel::bottom("status-bar").show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                if let Some(l) = &self.state.loaded {
                    let a = &l.assembly;
                    ui.label(format!(
                        "{} fragments · {} tokens in {} blocks · {} ({}{})",
                        a.fragments.len(),
                        a.total_tokens,
                        a.blocks.len(),
                        a.model,
                        a.tokenizer.as_str(),
                        if a.estimate { ", estimate" } else { "" }
                    ));
                    ui.separator();
                    ui.weak(format!(
                        "loaded in {} ms · re-assembly {} µs · frame {} µs",
                        self.state.last_load_ms, self.state.last_assemble_us, self.frames.last_us
                    ));
                    if let Some(name) = self.changed_since_snapshot() {
                        ui.separator();
                        ui.colored_label(
                            egui::Color32::from_rgb(0xFB, 0x8C, 0x00),
                            format!("● changed since snapshot {name}"),
                        );
                    }
                    if self.state.reloads > 0 {
                        ui.separator();
                        ui.weak(format!("reloaded {}×", self.state.reloads));
                    }
                }
                if let Some(e) = &self.state.error {
                    ui.separator();
                    ui.colored_label(egui::Color32::from_rgb(0xE5, 0x39, 0x35), e);
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

    /// The prediction of the current state, recomputed only when the prompt,
    /// the session, the model or the provider changed.
    pub fn prediction(&mut self) -> Option<&crate::engine::prediction::Prediction> {
        let l = self.state.loaded.as_ref()?;
        let mut key = xxhash_rust::xxh3::xxh3_64(
            format!(
                "{:?}|{}|{}",
                self.cache_view.provider, l.prepared.session, l.prepared.model.id
            )
            .as_bytes(),
        );
        for b in &l.assembly.blocks {
            key = key.rotate_left(5) ^ xxhash_rust::xxh3::xxh3_64(b.text.as_bytes());
        }
        key ^= l.assembly.tools_tokens as u64;
        if self.prediction.as_ref().map(|p| p.0) != Some(key) {
            let session = l
                .workspace
                .session(&l.prepared.session)
                .unwrap_or_else(|| l.workspace.default_session());
            let p = crate::engine::prediction::predict_for(
                &l.assembly,
                &l.prepared,
                session,
                self.cache_view.provider,
                &self.counter,
            );
            self.prediction = Some((key, p));
        }
        self.prediction.as_ref().map(|p| &p.1)
    }

    /// The loaded state as an engine inspection (for runs and snapshots).
    pub fn inspection(&self) -> Option<crate::engine::Inspection> {
        let l = self.state.loaded.as_ref()?;
        Some(crate::engine::Inspection {
            workspace: (*l.workspace).clone(),
            prepared: (*l.prepared).clone(),
            assembly: l.assembly.clone(),
        })
    }

    fn run_tab(&mut self, ui: &mut Ui) {
        let sessions: Vec<String> = self
            .state
            .loaded
            .as_ref()
            .map(|l| {
                l.workspace
                    .sessions
                    .iter()
                    .map(|s| s.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        match super::run::show(ui, &mut self.run_panel, &sessions, &self.table) {
            Some(super::run::RunIntent::Start) => self.start_run(ui.ctx()),
            Some(super::run::RunIntent::Cancel) => self.run_panel.cancel(),
            None => {}
        }
    }

    /// Starts a test run of the current state (the session shown, the
    /// budget of the sliders).
    pub fn start_run(&mut self, ctx: &egui::Context) {
        let Some(ins) = self.inspection() else { return };
        let other = if self.run_panel.plan == super::run::PlanKind::ThenSession {
            let name = self.run_panel.then_session.clone();
            let Some(s) = ins.workspace.session(&name) else {
                self.run_panel.status = "choose the second session".into();
                return;
            };
            let prepared = crate::engine::prepare(
                &ins.workspace,
                s,
                &ins.prepared.settings,
                &ins.prepared.model,
                &self.counter,
            );
            let assembly = crate::engine::assemble(
                &prepared,
                &self.state.budget,
                self.state.debug_markers,
                &self.counter,
            );
            Some(crate::engine::Inspection {
                workspace: ins.workspace.clone(),
                prepared,
                assembly,
            })
        } else {
            None
        };
        let predict_with = self
            .cache_view
            .provider
            .unwrap_or(match self.run_panel.api {
                crate::engine::Provider::Anthropic => crate::engine::Provider::Anthropic,
                _ if ins.prepared.model.provider == crate::engine::Provider::Prefix => {
                    crate::engine::Provider::Prefix
                }
                _ => crate::engine::Provider::Openai,
            });
        self.run_panel
            .start(&ins, other.as_ref(), predict_with, &self.counter, ctx);
    }

    /// Reads the workspace's snapshot list and the newest one's content key.
    pub fn refresh_snapshots(&mut self) {
        let Some(root) = &self.state.root else { return };
        self.snapshots = crate::engine::snapshot::list(root);
        self.latest_snapshot = self.snapshots.iter().find_map(|p| {
            let s = crate::engine::snapshot::Snapshot::load(p).ok()?;
            let name = p.file_name()?.to_string_lossy().into_owned();
            Some((
                s.session.clone(),
                crate::engine::snapshot::Snapshot::content_key(&s.blocks, &s.fragments),
                name,
            ))
        });
    }

    /// Saves a snapshot of the current state (Ctrl+S).
    pub fn save_snapshot(&mut self) -> Option<PathBuf> {
        let ins = self.inspection()?;
        let snap = crate::engine::snapshot::Snapshot::take(&ins, &self.counter);
        let path = snap.default_path(&ins.workspace.root);
        match snap.save(&path) {
            Ok(()) => {
                self.state.error = None;
                self.refresh_snapshots();
                self.diff_view.dirty = true;
                Some(path)
            }
            Err(e) => {
                self.state.error = Some(format!("snapshot not saved: {e}"));
                None
            }
        }
    }

    /// "changed since snapshot …" when the live prompt differs from the
    /// newest snapshot of the same session.
    pub fn changed_since_snapshot(&self) -> Option<String> {
        let l = self.state.loaded.as_ref()?;
        let (session, key, name) = self.latest_snapshot.as_ref()?;
        if *session != l.prepared.session {
            return None;
        }
        let live = crate::engine::snapshot::Snapshot::content_key(
            &l.assembly.blocks,
            &l.assembly.fragments,
        );
        (live != *key).then(|| name.clone())
    }

    fn side_snapshot(
        &self,
        side: &super::diff::Side,
    ) -> Result<crate::engine::snapshot::Snapshot, String> {
        let ins = self.inspection().ok_or("no workspace is open")?;
        match side {
            super::diff::Side::Live => {
                Ok(crate::engine::snapshot::Snapshot::take(&ins, &self.counter))
            }
            super::diff::Side::Session(name) => {
                let s = ins
                    .workspace
                    .session(name)
                    .ok_or_else(|| format!("no session {name}"))?;
                let prepared = crate::engine::prepare(
                    &ins.workspace,
                    s,
                    &ins.prepared.settings,
                    &ins.prepared.model,
                    &self.counter,
                );
                let assembly = crate::engine::assemble(
                    &prepared,
                    &self.state.budget,
                    self.state.debug_markers,
                    &self.counter,
                );
                let other = crate::engine::Inspection {
                    workspace: ins.workspace.clone(),
                    prepared,
                    assembly,
                };
                Ok(crate::engine::snapshot::Snapshot::take(
                    &other,
                    &self.counter,
                ))
            }
            super::diff::Side::Snapshot(p) => crate::engine::snapshot::Snapshot::load(p),
        }
    }

    fn diff_tab(&mut self, ui: &mut Ui) {
        let sessions: Vec<String> = self
            .state
            .loaded
            .as_ref()
            .map(|l| {
                l.workspace
                    .sessions
                    .iter()
                    .map(|s| s.name.clone())
                    .collect()
            })
            .unwrap_or_default();
        let snapshots = self.snapshots.clone();
        match super::diff::show(ui, &mut self.diff_view, &sessions, &snapshots) {
            Some(super::diff::DiffIntent::SaveSnapshot) => {
                self.save_snapshot();
            }
            Some(super::diff::DiffIntent::Compute) => self.compute_diff(),
            None => {}
        }
    }

    pub fn compute_diff(&mut self) {
        self.diff_view.dirty = false;
        let (a, b) = (self.diff_view.a.clone(), self.diff_view.b.clone());
        let result = match (self.side_snapshot(&a), self.side_snapshot(&b)) {
            (Ok(x), Ok(y)) => Ok(crate::engine::diff::diff(&x, &y, &a.label(), &b.label())),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        self.diff_view.result = Some(result);
        self.diff_view.generation += 1;
    }

    fn cache_tab(&mut self, ui: &mut Ui) {
        if self.prediction().is_none() {
            return;
        }
        let Some((_, p)) = &self.prediction else {
            return;
        };
        if let Some(prov) = super::cache::show(ui, &mut self.cache_view, p) {
            self.cache_view.provider = prov;
        }
    }

    fn prompt_tab(&mut self, ui: &mut Ui) {
        let Some(l) = &self.state.loaded else { return };
        let mut markers = self.state.debug_markers;
        let mut copy_text = None;
        ui.horizontal(|ui| {
            ui.checkbox(&mut markers, "DEBUG markers");
            if ui.button("Copy as text").clicked() {
                copy_text = Some(
                    l.assembly
                        .blocks
                        .iter()
                        .map(|b| b.text.as_str())
                        .collect::<Vec<_>>()
                        .join("\n\n"),
                );
            }
            if ui.button("Copy as Anthropic request JSON").clicked() {
                let session = l.workspace.session(&l.prepared.session);
                let messages = session
                    .and_then(|s| {
                        s.requests
                            .first()
                            .map(|r| s.messages[..r.messages].to_vec())
                    })
                    .unwrap_or_else(|| {
                        vec![crate::engine::session::Message::text(
                            crate::engine::session::Role::User,
                            "Hello",
                        )]
                    });
                let s = &l.workspace.settings;
                let body = crate::engine::request::anthropic_body(
                    &l.assembly,
                    &l.assembly.model,
                    &messages,
                    1,
                    s.cache_tools,
                    s.history.message_breakpoint,
                );
                copy_text = Some(serde_json::to_string_pretty(&body).unwrap_or_default());
            }
        });
        let out = prompt::show(
            ui,
            &mut self.prompt_cache,
            &l.assembly,
            self.state.selected.as_deref(),
        );
        if let Some(t) = copy_text {
            ui.ctx().copy_text(t);
        }
        if let Some(id) = out.clicked {
            self.state.selected = Some(id);
        }
        if markers != self.state.debug_markers {
            self.state.debug_markers = markers;
            self.state.reassemble(&self.counter);
        }
    }

    fn open_dialog(&mut self, ctx: &egui::Context) {
        if !self.open.visible {
            return;
        }
        let mut open_path = None;
        let mut close = false;
        egui::Window::new("Open a workspace folder")
            .collapsible(false)
            .resizable(false)
            .show(ctx, |ui| {
                ui.horizontal(|ui| {
                    ui.label("Folder");
                    let r = ui
                        .add(egui::TextEdit::singleline(&mut self.open.path).desired_width(360.0));
                    if r.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter)) {
                        open_path = Some(PathBuf::from(self.open.path.trim()));
                    }
                });
                ui.horizontal(|ui| {
                    if ui
                        .add_enabled(self.open.picking.is_none(), egui::Button::new("Browse…"))
                        .clicked()
                    {
                        let (tx, rx) = channel();
                        let ctx = ctx.clone();
                        std::thread::spawn(move || {
                            let choice = rfd::FileDialog::new()
                                .set_title("Open a workspace folder")
                                .pick_folder();
                            let _ = tx.send(choice);
                            ctx.request_repaint();
                        });
                        self.open.picking = Some(rx);
                    }
                    if ui.button("Open").clicked() {
                        open_path = Some(PathBuf::from(self.open.path.trim()));
                    }
                    if ui.button("Cancel").clicked() {
                        close = true;
                    }
                });
                if let Some(n) = &self.open.note {
                    ui.colored_label(egui::Color32::from_rgb(0xFB, 0x8C, 0x00), n);
                }
            });
        if let Some(p) = open_path {
            if p.is_dir() {
                self.open.visible = false;
                self.open(p);
            } else {
                self.open.note = Some(format!("{} is not a folder", p.display()));
            }
        }
        if close {
            self.open.visible = false;
        }
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
