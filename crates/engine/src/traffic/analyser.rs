//! The analysis, one request at a time: request N+1 is explained from the
//! state after N (the latest request of each chain, its body kept to
//! compare the next with, and running totals). The batch road
//! ([`super::read`]) feeds it a file's requests in the order they were sent;
//! the window feeds it each exchange the proxy records, as it comes. Each
//! request costs the same whatever came before it: nothing is read again.

use std::collections::{HashMap, HashSet};

use super::explain::explain;
use super::parse::{Chains, sent};
use super::{CaptureLine, Exchange, KindCost, MissKind, Parts, Row, Totals, cost, parts};
use crate::assembly::models::ModelTable;
use crate::usage::Usage;

/// Conversations searched for a prefix a new one shares, most recent first.
pub const RECENT_CHAINS: usize = 16;
/// The longest a provider keeps a cache entry (Anthropic's 1-hour TTL).
const LONGEST_TTL_SECS: f64 = 3600.0;

impl Analyser {
    /// Of the recent conversations, the latest request (same model, sent
    /// within the longest TTL) sharing the longest prefix with `x`.
    fn nearest_conversation(&self, x: &Exchange) -> Option<&(usize, Exchange)> {
        let req = x.request.as_ref()?;
        self.recent
            .iter()
            .rev()
            .filter_map(|c| self.latest.get(c))
            .filter(|(_, o)| o.model == x.model)
            .filter(|(_, o)| {
                o.at.zip(x.at)
                    .is_none_or(|(a, b)| b - a <= LONGEST_TTL_SECS)
            })
            .filter_map(|e| {
                let shared = super::explain::shared_positions(e.1.request.as_ref()?, req);
                (shared > 0).then_some((shared, e))
            })
            .fold(
                None,
                |best: Option<(usize, &(usize, Exchange))>, (s, e)| match best {
                    Some((b, _)) if b >= s => best,
                    _ => Some((s, e)),
                },
            )
            .map(|(_, e)| e)
    }
}

/// What the requests so far left: the latest of each chain and the totals.
#[derive(Default)]
pub struct Analyser {
    /// Requests analysed.
    count: usize,
    /// The latest request of each chain: its index (0-based) and exchange.
    latest: HashMap<String, (usize, Exchange)>,
    /// The chains most recently sent to, newest last (at most
    /// [`RECENT_CHAINS`]): where a new conversation's prefix may be cached.
    recent: std::collections::VecDeque<String>,
    /// A capture's chains by key (for exchanges pushed as capture lines).
    chains: Chains,
    /// The chain of the latest request, whatever its chain.
    last_chain: Option<String>,
    sums: Sums,
}

impl Analyser {
    /// Explains the next request (its chain already named) from the state
    /// so far, and adds it to the totals.
    pub fn push(&mut self, x: Exchange, table: &ModelTable, counter: &crate::TokenCounter) -> Row {
        let p = parts(&x, counter, table);
        self.push_counted(x, p, table)
    }

    /// [`Analyser::push`] with the request's parts counted already
    /// ([`parts`], on another core).
    pub fn push_counted(&mut self, x: Exchange, parts: Parts, table: &ModelTable) -> Row {
        let i = self.count;
        self.count += 1;
        let prev = self.latest.get(&x.chain).map(|(j, p)| (*j, p));
        let mut r = row(i, &x, prev, parts, table);
        // The first request of a chain may still owe its reads, or its
        // misses, to another conversation: the recent one whose request
        // shares the longest prefix with it (same model, within the longest
        // TTL), else the last one sent to.
        if prev.is_none()
            && let Some(m) = r.miss.as_mut()
        {
            let other = self
                .nearest_conversation(&x)
                .or_else(|| self.last_chain.as_ref().and_then(|c| self.latest.get(c)));
            if let Some(other) = other {
                first_of_chain(m, &x, &other.1, table);
            }
        }
        self.last_chain = Some(x.chain.clone());
        self.recent.retain(|c| *c != x.chain);
        self.recent.push_back(x.chain.clone());
        if self.recent.len() > RECENT_CHAINS {
            self.recent.pop_front();
        }
        let gap = prev.and_then(|(_, p)| Some(r.at? - p.at?));
        self.sums
            .add(&r, (prev.and_then(|(_, p)| p.usage), gap), table);
        // The previous request of the chain is no longer compared with.
        self.latest.insert(x.chain.clone(), (i, x));
        r
    }

