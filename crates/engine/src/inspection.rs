//! The one road from a folder to every view: load the workspace, resolve the
//! session and the model, prepare, assemble. The CLI, the window's worker,
//! test runs, snapshots and diff all build an [`Inspection`] here and
//! nowhere else.

use std::path::Path;
use std::sync::Arc;

use crate::assembly::assemble::{Assembly, Prepared, assemble, prepare};
use crate::assembly::models::ModelTable;
use crate::assembly::tokens::TokenCounter;
use crate::cache::calibration;
use crate::error::{Error, Named};
use crate::text::thousands;
use crate::workspace::diag::Diagnostic;
use crate::workspace::session::Session;
use crate::workspace::settings::Budget;
use crate::workspace::{self, Workspace};

/// What the caller wants to see (the CLI's flags, the window's controls).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    pub session: Option<String>,
    /// A model id that must exist in the table (an unknown one is an error).
    pub model: Option<String>,
    /// The whole budget (the window's sliders); default: the workspace's.
    pub budget: Option<Budget>,
    /// Only the total (the CLI's `--budget`), applied over `budget`.
    pub budget_total: Option<u64>,
    pub debug_markers: bool,
    /// The assembly profile (default: `profile:` in workspace.yaml, else
    /// the one the folder's files suggest).
    pub profile: Option<String>,
    /// An agent profile's character caps (per file, total) instead of its
    /// own (the window's cap sliders).
    pub caps: Option<(usize, usize)>,
    /// OpenClaw: the days whose daily memory the startup context of `/new`
    /// carries (today and yesterday, dated by the caller).
    pub startup_days: Vec<String>,
    /// Codex: the folder it runs in, inside the workspace (relative): the
    /// AGENTS.md files from the workspace's root down to it are sent, and
    /// its own text names it.
    pub workdir: Option<String>,
    /// OpenClaw: the kind of session (`subagent`, `cron`, `group`).
    pub session_kind: Option<String>,
    /// Today's date (YYYY-MM-DD), dated by the caller: the agent's own
    /// text that carries it (Claude Code's `Today's date is …`).
    pub today: Option<String>,
    /// Claude Code: also the user-level `~/.claude/CLAUDE.md`.
    pub user_memory: bool,
    /// The user's home folder (for `user_memory`), read by the caller: the
    /// engine reads nothing from its surroundings.
    pub home: Option<std::path::PathBuf>,
    /// A folder of extra assembly profiles (`PROMPT_INSPECTOR_PROFILES`),
    /// named by the caller.
    pub profiles_dir: Option<std::path::PathBuf>,
    /// The agents' parts learned from the user's requests (`agents learn`:
    /// `$XDG_DATA_HOME/prompt-inspector/agents/`), read by the caller's
    /// edge; none: the bundled recordings only.
    pub observed_dir: Option<std::path::PathBuf>,
}

/// One workspace, one session, assembled. The workspace and the prepared
/// session are shared (`Arc`), so a copy for another view or thread is cheap.
#[derive(Debug, Clone)]
pub struct Inspection {
    pub workspace: Arc<Workspace>,
    pub prepared: Arc<Prepared>,
    pub assembly: Assembly,
    /// The workspace's own budget (declared, or derived from the model's
    /// context window), before any slider or `--budget`.
    pub default_budget: Budget,
    /// Where the model came from when an agent's settings file set it
    /// (`.claude/settings.json: "sonnet"`).
    pub model_source: Option<String>,
}

/// Loads a workspace folder (with the profile named, else the one it
/// declares or suggests) and the app's state that belongs to it (the
/// count_tokens calibration), both through the guarded reader.
pub fn load_workspace(root: &Path, opts: &Options) -> Result<Workspace, Error> {
    let (profile, caps) = (opts.profile.as_deref(), opts.caps);
    let mut profiles = workspace::profile::Profiles::load_with(
        opts.profiles_dir.as_deref(),
        opts.observed_dir.as_deref(),
    )?;
    if let Some((per_file, total)) = caps {
        for c in profiles.all.iter_mut().filter_map(|p| p.caps.as_mut()) {
            c.per_file_chars = per_file;
            c.total_chars = total;
        }
    }
    // The profile's user-level file is read by its loader through the
    // guarded reader (a nonblocking open, a regular file of at most 8 MiB
    // checked on the handle); one that cannot be read (absent, a FIFO, a
    // device, a folder) is one diagnostic.
    let user_memory_home = if opts.user_memory {
        Some(
            opts.home
                .clone()
                .ok_or_else(|| Error::option("--user-memory", "HOME is not set"))?,
        )
    } else {
        None
    };
    let extras = workspace::agents::Extras {
        startup_days: opts.startup_days.clone(),
        user_memory_home,
        home: opts.home.clone(),
        today: opts.today.clone(),
        workdir: opts.workdir.clone(),
        session_kind: opts.session_kind.clone(),
    };
    let mut ws = workspace::load_as(root, profile, &profiles, &extras)?;
    ws.calibration = calibration::load(&ws.root);
    Ok(ws)
}

