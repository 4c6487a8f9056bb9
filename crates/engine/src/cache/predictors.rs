//! Cache prediction over a session's requests, per provider, following each
//! provider's documented behaviour, with a reason for every miss.
//!
//! - Anthropic: explicit `cache_control` breakpoints (at most 4); a hit needs
//!   an identical prefix up to a position written earlier within its TTL
//!   (5 min or 1 h, refreshed on every hit); each breakpoint looks back at
//!   most 20 positions, itself included; a prefix under the model's minimum is
//!   silently not cached; writes cost 1.25× (5 min) or 2× (1 h), reads 0.1×.
//! - OpenAI: automatic from 1024 tokens, in 128-token steps of the common
//!   prefix with a recent request.
//! - Prefix (llama.cpp-style): the longest common token prefix with the
//!   previous request on the slot, no minimum, at least one token re-evaluated.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::assembly::models::{ModelInfo, Provider};
use crate::assembly::tokens::TokenCounter;
use crate::cache::shape::{RequestShape, SegKind, describe_change};
use crate::usage::Input;
use crate::workspace::settings::Ttl;

/// Documented limits.
pub const MAX_BREAKPOINTS: usize = 4;
pub const LOOKBACK: usize = 20;
pub const OPENAI_MIN: usize = 1024;
pub const OPENAI_STEP: usize = 128;
/// OpenAI keeps prefixes for 5–10 minutes of inactivity; the lower bound.
pub const OPENAI_IDLE_SECS: u64 = 300;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Predicted {
    pub turn: usize,
    pub index: usize,
    pub at_secs: u64,
    pub gap_secs: u64,
    pub total_tokens: u64,
    #[serde(flatten)]
    pub usage: Input,
    /// Of the creation tokens, those written with a 1-hour TTL.
    pub creation_1h_tokens: u64,
    pub cost_usd: f64,
    /// The request would be rejected (e.g. too many breakpoints).
    pub error: Option<String>,
    pub notes: Vec<String>,
}

fn usd(tokens: u64, per_mtok: f64) -> f64 {
    tokens as f64 * per_mtok / 1_000_000.0
}

/// Cost of a usage under a model's prices (`creation_1h` of the creation
/// tokens at the 1-hour rate).
pub fn cost(m: &ModelInfo, u: &Input, creation_1h: u64) -> f64 {
    let prompt = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens;
    let m = &*m.priced_for(prompt, false);
    match m.provider {
        Provider::Anthropic => {
            usd(u.input_tokens, m.input_per_mtok)
                + usd(
                    u.cache_creation_input_tokens - creation_1h,
                    m.write_5m_price(),
                )
                + usd(creation_1h, m.write_1h_price())
                + usd(u.cache_read_input_tokens, m.read_price())
        }
        _ => usd(u.input_tokens, m.input_per_mtok) + usd(u.cache_read_input_tokens, m.read_price()),
    }
}

fn fmt_secs(s: u64) -> String {
    crate::text::duration(s)
}

struct Entry {
    key: u128,
    position: usize,
    tokens: u64,
    ttl: Ttl,
    expires: u64,
    last_used: u64,
}

fn prefix_hashes(r: &RequestShape) -> Vec<u128> {
    let mut h = 0u128;
    r.segments
        .iter()
        .map(|s| {
            let tag = match &s.kind {
                SegKind::Tool { .. } => "t",
                SegKind::System { .. } => "s",
                SegKind::Message { .. } => "m",
            };
            let mut bytes = h.to_le_bytes().to_vec();
            bytes.extend_from_slice(tag.as_bytes());
            bytes.extend_from_slice(s.text.as_bytes());
            h = xxhash_rust::xxh3::xxh3_128(&bytes);
            h
        })
        .collect()
}

