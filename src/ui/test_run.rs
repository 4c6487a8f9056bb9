//! The test-run panel: send the assembled requests to a provider (or a local
//! server), with progress and cancel, and put real usage beside the
//! prediction. The run is a job of the worker; the UI never waits.

use std::sync::Arc;

use egui::{RichText, Ui};

use super::command::Command;
use super::worker::{TestRunJob, TestRunMsg};
use crate::engine::cache::test_run::{Plan, TestRunRecord, TestRunRow};
use crate::engine::{Inspection, ModelTable, Provider, TokenCounter};
use crate::net::test_run::{Progress, TestRunOptions};
use crate::net::{ApiKey, Endpoint};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlanKind {
    Session,
    Repeat,
    ThenSession,
}

struct Running {
    cancel: tokio::sync::watch::Sender<bool>,
    total: usize,
}

pub struct TestRunPanel {
    pub api: Provider,
    pub base_url: String,
    /// Typed key: memory only, never persisted, shown masked.
    key_input: String,
    pub plan: PlanKind,
    pub repeat: usize,
    pub then_session: String,
    pub honour_gaps: bool,
    running: Option<Running>,
    pub status: String,
    pub done: usize,
    pub rows: Vec<TestRunRow>,
    pub record: Option<TestRunRecord>,
    pub saved: Option<String>,
}

impl Default for TestRunPanel {
    fn default() -> Self {
        TestRunPanel {
            api: Provider::Anthropic,
            base_url: String::new(),
            key_input: String::new(),
            plan: PlanKind::Session,
            repeat: 3,
            then_session: String::new(),
            honour_gaps: false,
            running: None,
            status: String::new(),
            done: 0,
            rows: Vec::new(),
            record: None,
            saved: None,
        }
    }
}

impl TestRunPanel {
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    fn key(&self) -> Option<ApiKey> {
        ApiKey::new(&self.key_input).or_else(|| ApiKey::from_env(self.api))
    }

    /// Applies what the run job reported.
    pub fn apply(&mut self, msg: TestRunMsg) {
        let Some(r) = &mut self.running else { return };
        match msg {
            TestRunMsg::Planned(total) => {
                r.total = total;
                self.status = format!("starting {total} requests…");
            }
            TestRunMsg::Failed(e) => {
                self.status = e.to_string();
                self.running = None;
            }
            TestRunMsg::Progress(Progress::Sending {
                index,
                total,
                label,
            }) => self.status = format!("sending {}/{total}: {label}", index + 1),
            TestRunMsg::Progress(Progress::Waiting { secs }) => {
                self.status = format!("waiting the session's gap of {secs} s")
            }
            TestRunMsg::Progress(Progress::Note(n)) => self.status = n,
            TestRunMsg::Progress(Progress::Row { row }) => {
                self.done += 1;
                self.rows.push(row);
            }
            TestRunMsg::Done(rec, saved) => {
                let _ = r.total;
                self.status = rec.verdict();
                self.rows = rec.rows.clone();
                self.record = Some(*rec);
                self.saved = saved;
                self.running = None;
            }
        }
    }

    pub fn cancel(&mut self) {
        if let Some(r) = &self.running {
            let _ = r.cancel.send(true);
            self.status = "cancelling…".into();
        }
    }

