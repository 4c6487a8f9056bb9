//! What the window shows, apart from how it is drawn: the loaded workspace,
//! the live settings (session, model, budget sliders, markers) and the view
//! state (selection, filters, sort). Panels read it and send intents; all
//! business logic stays in the engine.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::engine::{Assembly, Budget, Prepared, Status, TokenCounter, Workspace, assemble};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Tab {
    #[default]
    Fragments,
    Prompt,
    Cache,
    Run,
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
}

/// The loaded workspace with the current session prepared and assembled.
pub struct Loaded {
    pub workspace: Arc<Workspace>,
    pub prepared: Arc<Prepared>,
    pub assembly: Assembly,
}

pub struct AppState {
    pub root: Option<PathBuf>,
    pub loaded: Option<Loaded>,
    pub session: Option<String>,
    pub model: Option<String>,
    /// Live budget (sliders); `budget_touched` keeps it across reloads.
    pub budget: Budget,
    pub budget_touched: bool,
    pub debug_markers: bool,
    pub selected: Option<String>,
    pub filter: String,
    pub status_filter: [bool; 5],
    pub sort: SortColumn,
    pub sort_ascending: bool,
    pub tab: Tab,
    pub busy: Option<String>,
    pub error: Option<String>,
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
            session: None,
            model: None,
            budget: Budget::default(),
            budget_touched: false,
            debug_markers: false,
            selected: None,
            filter: String::new(),
            status_filter: [true; 5],
            sort: SortColumn::Order,
            sort_ascending: true,
            tab: Tab::Fragments,
            busy: None,
            error: None,
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
        }
    }

    pub fn note_recent(&mut self, root: &std::path::Path) {
        self.recent.retain(|p| p != root);
        self.recent.insert(0, root.to_path_buf());
        self.recent.truncate(10);
    }

    /// A newly loaded workspace (first load or reload).
    pub fn apply_loaded(
        &mut self,
        workspace: Arc<Workspace>,
        prepared: Arc<Prepared>,
        counter: &TokenCounter,
    ) {
        if !self.budget_touched {
            self.budget = workspace.settings.budget;
        }
        if self
            .session
            .as_deref()
            .is_none_or(|s| workspace.session(s).is_none())
        {
            self.session = Some(prepared.session.clone());
        }
        let assembly = assemble(&prepared, &self.budget, self.debug_markers, counter);
        if let Some(sel) = &self.selected
            && !assembly.fragments.iter().any(|f| &f.id == sel)
        {
            self.selected = None;
        }
        self.loaded = Some(Loaded {
            workspace,
            prepared,
            assembly,
        });
        self.busy = None;
        self.error = None;
    }

    pub fn apply_prepared(&mut self, prepared: Arc<Prepared>, counter: &TokenCounter) {
        if let Some(l) = &mut self.loaded {
            l.assembly = assemble(&prepared, &self.budget, self.debug_markers, counter);
            l.prepared = prepared;
        }
        self.busy = None;
    }

    /// Re-assembles after a budget or marker change (cheap: counts come from
    /// the content cache). Records the CPU time it took.
    pub fn reassemble(&mut self, counter: &TokenCounter) {
        let t = Instant::now();
        if let Some(l) = &mut self.loaded {
            l.assembly = assemble(&l.prepared, &self.budget, self.debug_markers, counter);
        }
        self.last_assemble_us = t.elapsed().as_micros();
    }

    pub fn reset_budget(&mut self, counter: &TokenCounter) {
        if let Some(l) = &self.loaded {
            self.budget = l.workspace.settings.budget;
            self.budget_touched = false;
            self.reassemble(counter);
        }
    }

    pub fn assembly(&self) -> Option<&Assembly> {
        self.loaded.as_ref().map(|l| &l.assembly)
    }

    /// Indices into `assembly.fragments` after filter and sort.
    pub fn visible_rows(&self) -> Vec<usize> {
        let Some(a) = self.assembly() else {
            return Vec::new();
        };
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
        let key = |i: &usize| {
            let f = &a.fragments[*i];
            (f, *i)
        };
        match self.sort {
            SortColumn::Order => {}
            SortColumn::Id => rows.sort_by(|a, b| key(a).0.id.cmp(&key(b).0.id)),
            SortColumn::Layer => rows.sort_by_key(|i| (key(i).0.layer, *i)),
            SortColumn::Priority => rows.sort_by_key(|i| (key(i).0.priority, *i)),
            SortColumn::Source => {
                rows.sort_by(|a, b| key(a).0.source.cmp(&key(b).0.source).then(a.cmp(b)))
            }
            SortColumn::Tokens => rows.sort_by_key(|i| (key(i).0.tokens, *i)),
            SortColumn::Kept => rows.sort_by_key(|i| (key(i).0.kept_tokens, *i)),
            SortColumn::Status => rows.sort_by_key(|i| (key(i).0.status, *i)),
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