/// Anthropic's documented caching rules, request by request.
pub fn anthropic(model: &ModelInfo, reqs: &[RequestShape]) -> Vec<Predicted> {
    let mut cache: BTreeMap<u128, Entry> = BTreeMap::new();
    let mut out = Vec::new();
    for (ri, r) in reqs.iter().enumerate() {
        let prev = ri.checked_sub(1).map(|i| &reqs[i]);
        out.push(anthropic_request(model, &mut cache, prev, r));
    }
    out
}

/// One request against the cache as it stands; updates the cache.
fn anthropic_request(
    model: &ModelInfo,
    cache: &mut BTreeMap<u128, Entry>,
    prev: Option<&RequestShape>,
    r: &RequestShape,
) -> Predicted {
    let t = r.at_secs;
    let hashes = prefix_hashes(r);
    let pt: Vec<u64> = r
        .segments
        .iter()
        .scan(0u64, |acc, s| {
            *acc += s.tokens;
            Some(*acc)
        })
        .collect();
    let total = pt.last().copied().unwrap_or(0);
    let bps: Vec<usize> = (0..r.segments.len())
        .filter(|&i| r.segments[i].breakpoint.is_some())
        .collect();
    let mut p = Predicted {
        turn: r.turn,
        index: r.index,
        at_secs: t,
        gap_secs: r.gap_secs,
        total_tokens: total,
        usage: Input::default(),
        creation_1h_tokens: 0,
        cost_usd: 0.0,
        error: None,
        notes: r.history_notes.clone(),
    };
    if let Some(e) = breakpoint_error(r, &bps) {
        p.error = Some(e);
        return p;
    }
    let hit = longest_hit(cache, &hashes, &bps, t);
    let read = hit.map(|h| pt[h]).unwrap_or(0);
    if let Some(h) = hit
        && let Some(e) = cache.get_mut(&hashes[h])
    {
        e.expires = t + e.ttl.seconds();
        e.last_used = t;
        p.notes.push(format!(
            "read {} tokens, the cached prefix through {} (entry refreshed for {})",
            crate::text::thousands(read),
            r.segments[h].label(),
            e.ttl.as_str()
        ));
    }
    let shape = Written {
        model,
        r,
        prev,
        hashes: &hashes,
        pt: &pt,
        bps: &bps,
        hit,
    };
    let (covered, creation, creation_1h) = shape.write(cache, read, &mut p.notes);
    shape.lookback_notes(cache, &mut p.notes);
    if bps.is_empty() {
        p.notes
            .push("no cache_control breakpoint: nothing is cached".into());
    }
    p.usage = Input {
        input_tokens: total - covered.max(read),
        cache_creation_input_tokens: creation,
        cache_read_input_tokens: read,
    };
    p.creation_1h_tokens = creation_1h;
    p.cost_usd = cost(model, &p.usage, creation_1h);
    p
}

/// The API's 400 for too many breakpoints or TTLs out of order.
fn breakpoint_error(r: &RequestShape, bps: &[usize]) -> Option<String> {
    if bps.len() > MAX_BREAKPOINTS {
        return Some(format!(
            "400 invalid_request_error: {} cache_control breakpoints, the API allows at most {MAX_BREAKPOINTS}",
            bps.len()
        ));
    }
    let ttls: Vec<Ttl> = bps
        .iter()
        .filter_map(|&b| r.segments[b].breakpoint)
        .collect();
    ttls.windows(2)
        .any(|w| w[0] == Ttl::FiveMinutes && w[1] == Ttl::OneHour)
        .then(|| "400 invalid_request_error: a 1h cache_control breakpoint follows a 5m one (longer TTLs must come first)".into())
}

/// The longest valid cached prefix within each breakpoint's lookback.
fn longest_hit(
    cache: &BTreeMap<u128, Entry>,
    hashes: &[u128],
    bps: &[usize],
    t: u64,
) -> Option<usize> {
    let mut hit: Option<usize> = None;
    for &b in bps {
        for pos in (b.saturating_sub(LOOKBACK - 1)..=b).rev() {
            if let Some(e) = cache.get(&hashes[pos])
                && e.expires >= t
            {
                if hit.is_none_or(|h| pos > h) {
                    hit = Some(pos);
                }
                break;
            }
        }
    }
    hit
}

