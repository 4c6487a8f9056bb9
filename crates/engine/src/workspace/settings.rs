//! `workspace.yaml`: every key optional.

use serde::{Deserialize, Serialize};

use crate::workspace::diag::FileDiags;
use crate::workspace::yaml::{Node, key_line, text_line, unknown_keys};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    pub total: u64,
    pub layer1: u64,
    pub layer2: u64,
    pub layer3_ratio: f64,
}

impl Budget {
    /// The budget of a workspace that declares none: the model's context
    /// window less the output reserved, with a fifth for layer 1 and a
    /// twentieth for layer 2 (a real agent's identity files are thousands
    /// of tokens, not hundreds).
    pub fn for_window(context_window: u64, reserved_output: u64) -> Budget {
        let total = context_window.saturating_sub(reserved_output).max(1);
        Budget {
            total,
            layer1: total / 5,
            layer2: total / 20,
            layer3_ratio: 0.6,
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            total: 2000,
            layer1: 300,
            layer2: 200,
            layer3_ratio: 0.6,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
pub enum Ttl {
    #[default]
    #[serde(rename = "5m")]
    FiveMinutes,
    #[serde(rename = "1h")]
    OneHour,
}

impl Ttl {
    pub fn seconds(self) -> u64 {
        match self {
            Ttl::FiveMinutes => 300,
            Ttl::OneHour => 3600,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Ttl::FiveMinutes => "5m",
            Ttl::OneHour => "1h",
        }
    }
    pub fn parse(s: &str) -> Option<Ttl> {
        match s.trim() {
            "5m" | "5min" | "300s" => Some(Ttl::FiveMinutes),
            "1h" | "60m" | "3600s" => Some(Ttl::OneHour),
            _ => None,
        }
    }
}

/// Where a layer's block goes in the request: a system block (the
/// default), the first user message (Claude Code's memory files, Codex's
/// AGENTS.md: text in a message, never a cached system block), or a
/// system-role message of its own right after the first user message
/// (Claude Code 2.1's environment, subagents and skills).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    #[default]
    System,
    FirstUserMessage,
    SystemMessage,
}

impl Placement {
    pub fn is_system(&self) -> bool {
        *self == Placement::System
    }
    /// `system prompt`, `first user message`, `system message`.
    pub fn words(self) -> &'static str {
        match self {
            Placement::System => "system prompt",
            Placement::FirstUserMessage => "first user message",
            Placement::SystemMessage => "system message after the first user message",
        }
    }
    /// A block that may carry `cache_control` (not text inside a user
    /// message).
    pub fn cacheable(self) -> bool {
        self != Placement::FirstUserMessage
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LayerSettings {
    pub title: Option<String>,
    /// What the layer is called when its title does not say (an agent
    /// profile's section with no title, or one that is markup).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub cache: bool,
    pub ttl: Ttl,
    /// Text closing the block, right after its last fragment (no
    /// separator): `\n</system-reminder>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footer: Option<String>,
    #[serde(default, skip_serializing_if = "Placement::is_system")]
    pub placement: Placement,
    /// Between the layer's fragments, when not the workspace's separator
    /// (Claude Code's lists: one line each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistorySettings {
    pub max_messages: usize,
    pub keep_recent: usize,
    /// Results longer than this many characters are compacted.
    pub compact_min_chars: usize,
    /// Fraction of the context window at which auto-compaction triggers.
    pub auto_compact_threshold: f64,
    /// Put a breakpoint on the last message of each request.
    pub message_breakpoint: bool,
    /// Output tokens reserved in the context window.
    pub reserved_output: u64,
    /// Tokens an agent keeps free before it compacts (Claude Code's
    /// autocompact buffer), also out of the budget.
    #[serde(default)]
    pub autocompact_buffer: u64,
}

impl Default for HistorySettings {
    fn default() -> Self {
        HistorySettings {
            max_messages: 20,
            keep_recent: 3,
            compact_min_chars: 100,
            auto_compact_threshold: 0.8,
            message_breakpoint: false,
            reserved_output: 4096,
            autocompact_buffer: 0,
        }
    }
}

/// An override of the file conventions: this file goes to this layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRule {
    pub path: String,
    pub layer: u8,
    pub priority: Option<i64>,
    pub truncate: Option<bool>,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub model: Option<String>,
    /// Line of `model:` in workspace.yaml (for diagnostics about it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_line: Option<usize>,
    /// The agent's settings file that set `model` (Claude Code's
    /// `.claude/settings.json`), when not workspace.yaml.
    #[serde(skip)]
    pub model_from: Option<String>,
    /// Line of `budget:`, when workspace.yaml declares one; without it the
    /// budget comes from the model's context window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_line: Option<usize>,
    /// The total budget was given on the command line (`--budget`), not
    /// by workspace.yaml: its warnings name the option.
    #[serde(skip)]
    pub budget_total_given: bool,
    /// `profile:`: the assembly profile to use instead of the detected one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Between the fragments of a block (default a blank line; an agent
    /// profile may set its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub separator: Option<String>,
    /// The session opened first (else the first by file name).
    pub default_session: Option<String>,
    pub budget: Budget,
    pub layers: [LayerSettings; 4],
    /// Breakpoint on the last tool definition (tools come first in a request).
    pub cache_tools: bool,
    pub history: HistorySettings,
    pub files: Vec<FileRule>,
    pub debug_markers: bool,
}

impl Default for Settings {
    fn default() -> Self {
        let layer = |cache| LayerSettings {
            title: None,
            name: None,
            cache,
            ttl: Ttl::FiveMinutes,
            footer: None,
            placement: Placement::System,
            separator: None,
        };
        Settings {
            model: None,
            model_line: None,
            model_from: None,
            budget_line: None,
            budget_total_given: false,
            profile: None,
            separator: None,
            default_session: None,
            budget: Budget::default(),
            layers: [layer(true), layer(true), layer(true), layer(false)],
            cache_tools: false,
            history: HistorySettings::default(),
            files: Vec::new(),
            debug_markers: false,
        }
    }
}

const TOP_KEYS: &[&str] = &[
    "model",
    "default_session",
    "budget",
    "profile",
    "layers",
    "cache_tools",
    "history",
    "files",
    "debug_markers",
];

/// Largest budget or count a setting may hold (a billion tokens: far above
/// any context window, far below where sums could overflow).
pub const MAX_SETTING: u64 = 1_000_000_000;

/// The line of `key` in `text`: where it starts a line, else anywhere it
/// appears as `key:` (flow mappings), else line 1, so that every settings
/// diagnostic names a line.
pub fn line_of(text: &str, key: &str) -> Option<usize> {
    key_line(text, key, 1)
        .or_else(|| text_line(text, &format!("{key}:"), 1))
        .or_else(|| text_line(text, key, 1))
        .or(Some(1))
}

/// Why a setting is not a whole number in `0..=MAX_SETTING`.
#[derive(Debug, Clone, PartialEq)]
pub enum NotWhole {
    Negative(i64),
    OverLimit(i64),
    Fraction(f64),
    Text(String),
    Other(&'static str),
}

impl std::fmt::Display for NotWhole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotWhole::Negative(n) => write!(f, "{n} is negative"),
            NotWhole::OverLimit(n) => write!(f, "{n} is over the limit of {MAX_SETTING}"),
            NotWhole::Fraction(x) => write!(f, "{x} is not a whole number in range"),
            NotWhole::Text(s) => write!(f, "'{s}' is not a whole number"),
            NotWhole::Other(t) => write!(f, "found {t}"),
        }
    }
}

