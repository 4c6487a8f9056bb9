//! The Traffic table's rows: which requests its filters (chain, miss kind,
//! text) keep, and their order under the sorted column.

use super::{Col, TableState};
use crate::engine::traffic::{MissKind, Row, Traffic, timeline};

/// Whether a request's model, chain, reason, error or status holds `text`
/// (any case).
pub(super) fn matches_text(r: &Row, text: &str) -> bool {
    let text = text.trim();
    if text.is_empty() {
        return true;
    }
    let needle = text.to_lowercase();
    let holds = |s: &str| s.to_lowercase().contains(&needle);
    holds(&r.model)
        || holds(&r.chain)
        || r.miss
            .as_ref()
            .is_some_and(|m| holds(&format!("{}: {}", m.kind, m.detail)))
        || r.error.as_deref().is_some_and(holds)
        || r.status.is_some_and(|st| holds(&format!("HTTP {st}")))
        || holds(&format!("#{}", r.index))
}

pub(super) fn kind_of(r: &Row) -> Option<MissKind> {
    r.miss.as_ref().map(|m| m.kind)
}

/// The rows shown, in the order shown.
pub fn visible<'t>(t: &'t Traffic, s: &TableState) -> Vec<&'t Row> {
    visible_indices(t, s)
        .into_iter()
        .map(|i| &t.requests[i])
        .collect()
}

/// [`visible`], as indices in the traffic.
pub(super) fn visible_indices(t: &Traffic, s: &TableState) -> Vec<usize> {
    let mut rows: Vec<usize> = t
        .requests
        .iter()
        .enumerate()
        .filter(|(_, r)| passes(r, s))
        .map(|(i, _)| i)
        .collect();
    rows.sort_by(|&a, &b| order(t, s, &t.requests[a], &t.requests[b]));
    rows
}

/// Whether a row passes the chain, miss-kind and text filters.
pub(super) fn passes(r: &Row, s: &TableState) -> bool {
    s.chain.as_ref().is_none_or(|c| *c == r.chain)
        && kind_of(r).is_none_or(|k| !s.hidden.contains(&k))
        && matches_text(r, &s.text)
}

/// Two rows' order in the table: by the sorted column, then by number.
pub(super) fn order(t: &Traffic, s: &TableState, a: &Row, b: &Row) -> std::cmp::Ordering {
    let u = |r: &Row| r.usage.unwrap_or_default();
    let f = |x: Option<f64>| x.unwrap_or(f64::NEG_INFINITY);
    {
        let o = match s.sort {
            Col::Index => a.index.cmp(&b.index),
            Col::Time => f(a.at).total_cmp(&f(b.at)).then(a.index.cmp(&b.index)),
            Col::Gap => f(timeline::gap(t, a)).total_cmp(&f(timeline::gap(t, b))),
            Col::Chain => a.chain.cmp(&b.chain),
            Col::Model => a.model.cmp(&b.model),
            Col::Status => a.status.cmp(&b.status),
            Col::Latency => a.latency_ms.cmp(&b.latency_ms),
            Col::Input => u(a).input_tokens.cmp(&u(b).input_tokens),
            Col::Written => u(a)
                .cache_creation_input_tokens
                .cmp(&u(b).cache_creation_input_tokens),
            Col::Read => u(a)
                .cache_read_input_tokens
                .cmp(&u(b).cache_read_input_tokens),
            Col::Output => u(a).output_tokens.cmp(&u(b).output_tokens),
            Col::Cost => a.cost_usd.total_cmp(&b.cost_usd),
            Col::Reason => kind_of(a)
                .map(|k| k.to_string())
                .cmp(&kind_of(b).map(|k| k.to_string())),
        };
        let o = o.then(a.index.cmp(&b.index));
        if s.ascending { o } else { o.reverse() }
    }
}
