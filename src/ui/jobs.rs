//! What the worker is asked ([`Job`]) and what it answers ([`Done`]), with
//! the parts of a job: a diff's sides, a folder to open, a test run.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

use crate::engine::cache::prediction::Prediction;
use crate::engine::cache::test_run::{self, Plan, Planned, TestRunRecord};
use crate::engine::compare::diff::Diff;
use crate::engine::traffic::{CaptureLine, Row, Totals};
use crate::engine::{self, Inspection, ModelInfo, ModelTable, Options, Provider, TokenCounter};
use crate::net::Endpoint;
use crate::net::test_run::{Progress, TestRunOptions};

use super::fonts::SystemFont;
use super::watch::Watcher;

/// A long job's handle, owned by the view that asked for it. Asking again
/// (a [`Handle::renew`]) cancels the one before: its work stops at its
/// next check, and its answer, named by its `id`, is dropped.
#[derive(Debug, Clone, Default)]
pub struct Ticket {
    pub id: u64,
    cancelled: Arc<AtomicBool>,
}

impl Ticket {
    pub fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
}

/// A view's tickets: at most one job of the view runs, the newest.
#[derive(Debug, Default)]
pub struct Handle {
    current: Option<Ticket>,
    issued: u64,
}

impl Handle {
    /// A new ticket; the one before is cancelled.
    pub fn renew(&mut self) -> Ticket {
        self.cancel();
        self.issued += 1;
        let t = Ticket {
            id: self.issued,
            cancelled: Arc::default(),
        };
        self.current = Some(t.clone());
        t
    }

    /// Cancels the running job, if any (its answer will be dropped).
    pub fn cancel(&mut self) {
        if let Some(t) = self.current.take() {
            t.cancelled.store(true, Ordering::Relaxed);
        }
    }

    /// Whether an answer named `id` is the running job's: taken once.
    pub fn answers(&mut self, id: u64) -> bool {
        let mine = self.current.as_ref().is_some_and(|t| t.id == id);
        if mine {
            self.current = None;
        }
        mine
    }

    /// Whether the answer named `id` is still awaited (a progress report).
    pub fn awaits(&self, id: u64) -> bool {
        self.current.as_ref().is_some_and(|t| t.id == id)
    }
}

/// One side of a diff, as the worker receives it.
pub enum DiffInput {
    /// An inspection as it is (the live state, or another session).
    Inspection(Box<Inspection>),
    /// A snapshot file.
    File(PathBuf),
    /// Request `index` (1-based) of a capture.
    Request { capture: PathBuf, index: usize },
    /// Another session of an inspection, assembled here (not on the UI
    /// thread).
    Session { base: Box<Inspection>, name: String },
}

/// Why a path is resolved to a folder: what the app does with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FolderAsk {
    /// Typed in the open dialog or picked: a folder, else a note.
    Typed,
    /// Dropped onto the window: a file stands for its folder.
    Dropped,
    /// The workspace of the last run: opened only if still a folder.
    Remembered,
    /// Named on the command line: opened whatever it is (loading says
    /// what is wrong).
    Given,
}

/// A test run to plan and execute: the requests are planned off the UI
/// thread (another session assembled, each request's prediction counted).
pub struct TestRunJob {
    pub endpoint: Endpoint,
    pub model: ModelInfo,
    pub inspection: Box<Inspection>,
    pub plan: Plan,
    /// The caching rules asked for (none: the model's own).
    pub predict_with: Option<Provider>,
    pub table: Arc<ModelTable>,
    pub counter: Arc<TokenCounter>,
    pub options: TestRunOptions,
    pub record: TestRunRecord,
    pub cancel: tokio::sync::watch::Receiver<bool>,
    pub root: PathBuf,
}

