//! The application: owns the state, the worker and the watcher; panels push
//! [`Command`]s and [`App::apply`] carries them out, once per frame, turning
//! them into state changes and jobs of the worker.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use super::command::Command;
use super::detail::TokenViewCache;
use super::prompt::PromptLines;
use super::state::{AppState, Persisted, Tab, TableView, ThemeChoice};
use super::watch::Watcher;
use super::worker::{FolderAsk, Job, Worker};
use super::{fonts, test_run};

mod answers;
mod snapshots;
use crate::engine::cache::prediction::Prediction;
use crate::engine::{Inspection, ModelTable, TokenCounter};

pub(crate) const STORAGE_KEY: &str = "prompt-inspector";

#[derive(Default)]
pub(crate) struct OpenDialog {
    pub(crate) visible: bool,
    pub(crate) path: String,
    pub(crate) picking: bool,
    pub(crate) note: Option<String>,
    /// The path field takes the keyboard, its text selected, when the
    /// dialog opens.
    pub(crate) focus: bool,
}

/// CPU time of drawing, per frame.
#[derive(Default, Debug, Clone)]
pub struct FrameStats {
    pub last_us: u128,
    pub max_us: u128,
    pub total_us: u128,
    pub frames: u64,
}

pub struct App {
    pub state: AppState,
    pub counter: Arc<TokenCounter>,
    pub table: Arc<ModelTable>,
    /// The names of the assembly profiles (bundled and the user's own).
    pub profiles: Vec<String>,
    pub frames: FrameStats,
    pub(crate) worker: Worker,
    pub(crate) watcher: Option<Watcher>,
    pub(crate) watch_tx: Sender<()>,
    pub(crate) watch_rx: Receiver<()>,
    pub(crate) open: OpenDialog,
    pub(crate) token_cache: TokenViewCache,
    pub(crate) prompt_cache: PromptLines,
    pub table_view: TableView,
    pub problems_view: super::problems::ProblemsView,
    pub(crate) focus_filter: bool,
    pub(crate) ctx: egui::Context,
    pub(crate) applied_theme: Option<ThemeChoice>,
    pub(crate) shots: Option<super::shots::ShotPlan>,
    pub(crate) layout_log: Option<super::layout_log::LayoutLog>,
    pub cache_view: super::cache::CacheView,
    pub test_run: test_run::TestRunPanel,
    pub diff_view: super::diff::DiffView,
    pub traffic_view: super::traffic::TrafficView,
    /// Snapshots of the workspace (newest first) and the newest one's key.
    pub snapshots: Vec<PathBuf>,
    pub(crate) latest_snapshot: Option<(String, u64, String)>,
    /// The prediction shown, with the key of what it was computed from, and
    /// the key of the one being computed.
    pub(crate) prediction: Option<(u64, Prediction)>,
    pub(crate) prediction_pending: Option<u64>,
    /// The bundled sample workspace, looked for once at start by the
    /// worker (not on disk each frame, never on this thread).
    pub sample: Option<PathBuf>,
    /// The example workspaces beside it, found the same way.
    pub examples: Vec<PathBuf>,
    /// `run AGENT --window`: the agent to start once the proxy listens.
    pub(crate) launch: Option<(String, super::live_run::Launch)>,
    /// The keyboard shortcuts list is open (Help, F1, `?`).
    pub shortcuts_open: bool,
    /// Where the agents' parts learned here are kept
    /// ([`crate::observed_dir`], read once at start).
    pub observed_dir: Option<PathBuf>,
    /// The Agents window (View › Agents' own parts…).
    pub agents_view: super::agents::AgentsView,
}

