//! A session's cache prediction: per request, per strategy, with the lint
//! and the context-window use; JSON and text views.

use serde::Serialize;
use serde_json::{Value, json};

use crate::assembly::assemble::{Assembly, Prepared};
use crate::assembly::assembled::Assembled;
use crate::assembly::models::Provider;
use crate::assembly::tokens::TokenCounter;
use crate::cache::lint::{self, LintWarning};
use crate::cache::predictors::{self, Predicted};
use crate::cache::shape::{self, Strategy};
use crate::text::thousands;
use crate::usage::Input;
use crate::workspace::session::Session;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StrategyResult {
    pub name: &'static str,
    #[serde(flatten)]
    pub usage: Input,
    pub cost_usd: f64,
}

/// How the context window is used by one request.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ContextUse {
    pub tools: u64,
    pub system: Vec<(u8, u64)>,
    pub history: u64,
    pub current: u64,
    pub reserved_output: u64,
    pub window: u64,
    pub threshold: f64,
    pub crosses_threshold: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Prediction {
    pub model: String,
    /// The id asked for when the table does not know it (`model` is the
    /// row it is read by).
    pub read_for: Option<String>,
    pub provider: Provider,
    pub session: String,
    pub estimate: bool,
    pub requests: Vec<Predicted>,
    pub totals: Input,
    pub total_cost_usd: f64,
    pub strategies: Vec<StrategyResult>,
    pub best: &'static str,
    pub saving_usd: f64,
    pub warnings: Vec<LintWarning>,
    pub context: Vec<ContextUse>,
}

/// Predicts the session of `ins` for `provider` (the model's by default).
pub fn predict(ins: &Assembled, provider: Option<Provider>, counter: &TokenCounter) -> Prediction {
    let mut p = predict_for(
        &ins.assembly,
        &ins.prepared,
        ins.session(),
        provider,
        counter,
    );
    p.read_for = ins.model_unknown.clone();
    p
}

/// Predicts from an assembly and its preparation (what the window holds).
pub fn predict_for(
    a: &Assembly,
    prepared: &Prepared,
    session: &Session,
    provider: Option<Provider>,
    counter: &TokenCounter,
) -> Prediction {
    let model = &prepared.model;
    let provider = provider.unwrap_or(model.provider);
    let settings = &prepared.settings;
    let mut strategies = Vec::new();
    let mut layered = Vec::new();
    let mut layered_shapes = Vec::new();
    for st in Strategy::ALL {
        let shapes = shape::shapes(a, session, settings, st, counter);
        let reqs = strategy_requests(provider, model, st, &shapes, counter);
        let mut u = Input::default();
        for r in &reqs {
            u.add(&r.usage);
        }
        strategies.push(StrategyResult {
            name: st.name(),
            usage: u,
            cost_usd: reqs.iter().map(|r| r.cost_usd).sum(),
        });
        if st == Strategy::Layered {
            layered = reqs;
            layered_shapes = shapes;
        }
    }
    let (best, saving_usd) = best_strategy(&strategies);
    let mut totals = Input::default();
    for r in &layered {
        totals.add(&r.usage);
    }
    let context = context_use(a, prepared, &layered_shapes);
    for (r, c) in layered.iter_mut().zip(&context) {
        if c.crosses_threshold {
            r.notes.push(format!(
                "context use crosses the auto-compact threshold ({:.0}% of {} tokens): the agent would compact here",
                c.threshold * 100.0,
                c.window
            ));
        }
    }
    Prediction {
        model: model.id.clone(),
        read_for: None,
        provider,
        session: session.name.clone(),
        estimate: model.estimate,
        total_cost_usd: layered.iter().map(|r| r.cost_usd).sum(),
        requests: layered,
        totals,
        strategies,
        best,
        saving_usd,
        warnings: lint::lint(a, prepared),
        context,
    }
}

/// The requests of one strategy under the provider's rules.
fn strategy_requests(
    provider: Provider,
    model: &crate::ModelInfo,
    st: Strategy,
    shapes: &[shape::RequestShape],
    counter: &TokenCounter,
) -> Vec<Predicted> {
    let mut reqs = predictors::run(provider, model, shapes, counter);
    if st == Strategy::None && provider != Provider::Anthropic {
        // Without caching every token is input (OpenAI and local servers
        // cache by themselves; this is the baseline they are measured on).
        for r in &mut reqs {
            r.usage = Input {
                input_tokens: r.total_tokens,
                ..Input::default()
            };
            r.cost_usd = predictors::cost(model, &r.usage, 0);
        }
    }
    reqs
}

