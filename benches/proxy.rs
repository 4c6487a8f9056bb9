//! The recording proxy's overhead, side by side with direct requests to the
//! same loopback upstream in one run: added latency per request (p50, p99),
//! added time per streamed chunk, and requests per second (8 at a time);
//! with a tiny body, and with a body the size of a coding agent's request
//! (about 150 KB: system blocks, 20 tools, 60 messages), every request
//! carrying a key as real clients do (the proxy redacts it from what it
//! records).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;
use prompt_inspector::net::proxy::{ProxyConfig, serve};

const JSON: &str = r#"{"id":"msg_1","type":"message","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":1200,"output_tokens":1}}"#;
const CHUNKS: usize = 50;
const KEY: &str = "sk-ant-api03-bench-KEY-0123456789abcdefghijklmnopqrstuvwxyz";
const SMALL: &str = "{\"model\":\"m\"}";

/// A request the size of a coding agent's: ~150 KB of JSON.
fn agent_body() -> String {
    let words = [
        "the", "file", "function", "returns", "cache", "prompt", "token", "agent", "tool", "read",
        "write", "error", "test", "module", "layer", "budget",
    ];
    let text = |seed: usize, n: usize| {
        (0..n)
            .map(|i| words[(seed * 7 + i * 13 + i / 5) % words.len()])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let system: Vec<_> = (0..3)
        .map(|i| serde_json::json!({"type": "text", "text": text(i, 700)}))
        .collect();
    let tools: Vec<_> = (0..20)
        .map(|i| serde_json::json!({"name": format!("tool_{i}"), "description": text(i + 10, 250),
            "input_schema": {"type": "object", "properties": {"path": {"type": "string", "description": text(i, 40)}}}}))
        .collect();
    let messages: Vec<_> = (0..60)
        .map(|i| {
            serde_json::json!({"role": if i % 2 == 0 { "user" } else { "assistant" },
            "content": [{"type": "text", "text": text(i + 100, 230)}]})
        })
        .collect();
    serde_json::json!({"model": "claude-sonnet-4-6", "max_tokens": 1024, "system": system,
        "tools": tools, "messages": messages})
    .to_string()
}

/// A keep-alive loopback upstream: JSON, or an SSE stream of CHUNKS events.
async fn upstream() -> SocketAddr {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((s, _)) = l.accept().await else {
                continue;
            };
            let _ = s.set_nodelay(true);
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(
                    |req: hyper::Request<hyper::body::Incoming>| async move {
                        let stream = req.uri().query().is_some_and(|q| q.contains("stream"));
                        if req.uri().query().is_some_and(|q| q.contains("slow")) {
                            // Like a model that answers in 5 ms.
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                        let _ = req.into_body().collect().await;
                        let resp = if stream {
                            let frames = (0..CHUNKS).map(|i| {
                            Ok::<_, std::io::Error>(Frame::data(Bytes::from(format!(
                                "event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":{i}}}\n\n"
                            ))))
                        });
                            hyper::Response::builder()
                                .header("content-type", "text/event-stream")
                                .body(BodyExt::boxed(StreamBody::new(futures_util::stream::iter(
                                    frames,
                                ))))
                                .unwrap()
                        } else {
                            hyper::Response::builder()
                                .header("content-type", "application/json")
                                .body(BodyExt::boxed(
                                    Full::new(Bytes::from(JSON)).map_err(|n| match n {}),
                                ))
                                .unwrap()
                        };
                        Ok::<_, std::convert::Infallible>(resp)
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(s), svc)
                    .await;
            });
        }
    });
    addr
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

async fn latencies(
    client: &reqwest::Client,
    base: &str,
    n: usize,
    stream: bool,
    body: &Bytes,
) -> Vec<f64> {
    timed(
        client,
        &format!("{base}/v1/messages{}", if stream { "?stream" } else { "" }),
        n,
        body,
    )
    .await
}

async fn timed(client: &reqwest::Client, url: &str, n: usize, body: &Bytes) -> Vec<f64> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let r = client
            .post(url)
            .header("x-api-key", KEY)
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        let _ = r.bytes().await.unwrap();
        out.push(t.elapsed().as_secs_f64() * 1e3);
    }
    out
}

