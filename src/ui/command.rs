//! What a user can ask of the window. Panels read the state and push
//! commands; `App::apply` carries them out once per frame. The menu bar,
//! the keyboard shortcuts and every shortcut hint come from one table,
//! [`ENTRIES`].

use std::path::PathBuf;

use egui::{Key, KeyboardShortcut, Modifiers};

use super::state::{AppState, Tab, ThemeChoice};
use crate::engine::{Budget, Provider};

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Open a workspace folder.
    Open(PathBuf),
    /// Open what was dropped onto the window: a folder, or a file's folder.
    OpenDropped(PathBuf),
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
    /// Assemble with another profile (`openclaw`: the newest; `openclaw@2026.7`).
    SetProfile(String),
    /// An agent profile's character caps (per file, total), or its own.
    SetCaps(Option<(usize, usize)>),
    SetBudget(Budget),
    ResetBudget,
    SetMarkers(bool),
    /// The agent's user-level memory read too, or not.
    SetUserMemory(bool),
    /// The folder the agent runs in, inside the one opened (`None`: that
    /// one), as `--workdir` names it.
    SetWorkdir(Option<String>),
    ToggleMarkers,
    /// Select a fragment by id, or the first fragment of a file.
    Select(String),
    /// Select a fragment and show a line of its file in its detail (a
    /// problem's location).
    SelectLine(String, usize),
    /// Open a workspace file at a line in the user's editor.
    OpenInEditor(PathBuf, Option<usize>),
    ClearSelection,
    /// The cache rules to predict with (`None`: the model's own).
    SetProvider(Option<Provider>),
    StartTestRun,
    CancelTestRun,
    SaveSnapshot,
    ComputeDiff,
    CopyText(String),
    /// Read a capture or a Claude Code transcript into the Traffic tab
    /// (the read before it, if any, cancelled).
    OpenTraffic(PathBuf),
    /// Stop the capture being read (the Traffic tab's Cancel).
    CancelTrafficRead,
    /// Select request `index` (1-based) of the Traffic tab's capture, and
    /// trace it back to the open workspace's files (and its profile's
    /// rendering against it).
    SelectRequest {
        capture: Option<PathBuf>,
        index: usize,
    },
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
    /// Copy the session's first request as its API's request JSON (Anthropic, or
    /// Gemini for a Gemini CLI folder).
    CopyRequestJson,
    /// Escape: close the innermost thing open (the open dialog, else the
    /// selected request's or fragment's detail).
    Dismiss,
    /// Close the window (File › Quit, Ctrl+Q).
    Quit,
    /// Show or hide the list of keyboard shortcuts (Help, F1, `?`).
    ToggleShortcuts,
    /// Go to the next problem (F8), or the previous (Shift+F8): its
    /// fragment selected, its row marked in the Problems tab.
    NextProblem {
        forward: bool,
    },
    /// Learn the own parts of the agent that sent request `index` of
    /// `capture`, the open workspace's files left out (`agents learn`).
    LearnParts {
        capture: PathBuf,
        index: usize,
    },
    /// Open the Agents window: each agent's own parts, recorded or learned.
    ShowAgents,
    /// Forget a learned observation (`codex@0.172.0`), as `agents forget`.
    ForgetParts(String),
}

/// A menu of the menu bar, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Menu {
    File,
    View,
    Help,
}

impl Menu {
    pub const ALL: [Menu; 3] = [Menu::File, Menu::View, Menu::Help];

    pub fn title(self) -> &'static str {
        match self {
            Menu::File => "File",
            Menu::View => "View",
            Menu::Help => "Help",
        }
    }
}

/// What a menu entry's enabled, shown and checked states are read from.
pub struct Facts<'a> {
    pub state: &'a AppState,
    /// The bundled sample workspace was found.
    pub sample: bool,
}

