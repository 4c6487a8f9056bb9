//! OpenTelemetry export, end to end: the real binary (`traffic FILE
//! --otlp-endpoint`, `proxy --otlp-endpoint`) against an OTLP/HTTP receiver
//! on loopback that follows the specification (POST /v1/traces,
//! `application/x-protobuf`, an `ExportTraceServiceResponse` back) and
//! decodes each payload with the OpenTelemetry protocol's own definitions
//! (`opentelemetry-proto`). Every request arrives as one span with the
//! GenAI conventions' attributes and the figures `traffic --format jsonl`
//! gives; no prompt text or key leaves unless asked; a collector that is
//! down or hangs costs the proxy's clients nothing.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::Value;

use common::*;

pub(crate) const KEY: &str = "sk-ant-api03-OTLP-KEY-must-never-leave-in-a-span-0123456789";

/// What the receiver got: every span (with its resource's attributes) and
/// every payload's raw bytes.
#[derive(Default)]
pub(crate) struct Got {
    pub(crate) spans: Vec<Span>,
    resource: Vec<opentelemetry_proto::tonic::common::v1::KeyValue>,
    pub(crate) raw: Vec<u8>,
    pub(crate) posts: usize,
}

/// How the receiver answers.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Mode {
    Ok,
    /// Reads the export, says so on the channel, then answers nothing
    /// until released.
    Hang,
}

pub(crate) struct Receiver {
    pub(crate) url: String,
    pub(crate) got: Arc<Mutex<Got>>,
    pub(crate) hung: mpsc::Receiver<()>,
    pub(crate) release: Option<mpsc::Sender<()>>,
}

/// An HTTP request's line, headers (names in lower case) and body.
type Http = (String, Vec<(String, String)>, Vec<u8>);

/// One HTTP/1.1 request of a connection: its request line, headers and
/// body (None when the client has closed).
fn read_http(r: &mut BufReader<TcpStream>) -> Option<Http> {
    let mut line = String::new();
    if r.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 || h == "\r\n" {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    r.read_exact(&mut body).ok()?;
    Some((line, headers, body))
}

pub(crate) fn receiver(mode: Mode) -> Receiver {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let got = Arc::new(Mutex::new(Got::default()));
    let (hung_tx, hung) = mpsc::channel();
    let (release, release_rx) = mpsc::channel::<()>();
    let release_rx = Arc::new(Mutex::new(release_rx));
    let g = got.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(s) = s else { return };
            let (g, hung_tx, release_rx) = (g.clone(), hung_tx.clone(), release_rx.clone());
            std::thread::spawn(move || {
                let mut w = s.try_clone().unwrap();
                let mut r = BufReader::new(s);
                while let Some((line, headers, body)) = read_http(&mut r) {
                    assert!(line.starts_with("POST /v1/traces "), "{line}");
                    let ct = headers.iter().find(|(k, _)| k == "content-type");
                    assert_eq!(ct.map(|(_, v)| v.as_str()), Some("application/x-protobuf"));
                    let req = ExportTraceServiceRequest::decode(&body[..])
                        .expect("an OTLP protobuf payload");
                    {
                        let mut g = g.lock().unwrap();
                        g.posts += 1;
                        g.raw.extend_from_slice(&body);
                        for rs in req.resource_spans {
                            if let Some(res) = rs.resource {
                                g.resource = res.attributes;
                            }
                            for ss in rs.scope_spans {
                                g.spans.extend(ss.spans);
                            }
                        }
                    }
                    if mode == Mode::Hang {
                        let _ = hung_tx.send(());
                        let _ = release_rx.lock().unwrap().recv();
                    }
                    let answer = ExportTraceServiceResponse::default().encode_to_vec();
                    let _ = w.write_all(
                        format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: {}\r\n\r\n",
                            answer.len()
                        )
                        .as_bytes(),
                    );
                    let _ = w.write_all(&answer);
                }
            });
        }
    });
    Receiver {
        url,
        got,
        hung,
        release: Some(release),
    }
}

pub(crate) fn attr<'a>(s: &'a Span, key: &str) -> Option<&'a Any> {
    s.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

