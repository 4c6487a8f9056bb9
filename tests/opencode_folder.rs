//! An OpenCode folder (profile `opencode`): rendered for the fixture's
//! folder (tests/fixtures/agents/opencode, recorded from OpenCode 1.18.33
//! by scripts/record-agent.sh, run in its `api` folder), the system block
//! is what OpenCode sent byte for byte (its prompt, its `<env>` block, the
//! instruction files from the working folder up, nearest first, after
//! ~/.config/opencode/AGENTS.md, its skills list), with its ten tools; its
//! requests name its release and are traced with its profile; its first
//! request, a title request to its small model, is a chain of its own.

use crate::common;

use std::path::{Path, PathBuf};

use common::agent_home::AgentHome;
use common::*;
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/opencode")
}

/// Request `n` (1-based) as OpenCode sent it.
fn sent(n: usize) -> Value {
    let text = std::fs::read_to_string(fixture().join("capture.jsonl")).unwrap();
    let line: Value = serde_json::from_str(text.lines().nth(n - 1).unwrap()).unwrap();
    line["request"].clone()
}

/// The fixture's folder at HOME/ledger of a private home, with the user's
/// instructions OpenCode had (taken from the request itself).
fn home() -> AgentHome {
    let system = sent(2)["system"][0]["text"].as_str().unwrap().to_string();
    let memory = system
        .split("Instructions from: /home/user/.config/opencode/AGENTS.md\n")
        .nth(1)
        .unwrap()
        .split("\nInstructions from: ")
        .next()
        .unwrap()
        .to_string();
    AgentHome::new(
        "opencode",
        "ledger",
        (".config/opencode/AGENTS.md", &memory),
    )
}

/// The date line's value of a system text.
fn date(system: &str) -> &str {
    system
        .split("Today's date: ")
        .nth(1)
        .unwrap()
        .split('\n')
        .next()
        .unwrap()
}

#[test]
fn the_rendered_system_block_and_tools_are_what_opencode_sent() {
    let h = home();
    let ws = h.ws();
    let body: Value = serde_json::from_str(&h.run(&[
        "render",
        &ws,
        "--request-json",
        "--user-memory",
        "--workdir",
        "api",
        "--profile",
        "opencode",
    ]))
    .unwrap();
    let real = sent(2);
    let ours = body["system"][0]["text"].as_str().unwrap();
    let theirs = real["system"][0]["text"].as_str().unwrap();
    assert_eq!(ours.replace(date(ours), date(theirs)), theirs);
    assert_eq!(body["system"].as_array().unwrap().len(), 1);
    assert_eq!(body["tools"], real["tools"]);
}

#[test]
fn an_opencode_folder_is_detected_and_its_requests_traced_with_its_profile() {
    let h = home();
    let ws = h.ws();
    std::fs::write(Path::new(&ws).join("opencode.json"), "{}").unwrap();
    let report = h.run(&["report", &ws, "--user-memory", "--workdir", "api"]);
    assert!(
        report.contains("profile: opencode@1.18 (opencode.json present"),
        "{report}"
    );
    assert!(
        report.contains("from OpenCode 1.18.33 (built in, not your files)"),
        "{report}"
    );
    assert!(
        report.contains("10 tool definitions: bash, edit, glob"),
        "{report}"
    );
    std::fs::remove_file(Path::new(&ws).join("opencode.json")).unwrap();
    // Its User-Agent names its release: the request is read with the
    // profile recorded from it, every file found.
    let cap = fixture().join("capture.jsonl");
    let against: Value = serde_json::from_str(&h.run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        &ws,
        "--workdir",
        "api",
        "--request",
        "2",
        "--format",
        "json",
    ]))
    .unwrap();
    let parts = against["attribution"]["parts"].as_array().unwrap();
    assert_eq!(
        parts[0]["agent"], "OpenCode 1.18.33's tool bash",
        "{against}"
    );
    let files: Vec<&str> = against["attribution"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["sent"] == "whole")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    for f in ["AGENTS.md", "api/AGENTS.md", "~/.config/opencode/AGENTS.md"] {
        assert!(files.contains(&f), "{f} not found whole: {files:?}");
    }
    // The title request is a chain of its own; the session's first request
    // is the main chain's first, cold.
    let o = run(&["traffic", cap.to_str().unwrap(), "--format", "json"]);
    let t = json(&o);
    let rows = t["requests"].as_array().unwrap();
    assert_ne!(rows[0]["chain"], rows[1]["chain"]);
    assert_eq!(rows[1]["miss"]["kind"], "cold");
    assert_eq!(rows[0]["release"]["version"], "1.18.33");
}

/// OpenCode reads Claude Code's `~/.claude/CLAUDE.md` when it has no
/// `~/.config/opencode/AGENTS.md`: not shown without `--user-memory`, the
/// report says so, naming the file OpenCode reads.
#[test]
fn opencodes_fallback_home_memory_not_shown_is_said() {
    let h = home();
    let ws = h.ws();
    std::fs::remove_file(h.home().join(".config/opencode/AGENTS.md")).unwrap();
    std::fs::create_dir_all(h.home().join(".claude")).unwrap();
    std::fs::write(
        h.home().join(".claude/CLAUDE.md"),
        "Prefer short answers.\n",
    )
    .unwrap();
    std::fs::write(Path::new(&ws).join("opencode.json"), "{}").unwrap();
    let report = h.run(&["report", &ws]);
    assert!(
        report
            .contains("~/.claude/CLAUDE.md: warning: the agent sends this file with every request"),
        "{report}"
    );
    let read = h.run(&["report", &ws, "--user-memory"]);
    assert!(
        !read.contains("the agent sends this file with every request"),
        "{read}"
    );
    assert!(read.contains("~/.claude/CLAUDE.md"), "{read}");
}
