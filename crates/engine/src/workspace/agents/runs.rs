//! The release of the agent that last ran in a folder, read from the
//! session files the agent itself keeps under the home: Claude Code's
//! `~/.claude/projects/<the folder's path, every other character a dash>/`
//! (each line names the `version` and the `cwd`), Codex's
//! `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (its first line, the
//! session's meta, names the `cwd` and the `cli_version`). Only the head of
//! a file is read, through the guarded reader; only the release, the date
//! and where they were read are kept, never a line of the session.

use std::path::{Path, PathBuf};

use crate::workspace::agent::Agent;
use crate::workspace::reader;

/// Bytes read at most from the head of one session file (Codex's first
/// line holds its base instructions, about 25 KB).
const HEAD_BYTES: u64 = 256 * 1024;

/// Session files whose head is read at most when looking for one run in
/// the folder (Codex keeps every folder's sessions together).
const MAX_HEADS: usize = 40;

/// Session files listed at most from one folder.
const MAX_LISTED: usize = 10_000;

/// The agent's newest run in a folder, as its own session file says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Run {
    /// The agent as its users name it (`Claude Code`).
    pub agent: String,
    /// The release it ran (`2.1.328`).
    pub version: String,
    /// The session file, shown from the home (`~/.claude/projects/…`).
    pub file: String,
    /// The line that said so (1-based).
    pub line: usize,
    /// The day of that line (`2026-12-01`), when it carries a timestamp.
    pub date: Option<String>,
}

/// Claude Code's name for a project's folder: the path with every
/// character that is not an ASCII letter or digit made a dash.
pub fn claude_project_folder(root: &Path) -> String {
    root.to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The newest run of `agent` in the folder `root`, from its session files
/// under `home`; none for an agent whose sessions are not read here, or
/// when no session of this folder is found.
pub fn newest(agent: Agent, root: &Path, home: &Path) -> Option<Run> {
    match agent {
        Agent::ClaudeCode => newest_claude(root, home),
        Agent::Codex => newest_codex(root, home),
        _ => None,
    }
}

fn shown(home: &Path, p: &Path) -> String {
    match p.strip_prefix(home) {
        Ok(rel) => format!("~/{}", rel.display()),
        Err(_) => p.display().to_string(),
    }
}

/// The complete lines of a file's head (a line cut at the end is left).
fn head_lines(p: &Path) -> Vec<String> {
    let Ok((f, _)) = reader::open_regular(p, u64::MAX) else {
        return Vec::new();
    };
    let mut bytes = Vec::new();
    use std::io::Read;
    if f.take(HEAD_BYTES).read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let complete = match text.rfind('\n') {
        Some(at) => &text[..at],
        None if (bytes.len() as u64) < HEAD_BYTES => &text[..],
        None => "",
    };
    complete.lines().map(str::to_string).collect()
}

fn str_at<'a>(v: &'a serde_json::Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(serde_json::Value::as_str)
}

fn day(ts: Option<&str>) -> Option<String> {
    let d = ts?.get(..10)?;
    let ok = d.len() == 10
        && d.char_indices().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == '-'
            } else {
                c.is_ascii_digit()
            }
        });
    ok.then(|| d.to_string())
}

fn valid_version(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 40
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
}

/// Whether a session's working folder is `root` or a folder inside it.
fn inside(cwd: &str, root: &Path) -> bool {
    let cwd = Path::new(cwd);
    cwd == root || cwd.starts_with(root)
}

fn newest_claude(root: &Path, home: &Path) -> Option<Run> {
    let dir: PathBuf = home
        .join(".claude")
        .join("projects")
        .join(claude_project_folder(root));
    let (files, _) = reader::files_under(&dir, "jsonl", 0, MAX_LISTED).ok()?;
    let mut dated: Vec<(f64, PathBuf)> = files
        .into_iter()
        .map(|p| (reader::modified_of(&p).unwrap_or(0.0), p))
        .collect();
    dated.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
    dated.iter().take(MAX_HEADS).find_map(|(_, p)| {
        head_lines(p).iter().enumerate().find_map(|(i, l)| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            let version = str_at(&v, &["version"])?;
            let cwd = str_at(&v, &["cwd"])?;
            (valid_version(version) && inside(cwd, root)).then(|| Run {
                agent: "Claude Code".into(),
                version: version.to_string(),
                file: shown(home, p),
                line: i + 1,
                date: day(str_at(&v, &["timestamp"])),
            })
        })
    })
}

fn newest_codex(root: &Path, home: &Path) -> Option<Run> {
    let dir = home.join(".codex").join("sessions");
    let (mut files, _) = reader::files_under(&dir, "jsonl", 3, MAX_LISTED).ok()?;
    // `YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-…`: the newest sort last.
    files.sort();
    files.iter().rev().take(MAX_HEADS).find_map(|p| {
        let first = head_lines(p).into_iter().next()?;
        let v: serde_json::Value = serde_json::from_str(&first).ok()?;
        if str_at(&v, &["type"]) != Some("session_meta") {
            return None;
        }
        let version = str_at(&v, &["payload", "cli_version"])?;
        let cwd = str_at(&v, &["payload", "cwd"])?;
        (valid_version(version) && inside(cwd, root)).then(|| Run {
            agent: "Codex CLI".into(),
            version: version.to_string(),
            file: shown(home, p),
            line: 1,
            date: day(str_at(&v, &["timestamp"]).or(str_at(&v, &["payload", "timestamp"]))),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_names_a_project_folder_as_claude_code_does() {
        assert_eq!(
            claude_project_folder(Path::new("/home/user/my.project_x")),
            "-home-user-my-project-x"
        );
    }

    #[test]
    fn a_timestamp_gives_its_day_and_nothing_else_does() {
        assert_eq!(
            day(Some("2026-12-01T02:35:40.395Z")).as_deref(),
            Some("2026-12-01")
        );
        assert_eq!(day(Some("yesterday")), None);
        assert_eq!(day(None), None);
    }

    #[test]
    fn a_session_in_a_subfolder_is_of_the_folder_and_a_sibling_is_not() {
        let root = Path::new("/home/u/repo");
        assert!(inside("/home/u/repo", root));
        assert!(inside("/home/u/repo/tools", root));
        assert!(!inside("/home/u/repo2", root));
    }
}
