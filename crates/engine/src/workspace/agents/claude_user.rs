//! Claude Code's user memory, read with `--user-memory`:
//! `~/.claude/CLAUDE.md` with its imports and `~/.claude/rules/`, through
//! a guarded reader of that folder, before the project's files.

use std::collections::BTreeSet;

use super::{Extras, Walk};
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::{Profile, UserMemory};
use crate::workspace::reader::Reader;

/// The user's own memory file (`~/.claude/CLAUDE.md`) and what it imports,
/// as Claude Code reads them: through a guarded reader of its own folder
/// (the agent's file, not the workspace's; an import may not leave that
/// folder), headed with its absolute path, before the project's files,
/// within the same limits.
pub(super) fn user_memory(p: &Profile, extras: &Extras, text: Option<&str>, walk: &mut Walk) {
    let (Some(home), Some(um)) = (&extras.user_memory_home, &p.user_memory) else {
        return;
    };
    let (dir, name) = um.path.rsplit_once('/').unwrap_or(("", um.path.as_str()));
    let folder = home.join(dir);
    let mut hr = match Reader::new(&folder) {
        Ok(r) => r,
        // Without its memory file (said already) the folder may be absent.
        Err(_) if text.is_none() => return,
        Err(e) => {
            let shown = format!("~/{}", um.path);
            walk.diags.push(Diagnostic::user_memory_unread(&shown, &e));
            return;
        }
    };
    let kind = um.kind.clone().unwrap_or_else(|| "user".into());
    let shown = if dir.is_empty() {
        "~/".to_string()
    } else {
        format!("~/{dir}/")
    };
    let mut user = Walk {
        shown,
        // As the agent writes it: the home folder as given, not resolved.
        root: folder.display().to_string(),
        import_kind: walk.import_kind.clone(),
        strip_frontmatter: walk.strip_frontmatter,
        strip_comments: walk.strip_comments,
        r: &mut hr,
        ex: &mut *walk.ex,
        max_depth: walk.max_depth,
        chain: vec![name.to_string()],
        seen: BTreeSet::new(),
        order: walk.order,
        files: walk.files,
        bytes: walk.bytes,
        refs: walk.refs,
        capped: walk.capped,
        nested: None,
        out: &mut *walk.out,
        diags: &mut *walk.diags,
    };
    // The file itself as already read (a link to a dotfiles folder is
    // followed, as the agent follows it); its imports through the reader;
    // then the user's rules (`~/.claude/rules/`), of the same kind.
    user.seen.insert(user.key(name));
    if let Some(text) = text {
        user.memory_text(name, text, &kind, 0, None);
    }
    if user.r.exists("rules") {
        user.rules("rules", &kind, p.nested_memory.as_ref());
    }
    let (order, files, bytes, refs, capped) =
        (user.order, user.files, user.bytes, user.refs, user.capped);
    walk.order = order;
    walk.files = files;
    walk.bytes = bytes;
    walk.refs = refs;
    walk.capped = capped;
    keep_home_files(hr, text, um, (dir, name), walk);
}

/// The user's files read, kept as the agent's own (to trace a request
/// to), and what the reader refused there, named as the agent's files.
fn keep_home_files(
    hr: Reader,
    text: Option<&str>,
    um: &UserMemory,
    (dir, name): (&str, &str),
    walk: &mut Walk,
) {
    let mut files: Vec<_> = text
        .map(|text| crate::workspace::reader::AgentFile {
            shown: format!("~/{}", um.path),
            text: text.to_string(),
            modified: None,
        })
        .into_iter()
        .collect();
    let prefix = format!("~/{dir}/").replace("//", "/");
    let (read, refused) = hr.into_agent_files(name, &prefix);
    files.extend(read);
    walk.r.agent_files.extend(files);
    walk.diags.extend(refused);
}
