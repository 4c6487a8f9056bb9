//! The recording proxy's overhead, side by side with direct requests to the
//! same loopback upstream in one run: added latency per request (p50, p99),
//! added time per streamed chunk, and requests per second (8 at a time);
//! with a tiny body, and with a body the size of a coding agent's request
//! (about 134 KB: system blocks, 20 tools, 60 messages), every request
//! carrying a key in its header as real clients do (the proxy redacts it
//! from everything it records, the body scanned for it). Beside it, in the same run: the proxy exporting a span per
//! exchange to a loopback OTLP collector, and mitmproxy's `mitmdump`
//! recording the same load as a reverse proxy (`-w`), when it is installed
//! (`mitmdump` on PATH, or PROMPT_INSPECTOR_MITMDUMP naming it;
//! `scripts/mitmdump.sh` installs it in a virtual environment). Then the
//! proxy as a user runs it, `prompt-inspector proxy` in a process of its
//! own, beside mitmdump under the same load: requests per second and each
//! process's peak memory.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;
use prompt_inspector::net::proxy::{ProxyConfig, serve};

#[path = "../tests/common/procfs.rs"]
mod procfs;

const JSON: &str = r#"{"id":"msg_1","type":"message","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":1200,"output_tokens":1}}"#;
const CHUNKS: usize = 50;
const KEY: &str = "sk-ant-api03-bench-KEY-0123456789abcdefghijklmnopqrstuvwxyz";
const SMALL: &str = "{\"model\":\"m\"}";

