//! Long work and every file-system call off the UI thread, as named jobs of
//! one worker: loading and preparing a workspace, predicting, taking a
//! snapshot, diffing, reading a capture, explaining each exchange the
//! window's proxy records, the folder picker, test runs, resolving a folder
//! to open, the live-reload watch, what the window looks for at start (the
//! sample, a system font) and writing screenshots. Results come back
//! through one channel, each with a repaint request; the UI never blocks.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use crate::engine::cache::prediction;
use crate::engine::cache::test_run;
use crate::engine::compare::diff::{self, Diff};
use crate::engine::compare::snapshot::Snapshot;
use crate::engine::traffic::Analyser;
use crate::engine::{self, Inspection, ModelTable, Options, TokenCounter};

use super::watch::Watcher;

use super::folders::{example_workspaces, folder, sample_workspace};
pub use super::jobs::{DiffInput, Done, FolderAsk, Handle, Job, TestRunJob, TestRunMsg, Ticket};
use super::jobs::{Gap, plan_test_run};

mod traffic_jobs;

pub struct Worker {
    tx: Sender<Job>,
    pub rx: Receiver<Done>,
    done: Sender<Done>,
    ctx: egui::Context,
    /// The app's one tokio runtime (test runs, the recording proxy), built
    /// on first use.
    runtime: std::sync::OnceLock<Result<tokio::runtime::Runtime, String>>,
}

/// What the worker thread holds.
struct Shared {
    counter: Arc<TokenCounter>,
    table: Arc<ModelTable>,
    done: Sender<Done>,
    ctx: egui::Context,
    /// The analysis of the capture the proxy records, request by request.
    live: Analyser,
}

impl Shared {
    fn send(&self, d: Done) {
        let _ = self.done.send(d);
        self.ctx.request_repaint();
    }

    fn load(&self, root: PathBuf, options: Options, generation: u64) {
        let t = Instant::now();
        self.send(Done::Progress(format!("reading {}", root.display())));
        let result = engine::load_workspace(&root, &options).and_then(|ws| {
            self.send(Done::Progress(format!(
                "counting tokens of {} fragments",
                ws.fragments.len()
            )));
            self.assemble(Arc::new(ws), &options)
        });
        self.deliver(result, generation, t, true);
    }

    fn prepare(&self, workspace: Arc<engine::Workspace>, options: Options, generation: u64) {
        let t = Instant::now();
        let result = self.assemble(workspace, &options);
        self.deliver(result, generation, t, false);
    }

    fn deliver(
        &self,
        result: Result<(Inspection, Option<String>), engine::error::Error>,
        generation: u64,
        t: Instant,
        fresh: bool,
    ) {
        self.send(match result {
            Ok((ins, notice)) => Done::Assembled {
                generation,
                inspection: Box::new(ins),
                millis: t.elapsed().as_millis(),
                fresh,
                notice,
            },
            Err(e) => Done::Failed {
                generation,
                message: e.to_string(),
            },
        });
    }

    /// The one road. Only a session that vanished (a reload removed its
    /// file) is answered with the default one, and the window says so;
    /// any other failure is a failed load with its reason.
    fn assemble(
        &self,
        ws: Arc<engine::Workspace>,
        options: &Options,
    ) -> Result<(Inspection, Option<String>), engine::error::Error> {
        match Inspection::new(ws.clone(), options, &self.table, &self.counter) {
            Err(e) if e.is_unknown_session() => {
                let fallback = Options {
                    session: None,
                    ..options.clone()
                };
                let ins = Inspection::new(ws, &fallback, &self.table, &self.counter)?;
                let notice = format!("{e}: showing '{}'", ins.prepared.session);
                Ok((ins, Some(notice)))
            }
            other => other.map(|ins| (ins, None)),
        }
    }

