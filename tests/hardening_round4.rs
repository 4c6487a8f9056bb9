//! Hardening, fourth round: what an attacker's review found after the
//! third. Keys where a path names the model and credentials of the
//! upstream's own URL stay out of every output of the proxy; a FIFO named
//! on the command line is refused without being waited on. Each test drives
//! the real binary against loopback servers and files made here, and waits
//! for events with generous deadlines that fail loudly (no wall-clock
//! bound is asserted).

use crate::common;
use crate::upstream;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// A loopback upstream that answers every request with `status` and a body
/// that echoes the request's path and all its headers, as a careless
/// server's error page does.
fn echoing_upstream(status: &'static str) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            std::thread::spawn(move || echo(s, status));
        }
    });
    format!("{addr}")
}

fn echo(mut s: TcpStream, status: &str) {
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut first = String::new();
    if r.read_line(&mut first).is_err() {
        return;
    }
    let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
    let (mut len, mut auth) = (0usize, String::new());
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).is_err() || h == "\r\n" || h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            } else {
                // Every header echoed, as a debugging server's error does.
                auth += h.trim();
                auth.push(' ');
            }
        }
    }
    let mut body = vec![0; len];
    let _ = r.read_exact(&mut body);
    let reply = serde_json::json!({"error": {"message": format!("refused {path} with {auth}")}})
        .to_string();
    upstream::respond_with(&mut s, status, "application/json", &reply);
}

/// Sends one POST to the proxy and reads the whole answer.
fn post(url: &str, path: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut s = TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head += &format!("{k}: {v}\r\n");
    }
    s.write_all(format!("{head}\r\n{body}").as_bytes()).unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

/// The capture once it has `n` lines, then the proxy stopped and everything
/// it said on standard error.
fn capture_and_stderr(mut p: Proxy, n: usize) -> (String, String) {
    let started = Instant::now();
    let mut text = String::new();
    while started.elapsed() < Duration::from_secs(60) {
        text = std::fs::read_to_string(&p.capture).unwrap_or_default();
        if text.lines().count() >= n {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(text.lines().count(), n, "the capture: {text}");
    let _ = p.child.kill();
    let _ = p.child.wait();
    let mut err = String::new();
    p.child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (text, err)
}

/// No 8-character piece of `secret` (the redactor's smallest fragment) is
/// anywhere in `text`, in any case.
fn assert_no_piece(text: &str, secret: &str, what: &str) {
    let lower = text.to_lowercase();
    for w in secret.to_lowercase().as_bytes().windows(8) {
        let piece = std::str::from_utf8(w).unwrap();
        assert!(
            !lower.contains(piece),
            "{what} holds {piece:?} of a secret:\n{text}"
        );
    }
}

#[test]
fn a_key_where_gemini_names_the_model_is_redacted_from_capture_and_log() {
    let up = echoing_upstream("200 OK");
    let up = format!("http://{up}");
    let p = proxy(&up, &up, &["--gemini-upstream", &up]);
    // Google's shape, and a key of no known shape that the header names.
    let shaped = "AIzaSyD4f8Qx0Lm2Vb7Tn1Rk9Pw3Zc6Hj5Ge2Ua";
    let plain = "zz-private-0123456789abcdef";
    for key in [shaped, plain] {
        let path = format!("/v1beta/models/{key}:generateContent");
        post(
            &p.url,
            &path,
            &[("x-goog-api-key", key)],
            r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#,
        );
    }
    let (capture, log) = capture_and_stderr(p, 2);
    for key in [shaped, plain] {
        assert_no_piece(&capture, key, "the capture");
        assert_no_piece(&log, key, "the proxy's log");
    }
    // What is redacted is the key, not the rest of the line.
    assert!(capture.contains(":generateContent"), "{capture}");
    assert!(log.contains("generateContent"), "{log}");
}

#[test]
fn credentials_of_the_upstream_url_echoed_back_are_redacted() {
    let up = echoing_upstream("401 Unauthorized");
    let password = "s3cret-pass-4242";
    let with_user = format!("http://alice:{password}@{up}");
    let p = proxy(&with_user, &with_user, &[]);
    post(
        &p.url,
        "/v1/messages",
        &[],
        r#"{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}"#,
    );
    let (capture, log) = capture_and_stderr(p, 1);
    // The upstream did get the credentials (so its echo is the test).
    let basic = "YWxpY2U6czNjcmV0LXBhc3MtNDI0Mg==";
    for secret in [password, basic] {
        assert_no_piece(&capture, secret, "the capture");
        assert_no_piece(&log, secret, "the proxy's log");
    }
    assert!(
        capture.contains("[REDACTED]"),
        "the echo was recorded: {capture}"
    );
}

#[test]
fn a_fifo_named_as_a_capture_is_refused_without_waiting() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("capture.jsonl");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let capture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude-code/capture.jsonl");
    let capture = capture.to_str().unwrap();
    for args in [
        vec!["traffic", "capture.jsonl"],
        vec![
            "traffic",
            capture,
            "--diff",
            "2",
            "--with",
            "capture.jsonl#1",
        ],
        vec!["agents", "learn", "capture.jsonl", "--dry-run"],
    ] {
        let (status, err) = run_within(Command::new(bin()).args(&args).current_dir(dir.path()), 30);
        assert_eq!(status.code(), Some(2), "`{}`: {err}", args.join(" "));
        assert!(
            err.contains("capture.jsonl") && err.contains("not a regular file"),
            "`{}` names the file and why: {err}",
            args.join(" ")
        );
    }
}

#[test]
fn a_key_in_a_capture_the_proxy_never_saw_is_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let key = "sk-ant-api03-QWERTYUIOPasdfghjklZXCVBNM1234567890abcdEFGH";
    let line = |i: usize, messages: serde_json::Value| {
        serde_json::json!({"schema": 1, "id": format!("x-{i}"),
            "ts_start": format!("2026-11-30T10:00:0{i}Z"), "ts_end": format!("2026-11-30T10:00:0{i}Z"),
            "endpoint": "/v1/messages", "model": "claude-sonnet-4-6", "status": 200, "stream": false,
            "usage": {"input_tokens": 10, "output_tokens": 1}, "latency_ms": 5,
            "request": {"model": "claude-sonnet-4-6", "system": "You are helpful.", "messages": messages}})
        .to_string()
    };
    let first = serde_json::json!([{"role": "user", "content": format!("my key is {key} please")}]);
    let mut second = first.clone();
    second.as_array_mut().unwrap().extend([
        serde_json::json!({"role": "assistant", "content": "ok"}),
        serde_json::json!({"role": "user", "content": format!("again {key}")}),
    ]);
    let capture = dir.path().join("hand-made.jsonl");
    std::fs::write(
        &capture,
        format!("{}\n{}\n", line(1, first), line(2, second)),
    )
    .unwrap();
    let capture = capture.to_str().unwrap();
    for extra in [
        vec![],
        vec!["--parts"],
        vec!["--diff", "2"],
        vec!["--diff", "2", "--format", "json"],
        vec!["--diff", "2", "--format", "markdown"],
        vec!["--format", "json"],
        vec!["--format", "jsonl"],
    ] {
        let out = Command::new(bin())
            .arg("traffic")
            .arg(capture)
            .args(&extra)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{extra:?}: {text}");
        assert_no_piece(&text, &key["sk-ant-api03-".len()..], &format!("{extra:?}"));
    }
}