/// What a request writes, beyond what it read.
struct Written<'a> {
    model: &'a ModelInfo,
    r: &'a RequestShape,
    prev: Option<&'a RequestShape>,
    hashes: &'a [u128],
    pt: &'a [u64],
    bps: &'a [usize],
    hit: Option<usize>,
}

impl Written<'_> {
    /// Writes every breakpoint past the hit (at or over the minimum), with
    /// the reason it was not read. Returns (covered, written, written 1h).
    fn write(
        &self,
        cache: &mut BTreeMap<u128, Entry>,
        read: u64,
        notes: &mut Vec<String>,
    ) -> (u64, u64, u64) {
        let (r, t, min) = (self.r, self.r.at_secs, self.model.min_cacheable_tokens);
        let change = self.prev.and_then(|pr| describe_change(pr, r));
        let mut explained_change = false;
        let (mut covered, mut creation, mut creation_1h) = (read, 0u64, 0u64);
        for &b in self.bps {
            if self.hit.is_some_and(|h| b <= h) {
                continue;
            }
            let ttl = r.segments[b].breakpoint.unwrap_or_default();
            let label = r.segments[b].label();
            if self.pt[b] < min {
                notes.push(format!(
                    "breakpoint on {label} covers {} tokens, under the {min}-token minimum of {}: silently not cached",
                    self.pt[b], self.model.id
                ));
                continue;
            }
            let why = match cache.get(&self.hashes[b]) {
                Some(e) if e.expires < t => format!(
                    "the entry up to {label} expired: last used {} before this request, longer than its {} TTL",
                    fmt_secs(t - e.last_used),
                    e.ttl.as_str()
                ),
                _ => match (&change, self.prev) {
                    (Some((d, msg)), _) if *d <= b && !explained_change => {
                        explained_change = true;
                        msg.clone()
                    }
                    (Some((d, _)), _) if *d <= b => "its prefix changed (see above)".into(),
                    (_, None) => "cold cache: nothing written yet".into(),
                    _ => "new content after the previously cached prefix (the conversation grew)"
                        .into(),
                },
            };
            let add = self.pt[b].saturating_sub(covered);
            creation += add;
            if ttl == Ttl::OneHour {
                creation_1h += add;
            }
            // This breakpoint's own share: from where the prefix already
            // cached (or written at an earlier breakpoint) ends, through it.
            let span = if covered == 0 {
                format!("the prefix through {label}")
            } else {
                format!(
                    "after the first {}, through {label}",
                    crate::text::thousands(covered)
                )
            };
            covered = covered.max(self.pt[b]);
            notes.push(format!(
                "wrote {} tokens, {span}, cached for {}: {why}",
                crate::text::thousands(add),
                ttl.as_str()
            ));
            cache.insert(
                self.hashes[b],
                Entry {
                    key: self.hashes[b],
                    position: b,
                    tokens: self.pt[b],
                    ttl,
                    expires: t + ttl.seconds(),
                    last_used: t,
                },
            );
        }
        (covered, creation, creation_1h)
    }

    /// A valid entry that matches this request but lies beyond every lookback.
    fn lookback_notes(&self, cache: &BTreeMap<u128, Entry>, notes: &mut Vec<String>) {
        let (t, n) = (self.r.at_secs, self.r.segments.len());
        for e in cache.values() {
            if e.expires >= t
                && e.position < n
                && self.hashes[e.position] == e.key
                && self.hit.is_none_or(|h| e.position > h)
                && self
                    .bps
                    .iter()
                    .all(|&b| b < e.position || b - e.position >= LOOKBACK)
                && self.bps.iter().any(|&b| b > e.position)
            {
                notes.push(format!(
                    "a cached prefix of {} tokens (up to {}) is more than {LOOKBACK} positions before the next breakpoint: beyond the lookback, not read",
                    crate::text::thousands(e.tokens),
                    self.r.segments[e.position].label()
                ));
            }
        }
    }
}

