//! The engine: pure, synchronous and deterministic. No UI, no network.

pub mod assemble;
pub mod calibration;
pub mod diag;
pub mod diff;
pub mod expr;
pub mod fsutil;
pub mod history;
pub mod lint;
pub mod models;
pub mod predict;
pub mod prediction;
pub mod report;
pub mod request;
pub mod session;
pub mod settings;
pub mod shape;
pub mod snapshot;
pub mod sources;
pub mod template;
pub mod testrun;
pub mod tokens;
pub mod tooldefs;
pub mod workspace;
pub mod yaml;

use std::path::Path;

pub use assemble::{Assembly, Prepared, Status, assemble, prepare};
pub use diag::{Diagnostic, Severity};
pub use models::{ModelInfo, ModelTable, Provider};
pub use session::Session;
pub use settings::{Budget, Settings};
pub use tokens::{Encoding, TokenCounter};
pub use workspace::Workspace;

/// What the caller wants to see (the CLI's flags, the window's controls).
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub session: Option<String>,
    pub model: Option<String>,
    pub budget_total: Option<u64>,
    pub debug_markers: bool,
}

/// One workspace, one session, assembled.
#[derive(Debug, Clone)]
pub struct Inspection {
    pub workspace: Workspace,
    pub prepared: Prepared,
    pub assembly: Assembly,
}

impl Inspection {
    /// Workspace diagnostics followed by those of this session's assembly.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut d = self.workspace.diagnostics.clone();
        d.extend(self.prepared.diagnostics.iter().cloned());
        d
    }

    pub fn session(&self) -> &Session {
        self.workspace
            .session(&self.prepared.session)
            .unwrap_or_else(|| self.workspace.default_session())
    }
}

/// Picks the session by name (or the first), with a readable error.
pub fn pick_session<'a>(ws: &'a Workspace, name: Option<&str>) -> Result<&'a Session, String> {
    match name {
        None => Ok(ws.default_session()),
        Some(n) => ws.session(n).ok_or_else(|| {
            let names: Vec<_> = ws.sessions.iter().map(|s| s.name.as_str()).collect();
            format!("no session named '{n}' (sessions: {})", names.join(", "))
        }),
    }
}

/// Loads, prepares and assembles in one call.
pub fn inspect(
    root: &Path,
    opts: &Options,
    table: &ModelTable,
    counter: &TokenCounter,
) -> Result<Inspection, String> {
    let workspace = workspace::load(root)?;
    inspect_loaded(workspace, opts, table, counter)
}

/// Prepares and assembles an already loaded workspace.
pub fn inspect_loaded(
    workspace: Workspace,
    opts: &Options,
    table: &ModelTable,
    counter: &TokenCounter,
) -> Result<Inspection, String> {
    let session = pick_session(&workspace, opts.session.as_deref())?;
    let mut settings = workspace.settings.clone();
    if let Some(total) = opts.budget_total {
        settings.budget.total = total;
    }
    let model_id = opts
        .model
        .as_deref()
        .or(session.model.as_deref())
        .or(settings.model.as_deref());
    if let Some(id) = opts.model.as_deref()
        && table.get(id).is_none()
    {
        let ids: Vec<_> = table.models.iter().map(|m| m.id.as_str()).collect();
        return Err(format!("unknown model '{id}' (models: {})", ids.join(", ")));
    }
    let model = table.resolve(model_id).clone();
    let prepared = prepare(&workspace, session, &settings, &model, counter);
    let mut extra = Vec::new();
    if let Some(id) = model_id
        && table.get(id).is_none()
    {
        let (file, line) = match (opts.model.as_deref(), session.model.as_deref()) {
            (None, Some(_)) => (
                session.source.as_str(),
                Some(session.model_line.unwrap_or(1)),
            ),
            _ => ("workspace.yaml", Some(settings.model_line.unwrap_or(1))),
        };
        extra.push(Diagnostic::warning(
            file,
            line,
            format!(
                "unknown model '{id}': using {} (add it to assets/models.json)",
                model.id
            ),
        ));
    }
    let assembly = assemble(
        &prepared,
        &settings.budget,
        opts.debug_markers || settings.debug_markers,
        counter,
    );
    let mut prepared = prepared;
    prepared.diagnostics.extend(extra);
    Ok(Inspection {
        workspace,
        prepared,
        assembly,
    })
}

#[cfg(test)]
mod assemble_tests;

#[cfg(test)]
mod predict_tests;

#[cfg(test)]
mod diff_tests;
