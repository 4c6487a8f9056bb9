//! Benchmarks: tokenization throughput (with Python's tiktoken side by side),
//! assembly of a generated 1,000-fragment / ~1M-token workspace cold and warm,
//! and the sample workspace.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{Criterion, Throughput};
use prompt_inspector::engine::{
    self, Budget, Encoding, ModelTable, Options, TokenCounter, assemble,
};

#[path = "../tests/common/generate.rs"]
mod generate;
use generate::{generate_workspace, mixed_text};
use prompt_inspector::engine::request::Request;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-workspace")
}

fn bench_tokenize(c: &mut Criterion, text: &str) {
    let mut g = c.benchmark_group("tokenize");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(10);
    TokenCounter::warm(Encoding::O200kBase);
    g.bench_function("o200k_mixed_zh_en_1MB", |b| {
        b.iter(|| {
            black_box(
                Encoding::O200kBase
                    .bpe()
                    .encode_ordinary(black_box(text))
                    .len(),
            )
        })
    });
    g.finish();
}

fn bench_assembly(c: &mut Criterion, dir: &Path) {
    let table = ModelTable::bundled();
    let mut g = c.benchmark_group("assemble_1000_fragments");
    g.sample_size(10);
    g.bench_function("cold_load_count_assemble", |b| {
        b.iter(|| {
            let counter = TokenCounter::new();
            black_box(
                engine::inspect(dir, &Options::default(), &table, &counter)
                    .unwrap()
                    .assembly
                    .total_tokens,
            )
        })
    });
    let counter = TokenCounter::new();
    let ins = engine::inspect(dir, &Options::default(), &table, &counter).unwrap();
    let base = ins.workspace.settings.budget;
    g.sample_size(50);
    let mut step = 0u64;
    g.bench_function("warm_new_budget_each_time", |b| {
        b.iter(|| {
            step += 1;
            let budget = Budget {
                total: base.total - (step % 50_000) * 2,
                ..base
            };
            black_box(assemble(&ins.prepared, &budget, false, &counter).total_tokens)
        })
    });
    g.bench_function("warm_same_budget", |b| {
        b.iter(|| black_box(assemble(&ins.prepared, &base, false, &counter).total_tokens))
    });
    g.finish();

    let sample_counter = TokenCounter::new();
    let s = engine::inspect(&sample(), &Options::default(), &table, &sample_counter).unwrap();
    let sb = s.workspace.settings.budget;
    let mut g = c.benchmark_group("assemble_sample_workspace");
    let mut k = 0u64;
    g.bench_function("warm_budget_slider", |b| {
        b.iter(|| {
            k += 1;
            let budget = Budget {
                total: sb.total - (k % 400),
                ..sb
            };
            black_box(assemble(&s.prepared, &budget, false, &sample_counter).total_tokens)
        })
    });
    g.finish();
}

/// Rust and Python tokenizing the same file in one run; prints the ratio.
fn compare_with_python(text: &str) {
    let path = std::env::temp_dir().join("prompt-inspector-bench-text.txt");
    std::fs::write(&path, text).unwrap();
    let ranks = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts"))
        .ok()
        .and(find_ranks());
    let bpe = Encoding::O200kBase.bpe();
    let mut best = f64::MAX;
    let mut n = 0;
    for _ in 0..5 {
        let t = Instant::now();
        n = bpe.encode_ordinary(text).len();
        best = best.min(t.elapsed().as_secs_f64());
    }
    let rust = text.len() as f64 / best / 1e6;
    println!(
        "\ntokenize side by side ({} bytes, {n} tokens):",
        text.len()
    );
    println!("  tiktoken-rs o200k_base: {rust:.2} MB/s");
    let Some(ranks) = ranks else {
        println!("  python tiktoken: skipped (rank file not found)");
        return;
    };
    let Some((py, py_n)) = python_peer("tiktoken_reference.py", &path, &ranks) else {
        return;
    };
    println!(
        "  python tiktoken o200k_base: {py:.2} MB/s ({py_n} tokens{})",
        same(py_n == n)
    );
    println!("  ratio rust/python: {:.2}×", rust / py);
}