pub enum Job {
    /// (Re)load the folder and assemble the session asked for.
    Load {
        root: PathBuf,
        options: Options,
        generation: u64,
    },
    /// Assemble another session or model of the loaded workspace.
    Prepare {
        workspace: Arc<engine::Workspace>,
        options: Options,
        generation: u64,
    },
    Predict {
        key: u64,
        inspection: Box<Inspection>,
        provider: Option<Provider>,
    },
    /// Take a snapshot of the inspection and save it in its workspace.
    Snapshot {
        inspection: Box<Inspection>,
    },
    /// List the workspace's snapshots and read the newest one's key.
    Snapshots(PathBuf),
    Diff {
        a: DiffInput,
        b: DiffInput,
        labels: (String, String),
        generation: u64,
    },
    PickFolder,
    TestRun(Box<TestRunJob>),
    /// Read and explain a capture or a transcript (stopped when its
    /// ticket is cancelled).
    Traffic {
        path: PathBuf,
        ticket: Ticket,
    },
    /// Resolve a path to a folder (is it one, its canonical path): the UI
    /// thread touches no file.
    Folder {
        path: PathBuf,
        asked: FolderAsk,
    },
    /// Watch a workspace folder for live reload (a recursive watch walks
    /// the whole tree); each change sends on `tx`.
    Watch {
        root: PathBuf,
        tx: Sender<()>,
    },
    /// What the window looks for on disk once, at start: the bundled
    /// sample workspace and a system CJK font.
    Startup,
    /// Write a screenshot of the screenshot plan as a PNG.
    SaveShot {
        path: PathBuf,
        image: Arc<egui::ColorImage>,
    },
    /// The proxy started from the window records into a new capture: its
    /// exchanges are analysed from nothing.
    Follow,
    /// An exchange the proxy recorded: explained from the ones before it.
    /// An exchange the proxy recorded, and how many it recorded before it
    /// that the bounded feed could not carry.
    Recorded(Box<CaptureLine>, u64),
    /// Request `index` of `capture` traced back to the workspace at `root`
    /// (loaded with `options`), and its profile's rendering against it.
    Trace {
        capture: PathBuf,
        index: usize,
        root: PathBuf,
        options: Options,
    },
    /// Request `index` of `capture` as recorded: its body and its curl.
    RequestBody {
        capture: PathBuf,
        index: usize,
    },
    /// The sender's own parts learned from request `index` of `capture`,
    /// the files of the workspace at `root` left out, kept in the user's
    /// data folder.
    Learn {
        capture: PathBuf,
        index: usize,
        root: PathBuf,
        /// The data folder's `agents/` ([`crate::observed_dir`]).
        keep_in: PathBuf,
    },
}

pub enum TestRunMsg {
    /// The requests are planned: this many will be sent.
    Planned(usize),
    /// The run could not be planned (the second session does not assemble).
    Failed(String),
    Progress(Progress),
    Done(Box<TestRunRecord>, Option<String>),
}