/// A whole number in `0..=MAX_SETTING`, or why not.
pub fn whole(v: &Node) -> Result<u64, NotWhole> {
    match v.as_i64() {
        Some(n) if (0..=MAX_SETTING as i64).contains(&n) => Ok(n as u64),
        Some(n) if n < 0 => Err(NotWhole::Negative(n)),
        Some(n) => Err(NotWhole::OverLimit(n)),
        None => Err(match v {
            Node::Float(f) => NotWhole::Fraction(*f),
            Node::Str(s) => NotWhole::Text(s.clone()),
            other => NotWhole::Other(other.type_name()),
        }),
    }
}

fn uint(node: &Node, key: &str, text: &str, d: &mut FileDiags, into: &mut u64) {
    if let Some(v) = node.get(key) {
        match whole(v) {
            Ok(n) => *into = n,
            Err(why) => d.error(
                line_of(text, key),
                format!("'{key}' must be a whole number from 0 to {MAX_SETTING}: {why}"),
            ),
        }
    }
}

fn boolean(node: &Node, key: &str, text: &str, d: &mut FileDiags, into: &mut bool) {
    if let Some(v) = node.get(key) {
        match v.as_bool() {
            Some(b) => *into = b,
            None => d.error(
                line_of(text, key),
                format!("'{key}' must be true or false, found {}", v.type_name()),
            ),
        }
    }
}

