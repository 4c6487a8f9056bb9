//! A request body taken in within the proxy's bounds: at most
//! [`super::MAX_BODY`] bytes, inside the global in-flight budget (held by a
//! [`Reservation`] until the exchange is recorded), and within the body
//! timeout and minimum rate, so that no client can hold memory or a task
//! forever.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::StatusCode;
use hyper::body::Incoming;

use super::{MAX_BODY, MIN_BODY_RATE, Shared};

/// Bytes of the in-flight budget held by one exchange, given back when it
/// is dropped (once the exchange is recorded).
pub(super) struct Reservation {
    shared: Arc<Shared>,
    bytes: usize,
}

impl Reservation {
    pub(super) fn new(shared: Arc<Shared>) -> Self {
        Reservation { shared, bytes: 0 }
    }

    /// The proxy this exchange belongs to.
    pub(super) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Takes `n` more bytes of the budget; false (and nothing taken) when
    /// that would go over it.
    pub(super) fn take(&mut self, n: usize) -> bool {
        let limit = self.shared.cfg.limits.in_flight_bytes;
        let taken = self
            .shared
            .in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                held.checked_add(n).filter(|&t| t <= limit)
            })
            .is_ok();
        if taken {
            self.bytes += n;
        }
        taken
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.shared
            .in_flight
            .fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// An answered exchange's bytes in the recording backlog, from its answer
/// until its line is written (or the proxy stops).
pub(super) struct Backlog {
    shared: Arc<Shared>,
    bytes: usize,
}

impl Backlog {
    pub(super) fn enter(shared: &Arc<Shared>, bytes: usize) -> Self {
        shared.backlog.fetch_add(bytes, Ordering::AcqRel);
        Backlog {
            shared: shared.clone(),
            bytes,
        }
    }
}

impl Drop for Backlog {
    fn drop(&mut self) {
        self.shared.backlog.fetch_sub(self.bytes, Ordering::AcqRel);
        self.shared.backlog_shrank.notify_waiters();
    }
}

/// Waits while the recording backlog is over its limit
/// ([`super::Limits::recording_backlog_bytes`]). Every exchange in it is
/// being recorded, so the wait ends.
pub(super) async fn wait_for_recording(shared: &Shared) {
    let limit = shared.cfg.limits.recording_backlog_bytes;
    loop {
        let shrank = shared.backlog_shrank.notified();
        tokio::pin!(shrank);
        // Registered before the check: a drop between the two still wakes it.
        shrank.as_mut().enable();
        if shared.backlog.load(Ordering::Acquire) <= limit {
            return;
        }
        shrank.await;
    }
}

/// Why a body was not taken in: the status and the message the client gets.
pub(super) type Refusal = (StatusCode, String);

/// Reads a request body within every bound.
pub(super) async fn read_body(
    shared: &Arc<Shared>,
    mut body: Incoming,
    content_length: Option<usize>,
) -> Result<(Bytes, Reservation), Refusal> {
    let limits = &shared.cfg.limits;
    let mut held = Reservation::new(shared.clone());
    let too_large = || {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "prompt-inspector proxy: the request body is over {} MiB",
                MAX_BODY >> 20
            ),
        )
    };
    let busy = || {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "prompt-inspector proxy: {} MiB of requests are in flight, its limit: try again shortly",
                limits.in_flight_bytes >> 20
            ),
        )
    };
    if content_length.is_some_and(|n| n > MAX_BODY) {
        return Err(too_large());
    }
    // The declared length is taken from the budget at once (and the buffer
    // allocated once); a body without one grows chunk by chunk.
    let expected = content_length.unwrap_or(0);
    if !held.take(expected) {
        return Err(busy());
    }
    let mut buf = BytesMut::with_capacity(expected);
    let started = Instant::now();
    loop {
        let frame = match tokio::time::timeout(limits.body_timeout, body.frame()).await {
            Ok(Some(Ok(f))) => f,
            Ok(None) => break,
            Ok(Some(Err(e))) => {
                return Err((
                    StatusCode::BAD_REQUEST,
                    format!("prompt-inspector proxy: the request body could not be read: {e}"),
                ));
            }
            Err(_) => return Err(slow(limits.body_timeout.as_secs())),
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        if buf.len() + data.len() > MAX_BODY {
            return Err(too_large());
        }
        let beyond = (buf.len() + data.len()).saturating_sub(held.bytes);
        if beyond > 0 && !held.take(beyond) {
            return Err(busy());
        }
        buf.extend_from_slice(&data);
        let elapsed = started.elapsed();
        if elapsed > limits.body_timeout
            && (buf.len() as f64) < MIN_BODY_RATE as f64 * elapsed.as_secs_f64()
        {
            return Err(slow(limits.body_timeout.as_secs()));
        }
    }
    Ok((buf.freeze(), held))
}

fn slow(secs: u64) -> Refusal {
    (
        StatusCode::REQUEST_TIMEOUT,
        format!(
            "prompt-inspector proxy: the request body came too slowly (a pause over {secs} s, or under {} KiB/s after it)",
            MIN_BODY_RATE >> 10
        ),
    )
}

/// How long a stopping proxy waits for the exchanges in flight to be
/// answered and recorded.
pub const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Waits (within [`SHUTDOWN_GRACE`]) until no exchange holds bytes in
/// flight: each has been recorded, and handed to whoever follows.
pub(super) async fn drain(shared: &super::Shared) {
    let until = std::time::Instant::now() + SHUTDOWN_GRACE;
    while shared.in_flight.load(std::sync::atomic::Ordering::Relaxed) > 0
        && std::time::Instant::now() < until
    {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
