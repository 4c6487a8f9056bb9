//! The prices and limits of the vendors' models from LiteLLM's
//! `model_prices_and_context_window.json` (MIT; the table ccusage and many
//! others use), kept as a filtered snapshot in `assets/litellm/`, so that a
//! model the agents send today is priced as its vendor prices it, without a
//! hand-kept row. This tool's own rows (`assets/models.json`: tokenizer,
//! minimum cacheable length, lifecycle) are layered on top.

use crate::error::Error;
use serde_json::{Map, Value};

use super::models::{Lifecycle, ModelInfo, ModelTable, Provider};
use super::tokens::Encoding;

/// The bundled snapshot.
pub const BUNDLED_SNAPSHOT: &str = include_str!("../../assets/litellm/model_prices.json");

/// Providers whose models the snapshot keeps.
const PROVIDERS: &[&str] = &["anthropic", "openai", "gemini"];

/// Largest LiteLLM file read (the whole upstream file is about 3.5 MB).
pub const MAX_SOURCE_BYTES: u64 = 16 * 1024 * 1024;
/// Largest snapshot read at every start (the filtered one is about 45 KB).
pub const MAX_SNAPSHOT_BYTES: u64 = 2 * 1024 * 1024;
/// What LiteLLM's file may hold before it is parsed (today: about 60,000
/// values, 4 levels, strings of a few hundred bytes): a file of a million
/// tiny values would take gigabytes as a tree.
pub const SOURCE_BOUNDS: crate::json_bounds::JsonBounds = crate::json_bounds::JsonBounds {
    max_values: 1_000_000,
    max_depth: 16,
    max_string_bytes: 64 * 1024,
};
/// A price per token at most (USD): 0.1 is USD 100,000 per million tokens,
/// a thousand times the dearest model's output today.
pub const MAX_PRICE_PER_TOKEN: f64 = 0.1;
/// A token limit (window, output, cache minimum) at most.
pub const MAX_TOKEN_LIMIT: f64 = 1e9;
/// A long-context tier's threshold at most, in thousands of tokens.
pub const MAX_TIER_KTOKENS: u64 = 1_000_000;
/// A kept text field (provider, mode, date, successor) at most, in bytes.
pub const MAX_FIELD_BYTES: usize = 128;

/// What is wrong with a table's text (its place left for the caller).
fn bad(why: impl Into<String>) -> Error {
    Error::invalid("", why)
}

/// An error of a table's text, placed in its file (once: an error already
/// placed keeps its place).
fn placed(e: Error, path: &std::path::Path) -> Error {
    match e {
        Error::Invalid {
            place,
            line,
            reason,
        } if place.is_empty() => Error::Invalid {
            place: path.display().to_string(),
            line,
            reason,
        },
        e => e,
    }
}

/// A kept field's value checked: a price is a finite number from 0 to
/// [`MAX_PRICE_PER_TOKEN`], a limit a number from 0 to
/// [`MAX_TOKEN_LIMIT`], a tier's threshold within [`MAX_TIER_KTOKENS`], a
/// text at most [`MAX_FIELD_BYTES`]. `null` is no value. The error names
/// the model and the field.
fn checked_field(id: &str, key: &str, v: &Value) -> Result<Option<Value>, Error> {
    if v.is_null() {
        return Ok(None);
    }
    let shown = || {
        let t = v.to_string();
        crate::text::clean(&t, 40)
    };
    let model = crate::text::clean(id, 80);
    if key.contains("_cost") {
        if let Some(n) = tier_ktokens(key)
            && n > MAX_TIER_KTOKENS
        {
            return Err(bad(format!(
                "model {model}: field {key}: a tier above {n}k tokens (at most {MAX_TIER_KTOKENS}k)"
            )));
        }
        return match v.as_f64() {
            Some(p) if p.is_finite() && (0.0..=MAX_PRICE_PER_TOKEN).contains(&p) => {
                Ok(Some(v.clone()))
            }
            _ => Err(bad(format!(
                "model {model}: field {key} is {}: not a price (a finite number of USD per token from 0 to {MAX_PRICE_PER_TOKEN})",
                shown()
            ))),
        };
    }
    match key {
        "max_input_tokens" | "max_output_tokens" | "prompt_cache_min_tokens" => match v.as_f64() {
            Some(n) if n.is_finite() && (0.0..=MAX_TOKEN_LIMIT).contains(&n) => Ok(Some(v.clone())),
            _ => Err(bad(format!(
                "model {model}: field {key} is {}: not a number of tokens (0 to {MAX_TOKEN_LIMIT:e})",
                shown()
            ))),
        },
        _ => match v.as_str() {
            Some(t) if t.len() <= MAX_FIELD_BYTES => Ok(Some(v.clone())),
            _ => Err(bad(format!(
                "model {model}: field {key} is {}: not a text of at most {MAX_FIELD_BYTES} bytes",
                shown()
            ))),
        },
    }
}

