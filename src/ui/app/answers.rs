//! What the window does with the worker's answers ([`Done`]) and the
//! watcher's changes, as they arrive.

use std::path::PathBuf;

use super::App;
use crate::ui::command::Command;
use crate::ui::diff::Side;
use crate::ui::fonts;
use crate::ui::worker::{Done, FolderAsk};

impl App {
    /// Applies what the worker and the watcher reported.
    pub fn poll(&mut self) {
        let mut reload = false;
        while self.watch_rx.try_recv().is_ok() {
            reload = true;
        }
        if reload && self.state.root.is_some() {
            self.reload();
        }
        while let Ok(done) = self.worker.rx.try_recv() {
            self.on_done(done);
        }
    }

    /// The current load's inspection: shown, with what the worker said of
    /// it; a fresh load also re-reads the snapshots and the diff.
    fn on_assembled(
        &mut self,
        inspection: crate::engine::Inspection,
        millis: u128,
        fresh: bool,
        notice: Option<String>,
    ) {
        self.state.last_load_ms = millis;
        self.state.apply_inspection(inspection, &self.counter);
        if notice.is_some() {
            self.state.notice = notice;
        }
        if fresh {
            self.refresh_snapshots();
            self.diff_view.dirty = true;
        }
    }

    fn on_done(&mut self, done: Done) {
        match done {
            Done::Progress(msg) => {
                if self.state.busy.is_some() {
                    self.state.busy = Some(msg);
                }
            }
            Done::Assembled {
                generation,
                inspection,
                millis,
                fresh,
                notice,
            } if generation == self.state.generation => {
                self.on_assembled(*inspection, millis, fresh, notice);
            }
            Done::Failed {
                generation,
                message,
            } if generation == self.state.generation => {
                self.state.busy = None;
                self.state.error = Some(message);
            }
            Done::Assembled { .. } | Done::Failed { .. } => {}
            Done::Predicted { key, prediction } => {
                if self.prediction_pending == Some(key) {
                    self.prediction_pending = None;
                }
                self.prediction = Some((key, *prediction));
            }
            Done::Snapshots { root, list, latest } => {
                // Only the workspace still open.
                if self.state.loaded.as_ref().map(|l| &l.workspace.root) == Some(&root) {
                    self.snapshots = list;
                    self.latest_snapshot = latest;
                }
            }
            Done::SnapshotSaved(Ok(path)) => self.on_snapshot_saved(path),
            Done::SnapshotSaved(Err(e)) => {
                self.state.error = Some(format!("snapshot not saved: {e}"));
            }
            Done::Diffed { generation, result } if generation == self.diff_view.generation => {
                self.diff_view.pending = false;
                self.diff_view.result = Some(*result);
            }
            Done::Diffed { .. } => {}
            Done::Picked(choice) => self.on_picked(choice),
            Done::TestRun(msg) => self.test_run.apply(msg),
            d @ (Done::Traffic { .. }
            | Done::TrafficProgress { .. }
            | Done::Recorded { .. }
            | Done::FeedMissed(_)
            | Done::Learned { .. }
            | Done::RequestBody { .. }
            | Done::Traced { .. }
            | Done::ProxyStarted { .. }
            | Done::AgentEnded(_)
            | Done::ProxyStopped(_)) => self.on_traffic_done(d),
            Done::Folder {
                asked,
                path,
                is_dir,
            } => self.on_folder(asked, path, is_dir),
            d @ (Done::Watching { .. } | Done::Startup { .. } | Done::Tables { .. }) => {
                self.on_setup_done(d)
            }
            Done::ShotSaved(result) => {
                if let Some(plan) = &mut self.shots {
                    plan.saved(result);
                }
            }
            Done::EditorFailed(message) => self.state.error = Some(message),
        }
    }

