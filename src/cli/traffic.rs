//! `prompt-inspector traffic FILE`: an agent's real requests (a capture of
//! the recording proxy, or a Claude Code session transcript) with the usage
//! reported, and the reason for every request that wrote or missed the cache.

use std::path::PathBuf;
use std::process::ExitCode;

use super::{Format, fail, out, out_json};
use crate::engine::ModelTable;
use crate::engine::traffic;

/// Largest traffic file read.
const MAX_BYTES: u64 = 256 * 1024 * 1024;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A capture (JSON lines) or a Claude Code transcript
    /// (~/.claude/projects/PROJECT/SESSION.jsonl).
    pub file: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(a: Args) -> ExitCode {
    let table = match ModelTable::load() {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let text = match crate::engine::workspace::reader::read_text_file(&a.file, MAX_BYTES) {
        Ok(t) => t,
        Err(e) => return fail(&e),
    };
    let t = match traffic::analyze_text(&text, &table) {
        Ok(t) => t,
        Err(e) => return fail(&format!("{}: {e}", a.file.display())),
    };
    match a.format {
        Format::Json => out_json(&traffic::to_json(&t)),
        Format::Text | Format::Markdown => out(&traffic::to_text(&t)),
    }
    ExitCode::SUCCESS
}