impl App {
    pub fn new(ctx: &egui::Context, persisted: Option<Persisted>, path: Option<PathBuf>) -> App {
        // The bundled fonts now; a system CJK font when the worker found one.
        fonts::install(ctx, None);
        // Both themes with every text colour readable (WCAG AA).
        super::colors::install(ctx);
        let counter = Arc::new(TokenCounter::new());
        // Warm the tokenizer off the UI thread.
        let _ = std::thread::Builder::new()
            .name("prompt-inspector-warm-tokenizer".into())
            .spawn(|| TokenCounter::warm(crate::engine::Encoding::O200kBase));
        // The model table and the profiles come from the worker (files):
        // empty until then, and they arrive before any workspace does.
        let worker = Worker::spawn(ctx.clone(), counter.clone());
        let (watch_tx, watch_rx) = channel();
        let persisted = persisted.unwrap_or_default();
        let app = App {
            state: AppState::from_persisted(&persisted),
            counter,
            table: Arc::new(ModelTable::new(String::new(), Vec::new())),
            profiles: Vec::new(),
            frames: FrameStats::default(),
            worker,
            watcher: None,
            watch_tx,
            watch_rx,
            open: OpenDialog::default(),
            token_cache: TokenViewCache::default(),
            prompt_cache: PromptLines::default(),
            table_view: TableView::default(),
            problems_view: Default::default(),
            focus_filter: false,
            ctx: ctx.clone(),
            applied_theme: None,
            shots: super::shots::ShotPlan::from_env(),
            layout_log: super::layout_log::LayoutLog::from_env(),
            cache_view: super::cache::CacheView::default(),
            test_run: test_run::TestRunPanel::default(),
            diff_view: super::diff::DiffView::default(),
            traffic_view: super::traffic::TrafficView::default(),
            snapshots: Vec::new(),
            latest_snapshot: None,
            prediction: None,
            prediction_pending: None,
            sample: None,
            examples: Vec::new(),
            launch: None,
            shortcuts_open: false,
            observed_dir: crate::observed_dir(),
            agents_view: Default::default(),
        };
        app.worker.submit(Job::Startup);
        let folder = match (path, persisted.last_workspace) {
            (Some(path), _) => Some((path, FolderAsk::Given)),
            (None, Some(path)) => Some((path, FolderAsk::Remembered)),
            (None, None) => None,
        };
        if let Some((path, asked)) = folder {
            app.worker.submit(Job::Folder { path, asked });
        }
        app
    }

    pub fn from_creation_context(cc: &eframe::CreationContext<'_>, path: Option<PathBuf>) -> App {
        let persisted = cc
            .storage
            .and_then(|s| eframe::get_value::<Persisted>(s, STORAGE_KEY));
        App::new(&cc.egui_ctx, persisted, path)
    }

    /// Opens a workspace folder, as the worker resolved it (canonical):
    /// loading and the live-reload watch run on the worker.
    pub fn open(&mut self, root: PathBuf) {
        if self.state.root.as_deref() != Some(root.as_path()) {
            self.state.loaded = None;
            self.state.context = None;
            self.state.problems.clear();
            self.state.notice = None;
            self.state.selected = None;
            self.state.session = None;
            self.state.profile = None;
            self.state.caps = None;
            self.state.workdir = None;
            self.state.budget_touched = false;
            // What belonged to the folder left behind (at start there is
            // none: the markers setting the window was closed with stays).
            if self.state.root.is_some() {
                self.state.reloads = 0;
                self.state.last_reload_at = None;
                self.state.debug_markers = false;
                self.state.breakers = None;
            }
        }
        self.state.root = Some(root.clone());
        self.state.error = None;
        self.state.note_recent(&root);
        self.watcher = None;
        self.worker.submit(Job::Watch {
            root,
            tx: self.watch_tx.clone(),
        });
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
            options: self.state.options(),
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
        self.worker.submit(Job::Prepare {
            workspace: l.workspace.clone(),
            options: self.state.options(),
            generation: self.state.generation,
        });
    }

    /// True when no load or preparation is under way.
    pub fn is_idle(&self) -> bool {
        self.state.busy.is_none()
    }

    /// The current inspection (a cheap copy: the workspace is shared).
    pub fn inspection(&self) -> Option<Inspection> {
        self.state.loaded.clone()
    }