fn warn_unknown(node: &Node, known: &[&str], place: &str, text: &str, d: &mut FileDiags) {
    for k in unknown_keys(node, known) {
        d.warning(
            line_of(text, k),
            format!("unknown key '{k}' in {place} (ignored)"),
        );
    }
}

/// Reads `workspace.yaml`'s parsed tree; problems become diagnostics and the
/// default stays in place of a bad value.
pub fn parse_settings(node: &Node, text: &str, d: &mut FileDiags) -> Settings {
    let mut s = Settings::default();
    if matches!(node, Node::Null) {
        return s;
    }
    if !matches!(node, Node::Map(_)) {
        d.error(
            Some(1),
            format!("expected a mapping of settings, found {}", node.type_name()),
        );
        return s;
    }
    warn_unknown(node, TOP_KEYS, "workspace.yaml", text, d);
    if let Some(m) = node.get("model") {
        match m.scalar_text() {
            Some(id) => {
                s.model = Some(id);
                s.model_line = line_of(text, "model");
            }
            None => d.error(line_of(text, "model"), "'model' must be a model id"),
        }
    }
    s.default_session = node.get("default_session").and_then(Node::scalar_text);
    s.profile = node.get("profile").and_then(Node::scalar_text);
    parse_budget(node, text, d, &mut s);
    parse_layers(node, text, d, &mut s);
    boolean(node, "cache_tools", text, d, &mut s.cache_tools);
    boolean(node, "debug_markers", text, d, &mut s.debug_markers);
    parse_history(node, text, d, &mut s);
    parse_files(node, text, d, &mut s);
    s
}

/// `budget:`: total, fixed budgets of layers 1 and 2, layer 3 ratio.
fn parse_budget(node: &Node, text: &str, d: &mut FileDiags, s: &mut Settings) {
    if let Some(b) = node.get("budget") {
        s.budget_line = line_of(text, "budget");
        warn_unknown(b, &["total", "fixed", "layer3_ratio"], "budget", text, d);
        uint(b, "total", text, d, &mut s.budget.total);
        if let Some(f) = b.get("fixed") {
            for (k, v) in f.entries() {
                let slot = match k.as_str() {
                    "1" | "layer1" => &mut s.budget.layer1,
                    "2" | "layer2" => &mut s.budget.layer2,
                    _ => {
                        d.error(
                            line_of(text, k),
                            format!("budget.fixed has a key '{k}': only layers 1 and 2 have fixed budgets"),
                        );
                        continue;
                    }
                };
                match whole(v) {
                    Ok(n) => *slot = n,
                    Err(why) => d.error(
                        line_of(text, k),
                        format!(
                            "a fixed budget must be a whole number from 0 to {MAX_SETTING}: {why}"
                        ),
                    ),
                }
            }
        }
        if let Some(r) = b.get("layer3_ratio") {
            match r.as_f64() {
                Some(x) if (0.0..=1.0).contains(&x) => s.budget.layer3_ratio = x,
                _ => d.error(
                    line_of(text, "layer3_ratio"),
                    format!(
                        "layer3_ratio must be a number from 0 to 1, found {}",
                        r.scalar_text().unwrap_or_else(|| r.type_name().into())
                    ),
                ),
            }
        }
    }
}

/// `layers:`: title, cache and TTL per layer.
fn parse_layers(node: &Node, text: &str, d: &mut FileDiags, s: &mut Settings) {
    if let Some(layers) = node.get("layers") {
        for (k, v) in layers.entries() {
            let idx = match k.trim_start_matches("layer").parse::<usize>() {
                Ok(n @ 1..=4) => n - 1,
                _ => {
                    d.error(
                        line_of(text, k),
                        format!("layers has a key '{k}': layers are 1 to 4"),
                    );
                    continue;
                }
            };
            warn_unknown(
                v,
                &["title", "cache", "ttl"],
                &format!("layer {}", idx + 1),
                text,
                d,
            );
            let l = &mut s.layers[idx];
            if let Some(t) = v.get("title") {
                l.title = t.scalar_text().filter(|t| !t.is_empty());
            }
            boolean(v, "cache", text, d, &mut l.cache);
            if let Some(t) = v.get("ttl") {
                match t.scalar_text().as_deref().and_then(Ttl::parse) {
                    Some(ttl) => l.ttl = ttl,
                    None => d.error(line_of(text, "ttl"), "ttl must be \"5m\" or \"1h\""),
                }
            }
        }
    }
}

