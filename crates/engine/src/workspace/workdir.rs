//! `--workdir`: the folder an agent runs in, inside the workspace, as a
//! user types it and as the loader checks it.

use crate::error::Error;
use crate::workspace::reader::Reader;

/// `--workdir`: a folder inside the workspace, named by a relative path
/// without `..`.
pub(super) fn check_workdir(r: &mut Reader, w: &str) -> Result<(), Error> {
    let plain = !w.is_empty()
        && !w.starts_with('/')
        && w.split('/').all(|c| !c.is_empty() && c != "." && c != "..");
    let (parent, name) = w.rsplit_once('/').unwrap_or((".", w));
    if plain && r.list(parent).iter().any(|(n, dir)| n == name && *dir) {
        return Ok(());
    }
    let why = if plain && r.list(parent).iter().any(|(n, _)| n == name) {
        format!("{w} is a file, not a folder")
    } else if plain {
        format!("no folder {w} in the workspace")
    } else {
        "it must be a folder inside the workspace, named by a relative path without . or .."
            .to_string()
    };
    Err(Error::option(format!("--workdir {w}"), why))
}

/// `--workdir` as a user types it, made the relative path the loader
/// takes: a trailing `/` (a shell's completion) and leading `./` dropped,
/// a path under the workspace's root (as given) made relative to it; `.`
/// or the root itself is the root (none). Anything else is left for
/// [`check_workdir`] to refuse.
pub fn workdir_as_given(root: &std::path::Path, w: &str) -> Option<String> {
    let root = root.display().to_string();
    let root = root.trim_end_matches('/');
    let mut w = w.trim_end_matches('/');
    if w == root {
        return None;
    }
    if let Some(rest) = w.strip_prefix(root).and_then(|r| r.strip_prefix('/')) {
        w = rest;
    }
    while let Some(rest) = w.strip_prefix("./") {
        w = rest.trim_start_matches('/');
    }
    (!w.is_empty() && w != ".").then(|| w.to_string())
}
