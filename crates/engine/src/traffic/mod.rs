//! Real traffic: an agent's requests as they were sent (a capture of the
//! recording proxy, one JSON line per exchange) or as Claude Code logged
//! them (a session transcript), with the usage the provider reported, and
//! for every request that wrote or missed the cache, the reason.
//!
//! With request bodies (captures) the reason is found by comparing each
//! request with the previous one of the same chain: a changed model or tool
//! set, the first position that differs (tools, system block N, message N)
//! with a before/after excerpt, a gap longer than the TTL, a prefix under
//! the model's minimum, a breakpoint beyond the 20-block lookback. With
//! usage only (transcripts): gaps, compaction boundaries, or "unexplained".
//! Anthropic's own `cache_miss_reason`, when a response carries it, wins.

mod adopt;
mod capture;
mod explain;
mod lines;
mod parse;
mod report;
mod request;

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use crate::assembly::models::{ModelInfo, ModelTable};
use crate::usage::Usage;

pub use crate::usage::MAX_TOKENS;
pub use adopt::to_session;
pub use capture::CaptureLine;
use explain::explain;
pub use lines::{
    MAX_FILE_BYTES, MAX_LINES, MAX_VALUES, Skipped, estimate_values, parse_lines, read_file,
};
pub use parse::{format_rfc3339, parse, rfc3339};
pub use report::{notes, to_json, to_json_text, to_markdown, to_text, write_json};
pub use request::{
    Counted, Part, Parts, TEMPLATE, capture_snapshot, diff_at, diff_with_previous, parts,
    positions, request_snapshot, snapshot_at,
};

/// Where the exchanges come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    Capture,
    ClaudeCode,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Capture => "capture",
            Source::ClaudeCode => "claude-code",
        }
    }
}

/// One request and its response, as recorded.
#[derive(Debug, Clone, Default)]
pub struct Exchange {
    /// Unix seconds (with fractions) when it was sent, if known.
    pub at: Option<f64>,
    pub time: String,
    pub chain: String,
    pub model: String,
    /// The request body, when recorded (captures).
    pub request: Option<Value>,
    /// Its parts as the server that answered counted them, when recorded.
    pub counted: Option<Counted>,
    pub usage: Option<Usage>,
    pub status: Option<u16>,
    pub error: Option<String>,
    /// Anthropic's cache diagnostics (`cache_miss_reason`), if present.
    pub miss_reason: Option<Value>,
    /// A compaction happened just before this request (transcripts).
    pub after_compaction: bool,
}

/// Why a request wrote or missed the cache.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Miss {
    pub kind: MissKind,
    pub detail: String,
    /// For an expiry: the TTL (seconds) of the prefix that expired.
    #[serde(skip)]
    pub expired_ttl: Option<u64>,
}

/// The class of a write or a miss, most specific first. Serialized as its
/// lower-case name (`cold`, `ttl`…), as every view shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MissKind {
    Cold,
    Ttl,
    Model,
    Tools,
    Prefix,
    Minimum,
    Lookback,
    Compaction,
    Growth,
    Provider,
    Unexplained,
}

impl MissKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MissKind::Cold => "cold",
            MissKind::Ttl => "ttl",
            MissKind::Model => "model",
            MissKind::Tools => "tools",
            MissKind::Prefix => "prefix",
            MissKind::Minimum => "minimum",
            MissKind::Lookback => "lookback",
            MissKind::Compaction => "compaction",
            MissKind::Growth => "growth",
            MissKind::Provider => "provider",
            MissKind::Unexplained => "unexplained",
        }
    }
}

impl std::fmt::Display for MissKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One analysed request.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub index: usize,
    /// The index of the previous request of the same chain (what this one
    /// is compared with).
    #[serde(skip)]
    pub previous: Option<usize>,
    /// The request's parts with their tokens and who counted them
    /// (captures: bodies are recorded).
    pub parts: Parts,
    pub time: String,
    pub chain: String,
    pub model: String,
    pub usage: Option<Usage>,
    /// The HTTP status of the answer (captures).
    pub status: Option<u16>,
    pub cost_usd: f64,
    /// The model is in the model table (else `cost_usd` is 0: no price).
    pub priced: bool,
    pub miss: Option<Miss>,
    pub error: Option<String>,
}

