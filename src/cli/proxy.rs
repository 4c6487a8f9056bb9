//! `prompt-inspector proxy [WORKSPACE]`: a local recording proxy. Point the
//! agent's base URL at it; every exchange is forwarded and recorded in a
//! capture for `traffic`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::fail;
use crate::net::proxy::{Limits, ProxyConfig, serve};
use crate::net::{ANTHROPIC_BASE, OPENAI_BASE};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A workspace: the capture goes under WORKSPACE/.prompt-inspector/captures/.
    pub workspace: Option<PathBuf>,
    /// Where to listen (loopback by default; another address is a warning).
    #[arg(long, default_value = "127.0.0.1:8788")]
    pub listen: SocketAddr,
    #[arg(long, default_value = ANTHROPIC_BASE)]
    pub anthropic_upstream: String,
    #[arg(long, default_value = OPENAI_BASE)]
    pub openai_upstream: String,
    /// The capture file (JSON lines, appended).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Forward keys over plain HTTP to an upstream that is not this machine.
    #[arg(long)]
    pub allow_insecure_http: bool,
    /// Seconds to wait for the upstream between two bytes of its answer.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
    /// MiB of request bodies held at once; beyond it a request gets a 503.
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
}

fn capture_path(a: &Args) -> Result<PathBuf, String> {
    match &a.output {
        Some(p) => Ok(p.clone()),
        None => crate::net::proxy::default_capture(a.workspace.as_deref(), crate::unix_now()),
    }
}

pub fn run(a: Args) -> ExitCode {
    if !a.listen.ip().is_loopback() {
        super::say(&format!(
            "prompt-inspector: warning: listening on {}, reachable from other machines: anyone who reaches it can spend your keys",
            a.listen
        ));
    }
    for (flag, url) in [
        ("--anthropic-upstream", &a.anthropic_upstream),
        ("--openai-upstream", &a.openai_upstream),
    ] {
        if url.starts_with("http://")
            && let Err(e) = crate::net::guard::check_transport(url, true, a.allow_insecure_http)
        {
            super::say(&format!(
                "prompt-inspector: warning: {flag}: {e}; requests without a key are forwarded"
            ));
        }
    }
    let capture = match capture_path(&a) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    let cfg = ProxyConfig {
        listen: a.listen,
        anthropic_upstream: a.anthropic_upstream.clone(),
        openai_upstream: a.openai_upstream.clone(),
        capture: capture.clone(),
        allow_insecure_http: a.allow_insecure_http,
        timeout: Duration::from_secs(a.timeout.max(1)),
        limits: Limits {
            in_flight_bytes: a.max_in_flight_mib.clamp(1, 1 << 20) << 20,
            header_timeout: Duration::from_secs(a.header_timeout.max(1)),
            body_timeout: Duration::from_secs(a.body_timeout.max(1)),
            max_connections: a.max_connections.max(1),
        },
        recorded: None,
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    let (_stop, stop_rx) = tokio::sync::watch::channel(false);
    let result = rt.block_on(async move {
        let server = tokio::spawn(serve(cfg, ready_tx, stop_rx));
        if let Ok(addr) = ready_rx.await {
            super::out(&format!(
                "prompt-inspector proxy on http://{addr}, recording to {}\nexport ANTHROPIC_BASE_URL=http://{addr}\nexport OPENAI_BASE_URL=http://{addr}/v1\n",
                capture.display()
            ));
        }
        server.await.map_err(|e| e.to_string())?
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    }
}
