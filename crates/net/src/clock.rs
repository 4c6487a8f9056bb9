//! The clock, read here at the edges (the clients, the proxy, the CLI, the
//! window), never in the engine.

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Now, as RFC 3339 UTC with milliseconds (capture timestamps).
pub fn now_rfc3339() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    prompt_inspector_engine::traffic::format_rfc3339(t)
}