/// Runs `scripts/SCRIPT INPUT RANKS`; its line "<figure> <tokens>", or None
/// (said) when Python's tiktoken is not there.
fn python_peer(script: &str, input: &Path, ranks: &Path) -> Option<(f64, usize)> {
    let out = std::process::Command::new("python3")
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("scripts")
                .join(script),
        )
        .arg(input)
        .arg(ranks)
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let line = String::from_utf8_lossy(&o.stdout);
            let mut parts = line.split_whitespace();
            let figure = parts.next().and_then(|s| s.parse().ok())?;
            let tokens = parts.next().and_then(|s| s.parse().ok())?;
            Some((figure, tokens))
        }
        _ => {
            println!("  python tiktoken: skipped (pip install tiktoken to compare)");
            None
        }
    }
}

fn same(yes: bool) -> &'static str {
    if yes {
        ", same count"
    } else {
        ", DIFFERENT count"
    }
}

/// A cold `report` of the generated workspace (load, line numbers, count,
/// assemble) beside Python tiktoken only counting the same fragment texts,
/// in one run.
fn report_beside_python(dir: &Path) {
    let table = ModelTable::bundled();
    TokenCounter::warm(Encoding::O200kBase);
    let mut best = f64::MAX;
    let mut ins = None;
    for _ in 0..3 {
        let counter = TokenCounter::new();
        let t = Instant::now();
        let i = engine::inspect(dir, &Options::default(), &table, &counter).unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        ins = Some(i);
    }
    let ins = ins.unwrap();
    let texts: Vec<&str> = ins.prepared.fragments.iter().map(|f| &*f.full).collect();
    let ours: u64 = ins.prepared.fragments.iter().map(|f| f.tokens).sum();
    println!(
        "\ncold report of {} fragments ({ours} tokens, {} cores): {:.3} s",
        texts.len(),
        engine::assembly::tokens::cores(),
        best
    );
    let path = std::env::temp_dir().join("prompt-inspector-bench-texts.json");
    std::fs::write(&path, serde_json::to_string(&texts).unwrap()).unwrap();
    let Some(ranks) = find_ranks() else {
        println!("  python tiktoken: skipped (rank file not found)");
        return;
    };
    let Some((py, py_n)) = python_peer("tiktoken_count_texts.py", &path, &ranks) else {
        return;
    };
    println!(
        "  python tiktoken counting the same texts: {py:.3} s ({py_n} tokens{})",
        same(py_n as u64 == ours)
    );
    println!("  report / python counting: {:.2}×", best / py);
}

/// One long piece with no pre-token break (1 and 8 MB of one letter):
/// the counter stays linear in size.
fn long_piece() {
    let mut per_mb = Vec::new();
    for mb in [1usize, 8] {
        let text = "x".repeat(mb << 20);
        // The app's counter (nothing remembered: a new one each time), the
        // best of three.
        let (mut s, mut n) = (f64::MAX, 0);
        for _ in 0..3 {
            let t = Instant::now();
            n = TokenCounter::new().count(Encoding::O200kBase, &text);
            s = s.min(t.elapsed().as_secs_f64());
        }
        per_mb.push(s / mb as f64);
        println!("one {mb} MB piece: {n} tokens in {s:.3} s");
    }
    println!(
        "  time per MB, 8 MB against 1 MB: {:.2}× (1.00 is linear)",
        per_mb[1] / per_mb[0]
    );
}

fn find_ranks() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let src = home.join("registry/src");
    for index in std::fs::read_dir(src).ok()?.flatten() {
        for krate in std::fs::read_dir(index.path()).ok()?.flatten() {
            let name = krate.file_name().to_string_lossy().into_owned();
            if name.starts_with("tiktoken-rs-") {
                let p = krate.path().join("assets/o200k_base.tiktoken");
                if p.exists() {
                    return Some(p);
                }
            }
        }
    }
    None
}

