//! Two Claude Code 2.1.332 sessions of one folder, the second with an
//! appended system prompt, recorded through the proxy against the loopback
//! upstream (tests/fixtures/agents/claude-code-sessions, made by
//! `CLAUDE_SCENARIO=sessions scripts/record-agent.sh claude-code`), with
//! the user's own memory: `~/.claude/CLAUDE.md` importing `@style.md`; and
//! Codex 0.171.0 with the user's `~/.codex/AGENTS.md`
//! (tests/fixtures/agents/codex-0.171-home, `CODEX_SCENARIO=user-memory`).

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

fn fixture() -> PathBuf {
    agent_fixture("claude-code-sessions")
}

fn agent_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(name)
}

/// What the upstream answered for each request, in order.
fn upstream() -> Vec<Value> {
    std::fs::read_to_string(fixture().join("upstream.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The second session's first request read nothing of the first
/// session's prefix, cached milliseconds before: not a cold start,
/// but the system prompt's change (the identity block Claude Code sends
/// with `--append-system-prompt`), named with its block and text, the
/// tokens written again the upstream's.
#[test]
fn a_second_session_whose_system_prompt_changed_is_named_not_cold() {
    let cap = fixture().join("capture.jsonl");
    let o = run(&["traffic", cap.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let rows = v["requests"].as_array().unwrap();
    let up = upstream();
    assert_eq!(rows.len(), up.len());
    for (r, u) in rows.iter().zip(&up) {
        for k in [
            "input_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ] {
            assert_eq!(r[k], u["usage"][k], "{k}: {r}");
        }
    }
    assert_eq!(rows[0]["miss"]["kind"], "cold");
    let second = &rows[2];
    assert_ne!(second["chain"], rows[0]["chain"], "a session of its own");
    assert_eq!(second["cache_read_input_tokens"], 0);
    assert!(second["cache_creation_input_tokens"].as_u64().unwrap() > 12_000);
    let miss = &second["miss"];
    assert_eq!(miss["kind"], "prefix", "{miss}");
    let flat = stdout(&run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--format",
        "jsonl",
    ]));
    let flat: Value = serde_json::from_str(flat.lines().nth(2).unwrap()).unwrap();
    assert_eq!(flat["miss_kind"], "prefix");
    assert_eq!(flat["first_difference"], "system block 2", "{flat}");
    let detail = miss["detail"].as_str().unwrap();
    for part in [
        "a new conversation (chain 2) that starts as the main chain did",
        // Cached under a second before: said in milliseconds, not "0s".
        "ms before; none of it was read: the two differ before the first point it was cached at",
        &format!(
            "{} tokens were written again",
            prompt_inspector::engine::thousands(
                up[2]["usage"]["cache_creation_input_tokens"]
                    .as_u64()
                    .unwrap()
            )
        ),
        "You are Claude Code",
        "You are a Claude agent",
    ] {
        assert!(detail.contains(part), "{part:?} in {detail}");
    }
    // The transcripts say the same from the tools and system prompt they
    // record (without the billing header: its block 1 is the capture's 2).
    let t = run(&[
        "traffic",
        fixture().join("transcript").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let t = json(&t);
    let miss = &t["requests"][2]["miss"];
    assert_eq!(miss["kind"], "prefix", "{miss}");
    assert!(
        miss["detail"]
            .as_str()
            .unwrap()
            .contains("none of it was read"),
        "{miss}"
    );
    // The totals call it a prefix change, not an unavoidable cold start.
    let text = stdout(&run(&["traffic", cap.to_str().unwrap()]));
    assert!(text.contains("cold (1 request)"), "{text}");
    assert!(text.contains("prefix (1 request)"), "{text}");
}

/// A private home holding the user's memory as it was, the project at
/// HOME/project, and the capture with the recording's `/home/user` put
/// back to that home (the paths Claude Code wrote).
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home::of(&fixture(), "project")
    }

    /// `fixture`'s user memory in a private home, its folder at
    /// HOME/`folder`.
    fn of(fixture: &Path, folder: &str) -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().canonicalize().unwrap();
        copy_dir(&fixture.join("user-home"), &home);
        copy_dir(&fixture.join("workspace"), &home.join(folder));
        // Codex ran in a git repository (record-agent.sh made one): it
        // reads AGENTS.md from the repository's root down.
        if fixture.to_string_lossy().contains("codex") {
            std::fs::create_dir_all(home.join(folder).join(".git")).unwrap();
        }
        let cap = std::fs::read_to_string(fixture.join("capture.jsonl")).unwrap();
        let cap = cap.replace("/home/user", &home.display().to_string());
        std::fs::write(home.join("capture.jsonl"), cap).unwrap();
        Home { dir }
    }

    fn path(&self, p: &str) -> String {
        self.dir
            .path()
            .canonicalize()
            .unwrap()
            .join(p)
            .display()
            .to_string()
    }

    fn traffic(&self, extra: &[&str]) -> std::process::Output {
        self.traffic_in("project", extra)
    }

    fn traffic_in(&self, folder: &str, extra: &[&str]) -> std::process::Output {
        let (cap, ws) = (self.path("capture.jsonl"), self.path(folder));
        let mut args = vec!["traffic", cap.as_str(), "--against", ws.as_str()];
        args.extend(extra);
        std::process::Command::new(bin())
            .args(&args)
            .env("HOME", self.path(""))
            .env("XDG_DATA_HOME", self.path("data"))
            .output()
            .unwrap()
    }
}

/// The user's memory and the file it imports are found in each session's
/// real request, named by their home paths, sent whole; the profile
/// renders them as Claude Code sent them, in both sessions.
#[test]
fn user_memory_and_its_import_are_found_in_the_real_requests() {
    let h = Home::new();
    for n in ["1", "3"] {
        let o = h.traffic(&["--request", n, "--format", "json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let a = &json(&o)["attribution"];
        let files: Vec<(&str, &str)> = a["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["path"].as_str().unwrap(), f["sent"].as_str().unwrap()))
            .collect();
        for want in ["~/.claude/CLAUDE.md", "~/.claude/style.md", "CLAUDE.md"] {
            assert!(files.contains(&(want, "whole")), "{want} in {files:?}");
        }
        let check = stdout(&h.traffic(&["--request", n, "--check-profile"]));
        assert!(check.contains("no difference"), "request {n}: {check}");
    }
}

/// Codex 0.171.0's first request holds the user's `~/.codex/AGENTS.md`
/// before the project's and the working folder's (`tools/`): found, named
/// by its home path, sent whole; the profile run from `tools/` renders
/// all three as Codex sent them.
#[test]
fn codex_user_agents_md_is_found_in_its_real_request() {
    let h = Home::of(&agent_fixture("codex-0.171-home"), "repo");
    let o = h.traffic_in("repo", &["--request", "1", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let a = &json(&o)["attribution"];
    let sent: Vec<(&str, &str, u64)> = a["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap(),
                f["sent"].as_str().unwrap(),
                f["spans"][0]["start"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect();
    for want in ["~/.codex/AGENTS.md", "AGENTS.md", "tools/AGENTS.md"] {
        assert!(
            sent.iter().any(|s| s.0 == want && s.1 == "whole"),
            "{want} in {sent:?}"
        );
    }
    // The user's before the project's, in the same message.
    let at = |p: &str| sent.iter().find(|s| s.0 == p).unwrap().2;
    assert!(at("~/.codex/AGENTS.md") < at("AGENTS.md"), "{sent:?}");
    let check = stdout(&h.traffic_in(
        "repo",
        &["--request", "1", "--check-profile", "--workdir", "tools"],
    ));
    assert!(check.contains("no difference"), "{check}");
}

/// A capture recorded in another home (`/home/user`) checked from this
/// one, whose `~/.claude/CLAUDE.md` and its import are the same files:
/// Claude Code's heading names each by its absolute path, which differs
/// only by the home, so it is no difference (as the workspace's folder is
/// none), where the check gave two "heading" differences and exit 1.
#[test]
fn a_home_file_headed_from_another_home_is_no_difference() {
    let home = tempfile::tempdir().unwrap();
    copy_dir(&fixture().join("user-home"), home.path());
    let cap = fixture().join("capture.jsonl");
    let ws = fixture().join("workspace");
    let o = run_home(
        home.path(),
        &[
            "traffic",
            cap.to_str().unwrap(),
            "--against",
            ws.to_str().unwrap(),
            "--check-profile",
        ],
    );
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}{}", stderr(&o));
    assert!(text.contains("no difference"), "{text}");
}
