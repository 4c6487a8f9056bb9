//! Assembly profiles: how a folder becomes a prompt, as data
//! (`assets/profiles/*.yaml`, or a folder named by
//! `PROMPT_INSPECTOR_PROFILES`). `layered` is this tool's own design;
//! `openclaw`, `claude-code` and `codex` follow those agents, each profile
//! naming the agent's version it was verified against (or the docs it was
//! written from). Several versions of one agent ship side by side, known
//! as `name@version`; a bare name is the newest. A profile is detected from
//! the files a folder holds, and the detection is explained (the agent and
//! version assumed); `--profile` or `profile:` in workspace.yaml overrides
//! it.

use serde::{Deserialize, Serialize};

pub use crate::text::{js_len, js_prefix, js_suffix};
use crate::workspace::agent::Agent;

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
    /// The file's own cap: the smaller of this and `caps.per_file_chars`
    /// (OpenClaw 2026.9's USER.md: 4,000).
    #[serde(default)]
    pub max_chars: Option<usize>,
    /// Cut as head + policy digest + tail instead (OpenClaw 2026.9's
    /// AGENTS.md).
    #[serde(default)]
    pub policy_digest: Option<PolicyDigest>,
    /// `{kind}` of its heading (Claude Code: `project instructions, checked
    /// into the codebase`).
    #[serde(default)]
    pub kind: Option<String>,
    /// A folder of rule files, not a file (Claude Code's `.claude/rules`):
    /// every `.md` under it, each a memory file of `kind`, or on demand
    /// when its frontmatter names `paths:`.
    #[serde(default)]
    pub rules: bool,
}

/// OpenClaw 2026.9's cut of AGENTS.md: the head, a digest of the policy
/// lines (headings, list items, lines naming a rule), the tail, each a
/// share of the file's cap; the markers name what was kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyDigest {
    pub head: f64,
    pub digest: f64,
    pub tail: f64,
    pub max_line_chars: usize,
    /// A line that is a heading or a list item (always a candidate).
    pub structure: String,
    /// Any other line that is a candidate.
    pub candidate: String,
    /// Candidates selected first.
    pub high_priority: String,
    /// A fence line (resets the prose line attached to a candidate).
    pub fence: String,
    /// `{name}`.
    pub cut_marker: String,
    /// `{name}`.
    pub digest_title: String,
    /// `{n}`.
    pub omitted: String,
    /// `{name}`, `{head}`, `{digest}`, `{tail}`, `{total}`.
    pub summary: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Section {
    #[serde(default)]
    pub title: Option<String>,
    /// What the section is called in the report (else its title's first
    /// line).
    #[serde(default)]
    pub name: Option<String>,
    /// A line added to the title when SOUL.md is present.
    #[serde(default)]
    pub soul_hint: Option<String>,
    /// Closes the block, right after its last file (`\n</system-reminder>`).
    #[serde(default)]
    pub footer: Option<String>,
    /// `system` (default) or `first_user_message`.
    #[serde(default)]
    pub placement: crate::workspace::settings::Placement,
    /// A section put before the title when a file was cut (OpenClaw
    /// 2026.9's `## Bootstrap Context Notice`).
    #[serde(default)]
    pub notice: Option<String>,
    /// Lines added to the title, in this order, for the files sent
    /// (OpenClaw 2026.9: `SOUL.md: persona/tone. …`).
    #[serde(default)]
    pub intros: Vec<Intro>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Intro {
    pub file: String,
    pub line: String,
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
    /// OpenClaw 2026.9: the marker's length (and the two newlines around
    /// it) comes off the cap before head and tail are shared out, so the
    /// cut file is at most the cap.
    #[serde(default)]
    pub marker_in_cap: bool,
    /// With `marker_in_cap`: the marker used when the cap leaves under
    /// `min_content_chars` for the text (`{head}`, `{tail}`, `{total}`).
    #[serde(default)]
    pub compact_marker: Option<String>,
    #[serde(default)]
    pub min_content_chars: usize,
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
    /// The same folders in the user's home too (`~/.claude/skills`,
    /// `~/.claude/agents`), read with `--user-memory`, theirs listed first
    /// and winning a name.
    #[serde(default)]
    pub in_home: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Imports {
    pub max_depth: usize,
    /// `{kind}` of an imported file's heading; none: its parent's kind.
    #[serde(default)]
    pub kind: Option<String>,
}

/// The user's own memory file, read with `--user-memory`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UserMemory {
    /// Under the home folder (`.claude/CLAUDE.md`).
    pub path: String,
    #[serde(default)]
    pub kind: Option<String>,
}

/// Memory files in folders below the working folder, which the agent adds
/// on demand (Claude Code: once it reads a file in that folder, one block
/// per file in that message), looked for under the profile's file names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NestedMemory {
    /// One file's block: `{path}` (absolute) and `{text}` (as read, its
    /// comments and frontmatter left out as the profile says, not trimmed).
    pub block: String,
    /// Why it is not in the first request: `{folder}`.
    pub note: String,
    /// Why a rule with `paths:` is not in the first request: `{paths}`.
    #[serde(default)]
    pub rule_note: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub dir: String,
    #[serde(default)]
    pub note: Option<String>,
}

/// A file the agent's users have in its folder that this release does not
/// load (OpenClaw 2026.9's TOOLS.md), and why: shown as a row not sent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotLoaded {
    pub name: String,
    pub note: String,
}

