//! The Diff view's work and the snapshots it compares: the snapshot list
//! and the newest one's key asked of the worker, a snapshot saved, the two
//! chosen sides made into the worker's inputs; the first request copied
//! as its API's JSON.

use super::App;
use crate::ui::worker::{DiffInput, Job};

impl App {
    /// Copies the session's first request as its API's request JSON.
    pub(super) fn copy_request_json(&self) {
        if let Some(l) = &self.state.loaded {
            let body = l.first_request_body();
            self.ctx
                .copy_text(serde_json::to_string_pretty(&body).unwrap_or_default());
        }
    }

    /// The native folder picker, as a job (it blocks until answered).
    /// Asks the worker for the workspace's snapshot list and the newest
    /// one's content key (snapshots may be large: never read on this thread).
    pub fn refresh_snapshots(&mut self) {
        if let Some(root) = self.state.loaded.as_ref().map(|l| l.workspace.root.clone()) {
            self.worker.submit(Job::Snapshots(root));
        }
    }

    /// Saves a snapshot of the current state (Ctrl+S), as a job.
    pub fn save_snapshot(&mut self) {
        if let Some(ins) = self.inspection() {
            self.worker.submit(Job::Snapshot {
                inspection: Box::new(ins),
            });
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
        let live = crate::engine::compare::snapshot::Snapshot::content_key(
            &l.assembly.blocks,
            &l.assembly.fragments,
        );
        (live != *key).then(|| name.clone())
    }

    fn diff_input(&self, side: &crate::ui::diff::Side) -> Result<DiffInput, String> {
        use crate::ui::diff::Side;
        let ins = || {
            self.inspection()
                .ok_or_else(|| "nothing loaded".to_string())
        };
        Ok(match side {
            Side::Live => DiffInput::Inspection(Box::new(ins()?)),
            Side::Session(name) => DiffInput::Session {
                base: Box::new(ins()?),
                name: name.clone(),
            },
            Side::Snapshot(p) => DiffInput::File(p.clone()),
            Side::Request { capture, index } => DiffInput::Request {
                capture: capture.clone(),
                index: *index,
            },
        })
    }

    /// Asks the worker for the diff of the two chosen sides.
    pub fn compute_diff(&mut self) {
        self.diff_view.dirty = false;
        self.diff_view.generation += 1;
        let (a, b) = (self.diff_view.a.clone(), self.diff_view.b.clone());
        match (self.diff_input(&a), self.diff_input(&b)) {
            (Ok(x), Ok(y)) => {
                self.diff_view.pending = true;
                self.worker.submit(Job::Diff {
                    a: x,
                    b: y,
                    labels: (a.label(), b.label()),
                    generation: self.diff_view.generation,
                });
            }
            (Err(e), _) | (_, Err(e)) => self.diff_view.result = Some(Err(e)),
        }
    }
}
