//! An agent's own parts, as recorded from one of its releases
//! (`assets/profiles/*.builtin.json`, written by `scripts/agent-builtins.py`
//! from the fixtures of the real agents): its built-in system prompt, its
//! tool definitions (the deferred ones apart), its built-in skills and
//! subagents, its runtime context, and its default model and limits. Every
//! view shows and counts them as parts "from the agent, not your files";
//! they are never edited. The values that depend on the run (`{root}`,
//! `{project_slug}`, `{home}`, `{today}`) are filled in when a folder is
//! loaded ([`Builtin::filled`]).

use serde::{Deserialize, Serialize};

use crate::text::{MAX_EXPANSION_BYTES, expand_capped};
use crate::workspace::settings::Placement;

/// Most parts (blocks, tools, entries) one recorded file may hold.
pub const MAX_BUILTIN_PARTS: usize = 1000;

/// What `/context` calls a part of the context window (Claude Code's
/// categories; the other agents' parts use the same names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    SystemPrompt,
    SystemTools,
    DeferredTools,
    CustomAgents,
    MemoryFiles,
    Skills,
    Messages,
}

impl Category {
    /// As `/context` names it.
    pub fn label(self) -> &'static str {
        match self {
            Category::SystemPrompt => "System prompt",
            Category::SystemTools => "System tools",
            Category::DeferredTools => "System tools (deferred)",
            Category::CustomAgents => "Custom agents",
            Category::MemoryFiles => "Memory files",
            Category::Skills => "Skills",
            Category::Messages => "Messages",
        }
    }
}

/// Where a recorded block's text goes in the agent's own request, when it
/// shares a system block with the user's files (OpenClaw's one stable
/// block: its prompt, the skills, its workspace notes, then the files).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Join {
    /// At the start of the first system block the profile renders.
    BeforeStable,
    /// In that block, right before the user's files (the profile's title
    /// of its file section).
    BeforeFiles,
    /// At the end of that block, after a newline.
    AfterStable,
}

/// One block of the agent's own text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuiltinBlock {
    pub name: String,
    pub category: Category,
    #[serde(default)]
    pub placement: Placement,
    /// Sent with `cache_control`.
    #[serde(default)]
    pub cache: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join: Option<Join>,
    /// A system block after the layers' system blocks (OpenClaw's
    /// runtime context), not before.
    #[serde(default)]
    pub after_files: bool,
    /// In the first user message before the user's files, not after them
    /// (Gemini CLI's `<session_context>` head).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub before_files: bool,
    /// Sent as another part of the message the block before it is in, not
    /// as a message of its own (Codex's developer messages).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub with_previous: bool,
    pub text: String,
}

/// One tool definition as the agent sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuiltinTool {
    pub category: Category,
    pub definition: serde_json::Value,
    /// The namespace the agent sends it in, its own fields without its
    /// `tools` (Codex's `functions`, `clock`, `collaboration`): the tools of
    /// one namespace in a row are sent as one definition holding them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<serde_json::Value>,
}

impl BuiltinTool {
    pub fn name(&self) -> &str {
        self.definition["name"].as_str().unwrap_or("")
    }
}

/// A built-in skill or subagent, one line (or a few) of the agent's list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// `skill` or `agent`.
    pub kind: String,
    pub name: String,
    pub category: Category,
    pub text: String,
}

/// The agent's listing of subagents and skills, into which the
/// workspace's own go: with its own words and line format (Claude Code
/// 2.1: a system-role message after the first user message), or, with no
/// `agent_line`, the profile's own listing with the built-in entries among
/// the workspace's (OpenClaw's `<available_skills>`, by name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listing {
    #[serde(default)]
    pub placement: Placement,
    #[serde(default)]
    pub separator: Option<String>,
    /// Everything before the first subagent.
    #[serde(default)]
    pub title: Option<String>,
    /// Between the subagents and the skills.
    #[serde(default)]
    pub between: Option<String>,
    /// After the last skill.
    #[serde(default)]
    pub footer: Option<String>,
    /// `{name}`, `{description}`, `{tools}` of a subagent file.
    #[serde(default)]
    pub agent_line: Option<String>,
    /// `{name}`, `{description}` of a skill.
    #[serde(default)]
    pub skill_line: Option<String>,
    #[serde(default)]
    pub agents: Vec<Entry>,
    #[serde(default)]
    pub skills: Vec<Entry>,
}

