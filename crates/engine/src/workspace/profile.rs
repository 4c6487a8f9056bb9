//! Assembly profiles: how a folder becomes a prompt, as data
//! (`assets/profiles/*.yaml`, or a folder named by
//! `PROMPT_INSPECTOR_PROFILES`). `layered` is this tool's own design;
//! `openclaw` and `claude-code` follow those agents' documentation. A
//! profile is detected from the files a folder holds, and the detection is
//! explained; `--profile` or `profile:` in workspace.yaml overrides it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::workspace::reader::{MAX_FILE_BYTES, Reader, files_with_extension, read_text_file};

const BUNDLED: [&str; 3] = [
    include_str!("../../../../assets/profiles/layered.yaml"),
    include_str!("../../../../assets/profiles/openclaw.yaml"),
    include_str!("../../../../assets/profiles/claude-code.yaml"),
];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Detect {
    #[serde(default)]
    pub all_of: Vec<String>,
    #[serde(default)]
    pub any_of: Vec<String>,
    #[serde(default)]
    pub none_of: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileFile {
    pub name: String,
    /// Order in the prompt (lower first).
    #[serde(default)]
    pub rank: i64,
    /// Below the cache boundary (changes often).
    #[serde(default)]
    pub dynamic: bool,
    /// No missing-file marker when absent.
    #[serde(default)]
    pub optional: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Section {
    #[serde(default)]
    pub title: Option<String>,
    /// A line added to the title when SOUL.md is present.
    #[serde(default)]
    pub soul_hint: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Caps {
    pub per_file_chars: usize,
    pub total_chars: usize,
    #[serde(default)]
    pub min_remaining_chars: usize,
    pub head: f64,
    pub tail: f64,
    /// `{name}`, `{head}`, `{tail}`, `{total}`.
    pub marker: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Skills {
    #[serde(default)]
    pub dirs: Vec<String>,
    /// `openclaw` (<available_skills>) or `claude-code` (a list).
    #[serde(default)]
    pub format: String,
    /// A frontmatter key that hides a skill from the model when true.
    #[serde(default)]
    pub hide_key: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub intro: Option<String>,
    /// Subagent definitions (`.claude/agents/*.md`).
    #[serde(default)]
    pub agents_dir: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Imports {
    pub max_depth: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub dir: String,
    #[serde(default)]
    pub note: Option<String>,
}

/// One profile, as read from its YAML file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub name: String,
    pub agent: String,
    pub version: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub detect: Detect,
    /// Between the fragments of a block.
    #[serde(default)]
    pub separator: Option<String>,
    #[serde(default)]
    pub files: Vec<ProfileFile>,
    /// `{path}` (absolute), `{name}`, `{kind}`.
    #[serde(default)]
    pub file_heading: Option<String>,
    #[serde(default)]
    pub missing_marker: Option<String>,
    #[serde(default)]
    pub stable: Section,
    #[serde(default)]
    pub dynamic: Section,
    #[serde(default)]
    pub caps: Option<Caps>,
    #[serde(default)]
    pub frontmatter_keys: Vec<String>,
    #[serde(default)]
    pub skills: Option<Skills>,
    #[serde(default)]
    pub imports: Option<Imports>,
    #[serde(default)]
    pub memory: Option<Memory>,
    /// Where it was read from (a file of `PROMPT_INSPECTOR_PROFILES`, or
    /// `bundled profile`), for messages.
    #[serde(skip)]
    pub origin: String,
}

/// The profile a workspace is assembled with, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chosen {
    pub name: String,
    pub why: String,
}

/// Every known profile.
#[derive(Debug, Clone)]
pub struct Profiles {
    pub all: Vec<Profile>,
}

/// Most bytes one string of a profile may hold (a heading, a marker, a
/// title); the separator, repeated between every two fragments of a block,
/// at most [`MAX_PROFILE_SEPARATOR`].
pub const MAX_PROFILE_STRING: usize = 64 * 1024;
pub const MAX_PROFILE_SEPARATOR: usize = 1024;
/// Most entries of one list of a profile (files, skill folders, keys).
pub const MAX_PROFILE_LIST: usize = 1000;
/// Deepest `imports.max_depth` (Claude Code's is 4; each hop is a frame).
pub const MAX_IMPORT_DEPTH: usize = 64;

fn parse(text: &str, origin: &str) -> Result<Profile, String> {
    let parsed = std::panic::catch_unwind(|| serde_saphyr::from_str::<Profile>(text));
    match parsed {
        Ok(Ok(mut p)) => {
            check_bounds(&p, origin)?;
            p.origin = origin.to_string();
            Ok(p)
        }
        Ok(Err(e)) => Err(format!(
            "{origin}: {}",
            e.to_string().lines().next().unwrap_or("invalid profile")
        )),
        Err(_) => Err(format!("{origin}: the YAML parser failed")),
    }
}

/// Refuses a profile with a string or a list over its limit, naming the
/// file and the field (`files[3].name`).
fn check_bounds(p: &Profile, origin: &str) -> Result<(), String> {
    if let Some(i) = &p.imports
        && i.max_depth > MAX_IMPORT_DEPTH
    {
        return Err(format!(
            "{origin}: imports.max_depth is {}, over the limit of {MAX_IMPORT_DEPTH}",
            i.max_depth
        ));
    }
    let tree = serde_json::to_value(p).map_err(|e| format!("{origin}: {e}"))?;
    check_value(&tree, "", origin)
}

fn check_value(v: &serde_json::Value, field: &str, origin: &str) -> Result<(), String> {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            let max = if field == "separator" {
                MAX_PROFILE_SEPARATOR
            } else {
                MAX_PROFILE_STRING
            };
            if s.len() > max {
                return Err(format!(
                    "{origin}: {field} is {} bytes, over the limit of {} bytes ({} KiB) for a profile's text",
                    s.len(),
                    max,
                    max / 1024
                ));
            }
        }
        Value::Array(items) => {
            if items.len() > MAX_PROFILE_LIST {
                return Err(format!(
                    "{origin}: {field} has {} entries, over the limit of {MAX_PROFILE_LIST}",
                    items.len()
                ));
            }
            for (i, x) in items.iter().enumerate() {
                check_value(x, &format!("{field}[{i}]"), origin)?;
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let f = if field.is_empty() {
                    k.clone()
                } else {
                    format!("{field}.{k}")
                };
                check_value(x, &f, origin)?;
            }
        }
        _ => {}
    }
    Ok(())
}

impl Profiles {
    /// The bundled profiles.
    pub fn bundled() -> Profiles {
        Profiles {
            all: BUNDLED
                .iter()
                .map(|t| parse(t, "bundled profile").expect("bundled profiles are valid"))
                .collect(),
        }
    }

    /// The bundled profiles, with those of `dir` (each `*.yaml` there; one
    /// with a bundled name replaces it): the folder the caller read from
    /// `PROMPT_INSPECTOR_PROFILES`.
    pub fn load_from(dir: Option<&Path>) -> Result<Profiles, String> {
        let mut p = Profiles::bundled();
        let Some(dir) = dir else {
            return Ok(p);
        };
        let names = files_with_extension(dir, &["yaml", "yml"])
            .map_err(|e| format!("PROMPT_INSPECTOR_PROFILES {}: {e}", dir.display()))?;
        for path in names {
            let text = read_text_file(&path, MAX_FILE_BYTES)?;
            let profile = parse(&text, &path.display().to_string())?;
            p.all.retain(|x| x.name != profile.name);
            p.all.push(profile);
        }
        Ok(p)
    }

    pub fn get(&self, name: &str) -> Option<&Profile> {
        self.all.iter().find(|p| p.name == name)
    }

    pub fn names(&self) -> Vec<String> {
        self.all.iter().map(|p| p.name.clone()).collect()
    }

    /// Which profile fits the folder, and why (`layered` when none does).
    pub fn detect(&self, r: &Reader) -> Chosen {
        for p in self.all.iter().filter(|p| p.name != "layered") {
            let d = &p.detect;
            let all = d.all_of.iter().all(|f| r.exists(f));
            let present: Vec<&str> = d
                .any_of
                .iter()
                .filter(|f| r.exists(f))
                .map(String::as_str)
                .collect();
            let none = !d.none_of.iter().any(|f| r.exists(f));
            if all && (d.any_of.is_empty() || !present.is_empty()) && none {
                let mut seen: Vec<&str> = d.all_of.iter().map(String::as_str).collect();
                seen.extend(present);
                let absent = if d.none_of.is_empty() {
                    String::new()
                } else {
                    format!(", no {}", d.none_of.join(" or "))
                };
                return Chosen {
                    name: p.name.clone(),
                    why: format!("{} present{absent}", list(&seen)),
                };
            }
        }
        let why = if r.exists("workspace.yaml") {
            "workspace.yaml present".to_string()
        } else if r.exists("fragments") {
            "fragments/ present".to_string()
        } else {
            "no other agent's layout recognised".to_string()
        };
        Chosen {
            name: "layered".into(),
            why,
        }
    }
}

/// `A`, `A and B`, `A, B and C`.
fn list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [a] => a.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// UTF-16 length, as the JavaScript agents count characters.
pub fn js_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// The longest prefix of `s` of at most `units` UTF-16 units.
pub fn js_prefix(s: &str, units: usize) -> &str {
    let mut n = 0;
    for (i, c) in s.char_indices() {
        n += c.len_utf16();
        if n > units {
            return &s[..i];
        }
    }
    s
}

/// The longest suffix of `s` of at most `units` UTF-16 units.
pub fn js_suffix(s: &str, units: usize) -> &str {
    let mut n = 0;
    for (i, c) in s.char_indices().rev() {
        n += c.len_utf16();
        if n > units {
            return &s[i + c.len_utf8()..];
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_profiles_load_and_name_their_version() {
        let p = Profiles::bundled();
        assert_eq!(p.names(), vec!["layered", "openclaw", "claude-code"]);
        for x in &p.all {
            assert!(!x.version.is_empty() && !x.agent.is_empty(), "{}", x.name);
        }
        let oc = p.get("openclaw").unwrap();
        assert_eq!(oc.caps.as_ref().unwrap().per_file_chars, 20_000);
        assert_eq!(oc.files[0].name, "AGENTS.md");
    }

    #[test]
    fn a_string_over_its_limit_is_an_error_naming_the_field() {
        let big = "x".repeat(MAX_PROFILE_STRING + 1);
        let text =
            format!("name: t\nagent: a\nversion: '1'\nfiles:\n  - name: A.md\n  - name: {big}\n");
        let e = parse(&text, "/p/t.yaml").unwrap_err();
        assert!(
            e.starts_with("/p/t.yaml: files[1].name is 65537 bytes"),
            "{e}"
        );
        let sep = format!(
            "name: t\nagent: a\nversion: '1'\nseparator: '{}'\n",
            "-".repeat(2000)
        );
        assert!(parse(&sep, "s").unwrap_err().contains("separator"));
        let ok = parse(
            "name: t\nagent: a\nversion: '1'\nfile_heading: '# {name}'\n",
            "o",
        );
        assert_eq!(ok.unwrap().origin, "o");
        let deep = "name: t\nagent: a\nversion: '1'\nimports:\n  max_depth: 100000\n";
        assert!(parse(deep, "d").unwrap_err().contains("imports.max_depth"));
    }

    #[test]
    fn utf16_cuts() {
        assert_eq!(js_len("a界😀"), 4);
        assert_eq!(js_prefix("a界😀b", 3), "a界");
        assert_eq!(js_suffix("a界😀b", 3), "😀b");
        assert_eq!(list(&["A", "B", "C"]), "A, B and C");
    }
}
