//! The sample workspace, inside the binary: an installed binary opens it
//! without the source tree it was built from. `ensure` writes it once into
//! the user's data folder (`$XDG_DATA_HOME/prompt-inspector/sample-workspace`,
//! else `~/.local/share/…`), file by file, and says where; nothing there is
//! overwritten once written (edit it freely).

use std::path::{Path, PathBuf};

/// Every file of `sample-workspace/`, by its path in it (tests/first_minutes.rs
/// checks that this is every file there, each as it is): the build script
/// (`build.rs`) lists them.
pub const FILES: &[(&str, &str)] = crate::embedded::SAMPLE_FILES;

/// The sample as unpacked in the user's data folder: written there when it
/// is not there yet (a folder holding `workspace.yaml` is taken as is).
pub fn ensure() -> Result<PathBuf, String> {
    let dir = crate::data_dir()
        .ok_or("no data folder: set XDG_DATA_HOME or HOME")?
        .join("sample-workspace");
    if dir.join("workspace.yaml").is_file() {
        return Ok(dir);
    }
    write_into(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Writes every file under `dir`, those already there left as they are.
fn write_into(dir: &Path) -> std::io::Result<()> {
    write_files(dir, FILES.iter().copied()).map(|_| ())
}

/// Writes each `(path, text)` under `dir`, creating folders; a file already
/// there is left as it is (never overwritten, a link there never followed).
/// Returns how many were written and how many were there already.
pub fn write_files<'a>(
    dir: &Path,
    files: impl Iterator<Item = (&'a str, &'a str)>,
) -> std::io::Result<(usize, usize)> {
    let (mut written, mut kept) = (0, 0);
    for (rel, text) in files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                std::io::Error::new(
                    e.kind(),
                    format!("{}: cannot make this folder: {e}", parent.display()),
                )
            })?;
        }
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                std::io::Write::write_all(&mut f, text.as_bytes()).map_err(|e| {
                    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
                })?;
                written += 1;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => kept += 1,
            Err(e) => {
                return Err(std::io::Error::new(
                    e.kind(),
                    format!("{}: {e}", path.display()),
                ));
            }
        }
    }
    Ok((written, kept))
}
