//! Loading a workspace folder: every file is read through one guarded reader
//! (no path or link may leave the workspace; size, binary and UTF-8 checks),
//! and every problem becomes one diagnostic while loading goes on.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::diag::{Diagnostic, FileDiags};
use super::expr::Expr;
use super::session::{Session, parse_session};
use super::settings::{Settings, parse_settings};
use super::sources;
use super::yaml;

/// Files larger than this are skipped.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FragmentKind {
    Markdown,
    Yaml,
    Skill { name: String, always: bool },
    Tool { name: String },
}

/// A fragment as declared, before a session or a budget is applied.
#[derive(Debug, Clone, PartialEq)]
pub struct FragmentDef {
    pub id: String,
    pub layer: u8,
    pub priority: i64,
    /// `content` (literal) or `template` / Markdown (interpolated).
    pub body: String,
    pub interpolate: bool,
    pub summary: Option<String>,
    pub prefix: String,
    pub suffix: String,
    pub cacheable: Option<bool>,
    pub enabled_when: Option<String>,
    pub condition: Option<Expr>,
    /// Set when `enabled_when` does not parse: the fragment is disabled.
    pub condition_error: Option<String>,
    /// Workspace-relative file the fragment comes from.
    pub source: String,
    /// The `source` label a YAML fragment may carry.
    pub source_label: Option<String>,
    pub line: usize,
    /// Line where the body text starts (for diagnostics inside it).
    pub body_line: usize,
    pub truncate: bool,
    pub kind: FragmentKind,
}

/// An Anthropic tool definition from `tools/*.json`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    pub name: String,
    /// `{name, description, input_schema}` as sent in a request.
    pub definition: serde_json::Value,
    pub fragment_id: String,
    pub source: String,
}

#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    pub settings: Settings,
    pub fragments: Vec<FragmentDef>,
    pub tools: Vec<ToolDef>,
    pub sessions: Vec<Session>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every file read: relative path → SHA-256 (hex).
    pub files: BTreeMap<String, String>,
}

impl Workspace {
    pub fn session(&self, name: &str) -> Option<&Session> {
        self.sessions.iter().find(|s| s.name == name)
    }

    pub fn default_session(&self) -> &Session {
        self.settings
            .default_session
            .as_deref()
            .and_then(|n| self.session(n))
            .unwrap_or(&self.sessions[0])
    }

    pub fn tool_names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.name.clone()).collect()
    }
}

const OUTSIDE: &str =
    "points outside the workspace through a symbolic link (refused; its target was not read)";

/// Reads files of one workspace, refusing anything outside it.
pub struct Reader {
    root: PathBuf,
    pub files: BTreeMap<String, String>,
    pub diags: Vec<Diagnostic>,
}

/// Why a relative path may not be used.
pub fn check_relative(rel: &str) -> Result<PathBuf, String> {
    let p = Path::new(rel);
    if rel.is_empty() {
        return Err("empty path".into());
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(format!("path '{rel}' leaves the workspace (refused)"));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!(
                    "path '{rel}' is absolute: only paths inside the workspace are allowed (refused)"
                ));
            }
        }
    }
    Ok(out)
}

