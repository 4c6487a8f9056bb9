//! A traffic's totals: tokens read, written and uncached, the cost, the
//! hit ratio, and the cost of each class of miss, in the one headline
//! every view shows.

use serde::Serialize;

use super::MissKind;

impl KindCost {
    /// What this class cost, in words every view uses: the first writes
    /// and a growing conversation's are expected, the others are waste.
    pub fn cost_phrase(&self) -> String {
        let usd = format!("${:.5}", self.extra_cost_usd);
        match self.kind {
            MissKind::Cold => {
                format!("nothing cached yet, unavoidable: {usd} beyond reading them")
            }
            MissKind::Growth => {
                format!("new turns written, as expected: {usd} beyond reading them")
            }
            MissKind::Shared => {
                format!(
                    "a new conversation's own turns, after the shared start: {usd} beyond reading them"
                )
            }
            // Under the model's minimum nothing is cached, nor could be:
            // no cost of a miss to count.
            MissKind::Minimum if self.extra_cost_usd == 0.0 => {
                "prompts under the model's minimum cacheable length: not cacheable, nothing lost"
                    .into()
            }
            _ => format!("{usd} more than reading from the cache would have cost"),
        }
    }
}

/// The cost one class of miss caused.
#[derive(Debug, Clone, Serialize)]
pub struct KindCost {
    pub kind: MissKind,
    pub requests: usize,
    /// What the writes of these requests cost beyond reading the same
    /// tokens from the cache.
    pub extra_cost_usd: f64,
}

impl Totals {
    /// The totals in one line, as every view shows them.
    pub fn headline(&self) -> String {
        if self.requests == 0 {
            return "no requests yet".into();
        }
        // No answer reported a usage (every request failed): no ratio to
        // give, rather than 0 %.
        if self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens == 0
        {
            return format!(
                "no answer reported its usage ({}: failed, or answered without one): no hit ratio",
                crate::plural(self.requests, "request")
            );
        }
        format!(
            "read {} · written {} · uncached {} · output {} · ${:.5}{} · hit ratio {:.1}%",
            crate::thousands(self.cache_read_input_tokens),
            crate::thousands(self.cache_creation_input_tokens),
            crate::thousands(self.input_tokens),
            crate::thousands(self.output_tokens),
            self.cost_usd,
            self.agent_cost_usd.map_or(String::new(), |c| format!(
                " (the agent's own figure: ${c:.5})"
            )),
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
    /// Models of requests sent in fast mode (`speed: "fast"`) that the
    /// model table has no fast-mode price for (no `*_ultrafast` rates, no
    /// documented multiple): priced at standard rates, a lower bound.
    pub fast_at_standard_rates: Vec<String>,
    /// What the agent itself says the requests cost, when it says
    /// (Claude Code's transcripts), beside ours.
    pub agent_cost_usd: Option<f64>,
}
