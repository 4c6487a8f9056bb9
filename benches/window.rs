//! The window with big data: the cost of one frame (egui_kittest, no GPU:
//! the app's own layout and drawing, not the rasterising) with a
//! 100,000-request capture in the Traffic tab, its timeline on the
//! requests and on the whole span, a request selected, a request added
//! live each frame (as the proxy's feed adds them), and the Fragments tab on
//! the sample beside it as the baseline; then the process's peak memory. Run with `cargo bench --bench window`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::Criterion;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use prompt_inspector::ui::App;
use prompt_inspector::ui::state::Tab;

#[allow(dead_code)]
#[path = "../tests/common/procfs.rs"]
mod procfs;

/// A capture of `n` requests in one conversation and a few side chains,
/// a request every 50 ms, each read from the cache but every 100th.
fn capture(path: &Path, n: usize) {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for i in 0..n {
        let (secs, ms) = (i / 20, (i % 20) * 50);
        let (h, m, s) = (10 + secs / 3600, secs / 60 % 60, secs % 60);
        let ts = format!("2026-12-01T{h:02}:{m:02}:{s:02}.{ms:03}Z");
        let (written, read) = if i % 100 == 0 { (1200, 0) } else { (40, 1200) };
        let system = if i % 1000 < 3 {
            "You are Kestrel, side."
        } else {
            "You are Kestrel."
        };
        writeln!(
            f,
            r#"{{"schema":1,"id":"{i}","ts_start":"{ts}","ts_end":"{ts}","endpoint":"/v1/messages","model":"claude-sonnet-4-6","status":200,"stream":false,"latency_ms":40,"error":null,"usage":{{"input_tokens":3,"cache_creation_input_tokens":{written},"cache_read_input_tokens":{read},"output_tokens":5}},"request":{{"model":"claude-sonnet-4-6","system":"{system}","messages":[{{"role":"user","content":"turn {i}"}}]}}}}"#
        )
        .unwrap();
    }
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-workspace")
}

/// The window on the sample at 1280×800, loaded.
fn window() -> Harness<'static, Option<App>> {
    // SAFETY: set before any font is loaded, as the GUI tests do.
    unsafe { std::env::set_var("PROMPT_INSPECTOR_BUNDLED_FONTS_ONLY", "1") };
    let path = sample();
    let launched = Instant::now();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1280.0, 800.0))
        .build_ui_state(
            move |ui, app: &mut Option<App>| {
                app.get_or_insert_with(|| App::new(ui.ctx(), None, Some(path.clone())))
                    .show(ui);
            },
            None,
        );
    // The first content: the sample's fragments in the table, from the
    // app's creation (no GPU here: layout and drawing, not rasterising).
    wait(&mut h, |a| a.state.loaded.is_some());
    eprintln!(
        "the window's first content on the sample: {:.0?} after the app was created",
        launched.elapsed()
    );
    wait(&mut h, |a| a.is_idle());
    h
}

fn wait(h: &mut Harness<'static, Option<App>>, cond: impl Fn(&App) -> bool) {
    let start = Instant::now();
    while !h.state().as_ref().is_some_and(&cond) {
        h.step();
        assert!(start.elapsed() < Duration::from_secs(300), "timed out");
        std::thread::sleep(Duration::from_millis(5));
    }
    h.run_steps(3);
}

fn app<'h>(h: &'h mut Harness<'static, Option<App>>) -> &'h mut App {
    h.state_mut().as_mut().unwrap()
}

fn main() {
    let mut c = Criterion::default().configure_from_args().sample_size(20);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("capture.jsonl");
    let n = 100_000;
    capture(&file, n);
    let mut h = window();
    let mut g = c.benchmark_group("frame");
    app(&mut h).state.tab = Tab::Fragments;
    h.run_steps(3);
    g.bench_function("fragments_sample", |b| b.iter(|| h.step()));
    app(&mut h).state.tab = Tab::Traffic;
    app(&mut h).traffic_view.path = file.display().to_string();
    h.run_steps(2);
    let opened = Instant::now();
    h.get_by_label("Open").click();
    wait(&mut h, |a| a.traffic_view.result.is_some());
    eprintln!(
        "traffic: {n} requests read and shown in {:.2?}",
        opened.elapsed()
    );
    g.bench_function("traffic_100k_requests", |b| b.iter(|| h.step()));
    h.get_by_label("Whole lifetimes").click();
    h.run_steps(2);
    g.bench_function("traffic_100k_whole_span", |b| b.iter(|| h.step()));
    app(&mut h).traffic_view.selected = Some(n / 2);
    h.run_steps(5);
    g.bench_function("traffic_100k_selected", |b| b.iter(|| h.step()));
    // The proxy adding requests live: one finished exchange per frame, as
    // the worker hands it to the view (`Done::Recorded`).
    app(&mut h).traffic_view.selected = None;
    app(&mut h).traffic_view.proxy.capture = Some(file.clone());
    app(&mut h).traffic_view.source = Some(file.clone());
    h.run_steps(2);
    g.bench_function("traffic_100k_live_request_each_frame", |b| {
        b.iter(|| {
            let v = &mut app(&mut h).traffic_view;
            let Some(Ok(t)) = &v.result else {
                panic!("no traffic")
            };
            let mut row = t.requests[t.requests.len() - 1].clone();
            row.index += 1;
            let totals = t.totals.clone();
            v.recorded(row, totals);
            h.step()
        })
    });
    g.finish();
    let peak = procfs::peak_kib(std::process::id()).unwrap_or(0);
    eprintln!("peak memory of the process: {} MB", peak / 1024);
    c.final_summary();
}
