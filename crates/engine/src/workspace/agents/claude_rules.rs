//! Claude Code's rules: the `.md` files under `.claude/rules/` of each
//! folder on its way (after that folder's `.claude/CLAUDE.md`) and, with
//! `--user-memory`, under `~/.claude/rules/` (after `~/.claude/CLAUDE.md`),
//! each headed as a memory file of its folder's kind. Claude Code takes
//! them in the order the file system lists each folder, a subfolder's rules
//! where the subfolder is listed (recorded from 2.1.332:
//! tests/fixtures/agents/claude-code-rules), so they are listed here in the
//! order this machine's file system gives. A rule whose frontmatter names
//! `paths:` is not in the first request: Claude Code adds it as a reminder
//! of its own once it reads a file those paths match; listed as on demand.

use super::Walk;
use crate::workspace::diag::Diagnostic;
use crate::workspace::profile::NestedMemory;
use crate::workspace::types::Preset;
use crate::workspace::yaml::{Node, parse, split_frontmatter};

/// Most rule files taken from one rules folder, its subfolders included.
pub const MAX_RULES: usize = 500;
/// How deep below a rules folder its subfolders are looked in.
pub const MAX_RULES_DEPTH: usize = 8;
/// Most folders looked in under one rules folder.
pub const MAX_RULES_FOLDERS: usize = 200;

impl Walk<'_, '_> {
    /// The rules under `dir` (`.claude/rules`): each one without `paths:`
    /// a memory file of `kind`; each one with them on demand, as the
    /// profile's reminder block (`nm`).
    pub(super) fn rules(&mut self, dir: &str, kind: &str, nm: Option<&NestedMemory>) {
        for rel in self.rule_files(dir) {
            if self.capped || !self.seen.insert(self.key(&rel)) {
                continue;
            }
            let Some(text) = self.r.read(&rel) else {
                continue;
            };
            self.chain = vec![rel.clone()];
            let from = self.out.len();
            match (paths_of(&text), nm) {
                (Ok(Some(paths)), Some(nm)) => {
                    self.rule_on_demand(&rel, &text, &paths, nm);
                }
                (paths, _) => {
                    if let Err(e) = paths {
                        self.diags.push(Diagnostic::warning(
                            format!("{}{rel}", self.shown),
                            Some(e.0),
                            format!(
                                "frontmatter not read ({}): taken as a rule for every file",
                                e.1
                            ),
                        ));
                    }
                    self.memory_text(&rel, &text, kind, 0, None);
                }
            }
            self.unique_ids(from);
        }
    }

    /// The fragments pushed since `from`, each with an id no other has:
    /// two rules whose paths read alike as ids (`K.md` and `k.md`, `c/d.md`
    /// and `c.d.md`) are both kept, the later one numbered.
    fn unique_ids(&mut self, from: usize) {
        for i in from..self.out.len() {
            let id = self.out[i].id.clone();
            if !self.out[..i].iter().any(|f| f.id == id) {
                continue;
            }
            let free = (2..)
                .map(|n| format!("{id}.{n}"))
                .find(|c| !self.out.iter().any(|f| &f.id == c));
            if let Some(free) = free {
                self.out[i].id = free;
            }
        }
    }

    /// The `.md` files under `dir`, each folder in the file system's order,
    /// a subfolder's files where it is listed; each real folder once (two
    /// links to one folder, or a link back up, are walked once), within
    /// [`MAX_RULES`] files, [`MAX_RULES_FOLDERS`] folders and
    /// [`MAX_RULES_DEPTH`]: a folder past them is said and passed over, its
    /// siblings still read.
    fn rule_files(&mut self, dir: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        seen.insert(self.key(dir));
        // A stack of folder listings still being gone through.
        let mut stack = vec![(dir.to_string(), self.r.list_as_listed(dir).into_iter())];
        let (mut folders, mut said) = (1, false);
        while let Some((folder, entries)) = stack.last_mut() {
            let Some((name, is_dir)) = entries.next() else {
                stack.pop();
                continue;
            };
            let rel = format!("{folder}/{name}");
            if !is_dir {
                if out.len() >= MAX_RULES {
                    self.rules_cut(&rel, "files");
                    break;
                }
                if name.ends_with(".md") {
                    out.push(rel);
                }
                continue;
            }
            if !seen.insert(self.key(&rel)) {
                continue;
            }
            if stack.len() > MAX_RULES_DEPTH || folders >= MAX_RULES_FOLDERS {
                // Said once, at the first folder passed over.
                if !std::mem::replace(&mut said, true) {
                    self.rules_cut(&rel, "folders");
                }
                continue;
            }
            folders += 1;
            let listed = self.r.list_as_listed(&rel).into_iter();
            stack.push((rel, listed));
        }
        out
    }

