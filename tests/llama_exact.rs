//! A local llama.cpp server is counted with its own chat template and
//! tokenizer: against a loopback server that follows llama.cpp's endpoints
//! (`/apply-template`, `/tokenize`, a prefix-reusing `/v1/chat/completions`)
//! but tokenizes nothing like o200k, `send` predicts exactly what it reports.

use crate::common;

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use common::*;
use serde_json::{Value, json};

/// One token per character: nothing like o200k.
fn tokenize(s: &str) -> Vec<u64> {
    s.chars().map(|c| c as u64).collect()
}

fn template(messages: &Value) -> String {
    let mut out = String::new();
    for m in messages.as_array().into_iter().flatten() {
        let content = match &m["content"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        out += &format!(
            "<|im_start|>{}\n{content}<|im_end|>\n",
            m["role"].as_str().unwrap_or("user")
        );
    }
    out + "<|im_start|>assistant\n"
}

fn handle(mut s: TcpStream, slot: &Arc<Mutex<Vec<u64>>>) {
    let Some((path, req)) = read_request(&s) else {
        return;
    };
    let answer = match path.as_str() {
        "/apply-template" => json!({"prompt": template(&req["messages"])}),
        "/tokenize" => json!({"tokens": tokenize(req["content"].as_str().unwrap_or(""))}),
        "/v1/chat/completions" => {
            let toks = tokenize(&template(&req["messages"]));
            let mut prev = slot.lock().unwrap();
            let common = prev.iter().zip(&toks).take_while(|(a, b)| a == b).count();
            // At least one token is always evaluated.
            let cached = common.min(toks.len().saturating_sub(1));
            *prev = toks.clone();
            json!({"id": "c", "object": "chat.completion", "choices": [{"index": 0,
                "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": toks.len(), "completion_tokens": 1,
                "prompt_tokens_details": {"cached_tokens": cached}}})
        }
        _ => {
            let _ = s.write_all(
                b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
            return;
        }
    };
    let b = answer.to_string();
    let _ = s.write_all(
        format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{b}", b.len())
            .as_bytes(),
    );
}

fn server() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let slot = Arc::new(Mutex::new(Vec::new()));
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            handle(s, &slot);
        }
    });
    url
}

#[test]
fn send_to_a_llama_server_predicts_what_it_reports() {
    let dir = tempfile::tempdir().unwrap();
    write_ws(
        dir.path(),
        &[
            (
                "SOUL.md",
                &"You are a terse assistant for a Rust team. ".repeat(30),
            ),
            (
                "workspace.yaml",
                "model: local-llama\nbudget: {total: 6000}\n",
            ),
            (
                "sessions/s.yaml",
                "turns:\n  - user: Summarize our rules.\n    assistant: Small tested changes.\n  - user: And the safety rule?\n    assistant: Confirm first.\n  - user: Thanks.\n",
            ),
        ],
    );
    let url = server();
    let o = run(&[
        "send",
        dir.path().to_str().unwrap(),
        "--provider",
        "openai",
        "--base-url",
        &url,
        "--format",
        "json",
        "--no-save",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    let rows = v["requests"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for r in rows {
        assert_eq!(r["agrees"], true, "{r:#}");
        let p = &r["predicted"];
        let a = &r["actual"];
        assert_eq!(p["cache_read_input_tokens"], a["cache_read_input_tokens"]);
        assert_eq!(p["input_tokens"], a["input_tokens"]);
    }
    // The server's count, not o200k's: one token per character.
    assert!(rows[0]["actual"]["input_tokens"].as_u64().unwrap() > 1000);
}
