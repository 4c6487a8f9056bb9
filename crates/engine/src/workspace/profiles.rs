//! Every known assembly profile: the bundled ones (`assets/profiles/`),
//! those of a folder named by `PROMPT_INSPECTOR_PROFILES`, and those
//! learned from the user's requests; each profile file parsed within its
//! bounds, then the one for a folder detected (and why) or named.

use std::path::Path;

use crate::error::Error;
use crate::workspace::agent::Agent;
use crate::workspace::agents::builtin;
use crate::workspace::profile::{Chosen, Profile, version_cmp};
use crate::workspace::reader::{MAX_FILE_BYTES, Reader, files_with_extension, read_text_file};

/// The bundled profiles, newest of each agent first.
const BUNDLED: [&str; 11] = [
    include_str!("../../assets/profiles/layered.yaml"),
    include_str!("../../assets/profiles/openclaw-2026.9.yaml"),
    include_str!("../../assets/profiles/openclaw-2026.7.yaml"),
    include_str!("../../assets/profiles/claude-code-2.1.332.yaml"),
    include_str!("../../assets/profiles/claude-code-2.1.yaml"),
    include_str!("../../assets/profiles/claude-code-2.0.yaml"),
    include_str!("../../assets/profiles/pi-0.73.yaml"),
    include_str!("../../assets/profiles/opencode-1.18.yaml"),
    include_str!("../../assets/profiles/codex-0.171.yaml"),
    include_str!("../../assets/profiles/codex-0.169.yaml"),
    include_str!("../../assets/profiles/gemini-0.61.yaml"),
];

/// Every known profile.
#[derive(Debug, Clone)]
pub struct Profiles {
    pub all: Vec<Profile>,
}

pub(crate) fn parse(text: &str, origin: &str) -> Result<Profile, Error> {
    let parsed = std::panic::catch_unwind(|| serde_saphyr::from_str::<Profile>(text));
    match parsed {
        Ok(Ok(mut p)) => {
            super::profile_bounds::check_bounds(&p, origin)?;
            p.kind = Agent::from_name(&p.name)
                .map_err(|e| Error::invalid(origin, format!("name: {e}")))?;
            p.origin = origin.to_string();
            Ok(p)
        }
        Ok(Err(e)) => Err(Error::invalid(
            origin,
            e.to_string().lines().next().unwrap_or("invalid profile"),
        )),
        Err(_) => Err(Error::invalid(origin, "the YAML parser failed")),
    }
}

impl Profiles {
    /// The bundled profiles.
    pub fn bundled() -> Profiles {
        Profiles {
            all: BUNDLED
                .iter()
                .map(|t| {
                    let mut p = parse(t, "bundled profile").expect("bundled profiles are valid");
                    p.parts = p.builtin.as_deref().map(|name| {
                        let (_, text) = builtin::BUNDLED
                            .iter()
                            .find(|(n, _)| *n == name)
                            .expect("a bundled profile's parts are bundled");
                        std::sync::Arc::new(
                            builtin::Builtin::parse(text, name).expect("bundled parts are valid"),
                        )
                    });
                    p
                })
                .collect(),
        }
    }

    /// The bundled profiles, with those of `dir` (each `*.yaml` there; one
    /// with a bundled name and version replaces it, a new version of a
    /// name is added and is the default if newest): the folder the caller
    /// read from `PROMPT_INSPECTOR_PROFILES`.
    pub fn load_from(dir: Option<&Path>) -> Result<Profiles, Error> {
        let mut p = Profiles::bundled();
        let Some(dir) = dir else {
            return Ok(p);
        };
        p.add_folder(dir)?;
        Ok(p)
    }

    fn add_folder(&mut self, dir: &Path) -> Result<(), Error> {
        let p = self;
        let names = files_with_extension(dir, &["yaml", "yml"]).map_err(|e| match e {
            Error::File { reason, .. } => Error::file(
                format!("PROMPT_INSPECTOR_PROFILES {}", dir.display()),
                reason,
            ),
            e => e,
        })?;
        for path in names {
            let text = read_text_file(&path, MAX_FILE_BYTES)?;
            let mut profile = parse(&text, &path.display().to_string())?;
            if let Some(name) = profile.builtin.clone() {
                profile.parts = Some(std::sync::Arc::new(own_parts(dir, &name, p)?));
            }
            p.all.retain(|x| x.id() != profile.id());
            p.all.push(profile);
        }
        Ok(())
    }

    /// `name@version` exactly, or the newest profile of `name`.
    pub fn get(&self, spec: &str) -> Option<&Profile> {
        match spec.split_once('@') {
            // The id (`claude-code@2.1`), else the release whose parts it
            // holds or that it was verified against (`claude-code@2.1.328`,
            // as a request or a session names it).
            Some((name, release)) => self.all.iter().find(|p| p.id() == spec).or_else(|| {
                self.all.iter().find(|p| {
                    p.name == name
                        && (p.parts.as_ref().is_some_and(|b| b.release == release)
                            || p.verified.as_deref() == Some(release))
                })
            }),
            None => self.newest(spec),
        }
    }

    /// The profile whose own parts were recorded from `release` of the
    /// agent its users name `agent` (`Claude Code`, `2.1.328`).
    pub fn with_parts_of(&self, agent: &str, release: &str) -> Option<&Profile> {
        self.all.iter().find(|p| {
            p.parts
                .as_ref()
                .is_some_and(|b| b.agent == agent && b.release == release)
        })
    }

