//! Long work off the UI thread: loading a workspace (reading, tokenizing the
//! fragments) runs on a worker thread that reports back through a channel and
//! asks egui for a repaint.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

use crate::engine::{self, ModelTable, Prepared, Settings, TokenCounter, Workspace};

pub enum Job {
    /// (Re)load the folder and prepare `session` with `model`.
    Load {
        root: PathBuf,
        session: Option<String>,
        model: Option<String>,
        generation: u64,
    },
    /// Prepare an already loaded workspace again (another session or model).
    Prepare {
        workspace: Arc<Workspace>,
        session: Option<String>,
        model: Option<String>,
        settings: Box<Settings>,
        generation: u64,
    },
}

pub enum Done {
    Progress(String),
    Loaded {
        generation: u64,
        workspace: Arc<Workspace>,
        prepared: Arc<Prepared>,
        millis: u128,
    },
    Prepared {
        generation: u64,
        prepared: Arc<Prepared>,
        millis: u128,
    },
    Failed {
        generation: u64,
        message: String,
    },
}

pub struct Worker {
    tx: Sender<Job>,
    pub rx: Receiver<Done>,
}

fn prepare(
    ws: &Workspace,
    session: Option<&str>,
    model: Option<&str>,
    settings: &Settings,
    table: &ModelTable,
    counter: &TokenCounter,
) -> Result<Prepared, String> {
    let s = engine::pick_session(ws, session).or_else(|_| engine::pick_session(ws, None))?;
    let model_id = model.or(s.model.as_deref()).or(settings.model.as_deref());
    let m = table.resolve(model_id);
    Ok(engine::prepare(ws, s, settings, m, counter))
}

impl Worker {
    pub fn spawn(ctx: egui::Context, counter: Arc<TokenCounter>, table: Arc<ModelTable>) -> Worker {
        let (tx, jobs) = channel::<Job>();
        let (done, rx) = channel::<Done>();
        std::thread::Builder::new()
            .name("prompt-inspector-worker".into())
            .spawn(move || {
                let send = |d: Done| {
                    let _ = done.send(d);
                    ctx.request_repaint();
                };
                while let Ok(mut job) = jobs.recv() {
                    // Only the newest queued job matters (bursts of file events).
                    while let Ok(newer) = jobs.try_recv() {
                        job = newer;
                    }
                    let t = Instant::now();
                    match job {
                        Job::Load {
                            root,
                            session,
                            model,
                            generation,
                        } => {
                            send(Done::Progress(format!("reading {}", root.display())));
                            let ws = match engine::workspace::load(&root) {
                                Ok(ws) => ws,
                                Err(message) => {
                                    send(Done::Failed {
                                        generation,
                                        message,
                                    });
                                    continue;
                                }
                            };
                            send(Done::Progress(format!(
                                "counting tokens of {} fragments",
                                ws.fragments.len()
                            )));
                            let settings = ws.settings.clone();
                            match prepare(
                                &ws,
                                session.as_deref(),
                                model.as_deref(),
                                &settings,
                                &table,
                                &counter,
                            ) {
                                Ok(p) => send(Done::Loaded {
                                    generation,
                                    workspace: Arc::new(ws),
                                    prepared: Arc::new(p),
                                    millis: t.elapsed().as_millis(),
                                }),
                                Err(message) => send(Done::Failed {
                                    generation,
                                    message,
                                }),
                            }
                        }
                        Job::Prepare {
                            workspace,
                            session,
                            model,
                            settings,
                            generation,
                        } => {
                            match prepare(
                                &workspace,
                                session.as_deref(),
                                model.as_deref(),
                                &settings,
                                &table,
                                &counter,
                            ) {
                                Ok(p) => send(Done::Prepared {
                                    generation,
                                    prepared: Arc::new(p),
                                    millis: t.elapsed().as_millis(),
                                }),
                                Err(message) => send(Done::Failed {
                                    generation,
                                    message,
                                }),
                            }
                        }
                    }
                }
            })
            .expect("spawn worker thread");
        Worker { tx, rx }
    }

    pub fn submit(&self, job: Job) {
        let _ = self.tx.send(job);
    }
}
