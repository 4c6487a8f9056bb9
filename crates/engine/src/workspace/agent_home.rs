//! The agent's home around a folder: an agent's own folder opened as a
//! project (refused, saying what to open), and its user-level memory file
//! (`~/.claude/CLAUDE.md`): read once when the home is the folder opened,
//! said to be left out when it is there but not asked for.

use std::path::Path;

use crate::workspace::diag::Diagnostic;
use crate::workspace::{agent, agents, diag, profile, reader};

/// A folder that is an agent's own (`~/.claude`, a project's `.claude/`,
/// `~/.codex`, `~/.gemini`, `~/.pi/agent`, `~/.config/opencode`): its
/// settings and sessions, not a project; why, and what to open instead.
pub(super) fn agents_own_folder(root: &Path, home: Option<&Path>) -> Option<String> {
    let name = root.file_name()?.to_str()?;
    let parent = root.parent()?;
    let above = parent.file_name().and_then(|n| n.to_str()).unwrap_or("");
    // The agent, its program, its home memory, and how deep under the
    // home its folder is.
    let (agent, program, memory, depth) = match (above, name) {
        (_, ".claude") => ("Claude Code", "claude", "~/.claude/CLAUDE.md", 1),
        (_, ".codex") => ("Codex", "codex", "~/.codex/AGENTS.md", 1),
        (_, ".gemini") => ("Gemini CLI", "gemini", "~/.gemini/GEMINI.md", 1),
        (".pi", "agent") => ("Pi", "pi", "~/.pi/agent/AGENTS.md", 2),
        (".config", "opencode") => ("OpenCode", "opencode", "~/.config/opencode/AGENTS.md", 2),
        _ => return None,
    };
    // The home's: no project above it. A project's: the project is.
    let at_home = home
        .and_then(reader::canonical_path)
        .is_some_and(|h| root.ancestors().nth(depth) == Some(h.as_path()));
    let instead = if at_home {
        String::new()
    } else {
        format!(" ({} if this is a project's)", parent.display())
    };
    Some(format!(
        "{agent}'s own folder (its settings, not a project): open the folder you run `{program}` in{instead}, and add your {memory} with --user-memory"
    ))
}

/// The extras an agent's folder is read with: without its user-level
/// memory when that file lies `inside` the folder (the home opened as the
/// project: the file is the folder's own, read once as such).
pub(super) fn extras_for(
    extras: &agents::Extras,
    inside: bool,
) -> std::borrow::Cow<'_, agents::Extras> {
    if inside {
        std::borrow::Cow::Owned(agents::Extras {
            user_memory_home: None,
            ..extras.clone()
        })
    } else {
        std::borrow::Cow::Borrowed(extras)
    }
}

/// Whether the agent's user-level memory file lies inside the folder
/// opened (the home folder opened as a project).
pub(super) fn home_memory_inside(
    p: &profile::Profile,
    extras: &agents::Extras,
    root: &Path,
) -> bool {
    let (Some(home), Some(um)) = (
        extras.home.as_ref().or(extras.user_memory_home.as_ref()),
        &p.user_memory,
    ) else {
        return false;
    };
    reader::canonical_path(&home.join(&um.path)).is_some_and(|f| f.starts_with(root))
}

/// The agent's user-level memory file (`~/.claude/CLAUDE.md`), there in
/// the home folder but not read (no `--user-memory`): the agent sends it
/// with every request, so the picture says it leaves it out (not when it
/// lies `inside` the folder, which reads it as its own).
pub(super) fn user_memory_not_shown(
    p: &profile::Profile,
    extras: &agents::Extras,
    inside: bool,
) -> Option<Diagnostic> {
    if extras.user_memory_home.is_some() || inside {
        return None;
    }
    let home = extras.home.as_ref()?;
    let first = p.user_memory.as_ref()?.path.as_str();
    // OpenCode reads Claude Code's file when it has none of its own.
    let fallback = (p.kind == agent::Agent::OpenCode).then_some(agents::opencode::USER_FALLBACK);
    let file = std::iter::once(first)
        .chain(fallback)
        .find(|rel| reader::is_regular_file(&home.join(rel)));
    // Claude Code's rules in the home, sent with it (or alone).
    let rules = (p.kind == agent::Agent::ClaudeCode)
        .then_some(".claude/rules")
        .filter(|rel| reader::is_folder(&home.join(rel)));
    let (shown, what) = match (file, rules) {
        (Some(f), None) => (format!("~/{f}"), "this file".to_string()),
        (None, Some(r)) => (format!("~/{r}/"), "the rules in this folder".to_string()),
        (Some(f), Some(r)) => (
            format!("~/{f}"),
            format!("this file (and the rules in ~/{r}/)"),
        ),
        (None, None) => return None,
    };
    Some(
        Diagnostic::warning(
            shown,
            None,
            format!("the agent sends {what} with every request (your user-level memory); it is not in this picture: `--user-memory` adds it (in the window, \"Home memory\" under the profile)"),
        )
        .about(diag::About::UserMemoryNotAsked),
    )
}

/// The agent's user-level memory left out of the picture, and why: asked
/// for but unread (its loader said why), or there but not asked for (said
/// here, in `diags`).
pub(super) fn left_out(
    p: &profile::Profile,
    extras: &agents::Extras,
    inside: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<super::HomeMemoryLeftOut> {
    use super::{HomeMemoryLeftOut, LeftOut};
    if let Some(d) = user_memory_not_shown(p, extras, inside) {
        let file = d.file.clone();
        diags.push(d);
        return Some(HomeMemoryLeftOut {
            file,
            why: LeftOut::NotAsked,
        });
    }
    diags
        .iter()
        .find(|d| d.about == Some(super::diag::About::UserMemoryUnread))
        .map(|d| HomeMemoryLeftOut {
            file: d.file.clone(),
            why: LeftOut::Unreadable(d.message.clone()),
        })
}
