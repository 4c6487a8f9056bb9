//! The command line: the headless views of the same engine the window uses.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::engine::{self, ModelTable, Options, TokenCounter, report};

#[derive(Parser, Debug)]
#[command(
    name = "prompt-inspector",
    version,
    about = "See, tune and test how an agent's layered system prompt is assembled, trimmed and cached.",
    long_about = "With no argument, or a folder, opens the window. The subcommands are the headless views of the same engine.",
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
}

impl Common {
    pub fn options(&self) -> Options {
        Options {
            session: self.session.clone(),
            model: self.model.clone(),
            budget_total: self.budget,
            debug_markers: self.debug_markers,
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The assembly report: layers, fragments with status and reason, totals.
    Report {
        #[command(flatten)]
        common: Common,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Exit 1 when a layer overflows or a fragment is dropped or truncated.
        #[arg(long)]
        check: bool,
    },
    /// The system blocks as the model receives them.
    Render {
        #[command(flatten)]
        common: Common,
        /// Print the full Anthropic Messages request body instead.
        #[arg(long)]
        request_json: bool,
    },
    /// Send the session's requests to a provider and compare real cache usage with the prediction.
    Send(crate::cli_send::SendArgs),
    /// Save a snapshot of the assembled session (default: WORKSPACE/.prompt-inspector/snapshots/).
    Snapshot {
        #[command(flatten)]
        common: Common,
        /// Where to write it.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Diff two prompts: snapshot files or WORKSPACE@SESSION (assembled live).
    /// Exit 0 when identical, 1 when different, 2 on error.
    Diff {
        a: String,
        b: String,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Predict prompt-cache reads, writes and cost over the session's requests.
    Predict {
        #[command(flatten)]
        common: Common,
        /// anthropic, openai or prefix (a llama.cpp-style server); the model's by default.
        #[arg(long)]
        provider: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
}

/// Exit code 2 with a one-line reason.
pub fn fail(msg: &str) -> ExitCode {
    eprintln!("prompt-inspector: {msg}");
    ExitCode::from(2)
}

pub fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

pub fn inspect(common: &Common) -> Result<(engine::Inspection, TokenCounter, ModelTable), String> {
    let table = ModelTable::load()?;
    let counter = TokenCounter::new();
    let ins = engine::inspect(&common.workspace, &common.options(), &table, &counter)?;
    Ok((ins, counter, table))
}

pub fn run(command: Command) -> ExitCode {
    match command {
        Command::Report {
            common,
            format,
            check,
        } => {
            let (ins, _, _) = match inspect(&common) {
                Ok(x) => x,
                Err(e) => return fail(&e),
            };
            match format {
                Format::Json => out(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&report::to_json(&ins)).unwrap_or_default()
                )),
                Format::Text => out(&report::to_text(&ins)),
                Format::Markdown => out(&report::to_markdown(&ins)),
            }
            if check {
                let failures = report::check_failures(&ins.assembly);
                if !failures.is_empty() {
                    eprintln!("budget check failed:");
                    for f in failures {
                        eprintln!("  {f}");
                    }
                    return ExitCode::from(1);
                }
            }
            ExitCode::SUCCESS
        }
        Command::Send(args) => crate::cli_send::run(args),
        Command::Snapshot { common, output } => {
            let (ins, counter, _) = match inspect(&common) {
                Ok(x) => x,
                Err(e) => return fail(&e),
            };
            let snap = engine::snapshot::Snapshot::take(&ins, &counter);
            let saved = match output {
                Some(path) => snap
                    .save(&path)
                    .map(|()| path.clone())
                    .map_err(|e| format!("cannot write {}: {e}", path.display())),
                None => snap.save_new(&ins.workspace.root),
            };
            match saved {
                Ok(path) => {
                    out(&format!("{}\n", path.display()));
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e),
            }
        }
        Command::Diff { a, b, format } => {
            let table = match ModelTable::load() {
                Ok(t) => t,
                Err(e) => return fail(&e),
            };
            let counter = TokenCounter::new();
            let side = |arg: &str| -> Result<engine::snapshot::Snapshot, String> {
                let (dir, session) = match arg.rsplit_once('@') {
                    Some((d, s)) if std::path::Path::new(d).is_dir() => {
                        (Some(d), Some(s.to_string()))
                    }
                    _ if std::path::Path::new(arg).is_dir() => (Some(arg), None),
                    _ => (None, None),
                };
                match dir {
                    Some(d) => {
                        let opts = Options {
                            session,
                            ..Options::default()
                        };
                        let ins =
                            engine::inspect(std::path::Path::new(d), &opts, &table, &counter)?;
                        Ok(engine::snapshot::Snapshot::take(&ins, &counter))
                    }
                    None => engine::snapshot::Snapshot::load(std::path::Path::new(arg)),
                }
            };
            let (sa, sb) = match (side(&a), side(&b)) {
                (Ok(x), Ok(y)) => (x, y),
                (Err(e), _) | (_, Err(e)) => return fail(&e),
            };
            let d = engine::diff::diff(&sa, &sb, &a, &b);
            match format {
                Format::Text => out(&engine::diff::to_text(&d)),
                Format::Json => out(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&engine::diff::to_json(&d)).unwrap_or_default()
                )),
                Format::Markdown => out(&engine::diff::to_markdown(&d)),
            }
            if d.identical {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Command::Predict {
            common,
            provider,
            format,
        } => {
            let provider = match provider.as_deref().map(|p| (p, engine::Provider::parse(p))) {
                None => None,
                Some((_, Some(p))) => Some(p),
                Some((p, None)) => {
                    return fail(&format!(
                        "unknown provider '{p}' (anthropic, openai or prefix)"
                    ));
                }
            };
            let (ins, counter, _) = match inspect(&common) {
                Ok(x) => x,
                Err(e) => return fail(&e),
            };
            let p = engine::prediction::predict(&ins, provider, &counter);
            match format {
                Format::Json => out(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&engine::prediction::to_json(&p))
                        .unwrap_or_default()
                )),
                Format::Text | Format::Markdown => out(&engine::prediction::to_text(&p)),
            }
            ExitCode::SUCCESS
        }
        Command::Render {
            common,
            request_json,
        } => {
            let (ins, _, _) = match inspect(&common) {
                Ok(x) => x,
                Err(e) => return fail(&e),
            };
            if request_json {
                let session = ins.session();
                let messages = session
                    .requests
                    .first()
                    .map(|r| session.messages[..r.messages].to_vec())
                    .unwrap_or_else(|| {
                        vec![engine::session::Message::text(
                            engine::session::Role::User,
                            "Hello",
                        )]
                    });
                let s = &ins.workspace.settings;
                let body = engine::request::anthropic_body(
                    &ins.assembly,
                    &ins.assembly.model,
                    &messages,
                    1,
                    s.cache_tools,
                    s.history.message_breakpoint,
                );
                out(&format!(
                    "{}\n",
                    serde_json::to_string_pretty(&body).unwrap_or_default()
                ));
            } else {
                out(&report::render_blocks(&ins.assembly));
            }
            for d in ins.diagnostics() {
                eprintln!("{d}");
            }
            ExitCode::SUCCESS
        }
    }
}
