//! `prompt-inspector proxy [WORKSPACE]`: a local recording proxy. Point the
//! agent's base URL at it; every exchange is forwarded and recorded in a
//! capture for `traffic`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use std::sync::Arc;

use super::fail;
use crate::net::otlp::{Exporter, Feed, OtlpConfig};
use crate::net::proxy::{Limits, ProxyConfig, serve};
use crate::net::{ANTHROPIC_BASE, GEMINI_BASE, OPENAI_BASE};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A workspace: the capture goes under WORKSPACE/.prompt-inspector/captures/.
    pub workspace: Option<PathBuf>,
    /// Where to listen: ADDRESS:PORT, localhost:PORT or PORT (on loopback;
    /// another address is a warning).
    #[arg(long, default_value = "127.0.0.1:8788", value_parser = listen_address)]
    pub listen: SocketAddr,
    #[arg(long, default_value = ANTHROPIC_BASE)]
    pub anthropic_upstream: String,
    #[arg(long, default_value = OPENAI_BASE)]
    pub openai_upstream: String,
    /// Where Gemini's `generateContent` requests go.
    #[arg(long, default_value = GEMINI_BASE)]
    pub gemini_upstream: String,
    /// The capture file (JSON lines, appended).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Forward keys over plain HTTP to an upstream that is not this machine.
    #[arg(long)]
    pub allow_insecure_http: bool,
    /// Seconds to wait for the upstream between two bytes of its answer.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
    /// MiB of request bodies (and copies of answers read for their usage)
    /// held at once; beyond it a request gets a 503.
    #[arg(long, default_value_t = 256)]
    pub max_in_flight_mib: usize,
    /// Seconds a client has to send a request's headers (and that an idle
    /// connection stays open).
    #[arg(long, default_value_t = 30)]
    pub header_timeout: u64,
    /// Seconds a request body may pause; after it, a body under 16 KiB/s
    /// on average is cut off (408).
    #[arg(long, default_value_t = 30)]
    pub body_timeout: u64,
    /// Client connections open at once (more wait to be accepted).
    #[arg(long, default_value_t = 512)]
    pub max_connections: usize,
    /// Seconds a write to a client may wait while the client reads none of
    /// its answer; then the connection closes and frees its slot.
    #[arg(long, default_value_t = 30)]
    pub write_timeout: u64,
    /// MiB of answered exchanges waiting to be recorded; beyond it new
    /// requests wait until the recording catches up (none is refused).
    #[arg(long, default_value_t = 2)]
    pub max_backlog_mib: usize,
    /// Export one OpenTelemetry span per exchange to this OTLP/HTTP
    /// collector (its base, `http://127.0.0.1:4318`, or its `/v1/traces`
    /// URL; default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, then
    /// OTEL_EXPORTER_OTLP_ENDPOINT). Plain HTTP only to this machine.
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,
    /// Put each request body in its span (`prompt_inspector.request.body`,
    /// redacted as in captures); without it no prompt text leaves.
    #[arg(long)]
    pub otlp_content: bool,
    /// No line per exchange on standard error while it runs.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `--listen`'s forms: `127.0.0.1:8788`, `[::1]:8788`, `localhost:8788`
