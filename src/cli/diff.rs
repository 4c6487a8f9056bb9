//! `prompt-inspector diff`: two prompts (snapshot files or WORKSPACE@SESSION
//! assembled live) side by side. Exit 0 when identical, 1 when different,
//! 2 on error.

use std::process::ExitCode;

use super::{Format, fail, out, out_json};
use crate::engine::TokenCounter;
use crate::engine::compare::{diff, diff_report};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The old side: a snapshot file (`snapshot` writes one) or
    /// WORKSPACE@SESSION, assembled now
    pub a: String,
    /// The new side, the same way
    pub b: String,
    /// text to read, json for scripts (with its `schema` number), markdown for a pull request or an issue
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// For a WORKSPACE@SESSION side: the folder the agent runs in (Claude
    /// Code, Codex, Gemini CLI, Pi, OpenCode), as `report --workdir`.
    #[arg(long)]
    pub workdir: Option<String>,
}

pub fn run(a: Args) -> ExitCode {
    let table = match crate::model_table() {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let counter = TokenCounter::new();
    // An error names the side it is about (`a@nosession: no session
    // named …`) unless it starts with its folder already.
    let side = |arg: &str| {
        super::snapshot::side(arg, a.workdir.as_deref(), &table, &counter).map_err(|e| {
            let e = e.to_string();
            let folder = arg.rsplit_once('@').map_or(arg, |(f, _)| f);
            if e.starts_with(folder) {
                e
            } else {
                format!("{}: {e}", crate::engine::clean(arg, 300))
            }
        })
    };
    let (sa, sb) = match (side(&a.a), side(&a.b)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => return fail(&e),
    };
    let minimum = table.resolve(Some(&sb.model)).min_cacheable_tokens;
    let d = diff::diff(&sa, &sb, (&a.a, &a.b), minimum);
    match a.format {
        Format::Text => out(&diff_report::to_text(&d)),
        Format::Json => out_json(&diff_report::to_json(&d)),
        Format::Markdown => out(&diff_report::to_markdown(&d)),
    }
    if d.identical {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
