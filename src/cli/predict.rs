//! `prompt-inspector predict`: prompt-cache reads, writes and cost over the
//! session's requests, with the reason for every miss.

use std::process::ExitCode;

use super::{Common, Format, fail, inspect, out, out_json};
use crate::engine::Provider;
use crate::engine::cache::prediction;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// The caching rules to predict with: anthropic, openai, gemini or
    /// prefix (a llama.cpp-style server); the model's own by default (as
    /// `send --rules` and the window). `--provider` is an older name.
    #[arg(long = "rules", alias = "provider", value_name = "RULES")]
    pub provider: Option<String>,
    /// text to read, json for scripts (with its `schema` number), markdown for a pull request or an issue
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(a: Args) -> ExitCode {
    let provider = match a.provider.as_deref().map(|p| (p, Provider::parse(p))) {
        None => None,
        Some((_, Some(p))) => Some(p),
        Some((p, None)) => {
            return fail(format!(
                "unknown caching rules '{p}' (anthropic, openai, gemini or prefix)"
            ));
        }
    };
    let (ins, counter, _) = match inspect(&a.common) {
        Ok(x) => x,
        Err(e) => return fail(&e),
    };
    // What the prediction leaves out that the agent sends (the user's own
    // memory): said, as `report` and `context` say it.
    if let Some(note) = crate::engine::assembly::context::home_memory_not_counted(&ins) {
        super::say(&format!("note: {note}"));
    }
    let p = prediction::predict(&ins, provider, &counter);
    match a.format {
        Format::Json => out_json(&prediction::to_json(&p)),
        Format::Text => out(&prediction::to_text(&p)),
        Format::Markdown => out(&prediction::to_markdown(&p)),
    }
    ExitCode::SUCCESS
}