/// Token ids of a whole request (segments encoded one by one, in order).
pub fn request_tokens(
    r: &RequestShape,
    enc: crate::assembly::tokens::Encoding,
    counter: &TokenCounter,
) -> Vec<u32> {
    let mut ids = Vec::new();
    for s in &r.segments {
        ids.extend_from_slice(&counter.encode(enc, &s.text));
    }
    ids
}

fn common_prefix(a: &[u32], b: &[u32]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// OpenAI's automatic caching: 1024 tokens minimum, 128-token steps.
pub fn openai_cached(common: usize, total: usize) -> usize {
    if common < OPENAI_MIN || total < OPENAI_MIN {
        0
    } else {
        (OPENAI_MIN + (common - OPENAI_MIN) / OPENAI_STEP * OPENAI_STEP).min(total)
    }
}

pub fn openai(model: &ModelInfo, reqs: &[RequestShape], tokens: &[Vec<u32>]) -> Vec<Predicted> {
    let mut seen: Vec<(usize, u64)> = Vec::new(); // (request index, last used)
    let mut out = Vec::new();
    for (ri, r) in reqs.iter().enumerate() {
        let ids = &tokens[ri];
        let t = r.at_secs;
        let mut best = 0usize;
        let mut best_at = None;
        for (j, last) in &seen {
            if t.saturating_sub(*last) <= OPENAI_IDLE_SECS {
                let c = common_prefix(&tokens[*j], ids);
                if c > best {
                    best = c;
                    best_at = Some(*j);
                }
            }
        }
        let cached = openai_cached(best, ids.len());
        let mut notes = r.history_notes.clone();
        if ids.len() < OPENAI_MIN {
            notes.push(format!(
                "prompt of {} tokens is under OpenAI's {OPENAI_MIN}-token minimum: not cached",
                ids.len()
            ));
        } else if let Some(j) = best_at {
            notes.push(format!(
                "common prefix with request {} is {} tokens: {} cached (1024 + 128-token steps)",
                j + 1,
                crate::text::thousands(best),
                crate::text::thousands(cached)
            ));
            if best < OPENAI_MIN {
                notes.push(format!("the common prefix is under {OPENAI_MIN} tokens"));
            }
        } else if ri > 0 {
            let idle = seen.iter().map(|(_, l)| t - l).min().unwrap_or(0);
            notes.push(format!("no recent request to reuse: {} since the last one (prefixes live 5–10 minutes idle)", fmt_secs(idle)));
        } else {
            notes.push("cold cache: first request".into());
        }
        if let Some((_, msg)) = ri.checked_sub(1).and_then(|i| describe_change(&reqs[i], r)) {
            notes.push(format!("changed since the previous request: {msg}"));
        }
        if let Some(j) = best_at
            && let Some(e) = seen.iter_mut().find(|(k, _)| *k == j)
        {
            e.1 = t;
        }
        seen.push((ri, t));
        out.push(read_only(model, r, ids.len(), cached, notes));
    }
    out
}

/// A request of a cache that writes nothing (OpenAI's, Gemini's, a prefix
/// server's): `cached` of its `total` tokens read, the rest paid in full.
fn read_only(
    model: &ModelInfo,
    r: &RequestShape,
    total: usize,
    cached: usize,
    notes: Vec<String>,
) -> Predicted {
    let usage = Input {
        input_tokens: (total - cached) as u64,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: cached as u64,
    };
    Predicted {
        turn: r.turn,
        index: r.index,
        at_secs: r.at_secs,
        gap_secs: r.gap_secs,
        total_tokens: total as u64,
        cost_usd: cost(model, &usage, 0),
        usage,
        creation_1h_tokens: 0,
        error: None,
        notes,
    }
}

/// Gemini's implicit caching: the longest prefix shared with a request of
/// the last five minutes is read, when it reaches the model's minimum (the
/// table's `min_cacheable_tokens`: 2,048 for 2.5, 4,096 for later
/// families); nothing is marked and no write is billed. Google promises no
/// hit: this is the most it can read.
pub fn gemini(model: &ModelInfo, reqs: &[RequestShape], tokens: &[Vec<u32>]) -> Vec<Predicted> {
    let least = model.min_cacheable_tokens as usize;
    let mut seen: Vec<(usize, u64)> = Vec::new();
    let mut out = Vec::new();
    for (ri, r) in reqs.iter().enumerate() {
        let ids = &tokens[ri];
        let t = r.at_secs;
        let (best, best_at) = seen
            .iter()
            .filter(|(_, last)| t.saturating_sub(*last) <= OPENAI_IDLE_SECS)
            .map(|(j, _)| (common_prefix(&tokens[*j], ids), Some(*j)))
            .max_by_key(|(c, _)| *c)
            .unwrap_or((0, None));
        let cached = if best >= least {
            best.min(ids.len())
        } else {
            0
        };
        let mut notes = r.history_notes.clone();
        if ids.len() < least {
            notes.push(format!(
                "prompt of {} tokens is under {}'s {least}-token minimum for implicit caching: not cached",
                ids.len(),
                model.id
            ));
        } else if let Some(j) = best_at {
            notes.push(format!(
                "common prefix with request {} is {} tokens: {} read at most (implicit caching, no hit promised)",
                j + 1,
                crate::text::thousands(best),
                crate::text::thousands(cached)
            ));
        } else {
            notes.push("cold cache: first request".into());
        }
        if let Some((_, msg)) = ri.checked_sub(1).and_then(|i| describe_change(&reqs[i], r)) {
            notes.push(format!("changed since the previous request: {msg}"));
        }
        seen.push((ri, t));
        out.push(read_only(model, r, ids.len(), cached, notes));
    }
    out
}

/// The prefix cache of a llama.cpp-style server with one slot: cached tokens
/// of each request given the token ids the server sees.
pub fn prefix_cached(seqs: &[Vec<u32>]) -> Vec<usize> {
    let mut out = Vec::with_capacity(seqs.len());
    for (i, s) in seqs.iter().enumerate() {
        let c = if i == 0 {
            0
        } else {
            common_prefix(&seqs[i - 1], s)
        };
        // At least one token is always evaluated.
        out.push(c.min(s.len().saturating_sub(1)));
    }
    out
}

pub fn prefix(model: &ModelInfo, reqs: &[RequestShape], tokens: &[Vec<u32>]) -> Vec<Predicted> {
    let cached = prefix_cached(tokens);
    reqs.iter()
        .enumerate()
        .map(|(i, r)| {
            let total = tokens[i].len();
            let mut notes = r.history_notes.clone();
            if i == 0 {
                notes.push("cold slot: every token is evaluated".into());
            } else {
                notes.push(format!(
                    "{} tokens in common with the previous request on the slot",
                    cached[i]
                ));
                if let Some((_, msg)) = describe_change(&reqs[i - 1], r) {
                    notes.push(format!("prefix breaks where {msg}"));
                }
            }
            read_only(model, r, total, cached[i], notes)
        })
        .collect()
}

/// Runs the predictor of `provider` on request shapes.
pub fn run(
    provider: Provider,
    model: &ModelInfo,
    reqs: &[RequestShape],
    counter: &TokenCounter,
) -> Vec<Predicted> {
    match provider {
        Provider::Anthropic => anthropic(model, reqs),
        Provider::Openai | Provider::Prefix | Provider::Gemini => {
            let tokens: Vec<Vec<u32>> = reqs
                .iter()
                .map(|r| request_tokens(r, model.tokenizer, counter))
                .collect();
            match provider {
                Provider::Openai => openai(model, reqs, &tokens),
                Provider::Gemini => gemini(model, reqs, &tokens),
                _ => prefix(model, reqs, &tokens),
            }
        }
    }
}
