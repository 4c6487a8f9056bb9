//! Text and JSON views of analysed traffic.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Value, json};

use super::{Miss, Part, Row, Traffic};
use crate::text::thousands;

/// The JSON view (schema 1: source, requests, totals, skipped) as
/// pretty-printed text and a line break, written a block of requests at a
/// time rather than built as one tree of every request: each block's
/// requests are written on every core, then in order. The text is
/// `serde_json`'s pretty printing of the whole, byte for byte.
pub fn write_json(t: &Traffic, mut w: impl std::io::Write) -> std::io::Result<()> {
    struct Requests<'a>(&'a [Row]);
    impl Serialize for Requests<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().map(RequestJson::of))
        }
    }
    struct Report<'a>(&'a Traffic, &'a [Row]);
    impl Serialize for Report<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let t = self.0;
            let mut m = s.serialize_map(Some(5))?;
            m.serialize_entry("schema", &1)?;
            m.serialize_entry("source", t.source.as_str())?;
            m.serialize_entry("requests", &Requests(self.1))?;
            m.serialize_entry("totals", &totals_json(t))?;
            m.serialize_entry("skipped", &t.skipped)?;
            m.end()
        }
    }
    // The report without its requests, opened where they go (the first
    // key after `schema` and `source`, whose values hold no such text).
    let mut whole = serde_json::to_vec_pretty(&Report(t, &[]))?;
    whole.push(b'\n');
    const EMPTY: &[u8] = b"\"requests\": []";
    let at = match memchr::memmem::find(&whole, EMPTY) {
        Some(at) if !t.requests.is_empty() => at + EMPTY.len() - 1,
        _ => return w.write_all(&whole),
    };
    w.write_all(&whole[..at])?;
    for (i, block) in t.requests.chunks(JSON_BLOCK).enumerate() {
        for text in requests_json(block, i == 0) {
            w.write_all(&text)?;
        }
    }
    w.write_all(b"\n  ")?;
    w.write_all(&whole[at..])
}

/// Requests written together at most by [`write_json`].
const JSON_BLOCK: usize = 2048;

/// The requests of `block` as they stand in the report's list (each after
/// its comma, a line break and its indent, its own lines indented too), a
/// run per core.
fn requests_json(block: &[Row], first: bool) -> Vec<Vec<u8>> {
    let run = |rows: &[Row], mut first: bool| {
        let (mut out, mut one) = (Vec::new(), Vec::new());
        for r in rows {
            one.clear();
            // Writing to memory fails on nothing but memory.
            let _ = serde_json::to_writer_pretty(&mut one, &RequestJson::of(r));
            out.extend_from_slice(if first { b"\n    " } else { b",\n    " });
            first = false;
            let mut rest = &one[..];
            while let Some(n) = memchr::memchr(b'\n', rest) {
                out.extend_from_slice(&rest[..=n]);
                out.extend_from_slice(b"    ");
                rest = &rest[n + 1..];
            }
            out.extend_from_slice(rest);
        }
        out
    };
    let cores = crate::assembly::tokens::cores().min(block.len()).max(1);
    if cores == 1 {
        return vec![run(block, first)];
    }
    let per = block.len().div_ceil(cores);
    std::thread::scope(|s| {
        let runs: Vec<_> = block
            .chunks(per)
            .enumerate()
            .map(|(i, rows)| s.spawn(move || run(rows, first && i == 0)))
            .collect();
        runs.into_iter()
            .map(|h| h.join().expect("a writing thread panicked"))
            .collect()
    })
}

/// [`write_json`] into a string.
pub fn to_json_text(t: &Traffic) -> String {
    let mut text = Vec::new();
    // Writing to memory fails on nothing but memory.
    let _ = write_json(t, &mut text);
    String::from_utf8(text).unwrap_or_default()
}

