//! Claude Code's memory files in subfolders (tests/fixtures/agents/
//! claude-code-nested, recorded from Claude Code 2.1.332 reading
//! pkg/api/health.go by scripts/record-agent.sh with
//! CLAUDE_SCENARIO=nested-memory): the folder view lists each of them as
//! on demand, never in the first request, as the block Claude Code adds
//! after the read, byte for byte and in its order; `traffic --against`
//! finds each file in the request that carried it. The files hold HTML
//! comments of every shape, which Claude Code leaves out of the memory in
//! the first request and of the nested blocks alike.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use prompt_inspector::engine;
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/claude-code-nested")
}

/// The requests Claude Code sent, in order.
fn sent() -> Vec<Value> {
    std::fs::read_to_string(fixture().join("capture.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["request"].clone())
        .collect()
}

/// The text blocks after the tool's result in a request's last user turn.
fn after_the_read(request: &Value) -> Vec<String> {
    let turn = request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .unwrap();
    let blocks = turn["content"].as_array().unwrap();
    let read = blocks
        .iter()
        .position(|b| b["type"] == "tool_result")
        .unwrap();
    blocks[read + 1..]
        .iter()
        .map(|b| b["text"].as_str().unwrap().to_string())
        .collect()
}

/// The fixture's folder at a private `…/project`, as the agent had it.
fn project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("project");
    copy_dir(&fixture().join("workspace"), &root);
    (dir, root)
}

#[test]
fn nested_memory_is_listed_on_demand_as_the_blocks_claude_code_sent() {
    let (_dir, root) = project();
    let ws = engine::load_workspace(&root, &engine::Options::default()).unwrap();
    let shown = root.display().to_string();
    let ours: Vec<String> = ws
        .fragments
        .iter()
        .filter(|f| f.id.starts_with("nested."))
        .map(|f| f.body.replace(&shown, "/home/user/project"))
        .collect();
    let requests = sent();
    let theirs = after_the_read(requests.last().unwrap());
    assert_eq!(theirs.len(), 4, "{theirs:#?}");
    assert_eq!(ours, theirs);
    // None of them is in the first request, and the report says so.
    let first = requests[0].to_string();
    assert!(!first.contains("All handlers return JSON"));
    let report: Value = serde_json::from_str(&stdout(&run(&[
        "report",
        root.to_str().unwrap(),
        "--format",
        "json",
    ])))
    .unwrap();
    let nested: Vec<&Value> = report["fragments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["id"].as_str().unwrap().starts_with("nested."))
        .collect();
    let sources: Vec<&str> = nested
        .iter()
        .map(|f| f["source"].as_str().unwrap())
        .collect();
    assert_eq!(
        sources,
        [
            "pkg/api/CLAUDE.md",
            "pkg/api/pagination.md",
            "pkg/api/.claude/CLAUDE.md",
            "pkg/api/CLAUDE.local.md"
        ]
    );
    for f in &nested {
        assert_eq!(f["kept_tokens"], 0, "{f}");
        let reason = f["reason"].as_str().unwrap();
        assert!(
            reason.contains("after it first reads a file in pkg/api/"),
            "{reason}"
        );
    }
    // The context view lists them apart, not in use, with the same tokens.
    let context: Value = serde_json::from_str(&stdout(&run(&[
        "context",
        root.to_str().unwrap(),
        "--format",
        "json",
    ])))
    .unwrap();
    let on_demand = context["memory_files_on_demand"].as_array().unwrap();
    let tokens =
        |v: &[&Value]| -> Vec<u64> { v.iter().map(|f| f["tokens"].as_u64().unwrap()).collect() };
    assert_eq!(
        tokens(&on_demand.iter().collect::<Vec<_>>()),
        tokens(&nested)
    );
    let memory = context["memory_files"].as_array().unwrap();
    assert_eq!(memory.len(), 1, "{memory:?}");
}

#[test]
fn traffic_against_the_folder_names_each_nested_file_in_the_request_that_carried_it() {
    let (_dir, root) = project();
    let capture = fixture().join("capture.jsonl");
    let out = stdout(&run(&[
        "traffic",
        capture.to_str().unwrap(),
        "--against",
        root.to_str().unwrap(),
    ]));
    let files = out.split("Your files in this request:").last().unwrap();
    for f in [
        "pkg/api/CLAUDE.md",
        "pkg/api/pagination.md",
        "pkg/api/.claude/CLAUDE.md",
        "pkg/api/CLAUDE.local.md",
    ] {
        assert!(
            files.contains(&format!("  {f} ")),
            "{f} not found:\n{files}"
        );
    }
}

#[test]
fn the_first_requests_memory_block_leaves_comments_out_as_claude_code_did() {
    let (_dir, root) = project();
    let body: Value = serde_json::from_str(&stdout(&run(&[
        "render",
        root.to_str().unwrap(),
        "--request-json",
    ])))
    .unwrap();
    let ours = body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .replace(&root.display().to_string(), "/home/user/project");
    let theirs = sent()[0]["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        theirs.contains("A line\nB line\n\nC line\nD <!-- inline --> E"),
        "{theirs}"
    );
    assert_eq!(ours, theirs);
}