impl KindCost {
    /// What this class cost, in words every view uses: the first writes
    /// and a growing conversation's are expected, the others are waste.
    pub fn cost_phrase(&self) -> String {
        let usd = format!("${:.4}", self.extra_cost_usd);
        match self.kind {
            MissKind::Cold => format!("first writes, unavoidable: {usd} beyond reading them"),
            MissKind::Growth => {
                format!("new turns written, as expected: {usd} beyond reading them")
            }
            _ => format!("{usd} more than reading from the cache would have cost"),
        }
    }
}

/// The cost one class of miss caused.
#[derive(Debug, Clone, Serialize)]
pub struct KindCost {
    pub kind: MissKind,
    pub requests: usize,
    /// What the writes of these requests cost beyond reading the same
    /// tokens from the cache.
    pub extra_cost_usd: f64,
}

impl Totals {
    /// The totals in one line, as every view shows them.
    pub fn headline(&self) -> String {
        if self.requests == 0 {
            return "no requests yet".into();
        }
        format!(
            "read {} · written {} · uncached {} · output {} · ${:.4} · hit ratio {:.1}%",
            crate::thousands(self.cache_read_input_tokens),
            crate::thousands(self.cache_creation_input_tokens),
            crate::thousands(self.input_tokens),
            crate::thousands(self.output_tokens),
            self.cost_usd,
            self.hit_ratio * 100.0
        )
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    pub requests: usize,
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
    /// Read / all input tokens.
    pub hit_ratio: f64,
    pub by_kind: Vec<KindCost>,
    /// What a 1-hour TTL would have changed for the TTL misses.
    pub counterfactual: Option<String>,
    /// Models of requests not in the model table (no price: not in the
    /// cost).
    pub unpriced_models: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Traffic {
    pub source: Source,
    pub requests: Vec<Row>,
    pub totals: Totals,
    /// Lines of the file that were not read.
    pub skipped: Skipped,
}

/// Explains every request of a capture or a Claude Code transcript, and
/// counts each recorded request's parts.
pub fn analyze(
    source: Source,
    exchanges: &[Exchange],
    table: &ModelTable,
    counter: &crate::TokenCounter,
) -> Traffic {
    // The latest request of each chain so far.
    let mut latest: HashMap<&str, usize> = HashMap::new();
    let rows = exchanges
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let prev = latest.insert(x.chain.as_str(), i);
            row(i, x, prev.map(|j| (j, &exchanges[j])), table, counter)
        })
        .collect();
    finish(source, rows, exchanges, table)
}

/// [`analyze`], dropping each request body as soon as no later request is
/// compared with it (the next of its chain has been), so that the bodies
/// and the rows are not all held at once.
fn analyze_owned(
    source: Source,
    mut exchanges: Vec<Exchange>,
    table: &ModelTable,
    counter: &crate::TokenCounter,
) -> Traffic {
    // Whether a later request of the same chain follows each one.
    let mut followed = vec![false; exchanges.len()];
    let mut latest: HashMap<&str, usize> = HashMap::new();
    for (i, x) in exchanges.iter().enumerate() {
        if let Some(j) = latest.insert(x.chain.as_str(), i) {
            followed[j] = true;
        }
    }
    let mut latest: HashMap<String, usize> = HashMap::new();
    let mut rows = Vec::with_capacity(exchanges.len());
    for i in 0..exchanges.len() {
        let prev = latest.insert(exchanges[i].chain.clone(), i);
        rows.push(row(
            i,
            &exchanges[i],
            prev.map(|j| (j, &exchanges[j])),
            table,
            counter,
        ));
        if let Some(j) = prev {
            exchanges[j].request = None;
        }
        if !followed[i] {
            exchanges[i].request = None;
        }
    }
    finish(source, rows, &exchanges, table)
}

/// Request `i` (0-based) compared with `prev`, the previous request of its
/// chain (its index and exchange).
fn row(
    i: usize,
    x: &Exchange,
    prev: Option<(usize, &Exchange)>,
    table: &ModelTable,
    counter: &crate::TokenCounter,
) -> Row {
    let model = table.resolve(Some(&x.model));
    // A model the table does not know has no price: its cost is not
    // guessed from another model's.
    let priced = table.get(&x.model).is_some();
    let cost = x.usage.filter(|_| priced).map_or(0.0, |u| cost(model, &u));
    let miss = x
        .usage
        .filter(|u| u.cache_creation_input_tokens > 0 || u.cache_read_input_tokens == 0)
        .map(|u| explain(x, prev.map(|(_, p)| p), &u, model));
    Row {
        index: i + 1,
        previous: prev.map(|(j, _)| j + 1),
        parts: parts(x, counter, table),
        time: x.time.clone(),
        chain: x.chain.clone(),
        model: x.model.clone(),
        usage: x.usage,
        status: x.status,
        cost_usd: cost,
        priced,
        miss,
        error: x.error.clone(),
    }
}

