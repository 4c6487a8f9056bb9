//! The recording proxy, driven as a user would: the real binary listening
//! on loopback, loopback upstreams written here (JSON and SSE), plain HTTP
//! clients; every exchange lands in the capture with its usage, and no key.

use crate::common;
use crate::fake;
use crate::upstream;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::Duration;

use common::http::{dechunk, post};
use common::*;
use serde_json::Value;

const KEY: &str = "sk-ant-api03-PROXY-KEY-must-never-be-recorded-0123456789";

fn capture_lines(p: &Proxy, n: usize) -> Vec<Value> {
    for _ in 0..200 {
        let text = std::fs::read_to_string(&p.capture).unwrap_or_default();
        let lines: Vec<Value> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        if lines.len() >= n {
            return lines;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("the capture has fewer than {n} lines");
}

const MESSAGE: &str = r#"{"model":"claude-sonnet-4-6","max_tokens":1,"system":[{"type":"text","text":"You are Kestrel.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]}"#;

#[test]
fn json_exchanges_are_forwarded_unchanged_and_recorded_without_keys() {
    let upstream = fake::FakeServer::start(KEY);
    let p = proxy(&upstream.url, &upstream.url, &[]);
    let direct = post(
        &upstream.url,
        "/v1/messages",
        MESSAGE,
        &[("x-api-key", KEY)],
    );
    let via = post(
        &p.url,
        "/v1/messages",
        MESSAGE,
        &[("x-api-key", KEY), ("anthropic-version", "2023-06-01")],
    );
    assert!(via.0.contains("200"), "{via:?}");
    let (a, b): (Value, Value) = (
        serde_json::from_slice(&direct.2).unwrap(),
        serde_json::from_slice(&dechunk(&via.2))
            .unwrap_or_else(|_| serde_json::from_slice(&via.2).unwrap()),
    );
    assert_eq!(a["usage"]["input_tokens"], b["usage"]["input_tokens"]);
    // The upstream saw the key (forwarded) …
    assert!(
        upstream
            .state
            .lock()
            .unwrap()
            .headers_seen
            .last()
            .unwrap()
            .contains(KEY)
    );
    let lines = capture_lines(&p, 1);
    let l = &lines[0];
    for k in [
        "schema",
        "id",
        "ts_start",
        "ts_end",
        "endpoint",
        "model",
        "request",
        "status",
        "stream",
        "usage",
        "latency_ms",
        "error",
    ] {
        assert!(l.get(k).is_some(), "capture field {k}: {l}");
    }
    assert_eq!(l["endpoint"], "/v1/messages");
    assert_eq!(l["status"], 200);
    assert_eq!(
        l["request"],
        serde_json::from_str::<Value>(MESSAGE).unwrap()
    );
    assert!(l["usage"]["input_tokens"].is_u64());
    // … the capture never does.
    let text = std::fs::read_to_string(&p.capture).unwrap();
    assert!(!text.contains("PROXY-KEY"));
    // And `traffic` reads the capture.
    let o = run(&["traffic", p.capture.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(&o)["source"], "capture");
}

/// How the SSE upstream ends its stream.
#[derive(Clone, Copy, PartialEq)]
enum Ending {
    /// The last events, then the end of the body.
    Complete,
    /// The connection closes mid-stream instead.
    Broken,
    /// The last events, then 3 s before the end of the body.
    Linger,
}

/// An SSE upstream that sends `message_start`, waits for `go`, then the
/// rest, ending as `ending` says.
fn sse_upstream(go: mpsc::Receiver<()>, ending: Ending) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        let Ok((mut s, _)) = l.accept() else { return };
        let mut buf = [0u8; 65536];
        let _ = s.read(&mut buf);
        let chunk = |s: &mut TcpStream, data: &str| {
            let _ = s.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes());
            let _ = s.flush();
        };
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n");
        chunk(
            &mut s,
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude-sonnet-4-6\",\"usage\":{\"input_tokens\":5,\"cache_creation_input_tokens\":1200,\"cache_read_input_tokens\":0,\"output_tokens\":1,\"cache_creation\":{\"ephemeral_5m_input_tokens\":1200,\"ephemeral_1h_input_tokens\":0}}}}\n\n",
        );
        let _ = go.recv_timeout(Duration::from_secs(20));
        if ending == Ending::Broken {
            let _ = s.shutdown(std::net::Shutdown::Both);
            return;
        }
        chunk(
            &mut s,
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":42}}\n\n",
        );
        chunk(
            &mut s,
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        if ending == Ending::Linger {
            std::thread::sleep(Duration::from_secs(3));
        }
        let _ = s.write_all(b"0\r\n\r\n");
    });
    url
}