/// One agent release's own parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Builtin {
    pub schema: u32,
    pub agent: String,
    pub release: String,
    /// The fixture it was taken from.
    pub recorded_from: String,
    /// The agent's default model (none: the table's default).
    #[serde(default)]
    pub model: Option<String>,
    /// The agent's window when it differs from the table's.
    #[serde(default)]
    pub context_window: Option<u64>,
    /// Tokens the agent keeps free before it compacts (Claude Code's
    /// autocompact buffer).
    #[serde(default)]
    pub autocompact_buffer: u64,
    #[serde(default)]
    pub reserved_output: u64,
    /// A breakpoint on the latest message of every request.
    #[serde(default)]
    pub message_breakpoint: bool,
    /// A breakpoint on the last tool definition (OpenClaw's).
    #[serde(default)]
    pub cache_tools: bool,
    #[serde(default)]
    pub blocks: Vec<BuiltinBlock>,
    #[serde(default)]
    pub tools: Vec<BuiltinTool>,
    /// Counted, not sent (loaded on demand by the agent's tool search).
    #[serde(default)]
    pub deferred_tools: Vec<BuiltinTool>,
    #[serde(default)]
    pub listing: Option<Listing>,
    /// What the agent sends on a resumed session for a memory file changed
    /// since the session began (Claude Code: a reminder at the start of the
    /// next user message; the first message keeps the old text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_reminder: Option<Reminder>,
    /// Words the agent writes only sometimes (Gemini CLI's `# Git
    /// Repository` section, its `# Contextual Instructions` head over the
    /// user's own memory file), left out when their condition does not hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sometimes: Vec<Sometimes>,
    /// The request body's other fields as the agent sends them, its
    /// session's ids left out (Codex's `tool_choice`, `reasoning`, `store`,
    /// `include`, `text`).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub request_fields: serde_json::Map<String, serde_json::Value>,
    /// The system and kernel release the recording ran on, as the agent
    /// wrote it (`Linux 6.18.44-fc-v1147`): where the texts hold it, the
    /// user's own machine's is put instead when the caller knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_os: Option<String>,
    /// Learned from the user's own request (none: bundled, recorded by
    /// this tool's scripts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Observed>,
}

/// Words in a block the agent writes only when `when` holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sometimes {
    pub when: Condition,
    pub text: String,
}

/// What a run must have for the agent to write some of its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// The folder it runs in, or one above it, holds a `.git`.
    GitRepository,
    /// The user's own memory file (`~/.gemini/GEMINI.md`) has text.
    UserMemory,
}

/// Where parts learned from a user's request were seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observed {
    /// The profile name of its agent (`claude-code`).
    pub profile: String,
    /// The day the request was sent.
    pub date: String,
    /// Which request (`capture.jsonl #3`).
    pub from: String,
}

/// A reminder that carries files again: its title, the files' sections
/// joined by `between`, its footer (Claude Code); or, with `after` and
/// `insert`, the whole block again with `insert` right after `after`
/// (Codex's replacement AGENTS.md message).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reminder {
    pub title: String,
    pub between: String,
    pub footer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insert: Option<String>,
    /// Where it goes, in words.
    #[serde(default)]
    pub how: String,
}

impl Builtin {
    /// Reads a recorded file, within its bounds; `origin` names it.
    pub fn parse(text: &str, origin: &str) -> Result<Builtin, crate::error::Error> {
        use crate::error::Error;
        let b: Builtin = serde_json::from_str(text)
            .map_err(|e| Error::invalid(origin, format!("not an agent's parts: {e}")))?;
        let n = b.blocks.len()
            + b.tools.len()
            + b.deferred_tools.len()
            + b.listing
                .as_ref()
                .map_or(0, |l| l.agents.len() + l.skills.len());
        if n > MAX_BUILTIN_PARTS {
            return Err(Error::invalid(
                origin,
                format!("{n} parts, over the limit of {MAX_BUILTIN_PARTS}"),
            ));
        }
        if b.schema != 1 {
            return Err(Error::invalid(
                origin,
                format!("schema {} (this build reads 1)", b.schema),
            ));
        }
        Ok(b)
    }

    /// `Claude Code 2.1.328`.
    pub fn source(&self) -> String {
        format!("{} {}", self.agent, self.release)
    }

    /// Where the parts come from, in words: `observed in your request of
    /// 2026-12-03 (capture.jsonl #1)`, or `recorded from Claude Code
    /// 2.1.332` (the bundled recording).
    pub fn provenance(&self) -> String {
        match &self.observed {
            Some(o) => format!("observed in your request of {} ({})", o.date, o.from),
            None => format!("recorded from {}", self.source()),
        }
    }

    /// The texts with the run's values filled in: the folder (`{root}`,
    /// Claude Code's project folder name `{project_slug}`), the home folder
    /// (`~` when unknown) and the date (left as `{today}` when the caller
    /// gave none).
    pub fn filled(&self, root: &str, home: Option<&str>, today: Option<&str>) -> Builtin {
        let slug = super::runs::claude_project_folder(std::path::Path::new(root));
        let mut vars = vec![
            ("root", root),
            ("project_slug", slug.as_str()),
            ("home", home.unwrap_or("~")),
        ];
        let long = today.and_then(crate::text::long_date);
        if let Some(t) = today {
            vars.push(("today", t));
        }
        if let Some(l) = &long {
            vars.push(("today_long", l));
        }
        // OpenCode's: the date as JavaScript's toDateString() writes it.
        let js = today.and_then(crate::text::js_date);
        if let Some(j) = &js {
            vars.push(("today_js", j));
        }
        // The folder's own name (Gemini CLI's temporary folder).
        let name = root
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(root);
        vars.push(("root_name", name));
        let mut b = self.clone();
        for t in b.texts_mut() {
            *t = expand_capped(t, &vars, MAX_EXPANSION_BYTES).0;
        }
        b
    }

