//! Screenshots of the main views, for `scripts/screenshot.sh`: with
//! `PROMPT_INSPECTOR_SHOTS=DIR` the window walks through the views named in
//! `PROMPT_INSPECTOR_SHOT_VIEWS` (default: all), writes one PNG per view into
//! DIR from the rendered frame, then closes. `PROMPT_INSPECTOR_SHOT_THEME`
//! (light or dark) picks the theme and `PROMPT_INSPECTOR_SHOT_PREFIX` goes
//! before every file name (e.g. `1280x800-dark-`).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::state::ThemeChoice;

/// What the plan needs of the window (the app implements it: this module
/// knows nothing of the app).
pub trait Window {
    /// Puts the window in `view` (in `theme` when one is given), as a user
    /// would.
    fn enter(&mut self, view: View, theme: Option<ThemeChoice>);
    /// Whether `view` shows what it is for (data the worker reads).
    fn ready(&mut self, view: View) -> bool;
    /// Writes `image` to `path`, off the UI thread; the result comes back
    /// to [`ShotPlan::saved`].
    fn save(&mut self, path: PathBuf, image: Arc<egui::ColorImage>);
}

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
    /// The Traffic tab on the capture `PROMPT_INSPECTOR_SHOT_HEADERS`, its
    /// last request's Headers.
    TrafficHeaders,
    /// The Agents window (View › Agents' own parts…) over the fragments.
    Agents,
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
            View::TrafficHeaders => "traffic-headers",
            View::Agents => "agents",
        }
    }

    pub const ALL: [View; 11] = [
        View::Overview,
        View::TableDetail,
        View::PromptMarkers,
        View::Problems,
        View::Cache,
        View::Diff,
        View::Traffic,
        View::TrafficRequest,
        View::TrafficDiff,
        View::TrafficHeaders,
        View::Agents,
    ];

    fn parse(s: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.name() == s.trim())
    }
}

pub struct ShotPlan {
    pub dir: PathBuf,
    pub prefix: String,
    pub theme: Option<ThemeChoice>,
    pub views: Vec<View>,
    pub index: usize,
    pub wait: u32,
    pub requested: bool,
    pub image: Arc<Mutex<Option<Arc<egui::ColorImage>>>>,
    /// Screenshots handed to the window to write, not yet written.
    pub writing: usize,
}

impl ShotPlan {
    pub fn from_env() -> Option<ShotPlan> {
        let dir = PathBuf::from(std::env::var_os("PROMPT_INSPECTOR_SHOTS")?);
        let views: Vec<View> = match std::env::var("PROMPT_INSPECTOR_SHOT_VIEWS") {
            Ok(list) => list.split(',').filter_map(View::parse).collect(),
            Err(_) => View::ALL.to_vec(),
        };
        let theme = match std::env::var("PROMPT_INSPECTOR_SHOT_THEME").as_deref() {
            Ok("light") => Some(ThemeChoice::Light),
            Ok("dark") => Some(ThemeChoice::Dark),
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
            writing: 0,
        })
    }

    /// A screenshot was written (or not).
    pub fn saved(&mut self, result: Result<PathBuf, String>) {
        self.writing = self.writing.saturating_sub(1);
        match result {
            Ok(path) => eprintln!("wrote {}", path.display()),
            Err(e) => eprintln!("{e}"),
        }
    }

    /// Advances the plan by one frame; closes the window once every view
    /// is taken and written.
    pub fn step(&mut self, ctx: &egui::Context, window: &mut impl Window) {
        if self.index >= self.views.len() {
            if self.writing == 0 {
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
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
            window.save(path, img);
            self.writing += 1;
            self.index += 1;
            self.requested = false;
            self.wait = 0;
            return;
        }
        if self.requested {
            return;
        }
        let view = self.views[self.index];
        if self.wait == 0 {
            window.enter(view, self.theme);
        }
        self.wait += 1;
        // A view waits for its data (at most about 600 frames).
        if self.wait >= 8 && (window.ready(view) || self.wait >= 600) {
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