    /// A rules folder cut at the tool's limits, said where (the first
    /// place; the others past it are passed over in silence).
    fn rules_cut(&mut self, rel: &str, what: &str) {
        self.diags.push(Diagnostic::warning(
            format!("{}{rel}", self.shown),
            None,
            format!(
                "rules not looked for here or in other {what} past this tool's limits ({MAX_RULES} rule files, {MAX_RULES_FOLDERS} folders, {MAX_RULES_DEPTH} deep)"
            ),
        ));
    }

    /// A rule with `paths:`: the reminder block Claude Code adds once it
    /// reads a matching file, listed as not sent, saying which paths.
    fn rule_on_demand(&mut self, rel: &str, text: &str, paths: &[String], nm: &NestedMemory) {
        if !self.fits(text.len(), rel, None) {
            return;
        }
        self.files += 1;
        self.bytes += text.len();
        self.order += 1;
        let body = self.clean_untrimmed(text);
        let mut f =
            super::nested::fragment(self.ex, nm, &self.root, rel, &body, "", 1000 - self.order);
        f.id = format!(
            "{}on-demand.{}",
            if self.shown.is_empty() { "" } else { "user." },
            rel.to_ascii_lowercase()
                .trim_end_matches(".md")
                .replace('/', ".")
                .trim_start_matches('.')
        );
        f.source = format!("{}{rel}", self.shown);
        let note = nm.rule_note.as_deref().unwrap_or(
            "on demand: Claude Code adds it after it reads a file matching {paths} (not in the first request)",
        );
        let why = self.ex.expand(
            "nested_memory.rule_note",
            note,
            &[("paths", &globs_shown(paths))],
        );
        f.preset = Some(Preset::Disabled(why));
        self.out.push(f);
    }
}

/// The globs of a rule's `paths:` (a list, or one string of globs split by
/// commas); none when its frontmatter has no `paths:`; the line and reason
/// when the frontmatter is not YAML.
fn paths_of(text: &str) -> Result<Option<Vec<String>>, (usize, String)> {
    let (Some(fm), _, _) = split_frontmatter(text) else {
        return Ok(None);
    };
    let node = parse(fm).map_err(|e| (e.line.map_or(2, |l| l + 1), e.message))?;
    let globs: Vec<String> = match node.get("paths") {
        None | Some(Node::Null) => return Ok(None),
        Some(Node::List(items)) => items.iter().filter_map(Node::scalar_text).collect(),
        Some(n) => n
            .scalar_text()
            .unwrap_or_default()
            .split(',')
            .map(|g| g.trim().to_string())
            .collect(),
    };
    let globs: Vec<String> = globs.into_iter().filter(|g| !g.is_empty()).collect();
    Ok((!globs.is_empty()).then_some(globs))
}

/// Most globs of a rule's `paths:` named in its note.
const GLOBS_SHOWN: usize = 8;

/// A rule's globs as its note names them: the first [`GLOBS_SHOWN`], then
/// how many more, each clipped.
fn globs_shown(paths: &[String]) -> String {
    let mut shown: Vec<String> = paths
        .iter()
        .take(GLOBS_SHOWN)
        .map(|g| crate::clean(g, 120))
        .collect();
    if paths.len() > GLOBS_SHOWN {
        shown.push(format!(
            "and {} more",
            crate::thousands(paths.len() - GLOBS_SHOWN)
        ));
    }
    shown.join(", ")
}
