//! Memory files above the folder opened. Claude Code, Codex, Gemini CLI,
//! Pi and OpenCode look for their memory files in the folders above the
//! one they run in as well, each up to its own ceiling, and send what they
//! find; this view reads only the folder opened. Each such file is said,
//! with how to count it: open the farthest folder that holds one, with
//! `--workdir` down to where the agent runs. Only names are looked at
//! (through the reader); nothing above the folder is opened.

use std::path::{Path, PathBuf};

use crate::workspace::agent::Agent;
use crate::workspace::agents::{opencode, pi};
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
    let names: Vec<&str> = match p.kind {
        Agent::ClaudeCode | Agent::Gemini => p.files.iter().map(|f| f.name.as_str()).collect(),
        Agent::Codex => vec!["AGENTS.override.md", "AGENTS.md"],
        Agent::Pi => pi::NAMES.to_vec(),
        Agent::OpenCode => opencode_name(r, rel).into_iter().collect(),
        Agent::OpenClaw | Agent::Layered => return Vec::new(),
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
    // The user's own memory in the home (`~/.claude/CLAUDE.md`) is
    // `--user-memory`'s, not a folder's.
    let user_memory = home
        .zip(p.user_memory.as_ref())
        .map(|(h, u)| h.join(&u.path));
    let mut found = r.files_above(rel, &names, ceiling);
    found.retain(|f| Some(f) != user_memory.as_ref());
    if matches!(p.kind, Agent::Codex | Agent::Pi) {
        first_in_each_folder(&mut found);
    }
    let Some(top) = found.first().and_then(|f| f.parent()) else {
        return Vec::new();
    };
    let runs_in = if rel.is_empty() {
        r.root().to_path_buf()
    } else {
        r.root().join(rel)
    };
    let down = runs_in.strip_prefix(top).map_or_else(
        |_| runs_in.display().to_string(),
        |d| d.display().to_string(),
    );
    // Gemini CLI run below the folder opened is not modelled (its
    // `--workdir` is refused), so nothing yet counts the file for it.
    let remedy = if p.kind == Agent::Gemini {
        format!(
            "this view does not model {} running below the folder it opens, so it cannot count it",
            p.agent
        )
    } else {
        format!("open {} with --workdir {down} to count it", top.display())
    };
    found
        .iter()
        .map(|f| {
            Diagnostic::warning(
                f.display().to_string(),
                None,
                format!(
                    "{} sends this file too when it runs in {} (it reads {how}): not counted \
                     here, where only the folder opened is read; {remedy}",
                    p.agent,
                    runs_in.display(),
                ),
            )
        })
        .collect()
}

/// Codex and Pi take one file per folder, the first of their names found.
fn first_in_each_folder(found: &mut Vec<PathBuf>) {
    let mut last: Option<PathBuf> = None;
    found.retain(|f| {
        let dir = f.parent().map(Path::to_path_buf);
        let first = dir != last;
        last = dir;
        first
    });
}

/// OpenCode's one name: the first of its names with a file anywhere on its
/// way, in the folder or above it.
fn opencode_name(r: &Reader, rel: &str) -> Option<&'static str> {
    let mut inside = vec![String::new()];
    let mut at = String::new();
    for c in rel.split('/').filter(|c| !c.is_empty()) {
        at = if at.is_empty() {
            c.to_string()
        } else {
            format!("{at}/{c}")
        };
        inside.push(at.clone());
    }
    opencode::NAMES.into_iter().find(|n| {
        inside
            .iter()
            .any(|d| r.exists(&Path::new(d).join(n).to_string_lossy()))
            || !r.files_above(rel, &[n], Ceiling::GitRootElseTop).is_empty()
    })
}
