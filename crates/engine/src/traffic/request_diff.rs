//! Two recorded requests compared by the diff engine, with the provider's
//! cause when it is not the prompt (an expired TTL, from the same
//! analysis as every traffic view): what `traffic --diff N` and the Diff
//! view of the Traffic tab show.

use super::Exchange;
use super::request::request_snapshot;
use crate::assembly::models::ModelTable;

/// Request `index` (1-based) of a capture's exchanges compared with the
/// previous request of its chain, by the diff engine: what the Diff view
/// shows for a recorded request.
pub fn diff_at(
    exchanges: &[Exchange],
    index: usize,
    counter: &crate::TokenCounter,
    table: &ModelTable,
) -> Result<crate::compare::diff::Diff, crate::error::Error> {
    let i = index
        .checked_sub(1)
        .filter(|&i| i < exchanges.len())
        .ok_or(crate::error::Error::NoRequest {
            number: index,
            recorded: exchanges.len(),
        })?;
    let x = &exchanges[i];
    if let Some(p) = exchanges[..i].iter().rposition(|p| p.chain == x.chain) {
        return diff_between(exchanges, p + 1, index, counter, table);
    }
    // The first of its chain (a new session, a system block changed in the
    // middle of a conversation): compared with the nearest earlier request
    // that shares a prefix with it, whatever its chain, and said.
    let (p, shared) = nearest_sharing_prefix(exchanges, i).ok_or_else(|| {
        // The earlier requests searched: all of them, or the nearest 500.
        let searched = match i {
            0 => "there is no earlier request".to_string(),
            1 => "the request before it shares no prefix with it".to_string(),
            n if n <= NEAREST_SEARCHED => {
                format!("none of the {n} requests before it shares a prefix with it")
            }
            _ => format!("none of the {NEAREST_SEARCHED} requests before it shares a prefix with it"),
        };
        crate::error::Error::invalid(
            "",
            format!(
                "request #{index} is the first of its chain ({}) and {searched}: nothing to compare",
                x.chain
            ),
        )
    })?;
    let mut d = diff_between(exchanges, p + 1, index, counter, table)?;
    d.a = format!(
        "request #{} (chain {}: the nearest earlier request sharing a prefix with #{index}, {} positions)",
        p + 1,
        exchanges[p].chain,
        shared
    );
    Ok(d)
}

/// Earlier requests searched for a shared prefix at most.
pub const NEAREST_SEARCHED: usize = 500;

/// The earlier request (of the [`NEAREST_SEARCHED`] before `i`, with a
/// recorded body) whose positions share the longest prefix with request
/// `i`'s, the nearest of equals; with the positions shared. None when none
/// shares one.
fn nearest_sharing_prefix(exchanges: &[Exchange], i: usize) -> Option<(usize, usize)> {
    let req = exchanges[i].request.as_ref()?;
    let mine = req.positions();
    let mut best: Option<(usize, usize)> = None;
    for p in (i.saturating_sub(NEAREST_SEARCHED)..i).rev() {
        let Some(other) = exchanges[p].request.as_ref() else {
            continue;
        };
        let shared = other
            .each_position()
            .zip(&mine)
            .take_while(|(p, m)| p.label == m.label && p.text == m.text)
            .count();
        if shared > 0 && best.is_none_or(|(_, s)| shared > s) {
            best = Some((p, shared));
        }
    }
    best
}

/// Request `a` of one list compared with request `b` of another (two
/// captures, or two chains), labelled as given.
pub fn diff_across(
    (xa, a, la): (&Exchange, usize, &str),
    (xb, b, lb): (&Exchange, usize, &str),
    counter: &crate::TokenCounter,
    table: &ModelTable,
) -> Result<crate::compare::diff::Diff, crate::error::Error> {
    diff_of((xa, a, la), (xb, b, lb), counter, table)
}

/// Two recorded requests (each with its number and label) compared, their
/// breakpoints judged by the minimum the recorded figures allow.
fn diff_of(
    (xa, a, la): (&Exchange, usize, &str),
    (xb, b, lb): (&Exchange, usize, &str),
    counter: &crate::TokenCounter,
    table: &ModelTable,
) -> Result<crate::compare::diff::Diff, crate::error::Error> {
    let sa = request_snapshot(xa, a, counter, table)?;
    let min = minimum((xa, sa.total_tokens), xb, table);
    let sb = request_snapshot(xb, b, counter, table)?;
    Ok(crate::compare::diff::diff(&sa, &sb, (la, lb), min))
}