/// How an entry is drawn in its menu.
#[derive(Clone, Copy)]
pub enum Kind {
    /// A button that closes the menu.
    Button,
    /// A checkbox, ticked when the function says so.
    Check(fn(&Facts) -> bool),
    /// One of a group of radio buttons, selected when the function says so.
    Radio(fn(&Facts) -> bool),
}

/// One command a user can ask for from the menu bar (and maybe the
/// keyboard).
pub struct Entry {
    pub command: Command,
    pub menu: Menu,
    pub label: &'static str,
    pub shortcut: Option<KeyboardShortcut>,
    pub kind: Kind,
    /// Whether it can be carried out now (a disabled entry is greyed out
    /// and its shortcut does nothing).
    pub enabled: fn(&Facts) -> bool,
    /// A disabled entry is left out of its menu rather than greyed out.
    pub hide_disabled: bool,
    /// A separator goes above it in its menu.
    pub separated: bool,
}

impl Entry {
    /// A button in `menu`, always enabled, with no shortcut.
    const fn new(menu: Menu, label: &'static str, command: Command) -> Entry {
        Entry {
            command,
            menu,
            label,
            shortcut: None,
            kind: Kind::Button,
            enabled: |_| true,
            hide_disabled: false,
            separated: false,
        }
    }

    /// With Ctrl+`key` (⌘ on a Mac) as its shortcut.
    const fn ctrl(mut self, key: Key) -> Entry {
        self.shortcut = Some(KeyboardShortcut::new(Modifiers::COMMAND, key));
        self
    }

    /// With Shift+`key` as its shortcut.
    const fn shift(mut self, key: Key) -> Entry {
        self.shortcut = Some(KeyboardShortcut::new(Modifiers::SHIFT, key));
        self
    }

    /// With `key` alone as its shortcut.
    const fn key(mut self, key: Key) -> Entry {
        self.shortcut = Some(KeyboardShortcut::new(Modifiers::NONE, key));
        self
    }

    const fn enabled_when(mut self, enabled: fn(&Facts) -> bool) -> Entry {
        self.enabled = enabled;
        self
    }

    const fn kind(mut self, kind: Kind) -> Entry {
        self.kind = kind;
        self
    }

    const fn hidden_when_disabled(mut self) -> Entry {
        self.hide_disabled = true;
        self
    }

    const fn after_separator(mut self) -> Entry {
        self.separated = true;
        self
    }
}

/// Every entry of the menu bar, in menu order: the menus, the keyboard
/// shortcuts and their hints are made from this table alone.
///
/// Commands that carry data picked in a panel (a folder of the Recent
/// list, a fragment, a session, a model, a budget, a tab of the tab bar, a
/// capture's requests…) are not menu entries and stay out of it, as do a
/// panel's own buttons that act on that panel's fields (start or cancel a
/// run, start or stop the proxy, compare, the open dialog's buttons).
pub const ENTRIES: &[Entry] = &[
    Entry::new(Menu::File, "Open folder…", Command::ShowOpenDialog).ctrl(Key::O),
    Entry::new(Menu::File, "Reload", Command::Reload)
        .ctrl(Key::R)
        .enabled_when(|f| f.state.root.is_some()),
    Entry::new(Menu::File, "Save a snapshot", Command::SaveSnapshot)
        .ctrl(Key::S)
        .enabled_when(|f| f.state.loaded.is_some()),
    Entry::new(Menu::File, "Open the sample workspace", Command::OpenSample)
        .enabled_when(|f| f.sample)
        .hidden_when_disabled(),
    Entry::new(Menu::File, "Quit", Command::Quit)
        .ctrl(Key::Q)
        .after_separator(),
    Entry::new(
        Menu::View,
        "Follow the system theme",
        Command::SetTheme(ThemeChoice::System),
    )
    .kind(Kind::Radio(|f| f.state.theme == ThemeChoice::System)),
    Entry::new(Menu::View, "Light", Command::SetTheme(ThemeChoice::Light))
        .kind(Kind::Radio(|f| f.state.theme == ThemeChoice::Light)),
    Entry::new(Menu::View, "Dark", Command::SetTheme(ThemeChoice::Dark))
        .kind(Kind::Radio(|f| f.state.theme == ThemeChoice::Dark)),
    Entry::new(Menu::View, "DEBUG markers", Command::ToggleMarkers)
        .ctrl(Key::D)
        .kind(Kind::Check(|f| f.state.debug_markers))
        .after_separator(),
    Entry::new(Menu::View, "Find a fragment", Command::FindFragment)
        .ctrl(Key::F)
        .enabled_when(|f| f.state.loaded.is_some()),
    Entry::new(
        Menu::View,
        "Next problem",
        Command::NextProblem { forward: true },
    )
    .key(Key::F8)
    .enabled_when(|f| !f.state.problems.is_empty())
    .after_separator(),
    Entry::new(
        Menu::View,
        "Previous problem",
        Command::NextProblem { forward: false },
    )
    .shift(Key::F8)
    .enabled_when(|f| !f.state.problems.is_empty()),
    Entry::new(Menu::View, "Agents' own parts…", Command::ShowAgents).after_separator(),
    Entry::new(Menu::Help, "Keyboard shortcuts", Command::ToggleShortcuts).key(Key::F1),
];

