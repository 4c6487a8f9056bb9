//! The recording proxy: an agent points its base URL here; every request to
//! `/v1/messages`, `/v1/messages/count_tokens`, `/v1/chat/completions` or
//! `/v1/responses` is forwarded upstream (hyper server, reqwest client), the
//! response streams back chunk by chunk, unbuffered and unchanged, and one
//! JSON line per exchange is appended to the capture: the request body
//! verbatim (keys in it redacted), the status, the usage read out of the
//! JSON or the SSE stream, the latency, the error. Authentication headers
//! are forwarded, never recorded.
//!
//! When an upstream is a llama.cpp server (it answers `/tokenize`), each
//! request's parts are also counted with the server's own tokenizer after
//! the answer has gone to the client, and recorded with the exchange
//! (`counted`), so the Traffic views show what the server counted.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full, Limited, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use serde_json::{Value, json};

use super::guard;

/// Largest request or recorded response body (as in the clients).
pub const MAX_BODY: usize = guard::MAX_BODY_BYTES;

#[derive(Debug, Clone)]
pub struct ProxyConfig {
    pub listen: SocketAddr,
    pub anthropic_upstream: String,
    pub openai_upstream: String,
    pub capture: PathBuf,
    /// Forward keys over plain HTTP to a host that is not this machine.
    pub allow_insecure_http: bool,
    /// Time to the first byte of the upstream's answer.
    pub timeout: Duration,
}

/// A new capture's path: under WORKSPACE/.prompt-inspector/captures/ when
/// there is a workspace, else in the current directory.
pub fn default_capture(workspace: Option<&std::path::Path>, now: u64) -> Result<PathBuf, String> {
    let name = format!(
        "capture-{}.jsonl",
        crate::engine::workspace::store::stamp(now)
    );
    match workspace {
        Some(ws) => Ok(crate::engine::workspace::store::state_dir(ws, &["captures"])?.join(name)),
        None => Ok(PathBuf::from(name)),
    }
}

type Body = BoxBody<Bytes, std::io::Error>;

struct Shared {
    cfg: ProxyConfig,
    client: reqwest::Client,
    capture: Mutex<std::fs::File>,
    seq: Mutex<u64>,
    /// A write to the capture failed (said once, on standard error).
    write_failed: std::sync::atomic::AtomicBool,
    /// Per upstream: whether it is a llama.cpp server (asked once it has
    /// answered).
    llama: Mutex<HashMap<String, bool>>,
    /// Token counts a llama.cpp upstream gave, by upstream and text hash
    /// (successive requests of a conversation repeat most of their parts).
    counts: Mutex<HashMap<(String, u64), usize>>,
}

