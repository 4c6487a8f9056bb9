//! OpenCode's instruction files (profile `opencode`): with `--user-memory`
//! `~/.config/opencode/AGENTS.md` (else `~/.claude/CLAUDE.md`), then every
//! AGENTS.md from the folder OpenCode runs in (`--workdir`) up to the
//! workspace's root, the nearest first; when there is none, every
//! CLAUDE.md the same way, else every CONTEXT.md. Each is `Instructions
//! from: PATH` (absolute) and its text as written, in OpenCode's one system
//! block after its `<env>` block. (OpenCode walks up to its worktree's
//! root, which may be above the folder opened; this view reads none
//! outside it.)

use super::Extras;
use super::codex::on_the_way;
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::Profile;
use crate::workspace::reader::{AgentFile, Reader, read_text_file};
use crate::workspace::sources::base;
use crate::workspace::types::{FragmentDef, FragmentKind};

/// The names OpenCode looks for, the first with any file taken.
pub(crate) const NAMES: [&str; 3] = ["AGENTS.md", "CLAUDE.md", "CONTEXT.md"];
/// Its user-level file when the first is absent.
pub(crate) const USER_FALLBACK: &str = ".claude/CLAUDE.md";

pub fn load_opencode(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let root = r.root().display().to_string();
    user_file(p, r, extras, out, diags);
    // The working folder first, the root last.
    let mut folders: Vec<String> = on_the_way(extras.workdir.as_deref());
    folders.reverse();
    folders.push(String::new());
    let at = |dir: &str, n: &str| {
        if dir.is_empty() {
            n.to_string()
        } else {
            format!("{dir}/{n}")
        }
    };
    let Some(name) = NAMES
        .into_iter()
        .find(|n| folders.iter().any(|d| r.exists(&at(d, n))))
    else {
        return;
    };
    for (i, dir) in folders.iter().enumerate() {
        let rel = at(dir, name);
        if !r.exists(&rel) {
            continue;
        }
        let Some(text) = r.read(&rel) else { continue };
        let id = if dir.is_empty() {
            "instructions".to_string()
        } else {
            format!("instructions.{}", dir.replace('/', "."))
        };
        out.push(fragment(
            &id,
            1000 - i as i64,
            &format!("{root}/{rel}"),
            &text,
            &rel,
        ));
    }
    if name == "AGENTS.md" {
        on_demand(p, r, &folders, out, diags);
    }
}

/// The AGENTS.md files of subfolders: OpenCode adds each to its system
/// block, as "Instructions from: PATH", once it reads a file in that folder
/// (recorded: tests/fixtures/agents/opencode); listed as memory on demand,
/// not in the first request.
fn on_demand(
    p: &Profile,
    r: &mut Reader,
    sent: &[String],
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let root = r.root().display().to_string();
    let start = out.len();
    let mut ex = super::expand::Expander::new(p);
    super::codex::list_nested(p, r, sent, out, &mut ex);
    ex.finish(diags);
    for f in &mut out[start..] {
        let heading = format!("Instructions from: {root}/{}\n", f.source);
        f.body = format!("{heading}{}", f.body);
        f.agent_words = crate::workspace::types::AgentWords::heading(heading.len());
    }
}

/// `~/.config/opencode/AGENTS.md`, else `~/.claude/CLAUDE.md`, when asked
/// for.
fn user_file(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some((shown, first)) = extras.user_memory(p) else {
        return;
    };
    let home = extras.user_memory_home.clone().unwrap_or_default();
    let (shown, read) = match first {
        Ok(t) => (shown, Ok(t)),
        // Read through the guarded reader too; its error is the first's.
        Err(e) => match read_text_file(&home.join(USER_FALLBACK), crate::workspace::MAX_FILE_BYTES)
        {
            Ok(t) => (format!("~/{USER_FALLBACK}"), Ok(t)),
            Err(_) => (shown, Err(e)),
        },
    };
    match read {
        Ok(text) => {
            let abs = shown.replacen('~', &home.display().to_string(), 1);
            r.agent_files.push(AgentFile {
                shown: shown.clone(),
                text: text.clone(),
                modified: None,
            });
            out.push(fragment("user.instructions", 2000, &abs, &text, &shown));
        }
        Err(e) => diags.push(Diagnostic::user_memory_unread(&shown, &e)),
    }
}

/// One file as OpenCode writes it into its block.
fn fragment(id: &str, priority: i64, abs: &str, text: &str, source: &str) -> FragmentDef {
    let heading = format!("Instructions from: {abs}\n");
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
