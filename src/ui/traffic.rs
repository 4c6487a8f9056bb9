//! The Traffic tab: an agent's real requests (a capture of the recording
//! proxy, or a Claude Code transcript) on one axis as stacked bars (read /
//! written / uncached), the reason under each write or miss, and totals.

use std::path::PathBuf;

use egui::{RichText, Ui};

use super::colors;
use super::command::Command;
use super::thousands;
use crate::engine::traffic::profile_check::Against;
use crate::engine::traffic::{Row, Source, Totals, Traffic};
use crate::net::proxy::ProxyConfig;

#[path = "traffic_totals.rs"]
mod totals;
use totals::totals;

#[derive(Default)]
pub struct TrafficView {
    pub path: String,
    pub pending: bool,
    /// How far the file being read has come (a long one).
    pub progress: Option<crate::engine::traffic::Progress>,
    pub result: Option<Result<Traffic, String>>,
    /// The read under way, owned by this view: opening another file or
    /// Cancel stops it, and its answer is dropped.
    pub reading: super::jobs::Handle,
    pub selected: Option<usize>,
    /// The file the result was read from.
    pub source: Option<PathBuf>,
    /// The recording proxy started from the window.
    pub proxy: ProxyPanel,
    /// Requests of the live capture that finished after a request sent
    /// later had (listed as they finished, not as they were sent).
    pub out_of_order: usize,
    /// Exchanges of the live capture the bounded feed could not carry (the
    /// capture has them: Open reads it whole).
    pub missed: u64,
    /// The selected request traced back to the open workspace (None while
    /// the worker traces it).
    pub traced: Option<(usize, Option<Result<Against, String>>)>,
    /// The selected request's body as recorded, when read.
    pub body: Option<(usize, Result<RequestText, String>)>,
    /// What the last "Learn the agent's own parts" said, for its request.
    pub learned: Option<(usize, Result<String, String>)>,
    /// How the requests' table is sorted and filtered.
    pub table: super::traffic_table::TableState,
    /// What part of the time the timeline shows.
    pub timeline: super::timeline::Zoom,
    /// The selected request's tab (kept from one request to the next).
    pub detail_tab: super::traffic_request::DetailTab,
    /// What the folder views assume of each agent's own parts, as the
    /// worker last read it (at start, and with each capture read): for the
    /// live capture's notice, without a file read on this thread.
    pub assumed: Vec<crate::engine::traffic::release::Assumed>,
}

/// A recorded request as text: its body (pretty JSON) and the curl
/// command that sends it again, its key read from the environment.
#[derive(Debug, Clone)]
pub struct RequestText {
    pub json: String,
    pub curl: String,
    /// Its HTTP headers, when the capture recorded them.
    pub headers: Option<crate::engine::traffic::Headers>,
    /// The answer's body, when the capture recorded it.
    pub response: Option<String>,
}

/// The proxy's settings as typed, and its state once started.
pub struct ProxyPanel {
    pub listen: String,
    pub anthropic_upstream: String,
    pub openai_upstream: String,
    /// Set while starting or running; sending `true` (or dropping) stops it.
    pub stop: Option<tokio::sync::watch::Sender<bool>>,
    /// Where it listens, once it does.
    pub addr: Option<std::net::SocketAddr>,
    pub capture: Option<PathBuf>,
    pub error: Option<String>,
    /// `run AGENT --window`: the agent's state, in a sentence.
    pub agent: Option<String>,
}

impl Default for ProxyPanel {
    fn default() -> Self {
        ProxyPanel {
            listen: "127.0.0.1:8788".into(),
            anthropic_upstream: crate::net::ANTHROPIC_BASE.into(),
            openai_upstream: crate::net::OPENAI_BASE.into(),
            stop: None,
            addr: None,
            capture: None,
            error: None,
            agent: None,
        }
    }
}

impl TrafficView {
    /// Request `request`'s parts traced to the workspace at `root`, when
    /// that is the request traced.
    pub fn sources(&self, request: usize, root: PathBuf) -> Option<super::diff::Sources> {
        let (i, traced) = self.traced.as_ref()?;
        let a = traced.as_ref()?.as_ref().ok()?;
        (*i == request).then(|| super::diff::Sources {
            root,
            request,
            parts: a.attribution.parts.clone(),
        })
    }

    /// A capture or transcript was read (again, for a live capture).
    /// The answer of the read named `ticket`: dropped unless it is the
    /// read this view waits for (a file opened since replaced it).
    pub fn read(&mut self, ticket: u64, result: Result<Traffic, crate::engine::error::Error>) {
        if !self.reading.answers(ticket) {
            return;
        }
        self.pending = false;
        self.progress = None;
        let result = match result {
            Err(crate::engine::error::Error::Cancelled) => return,
            r => r.map_err(String::from),
        };
        if let Ok(t) = &result {
            self.assumed = t.assumed.clone();
        }
        // A live capture grows under the selection: keep it.
        if self.proxy.addr.is_none() {
            self.selected = None;
            self.body = None;
            self.table.new_traffic();
        }
        self.result = Some(result);
        self.out_of_order = 0;
    }

