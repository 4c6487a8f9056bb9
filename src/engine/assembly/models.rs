//! The model table: vendor data (context windows, minimum cacheable lengths,
//! prices) loaded from `assets/models.json`, never written in code.

use serde::{Deserialize, Serialize};

use crate::engine::assembly::tokens::Encoding;

/// The table shipped in `assets/`. `PROMPT_INSPECTOR_MODELS` may point to
/// another file with the same shape (see [`ModelTable::load`]).
pub const BUNDLED_TABLE: &str = include_str!("../../../assets/models.json");

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    Anthropic,
    Openai,
    /// A llama.cpp-style server that reuses the longest common token prefix.
    Prefix,
}

impl Provider {
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::Openai => "openai",
            Provider::Prefix => "prefix",
        }
    }

    pub fn parse(s: &str) -> Option<Provider> {
        match s.to_ascii_lowercase().as_str() {
            "anthropic" => Some(Provider::Anthropic),
            "openai" => Some(Provider::Openai),
            "prefix" | "local" | "llama" => Some(Provider::Prefix),
            _ => None,
        }
    }
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
    pub input_per_mtok: f64,
    #[serde(default)]
    pub output_per_mtok: f64,
    #[serde(default = "one_point_two_five")]
    pub cache_write_5m_multiplier: f64,
    #[serde(default = "two")]
    pub cache_write_1h_multiplier: f64,
    #[serde(default = "point_one")]
    pub cache_read_multiplier: f64,
    /// OpenAI-style price of cached input tokens.
    #[serde(default)]
    pub cached_input_per_mtok: Option<f64>,
}

fn one_point_two_five() -> f64 {
    1.25
}
fn two() -> f64 {
    2.0
}
fn point_one() -> f64 {
    0.1
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelTable {
    pub default_model: String,
    pub models: Vec<ModelInfo>,
}

impl ModelTable {
    /// The bundled table, or the file named by `PROMPT_INSPECTOR_MODELS`.
    pub fn load() -> Result<ModelTable, String> {
        match std::env::var_os("PROMPT_INSPECTOR_MODELS") {
            Some(path) => {
                let text = crate::engine::workspace::reader::read_text_file(
                    std::path::Path::new(&path),
                    crate::engine::workspace::MAX_FILE_BYTES,
                )?;
                ModelTable::parse(&text).map_err(|e| format!("{}: {e}", path.to_string_lossy()))
            }
            None => ModelTable::parse(BUNDLED_TABLE),
        }
    }

    pub fn bundled() -> ModelTable {
        ModelTable::parse(BUNDLED_TABLE).expect("the bundled model table is valid JSON")
    }

    pub fn parse(text: &str) -> Result<ModelTable, String> {
        let table: ModelTable = serde_json::from_str(text)
            .map_err(|e| format!("model table, line {}: {e}", e.line()))?;
        if table.models.is_empty() {
            return Err("model table has no models".into());
        }
        Ok(table)
    }

    pub fn get(&self, id: &str) -> Option<&ModelInfo> {
        self.models.iter().find(|m| m.id == id)
    }

    pub fn default_model(&self) -> &ModelInfo {
        self.get(&self.default_model).unwrap_or(&self.models[0])
    }

    /// The row for `id`, or the default row when `id` is unknown.
    pub fn resolve(&self, id: Option<&str>) -> &ModelInfo {
        id.and_then(|id| self.get(id))
            .unwrap_or_else(|| self.default_model())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_table_loads_and_has_every_provider() {
        let t = ModelTable::bundled();
        for p in [Provider::Anthropic, Provider::Openai, Provider::Prefix] {
            assert!(t.models.iter().any(|m| m.provider == p), "{p:?}");
        }
        assert_eq!(t.default_model().id, t.default_model);
        assert!(t.get("claude-haiku-4-5").unwrap().min_cacheable_tokens == 4096);
    }

    #[test]
    fn broken_table_names_line() {
        let err = ModelTable::parse("{\n\"models\": [\n oops]}").unwrap_err();
        assert!(err.contains("line 3"), "{err}");
    }
}
