//! An exchange's HTTP headers: the proxy records the request's and the
//! answer's, a credential's value never among them, and the Traffic tab's
//! Headers shows them (redacting what a hand-made capture left in).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use crate::common::*;
use crate::window::{harness, open_in_traffic, wait_for};
use egui_kittest::kittest::Queryable;

const KEY: &str = "sk-ant-api03-HeAdErSkEy0123456789abcdefGHIJKLmnop";
const COOKIE: &str = "sess-COOKIEsecret-0123456789";

/// A loopback upstream answering every request with a Messages reply and
/// headers of its own: an id, a rate limit, a cookie.
fn upstream_with_headers() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            let _ = read_request(&s);
            let reply = r#"{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}"#;
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nrequest-id: req_42\r\nanthropic-ratelimit-tokens-remaining: 1000\r\nset-cookie: {COOKIE}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                reply.len()
            );
            let _ = s.write_all(head.as_bytes());
            let _ = s.write_all(reply.as_bytes());
        }
    });
    url
}

fn has(pairs: &serde_json::Value, name: &str, value: &str) -> bool {
    pairs
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p[0] == name && p[1] == value)
}

#[test]
fn the_proxy_records_both_sides_headers_without_a_credential() {
    let up = upstream_with_headers();
    let p = proxy(&up, &up, &[]);
    let body = r#"{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}"#;
    let mut s = std::net::TcpStream::connect(p.url.trim_start_matches("http://")).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    write!(
        s,
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-api-key: {KEY}\r\nauthorization: Bearer {KEY}\r\ncookie: {COOKIE}\r\nx-portkey-api-key: {COOKIE}\r\nanthropic-version: 2023-06-01\r\nanthropic-beta: prompt-caching-2024-07-31\r\nuser-agent: claude-cli/2.1.332 (external, cli)\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(answer.contains("request-id: req_42"), "{answer}");
    let started = std::time::Instant::now();
    let text = loop {
        let t = std::fs::read_to_string(&p.capture).unwrap_or_default();
        if t.lines().count() == 1 || started.elapsed() > Duration::from_secs(60) {
            break t;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let line: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    let (req, resp) = (&line["headers"]["request"], &line["headers"]["response"]);
    assert!(has(req, "anthropic-version", "2023-06-01"), "{req}");
    assert!(
        has(req, "anthropic-beta", "prompt-caching-2024-07-31"),
        "{req}"
    );
    assert!(
        has(req, "user-agent", "claude-cli/2.1.332 (external, cli)"),
        "{req}"
    );
    assert!(has(req, "x-api-key", "[REDACTED]"), "{req}");
    assert!(has(req, "authorization", "Bearer [REDACTED]"), "{req}");
    assert!(has(req, "cookie", "[REDACTED]"), "{req}");
    // A gateway's own key header, by its name.
    assert!(has(req, "x-portkey-api-key", "[REDACTED]"), "{req}");
    assert!(has(resp, "request-id", "req_42"), "{resp}");
    assert!(
        has(resp, "anthropic-ratelimit-tokens-remaining", "1000"),
        "{resp}"
    );
    assert!(has(resp, "set-cookie", "[REDACTED]"), "{resp}");
    // The answer's body as it came.
    let answered: serde_json::Value =
        serde_json::from_str(line["response"].as_str().unwrap()).unwrap();
    assert_eq!(answered["content"][0]["text"], "ok");
    assert_eq!(answered["usage"]["input_tokens"], 3);
    for secret in [&KEY["sk-ant-api03-".len()..], COOKIE] {
        for w in secret.as_bytes().windows(8) {
            let piece = std::str::from_utf8(w).unwrap();
            assert!(!text.contains(piece), "the capture holds {piece:?}: {text}");
        }
    }
}

/// `capture` open in the Traffic tab, its first request selected with the
/// keyboard (its body read), its Headers tab shown.
fn first_request_headers(
    h: &mut egui_kittest::Harness<'static, Option<prompt_inspector::ui::App>>,
    capture: &std::path::Path,
) {
    open_in_traffic(h, capture);
    h.key_press(egui::Key::ArrowDown);
    h.run_steps(1);
    wait_for(h, "the body", |a| {
        matches!(&a.traffic_view.body, Some((1, Ok(_))))
    });
    h.get_by_label("Headers").click();
    h.run_steps(2);
}

#[test]
fn the_headers_tab_shows_them_and_no_credential_a_hand_made_capture_holds() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("hand-made.jsonl");
    let line = serde_json::json!({"schema": 1, "id": "x-1", "ts_start": "2026-11-30T10:00:01Z",
        "endpoint": "/v1/messages", "model": "claude-sonnet-4-6", "status": 200,
        "usage": {"input_tokens": 3, "output_tokens": 1},
        "headers": {"request": [["anthropic-version", "2023-06-01"], ["x-api-key", KEY],
            ["x-note", format!("pasted {KEY}")]],
            "response": [["request-id", "req_42"]]},
        "response": format!(r#"{{"content":[{{"type":"text","text":"hello there, {KEY}"}}]}}"#),
        "request": {"model": "claude-sonnet-4-6", "messages": [{"role": "user", "content": "hi"}]}});
    std::fs::write(&capture, format!("{line}\n")).unwrap();
    let mut h = harness(sample());
    first_request_headers(&mut h, &capture);
    // The answer's first (as DevTools has them): beside the request's on
    // a wide pane, else above them.
    let request = h.get_by_label("Request headers (3)").rect();
    let response = h.get_by_label("Response headers (1)").rect();
    assert!(
        response.right() <= request.left() || response.bottom() <= request.top(),
        "{response:?} {request:?}"
    );
    h.get_by_label("anthropic-version");
    h.get_by_label("2023-06-01");
    h.get_by_label("request-id");
    h.get_by_label("req_42");
    h.get_by_label("pasted [REDACTED]");
    assert!(
        h.query_all_by_label_contains("HeAdErSkEy").next().is_none(),
        "a key is shown"
    );
    assert_eq!(h.query_all_by_label("[REDACTED]").count(), 1);
    // The answer's body, on the Response tab, with no key either.
    h.get_by_label("Response").click();
    h.run_steps(2);
    h.get_by_label_contains("Response body as recorded (");
    h.get_by_label_contains("hello there, [REDACTED]");
    assert!(h.query_all_by_label_contains("HeAdErSkEy").next().is_none());
}

#[test]
fn a_real_agents_requests_carry_its_headers_and_no_key() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-headers");
    let text = std::fs::read_to_string(dir.join("capture.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 8);
    for l in &lines {
        let (req, resp) = (&l["headers"]["request"], &l["headers"]["response"]);
        assert!(has(req, "anthropic-version", "2023-06-01"), "{req}");
        assert!(has(req, "x-api-key", "[REDACTED]"), "{req}");
        assert!(
            req.as_array().unwrap().iter().any(|p| p[0] == "user-agent"
                && p[1].as_str().unwrap().starts_with("claude-cli/2.1.332")),
            "{req}"
        );
        assert!(
            resp.as_array()
                .unwrap()
                .iter()
                .any(|p| p[0] == "request-id"),
            "{resp}"
        );
    }
    assert!(
        !text.contains("sk-ant-FAKE"),
        "the agent's key is in the capture"
    );
    // The window reads them back with the body of the request selected.
    let (_, x, _) =
        prompt_inspector::opencode_db::read_exchanges(&dir.join("capture.jsonl"), &[8]).unwrap();
    let h = x[7].headers.as_deref().expect("read with its body");
    assert!(
        h.request
            .iter()
            .any(|(k, v)| k == "anthropic-beta" && v.contains("claude-code-"))
    );
    // Only the request asked for, the one before it in its chain and its
    // chain's first are read again.
    let read = x.iter().filter(|e| e.headers.is_some()).count();
    assert!(
        read <= 3 && read < x.len(),
        "{read} of {} read again",
        x.len()
    );
}

/// Claude Code's `anthropic-beta` (eight features, each with its date,
/// joined by commas without a space) at 1024 px: each feature is whole on
/// one row, never broken inside its name or its date, and the rows after
/// the first start where the value starts.
#[test]
fn a_comma_separated_header_breaks_only_between_its_items() {
    let capture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code-headers/capture.jsonl");
    let mut h = crate::window::harness_sized(sample(), egui::vec2(1024.0, 640.0));
    first_request_headers(&mut h, &capture);
    let name = h.get_by_label("anthropic-beta").rect();
    let items = [
        "claude-code-20250219,",
        "interleaved-thinking-2025-05-14,",
        "context-management-2025-06-27,",
        "effort-2025-11-24",
    ];
    let rects: Vec<egui::Rect> = items.iter().map(|i| h.get_by_label(i).rect()).collect();
    let row = rects[0].height();
    assert!((row - name.height()).abs() < 1.0, "{row} {name:?}");
    for (item, r) in items.iter().zip(&rects) {
        assert!((r.height() - row).abs() < 1.0, "{item} broken: {r:?}");
    }
    // Wider than the pane at 1024: the list takes more than one row, and
    // a row after the first starts under the first item.
    let last = rects[3];
    assert!(last.top() > rects[0].top(), "{rects:?}");
    let starts: Vec<f32> = h
        .query_all_by_label_contains("-20")
        .map(|n| n.rect())
        .filter(|r| r.top() > rects[0].top() && r.left() < rects[0].left() + 1.0)
        .map(|r| r.left())
        .collect();
    assert!(!starts.is_empty(), "no second row");
    for l in starts {
        assert!((l - rects[0].left()).abs() < 1.0, "{l} {:?}", rects[0]);
    }
}