/// Counts kept at most (then the memo starts again).
const MAX_MEMO: usize = 65_536;
/// Parts of one request counted at most; a larger request is not counted.
const MAX_COUNTED_PARTS: usize = 4_096;
/// A count request's deadline.
const COUNT_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs the proxy until `shutdown` turns true; `ready` receives the bound
/// address (port 0 picks one).
pub async fn serve(
    cfg: ProxyConfig,
    ready: tokio::sync::oneshot::Sender<SocketAddr>,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) -> Result<(), String> {
    for (who, url) in [
        ("Anthropic", &cfg.anthropic_upstream),
        ("OpenAI", &cfg.openai_upstream),
    ] {
        check_upstream(url)
            .map_err(|e| format!("the {who} upstream {}: {e}", guard::mask_url(url)))?;
    }
    // Captures hold whole prompts: readable by their owner only.
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&cfg.capture)
        .map_err(|e| format!("cannot open the capture {}: {e}", cfg.capture.display()))?;
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .read_timeout(cfg.timeout)
        .tcp_nodelay(true)
        .no_proxy()
        .build()
        .map_err(|e| e.to_string())?;
    let listener = tokio::net::TcpListener::bind(cfg.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", cfg.listen))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let _ = ready.send(addr);
    let shared = Arc::new(Shared {
        cfg,
        client,
        capture: Mutex::new(file),
        seq: Mutex::new(0),
        write_failed: std::sync::atomic::AtomicBool::new(false),
        llama: Mutex::new(HashMap::new()),
        counts: Mutex::new(HashMap::new()),
    });
    loop {
        let (stream, _) = tokio::select! {
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(_) => continue,
            },
            _ = shutdown.changed() => return Ok(()),
        };
        // Small writes (SSE events) go out at once: no Nagle delay.
        let _ = stream.set_nodelay(true);
        let shared = shared.clone();
        tokio::spawn(async move {
            let io = hyper_util::rt::TokioIo::new(stream);
            let svc = hyper::service::service_fn(move |req| {
                let shared = shared.clone();
                async move { Ok::<_, Infallible>(handle(shared, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, svc)
                .await;
        });
    }
}

/// An upstream is an http(s) base URL with a host, nothing after its path.
fn check_upstream(url: &str) -> Result<(), String> {
    let u = reqwest::Url::parse(url).map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(format!("its scheme, {}, is not http or https", u.scheme()));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err("has no host".into());
    }
    if u.query().is_some() || u.fragment().is_some() {
        return Err("a base URL has no query or fragment".into());
    }
    Ok(())
}

fn full(b: impl Into<Bytes>) -> Body {
    Full::new(b.into()).map_err(|never| match never {}).boxed()
}

/// The provider's error shape, with a clear message.
fn error_response(anthropic: bool, status: StatusCode, message: &str) -> Response<Body> {
    let body = if anthropic {
        json!({"type": "error", "error": {"type": "api_error", "message": message}})
    } else {
        json!({"error": {"message": message, "type": "proxy_error", "code": status.as_u16()}})
    };
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(full(body.to_string()))
        .unwrap_or_else(|_| Response::new(full("")))
}

const FORWARDED: &[&str] = &[
    "/v1/messages",
    "/v1/messages/count_tokens",
    "/v1/chat/completions",
    "/v1/responses",
];

/// Headers never forwarded (hop by hop, or recomputed).
fn hop_by_hop(name: &str) -> bool {
    matches!(
        name,
        "host"
            | "connection"
            | "keep-alive"
            | "transfer-encoding"
            | "te"
            | "trailer"
            | "upgrade"
            | "proxy-authorization"
            | "proxy-connection"
            | "content-length"
            | "accept-encoding"
    )
}

/// Headers that carry a key (Anthropic, OpenAI, Azure OpenAI, Google).
const KEY_HEADERS: &[&str] = &["x-api-key", "authorization", "api-key", "x-goog-api-key"];

/// The keys a request carries, to redact them from what is recorded: each
/// header's value as bytes (a value that is not ASCII is a key too), its
/// `Bearer`/`Basic` scheme dropped.
fn keys_of(req: &Request<Incoming>) -> Vec<String> {
    let mut v = Vec::new();
    for name in KEY_HEADERS {
        for h in req.headers().get_all(*name) {
            let value = String::from_utf8_lossy(h.as_bytes()).trim().to_string();
            let key = match value.split_once(' ') {
                Some((scheme, rest))
                    if scheme.eq_ignore_ascii_case("bearer")
                        || scheme.eq_ignore_ascii_case("basic") =>
                {
                    rest.trim().to_string()
                }
                _ => value,
            };
            v.push(key);
        }
    }
    v.retain(|k| !k.is_empty());
    v
}

async fn handle(shared: Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let path = req.uri().path().to_string();
    let anthropic = path.starts_with("/v1/messages");
    if !FORWARDED.contains(&path.as_str()) {
        return error_response(
            anthropic,
            StatusCode::NOT_FOUND,
            &format!(
                "prompt-inspector proxy: {path} is not forwarded (only {})",
                FORWARDED.join(", ")
            ),
        );
    }
    let upstream = if anthropic {
        &shared.cfg.anthropic_upstream
    } else {
        &shared.cfg.openai_upstream
    };
    let keys = keys_of(&req);
    let refused =
        guard::check_transport(upstream, !keys.is_empty(), shared.cfg.allow_insecure_http).err();
    let query = req
        .uri()
        .query()
        .map(|q| format!("?{q}"))
        .unwrap_or_default();
    let url = format!("{}{path}{query}", upstream.trim_end_matches('/'));
    let method = req.method().clone();
    let mut headers = reqwest::header::HeaderMap::new();
    let mut auth = reqwest::header::HeaderMap::new();
    for (k, v) in req.headers() {
        if !hop_by_hop(k.as_str()) {
            headers.append(k.clone(), v.clone());
        }
        if KEY_HEADERS.contains(&k.as_str()) {
            auth.append(k.clone(), v.clone());
        }
    }
    let body = match Limited::new(req.into_body(), MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return error_response(
                anthropic,
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!(
                    "prompt-inspector proxy: the request body is over {} MiB",
                    MAX_BODY >> 20
                ),
            );
        }
    };
    let started = Instant::now();
    let ts_start = crate::now_rfc3339();
    let record = Record {
        shared: shared.clone(),
        keys,
        upstream: upstream.clone(),
        auth,
        outcome: None,
        counted: None,
        diagnostics: Value::Null,
        ts_start,
        endpoint: path.clone(),
        request: body.clone(),
        started,
        stream: false,
        written: std::sync::atomic::AtomicBool::new(false),
    };
    // A key that may not go to this upstream: refused, and recorded.
    if let Some(e) = refused {
        let message = record.clean(&format!("prompt-inspector proxy: {e}"));
        record.write(record.outcome(
            Some(StatusCode::BAD_GATEWAY.as_u16()),
            Value::Null,
            Some(message.clone()),
        ));
        return error_response(anthropic, StatusCode::BAD_GATEWAY, &message);
    }
    let sent = shared
        .client
        .request(method, &url)
        .headers(headers)
        .body(body)
        .send()
        .await;
    let resp = match sent {
        Ok(r) => r,
        Err(e) => {
            let (status, what) = if e.is_timeout() {
                (StatusCode::GATEWAY_TIMEOUT, "timed out")
            } else {
                (StatusCode::BAD_GATEWAY, "failed")
            };
            let message = record.clean(&format!(
                "prompt-inspector proxy: the upstream {} {what}: {e}",
                guard::mask_url(upstream)
            ));
            record.write(record.outcome(Some(status.as_u16()), Value::Null, Some(message.clone())));
            return error_response(anthropic, status, &message);
        }
    };
    relay(record, resp)
}

/// Streams the upstream's answer to the client as it comes, keeping a
/// bounded copy to read the usage from, and records the exchange at the end.
fn relay(mut record: Record, resp: reqwest::Response) -> Response<Body> {
    let status = resp.status();
    let mut builder = Response::builder().status(status.as_u16());
    for (k, v) in resp.headers() {
        if !hop_by_hop(k.as_str()) {
            builder = builder.header(k, v);
        }
    }
    let location = resp
        .headers()
        .get("location")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    record.stream = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/event-stream"));
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Frame<Bytes>, std::io::Error>>(16);
    tokio::spawn(async move {
        let mut upstream = resp.bytes_stream();
        let mut copy: Vec<u8> = Vec::new();
        let mut error = None;
        // The stream's last event has been relayed: a client that closes
        // now has had the whole answer (SDKs close at `[DONE]`).
        let mut ended = false;
        let mut tail: Vec<u8> = Vec::new();
        const GONE: &str = "the client disconnected: the upstream request was cancelled";
        loop {
            // A client that goes away while the upstream is silent (a long
            // think, a stalled stream) cancels it at once, not at the next
            // chunk: dropping the stream closes the upstream connection.
            let chunk = tokio::select! {
                c = upstream.next() => c,
                _ = tx.closed() => {
                    if !ended {
                        error = Some(GONE.to_string());
                    }
                    break;
                }
            };
            let Some(chunk) = chunk else { break };
            match chunk {
                Ok(b) => {
                    if copy.len() + b.len() <= MAX_BODY {
                        copy.extend_from_slice(&b);
                    }
                    if record.stream {
                        ended = stream_ended(&mut tail, &b);
                    }
                    if tx.send(Ok(Frame::data(b))).await.is_err() {
                        // The client went away: dropping the stream cancels
                        // the upstream request.
                        error = Some(GONE.to_string());
                        break;
                    }
                }
                Err(e) => {
                    let m = record.clean(&format!("the upstream stream broke: {e}"));
                    let _ = tx.send(Err(std::io::Error::other(m.clone()))).await;
                    error = Some(m);
                    break;
                }
            }
        }
        // The client's answer ends here, not after the recording.
        drop(tx);
        let mut usage = usage_of(&copy, record.stream);
        // `count_tokens` answers with its figure at the top level.
        if usage.is_null() && record.endpoint.ends_with("/count_tokens") {
            usage = serde_json::from_slice::<Value>(&copy)
                .ok()
                .filter(|v| v.get("input_tokens").is_some())
                .unwrap_or(Value::Null);
        }
        record.diagnostics = diagnostics_of(&copy, record.stream);
        // A refusal (4xx, 5xx), a redirect (not followed) or a stream that
        // ended in an error event is recorded with what the provider said.
        let error = error
            .or_else(|| {
                (!status.is_success()).then(|| {
                    let said = if status.is_redirection() {
                        format!(
                            "a redirect to {}, not followed",
                            location
                                .as_deref()
                                .map_or("nowhere".into(), guard::mask_url)
                        )
                    } else {
                        error_message(&copy)
                    };
                    record.clean(&format!("HTTP {}: {said}", status.as_u16()))
                })
            })
            .or_else(|| {
                record
                    .stream
                    .then(|| stream_error(&copy))
                    .flatten()
                    .map(|e| record.clean(&format!("the stream ended in an error: {e}")))
            });
        drop(copy);
        let answered = status.is_success() && error.is_none();
        record.outcome = Some(record.outcome(Some(status.as_u16()), usage, error));
        if answered {
            record.counted = count_parts(&record).await;
        }
        // Redacting and writing a large body is CPU work: off the runtime's
        // workers, so that no exchange in flight waits behind it (a small
        // one costs less than the hand-over).
        if record.request.len() > 64 * 1024 {
            let _ = tokio::task::spawn_blocking(move || record.finish()).await;
        } else {
            record.finish();
        }
    });
    let body = BodyExt::boxed(StreamBody::new(tokio_stream_from(rx)));
    builder
        .body(body)
        .unwrap_or_else(|_| Response::new(full("")))
}

/// Whether the stream's last event (Anthropic's `message_stop`, OpenAI's
/// `data: [DONE]`) ends what has come so far; `tail` keeps the end of the
/// previous chunks, for an event split across chunks.
fn stream_ended(tail: &mut Vec<u8>, chunk: &[u8]) -> bool {
    tail.extend_from_slice(&chunk[chunk.len().saturating_sub(256)..]);
    if tail.len() > 256 {
        tail.drain(..tail.len() - 256);
    }
    let text = String::from_utf8_lossy(tail);
    let last = text.trim_end().rsplit("\n\n").next().unwrap_or("");
    last.contains("data: [DONE]")
        || last.contains("\"type\":\"message_stop\"")
        || last.contains("event: message_stop")
}

fn tokio_stream_from(
    mut rx: tokio::sync::mpsc::Receiver<Result<Frame<Bytes>, std::io::Error>>,
) -> impl futures_util::Stream<Item = Result<Frame<Bytes>, std::io::Error>> {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

/// The data of each SSE event of `text` that mentions `"key"`, parsed (the
/// others are not parsed at all).
fn events_with<'a>(text: &'a str, key: &'a str) -> impl Iterator<Item = Value> + 'a {
    let quoted = format!("\"{key}\"");
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter(move |d| d.contains(&quoted))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
}

/// A field of a JSON body.
fn body_field(text: &str, key: &str) -> Value {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get(key).cloned())
        .unwrap_or(Value::Null)
}

/// The usage of a response: the JSON body's `usage`, or, for a stream,
/// Anthropic's `message_start` usage updated by each `message_delta`, or
/// OpenAI's final chunk's `usage`.
pub fn usage_of(body: &[u8], stream: bool) -> Value {
    let text = String::from_utf8_lossy(body);
    if !stream {
        return body_field(&text, "usage");
    }
    let mut usage = Value::Null;
    for v in events_with(&text, "usage") {
        let found = match v["type"].as_str() {
            Some("message_start") => v.pointer("/message/usage").cloned(),
            Some("message_delta") => v.get("usage").cloned(),
            _ => v.get("usage").filter(|u| u.is_object()).cloned(),
        };
        if let Some(Value::Object(new)) = found {
            match &mut usage {
                Value::Object(old) => {
                    for (k, x) in new {
                        if !x.is_null() {
                            old.insert(k, x);
                        }
                    }
                }
                _ => usage = Value::Object(new),
            }
        }
    }
    usage
}

/// Anthropic's cache diagnostics of a response: the JSON body's
/// `diagnostics`, or, for a stream, the one on `message_start`'s message
/// (or any later event's).
pub fn diagnostics_of(body: &[u8], stream: bool) -> Value {
    let text = String::from_utf8_lossy(body);
    if !stream {
        return body_field(&text, "diagnostics");
    }
    events_with(&text, "diagnostics")
        .filter_map(|v| {
            v.pointer("/message/diagnostics")
                .or_else(|| v.get("diagnostics"))
                .filter(|d| !d.is_null())
                .cloned()
        })
        .last()
        .unwrap_or(Value::Null)
}

/// The error event a stream ended with (Anthropic's `event: error`, an
/// OpenAI chunk with an `error`): its type and message.
fn stream_error(body: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(body);
    events_with(&text, "error").find_map(|v| {
        let e = v.get("error").filter(|e| e.is_object())?;
        Some(format!(
            "{}: {}",
            e["type"].as_str().unwrap_or("error"),
            e["message"].as_str().unwrap_or("")
        ))
    })
}

/// How an exchange ended: its status, usage and error, when, and after how
/// long.
struct Outcome {
    status: Option<u16>,
    usage: Value,
    error: Option<String>,
    ts_end: String,
    latency_ms: u64,
}

/// The message of an error answer: the provider's `error.message` (or
/// `message`), else the start of the body.
fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .or_else(|| v.get("message"))
                .or_else(|| v.get("error").filter(|e| e.is_string()))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| text.chars().take(300).collect())
}