/// Sends a streaming Messages request through the proxy and reads until the
/// first event (`message_start`) has arrived: the connection and the bytes.
fn stream_until_first_event(p: &Proxy) -> (TcpStream, Vec<u8>) {
    let addr = p.url.trim_start_matches("http://").to_string();
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let body = MESSAGE.replace("\"max_tokens\":1", "\"max_tokens\":1,\"stream\":true");
    s.write_all(format!("POST /v1/messages HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nx-api-key: {KEY}\r\n\r\n{body}", body.len()).as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("message_start") {
        let n = s
            .read(&mut buf)
            .expect("the first event arrives before the stream ends");
        assert!(n > 0, "closed early");
        got.extend_from_slice(&buf[..n]);
    }
    (s, got)
}

#[test]
fn streams_pass_through_chunk_by_chunk_and_usage_is_read_from_them() {
    let (go, wait) = mpsc::channel();
    let upstream = sse_upstream(wait, Ending::Complete);
    let p = proxy(&upstream, &upstream, &[]);
    // The first event arrives while the upstream still holds the rest: the
    // proxy does not buffer.
    let (mut s, mut got) = stream_until_first_event(&p);
    go.send(()).unwrap();
    let _ = s.read_to_end(&mut got);
    let text = String::from_utf8_lossy(&got);
    assert!(text.contains("message_delta") && text.contains("message_stop"));
    let l = &capture_lines(&p, 1)[0];
    assert_eq!(l["stream"], true);
    assert_eq!(l["usage"]["cache_creation_input_tokens"], 1200);
    assert_eq!(
        l["usage"]["output_tokens"], 42,
        "message_delta updates message_start"
    );
    assert!(
        !std::fs::read_to_string(&p.capture)
            .unwrap()
            .contains("PROXY-KEY")
    );
}

#[test]
fn a_client_that_closes_after_the_last_event_had_the_whole_answer() {
    // SDKs close the connection once they have read the stream's last
    // event, possibly before the upstream ends the body: that is a complete
    // exchange, not a cancelled one.
    let (go, wait) = mpsc::channel();
    let upstream = sse_upstream(wait, Ending::Linger);
    let p = proxy(&upstream, &upstream, &[]);
    let (mut s, mut got) = stream_until_first_event(&p);
    go.send(()).unwrap();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("message_stop") {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "closed early");
        got.extend_from_slice(&buf[..n]);
    }
    drop(s);
    let l = &capture_lines(&p, 1)[0];
    assert_eq!(l["error"], Value::Null, "{l}");
    assert_eq!(l["usage"]["output_tokens"], 42, "{l}");
}

#[test]
fn a_broken_upstream_is_an_error_for_the_client_and_in_the_capture() {
    let (go, wait) = mpsc::channel();
    let upstream = sse_upstream(wait, Ending::Broken);
    let p = proxy(&upstream, &upstream, &[]);
    go.send(()).unwrap();
    let _ = post(&p.url, "/v1/messages", MESSAGE, &[("x-api-key", KEY)]);
    let l = &capture_lines(&p, 1)[0];
    assert!(l["error"].as_str().unwrap_or("").contains("broke"), "{l}");
    // An upstream that is not there: 502 in the provider's error shape.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = format!("http://127.0.0.1:{port}");
    let p = proxy(&down, &down, &[]);
    let (status, _, body) = post(&p.url, "/v1/messages", MESSAGE, &[("x-api-key", KEY)]);
    assert!(status.contains("502"), "{status}");
    let v: Value = serde_json::from_slice(&body)
        .unwrap_or_else(|_| serde_json::from_slice(&dechunk(&body)).unwrap());
    assert_eq!(v["type"], "error");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("prompt-inspector proxy")
    );
    let (status, _, body) = post(
        &p.url,
        "/v1/chat/completions",
        "{}",
        &[("authorization", &format!("Bearer {KEY}"))],
    );
    assert!(status.contains("502"));
    let v: Value = serde_json::from_slice(&body)
        .unwrap_or_else(|_| serde_json::from_slice(&dechunk(&body)).unwrap());
    assert!(
        v["error"]["message"].is_string(),
        "OpenAI's error shape: {v}"
    );
    let lines = capture_lines(&p, 2);
    assert!(
        lines
            .iter()
            .all(|l| l["status"] == 502 && l["error"].is_string())
    );
    assert!(
        !std::fs::read_to_string(&p.capture)
            .unwrap()
            .contains("PROXY-KEY")
    );
    // Not a forwarded path: 404.
    let (status, _, _) = post(&p.url, "/v1/files", "{}", &[]);
    assert!(status.contains("404"), "{status}");
}

