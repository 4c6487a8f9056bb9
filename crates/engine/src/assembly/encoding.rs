//! The two tokenizer encodings a model counts with (o200k_base,
//! cl100k_base), their BPE tables and linear-time counters (a leaf of the
//! assembly room: the counter and the pre-tokenizer both name it).

use serde::{Deserialize, Serialize};
use tiktoken_rs::CoreBPE;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub enum Encoding {
    #[serde(rename = "o200k_base")]
    O200kBase,
    #[serde(rename = "cl100k_base")]
    Cl100kBase,
}

impl Encoding {
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// The BPE tables; loaded on first use (about half a second for o200k).
    pub fn bpe(self) -> &'static CoreBPE {
        match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        }
    }

    /// The linear-time counter of the same encoding.
    pub fn counter(self) -> &'static bpe_openai::Tokenizer {
        match self {
            Encoding::O200kBase => bpe_openai::o200k_base(),
            Encoding::Cl100kBase => bpe_openai::cl100k_base(),
        }
    }
}