/// The cheapest strategy, and what it saves against no caching.
fn best_strategy(strategies: &[StrategyResult]) -> (&'static str, f64) {
    let best = strategies
        .iter()
        .min_by(|a, b| {
            a.cost_usd
                .partial_cmp(&b.cost_usd)
                .unwrap_or(std::cmp::Ordering::Equal)
        })
        .map(|s| s.name)
        .unwrap_or("layered");
    let cost_of = |name: &str| {
        strategies
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.cost_usd)
            .unwrap_or(0.0)
    };
    (best, cost_of("none") - cost_of(best))
}

/// The context window's use by each request: tools, system blocks,
/// history, the current message and the output reserved.
fn context_use(
    a: &Assembly,
    prepared: &Prepared,
    shapes: &[shape::RequestShape],
) -> Vec<ContextUse> {
    let (model, h) = (&prepared.model, &prepared.settings.history);
    shapes
        .iter()
        .map(|r| {
            let tools: u64 = r
                .segments
                .iter()
                .filter(|s| matches!(s.kind, shape::SegKind::Tool { .. }))
                .map(|s| s.tokens)
                .sum();
            let system = a
                .blocks
                .iter()
                .map(|b| (b.layer, b.tokens))
                .collect::<Vec<_>>();
            let used = tools
                + system.iter().map(|s| s.1).sum::<u64>()
                + r.history_tokens
                + r.current_tokens
                + h.reserved_output;
            ContextUse {
                tools,
                system,
                history: r.history_tokens,
                current: r.current_tokens,
                reserved_output: h.reserved_output,
                window: model.context_window,
                threshold: h.auto_compact_threshold,
                crosses_threshold: used as f64
                    > model.context_window as f64 * h.auto_compact_threshold,
            }
        })
        .collect()
}

/// `predict --format json` (schema 1).
pub fn to_json(p: &Prediction) -> Value {
    json!({
        "schema": 1,
        "model": p.model,
        "read_for": p.read_for,
        "provider": p.provider.as_str(),
        "session": p.session,
        "estimate": p.estimate,
        "requests": p.requests.iter().zip(&p.context).map(|(r, c)| json!({
            "turn": r.turn,
            "index": r.index,
            "at_secs": r.at_secs,
            "gap_secs": r.gap_secs,
            "total_tokens": r.total_tokens,
            "tools_tokens": c.tools,
            "system_tokens": c.system.iter().map(|s| s.1).sum::<u64>(),
            "system_blocks": c.system.iter().map(|s| s.1).collect::<Vec<_>>(),
            "message_tokens": c.history + c.current,
            "input_tokens": r.usage.input_tokens,
            "cache_creation_input_tokens": r.usage.cache_creation_input_tokens,
            "cache_read_input_tokens": r.usage.cache_read_input_tokens,
            "cost_usd": round6(r.cost_usd),
            "error": r.error,
            "notes": r.notes,
        })).collect::<Vec<_>>(),
        "totals": {
            "input_tokens": p.totals.input_tokens,
            "cache_creation_input_tokens": p.totals.cache_creation_input_tokens,
            "cache_read_input_tokens": p.totals.cache_read_input_tokens,
            "cost_usd": round6(p.total_cost_usd),
        },
        "strategies": p.strategies.iter().map(|s| json!({
            "name": s.name,
            "input_tokens": s.usage.input_tokens,
            "cache_creation_input_tokens": s.usage.cache_creation_input_tokens,
            "cache_read_input_tokens": s.usage.cache_read_input_tokens,
            "cost_usd": round6(s.cost_usd),
        })).collect::<Vec<_>>(),
        "best_strategy": p.best,
        "saving_usd": round6(p.saving_usd),
        "warnings": p.warnings.iter().map(|w| json!({
            "fragment": w.fragment, "file": w.file, "line": w.line, "layer": w.layer, "message": w.message,
        })).collect::<Vec<_>>(),
    })
}