/// One exchange being recorded.
struct Record {
    shared: Arc<Shared>,
    keys: Vec<String>,
    upstream: String,
    /// The client's credentials, for counting on the same upstream; never
    /// recorded.
    auth: reqwest::header::HeaderMap,
    /// The answer, once known.
    outcome: Option<Outcome>,
    /// The parts as a llama.cpp upstream counted them.
    counted: Option<Value>,
    /// The response's cache diagnostics (Anthropic's `diagnostics`).
    diagnostics: Value,
    ts_start: String,
    endpoint: String,
    /// The request body as it came (parsed only off the client's path).
    request: Bytes,
    started: Instant,
    stream: bool,
    /// Its line is in the capture.
    written: std::sync::atomic::AtomicBool,
}

/// A client that leaves before the answer drops the exchange's future (and
/// with it the upstream request): the exchange is still recorded.
impl Drop for Record {
    fn drop(&mut self) {
        if self.outcome.is_some() {
            // Answered; the proxy stopped while the parts were counted.
            self.finish();
        } else if !self.written.load(std::sync::atomic::Ordering::Relaxed) {
            self.write(self.outcome(
                None,
                Value::Null,
                Some(
                    "the client disconnected before the answer: the upstream request was cancelled"
                        .into(),
                ),
            ));
        }
    }
}