    /// The proxy listens: the tab follows its capture from now on.
    pub fn proxy_started(&mut self, addr: std::net::SocketAddr, capture: PathBuf) {
        // A file being read is not what the tab shows from now on.
        self.reading.cancel();
        self.pending = false;
        self.progress = None;
        self.proxy.addr = Some(addr);
        self.path = capture.display().to_string();
        self.source = Some(capture.clone());
        self.proxy.capture = Some(capture);
        self.result = None;
        self.selected = None;
        self.body = None;
        self.table.new_traffic();
        self.out_of_order = 0;
        self.missed = 0;
    }

    /// The next exchange of the capture being recorded, explained from the
    /// ones before it: added as it comes (the file is not read again), in
    /// the order the exchanges finished. Ignored when the tab shows another
    /// file.
    pub fn recorded(&mut self, row: Row, totals: Totals) {
        if self.proxy.capture.is_none() || self.source != self.proxy.capture {
            return;
        }
        if !matches!(self.result, Some(Ok(_))) {
            self.result = Some(Ok(Traffic {
                source: Source::Capture,
                requests: Vec::new(),
                totals: Totals::default(),
                skipped: Default::default(),
                assumed: self.assumed.clone(),
            }));
        }
        let Some(Ok(t)) = &mut self.result else {
            return;
        };
        let sent = |r: &Row| crate::engine::traffic::rfc3339(&r.time);
        if let (Some(last), Some(at)) = (t.requests.last().and_then(sent), sent(&row))
            && at < last
        {
            self.out_of_order += 1;
        }
        let before = super::traffic_table::identity(t);
        t.requests.push(row);
        t.totals = totals;
        self.table.appended(t, before);
        self.timeline.appended(t, before);
    }
}

impl ProxyPanel {
    /// The proxy stopped, with the reason when it failed.
    pub fn stopped(&mut self, error: Option<String>) {
        self.stop = None;
        self.addr = None;
        if let Some(e) = error {
            self.error = Some(crate::net::guard::clean(&e, 400));
        }
    }

    /// The proxy's configuration from the fields as typed, or the reason
    /// it cannot start (kept in `error`); a non-loopback address starts
    /// with a warning. Its capture is left empty: the worker creates it
    /// ([`crate::ui::worker::Worker::start_proxy`]), the UI thread touches
    /// no file.
    pub fn config(&mut self) -> Option<ProxyConfig> {
        self.error = None;
        let Ok(listen) = self.listen.trim().parse::<std::net::SocketAddr>() else {
            self.error = Some(format!(
                "cannot listen on {:?}: give an address and a port, such as 127.0.0.1:8788",
                self.listen.trim()
            ));
            return None;
        };
        if !listen.ip().is_loopback() {
            self.error = Some(format!(
                "warning: {listen} is reachable from other machines: anyone who reaches it can spend your keys"
            ));
        }
        Some(ProxyConfig {
            listen,
            anthropic_upstream: self.anthropic_upstream.trim().to_string(),
            openai_upstream: self.openai_upstream.trim().to_string(),
            gemini_upstream: crate::net::GEMINI_BASE.into(),
            log_exchanges: false,
            capture: PathBuf::new(),
            allow_insecure_http: false,
            timeout: std::time::Duration::from_secs(600),
            limits: crate::net::proxy::Limits::default(),
            recorded: None,
            otlp: None,
        })
    }
}

