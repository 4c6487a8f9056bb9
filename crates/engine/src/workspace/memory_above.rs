//! Memory files above the folder opened. Claude Code, Codex, Gemini CLI,
//! Pi and OpenCode look for their memory files in the folders above the
//! one they run in as well, each up to its own ceiling, and send what they
//! find; this view reads only the folder opened. Each such file (or
//! Claude Code's folder of rules) is said, with how to count it: open the
//! farthest folder that holds one, with `--workdir` down to where the agent
//! runs and the same profile. Only names are looked at (through the
//! reader); nothing above the folder is opened.

use std::path::{Path, PathBuf};

use crate::workspace::agent::Agent;
use crate::workspace::agents::{on_the_way, opencode, pi};
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::Profile;
use crate::workspace::reader::{Ceiling, Reader};

/// One warning per memory file the agent would find above the folder,
/// the farthest first.
pub(super) fn said(
    p: &Profile,
    r: &Reader,
    workdir: Option<&str>,
    home: Option<&Path>,
) -> Vec<Diagnostic> {
    let rel = workdir.unwrap_or("");
    let Some(names) = names(p, r, rel) else {
        return Vec::new();
    };
    let (ceiling, how) = match p.kind {
        Agent::ClaudeCode => (Ceiling::BelowTop, "every folder above it"),
        Agent::Pi => (Ceiling::Top, "every folder above it"),
        Agent::OpenCode => (
            Ceiling::GitRootElseTop,
            "the folders above it up to its git repository's root, or every one outside a repository",
        ),
        _ => (
            Ceiling::GitRoot,
            "the folders above it up to its git repository's root",
        ),
    };
    // The user's own memory in the home (`~/.claude/CLAUDE.md`, its rules)
    // is `--user-memory`'s, not a folder's: nothing in the agent's home
    // folder is.
    let agent_home = home
        .zip(p.user_memory.as_ref())
        .and_then(|(h, u)| h.join(&u.path).parent().map(Path::to_path_buf));
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    // The names that are folders (no file is opened to tell).
    let folders: Vec<&str> = names.iter().filter_map(|n| n.strip_suffix('/')).collect();
    let mut found = r.files_above(rel, &names, ceiling);
    found.retain(|(_, f)| agent_home.as_ref().is_none_or(|h| !f.starts_with(h)));
    if matches!(p.kind, Agent::Codex | Agent::Pi) {
        first_in_each_folder(&mut found);
    }
    warnings(p, r, rel, &found, (&folders, how))
}

/// The warnings for the memory `found` above the folder (each with the
/// folder it is in; the farthest first): what the agent sends and how to
/// count it.
fn warnings(
    p: &Profile,
    r: &Reader,
    rel: &str,
    found: &[(PathBuf, PathBuf)],
    (folders, how): (&[&str], &str),
) -> Vec<Diagnostic> {
    let Some(top) = found.first().map(|(dir, _)| dir.clone()) else {
        return Vec::new();
    };
    let runs_in = if rel.is_empty() {
        r.root().to_path_buf()
    } else {
        r.root().join(rel)
    };
    let down = runs_in.strip_prefix(&top).map_or_else(
        |_| runs_in.display().to_string(),
        |d| d.display().to_string(),
    );
    let open = format!(
        "open {} with --workdir {} --profile {} to count it",
        shell_word(&top.display().to_string()),
        shell_word(&down),
        p.name
    );
    found
        .iter()
        .map(|(_, f)| {
            // A link out of the top folder is not followed from there.
            let remedy = if !Reader::lies_in(f, &top) {
                format!(
                    "it is a link out of {}, which this view does not follow, so it cannot count it",
                    top.display()
                )
            } else {
                open.clone()
            };
            let what = if folders.iter().any(|n| f.ends_with(n)) {
                "the rules in this folder"
            } else {
                "this file"
            };
            Diagnostic::warning(
                crate::clean(&f.display().to_string(), 1000),
                None,
                format!(
                    "{} sends {what} too when it runs in {} (it reads {how}): not counted \
                     here, where only the folder opened is read; {remedy}",
                    p.agent,
                    runs_in.display(),
                ),
            )
        })
        .collect()
}

/// The names the agent looks for in each folder above (a name ending in
/// `/` is a folder: Claude Code's rules); none for an agent that does not
/// look above.
fn names(p: &Profile, r: &Reader, rel: &str) -> Option<Vec<String>> {
    Some(match p.kind {
        Agent::ClaudeCode | Agent::Gemini => p
            .files
            .iter()
            .map(|f| {
                if f.rules {
                    format!("{}/", f.name)
                } else {
                    f.name.clone()
                }
            })
            .collect(),
        Agent::Codex => vec!["AGENTS.override.md".into(), "AGENTS.md".into()],
        Agent::Pi => pi::NAMES.iter().map(|n| n.to_string()).collect(),
        Agent::OpenCode => opencode_name(r, rel)
            .into_iter()
            .map(String::from)
            .collect(),
        Agent::OpenClaw | Agent::Layered => return None,
    })
}

/// Codex and Pi take one file per folder, the first of their names found.
fn first_in_each_folder(found: &mut Vec<(PathBuf, PathBuf)>) {
    let mut last: Option<PathBuf> = None;
    found.retain(|(dir, _)| {
        let first = Some(dir) != last.as_ref();
        last = Some(dir.clone());
        first
    });
}

/// OpenCode's one name: the first of its names with a file anywhere on its
/// way, in the folder or above it.
fn opencode_name(r: &Reader, rel: &str) -> Option<&'static str> {
    let mut inside = vec![String::new()];
    inside.extend(on_the_way(Some(rel)));
    opencode::NAMES.into_iter().find(|n| {
        inside
            .iter()
            .any(|d| r.exists(&Path::new(d).join(n).to_string_lossy()))
            || !r.files_above(rel, &[n], Ceiling::GitRootElseTop).is_empty()
    })
}

/// A path as a shell word: as it is when it holds nothing the shell reads
/// (letters, digits, `/._-+:@,%=`), else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@,%=".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
