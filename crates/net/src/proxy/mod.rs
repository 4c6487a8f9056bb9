//! The recording proxy: an agent points its base URL here; every request to
//! `/v1/messages`, `/v1/messages/count_tokens`, `/v1/chat/completions`,
//! `/v1/responses` or Gemini's `/v1beta/models/M:generateContent`
//! (`:streamGenerateContent`, `:countTokens`) is forwarded to its API's
//! upstream (hyper server, reqwest client), the
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

use crate::engine::error::Error;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use serde_json::Value;

use super::guard;
use shared::Shared;

mod answer;
mod count;
mod headers;
mod intake;
mod record;
mod shared;
mod stall;
mod upstream;

use answer::{StreamEnd, error_message, stream_error};
use count::count_parts;
use headers::{client_of, content_length, hop_by_hop, keys_of, split_headers};
use record::Record;
use upstream::{FORWARDED, Upstream, check_upstream, error_response, upstream_client};

/// Exchanges a follower of the capture may have waiting at once: past it
/// the proxy records on and the follower is told how many it missed.
pub const FEED_CAPACITY: usize = 256;

/// Largest request or recorded response body (as in the clients).
pub const MAX_BODY: usize = guard::MAX_BODY_BYTES;

#[derive(Debug, Clone)]
pub struct ProxyConfig {
    pub listen: SocketAddr,
    pub anthropic_upstream: String,
    pub openai_upstream: String,
    pub gemini_upstream: String,
    pub capture: PathBuf,
    /// Forward keys over plain HTTP to a host that is not this machine.
    pub allow_insecure_http: bool,
    /// Time to the first byte of the upstream's answer.
    pub timeout: Duration,
    /// What a client may hold of the proxy.
    pub limits: Limits,
    /// Who follows the capture (the window): each exchange is sent here as
    /// its line is written, in the file's order, while the channel (bounded:
    /// [`FEED_CAPACITY`]) has room; one that does not fit is left to the
    /// capture (the follower sees the gap in the lines' numbers).
    pub recorded: Option<tokio::sync::mpsc::Sender<crate::engine::traffic::CaptureLine>>,
    /// Where each exchange also goes as an OpenTelemetry span (handed over
    /// once its line is written, never waited for).
    pub otlp: Option<Arc<crate::otlp::Feed>>,
    /// One line per exchange on standard error as it is recorded (the
    /// command line's proxy; not the window's, not `run`'s).
    pub log_exchanges: bool,
}

/// What clients may hold of the proxy, whatever they send: memory, time
/// and connections are bounded, and beyond a bound a client gets a clear
/// answer while the proxy and every other exchange go on.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Bytes of request bodies (and of the copies of answers read for
    /// their usage) in flight at once; a request beyond it gets a 503.
    pub in_flight_bytes: usize,
    /// Time a client has to send a request's headers, and that an idle
    /// kept-alive connection stays open.
    pub header_timeout: Duration,
    /// Time a request body may pause between two chunks; after it, a body
    /// slower than [`MIN_BODY_RATE`] on average is cut off with a 408.
    pub body_timeout: Duration,
    /// Client connections open at once; more wait to be accepted.
    pub max_connections: usize,
    /// Time a write to a client may wait without progress (a client that
    /// does not read its answer); then the connection closes and its slot
    /// is free for the next client.
    pub write_timeout: Duration,
    /// Bytes of answered exchanges not yet recorded (their requests and
    /// the copies of their answers); past it, new requests wait until the
    /// recording catches up: a recording that falls behind slows clients
    /// instead of holding memory, and no exchange is dropped or refused.
    pub recording_backlog_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            in_flight_bytes: 256 << 20,
            header_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            max_connections: 512,
            write_timeout: Duration::from_secs(30),
            recording_backlog_bytes: 2 << 20,
        }
    }
}

/// The slowest average upload accepted once [`Limits::body_timeout`] has
/// passed (bytes per second).
pub const MIN_BODY_RATE: usize = 16 * 1024;

