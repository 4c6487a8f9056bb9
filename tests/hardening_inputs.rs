//! Hardening of the input side, one test per class of issue 9 (inputs 9–16),
//! driving the real binary (and, for the race, the real engine) on
//! workspaces built in temp folders.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

fn report(ws: &Path) -> Output {
    run(&["report", ws.to_str().unwrap(), "--format", "json"])
}

fn diags(o: &Output) -> Vec<Value> {
    json(o)["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn find<'a>(d: &'a [Value], needle: &str) -> &'a Value {
    d.iter()
        .find(|x| x["message"].as_str().unwrap_or("").contains(needle))
        .unwrap_or_else(|| panic!("no diagnostic with '{needle}' in {d:#?}"))
}

/// Runs a command with a time limit; a hang is a failure, not a stuck suite.
fn run_bounded(mut c: Command, limit: Duration) -> Output {
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!("hung for {limit:?}; stderr: {}", stderr(&o));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().unwrap();
    assert!(st.success());
}

// 9. Recursion: deep `enabled_when` in YAML, frontmatter and tool JSON, deep
// YAML and JSON values: one diagnostic each, no crash.
#[test]
fn deep_nesting_is_one_diagnostic_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}true{}", "(".repeat(50_000), ")".repeat(50_000));
    let nots = format!("{}true", "not ".repeat(200));
    write_ws(
        dir.path(),
        &[
            ("SOUL.md", "soul"),
            (
                "fragments/deep.yaml",
                &format!(
                    "- id: deep\n  layer: 3\n  content: x\n  enabled_when: \"{deep}\"\n- id: nots\n  layer: 3\n  content: y\n  enabled_when: {nots}\n"
                ),
            ),
            (
                "skills/s/SKILL.md",
                &format!("---\nname: s\ndescription: d\nenabled_when: \"{deep}\"\n---\nbody\n"),
            ),
            (
                "tools/t.json",
                &format!(
                    "{{\"name\": \"t\", \"description\": \"d\", \"input_schema\": {{\"type\": \"object\"}},\n \"enabled_when\": \"{deep}\"}}"
                ),
            ),
            (
                "fragments/yamldeep.yaml",
                &format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000)),
            ),
            (
                "tools/jsondeep.json",
                &format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000)),
            ),
        ],
    );
    let o = report(dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let d = diags(&o);
    for (file, frag) in [
        ("fragments/deep.yaml", "deep"),
        ("fragments/deep.yaml", "nots"),
        ("skills/s/SKILL.md", "skill.s"),
        ("tools/t.json", "tool.t"),
    ] {
        let x = d
            .iter()
            .find(|x| x["file"] == file && x["fragment"] == frag)
            .unwrap_or_else(|| panic!("{file}/{frag}: {d:#?}"));
        let m = x["message"].as_str().unwrap();
        assert!(m.contains("64 levels") || m.contains("too long"), "{m}");
        assert!(x["line"].as_u64().is_some(), "{x}");
    }
    assert!(d.iter().any(|x| x["file"] == "fragments/yamldeep.yaml"));
    assert!(d.iter().any(|x| x["file"] == "tools/jsondeep.json"));
}

// 10. Template amplification is capped with one diagnostic.
#[test]
fn template_expansion_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let big = "y".repeat(64 * 1024);
    let refs = "{{session.big}}".repeat(300);
    write_ws(
        dir.path(),
        &[
            ("SOUL.md", "soul"),
            (
                "fragments/bomb.yaml",
                &format!("- id: bomb\n  layer: 4\n  template: \"{refs}\"\n"),
            ),
            ("sessions/s.yaml", &format!("vars:\n  big: {big}\n")),
        ],
    );
    let o = report(dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let d = diags(&o);
    let x = find(&d, "expands past 8 MiB");
    assert_eq!(x["fragment"], "bomb");
    assert_eq!(x["file"], "fragments/bomb.yaml");
}

