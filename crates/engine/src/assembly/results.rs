//! What an assembly gives every view: each fragment's status and kept
//! tokens, each layer's budget and use, each block's exact text and count,
//! the tools, the agent's own parts (re-exported by `assemble`).

use crate::usage::Tokens;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::assembly::tokens::{Encoding, TokenCounter};
use crate::workspace::agents::builtin::Category;
use crate::workspace::settings::{Budget, Placement, Ttl};
use crate::workspace::types::{AgentWords, WordsKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Kept,
    Summarized,
    Truncated,
    Dropped,
    Disabled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Kept => "kept",
            Status::Summarized => "summarized",
            Status::Truncated => "truncated",
            Status::Dropped => "dropped",
            Status::Disabled => "disabled",
        }
    }
    pub const ALL: [Status; 5] = [
        Status::Kept,
        Status::Summarized,
        Status::Truncated,
        Status::Dropped,
        Status::Disabled,
    ];
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FragmentResult {
    pub id: String,
    pub layer: u8,
    pub priority: i64,
    pub source: String,
    pub line: usize,
    pub tokens: Tokens,
    pub kept_tokens: Tokens,
    pub status: Status,
    pub reason: String,
    /// The text that went into the block ("" when dropped or disabled).
    #[serde(with = "arc_str")]
    pub text: Arc<str>,
    /// Characters of the file before and after an agent profile's caps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chars: Option<(usize, usize)>,
    /// The agent's words around the file's text in `text` (None: none).
    #[serde(skip)]
    pub agent_words: Option<AgentWords>,
    /// Of `kept_tokens`, the agent's words around the file's (Claude
    /// Code's "Contents of …:" heading, a listing entry's name and "(Tools:
    /// …)"): the rest is the file's own text, as the agent's `/context`
    /// counts a memory file and `traffic --against` any file. 0: none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub heading_tokens: Tokens,
    /// The agent's own text (a built-in skill or subagent, the words of its
    /// listing), by `/context` category: from the agent, not your files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<Category>,
}

impl FragmentResult {
    /// A fragment of the agent's own words, not of the user's files: a
    /// part it builds in, or its profile's wording (`profile`, the skills
    /// listing's frame).
    pub fn is_agents_own(&self) -> bool {
        self.builtin.is_some() || self.source == "profile" || self.source == "skills"
    }

    /// Whether it is the memory file of a subfolder (`nested.*`), which the
    /// agent adds only later: once it reads a file there, or runs there.
    pub fn is_nested_memory(&self) -> bool {
        // A subfolder's memory file, or a rule its `paths:` bring in.
        ["nested.", "on-demand.", "user.on-demand."]
            .iter()
            .any(|p| self.id.starts_with(p))
    }

    /// The tokens of the file's own text as the prompt holds it, without
    /// the heading the agent writes before it (None: no such heading), as
    /// an agent's `/context` counts a memory file.
    pub fn file_tokens(&self) -> Option<Tokens> {
        (self.heading_tokens > 0).then(|| self.kept_tokens - self.heading_tokens)
    }

    /// Its kept tokens split between the file and the agent's words around
    /// it (`126 of the file + 25 of the agent's heading before it`), as the
    /// report, the context view and the detail say it.
    pub fn heading_split(&self) -> Option<String> {
        let own = self.file_tokens()?;
        let (file, words) = match self.agent_words.map(|w| w.kind) {
            Some(WordsKind::ListingEntry) => (
                "of the file's description (as `traffic --against` counts it)",
                "of the agent's listing entry around it",
            ),
            Some(WordsKind::Markers) => (
                "of the file (as `context` counts it)",
                "of the agent's markers around it",
            ),
            _ => (
                "of the file (as `context` counts it)",
                "of the agent's heading before it",
            ),
        };
        Some(format!(
            "{} kept = {} {file} + {} {words}",
            crate::text::thousands(self.kept_tokens),
            crate::text::thousands(own),
            crate::text::thousands(self.heading_tokens)
        ))
    }
}

