//! `prompt-inspector send`: real test requests against a provider, side by
//! side with the prediction.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Common, Format, fail, inspect, out};
use crate::engine::cache::test_run::{self, Plan, TestRunRecord};
use crate::engine::{self, Provider};
use crate::net::{self, ApiKey, Endpoint, test_run::TestRunOptions};

#[derive(clap::Args, Debug)]
pub struct SendArgs {
    #[command(flatten)]
    pub common: Common,
    /// The API: anthropic (Messages), openai (Chat Completions, also local
    /// servers) or gemini (generateContent, GEMINI_API_KEY).
    #[arg(long)]
    pub provider: String,
    /// Base URL (a proxy or a local server), e.g. http://127.0.0.1:8080.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Send the first request N times instead of the session (cold, then warm).
    #[arg(long)]
    pub repeat: Option<usize>,
    /// Send this session's first request, then that of another session.
    #[arg(long)]
    pub then_session: Option<String>,
    /// The caching rules to predict with: anthropic, openai, gemini or
    /// prefix (default: the model's own, as `predict --rules` and the
    /// window). `--predict-with` is an older name.
    #[arg(long = "rules", alias = "predict-with", value_name = "RULES")]
    pub predict_with: Option<String>,
    /// Wait the session's gaps for real.
    #[arg(long)]
    pub honour_gaps: bool,
    /// Seconds to wait for each response.
    #[arg(long, default_value_t = 60)]
    pub timeout: u64,
    /// How many times a request is sent again after a 429 or 529 (waiting
    /// as the server's Retry-After asks, else 0.5, 1, 2 s…)
    #[arg(long, default_value_t = 3)]
    pub max_retries: u32,
    /// Send the key over plain HTTP to a host that is not this machine.
    #[arg(long)]
    pub allow_insecure_http: bool,
    /// Do not save the results under WORKSPACE/.prompt-inspector/runs/.
    #[arg(long)]
    pub no_save: bool,
    /// text to read, json for scripts (with its `schema` number), markdown for a pull request or an issue
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn record_json(r: &TestRunRecord) -> Value {
    json!({
        "schema": 1,
        "provider": r.provider,
        "base_url": r.base_url,
        "model": r.model,
        "session": r.session,
        "plan": r.plan,
        "cancelled": r.cancelled,
        "requests": r.rows.iter().map(|row| json!({
            "label": row.label,
            "predicted": {
                "input_tokens": row.predicted.input_tokens,
                "cache_creation_input_tokens": row.predicted.cache_creation_input_tokens,
                "cache_read_input_tokens": row.predicted.cache_read_input_tokens,
                "cost_usd": row.predicted_cost_usd,
            },
            "actual": row.actual.as_ref().map(|a| json!({
                "input_tokens": a.usage.input_tokens,
                "cache_creation_input_tokens": a.usage.cache_creation_input_tokens,
                "cache_read_input_tokens": a.usage.cache_read_input_tokens,
                "reports_creation": a.usage.reports_creation,
                "latency_ms": a.latency_ms,
                "retries": a.retries,
            })),
            "error": row.error,
            "agrees": row.agrees,
            "explanation": row.explanation,
        })).collect::<Vec<_>>(),
    })
}

pub fn record_text(r: &TestRunRecord) -> String {
    let mut o = format!(
        "{} · {} · model {} · session {} · {}\n\n",
        r.provider, r.base_url, r.model, r.session, r.plan
    );
    o +=
        "request                     read (pred/real) written (pred/real)   uncached (pred/real)\n";
    for row in &r.rows {
        match (row.actual.as_ref().map(|a| &a.usage), &row.error) {
            (Some(a), _) => {
                let mark = |p: u64, q: u64| {
                    if p == q {
                        format!("{p}/{q}")
                    } else {
                        format!("{p}/{q} ≠")
                    }
                };
                o += &format!(
                    "{:<27} {:>18} {:>19} {:>22}\n",
                    row.label,
                    mark(
                        row.predicted.cache_read_input_tokens,
                        a.cache_read_input_tokens
                    ),
                    mark(
                        row.predicted.cache_creation_input_tokens,
                        a.cache_creation_input_tokens
                    ),
                    mark(row.predicted.input_tokens, a.input_tokens)
                );
                if !row.agrees {
                    for e in &row.explanation {
                        o += &format!("    · {e}\n");
                    }
                }
            }
            (None, Some(e)) => o += &format!("{:<27} error: {e}\n", row.label),
            _ => {}
        }
    }
    o += &format!("\n{}\n", r.verdict());
    o
}

pub fn run(a: SendArgs) -> ExitCode {
    let (api, predict_with) = match providers(&a) {
        Ok(x) => x,
        Err(e) => return fail(&e),
    };
    let key = ApiKey::from_env(api);
    if key.is_none() && a.base_url.is_none() {
        return fail(format!(
            "set {} (or give --base-url for a proxy or a local server)",
            net::key_var(api)
        ));
    }
    let (ins, counter, table) = match inspect(&a.common) {
        Ok(x) => x,
        Err(e) => return fail(&e),
    };
    let other = match &a.then_session {
        Some(name) => match ins.other_session(name, &table, &counter) {
            Ok(o) => Some(o),
            Err(e) => return fail(e),
        },
        None => None,
    };
    let plan = match (&a.repeat, &a.then_session) {
        (Some(n), _) => Plan::Repeat(*n),
        (None, Some(s)) => Plan::ThenSession(s.clone()),
        _ => Plan::Session,
    };
    let model = ins.prepared.model.clone();
    let planned = test_run::plan(
        &ins,
        other.as_deref(),
        &plan,
        (predict_with, api.api()),
        &model,
        &counter,
    );
    let ep = match endpoint(&a, api, key) {
        Ok(ep) => ep,
        Err(e) => return fail(&e),
    };
    let record = TestRunRecord::new(
        api,
        &ep.shown_url(),
        &model.id,
        &ins.session().name,
        &plan,
        crate::unix_now(),
    );
    let calibrating = api == Provider::Anthropic && model.estimate && !planned.is_empty();
    let opts = TestRunOptions {
        honour_gaps: a.honour_gaps,
        deadline: None,
    };
    let quiet = a.format == Format::Json;
    let deadline = announce(&ep, &planned, &opts, calibrating, quiet);
    let calibration = if calibrating {
        calibrate(&ep, &ins.workspace.root, &model.id, &planned[0], deadline)
    } else {
        None
    };
    let (_tx, cancel) = tokio::sync::watch::channel(false);
    let opts = TestRunOptions {
        deadline: Some(deadline),
        ..opts
    };
    let record = net::test_run::execute_blocking(
        &ep,
        &model,
        &planned,
        &opts,
        cancel,
        |p| said(&p, quiet),
        record,
    );
    let saved = (!a.no_save)
        .then(|| save(&ins.workspace.root, &record))
        .flatten();
    report(&a, &record, saved, calibration, &model.id)
}

/// Where the requests go, with the limits asked for; refused over plain
/// HTTP off this machine with a key.
fn endpoint(a: &SendArgs, api: Provider, key: Option<ApiKey>) -> Result<Endpoint, String> {
    let mut ep = Endpoint::new(api, a.base_url.as_deref(), key);
    ep.timeout = Duration::from_secs(a.timeout.max(1));
    ep.max_retries = a.max_retries;
    ep.allow_insecure_http = a.allow_insecure_http;
    net::guard::check_transport(&ep.base_url, ep.key.is_some(), ep.allow_insecure_http)
        .map_err(|e| e.to_string())?;
    Ok(ep)
}

/// A run's progress on standard error, unless the output is JSON.
fn said(p: &net::test_run::Progress, quiet: bool) {
    match p {
        net::test_run::Progress::Sending {
            index,
            total,
            label,
        } if !quiet => super::say(&format!("[{}/{}] {label}", index + 1, total)),
        net::test_run::Progress::Note(n) if !quiet => super::say(n),
        _ => {}
    }
}

/// One limit for everything this command sends: the planned requests, and
/// the count_tokens calibration of Claude's estimate as one more. Said up
/// front unless the output is JSON.
fn announce(
    ep: &Endpoint,
    planned: &[test_run::Planned],
    opts: &TestRunOptions,
    calibrating: bool,
    quiet: bool,
) -> net::Deadline {
    let limit = net::test_run::time_limit(ep, planned, opts)
        + if calibrating {
            ep.timeout
        } else {
            Duration::ZERO
        };
    if !quiet {
        let n = planned.len() + usize::from(calibrating);
        super::say(&format!(
            "sending {n} request{} to {}: at most {} s in all ({} s per request, retries included)",
            if n == 1 { "" } else { "s" },
            ep.shown_url(),
            limit.as_secs(),
            ep.timeout.as_secs()
        ));
    }
    net::Deadline {
        at: std::time::Instant::now() + limit,
        secs: limit.as_secs(),
    }
}

/// The API to send to and the rules to predict with.
fn providers(a: &SendArgs) -> Result<(Provider, Option<Provider>), String> {
    let api = Provider::parse(&a.provider)
        .filter(|p| *p != Provider::Prefix)
        .ok_or_else(|| {
            format!(
                "unknown provider '{}' (anthropic, openai or gemini)",
                a.provider
            )
        })?;
    let predict_with = match a.predict_with.as_deref() {
        None => None,
        Some(p) => Some(Provider::parse(p).ok_or_else(|| {
            format!("unknown --rules '{p}' (anthropic, openai, gemini or prefix)")
        })?),
    };
    Ok((api, predict_with))
}

fn save(root: &std::path::Path, record: &TestRunRecord) -> Option<String> {
    match test_run::save(root, record) {
        Ok(p) => Some(p.display().to_string()),
        Err(e) => {
            super::say(&format!("prompt-inspector: results not saved: {e}"));
            None
        }
    }
}

/// Prints the results; exit 1 when a request failed.
fn report(
    a: &SendArgs,
    record: &TestRunRecord,
    saved: Option<String>,
    calibration: Option<f64>,
    model: &str,
) -> ExitCode {
    if a.format == Format::Json {
        let mut v = record_json(record);
        v["saved"] = json!(saved);
        v["calibration"] = json!(calibration);
        out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        ));
    } else {
        out(&record_text(record));
        if let Some(r) = calibration {
            out(&format!(
                "calibration: {model} counts {r:.3}× the o200k estimate (count_tokens; saved for this workspace)\n"
            ));
        }
        if let Some(p) = saved {
            out(&format!("saved: {p}\n"));
        }
    }
    for row in record.rows.iter().filter_map(|r| r.error.as_ref()) {
        super::say(&format!("prompt-inspector: {row}"));
    }
    if record.rows.iter().any(|r| r.error.is_some()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Asks `count_tokens` for the first request and stores real / estimated.
fn calibrate(
    ep: &Endpoint,
    root: &std::path::Path,
    model: &str,
    first: &test_run::Planned,
    deadline: net::Deadline,
) -> Option<f64> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()?;
    let client = match net::client(ep) {
        Ok(c) => c,
        Err(e) => {
            super::say(&format!("prompt-inspector: count_tokens not sent: {e}"));
            return None;
        }
    };
    match rt.block_on(net::count_tokens(&client, ep, &first.body, Some(deadline))) {
        Ok(real) => {
            let estimated = first.shape.total_tokens().max(1) as f64;
            let ratio = real as f64 / estimated;
            if let Err(e) = engine::cache::calibration::save(root, model, ratio) {
                super::say(&format!("prompt-inspector: calibration not saved: {e}"));
            }
            Some(ratio)
        }
        Err(e) => {
            super::say(&format!(
                "prompt-inspector: count_tokens failed, no calibration: {e}"
            ));
            None
        }
    }
}
