#![allow(dead_code)]
//! A loopback HTTP server that behaves as Anthropic's Messages API documents
//! prompt caching (and as OpenAI documents automatic caching). Written from
//! the documentation, separately from the predictor, so that comparing the
//! two means something:
//! - positions are tools, then system blocks, then message content blocks;
//! - at most 4 `cache_control` breakpoints, else 400;
//! - a breakpoint reads the longest cached identical prefix found at it or
//!   up to 19 positions before it (20 including itself);
//! - a prefix under 1024 tokens is not cached, silently;
//! - usage: `cache_read_input_tokens` (the prefix read),
//!   `cache_creation_input_tokens` (written beyond it), `input_tokens`
//!   (after the last cached breakpoint).

use std::collections::{HashSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

pub enum Scripted {
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    Delay(Duration),
    Raw(String),
}

#[derive(Default)]
pub struct State {
    pub key: String,
    pub script: VecDeque<Scripted>,
    pub cache: HashSet<String>,
    pub openai_seen: Vec<Vec<u32>>,
    pub requests: Vec<Value>,
    pub headers_seen: Vec<String>,
    /// Behave like llama.cpp's /v1/messages: no creation count reported.
    pub omit_creation: bool,
}

pub struct FakeServer {
    pub url: String,
    pub state: Arc<Mutex<State>>,
}

fn tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

fn ids(text: &str) -> Vec<u32> {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text)
}

fn without_cache_control(v: &Value) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("cache_control");
    }
    v
}

fn block_text(b: &Value) -> String {
    match b["type"].as_str() {
        Some("text") => b["text"].as_str().unwrap_or("").to_string(),
        Some("tool_use") => format!(
            "tool_use {} {}",
            b["name"].as_str().unwrap_or(""),
            b["input"]
        ),
        Some("tool_result") => b["content"].as_str().unwrap_or("").to_string(),
        _ => String::new(),
    }
}

/// (canonical text, tokens, has breakpoint) of every position.
fn positions(body: &Value) -> Vec<(String, usize, bool)> {
    let mut out = Vec::new();
    for t in body["tools"].as_array().into_iter().flatten() {
        let text = serde_json::to_string(&without_cache_control(t)).unwrap();
        out.push((
            format!("tool:{text}"),
            tokens(&text),
            t.get("cache_control").is_some(),
        ));
    }
    for b in body["system"].as_array().into_iter().flatten() {
        let text = b["text"].as_str().unwrap_or("").to_string();
        out.push((
            format!("system:{text}"),
            tokens(&text),
            b.get("cache_control").is_some(),
        ));
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        let blocks: Vec<Value> = match &m["content"] {
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            Value::Array(a) => a.clone(),
            _ => vec![],
        };
        for b in blocks {
            let text = block_text(&b);
            out.push((
                format!("{}:{text}", m["role"].as_str().unwrap_or("")),
                tokens(&text),
                b.get("cache_control").is_some(),
            ));
        }
    }
    out
}

fn anthropic(state: &mut State, body: &Value) -> (u16, Value) {
    let pos = positions(body);
    let bps: Vec<usize> = (0..pos.len()).filter(|&i| pos[i].2).collect();
    if bps.len() > 4 {
        return (
            400,
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "A maximum of 4 blocks with cache_control may be provided."}}),
        );
    }
    let mut keys = Vec::new();
    let mut acc = String::new();
    let mut prefix_tokens = Vec::new();
    let mut total = 0;
    for (text, t, _) in &pos {
        acc.push('\u{0}');
        acc.push_str(text);
        keys.push(acc.clone());
        total += t;
        prefix_tokens.push(total);
    }
    let mut hit: Option<usize> = None;
    for &b in &bps {
        let lo = b.saturating_sub(19);
        if let Some(p) = (lo..=b).rev().find(|p| state.cache.contains(&keys[*p])) {
            hit = Some(hit.map_or(p, |h: usize| h.max(p)));
        }
    }
    let read = hit.map(|h| prefix_tokens[h]).unwrap_or(0);
    let mut written = read;
    for &b in &bps {
        if hit.is_some_and(|h| b <= h) || prefix_tokens[b] < 1024 {
            continue;
        }
        state.cache.insert(keys[b].clone());
        written = written.max(prefix_tokens[b]);
    }
    let mut usage = json!({
        "input_tokens": total - written.max(read),
        "cache_read_input_tokens": read,
        "output_tokens": 1,
    });
    if !state.omit_creation {
        usage["cache_creation_input_tokens"] = json!(written - read);
        usage["cache_creation"] =
            json!({"ephemeral_5m_input_tokens": written - read, "ephemeral_1h_input_tokens": 0});
    }
    (
        200,
        json!({"id": "msg_fake", "type": "message", "role": "assistant", "content": [{"type": "text", "text": "ok"}], "stop_reason": "max_tokens", "usage": usage}),
    )
}