    /// Prepares a run of the current state: the job to submit (the worker
    /// plans its requests), or `None` with the reason in `status`.
    pub fn start(
        &mut self,
        ins: Inspection,
        predict_with: Option<Provider>,
        table: Arc<ModelTable>,
        counter: Arc<TokenCounter>,
    ) -> Option<TestRunJob> {
        let key = self.key();
        if key.is_none() && self.base_url.trim().is_empty() {
            let var = crate::net::key_var(self.api);
            self.status = format!(
                "no key: type one, set {var}, or give a base URL (a proxy or a local server)"
            );
            return None;
        }
        let plan = match self.plan {
            PlanKind::Session => Plan::Session,
            PlanKind::Repeat => Plan::Repeat(self.repeat.max(1)),
            PlanKind::ThenSession => Plan::ThenSession(self.then_session.clone()),
        };
        let model = ins.prepared.model.clone();
        let base = self.base_url.trim();
        let endpoint = Endpoint::new(self.api, (!base.is_empty()).then_some(base), key);
        if let Err(e) =
            crate::net::guard::check_transport(&endpoint.base_url, endpoint.key.is_some(), false)
        {
            self.status = e.to_string();
            return None;
        }
        let record = TestRunRecord::new(
            self.api,
            &endpoint.shown_url(),
            &model.id,
            &ins.session().name,
            &plan,
            crate::unix_now(),
        );
        let (cancel, cancel_rx) = tokio::sync::watch::channel(false);
        self.rows.clear();
        self.record = None;
        self.saved = None;
        self.done = 0;
        self.status = "planning the requests…".into();
        self.running = Some(Running { cancel, total: 0 });
        let root = ins.workspace.root.clone();
        Some(TestRunJob {
            endpoint,
            model,
            inspection: Box::new(ins),
            plan,
            predict_with,
            table,
            counter,
            options: TestRunOptions {
                honour_gaps: self.honour_gaps,
                deadline: None,
            },
            record,
            cancel: cancel_rx,
            root,
        })
    }
}

fn pair(ui: &mut Ui, p: u64, a: Option<u64>) {
    match a {
        Some(a) if a == p => {
            ui.label(format!("{p} / {a}"));
        }
        Some(a) => {
            ui.label(
                RichText::new(format!("{p} / {a}"))
                    .color(super::colors::text(ui, super::colors::ERROR))
                    .strong(),
            );
        }
        None => {
            ui.label(format!("{p} / –"));
        }
    }
}

/// Draws the form, progress and results; Start and Cancel push
/// [`Command::StartTestRun`] and [`Command::CancelTestRun`].
pub fn show(ui: &mut Ui, panel: &mut TestRunPanel, sessions: &[String], out: &mut Vec<Command>) {
    form(ui, panel, sessions);
    controls(ui, panel, out);
    ui.separator();
    if panel.rows.is_empty() {
        ui.weak("Predicted and real usage appear here, request by request.");
        return;
    }
    results(ui, panel);
}

/// Where to send, with which key, which requests.
fn form(ui: &mut Ui, panel: &mut TestRunPanel, sessions: &[String]) {
    egui::Grid::new("run-form")
        .num_columns(2)
        .spacing([10.0, 6.0])
        .show(ui, |ui| {
            ui.label("API");
            ui.horizontal(|ui| {
                ui.selectable_value(&mut panel.api, Provider::Anthropic, "Anthropic Messages");
                ui.selectable_value(&mut panel.api, Provider::Openai, "OpenAI-compatible Chat");
                ui.selectable_value(&mut panel.api, Provider::Gemini, "Gemini");
            });
            ui.end_row();
            ui.label("Base URL");
            ui.add(
                egui::TextEdit::singleline(&mut panel.base_url)
                    .hint_text("default: the provider's API; or http://127.0.0.1:8080")
                    .desired_width(320.0),
            );
            ui.end_row();
            ui.label("API key");
            ui.horizontal(|ui| {
                ui.add(
                    egui::TextEdit::singleline(&mut panel.key_input)
                        .password(true)
                        .hint_text("kept in memory only")
                        .desired_width(220.0),
                );
                match panel.key() {
                    Some(k) => ui.weak(format!("using {}", k.masked())),
                    None => ui.weak("none"),
                };
            });
            ui.end_row();
            ui.label("Requests");
            ui.horizontal(|ui| {
                ui.radio_value(&mut panel.plan, PlanKind::Session, "the session's turns");
                ui.radio_value(&mut panel.plan, PlanKind::Repeat, "the prompt");
                ui.add(
                    egui::DragValue::new(&mut panel.repeat)
                        .range(1..=20)
                        .suffix(" times"),
                );
                ui.radio_value(&mut panel.plan, PlanKind::ThenSession, "then session");
                egui::ComboBox::new("then-session", "")
                    .selected_text(if panel.then_session.is_empty() {
                        "…"
                    } else {
                        panel.then_session.as_str()
                    })
                    .show_ui(ui, |ui| {
                        for s in sessions {
                            ui.selectable_value(&mut panel.then_session, s.clone(), s);
                        }
                    });
            });
            ui.end_row();
            ui.label("");
            ui.checkbox(&mut panel.honour_gaps, "wait the session's gaps for real");
            ui.end_row();
        });
}