/// A new capture, created now (exclusively, 0600, under a name with a
/// random part): under WORKSPACE/.prompt-inspector/captures/ when there is a
/// workspace, else in the current directory. Returns its path.
pub fn default_capture(
    workspace: Option<&std::path::Path>,
    now: u64,
) -> Result<PathBuf, crate::engine::error::Error> {
    use crate::engine::workspace::store;
    let dir = match workspace {
        Some(ws) => store::state_dir(ws, &["captures"])?,
        None => PathBuf::from("."),
    };
    store::create_capture(&dir, now).map(|(_, p)| p)
}

type Body = BoxBody<Bytes, std::io::Error>;

/// Each upstream's base URL, checked: an http(s) URL with a host and
/// nothing after its path, and credentials in it (`Authorization: Basic`,
/// sent with every request, key or not) over plain HTTP only to this
/// machine.
fn bases(cfg: &ProxyConfig) -> Result<[reqwest::Url; 3], Error> {
    let base = |who: &str, url: &str| {
        let shown = guard::mask_url(url);
        let named = |e: String| Error::option(format!("the {who} upstream {shown}"), e);
        let u = check_upstream(url).map_err(|e| named(e.to_string()))?;
        guard::check_transport(url, false, cfg.allow_insecure_http)
            .map_err(|e| named(e.to_string()))?;
        Ok::<_, Error>(u)
    };
    Ok([
        base("Anthropic", &cfg.anthropic_upstream)?,
        base("OpenAI", &cfg.openai_upstream)?,
        base("Gemini", &cfg.gemini_upstream)?,
    ])
}

/// Runs the proxy until `shutdown` turns true; `ready` receives the bound
/// address (port 0 picks one).
pub async fn serve(
    cfg: ProxyConfig,
    ready: tokio::sync::oneshot::Sender<SocketAddr>,
    mut shutdown: tokio::sync::watch::Receiver<bool>,
) -> Result<(), Error> {
    let bases = bases(&cfg)?;
    // Captures hold whole prompts: a new one is readable by its owner
    // only; an existing one is appended only if it is a regular file of
    // this user (never through a link, never a FIFO).
    let file = crate::engine::workspace::store::open_append(&cfg.capture)
        .map_err(|e| Error::option("the capture", e.to_string()))?;
    let (client, key_refused) =
        upstream_client(&cfg).map_err(|e| Error::option("the upstream client", e.to_string()))?;
    let listener = tokio::net::TcpListener::bind(cfg.listen)
        .await
        .map_err(|e| Error::option(format!("cannot listen on {}", cfg.listen), e.to_string()))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::option("the listener", e.to_string()))?;
    let _ = ready.send(addr);
    let shared = Arc::new(Shared::new(cfg, bases, file, (client, key_refused)));
    let connections = Arc::new(tokio::sync::Semaphore::new(
        shared.cfg.limits.max_connections.max(1),
    ));
    loop {
        // At the connection limit, new clients wait in the listen backlog.
        let permit = tokio::select! {
            p = connections.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => return Ok(()),
            },
            _ = shutdown.changed() => {
                intake::drain(&shared).await;
                return Ok(());
            }
        };
        let (stream, _) = tokio::select! {
            r = listener.accept() => match r {
                Ok(x) => x,
                // Out of file descriptors (EMFILE) or another transient
                // error: back off instead of spinning on it.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = shutdown.changed() => {
                intake::drain(&shared).await;
                return Ok(());
            }
        };
        // Small writes (SSE events) go out at once: no Nagle delay.
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve_connection(shared.clone(), stream, permit));
    }
}

