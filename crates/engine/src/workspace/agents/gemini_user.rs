//! Gemini CLI's user memory, read with `--user-memory`:
//! `~/.gemini/GEMINI.md` with its `@` imports inlined, through a guarded
//! reader of that folder, at the end of the system instruction.

use super::Extras;
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::Profile;
use crate::workspace::reader::Reader;
use crate::workspace::types::FragmentDef;

/// The user's own `~/.gemini/GEMINI.md` (with `--user-memory`), at the end
/// of the system instruction, its imports inlined as Gemini CLI inlines
/// them: read through a guarded reader of that folder (the agent's files,
/// not the workspace's; an import may not leave it), kept as the agent's
/// files to trace a request to.
pub(super) fn user_memory(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let text = match extras.user_memory(p) {
        Some((_, Ok(text))) if !text.trim().is_empty() => text,
        Some((shown, Err(e))) => return diags.push(Diagnostic::user_memory_unread(&shown, &e)),
        _ => return,
    };
    let (Some(home), Some(um)) = (&extras.user_memory_home, &p.user_memory) else {
        return;
    };
    let (dir, name) = um.path.rsplit_once('/').unwrap_or(("", um.path.as_str()));
    let shown = if dir.is_empty() {
        "~/".to_string()
    } else {
        format!("~/{dir}/")
    };
    let mut hr = match Reader::new(&home.join(dir)) {
        Ok(hr) => hr,
        Err(e) => {
            return diags.push(Diagnostic::user_memory_unread(
                &format!("~/{}", um.path),
                &e,
            ));
        }
    };
    let file = super::File {
        id: "user.gemini".into(),
        priority: 1000,
        layer: 4,
        abs: format!("{}/{}", home.display(), um.path),
        rel: name.to_string(),
        shown: shown.clone(),
    };
    let mut own = Vec::new();
    out.append(&mut super::context_file(&mut hr, &file, &text, &mut own));
    r.agent_files.push(crate::workspace::reader::AgentFile {
        shown: format!("~/{}", um.path),
        text,
        modified: None,
    });
    // What went wrong there, named as the agent's files.
    for mut d in own {
        d.file = format!("{shown}{}", d.file);
        diags.push(d);
    }
    let (files, refused) = hr.into_agent_files(name, &shown);
    r.agent_files.extend(files);
    diags.extend(refused);
}
