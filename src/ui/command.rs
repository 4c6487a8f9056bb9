//! What a user can ask of the window. Panels read the state and push
//! commands; `App::apply` carries them out once per frame. Keyboard
//! shortcuts and their menu entries come from one table, [`Shortcut`].

use std::path::PathBuf;

use egui::{Key, KeyboardShortcut, Modifiers};

use super::state::{Tab, ThemeChoice};
use crate::engine::{Budget, Provider};

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Open a workspace folder.
    Open(PathBuf),
    OpenSample,
    ShowOpenDialog,
    CloseOpenDialog,
    /// The native folder picker (runs as a job: it blocks until answered).
    PickFolder,
    Reload,
    SetTheme(ThemeChoice),
    SetTab(Tab),
    /// Go to the fragment table and put the cursor in its filter.
    FindFragment,
    SetSession(String),
    SetModel(String),
    /// Assemble with another profile (layered, openclaw, claude-code).
    SetProfile(String),
    /// An agent profile's character caps (per file, total), or its own.
    SetCaps(Option<(usize, usize)>),
    SetBudget(Budget),
    ResetBudget,
    SetMarkers(bool),
    ToggleMarkers,
    /// Select a fragment by id, or the first fragment of a file.
    Select(String),
    ClearSelection,
    /// The cache rules to predict with (`None`: the model's own).
    SetProvider(Option<Provider>),
    StartRun,
    CancelRun,
    SaveSnapshot,
    ComputeDiff,
    CopyText(String),
    /// Read a capture or a Claude Code transcript into the Traffic tab.
    OpenTraffic(PathBuf),
    /// Start the recording proxy with the Traffic tab's settings; its
    /// capture fills the tab live.
    StartProxy,
    StopProxy,
    /// Compare two requests of a capture (1-based) in the Diff view.
    DiffRequests {
        capture: PathBuf,
        a: usize,
        b: usize,
    },
    /// Copy the session's first request as Anthropic request JSON.
    CopyRequestJson,
}

/// The keyboard shortcuts, each with its menu label: written once here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    Open,
    Reload,
    SaveSnapshot,
    Find,
    Markers,
}

impl Shortcut {
    pub const ALL: [Shortcut; 5] = [
        Shortcut::Open,
        Shortcut::Reload,
        Shortcut::SaveSnapshot,
        Shortcut::Find,
        Shortcut::Markers,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Shortcut::Open => "Open folder…",
            Shortcut::Reload => "Reload",
            Shortcut::SaveSnapshot => "Save a snapshot",
            Shortcut::Find => "Find a fragment",
            Shortcut::Markers => "DEBUG markers",
        }
    }

    pub fn key(self) -> KeyboardShortcut {
        let k = match self {
            Shortcut::Open => Key::O,
            Shortcut::Reload => Key::R,
            Shortcut::SaveSnapshot => Key::S,
            Shortcut::Find => Key::F,
            Shortcut::Markers => Key::D,
        };
        KeyboardShortcut::new(Modifiers::COMMAND, k)
    }

    pub fn command(self) -> Command {
        match self {
            Shortcut::Open => Command::ShowOpenDialog,
            Shortcut::Reload => Command::Reload,
            Shortcut::SaveSnapshot => Command::SaveSnapshot,
            Shortcut::Find => Command::FindFragment,
            Shortcut::Markers => Command::ToggleMarkers,
        }
    }

    /// `Ctrl+O` (or `⌘O` on a Mac), as shown beside menu entries.
    pub fn key_text(self, ctx: &egui::Context) -> String {
        ctx.format_shortcut(&self.key())
    }

    /// The shortcuts pressed this frame, as commands.
    pub fn pressed(ctx: &egui::Context) -> Vec<Command> {
        Shortcut::ALL
            .into_iter()
            .filter(|s| ctx.input_mut(|i| i.consume_shortcut(&s.key())))
            .map(Shortcut::command)
            .collect()
    }
}