impl Record {
    /// Records the outcome once it is known.
    fn finish(&mut self) {
        if let Some(o) = self.outcome.take() {
            self.write(o);
        }
    }

    /// The outcome now.
    fn outcome(&self, status: Option<u16>, usage: Value, error: Option<String>) -> Outcome {
        Outcome {
            status,
            usage,
            error,
            ts_end: crate::now_rfc3339(),
            latency_ms: self.started.elapsed().as_millis() as u64,
        }
    }

    fn clean(&self, text: &str) -> String {
        let refs: Vec<&str> = self.keys.iter().map(String::as_str).collect();
        guard::clean(&guard::redact(text, &refs), guard::MAX_MESSAGE_CHARS)
    }

    /// Appends the exchange's line in one write (a crash loses at most the
    /// exchange in flight).
    fn write(&self, o: Outcome) {
        if self
            .written
            .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            return;
        }
        let id = {
            let mut s = self.shared.seq.lock().unwrap_or_else(|e| e.into_inner());
            *s += 1;
            *s
        };
        let refs: Vec<&str> = self.keys.iter().map(String::as_str).collect();
        let (request, model) = recorded_request(&self.request, &refs);
        let mut usage = o.usage;
        redact_value(&mut usage, &refs);
        let mut head = json!({
            "schema": 1,
            "id": format!("{}-{id}", self.ts_start),
            "ts_start": self.ts_start,
            "ts_end": o.ts_end,
            "endpoint": self.endpoint,
            "model": model,
            "status": o.status,
            "stream": self.stream,
            "usage": usage,
            "latency_ms": o.latency_ms,
            "error": o.error,
        });
        if let Some(c) = &self.counted {
            head["counted"] = c.clone();
        }
        if !self.diagnostics.is_null() {
            let mut d = self.diagnostics.clone();
            redact_value(&mut d, &refs);
            head["diagnostics"] = d;
        }
        // The request goes in as it came (redacted, on one line), not
        // parsed and printed again; what the upstream sent (usage, error)
        // is redacted too.
        let mut line = head.to_string();
        line.pop();
        line.push_str(",\"request\":");
        line.push_str(&request);
        line.push('}');
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        let mut f = self
            .shared
            .capture
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Err(e) = f.write_all(&bytes)
            && !self
                .shared
                .write_failed
                .swap(true, std::sync::atomic::Ordering::Relaxed)
        {
            eprintln!(
                "prompt-inspector proxy: cannot write the capture {}: {e}; exchanges are forwarded but not recorded",
                self.shared.cfg.capture.display()
            );
        }
    }
}