/// One client's connection, its requests handled in turn, holding its
/// place among the connections open until it closes.
async fn serve_connection(
    shared: Arc<Shared>,
    stream: tokio::net::TcpStream,
    _permit: tokio::sync::OwnedSemaphorePermit,
) {
    let header_timeout = shared.cfg.limits.header_timeout;
    let write_timeout = shared.cfg.limits.write_timeout;
    let io = hyper_util::rt::TokioIo::new(stall::StallGuard::new(stream, write_timeout));
    let svc = hyper::service::service_fn(move |req| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(handle(shared, req).await) }
    });
    // The header timeout also closes a kept-alive connection that stays
    // idle (hyper starts it when it waits for the next head).
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_timeout)
        .serve_connection(io, svc)
        .await;
}

fn full(b: impl Into<Bytes>) -> Body {
    Full::new(b.into()).map_err(|never| match never {}).boxed()
}

/// A path the proxy does not forward: a 404 in the shape of the API the
/// path looks like, naming what is forwarded.
fn not_forwarded(path: &str) -> Response<Body> {
    let shape = if path.contains(":") && path.contains("/models/") {
        Upstream::Gemini
    } else if path.starts_with("/v1/messages") {
        Upstream::Anthropic
    } else {
        Upstream::OpenAi
    };
    error_response(
        shape,
        StatusCode::NOT_FOUND,
        &format!(
            "prompt-inspector proxy: {} is not forwarded (only {})",
            crate::engine::clean(path, 200),
            FORWARDED.join(", ")
        ),
    )
}

async fn handle(shared: Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let path = req.uri().path().to_string();
    let Some(to) = Upstream::of_path(&path) else {
        return not_forwarded(&path);
    };
    let upstream = to.url(&shared.cfg);
    let keys = keys_of(&req);
    let client = client_of(&req);
    let request_headers = headers::recorded(req.headers());
    let refused = if keys.is_empty() {
        None
    } else {
        shared.key_refused[to as usize].clone()
    };
    // The upstream's base, parsed once, with this request's path and query.
    let mut url = shared.bases[to as usize].clone();
    let joined = format!("{}{path}", url.path().trim_end_matches('/'));
    url.set_path(&joined);
    url.set_query(req.uri().query());
    let method = req.method().clone();
    let (headers, auth) = split_headers(&req);
    let content_length = content_length(&req);
    // Behind a recording that lags, the request waits here, its body
    // still in the client's socket.
    intake::wait_for_recording(&shared).await;
    let (body, held) = match intake::read_body(&shared, req.into_body(), content_length).await {
        Ok(b) => b,
        Err((status, message)) => return error_response(to, status, &message),
    };
    let started = Instant::now();
    let ts_start = crate::clock::now_rfc3339();
    let secrets = keys
        .into_iter()
        .chain(shared.upstream_secrets[to as usize].iter().cloned())
        .collect();
    let record = Record {
        shared: shared.clone(),
        secrets,
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
        held,
        client,
        headers: crate::engine::traffic::Headers {
            request: request_headers,
            response: Vec::new(),
        },
        response: None,
    };
    // A key that may not go to this upstream: refused, and recorded.
    if let Some(e) = refused {
        let message = record.clean(&format!("prompt-inspector proxy: {e}"));
        record.write(record.outcome(
            Some(StatusCode::BAD_GATEWAY.as_u16()),
            Value::Null,
            Some(message.clone()),
        ));
        return error_response(to, StatusCode::BAD_GATEWAY, &message);
    }
    let sent = shared
        .client
        .request(method, url)
        .headers(headers)
        .body(body)
        .send()
        .await;
    match sent {
        Ok(resp) => relay(record, resp),
        Err(e) => upstream_failed(&record, upstream, to, &e),
    }
}

/// The upstream could not be reached or timed out: the exchange is
/// recorded with the reason, and the client gets it in its provider's shape.
fn upstream_failed(
    record: &Record,
    upstream: &str,
    to: Upstream,
    e: &reqwest::Error,
) -> Response<Body> {
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
    error_response(to, status, &message)
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
    record.headers.response = headers::recorded(resp.headers());
    record.stream = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/event-stream"));
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Frame<Bytes>, std::io::Error>>(16);
    tokio::spawn(async move {
        let (copy, error) = pass_on(&mut record, resp, tx).await;
        record_answer(record, status, location, copy, error).await;
    });
    let body = BodyExt::boxed(StreamBody::new(tokio_stream_from(rx)));
    builder
        .body(body)
        .unwrap_or_else(|_| Response::new(full("")))
}