fn finish(source: Source, rows: Vec<Row>, exchanges: &[Exchange], table: &ModelTable) -> Traffic {
    let totals = totals(&rows, exchanges, table);
    Traffic {
        source,
        requests: rows,
        totals,
        skipped: Skipped::default(),
    }
}

/// A capture or a transcript read from disk (line by line, within
/// [`MAX_FILE_BYTES`] and [`MAX_VALUES`]) and analysed: what the `traffic`
/// command and the window's Traffic tab show. Errors name the file.
pub fn read(
    path: &std::path::Path,
    table: &ModelTable,
    counter: &crate::TokenCounter,
) -> Result<Traffic, String> {
    let (source, exchanges, skipped) = read_file(path)?;
    let mut t = analyze_owned(source, exchanges, table, counter);
    t.skipped = skipped;
    Ok(t)
}

/// USD of one request's usage at the model's prices.
pub fn cost(m: &ModelInfo, u: &Usage) -> f64 {
    let per = |n: u64, p: f64| n as f64 * p / 1e6;
    let w1h = u.written_1h().min(u.cache_creation_input_tokens);
    per(u.input_tokens, m.input_per_mtok)
        + per(
            u.cache_creation_input_tokens.saturating_sub(w1h),
            m.write_5m_price(),
        )
        + per(w1h, m.write_1h_price())
        + per(u.cache_read_input_tokens, m.read_price())
        + per(u.output_tokens, m.output_per_mtok)
}

/// `the main chain`, `chain 2`, `sidechain ae77`: a chain named in a sentence.
pub(super) fn chain_phrase(chain: &str) -> String {
    if chain == "main" {
        "the main chain".into()
    } else {
        chain.to_string()
    }
}

