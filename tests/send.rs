//! `send` against a loopback server that follows the providers' documented
//! caching behaviour: cold then warm, a layer-4 edit, a change of tools, every
//! error a user meets, and a key that never leaks.

use crate::common;
use crate::fake;

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::*;
use fake::{FakeServer, Scripted};

const KEY: &str = "sk-ant-api03-TESTKEY-DO-NOT-LEAK-1234567890-wxyz";

fn send(ws: &Path, server: &str, key: Option<&str>, extra: &[&str]) -> Output {
    let mut c = Command::new(bin());
    c.args([
        "send",
        ws.to_str().unwrap(),
        "--provider",
        "anthropic",
        "--base-url",
        server,
        "--format",
        "json",
    ]);
    c.args(extra);
    c.env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY");
    if let Some(k) = key {
        c.env("ANTHROPIC_API_KEY", k);
    }
    c.output().unwrap()
}

fn rows(o: &Output) -> Vec<serde_json::Value> {
    json(o)["requests"].as_array().unwrap().clone()
}

fn actual(r: &serde_json::Value, k: &str) -> u64 {
    r["actual"][k].as_u64().unwrap()
}

#[test]
fn cold_then_warm_agrees_with_the_prediction() {
    let ws = copy_sample();
    let server = FakeServer::start(KEY);
    let o = send(ws.path(), &server.url, Some(KEY), &["--repeat", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = rows(&o);
    assert_eq!(r.len(), 3);
    assert!(actual(&r[0], "cache_creation_input_tokens") > 1024);
    assert_eq!(actual(&r[0], "cache_read_input_tokens"), 0);
    assert!(actual(&r[1], "cache_read_input_tokens") > 1024);
    for row in &r {
        assert_eq!(row["agrees"], true, "{row:#}");
        for k in [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
        ] {
            assert_eq!(row["predicted"][k], row["actual"][k], "{k}: {row:#}");
        }
    }
    // count_tokens calibrated the estimate, saved apart from any snapshot.
    let cal = json(&o)["calibration"].as_f64().unwrap();
    assert!((cal - 1.0).abs() < 0.05, "{cal}");
    let saved =
        std::fs::read_to_string(ws.path().join(".prompt-inspector/calibration.json")).unwrap();
    assert!(saved.contains("claude-sonnet-4-6"));
    let report = json(&run(&[
        "report",
        ws.path().to_str().unwrap(),
        "--format",
        "json",
    ]));
    assert!(report["calibration"]["ratio"].as_f64().is_some());
    // The headers carried the key and the version; the body the breakpoints.
    let st = server.state.lock().unwrap();
    assert!(st.headers_seen[0].contains("anthropic-version") && st.headers_seen[0].contains(KEY));
    assert_eq!(st.requests[1]["max_tokens"], 1);
}

#[test]
fn a_whole_session_with_tool_results_and_compaction_agrees() {
    let ws = copy_sample();
    let server = FakeServer::start(KEY);
    let o = send(ws.path(), &server.url, Some(KEY), &["--session", "coding"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = rows(&o);
    assert_eq!(r.len(), 7);
    assert_eq!(
        r[4]["agrees"], false,
        "the gap's expiry is not measured without waiting"
    );
    for (i, row) in r.iter().enumerate() {
        if i >= 4 && row["agrees"] == false {
            // After the 6-minute gap the prediction expects an expiry; the run
            // did not wait, and says so.
            assert_eq!(row["agrees"], false);
            assert!(
                row["explanation"].to_string().contains("--honour-gaps"),
                "{row:#}"
            );
        } else {
            assert_eq!(row["agrees"], true, "{row:#}");
        }
    }
}

#[test]
fn layer_four_edit_keeps_the_cached_layers() {
    let ws = copy_sample();
    let server = FakeServer::start(KEY);
    assert!(
        send(ws.path(), &server.url, Some(KEY), &["--repeat", "1"])
            .status
            .success()
    );
    let report = json(&run(&[
        "report",
        ws.path().to_str().unwrap(),
        "--format",
        "json",
    ]));
    std::fs::write(
        ws.path().join("USER.md"),
        "## 关于用户\n\n- 名称：苏雄\n- 偏好：Rust\n",
    )
    .unwrap();
    let o = send(ws.path(), &server.url, Some(KEY), &["--repeat", "1"]);
    let r = rows(&o);
    let tools = report["tools_tokens"].as_u64().unwrap();
    let cached: u64 = report["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["cache_control"] == true)
        .map(|b| b["tokens"].as_u64().unwrap())
        .sum();
    let read = actual(&r[0], "cache_read_input_tokens");
    // Tools are counted per definition by the server; allow that difference.
    assert!(
        read >= cached && read <= cached + tools + 5,
        "read {read}, cached layers {cached} + tools {tools}"
    );
    // A fresh prediction does not know the server's cache: it explains why more was read.
    assert_eq!(r[0]["agrees"], false);
    assert!(
        r[0]["explanation"]
            .to_string()
            .contains("more was read than predicted")
    );
}

#[test]
fn a_change_of_tools_reads_nothing() {
    let ws = copy_sample();
    let server = FakeServer::start(KEY);
    let o = send(
        ws.path(),
        &server.url,
        Some(KEY),
        &["--session", "coding", "--then-session", "research"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let r = rows(&o);
    assert_eq!(r.len(), 2);
    assert_eq!(
        actual(&r[1], "cache_read_input_tokens"),
        0,
        "tools come first: another tool set invalidates everything"
    );
    assert_eq!(r[1]["agrees"], true, "{:#}", r[1]);
}

#[test]
fn errors_are_one_clear_line_and_partial_results_are_kept() {
    let ws = copy_sample();
    // 401: a wrong key.
    let server = FakeServer::start(KEY);
    let o = send(
        ws.path(),
        &server.url,
        Some("sk-wrong-key-0000000000000000-abcd"),
        &["--repeat", "2"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("401 unauthorized"), "{}", stderr(&o));
    assert_eq!(rows(&o).len(), 1, "a refused key stops the run");
    // 429 with retry-after, then success: retried, and the run goes on.
    let server = FakeServer::start(KEY);
    server.status(
        429,
        &[("retry-after", "1")],
        r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
    );
    let o = send(ws.path(), &server.url, Some(KEY), &["--repeat", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&o)[0]["actual"]["retries"], 1);
    // 529 overloaded every time: gives up after the retries, keeps the others.
    let server = FakeServer::start(KEY);
    for _ in 0..3 {
        server.status(
            529,
            &[("retry-after", "0")],
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
    }
    let o = send(
        ws.path(),
        &server.url,
        Some(KEY),
        &["--repeat", "2", "--max-retries", "2"],
    );
    assert_eq!(o.status.code(), Some(1));
    let r = rows(&o);
    assert!(
        r[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("529 overloaded"),
        "{:#}",
        r[0]
    );
    assert!(r[1]["actual"].is_object(), "the next request still ran");
    // 500, malformed JSON, no usage: each its own line, the run goes on.
    let server = FakeServer::start(KEY);
    server.status(
        500,
        &[],
        r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#,
    );
    server.push(Scripted::Raw("this is not json".into()));
    server.push(Scripted::Raw(r#"{"id":"msg_1","content":[]}"#.into()));
    let o = send(ws.path(), &server.url, Some(KEY), &["--repeat", "4"]);
    let r = rows(&o);
    assert_eq!(r.len(), 4);
    assert!(
        r[0]["error"]
            .as_str()
            .unwrap()
            .contains("500 server error: Internal server error")
    );
    assert!(r[1]["error"].as_str().unwrap().contains("not valid JSON"));
    assert!(r[2]["error"].as_str().unwrap().contains("no usage"));
    assert!(r[3]["actual"].is_object());
    let err = stderr(&o);
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("prompt-inspector:"))
            .count(),
        3,
        "{err}"
    );
    // Timeout.
    let server = FakeServer::start(KEY);
    server.push(Scripted::Delay(Duration::from_secs(4)));
    let o = send(
        ws.path(),
        &server.url,
        Some(KEY),
        &["--repeat", "1", "--timeout", "1"],
    );
    assert!(
        rows(&o)[0]["error"].as_str().unwrap().contains("timed out"),
        "{}",
        stdout(&o)
    );
    // Connection refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = send(
        ws.path(),
        &format!("http://127.0.0.1:{port}"),
        Some(KEY),
        &["--repeat", "1"],
    );
    assert!(
        rows(&o)[0]["error"]
            .as_str()
            .unwrap()
            .contains("cannot connect")
    );
}

#[test]
fn the_key_never_appears_in_output_files_or_logs() {
    let ws = copy_sample();
    let server = FakeServer::start(KEY);
    let mut all = String::new();
    let o = send(ws.path(), &server.url, Some(KEY), &["--repeat", "2"]);
    all += &stdout(&o);
    all += &stderr(&o);
    // A refused key that the server echoes back.
    let wrong = "sk-ant-api03-WRONG-SECRET-VALUE-0987654321-qrst";
    let o = send(ws.path(), &server.url, Some(wrong), &["--repeat", "1"]);
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert!(text.contains("[REDACTED]"), "the echo is redacted: {text}");
    assert!(
        !text.contains("qrst"),
        "not even the last characters: {text}"
    );
    all += &text;
    let o = Command::new(bin())
        .args([
            "send",
            ws.path().to_str().unwrap(),
            "--provider",
            "anthropic",
            "--base-url",
            &server.url,
            "--repeat",
            "1",
        ])
        .env("ANTHROPIC_API_KEY", KEY)
        .output()
        .unwrap();
    all += &stdout(&o);
    all += &stderr(&o);
    // A snapshot carries the saved runs, and never a key.
    let o = Command::new(bin())
        .args(["snapshot", ws.path().to_str().unwrap()])
        .env("ANTHROPIC_API_KEY", KEY)
        .output()
        .unwrap();
    assert!(o.status.success());
    for entry in walk(ws.path()) {
        all += &String::from_utf8_lossy(&std::fs::read(&entry).unwrap());
    }
    assert!(
        all.contains("cache_read_input_tokens"),
        "the runs were saved and read back"
    );
    for secret in [KEY, wrong, "TESTKEY-DO-NOT-LEAK", "WRONG-SECRET-VALUE"] {
        assert!(!all.contains(secret), "the key leaked: {secret}");
    }
}

#[test]
fn openai_compatible_endpoint_and_missing_key() {
    let ws = copy_sample();
    let server = FakeServer::start("");
    let o = Command::new(bin())
        .args([
            "send",
            ws.path().to_str().unwrap(),
            "--provider",
            "openai",
            "--base-url",
            &server.url,
            "--repeat",
            "2",
            "--format",
            "json",
            "--model",
            "gpt-4o",
        ])
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let r = rows(&o);
    assert!(actual(&r[1], "cache_read_input_tokens") >= 1024);
    assert_eq!(actual(&r[1], "cache_read_input_tokens") % 128, 0);
    // Without a key and without a base URL: a clear refusal, nothing sent.
    let o = Command::new(bin())
        .args([
            "send",
            ws.path().to_str().unwrap(),
            "--provider",
            "anthropic",
        ])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("ANTHROPIC_API_KEY"));
}

/// `send --provider gemini`: Gemini's `generateContent` with the key in
/// `x-goog-api-key`, the model in the path, against the loopback upstream
/// that keeps Gemini's implicit-cache accounting (scripts/agent-upstream.py,
/// which recorded the Gemini CLI fixture): the Gemini CLI folder sent cold,
/// then warm, the second read whole from the implicit cache, as predicted
/// by Gemini's rules; the key in no output.
#[test]
fn gemini_cold_then_warm_reads_its_implicit_cache() {
    let dir = tempfile::tempdir().unwrap();
    let (url, mut child) = agent_upstream(&dir.path().join("up.jsonl"));
    let ws = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/gemini/workspace");
    let key = "AIzaSyTESTkeyFORsendMUSTnotLEAK0123456789";
    let o = Command::new(bin())
        .args([
            "send",
            ws.to_str().unwrap(),
            "--provider",
            "gemini",
            "--base-url",
            &url,
            "--repeat",
            "2",
            "--no-save",
            "--format",
            "json",
        ])
        .env("GEMINI_API_KEY", key)
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .output()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(o.status.success(), "{}", stderr(&o));
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(!all.contains(&key[..12]), "the key leaked");
    let v = json(&o);
    let r = v["requests"].as_array().unwrap();
    assert_eq!(r.len(), 2);
    // Cold: nothing read; warm: the whole prompt read, as predicted.
    assert_eq!(actual(&r[0], "cache_read_input_tokens"), 0);
    let prompt = actual(&r[1], "cache_read_input_tokens") + actual(&r[1], "input_tokens");
    assert!(prompt > 4_096, "{}", r[1]);
    assert_eq!(actual(&r[1], "cache_read_input_tokens"), prompt, "{}", r[1]);
    assert!(
        r[1]["predicted"]["cache_read_input_tokens"]
            .as_u64()
            .unwrap()
            > 4_096,
        "{}",
        r[1]
    );
    assert_eq!(r[0]["predicted"]["cache_read_input_tokens"], 0);
    // What the upstream received: Gemini's method, the model in its path.
    let log = std::fs::read_to_string(dir.path().join("up.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert!(
        first["endpoint"]
            .as_str()
            .unwrap()
            .ends_with(":generateContent"),
        "{first}"
    );
}

/// The caching rules a run is predicted with are the model's own (its row
/// in the model table), as `predict` and the window's Test run choose them,
/// whatever API carries the requests: a local model sent through the
/// OpenAI-compatible API is predicted with a local server's prefix cache,
/// not OpenAI's 1,024-token automatic caching, unless asked.
#[test]
fn a_run_is_predicted_with_the_models_caching_rules_not_the_apis() {
    let ws = copy_sample();
    let server = FakeServer::start("");
    let predicted = |extra: &[&str]| -> Vec<serde_json::Value> {
        let mut args = vec![
            "send",
            ws.path().to_str().unwrap(),
            "--provider",
            "openai",
            "--base-url",
            &server.url,
            "--repeat",
            "2",
            "--format",
            "json",
            "--model",
            "local-llama",
        ];
        args.extend(extra);
        let o = Command::new(bin())
            .args(&args)
            .env_remove("OPENAI_API_KEY")
            .output()
            .unwrap();
        assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
        rows(&o).iter().map(|r| r["predicted"].clone()).collect()
    };
    let default = predicted(&[]);
    assert_eq!(default, predicted(&["--predict-with", "prefix"]));
    assert_ne!(default, predicted(&["--predict-with", "openai"]));
}

/// The body a run sends is the API's the endpoint speaks, whatever rules
/// it is predicted with: a Claude model (Anthropic's caching rules) sent
/// through the OpenAI-compatible API goes as a Chat Completions body (one
/// system message, tools as functions), and an OpenAI model sent to the
/// Messages API goes as a Messages body (system blocks with breakpoints).
#[test]
fn the_body_is_the_endpoints_api_not_the_caching_rules() {
    let ws = copy_sample();
    let server = FakeServer::start("");
    let run = |provider: &str, model: &str| {
        let o = Command::new(bin())
            .args([
                "send",
                ws.path().to_str().unwrap(),
                "--provider",
                provider,
                "--base-url",
                &server.url,
                "--repeat",
                "1",
                "--no-save",
                "--format",
                "json",
                "--model",
                model,
            ])
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        server.state.lock().unwrap().requests.pop().unwrap()
    };
    let chat = run("openai", "claude-sonnet-4-6");
    assert!(chat.get("system").is_none(), "{chat}");
    assert_eq!(chat["messages"][0]["role"], "system", "{chat}");
    assert!(chat["messages"][0]["content"].is_string(), "{chat}");
    assert!(
        chat["tools"]
            .as_array()
            .is_some_and(|ts| ts.iter().all(|t| t["type"] == "function")),
        "{chat}"
    );
    let messages = run("anthropic", "gpt-4o");
    assert!(messages["system"].is_array(), "{messages}");
    assert!(
        messages["system"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b.get("cache_control").is_some()),
        "the sample's cached layers keep their breakpoints: {messages}"
    );
    assert!(
        messages["messages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["role"] != "system"),
        "{messages}"
    );
}
