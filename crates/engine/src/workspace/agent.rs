//! The agents this tool knows, a closed set: a profile belongs to one of
//! them by its name, and what the engine does for one agent (its loader,
//! its readers, its words) is chosen by this value, never by comparing
//! strings. A name outside the set is an error that lists the known ones.
//! (A leaf: imports nothing of the crate.)

use serde::{Deserialize, Serialize};

/// One agent the tool knows how to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    /// This tool's own layered design (the seeds' workspaces).
    #[default]
    Layered,
    /// OpenClaw: its workspace's bootstrap files in the system prompt.
    #[serde(rename = "openclaw")]
    OpenClaw,
    /// Claude Code: memory files, skills and subagents.
    ClaudeCode,
    /// Codex CLI: AGENTS.md files.
    Codex,
    /// Gemini CLI: GEMINI.md files.
    Gemini,
    /// Pi (`@mariozechner/pi-coding-agent`): AGENTS.md (or CLAUDE.md)
    /// files in its one system block.
    Pi,
    /// OpenCode (`opencode-ai`): AGENTS.md (or CLAUDE.md, CONTEXT.md)
    /// files in its one system block.
    #[serde(rename = "opencode")]
    OpenCode,
}

impl Agent {
    /// Every known agent, in the order the profiles list them.
    pub const ALL: [Agent; 7] = [
        Agent::Layered,
        Agent::OpenClaw,
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Gemini,
        Agent::Pi,
        Agent::OpenCode,
    ];

    /// Whether it can run in a folder below the one opened and reads its
    /// memory files on the way there (`--workdir`).
    pub fn runs_in_a_subfolder(self) -> bool {
        matches!(
            self,
            Agent::ClaudeCode | Agent::Codex | Agent::Gemini | Agent::OpenCode | Agent::Pi
        )
    }

    /// The name its profiles carry (`claude-code`).
    pub fn name(self) -> &'static str {
        match self {
            Agent::Layered => "layered",
            Agent::OpenClaw => "openclaw",
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Pi => "pi",
            Agent::OpenCode => "opencode",
        }
    }

    /// The agent of a profile name; an unknown one is an error listing the
    /// known names.
    pub fn from_name(name: &str) -> Result<Agent, UnknownAgent> {
        Agent::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| UnknownAgent {
                name: name.to_string(),
            })
    }

    /// Whether the folder is an agent's own (not the layered design): its
    /// layers are the agent's parts, its budgets none of its own.
    pub fn is_real_agent(self) -> bool {
        self != Agent::Layered
    }

    /// Whether the memory files of subfolders (its `nested.*` fragments)
    /// join the prompt during a session, once the agent reads a file in
    /// their folder (Claude Code, OpenCode), rather than only when the agent
    /// runs in that folder (Codex).
    pub fn loads_nested_on_demand(self) -> bool {
        matches!(self, Agent::ClaudeCode | Agent::OpenCode)
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A profile name that is none of the known agents'.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownAgent {
    pub name: String,
}

impl std::fmt::Display for UnknownAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let known: Vec<&str> = Agent::ALL.iter().map(|a| a.name()).collect();
        write!(
            f,
            "'{}' is no agent this tool knows (it knows {}); a profile of your own takes \
             the name of the agent it follows, with a version of its own",
            self.name,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownAgent {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_an_unknown_one_lists_the_known() {
        for a in Agent::ALL {
            assert_eq!(Agent::from_name(a.name()), Ok(a));
            assert_eq!(
                serde_json::to_value(a).unwrap(),
                serde_json::json!(a.name())
            );
        }
        let e = Agent::from_name("my-agent").unwrap_err().to_string();
        assert!(
            e.contains("'my-agent'") && e.contains("layered, openclaw, claude-code, codex"),
            "{e}"
        );
    }
}
