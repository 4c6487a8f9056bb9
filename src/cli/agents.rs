//! `prompt-inspector agents`: the agents' own parts the views use (the
//! bundled recordings, and those learned from your own requests), `agents
//! learn CAPTURE --against FOLDER` to learn them from a recorded request,
//! and `agents forget NAME@RELEASE`. Learned parts are kept in your data
//! folder (`$XDG_DATA_HOME/prompt-inspector/agents/`), never in a
//! workspace, never with a key or a line of your files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Subcommand;

use super::{Format, fail, out, out_json};
use crate::engine::{self, TokenCounter};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  prompt-inspector agents                                       what each agent's parts are taken from\n  prompt-inspector agents learn capture.jsonl --against ~/proj  learn them from your own last request\n  prompt-inspector agents forget codex@0.172.0                  go back to the bundled recording"
)]
pub struct Args {
    #[command(subcommand)]
    pub action: Option<Action>,
    /// text to read, json for scripts (with its `schema` number), markdown for a pull request or an issue
    #[arg(long, value_enum, default_value = "text", global = true)]
    pub format: Format,
}

#[derive(Subcommand, Debug)]
pub enum Action {
    /// Learn an agent's own parts (system prompt, runtime context, tool
    /// definitions) from one of your recorded requests; the folder views
    /// then use them, labelled as observed.
    Learn(Learn),
    /// Forget a learned observation (NAME@RELEASE, as `agents` lists it).
    Forget {
        /// The observation's id.
        id: String,
    },
}

#[derive(clap::Args, Debug)]
pub struct Learn {
    /// A capture of `prompt-inspector proxy` (or `run`) holding the request.
    pub capture: PathBuf,
    /// Which request (1-based, as `traffic` numbers them); default: the
    /// last one with a recorded body.
    #[arg(long)]
    pub request: Option<usize>,
    /// The folder the agent ran in: its files (and your user-level memory)
    /// are left out of what is learned.
    #[arg(long, default_value = ".")]
    pub against: PathBuf,
    /// The agent and release that sent the request, when the request does
    /// not say (a capture made before the proxy kept the client's
    /// headers): AGENT@VERSION, `codex@0.169.0`.
    #[arg(long, value_name = "AGENT@VERSION")]
    pub release: Option<String>,
    /// Say what would be learned; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(a: Args) -> ExitCode {
    match a.action {
        None => list(a.format),
        Some(Action::Learn(l)) => learn(&l, a.format),
        Some(Action::Forget { id }) => forget(&id),
    }
}

fn list(format: Format) -> ExitCode {
    let dir = crate::observed_dir();
    let listed = crate::learn::rows(crate::profiles_dir().as_deref(), dir.as_deref());
    let ((parts, problems), table) = match (listed, crate::model_table()) {
        (Ok(l), Ok(t)) => (l, t),
        (Err(e), _) | (_, Err(e)) => return fail(e),
    };
    let counter = TokenCounter::new();
    let rows: Vec<serde_json::Value> = parts
        .iter()
        .map(|r| {
            let (bt, tt) = crate::learn::tokens(&r.parts, &table, &counter);
            serde_json::json!({
                "id": r.id,
                "agent": r.agent,
                "release": r.release,
                "source": r.source,
                "observed": r.file.is_some(),
                "default": r.default,
                "file": r.file.as_ref().map(|f| f.display().to_string()),
                "blocks": r.blocks,
                "block_tokens": bt,
                "tools": r.tools,
                "tool_tokens": tt,
            })
        })
        .collect();
    if format == Format::Json {
        out_json(&serde_json::json!({
            "schema": 1,
            "data_folder": dir.map(|d| d.display().to_string()),
            "agents": rows,
            "unreadable": problems,
        }));
        return ExitCode::SUCCESS;
    }
    out(&list_text(&rows, dir.as_deref(), &problems, format));
    ExitCode::SUCCESS
}

