//! What the caller adds to an agent's folder from the surroundings the
//! engine does not read itself: the home folder, today's date, the
//! machine's system name, the kind of session.

use crate::workspace::profile::Profile;

/// What the caller adds to an agent's folder: OpenClaw's startup context
/// (the daily memory of these days, as on `/new`); with `--user-memory`,
/// the home folder whose user-level memory file the profile names
/// (`~/.claude/CLAUDE.md`, `~/.codex/AGENTS.md`), read through the guarded
/// reader: a file that cannot be read is one diagnostic.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extras {
    pub startup_days: Vec<String>,
    pub user_memory_home: Option<std::path::PathBuf>,
    /// The home folder, for the agent's own text that names it (Claude
    /// Code's memory folder), and where the agent keeps its sessions: the
    /// head of the newest one of this folder is read for the release that
    /// ran ([`super::runs`]); nothing else under it is read.
    pub home: Option<std::path::PathBuf>,
    /// Today's date, for the agent's own text that carries it.
    pub today: Option<String>,
    /// The folder the agent runs in (`--workdir`: relative to the
    /// workspace, checked): Claude Code, Codex, Gemini CLI, Pi, OpenCode.
    pub workdir: Option<String>,
    /// OpenClaw: the kind of session (`subagent`, `cron`, `group`; none:
    /// the main session), checked against the profile's kinds.
    pub session_kind: Option<String>,
    /// The machine's system and kernel release as Node's `os.type()` and
    /// `os.release()` give them (`Linux 6.18.44`), read by the caller: the
    /// agent's own text that names the machine it runs on (Claude Code's
    /// `OS Version:`, OpenClaw's `os=`) says this one, not the recording's.
    pub os_version: Option<String>,
}

impl Extras {
    /// The profile's user-level memory file, when asked for: its shown path
    /// (`~/.codex/AGENTS.md`) and its text, or why it could not be read.
    pub fn user_memory(
        &self,
        p: &Profile,
    ) -> Option<(String, Result<String, crate::error::Error>)> {
        let home = self.user_memory_home.as_ref()?;
        let rel = p.user_memory.as_ref()?.path.as_str();
        let text = crate::workspace::reader::read_text_file(
            &home.join(rel),
            crate::workspace::MAX_FILE_BYTES,
        );
        Some((format!("~/{rel}"), text))
    }
}
