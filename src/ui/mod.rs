//! The window: egui panels that read engine results and send intents. Long
//! work runs on a worker thread; the UI never blocks.

pub mod app;
mod app_tabs;
pub mod cache;
pub mod colors;
pub mod detail;
pub mod diff;
pub mod fonts;
pub mod overview;
pub mod prompt;
pub mod run;
pub mod shots;
pub mod side;
pub mod state;
pub mod table;
pub mod watch;
pub mod worker;

use std::path::PathBuf;

pub use app::App;

/// Opens the window (optionally on a workspace folder).
pub fn run(path: Option<PathBuf>) -> Result<(), String> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("prompt-inspector")
            .with_app_id("prompt-inspector")
            .with_inner_size([1360.0, 860.0])
            .with_min_inner_size([800.0, 500.0])
            .with_drag_and_drop(true),
        ..Default::default()
    };
    eframe::run_native(
        "prompt-inspector",
        options,
        Box::new(move |cc| Ok(Box::new(App::from_creation_context(cc, path)))),
    )
    .map_err(|e| {
        format!(
            "cannot open the window: {e} (a desktop session is needed: DISPLAY or WAYLAND_DISPLAY)"
        )
    })
}
