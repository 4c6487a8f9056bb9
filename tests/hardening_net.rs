//! Hardening of the network side, one test per class of issue 9 (keys 1–4,
//! servers 5–8), each driving the real binary against loopback servers
//! written here. No traffic leaves this machine: the "remote" hosts below
//! are only ever named, and the one that would be reached goes through a
//! recording proxy on loopback.

use crate::common;
use crate::fake;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::*;
use fake::FakeServer;

const KEY: &str = "sk-ant-api03-HARDENING-KEY-Zq8xW3vB7nM2kL9pR4tY6uI1oE5aS0dF";

fn send_cmd(ws: &Path, base: &str, key: Option<&str>, extra: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args([
        "send",
        ws.to_str().unwrap(),
        "--provider",
        "anthropic",
        "--base-url",
        base,
    ]);
    c.args(extra);
    c.env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("HTTPS_PROXY")
        .env_remove("https_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy");
    if let Some(k) = key {
        c.env("ANTHROPIC_API_KEY", k);
    }
    c
}

fn send(ws: &Path, base: &str, extra: &[&str]) -> Output {
    send_cmd(ws, base, Some(KEY), extra).output().unwrap()
}

/// Everything a user or a later reader could see: both streams, and every
/// file under the workspace (runs, snapshots, calibration).
fn everything(ws: &Path, outputs: &[&Output]) -> String {
    let mut all = String::new();
    for o in outputs {
        all += &stdout(o);
        all += &stderr(o);
    }
    let snap = Command::new(bin())
        .args(["snapshot", ws.to_str().unwrap()])
        .env("ANTHROPIC_API_KEY", KEY)
        .output()
        .unwrap();
    all += &stdout(&snap);
    all += &stderr(&snap);
    for f in walk(ws) {
        all += &String::from_utf8_lossy(&std::fs::read(f).unwrap());
    }
    all
}

/// No fragment of `secret` of 8 or more characters, in any case.
fn assert_no_fragment(all: &str, secret: &str) {
    let lower = all.to_lowercase();
    for w in secret.as_bytes().windows(8) {
        let w = std::str::from_utf8(w).unwrap().to_lowercase();
        assert!(!lower.contains(&w), "a fragment of the secret leaked: {w}");
    }
}

// 1. Redaction happens before truncation, whatever form the echo takes.
#[test]
fn key_echoes_are_redacted_before_they_are_cut() {
    let ws = copy_sample();
    let server = FakeServer::start(KEY);
    let pad = "x".repeat(190);
    let bodies = [
        // The key straddles the old 200-character cut.
        (401, format!("{pad} {KEY} trailing")),
        (
            401,
            format!(
                r#"{{"error":{{"type":"authentication_error","message":"invalid x-api-key {KEY}"}}}}"#
            ),
        ),
        (500, format!("upstream said {}", KEY.to_uppercase())),
        (400, format!("key parts {} and {}", &KEY[..25], &KEY[25..])),
        (
            500,
            format!(
                "url /v1?key={}",
                KEY.replace('-', "%2D").replace('_', "%5F")
            ),
        ),
    ];
    let mut outputs = Vec::new();
    for (status, body) in &bodies {
        server.status(*status, &[], body);
        let o = send(
            ws.path(),
            &server.url,
            &["--repeat", "1", "--max-retries", "0"],
        );
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains("[REDACTED]") || stdout(&o).contains("[REDACTED]"),
            "the echo is shown redacted: {}",
            stderr(&o)
        );
        outputs.push(o);
    }
    let refs: Vec<&Output> = outputs.iter().collect();
    let all = everything(ws.path(), &refs);
    assert!(all.contains("error"), "runs were saved with their errors");
    assert_no_fragment(&all, KEY);
}

// 2. Redirects are never followed (a key must not reach another origin),
// and a 3xx is never a measurement.
#[test]
fn redirects_are_not_followed() {
    let ws = copy_sample();
    let server = FakeServer::start(KEY);
    let elsewhere = FakeServer::start(KEY);
    for status in [307u16, 302, 303, 308] {
        let location = format!("{}/v1/messages", elsewhere.url);
        server.status(status, &[("location", &location)], "");
        let o = send(
            ws.path(),
            &server.url,
            &["--repeat", "1", "--format", "json", "--no-save"],
        );
        assert!(!o.status.success(), "{status}: a redirect is an error");
        let v = json(&o);
        let row = &v["requests"][0];
        assert!(row["actual"].is_null(), "{status} is no measurement: {row}");
        let err = row["error"].as_str().unwrap();
        assert!(
            err.contains(&format!("HTTP {status} →")) && err.contains("not followed"),
            "{err}"
        );
        assert!(err.contains(&elsewhere.url), "the location is named: {err}");
    }
    let st = elsewhere.state.lock().unwrap();
    assert!(st.requests.is_empty(), "the other origin got a request");
    assert!(!st.headers_seen.iter().any(|h| h.contains(KEY)));
}

