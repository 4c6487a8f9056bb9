//! What the reader tells of the folders above the workspace, without
//! opening anything there: whether a `.git` is there and where the git
//! repository starts, the memory files an agent that looks above the
//! folder it runs in would find, and whether a file there really lies in a
//! folder (links resolved).

use std::path::{Path, PathBuf};

use super::{Reader, check_relative, rel_string};

/// Where a folder's git repository starts ([`Reader::git_root`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitRoot {
    /// The workspace's root holds the `.git`, or a folder above it does.
    AtOrAbove,
    /// A folder inside the workspace does (its relative path).
    Inside(String),
    /// None: not in a git repository.
    None,
}

/// How far up an agent looks for its memory files above the folder it
/// runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ceiling {
    /// Up to the nearest folder holding a `.git`; nowhere outside a
    /// repository (Codex, Gemini CLI).
    GitRoot,
    /// Up to the nearest folder holding a `.git`, else to the file
    /// system's root (OpenCode's worktree).
    GitRootElseTop,
    /// Every folder up to the file system's root, that one included (Pi).
    Top,
    /// Every folder up to the file system's root, that one left out
    /// (Claude Code).
    BelowTop,
}

impl Reader {
    /// Whether `path` (a file above the workspace) really lies in `dir`,
    /// links resolved: a link out of it is not counted by opening `dir`.
    pub fn lies_in(path: &Path, dir: &Path) -> bool {
        match (path.canonicalize(), dir.canonicalize()) {
            (Ok(p), Ok(d)) => p.starts_with(d),
            _ => false,
        }
    }

    /// Whether the folder `rel` of the workspace, or one above it up to the
    /// file system's root, holds a `.git`: how the agents tell that they run
    /// in a git repository (Gemini CLI's `isGitRepository` walks up from
    /// where it runs). Only whether the name is there is looked at; nothing
    /// under it is opened or read.
    pub fn in_git_repository(&self, rel: &str) -> bool {
        self.git_folder(rel).is_some()
    }

    /// The nearest folder holding a `.git`, from the workspace's folder
    /// `rel` (the root when `rel` is not a clean relative path) up.
    fn git_folder(&self, rel: &str) -> Option<PathBuf> {
        let start = match check_relative(rel) {
            Ok(clean) => self.root.join(clean),
            Err(_) => self.root.clone(),
        };
        start
            .ancestors()
            .find(|d| d.join(".git").symlink_metadata().is_ok())
            .map(Path::to_path_buf)
    }

    /// Where the git repository that the folder `rel` is in starts, as an
    /// agent that looks for `.git` from where it runs finds it: in the
    /// workspace's root or above it, in a folder inside it (its path), or
    /// nowhere. Only whether the name is there is looked at.
    pub fn git_root(&self, rel: &str) -> GitRoot {
        match self.git_folder(rel) {
            None => GitRoot::None,
            Some(g) if g == self.root || !g.starts_with(&self.root) => GitRoot::AtOrAbove,
            Some(g) => GitRoot::Inside(rel_string(g.strip_prefix(&self.root).unwrap_or(&g))),
        }
    }

    /// The files named `names` in the folders above the workspace's root,
    /// farthest first, as an agent that runs in `rel` and looks above it
    /// finds them, up to its `ceiling`: each with the folder it is in
    /// (`.claude/CLAUDE.md` of `/repo` is `/repo`'s). Only whether each name is a
    /// regular file is looked at (links followed, as the agents follow
    /// them); nothing is opened or read. Bounded by the path's depth.
    pub fn files_above(
        &self,
        rel: &str,
        names: &[&str],
        ceiling: Ceiling,
    ) -> Vec<(PathBuf, PathBuf)> {
        let git_root = self.git_folder(rel);
        let git_root = git_root.as_deref();
        let above = self.root.ancestors().skip(1);
        let folders: Vec<&Path> = match (ceiling, git_root) {
            // The repository starts in the folder: nothing above is read.
            (Ceiling::GitRoot | Ceiling::GitRootElseTop, Some(g)) if g.starts_with(&self.root) => {
                Vec::new()
            }
            (Ceiling::GitRoot | Ceiling::GitRootElseTop, Some(g)) => {
                let mut v: Vec<&Path> = above.take_while(|d| *d != g).collect();
                v.push(g);
                v
            }
            (Ceiling::GitRoot, None) => Vec::new(),
            (Ceiling::GitRootElseTop | Ceiling::Top, _) => above.collect(),
            (Ceiling::BelowTop, _) => above.filter(|d| d.parent().is_some()).collect(),
        };
        let mut found = Vec::new();
        for dir in folders.into_iter().rev() {
            for name in names {
                // A name ending in `/` is a folder (Claude Code's rules).
                let (bare, folder) = match name.strip_suffix('/') {
                    Some(b) => (b, true),
                    None => (*name, false),
                };
                let f = dir.join(bare);
                if f.metadata()
                    .is_ok_and(|m| if folder { m.is_dir() } else { m.is_file() })
                {
                    found.push((dir.to_path_buf(), f));
                }
            }
        }
        found
    }
}
