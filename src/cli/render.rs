//! `prompt-inspector render`: the system blocks as the model receives them.

use std::process::ExitCode;

use super::{Common, fail, inspect, out, out_json};
use crate::engine::assembly::report;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Print the whole request body instead, as the agent's API takes it
    /// (Anthropic Messages; Gemini's `generateContent` for a Gemini CLI folder).
    #[arg(long)]
    pub request_json: bool,
}

pub fn run(a: Args) -> ExitCode {
    let (ins, _, _) = match inspect(&a.common) {
        Ok(x) => x,
        Err(e) => return fail(&e),
    };
    if a.request_json {
        out_json(&ins.first_request_body());
    } else {
        out(&report::render_blocks(&ins.assembly));
    }
    for d in ins.diagnostics() {
        super::say(&format!("{d}"));
    }
    ExitCode::SUCCESS
}