/// (its loopback address) or a port alone (on 127.0.0.1).
pub fn listen_address(s: &str) -> Result<SocketAddr, String> {
    let s = s.trim();
    if let Ok(port) = s.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    if let Some(port) = s
        .strip_prefix("localhost:")
        .and_then(|p| p.parse::<u16>().ok())
    {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    Err(format!(
        "{s}: not a place to listen: give PORT, localhost:PORT or ADDRESS:PORT (127.0.0.1:8788)"
    ))
}

/// The OTLP feed the flags or the environment ask for (None: no export).
fn otlp_feed(a: &Args, capture: &std::path::Path) -> Result<Option<Arc<Feed>>, String> {
    let Some(endpoint) = super::otlp::endpoint(a.otlp_endpoint.as_deref()) else {
        return Ok(None);
    };
    let cfg = OtlpConfig {
        content: a.otlp_content,
        allow_insecure_http: a.allow_insecure_http,
        ..OtlpConfig::new(endpoint)
    };
    let exporter = Exporter::start(&cfg)?;
    let table = crate::model_table()?;
    let file = crate::engine::clean(&capture.display().to_string(), 1000);
    Ok(Some(Arc::new(Feed::start(exporter, table, file))))
}

/// Ctrl-C or SIGTERM, their handlers installed now (before the proxy says
/// where it listens: a signal sent as soon as that line is read stops it
/// cleanly, never by the default action).
fn stop_signal() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let (term, int) = (
        signal(SignalKind::terminate()).ok(),
        signal(SignalKind::interrupt()).ok(),
    );
    async move {
        let wait = |s: Option<tokio::signal::unix::Signal>| async move {
            match s {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = wait(int) => {}
            _ = wait(term) => {}
        }
    }
}

fn capture_path(a: &Args) -> Result<PathBuf, String> {
    match &a.output {
        Some(p) => Ok(p.clone()),
        None => crate::net::proxy::default_capture(a.workspace.as_deref(), crate::unix_now())
            .map_err(String::from),
    }
}

/// What the flags expose: a listening address off loopback, a plain-HTTP
/// upstream a key may not go to (said before the proxy starts).
fn warn_of_exposure(a: &Args) {
    if !a.listen.ip().is_loopback() {
        super::say(&format!(
            "prompt-inspector: warning: listening on {}, reachable from other machines: anyone who reaches it can spend your keys",
            a.listen
        ));
    }
    for (flag, url) in [
        ("--anthropic-upstream", &a.anthropic_upstream),
        ("--openai-upstream", &a.openai_upstream),
        ("--gemini-upstream", &a.gemini_upstream),
    ] {
        if url.starts_with("http://")
            && let Err(e) = crate::net::guard::check_transport(url, true, a.allow_insecure_http)
        {
            super::say(&format!(
                "prompt-inspector: warning: {flag}: {e}; requests without a key are forwarded"
            ));
        }
    }
}

/// The proxy's configuration from the flags.
fn config(a: &Args, capture: PathBuf, feed: Option<Arc<Feed>>) -> ProxyConfig {
    ProxyConfig {
        listen: a.listen,
        anthropic_upstream: a.anthropic_upstream.clone(),
        openai_upstream: a.openai_upstream.clone(),
        gemini_upstream: a.gemini_upstream.clone(),
        capture,
        allow_insecure_http: a.allow_insecure_http,
        timeout: Duration::from_secs(a.timeout.max(1)),
        limits: Limits {
            in_flight_bytes: a.max_in_flight_mib.clamp(1, 1 << 20) << 20,
            header_timeout: Duration::from_secs(a.header_timeout.max(1)),
            body_timeout: Duration::from_secs(a.body_timeout.max(1)),
            max_connections: a.max_connections.max(1),
            write_timeout: Duration::from_secs(a.write_timeout.max(1)),
            recording_backlog_bytes: a.max_backlog_mib.clamp(1, 1 << 20) << 20,
        },
        recorded: None,
        otlp: feed,
        log_exchanges: !a.quiet,
    }
}

pub fn run(a: Args) -> ExitCode {
    if let Some(ws) = &a.workspace
        && !ws.is_dir()
    {
        return fail(format!(
            "{} is not a folder: proxy takes a workspace folder (its captures go in WORKSPACE/.prompt-inspector/captures/); to name the capture file, use -o FILE",
            ws.display()
        ));
    }
    warn_of_exposure(&a);
    // A capture this run creates is removed again if no exchange reached
    // it (a port that was taken, a run with no agent): no empty files left
    // behind. One named with -o that exists is the user's and stays.
    let made =
        super::capture_made::MadeForCapture::before(a.output.as_deref(), a.workspace.as_deref());
    let capture = match capture_path(&a) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    if a.otlp_content && super::otlp::endpoint(a.otlp_endpoint.as_deref()).is_none() {
        return fail("--otlp-content needs an OTLP endpoint (--otlp-endpoint URL)");
    }
    let feed = match otlp_feed(&a, &capture) {
        Ok(f) => f,
        Err(e) => return fail(&e),
    };
    let cfg = config(&a, capture.clone(), feed.clone());
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let spans = feed.as_ref().map(|f| {
        format!(
            ", a span per exchange to {}",
            crate::net::guard::mask_url(f.endpoint())
        )
    });
    let shown = capture.clone();
    let result = rt.block_on(async move {
        let stopped = stop_signal();
        let mut server = tokio::spawn(serve(cfg, ready_tx, stop_rx));
        if let Ok(addr) = ready_rx.await {
            super::out(&format!(
                "prompt-inspector proxy on http://{addr}, recording to {}{}\nexport ANTHROPIC_BASE_URL=http://{addr}\nexport OPENAI_BASE_URL=http://{addr}/v1\nexport GOOGLE_GEMINI_BASE_URL=http://{addr}\n# Codex: codex -c 'openai_base_url=\"http://{addr}/v1\"' … (recent releases read no OPENAI_BASE_URL)\n# OpenCode: ANTHROPIC_BASE_URL=http://{addr}/v1 (its providers add no /v1)\n# Or, for one run with all of this set: prompt-inspector run AGENT -- ARGS\n",
                shown.display(),
                spans.unwrap_or_default()
            ));
        }
        tokio::select! {
            r = &mut server => r.map_err(|e| e.to_string())?.map_err(String::from),
            _ = stopped => {
                let _ = stop.send(true);
                server.await.map_err(|e| e.to_string())?.map_err(String::from)
            }
        }
    });
    stopped(feed.as_deref(), &capture, &made, result.is_ok());
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.contains("Address already in use") || e.contains("os error 98") => {
            fail(format!(
                "{} is taken (another proxy, or another program, listens there): pass --listen with another port (--listen 8789), or --listen 0 for any free one",
                a.listen
            ))
        }
        Err(e) => fail(&e),
    }
}

/// When the proxy has stopped: the spans still queued exported, and what
/// the capture holds said; a capture this run made that stayed empty
/// removed, with the folders made for it (`ok`: the proxy ran and stopped
/// as asked).
fn stopped(
    feed: Option<&crate::net::otlp::Feed>,
    capture: &std::path::Path,
    made: &super::capture_made::MadeForCapture,
    ok: bool,
) {
    if let Some(f) = feed {
        super::say(&format!(
            "prompt-inspector proxy: {}",
            f.finish().summary(f.endpoint())
        ));
    }
    let empty = std::fs::symlink_metadata(capture).is_ok_and(|m| m.is_file() && m.len() == 0);
    if !empty && ok {
        stopped_summary(capture);
    }
    if made.remove_if_empty(capture) && ok {
        super::say(&format!(
            "prompt-inspector proxy: no exchange recorded: {} not kept",
            capture.display()
        ));
    }
}

/// What the capture holds when the proxy stops, as `traffic` counts it.
fn stopped_summary(capture: &std::path::Path) {
    let Ok(table) = crate::model_table() else {
        return;
    };
    let counter = crate::engine::TokenCounter::new();
    if let Ok(t) = crate::engine::traffic::read(capture, &table, &counter) {
        super::say(&format!(
            "prompt-inspector proxy: stopped; {} in {}: {} (`prompt-inspector traffic {}` explains each)",
            crate::engine::plural(t.requests.len(), "request"),
            capture.display(),
            t.totals.headline(),
            capture.display()
        ));
    }
}