/// Of a fragment's kept tokens, the agent's words' around the file: the
/// kept text's count less the file's own text's.
pub fn heading_tokens(
    words: Option<AgentWords>,
    text: &str,
    kept: Tokens,
    counter: &TokenCounter,
    enc: Encoding,
) -> Tokens {
    match words.and_then(|w| w.own(text)).filter(|_| kept > 0) {
        Some(own) => kept - counter.count(enc, own).min(kept),
        None => 0,
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LayerResult {
    pub layer: u8,
    pub title: Option<String>,
    /// What the profile calls the layer (when its title does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub budget: u64,
    pub inflow: u64,
    pub available: u64,
    pub used: u64,
    pub overflow: u64,
    pub cache: bool,
    pub ttl: Ttl,
    /// Where the layer's block goes (system prompt or first user message).
    #[serde(default, skip_serializing_if = "Placement::is_system")]
    pub placement: Placement,
    /// Tokens the DEBUG markers add to this layer's block (0 without
    /// them): `used` counts them, trimming never did.
    #[serde(default)]
    pub markers: u64,
    /// Tokens of the agent's own text that shares this layer's block (an
    /// OpenClaw prompt joined around the files): `used` + `agent_own` is
    /// the block's tokens as sent.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub agent_own: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Span {
    /// Fragment id, or "(title)".
    pub id: String,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct BlockResult {
    pub layer: u8,
    pub tokens: Tokens,
    pub cache_control: bool,
    pub ttl: Ttl,
    pub text: String,
    /// Byte ranges of `text` per fragment (and title).
    pub spans: Vec<Span>,
    /// What the block is when it is not an assembled system block: a
    /// recorded request's position (`message 3 (user)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Where the block goes: a system block, or text at the start of the
    /// first user message (then never `cache_control`: not a cached
    /// system block).
    #[serde(default, skip_serializing_if = "Placement::is_system")]
    pub placement: Placement,
}

impl BlockResult {
    /// The block's name in a diff: its label, else `system block N · layer L`
    /// (`i` is its 0-based index).
    pub fn name(&self, i: usize) -> String {
        self.label.clone().unwrap_or_else(|| match self.placement {
            Placement::System => format!("system block {} (layer {})", i + 1, self.layer),
            p => format!(
                "block {} (layer {}, in the {})",
                i + 1,
                self.layer,
                p.words()
            ),
        })
    }

    /// The fragment a byte offset of `text` belongs to.
    pub fn fragment_at(&self, offset: usize) -> Option<&str> {
        self.spans
            .iter()
            .find(|s| s.start <= offset && offset < s.end)
            .map(|s| s.id.as_str())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Assembly {
    pub model: String,
    pub tokenizer: Encoding,
    pub estimate: bool,
    pub session: String,
    pub budget: Budget,
    pub debug_markers: bool,
    pub layers: Vec<LayerResult>,
    pub fragments: Vec<FragmentResult>,
    pub blocks: Vec<BlockResult>,
    pub tools: Vec<serde_json::Value>,
    pub tools_tokens: Tokens,
    pub total_tokens: Tokens,
    /// The first `agent_tools` of `tools` are the agent's own.
    #[serde(default)]
    pub agent_tools: usize,
    /// The agent's deferred tools (counted, not sent): name and tokens.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deferred_tools: Vec<(String, Tokens)>,
    /// Whose own parts the blocks of layer 0 are (`Claude Code 2.1.328`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

impl Assembly {
    /// Tokens of the agent's own tool definitions (the first
    /// `agent_tools`), counted as sent.
    pub fn agent_tools_tokens(&self, counter: &TokenCounter) -> Tokens {
        self.tools[..self.agent_tools.min(self.tools.len())]
            .iter()
            .map(|t| {
                counter.count(
                    self.tokenizer,
                    &serde_json::to_string(t).unwrap_or_default(),
                )
            })
            .sum()
    }
}

mod arc_str {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &Arc<str>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
        Ok(String::deserialize(d)?.into())
    }
}