    /// A capture line as the proxy recorded it: its chain named (numbered
    /// as chains first appear), then [`Analyser::push`]. None for a line
    /// that is not a request (a token count, no body).
    pub fn push_line(
        &mut self,
        line: CaptureLine,
        table: &ModelTable,
        counter: &crate::TokenCounter,
    ) -> Option<Row> {
        let s = sent(line, false)?;
        let chain = self.chains.name(s.key);
        Some(self.push(Exchange { chain, ..s.x }, table, counter))
    }

    /// Drops the body of the latest request of `chain` (no later request
    /// will be compared with it).
    pub fn forget_request(&mut self, chain: &str) {
        if let Some((_, x)) = self.latest.get_mut(chain) {
            x.request = None;
        }
    }

    /// The totals so far.
    pub fn totals(&self) -> Totals {
        self.sums.totals()
    }
}

/// The first request of a chain beside the latest request of another
/// (`other`): a read from that conversation's prefix is not a cold start,
/// and the same prompt under another `prompt_cache_key` went to another
/// cache.
fn first_of_chain(m: &mut super::Miss, x: &Exchange, other: &Exchange, table: &ModelTable) {
    let Some(u) = x.usage else { return };
    if m.kind != MissKind::Cold {
        return;
    }
    // It read what the other conversation cached, and wrote what follows
    // where the two part: that change named, not "cold".
    if u.cache_read_input_tokens > 0
        && let Some(p) =
            super::explain::across_conversations(other, x, &u, table.resolve(Some(&x.model)))
    {
        *m = p;
        return;
    }
    if u.cache_read_input_tokens > 0 {
        m.kind = MissKind::Shared;
        m.detail = format!(
            "read {} that another conversation ({}) cached: the two share the start of their prompt (tools, system prompt); wrote {} after them",
            crate::plural(u.cache_read_input_tokens, "token"),
            super::chain_phrase(&other.chain),
            crate::plural(u.cache_creation_input_tokens, "new token")
        );
        return;
    }
    let key = |x: &Exchange| {
        x.request
            .as_ref()
            .and_then(|r| r.field("prompt_cache_key")?.as_str().map(str::to_string))
    };
    let without_key = |x: &Exchange| {
        x.request.as_ref().map(|r| {
            let mut r = crate::request::Request::clone(r);
            r.extra.shift_remove("prompt_cache_key");
            r
        })
    };
    if let (Some(a), Some(b)) = (key(other), key(x))
        && a != b
        && first_position(other) == first_position(x)
        && first_position(x).is_some()
    {
        let same = without_key(other) == without_key(x);
        m.kind = MissKind::CacheKey;
        m.detail = format!(
            "prompt_cache_key changed: {} → {}: {} goes to another cache, where nothing is stored yet",
            crate::clean(&a, 80),
            crate::clean(&b, 80),
            if same {
                "the same request"
            } else {
                "a prompt that starts the same"
            }
        );
        return;
    }
    // Nothing read, though a conversation that starts the same cached its
    // prefix moments before: the system prompt changed before the first
    // point that prefix was cached at (a new session with an appended
    // system prompt), which is why it was written again; not a cold start.
    let body = super::explain::body;
    if u.cache_read_input_tokens == 0
        && other.model == x.model
        && still_held(other, x)
        && let (Some(a), Some(b)) = (body(other), body(x))
        && super::explain::parts_before_a_breakpoint(a, b)
        && let Some(p) =
            super::explain::across_conversations(other, x, &u, table.resolve(Some(&x.model)))
        && p.kind == MissKind::Prefix
        && p.position
            .as_deref()
            .is_some_and(|l| l.starts_with("system"))
    {
        *m = p;
    }
}

