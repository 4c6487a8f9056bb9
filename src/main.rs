//! The binary: with no argument or a folder, the window ([`prompt_inspector::ui::run`]);
//! otherwise the subcommand ([`prompt_inspector::cli::run`]).

use std::process::ExitCode;

use clap::Parser;
use prompt_inspector::cli::{self, Cli};

fn main() -> ExitCode {
    let args = Cli::parse();
    match args.command {
        Some(cmd) => cli::run(cmd),
        None => match prompt_inspector::ui::run(args.path) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => cli::fail(&e),
        },
    }
}
