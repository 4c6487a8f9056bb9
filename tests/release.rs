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

/// Claude Code's folder for a project under `~/.claude/projects`: the
/// path with every character but an ASCII letter or digit a dash.
fn claude_project(root: &std::path::Path) -> String {
    root.to_str()
        .unwrap()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// A copy of an agent fixture's folder, and a home whose session files of
/// that folder are the fixture's transcript (its recorded folder made the
/// copy's path).
fn folder_with_sessions(
    dir: &std::path::Path,
    agent: &str,
    recorded_cwd: &str,
    sessions: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let ws = dir.join("project");
    copy_dir(&fixture(&format!("{agent}/workspace")), &ws);
    let ws = ws.canonicalize().unwrap();
    let home = dir.join("home");
    let transcripts = fixture(&format!("{agent}/transcript"));
    for e in std::fs::read_dir(&transcripts).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&p)
            .unwrap()
            .replace(recorded_cwd, ws.to_str().unwrap());
        let to = home.join(sessions.replace("{project}", &claude_project(&ws)));
        std::fs::create_dir_all(&to).unwrap();
        std::fs::write(to.join(p.file_name().unwrap()), text).unwrap();
    }
    (ws, home)
}

/// A Claude Code folder whose newest session (in `~/.claude/projects`)
/// ran 2.1.328 while the views show the bundled 2.1.332's own parts: the
/// report (text, JSON, Markdown) and the context view (text, JSON,
/// Markdown) say so with both releases, the session file and line, and
/// the profile that shows 2.1.328's; with that profile, nothing is said.
#[test]
fn a_folder_whose_agent_ran_an_older_release_says_so_in_the_report_and_context() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, home) = folder_with_sessions(
        dir.path(),
        "claude-code",
        "/home/user/project",
        ".claude/projects/{project}",
    );
    let w = ws.to_str().unwrap();
    let file = format!("~/.claude/projects/{}/", claude_project(&ws));
    let report = run_home(&home, &["report", w]);
    assert!(report.status.success(), "{}", stderr(&report));
    let text = stdout(&report);
    let said = "Claude Code 2.1.328 ran in this folder (its newest session here, 2026-12-01); the agent's own parts shown are Claude Code 2.1.332's (the bundled recording): `--profile claude-code@2.1` shows 2.1.328's";
    assert!(text.contains(said), "{text}");
    assert!(text.contains(&file), "{text}");
    let v = json(&run_home(&home, &["report", w, "--format", "json"]));
    let diag = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("2.1.328 ran"))
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(diag["severity"], "warning");
    assert!(diag["file"].as_str().unwrap().starts_with(&file), "{diag}");
    assert!(diag["line"].as_u64().unwrap() >= 1, "{diag}");
    let md = stdout(&run_home(&home, &["report", w, "--format", "markdown"]));
    assert!(
        md.contains("Claude Code 2.1.328 ran in this folder"),
        "{md}"
    );

    let ctx = stdout(&run_home(&home, &["context", w]));
    // The report's warning, word for word, and where it was read.
    assert!(ctx.contains(said), "{ctx}");
    assert!(ctx.contains(&format!("(read from {file}")), "{ctx}");
    let cj = json(&run_home(&home, &["context", w, "--format", "json"]));
    assert!(
        cj["other_release"]
            .as_str()
            .is_some_and(|s| s.contains("2.1.328") && s.contains("2.1.332")),
        "{cj}"
    );
    let cm = stdout(&run_home(&home, &["context", w, "--format", "markdown"]));
    assert!(
        cm.contains("**Claude Code 2.1.328 ran in this folder"),
        "{cm}"
    );

    // The release it ran: nothing to say.
    for args in [
        vec!["report", w, "--profile", "claude-code@2.1"],
        vec!["context", w, "--profile", "claude-code@2.1"],
    ] {
        let o = stdout(&run_home(&home, &args));
        assert!(!o.contains("ran in this folder"), "{args:?}: {o}");
        assert!(o.contains("2.1.328"), "{args:?}: {o}");
    }
    // Without the session file: nothing either.
    let o = stdout(&run_home(dir.path(), &["report", w]));
    assert!(!o.contains("ran in this folder"), "{o}");
    // `traffic` on the folder itself, which holds no traffic, names where
    // its transcripts are.
    let o = run_home(&home, &["traffic", w]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!(
            "no .jsonl file in this folder; this folder's traffic is in {}: `prompt-inspector traffic {}`",
            file.trim_end_matches('/'),
            file.trim_end_matches('/')
        )),
        "{}",
        stderr(&o)
    );
}

/// The reverse, for Codex: its newest session of the folder (in
/// `~/.codex/sessions/YYYY/MM/DD`, started in a subfolder) ran 0.171.0
/// while the views show 0.169.0's parts; a session of another folder is
/// not taken for this one.
#[test]
fn a_folder_whose_agent_ran_a_newer_release_than_the_shown_parts_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (ws, home) = folder_with_sessions(
        dir.path(),
        "codex-0.171-home",
        "/home/user/repo",
        ".codex/sessions/2026/12/06",
    );
    let w = ws.to_str().unwrap();
    let text = stdout(&run_home(&home, &["report", w, "--profile", "codex@0.169"]));
    assert!(
        text.contains("Codex CLI 0.171.0 ran in this folder (its newest session here, 2026-12-06); the agent's own parts shown are Codex CLI 0.169.0's (the bundled recording): `--profile codex@0.171` shows 0.171.0's"),
        "{text}"
    );
    assert!(
        text.contains("~/.codex/sessions/2026/12/06/rollout-"),
        "{text}"
    );
    let ctx = stdout(&run_home(
        &home,
        &["context", w, "--profile", "codex@0.169"],
    ));
    assert!(
        ctx.contains("Codex CLI 0.171.0 ran in this folder"),
        "{ctx}"
    );
    let same = stdout(&run_home(&home, &["report", w]));
    assert!(!same.contains("ran in this folder"), "{same}");

    // The same session, of a sibling folder: not this folder's.
    let other = dir.path().join("project-2");
    copy_dir(&ws, &other);
    let o = stdout(&run_home(
        &home,
        &[
            "report",
            other.to_str().unwrap(),
            "--profile",
            "codex@0.169",
        ],
    ));
    assert!(!o.contains("ran in this folder"), "{o}");
}