/// ` · read for claude-opus-9-9, which the model table does not know`.
fn read_for(p: &Prediction) -> String {
    p.read_for.as_deref().map_or(String::new(), |id| {
        format!(
            " · read for {}, which the model table does not know",
            crate::clean(id, 80)
        )
    })
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The Markdown view: the same figures as [`to_text`], as tables.
pub fn to_markdown(p: &Prediction) -> String {
    use crate::text::md_cell;
    let mut o = format!(
        "## Cache prediction: session {}, {} ({}){}{}\n\n| Request | Turn | At | Total | Read | Written | Uncached | Cost $ |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        md_cell(&p.session),
        md_cell(&p.model),
        p.provider.as_str(),
        md_cell(&read_for(p)),
        if p.estimate {
            ", token counts are estimates"
        } else {
            ""
        }
    );
    for r in &p.requests {
        o += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.5} |\n",
            r.index + 1,
            r.turn,
            crate::text::duration(r.at_secs),
            thousands(r.total_tokens),
            thousands(r.usage.cache_read_input_tokens),
            thousands(r.usage.cache_creation_input_tokens),
            thousands(r.usage.input_tokens),
            r.cost_usd
        );
    }
    let notes: Vec<String> = p
        .requests
        .iter()
        .flat_map(|r| {
            let e = r
                .error
                .iter()
                .map(move |e| format!("- request {}: error: {}", r.index + 1, md_cell(e)));
            let n = r
                .notes
                .iter()
                .map(move |n| format!("- request {}: {}", r.index + 1, md_cell(n)));
            e.chain(n)
        })
        .collect();
    if !notes.is_empty() {
        o += &format!("\n{}\n", notes.join("\n"));
    }
    o += &format!(
        "\nTotal: read {}, written {}, uncached {}, ${:.5}.\n\n### Strategies\n\n| Strategy | Read | Written | Uncached | Cost $ |\n|---|---:|---:|---:|---:|\n",
        thousands(p.totals.cache_read_input_tokens),
        thousands(p.totals.cache_creation_input_tokens),
        thousands(p.totals.input_tokens),
        p.total_cost_usd
    );
    for s in &p.strategies {
        o += &format!(
            "| {}{} | {} | {} | {} | {:.5} |\n",
            s.name,
            if s.name == p.best { " (best)" } else { "" },
            thousands(s.usage.cache_read_input_tokens),
            thousands(s.usage.cache_creation_input_tokens),
            thousands(s.usage.input_tokens),
            s.cost_usd
        );
    }
    o += &format!(
        "\nSaving of the best over no caching: ${:.5}.\n",
        p.saving_usd
    );
    if !p.warnings.is_empty() {
        o += "\n### Cache-breaker warnings\n\n";
        for w in &p.warnings {
            o += &format!(
                "- `{}:{}` [{}] {}\n",
                crate::md_code(&w.file),
                w.line,
                md_cell(&w.fragment),
                md_cell(&w.message)
            );
        }
    }
    o
}

pub fn to_text(p: &Prediction) -> String {
    let mut o = format!(
        "cache prediction · session {} · {} ({}){}{}\n\n",
        p.session,
        p.model,
        p.provider.as_str(),
        read_for(p),
        if p.estimate {
            " · token counts are estimates"
        } else {
            ""
        }
    );
    o += "req turn  at      total    read written  uncached   cost $\n";
    for r in &p.requests {
        o += &format!(
            "{:>3} {:>4}  {:>6} {:>7} {:>7} {:>7} {:>9} {:>8.5}\n",
            r.index + 1,
            r.turn,
            crate::text::duration(r.at_secs),
            thousands(r.total_tokens),
            thousands(r.usage.cache_read_input_tokens),
            thousands(r.usage.cache_creation_input_tokens),
            thousands(r.usage.input_tokens),
            r.cost_usd
        );
        if let Some(e) = &r.error {
            o += &format!("        ERROR {e}\n");
        }
        for n in &r.notes {
            o += &format!("        · {n}\n");
        }
    }
    o += &format!(
        "\ntotal: read {} · written {} · uncached {} · ${:.5}\n\nstrategies:\n",
        thousands(p.totals.cache_read_input_tokens),
        thousands(p.totals.cache_creation_input_tokens),
        thousands(p.totals.input_tokens),
        p.total_cost_usd
    );
    for s in &p.strategies {
        o += &format!(
            "  {:<14} read {:>7}  written {:>7}  uncached {:>7}  ${:.5}{}\n",
            s.name,
            thousands(s.usage.cache_read_input_tokens),
            thousands(s.usage.cache_creation_input_tokens),
            thousands(s.usage.input_tokens),
            s.cost_usd,
            if s.name == p.best { "  ← best" } else { "" }
        );
    }
    o += &format!("saving of the best over no caching: ${:.5}\n", p.saving_usd);
    if !p.warnings.is_empty() {
        o += "\ncache-breaker warnings:\n";
        for w in &p.warnings {
            o += &format!(
                "  {}:{}: warning: [{}] {}\n",
                w.file, w.line, w.fragment, w.message
            );
        }
    }
    o
}
