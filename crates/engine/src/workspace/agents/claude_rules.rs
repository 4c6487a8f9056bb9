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
        }
    }

    /// The `.md` files under `dir`, each folder in the file system's order,
    /// a subfolder's files where it is listed; within [`MAX_RULES`] and
    /// [`MAX_RULES_DEPTH`], past which one diagnostic says where it stopped.
    fn rule_files(&mut self, dir: &str) -> Vec<String> {
        let mut out = Vec::new();
        // A stack of folder listings still being gone through.
        let mut stack = vec![(dir.to_string(), self.r.list_as_listed(dir).into_iter())];
        while let Some((folder, entries)) = stack.last_mut() {
            let Some((name, is_dir)) = entries.next() else {
                stack.pop();
                continue;
            };
            let rel = format!("{folder}/{name}");
            if out.len() >= MAX_RULES || (is_dir && stack.len() > MAX_RULES_DEPTH) {
                self.diags.push(Diagnostic::warning(
                    format!("{}{rel}", self.shown),
                    None,
                    format!(
                        "rules not looked for here or further: this tool takes at most {MAX_RULES} rule files, {MAX_RULES_DEPTH} folders deep"
                    ),
                ));
                break;
            }
            if is_dir {
                let listed = self.r.list_as_listed(&rel).into_iter();
                stack.push((rel, listed));
            } else if name.ends_with(".md") {
                out.push(rel);
            }
        }
        out
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
            "{}rule.{}",
            if self.shown.is_empty() { "" } else { "user." },
            rel.to_ascii_lowercase()
                .trim_end_matches(".md")
                .replace(".claude/rules/", "")
                .replace("rules/", "")
                .replace('/', ".")
        );
        f.source = format!("{}{rel}", self.shown);
        let note = nm.rule_note.as_deref().unwrap_or(
            "on demand: Claude Code adds it after it reads a file matching {paths} (not in the first request)",
        );
        let why = self.ex.expand(
            "nested_memory.rule_note",
            note,
            &[("paths", &paths.join(", "))],
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