    /// Carries out one command.
    /// Requests `a` and `b` of a capture side by side in the Diff view.
    fn diff_requests(&mut self, capture: std::path::PathBuf, a: usize, b: usize) {
        self.diff_view.a = super::diff::Side::Request {
            capture: capture.clone(),
            index: a,
        };
        self.diff_view.b = super::diff::Side::Request { capture, index: b };
        let root = self.state.loaded.as_ref().map(|l| l.workspace.root.clone());
        self.diff_view.sources = root.and_then(|r| self.traffic_view.sources(b, r));
        self.state.tab = Tab::Diff;
        self.compute_diff();
    }

    pub fn apply(&mut self, c: Command) {
        match c {
            Command::Open(path) => self.worker.submit(Job::Folder {
                path,
                asked: FolderAsk::Typed,
            }),
            Command::OpenDropped(path) => self.worker.submit(Job::Folder {
                path,
                asked: FolderAsk::Dropped,
            }),
            Command::OpenSample => {
                if let Some(p) = self.sample.clone() {
                    self.open(p);
                }
            }
            Command::ShowOpenDialog => self.show_open_dialog(),
            Command::CloseOpenDialog => self.open.visible = false,
            Command::Dismiss => self.dismiss(),
            Command::PickFolder => self.pick_folder(),
            Command::Reload => self.reload(),
            Command::SetTheme(t) => self.state.theme = t,
            Command::SetTab(t) => self.state.tab = t,
            Command::FindFragment => {
                self.state.tab = Tab::Fragments;
                self.focus_filter = true;
            }
            c @ (Command::SetSession(_)
            | Command::SetModel(_)
            | Command::SetProfile(_)
            | Command::SetCaps(_)
            | Command::SetBudget(_)
            | Command::ResetBudget
            | Command::SetMarkers(_)
            | Command::SetUserMemory(_)
            | Command::SetWorkdir(_)) => self.apply_setting(c),
            Command::ToggleMarkers => self.apply(Command::SetMarkers(!self.state.debug_markers)),
            Command::Select(target) => self.select_line(target, None),
            Command::SelectLine(target, line) => self.select_line(target, Some(line)),
            Command::OpenInEditor(path, line) => {
                super::editor::open(path, line, self.worker.done_sender(), self.ctx.clone())
            }
            Command::ClearSelection => {
                self.state.selected = None;
                self.state.selected_line = None;
            }
            Command::SetProvider(p) => self.state.provider = p,
            Command::StartTestRun => self.start_test_run(),
            Command::CancelTestRun => self.test_run.cancel(),
            Command::SaveSnapshot => self.save_snapshot(),
            Command::ComputeDiff => self.compute_diff(),
            Command::CopyText(t) => self.ctx.copy_text(t),
            Command::OpenTraffic(p) => self.open_traffic(p),
            Command::CancelTrafficRead => self.cancel_traffic_read(),
            Command::SelectRequest { capture, index } => self.select_request(capture, index),
            Command::StartProxy => self.start_proxy(),
            Command::Quit => self.ctx.send_viewport_cmd(egui::ViewportCommand::Close),
            Command::ToggleShortcuts => self.shortcuts_open = !self.shortcuts_open,
            Command::ShowAgents => self.agents_view.open(self.observed_dir.as_deref()),
            Command::ForgetParts(id) => {
                // The folder's views go back to what they use now.
                if self.agents_view.forget(self.observed_dir.as_deref(), &id)
                    && self.state.root.is_some()
                {
                    self.reload();
                }
            }
            Command::LearnParts { capture, index } => self.learn_parts(capture, index),
            Command::NextProblem { forward } => {
                if let Some(f) = self.problems_view.step(&self.state.problems, forward) {
                    self.select(f);
                }
            }
            Command::DiffRequests { capture, a, b } => self.diff_requests(capture, a, b),
            Command::StopProxy => {
                if let Some(stop) = &self.traffic_view.proxy.stop {
                    let _ = stop.send(true);
                }
            }
            Command::CopyRequestJson => self.copy_request_json(),
        }
    }

