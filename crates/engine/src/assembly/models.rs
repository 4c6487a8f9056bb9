//! The model table: vendor data (context windows, minimum cacheable lengths,
//! prices) loaded from `assets/models.json`, never written in code.

use serde::{Deserialize, Serialize};

use crate::assembly::tokens::Encoding;

/// The table shipped in `assets/`. `PROMPT_INSPECTOR_MODELS` may point to
/// another file with the same shape (see [`ModelTable::from_files`]).
pub const BUNDLED_TABLE: &str = include_str!("../../assets/models.json");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    Anthropic,
    Openai,
    /// A llama.cpp-style server that reuses the longest common token prefix.
    Prefix,
    /// Gemini's implicit caching: a recent request's prefix read when it
    /// reaches the model's minimum, nothing to mark, no writes billed.
    Gemini,
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::Openai => "openai",
            Provider::Prefix => "prefix",
            Provider::Gemini => "gemini",
        }
    }

    /// The API this provider's endpoint speaks (a local prefix-caching
    /// server: the OpenAI-compatible Chat API, as llama.cpp serves it).
    pub fn api(self) -> crate::request::Api {
        use crate::request::Api;
        match self {
            Provider::Anthropic => Api::AnthropicMessages,
            Provider::Openai | Provider::Prefix => Api::ChatCompletions,
            Provider::Gemini => Api::Gemini,
        }
    }

    pub fn parse(s: &str) -> Option<Provider> {
        match s.to_ascii_lowercase().as_str() {
            "anthropic" => Some(Provider::Anthropic),
            "openai" => Some(Provider::Openai),
            "prefix" | "local" | "llama" => Some(Provider::Prefix),
            "gemini" | "google" => Some(Provider::Gemini),
            _ => None,
        }
    }
}

/// Where a model is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Lifecycle {
    #[default]
    Active,
    /// Still served, with an announced end.
    Deprecated,
    /// No longer served.
    Retired,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ModelInfo {
    pub id: String,
    pub provider: Provider,
    pub tokenizer: Encoding,
    /// True when `tokenizer` only approximates the vendor's own tokenizer.
    pub estimate: bool,
    pub context_window: u64,
    #[serde(default)]
    pub max_output: u64,
    pub min_cacheable_tokens: u64,
    /// Prices in USD per million tokens.
    pub input_per_mtok: f64,
    /// Writing the cache with a 5-minute TTL (default 1.25× input).
    #[serde(default)]
    pub cache_write_5m_per_mtok: Option<f64>,
    /// Writing the cache with a 1-hour TTL (default 2× input).
    #[serde(default)]
    pub cache_write_1h_per_mtok: Option<f64>,
    /// Reading the cache (default 0.1× input for Anthropic, the input price
    /// for others).
    #[serde(default, alias = "cached_input_per_mtok")]
    pub cache_read_per_mtok: Option<f64>,
    #[serde(default)]
    pub output_per_mtok: f64,
    #[serde(default)]
    pub status: Lifecycle,
    /// When it is or was retired (YYYY-MM-DD).
    #[serde(default)]
    pub retires: Option<String>,
    /// The current model to use instead.
    #[serde(default)]
    pub successor: Option<String>,
    /// The page its figures were taken from, and when.
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub as_of: Option<String>,
    /// Long-context tiers: a request whose prompt is over a tier's
    /// `above_tokens` is priced whole at its rates (LiteLLM's
    /// `*_above_Nk_tokens`), the highest tier it passes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tiers: Vec<Rates>,
    /// The fast speed's rates (a usage with `speed: "fast"`; LiteLLM's
    /// `*_ultrafast`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast: Option<Rates>,
    /// Where the table has no fast rates: the vendor's multiple of the
    /// standard rates at the fast speed (Anthropic documents it per model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_multiplier: Option<f64>,
}

