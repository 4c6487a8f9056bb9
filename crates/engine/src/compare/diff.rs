//! The diff of two assembled prompts (snapshots, or sessions assembled live):
//! fragment changes, layer deltas, the cache breakpoints a change invalidates
//! and where the shared prefix first diverges, and a line diff of the
//! rendered prompt with every line attributed to its fragment.

use crate::usage::Tokens;
use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::assembly::assemble::{FragmentResult, Status};
use crate::cache::shape::first_difference;
use crate::compare::breakpoints::{self, Breakpoint};
use crate::compare::snapshot::Snapshot;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
    StatusChanged,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FragmentChange {
    pub id: String,
    pub kind: ChangeKind,
    pub layer: u8,
    pub before_status: Option<Status>,
    pub after_status: Option<Status>,
    pub before_tokens: Tokens,
    pub after_tokens: Tokens,
    pub text_changed: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LayerDelta {
    pub layer: u8,
    pub before: u64,
    pub after: u64,
    pub delta: i64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Divergence {
    /// "tools" or "system block N (layer L)".
    pub position: String,
    /// What both share just before the difference (up to 16 characters,
    /// `…` first when cut), so the change reads in its place.
    #[serde(default)]
    pub lead: String,
    pub fragment: Option<String>,
    /// Character offset in the block (in characters, not bytes).
    pub offset: usize,
    pub before: String,
    pub after: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Diff {
    pub a: String,
    pub b: String,
    pub identical: bool,
    pub fragments: Vec<FragmentChange>,
    pub layers: Vec<LayerDelta>,
    pub total_before: Tokens,
    pub total_after: Tokens,
    /// Tool-definition tokens (an assembly's total is its system blocks').
    #[serde(default)]
    pub tools_before: Tokens,
    #[serde(default)]
    pub tools_after: Tokens,
    pub tools_changed: bool,
    /// `tool read: added`, `tool write: changed`, `tools reordered`.
    pub tool_changes: Vec<String>,
    /// Blocks B adds after all of A's (a conversation that grew).
    pub appended: usize,
    pub breakpoints: Vec<Breakpoint>,
    pub divergence: Option<Divergence>,
    /// Tokens B's first request would write instead of read: what it
    /// writes after its last breakpoint still valid, up to as much as A
    /// had cached (B's tokens past A's extent are written either way).
    pub rewrite_tokens: u64,
    pub lines: Vec<DiffLine>,
    /// Two recorded requests (positions, not layers).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recorded: bool,
    /// For recorded requests: what the provider's figures say happened when
    /// it is not the prompt (`expired after 7m25s (5m TTL): 2,996 tokens
    /// written again`), from the same analysis as every traffic view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// For an agent that keeps a resumed session's first message as it was
    /// (Claude Code): what it sends instead when files placed there
    /// changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<Resume>,
}

/// The reminder a resumed session carries for the changed files.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Resume {
    pub agent: String,
    /// The files, as their sections name them.
    pub files: Vec<String>,
    /// Where it goes, in words (`at the start of the next user message, in
    /// a reminder`).
    pub how: String,
    /// The reminder's text, as the agent sends it.
    pub text: String,
    /// Tokens of what is sent again: the files' sections (each counted
    /// alone), or the whole block (its exact count).
    pub tokens: u64,
}

impl FragmentChange {
    /// "added", "removed", "changed" or "kept → dropped".
    pub fn describe(&self) -> String {
        match self.kind {
            ChangeKind::Added => "added".into(),
            ChangeKind::Removed => "removed".into(),
            ChangeKind::Changed => "changed".into(),
            ChangeKind::StatusChanged => format!(
                "{} → {}",
                status(self.before_status),
                status(self.after_status)
            ),
        }
    }
}

/// What `s` holds just before byte `at` (shared by both sides of a
/// difference), so a change reads in its place: up to 24 characters, from a
/// word's start when cut (then `…` first); line breaks as `¶`.
pub fn lead(s: &str, at: usize) -> String {
    let same = &s[..at.min(s.len())];
    // Read from the end: the last 24 characters and the one before them
    // (a long prefix is not walked from its start).
    let mut back = same.char_indices().rev();
    let start = back.by_ref().take(24).last().map_or(0, |(i, _)| i);
    let Some((_, before)) = back.next() else {
        return same.replace('\n', "¶");
    };
    let tail = &same[start..];
    // Not from the middle of a word: from the next one.
    let tail = if before.is_alphanumeric() {
        tail.trim_start_matches(char::is_alphanumeric)
    } else {
        tail
    };
    format!("…{}", tail.trim_start().replace('\n', "¶"))
}

pub fn excerpt(s: &str, at: usize, n: usize) -> String {
    s[at.min(s.len())..]
        .chars()
        .take(n)
        .collect::<String>()
        .replace('\n', "¶")
}

/// `a` and `b` compared: what changed, and what the change costs the
/// cache of a model whose shortest cacheable prefix is `min_cacheable`
/// tokens (a breakpoint before it caches nothing).
pub fn diff(
    a: &Snapshot,
    b: &Snapshot,
    (a_label, b_label): (&str, &str),
    min_cacheable: u64,
) -> Diff {
    let fragments = fragment_changes(a, b);
    // Cache impact: tools first, then the blocks in order.
    let tools_changed = a.tools != b.tools;
    // Blocks B only appends after all of A's are no divergence: the shared
    // prefix is intact, the new blocks come after it.
    let first_block_diff = (0..b.blocks.len().max(a.blocks.len())).find(|&i| {
        match (a.blocks.get(i), b.blocks.get(i)) {
            (Some(x), Some(y)) => x.text != y.text,
            (Some(_), None) => true,
            (None, _) => false,
        }
    });
    let appended = b.blocks.len().saturating_sub(a.blocks.len());
    let diverges_at = if tools_changed {
        Some(0)
    } else {
        first_block_diff
    };
    let (breakpoints, rewrite_tokens) = breakpoints::cache_impact(
        (a, b),
        (diverges_at, tools_changed),
        (b.tools.last().map(tool_name), min_cacheable),
    );
    let divergence = if tools_changed {
        Some(tools_divergence(a, b))
    } else {
        first_block_diff.map(|i| block_divergence(a, b, i))
    };
    let identical =
        fragments.is_empty() && !tools_changed && first_block_diff.is_none() && appended == 0;
    let recorded = a.recorded || b.recorded;
    Diff {
        a: a_label.into(),
        b: b_label.into(),
        identical,
        fragments,
        // A recorded request has positions, not layers.
        layers: if recorded {
            Vec::new()
        } else {
            layer_deltas(a, b)
        },
        tool_changes: tool_changes(a, b),
        appended,
        total_before: a.total_tokens,
        total_after: b.total_tokens,
        tools_before: a.tools_tokens,
        tools_after: b.tools_tokens,
        tools_changed,
        breakpoints,
        divergence,
        rewrite_tokens,
        lines: line_diff(a, b),
        cause: None,
        resume: resume(a, b),
        recorded,
    }
}

/// A tool's name: Anthropic's `name`, OpenAI's `function.name`, a built-in
/// tool's `type`.
fn tool_name(t: &serde_json::Value) -> String {
    let n = t["name"]
        .as_str()
        .or_else(|| t.pointer("/function/name").and_then(|n| n.as_str()))
        .or_else(|| t["type"].as_str())
        .unwrap_or("?");
    crate::clean(n, 64)
}

/// The tools B adds, removes or changes, and whether it reorders them.
fn tool_changes(a: &Snapshot, b: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    let (na, nb): (Vec<String>, Vec<String>) = (
        a.tools.iter().map(tool_name).collect(),
        b.tools.iter().map(tool_name).collect(),
    );
    // Names looked up in maps (the first tool of a name, as a search
    // from the start finds it): linear in the tools, not their product.
    let mut in_a: HashMap<&str, usize> = HashMap::with_capacity(na.len());
    for (i, n) in na.iter().enumerate() {
        in_a.entry(n.as_str()).or_insert(i);
    }
    let in_b: HashSet<&str> = nb.iter().map(String::as_str).collect();
    for (t, n) in b.tools.iter().zip(&nb) {
        match in_a.get(n.as_str()) {
            None => out.push(format!("tool {n}: added")),
            Some(&i) if a.tools[i] != *t => out.push(format!("tool {n}: changed")),
            _ => {}
        }
    }
    for n in na.iter().filter(|n| !in_b.contains(n.as_str())) {
        out.push(format!("tool {n}: removed"));
    }
    let common_a: Vec<&String> = na.iter().filter(|n| in_b.contains(n.as_str())).collect();
    let common_b: Vec<&String> = nb
        .iter()
        .filter(|n| in_a.contains_key(n.as_str()))
        .collect();
    if common_a != common_b {
        out.push("tools reordered".into());
    }
    out
}

/// On a resumed session, an agent that keeps the first user message as it
/// was re-sends the files placed there that changed (or were added) in a
/// reminder of its own at the start of the next user message.
fn resume(a: &Snapshot, b: &Snapshot) -> Option<Resume> {
    let (agent, r) = (b.agent.as_ref()?, b.resume_reminder.as_ref()?);
    let first: Vec<u8> = b
        .layers
        .iter()
        .filter(|l| l.placement == crate::workspace::settings::Placement::FirstUserMessage)
        .map(|l| l.layer)
        .collect();
    let before = by_id(&a.fragments);
    let changed: Vec<&FragmentResult> = b
        .fragments
        .iter()
        .filter(|f| first.contains(&f.layer) && !f.text.is_empty())
        .filter(|f| before.get(f.id.as_str()).is_none_or(|x| x.text != f.text))
        .collect();
    if changed.is_empty() {
        return None;
    }
    let sections: Vec<&str> = changed.iter().map(|f| &*f.text).collect();
    let mut tokens: u64 = changed.iter().map(|f| f.kept_tokens).sum();
    let text = match (&r.after, &r.insert) {
        // The whole block again, said to replace the earlier one.
        (Some(after), Some(insert)) => {
            let block = b.blocks.iter().find(|x| {
                first.contains(&x.layer)
                    && x.placement == crate::workspace::settings::Placement::FirstUserMessage
            })?;
            let at = block.text.find(after.as_str())? + after.len();
            tokens = block.tokens;
            format!("{}{insert}{}", &block.text[..at], &block.text[at..])
        }
        _ => format!(
            "{}{}{}{}",
            r.title,
            r.between,
            sections.join(&r.between),
            r.footer
        ),
    };
    Some(Resume {
        agent: agent.clone(),
        files: changed.iter().map(|f| f.source.clone()).collect(),
        how: r.how.clone(),
        text,
        tokens,
    })
}

/// Fragments added, changed (text or status) and removed.
fn fragment_changes(a: &Snapshot, b: &Snapshot) -> Vec<FragmentChange> {
    let mut fragments = Vec::new();
    let (before, after) = (by_id(&a.fragments), by_id(&b.fragments));
    for fb in &b.fragments {
        match before.get(fb.id.as_str()).copied() {
            None => fragments.push(FragmentChange {
                id: fb.id.clone(),
                kind: ChangeKind::Added,
                layer: fb.layer,
                before_status: None,
                after_status: Some(fb.status),
                before_tokens: 0,
                after_tokens: fb.kept_tokens,
                text_changed: true,
            }),
            Some(fa) => {
                let text_changed = fa.text != fb.text;
                let kind = if fa.status != fb.status {
                    ChangeKind::StatusChanged
                } else if text_changed || fa.tokens != fb.tokens {
                    ChangeKind::Changed
                } else {
                    continue;
                };
                fragments.push(FragmentChange {
                    id: fb.id.clone(),
                    kind,
                    layer: fb.layer,
                    before_status: Some(fa.status),
                    after_status: Some(fb.status),
                    before_tokens: fa.kept_tokens,
                    after_tokens: fb.kept_tokens,
                    text_changed,
                });
            }
        }
    }
    for fa in &a.fragments {
        if !after.contains_key(fa.id.as_str()) {
            fragments.push(FragmentChange {
                id: fa.id.clone(),
                kind: ChangeKind::Removed,
                layer: fa.layer,
                before_status: Some(fa.status),
                after_status: None,
                before_tokens: fa.kept_tokens,
                after_tokens: 0,
                text_changed: true,
            });
        }
    }
    fragments
}

/// Fragments by id (the first of an id, as a search from the start finds).
fn by_id(fragments: &[FragmentResult]) -> HashMap<&str, &FragmentResult> {
    let mut m = HashMap::with_capacity(fragments.len());
    for f in fragments {
        m.entry(f.id.as_str()).or_insert(f);
    }
    m
}

/// Used tokens per layer, before and after.
fn layer_deltas(a: &Snapshot, b: &Snapshot) -> Vec<LayerDelta> {
    (1..=4u8)
        .map(|l| {
            let u = |s: &Snapshot| {
                s.layers
                    .iter()
                    .find(|x| x.layer == l)
                    .map(|x| x.used)
                    .unwrap_or(0)
            };
            let (before, after) = (u(a), u(b));
            LayerDelta {
                layer: l,
                before,
                after,
                delta: after as i64 - before as i64,
            }
        })
        .collect()
}

fn tools_divergence(a: &Snapshot, b: &Snapshot) -> Divergence {
    // The first tool that differs, compared as its JSON text.
    let i = (0..a.tools.len().max(b.tools.len()))
        .find(|&i| a.tools.get(i) != b.tools.get(i))
        .unwrap_or(0);
    let text = |s: &Snapshot| s.tools.get(i).map(|t| t.to_string()).unwrap_or_default();
    let (ta, tb) = (text(a), text(b));
    if !ta.is_empty() && !tb.is_empty() {
        let off = first_difference(&ta, &tb);
        return Divergence {
            position: format!("tool {} ({})", i + 1, tool_name(&b.tools[i])),
            // JSON text: its control characters are escaped already.
            lead: lead(&tb, off),
            fragment: None,
            offset: tb[..off.min(tb.len())].chars().count(),
            before: excerpt(&ta, off, 40),
            after: excerpt(&tb, off, 40),
        };
    }
    let names = |s: &Snapshot| {
        s.tools
            .iter()
            .filter_map(|t| {
                t["name"]
                    .as_str()
                    .or_else(|| t.pointer("/function/name").and_then(|n| n.as_str()))
                    .or_else(|| t["type"].as_str())
                    .map(|n| crate::clean(n, 64))
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    Divergence {
        position: "tools".into(),
        lead: String::new(),
        fragment: None,
        offset: 0,
        before: names(a),
        after: names(b),
    }
}

/// Where system block `i` first differs, and the fragment there.
fn block_divergence(a: &Snapshot, b: &Snapshot, i: usize) -> Divergence {
    let ta = a.blocks.get(i).map(|x| x.text.as_str()).unwrap_or("");
    let bb = b.blocks.get(i);
    let tb = bb.map(|x| x.text.as_str()).unwrap_or("");
    let off = first_difference(ta, tb);
    let fragment = bb
        .and_then(|x| x.fragment_at(off).map(str::to_string))
        .or_else(|| {
            a.blocks
                .get(i)
                .and_then(|x| x.fragment_at(off).map(str::to_string))
        });
    let position = bb
        .or(a.blocks.get(i))
        .map_or_else(|| format!("system block {}", i + 1), |x| x.name(i));
    Divergence {
        position,
        lead: lead(tb, off),
        fragment,
        offset: tb[..off.min(tb.len())].chars().count(),
        before: excerpt(ta, off, 40),
        after: excerpt(tb, off, 40),
    }
}

use super::diff_lines::line_diff;
pub use super::diff_lines::{DiffLine, MAX_DIFF_LINES};

fn status(s: Option<Status>) -> &'static str {
    s.map(|s| s.as_str()).unwrap_or("—")
}
