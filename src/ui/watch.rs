//! Live reload: watch the workspace folder (recursive, debounced). Editors'
//! atomic saves (write a temp file, rename it over) arrive as create/rename
//! events on the folder, so the folder is watched, never single files.
//!
//! Only what the reader reads: links are not followed (the guarded reader
//! refuses them), so a link to a folder outside the workspace (`/etc`) is
//! not watched, and an event whose path passes through a link under the
//! root reloads nothing.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::Duration;

use notify::RecursiveMode;
use notify::event::{EventKind, ModifyKind};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer_opt};

pub struct Watcher {
    _debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
}

/// Whether an event changes content (reads, which the loader itself causes,
/// and access-time updates do not).
pub fn changes_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(_) | EventKind::Other => false,
    }
}

/// Whether a changed path can affect the assembly (not our own snapshots,
/// not version-control internals, not editor swap files).
pub fn relevant(path: &Path) -> bool {
    let ours = path.components().any(|c| {
        let c = c.as_os_str();
        c == crate::engine::workspace::store::STATE_DIR || c == ".git"
    });
    if ours {
        return false;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    !(name.ends_with(".swp") || name.ends_with('~') || name.starts_with(".#"))
}

/// Whether `path` is reached from `root` without passing through a link
/// (the path itself may be gone: a removed file). A path outside `root`
/// is not.
pub fn reached_without_links(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let mut at = root.to_path_buf();
    for c in rel.components() {
        match c {
            std::path::Component::Normal(n) => at.push(n),
            _ => return false,
        }
        match std::fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return false,
            Ok(_) => {}
            // Gone (removed or renamed away): what led to it was checked.
            Err(_) => return true,
        }
    }
    true
}

impl Watcher {
    pub fn start(root: &Path, ctx: egui::Context, tx: Sender<()>) -> Result<Watcher, String> {
        Watcher::start_with(root, move |_| {
            let _ = tx.send(());
            ctx.request_repaint();
        })
    }

    /// Watches `root`; `changed` gets, for each debounced batch that
    /// changes what the reader reads, the paths that did.
    pub fn start_with(
        root: &Path,
        changed: impl Fn(Vec<PathBuf>) + Send + 'static,
    ) -> Result<Watcher, String> {
        let base = root.to_path_buf();
        let mut debouncer = new_debouncer_opt::<_, notify::RecommendedWatcher, RecommendedCache>(
            Duration::from_millis(200),
            None,
            move |res: DebounceEventResult| {
                let Ok(events) = res else { return };
                let paths: Vec<PathBuf> = events
                    .iter()
                    .filter(|e| changes_content(&e.kind))
                    .flat_map(|e| e.paths.iter())
                    .filter(|p| relevant(p) && reached_without_links(&base, p))
                    .cloned()
                    .collect();
                if !paths.is_empty() {
                    changed(paths);
                }
            },
            RecommendedCache::new(),
            notify::Config::default().with_follow_symlinks(false),
        )
        .map_err(|e| format!("cannot watch the folder: {e}"))?;
        debouncer
            .watch(root, RecursiveMode::Recursive)
            .map_err(|e| format!("cannot watch {}: {e}", root.display()))?;
        Ok(Watcher {
            _debouncer: debouncer,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_through_a_link_is_not_read_and_not_watched() {
        let outside = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        std::fs::write(root.join("SOUL.md"), "soul").unwrap();
        std::fs::write(outside.path().join("secret.md"), "before").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("FILE.md")).unwrap();
        assert!(reached_without_links(root, &root.join("SOUL.md")));
        assert!(reached_without_links(root, &root.join("gone.md")));
        assert!(!reached_without_links(root, &root.join("linked/secret.md")));
        assert!(!reached_without_links(root, &root.join("FILE.md")));
        assert!(!reached_without_links(root, outside.path()));

        let (tx, rx) = std::sync::mpsc::channel::<Vec<PathBuf>>();
        let _w = Watcher::start_with(root, move |p| {
            let _ = tx.send(p);
        })
        .unwrap();
        // The target of the refused links changes, then a file the reader
        // reads: the first batch reported holds only the latter (had the
        // links been followed, the earlier writes would be in it or before).
        for i in 0..3 {
            std::fs::write(outside.path().join("secret.md"), format!("after {i}")).unwrap();
            std::fs::write(outside.path().join(format!("new{i}.md")), "x").unwrap();
        }
        std::fs::write(root.join("SOUL.md"), "soul, edited").unwrap();
        let first = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the workspace's own edit is reported");
        assert!(
            first
                .iter()
                .all(|p| p.starts_with(root) && !p.starts_with(root.join("linked"))),
            "{first:?}"
        );
        assert!(first.iter().any(|p| p.ends_with("SOUL.md")), "{first:?}");
    }
}
