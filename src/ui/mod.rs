//! The window: egui panels that read the state and push one `Command` type;
//! `App` carries the commands out. Long work runs as jobs of one worker; the
//! UI never blocks.

pub mod agents;
pub mod app;
pub mod cache;
pub mod colors;
pub mod command;
pub mod controls;
pub mod detail;
pub mod diff;
mod editor;
mod figure;
mod folders;
pub mod fonts;
pub mod jobs;
pub mod lanes;
mod layout;
pub mod layout_log;
pub mod live_run;
mod open_dialog;
pub mod overview;
pub mod problems;
pub mod prompt;
pub mod shot_views;
pub mod shots;
pub mod state;
pub mod table;
pub mod test_run;
mod timeline;
pub mod traffic;
pub mod traffic_request;
pub mod traffic_table;
pub mod watch;
pub mod welcome;
pub mod worker;

use std::path::PathBuf;

pub use app::App;

pub use crate::engine::thousands;

/// The window's first size: `PROMPT_INSPECTOR_WINDOW_SIZE=WxH` (for
/// screenshots at a given size), else 1360×860.
fn window_size() -> [f32; 2] {
    std::env::var("PROMPT_INSPECTOR_WINDOW_SIZE")
        .ok()
        .and_then(|v| {
            let (w, h) = v.split_once('x')?;
            Some([w.trim().parse().ok()?, h.trim().parse().ok()?])
        })
        .unwrap_or([1360.0, 860.0])
}

/// The window's icon (X11 shows it; on Wayland the desktop entry's icon is
/// used): the 64-pixel PNG of `packaging/icons/`, drawn from its SVG.
fn window_icon() -> std::sync::Arc<egui::IconData> {
    let png = include_bytes!("../../packaging/icons/prompt-inspector-64.png");
    std::sync::Arc::new(eframe::icon_data::from_png_bytes(png).unwrap_or_default())
}

/// Opens the window (optionally on a workspace folder).
pub fn run(path: Option<PathBuf>) -> Result<(), String> {
    run_with(path, None)
}

/// Opens the window, with `run AGENT --window`'s proxy and agent when given.
pub fn run_with(path: Option<PathBuf>, live: Option<live_run::LiveRun>) -> Result<(), String> {
    if let Some(p) = &path
        && std::fs::symlink_metadata(p).is_err()
    {
        return Err(format!("{}: no such folder or file", p.display()));
    }
    #[cfg(target_os = "linux")]
    if ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .all(|v| std::env::var_os(v).is_none_or(|x| x.is_empty()))
    {
        return Err(format!(
            "no desktop session here (neither DISPLAY nor WAYLAND_DISPLAY is set): the window needs one; without it, `prompt-inspector report {0}`, `context {0}` or `render {0}` show the same figures",
            path.as_deref()
                .map_or("FOLDER".to_string(), |p| p.display().to_string())
        ));
    }
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("prompt-inspector")
            .with_app_id("prompt-inspector")
            .with_inner_size(window_size())
            .with_min_inner_size([800.0, 500.0])
            .with_drag_and_drop(true)
            .with_icon(window_icon()),
        ..Default::default()
    };
    eframe::run_native(
        "prompt-inspector",
        options,
        Box::new(move |cc| {
            let mut app = App::from_creation_context(cc, path);
            if let Some(live) = live {
                app.start_live_run(live);
            }
            Ok(Box::new(app))
        }),
    )
    .map_err(|e| {
        format!(
            "cannot open the window: {e} (a desktop session is needed: DISPLAY or WAYLAND_DISPLAY)"
        )
    })
}