// 11. The state folder: reads guarded, writes never leave the workspace,
// FIFOs named anywhere are errors, not hangs.
#[test]
fn the_state_folder_is_guarded() {
    let outside = tempfile::tempdir().unwrap();
    // A symlinked .prompt-inspector: snapshot refuses, nothing written outside.
    let ws = copy_sample();
    std::os::unix::fs::symlink(outside.path(), ws.path().join(".prompt-inspector")).unwrap();
    let o = run(&["snapshot", ws.path().to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(".prompt-inspector: a symbolic link: refused"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);

    // A symlinked snapshots/ inside a real .prompt-inspector: refused too.
    let ws = copy_sample();
    std::fs::create_dir_all(ws.path().join(".prompt-inspector")).unwrap();
    std::os::unix::fs::symlink(
        outside.path(),
        ws.path().join(".prompt-inspector/snapshots"),
    )
    .unwrap();
    let o = run(&["snapshot", ws.path().to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(".prompt-inspector/snapshots: a symbolic link: refused"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);

    // A FIFO as calibration.json and as a saved run; a run linked from
    // outside: report and snapshot neither hang nor read them.
    let ws = copy_sample();
    let state = ws.path().join(".prompt-inspector");
    std::fs::create_dir_all(state.join("runs")).unwrap();
    mkfifo(&state.join("calibration.json"));
    mkfifo(&state.join("runs/20990101-000000-fifo.json"));
    let leaked = r#"{"provider":"anthropic","base_url":"OUTSIDE-RUN-MARKER","model":"m","session":"chat","plan":"session","started_unix":1,"cancelled":false,"rows":[]}"#;
    std::fs::write(outside.path().join("run.json"), leaked).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("run.json"),
        state.join("runs/20990101-000001-chat.json"),
    )
    .unwrap();
    let mut c = Command::new(bin());
    c.args(["report", ws.path().to_str().unwrap()]);
    let o = run_bounded(c, Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    let mut c = Command::new(bin());
    c.args(["snapshot", ws.path().to_str().unwrap()]);
    let o = run_bounded(c, Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    let snap = std::fs::read_to_string(stdout(&o).trim()).unwrap();
    assert!(!snap.contains("OUTSIDE-RUN-MARKER"));

    // PROMPT_INSPECTOR_MODELS and diff arguments that are FIFOs: errors.
    let fifo = outside.path().join("fifo");
    mkfifo(&fifo);
    let mut c = Command::new(bin());
    c.args(["report", ws.path().to_str().unwrap()])
        .env("PROMPT_INSPECTOR_MODELS", &fifo);
    let o = run_bounded(c, Duration::from_secs(60));
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    let mut c = Command::new(bin());
    c.args(["diff", fifo.to_str().unwrap(), ws.path().to_str().unwrap()]);
    let o = run_bounded(c, Duration::from_secs(60));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
}

// 12. A file swapped for a link between a check and the read never leaks
// what the link points to (the opened handle is what is checked).
#[test]
fn a_swapped_file_never_leaks_its_target() {
    use prompt_inspector::engine::workspace;
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.md");
    std::fs::write(&secret, "SWAPPED-SECRET-CONTENT").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let soul = dir.path().join("SOUL.md");
    std::fs::write(&soul, "honest soul").unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (soul, secret, stop) = (soul.clone(), secret.clone(), stop.clone());
        let tmp_link = soul.with_extension("link");
        let tmp_file = soul.with_extension("file");
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) && n < 2_000_000 {
                let _ = std::fs::remove_file(&tmp_link);
                let _ = std::os::unix::fs::symlink(&secret, &tmp_link);
                let _ = std::fs::rename(&tmp_link, &soul);
                std::fs::write(&tmp_file, "honest soul").unwrap();
                let _ = std::fs::rename(&tmp_file, &soul);
                n += 1;
            }
        })
    };
    let mut honest = 0;
    for _ in 0..400 {
        let ws = workspace::load(dir.path()).unwrap();
        for f in &ws.fragments {
            assert!(
                !f.body.contains("SWAPPED-SECRET"),
                "the link's target leaked"
            );
            honest += 1;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    // Once the swapping stops, the honest file reads as ever.
    std::fs::write(&soul, "honest soul").unwrap();
    let ws = workspace::load(dir.path()).unwrap();
    assert!(
        ws.fragments.iter().any(|f| f.body == "honest soul"),
        "{honest} honest reads"
    );
}

// 13. Concurrent snapshots never share a name; stale temp files are cleaned.
#[test]
fn concurrent_writers_never_overwrite_each_other() {
    let ws = copy_sample();
    let snaps = ws.path().join(".prompt-inspector/snapshots");
    std::fs::create_dir_all(&snaps).unwrap();
    let stale = snaps.join(".20990101-000000-chat.json.tmp-999999999-0");
    std::fs::write(&stale, "half-written").unwrap();
    let children: Vec<_> = (0..8)
        .map(|_| {
            Command::new(bin())
                .args(["snapshot", ws.path().to_str().unwrap()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut paths = std::collections::BTreeSet::new();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        paths.insert(stdout(&o).trim().to_string());
    }
    assert_eq!(paths.len(), 8, "every writer got its own file: {paths:?}");
    for p in &paths {
        let text = std::fs::read_to_string(p).unwrap();
        assert!(serde_json::from_str::<Value>(&text).is_ok(), "{p} is whole");
    }
    assert!(!stale.exists(), "a dead writer's temp file is cleaned up");
    let files = std::fs::read_dir(&snaps).unwrap().count();
    assert_eq!(files, 8, "no temporary file is left");
}

// 14. Numbers out of range are diagnostics with file and line; i64::MIN
// sorts lowest.
#[test]
fn numbers_out_of_range_are_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            ("SOUL.md", "soul"),
            (
                "fragments/n.yaml",
                concat!(
                    "- id: lowest\n  layer: 3\n  priority: -9223372036854775808\n  content: low\n",
                    "- id: normal\n  layer: 3\n  priority: -5\n  content: normal\n",
                    "- id: huge\n  layer: 3\n  priority: 18446744073709551616\n  content: a\n",
                    "- id: float\n  layer: 3\n  priority: 1e300\n  content: b\n",
                    "- id: nan\n  layer: 3\n  priority: .nan\n  content: c\n",
                    "- id: inf\n  layer: 3\n  priority: -.inf\n  content: d\n",
                ),
            ),
            (
                "workspace.yaml",
                "budget: {total: 1e300, fixed: {1: -1, 2: 18446744073709551616}, layer3_ratio: .nan}\nhistory:\n  max_messages: .inf\n",
            ),
        ],
    );
    let o = report(dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let d = diags(&o);
    for (frag, line) in [("huge", 11), ("float", 15), ("nan", 19), ("inf", 23)] {
        let x = d
            .iter()
            .find(|x| x["fragment"] == frag)
            .unwrap_or_else(|| panic!("{frag}: {d:#?}"));
        assert_eq!(x["file"], "fragments/n.yaml");
        assert_eq!(x["line"], line, "{x}");
        assert!(x["message"].as_str().unwrap().contains("priority"));
    }
    for needle in ["'total'", "fixed budget", "layer3_ratio", "'max_messages'"] {
        let x = find(&d, needle);
        assert_eq!(x["file"], "workspace.yaml");
        assert!(x["line"].as_u64().is_some(), "{x}");
    }
    assert_eq!(
        d.iter()
            .filter(|x| x["message"].as_str().unwrap().contains("fixed budget"))
            .count(),
        2
    );
    let v = json(&o);
    let ids: Vec<&str> = v["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] == 3)
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.last(), Some(&"lowest"), "{ids:?}");
    assert!(ids.iter().position(|i| *i == "normal") < ids.iter().position(|i| *i == "lowest"));
}

// 15. A BOM is stripped and CRLF normalised before any parsing.
#[test]
fn byte_order_marks_and_crlf_are_normalised() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            (
                "SOUL.md",
                "\u{feff}---\r\npriority: 7\r\n---\r\nline one\r\nline two\r\n",
            ),
            (
                "tools/t.json",
                "\u{feff}{\"name\": \"bom_tool\", \"description\": \"with a BOM\", \"input_schema\": {\"type\": \"object\"}}",
            ),
            ("workspace.yaml", "\u{feff}budget:\r\n  total: 5000\r\n"),
            (
                "skills/s/SKILL.md",
                "\u{feff}---\r\nname: crlf\r\ndescription: ends in CR\r\n---\r\nbody\r\n",
            ),
        ],
    );
    let o = report(dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert!(diags(&o).is_empty(), "{:#?}", diags(&o));
    let ids: Vec<&str> = v["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"tool.bom_tool"), "{ids:?}");
    let r = run(&["render", dir.path().to_str().unwrap()]);
    let text = stdout(&r);
    assert!(
        !text.contains('\r') && !text.contains('\u{feff}'),
        "{text:?}"
    );
    assert!(text.contains("line one\nline two"));
    assert!(text.contains("ends in CR") && !text.contains("CR\r"));
    assert_eq!(v["budget"]["total"], 5000, "{}", v["budget"]);
}

// 16. Diagnostics name what they are about: a line for every settings
// diagnostic, the fragment for every fragment-level one.
#[test]
fn diagnostics_name_their_line_and_fragment() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            (
                "SOUL.md",
                "---\nenabled_when: bash in session.tool\nbogus: 1\n---\nsoul\n",
            ),
            (
                "fragments/f.yaml",
                "- id: cond\n  layer: 3\n  content: x\n  enabled_when: \"((\"\n",
            ),
            (
                "tools/t.json",
                "{\"name\": \"t\", \"description\": \"d\", \"input_schema\": {\"type\": \"object\"}, \"enabled_when\": \"and\", \"extra\": 1}",
            ),
            (
                "workspace.yaml",
                "model: no-such-model\nbudget: {total: lots, layer3_ratio: 7, fixed: {3: 1}}\nlayers: {9: {}}\nhistory: {keep_recent: -1, auto_compact_threshold: 2}\nbogus: 1\n",
            ),
        ],
    );
    let o = report(dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let d = diags(&o);
    let settings: Vec<&Value> = d.iter().filter(|x| x["file"] == "workspace.yaml").collect();
    assert!(settings.len() >= 7, "{settings:#?}");
    for x in &settings {
        assert!(x["line"].as_u64().is_some(), "no line: {x}");
    }
    for (file, frag) in [
        ("SOUL.md", "soul"),
        ("fragments/f.yaml", "cond"),
        ("tools/t.json", "tool.t"),
    ] {
        let named: Vec<&Value> = d.iter().filter(|x| x["file"] == file).collect();
        assert!(!named.is_empty(), "{file}");
        for x in named {
            assert_eq!(x["fragment"], frag, "{x}");
        }
    }
}

/// A link back to a folder above it (`loop/up` → `..`) is not followed:
/// no rows for the folder's files again under `loop/up/…`, one warning
/// naming the link (the walk went round it three times, every diagnostic
/// said three times).
#[test]
fn a_link_to_a_folder_above_it_is_not_followed() {
    let ws = tempfile::tempdir().unwrap();
    write_ws(
        ws.path(),
        &[
            (
                "AGENTS.md",
                "# Project\n\nRun the tests before every commit.\n",
            ),
            (
                "tools/AGENTS.md",
                "# Tools\n\nThe scripts stay dependency free.\n",
            ),
        ],
    );
    std::fs::create_dir(ws.path().join("loop")).unwrap();
    std::os::unix::fs::symlink("..", ws.path().join("loop/up")).unwrap();
    let o = report(ws.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o);
    let sources: Vec<&str> = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["source"].as_str().unwrap())
        .collect();
    assert!(sources.contains(&"tools/AGENTS.md"), "{sources:?}");
    assert!(
        !sources.iter().any(|s| s.starts_with("loop/")),
        "{sources:?}"
    );
    let d = diags(&o);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["file"], "loop/up");
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .contains("(a loop): not followed")
    );
}
