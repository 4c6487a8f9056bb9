//! Traffic as flat rows for analytic engines (`traffic --format jsonl`):
//! one JSON object per request and per line, the same fields in every row,
//! so DuckDB (`read_json_auto`), Spark and ClickHouse read it as a table.
//! The schema is versioned by its `schema` field; a field is added, never
//! renamed or retyped, within a version.
//!
//! | field | meaning |
//! |---|---|
//! | `schema` | 1 |
//! | `source` | `capture`, `claude-code`, `codex` |
//! | `file` | the file or folder read |
//! | `chain` | the conversation within it (`main`, `chain 2`, `sidechain …`, `session …`) |
//! | `index` | 1-based, in the order sent |
//! | `time`, `at` | when it was sent (RFC 3339 as recorded, Unix seconds) |
//! | `gap_s` | seconds since the previous request of its chain (null for the first) |
//! | `model`, `provider` | as sent; the provider from the model table (null when unknown) |
//! | `api` | the API it was sent to: `anthropic` or `openai` (a capture's endpoint, a transcript's agent) |
//! | `status`, `latency_ms` | the answer's HTTP status and time to its end (captures) |
//! | `error` | what went wrong with the exchange, when something did (cleaned) |
//! | `input_tokens` | uncached input |
//! | `cache_read_input_tokens`, `cache_creation_input_tokens` | read and written |
//! | `cache_creation_5m_input_tokens`, `cache_creation_1h_input_tokens` | the writes by TTL (the 5-minute part is all writes when not split) |
//! | `output_tokens`, `reasoning_tokens` | |
//! | `usage_reported` | false when the answer reported no usage (its figures are then 0; the tables write "–") |
//! | `cost_usd` | at the table's prices (null for a model it does not price, and when no usage was reported) |
//! | `agent_cost_usd` | what the agent says it cost (null when it does not) |
//! | `miss_kind`, `miss_detail` | why it wrote or missed (null when it only read) |
//! | `first_difference` | for a changed prefix, the first position that differs |
//! | `agent`, `profile` | the agent and profile when known (null otherwise) |
//! | `release` | the agent and release that sent it (`Claude Code 2.1.328`), when the request or its line says |

use serde::Serialize;

use super::{Row, Traffic};
use crate::assembly::models::ModelTable;

/// One request as a flat row (see the module's table).
#[derive(Debug, Serialize)]
pub struct FlatRow<'a> {
    pub schema: u32,
    pub source: &'static str,
    pub file: &'a str,
    pub chain: &'a str,
    pub index: usize,
    pub time: &'a str,
    pub at: Option<f64>,
    pub gap_s: Option<f64>,
    pub model: &'a str,
    pub provider: Option<&'static str>,
    pub api: Option<&'static str>,
    pub status: Option<u16>,
    pub latency_ms: Option<u64>,
    pub error: Option<&'a str>,
    pub input_tokens: u64,
    pub usage_reported: bool,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_creation_5m_input_tokens: u64,
    pub cache_creation_1h_input_tokens: u64,
    pub output_tokens: u64,
    pub reasoning_tokens: u64,
    pub cost_usd: Option<f64>,
    pub agent_cost_usd: Option<f64>,
    pub miss_kind: Option<&'static str>,
    pub miss_detail: Option<&'a str>,
    pub first_difference: Option<&'a str>,
    pub agent: Option<&'static str>,
    pub profile: Option<&'a str>,
    pub release: Option<String>,
}

/// The agent a source names, when it names one.
fn agent_of(source: super::Source) -> Option<&'static str> {
    source.agent().map(|a| a.name())
}

/// Request `r` of `t` (read from `file`) as a flat row.
pub fn flat<'a>(t: &'a Traffic, r: &'a Row, file: &'a str, table: &ModelTable) -> FlatRow<'a> {
    flat_of(t.source, super::timeline::gap(t, r), r, file, table)
}

/// Request `r` as a flat row, its source and the gap since the previous
/// request of its chain given (a request analysed as it comes, not read
/// from a file: the proxy's).
pub fn flat_of<'a>(
    source: super::Source,
    gap_s: Option<f64>,
    r: &'a Row,
    file: &'a str,
    table: &ModelTable,
) -> FlatRow<'a> {
    let u = r.usage.unwrap_or_default();
    let w1h = u.written_1h().min(u.cache_creation_input_tokens);
    FlatRow {
        usage_reported: r.usage.is_some(),
        schema: 1,
        source: source.as_str(),
        file,
        chain: &r.chain,
        index: r.index,
        time: &r.time,
        at: r.at,
        gap_s,
        model: &r.model,
        provider: table.get(&r.model).map(|m| m.provider.as_str()),
        api: r.api,
        status: r.status,
        latency_ms: r.latency_ms,
        error: r.error.as_deref(),
        input_tokens: u.input_tokens,
        cache_read_input_tokens: u.cache_read_input_tokens,
        cache_creation_input_tokens: u.cache_creation_input_tokens,
        cache_creation_5m_input_tokens: u.cache_creation_input_tokens - w1h,
        cache_creation_1h_input_tokens: w1h,
        output_tokens: u.output_tokens,
        reasoning_tokens: u.reasoning_tokens,
        cost_usd: r.cost().usd().map(|c| (c * 1e9).round() / 1e9),
        agent_cost_usd: r.agent_cost_usd,
        miss_kind: r.miss.as_ref().map(|m| m.kind.as_str()),
        miss_detail: r.miss.as_ref().map(|m| m.detail.as_str()),
        first_difference: r.miss.as_ref().and_then(|m| m.position.as_deref()),
        agent: agent_of(source),
        profile: None,
        release: r.release.as_ref().map(super::release::Release::name),
    }
}

/// Every request of `t` as JSON lines, written as they are made.
pub fn write_jsonl(
    t: &Traffic,
    file: &str,
    table: &ModelTable,
    mut w: impl std::io::Write,
) -> std::io::Result<()> {
    for r in &t.requests {
        serde_json::to_writer(&mut w, &flat(t, r, file, table))?;
        w.write_all(b"\n")?;
    }
    Ok(())
}
