//! OpenTelemetry export: one span per request to a model, over OTLP/HTTP
//! (protobuf), with the GenAI semantic conventions (`gen_ai.*`,
//! `server.address`, `error.type`) and this tool's own figures under
//! `prompt_inspector.*`. The attributes come from the engine's flat row
//! ([`FlatRow`]), so a span says what `traffic --format jsonl` says.
//!
//! Spans go through the SDK's batch processor: a bounded queue drained by a
//! thread of its own, so a slow or absent collector never slows the proxy's
//! clients (past the queue, spans are dropped and counted, never waited
//! for). No prompt text leaves in a span unless the user asks for it
//! (`content`), and then redacted as captures are. Plain HTTP goes only to
//! this machine; redirects are not followed.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use opentelemetry::trace::{Span, SpanKind, Status, Tracer, TracerProvider};
use opentelemetry::{KeyValue, Value};
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, SdkTracer, SdkTracerProvider, SpanData, SpanExporter,
};

use crate::engine::traffic::rows::FlatRow;
use crate::guard;

mod attributes;
mod feed;

use attributes::redacted_body;
pub use attributes::{attributes, error_type, provider_name, span_name};
pub use feed::{Feed, MAX_CHAINS, MAX_HELD_BYTES, MAX_QUEUED, server_of};

/// The prefix of this tool's own attributes.
pub const PREFIX: &str = "prompt_inspector";

/// The largest request body a span carries with `content` (bytes); a
/// longer one is cut, saying so.
pub const MAX_CONTENT_BYTES: usize = 1 << 20;
/// Request bodies waiting in spans for the collector at most (bytes); past
/// it a span goes without its body (counted and said), so a collector that
/// never answers holds at most this much prompt text.
pub const MAX_QUEUED_CONTENT_BYTES: usize = 32 << 20;
/// A whole `traffic --otlp-endpoint` export takes at most this many times
/// the time of one export before it stops sending (what was not sent is
/// counted and said).
pub const TOTAL_TIMEOUTS: u32 = 6;

/// Where and how spans are exported.
#[derive(Debug, Clone)]
pub struct OtlpConfig {
    /// The collector's traces URL (`…/v1/traces`, see [`traces_url`]).
    pub endpoint: String,
    /// Request bodies go in spans (redacted).
    pub content: bool,
    /// Plain HTTP to a host that is not this machine.
    pub allow_insecure_http: bool,
    /// Time one export may take, retries included.
    pub timeout: Duration,
    /// Spans waiting to be exported at most; more are dropped (counted).
    pub queue: usize,
}

impl OtlpConfig {
    pub fn new(endpoint: String) -> OtlpConfig {
        OtlpConfig {
            endpoint,
            content: false,
            allow_insecure_http: false,
            timeout: Duration::from_secs(10),
            queue: 4096,
        }
    }
}

/// The traces URL of a collector given by its base (`http://host:4318`,
/// as `OTEL_EXPORTER_OTLP_ENDPOINT` gives it) or by its traces URL.
pub fn traces_url(url: &str) -> String {
    let u = url.trim().trim_end_matches('/');
    if u.ends_with("/v1/traces") {
        u.to_string()
    } else {
        format!("{u}/v1/traces")
    }
}

/// The traces URL to export to: the flag, else
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as it is, else
/// `OTEL_EXPORTER_OTLP_ENDPOINT` with `/v1/traces` (the specification's
/// order). None when none is set.
pub fn endpoint_from(
    flag: Option<&str>,
    traces_env: Option<&str>,
    base_env: Option<&str>,
) -> Option<String> {
    let set = |s: &&str| !s.trim().is_empty();
    if let Some(f) = flag.filter(set) {
        return Some(traces_url(f));
    }
    if let Some(t) = traces_env.filter(set) {
        return Some(t.trim().to_string());
    }
    base_env.filter(set).map(traces_url)
}

/// What became of the spans handed over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Delivery {
    pub submitted: u64,
    pub exported: u64,
    /// Spans the collector did not take (down, refused, timed out).
    pub failed: u64,
    /// Spans dropped because the queue was full (never sent).
    pub dropped: u64,
    /// Spans that went without their request body: the bodies waiting
    /// were over [`MAX_QUEUED_CONTENT_BYTES`].
    pub content_dropped: u64,
    /// Requests never made into spans: the export ran out of its total
    /// time (`traffic --otlp-endpoint`).
    pub unsent: u64,
    /// The last export error, cleaned and bounded.
    pub error: Option<String>,
}