#[test]
fn fifty_concurrent_exchanges_are_all_recorded() {
    let upstream = fake::FakeServer::start("");
    let p = proxy(&upstream.url, &upstream.url, &[]);
    let handles: Vec<_> = (0..50)
        .map(|i| {
            let url = p.url.clone();
            std::thread::spawn(move || {
                let body = MESSAGE.replace("hi", &format!("hi {i}"));
                post(&url, "/v1/messages", &body, &[]).0
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap().contains("200"));
    }
    let lines = capture_lines(&p, 50);
    assert_eq!(lines.len(), 50);
    let mut ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 50, "every exchange its own line and id");
}

/// Forty clients at once with agent-sized bodies (150 KB, redacted off the
/// runtime): the recordings take turns, one per core, and every exchange
/// is in the capture with its whole request.
#[test]
fn forty_large_exchanges_at_once_take_turns_recording_and_are_all_recorded() {
    let upstream = fake::FakeServer::start("");
    let p = proxy(&upstream.url, &upstream.url, &[]);
    let filler = "lorem ipsum dolor ".repeat(8_500);
    let handles: Vec<_> = (0..40)
        .map(|i| {
            let url = p.url.clone();
            let body = MESSAGE.replace("hi", &format!("hi {i} {filler}"));
            std::thread::spawn(move || post(&url, "/v1/messages", &body, &[]).0)
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap().contains("200"));
    }
    let lines = capture_lines(&p, 40);
    assert_eq!(lines.len(), 40);
    let mut firsts: Vec<String> = lines
        .iter()
        .map(|l| {
            let text = l["request"]["messages"][0]["content"].as_str().unwrap();
            assert!(text.len() > 150_000, "the whole request recorded");
            text.split(' ').take(2).collect::<Vec<_>>().join(" ")
        })
        .collect();
    firsts.sort();
    firsts.dedup();
    assert_eq!(firsts.len(), 40, "each client's own request");
}

#[test]
fn listening_beyond_loopback_is_a_warning() {
    let upstream = fake::FakeServer::start("");
    let mut p = proxy_on("0.0.0.0:0", &upstream.url, &upstream.url, &[]);
    let _ = p.child.kill();
    let mut err = String::new();
    p.child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(err.contains("warning: listening on 0.0.0.0"), "{err}");
}

#[test]
fn a_client_that_disconnects_cancels_its_upstream_request_and_it_is_recorded() {
    // An upstream that sends the first event, then stays silent and waits
    // for its connection to close.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = format!("http://{}", l.local_addr().unwrap());
    let (closed_tx, closed) = mpsc::channel();
    std::thread::spawn(move || {
        let Ok((mut s, _)) = l.accept() else { return };
        let mut buf = [0u8; 65536];
        let _ = s.read(&mut buf);
        let event = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude-sonnet-4-6\",\"usage\":{\"input_tokens\":5,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":900,\"output_tokens\":1}}}\n\n";
        let _ = s.write_all(format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{event}\r\n", event.len()).as_bytes());
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        // EOF (0) or a reset: the proxy closed the upstream connection.
        let r = s.read(&mut buf);
        let _ = closed_tx.send(matches!(r, Ok(0)) || matches!(&r, Err(e) if e.kind() != std::io::ErrorKind::WouldBlock && e.kind() != std::io::ErrorKind::TimedOut));
    });
    let p = proxy(&upstream, &upstream, &[]);
    let (s, _) = stream_until_first_event(&p);
    // The client goes away mid-stream.
    drop(s);
    assert_eq!(
        closed.recv_timeout(Duration::from_secs(15)),
        Ok(true),
        "the upstream connection is closed when the client leaves"
    );
    let l = &capture_lines(&p, 1)[0];
    assert_eq!(l["usage"]["cache_read_input_tokens"], 900);
    assert!(
        l["error"]
            .as_str()
            .unwrap_or("")
            .contains("client disconnected"),
        "{l}"
    );
}

#[test]
fn a_client_that_leaves_before_the_answer_cancels_its_upstream_request_and_it_is_recorded() {
    // An upstream that reads the request and never answers: it only waits
    // for its connection to close.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let upstream = format!("http://{}", l.local_addr().unwrap());
    let (closed_tx, closed) = mpsc::channel();
    let (got_tx, got) = mpsc::channel();
    std::thread::spawn(move || {
        let Ok((mut s, _)) = l.accept() else { return };
        let mut buf = [0u8; 65536];
        let _ = s.read(&mut buf);
        let _ = got_tx.send(());
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let r = s.read(&mut buf);
        let _ = closed_tx.send(matches!(r, Ok(0)) || matches!(&r, Err(e) if e.kind() != std::io::ErrorKind::WouldBlock && e.kind() != std::io::ErrorKind::TimedOut));
    });
    let p = proxy(&upstream, &upstream, &[]);
    let addr = p.url.trim_start_matches("http://").to_string();
    let mut s = TcpStream::connect(&addr).unwrap();
    s.write_all(format!("POST /v1/messages HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nx-api-key: {KEY}\r\n\r\n{MESSAGE}", MESSAGE.len()).as_bytes()).unwrap();
    got.recv_timeout(Duration::from_secs(10))
        .expect("the request reaches the upstream");
    drop(s);
    assert_eq!(
        closed.recv_timeout(Duration::from_secs(15)),
        Ok(true),
        "the upstream connection is closed when the client leaves"
    );
    // And the exchange is recorded, with why it has no answer, and no key.
    let l = &capture_lines(&p, 1)[0];
    assert_eq!(l["status"], Value::Null, "{l}");
    assert!(
        l["error"]
            .as_str()
            .unwrap_or("")
            .contains("client disconnected before the answer"),
        "{l}"
    );
    assert!(!l.to_string().contains("PROXY-KEY"));
}

#[test]
fn a_llama_cpp_upstream_counts_each_part_with_its_own_tokenizer() {
    let llama = upstream::llama_upstream();
    let p = proxy(&llama, &llama, &[]);
    let system = "You are Kestrel, a careful assistant for the harbour office.";
    let first = serde_json::json!({"model": "smollm2", "messages": [
        {"role": "system", "content": system},
        {"role": "user", "content": "hello there friend"}]});
    let mut second = first.clone();
    second["messages"].as_array_mut().unwrap().extend([
        serde_json::json!({"role": "assistant", "content": "Hi"}),
        serde_json::json!({"role": "user", "content": "what tides are due tomorrow morning"}),
    ]);
    for body in [&first, &second] {
        let (status, _, _) = post(&p.url, "/v1/chat/completions", &body.to_string(), &[]);
        assert!(status.contains("200"), "{status}");
    }
    let mut lines = capture_lines(&p, 2);
    // Lines are written as exchanges end (after counting), not always in
    // the order the requests were sent: the shorter conversation first.
    lines.sort_by_key(|l| l["request"]["messages"].as_array().unwrap().len());
    // Each part counted by the server's own tokenizer, in the views' order.
    assert!(
        lines[0]["counted"]["by"]
            .as_str()
            .unwrap()
            .starts_with("llama.cpp server at http://127.0.0.1:"),
        "{}",
        lines[0]
    );
    let words = |m: &Value| upstream::words(m["content"].as_str().unwrap()) as u64;
    for (l, body) in lines.iter().zip([&first, &second]) {
        let expected: Vec<u64> = body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(words)
            .collect();
        let got: Vec<u64> = l["counted"]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_u64().unwrap())
            .collect();
        assert_eq!(got, expected, "{l}");
    }
    // `traffic` shows those counts, and the chat template's part, so the
    // parts sum to the prompt tokens the server reported.
    let o = run(&["traffic", p.capture.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = json(&o);
    for r in t["requests"].as_array().unwrap() {
        let parts = r["parts"].as_array().unwrap();
        // The messages, then the template's part.
        let n = parts.len() - 1;
        assert!(n == 2 || n == 4, "{r}");
        let last = &parts[n];
        assert_eq!(last["label"], "chat template (the server's formatting)");
        assert_eq!(
            last["tokens"].as_u64().unwrap(),
            upstream::template_tokens(n) as u64
        );
        let sum: u64 = parts.iter().map(|p| p["tokens"].as_u64().unwrap()).sum();
        assert_eq!(
            sum,
            r["input_tokens"].as_u64().unwrap() + r["cache_read_input_tokens"].as_u64().unwrap()
        );
        assert!(
            r["parts_counted_by"]
                .as_str()
                .unwrap()
                .contains("llama.cpp server at http://127.0.0.1:"),
            "{r}"
        );
    }
    let o = run(&["traffic", p.capture.to_str().unwrap(), "--parts"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("counted by the llama.cpp server at"),
        "{text}"
    );
    assert!(
        text.contains("chat template (the server's formatting)"),
        "{text}"
    );
}

#[test]
fn parts_are_estimated_and_say_so_when_the_upstream_is_not_llama_cpp() {
    let upstream = fake::FakeServer::start("");
    let p = proxy(&upstream.url, &upstream.url, &[]);
    let (status, _, _) = post(&p.url, "/v1/messages", MESSAGE, &[]);
    assert!(status.contains("200"), "{status}");
    let lines = capture_lines(&p, 1);
    assert!(lines[0].get("counted").is_none(), "{}", lines[0]);
    let o = run(&["traffic", p.capture.to_str().unwrap(), "--format", "json"]);
    let r = &json(&o)["requests"][0];
    assert_eq!(part_labels(r), vec!["system block 1", "message 1 (user)"]);
    assert!(
        r["parts_counted_by"]
            .as_str()
            .unwrap()
            .contains("an estimate"),
        "{r}"
    );
}

#[test]
fn the_client_receives_the_same_bytes_as_directly() {
    let up = upstream::upstream();
    let p = proxy(&up, &up, &[]);
    let openai = r#"{"model":"gpt-6-sol","messages":[{"role":"user","content":"hi"}]}"#;
    for (path, body) in [
        ("/v1/messages", MESSAGE.to_string()),
        (
            "/v1/messages",
            MESSAGE.replace("\"max_tokens\":1", "\"max_tokens\":1,\"stream\":true"),
        ),
        ("/v1/chat/completions", openai.to_string()),
        (
            "/v1/chat/completions",
            openai.replace("\"messages\"", "\"stream\":true,\"messages\""),
        ),
    ] {
        let direct = post(&up, path, &body, &[("x-api-key", KEY)]);
        let via = post(&p.url, path, &body, &[("x-api-key", KEY)]);
        assert!(via.0.contains("200"), "{via:?}");
        let via_body = if via.1.contains("transfer-encoding: chunked") {
            dechunk(&via.2)
        } else {
            via.2.clone()
        };
        assert_eq!(
            String::from_utf8_lossy(&direct.2),
            String::from_utf8_lossy(&via_body),
            "{path} {body}"
        );
        let ct = |h: &str| {
            h.lines()
                .find(|l| l.starts_with("content-type:"))
                .map(str::to_string)
        };
        assert_eq!(ct(&direct.1), ct(&via.1));
    }
    assert_eq!(capture_lines(&p, 4).len(), 4);
}

/// An upstream that echoes the key it was sent inside its usage and cache
/// diagnostics (Messages), and refuses Chat Completions with a 400.
fn echoing_upstream() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            let mut raw = Vec::new();
            let mut buf = [0u8; 65536];
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            while !String::from_utf8_lossy(&raw).contains("\r\n\r\n") {
                let Ok(n) = s.read(&mut buf) else { break };
                if n == 0 {
                    break;
                }
                raw.extend_from_slice(&buf[..n]);
            }
            let head = String::from_utf8_lossy(&raw).to_string();
            let key = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    ["x-api-key", "api-key"]
                        .contains(&k.to_ascii_lowercase().as_str())
                        .then(|| v.trim().to_string())
                })
                .unwrap_or_default();
            let (status, body) = if head.starts_with("POST /v1/messages") {
                (
                    "200 OK",
                    serde_json::json!({"id": "msg_1", "type": "message", "content": [],
                        "usage": {"input_tokens": 5, "cache_creation_input_tokens": 0,
                            "cache_read_input_tokens": 0, "output_tokens": 1, "service_tier": format!("echo {key}")},
                        "diagnostics": {"cache_miss_reason": {"type": "system_changed", "cache_missed_input_tokens": 900, "note": key}}})
                    .to_string(),
                )
            } else {
                (
                    "400 Bad Request",
                    serde_json::json!({"error": {"message": format!("the request exceeds the available context size (key {key})"), "type": "invalid_request_error"}}).to_string(),
                )
            };
            upstream::respond_with(&mut s, status, "application/json", &body);
        }
    });
    url
}

