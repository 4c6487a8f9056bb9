//! Why a request wrote or missed the cache, most specific reason first:
//! the provider's own diagnostics, the model's minimum, a cold start, a
//! compaction, a TTL gap, a changed model, tools or prefix, growth.

use std::collections::HashSet;

use serde_json::Value;

use super::{Exchange, Miss, MissKind, chain_phrase};
use crate::assembly::models::ModelInfo;
use crate::request::{Position, Request};
use crate::usage::Usage;

/// Anthropic's own diagnosis of a miss (a response's
/// `diagnostics.cache_miss_reason`): its type (`system_changed`…) and the
/// tokens it says were missed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderMiss {
    pub kind: String,
    pub missed: Option<u64>,
}

impl ProviderMiss {
    /// Read from the JSON edge: a `cache_miss_reason` object (null, or not
    /// an object: none).
    pub(crate) fn of(v: Option<&Value>) -> Option<ProviderMiss> {
        let o = v?.as_object()?;
        Some(ProviderMiss {
            kind: crate::clean(
                o.get("type").and_then(Value::as_str).unwrap_or("provider"),
                64,
            ),
            missed: o
                .get("cache_missed_input_tokens")
                .and_then(Value::as_u64)
                .map(|n| n.min(super::MAX_TOKENS)),
        })
    }
}

fn miss(kind: MissKind, detail: String) -> Miss {
    Miss {
        kind,
        detail,
        expired_ttl: None,
        position: None,
    }
}

fn fmt_gap(s: f64) -> String {
    crate::text::elapsed(s)
}

