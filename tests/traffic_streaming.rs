//! `traffic` streams a capture: requests are left in the file and read
//! again one at a time when their turn comes, so a capture's size costs
//! time, not memory; the analysis is the one of the file read whole.

use std::io::Write;
use std::path::PathBuf;

use prompt_inspector::engine::traffic::{self, MAX_STREAMED_BYTES, read_file, read_file_lazy};
use prompt_inspector::engine::{ModelTable, TokenCounter};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn captures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ["claude-code", "codex", "openclaw"]
        .iter()
        .map(|a| {
            root()
                .join("tests/fixtures/agents")
                .join(a)
                .join("capture.jsonl")
        })
        .collect();
    v.push(root().join("examples/traffic/capture.jsonl"));
    v
}

#[test]
fn a_streamed_capture_holds_no_request_until_its_turn_and_reads_back_the_same_one() {
    for c in captures() {
        let (_, eager, _) = read_file(&c).unwrap();
        let (_, mut lazy, skipped, bodies) = read_file_lazy(&c).unwrap();
        assert_eq!(skipped.describe(), None, "{}", c.display());
        assert_eq!(eager.len(), lazy.len());
        assert!(!lazy.is_empty());
        for (e, l) in eager.iter().zip(lazy.iter_mut()) {
            assert!(l.request.is_none(), "{}: left in the file", c.display());
            assert!(l.body.is_some());
            bodies.load(l);
            assert_eq!(
                l.request,
                e.request,
                "{}: read back as recorded",
                c.display()
            );
            assert_eq!((&l.chain, &l.time), (&e.chain, &e.time));
        }
    }
}

#[test]
fn the_streamed_analysis_is_the_analysis_of_the_capture_read_whole() {
    let table = ModelTable::bundled();
    for c in captures() {
        let streamed = traffic::read(&c, &table, &TokenCounter::new()).unwrap();
        // Every request held, each explained from the ones before it.
        let (_, eager, _) = read_file(&c).unwrap();
        let counter = TokenCounter::new();
        let mut a = traffic::Analyser::default();
        let held: Vec<_> = eager
            .into_iter()
            .map(|x| a.push(x, &table, &counter))
            .collect();
        assert_eq!(
            serde_json::to_value(&streamed.requests).unwrap(),
            serde_json::to_value(&held).unwrap(),
            "{}",
            c.display()
        );
        assert!(streamed.requests.iter().any(|r| !r.parts.parts.is_empty()));
    }
}

/// A capture line of the proxy's format.
fn line(i: usize, extra: &str) -> String {
    format!(
        r#"{{"schema":1,"id":"{i}","ts_start":"2026-12-01T10:00:{:02}Z","ts_end":"2026-12-01T10:00:{:02}Z","endpoint":"/v1/messages","model":"claude-sonnet-4-6","status":200,"stream":false,"latency_ms":5,"error":null,"usage":{{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":1200,"output_tokens":5}},"request":{{"model":"claude-sonnet-4-6","system":"You are Kestrel.{extra}","messages":[{{"role":"user","content":"hi {i}"}}]}}}}"#,
        i % 60,
        i % 60
    )
}

#[test]
fn a_capture_past_the_whole_read_limit_is_analysed_not_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, "{}", line(1, "")).unwrap();
    writeln!(f, "{}", line(2, "")).unwrap();
    drop(f);
    // 300 MiB, past the 256 MiB a whole read holds: the rest a sparse run
    // of NUL bytes, one line too long to hold, said as such and skipped.
    let f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.set_len(300 << 20).unwrap();
    drop(f);
    // Refused as a file's error, naming the file.
    let e = read_file(&path).unwrap_err();
    assert!(
        matches!(&e, prompt_inspector::engine::error::Error::File { path: p, .. } if *p == path.display().to_string()),
        "{e:?}"
    );
    assert!(e.to_string().contains("over the 256 MiB limit"), "{e}");
    let t = traffic::read(&path, &ModelTable::bundled(), &TokenCounter::new()).unwrap();
    assert_eq!(t.requests.len(), 2);
    assert_eq!(
        (t.skipped.lines, t.skipped.too_long),
        (0, 1),
        "{:?}",
        t.skipped
    );
    // A request's diff reads it, and the previous of its chain, again.
    let (_, x, _) = traffic::read_file_for(&path, &[2]).unwrap();
    assert!(x[0].request.is_some() && x[1].request.is_some());
    let d = traffic::diff_at(&x, 2, &TokenCounter::new(), &ModelTable::bundled()).unwrap();
    assert!(!d.identical);
    const { assert!(MAX_STREAMED_BYTES > 300 << 20) };
}