/// Which of the profile's files a kind of session gets: `only` these, or
/// all `without` these.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionKind {
    #[serde(default)]
    pub only: Option<Vec<String>>,
    #[serde(default)]
    pub without: Vec<String>,
    /// Said of a file left out (`{kind}`, `{name}`).
    #[serde(default)]
    pub note: Option<String>,
}

impl SessionKind {
    pub fn sends(&self, name: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|o| o.iter().any(|n| n == name))
            && !self.without.iter().any(|n| n == name)
    }
}

/// One profile, as read from its YAML file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// One of the known agents' names ([`Agent`]); checked when read.
    pub name: String,
    pub agent: String,
    /// The version this profile follows (`2026.9`): with the name, its id
    /// (`openclaw@2026.9`); versions of one name compare part by part.
    pub version: String,
    /// The agent's release the profile was checked against, on its code
    /// and recorded requests (`2026.9.6`).
    #[serde(default)]
    pub verified: Option<String>,
    /// What it was written from when not verified (`the docs of …`).
    #[serde(default)]
    pub written_from: Option<String>,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub detect: Detect,
    /// Between the fragments of a block.
    #[serde(default)]
    pub separator: Option<String>,
    #[serde(default)]
    pub files: Vec<ProfileFile>,
    /// Files of the folder this release no longer loads, each said.
    #[serde(default)]
    pub not_loaded: Vec<NotLoaded>,
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
    /// Frontmatter left out of a file's text (default: OpenClaw's loader
    /// strips it, Claude Code's keeps it).
    #[serde(default)]
    pub strip_frontmatter: Option<bool>,
    /// Block-level HTML comments (`<!-- … -->` lines) left out.
    #[serde(default)]
    pub strip_html_comments: bool,
    /// Skills and files in one stable system block (its titles as text in
    /// it): OpenClaw 2026.9's one breakpoint on the stable prefix.
    #[serde(default)]
    pub one_stable_block: bool,
    #[serde(default)]
    pub user_memory: Option<UserMemory>,
    #[serde(default)]
    pub nested_memory: Option<NestedMemory>,
    /// Codex: the project files' bytes in all (cut at the byte, no marker).
    #[serde(default)]
    pub max_project_bytes: Option<usize>,
    /// Codex: between the user's own file and the project's.
    #[serde(default)]
    pub project_separator: Option<String>,
    /// Codex: said of a nested AGENTS.md (`{path}`).
    #[serde(default)]
    pub nested_note: Option<String>,
    #[serde(default)]
    pub skills: Option<Skills>,
    #[serde(default)]
    pub imports: Option<Imports>,
    #[serde(default)]
    pub memory: Option<Memory>,
    /// The bootstrap files each kind of session gets (OpenClaw: a subagent
    /// only AGENTS.md, a cron job four files, a group chat all but
    /// MEMORY.md), by kind.
    #[serde(default)]
    pub session_kinds: std::collections::BTreeMap<String, SessionKind>,
    /// The agent's own parts as recorded from its release: a
    /// `*.builtin.json` file beside the profile (bundled, or in the same
    /// folder of `PROMPT_INSPECTOR_PROFILES`).
    #[serde(default)]
    pub builtin: Option<String>,
    /// That file, read.
    #[serde(skip)]
    pub parts: Option<std::sync::Arc<crate::workspace::agents::builtin::Builtin>>,
    /// Where it was read from (a file of `PROMPT_INSPECTOR_PROFILES`, or
    /// `bundled profile`), for messages.
    #[serde(skip)]
    pub origin: String,
    /// The agent its name names.
    #[serde(skip)]
    pub kind: Agent,
    /// Its parts were learned from the user's own request (`observed in
    /// your request of …`): preferred over the bundled recordings.
    #[serde(skip)]
    pub observed: Option<String>,
}

impl Profile {
    /// `name@version`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    /// `OpenClaw 2026.9, verified against 2026.9.6` (or `written from …`).
    pub fn label(&self) -> String {
        if let Some(o) = &self.observed {
            return format!("{} {}, {o}", self.agent, self.version);
        }
        match (&self.verified, &self.written_from) {
            (Some(v), _) => format!("{} {}, verified against {v}", self.agent, self.version),
            (None, Some(w)) => format!("{} {}, written from {w}", self.agent, self.version),
            (None, None) => format!("{} {}", self.agent, self.version),
        }
    }
}

/// Orders two versions part by part (`2026.10` after `2026.9`), numbers
/// before words.
pub fn version_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let parts = |s: &str| -> Vec<(u64, String)> {
        s.split(['.', '-'])
            .map(|p| (p.parse::<u64>().unwrap_or(u64::MAX), p.to_string()))
            .collect()
    };
    parts(a).cmp(&parts(b))
}

/// The profile a workspace is assembled with (its name and version), and
/// why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chosen {
    pub name: String,
    #[serde(default)]
    pub version: String,
    pub why: String,
    /// The agent the profile follows.
    #[serde(skip)]
    pub agent: Agent,
    /// Its user-level memory file under the home folder
    /// (`.claude/CLAUDE.md`), read with `--user-memory`.
    #[serde(skip)]
    pub user_memory: Option<String>,
}

impl Chosen {
    /// `name@version` (the name alone when no version is known).
    pub fn id(&self) -> String {
        if self.version.is_empty() {
            self.name.clone()
        } else {
            format!("{}@{}", self.name, self.version)
        }
    }
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