fn rel_string(p: &Path) -> String {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

impl Reader {
    pub fn new(root: &Path) -> Result<Reader, String> {
        let root = root
            .canonicalize()
            .map_err(|e| format!("cannot open workspace {}: {e}", root.display()))?;
        if !root.is_dir() {
            return Err(format!("{} is not a folder", root.display()));
        }
        std::fs::read_dir(&root)
            .map_err(|e| format!("cannot read workspace {}: {e}", root.display()))?;
        Ok(Reader {
            root,
            files: BTreeMap::new(),
            diags: Vec::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `rel` to a path inside the workspace, or says why not. Links
    /// are followed only to check where they lead; a target outside is never
    /// opened.
    fn resolve(&self, rel: &str) -> Result<PathBuf, String> {
        let clean = check_relative(rel)?;
        let full = self.root.join(&clean);
        match full.canonicalize() {
            Ok(real) if real.starts_with(&self.root) => Ok(real),
            Ok(_) => Err(OUTSIDE.into()),
            Err(e) if full.symlink_metadata().is_ok() => {
                Err(format!("broken symbolic link or unreadable path: {e}"))
            }
            Err(e) => Err(format!("cannot be read: {e}")),
        }
    }

    /// Whether a relative path exists inside the workspace (no diagnostics).
    pub fn exists(&self, rel: &str) -> bool {
        self.root.join(rel).symlink_metadata().is_ok()
    }

    /// Reads a workspace file as UTF-8 text. Every refusal is one diagnostic
    /// on `rel` itself.
    pub fn read(&mut self, rel: &str) -> Option<String> {
        match self.read_checked(rel) {
            Ok(text) => Some(text),
            Err((line, msg)) => {
                self.diags.push(Diagnostic::error(rel, line, msg));
                None
            }
        }
    }

    /// Like [`Reader::read`], but the error is returned for the caller to
    /// report (for paths named inside another file).
    ///
    /// The file is opened once and the opened handle is checked (a regular
    /// file, inside the workspace, at most 8 MiB), so a file swapped for a
    /// link between a check and the read cannot leak what the link points
    /// to. A UTF-8 byte order mark is stripped and line endings become LF.
    pub fn read_checked(&mut self, rel: &str) -> Result<String, (Option<usize>, String)> {
        // A cheap first check so that an obvious link out is never opened.
        let path = self.resolve(rel).map_err(|m| (None, m))?;
        let (mut file, _) =
            super::fsutil::open_regular(&path, MAX_FILE_BYTES).map_err(|m| (None, m))?;
        if let Some(real) = super::fsutil::real_path(&file)
            && !real.starts_with(&self.root)
        {
            return Err((None, OUTSIDE.into()));
        }
        let bytes = super::fsutil::read_capped(&mut file, MAX_FILE_BYTES).map_err(|m| (None, m))?;
        if bytes.contains(&0) {
            return Err((None, "binary file (contains NUL bytes), skipped".into()));
        }
        let hash = hex(&Sha256::digest(&bytes));
        match String::from_utf8(bytes) {
            Ok(text) => {
                self.files.insert(rel_string(Path::new(rel)), hash);
                Ok(super::fsutil::normalize_text(text))
            }
            Err(e) => {
                let valid = e.utf8_error().valid_up_to();
                let bytes = e.into_bytes();
                let line = bytes[..valid].iter().filter(|b| **b == b'\n').count() + 1;
                Err((
                    Some(line),
                    format!("not valid UTF-8 (byte {valid}); save the file as UTF-8"),
                ))
            }
        }
    }

    /// Sorted names of the entries of a workspace folder (empty when absent).
    /// A folder that leads outside the workspace is refused with a diagnostic.
    pub fn list(&mut self, rel: &str) -> Vec<(String, bool)> {
        let full = self.root.join(rel);
        if full.symlink_metadata().is_err() {
            return Vec::new();
        }
        let dir = match self.resolve(rel) {
            Ok(d) => d,
            Err(m) => {
                self.diags.push(Diagnostic::error(rel, None, m));
                return Vec::new();
            }
        };
        let Ok(rd) = std::fs::read_dir(&dir) else {
            self.diags
                .push(Diagnostic::error(rel, None, "folder cannot be read"));
            return Vec::new();
        };
        let mut out: Vec<(String, bool)> = Vec::new();
        for e in rd.filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let entry_rel = format!("{rel}/{name}");
            if e.file_type().map(|t| t.is_symlink()).unwrap_or(false)
                && let Err(m) = self.resolve(&entry_rel)
            {
                self.diags.push(Diagnostic::error(entry_rel, None, m));
                continue;
            }
            out.push((name, e.path().is_dir()));
        }
        out.sort();
        out
    }
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Loads a workspace. `Err` only when the folder itself cannot be read; every
/// other problem is a diagnostic in the result.
pub fn load(root: &Path) -> Result<Workspace, String> {
    let mut r = Reader::new(root)?;
    let mut diags = Vec::new();

    let settings = if r.exists("workspace.yaml") {
        match r.read("workspace.yaml") {
            Some(text) => {
                let mut d = FileDiags {
                    file: "workspace.yaml",
                    out: &mut diags,
                };
                match yaml::parse(&text) {
                    Ok(node) => parse_settings(&node, &text, &mut d),
                    Err(e) => {
                        d.error(
                            e.line,
                            format!("invalid YAML: {} (defaults used)", e.message),
                        );
                        Settings::default()
                    }
                }
            }
            None => Settings::default(),
        }
    } else {
        Settings::default()
    };

    let mut fragments = Vec::new();
    let mut tools = Vec::new();
    sources::load_markdown_files(&mut r, &settings, &mut fragments, &mut diags);
    sources::load_skills(&mut r, &mut fragments, &mut diags);
    super::tooldefs::load_tools(&mut r, &mut fragments, &mut tools, &mut diags);
    sources::load_fragment_files(&mut r, &mut fragments, &mut diags);
    let fragments = sources::dedupe(fragments, &mut diags);

    let mut sessions = Vec::new();
    for (name, is_dir) in r.list("sessions") {
        if is_dir || !(name.ends_with(".yaml") || name.ends_with(".yml")) {
            continue;
        }
        let rel = format!("sessions/{name}");
        let Some(text) = r.read(&rel) else { continue };
        let stem = name
            .trim_end_matches(".yaml")
            .trim_end_matches(".yml")
            .to_string();
        let mut d = FileDiags {
            file: &rel,
            out: &mut diags,
        };
        match yaml::parse(&text) {
            Ok(node) => {
                let mut read_transcript = |path: &str, line: usize| match r.read_checked(path) {
                    Ok(t) => Some(t),
                    Err((_, msg)) => {
                        d.out.push(Diagnostic::error(
                            rel.as_str(),
                            Some(line),
                            format!("transcript '{path}': {msg}"),
                        ));
                        None
                    }
                };
                let mut d2 = FileDiags {
                    file: &rel,
                    out: &mut Vec::new(),
                };
                let parsed = parse_session(&node, &text, &stem, &mut d2, &mut read_transcript);
                let extra = std::mem::take(d2.out);
                d.out.extend(extra);
                if let Some(s) = parsed {
                    if sessions.iter().any(|o: &Session| o.name == s.name) {
                        d.error(
                            Some(1),
                            format!("duplicate session name '{}' (ignored)", s.name),
                        );
                    } else {
                        sessions.push(s);
                    }
                }
            }
            Err(e) => d.error(
                e.line,
                format!("invalid YAML: {} (session skipped)", e.message),
            ),
        }
    }
    if sessions.is_empty() {
        sessions.push(Session {
            name: "default".into(),
            description: "every tool enabled, no flags".into(),
            ..Session::default()
        });
    }
    // Reader diagnostics (refused paths, bad encodings) first, by file.
    let mut all = std::mem::take(&mut r.diags);
    all.extend(diags);
    Ok(Workspace {
        root: r.root().to_path_buf(),
        settings,
        fragments,
        tools,
        sessions,
        diagnostics: all,
        files: r.files,
    })
}
