//! `agents learn`: an agent's own parts learned from the user's own
//! recorded request (the fixtures of the real agents, recorded through the
//! proxy by scripts/record-agent.sh) are what this tool's recording script
//! made of the same request, part for part; the folder views then use them,
//! labelled as observed; nothing of the user's files and no key is kept;
//! `agents forget` goes back to the bundled recording.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use common::*;

fn fixture(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(agent)
}

/// A user's data folder and the binary run with it (and the home the
/// fixtures were recorded in, so that `{home}` is found as it was).
struct User {
    data: tempfile::TempDir,
}

impl User {
    fn new() -> User {
        User {
            data: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(bin())
            .args(args)
            .env("XDG_DATA_HOME", self.data.path())
            .env("HOME", "/home/user")
            .env("TZ", "UTC")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        stdout(&o)
    }

    fn folder(&self) -> PathBuf {
        self.data.path().join("prompt-inspector/agents")
    }

    /// The first file learned, read.
    fn first_saved(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(&self.saved()[0]).unwrap()).unwrap()
    }

    fn saved(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(self.folder())
            .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        v.sort();
        v
    }

    fn learn(&self, agent: &str, extra: &[&str]) -> Output {
        let cap = fixture(agent).join("capture.jsonl");
        let ws = fixture(agent).join("workspace");
        let mut args = vec![
            "agents",
            "learn",
            cap.to_str().unwrap(),
            "--against",
            ws.to_str().unwrap(),
            "--request",
            "1",
        ];
        args.extend(extra);
        self.run(&args)
    }
}