pub enum Done {
    Progress(String),
    /// A load or a preparation finished (`fresh`: the folder was read).
    Assembled {
        generation: u64,
        inspection: Box<Inspection>,
        millis: u128,
        fresh: bool,
        /// What the window should say about it (a vanished session
        /// answered with the default one).
        notice: Option<String>,
    },
    Failed {
        generation: u64,
        message: String,
    },
    Predicted {
        key: u64,
        prediction: Box<Prediction>,
    },
    SnapshotSaved(Result<PathBuf, String>),
    /// A workspace's snapshots (newest first) and the newest one's
    /// session, content key and name.
    Snapshots {
        root: PathBuf,
        list: Vec<PathBuf>,
        latest: Option<(String, u64, String)>,
    },
    Diffed {
        generation: u64,
        result: Box<Result<Diff, String>>,
    },
    Picked(Option<PathBuf>),
    TestRun(TestRunMsg),
    /// A capture read (or its reading cancelled), by its ticket's id.
    Traffic {
        ticket: u64,
        result: Box<Result<crate::engine::traffic::Traffic, crate::engine::error::Error>>,
    },
    /// How far the traffic being read has come.
    TrafficProgress {
        ticket: u64,
        progress: crate::engine::traffic::Progress,
    },
    /// The next request of the capture being recorded, and the totals
    /// with it.
    /// Exchanges recorded in the capture that the live feed missed.
    FeedMissed(u64),
    Recorded {
        row: Box<Row>,
        totals: Box<Totals>,
    },
    /// The recording proxy listens on `addr` and records into `capture`.
    ProxyStarted {
        addr: std::net::SocketAddr,
        capture: PathBuf,
    },
    /// The proxy stopped (with the reason when it failed).
    ProxyStopped(Option<String>),
    /// The agent `run --window` started has ended: how, in a sentence.
    AgentEnded(String),
    /// A path resolved: canonical when it is a folder (a dropped file's
    /// folder in its place), else as given.
    Folder {
        asked: FolderAsk,
        path: PathBuf,
        is_dir: bool,
    },
    /// The live-reload watch of `root` (or why there is none).
    Watching {
        root: PathBuf,
        watcher: Result<Watcher, String>,
    },
    Startup {
        sample: Option<PathBuf>,
        font: Option<SystemFont>,
        /// The example workspaces beside the sample (`examples/*`).
        examples: Vec<PathBuf>,
    },
    /// A screenshot written (or why not).
    ShotSaved(Result<PathBuf, String>),
    /// The model table and the profiles' names, read by the worker first
    /// of all (before any job's result).
    Tables {
        table: Arc<ModelTable>,
        profiles: Vec<String>,
        /// What the folder views assume of each agent (the traffic views'
        /// release notice).
        assumed: Vec<crate::engine::traffic::release::Assumed>,
    },
    /// What was learned from a request (see [`Job::Learn`]), in a sentence.
    Learned {
        index: usize,
        result: Result<String, String>,
    },
    /// A request's body as recorded (see [`Job::RequestBody`]).
    RequestBody {
        index: usize,
        result: Box<Result<super::traffic::RequestText, String>>,
    },
    /// A request traced back to the workspace (see [`Job::Trace`]).
    Traced {
        index: usize,
        result: Box<Result<crate::engine::traffic::profile_check::Against, String>>,
    },
    /// The user's editor could not be started (why).
    EditorFailed(String),
}

/// The requests of a test run, each with its prediction; for a run that
/// goes on to another session, that session assembled first.
pub(super) fn plan_test_run(
    ins: &Inspection,
    plan: &Plan,
    rules_and_api: (Option<Provider>, crate::engine::request::Api),
    model: &ModelInfo,
    table: &ModelTable,
    counter: &TokenCounter,
) -> Result<Vec<Planned>, String> {
    let other = match plan {
        Plan::ThenSession(name) => Some(
            ins.other_session(name, table, counter)
                .map_err(|_| "choose the second session".to_string())?,
        ),
        _ => None,
    };
    Ok(test_run::plan(
        ins,
        other.as_deref(),
        plan,
        rules_and_api,
        model,
        counter,
    ))
}

/// The numbers of the lines the proxy wrote (`…-N`, one after another in
/// the file's order): a jump is lines the bounded feed could not carry.
#[derive(Default)]
pub struct Gap {
    last: Option<u64>,
}

impl Gap {
    /// How many lines were skipped before the one numbered in `id`.
    pub fn next(&mut self, id: &str) -> u64 {
        let Some(n) = id.rsplit('-').next().and_then(|n| n.parse::<u64>().ok()) else {
            return 0;
        };
        let missed = self.last.map_or(0, |l| n.saturating_sub(l + 1));
        self.last = Some(n);
        missed
    }
}

#[cfg(test)]
mod tests {
    use super::Gap;

    #[test]
    fn a_jump_in_the_line_numbers_is_what_the_feed_missed() {
        let mut g = Gap::default();
        assert_eq!(g.next("2026-12-03T10:00:00.000Z-5a6096cf-1"), 0);
        assert_eq!(g.next("2026-12-03T10:00:00.100Z-5a6096cf-2"), 0);
        assert_eq!(g.next("2026-12-03T10:00:00.900Z-5a6096cf-7"), 4);
        assert_eq!(g.next("not numbered"), 0);
    }
}
