//! The shape of each request of a session as a cache sees it: an ordered
//! list of content positions (tools → system blocks → message blocks), each
//! with its text, tokens and whether it carries a `cache_control` breakpoint.

use crate::usage::Tokens;
use serde::Serialize;

use crate::assembly::assemble::{Assembly, BlockResult, Span};
use crate::assembly::tokens::{Encoding, TokenCounter};
use crate::cache::history::{self, CLEARED};
use crate::workspace::session::{Block, Message, Role, Session};
use crate::workspace::settings::{Placement, Settings, Ttl};

/// Seconds between requests when a session gives no gap: between turns, and
/// between the calls of one turn's tool loop.
pub const TURN_SPACING_SECS: u64 = 20;
pub const TOOL_SPACING_SECS: u64 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// The workspace's layered blocks with their breakpoints.
    Layered,
    /// The whole system prompt as one string with one breakpoint.
    SingleString,
    /// No `cache_control` at all.
    None,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Layered => "layered",
            Strategy::SingleString => "single_string",
            Strategy::None => "none",
        }
    }
    pub const ALL: [Strategy; 3] = [Strategy::Layered, Strategy::SingleString, Strategy::None];
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SegKind {
    Tool {
        name: String,
    },
    System {
        layer: u8,
        block: usize,
        /// Where the block goes (a system block, or text in a message):
        /// its name says it.
        #[serde(skip_serializing_if = "Placement::is_system")]
        placement: Placement,
    },
    Message {
        index: usize,
        role: Role,
        block: usize,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Segment {
    pub kind: SegKind,
    pub text: String,
    pub tokens: Tokens,
    pub breakpoint: Option<Ttl>,
    #[serde(skip)]
    pub spans: Vec<Span>,
    /// The message block this position was made from.
    #[serde(skip)]
    pub source_block: Option<Block>,
}

impl Segment {
    /// Readable name of the position ("system block 2 (layer 2)").
    pub fn label(&self) -> String {
        match &self.kind {
            SegKind::Tool { name } => format!("tool definition '{name}'"),
            SegKind::System {
                layer: 0, block, ..
            } => {
                format!("block {} (the agent's own)", block + 1)
            }
            SegKind::System {
                layer,
                block,
                placement: Placement::System,
            } => format!("system block {} (layer {layer})", block + 1),
            SegKind::System {
                layer,
                block,
                placement,
            } => format!(
                "block {} (layer {layer}, in the {})",
                block + 1,
                placement.words()
            ),
            SegKind::Message { index, role, .. } => format!(
                "message {} ({})",
                index + 1,
                match role {
                    Role::User => "user",
                    Role::Assistant => "assistant",
                }
            ),
        }
    }

    pub fn same_content(&self, other: &Segment) -> bool {
        self.kind == other.kind && self.text == other.text
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RequestShape {
    pub turn: usize,
    pub index: usize,
    pub gap_secs: u64,
    pub at_secs: u64,
    pub segments: Vec<Segment>,
    pub history_notes: Vec<String>,
    /// Tokens of the messages before the last one, and of the last one.
    pub history_tokens: Tokens,
    pub current_tokens: Tokens,
}

impl RequestShape {
    pub fn total_tokens(&self) -> Tokens {
        self.segments.iter().map(|s| s.tokens).sum()
    }
    pub fn tool_names(&self) -> Vec<&str> {
        self.segments
            .iter()
            .filter_map(|s| match &s.kind {
                SegKind::Tool { name } => Some(name.as_str()),
                _ => None,
            })
            .collect()
    }
}

/// Builds the request shapes of a session under a strategy.
pub fn shapes(
    a: &Assembly,
    session: &Session,
    settings: &Settings,
    strategy: Strategy,
    counter: &TokenCounter,
) -> Vec<RequestShape> {
    let cache_on = strategy != Strategy::None;
    let mut base = tool_segments(a, settings, cache_on, counter);
    base.extend(system_segments(a, strategy, cache_on, counter));
    let mut out = Vec::new();
    let mut at = 0u64;
    let mut prev_turn = 0;
    for (i, (turn, upto, gap)) in request_points(session).into_iter().enumerate() {
        if i > 0 {
            at += if gap > 0 {
                gap
            } else if turn == prev_turn {
                TOOL_SPACING_SECS
            } else {
                TURN_SPACING_SECS
            };
        }
        prev_turn = turn;
        let built = history::build(&session.conversation(upto), &settings.history);
        let mut segs = base.clone();
        let (history_tokens, current_tokens) = message_segments(
            &built.messages,
            a.tokenizer,
            cache_on,
            settings,
            counter,
            &mut segs,
        );
        with_system_messages(a, cache_on, &mut segs);
        if cache_on && settings.history.message_breakpoint {
            latest_message_breakpoint(&mut segs);
        }
        out.push(RequestShape {
            turn,
            index: i,
            gap_secs: gap,
            at_secs: at,
            segments: segs,
            history_notes: built.notes,
            history_tokens,
            current_tokens,
        });
    }
    out
}

/// One segment per tool definition, counted alone (the tool-definition
/// tokens every view shows are the sum of these).
fn tool_segments(
    a: &Assembly,
    settings: &Settings,
    cache_on: bool,
    counter: &TokenCounter,
) -> Vec<Segment> {
    let n_tools = a.tools.len();
    a.tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let text = serde_json::to_string(t).unwrap_or_default();
            Segment {
                kind: SegKind::Tool {
                    name: t["name"].as_str().unwrap_or("").to_string(),
                },
                tokens: counter.count(a.tokenizer, &text),
                text,
                breakpoint: (cache_on && settings.cache_tools && i + 1 == n_tools)
                    .then_some(Ttl::FiveMinutes),
                spans: Vec::new(),
                source_block: None,
            }
        })
        .collect()
}

/// The system blocks as the strategy sends them: the workspace's layered
/// blocks, or one single string.
fn system_segments(
    a: &Assembly,
    strategy: Strategy,
    cache_on: bool,
    counter: &TokenCounter,
) -> Vec<Segment> {
    if strategy != Strategy::SingleString {
        // The system blocks, then those placed in the first user message
        // (after every system block, never a breakpoint of their own).
        let system = a
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.placement.is_system());
        let message = a
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.placement == Placement::FirstUserMessage);
        return system
            .chain(message)
            .map(|(i, b)| block_segment(i, b, (cache_on && b.cache_control).then_some(b.ttl)))
            .collect();
    }
    // Blocks placed in the first user message are not part of the one
    // string: they follow it, uncached.
    let system = a.blocks.iter().filter(|b| b.placement.is_system());
    let text = system
        .clone()
        .map(|b| b.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut spans = Vec::new();
    let mut offset = 0;
    for b in system {
        spans.extend(b.spans.iter().map(|s| Span {
            id: s.id.clone(),
            start: s.start + offset,
            end: s.end + offset,
        }));
        offset += b.text.len() + 2;
    }
    let mut out = Vec::new();
    if !text.is_empty() {
        out.push(Segment {
            kind: SegKind::System {
                layer: 0,
                block: 0,
                placement: Placement::System,
            },
            tokens: counter.count(a.tokenizer, &text),
            text,
            breakpoint: Some(Ttl::FiveMinutes),
            spans,
            source_block: None,
        });
    }
    for (i, b) in a.blocks.iter().enumerate() {
        if b.placement == Placement::FirstUserMessage {
            out.push(block_segment(i, b, None));
        }
    }
    out
}

/// Block `i` of the assembly as one position of the request.
fn block_segment(i: usize, b: &BlockResult, breakpoint: Option<Ttl>) -> Segment {
    Segment {
        kind: SegKind::System {
            layer: b.layer,
            block: i,
            placement: b.placement,
        },
        tokens: b.tokens,
        text: b.text.clone(),
        breakpoint,
        spans: b.spans.clone(),
        source_block: None,
    }
}

/// The blocks sent as a system-role message of their own, right after the
/// first user message (Claude Code 2.1's environment and listing): after
/// that message's positions, else after the system blocks.
fn with_system_messages(a: &Assembly, cache_on: bool, segs: &mut Vec<Segment>) {
    let own: Vec<Segment> = a
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.placement == Placement::SystemMessage)
        .map(|(i, b)| block_segment(i, b, (cache_on && b.cache_control).then_some(b.ttl)))
        .collect();
    if own.is_empty() {
        return;
    }
    let first_user = |s: &Segment| {
        matches!(
            s.kind,
            SegKind::Message {
                index: 0,
                role: Role::User,
                ..
            }
        )
    };
    let at = match segs.iter().rposition(first_user) {
        Some(i) => i + 1,
        None => segs
            .iter()
            .rposition(|s| matches!(s.kind, SegKind::System { .. } | SegKind::Tool { .. }))
            .map_or(0, |i| i + 1),
    };
    segs.splice(at..at, own);
}

