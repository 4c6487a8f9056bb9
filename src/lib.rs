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
        .map(|&t| local_date(t))
        .collect()
}

/// The date (YYYY-MM-DD) of Unix time `t` in the host's time zone (`TZ`,
/// else /etc/localtime), as OpenClaw dates its daily memory by default;
/// UTC if the zone cannot be read.
pub fn local_date(t: u64) -> String {
    let offset = local_offset(t).unwrap_or(0);
    engine::traffic::format_rfc3339(t as f64 + offset as f64)[..10].to_string()
}

/// The host time zone's offset from UTC at `t`, in seconds.
fn local_offset(t: u64) -> Option<i64> {
    let t = libc::time_t::try_from(t).ok()?;
    // SAFETY: localtime_r writes only into `tm`, which outlives the call.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::localtime_r(&t, &mut tm) };
    (!r.is_null()).then_some(tm.tm_gmtoff as i64)
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_local_date_is_the_utc_date_moved_by_the_zone_offset() {
        // 2026-11-30T23:30:00Z: already 1 December east of UTC+1, still
        // 30 November in UTC and west of it.
        let t = 1_795_996_800 + 23 * 3600 + 1800;
        let offset = super::local_offset(t).unwrap();
        let expected = if offset >= 1800 {
            "2026-12-01"
        } else {
            "2026-11-30"
        };
        assert_eq!(super::local_date(t), expected);
    }
}
