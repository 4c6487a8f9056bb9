#![allow(dead_code)]
//! A loopback upstream that speaks the Anthropic Messages and OpenAI Chat
//! Completions APIs as their docs describe them, plain JSON and SSE, each
//! answer with cache usage: the far side of the recording proxy in tests.
//! [`llama_upstream`] is a llama.cpp-like server instead: `/tokenize` and
//! `/v1/chat/completions` whose `prompt_tokens` is its template's count.

use std::io::Write;
use std::net::{TcpListener, TcpStream};

use serde_json::{Value, json};

fn respond(s: &mut TcpStream, content_type: &str, body: &str) {
    respond_with(s, "200 OK", content_type, body)
}

/// One whole HTTP/1.1 answer, then the connection closes.
pub fn respond_with(s: &mut TcpStream, status: &str, content_type: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
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
    let Some((path, req)) = crate::common::read_request(&s) else {
        return;
    };
    if !path.starts_with("/v1/") {
        return respond_with(&mut s, "404 Not Found", "text/plain", "not found");
    }
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

/// The llama-like server's tokenizer: one token per word.
pub fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// What the llama-like server's chat template adds: 4 tokens around each
/// message (`<|im_start|>role\n … <|im_end|>\n`) and 3 for the answer's
/// start.
pub fn template_tokens(messages: usize) -> usize {
    4 * messages + 3
}

fn handle_llama(mut s: TcpStream) {
    let Some((path, req)) = crate::common::read_request(&s) else {
        return;
    };
    if path == "/tokenize" {
        let n = words(req["content"].as_str().unwrap_or(""));
        let tokens: Vec<usize> = (0..n).collect();
        return respond(
            &mut s,
            "application/json",
            &json!({"tokens": tokens}).to_string(),
        );
    }
    if path != "/v1/chat/completions" {
        return respond_with(&mut s, "404 Not Found", "text/plain", "not found");
    }
    let messages = req["messages"].as_array().cloned().unwrap_or_default();
    let prompt: usize = messages
        .iter()
        .map(|m| words(m["content"].as_str().unwrap_or("")))
        .sum::<usize>()
        + template_tokens(messages.len());
    let c = json!({"id": "c1", "object": "chat.completion", "created": 1, "model": req["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": 1, "total_tokens": prompt + 1,
            "prompt_tokens_details": {"cached_tokens": 0}}});
    respond(&mut s, "application/json", &c.to_string())
}

fn serve(handler: fn(TcpStream)) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || handler(s));
        }
    });
    url
}

/// An Anthropic upstream killed mid-stream: `message_start` and one text
/// delta, then the connection closes without the stream's end.
fn handle_broken(mut s: TcpStream) {
    if crate::common::read_request(&s).is_none() {
        return;
    }
    let start = json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
        "role": "assistant", "model": "claude-sonnet-4-6", "content": [], "stop_reason": null,
        "stop_sequence": null, "usage": {"input_tokens": 12, "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0, "output_tokens": 1}}});
    let delta = json!({"type": "content_block_delta", "index": 0,
        "delta": {"type": "text_delta", "text": "Hel"}});
    let events = sse(
        &[
            start,
            json!({"type": "content_block_start", "index": 0,
        "content_block": {"type": "text", "text": ""}}),
            delta,
        ],
        true,
    );
    let _ = s.write_all(
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{events}\r\n",
            events.len()
        )
        .as_bytes(),
    );
    let _ = s.flush();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let _ = s.shutdown(std::net::Shutdown::Both);
}

/// Starts the upstream killed mid-stream; its base URL.
pub fn broken_upstream() -> String {
    serve(handle_broken)
}

/// Starts the upstream; its base URL.
pub fn upstream() -> String {
    serve(handle)
}

/// Starts the llama.cpp-like upstream; its base URL.
pub fn llama_upstream() -> String {
    serve(handle_llama)
}