/// The Traffic tab names the release that sent a capture of an older
/// release than the views assume, with both: the same lines as `traffic`.
#[test]
fn the_traffic_tab_says_an_older_release_sent_the_capture_with_both() {
    use egui_kittest::kittest::{NodeT, Queryable};
    let cap = fixture("claude-code/capture.jsonl");
    let mut h = crate::window::harness(sample());
    crate::window::open_in_traffic(&mut h, &cap);
    h.run_steps(2);
    h.get_by_label_contains(
        "sent by Claude Code 2.1.328 (the billing header in its system prompt)",
    );
    let assumed = prompt_inspector::assumed_releases();
    let claude = assumed.iter().find(|a| a.agent == "Claude Code");
    if claude.is_none_or(|a| a.release != "2.1.328") {
        // What the folder views assume here (the bundled 2.1.332 unless
        // this user learned another): the line names both releases.
        let newest = claude.map_or("2.1.332", |a| a.release.as_str());
        let line = h
            .get_by_label_contains("Claude Code 2.1.328 sent these")
            .accesskit_node()
            .value()
            .unwrap_or_default()
            .to_string();
        assert!(line.contains(newest), "{line}");
        let cli = stdout(&run(&["traffic", cap.to_str().unwrap()]));
        if newest == "2.1.332" {
            assert!(
                cli.contains(&line),
                "the Traffic tab and `traffic` differ: {line}\n{cli}"
            );
        }
    }
}

/// A request that names no release (the Codex 0.169.0 capture, recorded
/// before the proxy kept client headers) is read with the release whose
/// own parts it holds: `codex@0.169`, whose 4,212-token instructions it
/// sent, not the newest profile the folder assumes; and `--check-profile`
/// checks it with that one.
#[test]
fn a_request_naming_no_release_is_read_with_the_release_whose_parts_it_holds() {
    let cap = fixture("codex/capture.jsonl");
    let ws = fixture("codex/workspace");
    let args = [
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.to_str().unwrap(),
        "--request",
        "1",
    ];
    let mut c = args.to_vec();
    c.extend(["--check-profile", "--format", "json"]);
    let check = json(&run(&c));
    assert_eq!(check["profile"], "codex@0.169", "{check}");
    let why = check["profile_chosen_because"].as_str().unwrap();
    assert!(
        why.starts_with("the release whose own parts the request holds"),
        "{why}"
    );
    let mut j = args.to_vec();
    j.extend(["--format", "json"]);
    let a = json(&run(&j));
    let instructions = a["attribution"]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["label"] == "message 2 (developer)")
        .unwrap()
        .clone();
    assert!(
        instructions["agent"]
            .as_str()
            .unwrap()
            .starts_with("Codex CLI 0.169.0's"),
        "{instructions}"
    );
    let mut c = args.to_vec();
    c.push("--check-profile");
    let text = stdout(&run(&c));
    assert!(text.contains("codex@0.169"), "{text}");
}

/// A side call of the agent (OpenCode's title request, Gemini CLI's
/// routing call: off the main chain, to a small model) holds none of its
/// own parts: said as such, not as another agent's request.
#[test]
fn a_side_call_is_said_to_be_one() {
    for (agent, extra) in [
        (
            "opencode",
            vec!["--profile", "opencode@1.18", "--check-profile"],
        ),
        ("gemini", vec![]),
    ] {
        let cap = fixture(&format!("{agent}/capture.jsonl"));
        let ws = fixture(&format!("{agent}/workspace"));
        let mut args = vec![
            "traffic",
            cap.to_str().unwrap(),
            "--against",
            ws.to_str().unwrap(),
            "--request",
            "1",
        ];
        args.extend(extra);
        let err = stderr(&run(&args));
        assert!(
            err.contains("request #1 is not of the main chain"),
            "{agent}: {err}"
        );
        assert!(
            err.contains("likely a side call of the agent"),
            "{agent}: {err}"
        );
        assert!(!err.contains("another agent"), "{agent}: {err}");
    }
}

/// An OpenClaw trajectory export (`events.jsonl`) is read as OpenClaw's
/// own record: one request per answer, with the usage OpenClaw recorded
/// (the same as the provider's in the capture of the same run), where it
/// was read as a Claude Code transcript of 0 requests.
#[test]
fn an_openclaw_trajectory_export_is_read_as_openclaws_record() {
    let events = fixture("openclaw/transcript/events.jsonl");
    let t = json(&run(&[
        "traffic",
        events.to_str().unwrap(),
        "--format",
        "json",
    ]));
    let rows = t["requests"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{t}");
    let cap = fixture("openclaw/capture.jsonl");
    let c = json(&run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--format",
        "json",
    ]));
    for k in ["cache_read_input_tokens", "cache_creation_input_tokens"] {
        let of = |v: &Value| -> Vec<u64> {
            v["requests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r[k].as_u64().unwrap())
                .collect()
        };
        assert_eq!(of(&t), of(&c), "{k}");
    }
    let text = stdout(&run(&["traffic", events.to_str().unwrap()]));
    assert!(
        text.starts_with("traffic from an OpenClaw trajectory export"),
        "{text}"
    );
}
