//! Time in a traffic view: the gap since the previous request of a chain,
//! and each cache entry a chain wrote, from the request that wrote it to
//! when it expires (its TTL from the last request that read or grew it),
//! so a write after a long gap is seen on a timeline, not only read.

use serde::Serialize;

use super::{Row, Traffic};

/// Seconds since the previous request of `r`'s chain, when both are dated.
pub fn gap(t: &Traffic, r: &Row) -> Option<f64> {
    // Rows are numbered from 1 in their order: the previous one is found
    // at its place (searched for only in a list that is not numbered so).
    let p = r.previous?;
    let previous = t
        .requests
        .get(p.wrapping_sub(1))
        .filter(|x| x.index == p)
        .or_else(|| t.requests.iter().find(|x| x.index == p))?;
    seconds_between(previous.at?, r.at?)
}

/// THE gap between two requests (Unix seconds): rounded to the
/// millisecond, as every view (the table, the rows, the spans) shows it.
pub fn seconds_between(earlier: f64, later: f64) -> Option<f64> {
    let d = ((later - earlier) * 1000.0).round() / 1000.0;
    d.is_finite().then_some(d)
}

/// One cache entry of a chain, as the provider's figures show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheEntry {
    pub chain: String,
    /// The request that wrote it first, and the last that read or grew it.
    pub first: usize,
    pub last: usize,
    /// Tokens cached at its largest (written and read).
    pub tokens: u64,
    /// Unix seconds: written, and when it expires (or expired).
    pub written_at: f64,
    pub expires_at: f64,
    pub ttl_secs: u64,
    /// The request that found it gone (sent after `expires_at`), if any.
    pub ended_by: Option<usize>,
}

/// Every cache entry of every chain, in the order written.
pub fn entries(t: &Traffic) -> Vec<CacheEntry> {
    let mut log = EntryLog::default();
    for r in &t.requests {
        log.push(r);
    }
    let mut all = log.all;
    all.sort_by(|a, b| a.written_at.total_cmp(&b.written_at));
    all
}

/// The cache entries of a traffic, taken one request at a time (a live
/// capture adds its requests as they finish: each is taken in as it comes,
/// not the whole list again).
#[derive(Debug, Clone, Default)]
pub struct EntryLog {
    /// Every entry, in the order the requests wrote them.
    pub all: Vec<CacheEntry>,
    /// Each chain's entry that a later request may still read (its index
    /// in `all`).
    open: std::collections::HashMap<String, usize>,
}

impl EntryLog {
    /// Takes in the next request: it reads and refreshes its chain's
    /// entry, or ends it (gone, or not read) and may write another. The
    /// entry it touched, if any.
    pub fn push(&mut self, r: &Row) -> Option<usize> {
        let (Some(at), Some(u)) = (r.at, r.usage) else {
            return None;
        };
        let ttl = if u.written_1h() > 0 { 3600 } else { 300 };
        if let Some(&i) = self.open.get(&r.chain) {
            let e = &mut self.all[i];
            if u.cache_read_input_tokens > 0 && at <= e.expires_at {
                e.last = r.index;
                e.tokens = e
                    .tokens
                    .max(u.cache_read_input_tokens + u.cache_creation_input_tokens);
                e.ttl_secs = e.ttl_secs.max(ttl);
                e.expires_at = at + e.ttl_secs as f64;
                return Some(i);
            }
            if at > e.expires_at {
                e.ended_by = Some(r.index);
            }
            self.open.remove(&r.chain);
        }
        if u.cache_creation_input_tokens == 0 {
            return None;
        }
        self.open.insert(r.chain.clone(), self.all.len());
        self.all.push(CacheEntry {
            chain: r.chain.clone(),
            first: r.index,
            last: r.index,
            tokens: u.cache_creation_input_tokens + u.cache_read_input_tokens,
            written_at: at,
            expires_at: at + ttl as f64,
            ttl_secs: ttl,
            ended_by: None,
        });
        Some(self.all.len() - 1)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_entry_lives_while_it_is_read_and_a_write_after_its_ttl_starts_another() {
        let dir = tempfile::tempdir().unwrap();
        let line = |ts: &str, id: &str, write: u64, read: u64| {
            serde_json::json!({"type": "assistant", "sessionId": "s", "timestamp": ts, "requestId": id,
                "message": {"id": id, "model": "claude-sonnet-4-6", "usage": {"input_tokens": 3,
                "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": 5}}})
            .to_string()
        };
        let f = dir.path().join("s.jsonl");
        let text = [
            line("2026-11-30T10:00:00Z", "m1", 9000, 0),
            line("2026-11-30T10:01:00Z", "m2", 100, 9000),
            line("2026-11-30T10:08:00Z", "m3", 9100, 0),
        ]
        .join("\n");
        std::fs::write(&f, text).unwrap();
        let table = crate::ModelTable::bundled();
        let t = crate::traffic::read(&f, &table, &crate::TokenCounter::new()).unwrap();
        let e = super::entries(&t);
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!(
            (e[0].first, e[0].last, e[0].tokens, e[0].ended_by),
            (1, 2, 9100, Some(3))
        );
        // Read at 10:01, so it expired at 10:06; request 3 came at 10:08.
        assert_eq!(e[0].expires_at - e[0].written_at, 360.0);
        assert_eq!((e[1].first, e[1].ended_by), (3, None));
        assert_eq!(super::gap(&t, &t.requests[2]), Some(420.0));
        assert_eq!(super::gap(&t, &t.requests[0]), None);
    }
}