/// The keys that are not menu entries, for the shortcuts list.
pub const OTHER_KEYS: &[(&str, &str)] = &[
    ("?", "this list"),
    (
        "Escape",
        "close the innermost thing open: this list, the open dialog, the selected request's or fragment's detail",
    ),
    (
        "↑ ↓",
        "the previous or next row of the fragment table, or of the Traffic table",
    ),
    ("Enter", "in the open dialog's field: open the folder typed"),
];

impl Entry {
    /// The table's entry for `command`.
    pub fn of(command: &Command) -> Option<&'static Entry> {
        ENTRIES.iter().find(|e| e.command == *command)
    }

    /// `Ctrl+O` (or `⌘O` on a Mac), as shown beside menu entries.
    pub fn key_text(&self, ctx: &egui::Context) -> Option<String> {
        self.shortcut.map(|k| ctx.format_shortcut(&k))
    }

    /// The entry's text in its menu: its label, then its shortcut.
    pub fn menu_text(&self, ctx: &egui::Context) -> String {
        match self.key_text(ctx) {
            Some(k) => format!("{}  {k}", self.label),
            None => self.label.to_string(),
        }
    }
}

/// The label of `command`'s entry (empty if it has none).
pub fn label(command: &Command) -> &'static str {
    Entry::of(command).map_or("", |e| e.label)
}

/// The shortcut of `command`, as a hint (`Ctrl+S`; empty if it has none).
pub fn key_text(ctx: &egui::Context, command: &Command) -> String {
    Entry::of(command)
        .and_then(|e| e.key_text(ctx))
        .unwrap_or_default()
}

/// The shortcuts pressed this frame, as commands (those of disabled
/// entries are taken and do nothing).
pub fn pressed(ctx: &egui::Context, facts: &Facts) -> Vec<Command> {
    let mut out: Vec<Command> = ENTRIES
        .iter()
        .filter(|e| {
            e.shortcut
                .is_some_and(|k| ctx.input_mut(|i| i.consume_shortcut(&k)))
                && (e.enabled)(facts)
        })
        .map(|e| e.command.clone())
        .collect();
    // Escape in a text field is the field's (it lets go of the keyboard).
    if !ctx.egui_wants_keyboard_input()
        && ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::Escape))
    {
        out.push(Command::Dismiss);
    }
    // `?` (typed, whatever the layout puts it under), outside a text field.
    if !ctx.egui_wants_keyboard_input()
        && ctx.input(|i| {
            i.events
                .iter()
                .any(|e| matches!(e, egui::Event::Text(t) if t == "?"))
        })
    {
        out.push(Command::ToggleShortcuts);
    }
    out
}