/// Prices (USD per million tokens) that replace a model's base ones: for
/// prompts over `above_tokens` (a long-context tier), or at the fast speed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    #[serde(default, skip_serializing_if = "is_zero")]
    pub above_tokens: u64,
    pub input_per_mtok: Option<f64>,
    pub output_per_mtok: Option<f64>,
    pub cache_write_5m_per_mtok: Option<f64>,
    pub cache_write_1h_per_mtok: Option<f64>,
    pub cache_read_per_mtok: Option<f64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl ModelInfo {
    /// Its window as an agent runs it: the agent's window as its release
    /// was recorded, for the model it was recorded with; else the table's.
    pub fn window_with(&self, agent: Option<&crate::workspace::agents::builtin::Builtin>) -> u64 {
        match agent {
            Some(b) if b.model.as_deref().is_none_or(|m| m == self.id) => {
                b.context_window.unwrap_or(self.context_window)
            }
            _ => self.context_window,
        }
    }
    /// The model's prices for one request: of the highest long-context tier
    /// its prompt (`prompt_tokens`, read, written and uncached) passes, and
    /// at the fast speed when `fast` (where the table has those rates; a
    /// price the tier does not set stays the base one).
    pub fn priced_for(&self, prompt_tokens: u64, fast: bool) -> std::borrow::Cow<'_, ModelInfo> {
        let tier = self
            .tiers
            .iter()
            .filter(|t| prompt_tokens > t.above_tokens)
            .max_by_key(|t| t.above_tokens);
        let multiple = self.fast_multiplier.filter(|_| fast && self.fast.is_none());
        let fast = self.fast.as_ref().filter(|_| fast);
        if tier.is_none() && fast.is_none() && multiple.is_none() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut m = self.clone();
        for r in tier.into_iter().chain(fast) {
            let set = |base: &mut f64, v: Option<f64>| *base = v.unwrap_or(*base);
            set(&mut m.input_per_mtok, r.input_per_mtok);
            set(&mut m.output_per_mtok, r.output_per_mtok);
            m.cache_write_5m_per_mtok = r.cache_write_5m_per_mtok.or(m.cache_write_5m_per_mtok);
            m.cache_write_1h_per_mtok = r.cache_write_1h_per_mtok.or(m.cache_write_1h_per_mtok);
            m.cache_read_per_mtok = r.cache_read_per_mtok.or(m.cache_read_per_mtok);
        }
        // The fast speed as a multiple of the (tier's) standard rates.
        if let Some(k) = multiple {
            let (w5, w1, r) = (m.write_5m_price(), m.write_1h_price(), m.read_price());
            m.input_per_mtok *= k;
            m.output_per_mtok *= k;
            m.cache_write_5m_per_mtok = Some(w5 * k);
            m.cache_write_1h_per_mtok = Some(w1 * k);
            m.cache_read_per_mtok = Some(r * k);
        }
        std::borrow::Cow::Owned(m)
    }

    pub fn write_5m_price(&self) -> f64 {
        self.cache_write_5m_per_mtok.unwrap_or(match self.provider {
            Provider::Anthropic => self.input_per_mtok * 1.25,
            // An implicit cache bills no write: the input price.
            _ => self.input_per_mtok,
        })
    }

    pub fn write_1h_price(&self) -> f64 {
        self.cache_write_1h_per_mtok.unwrap_or(match self.provider {
            Provider::Anthropic => self.input_per_mtok * 2.0,
            _ => self.input_per_mtok,
        })
    }

    pub fn read_price(&self) -> f64 {
        self.cache_read_per_mtok.unwrap_or(match self.provider {
            Provider::Anthropic => self.input_per_mtok * 0.1,
            _ => self.input_per_mtok,
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelTable {
    pub default_model: String,
    pub models: Vec<ModelInfo>,
    /// Each id's row, made at the first lookup (a traffic analysis looks a
    /// model up several times per request, in a table of a thousand rows).
    /// A hit is checked against the row; a miss is trusted only while the
    /// table has as many rows as when it was made.
    #[serde(skip)]
    index: std::sync::OnceLock<(usize, std::collections::HashMap<String, usize>)>,
}

impl ModelTable {
    /// A table of these rows.
    pub fn new(default_model: String, models: Vec<ModelInfo>) -> ModelTable {
        ModelTable {
            default_model,
            models,
            index: Default::default(),
        }
    }

    /// The row whose id is exactly `id`.
    fn find(&self, id: &str) -> Option<&ModelInfo> {
        let (rows, index) = self.index.get_or_init(|| {
            let mut m = std::collections::HashMap::with_capacity(self.models.len());
            for (i, row) in self.models.iter().enumerate() {
                m.entry(row.id.clone()).or_insert(i);
            }
            (self.models.len(), m)
        });
        match index.get(id).and_then(|&i| self.models.get(i)) {
            Some(m) if m.id == id => Some(m),
            None if *rows == self.models.len() => None,
            // Rows were changed since: looked for one by one.
            _ => self.models.iter().find(|m| m.id == id),
        }
    }
}

impl ModelTable {
    /// This tool's rows alone (`models.json`'s shape).
    pub fn parse(text: &str) -> Result<ModelTable, crate::error::Error> {
        let table: ModelTable = serde_json::from_str(text).map_err(|e| {
            crate::error::Error::invalid("", format!("model table, line {}: {e}", e.line()))
        })?;
        if table.models.is_empty() {
            return Err(crate::error::Error::invalid(
                "",
                "model table has no models",
            ));
        }
        // Every price finite and in range, the model and field named (a
        // price of 1e308 made costs infinite; a negative one, negative).
        for m in &table.models {
            let prices = [
                ("input_per_mtok", Some(m.input_per_mtok)),
                ("output_per_mtok", Some(m.output_per_mtok)),
                ("cache_write_5m_per_mtok", m.cache_write_5m_per_mtok),
                ("cache_write_1h_per_mtok", m.cache_write_1h_per_mtok),
                ("cache_read_per_mtok", m.cache_read_per_mtok),
            ];
            for (field, p) in prices {
                if let Some(p) = p
                    && !(p.is_finite() && (0.0..=100_000.0).contains(&p))
                {
                    return Err(crate::error::Error::invalid(
                        "",
                        format!(
                            "model table: model {}: {field} is {p}: not a price (USD per million tokens, 0 to 100,000)",
                            crate::clean(&m.id, 80)
                        ),
                    ));
                }
            }
            if let Some(k) = m.fast_multiplier
                && !(k.is_finite() && (1.0..=100.0).contains(&k))
            {
                return Err(crate::error::Error::invalid(
                    "",
                    format!(
                        "model table: model {}: fast_multiplier is {k}: not a multiple (1 to 100)",
                        crate::clean(&m.id, 80)
                    ),
                ));
            }
        }
        Ok(table)
    }

    /// The row for `id`, also when `id` names a dated snapshot of it as the
    /// vendors and clouds spell them (`claude-sonnet-4-5-20250929`,
    /// `claude-sonnet-4-5@20250929`, `anthropic.claude-sonnet-4-5-20250929-v1:0`,
    /// `gpt-4o-2024-08-06`).
    pub fn get(&self, id: &str) -> Option<&ModelInfo> {
        let find = |id: &str| self.find(id);
        if let Some(m) = find(id) {
            return Some(m);
        }
        let mut base = id.trim();
        base = base.strip_prefix("anthropic.").unwrap_or(base);
        if let Some((b, _)) = base.split_once('@') {
            base = b;
        }
        if let Some(i) = base.rfind("-v")
            && base[i + 2..].starts_with(|c: char| c.is_ascii_digit())
            && base[i + 2..].contains(':')
        {
            base = &base[..i];
        }
        // A trailing date: -YYYYMMDD or -YYYY-MM-DD.
        let dated = |s: &str| -> Option<usize> {
            let b = s.as_bytes();
            let digits = |r: std::ops::Range<usize>| {
                r.clone().all(|i| b.get(i).is_some_and(u8::is_ascii_digit))
            };
            let n = b.len();
            if n > 9 && b[n - 9] == b'-' && digits(n - 8..n) {
                return Some(n - 9);
            }
            if n > 11
                && b[n - 11] == b'-'
                && b[n - 6] == b'-'
                && b[n - 3] == b'-'
                && digits(n - 10..n - 6)
                && digits(n - 5..n - 3)
                && digits(n - 2..n)
            {
                return Some(n - 11);
            }
            None
        };
        if let Some(cut) = dated(base) {
            base = &base[..cut];
        }
        find(base)
    }

    pub fn default_model(&self) -> &ModelInfo {
        self.get(&self.default_model).unwrap_or(&self.models[0])
    }

    /// Why `id` is not a good choice today, and what to use: a retired or
    /// deprecated row names its successor; an unknown id names the nearest
    /// current one. `None` for a current model.
    pub fn advice(&self, id: &str) -> Option<String> {
        match self.get(id) {
            Some(m) => match m.status {
                Lifecycle::Active => None,
                s => Some(format!(
                    "model '{id}' is {}{}: use {}",
                    if s == Lifecycle::Retired {
                        "retired"
                    } else {
                        "deprecated"
                    },
                    m.retires
                        .as_deref()
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default(),
                    m.successor.as_deref().unwrap_or(&self.default_model)
                )),
            },
            // An alias Claude Code resolves (`opus`) is known: read by its
            // family's newest row, as the header says.
            None if self.alias(id).is_some() => None,
            None => Some(format!(
                "unknown model '{id}': the nearest current one is {} (add it to assets/models.json or PROMPT_INSPECTOR_MODELS)",
                self.nearest(id)
            )),
        }
    }

    /// The current model whose id is closest to `id` (common prefix, then
    /// edit distance, then the later version: `claude-opus-9-9` is nearest
    /// `claude-opus-5-5`).
    pub fn nearest(&self, id: &str) -> &str {
        self.nearest_row(id)
            .map_or(&self.default_model, |m| m.id.as_str())
    }

    fn nearest_row(&self, id: &str) -> Option<&ModelInfo> {
        use std::cmp::Reverse;
        fn score<'a>(m: &'a ModelInfo, id: &str) -> (Reverse<usize>, usize, Reverse<&'a str>) {
            let prefix =
                m.id.chars()
                    .zip(id.chars())
                    .take_while(|(a, b)| a == b)
                    .count();
            (
                Reverse(prefix),
                crate::text::edit_distance(&m.id, id),
                Reverse(m.id.as_str()),
            )
        }
        self.models
            .iter()
            .filter(|m| m.status == Lifecycle::Active)
            .min_by_key(|m| score(m, id))
    }

    /// A Claude Code model alias (`opus`, `sonnet`, `haiku`, `fable`, with
    /// `[1m]` or not; `opusplan` plans with opus): the newest row of that
    /// family in the table (`sonnet`: `claude-sonnet-5-5` over
    /// `claude-sonnet-5`). Claude Code resolves an alias for the account
    /// it runs with; the table's newest is this view's reading of it.
    pub fn alias(&self, id: &str) -> Option<&ModelInfo> {
        let bare = id.trim().to_ascii_lowercase();
        let bare = bare.trim_end_matches("[1m]").trim_end_matches("[2m]");
        let family = match bare {
            "opusplan" => "opus",
            f @ ("opus" | "sonnet" | "haiku" | "fable") => f,
            _ => return None,
        };
        let prefix = format!("claude-{family}-");
        let version = |m: &ModelInfo| -> Vec<u64> {
            m.id[prefix.len()..]
                .split('-')
                .map_while(|p| p.parse::<u64>().ok().filter(|n| *n < 100))
                .collect()
        };
        self.models
            .iter()
            .filter(|m| m.id.starts_with(&prefix) && !version(m).is_empty())
            .max_by(|a, b| version(a).cmp(&version(b)))
    }

    /// The row of `id`; for an id the table does not know, its nearest
    /// current row ([`Self::nearest`], the one the unknown-model advice
    /// names) when that row is of the same family (`claude-opus-9-9` is
    /// read by `claude-opus-5-5`'s window, minimum and prices;
    /// `gemini-3.9-flash` by `gemini-3.8-flash`'s), else the default model.
    /// Traffic prices a request only for a known id; a prediction, a
    /// what-if, prices with the row it names.
    pub fn resolve(&self, id: Option<&str>) -> &ModelInfo {
        let default = self.default_model();
        let Some(id) = id else { return default };
        if let Some(m) = self.get(id) {
            return m;
        }
        if let Some(m) = self.alias(id) {
            return m;
        }
        let family = |m: &str| m.split(['-', '/']).next().unwrap_or("").to_string();
        self.nearest_row(id)
            .filter(|m| !family(id).is_empty() && family(&m.id) == family(id))
            .unwrap_or(default)
    }
}

#[cfg(test)]
#[path = "models_tests.rs"]
mod tests;