#[test]
fn what_the_upstream_echoes_is_redacted_and_refusals_and_diagnostics_are_recorded() {
    let up = echoing_upstream();
    let p = proxy(&up, &up, &[]);
    let (status, _, _) = post(&p.url, "/v1/messages", MESSAGE, &[("x-api-key", KEY)]);
    assert!(status.contains("200"), "{status}");
    // Azure OpenAI's `api-key` header is a key too.
    let azure = "azure-KEY-never-recorded-4f9c2a7d1e";
    let body = r#"{"model":"gpt-6-sol","messages":[{"role":"user","content":"hi"}]}"#;
    let (status, _, _) = post(&p.url, "/v1/chat/completions", body, &[("api-key", azure)]);
    assert!(status.contains("400"), "{status}");
    let lines = capture_lines(&p, 2);
    let text = std::fs::read_to_string(&p.capture).unwrap();
    assert!(!text.contains("PROXY-KEY"), "{text}");
    assert!(!text.contains("never-recorded"), "{text}");
    let ok = lines.iter().find(|l| l["status"] == 200).unwrap();
    assert_eq!(ok["usage"]["service_tier"], "echo [REDACTED]");
    assert_eq!(
        ok["diagnostics"]["cache_miss_reason"]["type"],
        "system_changed"
    );
    let refused = lines.iter().find(|l| l["status"] == 400).unwrap();
    let e = refused["error"].as_str().unwrap();
    assert!(
        e.starts_with("HTTP 400: the request exceeds the available context size"),
        "{e}"
    );
    // `traffic` gives Anthropic's reason and the refusal.
    let o = run(&["traffic", p.capture.to_str().unwrap(), "--format", "json"]);
    let t = json(&o);
    let r = t["requests"].as_array().unwrap();
    let first = r.iter().find(|r| r["status"] == 200).unwrap();
    assert_eq!(first["miss"]["kind"], "provider", "{first}");
    let second = r.iter().find(|r| r["status"] == 400).unwrap();
    assert!(
        second["error"].as_str().unwrap().contains("HTTP 400"),
        "{second}"
    );
}