/// `N` of a field `…_above_Nk_tokens`.
fn tier_ktokens(key: &str) -> Option<u64> {
    let (_, rest) = key.rsplit_once("_above_")?;
    rest.strip_suffix("k_tokens")?.parse::<u64>().ok()
}

/// A row's kept fields, each checked ([`checked_field`]).
fn checked_row(id: &str, o: &Map<String, Value>) -> Result<Map<String, Value>, Error> {
    let mut row = Map::new();
    for (k, v) in o.iter().filter(|(k, _)| kept(k)) {
        if let Some(v) = checked_field(id, k, v)? {
            row.insert(k.clone(), v);
        }
    }
    Ok(row)
}

/// Whether a LiteLLM field is kept in the snapshot: what prices and limits
/// a request (the base rates, the 1-hour write, long-context tiers, the
/// fast speed's rates, the cache minimum and the deprecation).
fn kept(key: &str) -> bool {
    const BASE: &[&str] = &[
        "litellm_provider",
        "mode",
        "max_input_tokens",
        "max_output_tokens",
        "input_cost_per_token",
        "output_cost_per_token",
        "cache_creation_input_token_cost",
        "cache_creation_input_token_cost_above_1hr",
        "cache_read_input_token_cost",
        "prompt_cache_min_tokens",
        "deprecation_date",
        "successor_model",
    ];
    if BASE.contains(&key) {
        return true;
    }
    let tier = key.contains("_above_") && key.ends_with("k_tokens");
    let fast = key.ends_with("_ultrafast") && !key.contains("_above_");
    (tier || fast) && key.contains("_cost")
}

