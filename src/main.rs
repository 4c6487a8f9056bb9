use std::process::ExitCode;

use clap::Parser;
use prompt_inspector::cli::{self, Cli};

fn main() -> ExitCode {
    let args = Cli::parse();
    match args.command {
        Some(cmd) => cli::run(cmd),
        None => {
            let path = args.path.unwrap_or_else(|| "sample-workspace".into());
            cli::run(cli::Command::Report {
                common: cli::Common {
                    workspace: path,
                    session: None,
                    model: None,
                    budget: None,
                    debug_markers: false,
                },
                format: cli::Format::Text,
                check: false,
            })
        }
    }
}