/// A loopback listener that records what a client sends it (as an HTTP
/// proxy would receive it) and answers 502.
fn recording_proxy() -> (String, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let s2 = seen.clone();
    std::thread::spawn(move || {
        for mut stream in l.incoming().flatten() {
            stream
                .set_read_timeout(Some(Duration::from_millis(500)))
                .ok();
            let mut buf = [0u8; 65536];
            if let Ok(n) = stream.read(&mut buf) {
                s2.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            let _ = stream.write_all(
                b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            );
        }
    });
    (url, seen)
}

// 3. No key over plain HTTP off loopback, not even to a proxy from the
// environment.
#[test]
fn plain_http_never_carries_a_key_off_loopback() {
    let ws = copy_sample();
    let (proxy, seen) = recording_proxy();
    // A remote plain-HTTP base URL: refused before anything is sent.
    let o = send_cmd(
        ws.path(),
        "http://api.example.test",
        Some(KEY),
        &["--repeat", "1", "--no-save"],
    )
    .env("HTTP_PROXY", &proxy)
    .env("http_proxy", &proxy)
    .output()
    .unwrap();
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("plain HTTP")
            && err.contains("https://")
            && err.contains("--allow-insecure-http"),
        "{err}"
    );
    // A loopback plain-HTTP server is fine, and is reached directly: the
    // environment's proxy never sees the key.
    let server = FakeServer::start(KEY);
    let o = send_cmd(
        ws.path(),
        &server.url,
        Some(KEY),
        &["--repeat", "1", "--no-save"],
    )
    .env("HTTP_PROXY", &proxy)
    .env("http_proxy", &proxy)
    .env("ALL_PROXY", &proxy)
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    std::thread::sleep(Duration::from_millis(200));
    let seen = seen.lock().unwrap();
    assert!(
        seen.is_empty(),
        "the proxy received: {}",
        String::from_utf8_lossy(&seen)
    );
}

// 4. Credentials in a base URL are masked wherever it is printed or saved.
#[test]
fn credentials_in_the_base_url_are_masked() {
    let ws = copy_sample();
    let server = FakeServer::start(KEY);
    let secret = "hunter2-Proxy-Passw0rd";
    let base = server
        .url
        .replacen("http://", &format!("http://alice:{secret}@"), 1);
    let o = send(ws.path(), &base, &["--repeat", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A refused key: the server echoes what it got, Basic credentials included.
    let o3 = send_cmd(
        ws.path(),
        &base,
        Some("sk-wrong-key-0000000000000000"),
        &["--repeat", "1"],
    )
    .output()
    .unwrap();
    assert!(!o3.status.success());
    let o2 = send(ws.path(), &base, &["--repeat", "1", "--format", "json"]);
    assert!(stdout(&o2).contains("***@127.0.0.1"), "{}", stdout(&o2));
    let all = everything(ws.path(), &[&o, &o2, &o3]);
    assert!(!all.contains(secret), "the password leaked");
    // `Authorization: Basic base64(alice:password)`, as a server may echo it.
    assert_no_fragment(&all, "YWxpY2U6aHVudGVyMi1Qcm94eS1QYXNzdzByZA==");
    assert!(!all.contains("alice:"), "the user leaked");
}

// 5. Any retry-after: no panic, waits capped and the cap said.
#[test]
fn any_retry_after_is_survived_and_capped() {
    let ws = copy_sample();
    for value in [
        "inf",
        "1e20",
        "-3",
        "NaN",
        "Wed, 21 Oct 2099 07:28:30 GMT",
        "garbage!",
        "99999999999999999999999",
    ] {
        let server = FakeServer::start(KEY);
        for _ in 0..2 {
            server.status(
                429,
                &[("retry-after", value)],
                r#"{"error":{"message":"slow down"}}"#,
            );
        }
        let started = Instant::now();
        let o = send(
            ws.path(),
            &server.url,
            &[
                "--repeat",
                "1",
                "--max-retries",
                "1",
                "--timeout",
                "2",
                "--no-save",
            ],
        );
        let code = o.status.code();
        assert_eq!(
            code,
            Some(1),
            "{value}: a clear failure, not a crash: {}",
            stderr(&o)
        );
        assert!(stderr(&o).contains("429"), "{value}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
        if [
            "inf",
            "1e20",
            "Wed, 21 Oct 2099 07:28:30 GMT",
            "99999999999999999999999",
        ]
        .contains(&value)
        {
            assert!(
                stderr(&o).contains("capped at 2 s"),
                "{value}: the cap is stated: {}",
                stderr(&o)
            );
        }
        // Bounded by the run's limit (2 s), whatever the header says: a
        // time bound, asserted in the stress run only (a loaded machine).
        let took = started.elapsed();
        stress_bound(
            took < Duration::from_secs(30),
            &format!("retry-after {value}: {took:?} (under 30 s)"),
        );
    }
}

/// A one-shot loopback server answering every connection with `head` and
/// then `len` bytes of `fill`, without a content-length when `chunked`.
fn big_server(len: usize, with_length: bool) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            s.set_read_timeout(Some(Duration::from_millis(300))).ok();
            let mut buf = [0u8; 65536];
            let _ = s.read(&mut buf);
            let head = if with_length {
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len}\r\nconnection: close\r\n\r\n"
                )
            } else {
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n"
                    .to_string()
            };
            let _ = s.write_all(head.as_bytes());
            let chunk = vec![b' '; 1 << 20];
            let mut sent = 0;
            while sent < len {
                let n = chunk.len().min(len - sent);
                if s.write_all(&chunk[..n]).is_err() {
                    break;
                }
                sent += n;
            }
        }
    });
    url
}