fn bundled(file: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/profiles")
        .join(file);
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The learned parts are the recording's: every block's name, placement
/// and text, every tool definition, from the same request.
fn assert_same_parts(learned: &Value, recorded: &Value) {
    let texts = |v: &Value| -> Vec<(String, String, String)> {
        v["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["name"].as_str().unwrap().to_string(),
                    b["placement"].as_str().unwrap_or("system").to_string(),
                    b["text"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(texts(learned), texts(recorded));
    assert_eq!(learned["tools"], recorded["tools"]);
    assert_eq!(learned["release"], recorded["release"]);
    assert!(!learned["tools"].as_array().unwrap().is_empty());
}

#[test]
fn parts_learned_from_a_codex_request_are_its_recording_and_the_views_use_them() {
    let u = User::new();
    let o = u.learn("codex-0.171", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stdout(&o);
    assert!(
        said.contains("learned Codex CLI 0.171.0's own parts"),
        "{said}"
    );
    let saved = u.saved();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(saved[0].ends_with("codex@0.171.0.json"));
    // Kept for this user only.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(u.folder()).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o077,
        0,
        "the data folder is this user's only: {mode:o}"
    );
    let learned: Value =
        serde_json::from_str(&std::fs::read_to_string(&saved[0]).unwrap()).unwrap();
    assert_same_parts(&learned, &bundled("codex-0.171.builtin.json"));
    assert_eq!(learned["observed"]["profile"], "codex");

    // The folder views name it: the profile, the report's agent parts,
    // the context view.
    let ws = fixture("codex-0.171").join("workspace");
    let ws = ws.to_str().unwrap();
    let report = u.ok(&["report", ws]);
    assert!(
        report.contains("assumed Codex CLI 0.171.0, observed in your request of"),
        "{report}"
    );
    assert!(report.contains("(capture.jsonl #1)"), "{report}");
    let context = u.ok(&["context", ws]);
    assert!(context.contains("observed in your request of"), "{context}");
    // `render` prints the prompt; which parts it used goes to stderr.
    let render = u.run(&["render", ws]);
    assert!(render.status.success(), "{}", stderr(&render));
    assert!(
        stderr(&render)
            .contains("the agent's own parts: Codex CLI 0.171.0, observed in your request of"),
        "{}",
        stderr(&render)
    );
    assert!(!stdout(&render).contains("observed in your request"));
    let list = u.ok(&["agents"]);
    let row = list
        .lines()
        .find(|l| l.starts_with("codex@0.171.0 *"))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(row.contains("observed in your request of"), "{row}");

    // Forgotten: back to the bundled recording.
    let f = u.ok(&["agents", "forget", "codex@0.171.0"]);
    assert!(f.contains("forgot codex@0.171.0"), "{f}");
    assert!(u.saved().is_empty());
    let report = u.ok(&["report", ws]);
    assert!(report.contains("verified against 0.171.0"), "{report}");
    let render = stderr(&u.run(&["render", ws]));
    assert!(
        render.contains(
            "the agent's own parts: Codex CLI 0.171.0, the recording bundled with this tool"
        ),
        "{render}"
    );
    let o = u.run(&["agents", "forget", "codex@0.171.0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no observation 'codex@0.171.0' (learned: none)"));
}

#[test]
fn parts_learned_from_claude_code_requests_are_their_recordings() {
    for (agent, recording) in [
        ("claude-code-2.1.332", "claude-code-2.1.332.builtin.json"),
        ("claude-code", "claude-code-2.1.builtin.json"),
    ] {
        let u = User::new();
        let o = u.learn(agent, &["--format", "json"]);
        assert!(o.status.success(), "{agent}: {}", stderr(&o));
        let said = json(&o);
        // What the request cannot tell is said to be kept as recorded.
        let kept = said["kept_from_recording"].to_string();
        assert!(kept.contains("listing of skills and subagents"), "{kept}");
        let saved = u.saved();
        let learned: Value =
            serde_json::from_str(&std::fs::read_to_string(&saved[0]).unwrap()).unwrap();
        assert_same_parts(&learned, &bundled(recording));
    }
}

#[test]
fn an_older_release_observed_is_used_and_said_while_the_bundled_recording_is_newer() {
    let u = User::new();
    // Codex 0.169.0's request, learned; its folder is then read with it
    // although the newest bundled recording is 0.171.0.
    // Recorded before the proxy kept the client's headers: the request
    // does not say its release, so it is named.
    let o = u.learn("codex", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("name it with --release AGENT@VERSION"),
        "{}",
        stderr(&o)
    );
    let o = u.learn("codex", &["--release", "codex@0.169.0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let learned = u.first_saved();
    assert_same_parts(&learned, &bundled("codex-0.169.builtin.json"));
    // A release that contradicts the request's own is refused.
    let o = User::new().learn("codex-0.171", &["--release", "codex@0.170.0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("but the request says it was sent by Codex CLI 0.171.0"),
        "{}",
        stderr(&o)
    );
    let ws = fixture("codex-0.171").join("workspace");
    let report = u.ok(&["report", ws.to_str().unwrap()]);
    assert!(
        report.contains("assumed Codex CLI 0.169.0, observed in your request of"),
        "{report}"
    );
    // A request of 0.171.0 traced against the folder is read with the
    // recording of its own release, not the observation of another.
    let cap = fixture("codex-0.171").join("capture.jsonl");
    let t = u.ok(&[
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
        "--request",
        "1",
        "--format",
        "json",
    ]);
    let t: Value = serde_json::from_str(&t).unwrap();
    let agents: Vec<&str> = t["attribution"]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["agent"].as_str())
        .collect();
    assert!(!agents.is_empty(), "{t}");
    assert!(
        agents.iter().all(|a| a.starts_with("Codex CLI 0.171.0's ")),
        "{agents:?}"
    );
}

#[test]
fn nothing_of_the_users_files_and_no_key_is_kept() {
    let u = User::new();
    let work = tempfile::tempdir().unwrap();
    let ws = work.path().join("tools");
    copy_dir(&fixture("codex-0.171").join("workspace"), &ws);
    // The user's notes copy a line of the agent's own permissions text:
    // that block is not kept (neither as sent nor as recorded).
    let recorded = bundled("codex-0.171.builtin.json");
    let permissions = recorded["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "permissions instructions")
        .unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string();
    let line = permissions
        .lines()
        .find(|l| l.trim().chars().count() >= 40)
        .unwrap()
        .trim()
        .to_string();
    std::fs::write(ws.join("NOTES.md"), format!("# Notes\n{line}\n")).unwrap();
    let cap = fixture("codex-0.171").join("capture.jsonl");
    let o = u.run(&[
        "agents",
        "learn",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stdout(&o);
    assert!(
        said.contains(
            "kept: permissions instructions: holds line 2 of NOTES.md, so it is left out"
        ),
        "{said}"
    );
    let saved = std::fs::read_to_string(&u.saved()[0]).unwrap();
    // No line of any of the user's files, and not what the user typed.
    for f in ["AGENTS.md", "README.md", "tools/AGENTS.md", "NOTES.md"] {
        let Ok(text) = std::fs::read_to_string(ws.join(f)) else {
            continue;
        };
        for l in text.lines().map(str::trim).filter(|l| l.len() >= 12) {
            assert!(!saved.contains(l), "{f}: {l}");
        }
    }
    assert!(!saved.contains("What files are here?"));

    // A key-shaped string in the agent's own text: nothing is written.
    let u = User::new();
    let key = format!("sk-ant-api03-{}", "Q".repeat(40));
    let text = std::fs::read_to_string(&cap).unwrap();
    let first = text.lines().next().unwrap();
    let with_key = first.replacen("You are Codex", &format!("You are Codex {key}"), 1);
    assert_ne!(with_key, first);
    let bad = work.path().join("capture.jsonl");
    std::fs::write(&bad, format!("{with_key}\n")).unwrap();
    let o = u.run(&[
        "agents",
        "learn",
        bad.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(stderr(&o).contains("key-shaped"), "{}", stderr(&o));
    assert!(!stderr(&o).contains(&key[..20]));
    assert!(u.saved().is_empty());
}

#[test]
fn an_unreadable_observation_is_named_and_the_views_go_on() {
    let u = User::new();
    std::fs::create_dir_all(u.folder()).unwrap();
    std::fs::write(u.folder().join("codex@9.json"), "{ not json").unwrap();
    let list = u.ok(&["agents"]);
    assert!(list.contains("unreadable, not used:"), "{list}");
    assert!(list.contains("codex@9.json"), "{list}");
    let ws = fixture("codex-0.171").join("workspace");
    let report = u.ok(&["report", ws.to_str().unwrap()]);
    assert!(report.contains("verified against 0.171.0"), "{report}");
}

#[test]
fn parts_learned_from_a_gemini_cli_request_are_its_recording() {
    let u = User::new();
    // Its first request is its router's, to a small model: refused.
    let o = u.learn("gemini", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("routing call"), "{}", stderr(&o));
    let cap = fixture("gemini").join("capture.jsonl");
    let ws = fixture("gemini").join("workspace");
    let o = u.run(&[
        "agents",
        "learn",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
        "--request",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let learned = u.first_saved();
    assert_same_parts(&learned, &bundled("gemini-0.61.builtin.json"));
}

#[test]
fn parts_learned_from_a_pi_request_are_its_recording() {
    let u = User::new();
    // Pi's requests name no release: it is named.
    let o = u.learn("pi", &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("name it with --release AGENT@VERSION"),
        "{}",
        stderr(&o)
    );
    let o = u.learn("pi", &["--release", "pi@0.73.1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let learned = u.first_saved();
    assert_same_parts(&learned, &bundled("pi-0.73.builtin.json"));
}

#[test]
fn parts_learned_from_an_opencode_request_are_its_recording() {
    let u = User::new();
    let cap = fixture("opencode").join("capture.jsonl");
    let ws = fixture("opencode").join("workspace");
    // Its request 2 (the first of the session; 1 is its title request).
    let o = u.run(&[
        "agents",
        "learn",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
        "--request",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let learned = u.first_saved();
    assert_same_parts(&learned, &bundled("opencode-1.18.builtin.json"));
}

#[test]
fn parts_learned_from_an_openclaw_request_are_its_recording() {
    let u = User::new();
    // OpenClaw's requests name no release: it is named.
    let o = u.learn("openclaw", &["--release", "openclaw@2026.9.6"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let learned = u.first_saved();
    assert_same_parts(&learned, &bundled("openclaw-2026.9.builtin.json"));
    // Its skills listing is the recording's, and said so.
    assert!(
        stdout(&o).contains("the listing of skills and subagents: as recorded from"),
        "{}",
        stdout(&o)
    );
}

/// The traffic views name the release the folder views use, learned ones
/// included (one truth with the report): before `agents learn`, Claude
/// Code 2.1.328's capture is said to differ from the newest recording
/// (2.1.332); after learning it, 2.1.328's capture needs no word, and
/// 2.1.332's says the folder views assume 2.1.328, observed, as the
/// report does.
#[test]
fn the_traffic_views_name_the_learned_release_the_folder_views_use() {
    let u = User::new();
    let old = fixture("claude-code").join("capture.jsonl");
    let new = fixture("claude-code-2.1.332").join("capture.jsonl");
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let before = u.ok(&["traffic", old]);
    assert!(
        before.contains("Claude Code 2.1.328 sent these; its own parts are recorded for that release too, but the folder views assume the newest (2.1.332) unless --profile names the older one (claude-code@2.1)"),
        "{before}"
    );
    assert!(!u.ok(&["traffic", new]).contains("sent these"));
    assert!(u.learn("claude-code", &[]).status.success());
    for format in ["text", "markdown", "html"] {
        let after = u.ok(&["traffic", old, "--format", format]);
        assert!(after.contains("sent by Claude Code 2.1.328"), "{after}");
        assert!(!after.contains("sent these"), "{format}: {after}");
        let newer = u.ok(&["traffic", new, "--format", format]);
        assert!(
            newer.contains("Claude Code 2.1.332 sent these; its own parts are known for that release too, but the folder views assume 2.1.328, observed in your request of"),
            "{format}: {newer}"
        );
    }
    let ws = fixture("claude-code").join("workspace");
    let report = u.ok(&["report", ws.to_str().unwrap()]);
    assert!(
        report.contains("assumed Claude Code 2.1.328, observed in your request of"),
        "{report}"
    );
}

/// `--dry-run` says what it would learn, not that it learned it, and
/// writes nothing.
#[test]
fn a_dry_run_says_it_would_learn_and_writes_nothing() {
    let u = User::new();
    let o = u.learn("codex-0.171", &["--dry-run"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stdout(&o);
    assert!(
        said.starts_with("would learn Codex CLI 0.171.0's own parts"),
        "{said}"
    );
    assert!(said.contains("--dry-run: nothing written"), "{said}");
    assert!(u.saved().is_empty());
}

/// Claude Code 2.1.337 (newer than the bundled 2.1.332; recorded in
/// tests/fixtures/agents/claude-code-2.1.337) changed one built-in skill's
/// description (`claude-api`): learned from its request, that entry of
/// the listing is the request's, the others as recorded, and it is said.
#[test]
fn a_newer_releases_own_listing_entries_are_learned_as_sent() {
    let u = User::new();
    let o = u.learn("claude-code-2.1.337", &["--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let kept = json(&o)["kept_from_recording"].to_string();
    assert!(
        kept.contains("its own entries as the request sends them (1 changed since)"),
        "{kept}"
    );
    let learned = u.first_saved();
    let entry = |parts: &Value, name: &str| -> String {
        parts["listing"]["skills"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let recorded = bundled("claude-code-2.1.332.builtin.json");
    let text =
        std::fs::read_to_string(fixture("claude-code-2.1.337").join("capture.jsonl")).unwrap();
    let sent: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let message = sent["request"]["messages"][1]["content"].to_string();
    let new = entry(&learned, "claude-api");
    assert_ne!(new, entry(&recorded, "claude-api"));
    assert!(
        message.contains(
            &serde_json::to_string(&new)
                .unwrap()
                .trim_matches('"')
                .to_string()
        ),
        "{new}"
    );
    assert_eq!(entry(&learned, "loop"), entry(&recorded, "loop"));
}
