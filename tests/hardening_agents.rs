//! Hardening of the agents' layouts, one test per class: a
//! `~/.claude/CLAUDE.md` that is not a regular file (3b). Each drives the
//! real binary on temp folders, with a time limit so that a hang is a
//! failure.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;

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

const LIMIT: Duration = Duration::from_secs(60);

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
