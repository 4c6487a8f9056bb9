//! Codex CLI's AGENTS.md files (profile `codex`): the user's own
//! `~/.codex/AGENTS.md` (with `--user-memory`), then the folder's
//! AGENTS.md (AGENTS.override.md first), in the first user message as
//! `# AGENTS.md instructions for <cwd>` … `<INSTRUCTIONS>` … (the profile's
//! title, separator and footer), the project files within Codex's byte cap
//! (cut at the byte, no marker). A nested AGENTS.md joins them only when
//! Codex runs in its folder: listed, not sent, saying so.

use super::Extras;
use super::expand::Expander;
use crate::text::thousands;
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::Profile;
use crate::workspace::reader::GitRoot;
use crate::workspace::reader::{MAX_FILE_BYTES, Reader, normalize_text};
use crate::workspace::refused::Refused;
use crate::workspace::sources::base;
use crate::workspace::types::{AgentWords, FragmentDef, FragmentKind, Preset, WordsKind};

/// How deep nested AGENTS.md files are looked for, and in how many folders.
const MAX_NESTED_DEPTH: usize = 6;
const MAX_NESTED_FOLDERS: usize = 2000;

/// The folders from the workspace's root down to the working folder
/// (`a`, `a/b` for `a/b`), the root itself left out.
pub(crate) fn on_the_way(workdir: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = String::new();
    for c in workdir.unwrap_or("").split('/').filter(|c| !c.is_empty()) {
        at = if at.is_empty() {
            c.to_string()
        } else {
            format!("{at}/{c}")
        };
        out.push(at.clone());
    }
    out
}

/// Bytes as Codex decodes a file's head (`String::from_utf8_lossy`: each
/// run that is not UTF-8, a character cut at the end included, is one
/// U+FFFD), with the line endings every read here gets.
fn decoded(bytes: &[u8]) -> String {
    normalize_text(String::from_utf8_lossy(bytes).into_owned())
}

/// The user's own AGENTS.md (`~/.codex/AGENTS.md`), a file Codex itself
/// reads, as the first memory fragment; whether there was one.
fn user_memory(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    match extras.user_memory(p) {
        Some((path, Ok(text))) if !text.trim().is_empty() => {
            r.agent_files.push(crate::workspace::reader::AgentFile {
                shown: path.clone(),
                text: text.clone(),
                modified: None,
            });
            let mut f = base(
                "user.agents".into(),
                2,
                1000,
                text.trim().to_string(),
                &path,
                1,
                FragmentKind::Markdown,
            );
            f.interpolate = false;
            out.push(f);
            true
        }
        Some((path, Err(e))) => {
            diags.push(Diagnostic::user_memory_unread(&path, &e));
            false
        }
        _ => false,
    }
}

pub fn load_codex(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    out: &mut Vec<FragmentDef>,
    diags: &mut Vec<Diagnostic>,
) {
    let mut ex = Expander::new(p);
    let sep = p.separator.as_deref().unwrap_or("\n\n");
    let user = user_memory(p, r, extras, out, diags);
    let mut left = p.max_project_bytes.unwrap_or(usize::MAX);
    let mut first_project = true;
    // The root's files, then each folder's down to the working folder:
    // from the git repository's root (Codex's project root), or only the
    // working folder outside a repository.
    let mut files: Vec<(String, i64)> = p
        .files
        .iter()
        .map(|f| (f.name.clone(), 1000 - f.rank))
        .collect();
    let path = on_the_way(extras.workdir.as_deref());
    for (i, dir) in path.iter().enumerate() {
        files.push((format!("{dir}/AGENTS.md"), 900 - i as i64));
    }
    skip_above_project_root(p, r, extras, (&path, &mut files), out);
    for (fname, priority) in &files {
        let name = the_file(r, fname);
        if !r.exists(&name) {
            continue;
        }
        // Codex reads the first bytes it has room for, however large the
        // file, and decodes them lossily (a character cut at the end, or
        // bytes that are not UTF-8, are sent as U+FFFD).
        let Some((bytes, size)) = r.read_head(&name, MAX_FILE_BYTES) else {
            continue;
        };
        if (bytes.len() as u64) < size && size <= left as u64 {
            // Codex would send it whole: over the tool's own limit.
            let why = Refused::TooLarge {
                bytes: size,
                max: MAX_FILE_BYTES,
            };
            diags.push(Diagnostic::error(&name, None, why));
            continue;
        }
        let head = bytes.len().min(left);
        let blank = |b: &[u8]| String::from_utf8_lossy(b).trim().is_empty();
        if blank(&bytes[..head]) && (left > 0 || blank(&bytes)) {
            continue;
        }
        left -= head;
        // Between the user's text and the project's: the profile's
        // separator (`--- project-doc ---`), less the block's own.
        let lead = match (&p.project_separator, user && first_project) {
            (Some(s), true) => s.strip_prefix(sep).unwrap_or(s).to_string(),
            _ if !first_project => sep.to_string(),
            _ => String::new(),
        };
        first_project = false;
        let frag = project_file(p, (&name, *priority), &lead, (&bytes, size), head);
        out.push(frag);
    }
    list_nested(p, r, &path, out, &mut ex);
    ex.finish(diags);
}