    /// A command that changes what the folder is assembled with (session,
    /// model, profile, caps, budgets, DEBUG markers): the assembly done
    /// again from where that setting enters it.
    fn apply_setting(&mut self, c: Command) {
        match c {
            Command::SetSession(s) => {
                self.state.session = Some(s);
                self.submit_prepare();
            }
            Command::SetModel(m) => {
                self.state.model = Some(m);
                self.submit_prepare();
            }
            Command::SetProfile(p) => {
                self.state.profile = Some(p);
                self.state.caps = None;
                self.state.budget_touched = false;
                self.reload();
            }
            Command::SetCaps(c) => {
                self.state.caps = c;
                self.submit_load();
            }
            Command::SetUserMemory(on) => {
                self.state.user_memory = on;
                self.submit_load();
            }
            Command::SetWorkdir(w) => {
                self.state.workdir = w;
                self.submit_load();
            }
            Command::SetBudget(b) => {
                self.state.budget = b;
                self.state.budget_touched = true;
                self.state.reassemble(&self.counter);
            }
            Command::ResetBudget => self.state.reset_budget(&self.counter),
            Command::SetMarkers(on) => {
                self.state.debug_markers = on;
                self.state.reassemble(&self.counter);
            }
            // Not a setting: `apply` takes it.
            other => self.apply(other),
        }
    }

    fn pick_folder(&mut self) {
        self.open.picking = true;
        self.worker.submit(Job::PickFolder);
    }

    /// Reads a capture or a transcript into the Traffic tab, the read
    /// before it (if any) replaced.
    fn open_traffic(&mut self, p: PathBuf) {
        self.traffic_view.pending = true;
        self.traffic_view.progress = None;
        self.traffic_view.source = Some(p.clone());
        let ticket = self.traffic_view.reading.renew();
        self.worker.submit(Job::Traffic { path: p, ticket });
    }

    /// Stops the Traffic tab's read, and says so.
    fn cancel_traffic_read(&mut self) {
        self.traffic_view.reading.cancel();
        self.traffic_view.pending = false;
        self.traffic_view.progress = None;
        self.traffic_view.source = None;
        self.state.notice = Some("reading the capture: cancelled".into());
    }

    /// Has the worker learn the own parts of the agent that sent request
    /// `index` of `capture`, the open folder's files left out.
    fn learn_parts(&mut self, capture: PathBuf, index: usize) {
        match (self.state.root.clone(), self.observed_dir.clone()) {
            (Some(root), Some(keep_in)) => {
                self.traffic_view.learned = None;
                self.worker.submit(Job::Learn {
                    capture,
                    index,
                    root,
                    keep_in,
                });
            }
            (_, None) => {
                self.traffic_view.learned = Some((
                    index,
                    Err("no data folder: set XDG_DATA_HOME or HOME".into()),
                ))
            }
            (None, _) => {}
        }
    }

    /// Selects request `index` of the Traffic tab, and has the worker trace
    /// it to the open workspace (when a workspace is open and the capture
    /// is a file).
    pub(crate) fn select_request(&mut self, capture: Option<PathBuf>, index: usize) {
        self.traffic_view.selected = Some(index);
        self.traffic_view.traced = None;
        self.traffic_view.body = None;
        if let Some(capture) = &capture {
            self.worker.submit(Job::RequestBody {
                capture: capture.clone(),
                index,
            });
        }
        if let (Some(capture), Some(root)) = (capture, self.state.root.clone()) {
            self.traffic_view.traced = Some((index, None));
            self.worker.submit(Job::Trace {
                capture,
                index,
                root,
                options: self.state.options(),
            });
        }
    }

    /// The path typed in the open dialog.
    pub fn open_path(&self) -> &str {
        &self.open.path
    }

