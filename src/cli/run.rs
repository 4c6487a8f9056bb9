//! `prompt-inspector run AGENT [-- ARGS…]`: the agent the user names,
//! started with its base URL pointed at a recording proxy on a free
//! loopback port; the proxy stops when the agent exits, and the capture is
//! explained at once (`traffic`). One command where there were four in two
//! shells. The agent's program is the user's own (found on PATH, or
//! `--program`); nothing from a workspace is run.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::net::proxy::{Limits, ProxyConfig, serve};
use crate::net::{ANTHROPIC_BASE, GEMINI_BASE, OPENAI_BASE};

use super::capture_made::MadeForCapture;
use super::run_files::{self, RunFiles};
use super::{fail, out_report, say};

/// The agents `run` knows how to point at the proxy.
#[derive(Debug, Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum RunAgent {
    /// Claude Code (`claude`): ANTHROPIC_BASE_URL.
    Claude,
    /// Codex CLI (`codex`): its OpenAI base URL (`-c openai_base_url`, and
    /// OPENAI_BASE_URL for older releases).
    Codex,
    /// Gemini CLI (`gemini`): GOOGLE_GEMINI_BASE_URL (with an API key:
    /// GEMINI_API_KEY, and `security.auth.selectedType: "gemini-api-key"`
    /// in ~/.gemini/settings.json).
    Gemini,
    /// Pi (`pi`, npm `@mariozechner/pi-coding-agent`): it ignores
    /// ANTHROPIC_BASE_URL, so a one-run extension (`-e`, a file in the
    /// temporary folder, removed when Pi exits) points its Anthropic and
    /// OpenAI providers at the proxy; ~/.pi is not touched.
    Pi,
    /// OpenCode (`opencode`, npm `opencode-ai`): ANTHROPIC_BASE_URL and
    /// OPENAI_BASE_URL (with `/v1`), which its bundled providers read.
    Opencode,
    /// OpenClaw (`openclaw`): it ignores ANTHROPIC_BASE_URL, so a one-run
    /// config (OPENCLAW_CONFIG_PATH) includes the user's own and sets the
    /// Anthropic provider's base URL; the user's config is not written.
    /// Its `agent --local` runs reach the proxy (a Gateway's runs do not).
    Openclaw,
}

impl RunAgent {
    fn program(self) -> &'static str {
        match self {
            RunAgent::Claude => "claude",
            RunAgent::Codex => "codex",
            RunAgent::Gemini => "gemini",
            RunAgent::Pi => "pi",
            RunAgent::Opencode => "opencode",
            RunAgent::Openclaw => "openclaw",
        }
    }

    fn name(self) -> &'static str {
        match self {
            RunAgent::Claude => "Claude Code",
            RunAgent::Codex => "Codex CLI",
            RunAgent::Gemini => "Gemini CLI",
            RunAgent::Pi => "Pi",
            RunAgent::Opencode => "OpenCode",
            RunAgent::Openclaw => "OpenClaw",
        }
    }

    /// The environment that points the agent at `base` (the proxy), and
    /// the arguments put before the user's.
    fn pointed_at(self, base: &str) -> (Vec<(&'static str, String)>, Vec<String>) {
        match self {
            RunAgent::Claude => (vec![("ANTHROPIC_BASE_URL", base.to_string())], vec![]),
            RunAgent::Codex => (
                vec![("OPENAI_BASE_URL", format!("{base}/v1"))],
                vec!["-c".into(), format!("openai_base_url=\"{base}/v1\"")],
            ),
            RunAgent::Gemini => (vec![("GOOGLE_GEMINI_BASE_URL", base.to_string())], vec![]),
            // The extension's path is put first by `start_agent`.
            RunAgent::Pi => (vec![], vec![]),
            RunAgent::Opencode => (
                vec![
                    ("ANTHROPIC_BASE_URL", format!("{base}/v1")),
                    ("OPENAI_BASE_URL", format!("{base}/v1")),
                ],
                vec![],
            ),
            // Its config is written by `start_agent`; its OpenAI provider
            // reads OPENAI_BASE_URL when the config sets none.
            RunAgent::Openclaw => (vec![("OPENAI_BASE_URL", format!("{base}/v1"))], vec![]),
        }
    }

    /// The npm package that installs the agent.
    fn package(self) -> &'static str {
        match self {
            RunAgent::Claude => "@anthropic-ai/claude-code",
            RunAgent::Codex => "@openai/codex",
            RunAgent::Gemini => "@google/gemini-cli",
            RunAgent::Pi => "@mariozechner/pi-coding-agent",
            RunAgent::Opencode => "opencode-ai",
            RunAgent::Openclaw => "openclaw",
        }
    }
}

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  prompt-inspector run claude -- -p \"What files are here?\"\n  prompt-inspector run codex -- exec \"Fix the failing test\"\n  prompt-inspector run gemini -- -p \"Summarise README.md\"\n  prompt-inspector run pi -- -p \"What files are here?\"\n  prompt-inspector run opencode -- run \"What files are here?\"\n  prompt-inspector run openclaw -- agent --local --agent main --message \"What files are here?\"\n  prompt-inspector run claude --window        the window's Traffic tab follows Claude Code live"
)]
pub struct Args {
    /// The agent to start.
    #[arg(value_enum)]
    pub agent: RunAgent,
    /// The agent's own arguments, after `--`.
    #[arg(last = true)]
    pub args: Vec<String>,
    /// The agent's program (default: claude, codex, gemini, pi, opencode or
    /// openclaw on PATH).
    #[arg(long)]
    pub program: Option<PathBuf>,
    /// The capture file (default: .prompt-inspector/captures/ of the
    /// current folder).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[arg(long, default_value = ANTHROPIC_BASE)]
    pub anthropic_upstream: String,
    #[arg(long, default_value = OPENAI_BASE)]
    pub openai_upstream: String,
    #[arg(long, default_value = GEMINI_BASE)]
    pub gemini_upstream: String,
    /// Forward keys over plain HTTP to an upstream that is not this machine.
    #[arg(long)]
    pub allow_insecure_http: bool,
    /// Record only: no explanation printed when the agent exits.
    #[arg(long)]
    pub quiet: bool,
    /// Open the window on the current folder, its Traffic tab following
    /// the agent's requests as they happen (the agent keeps the terminal);
    /// the capture is explained here when the window closes.
    #[arg(long)]
    pub window: bool,
}