/// One request of [`write_json`], serialized as it is (no tree of its parts).
#[derive(Serialize)]
struct RequestJson<'a> {
    index: usize,
    time: &'a str,
    chain: &'a str,
    model: &'a str,
    input_tokens: u64,
    cache_creation_input_tokens: u64,
    cache_read_input_tokens: u64,
    output_tokens: u64,
    /// False when the answer reported no usage: its figures are 0 in JSON
    /// (numbers in every row) and "–" in every table.
    usage_reported: bool,
    /// No price (a model not in the table) or no usage reported: null, not 0.
    cost_usd: Option<f64>,
    priced: bool,
    miss: Option<&'a Miss>,
    error: Option<&'a str>,
    status: Option<u16>,
    parts: &'a [Part],
    parts_counted_by: Option<&'a str>,
    parts_tokens: Option<u64>,
    reported_prompt_tokens: Option<u64>,
    parts_summary: Option<String>,
    /// The provider's prompt tokens less the parts' sum, when they differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    unaccounted_tokens: Option<i64>,
    /// Advisor calls within the request (priced in `cost_usd`).
    #[serde(skip_serializing_if = "is_zero")]
    advisor_calls: usize,
    /// What the agent itself says the request cost.
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_cost_usd: Option<f64>,
    /// The agent and release that sent it, and where that was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    release: Option<&'a super::release::Release>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl<'a> RequestJson<'a> {
    fn of(r: &'a Row) -> Self {
        let u = r.usage.unwrap_or_default();
        let some = !r.parts.parts.is_empty();
        RequestJson {
            index: r.index,
            time: &r.time,
            chain: &r.chain,
            model: &r.model,
            input_tokens: u.input_tokens,
            cache_creation_input_tokens: u.cache_creation_input_tokens,
            cache_read_input_tokens: u.cache_read_input_tokens,
            output_tokens: u.output_tokens,
            usage_reported: r.usage.is_some(),
            cost_usd: r.cost().usd().map(|c| (c * 1e6).round() / 1e6),
            priced: r.priced,
            miss: r.miss.as_ref(),
            error: r.error.as_deref(),
            status: r.status,
            parts: &r.parts.parts,
            parts_counted_by: some.then_some(r.parts.counted_by.as_str()),
            parts_tokens: some.then(|| r.parts.sum()),
            reported_prompt_tokens: r.parts.reported,
            parts_summary: some.then(|| r.parts.summary()),
            unaccounted_tokens: r.parts.unaccounted().map(|u| u.1),
            advisor_calls: r.advisor_calls,
            agent_cost_usd: r.agent_cost_usd.map(|c| (c * 1e6).round() / 1e6),
            release: r.release.as_ref(),
        }
    }
}

/// The totals of [`write_json`].
fn totals_json(t: &Traffic) -> Value {
    let mut v = json!({
        "requests": t.totals.requests,
        "input_tokens": t.totals.input_tokens,
        "cache_creation_input_tokens": t.totals.cache_creation_input_tokens,
        "cache_read_input_tokens": t.totals.cache_read_input_tokens,
        "output_tokens": t.totals.output_tokens,
        "cost_usd": (t.totals.cost_usd * 1e6).round() / 1e6,
        "hit_ratio": (t.totals.hit_ratio * 1e4).round() / 1e4,
        "by_kind": t.totals.by_kind.iter().map(|k| json!({
            "kind": k.kind, "requests": k.requests,
            "extra_cost_usd": (k.extra_cost_usd * 1e6).round() / 1e6,
        })).collect::<Vec<_>>(),
        "counterfactual": t.totals.counterfactual,
        "unpriced_models": t.totals.unpriced_models,
        "fast_at_standard_rates": t.totals.fast_at_standard_rates,
    });
    if let Some(c) = t.totals.agent_cost_usd {
        v["agent_cost_usd"] = json!((c * 1e6).round() / 1e6);
    }
    v
}

/// The text view; with `parts`, each recorded request's parts (tools,
/// system blocks, messages) with their tokens, as the window lists them.
pub fn to_text(t: &Traffic, parts: bool) -> String {
    let mut o = format!(
        "traffic from {} · {}\n\n",
        t.source.a_noun(),
        crate::plural(t.requests.len(), "request")
    );
    for line in super::release::summary(t) {
        o += &format!("{line}\n");
    }
    if t.requests.iter().any(|r| r.release.is_some()) {
        o += "\n";
    }
    // The totals' words (uncached, written, read), as in every view.
    o += &format!(
        "{:>3}  {:<25} {:<12} {:<20} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
        "#", "time", "chain", "model", "uncached", "written", "read", "output", "cost $"
    );
    for r in &t.requests {
        let [uncached, written, read, output] = figures(r);
        o += &format!(
            "{:>3}  {:<25} {:<12} {:<20} {:>8} {:>8} {:>8} {:>8} {:>8}\n",
            r.index,
            cut(&r.time, 25),
            cut(&r.chain, 12),
            cut(&r.model, 20),
            uncached,
            written,
            read,
            output,
            r.cost().cell("-")
        );
        if let Some(m) = &r.miss {
            o += &format!("       · {}: {}\n", m.kind, m.detail);
        }
        if let Some(e) = &r.error {
            o += &format!("       · error: {e}\n");
        }
        if parts && !r.parts.parts.is_empty() {
            for p in &r.parts.parts {
                o += &format!(
                    "       {:>8}  {}{}\n",
                    thousands(p.tokens),
                    p.label,
                    if p.breakpoint { " · breakpoint" } else { "" }
                );
            }
            if let Some((what, d)) = r.parts.unaccounted() {
                o += &format!("       {:>+8}  ({what})\n", d);
            }
            o += &format!("       {}\n", r.parts.summary());
        }
    }
    o += &format!("\ntotals: {}\n", t.totals.headline());
    for n in notes(t) {
        o += &format!("  {n}\n");
    }
    o
}

