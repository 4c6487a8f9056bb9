//! OpenTelemetry export from the command line: the endpoint the flags or
//! the environment name, and `traffic FILE --otlp-endpoint URL` (a capture,
//! transcript or folder sent as one span per request, as the proxy sends
//! them live).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use crate::engine::ModelTable;
use crate::engine::traffic::{self, Traffic, rows};
use crate::net::otlp::{Exporter, Extra, OtlpConfig, TOTAL_TIMEOUTS};

/// The traces URL: the flag, else the standard OpenTelemetry variables.
pub fn endpoint(flag: Option<&str>) -> Option<String> {
    let var = |n: &str| std::env::var(n).ok();
    crate::net::otlp::endpoint_from(
        flag,
        var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").as_deref(),
        var("OTEL_EXPORTER_OTLP_ENDPOINT").as_deref(),
    )
}

/// What `traffic --otlp-endpoint` was asked for.
pub struct Export<'a> {
    pub endpoint: String,
    pub content: bool,
    pub allow_insecure_http: bool,
    /// The time one export may take; the whole export stops after
    /// [`TOTAL_TIMEOUTS`] times that.
    pub timeout: Duration,
    pub file: &'a Path,
}

/// Every request of `t` as a span; the request bodies, with `content`,
/// read again one at a time from the file. Waits until the collector has
/// taken them (or refused) and says how many it took: exit 1 when any is
/// missing. Bounded in time: a collector that never answers stops the
/// export after [`TOTAL_TIMEOUTS`] times one export's timeout, the
/// requests not sent counted and said.
pub fn export_traffic(t: &Traffic, x: &Export, table: &ModelTable) -> ExitCode {
    let cfg = OtlpConfig {
        content: x.content,
        allow_insecure_http: x.allow_insecure_http,
        timeout: x.timeout,
        ..OtlpConfig::new(x.endpoint.clone())
    };
    let started = std::time::Instant::now();
    let budget = x.timeout * TOTAL_TIMEOUTS;
    let exporter = match Exporter::start(&cfg) {
        Ok(e) => e,
        Err(e) => return super::fail(&e),
    };
    let file = crate::engine::clean(&x.file.display().to_string(), 1000);
    // Bodies are read again in the order the rows were made.
    let mut bodies = match x.content {
        true => match traffic::read_file_lazy(x.file) {
            Ok((_, exchanges, _, b)) => Some((exchanges.into_iter(), b)),
            Err(e) => return super::fail(&e),
        },
        false => None,
    };
    let half = (cfg.queue / 2).max(1) as u64;
    let mut unsent = 0u64;
    for (i, r) in t.requests.iter().enumerate() {
        // A batch export waits for the collector rather than drop spans,
        // within the whole export's time.
        if exporter.pending() >= half {
            if started.elapsed() >= budget {
                unsent = (t.requests.len() - i) as u64;
                break;
            }
            exporter.flush();
        }
        let body = bodies.as_mut().and_then(|(it, b)| {
            let mut e = it.next()?;
            b.load(&mut e);
            match (&e.request, &e.shape) {
                (Some(r), _) | (None, Some(r)) => serde_json::to_string(&r.to_wire()).ok(),
                _ => None,
            }
        });
        let row = rows::flat(t, r, &file, table);
        let extra = Extra {
            server: None,
            body: body.as_deref(),
        };
        exporter.export(&row, &extra);
    }
    let endpoint = exporter.endpoint().to_string();
    let left = budget
        .saturating_sub(started.elapsed())
        .max(Duration::from_secs(1));
    let mut d = exporter.finish(left);
    d.unsent = unsent;
    d.submitted += unsent;
    super::out(&format!("{}\n", d.summary(&endpoint)));
    if d.exported == d.submitted {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