/// Loads, prepares and assembles in one call.
pub fn inspect(
    root: &Path,
    opts: &Options,
    table: &ModelTable,
    counter: &TokenCounter,
) -> Result<Inspection, Error> {
    Inspection::new(Arc::new(load_workspace(root, opts)?), opts, table, counter)
}

/// Picks the session by name (or the default), with a readable error.
pub fn pick_session<'a>(ws: &'a Workspace, name: Option<&str>) -> Result<&'a Session, Error> {
    match name {
        None => Ok(ws.default_session()),
        Some(n) => ws.session(n).ok_or_else(|| Error::Unknown {
            what: Named::Session,
            name: n.to_string(),
            known: ws.sessions.iter().map(|s| s.name.clone()).collect(),
        }),
    }
}

impl Inspection {
    /// Resolves the session and the model, prepares and assembles.
    pub fn new(
        workspace: Arc<Workspace>,
        opts: &Options,
        table: &ModelTable,
        counter: &TokenCounter,
    ) -> Result<Inspection, Error> {
        let session = pick_session(&workspace, opts.session.as_deref())?;
        let mut settings = workspace.settings.clone();
        let model_id = opts
            .model
            .as_deref()
            .or(session.model.as_deref())
            .or(settings.model.as_deref());
        if settings.budget_line.is_none() {
            let m = table.resolve(model_id);
            let window = workspace
                .builtin
                .as_ref()
                .and_then(|b| b.context_window)
                .unwrap_or(m.context_window);
            let h = &settings.history;
            settings.budget = Budget::for_window(window, h.reserved_output + h.autocompact_buffer);
        }
        let default_budget = settings.budget;
        if let Some(b) = opts.budget {
            settings.budget = b;
        }
        if let Some(total) = opts.budget_total {
            // A workspace that declares no budget: every layer's share lives
            // inside the total given (as for a model's window).
            if settings.budget_line.is_none() && opts.budget.is_none() {
                settings.budget = Budget::for_window(total, 0);
            }
            settings.budget.total = total;
        }
        if let Some(id) = opts.model.as_deref()
            && table.get(id).is_none()
            && table.alias(id).is_none()
        {
            return Err(Error::Unknown {
                what: Named::Model,
                name: id.to_string(),
                known: vec![table.nearest(id).to_string()],
            });
        }
        let model = table.resolve(model_id).clone();
        // Where the model came from, when an agent's settings file set it.
        let model_source = match (&opts.model, &session.model, &settings.model_from) {
            (None, None, Some(file)) => Some(format!(
                "{file}: \"{}\"",
                crate::clean(settings.model.as_deref().unwrap_or_default(), 80)
            )),
            _ => None,
        };
        let mut prepared = prepare(&workspace, session, &settings, &model, counter);
        if let Some(id) = model_id
            && let Some(advice) = table.advice(id)
        {
            let (file, line) = match (opts.model.as_deref(), session.model.as_deref()) {
                (None, Some(_)) => (session.source.as_str(), session.model_line.or(Some(1))),
                (None, None) if settings.model_from.is_some() => {
                    (settings.model_from.as_deref().unwrap_or_default(), None)
                }
                // No file named it: the agent's own default model.
                (None, None) if settings.model_line.is_none() && workspace.builtin.is_some() => {
                    ("the agent's default model", None)
                }
                _ => ("workspace.yaml", settings.model_line.or(Some(1))),
            };
            let using = if table.get(id).is_none() {
                format!(" (counting with {} meanwhile)", model.id)
            } else {
                String::new()
            };
            prepared
                .diagnostics
                .push(Diagnostic::warning(file, line, format!("{advice}{using}")));
        }
        let assembly = assemble(
            &prepared,
            &settings.budget,
            opts.debug_markers || settings.debug_markers,
            counter,
        );
        Ok(Inspection {
            workspace,
            prepared: Arc::new(prepared),
            assembly,
            default_budget,
            model_source,
        })
    }

    /// The same session under another budget or marker setting. Cheap:
    /// token counts come from the content cache.
    pub fn reassemble(&mut self, budget: &Budget, debug_markers: bool, counter: &TokenCounter) {
        self.assembly = assemble(&self.prepared, budget, debug_markers, counter);
    }