/// A request body as a capture records it: the body verbatim, any key in it
/// redacted, on one line (line breaks outside JSON strings are whitespace);
/// `null` when it is not a JSON object. With the request's model.
fn recorded_request(body: &[u8], keys: &[&str]) -> (String, Value) {
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default)]
        model: Value,
    }
    let Ok(text) = std::str::from_utf8(body) else {
        return ("null".into(), Value::Null);
    };
    // A key spelled with JSON escapes (`\u0073k-…`) is not in the raw text:
    // such a body is parsed and printed plainly first.
    let text = if escapes_ascii(text) {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => std::borrow::Cow::Owned(v.to_string()),
            Err(_) => return ("null".into(), Value::Null),
        }
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let mut redacted = guard::redact(&text, keys);
    if redacted.contains(['\n', '\r']) {
        redacted = redacted.replace(['\n', '\r'], " ");
    }
    match serde_json::from_str::<Head>(&redacted) {
        Ok(h) => (redacted, h.model),
        // Redaction can only break the JSON where a key's fragment matched
        // outside a string (digits in a number): redact the strings of the
        // parsed body instead.
        Err(_) => match serde_json::from_str::<Value>(&text) {
            Ok(mut v) if v.is_object() => {
                redact_value(&mut v, keys);
                let model = v["model"].clone();
                (v.to_string(), model)
            }
            _ => ("null".into(), Value::Null),
        },
    }
}