impl Delivery {
    /// One line for the terminal.
    pub fn summary(&self, endpoint: &str) -> String {
        let mut s = format!(
            "{} of {} spans exported to {}",
            self.exported,
            self.submitted,
            guard::mask_url(endpoint)
        );
        if self.failed > 0 {
            s.push_str(&format!("; {} not taken by the collector", self.failed));
        }
        if self.dropped > 0 {
            s.push_str(&format!(
                "; {} dropped before export (the queue full, or the export stopped)",
                self.dropped
            ));
        }
        if self.content_dropped > 0 {
            s.push_str(&format!(
                "; {} sent without their request body (over {} MiB of bodies waiting)",
                self.content_dropped,
                MAX_QUEUED_CONTENT_BYTES >> 20
            ));
        }
        if self.unsent > 0 {
            s.push_str(&format!(
                "; {} requests not sent: the collector took too long in all",
                self.unsent
            ));
        }
        if let Some(e) = &self.error {
            s.push_str(&format!(" ({e})"));
        }
        s
    }
}

#[derive(Debug, Default)]
struct Stats {
    exported: AtomicU64,
    failed: AtomicU64,
    error: Mutex<Option<String>>,
    /// Bytes of request bodies in spans not yet taken or refused.
    content_held: AtomicUsize,
}

/// The key of the request body's attribute.
fn body_key() -> String {
    format!("{PREFIX}.request.body")
}

/// Bytes of request bodies a batch of spans carries.
fn content_bytes(batch: &[SpanData]) -> usize {
    let key = body_key();
    batch
        .iter()
        .flat_map(|s| s.attributes.iter())
        .filter(|kv| kv.key.as_str() == key)
        .map(|kv| match &kv.value {
            Value::String(v) => v.as_str().len(),
            _ => 0,
        })
        .sum()
}

/// The OTLP exporter, counting what each export did.
#[derive(Debug)]
struct Counting {
    inner: opentelemetry_otlp::SpanExporter,
    stats: Arc<Stats>,
}

impl SpanExporter for Counting {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let n = batch.len() as u64;
        let bytes = content_bytes(&batch);
        let r = self.inner.export(batch).await;
        self.stats.content_held.fetch_sub(
            bytes.min(self.stats.content_held.load(Ordering::Relaxed)),
            Ordering::Relaxed,
        );
        match &r {
            Ok(()) => self.stats.exported.fetch_add(n, Ordering::Relaxed),
            Err(e) => {
                let msg = guard::clean(&e.to_string(), guard::MAX_MESSAGE_CHARS);
                *self.stats.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(msg);
                self.stats.failed.fetch_add(n, Ordering::Relaxed)
            }
        };
        r
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}

/// Spans on their way to a collector.
pub struct Exporter {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
    stats: Arc<Stats>,
    submitted: AtomicU64,
    /// Spans not handed to the SDK because its queue was full.
    dropped: AtomicU64,
    content_dropped: AtomicU64,
    queue: u64,
    content: bool,
    endpoint: String,
    timeout: Duration,
}

/// What a span says beyond the row: the upstream that answered, and the
/// request body (sent only with `content`).
#[derive(Debug, Default)]
pub struct Extra<'a> {
    pub server: Option<(String, Option<u16>)>,
    pub body: Option<&'a str>,
}