    /// Another session of the same workspace, with this inspection's model,
    /// budget and markers (test runs' second session, diff's other side).
    pub fn other_session(
        &self,
        name: &str,
        table: &ModelTable,
        counter: &TokenCounter,
    ) -> Result<Inspection, Error> {
        let mut ins = Inspection::new(
            self.workspace.clone(),
            &Options {
                session: Some(name.to_string()),
                model: table.get(&self.prepared.model.id).map(|m| m.id.clone()),
                budget: Some(self.assembly.budget),
                budget_total: None,
                debug_markers: self.assembly.debug_markers,
                profiles_dir: None,
                observed_dir: None,
                ..Options::default()
            },
            table,
            counter,
        )?;
        ins.reassemble(&self.assembly.budget, self.assembly.debug_markers, counter);
        Ok(ins)
    }

    /// Workspace diagnostics, then those of this session's preparation,
    /// then the budget's problems (a fixed layer over its budget, a total
    /// below the fixed budgets), each with what to do.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut d = self.workspace.diagnostics.clone();
        d.extend(self.prepared.diagnostics.iter().cloned());
        d.extend(budget_problems(&self.assembly, &self.prepared));
        d
    }

    pub fn session(&self) -> &Session {
        self.workspace
            .session(&self.prepared.session)
            .unwrap_or_else(|| self.workspace.default_session())
    }

    /// The session's first request as an Anthropic Messages body (the
    /// session's messages up to its first request, else one "Hello"), with
    /// `max_tokens: 1`: what "copy as request JSON" and `render
    /// --request-json` show.
    /// The API whose body [`Inspection::first_request_body`] writes:
    /// `Gemini` for a Gemini CLI folder, else `Anthropic` (Messages).
    pub fn request_api(&self) -> &'static str {
        match self.workspace.profile.agent {
            crate::workspace::agent::Agent::Gemini => "Gemini",
            _ => "Anthropic",
        }
    }

    pub fn first_request_body(&self) -> serde_json::Value {
        use crate::workspace::session::{Message, Role};
        let session = self.session();
        let messages = session
            .requests
            .first()
            .map(|r| session.messages[..r.messages].to_vec())
            .unwrap_or_else(|| vec![Message::text(Role::User, "Hello")]);
        // Gemini CLI's folder: the body Gemini's API takes.
        if self.request_api() == "Gemini" {
            return crate::cache::request::gemini_body(&self.assembly, &messages);
        }
        let s = &self.workspace.settings;
        crate::cache::request::anthropic_body(
            &self.assembly,
            &self.assembly.model,
            &messages,
            1,
            s.cache_tools,
            s.history.message_breakpoint,
        )
    }

    /// The count_tokens calibration of this inspection's model, if saved.
    pub fn calibration(&self) -> Option<f64> {
        self.workspace
            .calibration
            .get(&self.assembly.model)
            .copied()
    }
}

/// The budget's problems as diagnostics on workspace.yaml's `budget:` line.
pub fn budget_problems(a: &Assembly, p: &Prepared) -> Vec<Diagnostic> {
    let line = p.settings.budget_line.or(Some(1));
    let n = |x: u64| thousands(x);
    let mut out = Vec::new();
    let b = &a.budget;
    if b.total < b.layer1 + b.layer2 {
        out.push(Diagnostic::warning(
            "workspace.yaml",
            line,
            format!(
                "the total budget ({}) is below the fixed budgets of layers 1 and 2 ({} together): layers 3 and 4 get nothing; raise `budget.total` or lower `budget.fixed`",
                n(b.total),
                n(b.layer1 + b.layer2)
            ),
        ));
    }
    for l in a.layers.iter().filter(|l| l.overflow > 0) {
        let largest = a
            .fragments
            .iter()
            .filter(|f| f.layer == l.layer && f.kept_tokens > 0)
            .max_by_key(|f| f.kept_tokens);
        // Over only because of the markers: the prompt sent without them
        // fits (trimming never counts them).
        if l.markers > 0 && l.overflow <= l.markers {
            out.push(Diagnostic::warning(
                "workspace.yaml",
                line,
                format!(
                    "with DEBUG markers, layer {}'s block is {} tokens, over its {}: the markers add {}; what is kept is decided without them, so send the prompt without markers",
                    l.layer,
                    n(l.used),
                    n(l.available),
                    n(l.markers)
                ),
            ));
            continue;
        }
        let shorten = largest.map_or(String::new(), |f| format!(" or shorten {}", f.source));
        let what = if l.layer <= 2 {
            format!("raise `budget.fixed.layer{}`{shorten}", l.layer)
        } else {
            format!("raise `budget.total`{shorten}")
        };
        let mut d = Diagnostic::warning(
            "workspace.yaml",
            line,
            format!(
                "layer {} is {} tokens over its {} budget: {what}",
                l.layer,
                n(l.overflow),
                n(l.available)
            ),
        );
        if let Some(f) = largest {
            d = d.for_fragment(&f.id);
        }
        out.push(d);
    }
    out
}