/// The reason a request wrote (or read nothing), most specific first.
pub(super) fn explain(x: &Exchange, prev: Option<&Exchange>, u: &Usage, model: &ModelInfo) -> Miss {
    if let Some(r) = &x.miss_reason {
        return provider_said(r);
    }
    if let Some(m) = under_minimum(u, model) {
        return m;
    }
    let Some(p) = prev else {
        return miss(
            MissKind::Cold,
            format!(
                "first request of {}: nothing cached yet",
                chain_phrase(&x.chain)
            ),
        );
    };
    if x.after_compaction {
        return miss(MissKind::Compaction,
            "a compaction boundary: the conversation was summarized, so everything after the system prompt is new".into(),
        );
    }
    if let Some(m) = ttl_expired(p, x) {
        return m;
    }
    if p.model != x.model {
        return miss(
            MissKind::Model,
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
    // A transcript that records each request's tools and system prompt.
    if let (Some(a), Some(b)) = (&p.shape, &x.shape)
        && a != b
        && let Some(m) = compare_requests(a, b, u, model)
    {
        return m;
    }
    if let Some(m) = read_less_than_left(p, x, u, model) {
        return m;
    }
    if u.cache_read_input_tokens > 0 {
        return miss(
            MissKind::Growth,
            format!(
                "read {} and wrote {} after them (the conversation grew)",
                crate::plural(u.cache_read_input_tokens, "cached token"),
                crate::plural(u.cache_creation_input_tokens, "new token")
            ),
        );
    }
    unexplained(p, x)
}

/// A miss nothing recorded explains, said with what was ruled out.
fn unexplained(p: &Exchange, x: &Exchange) -> Miss {
    if p.request.is_some() && p.request == x.request {
        let backwards = matches!((p.at, x.at), (Some(a), Some(b)) if b < a);
        return miss(
            MissKind::Unexplained,
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
        MissKind::Unexplained,
        if x.request.is_some() {
            "the request extends the previous one and nothing in the recorded data explains the miss (no gap, no change in the prefix)".into()
        } else if x.shape.is_some() && p.shape == x.shape {
            "the tools and system prompt are the same as the previous request's (the transcript records them, not the messages), and nothing else recorded explains it (no gap, no compaction)".into()
        } else {
            "nothing in the recorded data explains it (a transcript has no bodies: no gap, no compaction)".into()
        },
    )
}

/// Without the bodies (a transcript), a request that read less than the
/// previous request of its chain left cached: its prompt changed before
/// the end of that prefix. What was left cached is, with breakpoints
/// (Anthropic), what the previous request read and wrote; with implicit
/// caching (OpenAI's, Gemini's), its whole prompt, of which the provider
/// may keep a little less (OpenAI rounds to 128-token blocks): a shortfall
/// within 128 tokens is not a change.
fn read_less_than_left(p: &Exchange, x: &Exchange, u: &Usage, model: &ModelInfo) -> Option<Miss> {
    if p.request.is_some() || x.request.is_some() {
        return None;
    }
    let before = p.usage.as_ref()?;
    let explicit = model.provider == crate::Provider::Anthropic;
    let left = if explicit {
        before.cache_read_input_tokens + before.cache_creation_input_tokens
    } else {
        before.prompt()
    };
    let read = u.cache_read_input_tokens;
    if read + if explicit { 0 } else { 128 } >= left {
        return None;
    }
    if read == 0 {
        // Within the TTL (an expiry was told apart before): the prompt
        // changed at its start, or the provider let the prefix go. When
        // the transcript records its tools and system prompt unchanged,
        // the start did not change: said as it is, unexplained.
        if p.shape.is_some() && p.shape == x.shape {
            return None;
        }
        return Some(miss(
            MissKind::Prefix,
            format!(
                "read none of the {} the previous request left cached{}: its prompt changed at its start (its tools or first system block), or the provider no longer held the prefix (the file holds no request bodies; a capture of the run names the part)",
                crate::plural(left, "token"),
                match (p.at, x.at) {
                    (Some(a), Some(b)) if b >= a => format!(" {} before", fmt_gap(b - a)),
                    _ => String::new(),
                }
            ),
        ));
    }
    Some(miss(
        MissKind::Prefix,
        format!(
            "read {} of the {} the previous request left cached: its prompt changed after about token {}{} (the file holds no request bodies; a capture of the run names the part)",
            crate::thousands(read),
            crate::plural(left, "token"),
            crate::thousands(read),
            if explicit {
                ""
            } else {
                ", or the provider's implicit cache kept less of it"
            }
        ),
    ))
}

/// The provider's own diagnostics of a miss (Anthropic's `cache_miss_reason`).
fn provider_said(r: &super::ProviderMiss) -> Miss {
    miss(
        MissKind::Provider,
        format!(
            "Anthropic's cache diagnostics: {}{}",
            r.kind,
            r.missed.map_or(String::new(), |n| format!(
                " ({} tokens missed)",
                crate::thousands(n)
            ))
        ),
    )
}

/// A prompt under the model's minimum is never cached, whatever changed:
/// the reason only when the provider's figures agree (nothing read, nothing
/// written; a server that wrote it has no such minimum, and the miss has
/// another cause).
fn under_minimum(u: &Usage, model: &ModelInfo) -> Option<Miss> {
    let prompt = u.input().total();
    if u.cache_read_input_tokens == 0
        && u.cache_creation_input_tokens == 0
        && prompt < model.min_cacheable_tokens
    {
        return Some(miss(
            MissKind::Minimum,
            format!(
                "the prompt ({}) is under {}'s {}-token minimum: silently not cached",
                crate::plural(prompt, "token"),
                model.id,
                crate::thousands(model.min_cacheable_tokens)
            ),
        ));
    }
    None
}

/// A gap since the previous request of the chain longer than the TTL of
/// what it left cached.
fn ttl_expired(p: &Exchange, x: &Exchange) -> Option<Miss> {
    if let (Some(a), Some(b)) = (p.at, x.at) {
        let ttl = ttl_left_by(p);
        if b - a > ttl {
            return Some(Miss {
                expired_ttl: Some(ttl as u64),
                position: None,
                ..miss(
                    MissKind::Ttl,
                    format!(
                        "{} since the previous request of this chain, longer than the {} TTL: the cached prefix expired",
                        fmt_gap(b - a),
                        if ttl > 300.0 { "1h" } else { "5m" }
                    ),
                )
            });
        }
    }
    None
}

/// The tool set of `b` against that of `a`, as a miss when it changed
/// (tools come first: nothing after them is read).
fn tools_changed(a: &Request, b: &Request) -> Option<Miss> {
    let names = |r: &Request| -> Vec<String> {
        r.tool_names()
            .into_iter()
            .map(|n| crate::clean(n, 64))
            .collect()
    };
    let (na, nb) = (names(a), names(b));
    if na == nb {
        return None;
    }
    let (in_a, in_b): (HashSet<&String>, HashSet<&String>) =
        (na.iter().collect(), nb.iter().collect());
    let added: Vec<&String> = nb.iter().filter(|n| !in_a.contains(n)).collect();
    let removed: Vec<&String> = na.iter().filter(|n| !in_b.contains(n)).collect();
    if added.is_empty() && removed.is_empty() {
        return Some(miss(
            MissKind::Tools,
            format!(
                "the same tools in another order ({} → {}): tools come first, so nothing after them is read",
                na.join(", "),
                nb.join(", ")
            ),
        ));
    }
    Some(miss(
        MissKind::Tools,
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
    ))
}

/// The first position where `b` differs from `a`, as a miss.
fn compare_requests(a: &Request, b: &Request, u: &Usage, model: &ModelInfo) -> Option<Miss> {
    if let Some(m) = tools_changed(a, b) {
        return Some(m);
    }
    // What the previous request could have left cached ends at its last
    // breakpoint: a difference after it (an agent's transient context after
    // the last breakpoint, replaced each turn) loses nothing cached.
    // The previous request's positions, made once for both uses.
    let positions = a.positions();
    let cached_end = positions.iter().rposition(|p| p.breakpoint);
    // The positions side by side, one pair at a time: the first whose text
    // differs (or that `b` lacks), else the last breakpoint of each.
    let (mut pa, mut pb) = (positions.into_iter(), b.each_position());
    let (mut prev_last, mut last) = (None, None);
    for i in 0usize.. {
        match (pa.next(), pb.next()) {
            (
                Some(Position {
                    label,
                    text: before,
                    breakpoint: bp_a,
                }),
                y,
            ) => {
                let after = y.as_ref().map_or("", |p| &*p.text);
                // Per-session metadata (a billing header) is not prompt.
                let metadata = label.starts_with("system")
                    && super::parse::is_metadata(&before, bp_a)
                    && y.as_ref()
                        .is_some_and(|p| super::parse::is_metadata(&p.text, p.breakpoint));
                if (y.is_none() || before != after) && !metadata {
                    if cached_end.is_some_and(|end| i > end) {
                        break;
                    }
                    return Some(prefix(&label, &before, after, model));
                }
                if bp_a {
                    prev_last = Some(i);
                }
                if y.is_some_and(|p| p.breakpoint) {
                    last = Some(i);
                }
            }
            (None, Some(p)) => {
                if p.breakpoint {
                    last = Some(i);
                }
            }
            (None, None) => break,
        }
    }
    // Same prefix: a breakpoint too far from the cached one, or a prefix
    // under the minimum.
    if u.cache_read_input_tokens == 0 {
        if let (Some(last), Some(prev_last)) = (last, prev_last)
            && last >= prev_last + 20
        {
            return Some(miss(
                MissKind::Lookback,
                format!(
                    "the breakpoint moved {} positions past the cached one: beyond the 20-block lookback, so it was not found",
                    last - prev_last
                ),
            ));
        }
        let total = u.input_tokens + u.cache_creation_input_tokens;
        if u.cache_creation_input_tokens == 0 && total < model.min_cacheable_tokens {
            return Some(miss(
                MissKind::Minimum,
                format!(
                    "the prefix ({total} tokens) is under {}'s {}-token minimum: silently not cached",
                    model.id, model.min_cacheable_tokens
                ),
            ));
        }
    }
    None
}

/// The TTL, in seconds, of what request `p` left cached: an hour when it
/// wrote 1-hour entries, else five minutes.
pub(super) fn ttl_left_by(p: &Exchange) -> f64 {
    if p.usage.is_some_and(|pu| pu.written_1h() > 0) {
        3600.0
    } else {
        300.0
    }
}

/// Position `label` differs: `before` in the previous request, `after` in
/// this one.
/// The first request of a conversation against an earlier request of
/// another one (`other`) whose cached prefix the provider may still hold:
/// where the two first differ (tools or a position), said as a change of
/// that prefix, with what was read of it. None when they share no prefix
/// or neither the body nor the shape (a transcript's tools and system
/// prompt) of either is recorded.
pub(super) fn across_conversations(
    other: &Exchange,
    x: &Exchange,
    u: &Usage,
    model: &ModelInfo,
) -> Option<Miss> {
    // The bodies, else the tools and system prompt a transcript records.
    let (a, b) = (body(other)?, body(x)?);
    let m = compare_requests(a, b, u, model)?;
    if !matches!(m.kind, MissKind::Prefix | MissKind::Tools) {
        return None;
    }
    let held = if u.cache_read_input_tokens > 0 {
        format!(
            "whose prefix the provider still held (read {}, wrote {})",
            crate::plural(u.cache_read_input_tokens, "token"),
            crate::plural(u.cache_creation_input_tokens, "token")
        )
    } else {
        let when = match (other.at, x.at) {
            (Some(a), Some(b)) => format!(" {} before", fmt_gap(b - a)),
            _ => String::new(),
        };
        format!(
            "whose prefix the provider cached{when}; none of it was read: the two differ before the first point it was cached at, and {} were written again",
            crate::plural(u.cache_creation_input_tokens, "token")
        )
    };
    Some(Miss {
        detail: format!(
            "a new conversation ({}) that starts as {} did, {held}: {}",
            chain_phrase(&x.chain),
            chain_phrase(&other.chain),
            m.detail
                .replace("the previous request", "that conversation's request")
        ),
        ..m
    })
}

/// Whether `b` starts as `a` does but parts from it before any point `a`
/// was cached at (a breakpoint of `a` among the positions both share):
/// the provider then holds nothing `b` could read, though it holds `a`'s
/// prefix. False when they share nothing.
pub(super) fn parts_before_a_breakpoint(a: &Request, b: &Request) -> bool {
    let mut shared = shared_prefix(a, b).peekable();
    shared.peek().is_some() && shared.all(|p| !p.breakpoint)
}

/// A request's body, else the tools and system prompt its transcript
/// records.
pub(super) fn body(e: &Exchange) -> Option<&std::sync::Arc<Request>> {
    e.request.as_ref().or(e.shape.as_ref())
}

/// How many positions two requests share from their start.
pub(super) fn shared_positions(a: &Request, b: &Request) -> usize {
    shared_prefix(a, b).count()
}

/// `a`'s positions that `b` starts with, in order (same label and text).
fn shared_prefix<'r>(
    a: &'r Request,
    b: &'r Request,
) -> impl Iterator<Item = crate::request::Position<'r>> + 'r {
    a.each_position()
        .zip(b.each_position())
        .take_while(|(p, q)| p.label == q.label && p.text == q.text)
        .map(|(p, _)| p)
}

fn prefix(label: &str, before: &str, after: &str, model: &ModelInfo) -> Miss {
    let off = crate::cache::shape::first_difference(before, after);
    let chars = before[..off.min(before.len())].chars().count();
    // Some of what both share, so the change reads in its place.
    let lead = crate::compare::diff::lead(before, off);
    let m = miss(
        MissKind::Prefix,
        format!(
            "{label} differs from the previous request at character {}: “{lead}{}” → “{lead}{}”; everything from there on is {}",
            crate::thousands(chars),
            crate::compare::diff::excerpt(before, off, 24),
            crate::compare::diff::excerpt(after, off, 24),
            if model.provider == crate::Provider::Anthropic {
                "written again"
            } else {
                "not read from the cache"
            }
        ),
    );
    Miss {
        position: Some(label.to_string()),
        ..m
    }
}

fn join(v: &[&String]) -> String {
    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod provider_miss_tests {
    use super::*;

    #[test]
    fn a_null_miss_reason_is_no_diagnosis() {
        assert_eq!(ProviderMiss::of(Some(&Value::Null)), None);
        assert_eq!(ProviderMiss::of(None), None);
        let v = serde_json::json!({"type": "system_changed", "cache_missed_input_tokens": 900});
        assert_eq!(
            ProviderMiss::of(Some(&v)),
            Some(ProviderMiss {
                kind: "system_changed".into(),
                missed: Some(900)
            })
        );
    }
}