#[test]
fn an_upstream_that_is_not_http_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("c.jsonl");
    let o = std::process::Command::new(bin())
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--openai-upstream",
            "ftp://files.example",
        ])
        .args(["-o", capture.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(
            "the OpenAI upstream ftp://files.example: its scheme, ftp, is not http or https"
        ),
        "{}",
        stderr(&o)
    );
    assert!(!capture.exists(), "nothing is created");
}

/// A loopback upstream answering each request with what `answer` makes of
/// the path (and query) it was sent to: a content type and a body.
fn upstream_by_path(answer: fn(&str) -> (&'static str, String)) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            let Some((path, _)) = read_request(&s) else {
                continue;
            };
            let (ct, body) = answer(&path);
            upstream::respond_with(&mut s, "200 OK", ct, &body);
        }
    });
    url
}

/// An upstream whose stream ends in an error event (Anthropic's
/// `overloaded_error` after `message_start`), and whose `count_tokens`
/// answers with its figure.
fn overloaded_upstream() -> String {
    upstream_by_path(|path| {
        if path.ends_with("/count_tokens") {
            ("application/json", r#"{"input_tokens":199}"#.to_string())
        } else {
            (
                "text/event-stream",
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":7,\"output_tokens\":1}}}\n\nevent: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".to_string(),
            )
        }
    })
}

#[test]
fn a_stream_that_ends_in_an_error_and_token_counts_are_recorded_as_they_are() {
    let up = overloaded_upstream();
    let p = proxy(&up, &up, &[]);
    let stream = MESSAGE.replace("\"max_tokens\":1", "\"max_tokens\":1,\"stream\":true");
    let (status, _, _) = post(&p.url, "/v1/messages", &stream, &[]);
    assert!(status.contains("200"), "{status}");
    let (status, _, _) = post(&p.url, "/v1/messages/count_tokens", MESSAGE, &[]);
    assert!(status.contains("200"), "{status}");
    let lines = capture_lines(&p, 2);
    let failed = lines
        .iter()
        .find(|l| l["endpoint"] == "/v1/messages")
        .unwrap();
    assert_eq!(
        failed["error"], "the stream ended in an error: overloaded_error: Overloaded",
        "{failed}"
    );
    let counted = lines
        .iter()
        .find(|l| l["endpoint"] == "/v1/messages/count_tokens")
        .unwrap();
    assert_eq!(counted["usage"]["input_tokens"], 199, "{counted}");
}

#[test]
fn a_key_refused_over_plain_http_is_recorded_too() {
    // Never contacted: a key may not go over plain HTTP off this machine.
    let far = "http://10.255.255.1:9";
    let p = proxy(far, far, &[]);
    let (status, _, body) = post(&p.url, "/v1/messages", MESSAGE, &[("x-api-key", KEY)]);
    assert!(status.contains("502"), "{status}");
    assert!(String::from_utf8_lossy(&body).contains("plain HTTP"));
    let l = &capture_lines(&p, 1)[0];
    assert_eq!(l["status"], 502, "{l}");
    assert!(
        l["error"]
            .as_str()
            .unwrap()
            .contains("refusing to send an API key over plain HTTP"),
        "{l}"
    );
    assert!(
        !std::fs::read_to_string(&p.capture)
            .unwrap()
            .contains("PROXY-KEY")
    );
}

/// A Responses API stream as Codex receives it: its usage only on the
/// terminal `response.completed` event (whose data line carries the whole
/// response), then the upstream lingers before it ends the body.
fn responses_upstream() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        let Ok((mut s, _)) = l.accept() else { return };
        let mut buf = [0u8; 65536];
        let _ = s.read(&mut buf);
        let chunk = |s: &mut TcpStream, data: &str| {
            let _ = s.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes());
            let _ = s.flush();
        };
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n");
        chunk(
            &mut s,
            "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"usage\":null}}\n\n",
        );
        chunk(
            &mut s,
            "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"ok\"}\n\n",
        );
        let done = format!(
            "event: response.completed\ndata: {{\"type\":\"response.completed\",\"response\":{{\"id\":\"resp_1\",\"output\":[{{\"type\":\"message\",\"content\":[{{\"type\":\"output_text\",\"text\":\"{}\"}}]}}],\"usage\":{{\"input_tokens\":5200,\"input_tokens_details\":{{\"cached_tokens\":4096}},\"output_tokens\":30,\"output_tokens_details\":{{\"reasoning_tokens\":12}},\"total_tokens\":5230}}}}}}\n\n",
            "long answer ".repeat(400)
        );
        chunk(&mut s, &done);
        std::thread::sleep(Duration::from_secs(3));
        let _ = s.write_all(b"0\r\n\r\n");
    });
    url
}

