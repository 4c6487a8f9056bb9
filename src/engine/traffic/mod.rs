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

mod parse;
mod report;
mod request;

use serde::Serialize;
use serde_json::Value;

use crate::engine::assembly::models::{ModelInfo, ModelTable};

pub use parse::{MAX_TOKENS, Skipped, format_rfc3339, parse, parse_lines, rfc3339};
pub use report::{notes, to_json, to_markdown, to_text};
use request::names;
pub use request::{
    Counted, Part, Parts, TEMPLATE, capture_snapshot, diff_with_previous, parts, positions,
    request_snapshot,
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

/// Usage as the provider reported it (Anthropic's field names).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub output_tokens: u64,
    /// The 1-hour part of the writes (the rest is 5-minute).
    pub ephemeral_1h_input_tokens: u64,
}

impl Usage {
    /// The input part (read / written / uncached), in the predictor's type,
    /// so a recorded request and a predicted one are drawn and summed alike.
    pub fn input(&self) -> crate::engine::cache::predictors::Usage {
        crate::engine::cache::predictors::Usage {
            input_tokens: self.input_tokens,
            cache_creation_input_tokens: self.cache_creation_input_tokens,
            cache_read_input_tokens: self.cache_read_input_tokens,
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
    /// `cold`, `ttl`, `model`, `tools`, `prefix`, `minimum`, `lookback`,
    /// `compaction`, `growth`, `provider`, `unexplained`.
    pub kind: String,
    pub detail: String,
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
        match self.kind.as_str() {
            "cold" => format!("first writes, unavoidable: {usd} beyond reading them"),
            "growth" => format!("new turns written, as expected: {usd} beyond reading them"),
            _ => format!("{usd} more than reading from the cache would have cost"),
        }
    }
}

/// The cost one class of miss caused.
#[derive(Debug, Clone, Serialize)]
pub struct KindCost {
    pub kind: String,
    pub requests: usize,
    /// What the writes of these requests cost beyond reading the same
    /// tokens from the cache.
    pub extra_cost_usd: f64,
}

impl Totals {
    /// The totals in one line, as every view shows them.
    pub fn headline(&self) -> String {
        format!(
            "read {} · written {} · uncached {} · output {} · ${:.4} · hit ratio {:.1}%",
            crate::engine::thousands(self.cache_read_input_tokens),
            crate::engine::thousands(self.cache_creation_input_tokens),
            crate::engine::thousands(self.input_tokens),
            crate::engine::thousands(self.output_tokens),
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
    counter: &crate::engine::TokenCounter,
) -> Traffic {
    let mut rows = Vec::with_capacity(exchanges.len());
    for (i, x) in exchanges.iter().enumerate() {
        let prev_at = exchanges[..i].iter().rposition(|p| p.chain == x.chain);
        let prev = prev_at.map(|j| &exchanges[j]);
        let model = table.resolve(Some(&x.model));
        // A model the table does not know has no price: its cost is not
        // guessed from another model's.
        let priced = table.get(&x.model).is_some();
        let cost = x.usage.filter(|_| priced).map_or(0.0, |u| cost(model, &u));
        let miss = x
            .usage
            .filter(|u| u.cache_creation_input_tokens > 0 || u.cache_read_input_tokens == 0)
            .map(|u| explain(x, prev, &u, model));
        let parts = parts(x, counter, table);
        rows.push(Row {
            index: i + 1,
            previous: prev_at.map(|j| j + 1),
            parts,
            time: x.time.clone(),
            chain: x.chain.clone(),
            model: x.model.clone(),
            usage: x.usage,
            status: x.status,
            cost_usd: cost,
            priced,
            miss,
            error: x.error.clone(),
        });
    }
    let totals = totals(&rows, exchanges, table);
    Traffic {
        source,
        requests: rows,
        totals,
        skipped: Skipped::default(),
    }
}

/// USD of one request's usage at the model's prices.
pub fn cost(m: &ModelInfo, u: &Usage) -> f64 {
    let per = |n: u64, p: f64| n as f64 * p / 1e6;
    let w1h = u
        .ephemeral_1h_input_tokens
        .min(u.cache_creation_input_tokens);
    per(u.input_tokens, m.input_per_mtok)
        + per(
            u.cache_creation_input_tokens.saturating_sub(w1h),
            m.write_5m_price(),
        )
        + per(w1h, m.write_1h_price())
        + per(u.cache_read_input_tokens, m.read_price())
        + per(u.output_tokens, m.output_per_mtok)
}

fn miss(kind: &str, detail: String) -> Miss {
    Miss {
        kind: kind.into(),
        detail,
    }
}

fn fmt_gap(s: f64) -> String {
    let s = s.max(0.0) as u64;
    if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// The reason a request wrote (or read nothing), most specific first.
fn explain(x: &Exchange, prev: Option<&Exchange>, u: &Usage, model: &ModelInfo) -> Miss {
    if let Some(r) = &x.miss_reason {
        let kind = crate::engine::clean(r["type"].as_str().unwrap_or("provider"), 64);
        let missed = r["cache_missed_input_tokens"].as_u64();
        return miss(
            "provider",
            format!(
                "Anthropic's cache diagnostics: {kind}{}",
                missed.map_or(String::new(), |n| format!(
                    " ({} tokens missed)",
                    crate::engine::thousands(n.min(MAX_TOKENS))
                ))
            ),
        );
    }
    // A prompt under the model's minimum is never cached, whatever changed.
    let prompt = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
    if u.cache_read_input_tokens == 0 && prompt < model.min_cacheable_tokens {
        return miss(
            "minimum",
            format!(
                "the prompt ({}) is under {}'s {}-token minimum: silently not cached",
                crate::engine::plural(prompt, "token"),
                model.id,
                crate::engine::thousands(model.min_cacheable_tokens)
            ),
        );
    }
    let Some(p) = prev else {
        return miss(
            "cold",
            format!(
                "first request of {}: nothing cached yet",
                chain_phrase(&x.chain)
            ),
        );
    };
    if x.after_compaction {
        return miss(
            "compaction",
            "a compaction boundary: the conversation was summarised, so everything after the system prompt is new".into(),
        );
    }
    if let (Some(a), Some(b)) = (p.at, x.at) {
        // The TTL of what the previous request left cached.
        let ttl = if p.usage.is_some_and(|pu| pu.ephemeral_1h_input_tokens > 0) {
            3600.0
        } else {
            300.0
        };
        if b - a > ttl {
            return miss(
                "ttl",
                format!(
                    "{} since the previous request of this chain, longer than the {} TTL: the cached prefix expired",
                    fmt_gap(b - a),
                    if ttl > 300.0 { "1h" } else { "5m" }
                ),
            );
        }
    }
    if p.model != x.model {
        return miss(
            "model",
            format!(
                "the model changed: {} → {} (caches are per model)",
                p.model, x.model
            ),
        );
    }
    if let (Some(a), Some(b)) = (&p.request, &x.request)
        && let Some(m) = compare_requests(a, b, u, model)
    {
        return m;
    }
    if u.cache_read_input_tokens > 0 {
        return miss(
            "growth",
            format!(
                "read {} and wrote {} after them (the conversation grew)",
                crate::engine::plural(u.cache_read_input_tokens, "cached token"),
                crate::engine::plural(u.cache_creation_input_tokens, "new token")
            ),
        );
    }
    if p.request.is_some() && p.request == x.request {
        let backwards = matches!((p.at, x.at), (Some(a), Some(b)) if b < a);
        return miss(
            "unexplained",
            format!(
                "the request is the same as the previous one of its chain, yet nothing was read: the provider dropped or never stored the prefix (evicted early, another server, or the previous answer had not finished){}",
                if backwards {
                    "; its timestamp is earlier than the previous request's"
                } else {
                    ""
                }
            ),
        );
    }
    miss(
        "unexplained",
        if x.request.is_some() {
            "the request extends the previous one and nothing in the recorded data explains the miss (no gap, no change in the prefix)".into()
        } else {
            "nothing in the recorded data explains it (a transcript has no bodies: no gap, no compaction)".into()
        },
    )
}

/// The first position where `b` differs from `a`, as a miss.
fn compare_requests(a: &Value, b: &Value, u: &Usage, model: &ModelInfo) -> Option<Miss> {
    let (na, nb) = (names(a), names(b));
    if na != nb {
        let added: Vec<&String> = nb.iter().filter(|n| !na.contains(n)).collect();
        let removed: Vec<&String> = na.iter().filter(|n| !nb.contains(n)).collect();
        if added.is_empty() && removed.is_empty() {
            return Some(miss(
                "tools",
                format!(
                    "the same tools in another order ({} → {}): tools come first, so nothing after them is read",
                    na.join(", "),
                    nb.join(", ")
                ),
            ));
        }
        return Some(miss(
            "tools",
            format!(
                "the tool set changed (added: {}; removed: {}): tools come first, so nothing after them is read",
                if added.is_empty() {
                    "none".into()
                } else {
                    join(&added)
                },
                if removed.is_empty() {
                    "none".into()
                } else {
                    join(&removed)
                }
            ),
        ));
    }
    let (pa, pb) = (positions(a), positions(b));
    let first = pa
        .iter()
        .zip(&pb)
        .position(|(x, y)| x.1 != y.1)
        .or_else(|| (pb.len() < pa.len()).then_some(pb.len()));
    if let Some(i) = first {
        let (label, before) = (&pa[i].0, &pa[i].1);
        let after = pb.get(i).map_or("", |p| p.1.as_str());
        let off = crate::engine::cache::shape::first_difference(before, after);
        let chars = before[..off.min(before.len())].chars().count();
        // Some of what both share, so the change reads in its place.
        let lead = crate::engine::compare::diff::lead(before, off);
        return Some(miss(
            "prefix",
            format!(
                "{label} differs from the previous request at character {chars}: “{lead}{}” → “{lead}{}”; everything from there on is {}",
                crate::engine::compare::diff::excerpt(before, off, 24),
                crate::engine::compare::diff::excerpt(after, off, 24),
                if model.provider == crate::engine::Provider::Anthropic {
                    "written again"
                } else {
                    "not read from the cache"
                }
            ),
        ));
    }
    // Same prefix: a breakpoint too far from the cached one, or a prefix
    // under the minimum.
    let bps: Vec<usize> = pb
        .iter()
        .enumerate()
        .filter(|(_, p)| p.2)
        .map(|(i, _)| i)
        .collect();
    let prev_bps: Vec<usize> = pa
        .iter()
        .enumerate()
        .filter(|(_, p)| p.2)
        .map(|(i, _)| i)
        .collect();
    if u.cache_read_input_tokens == 0 {
        if let (Some(&last), Some(&prev_last)) = (bps.last(), prev_bps.last())
            && last >= prev_last + 20
        {
            return Some(miss(
                "lookback",
                format!(
                    "the breakpoint moved {} positions past the cached one: beyond the 20-block lookback, so it was not found",
                    last - prev_last
                ),
            ));
        }
        let total = u.input_tokens + u.cache_creation_input_tokens;
        if total < model.min_cacheable_tokens {
            return Some(miss(
                "minimum",
                format!(
                    "the prefix ({total} tokens) is under {}'s {}-token minimum: silently not cached",
                    model.id, model.min_cacheable_tokens
                ),
            ));
        }
    }
    None
}

/// `the main chain`, `chain 2`, `sidechain ae77`: a chain named in a sentence.
fn chain_phrase(chain: &str) -> String {
    if chain == "main" {
        "the main chain".into()
    } else {
        chain.to_string()
    }
}

fn join(v: &[&String]) -> String {
    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

fn totals(rows: &[Row], exchanges: &[Exchange], table: &ModelTable) -> Totals {
    let mut t = Totals {
        requests: rows.len(),
        ..Totals::default()
    };
    let mut by_kind: Vec<KindCost> = Vec::new();
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
            if !t.unpriced_models.contains(&r.model) {
                t.unpriced_models.push(r.model.clone());
            }
            continue;
        }
        let m = table.resolve(Some(&x.model));
        let per = |n: u64, p: f64| n as f64 * p / 1e6;
        let w = u.cache_creation_input_tokens;
        let w1h = u.ephemeral_1h_input_tokens.min(w);
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
            .is_some_and(|miss| miss.kind == "ttl" && miss.detail.contains("5m TTL"));
        if m.provider == crate::engine::Provider::Anthropic {
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
            let extra = if m.provider == crate::engine::Provider::Anthropic {
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
                    kind: miss.kind.clone(),
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

/// A captured conversation as a session (turns, tool uses, gaps), so that
/// prediction, test runs and diff apply to real traffic. Built from the
/// main chain: its last request's messages are the conversation, and the
/// time between the requests that start a turn gives the gaps.
pub fn to_session(exchanges: &[Exchange], name: &str, wanted: &str) -> Result<Value, String> {
    let main: Vec<(usize, &Exchange)> = exchanges
        .iter()
        .enumerate()
        .filter(|(_, x)| x.chain == wanted && x.request.is_some())
        .collect();
    if main.is_empty() {
        let mut chains: Vec<&str> = Vec::new();
        for x in exchanges.iter().filter(|x| x.request.is_some()) {
            if !chains.contains(&x.chain.as_str()) {
                chains.push(&x.chain);
            }
        }
        return Err(if chains.is_empty() {
            "no request bodies: only a capture can become a session".into()
        } else {
            format!(
                "no requests in chain '{wanted}' (the capture has: {})",
                chains.join(", ")
            )
        });
    }
    // The main chain may hold several conversations with the same system
    // prompt: one starts where a request's first message is not the
    // previous one's. The longest (the latest of equals) is adopted.
    // The first message as its role and text (moving `cache_control`, or
    // a string becoming a block, changes no conversation).
    let first_message = |x: &Exchange| {
        x.request.as_ref().map(|r| {
            let m = &r["messages"][0];
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .map(|p| {
                        p["text"]
                            .as_str()
                            .map_or_else(|| p.to_string(), str::to_string)
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => other.to_string(),
            };
            (m["role"].clone(), text)
        })
    };
    let mut conversations: Vec<Vec<(usize, &Exchange)>> = Vec::new();
    for &(i, x) in &main {
        match conversations.last_mut() {
            Some(c)
                if c.last()
                    .is_some_and(|(_, p)| first_message(p) == first_message(x)) =>
            {
                c.push((i, x))
            }
            _ => conversations.push(vec![(i, x)]),
        }
    }
    let picked = conversations
        .iter()
        .enumerate()
        .max_by_key(|(k, c)| (c.len(), *k))
        .map(|(_, c)| c.clone())
        .unwrap_or_default();
    let span = match (picked.first(), picked.last()) {
        (Some((a, _)), Some((b, _))) if a == b => format!("request #{}", a + 1),
        (Some((a, _)), Some((b, _))) if b - a + 1 == picked.len() => {
            format!("requests #{}–#{}", a + 1, b + 1)
        }
        (Some((a, _)), Some((b, _))) => format!(
            "{}, #{} to #{}",
            crate::engine::plural(picked.len() as u64, "request"),
            a + 1,
            b + 1
        ),
        _ => String::new(),
    };
    let others = conversations.len().saturating_sub(1);
    let chain: Vec<&Exchange> = picked.iter().map(|(_, x)| *x).collect();
    let last = chain
        .last()
        .and_then(|x| x.request.as_ref())
        .ok_or("no request bodies in the main chain: only a capture can become a session")?;
    let text_of = |c: &Value| -> Option<String> {
        match c {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => {
                let t: Vec<&str> = parts
                    .iter()
                    .filter(|p| p["type"] == "text")
                    .filter_map(|p| p["text"].as_str())
                    .collect();
                (!t.is_empty()).then(|| t.join("\n"))
            }
            _ => None,
        }
    };
    // The requests that start a turn (their last message is a user's text).
    let starts: Vec<Option<f64>> = chain
        .iter()
        .filter(|x| {
            let m = x
                .request
                .as_ref()
                .and_then(|r| r["messages"].as_array().and_then(|a| a.last().cloned()));
            m.is_some_and(|m| m["role"] == "user" && text_of(&m["content"]).is_some())
        })
        .map(|x| x.at)
        .collect();
    let mut turns: Vec<Value> = Vec::new();
    let mut pending: Vec<Value> = Vec::new();
    for m in last["messages"].as_array().into_iter().flatten() {
        let content = &m["content"];
        if m["role"] == "user" {
            // Tool results answer the previous turn's tool uses.
            for part in content
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["type"] == "tool_result")
            {
                if let Some(u) = pending.iter_mut().find(|u| u["id"] == part["tool_use_id"]) {
                    u["result"] = Value::String(
                        text_of(&part["content"]).unwrap_or_else(|| part["content"].to_string()),
                    );
                }
            }
            if let Some(t) = text_of(content) {
                if let Some(prev) = turns.last_mut()
                    && !pending.is_empty()
                {
                    prev["tool_uses"] = Value::Array(std::mem::take(&mut pending));
                }
                let mut turn = serde_json::json!({"user": t});
                let k = turns.len();
                if k > 0
                    && let (Some(Some(a)), Some(Some(b))) = (starts.get(k - 1), starts.get(k))
                    && b - a >= 60.0
                {
                    turn["gap"] = Value::String(format!("{}s", (b - a).round() as u64));
                }
                turns.push(turn);
            }
        } else {
            if let Some(t) = text_of(content)
                && let Some(prev) = turns.last_mut()
            {
                prev["assistant"] = Value::String(t);
            }
            for part in content
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["type"] == "tool_use")
            {
                pending.push(serde_json::json!({"id": part["id"], "name": part["name"], "input": part["input"], "result": ""}));
            }
        }
    }
    if let Some(prev) = turns.last_mut()
        && !pending.is_empty()
    {
        prev["tool_uses"] = Value::Array(pending);
    }
    if turns.is_empty() {
        return Err(format!(
            "no user turns in the main chain's conversation ({span}): only chat messages (Anthropic Messages, OpenAI Chat Completions) can become a session"
        ));
    }
    let tools: Vec<Value> = last["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("name").cloned())
        .collect();
    Ok(serde_json::json!({
        "name": name,
        "description": format!(
            "adopted from real traffic ({span}{})",
            if others > 0 {
                format!(
                    ", the longest of {} conversations in {}",
                    others + 1,
                    chain_phrase(wanted)
                )
            } else {
                String::new()
            }
        ),
        "model": last["model"],
        "tools": tools,
        "turns": turns,
    }))
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
        let c = crate::engine::TokenCounter::new();
        let table = ModelTable::load().unwrap();
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
            c.count(crate::engine::Encoding::O200kBase, "You are Kestrel.")
        );
        assert!(p.counted_by.contains("an estimate"), "{}", p.counted_by);
    }

    #[test]
    fn parts_counted_by_the_server_sum_to_what_it_reported() {
        let req = serde_json::json!({
            "system": "You are Kestrel.",
            "messages": [{"role": "user", "content": "hi"}]
        });
        let c = crate::engine::TokenCounter::new();
        let table = ModelTable::load().unwrap();
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
