//! One workspace, one session, assembled: what every view below the
//! façade reads (the report, /context, predictions, test runs, snapshots).
//! It is built on the road (`Inspection::new`, above every room) and holds
//! only what lies in this room or below it.

use std::sync::Arc;

use crate::assembly::assemble::{Assembly, Prepared};
use crate::text::thousands;
use crate::workspace::Workspace;
use crate::workspace::diag::Diagnostic;
use crate::workspace::session::Session;
use crate::workspace::settings::Budget;

/// A workspace and the session prepared and assembled from it. The
/// workspace and the prepared session are shared (`Arc`), so a copy for
/// another view or thread is cheap.
#[derive(Debug, Clone)]
pub struct Assembled {
    pub workspace: Arc<Workspace>,
    pub prepared: Arc<Prepared>,
    pub assembly: Assembly,
    /// The workspace's own budget (declared, or derived from the model's
    /// context window), before any slider or `--budget`.
    pub default_budget: Budget,
    /// Where the model came from when an agent's settings file set it
    /// (`.claude/settings.json: "sonnet"`).
    pub model_source: Option<String>,
    /// The model id asked for (by `--model`, the session or a settings
    /// file) when the table does not know it: `prepared.model` is then the
    /// row it is read by ([`crate::ModelTable::resolve`]).
    pub model_unknown: Option<String>,
}

impl Assembled {
    /// Workspace diagnostics, then those of this session's preparation,
    /// then the budget's problems (a fixed layer over its budget, a total
    /// below the fixed budgets), each with what to do.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut d = self.workspace.diagnostics.clone();
        d.extend(self.prepared.diagnostics.iter().cloned());
        d.extend(budget_problems(&self.assembly, &self.prepared));
        d
    }

    /// A window the agent sets itself, in words (`the window Codex CLI
    /// 0.171.0 gives gpt-6.2-sol, of the model's 1,050,000`); None when it
    /// is the model's.
    pub fn agents_window(&self) -> Option<String> {
        let model = &self.prepared.model;
        let b = self.workspace.builtin.as_deref()?;
        (model.window_with(Some(b)) != model.context_window).then(|| {
            format!(
                "the window {} gives {}, of the model's {}",
                b.source(),
                model.id,
                crate::thousands(model.context_window)
            )
        })
    }

    pub fn session(&self) -> &Session {
        self.workspace
            .session(&self.prepared.session)
            .unwrap_or_else(|| self.workspace.default_session())
    }

    /// The count_tokens calibration of this assembly's model, if saved.
    pub fn calibration(&self) -> Option<f64> {
        self.workspace
            .calibration
            .get(&self.assembly.model)
            .copied()
    }
}

/// The budget's problems as diagnostics on workspace.yaml's `budget:` line.
pub fn budget_problems(a: &Assembly, p: &Prepared) -> Vec<Diagnostic> {
    if let Some(agent) = &a.agent {
        return agent_window_problems(a, p, agent);
    }
    let line = p.settings.budget_line.or(Some(1));
    let n = |x: u64| thousands(x);
    let mut out = Vec::new();
    let b = &a.budget;
    if b.total < b.layer1 + b.layer2 {
        // The total given with `--budget` (not moved since by a slider).
        let given = p.settings.budget_total_given && b.total == p.settings.budget.total;
        let (file, line, what) = if given {
            ("--budget", None, "raise `--budget`")
        } else {
            ("workspace.yaml", line, "raise `budget.total`")
        };
        out.push(Diagnostic::warning(
            file,
            line,
            format!(
                "the total budget ({}) is below the fixed budgets of layers 1 and 2 ({} together): layers 3 and 4 get nothing; {what} or lower `budget.fixed`",
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

/// An agent's folder has no layer budgets (the agent's own caps decide
/// what is sent): what `--budget` does there, and a prompt over the room
/// in the model's window.
fn agent_window_problems(a: &Assembly, p: &Prepared, agent: &str) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if p.settings.budget_total_given {
        out.push(Diagnostic::warning(
            "--budget",
            None,
            "an agent's folder has no layer budgets (the agent's own caps decide what is sent): --budget only sets the room counted in the window",
        ));
    }
    let prompt = a.total_tokens + a.tools_tokens;
    let window = p.model.window_with(p.builtin.as_deref());
    if prompt > a.budget.total {
        let (file, what) = if p.settings.budget_total_given {
            ("--budget", "raise --budget")
        } else {
            (".", "a model with a larger window has room for it")
        };
        out.push(Diagnostic::warning(
            file,
            None,
            format!(
                "the prompt ({} tokens, its tools included) is over the {} of room in {}'s {}-token window as {agent} runs it (what it keeps free for compaction and output aside): {what}",
                thousands(prompt),
                crate::plural(a.budget.total, "token"),
                a.model,
                thousands(window)
            ),
        ));
    }
    out
}
