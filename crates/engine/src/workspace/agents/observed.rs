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
use crate::workspace::profile::{Profile, version_cmp};
use crate::workspace::profiles::Profiles;
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

impl Profiles {
    /// The newest profile of a name: the one learned from the user's
    /// most recent request when there is one (the release the user runs),
    /// else the newest version.
    pub fn newest(&self, name: &str) -> Option<&Profile> {
        let seen = |p: &Profile| {
            p.parts
                .as_ref()
                .and_then(|b| b.observed.as_ref())
                .map(|o| o.date.clone())
        };
        let of_name = || self.all.iter().filter(|p| p.name == name);
        of_name()
            .filter(|p| p.observed.is_some())
            .max_by(|a, b| {
                seen(a)
                    .cmp(&seen(b))
                    .then_with(|| version_cmp(&a.version, &b.version))
            })
            .or_else(|| of_name().max_by(|a, b| version_cmp(&a.version, &b.version)))
    }

    /// [`Profiles::load_from`], then the observations kept in `observed`
    /// (the user's data folder; one that cannot be used is passed over:
    /// `agents` names it).
    pub fn load_with(dir: Option<&Path>, observed: Option<&Path>) -> Result<Profiles, Error> {
        let mut p = Profiles::load_from(dir)?;
        if let Some(o) = observed {
            p.add_observed(load(o).0);
        }
        Ok(p)
    }

    /// Adds a profile for each observation (`agents learn`): the newest
    /// bundled or user profile of its agent, with the observed parts, the
    /// observed release as its version. One with the id of an existing
    /// profile replaces it.
    pub fn add_observed(&mut self, kept: Vec<Kept>) {
        for k in kept {
            let Some(o) = k.parts.observed.clone() else {
                continue;
            };
            let base = self
                .all
                .iter()
                .filter(|p| p.name == o.profile && p.observed.is_none() && p.parts.is_some())
                .max_by(|a, b| version_cmp(&a.version, &b.version));
            let Some(mut p) = base.cloned() else {
                continue;
            };
            p.version = k.parts.release.clone();
            p.observed = Some(k.parts.provenance());
            p.origin = k.path.display().to_string();
            p.parts = Some(std::sync::Arc::new(k.parts));
            self.all.retain(|x| x.id() != p.id());
            self.all.push(p);
        }
    }
}