#[test]
fn a_responses_stream_ends_at_response_completed_with_its_usage() {
    let up = responses_upstream();
    let p = proxy(&up, &up, &[]);
    let addr = p.url.trim_start_matches("http://").to_string();
    let mut s = TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let body = r#"{"model":"gpt-6.1-sol","stream":true,"prompt_cache_key":"sess-1","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}"#;
    s.write_all(format!("POST /v1/responses HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nauthorization: Bearer {KEY}\r\n\r\n{body}", body.len()).as_bytes()).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    // Codex closes as soon as it has response.completed.
    while !String::from_utf8_lossy(&got).contains("\"total_tokens\":5230") {
        let n = s.read(&mut buf).unwrap();
        assert!(n > 0, "closed early");
        got.extend_from_slice(&buf[..n]);
    }
    drop(s);
    let l = &capture_lines(&p, 1)[0];
    assert_eq!(l["error"], Value::Null, "a completed exchange: {l}");
    assert_eq!(l["usage"]["input_tokens"], 5200, "{l}");
    assert_eq!(l["usage"]["input_tokens_details"]["cached_tokens"], 4096);
    assert_eq!(l["usage"]["output_tokens_details"]["reasoning_tokens"], 12);
    let o = run(&["traffic", p.capture.to_str().unwrap(), "--format", "json"]);
    let v = json(&o);
    assert_eq!(v["requests"][0]["cache_read_input_tokens"], 4096, "{v}");
    assert_eq!(v["requests"][0]["input_tokens"], 5200 - 4096, "{v}");
}

