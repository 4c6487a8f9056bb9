//! The command line: the headless views of the same engine the window uses.
//! One file per subcommand, over the shared arguments here.

pub mod agents;
mod capture_made;
pub mod completions;
pub mod context;
pub mod diff;
pub mod models;
pub mod otlp;
pub mod predict;
pub mod proxy;
pub mod render;
pub mod report;
pub mod run;
mod run_files;
pub mod send;
pub mod snapshot;
pub mod traffic;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::engine::{self, ModelTable, Options, TokenCounter};

#[derive(Parser, Debug)]
#[command(
    name = "prompt-inspector",
    version,
    about = "See what your LLM agent sends: its prompt assembled from your files, trimmed and cached, and its real requests with the reason for every cache miss.",
    long_about = "See what your LLM agent sends: its prompt assembled from your files (Claude Code, Codex, Gemini CLI, Pi, OpenCode, OpenClaw, or a layered workspace), trimmed and cached, and its real requests with the reason for every cache miss.\n\nWith no argument, or a folder, opens the window. The commands are the headless views of the same engine.",
    after_help = "Examples:\n  prompt-inspector ~/my-project                 open a folder in the window\n  prompt-inspector run claude -- -p \"hi\"        run Claude Code through the recording proxy, then explain its traffic\n  prompt-inspector context ~/my-project         the context window as the agent fills it\n  prompt-inspector traffic CAPTURE --parts      a capture or transcript explained, request by request\n  prompt-inspector report \"$(prompt-inspector sample)\"   the assembly report of the bundled sample\n\nEach command has its own --help.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Workspace folder to open in the window.
    pub path: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

/// The arguments every view of one workspace shares.
#[derive(clap::Args, Debug, Clone)]
pub struct Common {
    /// The workspace folder.
    pub workspace: PathBuf,
    /// Session (a file in sessions/); the first one by default.
    #[arg(long)]
    pub session: Option<String>,
    /// Model id from the model table (assets/models.json).
    #[arg(long)]
    pub model: Option<String>,
    /// Override the total token budget.
    #[arg(long)]
    pub budget: Option<u64>,
    /// Wrap every fragment in [[DEBUG:id]] … [[/DEBUG:id]].
    #[arg(long)]
    pub debug_markers: bool,
    /// Assemble as this agent does: layered, openclaw, claude-code, codex,
    /// gemini, pi or opencode (the newest version; NAME@VERSION for another:
    /// openclaw@2026.9, openclaw@2026.7, claude-code@2.1.332, claude-code@2.1,
    /// claude-code@2.0, codex@0.171, codex@0.169, gemini@0.61, pi@0.73,
    /// opencode@1.18; parts learned by `agents learn` as NAME@RELEASE).
    /// Default: `profile:` in workspace.yaml, else detected from the files.
    #[arg(long)]
    pub profile: Option<String>,
    /// OpenClaw: as on `/new`, with today's and yesterday's daily memory
    /// (memory/YYYY-MM-DD.md, dated in the host's time zone, `TZ`) as
    /// startup context.
    #[arg(long)]
    pub new_session: bool,
    /// Also the agent's user-level memory: Claude Code's ~/.claude/CLAUDE.md
    /// (with its imports), Codex's ~/.codex/AGENTS.md, Gemini CLI's
    /// ~/.gemini/GEMINI.md, Pi's ~/.pi/agent/AGENTS.md, OpenCode's
    /// ~/.config/opencode/AGENTS.md (else ~/.claude/CLAUDE.md).
    #[arg(long)]
    pub user_memory: bool,
    /// Claude Code, Codex, Gemini CLI, Pi or OpenCode: the folder the agent
    /// runs in, inside the workspace (its memory files of the folders on
    /// the way to it are sent, as each agent reads them).
    #[arg(long)]
    pub workdir: Option<String>,
    /// OpenClaw: the kind of session (subagent, cron, group; default the
    /// main session): the bootstrap files that kind gets.
    #[arg(long)]
    pub session_kind: Option<String>,
}

