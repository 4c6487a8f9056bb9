//! Gemini CLI through the recording proxy: the fixture recorded from Gemini
//! CLI 0.61.0 by scripts/record-agent.sh (to scripts/agent-upstream.py's
//! Gemini half, which keeps Gemini's implicit-cache accounting and logs it),
//! and the proxy forwarding Gemini's three methods to a live loopback
//! upstream, keys redacted.

use crate::common;

use std::path::{Path, PathBuf};

use common::http::{dechunk, post};
use common::*;
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/gemini")
}

fn traffic() -> Value {
    let cap = fixture().join("capture.jsonl");
    let o = run(&["traffic", cap.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    json(&o)
}

#[test]
fn gemini_usage_equals_the_upstreams_on_every_request() {
    let v = traffic();
    let rows = v["requests"].as_array().unwrap();
    let up: Vec<Value> = std::fs::read_to_string(fixture().join("upstream.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), up.len());
    assert_eq!(rows.len(), 5);
    for (r, u) in rows.iter().zip(&up) {
        let m = &u["usage"];
        let cached = m["cachedContentTokenCount"].as_u64().unwrap_or(0);
        let prompt = m["promptTokenCount"].as_u64().unwrap();
        assert_eq!(r["cache_read_input_tokens"], cached, "{r}");
        assert_eq!(r["input_tokens"], prompt - cached, "{r}");
        assert_eq!(r["cache_creation_input_tokens"], 0, "Gemini writes nothing");
        assert_eq!(r["output_tokens"], m["candidatesTokenCount"], "{r}");
        assert_eq!(r["model"], u["model"]);
    }
}

#[test]
fn the_router_is_its_own_chain_and_gemini_rules_apply_to_unlisted_gemini_models() {
    let v = traffic();
    let rows = v["requests"].as_array().unwrap();
    // One small routing call per turn, then the main model.
    assert_eq!(rows[0]["model"], "gemini-3.5-flash-lite");
    assert_eq!(rows[0]["chain"], rows[3]["chain"]);
    assert_ne!(rows[0]["chain"], rows[1]["chain"]);
    assert_eq!(rows[1]["chain"], "main");
    // Under the Gemini family's minimum, named as Gemini's (not the
    // default Claude model's 1,024).
    let detail = rows[0]["miss"]["detail"].as_str().unwrap();
    assert!(detail.contains("4,096-token minimum"), "{detail}");
    assert!(!detail.contains("claude"), "{detail}");
    // Tools, the system instruction, the first user content: the parts.
    let cap = fixture().join("capture.jsonl");
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--parts",
        "--format",
        "json",
    ]);
    let v = json(&o);
    let labels = part_labels(&v["requests"][1]);
    assert!(
        labels.iter().any(|l| l.starts_with("tool 1 (")),
        "{labels:?}"
    );
    assert!(labels.contains(&"system block 1"), "{labels:?}");
    assert!(
        labels.iter().any(|l| l.starts_with("message 1 (user)")),
        "{labels:?}"
    );
}

#[test]
fn a_gemini_md_edit_under_a_resumed_session_is_named_as_the_lost_prefix() {
    let v = traffic();
    let rows = v["requests"].as_array().unwrap();
    // Turn 1's second request read the whole prefix of the first.
    assert_eq!(
        rows[2]["cache_read_input_tokens"], rows[1]["input_tokens"],
        "{}",
        rows[2]
    );
    assert!(rows[2]["miss"].is_null(), "{}", rows[2]);
    // GEMINI.md gained a line; the resumed session sends it in its first
    // user content, so the prefix is lost from there on.
    let miss = &rows[4]["miss"];
    assert_eq!(miss["kind"], "prefix", "{}", rows[4]);
    let detail = miss["detail"].as_str().unwrap();
    assert!(
        detail.contains("message 1 (user)")
            && detail.contains("Keep answers under five")
            && detail.contains("not read from the cache"),
        "{detail}"
    );
    let read = rows[4]["cache_read_input_tokens"].as_u64().unwrap();
    assert!(read > 0 && read < rows[2]["input_tokens"].as_u64().unwrap() + read);
}

/// The loopback upstream with Gemini's cache accounting, killed when
/// dropped.
struct Upstream(std::process::Child, String);

impl Drop for Upstream {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Gemini CLI's own session file (its `chats/session-*.jsonl`, recorded
/// with the capture): `traffic` reads it as a Gemini CLI session file, one
/// request per answer of the main model (an answer written again with its
/// tool calls, and the history set again on the resume, counted once), with
/// the usage the capture recorded for the same requests, and the resumed
/// turn's smaller read named as a change of the prompt, not as growth.
#[test]
fn gemini_clis_session_file_reads_as_the_capture_does() {
    let dir = fixture().join("transcript");
    let o = run(&["traffic", dir.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["source"], "gemini", "{}", v["source"]);
    let rows = v["requests"].as_array().unwrap();
    let usage = |r: &Value| {
        [
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        ]
        .map(|k| r[k].as_u64().unwrap())
    };
    let captured = traffic();
    let main: Vec<[u64; 4]> = captured["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["model"] == "gemini-3.8-flash")
        .map(usage)
        .collect();
    assert_eq!(main.len(), 3);
    assert_eq!(rows.iter().map(usage).collect::<Vec<_>>(), main);
    assert!(
        rows.iter().all(|r| r["chain"] == "main"),
        "one session, resumed"
    );
    assert_eq!(rows[0]["miss"]["kind"], "cold");
    assert_eq!(rows[2]["miss"]["kind"], "prefix", "{}", rows[2]["miss"]);
    let text = run(&["traffic", dir.to_str().unwrap()]);
    assert!(
        stdout(&text).starts_with("traffic from a Gemini CLI session file · 3 requests"),
        "{}",
        stdout(&text)
    );
}

fn upstream(log: &Path) -> Upstream {
    let (url, child) = agent_upstream(log);
    Upstream(child, url)
}

const GEMINI_KEY: &str = "AIzaSyPROXYtestKEYmustNEVERbeRECORDED0123";

#[test]
fn the_proxy_forwards_geminis_methods_and_records_them_without_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let up = upstream(&dir.path().join("up.jsonl"));
    let p = proxy(&up.1, &up.1, &["--gemini-upstream", &up.1]);
    let system = "You are a careful assistant. ".repeat(400);
    let body = serde_json::json!({
        "systemInstruction": {"parts": [{"text": system}]},
        "contents": [{"role": "user", "parts": [{"text": "hello"}]}],
        "tools": [{"functionDeclarations": [{"name": "list_directory", "description": "lists", "parameters": {"type": "OBJECT"}}]}]
    })
    .to_string();
    // JSON, the key in its header.
    let (status, _, answer) = post(
        &p.url,
        "/v1beta/models/gemini-2.5-flash:generateContent",
        &body,
        &[("x-goog-api-key", GEMINI_KEY)],
    );
    assert!(status.contains("200"), "{status}");
    let a: Value = serde_json::from_slice(&dechunk_or(&answer)).unwrap();
    assert!(a["usageMetadata"]["promptTokenCount"].as_u64().unwrap() > 2048);
    // The stream, the key in the query.
    let (status, head, answer) = post(
        &p.url,
        &format!("/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key={GEMINI_KEY}"),
        &body,
        &[],
    );
    assert!(
        status.contains("200") && head.contains("text/event-stream"),
        "{status}"
    );
    let text = String::from_utf8_lossy(&dechunk(&answer)).into_owned();
    assert!(
        text.contains("data: ") && text.contains("usageMetadata"),
        "{text}"
    );
    // countTokens is forwarded too; a path of no API is refused in
    // Gemini's error shape.
    let (status, _, _) = post(
        &p.url,
        "/v1beta/models/gemini-2.5-flash:countTokens",
        &body,
        &[("x-goog-api-key", GEMINI_KEY)],
    );
    assert!(status.contains("200"), "{status}");
    let (status, _, answer) = post(
        &p.url,
        "/v1beta/models/gemini-2.5-flash:embedContent",
        "{}",
        &[],
    );
    assert!(status.contains("404"), "{status}");
    let e: Value = serde_json::from_slice(&dechunk_or(&answer)).unwrap();
    assert_eq!(e["error"]["code"], 404, "{e}");
    assert_eq!(e["error"]["status"], "NOT_FOUND", "{e}");

    // Recorded: each exchange with its model and usage, never the key.
    let mut lines = Vec::new();
    for _ in 0..200 {
        let text = std::fs::read_to_string(&p.capture).unwrap_or_default();
        lines = text.lines().map(String::from).collect();
        if lines.len() >= 3 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(lines.len(), 3, "{lines:?}");
    let all = lines.join("\n");
    for w in GEMINI_KEY.as_bytes().windows(8) {
        assert!(
            !all.contains(std::str::from_utf8(w).unwrap()),
            "a piece of the key was recorded"
        );
    }
    let x: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(x.iter().all(|l| l["model"] == "gemini-2.5-flash"), "{all}");
    // Lines are written as exchanges end: found by their method.
    let of = |m: &str| {
        x.iter()
            .find(|l| l["endpoint"].as_str().unwrap().ends_with(m))
            .unwrap_or_else(|| panic!("no {m} in {all}"))
    };
    let streamed = of(":streamGenerateContent");
    assert_eq!(streamed["stream"], true);
    assert_eq!(of(":generateContent")["stream"], false);
    // The second read the first's prefix, as Gemini's usage said.
    assert!(
        streamed["usage"]["cachedContentTokenCount"]
            .as_u64()
            .unwrap()
            > 2048,
        "{}",
        streamed["usage"]
    );
    // And `traffic` explains the capture with Gemini's rules and prices.
    let o = run(&["traffic", p.capture.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let rows = v["requests"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "count_tokens is not a generation");
    assert!(
        rows[1]["cost_usd"].as_f64().unwrap() > 0.0,
        "gemini-2.5-flash is priced"
    );
    assert!(rows[1]["miss"].is_null(), "{}", rows[1]);
}

/// A body that may be chunked.
fn dechunk_or(b: &[u8]) -> Vec<u8> {
    let d = dechunk(b);
    if d.is_empty() { b.to_vec() } else { d }
}