async fn rps(client: &reqwest::Client, url: &str, total: usize, body: &Bytes) -> f64 {
    let t = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let (c, u, b) = (client.clone(), url.to_string(), body.clone());
        tasks.push(tokio::spawn(
            async move { timed(&c, &u, total / 8, &b).await },
        ));
    }
    for t in tasks {
        t.await.unwrap();
    }
    total as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let up = upstream().await;
        let dir = tempfile::tempdir().unwrap();
        let (ready, addr) = tokio::sync::oneshot::channel();
        let (_stop, stop) = tokio::sync::watch::channel(false);
        let cfg = ProxyConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            anthropic_upstream: format!("http://{up}"),
            openai_upstream: format!("http://{up}"),
            capture: dir.path().join("bench.jsonl"),
            allow_insecure_http: false,
            timeout: Duration::from_secs(30),
            limits: prompt_inspector::net::proxy::Limits::default(),
            recorded: None,
        };
        tokio::spawn(serve(cfg, ready, stop));
        let proxy = format!("http://{}", addr.await.unwrap());
        let direct = format!("http://{up}");
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        let small = Bytes::from_static(SMALL.as_bytes());
        let agent = Bytes::from(agent_body());
        // Warm both paths.
        latencies(&client, &direct, 50, false, &small).await;
        latencies(&client, &proxy, 50, false, &small).await;
        for (what, body, n) in [("a tiny body", &small, 1000), ("an agent's 150 KB body", &agent, 300)] {
            let (mut d, mut p) = (
                latencies(&client, &direct, n, false, body).await,
                latencies(&client, &proxy, n, false, body).await,
            );
            let (d50, d99, p50, p99) = (pct(&mut d, 0.5), pct(&mut d, 0.99), pct(&mut p, 0.5), pct(&mut p, 0.99));
            println!("proxy/latency ({what}, {} bytes): direct p50 {d50:.3} ms p99 {d99:.3} ms · through the proxy p50 {p50:.3} ms p99 {p99:.3} ms · added p50 {:.3} ms, p99 {:.3} ms", body.len(), p50 - d50, p99 - d99);
        }
        let (mut ds, mut ps) = (
            latencies(&client, &direct, 200, true, &small).await,
            latencies(&client, &proxy, 200, true, &small).await,
        );
        let (s_d, s_p) = (pct(&mut ds, 0.99), pct(&mut ps, 0.99));
        println!(
            "proxy/stream ({CHUNKS} chunks): direct p99 {s_d:.3} ms · through the proxy p99 {s_p:.3} ms · added per chunk (p99) {:.4} ms",
            (s_p - s_d) / CHUNKS as f64
        );
        for (what, path, n, body) in [
            ("an upstream that answers at once, tiny body", "/v1/messages", 4000, &small),
            ("an upstream that answers in 5 ms, tiny body", "/v1/messages?slow", 800, &small),
            ("an upstream that answers at once, agent's body", "/v1/messages", 800, &agent),
            ("an upstream that answers in 5 ms, agent's body", "/v1/messages?slow", 800, &agent),
        ] {
            let rd = rps(&client, &format!("{direct}{path}"), n, body).await;
            let rp = rps(&client, &format!("{proxy}{path}"), n, body).await;
            println!(
                "proxy/throughput (8 concurrent, {what}): direct {rd:.0} req/s · through the proxy {rp:.0} req/s · {:.0}% of direct",
                rp * 100.0 / rd
            );
        }
        // The proxy's own CPU per recorded agent request: the key redacted
        // from the body (what dominates recording).
        let body = String::from_utf8(agent.to_vec()).unwrap();
        let t = Instant::now();
        for _ in 0..50 {
            std::hint::black_box(prompt_inspector::net::guard::redact(&body, &[KEY]));
        }
        println!(
            "proxy/redact: {:.3} ms per agent body ({} bytes)",
            t.elapsed().as_secs_f64() * 1e3 / 50.0,
            body.len()
        );
        let t = Instant::now();
        for _ in 0..50 {
            std::hint::black_box(serde_json::from_str::<serde_json::Value>(&body).unwrap());
        }
        println!(
            "proxy/parse (for comparison): {:.3} ms per agent body parsed to a JSON value",
            t.elapsed().as_secs_f64() * 1e3 / 50.0
        );
        let text = std::fs::read_to_string(dir.path().join("bench.jsonl")).unwrap();
        assert!(!text.contains("bench-KEY"), "no key in the capture");
        let lines = text.lines().count();
        println!("proxy/capture: {lines} exchanges recorded");
    });
}
