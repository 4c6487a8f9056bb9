//! The one road from a folder to every view: load the workspace, resolve the
//! session and the model, prepare, assemble. The CLI, the window's worker,
//! test runs, snapshots and diff all build an [`Inspection`] here and
//! nowhere else.

use std::path::Path;
use std::sync::Arc;

use crate::assembly::assemble::{assemble, prepare};
use crate::assembly::assembled::Assembled;
use crate::assembly::models::{ModelInfo, ModelTable};
use crate::assembly::tokens::TokenCounter;
use crate::cache::calibration;
use crate::error::{Error, Named};
use crate::traffic::Exchange;
use crate::traffic::profile_check::{self, Against};
use crate::traffic::release;
use crate::workspace::diag::Diagnostic;
use crate::workspace::settings::Budget;
use crate::workspace::{self, Workspace};

/// What the caller wants to see (the CLI's flags, the window's controls).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options {
    pub session: Option<String>,
    /// A model id that must exist in the table (an unknown one is an error).
    pub model: Option<String>,
    /// Where the caller took `model` from, as a warning about it names the
    /// place (the window: its model picker); none: `--model`.
    pub model_named_as: Option<String>,
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
    /// The machine's system and kernel release (`Linux 6.18.44`), read by
    /// the caller: the agent's own text that names it.
    pub os_version: Option<String>,
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

/// One workspace, one session, assembled: the façade over the rooms below.
/// What it holds is the assembly room's [`Assembled`] (every room below
/// takes that, never this type); what it adds is the road that builds it
/// (load, resolve the session and model, prepare, assemble) and the request
/// bodies written from it.
#[derive(Debug, Clone)]
pub struct Inspection(Assembled);

impl std::ops::Deref for Inspection {
    type Target = Assembled;
    fn deref(&self) -> &Assembled {
        &self.0
    }
}

impl From<Inspection> for Assembled {
    fn from(ins: Inspection) -> Assembled {
        ins.0
    }
}

impl std::ops::DerefMut for Inspection {
    fn deref_mut(&mut self) -> &mut Assembled {
        &mut self.0
    }
}