impl Exporter {
    /// An exporter to `cfg.endpoint`, checked (scheme, plain HTTP only to
    /// this machine, no credentials in the URL) before anything is sent.
    pub fn start(cfg: &OtlpConfig) -> Result<Exporter, crate::engine::error::Error> {
        use crate::engine::error::Error;
        let shown = guard::mask_url(&cfg.endpoint);
        let endpoint = || format!("the OTLP endpoint {shown}");
        let u = reqwest::Url::parse(&cfg.endpoint)
            .map_err(|e| Error::option(endpoint(), e.to_string()))?;
        if !u.username().is_empty() || u.password().is_some() {
            return Err(Error::option(
                endpoint(),
                "has credentials in it: give them in OTEL_EXPORTER_OTLP_HEADERS",
            ));
        }
        let pin = guard::check_transport_of(&cfg.endpoint, Some("spans"), cfg.allow_insecure_http)
            .map_err(|e| Error::option(endpoint(), e.to_string()))?;
        let timeout = cfg.timeout;
        let proxy_allowed = guard::env_proxy_allowed(&cfg.endpoint);
        // The blocking client is built off any async runtime (it has one of
        // its own); redirects are not followed; a proxy from the
        // environment only for TLS (spans and the headers' token never
        // cross one in the clear, and a success is the collector's).
        let client = std::thread::spawn(move || {
            let mut b = reqwest::blocking::Client::builder()
                .timeout(timeout)
                .redirect(reqwest::redirect::Policy::none());
            if !proxy_allowed {
                b = b.no_proxy();
            }
            if let Some((host, addrs)) = pin {
                b = b.resolve_to_addrs(&host, &addrs);
            }
            b.build()
        })
        .join()
        .map_err(|_| Error::option("the OTLP client", "it could not be built"))?
        .map_err(|e| Error::option("the OTLP client", e.to_string()))?;
        let inner = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(client)
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(cfg.endpoint.clone())
            .with_timeout(cfg.timeout)
            .build()
            .map_err(|e| Error::option(format!("the OTLP exporter for {shown}"), e.to_string()))?;
        let stats = Arc::new(Stats::default());
        let exporter = Counting {
            inner,
            stats: stats.clone(),
        };
        let batch = BatchConfigBuilder::default()
            .with_max_queue_size(cfg.queue.max(1))
            .with_max_export_batch_size(512.min(cfg.queue.max(1)))
            .with_scheduled_delay(Duration::from_secs(1))
            .build();
        let processor = BatchSpanProcessor::builder(exporter)
            .with_batch_config(batch)
            .build();
        let provider = SdkTracerProvider::builder()
            .with_span_processor(processor)
            .with_resource(resource())
            .build();
        let tracer = provider.tracer("prompt-inspector");
        Ok(Exporter {
            provider,
            tracer,
            stats,
            submitted: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            content_dropped: AtomicU64::new(0),
            queue: cfg.queue.max(1) as u64,
            content: cfg.content,
            endpoint: cfg.endpoint.clone(),
            timeout: cfg.timeout,
        })
    }

    /// The URL spans go to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// One request as one span, queued (never waits for the collector).
    /// A full queue drops it here, counted, so that the SDK never drops a
    /// span whose body is counted as waiting; a body that would take the
    /// bodies waiting over [`MAX_QUEUED_CONTENT_BYTES`] is left out.
    pub fn export(&self, row: &FlatRow, extra: &Extra) {
        self.submitted.fetch_add(1, Ordering::Relaxed);
        // This span counted in: at most `queue` wait.
        if self.pending() > self.queue {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let body = match (self.content, extra.body) {
            (true, Some(b)) => {
                let r = redacted_body(b);
                let held = &self.stats.content_held;
                if held.fetch_add(r.len(), Ordering::Relaxed) + r.len() > MAX_QUEUED_CONTENT_BYTES {
                    held.fetch_sub(r.len(), Ordering::Relaxed);
                    self.content_dropped.fetch_add(1, Ordering::Relaxed);
                    None
                } else {
                    Some(r)
                }
            }
            _ => None,
        };
        let attrs = attributes(row, extra.server.as_ref(), body, self.content);
        let start = row.at.map_or(SystemTime::now(), unix_time);
        let end = start + Duration::from_millis(row.latency_ms.unwrap_or(0));
        let mut span = self
            .tracer
            .span_builder(span_name(row))
            .with_kind(SpanKind::Client)
            .with_start_time(start)
            .with_attributes(attrs)
            .start(&self.tracer);
        // The error's text may quote the request (a server that echoes
        // it): only with content; else its type (the status) alone.
        if let Some(e) = error_type(row) {
            let why = match row.error.filter(|_| self.content) {
                Some(m) => attributes::scrubbed(m),
                None => e,
            };
            span.set_status(Status::error(why));
        }
        span.end_with_timestamp(end);
    }

    /// Exports every span queued so far, waiting for it (for a batch
    /// export: no span is dropped when this is called before the queue
    /// fills).
    pub fn flush(&self) {
        let _ = self.provider.force_flush();
    }

    /// Spans waiting to be exported (queued, not yet taken or refused).
    pub fn pending(&self) -> u64 {
        let d = self.delivery();
        d.submitted
            .saturating_sub(d.exported + d.failed + d.dropped)
    }

    /// Bytes of request bodies waiting in spans.
    pub fn content_pending(&self) -> usize {
        self.stats.content_held.load(Ordering::Relaxed)
    }

    /// What became of the spans so far (those still queued count as
    /// neither exported nor failed).
    pub fn delivery(&self) -> Delivery {
        Delivery {
            submitted: self.submitted.load(Ordering::Relaxed),
            exported: self.stats.exported.load(Ordering::Relaxed),
            failed: self.stats.failed.load(Ordering::Relaxed),
            dropped: self.dropped.load(Ordering::Relaxed),
            content_dropped: self.content_dropped.load(Ordering::Relaxed),
            unsent: 0,
            error: self
                .stats
                .error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone(),
        }
    }

    /// Exports what is queued (within `timeout`) and stops; what never
    /// reached the exporter counts as dropped.
    pub fn finish(self, timeout: Duration) -> Delivery {
        let _ = self.provider.force_flush();
        let _ = self.provider.shutdown_with_timeout(timeout);
        let mut d = self.delivery();
        d.dropped = d.submitted.saturating_sub(d.exported + d.failed);
        d
    }

    /// The time one export may take.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// `service.name` (unless `OTEL_SERVICE_NAME` names it) and `host.name`,
/// over what `OTEL_RESOURCE_ATTRIBUTES` says.
fn resource() -> opentelemetry_sdk::Resource {
    let mut b = opentelemetry_sdk::Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
        b = b.with_service_name("prompt-inspector");
    }
    if let Some(h) = hostname() {
        b = b.with_attribute(KeyValue::new("host.name", h));
    }
    b.build()
}

fn hostname() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; the name is cut there.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return None;
    }
    let n = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let s = guard::clean(&String::from_utf8_lossy(&buf[..n]), 255);
    (!s.is_empty()).then_some(s)
}

