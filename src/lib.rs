//! prompt-inspector: see, tune and test how an LLM agent's layered system
//! prompt is assembled, trimmed and cached.

pub mod cli;
pub mod engine;
pub mod net;
pub mod ui;

/// Seconds since the Unix epoch: the clock, read at the edges (the CLI, the
/// window, the clients), never in the engine.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Today's and yesterday's dates (UTC, YYYY-MM-DD), for OpenClaw's startup
/// context.
pub fn today_and_yesterday() -> Vec<String> {
    let now = unix_now();
    [now, now.saturating_sub(86_400)]
        .iter()
        .map(|t| engine::traffic::format_rfc3339(*t as f64)[..10].to_string())
        .collect()
}

/// Now, as RFC 3339 UTC with milliseconds (capture timestamps).
pub fn now_rfc3339() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    engine::traffic::format_rfc3339(t)
}

/// A snapshot of `ins` now, carrying the saved test runs of its session:
/// the clock and the runs are read here, at the edge, for the engine.
pub fn snapshot_now(
    ins: &engine::Inspection,
    counter: &engine::TokenCounter,
) -> engine::compare::snapshot::Snapshot {
    let runs = engine::cache::testrun::load_runs(&ins.workspace.root, Some(&ins.session().name));
    engine::compare::snapshot::Snapshot::take(ins, counter, unix_now(), runs)
}
