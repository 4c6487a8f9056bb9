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
    after_help = "Examples:\n  prompt-inspector man --dir ~/.local/share/man/man1 && man prompt-inspector-traffic\n  prompt-inspector man > prompt-inspector.1"
)]
pub struct Man {
    /// One command's page (`traffic`), instead of the tool's.
    #[arg(conflicts_with = "dir")]
    pub command: Option<String>,
    /// Every page (the tool's and one per command, as
    /// prompt-inspector-COMMAND.1) written into this folder, made if
    /// missing, instead of printed.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
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
    if let Some(dir) = &a.dir {
        return match write_pages(cmd, dir) {
            Ok(n) => {
                super::say(&format!(
                    "prompt-inspector man: {n} pages written to {} (`man prompt-inspector`, `man prompt-inspector-traffic`…)",
                    dir.display()
                ));
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        };
    }
    let page = match &a.command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => command_page(sub),
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
    super::out(&roff_ascii(&buf));
    ExitCode::SUCCESS
}

/// One command's page: titled `prompt-inspector-COMMAND`, its synopsis
/// the command as typed (`prompt-inspector traffic`).
fn command_page(sub: &clap::Command) -> clap::Command {
    let name = sub.get_name().to_string();
    sub.clone()
        .display_name(format!("prompt-inspector-{name}"))
        .bin_name(format!("prompt-inspector {name}"))
}

/// A page with each character past ASCII as roff's `\[uXXXX]` escape
/// (an ellipsis in a help text made groff warn "invalid input character").
fn roff_ascii(page: &[u8]) -> String {
    let text = String::from_utf8_lossy(page);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
        }
    }
    out
}

/// Every page into `dir`: the tool's, and one per command but `help`;
/// how many. A page's file that is a link or not a regular file is
/// refused, not followed.
fn write_pages(cmd: clap::Command, dir: &std::path::Path) -> Result<usize, String> {
    if std::fs::symlink_metadata(dir).is_ok_and(|m| !m.is_dir()) {
        return Err(format!(
            "{}: not a folder (--dir names the folder the pages go in, man1/ of a manual path)",
            dir.display()
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot be made: {e}", dir.display()))?;
    let mut pages = vec![("prompt-inspector".to_string(), cmd.clone())];
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        pages.push((
            format!("prompt-inspector-{}", sub.get_name()),
            command_page(sub),
        ));
    }
    for (name, page) in &pages {
        let path = dir.join(format!("{name}.1"));
        if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
            return Err(format!(
                "{}: not a regular file (a link, a folder): refused",
                path.display()
            ));
        }
        let mut buf = Vec::new();
        clap_mangen::Man::new(page.clone())
            .render(&mut buf)
            .map_err(|e| format!("the manual page {name} could not be made: {e}"))?;
        std::fs::write(&path, roff_ascii(&buf)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(pages.len())
}