    /// What the open dialog says about the path last asked for.
    pub fn open_note(&self) -> Option<&str> {
        self.open.note.as_deref()
    }

    /// Escape: the innermost thing open closes (the open dialog, then the
    /// selected request's or fragment's detail).
    fn dismiss(&mut self) {
        if self.shortcuts_open {
            self.shortcuts_open = false;
        } else if self.agents_view.open {
            self.agents_view.open = false;
        } else if self.open.visible {
            self.open.visible = false;
        } else if self.state.tab == crate::ui::state::Tab::Traffic
            && self.traffic_view.selected.is_some()
        {
            self.traffic_view.selected = None;
        } else {
            self.state.selected = None;
        }
    }

    pub(crate) fn show_open_dialog(&mut self) {
        self.open.visible = true;
        self.open.focus = true;
        self.open.note = None;
        if self.open.path.is_empty()
            && let Some(r) = &self.state.root
        {
            self.open.path = r.display().to_string();
        }
    }

    /// Selects a fragment, and the line of its file its detail shows (a
    /// problem's), or none.
    fn select_line(&mut self, target: String, line: Option<usize>) {
        self.select(target);
        self.state.selected_line = line.map(|l| (l, true));
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

    /// What the prediction shown depends on: the prompt, the session, the
    /// model, the provider.
    fn prediction_key(&self) -> Option<u64> {
        let l = self.state.loaded.as_ref()?;
        let mut key = xxhash_rust::xxh3::xxh3_64(
            format!(
                "{:?}|{}|{}",
                self.state.provider, l.prepared.session, l.prepared.model.id
            )
            .as_bytes(),
        );
        for b in &l.assembly.blocks {
            key = key.rotate_left(5) ^ xxhash_rust::xxh3::xxh3_64(b.text.as_bytes());
        }
        Some(key ^ l.assembly.tools_tokens)
    }

    /// The prediction held (possibly of an earlier state: see
    /// [`App::prediction_is_current`]).
    pub fn prediction(&self) -> Option<&Prediction> {
        self.prediction.as_ref().map(|p| &p.1)
    }

    /// Asks the worker for the prediction of the current state when the one
    /// held is out of date (until it arrives the previous one is shown).
    pub fn request_prediction(&mut self) {
        let Some(key) = self.prediction_key() else {
            return;
        };
        let current = self.prediction.as_ref().map(|p| p.0) == Some(key);
        if !current
            && self.prediction_pending != Some(key)
            && let Some(l) = self.state.loaded.clone()
        {
            self.worker.submit(Job::Predict {
                key,
                inspection: Box::new(l),
                provider: self.state.provider,
            });
            self.prediction_pending = Some(key);
        }
    }

    /// Whether the prediction shown is that of the current state.
    pub fn prediction_is_current(&self) -> bool {
        self.prediction_key().is_some()
            && self.prediction.as_ref().map(|p| p.0) == self.prediction_key()
    }

    /// Starts the recording proxy with the Traffic tab's settings; the
    /// capture goes under the open workspace (else the current directory).
    fn start_proxy(&mut self) {
        let root = self.state.loaded.as_ref().map(|l| l.workspace.root.clone());
        let p = &mut self.traffic_view.proxy;
        if p.stop.is_none()
            && let Some(cfg) = p.config()
        {
            p.stop = Some(self.worker.start_proxy(cfg, root));
        }
    }

    fn start_test_run(&mut self) {
        let Some(ins) = self.inspection() else { return };
        // The Cache tab's caching rules, else the model's own (as `send`).
        let predict_with = self.state.provider;
        if let Some(job) =
            self.test_run
                .start(ins, predict_with, self.table.clone(), self.counter.clone())
        {
            self.worker.submit(Job::TestRun(Box::new(job)));
        }
    }
}

impl eframe::App for App {
    fn logic(&mut self, _ctx: &egui::Context, _frame: &mut eframe::Frame) {
        self.poll();
    }

    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, STORAGE_KEY, &self.state.persisted());
    }
}