/// Whether what `other` cached may still be held when `x` is sent: within
/// the TTL it wrote with; true when either time is unknown.
fn still_held(other: &Exchange, x: &Exchange) -> bool {
    let ttl = super::explain::ttl_left_by(other);
    other.at.zip(x.at).is_none_or(|(a, b)| b - a <= ttl)
}

/// The text of a request's first position (its first tool, system block or
/// message).
fn first_position(x: &Exchange) -> Option<String> {
    let r = x.request.as_ref()?;
    r.each_position().next().map(|p| p.text.into_owned())
}

/// Request `i` (0-based) compared with `prev`, the previous request of its
/// chain (its index and exchange).
fn row(
    i: usize,
    x: &Exchange,
    prev: Option<(usize, &Exchange)>,
    parts: Parts,
    table: &ModelTable,
) -> Row {
    let model = table.resolve(Some(&x.model));
    // A model the table does not know has no price: its cost is not
    // guessed from another model's.
    // Advisor calls are billed at their own model's rates: a call to a
    // model the table does not know leaves the request unpriced.
    let priced =
        table.get(&x.model).is_some() && x.advisor.iter().all(|(m, _)| table.get(m).is_some());
    let advisor: f64 = x
        .advisor
        .iter()
        .map(|(m, u)| cost(table.resolve(Some(m)), u))
        .sum();
    let cost = x
        .usage
        .filter(|_| priced)
        .map_or(0.0, |u| cost(model, &u) + advisor);
    // Gemini writes nothing: a miss there is reading less than the
    // previous request of the chain sent (its prefix lost).
    let lost = |u: &crate::usage::Usage| {
        model.provider == crate::Provider::Gemini
            && prev
                .and_then(|(_, p)| p.usage)
                .is_some_and(|p| u.cache_read_input_tokens < p.prompt())
    };
    let miss = x
        .usage
        .filter(|u| u.cache_creation_input_tokens > 0 || u.cache_read_input_tokens == 0 || lost(u))
        .map(|u| explain(x, prev.map(|(_, p)| p), &u, model));
    Row {
        index: i + 1,
        previous: prev.map(|(j, _)| j + 1),
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
        advisor_calls: x.advisor.len(),
        agent_cost_usd: x.agent_cost_usd,
        at: x.at,
        latency_ms: x.latency_ms,
        api: x.api,
        release: x.release.clone().or_else(|| {
            x.request
                .as_deref()
                .or(x.shape.as_deref())
                .and_then(super::release::of_request)
        }),
    }
}

/// What a missing request paid beyond reading its tokens from the cache:
/// on Anthropic's API its writes; elsewhere (no writes) what was cached
/// before and is now paid in full, and for a cold start its whole prompt.
fn beyond_reading(u: &Usage, prev: Option<Usage>, m: &crate::ModelInfo, cold: bool) -> f64 {
    let per = |n: u64, p: f64| n as f64 * p / 1e6;
    if m.provider == crate::Provider::Anthropic {
        let w = u.cache_creation_input_tokens;
        let w1h = u.written_1h().min(w);
        per(w - w1h, m.write_5m_price()) + per(w1h, m.write_1h_price()) - per(w, m.read_price())
    } else {
        let prompt = u.input_tokens + u.cache_read_input_tokens;
        let before = match prev {
            Some(p) => p.input_tokens + p.cache_read_input_tokens,
            None if cold => prompt,
            None => 0,
        };
        let could = prompt.min(before);
        per(
            could.saturating_sub(u.cache_read_input_tokens),
            m.input_per_mtok - m.read_price(),
        )
    }
}

/// Running totals, summed request by request in order.
#[derive(Default)]
struct Sums {
    totals: Totals,
    unpriced: HashSet<String>,
    /// What the writes after 5-minute gaps cost, and what they would have
    /// with a 1-hour TTL.
    ttl_actual: f64,
    ttl_1h: f64,
    /// What the other 5-minute writes would have cost more at 1 hour.
    writes_5m_extra: f64,
}