/// The lines under the totals, in every view: what each class of miss
/// cost, the 1-hour counterfactual, the models without a price, the lines
/// not read.
pub fn notes(t: &Traffic) -> Vec<String> {
    let x = &t.totals;
    let mut v: Vec<String> = x
        .by_kind
        .iter()
        .map(|k| {
            format!(
                "{} ({}): {}",
                k.kind,
                crate::plural(k.requests, "request"),
                k.cost_phrase()
            )
        })
        .collect();
    v.extend(x.counterfactual.clone());
    if !x.unpriced_models.is_empty() {
        v.push(format!(
            "not priced (not in the model table, assets/models.json): {}",
            x.unpriced_models.join(", ")
        ));
    }
    if !x.fast_at_standard_rates.is_empty() {
        v.push(format!(
            "fast mode priced at standard rates, a lower bound: the model table has no fast-mode price for {} (no *_ultrafast rates, no documented multiple)",
            x.fast_at_standard_rates.join(", ")
        ));
    }
    v.extend(t.skipped.describe());
    v
}

/// `text` cut to `n` characters, an ellipsis marking the cut.
fn cut(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        return text.to_string();
    }
    let mut s: String = text.chars().take(n - 1).collect();
    s.push('…');
    s
}

/// A request's uncached, written, read and output tokens as the tables
/// write them: "–" for each when its answer reported no usage (as the
/// window's table), never a 0 nobody reported.
pub(super) fn figures(r: &Row) -> [String; 4] {
    match r.usage {
        Some(u) => [
            u.input_tokens,
            u.cache_creation_input_tokens,
            u.cache_read_input_tokens,
            u.output_tokens,
        ]
        .map(thousands),
        None => std::array::from_fn(|_| "–".to_string()),
    }
}

/// Fit for an issue or a pull-request comment: a table of the requests
/// with the reason for each write or miss, then the totals.
pub fn to_markdown(t: &Traffic) -> String {
    use crate::{md_cell, md_code};
    let mut o = format!(
        "### Traffic: {} from {}\n\n| # | time | chain | model | uncached | written | read | output | cost $ | why |\n|---:|---|---|---|---:|---:|---:|---:|---:|---|\n",
        crate::plural(t.requests.len(), "request"),
        t.source.a_noun()
    );
    for r in &t.requests {
        let [uncached, written, read, output] = figures(r);
        let why = match (&r.miss, &r.error) {
            (_, Some(e)) => format!("error: {}", md_cell(e)),
            (Some(m), None) => format!("**{}**: {}", m.kind, md_cell(&m.detail)),
            (None, None) => String::new(),
        };
        o += &format!(
            "| {} | {} | {} | `{}` | {} | {} | {} | {} | {} | {} |\n",
            r.index,
            md_cell(&r.time),
            md_cell(&r.chain),
            md_code(&r.model),
            uncached,
            written,
            read,
            output,
            r.cost().cell("no price"),
            why
        );
    }
    o += &format!("\n**Totals**: {}\n\n", t.totals.headline());
    for n in super::release::summary(t).into_iter().chain(notes(t)) {
        o += &format!("- {}\n", md_cell(&n));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `write_json` as one pretty-printed tree of the whole (what it was
    /// before it wrote blocks on every core).
    fn as_one_tree(t: &Traffic) -> Vec<u8> {
        let requests: Vec<_> = t.requests.iter().map(RequestJson::of).collect();
        let mut v = serde_json::to_vec_pretty(&serde_json::json!({
            "schema": 1,
            "source": t.source.as_str(),
            "requests": requests,
            "totals": totals_json(t),
            "skipped": t.skipped,
        }))
        .unwrap();
        v.push(b'\n');
        v
    }

    #[test]
    fn the_json_written_in_blocks_on_every_core_is_the_whole_printed_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        let line = |i: usize| {
            format!(
                r#"{{"endpoint":"/v1/messages","ts_start":"2026-12-01T00:00:{:02}Z","model":"claude-sonnet-4-6","usage":{{"input_tokens":{i},"cache_creation_input_tokens":{},"cache_read_input_tokens":0,"output_tokens":3}},"request":{{"model":"claude-sonnet-4-6","system":[{{"type":"text","text":"You are K{}.\nBe \"brief\".","cache_control":{{"type":"ephemeral"}}}}],"messages":[{{"role":"user","content":"step {i}"}}]}}}}"#,
                i % 60,
                i % 7,
                i % 3
            )
        };
        let table = crate::assembly::models::ModelTable::bundled();
        let counter = crate::TokenCounter::new();
        for n in [0, 1, 2, JSON_BLOCK + 3] {
            let text: Vec<String> = (0..n).map(line).collect();
            std::fs::write(&path, text.join("\n")).unwrap();
            let t = crate::traffic::read(&path, &table, &counter).unwrap();
            assert_eq!(t.requests.len(), n);
            let mut blocks = Vec::new();
            write_json(&t, &mut blocks).unwrap();
            let whole = as_one_tree(&t);
            assert!(
                blocks == whole,
                "{n} requests:\n{}\n---\n{}",
                String::from_utf8_lossy(&blocks[..blocks.len().min(3000)]),
                String::from_utf8_lossy(&whole[..whole.len().min(3000)])
            );
        }
    }
}
