//! `prompt-inspector report`: layers, fragments with status and reason, totals.

use std::process::ExitCode;

use super::{Common, Format, fail, inspect, out, out_json};
use crate::engine::assembly::report;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// text to read, json for scripts (with its `schema` number), markdown for a pull request or an issue
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Exit 1 when a layer overflows or a fragment is dropped or truncated.
    #[arg(long)]
    pub check: bool,
}

pub fn run(a: Args) -> ExitCode {
    let (ins, _, _) = match inspect(&a.common) {
        Ok(x) => x,
        Err(e) => return fail(&e),
    };
    match a.format {
        Format::Json => out_json(&report::to_json(&ins)),
        Format::Text => out(&report::to_text(&ins)),
        Format::Markdown => out(&report::to_markdown(&ins)),
    }
    if a.check {
        let failures = report::check_failures(&ins.assembly);
        if !failures.is_empty() {
            super::say("budget check failed:");
            for f in failures {
                super::say(&format!("  {f}"));
            }
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}
