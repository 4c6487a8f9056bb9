//! Hardening of the agents' layouts, one test per class: Claude Code's
//! `@imports` that fan out (10), profiles from `PROMPT_INSPECTOR_PROFILES`
//! whose strings would amplify (11), and a `~/.claude/CLAUDE.md` that is not
//! a regular file (3b). Each drives the real binary on temp folders, with a
//! time limit so that a hang is a failure.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

/// Runs a command with a time limit; a hang is a failure, not a stuck suite.
fn run_bounded(mut c: Command, limit: Duration) -> Output {
    let mut child = c
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read the pipes while waiting, so a large output cannot stall the child.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).ok();
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut v).ok();
        v
    });
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {limit:?} (killed)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
    }
}

fn cmd(args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args).env_remove("PROMPT_INSPECTOR_PROFILES");
    c
}

fn claude_report(ws: &Path) -> Command {
    cmd(&[
        "report",
        ws.to_str().unwrap(),
        "--profile",
        "claude-code",
        "--format",
        "json",
    ])
}

fn diags(r: &Value) -> Vec<String> {
    r["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect()
}

const LIMIT: Duration = Duration::from_secs(60);

/// A diamond: CLAUDE.md imports every file of level 1, each file of a level
/// every file of the next; 1 + 4 × 40 = 161 files. Followed path by path,
/// that is 40^4 ≈ 2.6 million leaves.
fn diamond(dir: &Path, width: usize) -> Vec<String> {
    let levels = 4;
    let name = |l: usize, i: usize| format!("l{l}/f{i:02}.md");
    let imports = |l: usize| -> String {
        if l > levels {
            return String::new();
        }
        (0..width)
            .map(|i| format!("@{}", name(l, i)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut marks = vec!["MARK-root.".to_string()];
    let mut files = vec![(
        "CLAUDE.md".to_string(),
        format!("# Root\nMARK-root.\nSee {}\n", imports(1)),
    )];
    for l in 1..=levels {
        for i in 0..width {
            let mark = format!("MARK-{l}-{i:02}.");
            // Imports relative to the importing file's folder.
            let next = imports(l + 1).replace('@', "@../");
            files.push((name(l, i), format!("Level {l} file {i}. {mark}\n{next}\n")));
            marks.push(mark);
        }
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write_ws(dir, &files);
    marks
}

// 10. A diamond of imports is read once per file: bounded time and output,
// every file in the prompt once; too many files is one diagnostic.
#[test]
fn a_diamond_of_imports_includes_each_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let marks = diamond(dir.path(), 40);
    let o = run_bounded(claude_report(dir.path()), LIMIT);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.len() < 2_000_000, "{} bytes", o.stdout.len());
    let r = json(&o);
    let frags = r["fragments"].as_array().unwrap();
    let ids: Vec<&str> = frags.iter().map(|f| f["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids.iter().filter(|i| i.starts_with("import.")).count(),
        160,
        "{ids:?}"
    );
    // The memory files (layer 2) start with CLAUDE.md (layer 1 is the
    // listing of subagents and skills, the agent's own among them).
    let memory: Vec<&str> = frags
        .iter()
        .filter(|f| f["layer"] == 2)
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(memory[0], "claude");
    assert!(ids.contains(&"import.l4.f39"), "{ids:?}");
    // Nothing refused: the diamond is legal, just wide.
    assert!(diags(&r).is_empty(), "{:?}", diags(&r));

    let o = run_bounded(
        cmd(&[
            "render",
            dir.path().to_str().unwrap(),
            "--profile",
            "claude-code",
        ]),
        LIMIT,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.len() < 1_000_000, "{} bytes", text.len());
    for m in &marks {
        assert_eq!(text.matches(m.as_str()).count(), 1, "{m}");
    }

    // One file by two names (a link) is one file.
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[("CLAUDE.md", "@a.md @alias.md"), ("a.md", "ONCE-ONLY")],
    );
    std::os::unix::fs::symlink("a.md", dir.path().join("alias.md")).unwrap();
    let o = run_bounded(
        cmd(&[
            "render",
            dir.path().to_str().unwrap(),
            "--profile",
            "claude-code",
        ]),
        LIMIT,
    );
    assert_eq!(stdout(&o).matches("ONCE-ONLY").count(), 1, "{}", stdout(&o));

    // More files than the limit: the rest left out, one diagnostic.
    let dir = tempfile::tempdir().unwrap();
    let n = 600;
    let mut files: Vec<(String, String)> = (0..n)
        .map(|i| (format!("d/{i:03}.md"), format!("file {i}")))
        .collect();
    let all: Vec<String> = (0..n).map(|i| format!("@d/{i:03}.md")).collect();
    files.push(("CLAUDE.md".into(), all.join("\n")));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write_ws(dir.path(), &files);
    let o = run_bounded(claude_report(dir.path()), LIMIT);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o);
    let d = diags(&r);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(d[0].contains("limit of 500 files"), "{d:?}");
    let count = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] == 2)
        .count();
    assert_eq!(count, 500);
}

fn claude_profile(heading: &str) -> String {
    format!(
        "name: claude-code\nagent: Claude Code\nversion: test\nfiles:\n  - {{name: CLAUDE.md, rank: 10}}\nfile_heading: \"{heading}\"\nimports:\n  max_depth: 4\n"
    )
}

