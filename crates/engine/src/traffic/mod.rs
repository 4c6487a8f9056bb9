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
mod analyser;
pub mod attribution;
mod attribution_files;
#[cfg(test)]
mod attribution_tests;
pub mod attribution_text;
mod capture;
mod codex;
pub mod curl;
mod explain;
pub use explain::ProviderMiss;
mod gemini_session;
mod history;
pub mod html;
pub mod learn;
mod learn_parts;
mod lines;
pub mod opencode_session;
pub use opencode_session::{opencode_exchanges, read_opencode};
mod parse;
mod pi_session;
pub mod profile_check;
pub mod profile_check_text;
pub mod release;
mod report;
mod request;
mod request_diff;
pub mod rows;
pub mod timeline;
mod totals;
pub use totals::{KindCost, Totals};

use serde::Serialize;
use std::ops::ControlFlow;

use crate::assembly::models::{ModelInfo, ModelTable};
use crate::usage::Usage;

use crate::usage::MAX_TOKENS;
use request::parts;

pub use adopt::to_session;
pub use analyser::Analyser;
pub use capture::{CaptureLine, Headers, MAX_HEADERS, MAX_RESPONSE_BYTES, Wire};
pub use lines::{
    Bodies, MAX_LINES, MAX_STREAMED_BYTES, Progress, Skipped, estimate_values, read_file,
    read_file_for, read_file_lazy, read_file_lazy_with,
};
pub use parse::{format_rfc3339, rfc3339};
pub use report::{notes, to_json_text, to_markdown, to_text, write_json};
pub use request::{Counted, Part, Parts, TEMPLATE, snapshot_at};
pub use request_diff::{NEAREST_SEARCHED, diff_across, diff_at, diff_between};

/// Where the exchanges come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    Capture,
    ClaudeCode,
    /// A Codex session file (`rollout-*.jsonl`).
    Codex,
    /// A Pi session file (`~/.pi/agent/sessions/…/*.jsonl`).
    Pi,
    /// A Gemini CLI session file (`~/.gemini/tmp/…/chats/session-*.jsonl`).
    Gemini,
    /// OpenCode's session database (`~/.local/share/opencode/opencode.db`).
    OpenCode,
    /// An OpenClaw trajectory export (`events.jsonl` of `openclaw export`).
    OpenClaw,
}

impl Source {
    /// The agent whose transcript it is, when it is one.
    pub fn agent(self) -> Option<crate::workspace::agent::Agent> {
        use crate::workspace::agent::Agent;
        match self {
            Source::Capture => None,
            Source::ClaudeCode => Some(Agent::ClaudeCode),
            Source::Codex => Some(Agent::Codex),
            Source::Pi => Some(Agent::Pi),
            Source::Gemini => Some(Agent::Gemini),
            Source::OpenCode => Some(Agent::OpenCode),
            Source::OpenClaw => Some(Agent::OpenClaw),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Source::Capture => "capture",
            Source::ClaudeCode
            | Source::Codex
            | Source::Pi
            | Source::Gemini
            | Source::OpenCode
            | Source::OpenClaw => self.agent().map_or("", |a| a.name()),
        }
    }

    /// [`Source::noun`] after its article: `an OpenCode session database`.
    pub fn a_noun(self) -> String {
        let n = self.noun();
        let an = n.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']);
        format!("{} {n}", if an { "an" } else { "a" })
    }

