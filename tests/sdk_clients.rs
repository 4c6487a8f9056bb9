//! The official `anthropic` and `openai` Python SDKs (from pip) as real
//! clients, through the recording proxy, to a loopback upstream written
//! here that speaks both APIs, streaming included: the clients receive the
//! same as directly, every exchange is in the capture with its usage, and
//! no key is. Without the SDKs installed (`pip install anthropic openai`,
//! which .ci/run does) the test says it was skipped.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};

use common::*;
use serde_json::{Value, json};

const KEY: &str = "sk-sdk-test-KEY-that-must-never-be-recorded-42";

fn sdks_installed() -> bool {
    Command::new("python3")
        .args(["-c", "import anthropic, openai"])
        .status()
        .is_ok_and(|s| s.success())
}

fn respond(s: &mut TcpStream, content_type: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body.as_bytes());
}

fn sse(events: &[Value], anthropic: bool) -> String {
    let mut out = String::new();
    for e in events {
        if anthropic {
            out += &format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap());
        } else {
            out += &format!("data: {e}\n\n");
        }
    }
    if !anthropic {
        out += "data: [DONE]\n\n";
    }
    out
}

fn handle(mut s: TcpStream) {
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut line = String::new();
    if r.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_string();
    let mut len = 0;
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).is_err() || h == "\r\n" || h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            len = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; len];
    let _ = r.read_exact(&mut body);
    let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let stream = req["stream"].as_bool().unwrap_or(false);
    let usage = json!({"input_tokens": 12, "cache_creation_input_tokens": 1300, "cache_read_input_tokens": 0, "output_tokens": 3,
        "cache_creation": {"ephemeral_5m_input_tokens": 1300, "ephemeral_1h_input_tokens": 0}});
    if path.starts_with("/v1/messages") {
        let msg = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": req["model"],
            "content": [{"type": "text", "text": "Hello from upstream"}], "stop_reason": "end_turn",
            "stop_sequence": null, "usage": usage});
        if !stream {
            return respond(&mut s, "application/json", &msg.to_string());
        }
        let mut start = msg.clone();
        start["content"] = json!([]);
        start["stop_reason"] = Value::Null;
        let events = [
            json!({"type": "message_start", "message": start}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello "}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "streamed"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 7}}),
            json!({"type": "message_stop"}),
        ];
        return respond(&mut s, "text/event-stream", &sse(&events, true));
    }
    let usage = json!({"prompt_tokens": 1500, "completion_tokens": 3, "total_tokens": 1503,
        "prompt_tokens_details": {"cached_tokens": 1280}});
    if !stream {
        let c = json!({"id": "c1", "object": "chat.completion", "created": 1, "model": req["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi there"}, "finish_reason": "stop"}],
            "usage": usage});
        return respond(&mut s, "application/json", &c.to_string());
    }
    let chunk = |content: Option<&str>, u: Value| {
        json!({"id": "c2", "object": "chat.completion.chunk", "created": 1,
        "model": req["model"], "choices": content.map_or(json!([]), |t| json!([{"index": 0, "delta": {"content": t}, "finish_reason": null}])),
        "usage": u})
    };
    let events = [
        chunk(Some("Hi "), Value::Null),
        chunk(Some("streamed"), Value::Null),
        chunk(None, usage),
    ];
    respond(&mut s, "text/event-stream", &sse(&events, false));
}

fn upstream() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || handle(s));
        }
    });
    url
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
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("c.jsonl");
    let mut child = Command::new(bin())
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--anthropic-upstream",
            &up,
            "--openai-upstream",
            &up,
        ])
        .args(["-o", capture.to_str().unwrap()])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    let proxy = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .trim_end_matches(',')
        .to_string();
    let direct = clients(&up);
    let via = clients(&proxy);
    let _ = child.kill();
    let _ = child.wait();
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
