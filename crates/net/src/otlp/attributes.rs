//! A span's name, status and attributes for a request's flat row: the
//! GenAI conventions' (`gen_ai.*`, `server.address`, `error.type`), then
//! this tool's (`prompt_inspector.*`). Positions, labels, kinds and counts
//! always; the text of a miss's detail and the request body only with
//! content; every string scrubbed of key shapes.

use opentelemetry::{KeyValue, Value};

use super::{MAX_CONTENT_BYTES, PREFIX, body_key};
use crate::engine::traffic::rows::FlatRow;
use crate::guard;

/// `chat MODEL`, as the conventions name a span.
pub fn span_name(row: &FlatRow) -> String {
    format!("chat {}", scrubbed(row.model))
}

/// The provider the conventions name: the model table's, else the API's.
pub fn provider_name(row: &FlatRow) -> &'static str {
    row.provider.or(row.api).unwrap_or("_OTHER")
}

/// `error.type`: the HTTP status of a failed answer, else `_OTHER` for an
/// exchange that failed without one.
pub fn error_type(row: &FlatRow) -> Option<String> {
    match row.status {
        Some(s) if s >= 400 => Some(s.to_string()),
        _ => row.error.map(|_| "_OTHER".to_string()),
    }
}

/// Text from a request made fit for a span: key shapes redacted (a capture
/// written by hand may hold a key anywhere), cleaned and bounded.
pub(super) fn scrubbed(t: &str) -> String {
    // Cleaned first (a control character inside a key would hide its
    // shape), redacted, then cut.
    let whole = guard::clean(t, usize::MAX >> 1);
    guard::clean(&guard::redact_shapes(&whole), guard::MAX_MESSAGE_CHARS)
}

/// A span's attributes for a row: the conventions', then this tool's.
/// Positions, labels, kinds and counts always; the text of a miss's detail
/// (which quotes the first difference) only with `content`, as the body
/// (already redacted and cut: [`redacted_body`]).
pub fn attributes(
    row: &FlatRow,
    server: Option<&(String, Option<u16>)>,
    body: Option<String>,
    content: bool,
) -> Vec<KeyValue> {
    let model = scrubbed(row.model);
    let mut a = vec![
        KeyValue::new("gen_ai.operation.name", "chat"),
        KeyValue::new("gen_ai.provider.name", provider_name(row)),
        KeyValue::new("gen_ai.request.model", model.clone()),
        KeyValue::new("gen_ai.response.model", model),
    ];
    // An answer that reported no usage has no figures: its span carries
    // none (a 0 would read as a request that cost nothing).
    if row.usage_reported {
        a.extend([
            int("gen_ai.usage.input_tokens", input_tokens(row)),
            int("gen_ai.usage.output_tokens", row.output_tokens),
            int(
                "gen_ai.usage.cache_read.input_tokens",
                row.cache_read_input_tokens,
            ),
            int(
                "gen_ai.usage.cache_creation.input_tokens",
                row.cache_creation_input_tokens,
            ),
        ]);
    }
    if let Some((host, port)) = server {
        a.push(KeyValue::new("server.address", host.clone()));
        if let Some(p) = port {
            a.push(KeyValue::new("server.port", i64::from(*p)));
        }
    }
    if let Some(s) = row.status {
        a.push(KeyValue::new("http.response.status_code", i64::from(s)));
    }
    if let Some(e) = error_type(row) {
        a.push(KeyValue::new("error.type", e));
    }
    own(&mut a, row, content);
    if let Some(b) = body {
        a.push(KeyValue::new(body_key(), b));
    }
    a
}

/// The conventions' input tokens: all the prompt's, cached or not (the
/// cache attributes say how many of them were read and written).
fn input_tokens(row: &FlatRow) -> u64 {
    row.input_tokens + row.cache_read_input_tokens + row.cache_creation_input_tokens
}

/// This tool's attributes, under [`PREFIX`].
fn own(a: &mut Vec<KeyValue>, row: &FlatRow, content: bool) {
    let k = |name: &str| format!("{PREFIX}.{name}");
    a.push(KeyValue::new(k("schema"), i64::from(row.schema)));
    a.push(KeyValue::new(k("source"), row.source));
    a.push(KeyValue::new(k("file"), scrubbed(row.file)));
    a.push(KeyValue::new(k("chain"), scrubbed(row.chain)));
    a.push(int(&k("index"), row.index as u64));
    a.push(KeyValue::new(k("usage_reported"), row.usage_reported));
    if row.usage_reported {
        a.push(int(&k("uncached_input_tokens"), row.input_tokens));
        a.push(int(
            &k("cache_creation_5m_input_tokens"),
            row.cache_creation_5m_input_tokens,
        ));
        a.push(int(
            &k("cache_creation_1h_input_tokens"),
            row.cache_creation_1h_input_tokens,
        ));
        a.push(int(&k("reasoning_tokens"), row.reasoning_tokens));
    }
    let floats = [
        ("gap_s", row.gap_s),
        ("cost_usd", row.cost_usd),
        ("agent_cost_usd", row.agent_cost_usd),
    ];
    for (name, v) in floats {
        if let Some(v) = v.filter(|v| v.is_finite()) {
            a.push(KeyValue::new(k(name), v));
        }
    }
    let texts = [
        ("miss.kind", row.miss_kind),
        ("miss.detail", row.miss_detail.filter(|_| content)),
        ("first_difference", row.first_difference),
        ("agent", row.agent),
        ("profile", row.profile),
        ("agent.release", row.release.as_deref()),
    ];
    for (name, v) in texts {
        if let Some(v) = v {
            a.push(KeyValue::new(k(name), scrubbed(v)));
        }
    }
}

fn int(key: &str, v: u64) -> KeyValue {
    KeyValue::new(key.to_string(), Value::I64(v.min(i64::MAX as u64) as i64))
}

/// A body as a span carries it: key shapes redacted (as in captures),
/// within [`MAX_CONTENT_BYTES`].
pub(super) fn redacted_body(b: &str) -> String {
    let r = crate::redact::redact_shapes(b);
    if r.len() <= MAX_CONTENT_BYTES {
        return r.into_owned();
    }
    let mut cut = MAX_CONTENT_BYTES;
    while !r.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…[cut: {} more bytes]", &r[..cut], r.len() - cut)
}