fn proxy_row(ui: &mut Ui, p: &mut ProxyPanel, requests: usize, out: &mut Vec<Command>) {
    if let Some(agent) = &p.agent {
        ui.label(RichText::new(agent).strong());
    }
    match (&p.stop, p.addr) {
        (Some(_), Some(addr)) => {
            ui.horizontal_wrapped(|ui| {
                ui.colored_label(
                    colors::text(ui, colors::READ),
                    format!("Recording on http://{addr}"),
                );
                if requests == 0 {
                    ui.spinner();
                    ui.label("waiting for requests");
                }
                if ui.button("Stop proxy").clicked() {
                    out.push(Command::StopProxy);
                }
            });
            let line = format!(
                "export ANTHROPIC_BASE_URL=http://{addr}  OPENAI_BASE_URL=http://{addr}/v1"
            );
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(&line).monospace());
                if ui.small_button("Copy").clicked() {
                    out.push(Command::CopyText(line.clone()));
                }
            });
            if let Some(c) = &p.capture {
                ui.label(RichText::new(format!("capture: {}", c.display())).weak());
            }
        }
        (Some(_), None) => {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("starting the proxy…");
            });
        }
        (None, _) => {
            ui.horizontal_wrapped(|ui| {
                ui.label("Listen on");
                ui.add(egui::TextEdit::singleline(&mut p.listen).desired_width(140.0));
                if ui.button("Start proxy").clicked() {
                    out.push(Command::StartProxy);
                }
            });
            egui::CollapsingHeader::new("Upstreams")
                .id_salt("proxy-upstreams")
                .show(ui, |ui| {
                    // A whole URL readable at a glance.
                    let url_w = (ui.available_width() - 120.0).clamp(320.0, 640.0);
                    egui::Grid::new("proxy-upstream-grid").show(ui, |ui| {
                        ui.label("Anthropic");
                        ui.add(
                            egui::TextEdit::singleline(&mut p.anthropic_upstream)
                                .desired_width(url_w),
                        );
                        ui.end_row();
                        ui.label("OpenAI");
                        ui.add(
                            egui::TextEdit::singleline(&mut p.openai_upstream).desired_width(url_w),
                        );
                        ui.end_row();
                    });
                });
            if let Some(e) = &p.error {
                ui.colored_label(colors::text(ui, colors::ERROR), e);
            }
        }
    }
}

/// What the tab says before anything is open.
const HOW_TO_START: &str = "Record your agent: start the proxy here (or `prompt-inspector proxy`), point its base URL at it, and the requests appear below as they happen.";

pub fn show(ui: &mut Ui, view: &mut TrafficView, out: &mut Vec<Command>) {
    open_row(ui, view, out);
    // How to start, until there is something to show.
    if view.result.is_none() {
        ui.add(egui::Label::new(RichText::new(HOW_TO_START).weak()).wrap());
    }
    let requests = match &view.result {
        Some(Ok(t)) => t.requests.len(),
        _ => 0,
    };
    proxy_row(ui, &mut view.proxy, requests, out);
    ui.separator();
    let t = match &view.result {
        None => return,
        Some(Err(e)) => {
            ui.colored_label(colors::text(ui, colors::ERROR), e);
            return;
        }
        Some(Ok(t)) => t,
    };
    // Which file this is, whatever the path box holds now.
    if let Some(src) = &view.source {
        ui.label(
            RichText::new(format!(
                "{} {}",
                super::figure::capitalized(t.source.noun()),
                src.display()
            ))
            .monospace(),
        );
    }
    totals(ui, t);
    let diff_source = if live_notes(ui, view) {
        view.source.as_ref()
    } else {
        None
    };
    // The selected request in a pane of its own at the bottom, which the
    // user resizes (its height kept): the table and the timeline share
    // what is left, so the request is never below the fold.
    let timeline_room = super::timeline::room(ui, &view.timeline, view.table.chain.as_deref());
    if let Some(selected) = view.selected {
        let mine = |i: usize| i == selected;
        detail_pane(
            ui,
            (t, timeline_room),
            (
                selected,
                view.traced.as_ref(),
                view.body.as_ref().filter(|(i, _)| mine(*i)).map(|(_, b)| b),
                view.learned
                    .as_ref()
                    .filter(|(i, _)| mine(*i))
                    .map(|(_, l)| l),
                &mut view.detail_tab,
            ),
            diff_source,
            out,
        );
    }
    ui.separator();
    super::traffic_table::filters(ui, t, &mut view.table);
    table_and_timeline(
        ui,
        (t, timeline_room),
        (&mut view.table, view.selected, &mut view.timeline),
        diff_source,
        out,
    );
    if view.selected.is_none() {
        ui.separator();
        ui.weak("Click a request (a row, or its tick on the timeline) for its parts, its files and its diff.");
    }
}

/// What a live capture's rows cannot show (exchanges the feed could not
/// carry, requests listed as they finished); whether its requests can be
/// diffed (they are listed in the order they were sent).
fn live_notes(ui: &mut Ui, view: &TrafficView) -> bool {
    // Live rows are listed as their exchanges finished; the capture read
    // whole (Open) lists them as they were sent, and numbers them so.
    let live = view.proxy.capture.is_some() && view.source == view.proxy.capture;
    if live && view.missed > 0 {
        ui.label(
            RichText::new(format!(
                "{} recorded faster than this view could explain them: not listed here. The capture has them all: Open reads it whole.",
                super::problems::plural(view.missed as usize, "exchange")
            ))
            .color(super::colors::text(ui, super::colors::WARNING)),
        );
    }
    if live && view.out_of_order > 0 {
        ui.add(
            egui::Label::new(
                RichText::new(format!(
                    "{} finished after a request sent later: listed as they finished. Open reads the capture in the order the requests were sent (and diffs them).",
                    super::problems::plural(view.out_of_order, "request")
                ))
                .weak(),
            )
            .wrap(),
        );
        false
    } else {
        true
    }
}