fn unix_time(secs: f64) -> SystemTime {
    if secs.is_finite() && secs >= 0.0 {
        SystemTime::UNIX_EPOCH + Duration::from_secs_f64(secs.min(1e11))
    } else {
        SystemTime::UNIX_EPOCH
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_comes_from_the_flag_then_the_traces_variable_then_the_base() {
        assert_eq!(
            endpoint_from(Some("http://127.0.0.1:4318"), Some("x"), Some("y")).as_deref(),
            Some("http://127.0.0.1:4318/v1/traces")
        );
        assert_eq!(
            endpoint_from(None, Some("https://c.example/custom"), Some("y")).as_deref(),
            Some("https://c.example/custom")
        );
        assert_eq!(
            endpoint_from(None, None, Some("https://c.example:4318/")).as_deref(),
            Some("https://c.example:4318/v1/traces")
        );
        assert_eq!(
            traces_url("http://localhost:4318/v1/traces"),
            "http://localhost:4318/v1/traces"
        );
        assert_eq!(endpoint_from(None, Some(" "), None), None);
    }

    #[test]
    fn plain_http_to_another_machine_and_credentials_in_the_url_are_refused() {
        let e = Exporter::start(&OtlpConfig::new("http://192.0.2.7:4318/v1/traces".into()))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("plain HTTP") && e.contains("spans"), "{e}");
        let e = Exporter::start(&OtlpConfig::new(
            "https://user:secretpass@c.example/v1/traces".into(),
        ))
        .err()
        .unwrap()
        .to_string();
        assert!(
            e.contains("credentials") && !e.contains("secretpass"),
            "{e}"
        );
        let e = Exporter::start(&OtlpConfig::new("ftp://c.example/v1/traces".into()))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("scheme"), "{e}");
    }

    #[test]
    fn a_control_character_inside_a_key_does_not_hide_its_shape() {
        let t = "bad key sk-\u{7}ant-api03-ABCDEFGHabcdefgh12345678 here";
        let s = attributes::scrubbed(t);
        assert!(!s.contains("ABCDEFGH") && !s.contains("12345678"), "{s}");
    }

    #[test]
    fn a_long_body_is_cut_on_a_character_and_key_shapes_are_redacted() {
        let key = format!("sk-ant-api03-{}", "a".repeat(90));
        let b = format!(
            "{{\"k\":\"{key}\",\"t\":\"{}\"}}",
            "é".repeat(MAX_CONTENT_BYTES)
        );
        let r = redacted_body(&b);
        assert!(!r.contains(&key));
        assert!(r.len() < MAX_CONTENT_BYTES + 64);
        assert!(r.ends_with("more bytes]"));
    }
}
