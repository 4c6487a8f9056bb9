//! Screenshots of the main views, for `scripts/screenshot.sh`: with
//! `PROMPT_INSPECTOR_SHOTS=DIR` the window walks through the views named in
//! `PROMPT_INSPECTOR_SHOT_VIEWS` (default: all), writes one PNG per view into
//! DIR from the rendered frame, then closes. `PROMPT_INSPECTOR_SHOT_THEME`
//! (light or dark) picks the theme and `PROMPT_INSPECTOR_SHOT_PREFIX` goes
//! before every file name (e.g. `1280x800-dark-`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::app::App;
use super::command::Command;
use super::state::Tab;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum View {
    Overview,
    TableDetail,
    PromptMarkers,
    Problems,
    Cache,
    Diff,
    /// The Traffic tab on `PROMPT_INSPECTOR_SHOT_TRAFFIC` (a capture or a
    /// transcript).
    Traffic,
    /// The Traffic tab on the capture `PROMPT_INSPECTOR_SHOT_CAPTURE`, its
    /// last request selected (its parts and its miss).
    TrafficRequest,
    /// The Diff view on that capture's last request and the one before it.
    TrafficDiff,
}

impl View {
    pub fn name(self) -> &'static str {
        match self {
            View::Overview => "overview",
            View::TableDetail => "table-detail",
            View::PromptMarkers => "prompt-markers",
            View::Problems => "problems",
            View::Cache => "cache",
            View::Diff => "diff",
            View::Traffic => "traffic",
            View::TrafficRequest => "traffic-request",
            View::TrafficDiff => "traffic-diff",
        }
    }

    pub const ALL: [View; 9] = [
        View::Overview,
        View::TableDetail,
        View::PromptMarkers,
        View::Problems,
        View::Cache,
        View::Diff,
        View::Traffic,
        View::TrafficRequest,
        View::TrafficDiff,
    ];

    fn parse(s: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.name() == s.trim())
    }

    /// The commands that put the window in this view, as a user would.
    pub fn commands(self, app: &App) -> Vec<Command> {
        let state = &app.state;
        let pick = |status: crate::engine::Status| {
            state.assembly().and_then(|a| {
                a.fragments
                    .iter()
                    .find(|f| f.status == status)
                    .map(|f| f.id.clone())
            })
        };
        let select = |id: Option<String>| match id {
            Some(id) => Command::Select(id),
            None => Command::ClearSelection,
        };
        match self {
            View::Overview => vec![
                Command::SetTab(Tab::Fragments),
                Command::SetMarkers(false),
                Command::ClearSelection,
            ],
            View::TableDetail => vec![
                Command::SetTab(Tab::Fragments),
                select(pick(crate::engine::Status::Truncated).or(state.selected.clone())),
            ],
            View::PromptMarkers => vec![
                Command::SetTab(Tab::Prompt),
                Command::SetMarkers(true),
                select(pick(crate::engine::Status::Summarized)),
            ],
            View::Problems => vec![Command::SetTab(Tab::Problems)],
            View::Cache => vec![Command::SetTab(Tab::Cache), Command::SetMarkers(false)],
            View::Diff => vec![Command::SetTab(Tab::Diff), Command::SetMarkers(false)],
            View::TrafficDiff => {
                let Some(p) = std::env::var_os("PROMPT_INSPECTOR_SHOT_CAPTURE") else {
                    return vec![Command::SetTab(Tab::Diff)];
                };
                let p = PathBuf::from(p);
                let n = std::fs::read_to_string(&p).map_or(0, |t| t.lines().count());
                vec![Command::DiffRequests {
                    capture: p,
                    a: n.saturating_sub(1),
                    b: n,
                }]
            }
            View::Traffic | View::TrafficRequest => {
                let var = if self == View::Traffic {
                    "PROMPT_INSPECTOR_SHOT_TRAFFIC"
                } else {
                    "PROMPT_INSPECTOR_SHOT_CAPTURE"
                };
                let mut v = vec![Command::SetTab(Tab::Traffic)];
                if let Some(p) = std::env::var_os(var) {
                    v.push(Command::OpenTraffic(p.into()));
                }
                v
            }
        }
    }

    /// Whether the view has what it shows (a traffic file is read by the
    /// worker); the request view then selects the last request.
    fn ready(self, app: &mut App) -> bool {
        match self {
            View::Traffic => app.traffic_view.result.is_some(),
            View::TrafficRequest => match &app.traffic_view.result {
                Some(Ok(t)) => {
                    app.traffic_view.selected = t.requests.last().map(|r| r.index);
                    true
                }
                Some(Err(_)) => true,
                None => false,
            },
            View::TrafficDiff => !app.diff_view.pending && app.diff_view.result.is_some(),
            _ => true,
        }
    }

    /// Puts the whole app in this view (the diff compares two sessions).
    pub fn apply_app(self, app: &mut App) {
        for c in self.commands(app) {
            app.apply(c);
        }
        if self == View::Diff {
            let names = app.session_names();
            if let Some(l) = &app.state.loaded {
                let current = l.prepared.session.clone();
                if let Some(other) = names.iter().find(|n| **n != current) {
                    app.diff_view.a = super::diff::Side::Session(current);
                    app.diff_view.b = super::diff::Side::Session(other.clone());
                    app.diff_view.dirty = true;
                }
            }
        }
    }
}

