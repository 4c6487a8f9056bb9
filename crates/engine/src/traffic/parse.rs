//! Reading captures (the proxy's JSON lines) and Claude Code transcripts
//! (`~/.claude/projects/<project>/<session>.jsonl`), bounded: a line that
//! is not JSON is skipped, never fatal.

use std::collections::HashMap;

use serde_json::Value;

use super::{CaptureLine, Counted, Exchange};
use crate::clean;
use crate::usage::Usage;

/// Longest recorded error shown.
const MAX_ERROR_CHARS: usize = 2_000;

/// RFC 3339 (`2026-11-30T09:41:05.120Z`, `…+01:00`) to Unix seconds.
pub fn rfc3339(s: &str) -> Option<f64> {
    let s = s.trim();
    let (date, rest) = s.split_once(['T', ' '])?;
    let mut d = date.split('-');
    let (y, mo, da): (i64, i64, i64) = (
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
        d.next()?.parse().ok()?,
    );
    if !(0..=9999).contains(&y) || !(1..=12).contains(&mo) || !(1..=31).contains(&da) {
        return None;
    }
    let (time, offset) = match rest.find(['Z', 'z', '+', '-']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "Z"),
    };
    let mut t = time.split(':');
    let h: f64 = t.next()?.parse().ok()?;
    let mi: f64 = t.next()?.parse().ok()?;
    let se: f64 = t.next().unwrap_or("0").parse().ok()?;
    if !(0.0..24.0).contains(&h) || !(0.0..60.0).contains(&mi) || !(0.0..61.0).contains(&se) {
        return None;
    }
    let off = match offset.as_bytes().first() {
        Some(b'+') | Some(b'-') => {
            let sign = if offset.starts_with('-') { -1.0 } else { 1.0 };
            let (oh, om) = offset[1..].split_once(':').unwrap_or((&offset[1..], "0"));
            let (oh, om) = (oh.parse::<f64>().ok()?, om.parse::<f64>().ok()?);
            if !(0.0..=24.0).contains(&oh) || !(0.0..60.0).contains(&om) {
                return None;
            }
            sign * (oh * 3600.0 + om * 60.0)
        }
        _ => 0.0,
    };
    let days = crate::text::days_from_civil(y, mo, da);
    Some(days as f64 * 86400.0 + h * 3600.0 + mi * 60.0 + se - off)
}

/// Unix seconds as RFC 3339 UTC with milliseconds.
pub fn format_rfc3339(unix: f64) -> String {
    let ms = (unix * 1000.0).round() as i64;
    let (secs, ms) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let days = secs.div_euclid(86400);
    let tod = secs.rem_euclid(86400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
        tod / 3600,
        tod % 3600 / 60,
        tod % 60
    )
}

/// The values (object keys included) of a parsed tree: what holding it
/// costs.
pub(super) fn values_of(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(values_of).sum(),
        Value::Object(o) => o.values().map(|v| 1 + values_of(v)).sum(),
        _ => 0,
    }
}

/// A capture line as kept: its exchange (the request moved out of the
/// line), when it was sent and its chain's key.
pub(super) struct Sent {
    /// The capture line's `id` (the proxy's, one per exchange).
    pub(super) id: String,
    /// `ts_start` as read, to put the requests in the order they were sent.
    at: Option<f64>,
    /// The hash of the start of its system prompt.
    pub(super) key: u64,
    /// Each message's hash, breakpoints aside ([`super::history`]):
    /// whether a request carries on another's conversation is told on
    /// these, the bodies being left in the file.
    history: Vec<u64>,
    /// Keyed on its `prompt_cache_key`, not on its prompt.
    named: bool,
    /// The values of its body's tree as read (what holding it costs).
    pub(super) values: usize,
    /// A usage figure that is not a count (`"output_tokens": -5`).
    pub(super) unreadable_usage: Option<String>,
    pub(super) x: Exchange,
}