fn list_text(rows: &[serde_json::Value], dir: Option<&Path>, bad: &[String], f: Format) -> String {
    let md = f == Format::Markdown;
    let mut o = if md {
        "| agent parts | release | blocks | tools | source |\n|---|---|--:|--:|---|\n".to_string()
    } else {
        format!(
            "{:<24} {:<10} {:>18} {:>18}  source\n",
            "agent parts", "release", "blocks (tokens)", "tools (tokens)"
        )
    };
    for r in rows {
        let id = format!(
            "{}{}",
            r["id"].as_str().unwrap_or(""),
            if r["default"] == true { " *" } else { "" }
        );
        let n = |k: &str| engine::thousands(r[k].as_u64().unwrap_or(0));
        let blocks = format!("{} ({})", r["blocks"], n("block_tokens"));
        let tools = format!("{} ({})", r["tools"], n("tool_tokens"));
        let (rel, src) = (
            r["release"].as_str().unwrap_or(""),
            r["source"].as_str().unwrap_or(""),
        );
        o += &if md {
            format!("| {id} | {rel} | {blocks} | {tools} | {src} |\n")
        } else {
            format!("{id:<24} {rel:<10} {blocks:>18} {tools:>18}  {src}\n")
        };
    }
    o += "\n* the one each agent's folders use unless a profile is named (the newest observation, else the newest recording)\n";
    match dir {
        Some(d) => o += &format!("learned parts are kept in {}\n", d.display()),
        None => {
            o += "no data folder (neither XDG_DATA_HOME nor HOME is set): nothing can be learned\n"
        }
    }
    for b in bad {
        o += &format!("unreadable, not used: {b}\n");
    }
    o
}

fn learn(l: &Learn, format: Format) -> ExitCode {
    let keep_in = match (l.dry_run, crate::observed_dir()) {
        (true, _) => None,
        (false, None) => return fail("no data folder: set XDG_DATA_HOME or HOME"),
        (false, Some(dir)) => Some(dir),
    };
    let learned = match crate::learn::learn(
        &l.capture,
        l.request,
        &l.against,
        l.release.as_deref(),
        keep_in.as_deref(),
    ) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let ((bt, tt), saved) = (learned.tokens, learned.saved.clone());
    let b = &learned.parts;
    if format == Format::Json {
        out_json(&serde_json::json!({
            "schema": 1,
            "agent": b.agent,
            "release": b.release,
            "source": b.provenance(),
            "blocks": b.blocks.iter().map(|x| &x.name).collect::<Vec<_>>(),
            "block_tokens": bt,
            "tools": b.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            "tool_tokens": tt,
            "kept_from_recording": learned.kept,
            "saved": saved.as_ref().map(|p| p.display().to_string()),
        }));
        return ExitCode::SUCCESS;
    }
    let mut o = format!(
        "{} {}'s own parts, {}:\n  {} blocks ({} tokens): {}\n  {} tools ({} tokens)\n",
        if saved.is_some() {
            "learned"
        } else {
            "would learn"
        },
        b.source(),
        b.provenance(),
        b.blocks.len(),
        engine::thousands(bt),
        b.blocks
            .iter()
            .map(|x| x.name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        b.tools.len(),
        engine::thousands(tt),
    );
    for k in &learned.kept {
        o += &format!("  kept: {k}\n");
    }
    o += &match saved {
        Some(p) => format!(
            "saved to {}: the folder views of {} now use it (`agents forget {}` goes back)\n",
            p.display(),
            b.agent,
            crate::learn::id_of(b)
        ),
        None => "--dry-run: nothing written\n".into(),
    };
    out(&o);
    ExitCode::SUCCESS
}

fn forget(id: &str) -> ExitCode {
    let Some(dir) = crate::observed_dir() else {
        return fail("no data folder: set XDG_DATA_HOME or HOME");
    };
    match crate::learn::forget(&dir, id) {
        Ok((path, agent)) => {
            out(&format!(
                "forgot {id} ({}): {agent} is back to its bundled recording unless another observation is newer\n",
                path.display(),
            ));
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
