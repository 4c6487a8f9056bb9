//! Hardening, third round (issue 36): one test per class that broke a
//! promise, each driving the real binary against files and loopback
//! servers written here. Hosts that are not this machine are only ever
//! named (the refusals happen before any connection: no traffic leaves).
//! No test here holds a wall-clock or memory bound: each waits for an
//! event with a generous deadline that fails loudly.

use crate::common;
use crate::otlp;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

/// A loopback server answering every request with `status` and `body`
/// (after reading its head); counts the connections it got.
fn serve_body(status: &'static str, body: Vec<u8>) -> (String, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let body = Arc::new(body);
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            h.fetch_add(1, Ordering::SeqCst);
            let body = body.clone();
            std::thread::spawn(move || {
                let _ = read_request(&s);
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = s.write_all(head.as_bytes());
                let _ = s.write_all(&body);
            });
        }
    });
    (url, hits)
}

fn models_update(from: &str, output: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(bin());
    c.args([
        "models",
        "--update",
        from,
        "--output",
        output.to_str().unwrap(),
    ]);
    for v in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// A LiteLLM file of one Anthropic chat model with `extra` fields.
fn litellm_with(extra: &str) -> String {
    format!(
        r#"{{"claude-test-9": {{"litellm_provider": "anthropic", "mode": "chat", "input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05, "max_input_tokens": 200000{extra}}}}}"#
    )
}

// 1. Credentials in a URL are a key: never in the clear off this machine.
#[test]
fn models_update_refuses_credentials_in_the_clear_to_another_host() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("prices.json");
    for url in [
        "http://alice:hunter2hunter2@192.0.2.7:9/prices.json",
        "http://192.0.2.7:9/prices.json?key=hunter2hunter2",
        "http://192.0.2.7:9/prices.json?%6Bey=hunter2hunter2",
    ] {
        let o = models_update(url, &out, &[]);
        let err = stderr(&o);
        assert!(!o.status.success(), "{url}: {err}");
        assert!(err.contains("credentials in the URL"), "{url}: {err}");
        assert!(!err.contains("hunter2"), "{err}");
        assert!(!out.exists());
    }
    // To this machine they go (loopback is where they are meant to).
    let (url, hits) = serve_body("200 OK", litellm_with("").into_bytes());
    let with_user = url.replace("http://", "http://alice:hunter2hunter2@");
    let o = models_update(&with_user, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    let saved = std::fs::read_to_string(&out).unwrap();
    assert!(
        saved.contains("claude-test-9") && !saved.contains("hunter2"),
        "{saved}"
    );
}

// 2. The refresh is bounded before it is parsed, and every value checked.
#[test]
fn models_update_bounds_the_download_and_checks_every_price() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("prices.json");
    // A body over the cap is refused as it comes.
    let (url, _) = serve_body("200 OK", vec![b' '; 17 << 20]);
    let o = models_update(&url, &out, &[]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("over 16 MiB"), "{}", stderr(&o));
    // Many tiny values within the size: refused before a tree is built.
    let tiny = dir.path().join("tiny.json");
    std::fs::write(&tiny, format!("{{\"x\": [{}0]}}", "0,".repeat(1_200_000))).unwrap();
    let o = models_update(tiny.to_str().unwrap(), &out, &[]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("more than 1000000 values"),
        "{}",
        stderr(&o)
    );
    // Each price finite, non-negative and in range; the model and field named.
    let cases = [
        (
            r#", "output_cost_per_token_above_200k_tokens": 1e308"#,
            "output_cost_per_token_above_200k_tokens",
        ),
        (
            r#", "cache_read_input_token_cost": -3e-07"#,
            "cache_read_input_token_cost",
        ),
        (
            r#", "input_cost_per_token_above_99999999999999k_tokens": 1e-06"#,
            "a tier above",
        ),
        (r#", "max_output_tokens": 1e300"#, "max_output_tokens"),
        (r#", "successor_model": "x"#, "successor_model"),
    ];
    for (i, (extra, named)) in cases.iter().enumerate() {
        let extra = if extra.ends_with("\"x") {
            format!("{extra}{}\"", "y".repeat(1_000))
        } else {
            extra.to_string()
        };
        let f = dir.path().join(format!("bad{i}.json"));
        std::fs::write(&f, litellm_with(&extra)).unwrap();
        let o = models_update(f.to_str().unwrap(), &out, &[]);
        let err = stderr(&o);
        assert!(!o.status.success(), "{extra}: {err}");
        assert!(
            err.contains("claude-test-9") && err.contains(named),
            "{err}"
        );
        assert!(err.len() < 600, "{err}");
        assert!(!out.exists());
    }
}

// 2. The snapshot goes only to a regular file or a new one.
#[test]
fn models_update_never_writes_through_a_fifo_or_onto_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("litellm.json");
    std::fs::write(&good, litellm_with("")).unwrap();
    let fifo = dir.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo has no other precondition.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&good, &link).unwrap();
    for target in [
        fifo.as_path(),
        Path::new("/dev/null"),
        link.as_path(),
        dir.path(),
    ] {
        // A FIFO nobody writes to would hang a reader: the child is waited
        // for with a deadline that fails loudly.
        let (status, err) = run_within(
            Command::new(bin())
                .args(["models", "--update", good.to_str().unwrap(), "--output"])
                .arg(target),
            60,
        );
        assert!(!status.success(), "{}: {err}", target.display());
        assert!(err.contains("regular file"), "{err}");
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

// 2. A user's snapshot that cannot be used costs no command its start.
#[test]
fn an_oversized_user_snapshot_is_said_and_the_bundled_prices_are_used() {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join("prompt-inspector");
    std::fs::create_dir_all(&cfg).unwrap();
    let huge = format!(
        "{{\"claude-test-9\": {{\"litellm_provider\": \"anthropic\", \"mode\": \"chat\", \"input_cost_per_token\": 3e-06, \"successor_model\": \"{}\"}}}}",
        "z".repeat(3 << 20)
    );
    std::fs::write(cfg.join("model_prices.json"), huge).unwrap();
    let o = Command::new(bin())
        .args(["report", sample().to_str().unwrap()])
        .env("XDG_CONFIG_HOME", home.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("model_prices.json") && err.contains("bundled prices"),
        "{err}"
    );
    assert!(!stdout(&o).is_empty());
}

// 3. OTLP: a proxy from the environment never carries spans in the clear.
#[test]
fn spans_to_a_plain_http_collector_go_straight_to_it_whatever_http_proxy_says() {
    let rx = otlp::receiver(otlp::Mode::Ok);
    let (trap, trap_hits) = serve_body("200 OK", Vec::new());
    let cap = otlp::fixture("openclaw/capture.jsonl");
    let o = Command::new(bin())
        .args(["traffic", cap.to_str().unwrap(), "--otlp-endpoint", &rx.url])
        .env("HTTP_PROXY", &trap)
        .env("http_proxy", &trap)
        .env("ALL_PROXY", &trap)
        .env(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=Bearer tok-SECRET-1234567890",
        )
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("3 of 3 spans exported"),
        "{}",
        stdout(&o)
    );
    assert_eq!(
        rx.got.lock().unwrap().spans.len(),
        3,
        "the collector got them"
    );
    assert_eq!(trap_hits.load(Ordering::SeqCst), 0, "the proxy got nothing");
}

// 3. OTLP: no prompt text without --otlp-content, no key shape ever.
#[test]
fn without_content_a_span_has_no_prompt_text_and_no_key_shape_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("capture.jsonl");
    let key = "sk-ant-api03-PASTEDKEY0123456789abcdefghijklmnop";
    let body = std::fs::read_to_string(otlp::fixture("openclaw/capture.jsonl")).unwrap();
    // A key where a miss's detail quotes the first difference, and one in
    // the model's name (a capture written by hand).
    let mut lines: Vec<String> = body.lines().map(str::to_string).collect();
    lines[2] = lines[2].replacen("What files are", &format!("{key} What files are"), 1);
    let mut v: Value = serde_json::from_str(&lines[0]).unwrap();
    v["model"] = Value::String(format!("claude-{key}"));
    lines[0] = v.to_string();
    std::fs::write(&cap, lines.join("\n") + "\n").unwrap();
    for content in [false, true] {
        let rx = otlp::receiver(otlp::Mode::Ok);
        let mut args = vec!["traffic", cap.to_str().unwrap(), "--otlp-endpoint", &rx.url];
        if content {
            args.push("--otlp-content");
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let g = rx.got.lock().unwrap();
        let raw = String::from_utf8_lossy(&g.raw);
        for frag in ["PASTEDKEY", "0123456789abcdef", "ghijklmnop"] {
            assert!(!raw.contains(frag), "a fragment of a key left in a span");
        }
        let rows = otlp::jsonl_rows(&cap);
        let spans = otlp::by_index(&g.spans);
        let changed = spans
            .iter()
            .zip(&rows)
            .find(|(_, r)| r["miss_kind"] == "prefix")
            .expect("a changed prefix");
        let detail = otlp::text(changed.0, "prompt_inspector.miss.detail");
        assert_eq!(
            otlp::text(changed.0, "prompt_inspector.first_difference").as_deref(),
            changed.1["first_difference"].as_str(),
            "the position is always there"
        );
        if content {
            assert!(detail.is_some(), "with --otlp-content the detail goes");
        } else {
            assert_eq!(detail, None, "the detail quotes the prompt");
            assert!(!raw.contains("What files are"), "prompt text left");
        }
    }
}

/// An Anthropic request of about `n` bytes of prompt text.
fn big_message(n: usize, i: usize) -> String {
    serde_json::json!({
        "model": "claude-sonnet-4-5", "max_tokens": 16,
        "system": [{"type": "text", "text": format!("{i} {}", "harbour log ".repeat(n / 12))}],
        "messages": [{"role": "user", "content": "hi"}]
    })
    .to_string()
}

fn post(url: &str, body: String) -> u16 {
    let c = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap();
    let r = c
        .post(format!("{url}/v1/messages"))
        .header("x-api-key", otlp::KEY)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .unwrap();
    let s = r.status().as_u16();
    r.bytes().unwrap();
    s
}

// 3. OTLP: what waits for a collector that does not answer is bounded in
// bytes; what was left out is counted and said.
#[test]
fn request_bodies_waiting_for_a_hung_collector_are_bounded_in_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("capture.jsonl");
    let mut f = std::fs::File::create(&cap).unwrap();
    let n = 64;
    for i in 0..n {
        let line = serde_json::json!({"ts_start": format!("2026-11-30T10:00:{i:02}.000Z"),
            "endpoint": "/v1/messages", "model": "claude-sonnet-4-5", "status": 200,
            "usage": {"input_tokens": 3, "output_tokens": 1},
            "request": serde_json::from_str::<Value>(&big_message(900 << 10, i)).unwrap()});
        writeln!(f, "{line}").unwrap();
    }
    drop(f);
    // A collector that takes the first export and never answers: every
    // span is queued while it hangs (each export may wait 10 s, far longer
    // than queuing 64 spans takes, even on a loaded machine).
    let rx = otlp::receiver(otlp::Mode::Hang);
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--otlp-endpoint",
        &rx.url,
        "--otlp-content",
        "--otlp-timeout",
        "10",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains(&format!("0 of {n} spans exported")), "{out}");
    let left: u64 = out
        .split("; ")
        .find(|s| s.contains("sent without"))
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    // 64 bodies of 0.9 MiB (58 MB) against 32 MiB waiting at most: about
    // 27 go without theirs when nothing was freed meanwhile.
    assert!((5..n as u64 - 20).contains(&left), "{out}");
    drop(rx);
}

