//! The App's tabs and actions: prompt, cache, test run, diff and
//! snapshots, and the open dialog.

use std::path::PathBuf;
use std::sync::mpsc::channel;

use egui::{Key, Ui};

use super::app::App;
use super::prompt;

impl App {
    /// What the prediction shown depends on: the prompt, the session, the
    /// model, the provider.
    fn prediction_key(&self) -> Option<u64> {
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
        Some(key ^ l.assembly.tools_tokens as u64)
    }

    /// The prediction of the current state. It is computed on a background
    /// thread (tens of milliseconds on a large workspace); until it arrives
    /// the previous one is shown.
    pub fn prediction(&mut self) -> Option<&crate::engine::prediction::Prediction> {
        let key = self.prediction_key()?;
        if let Some((k, rx)) = &self.prediction_job
            && let Ok(p) = rx.try_recv()
        {
            self.prediction = Some((*k, p));
            self.prediction_job = None;
        }
        let current = self.prediction.as_ref().map(|p| p.0) == Some(key);
        if !current && self.prediction_job.is_none() {
            let l = self.state.loaded.as_ref()?;
            let session = l
                .workspace
                .session(&l.prepared.session)
                .unwrap_or_else(|| l.workspace.default_session())
                .clone();
            let (assembly, prepared, provider, counter) = (
                l.assembly.clone(),
                l.prepared.clone(),
                self.cache_view.provider,
                self.counter.clone(),
            );
            let (tx, rx) = channel();
            let ctx = self.ctx.clone();
            std::thread::spawn(move || {
                let p = crate::engine::prediction::predict_for(
                    &assembly, &prepared, &session, provider, &counter,
                );
                let _ = tx.send(p);
                ctx.request_repaint();
            });
            self.prediction_job = Some((key, rx));
        }
        self.prediction.as_ref().map(|p| &p.1)
    }

    /// Whether the prediction shown is that of the current state.
    pub fn prediction_is_current(&self) -> bool {
        self.prediction_key().is_some()
            && self.prediction.as_ref().map(|p| p.0) == self.prediction_key()
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

    /// Another session of `ins`'s workspace, assembled with the window's
    /// current settings and budget.
    fn inspect_session(
        &self,
        ins: &crate::engine::Inspection,
        name: &str,
    ) -> Option<crate::engine::Inspection> {
        let s = ins.workspace.session(name)?;
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
    }

    /// Names of the open workspace's sessions.
    pub fn session_names(&self) -> Vec<String> {
        let Some(l) = &self.state.loaded else {
            return Vec::new();
        };
        l.workspace
            .sessions
            .iter()
            .map(|s| s.name.clone())
            .collect()
    }

    pub(crate) fn run_tab(&mut self, ui: &mut Ui) {
        let sessions = self.session_names();
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
            let Some(o) = self.inspect_session(&ins, &self.run_panel.then_session) else {
                self.run_panel.status = "choose the second session".into();
                return;
            };
            Some(o)
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
        match snap.save_new(&ins.workspace.root) {
            Ok(path) => {
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

    pub(crate) fn side_snapshot(
        &self,
        side: &super::diff::Side,
    ) -> Result<crate::engine::snapshot::Snapshot, String> {
        let ins = self.inspection().ok_or("no workspace is open")?;
        match side {
            super::diff::Side::Live => {
                Ok(crate::engine::snapshot::Snapshot::take(&ins, &self.counter))
            }
            super::diff::Side::Session(name) => {
                let other = self
                    .inspect_session(&ins, name)
                    .ok_or_else(|| format!("no session {name}"))?;
                Ok(crate::engine::snapshot::Snapshot::take(
                    &other,
                    &self.counter,
                ))
            }
            super::diff::Side::Snapshot(p) => crate::engine::snapshot::Snapshot::load(p),
        }
    }

    pub(crate) fn diff_tab(&mut self, ui: &mut Ui) {
        let sessions = self.session_names();
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

    pub(crate) fn cache_tab(&mut self, ui: &mut Ui) {
        if self.prediction().is_none() {
            ui.spinner();
            ui.label("predicting…");
            return;
        }
        let Some((_, p)) = &self.prediction else {
            return;
        };
        if let Some(prov) = super::cache::show(ui, &mut self.cache_view, p) {
            self.cache_view.provider = prov;
        }
    }

    pub(crate) fn prompt_tab(&mut self, ui: &mut Ui) {
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

    pub(crate) fn open_dialog(&mut self, ctx: &egui::Context) {
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

    pub(crate) fn status_bar(&mut self, ui: &mut Ui) {
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
}