/// `text` rendered by markdown-it-py (CommonMark with GitHub's tables), as
/// a pull request or an issue shows it.
fn rendered(text: &str) -> String {
    let mut py = Command::new("python3")
        .args([
            "-c",
            "import sys; from markdown_it import MarkdownIt; \
             print(MarkdownIt('commonmark').enable('table').render(sys.stdin.read()))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    py.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = py.wait_with_output().unwrap();
    assert!(out.status.success(), "markdown-it-py failed");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
#[ignore = "needs markdown-it-py (pip install markdown-it-py; .ci/run installs it)"]
fn server_text_in_a_markdown_report_stays_text() {
    let dir = tempfile::tempdir().unwrap();
    let model = "claude|<b>bold</b>`x`";
    let line = serde_json::json!({"schema": 1, "id": "x-1", "ts_start": "2026-11-30T10:00:01Z",
        "ts_end": "2026-11-30T10:00:02Z", "endpoint": "/v1/messages", "model": model, "status": 500,
        "stream": false, "usage": {"input_tokens": 10, "output_tokens": 1}, "latency_ms": 5,
        "error": "boom <img src=x onerror=alert(1)> | [click](http://example.invalid) `code`",
        "request": {"model": model, "system": "s", "messages": [{"role": "user", "content": "hi"}]}});
    let capture = dir.path().join("c.jsonl");
    std::fs::write(&capture, format!("{line}\n")).unwrap();
    let out = Command::new(bin())
        .args(["traffic", capture.to_str().unwrap(), "--format", "markdown"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let html = rendered(&String::from_utf8_lossy(&out.stdout));
    for tag in ["<img", "<b>", "<a ", "<code>code"] {
        assert!(!html.contains(tag), "{tag} made of server text:\n{html}");
    }
    // One row of ten cells: no `|` of the server's opened a column.
    let row = html.split("<tbody>").nth(1).unwrap();
    assert_eq!(row.matches("<td").count(), 10, "{html}");
    assert!(
        row.contains("boom &lt;img src=x onerror=alert(1)&gt; | [click]"),
        "{html}"
    );
    assert!(
        row.contains("<code>claude|&lt;b&gt;bold&lt;/b&gt;'x'</code>"),
        "{html}"
    );
}

#[test]
fn a_gateways_own_key_header_echoed_back_is_redacted() {
    let up = format!("http://{}", echoing_upstream("400 Bad Request"));
    let p = proxy(&up, &up, &[]);
    let gateway = "pk-gateway-secret-0123456789";
    post(
        &p.url,
        "/v1/messages",
        &[("x-portkey-api-key", gateway)],
        r#"{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}"#,
    );
    let (capture, log) = capture_and_stderr(p, 1);
    assert_no_piece(&capture, gateway, "the capture");
    assert_no_piece(&log, gateway, "the proxy's log");
    assert!(capture.contains("x-portkey-api-key"), "{capture}");
}