/// The selected request, its trace, its body, what learning from it said,
/// and the pane's tab.
type Detail<'a> = (
    usize,
    Option<&'a super::traffic_request::Traced>,
    Option<&'a super::traffic_request::Body>,
    Option<&'a Result<String, String>>,
    &'a mut super::traffic_request::DetailTab,
);

/// The selected request's resizable pane at the bottom of the tab.
fn detail_pane(
    ui: &mut Ui,
    (t, timeline_room): (&Traffic, f32),
    (selected, traced, body, learned, tab): Detail<'_>,
    diff_source: Option<&PathBuf>,
    out: &mut Vec<Command>,
) {
    // At first, what the table's rows and the timeline leave: no empty
    // band between them and the pane, and nothing above it moves when a
    // request is first selected (a click on a tick stays on its tick);
    // in a short window the table gives up rows (it scrolls) instead.
    let under = FILTERS_ROOM + table_height(ui, t.requests.len()) + timeline_room;
    let first = ui.available_height() - under;
    egui::Panel::bottom("traffic-detail")
        .resizable(true)
        .default_size(first.max(160.0))
        .min_size(110.0)
        // The table keeps a few rows and the timeline above it.
        .max_size((ui.available_height() - 240.0).max(110.0))
        .show(ui, |ui| {
            super::traffic_request::selected(
                ui,
                t,
                (Some(selected), traced, body, tab),
                (diff_source, learned),
                out,
            );
        });
}

/// The requests' table, as tall as its rows at most what is left but the
/// timeline's room, then the timeline.
fn table_and_timeline(
    ui: &mut Ui,
    (t, timeline_room): (&Traffic, f32),
    (table, selected, timeline): (
        &mut super::traffic_table::TableState,
        Option<usize>,
        &mut super::timeline::Zoom,
    ),
    diff_source: Option<&PathBuf>,
    out: &mut Vec<Command>,
) {
    // The timeline's own height (its lanes, its header, its axis) is kept
    // for it: the table shrinks (and scrolls) rather than push the
    // timeline under the request's pane.
    let room = egui::vec2(
        ui.available_width(),
        table_height(ui, t.requests.len()).min((ui.available_height() - timeline_room).max(60.0)),
    );
    ui.allocate_ui(room, |ui| {
        // The sideways bar takes its own room under the rows; columns
        // wider than a narrow window scroll sideways, never past its edge.
        ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
        egui::ScrollArea::horizontal()
            .id_salt("traffic-table-h")
            .show(ui, |ui| {
                super::traffic_table::table(ui, t, table, selected, diff_source, out);
            });
    });
    ui.separator();
    let shown = (selected, timeline, table.chain.as_deref());
    super::timeline::timeline_view(ui, t, shown, diff_source, out);
}

/// The height of the filters' row above the table, with its separator.
const FILTERS_ROOM: f32 = 36.0;

/// The height the table's header, `rows` rows and its sideways bar take
/// (each row 20 points and the spacing under it, as egui_extras lays them
/// out).
fn table_height(ui: &Ui, rows: usize) -> f32 {
    let gap = ui.spacing().item_spacing.y;
    22.0 + gap + rows as f32 * (20.0 + gap) + 18.0
}

/// The file to open, typed or pasted.
fn open_row(ui: &mut Ui, view: &mut TrafficView, out: &mut Vec<Command>) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Capture or transcript");
        let r = ui.add(
            egui::TextEdit::singleline(&mut view.path)
                .hint_text("capture.jsonl or ~/.claude/projects/…/SESSION.jsonl")
                .desired_width(360.0),
        );
        let enter = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if (ui.button("Open").clicked() || enter) && !view.path.trim().is_empty() {
            out.push(Command::OpenTraffic(PathBuf::from(view.path.trim())));
        }
        if view.pending {
            ui.spinner();
            if let Some(p) = view.progress {
                progress(ui, p);
            }
            if ui.button("Cancel").clicked() {
                out.push(Command::CancelTrafficRead);
            }
        }
    });
}

/// A long read's progress: bytes read, then requests explained.
fn progress(ui: &mut Ui, p: crate::engine::traffic::Progress) {
    use crate::engine::traffic::Progress;
    let (part, text) = match p {
        Progress::Reading { bytes, total } => (
            bytes as f32 / total.max(1) as f32,
            format!("reading {} of {} MiB", bytes >> 20, total >> 20),
        ),
        Progress::Explaining { done, total } => (
            done as f32 / total.max(1) as f32,
            format!(
                "explaining {} of {} requests",
                thousands(done),
                thousands(total)
            ),
        ),
    };
    ui.add(egui::ProgressBar::new(part).desired_width(220.0).text(text));
}
