//! The Traffic tab: an agent's real requests (a capture of the recording
//! proxy, or a Claude Code transcript) on one axis as stacked bars (read /
//! written / uncached), the reason under each write or miss, and totals.

use std::path::PathBuf;

use egui::{RichText, Sense, Ui};

use super::colors;
use super::command::Command;
use super::thousands;
use crate::engine::traffic::profile_check::Against;
use crate::engine::traffic::{Row, Source, Totals, Traffic};
use crate::net::proxy::ProxyConfig;

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
    /// How the requests' table is sorted and filtered.
    pub table: super::traffic_table::TableState,
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
        // A live capture grows under the selection: keep it.
        if self.proxy.addr.is_none() {
            self.selected = None;
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
        t.requests.push(row);
        t.totals = totals;
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

fn bar(ui: &mut Ui, u: &crate::engine::Usage, scale: u64, width: f32) -> egui::Response {
    let resp = colors::usage_bar(ui, &u.input(), scale, width, Sense::click());
    resp.on_hover_text(format!(
        "read {} · written {} · uncached {} · output {}",
        thousands(u.cache_read_input_tokens),
        thousands(u.cache_creation_input_tokens),
        thousands(u.input_tokens),
        thousands(u.output_tokens)
    ))
}

pub fn show(ui: &mut Ui, view: &mut TrafficView, out: &mut Vec<Command>) {
    open_row(ui, view, out);
    ui.add(
        egui::Label::new(
            RichText::new(
                "Record your agent: start the proxy here (or `prompt-inspector proxy`), point its base URL at it, and the requests appear below as they happen.",
            )
            .weak(),
        )
        .wrap(),
    );
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
                capitalized(t.source.noun()),
                src.display()
            ))
            .monospace(),
        );
    }
    totals(ui, t);
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
    let diff_source = if live && view.out_of_order > 0 {
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
        None
    } else {
        view.source.as_ref()
    };
    ui.separator();
    super::traffic_table::filters(ui, t, &mut view.table);
    // Columns wider than a narrow window scroll sideways, never past its
    // edge.
    egui::ScrollArea::horizontal()
        .id_salt("traffic-table-h")
        .show(ui, |ui| {
            super::traffic_table::table(ui, t, &mut view.table, view.selected, diff_source, out);
        });
    ui.separator();
    super::traffic_table::timeline_view(ui, t, view.selected, diff_source, out);
    ui.separator();
    let Some(r) = view
        .selected
        .and_then(|i| t.requests.iter().find(|r| r.index == i))
    else {
        ui.weak("Click a request (a row, or its tick on the timeline) for its parts, its files and its diff.");
        return;
    };
    let scale = t
        .requests
        .iter()
        .filter_map(|r| r.usage)
        .map(|u| u.input().total())
        .max()
        .unwrap_or(1);
    let width = (ui.available_width() * 0.4).clamp(120.0, 480.0);
    let traced = view.traced.as_ref().filter(|(i, _)| *i == r.index);
    egui::ScrollArea::vertical()
        .id_salt("traffic-scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            request_row(
                ui,
                r,
                (view.selected, traced),
                diff_source,
                (scale, width),
                out,
            );
        });
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
                thousands(done as u64),
                thousands(total as u64)
            ),
        ),
    };
    ui.add(egui::ProgressBar::new(part).desired_width(220.0).text(text));
}

/// Totals, what each class of miss cost, and the 1-hour-TTL counterfactual.
fn totals(ui: &mut Ui, t: &crate::engine::traffic::Traffic) {
    ui.add(
        egui::Label::new(
            RichText::new(format!(
                "{} · {}",
                super::problems::plural(t.totals.requests, "request"),
                t.totals.headline()
            ))
            .strong(),
        )
        .wrap(),
    );
    // Which agent release sent the requests (and, where this tool's
    // recording of that agent is of another release, both).
    for n in crate::engine::traffic::release::summary(&t.requests) {
        ui.add(egui::Label::new(RichText::new(n).weak()).wrap());
    }
    for n in crate::engine::traffic::notes(t) {
        ui.add(egui::Label::new(n).wrap());
    }
}

