//! `prompt-inspector completions SHELL` and `prompt-inspector man`: the
//! shell completions and the manual page, made from the command line's own
//! definition (every command, flag and value it takes), printed to
//! standard output for the user to put where their shell or `man` looks.

use std::process::ExitCode;

use clap::CommandFactory;

use super::{Cli, fail};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  prompt-inspector completions bash > ~/.local/share/bash-completion/completions/prompt-inspector\n  prompt-inspector completions zsh > ~/.zfunc/_prompt-inspector\n  prompt-inspector completions fish > ~/.config/fish/completions/prompt-inspector.fish"
)]
pub struct Completions {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example:\n  prompt-inspector man > ~/.local/share/man/man1/prompt-inspector.1 && man prompt-inspector"
)]
pub struct Man {
    /// One command's page (`traffic`), instead of the tool's.
    pub command: Option<String>,
}

pub fn completions(a: Completions) -> ExitCode {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "prompt-inspector", &mut buf);
    let mut text = String::from_utf8_lossy(&buf).into_owned();
    if a.shell == clap_complete::Shell::Bash {
        // clap_complete 4.6 names a subcommand's case `prompt__subcmd__inspector…`
        // for a binary with a hyphen, where its loop sets
        // `prompt__inspector…`: no subcommand's flags would complete.
        text = text.replace("prompt__subcmd__inspector", "prompt__inspector");
    }
    super::out(&text);
    ExitCode::SUCCESS
}

pub fn man(a: Man) -> ExitCode {
    let cmd = Cli::command();
    let page = match &a.command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => sub.clone().display_name(format!("prompt-inspector-{name}")),
            None => {
                let known: Vec<String> = cmd
                    .get_subcommands()
                    .map(|s| s.get_name().to_string())
                    .collect();
                return fail(format!(
                    "no command '{name}' (commands: {})",
                    known.join(", ")
                ));
            }
        },
    };
    let mut buf = Vec::new();
    if let Err(e) = clap_mangen::Man::new(page).render(&mut buf) {
        return fail(format!("the manual page could not be made: {e}"));
    }
    super::out(&String::from_utf8_lossy(&buf));
    ExitCode::SUCCESS
}
