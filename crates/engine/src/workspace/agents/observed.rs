//! The agents' own parts learned from the user's own requests
//! (`prompt-inspector agents learn`), kept in the user's data folder
//! (`$XDG_DATA_HOME/prompt-inspector/agents/`, one `PROFILE@RELEASE.json`
//! each, never in a workspace): read back here through the guarded reader,
//! each a regular file within its bounds, at most [`MAX_OBSERVED`] of them.
//! A file that cannot be used is named with its reason and passed over:
//! the bundled recordings are then used.

use std::path::{Path, PathBuf};

use super::builtin::Builtin;
use crate::error::Error;
use crate::workspace::reader::{MAX_FILE_BYTES, files_with_extension, read_text_file};

/// Most observations read from the folder (the first, by name).
pub const MAX_OBSERVED: usize = 64;

/// One observation and its file.
#[derive(Debug, Clone)]
pub struct Kept {
    pub parts: Builtin,
    pub path: PathBuf,
}

/// The observations in `dir` (none when it is absent), and the files that
/// could not be used, each with why.
pub fn load(dir: &Path) -> (Vec<Kept>, Vec<Error>) {
    let Ok(files) = files_with_extension(dir, &["json"]) else {
        return (Vec::new(), Vec::new());
    };
    let (mut kept, mut bad) = (Vec::new(), Vec::new());
    for path in files.into_iter().take(MAX_OBSERVED) {
        let shown = path.display().to_string();
        let parsed = read_text_file(&path, MAX_FILE_BYTES)
            .and_then(|t| Builtin::parse(&t, &shown))
            .and_then(|b| match b.observed {
                Some(_) => Ok(b),
                None => Err(Error::invalid(
                    shown.clone(),
                    "not an observation (no `observed`): bundled recordings are not read from here",
                )),
            });
        match parsed {
            Ok(parts) => kept.push(Kept { parts, path }),
            Err(e) => bad.push(e),
        }
    }
    (kept, bad)
}

/// The file name an observation is kept under: `claude-code@2.1.332.json`
/// (anything but a letter, a digit, `.`, `-` or `_` in the release made
/// `_`).
pub fn file_name(b: &Builtin) -> String {
    let profile = b.observed.as_ref().map_or("agent", |o| o.profile.as_str());
    let safe = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!(
        "{}@{}.json",
        safe(profile),
        safe(&b.release).trim_start_matches('.')
    )
}
