//! What a run of `proxy` or `run` made for its capture, removed again when
//! nothing reached it: a port that was taken or an agent that would not
//! start leaves no empty file and no empty folders behind.

use std::path::{Path, PathBuf};

/// The capture file (when it did not exist before the run) and the state
/// folders its default place needed (deepest first).
pub struct MadeForCapture {
    file: bool,
    folders: Vec<PathBuf>,
}

impl MadeForCapture {
    /// Looked at before the run: `output` is the file named with `-o`
    /// (one that exists is the user's and stays); with none, the capture
    /// goes in `root`'s state folder, and the parts of it missing now are
    /// this run's.
    pub fn before(output: Option<&Path>, root: Option<&Path>) -> MadeForCapture {
        let file = output.is_none_or(|p| !p.exists());
        let folders = match (output, root) {
            (None, Some(root)) => {
                let state = root.join(crate::engine::workspace::store::STATE_DIR);
                [state.join("captures"), state]
                    .into_iter()
                    .filter(|p| std::fs::symlink_metadata(p).is_err())
                    .collect()
            }
            _ => Vec::new(),
        };
        MadeForCapture { file, folders }
    }

    /// Removes the capture if this run made it and it is still empty, and
    /// then the folders made for it that are empty; whether the file went.
    pub fn remove_if_empty(&self, capture: &Path) -> bool {
        let empty = std::fs::symlink_metadata(capture).is_ok_and(|m| m.is_file() && m.len() == 0);
        if !(self.file && empty && std::fs::remove_file(capture).is_ok()) {
            return false;
        }
        for f in &self.folders {
            // Only an empty folder is removed: anything in it stays.
            let _ = std::fs::remove_dir(f);
        }
        true
    }
}
