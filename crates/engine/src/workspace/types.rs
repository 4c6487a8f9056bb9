//! What a loaded workspace is: fragments as declared, tool definitions,
//! sessions, settings, diagnostics, and the hash of every file read.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::workspace::diag::Diagnostic;
use crate::workspace::expr::Expr;
use crate::workspace::session::Session;
use crate::workspace::settings::Settings;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FragmentKind {
    Markdown,
    Yaml,
    Skill {
        name: String,
        always: bool,
    },
    Tool {
        name: String,
    },
    /// The agent's own text (its built-in skills and subagents, the words
    /// of its listing), as recorded from its release: shown and counted,
    /// never edited.
    Builtin {
        category: crate::workspace::agents::builtin::Category,
    },
}

/// What an agent's own loading rules already did to a fragment (an OpenClaw
/// character cap, a skill hidden from the model): shown as its status, with
/// the reason, whatever the budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", content = "reason", rename_all = "lowercase")]
pub enum Preset {
    Truncated(String),
    Dropped(String),
    Disabled(String),
}

/// The agent's own words around a file's text in its fragment: `head`
/// bytes before it, `tail` bytes after it; the file's own text is what
/// lies between, as the agent's `/context` and `traffic --against` count
/// the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentWords {
    pub head: usize,
    pub tail: usize,
    pub kind: WordsKind,
}

/// What the agent's words around a file are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordsKind {
    /// A heading before a memory file (Claude Code's "Contents of …:").
    Heading,
    /// A listing's entry around a skill's or subagent's description (its
    /// name before it, Claude Code's "(Tools: …)" after it).
    ListingEntry,
    /// Markers around a file's text (Gemini CLI's `--- Context from: …`,
    /// `<!-- Imported from: … -->` and their ends).
    Markers,
}

impl AgentWords {
    /// A heading of `head` bytes before the file's text.
    pub fn heading(head: usize) -> Option<AgentWords> {
        (head > 0).then_some(AgentWords {
            head,
            tail: 0,
            kind: WordsKind::Heading,
        })
    }

    /// The same words once `before` and `after` bytes are put around the
    /// whole (a fragment's prefix and suffix): the file's text after a
    /// heading alone runs to the end, as it always was counted.
    pub fn within(self, before: usize, after: usize) -> AgentWords {
        AgentWords {
            head: self.head + before,
            tail: if self.tail > 0 { self.tail + after } else { 0 },
            ..self
        }
    }

    /// The file's own text in `text` (None: the words do not fit it).
    pub fn own<'a>(&self, text: &'a str) -> Option<&'a str> {
        text.get(self.head..text.len().checked_sub(self.tail)?)
    }
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
    /// Set by an agent profile's own rules (see [`Preset`]).
    pub preset: Option<Preset>,
    /// Characters of the file before and after the agent's caps.
    pub chars: Option<(usize, usize)>,
    /// The agent's words around the file's text in the body (Claude
    /// Code's "Contents of …:" and the line break after it), not the file's
    /// own text: `/context` counts a file without them.
    pub agent_words: Option<AgentWords>,
    /// The fragment's whole text when the agent's own caps cut it (the
    /// body is what is sent): its tokens are the fragment's before the
    /// cut, as a budget's cut shows them. None: not cut.
    pub uncut: Option<String>,
    /// The place of this fragment among the pieces of one file cut where
    /// the agent inlines other files in it (Gemini CLI's GEMINI.md around
    /// its imports), in the order sent; 0 for a file in one piece. Pieces
    /// of one file share its priority: this orders them, before the id.
    pub piece: u32,
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
    /// The agent's own parts (its profile's recording, the run's values
    /// filled in), when the profile has them.
    pub builtin: Option<std::sync::Arc<crate::workspace::agents::builtin::Builtin>>,
    pub settings: Settings,
    pub fragments: Vec<FragmentDef>,
    pub tools: Vec<ToolDef>,
    pub sessions: Vec<Session>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every file read: relative path → SHA-256 (hex).
    pub files: BTreeMap<String, String>,
    /// Files the agent itself reads outside the workspace (its user-level
    /// memory and what that imports), as read.
    pub agent_files: Vec<crate::workspace::reader::AgentFile>,
    /// The agent's newest session in this folder, as its own session file
    /// under the home says (Claude Code, Codex): the release it ran.
    pub agent_run: Option<crate::workspace::agents::runs::Run>,
    /// The agent's user-level memory file (`~/.claude/CLAUDE.md`) the
    /// agent sends but this picture leaves out, and why: the views say so.
    pub home_memory_left_out: Option<HomeMemoryLeftOut>,
    /// count_tokens calibration per model (real / estimated), from the
    /// app's state folder; never part of `files` or of a snapshot.
    pub calibration: BTreeMap<String, f64>,
    /// The assembly profile, and why it was chosen.
    pub profile: super::profile::Chosen,
    /// The agent profile's character caps in force (per file, total).
    pub caps: Option<(usize, usize)>,
}

impl Workspace {
    pub fn session(&self, name: &str) -> Option<&Session> {
        self.sessions.iter().find(|s| s.name == name)
    }

    /// The session by name (or the default), with a readable error.
    pub fn pick_session(&self, name: Option<&str>) -> Result<&Session, crate::error::Error> {
        match name {
            None => Ok(self.default_session()),
            Some(n) => self.session(n).ok_or_else(|| crate::error::Error::Unknown {
                what: crate::error::Named::Session,
                name: n.to_string(),
                known: self.sessions.iter().map(|s| s.name.clone()).collect(),
            }),
        }
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

/// The agent's user-level memory file, left out of the picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HomeMemoryLeftOut {
    /// As `~/…`.
    pub file: String,
    pub why: LeftOut,
}

/// Why the user-level memory is left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeftOut {
    /// There in the home folder, not asked for (no `--user-memory`).
    NotAsked,
    /// Asked for, but not read: the loader's words for it
    /// (`--user-memory: … (not read)`).
    Unreadable(String),
}