    fn snapshot_of(&self, input: DiffInput) -> Result<Snapshot, String> {
        match input {
            DiffInput::Inspection(ins) => Ok(crate::snapshot_now(&ins, &self.counter)),
            DiffInput::File(p) => Ok(Snapshot::load(&p)?),
            // The capture read as the Traffic tab reads it.
            DiffInput::Request { capture, index } => {
                crate::opencode_db::read_exchanges(&capture, &[index])
                    .and_then(|(_, x, _)| {
                        crate::engine::traffic::snapshot_at(&x, index, &self.counter, &self.table)
                            .map_err(|e| {
                                crate::engine::error::Error::file(capture.display(), e.to_string())
                            })
                    })
                    .map_err(String::from)
            }
            DiffInput::Session { base, name } => Ok(base
                .other_session(&name, &self.table, &self.counter)
                .map(|ins| crate::snapshot_now(&ins, &self.counter))?),
        }
    }

    /// A diff's two sides compared; two requests of one capture with the
    /// provider's cause, as `traffic --diff` says it.
    fn diff(&self, a: DiffInput, b: DiffInput, labels: &(String, String)) -> Result<Diff, String> {
        match (a, b) {
            (
                DiffInput::Request { capture, index: ia },
                DiffInput::Request {
                    capture: cb,
                    index: ib,
                },
            ) if capture == cb => crate::opencode_db::read_exchanges(&capture, &[ia, ib])
                .and_then(|(_, x, _)| {
                    crate::engine::traffic::diff_between(&x, ia, ib, &self.counter, &self.table)
                        .map_err(|e| {
                            crate::engine::error::Error::file(capture.display(), e.to_string())
                        })
                })
                .map_err(String::from),
            (a, b) => match (self.snapshot_of(a), self.snapshot_of(b)) {
                (Ok(x), Ok(y)) => {
                    let minimum = self.table.resolve(Some(&y.model)).min_cacheable_tokens;
                    Ok(diff::diff(&x, &y, (&labels.0, &labels.1), minimum))
                }
                (Err(e), _) | (_, Err(e)) => Err(e),
            },
        }
    }

    fn run(&mut self, job: Job) {
        match job {
            Job::Load {
                root,
                options,
                generation,
            } => self.load(root, options, generation),
            Job::Prepare {
                workspace,
                options,
                generation,
            } => self.prepare(workspace, options, generation),
            Job::Predict {
                key,
                inspection,
                provider,
            } => {
                let p = prediction::predict(&inspection, provider, &self.counter);
                self.send(Done::Predicted {
                    key,
                    prediction: Box::new(p),
                });
            }
            Job::Snapshots(root) => self.snapshots(root),
            Job::Snapshot { inspection } => {
                let snap = crate::snapshot_now(&inspection, &self.counter);
                self.send(Done::SnapshotSaved(
                    snap.save_new(&inspection.workspace.root)
                        .map_err(String::from),
                ));
            }
            Job::Diff {
                a,
                b,
                labels,
                generation,
            } => {
                let result = self
                    .diff(a, b, &labels)
                    .map(traffic_jobs::key_shapes_redacted);
                self.send(Done::Diffed {
                    generation,
                    result: Box::new(result),
                });
            }
            Job::Traffic { path, ticket } => self.traffic(&path, &ticket),
            Job::Follow => self.live = Analyser::default(),
            Job::Recorded(line, missed) => self.recorded(*line, missed),
            Job::Trace {
                capture,
                index,
                root,
                options,
            } => self.trace(&capture, index, &root, &options),
            Job::RequestBody { capture, index } => self.request_body(&capture, index),
            Job::Learn {
                capture,
                index,
                root,
                keep_in,
            } => self.learn(&capture, index, &root, &keep_in),
            // Jobs that wait on a person or a network run on their own thread.
            Job::PickFolder | Job::TestRun(_) => {}
            Job::Folder { path, asked } => self.send(folder(path, asked)),
            Job::Watch { root, tx } => {
                let watcher = Watcher::start(&root, self.ctx.clone(), tx);
                self.send(Done::Watching { root, watcher });
            }
            Job::Startup => self.startup(),
            Job::SaveShot { path, image } => self.send(Done::ShotSaved(save_png(&path, &image))),
        }
    }