fn main() {
    let text = mixed_text(1 << 20, 7);
    let dir = tempfile::tempdir().unwrap();
    generate_workspace(dir.path(), 1000, 1000);
    let mut c = Criterion::default().configure_from_args();
    bench_tokenize(&mut c, &text);
    bench_assembly(&mut c, dir.path());
    extra_benches(&mut c, dir.path());
    bench_attribution(&mut c);
    c.final_summary();
    tracing_scales_linearly();
    compare_with_python(&text);
    report_beside_python(dir.path());
    long_piece();
    ui_frame_times(dir.path());
}

/// A 200 KB request traced back to a 1,000-file workspace (`traffic
/// --against`), beside the obvious alternative: looking for each file's
/// whole text in the request (which finds no file whose white space the
/// agent changed).
fn bench_attribution(c: &mut Criterion) {
    use prompt_inspector::engine::traffic::attribution::{SourceFile, attribute};
    let files: Vec<SourceFile> = (0..1000)
        .map(|i| SourceFile {
            path: format!("notes/{i}.md"),
            text: mixed_text(1500, 100 + i),
            modified: None,
        })
        .collect();
    // The agent's own 60 KB, then 100 of the files, every other one with
    // its lines indented (as an agent may re-indent them).
    let mut sent = mixed_text(60_000, 9_999);
    for (n, f) in files.iter().step_by(10).enumerate() {
        sent.push_str(&format!("\n## {}\n", f.path));
        if n % 2 == 0 {
            sent.push_str(&f.text);
        } else {
            for l in f.text.lines() {
                sent.push_str("  ");
                sent.push_str(l);
                sent.push('\n');
            }
        }
    }
    while sent.len() < 200_000 {
        sent.push_str(&mixed_text(10_000, sent.len() as u64));
    }
    let request = Request::of_body(
        &serde_json::json!({"system": [{"type": "text", "text": sent}], "messages": []}),
    );
    let counter = TokenCounter::new();
    let found = attribute(&request, &files, &counter, Encoding::O200kBase);
    let sent_files: Vec<&SourceFile> = files.iter().step_by(10).collect();
    let ours = sent_files
        .iter()
        .filter(|f| {
            found
                .files
                .iter()
                .any(|x| x.path == f.path && !x.spans.is_empty())
        })
        .count();
    let peer = sent_files
        .iter()
        .filter(|f| sent.contains(f.text.as_str()))
        .count();
    println!(
        "attribution: of the {} files sent, the line index finds {ours}, a whole-text search {peer}",
        sent_files.len()
    );
    let mut g = c.benchmark_group("attribution_200KB_request_1000_files");
    g.sample_size(10);
    g.bench_function("traffic_against_line_index", |b| {
        b.iter(|| black_box(attribute(&request, &files, &counter, Encoding::O200kBase).from_files))
    });
    g.bench_function("peer_whole_text_search", |b| {
        b.iter(|| {
            black_box(
                files
                    .iter()
                    .filter(|f| sent.contains(f.text.as_str()))
                    .count(),
            )
        })
    });
    g.finish();
}

/// Issue 36's tracer inputs: one Markdown file of N distinct lines, sent
/// whole in a request with a line of the agent's own between every two of
/// the file's (every line a span of its own: the case that was quadratic,
/// 0.66 / 2.05 / 8.2 / 30.4 s for 10k / 20k / 40k / 80k lines). Printed as
/// seconds per size: linear means each doubling about doubles the time.
fn tracing_scales_linearly() {
    use prompt_inspector::engine::traffic::attribution::{SourceFile, attribute};
    let counter = TokenCounter::new();
    for n in [10_000usize, 20_000, 40_000, 80_000, 160_000] {
        let text: String = (0..n)
            .map(|i| format!("- the harbour log entry number {i} is kept in ink\n"))
            .collect();
        let sent: String = text
            .lines()
            .map(|l| format!("{l}\n(agent's own note between the lines)\n"))
            .collect();
        let files = vec![SourceFile {
            path: "LOG.md".into(),
            text,
            modified: None,
        }];
        let request = Request::of_body(
            &serde_json::json!({"system": [{"type": "text", "text": sent}], "messages": []}),
        );
        let t = std::time::Instant::now();
        let a = attribute(&request, &files, &counter, Encoding::O200kBase);
        println!(
            "tracing a {n}-line file ({} spans): {:.2} s",
            a.files[0].spans.len(),
            t.elapsed().as_secs_f64()
        );
    }
}