/// A capture line's exchange, or None for a line without a request or a
/// token count (`count_tokens` is not a generation: no cache). Its body is
/// read into the typed request here, the edge; with `lazy` it is left out
/// (read again from the file when analysed).
pub(super) fn sent(l: CaptureLine, lazy: bool) -> Option<Sent> {
    if l.is_count() {
        return None;
    }
    let api = l.api();
    // An exchange without a body (a GET: Codex's WebSocket attempt on
    // /v1/responses) is no generation to explain.
    let req = l.request.as_ref().filter(|r| !r.is_null())?;
    let time = clean(&l.ts_start, 40);
    let typed = (!lazy).then(|| {
        std::sync::Arc::new(crate::request::Request::of_recorded(
            crate::request::Api::of_path(&l.endpoint),
            req,
        ))
    });
    Some(Sent {
        id: clean(&l.id, 120),
        values: if lazy { 0 } else { values_of(req) },
        unreadable_usage: Usage::unreadable_figure(&l.usage),
        at: rfc3339(&l.ts_start),
        key: chain_key(req),
        history: super::history::of_request(req),
        named: req.get("prompt_cache_key").is_some(),
        x: Exchange {
            at: rfc3339(&time),
            time,
            chain: String::new(),
            model: clean(
                l.model.as_str().or(req["model"].as_str()).unwrap_or("?"),
                200,
            ),
            counted: l.counted.as_ref().and_then(Counted::from_json),
            usage: Usage::parse(&l.usage),
            status: l.status,
            error: l.error.map(|e| clean(&e, MAX_ERROR_CHARS)),
            miss_reason: super::ProviderMiss::of(
                l.diagnostics
                    .as_ref()
                    .and_then(|d| d.get("cache_miss_reason")),
            ),
            after_compaction: false,
            shape: None,
            advisor: crate::usage::advisor_calls(&l.usage),
            agent_cost_usd: None,
            latency_ms: Some(l.latency_ms),
            request: typed,
            body: None,
            api,
            release: l.client.as_ref().and_then(super::release::of_client),
            // Read again with the body when it is left in the file.
            headers: if lazy { None } else { l.headers.map(Box::new) },
            response: if lazy {
                None
            } else {
                l.response.map(Into::into)
            },
        },
    })
}