    /// The profiles' names, each once, in order (what `--profile NAME`
    /// takes; `NAME@VERSION` picks an older one).
    pub fn names(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in &self.all {
            if !out.contains(&p.name) {
                out.push(p.name.clone());
            }
        }
        out
    }

    /// Every profile's id (`openclaw@2026.9`), the newest of each name
    /// first.
    pub fn ids(&self) -> Vec<String> {
        let mut out = Vec::new();
        for name in self.names() {
            let mut v: Vec<&Profile> = self.all.iter().filter(|p| p.name == name).collect();
            v.sort_by(|a, b| version_cmp(&b.version, &a.version));
            out.extend(v.into_iter().map(Profile::id));
        }
        out
    }

    /// The choice of a profile the caller named (`--profile`, workspace.yaml).
    pub fn chosen(&self, spec: &str, why: &str) -> Option<Chosen> {
        let p = self.get(spec)?;
        let newest =
            !spec.contains('@') && self.all.iter().filter(|x| x.name == p.name).count() > 1;
        let why = if newest {
            format!("{why}; the newest {} profile: {}", p.name, p.label())
        } else {
            why.to_string()
        };
        Some(Chosen {
            name: p.name.clone(),
            version: p.version.clone(),
            why,
            agent: p.kind,
            user_memory: p.user_memory.as_ref().map(|u| u.path.clone()),
        })
    }

    /// Which profile fits the folder, and why (`layered` when none does):
    /// the newest version of each agent, the files seen, and the agent and
    /// version assumed.
    pub fn detect(&self, r: &Reader) -> Chosen {
        let matching = self.agents_of(r);
        if let Some((p, seen)) = matching.first() {
            let d = &p.detect;
            let absent = if d.none_of.is_empty() {
                String::new()
            } else {
                format!(", no {}", d.none_of.join(" or "))
            };
            // Another agent's files too (a team that runs both): said,
            // with how to read the folder as that agent's.
            let others: String = matching[1..]
                .iter()
                .map(|(o, files)| {
                    format!(
                        "; {} is {}'s too (--profile {} reads it as {})",
                        list(files),
                        o.agent,
                        o.name,
                        o.agent
                    )
                })
                .collect();
            return Chosen {
                name: p.name.clone(),
                version: p.version.clone(),
                why: format!(
                    "{} present{absent}: assumed {}{others}",
                    list(seen),
                    p.label()
                ),
                agent: p.kind,
                user_memory: p.user_memory.as_ref().map(|u| u.path.clone()),
            };
        }
        let why = if r.exists("workspace.yaml") {
            "workspace.yaml present".to_string()
        } else if r.exists("fragments") {
            "fragments/ present".to_string()
        } else {
            "no other agent's layout recognised".to_string()
        };
        Chosen {
            name: Agent::Layered.name().into(),
            version: self
                .newest(Agent::Layered.name())
                .map_or(String::new(), |p| p.version.clone()),
            why,
            agent: Agent::Layered,
            user_memory: None,
        }
    }

    /// The agent whose layout the folder has (the newest profile of each
    /// agent, by its `detect` files), with the files that told it.
    pub fn agent_of<'p>(&'p self, r: &Reader) -> Option<(&'p Profile, Vec<&'p str>)> {
        self.agents_of(r).into_iter().next()
    }

    /// Every agent whose layout the folder has, the one assumed first.
    fn agents_of<'p>(&'p self, r: &Reader) -> Vec<(&'p Profile, Vec<&'p str>)> {
        self.names()
            .iter()
            .filter_map(|n| self.newest(n))
            .filter(|p| p.kind.is_real_agent())
            .filter_map(|p| {
                let d = &p.detect;
                let all = d.all_of.iter().all(|f| r.exists(f));
                let present: Vec<&str> = d
                    .any_of
                    .iter()
                    .filter(|f| r.exists(f))
                    .map(String::as_str)
                    .collect();
                let none = !d.none_of.iter().any(|f| r.exists(f));
                (all && (d.any_of.is_empty() || !present.is_empty()) && none).then(|| {
                    let mut seen: Vec<&str> = d.all_of.iter().map(String::as_str).collect();
                    seen.extend(present);
                    (p, seen)
                })
            })
            .collect()
    }
}

/// A profile's parts file: in its folder (a plain file name, read through
/// the guarded reader's file check), else the bundled one of that name.
fn own_parts(dir: &Path, name: &str, bundled: &Profiles) -> Result<builtin::Builtin, Error> {
    let plain = !name.contains(['/', '\\']) && name.ends_with(".json") && !name.starts_with('.');
    if !plain {
        return Err(Error::invalid(
            dir.display().to_string(),
            format!("builtin '{name}' must be a .json file name in the same folder"),
        ));
    }
    let path = dir.join(name);
    match read_text_file(&path, MAX_FILE_BYTES) {
        Ok(text) => builtin::Builtin::parse(&text, &path.display().to_string()),
        Err(e) => bundled
            .all
            .iter()
            .filter(|p| p.builtin.as_deref() == Some(name))
            .find_map(|p| p.parts.as_deref().cloned())
            .ok_or(e),
    }
}

/// `A`, `A and B`, `A, B and C`.
pub(crate) fn list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [a] => a.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