/// Prediction and diff on the generated workspace.
fn extra_benches(c: &mut Criterion, dir: &Path) {
    use prompt_inspector::engine::{cache::prediction, compare::diff, compare::snapshot::Snapshot};
    let table = ModelTable::bundled();
    let counter = TokenCounter::new();
    let ins = engine::inspect(dir, &Options::default(), &table, &counter).unwrap();
    let a = Snapshot::take(&ins, &counter, 0, Vec::new());
    let smaller = engine::inspect(
        dir,
        &Options {
            budget_total: Some(ins.workspace.settings.budget.total - 5_000),
            ..Options::default()
        },
        &table,
        &counter,
    )
    .unwrap();
    let b = Snapshot::take(&smaller, &counter, 0, Vec::new());
    let mut g = c.benchmark_group("snapshot_diff_1000_fragments");
    g.sample_size(10);
    g.bench_function("diff_two_snapshots", |bch| {
        bch.iter(|| black_box(diff::diff(&a, &b, ("a", "b"), 0).lines.len()))
    });
    g.bench_function("take_snapshot", |bch| {
        bch.iter(|| black_box(Snapshot::take(&ins, &counter, 0, Vec::new()).total_tokens))
    });
    g.bench_function("predict_layered_single_none", |bch| {
        bch.iter(|| black_box(prediction::predict(&ins, None, &counter).total_cost_usd))
    });
    g.finish();
}

/// CPU time of the window's frames while the total-budget slider is dragged
/// on the generated workspace (egui_kittest, no GPU: layout and our panels,
/// no rasterization).
fn ui_frame_times(dir: &Path) {
    use egui::accesskit::Role;
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable;
    use prompt_inspector::ui::App;
    use prompt_inspector::ui::state::Tab;
    let path = dir.to_path_buf();
    let mut h = Harness::builder()
        .with_size(egui::vec2(1440.0, 900.0))
        .build_ui_state(
            move |ui, app: &mut Option<App>| {
                app.get_or_insert_with(|| App::new(ui.ctx(), None, Some(path.clone())))
                    .show(ui);
            },
            None,
        );
    let start = Instant::now();
    while h
        .state()
        .as_ref()
        .is_none_or(|a| !a.is_idle() || a.state.loaded.is_none())
    {
        h.step();
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert!(start.elapsed().as_secs() < 120);
    }
    println!(
        "\nwindow on the 1,000-fragment workspace: loaded in {:.2} s (worker thread)",
        start.elapsed().as_secs_f64()
    );
    for (tab, name) in [
        (Tab::Fragments, "fragments tab"),
        (Tab::Prompt, "prompt tab"),
        (Tab::Cache, "cache tab"),
    ] {
        h.state_mut().as_mut().unwrap().state.tab = tab;
        h.run_steps(3);
        let total0 = h.state().as_ref().unwrap().state.budget.total;
        let mut show = Vec::new();
        let mut step = Vec::new();
        for i in 0..60u64 {
            let v = (total0 - i * 150) as f64;
            h.get_by_role_and_label(Role::SpinButton, "Total budget")
                .set_value_accesskit(v);
            let t = Instant::now();
            h.step();
            step.push(t.elapsed().as_secs_f64() * 1e3);
            show.push(h.state().as_ref().unwrap().frames.last_us as f64 / 1e3);
        }
        let stats = |v: &mut Vec<f64>| {
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            (
                v.iter().sum::<f64>() / v.len() as f64,
                v[v.len() / 2],
                v[v.len() * 95 / 100],
            )
        };
        let (sm, s50, s95) = stats(&mut show);
        let (hm, h50, h95) = stats(&mut step);
        println!(
            "  slider drag, {name}: App::show {sm:.2} ms mean / {s50:.2} median / {s95:.2} p95; whole egui frame {hm:.2} / {h50:.2} / {h95:.2} ms"
        );
    }
}