/// Requests `a` and `b` (1-based) of a capture compared by the diff
/// engine; when `a` is the request of `b`'s chain just before it, with
/// the provider's cause when it is not the prompt (an expired TTL).
pub fn diff_between(
    exchanges: &[Exchange],
    a: usize,
    b: usize,
    counter: &crate::TokenCounter,
    table: &ModelTable,
) -> Result<crate::compare::diff::Diff, crate::error::Error> {
    let get = |n: usize| {
        n.checked_sub(1)
            .and_then(|i| exchanges.get(i))
            .ok_or(crate::error::Error::NoRequest {
                number: n,
                recorded: exchanges.len(),
            })
    };
    let (xa, xb) = (get(a)?, get(b)?);
    let (la, lb) = (format!("request #{a}"), format!("request #{b}"));
    let mut d = diff_of((xa, a, &la), (xb, b, &lb), counter, table)?;
    let previous = exchanges[..b - 1].iter().rposition(|p| p.chain == xb.chain);
    if previous == Some(a - 1) {
        with_cause(&mut d, xa, xb, table);
    }
    Ok(d)
}

/// What the provider's figures say of request `x` when it is not the
/// prompt: an expired TTL (the analysis' own explanation), with the
/// tokens it wrote; its breakpoints then expired, not still valid.
fn with_cause(
    d: &mut crate::compare::diff::Diff,
    prev: &Exchange,
    x: &Exchange,
    table: &ModelTable,
) {
    let Some(u) = x.usage else { return };
    let m = super::explain::explain(x, Some(prev), &u, table.resolve(Some(&x.model)));
    if m.kind != super::MissKind::Ttl {
        not_read(d, &u);
        return;
    }
    let gap =
        x.at.zip(prev.at)
            .map_or(0, |(b, a)| (b - a).max(0.0) as u64);
    let ttl = m.expired_ttl.unwrap_or(300);
    d.cause = Some(format!(
        "expired after {} (the {} TTL): {} written again",
        crate::text::duration(gap),
        if ttl > 300 { "1h" } else { "5m" },
        crate::plural(u.cache_creation_input_tokens, "token")
    ));
    for b in d
        .breakpoints
        .iter_mut()
        .filter(|b| !b.new && !b.invalidated)
    {
        b.expired = true;
    }
}

/// The shortest prefix the model of request `b` caches, in the tokens
/// counted here: the table's, unless request `a` was recorded caching a
/// shorter one (a table out of date for the model, or an upstream with
/// rules of its own), then the smallest minimum of the model's provider,
/// as the recorded figures allow; scaled by what `a` counts here
/// (`counted`) against what its provider counted.
fn minimum((a, counted): (&Exchange, u64), b: &Exchange, table: &ModelTable) -> u64 {
    let m = table.resolve(Some(&b.model));
    let Some(u) = a.usage else {
        return m.min_cacheable_tokens;
    };
    let cached = u.cache_read_input_tokens + u.cache_creation_input_tokens;
    let min = if cached == 0 || cached >= m.min_cacheable_tokens {
        m.min_cacheable_tokens
    } else {
        table
            .models
            .iter()
            .filter(|r| r.provider == m.provider)
            .map(|r| r.min_cacheable_tokens)
            .min()
            .unwrap_or(0)
            .min(cached)
    };
    match u.input().total() {
        0 => min,
        sent => (min as f64 * counted as f64 / sent as f64).round() as u64,
    }
}

/// The provider read nothing of a request whose text leaves breakpoints
/// valid: what they held was not in its cache (a prefix under its minimum
/// cacheable length, or evicted), and the request wrote it again.
fn not_read(d: &mut crate::compare::diff::Diff, u: &crate::Usage) {
    if u.cache_read_input_tokens > 0 {
        return;
    }
    let mut valid = d
        .breakpoints
        .iter_mut()
        .filter(|b| !b.new && !b.invalidated && !b.below_minimum)
        .peekable();
    let Some(first) = valid.peek() else { return };
    let through = format!(
        "{} ({} tokens here)",
        first.name,
        crate::thousands(first.prefix_tokens)
    );
    for b in valid {
        b.not_read = true;
    }
    d.cause = Some(format!(
        "the provider read nothing: {} written, the prefix through {through} included, which the text leaves valid (under the provider's minimum cacheable length, or evicted)",
        crate::plural(u.cache_creation_input_tokens, "token"),
    ));
}