/// A chain is one agent's conversation: requests whose system prompt
/// starts the same (its first 256 characters; a subagent's differs, while a
/// value changing further down, like a timestamp, stays in the chain and is
/// explained as a changed prefix). Volatile metadata blocks are not the
/// prompt: a one-line `name: value` system block without a breakpoint
/// (Claude Code's per-session `x-anthropic-billing-header`) is skipped. A
/// request that names its cache (`prompt_cache_key`: Codex's session id) is
/// keyed on it.
fn chain_key(req: &Value) -> u64 {
    if let Some(k) = req["prompt_cache_key"].as_str() {
        return xxhash_rust::xxh3::xxh3_64(format!("prompt_cache_key:{k}").as_bytes());
    }
    let first_system = match &req["system"] {
        Value::String(s) => s.clone(),
        Value::Array(b) => {
            let mut head = String::new();
            for x in b.iter().filter(|x| !is_metadata_block(x)) {
                head.push_str(x["text"].as_str().unwrap_or(""));
                if head.len() >= 1024 {
                    break;
                }
            }
            head
        }
        _ => match (&req["instructions"], &req["systemInstruction"]) {
            // OpenAI Responses: the instructions are the system prompt.
            (Value::String(s), _) => s.clone(),
            // Gemini: the system instruction's parts.
            (_, Value::Object(si)) => si
                .get("parts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|p| p["text"].as_str())
                .collect(),
            (_, Value::String(s)) => s.clone(),
            _ => req["messages"][0]["content"].to_string(),
        },
    };
    let head: String = first_system.chars().take(256).collect();
    xxhash_rust::xxh3::xxh3_64(head.as_bytes())
}

/// A system block that is metadata, not prompt: one `name: value` line
/// with no breakpoint (Claude Code's `x-anthropic-billing-header: …`).
fn is_metadata_block(block: &Value) -> bool {
    is_metadata(
        block["text"].as_str().unwrap_or(""),
        block.get("cache_control").is_some(),
    )
}

/// Whether a system text is metadata (see [`is_metadata_block`]): one
/// `name: value` line of at most 512 bytes, without a breakpoint. The
/// provider does not cache it as prompt: when it changes, nothing is lost.
pub(super) fn is_metadata(text: &str, breakpoint: bool) -> bool {
    !breakpoint
        && !text.contains('\n')
        && text.len() <= 512
        && text.split_once(": ").is_some_and(|(name, _)| {
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        })
}

/// A capture's exchanges in the order they were sent, each named by its
/// chain: `main` is the conversation with the most requests (a side call
/// sent first, like a session recap with a small model, does not take the
/// name), the others are numbered as they first appear.
/// The exchanges recorded again in `sent` (a line `id` met before with the
/// same start: a copy of a capture read with it from one folder) left out;
/// how many.
pub(super) fn without_repeats(sent: &mut Vec<Sent>) -> usize {
    let before = sent.len();
    // Keys borrowed from the lines (no copy of each id), then the repeats
    // dropped.
    let keep: Vec<bool> = {
        let mut seen = std::collections::HashSet::new();
        sent.iter()
            .map(|s| s.id.is_empty() || seen.insert((s.id.as_str(), s.x.time.as_str())))
            .collect()
    };
    let mut keep = keep.into_iter();
    sent.retain(|_| keep.next().unwrap_or(true));
    before - sent.len()
}

pub(super) fn capture_exchanges(mut sent: Vec<Sent>) -> Vec<Exchange> {
    // A line is written when its exchange ends (a long stream after a
    // short one sent later): requests are read in the order they were sent.
    sent.sort_by(|a, b| a.at.partial_cmp(&b.at).unwrap_or(std::cmp::Ordering::Equal));
    continue_conversations(&mut sent);
    let mut counts: HashMap<u64, (usize, usize)> = HashMap::new();
    for (i, s) in sent.iter().enumerate() {
        counts.entry(s.key).or_insert((0, i)).0 += 1;
    }
    let mut chains = Chains::default();
    if let Some((&key, _)) = counts
        .iter()
        .max_by_key(|(_, (n, first))| (*n, std::cmp::Reverse(*first)))
    {
        chains.0.insert(key, 0);
    }
    sent.into_iter()
        .map(|s| Exchange {
            chain: chains.name(s.key),
            ..s.x
        })
        .collect()
}

/// Chains looked back at when a request starts a new one.
const CHAINS_LOOKED_AT: usize = 16;

/// A request whose system prompt changed in the middle of a conversation
/// (an edited memory file, a setting) starts a new chain by its key; when
/// its messages carry on those of the latest request of an earlier chain
/// (that request's messages are where its own begin, breakpoints aside),
/// it is the same conversation: it keeps that chain, and its change is
/// then explained against that request (a changed system block).
fn continue_conversations(sent: &mut [Sent]) {
    let mut latest: Vec<(u64, usize)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for i in 0..sent.len() {
        let key = sent[i].key;
        // A request that names its cache is keyed on that name.
        let named = sent[i].named;
        if !named && !seen.contains(&key) {
            let (mine, earlier) = (&sent[i].history, |j: usize| &sent[j].history);
            let carried = latest.iter().find(|(_, j)| {
                let theirs = earlier(*j);
                !theirs.is_empty() && mine.len() > theirs.len() && mine.starts_with(theirs)
            });
            if let Some((k, _)) = carried {
                sent[i].key = *k;
            }
        }
        let key = sent[i].key;
        seen.insert(key);
        latest.retain(|(k, _)| *k != key);
        latest.insert(0, (key, i));
        latest.truncate(CHAINS_LOOKED_AT);
    }
}

/// A capture's chains, numbered as they first appear: `main`, `chain 2`…
#[derive(Default)]
pub(super) struct Chains(HashMap<u64, usize>);

impl Chains {
    /// The name of the chain keyed `key` (see [`chain_key`]).
    pub(super) fn name(&mut self, key: u64) -> String {
        let next = self.0.len();
        let i = *self.0.entry(key).or_insert(next);
        if i == 0 {
            "main".into()
        } else {
            format!("chain {}", i + 1)
        }
    }
}

/// A transcript's exchanges, built line by line. Claude Code writes one
/// line per content block of a response, each with the whole usage: lines
/// are deduplicated by message.id (requestId where there is no id: a
/// `/btw` replay of an answer has a new one), keeping the largest
/// figures; the main chain and each sidechain (subagent) are kept apart; a
/// compaction boundary marks the next request.
#[derive(Default)]
pub(super) struct Transcript {
    out: Vec<Exchange>,
    seen: HashMap<(String, String), usize>,
    compacted: HashMap<String, bool>,
    /// The sessions of the main chains met (a folder holds several), and
    /// for each exchange of a main chain, its session.
    sessions: Vec<String>,
    session_of: HashMap<usize, usize>,
    /// Claude Code 2.1's request shapes (tools and system prompt) by hash,
    /// and the shape of the request each agent (`main` or a subagent's id)
    /// sent last, waiting for its answer.
    shapes: HashMap<String, std::sync::Arc<crate::request::Request>>,
    pending: HashMap<String, String>,
    /// Claude Code's running cost per process (session and start time).
    costs: HashMap<String, f64>,
}

/// Distinct request shapes kept from one transcript (each is the whole
/// tools and system prompt: tens of KB).
const MAX_SHAPES: usize = 64;

/// The chain of a transcript line: `main`, or its subagent's sidechain.
fn chain_of(l: &Value) -> String {
    if l["isSidechain"].as_bool().unwrap_or(false) {
        format!(
            "sidechain {}",
            clean(l["agentId"].as_str().unwrap_or("agent"), 64)
        )
    } else {
        "main".to_string()
    }
}
impl Transcript {
    /// Claude Code 2.1's request records: `api-request-shape` (the tools
    /// and system prompt, keyed by hash) and `api-request` (a request and
    /// the hash of its shape, before its answer). Whether `l` was one.
    fn request_record(&mut self, l: &Value) -> bool {
        let agent = || l["agentId"].as_str().unwrap_or("main").to_string();
        match l["type"].as_str() {
            Some("api-request-shape") => {
                if let (Some(h), Some(shape)) = (l["shapeHash"].as_str(), l.get("shape"))
                    && self.shapes.len() < MAX_SHAPES
                    && shape.is_object()
                {
                    self.shapes.entry(clean(h, 128)).or_insert_with(|| {
                        std::sync::Arc::new(crate::request::Request::of_recorded(
                            Some(crate::request::Api::AnthropicMessages),
                            shape,
                        ))
                    });
                }
                true
            }
            Some("api-request") => {
                if let Some(h) = l["shapeHash"].as_str() {
                    self.pending.insert(agent(), clean(h, 128));
                }
                true
            }
            Some("cost-state") => {
                self.cost_state(l);
                true
            }
            _ => false,
        }
    }

    pub(super) fn push(&mut self, l: &Value) {
        if self.request_record(l) {
            return;
        }
        let chain = chain_of(l);
        if l["type"] == "system" && l["subtype"] == "compact_boundary" {
            self.compacted.insert(chain, true);
            return;
        }
        if l["type"] != "assistant" {
            return;
        }
        let msg = &l["message"];
        // Claude Code's own stand-in answers (an interrupted or failed turn)
        // were never sent to a model.
        if msg["model"] == "<synthetic>" {
            return;
        }
        let Some(usage) = msg.get("usage").and_then(Usage::parse) else {
            return;
        };
        let id = msg["id"].as_str().unwrap_or("").to_string();
        // One answer is one request: its lines (a streamed answer is
        // written in several) share its message id. A `/btw` side
        // question's sidechain replays earlier answers under the same
        // message id and a new request id: counted once, by the id. Lines
        // without an id are told apart by their request id.
        let req = if id.is_empty() {
            l["requestId"].as_str().unwrap_or("").to_string()
        } else {
            String::new()
        };
        let key = (id, req);
        if let Some(&i) = self.seen.get(&key)
            && !key.0.is_empty()
        {
            // Another line of an answer already taken: its figures as
            // they grew.
            let u = self.out[i].usage.get_or_insert(usage);
            u.output_tokens = u.output_tokens.max(usage.output_tokens);
            u.input_tokens = u.input_tokens.max(usage.input_tokens);
            u.cache_creation_input_tokens = u
                .cache_creation_input_tokens
                .max(usage.cache_creation_input_tokens);
            u.cache_read_input_tokens =
                u.cache_read_input_tokens.max(usage.cache_read_input_tokens);
            return;
        }
        self.seen.insert(key, self.out.len());
        if chain == "main" {
            self.number_session(l);
        }
        let time = clean(l["timestamp"].as_str().unwrap_or(""), 40);
        let agent = l["agentId"].as_str().unwrap_or("main");
        let shape = self
            .pending
            .remove(agent)
            .and_then(|h| self.shapes.get(&h).cloned());
        self.out.push(Exchange {
            api: Some("anthropic"),
            at: rfc3339(&time),
            time,
            shape,
            after_compaction: self.compacted.remove(&chain).unwrap_or(false),
            chain,
            model: clean(msg["model"].as_str().unwrap_or("?"), 200),
            usage: Some(usage),
            miss_reason: super::ProviderMiss::of(msg.pointer("/diagnostics/cache_miss_reason")),
            advisor: msg
                .get("usage")
                .map(crate::usage::advisor_calls)
                .unwrap_or_default(),
            // Older Claude Code wrote each line's own cost.
            agent_cost_usd: l["costUSD"].as_f64().filter(|c| c.is_finite() && *c >= 0.0),
            release: super::release::of_transcript("Claude Code", l["version"].as_str()),
            // A transcript has no request, status, latency or wire.
            ..Exchange::default()
        });
    }

    /// The main chain's next request belongs to the session of line `l`
    /// (numbered in the order sessions are first met).
    fn number_session(&mut self, l: &Value) {
        let id = clean(l["sessionId"].as_str().unwrap_or(""), 64);
        let s = match self.sessions.iter().position(|s| *s == id) {
            Some(s) => s,
            None => {
                self.sessions.push(id);
                self.sessions.len() - 1
            }
        };
        self.session_of.insert(self.out.len(), s);
    }

    /// Claude Code 2.1's `cost-state` line: the running total of the
    /// process that wrote it (`startTime`); what it grew by since its last
    /// is the cost of the requests in between, put on the latest of them.
    fn cost_state(&mut self, l: &Value) {
        let (Some(total), Some(start)) = (l["totalCostUSD"].as_f64(), l["startTime"].as_f64())
        else {
            return;
        };
        if !total.is_finite() || total < 0.0 {
            return;
        }
        let key = format!(
            "{}/{start}",
            clean(l["sessionId"].as_str().unwrap_or(""), 64)
        );
        let before = self.costs.insert(key, total).unwrap_or(0.0);
        if let Some(x) = self.out.last_mut() {
            let grew = (total - before).max(0.0);
            *x.agent_cost_usd.get_or_insert(0.0) += grew;
        }
    }

    /// The exchanges; when several sessions were read (a project folder),
    /// each session's main chain is named after it (`session 3107089a`).
    pub(super) fn finish(mut self) -> Vec<Exchange> {
        if self.sessions.len() > 1 {
            for (i, s) in self.session_of {
                let id: String = self.sessions[s].chars().take(8).collect();
                self.out[i].chain = format!("session {id}");
            }
        }
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(
            rfc3339("2026-11-30T01:01:01Z"),
            Some(1_795_996_800.0 + 3661.0)
        );
        assert_eq!(
            rfc3339("2026-11-30T02:01:01+01:00"),
            Some(1_795_996_800.0 + 3661.0)
        );
        assert_eq!(
            rfc3339("2026-11-30T01:01:01.5Z"),
            Some(1_795_996_800.0 + 3661.5)
        );
        assert_eq!(rfc3339("garbage"), None);
        let s = format_rfc3339(1_795_996_800.0 + 3661.25);
        assert_eq!(s, "2026-11-30T01:01:01.250Z");
        assert_eq!(rfc3339(&s), Some(1_795_996_800.0 + 3661.25));
    }
}