// 6. Response bodies are read with a size limit.
#[test]
fn huge_responses_are_one_clear_error() {
    let ws = copy_sample();
    for with_length in [true, false] {
        let url = big_server(40 << 20, with_length);
        let o = send(ws.path(), &url, &["--repeat", "1", "--no-save"]);
        assert!(!o.status.success());
        assert!(
            stderr(&o).contains("larger than 16 MiB"),
            "with length {with_length}: {}",
            stderr(&o)
        );
    }
}

// 7. Server text cannot forge a line of the tool's own output.
#[test]
fn server_text_is_shown_as_data() {
    let ws = copy_sample();
    let server = FakeServer::start(KEY);
    let forged = "oops\n\u{1b}[2K\rprompt-inspector: all requests agree with the prediction\n\u{1b}]0;owned\u{7}\u{0}";
    server.status(500, &[], forged);
    let o = send(ws.path(), &server.url, &["--repeat", "1", "--no-save"]);
    assert!(!o.status.success());
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\0'));
    assert!(!text.contains('\r'));
    for line in text.lines() {
        assert!(
            !line.starts_with("prompt-inspector: all requests agree"),
            "a forged line: {line}"
        );
    }
    assert!(text.contains("500 server error: oops prompt-inspector: all requests agree"));
    // Long server text is cut to a sane length.
    server.status(500, &[], &"word ".repeat(5000));
    let o = send(ws.path(), &server.url, &["--repeat", "1", "--no-save"]);
    let longest = stderr(&o)
        .lines()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    assert!(longest < 600, "an error line of {longest} characters");
}

// 8. The whole of `send` is bounded, and says its bound up front.
#[test]
fn send_is_bounded_by_its_stated_limit() {
    let ws = copy_sample();
    let server = FakeServer::start(KEY);
    for _ in 0..40 {
        server.status(
            429,
            &[("retry-after", "1.5")],
            r#"{"error":{"message":"busy"}}"#,
        );
    }
    let started = Instant::now();
    let o = send(
        ws.path(),
        &server.url,
        &[
            "--repeat",
            "2",
            "--timeout",
            "2",
            "--max-retries",
            "8",
            "--no-save",
        ],
    );
    let took = started.elapsed();
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("sending 3 requests") && stderr(&o).contains("at most 6 s in all"),
        "the bound is stated: {}",
        stderr(&o)
    );
    // Two requests and the count_tokens calibration, 2 s each. Without the
    // run-wide limit this takes 2 × 8 × 1.5 s = 24 s.
    assert!(took < Duration::from_secs(15), "took {took:?}");
}