#[test]
fn a_streamed_capture_is_not_held_to_the_value_budget_of_a_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.jsonl");
    // Each request 2 million values (400,000 tiny messages): a whole read
    // holds one of them at most within its 4,000,000 values.
    let mut f = std::fs::File::create(&path).unwrap();
    for i in 0..3 {
        let msgs: Vec<String> = (0..400_000)
            .map(|k| format!(r#"{{"role":"user","content":"{i} {k}"}}"#))
            .collect();
        let l = line(i, "").replace(
            &format!(r#""messages":[{{"role":"user","content":"hi {i}"}}]"#),
            &format!(r#""messages":[{}]"#, msgs.join(",")),
        );
        writeln!(f, "{l}").unwrap();
    }
    drop(f);
    let (_, whole, skipped) = read_file(&path).unwrap();
    assert!(
        whole.len() < 3 && skipped.over_budget > 0,
        "a whole read stops at its budget"
    );
    let (_, streamed, skipped, _) = read_file_lazy(&path).unwrap();
    assert_eq!(streamed.len(), 3, "{:?}", skipped);
    assert_eq!(skipped.over_budget, 0);
}

/// A long analysis says how far it has come: bytes read (never past the
/// file's size), then requests explained, up to all of them.
#[test]
fn a_long_analysis_reports_its_progress_reading_then_explaining() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    let pad = "x".repeat(2_500);
    let mut f = std::fs::File::create(&path).unwrap();
    for i in 0..3_000 {
        writeln!(f, "{}", line(i, &pad)).unwrap();
    }
    drop(f);
    let size = std::fs::metadata(&path).unwrap().len();
    let mut seen = Vec::new();
    let t = traffic::read_with(
        &path,
        &ModelTable::bundled(),
        &TokenCounter::new(),
        &mut |p| {
            seen.push(p);
            std::ops::ControlFlow::Continue(())
        },
    )
    .unwrap();
    assert_eq!(t.requests.len(), 3_000);
    let reading: Vec<u64> = seen
        .iter()
        .filter_map(|p| match p {
            traffic::Progress::Reading { bytes, total } => {
                assert_eq!(*total, size);
                Some(*bytes)
            }
            _ => None,
        })
        .collect();
    assert!(reading.len() >= 2, "{seen:?}");
    assert!(reading.windows(2).all(|w| w[0] < w[1]) && *reading.last().unwrap() <= size);
    let explained: Vec<usize> = seen
        .iter()
        .filter_map(|p| match p {
            traffic::Progress::Explaining { done, total } => {
                assert_eq!(*total, 3_000);
                Some(*done)
            }
            _ => None,
        })
        .collect();
    assert_eq!(explained, [1_000, 2_000, 3_000]);
    // Reading comes first.
    let first_explaining = seen
        .iter()
        .position(|p| matches!(p, traffic::Progress::Explaining { .. }))
        .unwrap();
    assert!(
        seen[..first_explaining]
            .iter()
            .all(|p| matches!(p, traffic::Progress::Reading { .. }))
    );
}

/// A long read stops when its caller says so (the window's Cancel, or a
/// newer file opened): at the first report of each stage, reading then
/// explaining, it ends with `Cancelled`, and a read not stopped is whole.
#[test]
fn a_long_read_stops_when_its_caller_says_so() {
    use std::ops::ControlFlow;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.jsonl");
    let pad = "x".repeat(2_500);
    let mut f = std::fs::File::create(&path).unwrap();
    for i in 0..3_000 {
        writeln!(f, "{}", line(i, &pad)).unwrap();
    }
    drop(f);
    let (table, counter) = (ModelTable::bundled(), TokenCounter::new());
    for stage in ["reading", "explaining"] {
        let mut reports = 0;
        let r = traffic::read_with(&path, &table, &counter, &mut |p| {
            reports += 1;
            match (stage, p) {
                ("reading", traffic::Progress::Reading { .. })
                | ("explaining", traffic::Progress::Explaining { .. }) => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        });
        let e = r
            .err()
            .unwrap_or_else(|| panic!("{stage}: read to the end"));
        assert!(
            matches!(e, prompt_inspector::engine::error::Error::Cancelled),
            "{stage}: {e}"
        );
        assert_eq!(e.to_string(), "cancelled");
        // Stopped at the first report of its stage, not read on.
        let before = if stage == "reading" { 1 } else { 2 };
        assert!(
            reports >= before && reports <= before + 1,
            "{stage}: {reports} reports"
        );
    }
}
