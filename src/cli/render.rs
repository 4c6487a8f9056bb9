//! `prompt-inspector render`: the system blocks as the model receives them.

use std::process::ExitCode;

use super::{Common, fail, inspect, out, out_json};
use crate::engine::assembly::report;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Print the whole request body instead, as the agent's API takes it
    /// (Anthropic Messages; Gemini's `generateContent` for a Gemini CLI
    /// folder; OpenAI Responses, as Codex writes it, for a Codex folder).
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
    // Where the agent's own parts (the blocks "from …") come from: the
    // user's observed request or the bundled recording, with its release.
    // (A session of another release in the folder is a diagnostic.)
    if let Some(b) = &ins.workspace.builtin {
        let whence = match &b.observed {
            Some(_) => b.provenance(),
            None => "the recording bundled with this tool".to_string(),
        };
        super::say(&format!("the agent's own parts: {}, {whence}", b.source()));
    }
    for d in ins.diagnostics() {
        super::say(&format!("{d}"));
    }
    ExitCode::SUCCESS
}
