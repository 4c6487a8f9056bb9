//! Which agent release sent each request, read from the request itself
//! (issue 38): Claude Code's billing header, the client headers the proxy
//! records (User-Agent, Codex's `originator` and `version`), a transcript's
//! version; shown by every traffic view, with both releases where the
//! bundled recording of the agent's own parts is of another one.

use crate::common;
use crate::otlp;

use common::*;
use serde_json::Value;

fn fixture(rel: &str) -> std::path::PathBuf {
    otlp::fixture(rel)
}

fn releases(file: &std::path::Path) -> Vec<Value> {
    let o = run(&["traffic", file.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["release"].clone())
        .collect()
}

#[test]
fn the_recorded_agents_name_their_release_in_every_view() {
    for (src, name, from) in [
        (
            "claude-code/capture.jsonl",
            "Claude Code 2.1.328",
            "the billing header in its system prompt",
        ),
        (
            "claude-code/transcript",
            "Claude Code 2.1.328",
            "its transcript",
        ),
        ("codex/transcript", "Codex CLI 0.169.0", "its transcript"),
    ] {
        let f = fixture(src);
        for r in releases(&f) {
            assert_eq!(
                format!(
                    "{} {}",
                    r["agent"].as_str().unwrap(),
                    r["version"].as_str().unwrap()
                ),
                name,
                "{src}"
            );
            assert_eq!(r["from"], from, "{src}");
        }
        let text = stdout(&run(&["traffic", f.to_str().unwrap()]));
        assert!(
            text.contains(&format!("sent by {name} ({from})")),
            "{src}: {text}"
        );
        // The bundled recording is of the same release: nothing to warn of.
        assert!(!text.contains("this tool's recording"), "{src}: {text}");
        let md = stdout(&run(&[
            "traffic",
            f.to_str().unwrap(),
            "--format",
            "markdown",
        ]));
        assert!(md.contains(&format!("sent by {name}")), "{src}");
        let rows = otlp::jsonl_rows(&f);
        assert!(rows.iter().all(|r| r["release"] == name), "{src}");
    }
}

#[test]
fn a_newer_release_than_the_recording_is_said_with_both() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("capture.jsonl");
    let body = std::fs::read_to_string(fixture("claude-code/capture.jsonl")).unwrap();
    std::fs::write(
        &cap,
        body.replace("cc_version=2.1.328.", "cc_version=2.1.340."),
    )
    .unwrap();
    let text = stdout(&run(&["traffic", cap.to_str().unwrap()]));
    assert!(text.contains("sent by Claude Code 2.1.340"), "{text}");
    assert!(
        text.contains("Claude Code 2.1.340 sent these; this tool's recording of Claude Code's own parts is of 2.1.332"),
        "{text}"
    );
}

