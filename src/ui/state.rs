//! What the window shows, apart from how it is drawn: the inspection of the
//! loaded workspace and the live settings (session, model, budget sliders,
//! markers, selection). Panels read it and push commands; all business
//! logic stays in the engine.

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::engine::{Assembly, Budget, Inspection, Options, Provider, Status, TokenCounter};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Tab {
    #[default]
    Fragments,
    Prompt,
    Cache,
    Run,
    Traffic,
    Diff,
    Problems,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum SortColumn {
    #[default]
    Order,
    Id,
    Layer,
    Priority,
    Source,
    Tokens,
    Kept,
    Status,
    Reason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ThemeChoice {
    #[default]
    System,
    Light,
    Dark,
}

/// Settings that persist between runs (eframe storage).
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Persisted {
    pub last_workspace: Option<PathBuf>,
    pub recent: Vec<PathBuf>,
    pub theme: ThemeChoice,
    pub debug_markers: bool,
    pub tab: Tab,
    pub model: Option<String>,
    /// The agent's user-level memory read too (`--user-memory`).
    #[serde(default)]
    pub user_memory: bool,
}

pub struct AppState {
    pub root: Option<PathBuf>,
    /// The loaded workspace with the current session assembled.
    pub loaded: Option<Inspection>,
    /// Its context window by category (`/context`'s for an agent folder),
    /// made again with every assembly.
    pub context: Option<crate::engine::assembly::context::ContextUsage>,
    /// Every problem (errors, warnings, cache breakers), made again with
    /// every assembly: the list, the tab and the status bar count these.
    pub problems: Vec<crate::engine::problems::Problem>,
    /// The cache breakers of the last assembly, by what they depend on
    /// (a slider move that changes no fragment reuses them).
    pub breakers: Option<(u64, Vec<crate::engine::problems::Problem>)>,
    pub session: Option<String>,
    pub model: Option<String>,
    /// Live budget (sliders); `budget_touched` keeps it across reloads.
    pub budget: Budget,
    pub budget_touched: bool,
    pub debug_markers: bool,
    /// The agent's user-level memory (`~/.claude/CLAUDE.md`) read too, as
    /// `--user-memory` reads it.
    pub user_memory: bool,
    /// The folder the agent runs in, inside the one opened (`--workdir`);
    /// `None`: the folder opened.
    pub workdir: Option<String>,
    /// The folders the agent may be run in, offered beside the folder
    /// opened: made with every load ([`folders_to_run_in`]).
    pub runs_in: Vec<String>,
    pub selected: Option<String>,
    /// A line of the selected fragment's file to show in its detail (a
    /// problem's), and whether the detail still has to scroll to it.
    pub selected_line: Option<(usize, bool)>,
    /// The cache rules to predict with (`None`: the model's own).
    pub provider: Option<Provider>,
    /// The assembly profile chosen (`None`: the workspace's own or detected).
    pub profile: Option<String>,
    /// An agent profile's character caps moved with the sliders (per file,
    /// total); `None`: the profile's own.
    pub caps: Option<(usize, usize)>,
    pub tab: Tab,
    pub busy: Option<String>,
    pub error: Option<String>,
    /// What just happened, said once in the status bar (a snapshot saved).
    pub notice: Option<String>,
    pub recent: Vec<PathBuf>,
    pub theme: ThemeChoice,
    /// Generation of the newest job; older results are ignored.
    pub generation: u64,
    pub reloads: u64,
    pub last_load_ms: u128,
    /// CPU time of the last re-assembly (slider), microseconds.
    pub last_assemble_us: u128,
    pub last_reload_at: Option<Instant>,
}

impl Default for AppState {
    fn default() -> Self {
        AppState {
            root: None,
            loaded: None,
            context: None,
            problems: Vec::new(),
            breakers: None,
            session: None,
            model: None,
            budget: Budget::default(),
            budget_touched: false,
            debug_markers: false,
            user_memory: false,
            workdir: None,
            runs_in: Vec::new(),
            selected: None,
            selected_line: None,
            provider: None,
            profile: None,
            caps: None,
            tab: Tab::Fragments,
            busy: None,
            error: None,
            notice: None,
            recent: Vec::new(),
            theme: ThemeChoice::System,
            generation: 0,
            reloads: 0,
            last_load_ms: 0,
            last_assemble_us: 0,
            last_reload_at: None,
        }
    }
}

pub fn status_index(s: Status) -> usize {
    Status::ALL.iter().position(|x| *x == s).unwrap_or(0)
}

impl AppState {
    pub fn from_persisted(p: &Persisted) -> AppState {
        AppState {
            recent: p.recent.clone(),
            theme: p.theme,
            debug_markers: p.debug_markers,
            user_memory: p.user_memory,
            tab: p.tab,
            model: p.model.clone(),
            ..AppState::default()
        }
    }

    pub fn persisted(&self) -> Persisted {
        Persisted {
            last_workspace: self.root.clone(),
            recent: self.recent.clone(),
            theme: self.theme,
            debug_markers: self.debug_markers,
            tab: self.tab,
            model: self.model.clone(),
            user_memory: self.user_memory,
        }
    }

    pub fn note_recent(&mut self, root: &std::path::Path) {
        self.recent.retain(|p| p != root);
        self.recent.insert(0, root.to_path_buf());
        self.recent.truncate(10);
    }

    /// What the worker is asked to assemble: the session and model chosen,
    /// and the budget once a slider moved (else the workspace's own).
    pub fn options(&self) -> Options {
        crate::with_surroundings(Options {
            session: self.session.clone(),
            model: self.model.clone(),
            model_named_as: Some("the model picked in the window".into()),
            budget: self.budget_touched.then_some(self.budget),
            budget_total: None,
            debug_markers: self.debug_markers,
            profile: self.profile.clone(),
            caps: self.caps,
            user_memory: self.user_memory,
            workdir: self.workdir.clone(),
            ..Options::default()
        })
    }

    /// A newly assembled inspection (first load, reload, another session or
    /// model). It is re-assembled with the live budget and markers, which
    /// may have moved while the worker ran.
    pub fn apply_inspection(&mut self, mut ins: Inspection, counter: &TokenCounter) {
        if !self.budget_touched {
            self.budget = ins.default_budget;
        }
        self.session = Some(ins.prepared.session.clone());
        ins.reassemble(&self.budget, self.debug_markers, counter);
        if let Some(sel) = &self.selected
            && !ins.assembly.fragments.iter().any(|f| &f.id == sel)
        {
            self.selected = None;
        }
        self.context = Some(crate::engine::assembly::context::usage(&ins, counter));
        // A new load: its texts may differ at the same lengths.
        self.breakers = None;
        self.problems = crate::engine::problems::problems_with(&ins, &mut self.breakers);
        self.runs_in = folders_to_run_in(&ins, self.workdir.as_deref());
        self.loaded = Some(ins);
        self.busy = None;
        self.error = None;
    }

    /// Re-assembles after a budget or marker change (cheap: counts come from
    /// the content cache). Records the CPU time it took.
    pub fn reassemble(&mut self, counter: &TokenCounter) {
        let t = Instant::now();
        if let Some(l) = &mut self.loaded {
            l.reassemble(&self.budget, self.debug_markers, counter);
            self.context = Some(crate::engine::assembly::context::usage(l, counter));
            self.problems = crate::engine::problems::problems_with(l, &mut self.breakers);
        }
        self.last_assemble_us = t.elapsed().as_micros();
    }

    pub fn reset_budget(&mut self, counter: &TokenCounter) {
        if let Some(l) = &self.loaded {
            self.budget = l.default_budget;
            self.budget_touched = false;
            self.reassemble(counter);
        }
    }

    pub fn assembly(&self) -> Option<&Assembly> {
        self.loaded.as_ref().map(|l| &l.assembly)
    }
}

/// At most this many folders are offered to run the agent in.
const MAX_RUNS_IN: usize = 50;

/// The folders of `ins` the agent may be run in: each one holding a memory
/// file of a name the opened folder holds too (`app/` with its own
/// `CLAUDE.md`), the one it runs in now (`workdir`) among them.
fn folders_to_run_in(ins: &Inspection, workdir: Option<&str>) -> Vec<String> {
    let sources = || ins.assembly.fragments.iter().map(|f| f.source.as_str());
    let top: std::collections::BTreeSet<&str> = sources().filter(|s| !s.contains('/')).collect();
    let mut folders: Vec<String> = sources()
        .filter_map(|s| s.rsplit_once('/'))
        .filter(|(dir, name)| top.contains(name) && !dir.starts_with(['.', '~']))
        .map(|(dir, _)| dir.to_string())
        .chain(workdir.map(str::to_string))
        .collect();
    folders.sort();
    folders.dedup();
    folders.truncate(MAX_RUNS_IN);
    folders
}

/// The fragment table's own view: filter, status toggles, sort.
#[derive(Debug, Clone)]
pub struct TableView {
    pub filter: String,
    pub status_filter: [bool; 5],
    pub sort: SortColumn,
    pub sort_ascending: bool,
    /// The rows' vertical offset, shared by the frozen id column and the
    /// columns that scroll sideways beside it.
    pub scroll_y: f32,
    /// The selected fragment the table last scrolled to (a new selection
    /// is scrolled into view once).
    pub shown_selection: Option<String>,
    /// The columns beside the ids were wider than their room last frame
    /// (they scroll sideways): the rows' vertical bar is then drawn beside
    /// the ids, where it is always in sight, not past the last column.
    pub columns_overflow: bool,
}

impl Default for TableView {
    fn default() -> Self {
        TableView {
            filter: String::new(),
            status_filter: [true; 5],
            sort: SortColumn::Order,
            sort_ascending: true,
            scroll_y: 0.0,
            shown_selection: None,
            columns_overflow: false,
        }
    }
}

impl TableView {
    /// Indices into `a.fragments` after filter and sort.
    pub fn visible_rows(&self, a: &Assembly) -> Vec<usize> {
        let needle = self.filter.to_lowercase();
        let mut rows: Vec<usize> = (0..a.fragments.len())
            .filter(|&i| {
                let f = &a.fragments[i];
                self.status_filter[status_index(f.status)]
                    && (needle.is_empty()
                        || f.id.to_lowercase().contains(&needle)
                        || f.source.to_lowercase().contains(&needle)
                        || f.reason.to_lowercase().contains(&needle))
            })
            .collect();
        let f = |i: &usize| &a.fragments[*i];
        match self.sort {
            SortColumn::Order => {}
            SortColumn::Id => rows.sort_by(|x, y| f(x).id.cmp(&f(y).id)),
            SortColumn::Layer => rows.sort_by_key(|i| (f(i).layer, *i)),
            SortColumn::Priority => rows.sort_by_key(|i| (f(i).priority, *i)),
            SortColumn::Source => rows.sort_by(|x, y| f(x).source.cmp(&f(y).source).then(x.cmp(y))),
            SortColumn::Tokens => rows.sort_by_key(|i| (f(i).tokens, *i)),
            SortColumn::Kept => rows.sort_by_key(|i| (f(i).kept_tokens, *i)),
            SortColumn::Status => rows.sort_by_key(|i| (f(i).status, *i)),
            SortColumn::Reason => rows.sort_by(|x, y| f(x).reason.cmp(&f(y).reason).then(x.cmp(y))),
        }
        if !self.sort_ascending {
            rows.reverse();
        }
        rows
    }

    pub fn toggle_sort(&mut self, col: SortColumn) {
        if self.sort == col {
            self.sort_ascending = !self.sort_ascending;
        } else {
            self.sort = col;
            self.sort_ascending = true;
        }
    }
}
