//! The official `anthropic` and `openai` Python SDKs (from pip) as real
//! clients, through the recording proxy, to a loopback upstream written
//! here that speaks both APIs, streaming included: the clients receive the
//! same as directly, every exchange is in the capture with its usage, and
//! no key is. Without the SDKs installed (`pip install anthropic openai`,
//! which .ci/run does) they are reported as ignored, and .ci/run runs them.

use crate::common;
use crate::upstream;

use std::process::Command;

use common::*;
use serde_json::Value;
use upstream::upstream;

const KEY: &str = "sk-sdk-test-KEY-that-must-never-be-recorded-42";

/// Run only when asked (`--ignored`): then the SDKs must be there.
fn needs_sdks() {
    assert!(
        sdks_installed(),
        "the anthropic and openai Python SDKs are not installed (pip install anthropic openai)"
    );
}

fn sdks_installed() -> bool {
    Command::new("python3")
        .args(["-c", "import anthropic, openai"])
        .status()
        .is_ok_and(|s| s.success())
}

/// A capture's lines in the order the requests were sent (a line is
/// written when its exchange ends, after any counting).
fn in_order_sent(text: &str) -> Vec<Value> {
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines.sort_by_key(|l| l["ts_start"].as_str().unwrap_or("").to_string());
    lines
}

fn clients(base: &str) -> Value {
    sdk(base, &[])
}

/// scripts/sdk_client.py BASE MODE…: what the SDK clients received.
fn sdk(base: &str, mode: &[&str]) -> Value {
    let o = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/sdk_client.py"
        ))
        .arg(base)
        .args(mode)
        .env("SDK_TEST_KEY", KEY)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