fn openai(state: &mut State, body: &Value) -> (u16, Value) {
    let mut seq = Vec::new();
    for t in body["tools"].as_array().into_iter().flatten() {
        seq.extend(ids(&serde_json::to_string(t).unwrap()));
    }
    for m in body["messages"].as_array().into_iter().flatten() {
        seq.extend(ids(m["content"].as_str().unwrap_or("")));
    }
    let common = state
        .openai_seen
        .iter()
        .map(|s| s.iter().zip(&seq).take_while(|(a, b)| a == b).count())
        .max()
        .unwrap_or(0);
    let cached = if common >= 1024 && seq.len() >= 1024 {
        1024 + (common - 1024) / 128 * 128
    } else {
        0
    };
    state.openai_seen.push(seq.clone());
    (
        200,
        json!({"id": "chatcmpl-fake", "choices": [{"message": {"role": "assistant", "content": "ok"}}],
        "usage": {"prompt_tokens": seq.len(), "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": cached}}}),
    )
}

fn respond(stream: &mut TcpStream, status: u16, headers: &[(String, String)], body: &str) {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head += &format!("{k}: {v}\r\n");
    }
    head += "\r\n";
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
}

fn handle(mut stream: TcpStream, state: &Arc<Mutex<State>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut headers = Vec::new();
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).is_err() || line == "\r\n" || line.is_empty() {
            break;
        }
        let l = line.trim_end().to_string();
        if let Some((k, v)) = l.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let mut body = vec![0u8; len];
    let _ = reader.read_exact(&mut body);
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let scripted = {
        let mut s = state.lock().unwrap();
        s.requests.push(body.clone());
        s.headers_seen.push(format!("{headers:?}"));
        // Scripted failures are for the Messages and Chat endpoints.
        if path.ends_with("/count_tokens") {
            None
        } else {
            s.script.pop_front()
        }
    };
    match scripted {
        Some(Scripted::Status {
            status,
            headers,
            body,
        }) => return respond(&mut stream, status, &headers, &body),
        Some(Scripted::Raw(b)) => return respond(&mut stream, 200, &[], &b),
        Some(Scripted::Delay(d)) => std::thread::sleep(d),
        None => {}
    }
    let mut s = state.lock().unwrap();
    // A key in `x-api-key` or as `Authorization: Bearer` (the SDK's way);
    // other Authorization schemes (a proxy's Basic) are not keys.
    let offered: Vec<String> = headers
        .iter()
        .filter(|(k, _)| k == "x-api-key" || k == "authorization")
        .map(|(_, v)| v.trim_start_matches("Bearer ").to_string())
        .collect();
    let auth = offered
        .iter()
        .find(|v| **v == s.key)
        .or(offered.first())
        .cloned();
    if !s.key.is_empty() && auth.as_deref() != Some(s.key.as_str()) {
        let shown = auth.unwrap_or_default();
        // Like some proxies, echo the rejected key: the client must redact it.
        let b = json!({"type": "error", "error": {"type": "authentication_error", "message": format!("invalid x-api-key: {shown}")}});
        return respond(&mut stream, 401, &[], &b.to_string());
    }
    let (status, v) = match path.as_str() {
        "/v1/messages" => anthropic(&mut s, &body),
        "/v1/messages/count_tokens" => (
            200,
            json!({"input_tokens": positions(&body).iter().map(|p| p.1).sum::<usize>()}),
        ),
        "/v1/chat/completions" => openai(&mut s, &body),
        _ => (404, json!({"error": {"message": "not found"}})),
    };
    drop(s);
    respond(&mut stream, status, &[], &v.to_string());
}

impl FakeServer {
    pub fn start(key: &str) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State {
            key: key.into(),
            ..State::default()
        }));
        let st = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let st = st.clone();
                std::thread::spawn(move || handle(stream, &st));
            }
        });
        FakeServer { url, state }
    }

    pub fn push(&self, s: Scripted) {
        self.state.lock().unwrap().script.push_back(s);
    }

    pub fn status(&self, status: u16, headers: &[(&str, &str)], body: &str) {
        self.push(Scripted::Status {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.into(),
        });
    }
}
