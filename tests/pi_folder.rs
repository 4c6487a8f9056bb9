//! A Pi folder (profile `pi`): rendered for the fixture's folder
//! (tests/fixtures/agents/pi, recorded from Pi 0.73.1 by
//! scripts/record-agent.sh, run in its `src` folder), the system block is
//! what Pi sent byte for byte (its prompt, `# Project Context` with
//! ~/.pi/agent/AGENTS.md, AGENTS.md and src/CLAUDE.md as `## PATH`, the
//! date and the folder), with its four tools; its requests, which name no
//! release, are read with its profile; its session file reads as the
//! capture does.

use crate::common;

use std::path::{Path, PathBuf};

use common::agent_home::AgentHome;
use common::*;
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/pi")
}

/// Request `n` (1-based) as Pi sent it.
fn sent(n: usize) -> Value {
    let text = std::fs::read_to_string(fixture().join("capture.jsonl")).unwrap();
    let line: Value = serde_json::from_str(text.lines().nth(n - 1).unwrap()).unwrap();
    line["request"].clone()
}

/// The fixture's folder at HOME/weather-cli of a private home, with the
/// user's memory Pi had (taken from the request itself).
fn home() -> AgentHome {
    let system = sent(1)["system"][0]["text"].as_str().unwrap().to_string();
    let memory = system
        .split("## /home/user/.pi/agent/AGENTS.md\n\n")
        .nth(1)
        .unwrap()
        .split("\n\n## /home/user/weather-cli/AGENTS.md")
        .next()
        .unwrap()
        .to_string();
    AgentHome::new("pi", "weather-cli", (".pi/agent/AGENTS.md", &memory))
}

/// The date line's value of a system text.
fn date(system: &str) -> &str {
    system
        .split("Current date: ")
        .nth(1)
        .unwrap()
        .split('\n')
        .next()
        .unwrap()
}

#[test]
fn the_rendered_system_block_and_tools_are_what_pi_sent() {
    let h = home();
    let ws = h.ws();
    let body: Value = serde_json::from_str(&h.run(&[
        "render",
        &ws,
        "--request-json",
        "--user-memory",
        "--workdir",
        "src",
        "--profile",
        "pi",
    ]))
    .unwrap();
    let real = sent(1);
    let ours = body["system"][0]["text"].as_str().unwrap();
    let theirs = real["system"][0]["text"].as_str().unwrap();
    assert_eq!(ours.replace(date(ours), date(theirs)), theirs);
    assert_eq!(
        body["system"][0]["cache_control"],
        real["system"][0]["cache_control"]
    );
    assert_eq!(body["system"].as_array().unwrap().len(), 1);
    assert_eq!(body["tools"], real["tools"]);
}

#[test]
fn a_pi_folder_is_detected_counted_and_its_requests_read_with_its_profile() {
    let h = home();
    let ws = h.ws();
    // Without .pi an AGENTS.md folder is Codex's; with it, Pi's.
    std::fs::create_dir_all(Path::new(&ws).join(".pi")).unwrap();
    let report = h.run(&["report", &ws, "--user-memory", "--workdir", "src"]);
    assert!(report.contains("profile: pi@0.73 (.pi present"), "{report}");
    assert!(
        report.contains("from Pi 0.73.1 (built in, not your files)"),
        "{report}"
    );
    assert!(
        report.contains("4 tool definitions: read, bash, edit, write"),
        "{report}"
    );
    std::fs::remove_dir(Path::new(&ws).join(".pi")).unwrap();
    // Pi's requests name no release: the agent is known by its own words,
    // and the request is read with its profile (not Codex's, which the
    // folder alone suggests), every file found.
    let cap = fixture().join("capture.jsonl");
    let against: Value = serde_json::from_str(&h.run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        &ws,
        "--workdir",
        "src",
        "--request",
        "1",
        "--format",
        "json",
    ]))
    .unwrap();
    let parts = against["attribution"]["parts"].as_array().unwrap();
    assert_eq!(
        parts[0]["agent"], "Pi 0.73.1's tool read",
        "read with Pi's profile: {against}"
    );
    let files: Vec<&str> = against["attribution"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["sent"] == "whole")
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 3, "{against}");
    for f in ["AGENTS.md", "src/CLAUDE.md", "~/.pi/agent/AGENTS.md"] {
        assert!(files.contains(&f), "{f} not found whole: {files:?}");
    }
    // The folder's view against the request as sent (o200k): its system
    // block and tools within 5 %.
    let sent_tokens: u64 = parts
        .iter()
        .filter(|p| !p["label"].as_str().unwrap().starts_with("message"))
        .map(|p| p["tokens"].as_u64().unwrap())
        .sum();
    let r: Value = serde_json::from_str(&h.run(&[
        "report",
        &ws,
        "--user-memory",
        "--workdir",
        "src",
        "--profile",
        "pi",
        "--format",
        "json",
    ]))
    .unwrap();
    let ours = r["total_tokens"].as_u64().unwrap() + r["tools_tokens"].as_u64().unwrap();
    let off = (ours as f64 - sent_tokens as f64).abs() / sent_tokens as f64;
    assert!(off < 0.05, "ours {ours}, sent {sent_tokens}");
}

#[test]
fn pis_session_file_reads_as_its_capture() {
    let file = std::fs::read_dir(fixture().join("transcript"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    let of = |p: &Path| -> Value {
        let o = run(&["traffic", p.to_str().unwrap(), "--format", "json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        json(&o)
    };
    let (session, capture) = (of(&file), of(&fixture().join("capture.jsonl")));
    assert_eq!(session["source"], "pi");
    for k in [
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "input_tokens",
        "output_tokens",
        "requests",
    ] {
        assert_eq!(session["totals"][k], capture["totals"][k], "{k}");
    }
    let text = run(&["traffic", file.to_str().unwrap()]);
    assert!(stdout(&text).starts_with("traffic from a Pi session file · 3 requests"));
}