/// Start, cancel, progress and the verdict.
fn controls(ui: &mut Ui, panel: &TestRunPanel, out: &mut Vec<Command>) {
    // Nothing to send with: no key and no base URL (a proxy or a local
    // server needs none).
    let blocked = (panel.key().is_none() && panel.base_url.trim().is_empty()).then(|| {
        format!(
            "no key: type one, set {}, or give a base URL (a proxy or a local server)",
            crate::net::key_var(panel.api)
        )
    });
    ui.horizontal(|ui| {
        let start = ui.add_enabled(
            !panel.is_running() && blocked.is_none(),
            egui::Button::new("Start run"),
        );
        if let Some(why) = &blocked {
            start.on_disabled_hover_text(why);
        } else if start.clicked() {
            out.push(Command::StartTestRun);
        }
        if ui
            .add_enabled(panel.is_running(), egui::Button::new("Cancel run"))
            .clicked()
        {
            out.push(Command::CancelTestRun);
        }
        if let Some(r) = &panel.running {
            ui.add(
                egui::ProgressBar::new(panel.done as f32 / r.total.max(1) as f32)
                    .desired_width(180.0)
                    .text(format!("{}/{}", panel.done, r.total)),
            );
            ui.spinner();
        }
    });
    if let Some(why) = &blocked {
        ui.colored_label(
            super::colors::text(ui, super::colors::WARNING),
            format!("Start is off: {why}"),
        );
    }
    if let Some(p) = &panel.saved {
        ui.weak(format!("saved to {p}"));
    }
    if !panel.status.is_empty() {
        ui.add(egui::Label::new(&panel.status).wrap());
    }
}

/// Predicted and real usage, request by request.
fn results(ui: &mut Ui, panel: &TestRunPanel) {
    egui::ScrollArea::vertical()
        .id_salt("run-rows")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::Grid::new("run-table")
                .striped(true)
                .num_columns(5)
                .spacing([14.0, 4.0])
                .show(ui, |ui| {
                    for h in [
                        "request",
                        "read (pred / real)",
                        "written (pred / real)",
                        "uncached (pred / real)",
                        "verdict",
                    ] {
                        ui.strong(h);
                    }
                    ui.end_row();
                    for row in &panel.rows {
                        ui.label(&row.label);
                        let a = row.actual.as_ref().map(|a| &a.usage);
                        pair(
                            ui,
                            row.predicted.cache_read_input_tokens,
                            a.map(|a| a.cache_read_input_tokens),
                        );
                        pair(
                            ui,
                            row.predicted.cache_creation_input_tokens,
                            a.map(|a| a.cache_creation_input_tokens),
                        );
                        pair(ui, row.predicted.input_tokens, a.map(|a| a.input_tokens));
                        match (&row.error, row.agrees) {
                            (Some(e), _) => {
                                ui.colored_label(super::colors::text(ui, super::colors::ERROR), e)
                            }
                            (None, true) => ui.colored_label(
                                super::colors::text(ui, super::colors::GOOD),
                                "agrees",
                            ),
                            (None, false) => ui.add(
                                egui::Label::new(
                                    RichText::new(row.explanation.join(" · "))
                                        .color(super::colors::text(ui, super::colors::WARNING)),
                                )
                                .wrap(),
                            ),
                        };
                        ui.end_row();
                    }
                });
        });
}