/// The proxy in process (all three upstreams at `upstream`), recording to
/// `capture` and handing each exchange to `recorded`: its runtime, its base
/// URL, its stop switch and its task.
fn followed_proxy(
    upstream: &str,
    capture: &std::path::Path,
    recorded: tokio::sync::mpsc::Sender<prompt_inspector::engine::traffic::CaptureLine>,
) -> (
    tokio::runtime::Runtime,
    String,
    tokio::sync::watch::Sender<bool>,
    tokio::task::JoinHandle<Result<(), prompt_inspector::engine::error::Error>>,
) {
    use prompt_inspector::net::proxy::{Limits, ProxyConfig, serve};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let cfg = ProxyConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        anthropic_upstream: upstream.to_string(),
        openai_upstream: upstream.to_string(),
        gemini_upstream: upstream.to_string(),
        capture: capture.to_path_buf(),
        allow_insecure_http: false,
        timeout: Duration::from_secs(30),
        limits: Limits::default(),
        recorded: Some(recorded),
        otlp: None,
        log_exchanges: false,
    };
    let (ready, addr) = tokio::sync::oneshot::channel();
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let server = rt.spawn(serve(cfg, ready, stop_rx));
    let base = format!("http://{}", rt.block_on(addr).unwrap());
    (rt, base, stop, server)
}