/// `history:`: what the message builder keeps.
fn parse_history(node: &Node, text: &str, d: &mut FileDiags, s: &mut Settings) {
    if let Some(h) = node.get("history") {
        warn_unknown(
            h,
            &[
                "max_messages",
                "keep_recent",
                "compact_min_chars",
                "auto_compact_threshold",
                "message_breakpoint",
                "reserved_output",
            ],
            "history",
            text,
            d,
        );
        let hs = &mut s.history;
        let mut n = hs.max_messages as u64;
        uint(h, "max_messages", text, d, &mut n);
        hs.max_messages = n as usize;
        let mut n = hs.keep_recent as u64;
        uint(h, "keep_recent", text, d, &mut n);
        hs.keep_recent = n as usize;
        let mut n = hs.compact_min_chars as u64;
        uint(h, "compact_min_chars", text, d, &mut n);
        hs.compact_min_chars = n as usize;
        uint(h, "reserved_output", text, d, &mut hs.reserved_output);
        boolean(h, "message_breakpoint", text, d, &mut hs.message_breakpoint);
        if let Some(t) = h.get("auto_compact_threshold") {
            match t.as_f64() {
                Some(x) if x > 0.0 && x <= 1.0 => hs.auto_compact_threshold = x,
                _ => d.error(
                    line_of(text, "auto_compact_threshold"),
                    "auto_compact_threshold must be a fraction of the context window (0 to 1]",
                ),
            }
        }
    }
}

/// `files:`: overrides of the file conventions.
fn parse_files(node: &Node, text: &str, d: &mut FileDiags, s: &mut Settings) {
    if let Some(files) = node.get("files") {
        for (path, v) in files.entries() {
            let line = line_of(text, path).unwrap_or(1);
            let (layer, priority, truncate) = match v {
                Node::Map(_) => {
                    warn_unknown(
                        v,
                        &["layer", "priority", "truncate"],
                        "a files rule",
                        text,
                        d,
                    );
                    let priority = match v.get("priority") {
                        None => None,
                        Some(p) => match p.as_i64() {
                            Some(n) => Some(n),
                            None => {
                                d.error(
                                    Some(line),
                                    format!(
                                        "files: the priority of '{path}' must be a whole number from {} to {}",
                                        i64::MIN,
                                        i64::MAX
                                    ),
                                );
                                None
                            }
                        },
                    };
                    (
                        v.get("layer").and_then(Node::as_i64),
                        priority,
                        v.get("truncate").and_then(Node::as_bool),
                    )
                }
                other => (other.as_i64(), None, None),
            };
            match layer {
                Some(l @ 1..=4) => s.files.push(FileRule {
                    path: path.clone(),
                    layer: l as u8,
                    priority,
                    truncate,
                    line,
                }),
                _ => d.error(
                    Some(line),
                    format!("files: '{path}' needs a layer from 1 to 4"),
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::yaml::parse;

    fn read(text: &str) -> (Settings, Vec<crate::Diagnostic>) {
        let mut out = Vec::new();
        let mut d = FileDiags {
            file: "workspace.yaml",
            out: &mut out,
        };
        let s = parse_settings(&parse(text).unwrap(), text, &mut d);
        (s, out)
    }

    #[test]
    fn defaults_and_overrides() {
        let (s, d) = read("");
        assert_eq!(s.budget, Budget::default());
        assert!(s.layers[2].cache && !s.layers[3].cache);
        assert!(d.is_empty());
        let (s, d) = read(
            "model: gpt-4o\nbudget:\n  total: 4000\n  fixed: {1: 500, layer2: 250}\n  layer3_ratio: 0.5\nlayers:\n  3: {title: \"## Tools\", ttl: 1h}\n  4: {cache: true}\n",
        );
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(s.model.as_deref(), Some("gpt-4o"));
        assert_eq!(
            (s.budget.total, s.budget.layer1, s.budget.layer2),
            (4000, 500, 250)
        );
        assert_eq!(s.layers[2].title.as_deref(), Some("## Tools"));
        assert_eq!(s.layers[2].ttl, Ttl::OneHour);
        assert!(s.layers[3].cache);
    }

    #[test]
    fn bad_values_are_diagnostics_with_lines() {
        let (s, d) =
            read("budget:\n  total: lots\n  layer3_ratio: 7\nlayers:\n  9: {}\nbogus: 1\n");
        assert_eq!(s.budget, Budget::default());
        let lines: Vec<_> = d.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![Some(6), Some(2), Some(3), Some(5)], "{d:?}");
    }
}
