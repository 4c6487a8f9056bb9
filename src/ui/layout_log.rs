//! Where the window drew what a pointer aims at, for a check driven from
//! outside the process (scripts/xdotool-stability.sh clicks with real X
//! events and reads this): with `PROMPT_INSPECTOR_LAYOUT_LOG=FILE` the
//! window appends one JSON line to FILE whenever the tab bar's buttons, the
//! status bar or the chosen tab changed since the line before. Off unless
//! the variable is set; nothing is read back.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use egui::{Id, Rect};

/// The log's file and the last line written (a line is written only when
/// it differs).
pub struct LayoutLog {
    file: PathBuf,
    last: String,
}

/// What a frame drew: recorded by the panels into the context's memory,
/// written after the frame.
#[derive(Clone, Default)]
pub struct Probe {
    pub tabs: Vec<(String, Rect)>,
    pub status_bar: Option<Rect>,
    pub rows: Vec<(String, Rect)>,
    /// The side panels and the central one, by name.
    pub panels: Vec<(String, Rect)>,
}

fn id() -> Id {
    Id::unique("layout-log-probe")
}

/// Whether a log is kept (set once, from the environment).
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Records `f`'s change to this frame's probe; nothing when no log is kept.
pub fn record(ctx: &egui::Context, f: impl FnOnce(&mut Probe)) {
    if ENABLED.load(Ordering::Relaxed) {
        ctx.data_mut(|d| f(d.get_temp_mut_or_default::<Probe>(id())));
    }
}

impl LayoutLog {
    pub fn from_env() -> Option<LayoutLog> {
        let file = PathBuf::from(std::env::var_os("PROMPT_INSPECTOR_LAYOUT_LOG")?);
        ENABLED.store(true, Ordering::Relaxed);
        Some(LayoutLog {
            file,
            last: String::new(),
        })
    }

    /// Writes the frame's probe (with the chosen tab) when it changed, and
    /// clears it for the next frame.
    pub fn flush(&mut self, ctx: &egui::Context, tab: &str, selected: Option<&str>) {
        let p: Probe = ctx.data_mut(|d| d.remove_temp(id())).unwrap_or_default();
        let r = |r: Rect| serde_json::json!([r.min.x, r.min.y, r.max.x, r.max.y]);
        let named = |v: &[(String, Rect)]| {
            v.iter()
                .map(|(n, rect)| serde_json::json!([n, r(*rect)]))
                .collect::<Vec<_>>()
        };
        let line = serde_json::json!({
            "points_per_pixel": 1.0 / ctx.pixels_per_point(),
            "tab": tab,
            "selected": selected,
            "tabs": named(&p.tabs),
            "status_bar": p.status_bar.map(r),
            "rows": named(&p.rows),
            "panels": named(&p.panels),
        })
        .to_string();
        if line == self.last {
            return;
        }
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.file)
            .and_then(|mut f| writeln!(f, "{line}"));
        if written.is_ok() {
            self.last = line;
        }
    }
}