/// Loads a workspace folder (with the profile named, else the one it
/// declares or suggests) and the app's state that belongs to it (the
/// count_tokens calibration), both through the guarded reader.
pub fn load_workspace(root: &Path, opts: &Options) -> Result<Workspace, Error> {
    let (profile, caps) = (opts.profile.as_deref(), opts.caps);
    let mut profiles = workspace::profiles::Profiles::load_with(
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
        workdir: opts
            .workdir
            .as_deref()
            .and_then(|w| workspace::workdir_as_given(root, w)),
        session_kind: opts.session_kind.clone(),
        os_version: opts.os_version.clone(),
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

/// Request `n` (`x`, its body `req`) against the workspace at `root`
/// loaded with `opts` (`first`: its chain's first request, when another):
/// the one road of `traffic --against` and the Traffic tab. The agent
/// reads its user-level memory whenever it is there, so it is looked for
/// here; unless a profile is named, the request is read with the profile
/// recorded from the release that sent it, when one is, else with the
/// release whose own parts it holds.
pub fn against_request(
    root: &Path,
    opts: &Options,
    table: &ModelTable,
    counter: &TokenCounter,
    picked: (usize, &Exchange, &crate::request::Request),
    first: Option<&crate::request::Request>,
) -> Result<Against, Error> {
    let (profile, mut why) = match opts.profile.clone() {
        Some(p) => (Some(p), None),
        None => profile_of_sender(opts, picked),
    };
    let mut opts = Options {
        user_memory: opts.user_memory || opts.home.is_some(),
        profile,
        ..opts.clone()
    };
    let ins = inspect(root, &opts, table, counter)?;
    let mut against = profile_check::against(&ins, table, counter, picked, first);
    // Neither named (`--profile`, workspace.yaml) nor said by the request.
    if why.is_none()
        && opts.profile.is_none()
        && ins.workspace.settings.profile.is_none()
        && let Some(other) =
            release_by_parts(root, &opts, (table, counter), (picked, first), &against)
    {
        opts.profile = Some(other.profile.clone());
        why = Some(other.profile_chosen_because.clone());
        against = other;
    }
    // Sent from a home without this home's files (none of them in the
    // request): compared as that home renders, the files said apart (with
    // them, the agent's words between the user's file and the project's
    // would read as a difference).
    let home_files = || {
        against
            .attribution
            .files
            .iter()
            .filter(|f| f.path.starts_with("~/"))
    };
    if !against.home_not_sent.is_empty()
        && home_files().all(|f| f.sent == crate::traffic::attribution::Sent::Absent)
    {
        let home_not_sent = std::mem::take(&mut against.home_not_sent);
        let opts = Options {
            user_memory: false,
            ..opts.clone()
        };
        let ins = inspect(root, &opts, table, counter)?;
        against = profile_check::against(&ins, table, counter, picked, first);
        against.home_not_sent = home_not_sent;
    }
    if let Some(why) = why {
        against.profile_chosen_because = why;
    }
    Ok(against)
}

/// The profile of the release that sent request `x`, or the newest of the
/// agent whose words open it; and why. None: the request says neither.
fn profile_of_sender(
    opts: &Options,
    (_, x, req): (usize, &Exchange, &crate::request::Request),
) -> (Option<String>, Option<String>) {
    let rel = x.release.clone().or_else(|| release::of_request(req));
    let of_release = rel.as_ref().and_then(|rel| {
        let p = profile_check::profile_of_release(
            rel,
            opts.profiles_dir.as_deref(),
            opts.observed_dir.as_deref(),
        )?;
        Some((
            p,
            format!("the release that sent the request: {}", rel.name()),
        ))
    });
    // An agent whose requests name no release: its newest profile.
    let of_agent = || {
        release::agent_of_request(req).map(|a| {
            (
                a.name().to_string(),
                "the agent whose words open the request (it names no release): its newest profile"
                    .to_string(),
            )
        })
    };
    match of_release.or_else(of_agent) {
        Some((p, why)) => (Some(p), Some(why)),
        None => (None, None),
    }
}

/// A request that names neither its agent's release nor its words: read
/// with the release of the same agent whose own parts it holds the most
/// tokens of (bundled or learned), when that is another than the one the
/// folder's profile assumes (a Codex 0.169.0 capture against a folder
/// read as 0.171.0: its 4,212-token instructions are 0.169.0's).
fn release_by_parts(
    root: &Path,
    opts: &Options,
    (table, counter): (&ModelTable, &TokenCounter),
    (picked, first): (
        (usize, &Exchange, &crate::request::Request),
        Option<&crate::request::Request>,
    ),
    chosen: &Against,
) -> Option<Against> {
    let own = |a: &Against| -> u64 {
        a.attribution
            .parts
            .iter()
            .filter(|p| p.agent.is_some())
            .map(|p| p.tokens)
            .sum()
    };
    let profiles = workspace::profiles::Profiles::load_with(
        opts.profiles_dir.as_deref(),
        opts.observed_dir.as_deref(),
    )
    .ok()?;
    let name = chosen.profile.split('@').next()?;
    let mut best: Option<(u64, Against)> = None;
    for p in profiles
        .all
        .iter()
        .filter(|p| p.name == name && p.parts.is_some() && p.id() != chosen.profile)
    {
        let opts = Options {
            profile: Some(p.id()),
            ..opts.clone()
        };
        let Ok(ins) = inspect(root, &opts, table, counter) else {
            continue;
        };
        let a = profile_check::against(&ins, table, counter, picked, first);
        let n = own(&a);
        if n > own(chosen) && best.as_ref().is_none_or(|(b, _)| n > *b) {
            best = Some((n, a));
        }
    }
    let (n, mut a) = best?;
    a.profile_chosen_because = format!(
        "the release whose own parts the request holds (it names no release): {} of its tokens are {}'s, {} the {} profile's",
        crate::thousands(n),
        a.profile,
        crate::thousands(own(chosen)),
        chosen.profile
    );
    Some(a)
}

impl Inspection {
    /// Resolves the session and the model, prepares and assembles.
    pub fn new(
        workspace: Arc<Workspace>,
        opts: &Options,
        table: &ModelTable,
        counter: &TokenCounter,
    ) -> Result<Inspection, Error> {
        let session = workspace.pick_session(opts.session.as_deref())?;
        let mut settings = workspace.settings.clone();
        let model_id = opts
            .model
            .as_deref()
            .or(session.model.as_deref())
            .or(settings.model.as_deref())
            .map(str::to_string);
        let model_id = model_id.as_deref();
        let window = table
            .resolve(model_id)
            .window_with(workspace.builtin.as_deref());
        let default_budget = budgets(&mut settings, opts, window);
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
            let (file, line) =
                model_named_at(opts, session, &settings, workspace.builtin.is_some());
            let using = if table.get(id).is_none() {
                format!(
                    " (read meanwhile with {}'s window, cache minimum and prices)",
                    model.id
                )
            } else {
                String::new()
            };
            prepared
                .diagnostics
                .push(Diagnostic::warning(file, line, format!("{advice}{using}")));
        }
        if let Some(d) = parts_of_another_model(&workspace, table, &model) {
            let (file, line) =
                model_named_at(opts, session, &settings, workspace.builtin.is_some());
            prepared
                .diagnostics
                .push(Diagnostic::warning(file, line, d));
        }
        let assembly = assemble(
            &prepared,
            &settings.budget,
            opts.debug_markers || settings.debug_markers,
            counter,
        );
        Ok(Inspection(Assembled {
            workspace,
            prepared: Arc::new(prepared),
            assembly,
            default_budget,
            model_source,
            model_unknown: model_id
                .filter(|id| table.get(id).is_none() && table.alias(id).is_none())
                .map(str::to_string),
        }))
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

    /// The API whose body [`Inspection::first_request_body`] writes:
    /// `Gemini` for a Gemini CLI folder, else `Anthropic` (Messages).
    pub fn request_api(&self) -> &'static str {
        match self.workspace.profile.agent {
            crate::workspace::agent::Agent::Gemini => "Gemini",
            crate::workspace::agent::Agent::Codex => "OpenAI Responses",
            _ => "Anthropic",
        }
    }

    /// The session's first request as its API's body (Anthropic Messages
    /// with `max_tokens: 1`; Gemini's for a Gemini CLI folder, OpenAI
    /// Responses as Codex writes it for a Codex folder; the session's
    /// messages up to its first request, else one "Hello"): what "copy as
    /// request JSON" and `render --request-json` show.
    pub fn first_request_body(&self) -> serde_json::Value {
        self.first_request().to_wire()
    }

    /// The session's first request, typed: what
    /// [`Inspection::first_request_body`] writes.
    pub fn first_request(&self) -> crate::request::Request {
        use crate::workspace::session::{Message, Role};
        let session = self.session();
        let messages = session
            .requests
            .first()
            .map(|r| session.messages[..r.messages].to_vec())
            .unwrap_or_else(|| vec![Message::text(Role::User, "Hello")]);
        // Gemini CLI's folder: the body Gemini's API takes.
        match self.workspace.profile.agent {
            crate::workspace::agent::Agent::Gemini => {
                let parts = self.workspace.builtin.as_deref();
                return crate::cache::request::gemini_request(&self.assembly, parts, &messages);
            }
            crate::workspace::agent::Agent::Codex => {
                let parts = self.workspace.builtin.as_deref();
                return crate::cache::request::codex_request(&self.assembly, parts, &messages);
            }
            _ => {}
        }
        let s = &self.workspace.settings;
        crate::cache::request::anthropic_request(
            &self.assembly,
            &self.assembly.model,
            &messages,
            1,
            s.cache_tools,
            s.history.message_breakpoint,
        )
    }
}

/// The budget the options ask for, set in `settings`, and the folder's own
/// (the model's window shared out when the workspace declares none).
fn budgets(
    settings: &mut crate::workspace::settings::Settings,
    opts: &Options,
    window: u64,
) -> Budget {
    if settings.budget_line.is_none() {
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
        settings.budget_total_given = true;
    }
    default_budget
}

/// Where the model was named, for a warning about it: `--model`, the
/// session's file and line, the agent's settings file, the agent's
/// default, or workspace.yaml.
/// When the model in use is not the one the agent's own parts were taken
/// from (its requests to that model, recorded or the user's own): the
/// agent writes its prompt and tool descriptions per model (Claude Code
/// 2.1.332 sends Haiku 4.5 another system prompt and other tool
/// descriptions than Opus 5.5: `tests/fixtures/agents/claude-code-haiku`),
/// so those figures are the other model's; said, with where the model's
/// own are seen (a request of the user's, read by `traffic`).
fn parts_of_another_model(ws: &Workspace, table: &ModelTable, model: &ModelInfo) -> Option<String> {
    let b = ws.builtin.as_deref()?;
    let from = b.model.as_deref()?;
    if table.resolve(Some(from)).id == model.id {
        return None;
    }
    Some(format!(
        "{}'s own parts (its prompt, tool descriptions) were taken from its requests to {from}; \
         to {} it may send others (an agent can write its prompt and tools for each model), \
         so their figures here are {from}'s; what it sends {} is in a request of yours \
         (prompt-inspector traffic CAPTURE --against FOLDER)",
        b.source(),
        model.id,
        model.id
    ))
}

fn model_named_at<'a>(
    opts: &'a Options,
    session: &'a crate::workspace::session::Session,
    settings: &'a crate::workspace::settings::Settings,
    agent: bool,
) -> (&'a str, Option<usize>) {
    match (opts.model.as_deref(), session.model.as_deref()) {
        (Some(_), _) => (opts.model_named_as.as_deref().unwrap_or("--model"), None),
        (None, Some(_)) => (session.source.as_str(), session.model_line.or(Some(1))),
        (None, None) if settings.model_from.is_some() => {
            (settings.model_from.as_deref().unwrap_or_default(), None)
        }
        // No file named it: the agent's own default model.
        (None, None) if settings.model_line.is_none() && agent => {
            ("the agent's default model", None)
        }
        _ => ("workspace.yaml", settings.model_line.or(Some(1))),
    }
}