/// Passes the upstream's answer on to the client chunk by chunk, keeping a
/// bounded copy to read the usage from. Returns the copy and what broke the
/// exchange (the upstream's stream, the client gone before the end). The
/// client's answer ends when this returns (`tx` dropped), not after the
/// recording.
async fn pass_on(
    record: &mut Record,
    resp: reqwest::Response,
    tx: tokio::sync::mpsc::Sender<Result<Frame<Bytes>, std::io::Error>>,
) -> (Vec<u8>, Option<String>) {
    let mut upstream = resp.bytes_stream();
    let mut copy: Vec<u8> = Vec::new();
    let mut error = None;
    // The stream's last event has been relayed: a client that closes
    // now has had the whole answer (SDKs close at `[DONE]`).
    let mut ended = false;
    let mut end = StreamEnd::default();
    const GONE: &str = "the client disconnected: the upstream request was cancelled";
    loop {
        // A client that goes away while the upstream is silent (a long
        // think, a stalled stream) cancels it at once, not at the next
        // chunk: dropping the stream closes the upstream connection.
        // The upstream first: a client that closes once it has the whole
        // answer (its length read) is not one that left early, and when
        // both are ready an unbiased choice would say so half the time.
        let chunk = tokio::select! {
            biased;
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
                // The copy read for the usage counts against the
                // in-flight budget too (past it, the answer still
                // streams; only its usage may go unread).
                if copy.len() + b.len() <= MAX_BODY && record.held.take(b.len()) {
                    copy.extend_from_slice(&b);
                }
                if record.stream {
                    ended = end.feed(&b);
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
    (copy, error)
}

/// Records an answer that has been passed on: its usage, diagnostics and
/// error read from the copy, the parts counted by a llama.cpp upstream.
async fn record_answer(
    mut record: Record,
    status: reqwest::StatusCode,
    location: Option<String>,
    copy: Vec<u8>,
    error: Option<String>,
) {
    // One recording per core at a time (the copy and the request stay
    // held, inside the in-flight budget, while this one waits).
    let shared = record.held.shared().clone();
    let _backlog = intake::Backlog::enter(&shared, record.request.len() + copy.len());
    let _turn = shared.recorders.acquire().await;
    let (mut usage, diagnostics) = answer::usage_and_diagnostics(&copy, record.stream);
    // `count_tokens` answers with its figure at the top level.
    if usage.is_null() && record.endpoint.ends_with("/count_tokens") {
        usage = serde_json::from_slice::<Value>(&copy)
            .ok()
            .filter(|v| v.get("input_tokens").is_some())
            .unwrap_or(Value::Null);
    }
    record.diagnostics = diagnostics;
    record.keep_response(&copy);
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
    // Redacting and writing a body is CPU work, about 0.1 ms for an
    // agent's 134 KB: done here, on the runtime's worker, since handing it
    // to a blocking thread and back costs over half as much again (two
    // thread wake-ups: 0.38-0.42 -> 0.31-0.35 ms of CPU per agent exchange
    // without them, same sitting). Only a body so large that its recording
    // would hold a worker (and the exchanges waiting on it) for long goes
    // off it.
    if record.request.len() > INLINE_RECORDING {
        let _ = tokio::task::spawn_blocking(move || record.finish()).await;
    } else {
        record.finish();
    }
}

/// Largest request recorded on the runtime's worker (about 0.2 ms of its
/// time); a larger one is recorded on a blocking thread.
const INLINE_RECORDING: usize = 256 * 1024;

fn tokio_stream_from(
    mut rx: tokio::sync::mpsc::Receiver<Result<Frame<Bytes>, std::io::Error>>,
) -> impl futures_util::Stream<Item = Result<Frame<Bytes>, std::io::Error>> {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}
