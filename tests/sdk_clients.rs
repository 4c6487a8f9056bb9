//! The official `anthropic` and `openai` Python SDKs (from pip) as real
//! clients, through the recording proxy, to a loopback upstream written
//! here that speaks both APIs, streaming included: the clients receive the
//! same as directly, every exchange is in the capture with its usage, and
//! no key is. Without the SDKs installed (`pip install anthropic openai`,
//! which .ci/run does) the test says it was skipped.

mod common;
#[path = "common/upstream.rs"]
mod upstream;

use std::process::Command;

use common::*;
use serde_json::Value;
use upstream::upstream;

const KEY: &str = "sk-sdk-test-KEY-that-must-never-be-recorded-42";

fn sdks_installed() -> bool {
    Command::new("python3")
        .args(["-c", "import anthropic, openai"])
        .status()
        .is_ok_and(|s| s.success())
}

fn clients(base: &str) -> Value {
    let o = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/sdk_client.py"
        ))
        .arg(base)
        .env("SDK_TEST_KEY", KEY)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn the_official_sdks_work_through_the_proxy_and_every_exchange_is_recorded() {
    if !sdks_installed() {
        println!(
            "skipped: the anthropic and openai Python SDKs are not installed (pip install anthropic openai)"
        );
        return;
    }
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
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
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
fn the_official_sdks_work_through_the_proxy_to_a_real_llama_server() {
    let Ok(llama) = std::env::var("PROMPT_INSPECTOR_LLAMA_URL") else {
        println!(
            "skipped: no llama-server (scripts/llama-server.sh starts one; set PROMPT_INSPECTOR_LLAMA_URL)"
        );
        return;
    };
    if !sdks_installed() {
        println!("skipped: the anthropic and openai Python SDKs are not installed");
        return;
    }
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
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
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
}