pub struct ShotPlan {
    pub dir: PathBuf,
    pub prefix: String,
    pub theme: Option<super::state::ThemeChoice>,
    pub views: Vec<View>,
    pub index: usize,
    pub wait: u32,
    pub requested: bool,
    pub image: Arc<Mutex<Option<Arc<egui::ColorImage>>>>,
}

impl ShotPlan {
    pub fn from_env() -> Option<ShotPlan> {
        let dir = PathBuf::from(std::env::var_os("PROMPT_INSPECTOR_SHOTS")?);
        let views: Vec<View> = match std::env::var("PROMPT_INSPECTOR_SHOT_VIEWS") {
            Ok(list) => list.split(',').filter_map(View::parse).collect(),
            Err(_) => View::ALL.to_vec(),
        };
        std::fs::create_dir_all(&dir).ok()?;
        let theme = match std::env::var("PROMPT_INSPECTOR_SHOT_THEME").as_deref() {
            Ok("light") => Some(super::state::ThemeChoice::Light),
            Ok("dark") => Some(super::state::ThemeChoice::Dark),
            _ => None,
        };
        Some(ShotPlan {
            dir,
            prefix: std::env::var("PROMPT_INSPECTOR_SHOT_PREFIX").unwrap_or_default(),
            theme,
            views,
            index: 0,
            wait: 0,
            requested: false,
            image: Arc::new(Mutex::new(None)),
        })
    }

    /// Advances the plan by one frame.
    pub fn step(&mut self, ctx: &egui::Context, app: &mut App) {
        if self.index >= self.views.len() {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        ctx.request_repaint();
        if let Some(img) = self.image.lock().unwrap().take() {
            let path = self.dir.join(format!(
                "{}{:02}-{}.png",
                self.prefix,
                self.index + 1,
                self.views[self.index].name()
            ));
            let [w, h] = img.size;
            let bytes: Vec<u8> = img.pixels.iter().flat_map(|c| c.to_array()).collect();
            match image::RgbaImage::from_raw(w as u32, h as u32, bytes) {
                Some(buf) => match buf.save(&path) {
                    Ok(()) => eprintln!("wrote {}", path.display()),
                    Err(e) => eprintln!("cannot write {}: {e}", path.display()),
                },
                None => eprintln!("screenshot had an unexpected size"),
            }
            self.index += 1;
            self.requested = false;
            self.wait = 0;
            return;
        }
        if self.requested {
            return;
        }
        if self.wait == 0 {
            if let Some(t) = self.theme {
                app.apply(Command::SetTheme(t));
            }
            self.views[self.index].apply_app(app);
        }
        self.wait += 1;
        // A view waits for its data (at most about 600 frames).
        if self.wait >= 8 && (self.views[self.index].ready(app) || self.wait >= 600) {
            let slot = self.image.clone();
            let c = ctx.clone();
            ctx.request_screenshot(move |img| {
                *slot.lock().unwrap() = Some(img);
                c.request_repaint();
            });
            self.requested = true;
        }
    }
}
