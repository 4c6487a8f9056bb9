//! The proxy's exchanges as spans, off the request path: each recorded
//! line is handed (without waiting) to a thread of its own that explains it
//! as the Traffic views do (the engine's `Analyser`: chain, miss kind and
//! detail, first difference, cost) and queues its span. What is waiting
//! is bounded in lines and in bytes; past either bound a line gets no span
//! (counted), and the client never waits.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::engine::ModelTable;
use crate::engine::traffic::{Analyser, CaptureLine, Source, rows, timeline};

use super::{Delivery, Exporter, Extra};

/// Lines waiting for the thread at most.
pub const MAX_QUEUED: usize = 1024;
/// Bytes of request bodies waiting for the thread at most.
pub const MAX_HELD_BYTES: usize = 32 << 20;
/// Conversations whose latest request is kept to explain the next one; a
/// proxy that has seen more forgets the oldest bodies (their next request
/// is then explained without it).
pub const MAX_CHAINS: usize = 256;

struct Item {
    line: CaptureLine,
    request: String,
    server: Option<(String, Option<u16>)>,
}

/// Exchanges on their way to spans.
#[derive(Debug)]
pub struct Feed {
    tx: Mutex<Option<SyncSender<Item>>>,
    held: Arc<AtomicUsize>,
    dropped: AtomicU64,
    worker: Mutex<Option<JoinHandle<Delivery>>>,
    endpoint: String,
}

impl std::fmt::Debug for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Item")
    }
}

impl Feed {
    /// Starts the thread that explains each line and exports its span;
    /// `file` is the capture the lines are written to (the rows' `file`).
    pub fn start(exporter: Exporter, table: ModelTable, file: String) -> Feed {
        let (tx, rx) = sync_channel::<Item>(MAX_QUEUED);
        let held = Arc::new(AtomicUsize::new(0));
        let endpoint = exporter.endpoint().to_string();
        let h = held.clone();
        let worker = std::thread::Builder::new()
            .name("otlp-feed".into())
            .spawn(move || {
                let counter = crate::engine::TokenCounter::new();
                let mut a = Analyser::default();
                let mut last_at: HashMap<String, f64> = HashMap::new();
                let mut order: Vec<String> = Vec::new();
                for item in rx {
                    h.fetch_sub(item.request.len(), Ordering::Relaxed);
                    let mut line = item.line;
                    line.request = serde_json::from_str(&item.request).ok();
                    let Some(row) = a.push_line(line, &table, &counter) else {
                        continue;
                    };
                    // The gap since the chain's previous request, by the
                    // one rule every view uses.
                    let gap = row
                        .at
                        .zip(last_at.get(&row.chain).copied())
                        .and_then(|(now, before)| timeline::seconds_between(before, now));
                    if let Some(at) = row.at
                        && last_at.insert(row.chain.clone(), at).is_none()
                    {
                        order.push(row.chain.clone());
                    }
                    if order.len() > MAX_CHAINS {
                        let old = order.remove(0);
                        a.forget_request(&old);
                        last_at.remove(&old);
                    }
                    let flat = rows::flat_of(Source::Capture, gap, &row, &file, &table);
                    let extra = Extra {
                        server: item.server,
                        body: Some(&item.request),
                    };
                    exporter.export(&flat, &extra);
                }
                exporter.finish(Duration::from_secs(10))
            })
            .ok();
        Feed {
            tx: Mutex::new(worker.as_ref().map(|_| tx)),
            held,
            dropped: AtomicU64::new(0),
            worker: Mutex::new(worker),
            endpoint,
        }
    }

    /// The URL spans go to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Hands a recorded line over (its request as recorded: redacted);
    /// never waits. A token count has no span.
    pub fn send(&self, line: &CaptureLine, request: &str, upstream: &str) {
        if line.is_count() {
            return;
        }
        let n = request.len();
        if self.held.fetch_add(n, Ordering::Relaxed) + n > MAX_HELD_BYTES {
            self.held.fetch_sub(n, Ordering::Relaxed);
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let item = Item {
            line: CaptureLine {
                request: None,
                ..line.clone()
            },
            request: request.to_string(),
            server: server_of(upstream),
        };
        let tx = self.tx.lock().unwrap_or_else(|p| p.into_inner());
        let sent = match tx.as_ref() {
            Some(tx) => tx.try_send(item),
            None => Err(TrySendError::Disconnected(item)),
        };
        if let Err(e) = sent {
            let item = match e {
                TrySendError::Full(i) | TrySendError::Disconnected(i) => i,
            };
            self.held.fetch_sub(item.request.len(), Ordering::Relaxed);
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Stops taking lines, exports what is queued and says what became of
    /// every line handed over.
    pub fn finish(&self) -> Delivery {
        drop(self.tx.lock().unwrap_or_else(|p| p.into_inner()).take());
        let worker = self.worker.lock().unwrap_or_else(|p| p.into_inner()).take();
        let mut d = worker.and_then(|w| w.join().ok()).unwrap_or_default();
        let lost = self.dropped.load(Ordering::Relaxed);
        d.submitted += lost;
        d.dropped += lost;
        d
    }
}

/// `server.address` and `server.port` of an upstream's base URL.
pub fn server_of(upstream: &str) -> Option<(String, Option<u16>)> {
    let u = reqwest::Url::parse(upstream).ok()?;
    Some((u.host_str()?.to_string(), u.port_or_known_default()))
}
