//! A loopback upstream that speaks the Anthropic Messages and OpenAI Chat
//! Completions APIs as their docs describe them, plain JSON and SSE, each
//! answer with cache usage: the far side of the recording proxy in tests.

use std::io::Write;
use std::net::{TcpListener, TcpStream};

use serde_json::{Value, json};

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
    let Some((path, req)) = crate::common::read_request(&s) else {
        return;
    };
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

/// Starts the upstream; its base URL.
pub fn upstream() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || handle(s));
        }
    });
    url
}