    /// What the file is, in words (every view names it so).
    pub fn noun(self) -> &'static str {
        match self {
            Source::Capture => "capture",
            Source::ClaudeCode => "Claude Code transcript",
            Source::Codex => "Codex session file",
            Source::Pi => "Pi session file",
            Source::Gemini => "Gemini CLI session file",
            Source::OpenCode => "OpenCode session database",
            Source::OpenClaw => "OpenClaw trajectory export",
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
    /// The request, when its body was recorded (captures), read into the
    /// typed model at the edge.
    pub request: Option<std::sync::Arc<crate::request::Request>>,
    /// Its parts as the server that answered counted them, when recorded.
    pub counted: Option<Counted>,
    pub usage: Option<Usage>,
    pub status: Option<u16>,
    pub error: Option<String>,
    /// Anthropic's cache diagnostics (`cache_miss_reason`), if present.
    pub miss_reason: Option<ProviderMiss>,
    /// A compaction happened just before this request (transcripts).
    pub after_compaction: bool,
    /// Its tools and system prompt, when a transcript records them but not
    /// the whole body (Claude Code 2.1's `api-request-shape` lines).
    pub shape: Option<std::sync::Arc<crate::request::Request>>,
    /// Advisor calls made within it, each with its model and usage.
    pub advisor: Vec<(String, Usage)>,
    /// What the agent itself says it cost (a transcript line's `costUSD`,
    /// or the growth of Claude Code's `cost-state` total since its last).
    pub agent_cost_usd: Option<f64>,
    /// Milliseconds from the request to the end of its answer (captures).
    pub latency_ms: Option<u64>,
    /// Where its request is in its capture, when it was left there to be
    /// read again ([`lines::Bodies::load`]).
    pub body: Option<lines::BodyAt>,
    /// The API it was sent to (`anthropic`, `openai`), when known: a
    /// capture's endpoint, a transcript's agent.
    pub api: Option<&'static str>,
    /// The agent and release that sent it, when its line says (a
    /// transcript's version, the client headers the proxy recorded); else
    /// read from the request itself when the row is made.
    pub release: Option<release::Release>,
    /// Its HTTP headers (a capture's; read with its body, never held for
    /// every request of a long capture).
    pub headers: Option<Box<Headers>>,
    /// The answer's body as recorded (read with the request's, likewise).
    pub response: Option<Box<str>>,
}

/// Why a request wrote or missed the cache.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Miss {
    pub kind: MissKind,
    pub detail: String,
    /// For an expiry: the TTL (seconds) of the prefix that expired.
    #[serde(skip)]
    pub expired_ttl: Option<u64>,
    /// For a changed prefix: the first position that differs
    /// (`system block 2`, `message 5 (user)`).
    #[serde(skip)]
    pub position: Option<String>,
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
    /// A first request that read another conversation's prefix.
    Shared,
    /// The same prompt sent under another `prompt_cache_key`.
    #[serde(rename = "cache-key")]
    CacheKey,
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
            MissKind::Shared => "shared",
            MissKind::CacheKey => "cache-key",
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
    /// Advisor calls within the request (their cost is in `cost_usd`).
    pub advisor_calls: usize,
    /// What the agent itself says it cost, when it says.
    pub agent_cost_usd: Option<f64>,
    /// Unix seconds when it was sent, and milliseconds to its answer's end.
    pub at: Option<f64>,
    pub latency_ms: Option<u64>,
    /// The API it was sent to (`anthropic`, `openai`), when known.
    #[serde(skip)]
    pub api: Option<&'static str>,
    /// The agent and release that sent it, when the request says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<release::Release>,
}

/// What a request cost at the table's prices, as every view writes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cost {
    Priced(f64),
    /// The answer reported no usage: nothing to price (not a free request).
    NoUsage,
    /// The model is not in the model table.
    NoPrice,
}

impl Row {
    /// The request's cost: a figure only when the model is priced and the
    /// answer said what it used.
    pub fn cost(&self) -> Cost {
        match (self.usage.is_some(), self.priced) {
            (false, _) => Cost::NoUsage,
            (true, false) => Cost::NoPrice,
            (true, true) => Cost::Priced(self.cost_usd),
        }
    }
}

impl Cost {
    /// The figure, when there is one.
    pub fn usd(self) -> Option<f64> {
        match self {
            Cost::Priced(c) => Some(c),
            _ => None,
        }
    }