/// One request: its name (click to select), its bar on the shared axis
/// (`scale` tokens over `width` points), the reason for a write or miss;
/// when selected, its parts and the way to its diff.
fn request_row(
    ui: &mut Ui,
    r: &crate::engine::traffic::Row,
    (selected, traced): (Option<usize>, Option<&Traced>),
    source: Option<&PathBuf>,
    (scale, width): (u64, f32),
    out: &mut Vec<Command>,
) {
    // Wrapped at a narrow width: the cost and status go to the next line.
    ui.horizontal_wrapped(|ui| {
        let label = format!("#{} · {} · {}", r.index, r.chain, r.model);
        if ui
            .add_sized(
                [240.0, 18.0],
                egui::Button::selectable(
                    selected == Some(r.index),
                    RichText::new(label).monospace(),
                ),
            )
            .on_hover_text(&r.time)
            .clicked()
        {
            out.push(Command::SelectRequest {
                capture: source.cloned(),
                index: r.index,
            });
        }
        if let Some(u) = &r.usage {
            bar(ui, u, scale, width);
            let cost = if r.priced {
                format!("${:.5}", r.cost_usd)
            } else {
                "no price".into()
            };
            ui.label(RichText::new(cost).monospace());
        }
        // The answer's status and time (captures); a failure in red.
        if r.status.is_some() || r.latency_ms.is_some() {
            let status = r.status.map_or(String::new(), |s| format!("HTTP {s}"));
            let latency = r.latency_ms.map_or(String::new(), |l| format!(" · {l} ms"));
            let failed = r.error.is_some() || r.status.is_some_and(|s| s >= 400);
            let text = RichText::new(format!("{status}{latency}")).monospace();
            if failed {
                ui.colored_label(colors::text(ui, colors::ERROR), text);
            } else {
                ui.weak(text);
            }
        }
    });
    if let Some(m) = &r.miss {
        ui.add(
            egui::Label::new(RichText::new(format!("  {}: {}", m.kind, m.detail)).weak()).wrap(),
        );
    }
    if selected == Some(r.index) {
        let against = traced.and_then(|(_, t)| t.as_ref());
        if let (Some(prev), Some(src), false) = (r.previous, source, r.parts.parts.is_empty())
            && ui
                .button(format!("Diff with request #{prev}"))
                .on_hover_text(
                    "what changed since the previous request of this chain, in the Diff view",
                )
                .clicked()
        {
            out.push(Command::DiffRequests {
                capture: src.clone(),
                a: prev,
                b: r.index,
            });
        }
        // Its files below the way to its diff (a trace arriving late moves
        // nothing above it).
        trace_ui(ui, against);
        let attribution = against
            .and_then(|a| a.as_ref().ok())
            .map(|a| &a.attribution);
        super::traffic_request::parts(ui, &r.parts, attribution);
    }
    if let Some(e) = &r.error {
        ui.colored_label(colors::text(ui, colors::ERROR), e);
    }
}

/// A request traced to the open workspace, as the Traffic tab keeps it.
pub type Traced = (usize, Option<Result<Against, String>>);

/// The selected request against the open workspace: a banner when its
/// profile renders it differently, and "your files in this request".
fn trace_ui(ui: &mut Ui, against: Option<&Result<Against, String>>) {
    let a = match against {
        None => return,
        Some(Err(e)) => {
            ui.weak(format!("  not traced to the workspace: {e}"));
            return;
        }
        Some(Ok(a)) => a,
    };
    let d = &a.differences;
    if !d.is_empty() {
        egui::Frame::new()
            .stroke(egui::Stroke::new(1.0, colors::WARNING))
            .inner_margin(6.0)
            .show(ui, |ui| {
                ui.colored_label(
                    colors::text(ui, colors::WARNING),
                    format!(
                        "Your agent sends this differently from the {} profile: {}",
                        a.profile,
                        crate::engine::plural(d.len() as u64, "difference")
                    ),
                );
                for x in d {
                    let point = serde_json::to_value(x.point)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    ui.label(format!(
                        "{point}{}: the profile {} · the agent {}",
                        x.file
                            .as_deref()
                            .map(|f| format!(" · {f}"))
                            .unwrap_or_default(),
                        x.profile,
                        x.agent
                    ));
                }
            });
    }
    let at = &a.attribution;
    ui.label(
        RichText::new(format!(
            "Your files in this request: {} of {} tokens ({} from no file: the agent's own prompt, tools, runtime context)",
            thousands(at.from_files),
            thousands(at.tokens),
            thousands(at.from_no_file)
        ))
        .strong(),
    );
    let dark = ui.visuals().dark_mode;
    egui::Grid::new("traffic-your-files")
        .num_columns(3)
        .show(ui, |ui| {
            for f in &at.files {
                ui.colored_label(colors::text(ui, colors::fragment(&f.path, dark)), &f.path);
                ui.label(format!("{} tokens", thousands(f.tokens)));
                ui.label(match f.sent {
                    crate::engine::traffic::attribution::Sent::Whole => "whole".to_string(),
                    crate::engine::traffic::attribution::Sent::Cut => {
                        format!("cut: {} of {} lines", f.lines_sent, f.lines)
                    }
                    crate::engine::traffic::attribution::Sent::Changed => format!(
                        "changed since the request: {} of {} lines as sent",
                        f.lines_sent, f.lines
                    ),
                    crate::engine::traffic::attribution::Sent::Absent => "not sent".to_string(),
                });
                ui.end_row();
            }
        });
}

/// `text` with its first letter in capitals.
fn capitalized(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
