//! The binary: with no argument or a folder, the window ([`prompt_inspector::ui::run`]);
//! otherwise the subcommand ([`prompt_inspector::cli::run`]).

use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use prompt_inspector::cli::{self, Cli};

fn main() -> ExitCode {
    if let Some(e) = mistyped_command() {
        return cli::fail(&e);
    }
    let args = Cli::parse();
    match args.command {
        Some(cmd) => cli::run(cmd),
        None => match prompt_inspector::ui::run(args.path) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => cli::fail(&e),
        },
    }
}

/// A first argument that is neither an option, a path that exists nor a
/// command, but close to a command (`reprot`): said as such, with the
/// command meant, rather than taken for a folder to open.
fn mistyped_command() -> Option<String> {
    let first = std::env::args_os().nth(1)?;
    let first = first.to_str()?;
    if first.starts_with('-') || first.contains(['/', '.']) || std::path::Path::new(first).exists()
    {
        return None;
    }
    let commands: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|n| n != "help")
        .collect();
    if commands.iter().any(|c| c == first) {
        return None;
    }
    let nearest = commands
        .iter()
        .map(|c| (prompt_inspector::engine::edit_distance(c, first), c))
        .min()?;
    (nearest.0 <= 2).then(|| {
        format!(
            "'{first}' is no command and no folder here: did you mean `prompt-inspector {}`? (the commands: {})",
            nearest.1,
            commands.join(", ")
        )
    })
}
