//! The cache breakpoints of the later of two prompts (the one after its
//! tool definitions where it caches them, then its blocks'), which a change
//! invalidates, which are under the model's minimum cacheable length, and
//! what the earlier prompt had cached that the later one writes again.

use serde::Serialize;

use super::snapshot::Snapshot;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Breakpoint {
    /// 1-based among B's breakpoints.
    pub index: usize,
    pub block: usize,
    /// `system block 2 (layer 1)`, or a recorded request's position.
    pub name: String,
    pub layer: u8,
    pub prefix_tokens: u64,
    pub invalidated: bool,
    /// On a block B adds after all of A's: written now, nothing to keep.
    #[serde(default)]
    pub new: bool,
    /// A recorded request sent after its prefix's TTL ran out: the prefix
    /// was the same, the entry gone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expired: bool,
    /// Its prefix is shorter than the model's minimum cacheable length:
    /// the provider caches nothing there, so there is nothing to keep or
    /// lose.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub below_minimum: bool,
    /// The provider read nothing of a recorded request this leaves valid.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_read: bool,
}

impl Breakpoint {
    /// `below the model's minimum`, `new`, `not read`, `expired`,
    /// `invalidated` or `still valid`.
    pub fn state(&self) -> &'static str {
        if self.below_minimum {
            "below the model's minimum cacheable length: nothing cached there"
        } else if self.new {
            "new (written now)"
        } else if self.not_read {
            "not read (the provider's figures: nothing read)"
        } else if self.expired {
            "expired (its TTL ran out)"
        } else if self.invalidated {
            "invalidated"
        } else {
            "still valid"
        }
    }
}

/// `b`'s breakpoints against `a` (see [`breakpoints`]; `last_tool`: the
/// name of `b`'s last tool), each under the model's minimum
/// (`min_cacheable`) marked, and how many tokens of what `a` had cached
/// `b` writes again.
pub(super) fn cache_impact(
    (a, b): (&Snapshot, &Snapshot),
    change: (Option<usize>, bool),
    (last_tool, min_cacheable): (Option<String>, u64),
) -> (Vec<Breakpoint>, u64) {
    let mut out = breakpoints(b, change, (a.blocks.len(), a.tools.len()), last_tool);
    for p in &mut out {
        p.below_minimum = p.prefix_tokens < min_cacheable;
    }
    // What A had cached ends with A's blocks, counted as A has them: B's
    // new blocks after them are written in any case, not again, and what
    // B writes again of A's is no more than A held.
    let a_extent: u64 = a.tools_tokens
        + a.blocks.iter().map(|x| x.tokens).sum::<u64>()
        + after_first_message(a).map_or(0, |_| a.first_message_tokens);
    let last_invalid = out
        .iter()
        .filter(|p| p.invalidated && !p.below_minimum)
        .map(|p| p.prefix_tokens)
        .max()
        .unwrap_or(0)
        .min(a_extent);
    // What is still read ends at the last breakpoint before the change:
    // the shared text after it was cached only as part of entries the
    // change invalidates, so it is written again with them.
    let still_read = out
        .iter()
        .filter(|p| !p.invalidated && !p.below_minimum)
        .map(|p| p.prefix_tokens)
        .max()
        .unwrap_or(0);
    (out, last_invalid.saturating_sub(still_read))
}

/// The cache breakpoints of `b` (the one after its tool definitions, where
/// it caches them, then its blocks'), and which the change invalidates
/// (`diverges_at`: the first block that differs, 0 when the tools do);
/// `a`: how many blocks and tools the earlier prompt had.
fn breakpoints(
    b: &Snapshot,
    (diverges_at, tools_changed): (Option<usize>, bool),
    (a_blocks, a_tools): (usize, usize),
    last_tool: Option<String>,
) -> Vec<Breakpoint> {
    let mut out = Vec::new();
    let mut prefix = b.tools_tokens;
    // The first user message comes before the first block sent after it.
    let message_at = after_first_message(b);
    if let Some(name) = last_tool.filter(|_| b.settings.cache_tools) {
        out.push(Breakpoint {
            index: 1,
            block: 0,
            name: format!("tool {} ({name})", b.tools.len()),
            layer: 0,
            prefix_tokens: prefix,
            invalidated: a_tools > 0 && tools_changed,
            new: a_tools == 0,
            expired: false,
            below_minimum: false,
            not_read: false,
        });
    }
    for (i, blk) in b.blocks.iter().enumerate() {
        if message_at == Some(i) {
            prefix += b.first_message_tokens;
        }
        prefix += blk.tokens;
        if blk.cache_control {
            out.push(Breakpoint {
                index: out.len() + 1,
                block: i + 1,
                name: blk.name(i),
                layer: blk.layer,
                prefix_tokens: prefix,
                invalidated: diverges_at.is_some_and(|d| i >= d),
                new: i >= a_blocks,
                expired: false,
                below_minimum: false,
                not_read: false,
            });
        }
    }
    out
}

/// The first of `s`'s blocks sent after the first user message (a
/// system-role message of their own), if any.
fn after_first_message(s: &Snapshot) -> Option<usize> {
    s.blocks
        .iter()
        .position(|b| b.placement == crate::workspace::settings::Placement::SystemMessage)
}