pub(crate) fn text(s: &Span, key: &str) -> Option<String> {
    match attr(s, key)? {
        Any::StringValue(v) => Some(v.clone()),
        other => panic!("{key} is not a string: {other:?}"),
    }
}

pub(crate) fn int(s: &Span, key: &str) -> Option<i64> {
    match attr(s, key)? {
        Any::IntValue(v) => Some(*v),
        other => panic!("{key} is not an integer: {other:?}"),
    }
}

fn float(s: &Span, key: &str) -> Option<f64> {
    match attr(s, key)? {
        Any::DoubleValue(v) => Some(*v),
        other => panic!("{key} is not a double: {other:?}"),
    }
}

pub(crate) fn fixture(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(rel)
}

pub(crate) fn jsonl_rows(file: &Path) -> Vec<Value> {
    let o = run(&["traffic", file.to_str().unwrap(), "--format", "jsonl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn u(v: &Value) -> i64 {
    v.as_i64().unwrap()
}

/// The span says what the row says: the conventions' names for the usage
/// (input = all the prompt's tokens, cached or not), this tool's for the
/// rest.
fn assert_span_is_row(s: &Span, r: &Value) {
    let model = r["model"].as_str().unwrap();
    assert_eq!(s.name, format!("chat {model}"));
    assert_eq!(s.kind, 3, "SPAN_KIND_CLIENT");
    assert_eq!(text(s, "gen_ai.operation.name").as_deref(), Some("chat"));
    assert_eq!(text(s, "gen_ai.request.model").as_deref(), Some(model));
    assert_eq!(text(s, "gen_ai.response.model").as_deref(), Some(model));
    let provider = r["provider"].as_str().or(r["api"].as_str()).unwrap();
    assert_eq!(text(s, "gen_ai.provider.name").as_deref(), Some(provider));
    let reported = r["usage_reported"].as_bool().unwrap();
    assert_eq!(
        attr(s, "prompt_inspector.usage_reported"),
        Some(&Any::BoolValue(reported))
    );
    // No figures where the answer reported none (not a 0).
    let (input, read, written) = (
        u(&r["input_tokens"]),
        u(&r["cache_read_input_tokens"]),
        u(&r["cache_creation_input_tokens"]),
    );
    let figure = |v: i64| reported.then_some(v);
    assert_eq!(
        int(s, "gen_ai.usage.input_tokens"),
        figure(input + read + written)
    );
    assert_eq!(int(s, "gen_ai.usage.cache_read.input_tokens"), figure(read));
    assert_eq!(
        int(s, "gen_ai.usage.cache_creation.input_tokens"),
        figure(written)
    );
    assert_eq!(
        int(s, "gen_ai.usage.output_tokens"),
        figure(u(&r["output_tokens"]))
    );
    assert_eq!(
        int(s, "prompt_inspector.uncached_input_tokens"),
        figure(input)
    );
    assert_eq!(
        text(s, "prompt_inspector.chain").as_deref(),
        r["chain"].as_str()
    );
    assert_eq!(int(s, "prompt_inspector.index"), r["index"].as_i64());
    assert_eq!(
        text(s, "prompt_inspector.miss.kind").as_deref(),
        r["miss_kind"].as_str()
    );
    // The detail quotes the prompt: only with --otlp-content.
    assert_eq!(text(s, "prompt_inspector.miss.detail"), None);
    assert_eq!(
        text(s, "prompt_inspector.first_difference").as_deref(),
        r["first_difference"].as_str()
    );
    assert_eq!(
        float(s, "prompt_inspector.cost_usd"),
        r["cost_usd"].as_f64()
    );
    assert_eq!(float(s, "prompt_inspector.gap_s"), r["gap_s"].as_f64());
    // The agent and release that sent it, as the row names them.
    assert_eq!(
        text(s, "prompt_inspector.agent.release").as_deref(),
        r["release"].as_str()
    );
    if let Some(at) = r["at"].as_f64() {
        let start = s.start_time_unix_nano as f64 / 1e9;
        assert!((start - at).abs() < 1e-3, "{start} vs {at}");
        let ms = (s.end_time_unix_nano - s.start_time_unix_nano) / 1_000_000;
        assert_eq!(ms as i64, r["latency_ms"].as_i64().unwrap_or(0));
    }
    match r["status"].as_i64() {
        Some(st) if st >= 400 => {
            assert_eq!(text(s, "error.type"), Some(st.to_string()));
            assert_eq!(s.status.as_ref().unwrap().code, 2, "STATUS_CODE_ERROR");
        }
        _ => assert_eq!(text(s, "error.type"), None),
    }
}

/// Spans by their index (a batch keeps no order across exports).
pub(crate) fn by_index(spans: &[Span]) -> Vec<Span> {
    let mut v = spans.to_vec();
    v.sort_by_key(|s| {
        (
            text(s, "prompt_inspector.file"),
            int(s, "prompt_inspector.index"),
        )
    });
    v
}

#[test]
fn traffic_exports_every_request_of_every_agent_as_one_span_with_its_rows_figures() {
    let sources = [
        fixture("openclaw/capture.jsonl"),
        fixture("claude-code/capture.jsonl"),
        fixture("codex/capture.jsonl"),
        fixture("claude-code/transcript"),
        fixture("codex/transcript"),
    ];
    for src in sources {
        let rx = receiver(Mode::Ok);
        let rows = jsonl_rows(&src);
        assert!(!rows.is_empty());
        let o = run(&["traffic", src.to_str().unwrap(), "--otlp-endpoint", &rx.url]);
        assert!(o.status.success(), "{}", stderr(&o));
        let n = rows.len();
        assert!(
            stdout(&o).contains(&format!("{n} of {n} spans exported")),
            "{}",
            stdout(&o)
        );
        let g = rx.got.lock().unwrap();
        assert_eq!(
            g.spans.len(),
            n,
            "one span per request of {}",
            src.display()
        );
        for (s, r) in by_index(&g.spans).iter().zip(&rows) {
            assert_span_is_row(s, r);
        }
        let service = g.resource.iter().find(|kv| kv.key == "service.name");
        assert!(
            matches!(service.and_then(|kv| kv.value.as_ref()).and_then(|v| v.value.as_ref()), Some(Any::StringValue(n)) if n == "prompt-inspector")
        );
        // No span carries prompt text without --otlp-content.
        assert!(
            g.spans
                .iter()
                .all(|s| attr(s, "prompt_inspector.request.body").is_none())
        );
    }
}

#[test]
fn a_changed_prefix_arrives_with_its_miss_and_first_difference() {
    let rx = receiver(Mode::Ok);
    let cap = fixture("openclaw/capture.jsonl");
    let o = run(&["traffic", cap.to_str().unwrap(), "--otlp-endpoint", &rx.url]);
    assert!(o.status.success(), "{}", stderr(&o));
    let g = rx.got.lock().unwrap();
    let spans = by_index(&g.spans);
    assert_eq!(
        text(&spans[2], "prompt_inspector.miss.kind").as_deref(),
        Some("prefix")
    );
    assert_eq!(
        text(&spans[2], "prompt_inspector.first_difference").as_deref(),
        Some("system block 1")
    );
    // The prompt's own words are not in the payload.
    let raw = String::from_utf8_lossy(&g.raw);
    assert!(
        !raw.contains("What files are"),
        "prompt text left in a span"
    );
}

/// An answer that reported no usage (an overloaded upstream) has no
/// figures: its span carries no usage attributes and says so, where a 0
/// would read as a request that cost nothing; the answered one beside it
/// keeps its figures.
#[test]
fn a_span_without_reported_usage_carries_no_figures_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let line = |i: u32, status: u16, usage: Value| {
        serde_json::json!({"schema": 1, "id": format!("x-{i}"),
            "ts_start": format!("2026-11-30T10:00:0{i}Z"), "ts_end": format!("2026-11-30T10:00:0{i}.5Z"),
            "endpoint": "/v1/messages", "model": "claude-sonnet-4-6", "status": status, "stream": false,
            "usage": usage, "latency_ms": 500, "error": null,
            "request": {"model": "claude-sonnet-4-6", "system": "You help.",
                "messages": [{"role": "user", "content": "hi"}]}})
    };
    let text_lines = [
        line(1, 529, Value::Null),
        line(
            2,
            200,
            serde_json::json!({"input_tokens": 12, "output_tokens": 3}),
        ),
    ];
    let cap = dir.path().join("c.jsonl");
    let body: String = text_lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&cap, body).unwrap();
    let rx = receiver(Mode::Ok);
    let o = run(&["traffic", cap.to_str().unwrap(), "--otlp-endpoint", &rx.url]);
    assert!(o.status.success(), "{}", stderr(&o));
    let g = rx.got.lock().unwrap();
    let spans = by_index(&g.spans);
    assert_eq!(spans.len(), 2);
    let reported = |s: &Span| match attr(s, "prompt_inspector.usage_reported") {
        Some(Any::BoolValue(b)) => Some(*b),
        _ => None,
    };
    assert_eq!(reported(&spans[0]), Some(false));
    for key in [
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_creation.input_tokens",
        "prompt_inspector.uncached_input_tokens",
        "prompt_inspector.reasoning_tokens",
    ] {
        assert_eq!(int(&spans[0], key), None, "{key} on a span without usage");
    }
    assert_eq!(text(&spans[0], "error.type").as_deref(), Some("529"));
    assert_eq!(reported(&spans[1]), Some(true));
    assert_eq!(int(&spans[1], "gen_ai.usage.input_tokens"), Some(12));
    assert_eq!(int(&spans[1], "gen_ai.usage.output_tokens"), Some(3));
    // A priced model with nothing to price: no cost (not $0), in the span
    // and in every output of the same capture.
    assert_eq!(float(&spans[0], "prompt_inspector.cost_usd"), None);
    assert!(float(&spans[1], "prompt_inspector.cost_usd").is_some_and(|c| c > 0.0));
    drop(g);
    let cap = cap.to_str().unwrap();
    let rows = run(&["traffic", cap, "--format", "jsonl"]);
    let rows: Vec<Value> = String::from_utf8_lossy(&rows.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(rows[0]["cost_usd"].is_null(), "{}", rows[0]);
    assert!(rows[1]["cost_usd"].as_f64().is_some_and(|c| c > 0.0));
    let json = run(&["traffic", cap, "--format", "json"]);
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(json["requests"][0]["cost_usd"].is_null());
    assert_eq!(json["requests"][0]["priced"], true);
    let table = String::from_utf8_lossy(&run(&["traffic", cap]).stdout).to_string();
    let first = table
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap();
    assert!(!first.contains("0.00000"), "a free request: {first}");
    assert_eq!(first.matches('–').count(), 5, "{first}");
}

#[test]
fn with_content_each_span_carries_its_request_body_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("capture.jsonl");
    let body = std::fs::read_to_string(fixture("openclaw/capture.jsonl")).unwrap();
    // A key pasted into a prompt: captures redact its shape, so do spans.
    let leaked = body.replacen("What files are", &format!("{KEY} What files are"), 1);
    std::fs::write(&cap, leaked).unwrap();
    let rx = receiver(Mode::Ok);
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--otlp-endpoint",
        &rx.url,
        "--otlp-content",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let g = rx.got.lock().unwrap();
    let spans = by_index(&g.spans);
    assert_eq!(spans.len(), 3);
    let first = text(&spans[0], "prompt_inspector.request.body").unwrap();
    let v: Value = serde_json::from_str(&first).expect("the body as JSON");
    assert_eq!(v["model"], "claude-sonnet-4-6");
    assert!(first.contains("What files are"));
    assert!(!String::from_utf8_lossy(&g.raw).contains(KEY));
}