/// A request the size of a coding agent's: ~134 KB of JSON, with the dashes
/// and arrows a real one has.
fn agent_body() -> String {
    let words = [
        "the", "file", "function", "returns", "cache", "prompt", "token", "agent", "tool", "read",
        "write", "error", "test", "module", "layer", "budget",
        // As in Claude Code's own prompt, which has hundreds of these:
        // a body is seldom all ASCII.
        "—", "→",
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

/// A loopback OTLP/HTTP collector that decodes each export and counts its
/// spans.
async fn collector(spans: std::sync::Arc<std::sync::atomic::AtomicUsize>) -> SocketAddr {
    use prost::Message;
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((s, _)) = l.accept().await else {
                continue;
            };
            let spans = spans.clone();
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(
                    move |req: hyper::Request<hyper::body::Incoming>| {
                        let spans = spans.clone();
                        async move {
                            let body = req
                                .into_body()
                                .collect()
                                .await
                                .map(|b| b.to_bytes())
                                .unwrap_or_default();
                            let r = opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest::decode(body).unwrap_or_default();
                            let n: usize = r
                                .resource_spans
                                .iter()
                                .flat_map(|r| &r.scope_spans)
                                .map(|s| s.spans.len())
                                .sum();
                            spans.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                            Ok::<_, std::convert::Infallible>(
                                hyper::Response::builder()
                                    .header("content-type", "application/x-protobuf")
                                    .body(Full::new(Bytes::new()))
                                    .unwrap(),
                            )
                        }
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

/// A recording proxy in a process of its own (mitmdump, or
/// `prompt-inspector proxy` as a user runs it, where the in-process one
/// shares the bench's runtime with the clients and the upstream): the
/// process, its URL and the file it records to; killed when dropped.
struct Proc(std::process::Child, String, std::path::PathBuf);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn own_proxy(up: SocketAddr, dir: &std::path::Path) -> Proc {
    use std::io::BufRead;
    let capture = dir.join("own.jsonl");
    let up = format!("http://{up}");
    // Another build of the app may stand in (PROMPT_INSPECTOR_BIN), to
    // compare two builds in one sitting.
    let exe = std::env::var("PROMPT_INSPECTOR_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_prompt-inspector").into());
    let mut child = std::process::Command::new(exe)
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--anthropic-upstream",
            &up,
        ])
        .args(["--openai-upstream", &up, "-o"])
        .arg(&capture)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .trim_end_matches(',')
        .to_string();
    Proc(child, url, capture)
}

/// The peak resident memory of a process since [`procfs::reset_peak`],
/// in MB.
fn peak_mb(pid: u32) -> f64 {
    procfs::peak_kib(pid).map_or(f64::NAN, |kib| kib as f64 * 1024.0 / 1e6)
}

fn cpu_secs(pid: u32) -> f64 {
    procfs::cpu_secs(pid).unwrap_or(f64::NAN)
}

/// Empties a capture or a flow file (appended to, or written on: either
/// way its pages are dropped, not written back).
fn forget(file: &std::path::Path) {
    if let Ok(f) = std::fs::OpenOptions::new().write(true).open(file) {
        let _ = f.set_len(0);
    }
}

/// mitmdump as a reverse proxy to `up`, recording every flow to a file, if
/// it is installed.
fn mitmdump(up: SocketAddr, dir: &std::path::Path) -> Option<Proc> {
    let home = std::env::var("HOME").unwrap_or_default();
    let exe = std::env::var("PROMPT_INSPECTOR_MITMDUMP")
        .ok()
        .or_else(|| {
            let venv = format!("{home}/.cache/mitm-venv/bin/mitmdump");
            std::path::Path::new(&venv).exists().then_some(venv)
        })
        .unwrap_or_else(|| "mitmdump".into());
    let flows = dir.join("mitm.flows");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
    let child = std::process::Command::new(&exe)
        .args([
            "-q",
            "--mode",
            &format!("reverse:http://{up}"),
            "--listen-host",
            "127.0.0.1",
        ])
        .args(["--listen-port", &port.to_string(), "-w"])
        .arg(&flows)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let m = Proc(child, format!("http://127.0.0.1:{port}"), flows);
    for _ in 0..300 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(m);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
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

/// [`rps`] through one of our proxies, also counted until its last
/// exchange is in the capture (a recording that falls behind shows here,
/// where the answers alone would hide it): (answered, recorded) per second.
async fn rps_recorded(
    client: &reqwest::Client,
    url: &str,
    total: usize,
    body: &Bytes,
    capture: &std::path::Path,
) -> (f64, f64) {
    use std::io::{Read, Seek};
    // What earlier requests left to record is written first.
    let (mut last, mut quiet) = (u64::MAX, 0);
    while quiet < 20 {
        tokio::time::sleep(Duration::from_millis(5)).await;
        let len = std::fs::metadata(capture).map_or(0, |m| m.len());
        (quiet, last) = if len == last {
            (quiet + 1, len)
        } else {
            (0, len)
        };
    }
    let mut f = std::fs::File::open(capture).unwrap();
    f.seek(std::io::SeekFrom::End(0)).unwrap();
    let t = Instant::now();
    // The capture is read while the requests go (read after them, its
    // reading alone would add tens of milliseconds to the proxy's time).
    let recorded = async {
        let mut buf = vec![0u8; 1 << 20];
        let mut seen = 0;
        while seen < total {
            match f.read(&mut buf).unwrap() {
                0 => tokio::time::sleep(Duration::from_millis(1)).await,
                n => {
                    seen += buf[..n].iter().filter(|&&b| b == b'\n').count();
                    tokio::task::yield_now().await;
                }
            }
        }
        t.elapsed().as_secs_f64()
    };
    let (answered, recorded) = tokio::join!(rps(client, url, total, body), recorded);
    (answered, total as f64 / recorded)
}

/// Runs every section, or those named on the command line (`cargo bench
/// --bench proxy -- own cpu`: latency, throughput, own, cpu); any other
/// word keeps only the loads whose description holds it (`-- own agent`:
/// the agent's body, both upstreams; `-- own agent once`: one load), and
/// `xN` sends N times as many requests in each (to profile one load).
fn main() {
    const SECTIONS: [&str; 4] = ["latency", "throughput", "own", "cpu"];
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let (only, words): (Vec<String>, Vec<String>) = args
        .into_iter()
        .partition(|a| SECTIONS.contains(&a.as_str()));
    let want = |section: &str| only.is_empty() || only.iter().any(|o| o == section);
    let times = |w: &String| w.strip_prefix('x').and_then(|n| n.parse::<usize>().ok());
    let scale = words.iter().find_map(times).unwrap_or(1);
    let words: Vec<&String> = words.iter().filter(|w| times(w).is_none()).collect();
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
            gemini_upstream: format!("http://{up}"),
            capture: dir.path().join("bench.jsonl"),
            allow_insecure_http: false,
            timeout: Duration::from_secs(30),
            limits: prompt_inspector::net::proxy::Limits::default(),
            recorded: None,
            otlp: None,
            log_exchanges: false,
        };
        tokio::spawn(serve(cfg.clone(), ready, stop.clone()));
        let proxy = format!("http://{}", addr.await.unwrap());
        // The same proxy exporting a span per exchange.
        let spans = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let col = collector(spans.clone()).await;
        let exporter = prompt_inspector::net::otlp::Exporter::start(
            &prompt_inspector::net::otlp::OtlpConfig::new(format!("http://{col}/v1/traces")),
        )
        .unwrap();
        let feed = std::sync::Arc::new(prompt_inspector::net::otlp::Feed::start(
            exporter,
            prompt_inspector::model_table().unwrap(),
            "bench-otlp.jsonl".into(),
        ));
        let (capture, capture_otlp) = (dir.path().join("bench.jsonl"), dir.path().join("bench-otlp.jsonl"));
        let (ready, addr) = tokio::sync::oneshot::channel();
        let cfg_otlp = ProxyConfig {
            capture: dir.path().join("bench-otlp.jsonl"),
            otlp: Some(feed.clone()),
            ..cfg
        };
        tokio::spawn(serve(cfg_otlp, ready, stop));
        let otlp = format!("http://{}", addr.await.unwrap());
        let own = own_proxy(up, dir.path());
        let mitm = mitmdump(up, dir.path());
        if mitm.is_none() {
            println!("proxy/mitmdump: not installed (scripts/mitmdump.sh): its columns are left out");
        }
        let peer = mitm.as_ref().map(|m| m.1.clone());
        let direct = format!("http://{up}");
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        let small = Bytes::from_static(SMALL.as_bytes());
        let agent = Bytes::from(agent_body());
        // The loads of the throughput sections: what, the path (and query)
        // on the upstream, how many requests, the body.
        let loads = [
            ("an upstream that answers at once, tiny body", "/v1/messages", 4000, &small),
            ("an upstream that answers in 5 ms, tiny body", "/v1/messages?slow", 800, &small),
            ("an upstream that answers at once, agent's body", "/v1/messages", 800, &agent),
            ("an upstream that answers in 5 ms, agent's body", "/v1/messages?slow", 800, &agent),
        ];
        let loads: Vec<_> = loads
            .into_iter()
            .filter(|(what, ..)| words.iter().all(|w| what.contains(w.as_str())))
            .map(|(what, path, n, body)| (what, path, n * scale, body))
            .collect();
        // Warm both paths.
        latencies(&client, &direct, 50, false, &small).await;
        latencies(&client, &proxy, 50, false, &small).await;
        latencies(&client, &otlp, 50, false, &small).await;
        if let Some(m) = &peer {
            latencies(&client, m, 50, false, &small).await;
        }
        if want("latency") {
            for (what, body, n) in [("a tiny body", &small, 1000), ("an agent's 134 KB body", &agent, 300)] {
                let (mut d, mut p) = (
                    latencies(&client, &direct, n, false, body).await,
                    latencies(&client, &proxy, n, false, body).await,
                );
                let (d50, d99, p50, p99) = (pct(&mut d, 0.5), pct(&mut d, 0.99), pct(&mut p, 0.5), pct(&mut p, 0.99));
                println!("proxy/latency ({what}, {} bytes): direct p50 {d50:.3} ms p99 {d99:.3} ms · through the proxy p50 {p50:.3} ms p99 {p99:.3} ms · added p50 {:.3} ms, p99 {:.3} ms", body.len(), p50 - d50, p99 - d99);
                let mut o = latencies(&client, &otlp, n, false, body).await;
                let (o50, o99) = (pct(&mut o, 0.5), pct(&mut o, 0.99));
                println!("proxy/latency with OTLP export ({what}): added p50 {:.3} ms, p99 {:.3} ms", o50 - d50, o99 - d99);
                if let Some(m) = &peer {
                    let mut x = latencies(&client, m, n, false, body).await;
                    let (x50, x99) = (pct(&mut x, 0.5), pct(&mut x, 0.99));
                    println!("proxy/latency through mitmdump ({what}): added p50 {:.3} ms, p99 {:.3} ms", x50 - d50, x99 - d99);
                }
            }
            // One client at a time against an upstream that answers in 5 ms
            // (as a model would, if a fast one), an agent's body: what a
            // coding agent waits for the proxy.
            let slow = |base: &str| format!("{base}/v1/messages?slow");
            let (mut d, mut p) = (
                timed(&client, &slow(&direct), 300, &agent).await,
                timed(&client, &slow(&proxy), 300, &agent).await,
            );
            let (d50, d99, p50, p99) = (pct(&mut d, 0.5), pct(&mut d, 0.99), pct(&mut p, 0.5), pct(&mut p, 0.99));
            let peer_part = match &peer {
                Some(m) => {
                    let mut x = timed(&client, &slow(m), 300, &agent).await;
                    let (x50, x99) = (pct(&mut x, 0.5), pct(&mut x, 0.99));
                    format!(" · mitmdump added p50 {:.3} ms, p99 {:.3} ms", x50 - d50, x99 - d99)
                }
                None => String::new(),
            };
            println!("proxy/latency (an agent's body, an upstream that answers in 5 ms): direct p50 {d50:.3} ms p99 {d99:.3} ms · through the proxy p50 {p50:.3} ms p99 {p99:.3} ms · added p50 {:.3} ms, p99 {:.3} ms{peer_part}", p50 - d50, p99 - d99);
            let (mut ds, mut ps) = (
                latencies(&client, &direct, 200, true, &small).await,
                latencies(&client, &proxy, 200, true, &small).await,
            );
            let (s_d, s_p) = (pct(&mut ds, 0.99), pct(&mut ps, 0.99));
            println!(
                "proxy/stream ({CHUNKS} chunks): direct p99 {s_d:.3} ms · through the proxy p99 {s_p:.3} ms · added per chunk (p99) {:.4} ms",
                (s_p - s_d) / CHUNKS as f64
            );
        }
        if want("throughput") {
            for &(what, path, n, body) in &loads {
                let rd = rps(&client, &format!("{direct}{path}"), n, body).await;
                let (rp, rp_rec) =
                    rps_recorded(&client, &format!("{proxy}{path}"), n, body, &capture).await;
                let (ro, _) =
                    rps_recorded(&client, &format!("{otlp}{path}"), n, body, &capture_otlp).await;
                let peer_part = match &peer {
                    Some(m) => {
                        let rm = rps(&client, &format!("{m}{path}"), n, body).await;
                        format!(" · mitmdump recording {rm:.0} req/s: the proxy {:.1}× mitmdump", rp / rm)
                    }
                    None => String::new(),
                };
                println!(
                    "proxy/throughput (8 concurrent, {what}): direct {rd:.0} req/s · through the proxy {rp:.0} req/s ({:.0}% of direct), {rp_rec:.0} req/s counted until all are recorded ({:.0}%) · with OTLP export {ro:.0} req/s{peer_part}",
                    rp * 100.0 / rd,
                    rp_rec * 100.0 / rd
                );
            }
        }
        if want("own") {
            // The proxy and mitmdump each in a process of its own: requests
            // per second (the proxy's also until its last exchange is in
            // the capture) and each one's peak memory under that load, in
            // three rounds taking turns (this machine's speed drifts within
            // a run): the medians, and the ratio of the medians.
            const ROUNDS: usize = 3;
            latencies(&client, &own.1, 50, false, &small).await;
            for &(what, path, n, body) in &loads {
                let (mut rd, mut rp, mut rec, mut peak, mut rm, mut mpeak) =
                    (vec![], vec![], vec![], vec![], vec![], vec![]);
                // CPU seconds each proxy used for the rounds' requests, and
                // what the bench's clients and upstream used, direct and
                // through the proxy.
                let (mut cpu, mut mcpu) = (0.0, 0.0);
                let (mut bench_direct, mut bench_proxy) = (0.0, 0.0);
                let me = std::process::id();
                for _ in 0..ROUNDS {
                    let b = cpu_secs(me);
                    rd.push(rps(&client, &format!("{direct}{path}"), n, body).await);
                    bench_direct += cpu_secs(me) - b;
                    procfs::reset_peak(own.0.id());
                    let (c, b) = (cpu_secs(own.0.id()), cpu_secs(me));
                    let (a, r) =
                        rps_recorded(&client, &format!("{}{path}", own.1), n, body, &own.2).await;
                    cpu += cpu_secs(own.0.id()) - c;
                    bench_proxy += cpu_secs(me) - b;
                    rp.push(a);
                    rec.push(r);
                    peak.push(peak_mb(own.0.id()));
                    if let Some(m) = &mitm {
                        procfs::reset_peak(m.0.id());
                        let c = cpu_secs(m.0.id());
                        rm.push(rps(&client, &format!("{}{path}", m.1), n, body).await);
                        mcpu += cpu_secs(m.0.id()) - c;
                        mpeak.push(peak_mb(m.0.id()));
                        forget(&m.2);
                    }
                    // What was written is dropped before the next round, so
                    // that no round pays for an earlier one's writeback.
                    forget(&own.2);
                }
                let rec_range = format!("{:.0}–{:.0}", pct(&mut rec, 0.0), pct(&mut rec, 1.0));
                let (rd, rp, rec) = (pct(&mut rd, 0.5), pct(&mut rp, 0.5), pct(&mut rec, 0.5));
                let peak = peak.iter().copied().fold(0.0, f64::max);
                let peer_part = if rm.is_empty() {
                    String::new()
                } else {
                    let range = format!("{:.0}–{:.0}", pct(&mut rm, 0.0), pct(&mut rm, 1.0));
                    let rm = pct(&mut rm, 0.5);
                    format!(
                        " · mitmdump recording {rm:.0} req/s ({range}), peak {:.0} MB, CPU {:.3} ms per exchange: the proxy {:.1}× mitmdump (recorded {:.1}×)",
                        mpeak.iter().copied().fold(0.0, f64::max),
                        mcpu * 1e3 / (ROUNDS * n) as f64,
                        rp / rm,
                        rec / rm
                    )
                };
                let per = |secs: f64| secs * 1e3 / (ROUNDS * n) as f64;
                println!(
                    "proxy/own process (8 concurrent, {what}; medians of {ROUNDS}): direct {rd:.0} req/s · the proxy {rp:.0} req/s ({:.0}% of direct), {rec:.0} req/s until all are recorded ({:.0}%; {rec_range}), peak {peak:.0} MB, CPU {:.3} ms per exchange{peer_part} · the bench's clients and upstream: CPU {:.3} ms per exchange direct, {:.3} ms through the proxy",
                    rp * 100.0 / rd,
                    rec * 100.0 / rd,
                    per(cpu),
                    per(bench_direct),
                    per(bench_proxy),
                );
            }
        }
        if want("cpu") {
            // The proxy's own CPU per recorded agent request, piece by
            // piece: the key redacted from the body (its redactor made once,
            // as the proxy keeps it), strings shaped like keys, the check
            // that it is JSON; a parse to a tree for comparison.
            let body = String::from_utf8(agent.to_vec()).unwrap();
            let redactor = prompt_inspector::net::guard::Redactor::new(&[KEY]);
            let per = |f: &dyn Fn()| {
                let t = Instant::now();
                for _ in 0..200 {
                    f();
                }
                t.elapsed().as_secs_f64() * 1e3 / 200.0
            };
            let redact = per(&|| {
                std::hint::black_box(redactor.redact(std::hint::black_box(&body)));
            });
            let shapes = per(&|| {
                std::hint::black_box(prompt_inspector::net::guard::redact_shapes(
                    std::hint::black_box(&body),
                ));
            });
            let check = per(&|| {
                std::hint::black_box(serde_json::from_str::<serde::de::IgnoredAny>(&body).is_ok());
            });
            let parse = per(&|| {
                std::hint::black_box(serde_json::from_str::<serde_json::Value>(&body).unwrap());
            });
            println!(
                "proxy/record, per agent body ({} bytes): redact {redact:.3} ms, key shapes {shapes:.3} ms, JSON check {check:.3} ms (a parse to a tree, for comparison: {parse:.3} ms)",
                body.len()
            );
        }
        let text = std::fs::read_to_string(dir.path().join("bench.jsonl")).unwrap();
        assert!(!text.contains("bench-KEY"), "no key in the capture");
        let lines = text.lines().count();
        println!("proxy/capture: {lines} exchanges recorded");
        let d = feed.finish();
        println!(
            "proxy/otlp: {} of {} spans exported ({} dropped), {} received by the collector",
            d.exported,
            d.submitted,
            d.dropped,
            spans.load(std::sync::atomic::Ordering::Relaxed)
        );
    });
}