/// Redacts every string (and object key) in `v`; numbers cannot hold a
/// key's text and are left as they are.
fn redact_value(v: &mut Value, keys: &[&str]) {
    if keys.is_empty() {
        return;
    }
    match v {
        Value::String(s) => *s = guard::redact(s, keys),
        Value::Array(a) => a.iter_mut().for_each(|x| redact_value(x, keys)),
        Value::Object(o) => {
            let entries = std::mem::take(o);
            for (k, mut x) in entries {
                redact_value(&mut x, keys);
                o.insert(guard::redact(&k, keys), x);
            }
        }
        _ => {}
    }
}

/// Whether `text` has a JSON escape of a printable ASCII character
/// (`\u0020`–`\u007f`), the only escapes a key's characters could hide in.
fn escapes_ascii(text: &str) -> bool {
    text.match_indices("\\u00").any(|(i, _)| {
        let b = text.as_bytes();
        matches!(b.get(i + 4), Some(b'2'..=b'7')) && b.get(i + 5).is_some_and(u8::is_ascii_hexdigit)
    })
}

/// The root of an upstream (where a llama.cpp server answers `/tokenize`).
fn root(upstream: &str) -> &str {
    upstream.trim_end_matches('/').trim_end_matches("/v1")
}

/// Whether `upstream` is a llama.cpp server: asked once it has answered
/// (a vendor's public API is never asked). None when it cannot be told now.
async fn is_llama(record: &Record) -> bool {
    let up = &record.upstream;
    if [super::ANTHROPIC_BASE, super::OPENAI_BASE].contains(&root(up)) {
        return false;
    }
    if let Some(&known) = record
        .shared
        .llama
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(up)
    {
        return known;
    }
    let answer = tokenize(record, "hi").await;
    let known = match answer {
        Ok(Some(_)) => Some(true),
        Ok(None) => Some(false),
        Err(()) => None,
    };
    if let Some(k) = known {
        record
            .shared
            .llama
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(up.clone(), k);
    }
    known.unwrap_or(false)
}