    /// The texts the agent writes from its own words: the blocks', and its
    /// listing's around the subagents and skills.
    fn texts_mut(&mut self) -> Vec<&mut String> {
        let mut out: Vec<&mut String> = self.blocks.iter_mut().map(|x| &mut x.text).collect();
        if let Some(l) = &mut self.listing {
            out.extend(
                [&mut l.title, &mut l.between, &mut l.footer]
                    .into_iter()
                    .flatten(),
            );
            out.extend(
                l.agents
                    .iter_mut()
                    .chain(l.skills.iter_mut())
                    .map(|e| &mut e.text),
            );
        }
        out
    }

    /// Whether a text names `{var}` (left for the loader: Gemini CLI's
    /// `{directory_tree}`).
    pub fn wants(&self, var: &str) -> bool {
        let v = format!("{{{var}}}");
        let listing = self.listing.iter().flat_map(|l| {
            [&l.title, &l.between, &l.footer]
                .into_iter()
                .flatten()
                .chain(l.agents.iter().chain(l.skills.iter()).map(|e| &e.text))
        });
        self.blocks
            .iter()
            .map(|x| &x.text)
            .chain(listing)
            .any(|t| t.contains(&v))
    }

    /// `{var}` in the texts filled with `value`.
    pub fn with_var(mut self, var: &str, value: &str) -> Builtin {
        for t in self.texts_mut() {
            *t = expand_capped(t, &[(var, value)], MAX_EXPANSION_BYTES).0;
        }
        self
    }

    /// The texts without `text` (words the agent writes only sometimes).
    pub fn without(self, text: &str) -> Builtin {
        self.replaced(text, "")
    }

    /// The texts with `text` replaced by `by` (the recording machine's
    /// system name by the user's).
    pub fn replaced(mut self, text: &str, by: &str) -> Builtin {
        for t in self.texts_mut() {
            *t = t.replace(text, by);
        }
        self
    }

    /// Its tools as it sends them ([`crate::request::openai::namespaced`]).
    pub fn sent_tools(&self) -> Vec<crate::request::Tool> {
        crate::request::openai::namespaced(
            self.tools
                .iter()
                .map(|t| (&t.definition, t.namespace.as_ref())),
        )
    }

    /// Tokens the deferred tools' definitions would take, counted as sent.
    pub fn deferred_texts(&self) -> Vec<(String, String)> {
        self.deferred_tools
            .iter()
            .map(|t| {
                (
                    t.name().to_string(),
                    serde_json::to_string(&t.definition).unwrap_or_default(),
                )
            })
            .collect()
    }
}

/// The bundled recordings, by the file name a profile gives.
pub const BUNDLED: [(&str, &str); 8] = [
    (
        "claude-code-2.1.builtin.json",
        include_str!("../../../assets/profiles/claude-code-2.1.builtin.json"),
    ),
    (
        "claude-code-2.1.332.builtin.json",
        include_str!("../../../assets/profiles/claude-code-2.1.332.builtin.json"),
    ),
    (
        "codex-0.171.builtin.json",
        include_str!("../../../assets/profiles/codex-0.171.builtin.json"),
    ),
    (
        "codex-0.169.builtin.json",
        include_str!("../../../assets/profiles/codex-0.169.builtin.json"),
    ),
    (
        "openclaw-2026.9.builtin.json",
        include_str!("../../../assets/profiles/openclaw-2026.9.builtin.json"),
    ),
    (
        "gemini-0.61.builtin.json",
        include_str!("../../../assets/profiles/gemini-0.61.builtin.json"),
    ),
    (
        "pi-0.73.builtin.json",
        include_str!("../../../assets/profiles/pi-0.73.builtin.json"),
    ),
    (
        "opencode-1.18.builtin.json",
        include_str!("../../../assets/profiles/opencode-1.18.builtin.json"),
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_recordings_parse_and_fill_in() {
        for (name, text) in BUNDLED {
            let b = Builtin::parse(text, name).unwrap();
            assert!(!b.tools.is_empty(), "{name}");
            let f = b.filled("/w/p", Some("/h"), Some("2027-01-02"));
            let all: String = f.blocks.iter().map(|x| x.text.as_str()).collect();
            assert!(
                !all.contains("{root}") && !all.contains("{today}"),
                "{name}"
            );
        }
        let cc = Builtin::parse(BUNDLED[0].1, "cc").unwrap();
        assert_eq!(
            (cc.model.as_deref(), cc.autocompact_buffer),
            (Some("claude-opus-5-5"), 33_000)
        );
        let l = cc.filled("/w/p", None, Some("2027-01-02")).listing.unwrap();
        assert_eq!(l.footer.unwrap(), "\n\nToday's date is 2027-01-02.");
        assert!(
            l.title
                .unwrap()
                .contains("Primary working directory: /w/p\n")
        );
        assert!(Builtin::parse("{\"schema\": 2}", "x").is_err());
    }
}
