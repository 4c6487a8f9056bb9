//! `traffic` beside ccusage, the tool Claude Code users read their usage
//! with, on the same project folders: Claude Code 2.1.328's transcript of
//! tests/fixtures/agents/claude-code (a session and its subagent), that
//! folder with a resumed session's copied lines, and the same lines under a
//! model both tools price (5-minute writes, then 1-hour writes). ccusage is
//! installed from npm by scripts/ccusage.sh; `.ci/run` does it and runs
//! these.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

use common::*;

const NEEDS: &str =
    "needs ccusage from npm (scripts/ccusage.sh, PROMPT_INSPECTOR_CCUSAGE); .ci/run runs it";

fn ccusage() -> PathBuf {
    PathBuf::from(std::env::var("PROMPT_INSPECTOR_CCUSAGE").expect(NEEDS))
}

/// A Claude Code configuration folder holding the fixture's transcript as
/// one project, each file's text passed through `edit`.
fn config_dir(edit: impl Fn(String) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/claude-code/transcript");
    let to = dir.path().join("projects/-home-user-project");
    copy_edited(&from, &to, &edit);
    dir
}

fn copy_edited(from: &Path, to: &Path, edit: &impl Fn(String) -> String) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let target = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_edited(&p, &target, edit);
        } else {
            std::fs::write(target, edit(std::fs::read_to_string(&p).unwrap())).unwrap();
        }
    }
}

/// ccusage's totals over a configuration folder (offline: its bundled prices).
fn theirs(config: &Path) -> Value {
    let o = std::process::Command::new(ccusage())
        .args(["session", "--offline", "--json"])
        .env("CLAUDE_CONFIG_DIR", config)
        .env("HOME", config)
        .output()
        .expect("ccusage runs");
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)["totals"].clone()
}

/// Ours over the same folder.
fn ours(config: &Path) -> Value {
    let projects = config.join("projects");
    let o = run(&["traffic", projects.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)["totals"].clone()
}

fn same_tokens(ours: &Value, theirs: &Value) {
    for (a, b) in [
        ("input_tokens", "inputTokens"),
        ("cache_creation_input_tokens", "cacheCreationTokens"),
        ("cache_read_input_tokens", "cacheReadTokens"),
        ("output_tokens", "outputTokens"),
    ] {
        assert_eq!(ours[a], theirs[b], "{a} / {b}");
    }
}

fn same_cost(ours: &Value, theirs: &Value) {
    let (a, b) = (
        ours["cost_usd"].as_f64().unwrap(),
        theirs["totalCost"].as_f64().unwrap(),
    );
    assert!(b > 0.0, "ccusage priced it");
    assert!((a - b).abs() < 1e-5, "ours ${a} vs ccusage's ${b}");
}

#[test]
#[ignore = "needs ccusage from npm (scripts/ccusage.sh, PROMPT_INSPECTOR_CCUSAGE); .ci/run runs it"]
fn the_recorded_project_has_ccusages_token_totals() {
    let c = config_dir(|t| t);
    let (o, t) = (ours(c.path()), theirs(c.path()));
    same_tokens(&o, &t);
    // ccusage's bundled prices do not know Claude Code 2.1's default model
    // yet; ours (LiteLLM's table) do: it is named, never priced as another.
    assert_eq!(t["unpricedModels"][0], "claude-opus-5-5");
    assert!(o["cost_usd"].as_f64().unwrap() > 0.0);
}

#[test]
#[ignore = "needs ccusage from npm (scripts/ccusage.sh, PROMPT_INSPECTOR_CCUSAGE); .ci/run runs it"]
fn a_resumed_sessions_copied_lines_count_once_in_both() {
    let c = config_dir(|t| t);
    let project = c.path().join("projects/-home-user-project");
    let session = std::fs::read_dir(&project)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    let text = std::fs::read_to_string(&session).unwrap();
    let stem = session.file_stem().unwrap().to_str().unwrap();
    let resumed = "aaaaaaaa-0000-4000-8000-000000000000";
    std::fs::write(
        project.join(format!("{resumed}.jsonl")),
        text.replace(stem, resumed),
    )
    .unwrap();
    same_tokens(&ours(c.path()), &theirs(c.path()));
}

#[test]
#[ignore = "needs ccusage from npm (scripts/ccusage.sh, PROMPT_INSPECTOR_CCUSAGE); .ci/run runs it"]
fn a_model_both_price_costs_the_same_with_5_minute_and_1_hour_writes() {
    let sonnet = |t: String| t.replace("claude-opus-5-5", "claude-sonnet-4-5-20250929");
    let c = config_dir(sonnet);
    let (o, t) = (ours(c.path()), theirs(c.path()));
    same_tokens(&o, &t);
    same_cost(&o, &t);
    // The same writes made with a 1-hour TTL (priced at twice the input).
    let hour = |t: String| {
        let t = sonnet(t);
        let re =
            regex::Regex::new(r#""ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":(\d+)"#)
                .unwrap();
        re.replace_all(
            &t,
            r#""ephemeral_1h_input_tokens":$1,"ephemeral_5m_input_tokens":0"#,
        )
        .into_owned()
    };
    let c = config_dir(hour);
    let (o1, t1) = (ours(c.path()), theirs(c.path()));
    same_tokens(&o1, &t1);
    same_cost(&o1, &t1);
    assert!(o1["cost_usd"].as_f64() > o["cost_usd"].as_f64());
}

/// A Codex home holding the fixture's session file where Codex keeps it,
/// its text passed through `edit`.
fn codex_home(edit: impl Fn(String) -> String) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/codex/transcript");
    copy_edited(&from, &dir.path().join("sessions/2026/12/01"), &edit);
    dir
}

#[test]
#[ignore = "needs ccusage from npm (scripts/ccusage.sh, PROMPT_INSPECTOR_CCUSAGE); .ci/run runs it"]
fn codex_sessions_have_ccusages_totals_and_cost() {
    for (model, priced) in [("gpt-6.1-sol", false), ("gpt-5", true)] {
        let home = codex_home(|t| t.replace("gpt-6.1-sol", model));
        let o = std::process::Command::new(ccusage())
            .args(["codex", "session", "--offline", "--json"])
            .env("CODEX_HOME", home.path())
            .env("HOME", home.path())
            .output()
            .expect("ccusage runs");
        assert!(o.status.success(), "{}", stderr(&o));
        let theirs = json(&o)["totals"].clone();
        let sessions = home.path().join("sessions");
        let o = run(&["traffic", sessions.to_str().unwrap(), "--format", "json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let ours = json(&o)["totals"].clone();
        same_tokens(&ours, &theirs);
        if priced {
            let (a, b) = (
                ours["cost_usd"].as_f64().unwrap(),
                theirs["costUSD"].as_f64().unwrap(),
            );
            assert!(
                b > 0.0 && (a - b).abs() < 1e-5,
                "ours ${a} vs ccusage's ${b}"
            );
        } else {
            assert_eq!(theirs["unpricedModels"][0], model);
        }
    }
}