/// The window's road: the proxy hands each exchange over as its line is
/// written (in process, a loopback upstream), the same exchange as the
/// line in the file, request included, in the file's order.
#[test]
fn each_exchange_is_handed_over_as_its_line_is_written() {
    use prompt_inspector::engine::traffic::CaptureLine;
    let upstream = fake::FakeServer::start(KEY);
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("capture.jsonl");
    let (recorded, mut exchanges) =
        tokio::sync::mpsc::channel(prompt_inspector::net::proxy::FEED_CAPACITY);
    let (rt, base, stop, server) = followed_proxy(&upstream.url, &capture, recorded);
    let headers = [("x-api-key", KEY), ("anthropic-version", "2023-06-01")];
    for i in 0..3 {
        let body = MESSAGE.replace("\"hi\"", &format!("\"turn {i}\""));
        let (status, _, _) = post(&base, "/v1/messages", &body, &headers);
        assert!(status.contains("200"), "{status}");
        let got = rt
            .block_on(async {
                tokio::time::timeout(Duration::from_secs(20), exchanges.recv()).await
            })
            .expect("an exchange within 20 s")
            .expect("the proxy still runs");
        // Its line is in the file when it arrives, and reads the same.
        let text = std::fs::read_to_string(&capture).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), i + 1, "{text}");
        assert_eq!(CaptureLine::parse(lines[i]).as_ref(), Some(&got));
        let request = got.request.as_ref().unwrap();
        assert_eq!(request["messages"][0]["content"], format!("turn {i}"));
        assert!(got.usage["input_tokens"].is_u64(), "{:?}", got.usage);
        assert!(!format!("{got:?}").contains("never-be-recorded"));
    }
    let _ = stop.send(true);
    rt.block_on(server).unwrap().unwrap();
}

/// A follower that does not keep up (a feed of one place, never read)
/// never slows the proxy: every exchange is answered and recorded, the
/// feed carries what fits, and the lines' numbers show what it missed.
#[test]
fn a_follower_that_falls_behind_misses_lines_not_the_capture() {
    let upstream = fake::FakeServer::start(KEY);
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("capture.jsonl");
    let (recorded, mut exchanges) = tokio::sync::mpsc::channel(1);
    let (rt, base, stop, server) = followed_proxy(&upstream.url, &capture, recorded);
    let headers = [("x-api-key", KEY), ("anthropic-version", "2023-06-01")];
    for _ in 0..3 {
        let (status, _, _) = post(&base, "/v1/messages", MESSAGE, &headers);
        assert!(status.contains("200"), "{status}");
    }
    for _ in 0..200 {
        if std::fs::read_to_string(&capture)
            .unwrap_or_default()
            .lines()
            .count()
            == 3
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let lines = std::fs::read_to_string(&capture).unwrap();
    assert_eq!(lines.lines().count(), 3, "every exchange recorded");
    // Lines are numbered in the file's order: the first one written (-1)
    // was carried, the others not.
    let first = exchanges.try_recv().expect("a line was carried");
    assert!(first.id.ends_with("-1"), "{}", first.id);
    for (i, l) in lines.lines().enumerate() {
        let v: Value = serde_json::from_str(l).unwrap();
        assert!(
            v["id"].as_str().unwrap().ends_with(&format!("-{}", i + 1)),
            "{l}"
        );
    }
    assert!(exchanges.try_recv().is_err(), "the rest did not fit");
    let _ = stop.send(true);
    rt.block_on(server).unwrap().unwrap();
}

/// An upstream that answers each request with the path and query it was
/// sent to (as the request line names them).
fn echo_path_upstream() -> String {
    upstream_by_path(|path| {
        let body = serde_json::json!({"path": path, "usage": {"input_tokens": 1}});
        ("application/json", body.to_string())
    })
}

#[test]
fn requests_go_to_the_upstreams_base_path_with_their_query() {
    let up = echo_path_upstream();
    let p = proxy(
        &format!("{up}/gateway/anthropic/"),
        &format!("{up}/openai"),
        &[],
    );
    for (path, sent_to) in [
        (
            "/v1/messages?beta=true",
            "/gateway/anthropic/v1/messages?beta=true",
        ),
        ("/v1/messages", "/gateway/anthropic/v1/messages"),
        (
            "/v1/chat/completions?a=1&b=%20x",
            "/openai/v1/chat/completions?a=1&b=%20x",
        ),
        ("/v1/responses", "/openai/v1/responses"),
    ] {
        let (status, head, body) = post(&p.url, path, MESSAGE, &[]);
        assert!(status.contains("200"), "{status}");
        let body = if head.contains("transfer-encoding: chunked") {
            dechunk(&body)
        } else {
            body
        };
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["path"], sent_to, "{path}");
    }
}