impl Sums {
    /// Adds request `r`, whose previous request of the chain reported
    /// `prev` (if any), `gap` seconds before it.
    fn add(&mut self, r: &Row, (prev, gap): (Option<Usage>, Option<f64>), table: &ModelTable) {
        let t = &mut self.totals;
        t.requests += 1;
        if let Some(c) = r.agent_cost_usd {
            *t.agent_cost_usd.get_or_insert(0.0) += c;
        }
        let Some(u) = r.usage else { return };
        t.input_tokens += u.input_tokens;
        t.cache_creation_input_tokens += u.cache_creation_input_tokens;
        t.cache_read_input_tokens += u.cache_read_input_tokens;
        t.output_tokens += u.output_tokens;
        t.cost_usd += r.cost_usd;
        if !r.priced {
            if self.unpriced.insert(r.model.clone()) {
                t.unpriced_models.push(r.model.clone());
            }
            return;
        }
        // The prices this request was charged at (its tier, its speed).
        let model = table.resolve(Some(&r.model));
        if u.fast
            && model.fast.is_none()
            && model.fast_multiplier.is_none()
            && !t.fast_at_standard_rates.contains(&r.model)
        {
            t.fast_at_standard_rates.push(r.model.clone());
        }
        let m = &*model.priced_for(u.prompt(), u.fast);
        let per = |n: u64, p: f64| n as f64 * p / 1e6;
        let w = u.cache_creation_input_tokens;
        let w1h = u.written_1h().min(w);
        let w5m = w - w1h;
        // The prefix the previous request of the chain left cached.
        let prev_cached = prev.map_or(0, |p| {
            p.cache_read_input_tokens + p.cache_creation_input_tokens
        });
        // An expiry a 1-hour TTL would have outlived: a gap of an hour or
        // more (another day's session) expires at either TTL.
        let ttl_5m = r
            .miss
            .as_ref()
            .is_some_and(|miss| miss.kind == MissKind::Ttl && miss.expired_ttl == Some(300))
            && gap.is_none_or(|g| g < LONGEST_TTL_SECS);
        let anthropic = m.provider == crate::Provider::Anthropic;
        if anthropic {
            if ttl_5m {
                // With a 1-hour TTL the expired prefix would have been read
                // and only the growth after it written (at the 1-hour price).
                let expired = w5m.min(prev_cached);
                self.ttl_actual += per(w5m, m.write_5m_price());
                self.ttl_1h +=
                    per(expired, m.read_price()) + per(w5m - expired, m.write_1h_price());
            } else {
                // Every other 5-minute write would have cost the 1-hour price.
                self.writes_5m_extra += per(w5m, m.write_1h_price() - m.write_5m_price());
            }
        }
        let Some(miss) = &r.miss else { return };
        let extra = beyond_reading(&u, prev, m, miss.kind == MissKind::Cold);
        match t.by_kind.iter_mut().find(|k| k.kind == miss.kind) {
            Some(k) => {
                k.requests += 1;
                k.extra_cost_usd += extra;
            }
            None => t.by_kind.push(KindCost {
                kind: miss.kind,
                requests: 1,
                extra_cost_usd: extra,
            }),
        }
    }