    /// What the app is set up with: the watcher of the open folder, what
    /// start-up found (the sample, a font, the examples), the model and
    /// profile tables.
    fn on_setup_done(&mut self, done: Done) {
        match done {
            Done::Watching { root, watcher } => {
                if self.state.root.as_ref() == Some(&root) {
                    match watcher {
                        Ok(w) => self.watcher = Some(w),
                        Err(e) => self.state.error = Some(format!("live reload is off: {e}")),
                    }
                }
            }
            Done::Startup {
                sample,
                font,
                examples,
            } => {
                self.sample = sample;
                self.examples = examples;
                if font.is_some() {
                    fonts::install(&self.ctx, font);
                }
            }
            Done::Tables {
                table,
                profiles,
                assumed,
            } => {
                self.table = table;
                self.profiles = profiles;
                self.traffic_view.assumed = assumed;
            }
            // Not set-up: the others' own answers.
            other => self.on_done(other),
        }
    }

    /// The Traffic tab's answers: a capture read and its progress, the
    /// live proxy's rows, the selected request's body, trace and learning.
    fn on_traffic_done(&mut self, done: Done) {
        match done {
            Done::Traffic { ticket, result } => self.traffic_view.read(ticket, *result),
            Done::TrafficProgress { ticket, progress }
                if self.traffic_view.reading.awaits(ticket) =>
            {
                self.traffic_view.progress = Some(progress);
            }
            Done::Recorded { row, totals } => self.traffic_view.recorded(*row, *totals),
            Done::FeedMissed(n) => self.traffic_view.missed += n,
            Done::Learned { index, result } => {
                let learned = result.is_ok();
                self.traffic_view.learned = Some((index, result));
                // The folder's views take the parts just learned.
                if learned {
                    self.reload();
                }
            }
            // Only the selected request's body and trace are kept.
            Done::RequestBody { index, result } if self.traffic_view.selected == Some(index) => {
                self.traffic_view.body = Some((index, *result));
            }
            Done::Traced { index, result } if self.traffic_view.selected == Some(index) => {
                self.traffic_view.traced = Some((index, Some(*result)));
            }
            Done::ProxyStarted { addr, capture } => {
                self.traffic_view.proxy_started(addr, capture);
                self.launch_agent(addr);
            }
            Done::AgentEnded(how) => self.traffic_view.proxy.agent = Some(how),
            Done::ProxyStopped(error) => self.traffic_view.proxy.stopped(error),
            // A stale progress, body or trace, and the other answers
            // (`on_done` takes those).
            _ => {}
        }
    }

    /// The folder picker closed: the folder chosen is opened.
    fn on_picked(&mut self, choice: Option<PathBuf>) {
        self.open.picking = false;
        match choice {
            Some(p) => self.apply(Command::Open(p)),
            None => {
                self.open.note = Some(
                    "No folder was chosen. If no dialog appeared, this desktop offers no file dialog: type the folder's path above."
                        .into(),
                )
            }
        }
    }

    /// A snapshot was saved: the Diff tab compares it with the live state.
    fn on_snapshot_saved(&mut self, path: PathBuf) {
        self.state.error = None;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        self.state.notice = Some(format!(
            "Snapshot saved: {} (in {})",
            name.unwrap_or_default(),
            path.parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ));
        self.refresh_snapshots();
        // The new snapshot against the live state.
        self.diff_view.a = Side::Snapshot(path);
        self.diff_view.b = Side::Live;
        self.diff_view.dirty = true;
    }

    /// A path the worker resolved: opened when it is a folder (or named on
    /// the command line), else a note in the open dialog.
    fn on_folder(&mut self, asked: FolderAsk, path: PathBuf, is_dir: bool) {
        match asked {
            _ if is_dir => {
                self.open.visible = false;
                self.open(path);
            }
            // Not opened, not remembered: one plain sentence.
            FolderAsk::Given => {
                self.state.error = Some(format!("There is no folder at {}.", path.display()));
            }
            FolderAsk::Remembered => {}
            FolderAsk::Typed | FolderAsk::Dropped => {
                self.open.note = Some(format!("There is no folder at {}.", path.display()));
            }
        }
    }
}