fn totals(rows: &[Row], exchanges: &[Exchange], table: &ModelTable) -> Totals {
    let mut t = Totals {
        requests: rows.len(),
        ..Totals::default()
    };
    let mut by_kind: Vec<KindCost> = Vec::new();
    let mut unpriced: HashSet<&str> = HashSet::new();
    let (mut ttl_actual, mut ttl_1h) = (0.0f64, 0.0f64);
    let mut writes_5m_extra = 0.0f64;
    for (r, x) in rows.iter().zip(exchanges) {
        let Some(u) = r.usage else { continue };
        t.input_tokens += u.input_tokens;
        t.cache_creation_input_tokens += u.cache_creation_input_tokens;
        t.cache_read_input_tokens += u.cache_read_input_tokens;
        t.output_tokens += u.output_tokens;
        t.cost_usd += r.cost_usd;
        if !r.priced {
            if unpriced.insert(r.model.as_str()) {
                t.unpriced_models.push(r.model.clone());
            }
            continue;
        }
        let m = table.resolve(Some(&x.model));
        let per = |n: u64, p: f64| n as f64 * p / 1e6;
        let w = u.cache_creation_input_tokens;
        let w1h = u.written_1h().min(w);
        let w5m = w - w1h;
        let prev = r
            .previous
            .and_then(|p| rows.get(p - 1))
            .and_then(|p| p.usage);
        // The prefix the previous request of the chain left cached.
        let prev_cached = prev.map_or(0, |p| {
            p.cache_read_input_tokens + p.cache_creation_input_tokens
        });
        let ttl_5m = r
            .miss
            .as_ref()
            .is_some_and(|miss| miss.kind == MissKind::Ttl && miss.expired_ttl == Some(300));
        if m.provider == crate::Provider::Anthropic {
            if ttl_5m {
                // With a 1-hour TTL the expired prefix would have been read
                // and only the growth after it written (at the 1-hour price).
                let expired = w5m.min(prev_cached);
                ttl_actual += per(w5m, m.write_5m_price());
                ttl_1h += per(expired, m.read_price()) + per(w5m - expired, m.write_1h_price());
            } else {
                // Every other 5-minute write would have cost the 1-hour price.
                writes_5m_extra += per(w5m, m.write_1h_price() - m.write_5m_price());
            }
        }
        if let Some(miss) = &r.miss {
            let extra = if m.provider == crate::Provider::Anthropic {
                // What the writes cost beyond reading the same tokens.
                per(w5m, m.write_5m_price()) + per(w1h, m.write_1h_price()) - per(w, m.read_price())
            } else {
                // No writes: what was cached before and is now paid in full.
                let prompt = u.input_tokens + u.cache_read_input_tokens;
                let could =
                    prompt.min(prev.map_or(0, |p| p.input_tokens + p.cache_read_input_tokens));
                per(
                    could.saturating_sub(u.cache_read_input_tokens),
                    m.input_per_mtok - m.read_price(),
                )
            };
            match by_kind.iter_mut().find(|k| k.kind == miss.kind) {
                Some(k) => {
                    k.requests += 1;
                    k.extra_cost_usd += extra;
                }
                None => by_kind.push(KindCost {
                    kind: miss.kind,
                    requests: 1,
                    extra_cost_usd: extra,
                }),
            }
        }
    }
    let all = t.input_tokens + t.cache_creation_input_tokens + t.cache_read_input_tokens;
    t.hit_ratio = if all == 0 {
        0.0
    } else {
        t.cache_read_input_tokens as f64 / all as f64
    };
    if ttl_actual > 0.0 {
        let with_1h = ttl_1h + writes_5m_extra;
        t.counterfactual = Some(format!(
            "writes after 5-minute gaps cost ${ttl_actual:.4}; with a 1-hour TTL the expired prefix would have been read and only the growth written (${ttl_1h:.4}), and the other 5-minute writes would have cost ${writes_5m_extra:.4} more: ${with_1h:.4} against ${ttl_actual:.4}, so a 1-hour TTL would have {}",
            if with_1h < ttl_actual {
                format!("saved ${:.4}", ttl_actual - with_1h)
            } else {
                format!("cost ${:.4} more", with_1h - ttl_actual)
            }
        ));
    }
    t.by_kind = by_kind;
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(req: Value) -> Exchange {
        Exchange {
            model: "claude-sonnet-4-5".into(),
            request: Some(req),
            ..Exchange::default()
        }
    }

    #[test]
    fn a_request_splits_into_its_parts_in_cache_order() {
        let req = serde_json::json!({
            "tools": [{"name": "read", "input_schema": {}}],
            "system": [{"type": "text", "text": "You are Kestrel.", "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}]
        });
        let c = crate::TokenCounter::new();
        let table = ModelTable::bundled();
        let p = parts(&exchange(req), &c, &table);
        let labels: Vec<&str> = p.parts.iter().map(|x| x.label.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "tool 1 (read)",
                "system block 1",
                "message 1 (user)",
                "message 2 (assistant)"
            ]
        );
        assert!(p.parts[1].breakpoint && !p.parts[0].breakpoint);
        assert_eq!(
            p.parts[1].tokens,
            c.count(crate::Encoding::O200kBase, "You are Kestrel.")
        );
        assert!(p.counted_by.contains("an estimate"), "{}", p.counted_by);
    }

    #[test]
    fn parts_counted_by_the_server_sum_to_what_it_reported() {
        let req = serde_json::json!({
            "system": "You are Kestrel.",
            "messages": [{"role": "user", "content": "hi"}]
        });
        let c = crate::TokenCounter::new();
        let table = ModelTable::bundled();
        let mut x = exchange(req);
        x.counted = Some(Counted {
            by: "llama.cpp server at http://127.0.0.1:8089".into(),
            parts: vec![5, 1],
        });
        x.usage = Some(Usage {
            input_tokens: 4,
            cache_read_input_tokens: 10,
            ..Usage::default()
        });
        let p = parts(&x, &c, &table);
        let got: Vec<(&str, usize)> = p
            .parts
            .iter()
            .map(|p| (p.label.as_str(), p.tokens))
            .collect();
        assert_eq!(
            got,
            vec![
                ("system block 1", 5),
                ("message 1 (user)", 1),
                (TEMPLATE, 8)
            ]
        );
        assert!(
            p.counted_by
                .contains("llama.cpp server at http://127.0.0.1:8089")
        );
        // Counts for other positions than the request has are not used.
        x.counted.as_mut().unwrap().parts.push(3);
        let p = parts(&x, &c, &table);
        assert_eq!(p.parts.len(), 2);
        assert!(p.counted_by.contains("an estimate"));
    }
}