/// The number of tokens of `text` by the upstream's `/tokenize`: Ok(None)
/// when it answered but is not a tokenizer, Err when it did not answer.
/// Asked again once if the connection failed (a server may close a
/// kept-alive connection just as it is reused; counting is idempotent).
async fn tokenize(record: &Record, text: &str) -> Result<Option<usize>, ()> {
    match tokenize_once(record, text).await {
        Err(()) => tokenize_once(record, text).await,
        answer => answer,
    }
}

async fn tokenize_once(record: &Record, text: &str) -> Result<Option<usize>, ()> {
    let resp = record
        .shared
        .client
        .post(format!("{}/tokenize", root(&record.upstream)))
        .headers(record.auth.clone())
        .timeout(COUNT_TIMEOUT)
        .json(&json!({"content": text, "add_special": false, "parse_special": true}))
        .send()
        .await
        .map_err(|_| ())?;
    if !resp.status().is_success() {
        return Ok(None);
    }
    let body = resp.bytes().await.map_err(|_| ())?;
    Ok(serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v["tokens"].as_array().map(Vec::len)))
}

/// Each part of the request (in the order the Traffic views list them)
/// counted by a llama.cpp upstream's own tokenizer; None when the upstream
/// is not one, or did not count every part.
async fn count_parts(record: &Record) -> Option<Value> {
    let request: Value = serde_json::from_slice(&record.request).ok()?;
    if !request.is_object() || !is_llama(record).await {
        return None;
    }
    let positions = crate::engine::traffic::positions(&request);
    if positions.len() > MAX_COUNTED_PARTS {
        return None;
    }
    let mut parts = Vec::with_capacity(positions.len());
    for (_, text, _) in &positions {
        let key = (
            record.upstream.clone(),
            xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
        );
        let memo = record
            .shared
            .counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .copied();
        let n = match memo {
            Some(n) => n,
            None if text.is_empty() => 0,
            None => {
                let n = tokenize(record, text).await.ok()??;
                let mut memo = record
                    .shared
                    .counts
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                if memo.len() >= MAX_MEMO {
                    memo.clear();
                }
                memo.insert(key, n);
                n
            }
        };
        parts.push(n);
    }
    Some(json!({
        "by": format!("llama.cpp server at {}", guard::mask_url(root(&record.upstream))),
        "parts": parts,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-ant-api03-RECORDED-never-0123456789";

    #[test]
    fn a_request_is_recorded_verbatim_on_one_line_without_its_key() {
        let body = format!(
            "{{\n  \"model\": \"claude-sonnet-4-6\",\n  \"messages\": [{{\"role\": \"user\", \"content\": \"my key is {KEY}\"}}]\n}}"
        );
        let (line, model) = recorded_request(body.as_bytes(), &[KEY]);
        assert_eq!(model, "claude-sonnet-4-6");
        assert!(!line.contains('\n') && !line.contains("RECORDED"), "{line}");
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["messages"][0]["content"], "my key is [REDACTED]");
        // Spacing as the client sent it.
        assert!(line.starts_with("{   \"model\": \"claude"), "{line}");
    }

    #[test]
    fn a_key_hidden_in_json_escapes_is_redacted_too() {
        let escaped: String = KEY
            .chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect();
        let body = format!(
            "{{\"model\":\"m\",\"messages\":[{{\"role\":\"user\",\"content\":\"{escaped}\"}}]}}"
        );
        assert!(escapes_ascii(&body));
        let (line, _) = recorded_request(body.as_bytes(), &[KEY]);
        assert!(
            !line.contains("RECORDED") && line.contains("[REDACTED]"),
            "{line}"
        );
        // Escapes of other characters (what Python's json.dumps writes for
        // any non-ASCII text) keep the body verbatim.
        assert!(!escapes_ascii(
            r#"{"content":"\u4e2d\u6587 \u00e9 \u001b"}"#
        ));
    }

    #[test]
    fn a_key_that_matches_digits_of_a_number_still_leaves_valid_json() {
        let key = "sk-123456789012";
        let body = format!(
            r#"{{"model":"m","max_tokens":1234567890,"messages":[{{"role":"user","content":"{key}"}}]}}"#
        );
        let (line, model) = recorded_request(body.as_bytes(), &[key]);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(model, "m");
        assert_eq!(v["max_tokens"], 1234567890);
        assert_eq!(v["messages"][0]["content"], "[REDACTED]");
        let mut usage =
            serde_json::json!({"input_tokens": 5, "note": format!("echo {key}"), key: 1});
        redact_value(&mut usage, &[key]);
        assert!(!usage.to_string().contains("3456789"), "{usage}");
    }

    #[test]
    fn what_is_not_a_json_object_is_recorded_as_null() {
        assert_eq!(recorded_request(b"not json", &[KEY]).0, "null");
        assert_eq!(recorded_request(&[0xff, 0xfe], &[KEY]).0, "null");
        assert_eq!(recorded_request(b"[1,2]", &[KEY]).0, "null");
    }

    #[test]
    fn the_end_of_a_stream_is_its_last_event_even_split_across_chunks() {
        let mut tail = Vec::new();
        assert!(!stream_ended(
            &mut tail,
            b"event: message_delta\ndata: {}\n\nevent: message_st"
        ));
        assert!(stream_ended(
            &mut tail,
            b"op\ndata: {\"type\":\"message_stop\"}\n\n"
        ));
        let mut tail = Vec::new();
        assert!(!stream_ended(&mut tail, b"data: {\"choices\":[]}\n\n"));
        assert!(stream_ended(&mut tail, b"data: [DONE]\n\n"));
        // A stop mentioned in text is not the end.
        let mut tail = Vec::new();
        assert!(!stream_ended(
            &mut tail,
            b"data: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"message_stop\"}}\n\ndata: {\"type\":\"ping\"}\n\n"
        ));
    }
}