// 3. OTLP: `traffic --otlp-endpoint` to a collector that never answers
// ends, saying how many spans were not sent.
#[test]
fn a_traffic_export_to_a_collector_that_never_answers_ends_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("capture.jsonl");
    let mut f = std::fs::File::create(&cap).unwrap();
    let n = 6000;
    for i in 0..n {
        writeln!(
            f,
            r#"{{"ts_start":"2026-11-30T10:{:02}:{:02}.000Z","endpoint":"/v1/messages","model":"claude-sonnet-4-5","status":200,"usage":{{"input_tokens":3,"output_tokens":1}},"request":{{"model":"claude-sonnet-4-5","messages":[{{"role":"user","content":"q{i}"}}]}}}}"#,
            i / 60 % 60,
            i % 60
        )
        .unwrap();
    }
    drop(f);
    let rx = otlp::receiver(otlp::Mode::Hang);
    let mut child = Command::new(bin())
        .args([
            "traffic",
            cap.to_str().unwrap(),
            "--otlp-endpoint",
            &rx.url,
            "--otlp-timeout",
            "1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(180),
            "the export never ended"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{out}");
    assert!(out.contains(&format!("of {n} spans exported")), "{out}");
    assert!(
        out.contains("not sent") || out.contains("not taken"),
        "{out}"
    );
    drop(rx);
}

// 4. A key pasted into a body is redacted whole, whatever the headers hold.
#[test]
fn a_second_key_in_the_body_is_redacted_whole_beside_the_headers_key() {
    let up = otlp::upstream();
    let p = proxy(&up, &up, &[]);
    let pasted = "sk-ant-api03-SECONDkeyPASTED-9f8e7d6c5b4a3928172635445362718";
    let body = serde_json::json!({
        "model": "claude-sonnet-4-5", "max_tokens": 16,
        "messages": [{"role": "user", "content": format!("my other key is {pasted} ok")}]
    });
    assert_eq!(post(&p.url, body.to_string()), 200);
    otlp::wait_lines(&p.capture, 1);
    let cap = std::fs::read_to_string(&p.capture).unwrap();
    let tail = &pasted["sk-ant-api03-".len()..];
    for w in tail.as_bytes().windows(8) {
        let w = std::str::from_utf8(w).unwrap();
        assert!(!cap.contains(w), "{w} of the pasted key is in the capture");
    }
    assert!(cap.contains("my other key is [REDACTED] ok"), "{cap}");
}

// 4. Query names are decoded before they are checked.
#[test]
fn an_escaped_key_parameter_is_a_key_for_the_plain_http_check() {
    // An upstream whose name does not resolve: a key may not go there over
    // plain HTTP; without one the proxy would try (and find no address).
    let p = proxy(
        "http://upstream.invalid:9",
        "http://upstream.invalid:9",
        &[],
    );
    for q in ["%6Bey", "api%5Fkey", "%4B%45%59"] {
        let c = reqwest::blocking::Client::new();
        let r = c
            .post(format!(
                "{}/v1/messages?{q}=AIzaSyHIDDENhiddenHIDDENhidden0123456",
                p.url
            ))
            .header("content-type", "application/json")
            .body(r#"{"model":"claude-sonnet-4-5","messages":[]}"#)
            .send()
            .unwrap();
        let status = r.status().as_u16();
        let text = r.text().unwrap();
        assert!(text.contains("plain HTTP"), "{q}: {status} {text}");
        assert!(!text.contains("HIDDEN"), "{text}");
    }
}

// 5. A client that never reads its answer does not hold a slot for long.
#[test]
fn a_client_that_never_reads_its_answer_is_cut_off_and_the_next_is_served() {
    // An answer far larger than the sockets' buffers.
    let big = format!(
        r#"{{"id":"m","type":"message","role":"assistant","content":[{{"type":"text","text":"{}"}}],"usage":{{"input_tokens":1,"output_tokens":1}}}}"#,
        "x".repeat(32 << 20)
    );
    let (up, _) = serve_body("200 OK", big.into_bytes());
    let p = proxy(
        &up,
        &up,
        &["--max-connections", "1", "--write-timeout", "2"],
    );
    let addr = p.url.trim_start_matches("http://").to_string();
    let body = r#"{"model":"claude-sonnet-4-5","max_tokens":1,"messages":[]}"#;
    let mut stuck = TcpStream::connect(&addr).unwrap();
    write!(
        stuck,
        "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // The second client waits for the only slot, then gets its answer.
    let url = p.url.clone();
    let done = Arc::new(Mutex::new(None));
    let d = done.clone();
    let t = std::thread::spawn(move || {
        let c = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(170))
            .build()
            .unwrap();
        let r = c
            .post(format!("{url}/v1/messages"))
            .header("content-type", "application/json")
            .body(r#"{"model":"claude-sonnet-4-5","max_tokens":1,"messages":[]}"#)
            .send()
            .and_then(|r| {
                let s = r.status().as_u16();
                r.bytes().map(|b| (s, b.len()))
            });
        *d.lock().unwrap() = Some(r.map_err(|e| e.to_string()));
    });
    t.join().unwrap();
    let got = done.lock().unwrap().take().unwrap();
    let (status, len) = got.expect("the second client was served");
    assert_eq!(status, 200);
    assert!(len > 32 << 20);
    // The first one was cut off: what it reads now ends.
    stuck
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut sink = vec![0u8; 1 << 20];
    let mut total = 0usize;
    loop {
        match stuck.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => total += n,
        }
    }
    assert!(
        total < 32 << 20,
        "the stuck client got its whole answer: {total}"
    );
}

// 6. A line torn by a crash never glues onto the next proxy's first.
#[test]
fn a_torn_last_line_stays_alone_and_traffic_reads_everything_after_it() {
    let up = otlp::upstream();
    let p = proxy(&up, &up, &[]);
    assert_eq!(otlp::send(&p, 1), 200);
    otlp::wait_lines(&p.capture, 1);
    // A writer killed in the middle of its line.
    let whole = std::fs::read_to_string(&p.capture).unwrap();
    let torn = &whole[..whole.len() / 2];
    std::fs::OpenOptions::new()
        .append(true)
        .open(&p.capture)
        .unwrap()
        .write_all(torn.as_bytes())
        .unwrap();
    otlp::send(&p, 2);
    otlp::wait_lines(&p.capture, 3);
    otlp::send(&p, 3);
    otlp::wait_lines(&p.capture, 4);
    let o = run(&["traffic", p.capture.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json(&o);
    assert_eq!(v["requests"].as_array().unwrap().len(), 3, "{v}");
    let text = run(&["traffic", p.capture.to_str().unwrap()]);
    let said = stdout(&text) + &stderr(&text);
    assert!(said.contains("1 line not JSON, skipped"), "{said}");
}

// 7. The tracer's caps: a file over them is named, not indexed.
#[test]
fn a_file_over_the_tracers_cap_is_named_as_not_traced() {
    let ws = tempfile::tempdir().unwrap();
    let line = "The harbour log is kept by the watch, every hour, in ink.\n";
    write_ws(
        ws.path(),
        &[
            (
                "AGENTS.md",
                "# Rules\n\nAlways write the harbour log in ink.\n",
            ),
            ("notes/huge.md", &line.repeat((2 << 20) / line.len())),
        ],
    );
    let cap = ws.path().join("capture.jsonl");
    std::fs::write(
        &cap,
        format!(
            "{}\n",
            serde_json::json!({"ts_start":"2026-11-30T10:00:00.000Z","endpoint":"/v1/messages","model":"claude-sonnet-4-5","status":200,
                "usage":{"input_tokens":3,"output_tokens":1},
                "request":{"model":"claude-sonnet-4-5","system":"# Rules\n\nAlways write the harbour log in ink.\n","messages":[{"role":"user","content":"hi"}]}})
        ),
    )
    .unwrap();
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--against",
        ws.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("not traced: notes/huge.md"), "{out}");
    assert!(out.contains("AGENTS.md"), "{out}");
}

// 7. A snapshot's size bounds what its diff takes: tiny values refused.
#[test]
fn a_snapshot_of_tiny_values_is_refused_before_it_is_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("tiny.json");
    std::fs::write(
        &bad,
        format!("{{\"schema\": 1, \"x\": [{}0]}}", "[],".repeat(2_100_000)),
    )
    .unwrap();
    let o = run(&["diff", bad.to_str().unwrap(), sample().to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("tiny.json") && err.contains("values"), "{err}");
}

// 2. This tool's own rows (PROMPT_INSPECTOR_MODELS) are checked as
// LiteLLM's are: a price out of range is named, never priced with.
#[test]
fn an_out_of_range_price_in_the_tools_own_rows_is_named() {
    let dir = tempfile::tempdir().unwrap();
    for (field, value) in [
        ("input_per_mtok", "1e308"),
        ("output_per_mtok", "-3"),
        ("fast_multiplier", "0.5"),
    ] {
        let f = dir.path().join(format!("{field}.json"));
        let mut row = serde_json::json!({"id": "m-test", "provider": "anthropic", "tokenizer": "o200k_base",
            "estimate": true, "context_window": 1000, "min_cacheable_tokens": 1024,
            "input_per_mtok": 3.0, "output_per_mtok": 15.0});
        row[field] = serde_json::from_str(value).unwrap();
        std::fs::write(
            &f,
            serde_json::json!({"schema": 1, "default_model": "m-test", "models": [row]})
                .to_string(),
        )
        .unwrap();
        let o = Command::new(bin())
            .arg("models")
            .env("PROMPT_INSPECTOR_MODELS", &f)
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(!o.status.success(), "{field}: {err}");
        assert!(err.contains("m-test") && err.contains(field), "{err}");
    }
}

// 1. An upstream's own credentials (`user:password@`) go out with every
// request, key or not: the proxy refuses such an upstream over plain HTTP
// off this machine at start (found in review).
#[test]
fn the_proxy_refuses_an_upstream_with_credentials_over_plain_http() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(bin())
        .args([
            "proxy",
            "--listen",
            "0",
            "--openai-upstream",
            "http://bob:hunter2hunter2@192.0.2.7:8080",
            "-o",
            dir.path().join("c.jsonl").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("credentials in the URL"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}
