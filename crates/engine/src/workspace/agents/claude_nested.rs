//! Claude Code's memory files in folders below the working folder
//! (`pkg/api/CLAUDE.md`, its imports, `pkg/api/.claude/CLAUDE.md`,
//! `pkg/api/CLAUDE.local.md`): not in the first request; once the agent
//! reads a file in such a folder it adds each of them to that message as a
//! reminder of its own (recorded from Claude Code 2.1.332,
//! tests/fixtures/agents/claude-code-nested). Listed as on demand, each with
//! the block it becomes; the folders are looked through within bounds.

use super::expand::Expander;
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::NestedMemory;
use crate::workspace::reader::Reader;
use crate::workspace::sources::base;
use crate::workspace::types::{FragmentDef, FragmentKind, Preset};

/// Most folders looked through for nested memory files in one assembly.
pub const MAX_NESTED_FOLDERS: usize = 2_000;
/// How deep below the working folder they are looked for.
pub const MAX_NESTED_DEPTH: usize = 12;
/// Folders never looked in (besides hidden ones): installed packages.
const SKIPPED: &[&str] = &["node_modules"];

/// The folders below `start` (the working folder; empty: the workspace's
/// root), breadth first and sorted, without `start` itself; hidden folders
/// and [`SKIPPED`] ones are not looked in. Past [`MAX_NESTED_FOLDERS`] or
/// [`MAX_NESTED_DEPTH`] one diagnostic says where the looking stopped.
pub fn folders_below(r: &mut Reader, start: &str, diags: &mut Vec<Diagnostic>) -> Vec<String> {
    let mut found = Vec::new();
    let mut level = vec![start.to_string()];
    for depth in 1..=MAX_NESTED_DEPTH + 1 {
        let mut next = Vec::new();
        for dir in &level {
            let listed = if dir.is_empty() { "." } else { dir.as_str() };
            for (name, is_dir) in r.list(listed) {
                if !is_dir || SKIPPED.contains(&name.as_str()) {
                    continue;
                }
                let path = if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                };
                if depth > MAX_NESTED_DEPTH || found.len() >= MAX_NESTED_FOLDERS {
                    diags.push(Diagnostic::warning(
                        path.as_str(),
                        None,
                        format!(
                            "nested memory files (CLAUDE.md in subfolders) not looked for here or further: this tool looks through at most {MAX_NESTED_FOLDERS} folders, {MAX_NESTED_DEPTH} deep"
                        ),
                    ));
                    return found;
                }
                found.push(path.clone());
                next.push(path);
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    found
}

/// A nested memory file as the block the agent adds (`nested.block` with
/// its absolute path and its text), listed as not sent with the profile's
/// note naming the folder whose reading brings it in.
pub fn fragment(
    ex: &mut Expander,
    nm: &NestedMemory,
    root: &str,
    rel: &str,
    text: &str,
    folder: &str,
    priority: i64,
) -> FragmentDef {
    let path = format!("{root}/{rel}");
    let block = ex.expand(
        "nested_memory.block",
        &nm.block,
        &[("path", &path), ("text", text)],
    );
    let id = format!(
        "nested.{}",
        rel.trim_end_matches(".md")
            .replace("/.", "/")
            .replace('/', ".")
    );
    let mut f = base(id, 2, priority, block, rel, 1, FragmentKind::Markdown);
    f.interpolate = false;
    let note = ex.expand("nested_memory.note", &nm.note, &[("folder", folder)]);
    f.preset = Some(Preset::Disabled(note));
    f
}