/// The breakpoint on the latest message goes on the request's last
/// position: a system message spliced in after the only user message is
/// that latest message (Claude Code's first request).
fn latest_message_breakpoint(segs: &mut [Segment]) {
    let Some(last) = segs.len().checked_sub(1) else {
        return;
    };
    if !matches!(segs[last].kind, SegKind::System { .. }) {
        return;
    }
    if let Some(m) = segs
        .iter()
        .rposition(|s| matches!(s.kind, SegKind::Message { .. }) && s.breakpoint.is_some())
    {
        segs[m].breakpoint = None;
        segs[last].breakpoint.get_or_insert(Ttl::FiveMinutes);
    }
}

/// (turn, messages sent, gap) of every request; with no turns, the same
/// prompt three times (cold, then warm).
fn request_points(session: &Session) -> Vec<(usize, usize, u64)> {
    if session.requests.is_empty() {
        return vec![(1, 0, 0), (2, 0, 0), (3, 0, 0)];
    }
    session
        .requests
        .iter()
        .map(|r| (r.turn, r.messages, r.gap_secs))
        .collect()
}

/// Appends one segment per message content block. Returns (history tokens,
/// current message tokens).
fn message_segments(
    messages: &[Message],
    enc: Encoding,
    cache_on: bool,
    settings: &Settings,
    counter: &TokenCounter,
    segs: &mut Vec<Segment>,
) -> (Tokens, Tokens) {
    let n = messages.len();
    let (mut history_tokens, mut current_tokens) = (0, 0);
    for (mi, m) in messages.iter().enumerate() {
        for (bi, b) in m.content.iter().enumerate() {
            let text = b.counted_text();
            let tokens = counter.count(enc, &text);
            if mi + 1 == n {
                current_tokens += tokens;
            } else {
                history_tokens += tokens;
            }
            let last = mi + 1 == n && bi + 1 == m.content.len();
            segs.push(Segment {
                kind: SegKind::Message {
                    index: mi,
                    role: m.role,
                    block: bi,
                },
                text,
                tokens,
                breakpoint: (cache_on && last && settings.history.message_breakpoint)
                    .then_some(Ttl::FiveMinutes),
                spans: Vec::new(),
                source_block: Some(b.clone()),
            });
        }
    }
    (history_tokens, current_tokens)
}