    /// A line the live proxy recorded, explained after those before it;
    /// the lines the feed could not carry said first.
    fn recorded(&mut self, line: crate::engine::traffic::CaptureLine, missed: u64) {
        if missed > 0 {
            self.send(Done::FeedMissed(missed));
        }
        if let Some(row) = self.live.push_line(line, &self.table, &self.counter) {
            self.send(Done::Recorded {
                row: Box::new(row),
                totals: Box::new(self.live.totals()),
            });
        }
    }

    /// The workspace's snapshots, newest first, and the newest one's
    /// session, content key and name.
    fn snapshots(&self, root: PathBuf) {
        use crate::engine::compare::snapshot::Snapshot;
        let list = crate::engine::workspace::store::list_files(&root, "snapshots", "json");
        let latest = list.first().and_then(|p| {
            let s = Snapshot::load(p).ok()?;
            let name = p.file_stem()?.to_string_lossy().into_owned();
            Some((
                s.session.clone(),
                Snapshot::content_key(&s.blocks, &s.fragments),
                name,
            ))
        });
        self.send(Done::Snapshots { root, list, latest });
    }

    /// What the window looks for at start: the sample, the examples beside
    /// it, a system font.
    fn startup(&self) {
        let sample = sample_workspace();
        let examples = sample
            .as_deref()
            .map(example_workspaces)
            .unwrap_or_default();
        self.send(Done::Startup {
            sample,
            font: super::fonts::read_system(),
            examples,
        })
    }
}

/// Writes `image` as a PNG at `path` (its folder made if need be).
fn save_png(path: &Path, image: &egui::ColorImage) -> Result<PathBuf, String> {
    let fail = |e: String| format!("cannot write {}: {e}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
    }
    let [w, h] = image.size;
    let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
    let buf = image::RgbaImage::from_raw(w as u32, h as u32, bytes)
        .ok_or_else(|| "screenshot had an unexpected size".to_string())?;
    buf.save(path).map_err(|e| fail(e.to_string()))?;
    Ok(path.to_path_buf())
}

/// A Load or Prepare superseded by a newer one need not run.
fn superseded(job: &Job, next: &Job) -> bool {
    matches!(job, Job::Load { .. } | Job::Prepare { .. })
        && matches!(next, Job::Load { .. } | Job::Prepare { .. })
}

impl Worker {
    /// The worker thread; it reads the model table and the profiles
    /// first (files the user may name) and sends them as [`Done::Tables`].
    pub fn spawn(ctx: egui::Context, counter: Arc<TokenCounter>) -> Worker {
        let (tx, jobs) = channel::<Job>();
        let (done, rx) = channel::<Done>();
        let (shared_done, shared_ctx) = (done.clone(), ctx.clone());
        std::thread::Builder::new()
            .name("prompt-inspector-worker".into())
            .spawn(move || {
                let table =
                    Arc::new(crate::model_table().unwrap_or_else(|_| ModelTable::bundled()));
                let loaded = crate::profiles()
                    .unwrap_or_else(|_| engine::workspace::profiles::Profiles::bundled());
                let assumed = engine::traffic::release::assumed(&loaded);
                let profiles = loaded.ids();
                let mut shared = Shared {
                    counter,
                    table: table.clone(),
                    done: shared_done,
                    ctx: shared_ctx,
                    live: Analyser::default(),
                };
                shared.send(Done::Tables {
                    table,
                    profiles,
                    assumed,
                });
                let mut pending: Option<Job> = None;
                loop {
                    let job = match pending.take() {
                        Some(j) => j,
                        None => match jobs.recv() {
                            Ok(j) => j,
                            Err(_) => break,
                        },
                    };
                    // Only the newest of a burst of loads matters (file events).
                    let mut job = job;
                    while let Ok(next) = jobs.try_recv() {
                        if superseded(&job, &next) {
                            job = next;
                        } else {
                            pending = Some(next);
                            break;
                        }
                    }
                    shared.run(job);
                }
            })
            .expect("spawn worker thread");
        Worker {
            tx,
            rx,
            done,
            ctx,
            runtime: std::sync::OnceLock::new(),
        }
    }

