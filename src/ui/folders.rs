//! The folders the window opens: a folder given, chosen or dropped (a
//! dropped file stands for its folder), the bundled sample wherever it is,
//! and the examples beside it. Off the UI thread, on the worker's side.

use std::path::{Path, PathBuf};

use super::jobs::{Done, FolderAsk};

/// `path` as a folder to open: canonical when it is one; a dropped file
/// stands for its folder.
pub(super) fn folder(path: PathBuf, asked: FolderAsk) -> Done {
    let path = if asked == FolderAsk::Dropped && !path.is_dir() {
        path.parent().map(Path::to_path_buf).unwrap_or(path)
    } else {
        path
    };
    let is_dir = path.is_dir();
    let path = if is_dir || asked == FolderAsk::Given {
        path.canonicalize().unwrap_or(path)
    } else {
        path
    };
    Done::Folder {
        asked,
        path,
        is_dir,
    }
}

/// The bundled sample workspace, wherever it can be found (canonical): the
/// source tree's, the current folder's, beside the binary, else the copy
/// inside the binary unpacked into the user's data folder.
pub(super) fn sample_workspace() -> Option<PathBuf> {
    let mut candidates = vec![
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-workspace"),
        PathBuf::from("sample-workspace"),
    ];
    if let Ok(exe) = std::env::current_exe()
        && let Some(dir) = exe.parent()
    {
        candidates.push(dir.join("sample-workspace"));
    }
    let found = candidates
        .into_iter()
        .find(|p| p.join("workspace.yaml").is_file())
        .or_else(|| crate::sample::ensure().ok())?;
    Some(found.canonicalize().unwrap_or(found))
}

/// The example workspaces shipped beside the sample (`examples/NAME/`
/// holding a Markdown file or a workspace.yaml), by name, at most 20.
pub(super) fn example_workspaces(sample: &Path) -> Vec<PathBuf> {
    let Some(dir) = sample.parent().map(|p| p.join("examples")) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && ["workspace.yaml", "SOUL.md", "AGENTS.md", "CLAUDE.md"]
                    .iter()
                    .any(|f| p.join(f).is_file())
        })
        .take(20)
        .collect();
    out.sort();
    out
}