    /// As a table cell: five decimals, "–" for no usage (as the token
    /// columns), `no_price` for an unpriced model.
    pub fn cell(self, no_price: &str) -> String {
        match self {
            Cost::Priced(c) => format!("{c:.5}"),
            Cost::NoUsage => "–".into(),
            Cost::NoPrice => no_price.into(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Traffic {
    pub source: Source,
    pub requests: Vec<Row>,
    pub totals: Totals,
    /// Lines of the file that were not read.
    pub skipped: Skipped,
    /// What the folder views assume of each agent's own parts (set by the
    /// caller from the profiles it loads, observations included; empty:
    /// the bundled recordings), said where a request's release differs.
    #[serde(skip)]
    pub assumed: Vec<release::Assumed>,
}

/// Whether a later request of the same chain follows each one (the last
/// of a chain is compared with nothing: its body can go at once).
fn followed_in_chain(exchanges: &[Exchange]) -> Vec<bool> {
    let mut followed = vec![false; exchanges.len()];
    let mut latest: std::collections::HashMap<&str, usize> = Default::default();
    for (i, x) in exchanges.iter().enumerate() {
        if let Some(j) = latest.insert(x.chain.as_str(), i) {
            followed[j] = true;
        }
    }
    followed
}

/// Explains every request of a capture or a Claude Code transcript, in
/// order, and counts each recorded request's parts: the [`Analyser`] fed
/// one request at a time, each request body dropped as soon as no later
/// request is compared with it (the next of its chain has been, or, for the
/// last of a chain, the next request of any chain).
fn analyze(
    source: Source,
    exchanges: Vec<Exchange>,
    bodies: &Bodies,
    table: &ModelTable,
    counter: &crate::TokenCounter,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Traffic, crate::error::Error> {
    let total = exchanges.len();
    let followed = followed_in_chain(&exchanges);
    let mut a = Analyser::default();
    let mut requests = Vec::with_capacity(exchanges.len());
    // The last of a chain is kept until the next request (of any chain)
    // has been compared with it: a new conversation's first request is.
    let mut done_with: Option<String> = None;
    let mut cancelled = false;
    let mut all = exchanges.into_iter().zip(followed).peekable();
    // Each request is read again and counted on every core, by threads
    // that last the analysis.
    let count = |x: &mut Exchange| {
        bodies.load(x);
        parts(x, counter, table)
    };
    lines::with_crew(&count, |crew| {
        // A window of a streamed capture's requests: read again and
        // counted on every core, then explained one by one in order. (Read
        // while the window before it is explained, it took longer: the
        // trees one thread builds and the other frees contend for the
        // allocator's locks.)
        let mut next_window = || {
            let (mut window, mut flags, mut bytes) = (Vec::new(), Vec::new(), 0);
            while let Some((x, f)) =
                all.next_if(|_| bytes < lines::BATCH_BYTES && window.len() < lines::BATCH_ITEMS)
            {
                bytes += x.body.map_or(0, |b| b.span.len as usize);
                window.push(x);
                flags.push(f);
            }
            (!window.is_empty()).then(|| (crew.start(window), flags))
        };
        'windows: while let Some((job, flags)) = next_window() {
            let window = crew.finish(job);
            for ((x, parts), followed) in window.into_iter().zip(flags) {
                explain_next(
                    &mut a,
                    &mut requests,
                    &mut done_with,
                    x,
                    parts,
                    followed,
                    table,
                );
                if requests.len() % 1000 == 0
                    && progress(Progress::Explaining {
                        done: requests.len(),
                        total,
                    })
                    .is_break()
                {
                    cancelled = true;
                    break 'windows;
                }
            }
        }
    });
    if cancelled {
        return Err(crate::error::Error::Cancelled);
    }
    Ok(Traffic {
        source,
        requests,
        totals: a.totals(),
        skipped: Skipped::default(),
        assumed: Vec::new(),
    })
}

/// Explains the next request and forgets what no later request is
/// compared with.
fn explain_next(
    a: &mut Analyser,
    requests: &mut Vec<Row>,
    done_with: &mut Option<String>,
    x: Exchange,
    parts: Parts,
    followed: bool,
    table: &ModelTable,
) {
    let last = (!followed).then(|| x.chain.clone());
    requests.push(a.push_counted(x, parts, table));
    if let Some(chain) = done_with.take() {
        a.forget_request(&chain);
    }
    *done_with = last;
}

/// A capture or a transcript read from disk (line by line, within
/// [`MAX_FILE_BYTES`] and [`MAX_VALUES`]) and analysed: what the `traffic`
/// command and the window's Traffic tab show. Errors name the file.
pub fn read(
    path: &std::path::Path,
    table: &ModelTable,
    counter: &crate::TokenCounter,
) -> Result<Traffic, crate::error::Error> {
    read_with(path, table, counter, &mut |_| ControlFlow::Continue(()))
}

/// [`read`], saying how far it has come: bytes read, then requests
/// explained. `progress` stops the read when it says `Break` (every 4 MiB
/// read, every 1,000 requests explained): [`Error::Cancelled`](crate::error::Error::Cancelled).
pub fn read_with(
    path: &std::path::Path,
    table: &ModelTable,
    counter: &crate::TokenCounter,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Traffic, crate::error::Error> {
    let (source, exchanges, skipped, bodies) = read_file_lazy_with(path, progress)?;
    let mut t = analyze(source, exchanges, &bodies, table, counter, progress)?;
    t.skipped = skipped;
    Ok(t)
}

/// USD of one request's usage at the model's prices (of the long-context
/// tier its prompt reaches, at the fast speed's rates when it was fast).
pub fn cost(m: &ModelInfo, u: &Usage) -> f64 {
    let m = &*m.priced_for(u.prompt(), u.fast);
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn exchange(req: Value) -> Exchange {
        Exchange {
            model: "claude-sonnet-4-5".into(),
            request: Some(std::sync::Arc::new(crate::request::Request::of_body(&req))),
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
        let got: Vec<(&str, u64)> = p
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
