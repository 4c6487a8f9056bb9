//! Pi's context files (profile `pi`): `~/.pi/agent/AGENTS.md` (with
//! `--user-memory`), then in the folder and in each folder down to where Pi
//! runs (`--workdir`) the first of AGENTS.md, AGENTS.MD, CLAUDE.md and
//! CLAUDE.MD, in that order, each as `## PATH` (absolute), a blank line and
//! its text as written, in Pi's one system block under its `# Project
//! Context` title (the profile's). Pi reads the folders above the
//! workspace's root as well; this view reads none outside it, and says so
//! when it runs below the root.

use super::Extras;
use super::codex::on_the_way;
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::Profile;
use crate::workspace::reader::{AgentFile, Reader};
use crate::workspace::sources::base;
use crate::workspace::types::{FragmentDef, FragmentKind};

/// The names Pi looks for in each folder, the first found taken.
pub(crate) const NAMES: [&str; 4] = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

pub fn load_pi(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let root = r.root().display().to_string();
    match extras.user_memory(p) {
        Some((shown, Ok(text))) => {
            let home = extras
                .user_memory_home
                .as_ref()
                .map_or(String::new(), |h| h.display().to_string());
            let abs = shown.replacen('~', &home, 1);
            r.agent_files.push(AgentFile {
                shown: shown.clone(),
                text: text.clone(),
                modified: None,
            });
            out.push(fragment("user.agents", 2000, &abs, &text, &shown));
        }
        Some((shown, Err(e))) => diags.push(Diagnostic::user_memory_unread(&shown, &e)),
        None => {}
    }
    let folders = std::iter::once(String::new()).chain(on_the_way(extras.workdir.as_deref()));
    for (i, dir) in folders.enumerate() {
        let in_dir = |n: &str| {
            if dir.is_empty() {
                n.to_string()
            } else {
                format!("{dir}/{n}")
            }
        };
        let Some(rel) = NAMES.iter().map(|n| in_dir(n)).find(|f| r.exists(f)) else {
            continue;
        };
        let Some(text) = r.read(&rel) else { continue };
        let id = if dir.is_empty() {
            "agents".to_string()
        } else {
            format!("agents.{}", dir.replace('/', "."))
        };
        let abs = format!("{root}/{rel}");
        out.push(fragment(&id, 1000 - i as i64, &abs, &text, &rel));
    }
}

/// One file as Pi writes it into its block: `## PATH`, a blank line, the
/// text as written (the block's separator, a blank line, follows it).
fn fragment(id: &str, priority: i64, abs: &str, text: &str, source: &str) -> FragmentDef {
    let heading = format!("## {abs}\n\n");
    let mut f = base(
        id.to_string(),
        2,
        priority,
        format!("{heading}{text}"),
        source,
        1,
        FragmentKind::Markdown,
    );
    f.interpolate = false;
    f.agent_words = crate::workspace::types::AgentWords::heading(heading.len());
    f
}
