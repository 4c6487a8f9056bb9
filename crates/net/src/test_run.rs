//! Executes a test run: sends the planned requests in order, reports
//! progress, compares each with its prediction, keeps partial results.

use std::time::Duration;

use tokio::sync::watch;

use super::{Endpoint, NetError};
use crate::engine::Provider;
use crate::engine::assembly::models::ModelInfo;
use crate::engine::cache::test_run::{Planned, TestRunRecord, TestRunRow, compare};

#[derive(Debug, Clone)]
pub enum Progress {
    Sending {
        index: usize,
        total: usize,
        label: String,
    },
    Waiting {
        secs: u64,
    },
    Row {
        row: TestRunRow,
    },
    /// Something worth saying about the run (how it counts).
    Note(String),
}

#[derive(Debug, Clone, Default)]
pub struct TestRunOptions {
    /// Wait the session's gaps for real (off by default).
    pub honour_gaps: bool,
    /// The run-wide time limit (default: the timeout per request).
    pub deadline: Option<super::Deadline>,
}

/// The longest a run of `planned` requests may take: the timeout per
/// request (all its attempts and retry waits included), plus the session's
/// gaps when they are waited for real.
pub fn time_limit(ep: &Endpoint, planned: &[Planned], opts: &TestRunOptions) -> Duration {
    let gaps: u64 = if opts.honour_gaps {
        planned.iter().map(|p| p.gap_secs).sum()
    } else {
        0
    };
    ep.timeout.saturating_mul(planned.len().max(1) as u32) + Duration::from_secs(gaps)
}

fn fatal(e: &NetError) -> bool {
    matches!(
        e,
        NetError::Unauthorized(_)
            | NetError::Connect(_)
            | NetError::Cancelled
            | NetError::Deadline(_)
            | NetError::Refused(_)
            | NetError::Redirect { .. }
    )
}

/// Sends every planned request; never panics, keeps what was measured.
pub async fn execute(
    ep: &Endpoint,
    model: &ModelInfo,
    planned: &[Planned],
    opts: &TestRunOptions,
    mut cancel: watch::Receiver<bool>,
    mut progress: impl FnMut(Progress),
    mut record: TestRunRecord,
) -> TestRunRecord {
    let client = match super::client(ep) {
        Ok(c) => c,
        Err(e) => {
            record.rows.push(error_row("client", planned.first(), &e));
            return record;
        }
    };
    let deadline = opts
        .deadline
        .unwrap_or_else(|| deadline_of(time_limit(ep, planned, opts)));
    let exact = exact_plan(&client, ep, model, planned, deadline, &mut progress).await;
    let planned = &exact[..];
    let mut gap_skipped = false;
    for (i, p) in planned.iter().enumerate() {
        if !opts.honour_gaps
            && p.gap_secs > 0
            && p.predicted.notes.iter().any(|n| n.contains("expired"))
        {
            gap_skipped = true;
        }
        if *cancel.borrow() {
            record.cancelled = true;
            break;
        }
        if opts.honour_gaps && p.gap_secs > 0 {
            progress(Progress::Waiting { secs: p.gap_secs });
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_secs(p.gap_secs)) => {}
                _ = cancel.changed() => { record.cancelled = true; break; }
            }
        }
        progress(Progress::Sending {
            index: i,
            total: planned.len(),
            label: p.label.clone(),
        });
        let row = match super::send(&client, ep, &p.body, &mut cancel, Some(deadline)).await {
            Ok(actual) => {
                let (agrees, explanation) =
                    compare(&p.predicted, &actual, model, ep.provider, gap_skipped);
                TestRunRow {
                    label: p.label.clone(),
                    predicted: p.predicted.usage,
                    predicted_cost_usd: p.predicted.cost_usd,
                    actual: Some(actual),
                    error: None,
                    agrees,
                    explanation,
                }
            }
            Err(e) => {
                let stop = fatal(&e);
                if e == NetError::Cancelled {
                    record.cancelled = true;
                }
                let row = error_row(&p.label, Some(p), &e);
                progress(Progress::Row { row: row.clone() });
                record.rows.push(row);
                if stop {
                    break;
                }
                continue;
            }
        };
        progress(Progress::Row { row: row.clone() });
        record.rows.push(row);
    }
    record
}

/// A deadline `limit` from now.
fn deadline_of(limit: Duration) -> super::Deadline {
    super::Deadline {
        at: std::time::Instant::now() + limit,
        secs: limit.as_secs(),
    }
}

/// The plan as a local llama.cpp server counts it: predicted on its own
/// tokens, exactly. It runs within the run's stated time limit: at most
/// half of it, and when it cannot finish (or an answer is over the size
/// cap) the run goes on with the plain prediction, said in one line.
async fn exact_plan(
    client: &reqwest::Client,
    ep: &Endpoint,
    model: &ModelInfo,
    planned: &[Planned],
    deadline: super::Deadline,
    progress: &mut impl FnMut(Progress),
) -> Vec<Planned> {
    let mut exact = planned.to_vec();
    if matches!(ep.provider, Provider::Anthropic | Provider::Gemini)
        || ep.base_url == super::OPENAI_BASE
    {
        return exact;
    }
    let now = std::time::Instant::now();
    let share = deadline.at.saturating_duration_since(now) / 2;
    let passes = super::llama::exact(client, ep, model, &mut exact);
    match tokio::time::timeout(share, passes).await {
        Ok(Ok(true)) => progress(Progress::Note(
            "a llama.cpp server: predicting on its own chat template and tokenizer".into(),
        )),
        Ok(Ok(false)) => {}
        Ok(Err(e)) => {
            exact = planned.to_vec();
            progress(Progress::Note(format!(
                "a llama.cpp server, not counted exactly: {e}"
            )));
        }
        Err(_) => {
            exact = planned.to_vec();
            progress(Progress::Note(format!(
                "a llama.cpp server, not counted exactly: its template and tokenizer passes did not finish within {} s, half the run's time limit",
                share.as_secs()
            )));
        }
    }
    exact
}

fn error_row(label: &str, p: Option<&Planned>, e: &NetError) -> TestRunRow {
    TestRunRow {
        label: label.to_string(),
        predicted: p.map(|p| p.predicted.usage).unwrap_or_default(),
        predicted_cost_usd: p.map(|p| p.predicted.cost_usd).unwrap_or(0.0),
        actual: None,
        error: Some(e.to_string()),
        agrees: false,
        explanation: Vec::new(),
    }
}

/// Runs `execute` on a fresh runtime (for the CLI; the window runs `execute` on its one runtime).
pub fn execute_blocking(
    ep: &Endpoint,
    model: &ModelInfo,
    planned: &[Planned],
    opts: &TestRunOptions,
    cancel: watch::Receiver<bool>,
    progress: impl FnMut(Progress),
    record: TestRunRecord,
) -> TestRunRecord {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(execute(ep, model, planned, opts, cancel, progress, record)),
        Err(e) => {
            let mut record = record;
            record.rows.push(error_row(
                "runtime",
                planned.first(),
                &NetError::Connect(e.to_string()),
            ));
            record
        }
    }
}