pub(super) fn excerpt(text: &str, at: usize, before: bool) -> String {
    // The first character at or after `at`, and 24 characters on one side
    // of it (only those are walked).
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    let s = if before {
        let head = &text[..at];
        let start = head
            .char_indices()
            .rev()
            .take(24)
            .last()
            .map_or(at, |(i, _)| i);
        head[start..].to_string()
    } else {
        text[at..].chars().take(24).collect()
    };
    s.replace('\n', "¶")
}

/// Byte offset (on a char boundary of both) where two texts first differ.
pub fn first_difference(a: &str, b: &str) -> usize {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let n = x.len().min(y.len());
    // Compared a block at a time (successive requests share long prefixes),
    // then byte by byte within the block that differs.
    let mut i = x[..n]
        .chunks_exact(64)
        .zip(y[..n].chunks_exact(64))
        .take_while(|(p, q)| p == q)
        .count()
        * 64;
    while i < n && x[i] == y[i] {
        i += 1;
    }
    // The bytes before i are the same in both, so a character boundary of
    // one is one of the other: back to the start of the character that
    // differs.
    while !a.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Where `cur` first differs from `prev`, in words: the position, the
/// fragment (or message), the character offset and a before/after excerpt.
pub fn describe_change(prev: &RequestShape, cur: &RequestShape) -> Option<(usize, String)> {
    let d = prev
        .segments
        .iter()
        .zip(&cur.segments)
        .position(|(a, b)| !a.same_content(b));
    let d = match d {
        Some(d) => d,
        None if prev.segments.len() == cur.segments.len() => return None,
        None => return None, // one is a prefix of the other: the conversation grew
    };
    let (p, c) = (&prev.segments[d], &cur.segments[d]);
    let msg = match (&p.kind, &c.kind) {
        (SegKind::Tool { .. }, _) | (_, SegKind::Tool { .. }) => tools_changed(prev, cur, c),
        (SegKind::System { .. }, SegKind::System { .. }) => system_changed(p, c),
        (SegKind::Message { .. }, SegKind::Message { .. }) => {
            if c.text == CLEARED && p.text != CLEARED {
                format!(
                    "{} was micro-compacted (an older tool result replaced by a placeholder)",
                    c.label()
                )
            } else if cur
                .history_notes
                .iter()
                .any(|n| n.starts_with("history truncated"))
            {
                format!(
                    "{} changed: the history was truncated to max_messages, so the conversation now starts later",
                    c.label()
                )
            } else {
                let off = first_difference(&p.text, &c.text);
                format!(
                    "{} differs at character {}: “{}…” was “{}…”",
                    c.label(),
                    crate::thousands(c.text[..off].chars().count()),
                    excerpt(&c.text, off, false),
                    excerpt(&p.text, off, false)
                )
            }
        }
        _ => format!(
            "{} is now {} (the block structure changed)",
            p.label(),
            c.label()
        ),
    };
    Some((d, msg))
}

/// What changed in the tools: the set (added, removed), or one tool's
/// definition (`c`, the first that differs).
fn tools_changed(prev: &RequestShape, cur: &RequestShape, c: &Segment) -> String {
    let before: Vec<&str> = prev.tool_names();
    let after: Vec<&str> = cur.tool_names();
    let added: Vec<&str> = after
        .iter()
        .filter(|t| !before.contains(t))
        .copied()
        .collect();
    let removed: Vec<&str> = before
        .iter()
        .filter(|t| !after.contains(t))
        .copied()
        .collect();
    if added.is_empty() && removed.is_empty() {
        format!(
            "the definition of tool '{}' changed",
            tool_name(c).unwrap_or_default()
        )
    } else {
        format!(
            "the tool set changed (added: {}; removed: {}), and tools come first, so nothing after them can be read",
            list(&added),
            list(&removed)
        )
    }
}

/// Where a system block first differs: its character, its fragment, and
/// the text around it before and after.
fn system_changed(p: &Segment, c: &Segment) -> String {
    let off = first_difference(&p.text, &c.text);
    let frag = c
        .spans
        .iter()
        .find(|s| s.start <= off && off < s.end.max(s.start + 1))
        .or_else(|| p.spans.iter().find(|s| s.start <= off && off < s.end))
        .map(|s| s.id.clone())
        .unwrap_or_else(|| "(between fragments)".into());
    let chars = c.text[..off.min(c.text.len())].chars().count();
    format!(
        "{} first differs at character {}, in fragment '{frag}': “…{}” then “{}…” was “{}…”",
        c.label(),
        crate::thousands(chars),
        excerpt(&c.text, off, true),
        excerpt(&c.text, off, false),
        excerpt(&p.text, off, false)
    )
}

fn tool_name(s: &Segment) -> Option<String> {
    match &s.kind {
        SegKind::Tool { name } => Some(name.clone()),
        _ => None,
    }
}

fn list(v: &[&str]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}