impl Common {
    pub fn options(&self) -> Options {
        crate::with_surroundings(Options {
            session: self.session.clone(),
            model: self.model.clone(),
            budget: None,
            budget_total: self.budget,
            debug_markers: self.debug_markers,
            profile: self.profile.clone(),
            caps: None,
            startup_days: if self.new_session {
                crate::today_and_yesterday()
            } else {
                Vec::new()
            },
            user_memory: self.user_memory,
            workdir: self.workdir.clone(),
            session_kind: self.session_kind.clone(),
            ..Options::default()
        })
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The assembly report: layers, fragments with status and reason, totals.
    Report(report::Args),
    /// The system blocks as the model receives them.
    Render(render::Args),
    /// The context window as the agent fills it (Claude Code's /context categories for an agent folder).
    Context(context::Args),
    /// Send the session's requests to a provider and compare real cache usage with the prediction.
    Send(send::SendArgs),
    /// Save a snapshot of the assembled session (default: WORKSPACE/.prompt-inspector/snapshots/).
    Snapshot(snapshot::Args),
    /// Diff two prompts: snapshot files or WORKSPACE@SESSION (assembled live).
    /// Exit 0 when identical, 1 when different, 2 on error.
    Diff(diff::Args),
    /// Predict prompt-cache reads, writes and cost over the session's requests.
    Predict(predict::Args),
    /// Explain the cache of real traffic: a capture, or an agent's own record
    /// (Claude Code, Codex, Gemini CLI or Pi transcripts, OpenCode's
    /// opencode.db).
    Traffic(traffic::Args),
    /// A local recording proxy for an agent's real traffic (writes a capture).
    Proxy(proxy::Args),
    /// The model table (prices, windows, lifecycle), and its refresh from LiteLLM.
    Models(models::Args),
    /// The agents' own parts the views use (bundled, or learned from your requests); `agents learn CAPTURE` learns them.
    Agents(agents::Args),
    /// Shell completions (bash, zsh, fish, elvish, powershell), printed.
    Completions(completions::Completions),
    /// The manual page (roff), printed; `man COMMAND` for one command's.
    Man(completions::Man),
    /// Start an agent (claude, codex, gemini, pi, opencode, openclaw) through the recording proxy and explain its traffic when it exits.
    Run(run::Args),
    /// The sample workspace's folder, printed (the copy inside the binary
    /// is written to your data folder the first time): `prompt-inspector
    /// report "$(prompt-inspector sample)"`.
    Sample,
    /// The examples inside the binary (the sample, Claude Code and OpenClaw
    /// folders, a capture, fleet queries), listed; `--copy DIR` writes them
    /// into DIR to open and edit.
    #[command(
        after_help = "Examples:\n  prompt-inspector examples\n  prompt-inspector examples --copy ~/prompt-inspector-examples\n  prompt-inspector context ~/prompt-inspector-examples/claude-code"
    )]
    Examples(ExamplesArgs),
}

#[derive(clap::Args, Debug)]
pub struct ExamplesArgs {
    /// Write every example into DIR/NAME/ (files already there are left as they are).
    #[arg(long, value_name = "DIR")]
    pub copy: Option<std::path::PathBuf>,
}

/// Exit code 2 with a one-line reason.
pub fn fail(msg: impl std::fmt::Display) -> ExitCode {
    say(&format!("prompt-inspector: {msg}"));
    ExitCode::from(2)
}

