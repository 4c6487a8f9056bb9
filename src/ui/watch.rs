//! Live reload: watch the workspace folder (recursive, debounced). Editors'
//! atomic saves (write a temp file, rename it over) arrive as create/rename
//! events on the folder, so the folder is watched, never single files.

use std::path::Path;
use std::sync::mpsc::Sender;
use std::time::Duration;

use notify::RecursiveMode;
use notify::event::{EventKind, ModifyKind};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

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

impl Watcher {
    pub fn start(root: &Path, ctx: egui::Context, tx: Sender<()>) -> Result<Watcher, String> {
        let mut debouncer = new_debouncer(
            Duration::from_millis(200),
            None,
            move |res: DebounceEventResult| {
                if let Ok(events) = res
                    && events
                        .iter()
                        .any(|e| changes_content(&e.kind) && e.paths.iter().any(|p| relevant(p)))
                {
                    let _ = tx.send(());
                    ctx.request_repaint();
                }
            },
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
