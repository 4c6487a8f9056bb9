//! A real agent's recorded folder (tests/fixtures/agents/AGENT/workspace)
//! at HOME/FOLDER of a private home, as it was when the agent ran (a git
//! repository), with the user's own memory file the agent read, written
//! where the agent reads it; the binary run with that home, its output
//! with the home written as the recording's (`/home/user`).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{bin, copy_dir, stderr, stdout};

pub struct AgentHome {
    dir: tempfile::TempDir,
    folder: String,
}

impl AgentHome {
    /// `memory`: the user's file, relative to the home, and its text.
    pub fn new(fixture: &str, folder: &str, memory: (&str, &str)) -> AgentHome {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join(folder);
        copy_dir(&Self::fixture(fixture).join("workspace"), &ws);
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        let file = dir.path().join(memory.0);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, memory.1).unwrap();
        AgentHome {
            dir,
            folder: folder.to_string(),
        }
    }

    /// The folder alone: outside any git repository (unless the temporary
    /// folder is in one), with no memory file of the user's.
    pub fn plain(fixture: &str, folder: &str) -> AgentHome {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(
            &Self::fixture(fixture).join("workspace"),
            &dir.path().join(folder),
        );
        AgentHome {
            dir,
            folder: folder.to_string(),
        }
    }

    pub fn fixture(agent: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/agents")
            .join(agent)
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    pub fn ws(&self) -> String {
        self.home().join(&self.folder).display().to_string()
    }

    /// A command's output (it must not fail) with this home written as
    /// the agent's.
    pub fn run(&self, args: &[&str]) -> String {
        let o = Command::new(bin())
            .args(args)
            .env("HOME", self.home())
            .env("TZ", "UTC")
            .env("XDG_DATA_HOME", self.home().join("data"))
            .output()
            .unwrap();
        assert!(o.status.code().is_some_and(|c| c < 2), "{}", stderr(&o));
        stdout(&o).replace(&self.home().display().to_string(), "/home/user")
    }
}