/// An Anthropic upstream on loopback, as its documentation has it: the
/// first request writes the prompt to the cache, later ones read it; the
/// third answers 529 (overloaded).
pub(crate) fn upstream() -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        // A thread per connection, as a real server: the proxy may hold one
        // connection open (kept alive) while it opens another, and a server
        // that waits on the first for ever makes the second time out.
        for s in l.incoming() {
            let Ok(s) = s else { return };
            let count = count.clone();
            std::thread::spawn(move || answer_messages(s, &count));
        }
    });
    url
}

/// Answers the Messages requests of one connection: the first writes the
/// cache, the others read it, the third is overloaded (529).
fn answer_messages(mut s: TcpStream, count: &AtomicUsize) {
    while let Some((path, _)) = read_request(&s) {
        // Only Messages requests count (the proxy asks once whether this is
        // a llama.cpp server: it is not).
        if path != "/v1/messages" {
            let _ = s.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n");
            continue;
        }
        let n = count.fetch_add(1, Ordering::SeqCst) + 1;
        let (status, body) = match n {
            3 => (
                "529 Overloaded",
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
                    .to_string(),
            ),
            _ => {
                let (w, r) = if n == 1 { (1500, 0) } else { (0, 1500) };
                (
                    "200 OK",
                    format!(
                        r#"{{"id":"msg_{n}","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[{{"type":"text","text":"ok"}}],"stop_reason":"end_turn","usage":{{"input_tokens":7,"cache_creation_input_tokens":{w},"cache_read_input_tokens":{r},"output_tokens":3}}}}"#
                    ),
                )
            }
        };
        let _ = s.write_all(
            format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
    }
}

const SYSTEM: &str = "You are Kestrel, who keeps the harbour logs.";

fn message(turn: usize) -> String {
    format!(
        r#"{{"model":"claude-sonnet-4-6","max_tokens":16,"system":[{{"type":"text","text":"{SYSTEM}","cache_control":{{"type":"ephemeral"}}}}],"messages":[{{"role":"user","content":"turn {turn}: my key is {KEY}"}}]}}"#
    )
}

/// Sends a Messages request through the proxy; its status.
pub(crate) fn send(proxy: &Proxy, turn: usize) -> u16 {
    let c = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let r = c
        .post(format!("{}/v1/messages", proxy.url))
        .header("x-api-key", KEY)
        .header("anthropic-version", "2023-06-01")
        .header("content-type", "application/json")
        .body(message(turn))
        .send()
        .unwrap();
    let status = r.status().as_u16();
    // Read to its end, as a client does: one that drops the answer unread
    // is recorded as gone before the end (and its span says so).
    r.bytes().unwrap();
    status
}

/// Waits until the capture has `n` lines (an exchange is recorded once its
/// answer has ended, after the client has it).
pub(crate) fn wait_lines(capture: &Path, n: usize) {
    for _ in 0..500 {
        let have = std::fs::read_to_string(capture).map_or(0, |s| s.lines().count());
        if have >= n {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the capture never had {n} lines");
}

/// Stops the proxy as Ctrl-C would (SIGTERM) and returns what it said on
/// standard error.
pub(crate) fn stop(p: &mut Proxy) -> String {
    // SAFETY: the pid is our child's.
    unsafe { libc::kill(p.child.id() as i32, libc::SIGTERM) };
    let mut err = String::new();
    p.child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = p.child.wait().unwrap();
    assert!(status.success(), "{status:?}: {err}");
    err
}

#[test]
fn the_proxy_exports_one_span_per_exchange_with_its_upstream_and_no_prompt_or_key() {
    let rx = receiver(Mode::Ok);
    let up = upstream();
    let mut p = proxy(&up, &up, &["--otlp-endpoint", &rx.url]);
    let capture = p.capture.clone();
    // Each exchange is recorded before the next is sent: one recorded
    // after the answer of the next (a loaded machine) would be written
    // after it, and the spans (in the file's order) would no longer pair
    // with the rows (in the order the requests were sent).
    assert_eq!(send(&p, 1), 200);
    wait_lines(&capture, 1);
    assert_eq!(send(&p, 2), 200);
    wait_lines(&capture, 2);
    assert_eq!(send(&p, 3), 529);
    let err = stop(&mut p);
    assert!(err.contains("3 of 3 spans exported"), "{err}");
    let rows = jsonl_rows(&capture);
    assert_eq!(rows.len(), 3);
    let g = rx.got.lock().unwrap();
    let spans = by_index(&g.spans);
    assert_eq!(spans.len(), 3);
    let port = up.rsplit(':').next().unwrap().parse::<i64>().unwrap();
    for (s, r) in spans.iter().zip(&rows) {
        assert_span_is_row(s, r);
        assert_eq!(text(s, "server.address").as_deref(), Some("127.0.0.1"));
        assert_eq!(int(s, "server.port"), Some(port));
        assert_eq!(
            text(s, "gen_ai.provider.name").as_deref(),
            Some("anthropic")
        );
        assert_eq!(
            text(s, "prompt_inspector.file").as_deref(),
            Some(capture.to_str().unwrap())
        );
    }
    assert_eq!(
        int(&spans[1], "gen_ai.usage.cache_read.input_tokens"),
        Some(1500)
    );
    assert_eq!(text(&spans[2], "error.type").as_deref(), Some("529"));
    let raw = String::from_utf8_lossy(&g.raw);
    assert!(!raw.contains(KEY), "the key left in a span");
    assert!(
        !raw.contains("harbour"),
        "prompt text left without --otlp-content"
    );
}

#[test]
fn with_content_the_proxys_spans_carry_the_body_as_recorded_with_the_key_redacted() {
    let rx = receiver(Mode::Ok);
    let up = upstream();
    let mut p = proxy(&up, &up, &["--otlp-endpoint", &rx.url, "--otlp-content"]);
    assert_eq!(send(&p, 1), 200);
    let err = stop(&mut p);
    assert!(err.contains("1 of 1 spans exported"), "{err}");
    let g = rx.got.lock().unwrap();
    let body = text(&g.spans[0], "prompt_inspector.request.body").unwrap();
    assert!(body.contains(SYSTEM), "{body}");
    assert!(body.contains("[REDACTED]"), "{body}");
    assert!(!String::from_utf8_lossy(&g.raw).contains(KEY));
}

#[test]
fn a_collector_that_hangs_or_is_down_costs_the_clients_nothing() {
    // Hanging: the first export is held unanswered while more exchanges
    // go through; each is answered and recorded before it is released.
    let mut rx = receiver(Mode::Hang);
    let up = upstream();
    let mut p = proxy(&up, &up, &["--otlp-endpoint", &rx.url]);
    assert_eq!(send(&p, 1), 200);
    rx.hung
        .recv_timeout(Duration::from_secs(30))
        .expect("the batch export reaches the collector");
    assert_eq!(send(&p, 2), 200);
    assert_eq!(send(&p, 3), 529);
    assert_eq!(send(&p, 4), 200);
    // Every exchange recorded while the collector hangs.
    wait_lines(&p.capture, 4);
    drop(rx.release.take());
    let err = stop(&mut p);
    assert!(err.contains("spans exported"), "{err}");

    // Down: nothing listens on its port.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let up = upstream();
    let mut p = proxy(
        &up,
        &up,
        &["--otlp-endpoint", &format!("http://127.0.0.1:{port}")],
    );
    for turn in 1..=3 {
        let want = if turn == 3 { 529 } else { 200 };
        assert_eq!(send(&p, turn), want);
    }
    let capture = p.capture.clone();
    let err = stop(&mut p);
    assert!(err.contains("0 of 3 spans exported"), "{err}");
    assert!(err.contains("not taken by the collector"), "{err}");
    assert_eq!(jsonl_rows(&capture).len(), 3);
}

#[test]
fn a_collector_that_is_down_fails_traffics_export_with_a_clear_line() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cap = fixture("openclaw/capture.jsonl");
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--otlp-endpoint",
        &format!("http://127.0.0.1:{port}/v1/traces"),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("0 of 3 spans exported"), "{out}");
    assert!(out.contains("not taken by the collector"), "{out}");
}

#[test]
fn plain_http_to_another_machine_is_refused_before_anything_is_sent() {
    let cap = fixture("openclaw/capture.jsonl");
    let o = run(&[
        "traffic",
        cap.to_str().unwrap(),
        "--otlp-endpoint",
        "http://192.0.2.10:4318",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("refusing to send spans over plain HTTP to 192.0.2.10"),
        "{}",
        stderr(&o)
    );
}