#[ignore = "needs the anthropic and openai Python SDKs (pip install anthropic openai); .ci/run runs it"]
fn the_official_sdks_work_through_the_proxy_and_every_exchange_is_recorded() {
    needs_sdks();
    let up = upstream();
    let mut p = proxy(&up, &up, &[]);
    let capture = p.capture.clone();
    let direct = clients(&up);
    let via = clients(&p.url);
    let _ = p.child.kill();
    let _ = p.child.wait();
    assert_eq!(
        direct, via,
        "the clients receive the same through the proxy"
    );
    assert_eq!(via["anthropic_stream"]["text"], "Hello streamed");
    assert_eq!(via["openai_stream"]["usage"]["prompt_tokens"], 1500);
    let text = std::fs::read_to_string(&capture).unwrap();
    assert!(!text.contains("never-be-recorded"), "no key in the capture");
    let lines = in_order_sent(&text);
    assert_eq!(lines.len(), 4, "{text}");
    let streams: Vec<bool> = lines
        .iter()
        .map(|l| l["stream"].as_bool().unwrap())
        .collect();
    assert_eq!(streams, vec![false, true, false, true]);
    assert_eq!(lines[1]["usage"]["cache_creation_input_tokens"], 1300);
    assert_eq!(lines[1]["usage"]["output_tokens"], 7);
    assert_eq!(
        lines[3]["usage"]["prompt_tokens_details"]["cached_tokens"],
        1280
    );
    // `traffic` explains the capture.
    let o = run(&["traffic", capture.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["requests"].as_array().unwrap().len(), 4);
}

#[test]
#[ignore = "needs the anthropic and openai Python SDKs (pip install anthropic openai); .ci/run runs it"]
fn fifty_concurrent_sdk_streams_through_the_proxy_are_all_recorded() {
    needs_sdks();
    let up = upstream();
    let mut p = proxy(&up, &up, &[]);
    let got = sdk(&p.url, &["concurrent", "50"]);
    let streams = got["streams"].as_array().unwrap();
    assert_eq!(streams.len(), 50);
    for s in streams {
        assert_eq!(s["text"], "Hello streamed", "{s}");
        assert_eq!(s["usage"]["output_tokens"], 7, "{s}");
    }
    // Every stream is in the capture (the proxy records an exchange once
    // its stream has ended; wait for the last lines).
    let mut lines = Vec::new();
    for _ in 0..200 {
        lines = std::fs::read_to_string(&p.capture)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect();
        if lines.len() >= 50 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    let _ = p.child.kill();
    let _ = p.child.wait();
    assert_eq!(lines.len(), 50);
    let mut asked: Vec<String> = lines
        .iter()
        .map(|l| {
            assert_eq!(l["stream"], true, "{l}");
            assert_eq!(l["usage"]["output_tokens"], 7, "{l}");
            l["request"]["messages"][0]["content"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    asked.sort();
    asked.dedup();
    assert_eq!(asked.len(), 50, "each stream its own line");
}

#[test]
#[ignore = "needs the anthropic and openai Python SDKs (pip install anthropic openai); .ci/run runs it"]
fn an_upstream_killed_mid_stream_gives_the_sdk_an_error_and_a_recorded_failure() {
    needs_sdks();
    let up = upstream::broken_upstream();
    let direct = sdk(&up, &["broken"]);
    let mut p = proxy(&up, &up, &[]);
    let via = sdk(&p.url, &["broken"]);
    let _ = p.child.kill();
    let _ = p.child.wait();
    assert!(
        direct["error"].is_string(),
        "directly, the SDK fails: {direct}"
    );
    assert!(
        via["error"].is_string(),
        "through the proxy, the SDK fails too: {via}"
    );
    let text = std::fs::read_to_string(&p.capture).unwrap();
    let line: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(
        line["error"]
            .as_str()
            .unwrap()
            .contains("the upstream stream broke"),
        "{line}"
    );
    assert_eq!(
        line["usage"]["input_tokens"], 12,
        "the usage that came is kept: {line}"
    );
}

#[test]
#[ignore = "needs a llama-server (scripts/llama-server.sh, PROMPT_INSPECTOR_LLAMA_URL) and the Python SDKs; .ci/run runs it"]
fn the_official_sdks_work_through_the_proxy_to_a_real_llama_server() {
    let llama = std::env::var("PROMPT_INSPECTOR_LLAMA_URL").expect(
        "PROMPT_INSPECTOR_LLAMA_URL names a running llama-server (scripts/llama-server.sh)",
    );
    needs_sdks();
    let mut p = proxy(&llama, &llama, &[]);
    let capture = p.capture.clone();
    let via = clients(&p.url);
    let _ = p.child.kill();
    let _ = p.child.wait();
    // Every call got an answer with usage, streamed or not.
    for k in ["anthropic", "anthropic_stream", "openai", "openai_stream"] {
        assert!(via[k]["usage"].is_object(), "{k}: {via}");
    }
    let text = std::fs::read_to_string(&capture).unwrap();
    assert!(!text.contains("never-be-recorded"), "no key in the capture");
    let lines = in_order_sent(&text);
    assert_eq!(lines.len(), 4, "{text}");
    for l in &lines {
        assert_eq!(l["status"], 200, "{l}");
        assert!(
            l["usage"].is_object(),
            "the server's usage is recorded: {l}"
        );
    }
    // The usage the clients saw is the usage recorded.
    assert_eq!(
        lines[0]["usage"]["input_tokens"], via["anthropic"]["usage"]["input_tokens"],
        "{text}"
    );
    assert_eq!(
        lines[2]["usage"]["prompt_tokens"], via["openai"]["usage"]["prompt_tokens"],
        "{text}"
    );
    // Each request's parts were counted by the server's own tokenizer, and
    // `traffic` shows them with the template's part: they sum to the prompt
    // tokens the server reported.
    for l in &lines {
        assert!(l["counted"]["parts"].is_array(), "{l}");
    }
    let o = run(&["traffic", capture.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for r in json(&o)["requests"].as_array().unwrap() {
        let sum: u64 = r["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["tokens"].as_u64().unwrap())
            .sum();
        let reported = r["input_tokens"].as_u64().unwrap()
            + r["cache_read_input_tokens"].as_u64().unwrap()
            + r["cache_creation_input_tokens"].as_u64().unwrap();
        assert_eq!(sum, reported, "{r}");
        assert!(
            r["parts_counted_by"]
                .as_str()
                .unwrap()
                .contains("llama.cpp server"),
            "{r}"
        );
    }
    // And the system text's count is the server's own.
    let system = lines[2]["request"]["messages"][0]["content"]
        .as_str()
        .unwrap();
    let direct: Value = reqwest_free_tokenize(&llama, system);
    assert_eq!(
        lines[2]["counted"]["parts"][0].as_u64().unwrap() as usize,
        direct["tokens"].as_array().unwrap().len()
    );
}

/// POST /tokenize to the llama server with curl-free std networking.
fn reqwest_free_tokenize(base: &str, text: &str) -> Value {
    use std::io::{Read, Write};
    let addr = base.trim_start_matches("http://").trim_end_matches('/');
    let body = serde_json::json!({"content": text, "add_special": false, "parse_special": true})
        .to_string();
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.write_all(
        format!(
            "POST /tokenize HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let json_start = raw.find('{').unwrap();
    serde_json::from_str(raw[json_start..].trim_end_matches(|c: char| c != '}')).unwrap()
}
