//! `prompt-inspector context`: the context window as the agent fills it, in
//! the manner of Claude Code's `/context` (its categories for an agent
//! folder, the agent's own parts included; the layers for any other).

use std::process::ExitCode;

use super::{Common, Format, fail, inspect, out, out_json};
use crate::engine::assembly::{context, context_views};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// text to read, json for scripts (with its `schema` number), markdown for a pull request or an issue
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(a: Args) -> ExitCode {
    let (ins, counter, _) = match inspect(&a.common) {
        Ok(x) => x,
        Err(e) => return fail(&e),
    };
    let u = context::usage(&ins, &counter);
    // What the reading found (a memory file skipped as binary, not UTF-8,
    // too big or outside the folder), as `render` says it: a file left out
    // is not a quiet 0. The typed ones (another release, the home memory)
    // the view says itself.
    for d in ins.diagnostics().iter().filter(|d| d.about.is_none()) {
        super::say(&format!("{d}"));
    }
    match a.format {
        Format::Json => out_json(&context_views::to_json(&u)),
        Format::Text => out(&context_views::to_text(&u)),
        Format::Markdown => out(&context_views::to_markdown(&u)),
    }
    ExitCode::SUCCESS
}