#[test]
fn the_proxy_records_the_clients_name_and_release_and_no_key() {
    let up = otlp::upstream();
    let p = proxy(&up, &up, &[]);
    let c = reqwest::blocking::Client::new();
    let r = c
        .post(format!("{}/v1/messages", p.url))
        .header("x-api-key", otlp::KEY)
        .header("user-agent", "codex_exec/0.171.0 (Debian 12; x86_64) sk-ant-api03-UAKEYuakeyUAKEYuakey0123")
        .header("originator", "codex_exec")
        .header("version", "0.171.0")
        .header("content-type", "application/json")
        .body(r#"{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}"#)
        .send()
        .unwrap();
    r.bytes().unwrap();
    otlp::wait_lines(&p.capture, 1);
    let line = std::fs::read_to_string(&p.capture).unwrap();
    let v: Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    assert_eq!(v["client"]["originator"], "codex_exec");
    assert_eq!(v["client"]["version"], "0.171.0");
    assert!(
        !line.contains("UAKEY"),
        "a key in a header's text is redacted: {line}"
    );
    let rel = &releases(&p.capture)[0];
    assert_eq!(rel["agent"], "Codex CLI");
    assert_eq!(rel["version"], "0.171.0");
    assert_eq!(rel["from"], "its originator and version headers");
    // 0.171.0's own parts are bundled: nothing to warn of.
    let text = stdout(&run(&["traffic", p.capture.to_str().unwrap()]));
    assert!(text.contains("sent by Codex CLI 0.171.0"), "{text}");
    assert!(!text.contains("this tool's recording"), "{text}");
}

/// A Claude Code `/btw` side question replays earlier answers in its
/// sidechain (the same message id, a new request id): each answer is one
/// request, counted once (issue 38).
#[test]
fn a_btw_replay_of_an_answer_is_not_counted_again() {
    let src = fixture("claude-code/transcript/3107089a-7280-42d2-8b65-0debdb3995cb.jsonl");
    let text = std::fs::read_to_string(&src).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.jsonl");
    std::fs::write(&plain, &text).unwrap();
    let answer = text
        .lines()
        .find(|l| l.contains(r#""type":"assistant""#) && l.contains(r#""usage""#))
        .unwrap();
    let mut replay: Value = serde_json::from_str(answer).unwrap();
    replay["requestId"] = "req_btw_replay_0001".into();
    replay["isSidechain"] = true.into();
    replay["agentId"] = "btw".into();
    let with_btw = dir.path().join("btw.jsonl");
    std::fs::write(&with_btw, format!("{text}{replay}\n")).unwrap();
    let count = |f: &std::path::Path| {
        let o = run(&["traffic", f.to_str().unwrap(), "--format", "json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let v = json(&o);
        (
            v["requests"].as_array().unwrap().len(),
            v["totals"]["cost_usd"].as_f64().unwrap(),
        )
    };
    assert_eq!(count(&with_btw), count(&plain));
}

/// Recorded from Codex 0.171.0, whose own parts are now bundled beside
/// 0.169.0's: its capture needs no warning, the older release's says the
/// folder views assume the newest; the folder view of the fixture's
/// workspace is within 1 % of the first request's real size (o200k), where
/// 0.169.0's recording was 10 % short.
#[test]
fn codex_0_171_is_recorded_and_its_folder_view_is_its_request() {
    let cap = fixture("codex-0.171/capture.jsonl");
    let text = stdout(&run(&["traffic", cap.to_str().unwrap()]));
    assert!(text.contains("sent by Codex CLI 0.171.0"), "{text}");
    assert!(!text.contains("this tool's recording"), "{text}");
    let old = stdout(&run(&[
        "traffic",
        fixture("codex/transcript").to_str().unwrap(),
    ]));
    assert!(
        old.contains("Codex CLI 0.169.0 sent these; its own parts are recorded for that release too, but the folder views assume the newest (0.171.0)"),
        "{old}"
    );
    assert_folder_view_within_1_percent("codex-0.171", &["--workdir", "tools"]);
    let v = json(&run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--format",
        "json",
    ]));
    let rows = v["requests"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "the WebSocket attempts are not requests");
    assert!(
        rows.iter()
            .all(|r| r["model"] == "gpt-6.2-sol" && r["priced"] == true)
    );
}

/// Claude Code 2.1.332's folder, its own parts bundled for that release:
/// the folder view is within 1 % of the request it really sent (o200k),
/// as Codex 0.171.0's is.
#[test]
fn claude_code_2_1_332_folder_view_is_within_1_percent_of_its_request() {
    assert_folder_view_within_1_percent("claude-code-2.1.332", &[]);
}

/// `context` of the fixture's workspace (with `extra` arguments) uses
/// within 1 % of the tokens of the first request its capture holds
/// (o200k).
fn assert_folder_view_within_1_percent(agent: &str, extra: &[&str]) {
    let cap = fixture(&format!("{agent}/capture.jsonl"));
    let parts = json(&run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--format",
        "json",
    ]))["requests"][0]["parts_tokens"]
        .as_u64()
        .unwrap() as f64;
    let ws = fixture(&format!("{agent}/workspace"));
    let mut args = vec!["context", ws.to_str().unwrap(), "--format", "json"];
    args.extend(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let used = json(&o)["used"].as_u64().expect("used") as f64;
    assert!(
        (used - parts).abs() / parts < 0.01,
        "{agent}: folder view {used} against the request's {parts}"
    );
}
