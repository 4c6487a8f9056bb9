//! The real window in egui_kittest (no display, no GPU): open a workspace,
//! wait for the worker, read the app's state.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prompt_inspector::ui::App;

/// The window on `path`, loaded, at a size of `size`.
pub fn harness_sized(path: PathBuf, size: egui::Vec2) -> Harness<'static, Option<App>> {
    let mut h = harness_opening(path, size);
    wait_loaded(&mut h);
    h
}

/// The window asked to open `path`, at a size of `size`, without waiting.
pub fn harness_opening(path: PathBuf, size: egui::Vec2) -> Harness<'static, Option<App>> {
    harness_built(Harness::builder().with_size(size), path)
}

/// The window on `path` from a harness `builder` (a renderer, a theme, a
/// scale of its own), loaded.
pub fn harness_from(
    builder: egui_kittest::HarnessBuilder<Option<App>>,
    path: PathBuf,
) -> Harness<'static, Option<App>> {
    let mut h = harness_built(builder, path);
    wait_loaded(&mut h);
    h
}

fn harness_built(
    builder: egui_kittest::HarnessBuilder<Option<App>>,
    path: PathBuf,
) -> Harness<'static, Option<App>> {
    // Only the bundled fonts: what renders must not depend on this machine.
    // SAFETY: every test sets the same value before any font is loaded.
    unsafe { std::env::set_var("PROMPT_INSPECTOR_BUNDLED_FONTS_ONLY", "1") };
    let mut h = builder.build_ui_state(
        move |ui, app: &mut Option<App>| {
            app.get_or_insert_with(|| App::new(ui.ctx(), None, Some(path.clone())))
                .show(ui);
        },
        None,
    );
    h.step();
    h
}

pub fn harness(path: PathBuf) -> Harness<'static, Option<App>> {
    harness_sized(path, egui::vec2(1500.0, 950.0))
}

/// Steps until the worker has delivered and the app is idle.
pub fn wait_loaded(h: &mut Harness<'static, Option<App>>) {
    let start = Instant::now();
    loop {
        h.step();
        if let Some(app) = h.state()
            && app.is_idle()
            && app.state.loaded.is_some()
        {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "workspace did not load"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    h.run_steps(3);
}

/// Steps until `cond` holds (work done by the worker arrives over frames).
/// Steps the window until a label holding `text` is shown (a view the
/// worker fills, such as the Cache tab's prediction); fails after 30 s.
pub fn wait_for_label(h: &mut Harness<'static, Option<App>>, text: &str) {
    let start = Instant::now();
    while h.query_all_by_label_contains(text).next().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "waited for {text}"
        );
        h.step();
        std::thread::sleep(Duration::from_millis(10));
    }
}

pub fn wait_for(h: &mut Harness<'static, Option<App>>, what: &str, cond: impl Fn(&App) -> bool) {
    let start = Instant::now();
    loop {
        h.step();
        if cond(app(h)) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "waited for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    h.run_steps(2);
}

pub fn app<'h>(h: &'h Harness<'static, Option<App>>) -> &'h App {
    h.state().as_ref().unwrap()
}

/// Opens `capture` in the Traffic tab as a user does (the tab, its path
/// typed, Open) and waits until it is read.
pub fn open_in_traffic(h: &mut Harness<'static, Option<App>>, capture: &std::path::Path) {
    h.get_by_label("Traffic").click();
    h.run_steps(2);
    h.state_mut().as_mut().unwrap().traffic_view.path = capture.display().to_string();
    h.get_by_label("Open").click();
    wait_for(h, "the traffic", |a| a.traffic_view.result.is_some());
}