pub fn run(a: Args) -> ExitCode {
    // Only what this run makes for its capture is removed when nothing
    // reached it.
    let here = std::env::current_dir().ok();
    let made = MadeForCapture::before(a.output.as_deref(), here.as_deref());
    let capture = match &a.output {
        Some(p) => p.clone(),
        None => match here
            .ok_or_else(|| "the current folder is unreadable".to_string())
            .and_then(|d| {
                crate::net::proxy::default_capture(Some(&d), crate::unix_now())
                    .map_err(String::from)
            }) {
            Ok(p) => p,
            Err(e) => return fail(format!("no capture file: {e}")),
        },
    };
    let cfg = proxy_config(&a, capture.clone());
    if a.window {
        return run_in_window(a, cfg, &made);
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let server = rt.spawn(serve(cfg, ready_tx, stop_rx));
    let addr = match rt.block_on(ready_rx) {
        Ok(addr) => addr,
        Err(_) => {
            let e = rt
                .block_on(server)
                .map_err(|e| e.to_string())
                .and_then(|r| r.map_err(String::from))
                .err()
                .unwrap_or_else(|| "the proxy did not start".into());
            return fail(&e);
        }
    };
    let status = start_agent(&a, &format!("http://{addr}"), &rt);
    let _ = stop.send(true);
    let stopped = rt.block_on(server);
    if let Ok(Err(e)) | Err(e) = stopped
        .map_err(|e| e.to_string())
        .map(|r| r.map_err(String::from))
    {
        say(&format!("prompt-inspector run: the proxy: {e}"));
    }
    let code = match status {
        Ok(c) => c,
        Err(e) => {
            made.remove_if_empty(&capture);
            return fail(&e);
        }
    };
    explain(&capture, a.quiet, &made);
    ExitCode::from(code)
}

/// Starts the agent pointed at `base` and waits for it; its exit code
/// (128 + the signal's number when a signal ended it). Ctrl-C goes to the
/// agent (it is in the terminal's process group); this process waits for
/// it to end, then stops the proxy.
fn start_agent(a: &Args, base: &str, rt: &tokio::runtime::Runtime) -> Result<u8, String> {
    say(&format!(
        "prompt-inspector run: {} through the recording proxy on {base}",
        a.agent.name()
    ));
    let (mut child, _files) = spawn_agent(a, base)?;
    // The terminal's Ctrl-C reaches the agent too: here it is caught (a
    // caught signal is not inherited), so the capture is still explained.
    let _guard = rt.enter();
    let interrupts = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
    let status = child.wait().map_err(|e| e.to_string())?;
    drop(interrupts);
    use std::os::unix::process::ExitStatusExt;
    Ok(match (status.code(), status.signal()) {
        (Some(c), _) => c.clamp(0, 255) as u8,
        (None, Some(s)) => (128 + s).clamp(0, 255) as u8,
        _ => 1,
    })
}

/// The agent started pointed at `base`, with the files of its run (kept
/// until it exits).
fn spawn_agent(a: &Args, base: &str) -> Result<(std::process::Child, RunFiles), String> {
    let program = a
        .program
        .clone()
        .unwrap_or_else(|| PathBuf::from(a.agent.program()));
    let (mut env, mut before) = a.agent.pointed_at(base);
    // This run's own files (removed when the agent exits).
    let files = RunFiles::new()?;
    match a.agent {
        RunAgent::Pi => {
            let x = run_files::pi_extension(&files, base)?;
            before.splice(0..0, ["-e".to_string(), x.display().to_string()]);
        }
        RunAgent::Openclaw => {
            let user = run_files::openclaw_config_path(|k| std::env::var(k).ok());
            env.extend(run_files::openclaw_config(&files, base, user.as_deref())?);
        }
        _ => {}
    }
    let mut cmd = std::process::Command::new(&program);
    cmd.args(&before).args(&a.args);
    for (k, v) in &env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().map_err(|e| match &a.program {
        Some(_) => format!(
            "cannot start {} ({e}): --program names no program that runs here (install the agent with npm install -g {}, or name its path)",
            program.display(),
            a.agent.package()
        ),
        None => format!(
            "cannot start {} ({e}): install it (npm install -g {}), or name its program with --program PATH",
            program.display(),
            a.agent.package()
        ),
    })?;
    Ok((child, files))
}

/// The proxy of a run: on a free loopback port, to the upstreams of `a`,
/// recording into `capture`.
pub fn proxy_config(a: &Args, capture: PathBuf) -> ProxyConfig {
    ProxyConfig {
        listen: "127.0.0.1:0".parse().expect("a loopback address"),
        anthropic_upstream: a.anthropic_upstream.clone(),
        openai_upstream: a.openai_upstream.clone(),
        gemini_upstream: a.gemini_upstream.clone(),
        capture,
        allow_insecure_http: a.allow_insecure_http,
        timeout: Duration::from_secs(600),
        limits: Limits::default(),
        recorded: None,
        otlp: None,
        // The agent has the terminal.
        log_exchanges: false,
    }
}

/// What the window is handed for `run --window`: the proxy `cfg` and the
/// agent of `a`, started pointed at it once it listens.
pub fn live_run(a: Args, cfg: ProxyConfig) -> crate::ui::live_run::LiveRun {
    let agent = a.agent.name().to_string();
    let launch: crate::ui::live_run::Launch = Box::new(move |addr| {
        let (child, files) = spawn_agent(&a, &format!("http://{addr}"))?;
        Ok(crate::ui::live_run::Started {
            child,
            keep: Box::new(files),
        })
    });
    crate::ui::live_run::LiveRun {
        agent,
        proxy: cfg,
        launch,
    }
}

/// `run --window`: the window on the current folder runs the proxy and
/// starts the agent when it listens; the capture is explained here when
/// the window closes.
fn run_in_window(a: Args, cfg: ProxyConfig, made: &MadeForCapture) -> ExitCode {
    let (capture, quiet) = (cfg.capture.clone(), a.quiet);
    let live = live_run(a, cfg);
    let folder = std::env::current_dir().ok();
    if let Err(e) = crate::ui::run_with(folder, Some(live)) {
        // Nothing ran: no empty capture is left behind.
        made.remove_if_empty(&capture);
        return fail(format!(
            "{e}; or run the agent without --window, its capture explained here when it ends"
        ));
    }
    explain(&capture, quiet, made);
    ExitCode::SUCCESS
}

/// What was recorded, explained as `traffic` explains it.
fn explain(capture: &std::path::Path, quiet: bool, made: &MadeForCapture) {
    let n = std::fs::read(capture)
        .map(|b| b.iter().filter(|c| **c == b'\n').count())
        .unwrap_or(0);
    if n == 0 {
        made.remove_if_empty(capture);
        say("prompt-inspector run: the agent sent nothing through the proxy");
        return;
    }
    say(&format!(
        "prompt-inspector run: {} recorded to {}",
        crate::engine::plural(n, "exchange"),
        capture.display()
    ));
    if quiet {
        return;
    }
    let table = match crate::model_table() {
        Ok(t) => t,
        Err(e) => return say(&format!("prompt-inspector run: {e}")),
    };
    let counter = crate::engine::TokenCounter::new();
    match crate::engine::traffic::read(capture, &table, &counter) {
        Ok(t) => out_report(&crate::engine::traffic::to_text(&t, false)),
        Err(e) => say(&format!("prompt-inspector run: {e}")),
    }
    say(&format!(
        "prompt-inspector run: more with `prompt-inspector traffic {} --parts`, or open it in the window's Traffic tab",
        capture.display()
    ));
}
