//! What every exchange of one running proxy shares: its settings and
//! upstreams, the capture and its numbering, the budgets in flight and the
//! recording backlog, and what it has learned of its upstreams.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::{ProxyConfig, guard};

/// The state of one running proxy, shared by its connections.
pub(super) struct Shared {
    pub(super) cfg: ProxyConfig,
    /// Each upstream's base URL, parsed (by [`super::Upstream`]).
    pub(super) bases: [reqwest::Url; 3],
    pub(super) client: reqwest::Client,
    pub(super) capture: Mutex<std::fs::File>,
    pub(super) seq: Mutex<u64>,
    /// The credentials in each upstream's URL (by [`super::Upstream`]), redacted
    /// from what its answers bring back as the client's keys are.
    pub(super) upstream_secrets: [Vec<String>; 3],
    /// Why a key may not go to each upstream (by [`super::Upstream`]).
    pub(super) key_refused: [Option<String>; 3],
    /// This proxy's random part of every exchange id: two proxies appending
    /// to one capture never write the same id.
    pub(super) instance: u32,
    /// A write to the capture failed (said once, on standard error).
    pub(super) write_failed: std::sync::atomic::AtomicBool,
    /// Per upstream: whether it is a llama.cpp server (asked once it has
    /// answered).
    pub(super) llama: Mutex<HashMap<String, bool>>,
    /// Exact counting was skipped once (said once on standard error).
    pub(super) count_skipped: std::sync::atomic::AtomicBool,
    /// Bytes held in flight now (see [`Limits::in_flight_bytes`]).
    pub(super) in_flight: std::sync::atomic::AtomicUsize,
    /// Exchanges being recorded at once (redacted, counted, written): one
    /// per core. The others wait their turn in the recording backlog; past
    /// its bound new requests wait (see [`Limits::recording_backlog_bytes`]),
    /// so a recording that falls behind slows clients instead of growing
    /// without bound, and no exchange is dropped from the capture.
    pub(super) recorders: tokio::sync::Semaphore,
    /// Bytes of answered exchanges waiting to be recorded or being recorded
    /// (see [`Limits::recording_backlog_bytes`]).
    pub(super) backlog: std::sync::atomic::AtomicUsize,
    /// Woken each time an exchange of the backlog is recorded.
    pub(super) backlog_shrank: tokio::sync::Notify,
    /// The redactor of the keys the last exchange carried (an agent sends
    /// the same ones every time), made once for them.
    pub(super) redactor: Mutex<Option<(Vec<String>, Arc<guard::Redactor>)>>,
    /// Token counts a llama.cpp upstream gave, by upstream and text hash
    /// (successive requests of a conversation repeat most of their parts).
    pub(super) counts: Mutex<HashMap<(String, u64), usize>>,
}

impl Shared {
    /// The state of a proxy about to listen: its settings, its upstreams'
    /// parsed bases, the capture opened for appending, and the client that
    /// forwards (with why a key may not go to each upstream).
    pub(super) fn new(
        cfg: ProxyConfig,
        bases: [reqwest::Url; 3],
        capture: std::fs::File,
        (client, key_refused): (reqwest::Client, [Option<String>; 3]),
    ) -> Shared {
        let upstream_secrets = [
            &cfg.anthropic_upstream,
            &cfg.openai_upstream,
            &cfg.gemini_upstream,
        ]
        .map(|u| guard::url_credentials(u));
        Shared {
            bases,
            upstream_secrets,
            cfg,
            client,
            capture: Mutex::new(capture),
            seq: Mutex::new(0),
            instance: crate::engine::workspace::store::random_u64() as u32,
            key_refused,
            write_failed: std::sync::atomic::AtomicBool::new(false),
            llama: Mutex::new(HashMap::new()),
            in_flight: std::sync::atomic::AtomicUsize::new(0),
            recorders: tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(2, |n| n.get().max(2)),
            ),
            backlog: std::sync::atomic::AtomicUsize::new(0),
            backlog_shrank: tokio::sync::Notify::new(),
            count_skipped: std::sync::atomic::AtomicBool::new(false),
            counts: Mutex::new(HashMap::new()),
            redactor: Mutex::new(None),
        }
    }
}