// 11. A profile's strings are bounded at load (an error naming the file and
// the field), and what its headings produce per assembly is capped with
// one diagnostic naming the profile.
#[test]
fn profile_strings_and_their_expansions_are_bounded() {
    let profiles = tempfile::tempdir().unwrap();
    let file = profiles.path().join("claude-code.yaml");
    let huge = "H".repeat(6 * 1024 * 1024);
    std::fs::write(&file, claude_profile(&huge)).unwrap();
    let ws = tempfile::tempdir().unwrap();
    let mut files = vec![("CLAUDE.md".to_string(), String::new())];
    for i in 0..40 {
        files[0].1 += &format!("@docs/{i:02}.md\n");
        files.push((format!("docs/{i:02}.md"), format!("doc {i}")));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write_ws(ws.path(), &files);

    let mut c = claude_report(ws.path());
    c.env("PROMPT_INSPECTOR_PROFILES", profiles.path());
    let o = run_bounded(c, LIMIT);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.len() < 1000, "{} bytes of error", e.len());
    assert!(
        e.contains(file.to_str().unwrap()) && e.contains("file_heading is 6291456 bytes"),
        "{e}"
    );
    assert!(e.contains("64 KiB"), "{e}");

    // Under the limit, but `{path}` ten thousand times: each heading is cut,
    // and all of them together stop at the assembly's limit.
    let amplified = "{path}".repeat(10_000);
    std::fs::write(&file, claude_profile(&amplified)).unwrap();
    let mut c = claude_report(ws.path());
    c.env("PROMPT_INSPECTOR_PROFILES", profiles.path());
    let o = run_bounded(c, LIMIT);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.len() < 4_000_000, "{} bytes", o.stdout.len());
    let r = json(&o);
    // One diagnostic of the profile (the budget has its own about layer 2).
    let d: Vec<&Value> = r["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["message"].as_str().unwrap().contains("profile"))
        .collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["file"], file.to_str().unwrap());
    let m = d[0]["message"].as_str().unwrap();
    assert!(
        m.contains("profile 'claude-code'")
            && m.contains("file_heading")
            && m.contains("limit of one assembly"),
        "{m}"
    );
    let bodies: usize = r["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["layer"] == 2)
        .count();
    assert_eq!(
        bodies, 41,
        "every file still there, past the headings' limit"
    );
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the node.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(rc, 0, "mkfifo {}", p.display());
}

// 3b. `--user-memory` with a FIFO (no writer), a device or a folder at
// ~/.claude/CLAUDE.md: no hang, one diagnostic naming the file, the
// command goes on as without the file.
#[test]
fn user_memory_that_is_not_a_regular_file_is_one_diagnostic() {
    let ws = tempfile::tempdir().unwrap();
    write_ws(ws.path(), &[("CLAUDE.md", "project")]);
    let plain = run_bounded(claude_report(ws.path()), LIMIT);
    assert!(plain.status.success(), "{}", stderr(&plain));
    let plain = json(&plain);
    type Make = fn(&Path);
    let kinds: [(&str, Make); 3] = [
        ("FIFO", mkfifo),
        ("device", |p| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap()
        }),
        ("folder", |p| std::fs::create_dir(p).unwrap()),
    ];
    for (kind, make) in kinds {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        let target = home.path().join(".claude/CLAUDE.md");
        make(&target);
        let mut c = claude_report(ws.path());
        c.arg("--user-memory").env("HOME", home.path());
        let o = run_bounded(c, LIMIT);
        assert!(o.status.success(), "{kind}: {}", stderr(&o));
        let r = json(&o);
        let d = r["diagnostics"].as_array().unwrap();
        assert_eq!(d.len(), 1, "{kind}: {d:?}");
        assert_eq!(d[0]["file"], "~/.claude/CLAUDE.md", "{kind}");
        let m = d[0]["message"].as_str().unwrap();
        assert!(m.contains(target.to_str().unwrap()), "{kind}: {m}");
        // Otherwise as without the file.
        assert_eq!(r["fragments"], plain["fragments"], "{kind}");
    }
}

/// An agent's folder has no layer budgets: its layers share the room the
/// model's window leaves. A memory file that fits that room is no layer
/// "over its budget" (the shares a layered workspace would give each layer
/// made a 15k-token CLAUDE.md over by thousands), and `--check` passes;
/// one over the room is said as the room's, not as a budget to raise.
#[test]
fn an_agents_layers_share_the_windows_room() {
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let memory = "Keep every answer short and cite the file you read. ".repeat(1_500);
    write_ws(ws.path(), &[("CLAUDE.md", &memory)]);
    let w = ws.path().to_str().unwrap();
    let o = run_home(
        home.path(),
        &["report", w, "--budget", "30000", "--format", "json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = json(&o);
    let layers = r["layers"].as_array().unwrap();
    let used: u64 = layers.iter().map(|l| l["used"].as_u64().unwrap()).sum();
    assert!(used > 15_000 && used < 30_000, "{used}");
    for l in layers {
        assert_eq!(l["overflow"], 0, "{l}");
    }
    let o = run_home(home.path(), &["report", w, "--budget", "30000", "--check"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    // A room smaller than the prompt: over it, in the room's words.
    let o = run_home(home.path(), &["report", w, "--budget", "10000", "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let said = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        said.contains("(the room the model's window leaves for it)"),
        "{said}"
    );
    assert!(!said.contains("raise the fixed budget"), "{said}");
}

/// A memory file the reading leaves out (binary here) is said by `context`
/// too, not only by `report`: its Memory files row is otherwise a quiet 0.
#[test]
fn context_says_a_memory_file_it_left_out() {
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("CLAUDE.md"), b"rules\0\x01\x02").unwrap();
    let o = run_home(home.path(), &["context", ws.path().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("CLAUDE.md: error: binary file"),
        "{}",
        stderr(&o)
    );
}