/// Codex's project root is its git repository's (the nearest folder up
/// from where it runs holding a `.git`); outside a repository it reads
/// only the folder it runs in. The files of `files` before that folder
/// are taken out, listed as not sent, saying why.
fn skip_above_project_root(
    p: &Profile,
    r: &mut Reader,
    extras: &Extras,
    (path, files): (&[String], &mut Vec<(String, i64)>),
    out: &mut Vec<FragmentDef>,
) {
    // The first folder read, in [root, path…], and the files before it.
    let workdir = extras.workdir.as_deref().unwrap_or("");
    let git = r.git_root(workdir);
    let first = match &git {
        GitRoot::AtOrAbove => 0,
        GitRoot::Inside(g) => path.iter().position(|d| d == g).map_or(0, |i| i + 1),
        GitRoot::None => path.len(),
    };
    let skipped = if first == 0 {
        0
    } else {
        p.files.len() + first - 1
    };
    let why = match git {
        GitRoot::None => format!(
            "not sent: outside a git repository Codex reads only the folder it runs in ({workdir})"
        ),
        _ => "not sent: above the git repository's root, where Codex stops looking".to_string(),
    };
    for (fname, priority) in files.drain(..skipped) {
        let name = the_file(r, &fname);
        super::not_sent(&name, priority, why.clone(), r, out);
    }
}

/// A project file as Codex sends it: `lead` (its separator) and the first
/// `head` bytes of the `bytes` read of a file of `size` bytes (all of it,
/// or the tool's first 8 MiB of a larger file).
fn project_file(
    p: &Profile,
    (name, priority): (&str, i64),
    lead: &str,
    (bytes, size): (&[u8], u64),
    head: usize,
) -> FragmentDef {
    let kept = decoded(&bytes[..head]);
    let mut frag = base(
        name.trim_end_matches(".md")
            .replace('/', ".")
            .to_ascii_lowercase(),
        2,
        priority,
        format!("{lead}{kept}"),
        name,
        1,
        FragmentKind::Markdown,
    );
    frag.interpolate = false;
    // The separator before it is Codex's, not the file's.
    frag.agent_words = (!lead.is_empty()).then_some(AgentWords {
        head: lead.len(),
        tail: 0,
        kind: WordsKind::Markers,
    });
    // The whole file, when it was read whole: its characters and its
    // tokens before the cut. A file over the tool's own limit is counted
    // as far as Codex reads it.
    let whole = bytes.len() as u64 == size;
    if whole {
        let raw = decoded(bytes);
        frag.chars = Some((raw.chars().count(), kept.chars().count()));
        frag.uncut = (head < bytes.len()).then(|| format!("{lead}{raw}"));
    }
    let unread = if whole {
        String::new()
    } else {
        format!(
            "; only what is sent is counted (a file over {} MiB)",
            MAX_FILE_BYTES >> 20
        )
    };
    let cap = thousands(p.max_project_bytes.unwrap_or(0));
    if kept.is_empty() {
        // Nothing of it fits: Codex sends neither the file nor the
        // separator before it.
        frag.preset = Some(Preset::Dropped(format!(
            "{name}: not sent: the files before it used all of Codex's project_doc_max_bytes ({cap} bytes for the project's files in all){unread}"
        )));
    } else if (head as u64) < size {
        frag.preset = Some(Preset::Truncated(format!(
            "{name}: cut at byte {} of {}: Codex's project_doc_max_bytes ({cap} bytes for the project's files in all), no marker{unread}",
            thousands(head),
            thousands(size as usize),
        )));
    }
    frag
}

/// The file Codex reads for `fname` (an AGENTS.md): AGENTS.override.md
/// instead, when that is there.
fn the_file(r: &Reader, fname: &str) -> String {
    let over = fname.replace("AGENTS.md", "AGENTS.override.md");
    if fname.ends_with("AGENTS.md") && r.exists(&over) {
        over
    } else {
        fname.to_string()
    }
}

/// AGENTS.md files in subfolders: sent only when Codex runs in that
/// folder (or below it), after the root's; listed as such.
pub(super) fn list_nested(
    p: &Profile,
    r: &mut Reader,
    sent: &[String],
    out: &mut Vec<FragmentDef>,
    ex: &mut Expander,
) {
    let mut queue: Vec<(String, usize)> = vec![(String::new(), 0)];
    let mut seen = 0;
    while let Some((dir, depth)) = queue.pop() {
        seen += 1;
        if seen > MAX_NESTED_FOLDERS {
            break;
        }
        let mut entries = r.list(if dir.is_empty() { "." } else { &dir });
        entries.sort();
        for (name, is_dir) in entries.into_iter().rev() {
            if !is_dir
                || name.starts_with('.')
                || matches!(name.as_str(), "node_modules" | "target")
            {
                continue;
            }
            let sub = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            let rel = the_file(r, &format!("{sub}/AGENTS.md"));
            if !sent.contains(&sub)
                && r.exists(&rel)
                && let Some(text) = r.read(&rel)
            {
                let note = p.nested_note.as_deref().unwrap_or(
                    "applies only when Codex runs in {path} or below it: then it follows the root's AGENTS.md",
                );
                let why = ex.expand("nested_note", note, &[("path", &sub)]);
                let mut f = base(
                    format!("nested.{}", sub.replace('/', ".")),
                    2,
                    0,
                    text,
                    &rel,
                    1,
                    FragmentKind::Markdown,
                );
                f.interpolate = false;
                f.preset = Some(Preset::Disabled(why));
                out.push(f);
            }
            if depth + 1 < MAX_NESTED_DEPTH {
                queue.push((sub, depth + 1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_cut_at_the_byte_is_sent_as_codex_decodes_it() {
        let bytes = "ab界".as_bytes();
        assert_eq!(decoded(&bytes[..4]), "ab\u{FFFD}");
        assert_eq!(decoded(&bytes[..5]), "ab界");
        assert_eq!(decoded(&bytes[..2]), "ab");
        assert_eq!(decoded(b"a\xffb\r\n"), "a\u{FFFD}b\n");
    }
}