/// Text on standard output, with every string shaped like a provider's key
/// redacted (a transcript or a hand-made capture may hold one the proxy
/// never saw).
pub fn out(text: &str) {
    use std::io::IsTerminal;
    let mut o = std::io::stdout().lock();
    let text = crate::net::guard::redact_shapes(text);
    // On a terminal nothing in the text may drive it.
    let text = if o.is_terminal() {
        std::borrow::Cow::Owned(terminal_safe(&text))
    } else {
        text
    };
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

/// A report of text from outside (captures, transcripts, servers) on
/// standard output, its control characters made visible wherever it goes.
pub fn out_report(text: &str) {
    out(&terminal_safe(text))
}

pub use crate::engine::terminal_safe;

/// A line on standard error, through the one terminal-safe filter (a
/// diagnostic quotes files, servers and captures: none of it may drive the
/// terminal).
pub fn say(line: &str) {
    let mut e = std::io::stderr().lock();
    let line = crate::net::guard::redact_shapes(line);
    let _ = writeln!(e, "{}", terminal_safe(&line));
}

/// Standard output written as it is made, each line with the strings
/// shaped like a key redacted as [`out`] does (a key is on one line: JSON
/// escapes its line breaks).
pub struct RedactedLines<W: Write> {
    inner: W,
    line: Vec<u8>,
}

impl<W: Write> RedactedLines<W> {
    pub fn new(inner: W) -> Self {
        RedactedLines {
            inner,
            line: Vec::new(),
        }
    }

    fn write_line(&mut self) -> std::io::Result<()> {
        let text = String::from_utf8_lossy(&self.line);
        let r = self
            .inner
            .write_all(crate::net::guard::redact_shapes(&text).as_bytes());
        self.line.clear();
        r
    }
}

impl<W: Write> Write for RedactedLines<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for chunk in buf.split_inclusive(|&b| b == b'\n') {
            self.line.extend_from_slice(chunk);
            if chunk.ends_with(b"\n") {
                self.write_line()?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.line.is_empty() {
            self.write_line()?;
        }
        self.inner.flush()
    }
}

/// Pretty JSON and a newline on standard output.
pub fn out_json(v: &serde_json::Value) {
    out(&format!(
        "{}\n",
        serde_json::to_string_pretty(v).unwrap_or_default()
    ));
}

/// The one road, from the command line's arguments.
pub fn inspect(common: &Common) -> Result<(engine::Inspection, TokenCounter, ModelTable), String> {
    let table = crate::model_table()?;
    let counter = TokenCounter::new();
    let ins = engine::inspect(&common.workspace, &common.options(), &table, &counter)?;
    nothing_to_assemble(&ins)?;
    Ok((ins, counter, table))
}

/// A folder with nothing to assemble is no report: the sentence that says
/// what was found and which folder to pass instead, with what else the
/// reading found (a refused link, a file too big), as the failure.
fn nothing_to_assemble(ins: &engine::Inspection) -> Result<(), String> {
    use engine::workspace::diag::About;
    let diags = ins.diagnostics();
    let Some(nothing) = diags
        .iter()
        .find(|d| d.about == Some(About::NothingToAssemble))
    else {
        return Ok(());
    };
    let mut said = nothing.message.clone();
    for d in diags
        .iter()
        .filter(|d| d.about != Some(About::NothingToAssemble))
    {
        said += &format!("\n  {d}");
    }
    Err(said)
}

pub fn run(command: Command) -> ExitCode {
    // The commands that count tokens: o200k's tables (the encoding of
    // nearly every model in the table, Claude's estimate included) are
    // built on the other core while the folder is read and parsed, two
    // thirds of such a command's start. A model of another encoding
    // builds its own when it counts; these are then left unused.
    if matches!(
        command,
        Command::Report(_)
            | Command::Render(_)
            | Command::Context(_)
            | Command::Snapshot(_)
            | Command::Diff(_)
            | Command::Predict(_)
            | Command::Traffic(_)
            | Command::Send(_)
    ) {
        std::thread::spawn(|| engine::Encoding::O200kBase.counter());
    }
    match command {
        Command::Report(a) => report::run(a),
        Command::Render(a) => render::run(a),
        Command::Context(a) => context::run(a),
        Command::Send(a) => send::run(a),
        Command::Snapshot(a) => snapshot::run(a),
        Command::Diff(a) => diff::run(a),
        Command::Predict(a) => predict::run(a),
        Command::Traffic(a) => traffic::run(a),
        Command::Proxy(a) => proxy::run(a),
        Command::Models(a) => models::run(a),
        Command::Agents(a) => agents::run(a),
        Command::Completions(a) => completions::completions(a),
        Command::Man(a) => completions::man(a),
        Command::Sample => match crate::sample::ensure() {
            Ok(p) => {
                out(&format!("{}\n", p.display()));
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        },
        Command::Run(a) => run::run(a),
        Command::Examples(a) => match &a.copy {
            None => {
                out(&crate::examples::list());
                ExitCode::SUCCESS
            }
            Some(dir) => match crate::examples::copy_into(dir) {
                Ok(done) => {
                    out(&done);
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            },
        },
    }
}