    /// The results channel, for work started elsewhere (the editor).
    pub fn done_sender(&self) -> Sender<Done> {
        self.done.clone()
    }

    pub fn submit(&self, job: Job) {
        match job {
            Job::PickFolder => self.spawn_side(|| {
                Done::Picked(
                    rfd::FileDialog::new()
                        .set_title("Open a workspace folder")
                        .pick_folder(),
                )
            }),
            Job::TestRun(run) => self.spawn_test_run(*run),
            other => {
                let _ = self.tx.send(other);
            }
        }
    }

    /// A job that blocks (a dialog): its own named thread, the shared channel.
    fn spawn_side(&self, f: impl FnOnce() -> Done + Send + 'static) {
        let (done, ctx) = (self.done.clone(), self.ctx.clone());
        let spawned = std::thread::Builder::new()
            .name("prompt-inspector-dialog".into())
            .spawn(move || {
                let _ = done.send(f());
                ctx.request_repaint();
            });
        if spawned.is_err() {
            self.send_done(Done::Picked(None));
        }
    }

    fn send_done(&self, d: Done) {
        let _ = self.done.send(d);
        self.ctx.request_repaint();
    }

    /// Waits off the UI thread for the agent `run --window` started; says
    /// how it ended (`Done::AgentEnded`). Its files live until then.
    pub fn wait_for_agent(&self, agent: String, started: super::live_run::Started) {
        let (done, ctx) = (self.done.clone(), self.ctx.clone());
        let _ = std::thread::Builder::new()
            .name("prompt-inspector-agent".into())
            .spawn(move || {
                let super::live_run::Started { mut child, keep } = started;
                let how = match child.wait() {
                    Ok(s) => match (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)) {
                        (Some(c), _) => format!("{agent} exited with code {c}; the proxy still records until you stop it"),
                        (None, Some(sig)) => format!("{agent} ended by signal {sig}; the proxy still records until you stop it"),
                        _ => format!("{agent} ended"),
                    },
                    Err(e) => format!("{agent}: cannot wait for it: {e}"),
                };
                drop(keep);
                let _ = done.send(Done::AgentEnded(how));
                ctx.request_repaint();
            });
    }

    /// The terminal's Ctrl-C is the agent's (it shares the terminal): this
    /// process catches it and goes on (a caught signal is not inherited,
    /// so the agent still gets its own).
    pub fn catch_interrupts(&self) {
        if let Ok(rt) = self.runtime() {
            rt.spawn(async {
                use tokio::signal::unix::{SignalKind, signal};
                if let Ok(mut s) = signal(SignalKind::interrupt()) {
                    while s.recv().await.is_some() {}
                }
            });
        }
    }

    /// The app's one tokio runtime, built on first use (two named workers).
    fn runtime(&self) -> Result<&tokio::runtime::Runtime, String> {
        self.runtime
            .get_or_init(|| {
                tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .thread_name("prompt-inspector-net")
                    .enable_all()
                    .build()
                    .map_err(|e| format!("no async runtime: {e}"))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn spawn_test_run(&self, run: TestRunJob) {
        let (done, ctx) = (self.done.clone(), self.ctx.clone());
        let rt = match self.runtime() {
            Ok(rt) => rt,
            Err(e) => {
                let mut rec = run.record;
                rec.cancelled = true;
                return self.send_done(Done::TestRun(TestRunMsg::Done(Box::new(rec), Some(e))));
            }
        };
        rt.spawn(async move {
            let report = |m: TestRunMsg| {
                let _ = done.send(Done::TestRun(m));
                ctx.request_repaint();
            };
            // Predicted with the rules asked for, sent in the endpoint's API.
            let (ins, plan, rules, model) = (
                run.inspection,
                run.plan,
                (run.predict_with, run.endpoint.provider.api()),
                run.model.clone(),
            );
            let (table, counter) = (run.table, run.counter);
            let planning = tokio::task::spawn_blocking(move || {
                plan_test_run(&ins, &plan, rules, &model, &table, &counter)
            })
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
            let planned = match planning {
                Ok(p) => p,
                Err(e) => return report(TestRunMsg::Failed(e)),
            };
            report(TestRunMsg::Planned(planned.len()));
            let progress_done = done.clone();
            let c = ctx.clone();
            let rec = crate::net::test_run::execute(
                &run.endpoint,
                &run.model,
                &planned,
                &run.options,
                run.cancel,
                move |p| {
                    let _ = progress_done.send(Done::TestRun(TestRunMsg::Progress(p)));
                    c.request_repaint();
                },
                run.record,
            )
            .await;
            let saved = test_run::save(&run.root, &rec)
                .ok()
                .map(|p| p.display().to_string());
            let _ = done.send(Done::TestRun(TestRunMsg::Done(Box::new(rec), saved)));
            ctx.request_repaint();
        });
    }

    /// Starts the recording proxy on the app's tokio runtime. Each exchange
    /// it records comes over a channel as its line is written and goes to
    /// this worker (`Job::Recorded`), which explains it from the ones
    /// before it and hands the row to the Traffic tab: the capture is never
    /// read again. Dropping or sending `true` on the returned sender stops
    /// the proxy. Its capture is created here, off the UI thread: a new
    /// file under `workspace`'s state folder (else the current directory).
    pub fn start_proxy(
        &self,
        mut cfg: crate::net::proxy::ProxyConfig,
        workspace: Option<PathBuf>,
    ) -> tokio::sync::watch::Sender<bool> {
        let (stop, stop_rx) = tokio::sync::watch::channel(false);
        let (done, ctx, jobs) = (self.done.clone(), self.ctx.clone(), self.tx.clone());
        let rt = match self.runtime() {
            Ok(rt) => rt,
            Err(e) => {
                self.send_done(Done::ProxyStopped(Some(e)));
                return stop;
            }
        };
        let (recorded, mut exchanges) =
            tokio::sync::mpsc::channel(crate::net::proxy::FEED_CAPACITY);
        cfg.recorded = Some(recorded);
        let _ = jobs.send(Job::Follow);
        let mut gap = Gap::default();
        rt.spawn(async move {
            let report = |d: Done| {
                let _ = done.send(d);
                ctx.request_repaint();
            };
            // A capture already named (`run --window`) is used as it is.
            let named = Some(cfg.capture.clone()).filter(|c| !c.as_os_str().is_empty());
            let created = tokio::task::spawn_blocking(move || match named {
                Some(c) => Ok(c),
                None => crate::net::proxy::default_capture(workspace.as_deref(), crate::unix_now())
                    .map_err(String::from),
            })
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
            let capture = match created {
                Ok(c) => c,
                Err(e) => return report(Done::ProxyStopped(Some(e))),
            };
            cfg.capture = capture.clone();
            let mut watch_stop = stop_rx.clone();
            let result = async move {
                let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
                let server = tokio::spawn(crate::net::proxy::serve(cfg, ready_tx, stop_rx));
                if let Ok(addr) = ready_rx.await {
                    report(Done::ProxyStarted { addr, capture });
                    loop {
                        tokio::select! {
                            line = exchanges.recv() => match line {
                                Some(l) => {
                                    let missed = gap.next(&l.id);
                                    let _ = jobs.send(Job::Recorded(Box::new(l), missed));
                                }
                                // The proxy is gone (and every exchange with it).
                                None => break,
                            },
                            _ = watch_stop.changed() => break,
                        }
                    }
                    // Exchanges recorded before the stop still go to the tab.
                    while let Ok(l) = exchanges.try_recv() {
                        let missed = gap.next(&l.id);
                        let _ = jobs.send(Job::Recorded(Box::new(l), missed));
                    }
                }
                server
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|r| r.map_err(String::from))
            }
            .await;
            report(Done::ProxyStopped(result.err()));
        });
        stop
    }
}