/// LiteLLM's file (as published) filtered to the snapshot this tool ships:
/// the chat models of [`PROVIDERS`] under their bare ids, the fields
/// [`kept`], sorted by id, one model per line, with a header naming the
/// source.
pub fn snapshot(litellm: &str, source: &str, as_of: &str) -> Result<String, Error> {
    if litellm.len() as u64 > MAX_SOURCE_BYTES {
        return Err(bad(format!("over {} MiB", MAX_SOURCE_BYTES >> 20)));
    }
    crate::json_bounds::check(litellm, SOURCE_BOUNDS).map_err(|e| bad(e.to_string()))?;
    let all: Map<String, Value> = serde_json::from_str(litellm)
        .map_err(|e| bad(format!("not LiteLLM's JSON: line {}: {e}", e.line())))?;
    let mut rows: Vec<(String, Value)> = Vec::new();
    for (id, v) in &all {
        let Some(o) = v.as_object() else { continue };
        let provider = o
            .get("litellm_provider")
            .and_then(Value::as_str)
            .unwrap_or("");
        let mode = o.get("mode").and_then(Value::as_str).unwrap_or("");
        // The Gemini API's (AI Studio's) rows are `gemini/MODEL`; the bare
        // ids are Vertex AI's, another price list.
        let id = match (provider, id.strip_prefix("gemini/")) {
            ("gemini", Some(bare)) => bare,
            _ => id.as_str(),
        };
        if id.contains('/')
            || !PROVIDERS.contains(&provider)
            || !matches!(mode, "chat" | "responses")
        {
            continue;
        }
        if o.get("input_cost_per_token")
            .and_then(Value::as_f64)
            .is_none()
        {
            continue;
        }
        if id.len() > MAX_FIELD_BYTES {
            return Err(bad(format!(
                "a model id of {} bytes (at most {MAX_FIELD_BYTES})",
                id.len()
            )));
        }
        let row = checked_row(id, o)?;
        rows.push((id.to_string(), Value::Object(row)));
    }
    if rows.is_empty() {
        return Err(bad(
            "no Anthropic, OpenAI or Gemini chat model in it: is it LiteLLM's model_prices_and_context_window.json?",
        ));
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::from("{\n");
    out += &format!(
        "\"_source\": {},\n\"_as_of\": {},\n\"_license\": \"MIT (LiteLLM)\",\n\"_note\": \"Filtered by `prompt-inspector models --update`: Anthropic, OpenAI and Gemini API chat models, the fields prices depend on. Do not edit: refresh it.\",\n",
        Value::String(source.to_string()),
        Value::String(as_of.to_string())
    );
    let n = rows.len();
    for (i, (id, row)) in rows.into_iter().enumerate() {
        out += &format!(
            "{}: {row}{}\n",
            Value::String(id),
            if i + 1 < n { "," } else { "" }
        );
    }
    out.push('}');
    out.push('\n');
    Ok(out)
}

/// USD per token as USD per million tokens.
fn per_mtok(o: &Map<String, Value>, key: &str) -> Option<f64> {
    o.get(key)
        .and_then(Value::as_f64)
        .filter(|p| p.is_finite() && *p >= 0.0)
        .map(|p| (p * 1e6 * 1e6).round() / 1e6)
}

/// The rows of a snapshot, as this tool's model rows: prices and limits
/// from LiteLLM, the tokenizer by provider (Claude's is not public: an
/// o200k estimate), the cache minimum as LiteLLM gives it, else the
/// provider's documented floor (1,024).
pub fn rows(snapshot: &str) -> Result<Vec<ModelInfo>, Error> {
    if snapshot.len() as u64 > MAX_SNAPSHOT_BYTES {
        return Err(bad(format!(
            "a snapshot over {} MiB (a refreshed one is about 50 KB)",
            MAX_SNAPSHOT_BYTES >> 20
        )));
    }
    crate::json_bounds::check(snapshot, SOURCE_BOUNDS).map_err(|e| bad(e.to_string()))?;
    let all: Map<String, Value> = serde_json::from_str(snapshot)
        .map_err(|e| bad(format!("LiteLLM snapshot, line {}: {e}", e.line())))?;
    let source = all
        .get("_source")
        .and_then(Value::as_str)
        .unwrap_or("LiteLLM")
        .to_string();
    let as_of = all
        .get("_as_of")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut out = Vec::new();
    for (id, v) in &all {
        let Some(o) = v.as_object() else { continue };
        // Every kept field within its bounds (a hand-edited snapshot too).
        let o = &checked_row(id, o)?;
        let provider = match o.get("litellm_provider").and_then(Value::as_str) {
            Some("anthropic") => Provider::Anthropic,
            Some("openai") => Provider::Openai,
            Some("gemini") => Provider::Gemini,
            _ => continue,
        };
        let Some(input) = per_mtok(o, "input_cost_per_token") else {
            continue;
        };
        out.push(row_of(id, o, (provider, input), (&source, &as_of)));
    }
    Ok(out)
}

/// One LiteLLM row as the model table's: `provider`'s model `id` at
/// `input` dollars a million input tokens, from `source` as of `as_of`.
fn row_of(
    id: &str,
    o: &Map<String, Value>,
    (provider, input): (Provider, f64),
    (source, as_of): (&str, &Option<String>),
) -> ModelInfo {
    let legacy_openai = provider == Provider::Openai
        && (id.starts_with("gpt-4-") || id == "gpt-4" || id.starts_with("gpt-3.5"));
    let deprecated = o.get("deprecation_date").and_then(Value::as_str);
    ModelInfo {
        id: id.to_string(),
        provider,
        tokenizer: if legacy_openai {
            Encoding::Cl100kBase
        } else {
            Encoding::O200kBase
        },
        // Claude's and Gemini's tokenizers are not public: o200k estimates.
        estimate: provider != Provider::Openai,
        context_window: o
            .get("max_input_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        max_output: o
            .get("max_output_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        min_cacheable_tokens: o
            .get("prompt_cache_min_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(1024),
        input_per_mtok: input,
        // OpenAI charges no premium for writing its cache unless a
        // price says so: a write is input.
        cache_write_5m_per_mtok: per_mtok(o, "cache_creation_input_token_cost")
            .or((provider == Provider::Openai).then_some(input)),
        cache_write_1h_per_mtok: per_mtok(o, "cache_creation_input_token_cost_above_1hr")
            .or((provider == Provider::Openai).then_some(input)),
        cache_read_per_mtok: per_mtok(o, "cache_read_input_token_cost"),
        output_per_mtok: per_mtok(o, "output_cost_per_token").unwrap_or(0.0),
        status: if deprecated.is_some() {
            Lifecycle::Deprecated
        } else {
            Lifecycle::Active
        },
        retires: deprecated.map(str::to_string),
        successor: o
            .get("successor_model")
            .and_then(Value::as_str)
            .map(str::to_string),
        source: Some(source.to_string()),
        as_of: as_of.clone(),
        tiers: tiers(o),
        fast: fast(o),
        fast_multiplier: None,
    }
}

/// The long-context tiers of a LiteLLM row: one per `N` of its
/// `*_above_Nk_tokens` prices (the 1-hour write's is
/// `cache_creation_input_token_cost_above_1hr_above_Nk_tokens`).
fn tiers(o: &Map<String, Value>) -> Vec<super::models::Rates> {
    let mut ns: Vec<u64> = o
        .keys()
        .filter_map(|k| {
            let rest = k.strip_prefix("input_cost_per_token_above_")?;
            rest.strip_suffix("k_tokens")?.parse::<u64>().ok()
        })
        .collect();
    ns.sort_unstable();
    ns.retain(|&n| n <= MAX_TIER_KTOKENS);
    ns.into_iter()
        .map(|n| {
            let at = |key: &str| per_mtok(o, &format!("{key}_above_{n}k_tokens"));
            super::models::Rates {
                above_tokens: n * 1000,
                input_per_mtok: at("input_cost_per_token"),
                output_per_mtok: at("output_cost_per_token"),
                cache_write_5m_per_mtok: at("cache_creation_input_token_cost"),
                cache_write_1h_per_mtok: at("cache_creation_input_token_cost_above_1hr"),
                cache_read_per_mtok: at("cache_read_input_token_cost"),
            }
        })
        .collect()
}

/// The fast speed's rates of a LiteLLM row (`*_ultrafast`), if it has them.
fn fast(o: &Map<String, Value>) -> Option<super::models::Rates> {
    let at = |key: &str| per_mtok(o, &format!("{key}_ultrafast"));
    let input = at("input_cost_per_token")?;
    Some(super::models::Rates {
        above_tokens: 0,
        input_per_mtok: Some(input),
        output_per_mtok: at("output_cost_per_token"),
        cache_write_5m_per_mtok: at("cache_creation_input_token_cost"),
        cache_write_1h_per_mtok: None,
        cache_read_per_mtok: at("cache_read_input_token_cost"),
    })
}

/// The table: LiteLLM's rows, each overlaid by this tool's row of the same
/// id (its tokenizer, cache minimum and lifecycle win; LiteLLM's prices and
/// limits win where it has them), then this tool's rows LiteLLM lacks.
pub fn layer(ours: Vec<ModelInfo>, litellm: Vec<ModelInfo>) -> Vec<ModelInfo> {
    let mut out: Vec<ModelInfo> = Vec::with_capacity(ours.len() + litellm.len());
    let mut mine: std::collections::HashMap<String, ModelInfo> =
        ours.iter().map(|m| (m.id.clone(), m.clone())).collect();
    for l in litellm {
        match mine.remove(&l.id) {
            Some(o) => out.push(ModelInfo {
                context_window: if l.context_window > 0 {
                    l.context_window
                } else {
                    o.context_window
                },
                max_output: if l.max_output > 0 {
                    l.max_output
                } else {
                    o.max_output
                },
                input_per_mtok: l.input_per_mtok,
                cache_write_5m_per_mtok: l.cache_write_5m_per_mtok.or(o.cache_write_5m_per_mtok),
                cache_write_1h_per_mtok: l.cache_write_1h_per_mtok.or(o.cache_write_1h_per_mtok),
                cache_read_per_mtok: l.cache_read_per_mtok.or(o.cache_read_per_mtok),
                output_per_mtok: l.output_per_mtok,
                tiers: if l.tiers.is_empty() { o.tiers } else { l.tiers },
                fast: l.fast.or(o.fast),
                as_of: l.as_of.or(o.as_of),
                source: Some(match &o.source {
                    Some(s) => format!("{s}; prices and limits: {}", l.source.unwrap_or_default()),
                    None => l.source.unwrap_or_default(),
                }),
                ..o
            }),
            None => out.push(l),
        }
    }
    // This tool's rows LiteLLM does not have (a local server), in their order.
    out.extend(ours.into_iter().filter(|o| mine.contains_key(&o.id)));
    out
}

/// The model table with LiteLLM's rows under this tool's: built here, where
/// the layering is, so that `models.rs` (the types) imports nothing of this
/// module.
impl ModelTable {
    /// The table from files the caller names (read through the guarded
    /// reader): this tool's rows (`PROMPT_INSPECTOR_MODELS`, else the
    /// bundled ones) over a LiteLLM snapshot (the user's refreshed one, else
    /// the bundled one). The engine reads no environment: the edge does.
    pub fn from_files(
        ours: Option<&std::path::Path>,
        snapshot: Option<&std::path::Path>,
    ) -> Result<ModelTable, Error> {
        use crate::workspace::reader::read_text_file;
        let snapshot_path = snapshot;
        let snapshot = match snapshot {
            Some(p) => read_text_file(p, MAX_SNAPSHOT_BYTES)?,
            None => BUNDLED_SNAPSHOT.to_string(),
        };
        match ours {
            Some(path) => {
                let text = read_text_file(path, crate::workspace::MAX_FILE_BYTES)?;
                ModelTable::build(&text, &snapshot).map_err(|e| placed(e, path))
            }
            None => ModelTable::build(super::models::BUNDLED_TABLE, &snapshot),
        }
        .map_err(|e| match snapshot_path {
            Some(p) => placed(e, p),
            None => e,
        })
    }

    pub fn bundled() -> ModelTable {
        ModelTable::build(super::models::BUNDLED_TABLE, BUNDLED_SNAPSHOT)
            .expect("the bundled model table is valid JSON")
    }

    /// This tool's table (`models.json`'s shape) over a LiteLLM snapshot.
    pub fn build(ours: &str, snapshot: &str) -> Result<ModelTable, Error> {
        let mut table = ModelTable::parse(ours)?;
        let litellm = rows(snapshot)?;
        let models = layer(std::mem::take(&mut table.models), litellm);
        Ok(ModelTable::new(table.default_model, models))
    }
}