    /// The totals so far, with the hit ratio and the 1-hour counterfactual.
    fn totals(&self) -> Totals {
        let mut t = self.totals.clone();
        let all = t.input_tokens + t.cache_creation_input_tokens + t.cache_read_input_tokens;
        t.hit_ratio = if all == 0 {
            0.0
        } else {
            t.cache_read_input_tokens as f64 / all as f64
        };
        let (ttl_actual, ttl_1h, writes_5m_extra) =
            (self.ttl_actual, self.ttl_1h, self.writes_5m_extra);
        if ttl_actual > 0.0 {
            // In the hundred-thousandths of a dollar the sentence shows, so
            // that its sums and its difference add up as written.
            let cents = |usd: f64| (usd * 1e5).round() as i64;
            let usd = |c: i64| format!("${:.5}", c as f64 / 1e5);
            let (actual, read, extra) = (cents(ttl_actual), cents(ttl_1h), cents(writes_5m_extra));
            let with_1h = read + extra;
            t.counterfactual = Some(format!(
                "with a 1-hour TTL, the writes after 5-minute gaps (which cost {}) would have been reads of the expired prefix with only its growth written ({}), and every other 5-minute write would have cost {} more at the 1-hour price: {} in all against {}, so a 1-hour TTL would have {}",
                usd(actual),
                usd(read),
                usd(extra),
                usd(with_1h),
                usd(actual),
                if with_1h < actual {
                    format!("saved {}", usd(actual - with_1h))
                } else {
                    format!("cost {} more", usd(with_1h - actual))
                }
            ));
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::traffic::{Skipped, Source, Traffic, to_json_text};
    use std::path::{Path, PathBuf};

    fn captures() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files = vec![root.join("examples/traffic/capture.jsonl")];
        let agents = std::fs::read_dir(root.join("tests/fixtures/agents")).unwrap();
        let mut agents: Vec<PathBuf> = agents
            .filter_map(|e| Some(e.ok()?.path().join("capture.jsonl")))
            .filter(|p| p.is_file())
            .collect();
        agents.sort();
        assert!(agents.len() >= 3, "{agents:?}");
        files.extend(agents);
        files
    }

    #[test]
    fn fed_line_by_line_the_analyser_gives_the_batch_rows() {
        let (table, counter) = (ModelTable::bundled(), crate::TokenCounter::new());
        for f in captures() {
            let batch = crate::traffic::read(&f, &table, &counter).unwrap();
            let mut a = Analyser::default();
            let text = std::fs::read_to_string(&f).unwrap();
            let requests: Vec<Row> = text
                .lines()
                .filter_map(CaptureLine::parse)
                .filter_map(|l| a.push_line(l, &table, &counter))
                .collect();
            let live = Traffic {
                source: Source::Capture,
                requests,
                totals: a.totals(),
                skipped: Skipped::default(),
                assumed: Vec::new(),
            };
            assert!(!live.requests.is_empty(), "{}", f.display());
            let side_call_first = ["agents/gemini", "agents/opencode"]
                .iter()
                .any(|a| f.to_string_lossy().contains(a));
            if side_call_first {
                // Known difference: a side call comes first (Gemini CLI's
                // routing call, OpenCode's title request).
                // `traffic` names the conversation with the most requests
                // `main`; fed one line at a time, the first chain seen
                // takes the name. Everything else is the same.
                let facts = |t: &Traffic| {
                    t.requests
                        .iter()
                        .map(|r| (r.usage, r.miss.as_ref().map(|m| m.kind), r.previous))
                        .collect::<Vec<_>>()
                };
                assert_eq!(facts(&live), facts(&batch), "{}", f.display());
                assert_ne!(live.requests[0].chain, batch.requests[0].chain);
                continue;
            }
            assert_eq!(to_json_text(&live), to_json_text(&batch), "{}", f.display());
            let previous = |t: &Traffic| t.requests.iter().map(|r| r.previous).collect::<Vec<_>>();
            assert_eq!(previous(&live), previous(&batch), "{}", f.display());
        }
    }

    /// The 1-hour TTL sentence's figures add up as written: the growth
    /// read plus the extra writes is the total with a 1-hour TTL, and the
    /// saving is the difference of the two totals it names.
    #[test]
    fn the_one_hour_sentence_adds_up_as_written() {
        let (table, counter) = (ModelTable::bundled(), crate::TokenCounter::new());
        let mut seen = 0;
        for f in captures() {
            let t = crate::traffic::read(&f, &table, &counter).unwrap();
            let Some(c) = t.totals.counterfactual else {
                continue;
            };
            let n: Vec<i64> = c
                .split('$')
                .skip(1)
                .map(|x| {
                    let digits: String = x
                        .chars()
                        .take_while(|c| c.is_ascii_digit() || *c == '.')
                        .collect();
                    (digits.trim_end_matches('.').parse::<f64>().unwrap() * 1e5).round() as i64
                })
                .collect();
            let [actual, read, extra, with_1h, against, diff] = n[..] else {
                panic!("{c}")
            };
            assert_eq!((read + extra, against), (with_1h, actual), "{c}");
            assert_eq!((actual - with_1h).abs(), diff, "{c}");
            seen += 1;
        }
        assert!(seen > 0);
    }
}
