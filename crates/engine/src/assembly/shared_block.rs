//! A block the agent's own text shares with the user's files (OpenClaw's
//! stable block, Claude Code's listings of subagents and skills): what of
//! it is the user's, what the agent's, the two adding up to the block.

use crate::assembly::results::{BlockResult, FragmentResult, LayerResult, Span};
use crate::assembly::tokens::{Encoding, TokenCounter};

/// One truth on a block the agent's text shares with the user's files
/// (OpenClaw's, Claude Code's listings): the layer's `used` is the user's
/// files as they are in the block (each entry, and the separator before
/// it), `agent_own` the rest of the block as sent (the agent's text around
/// the files, its built-in entries, its titles and the separators among
/// them), and the two add up to the block.
pub(super) fn split_agent_own(
    (layers, blocks, fragments): (&mut [LayerResult], &[BlockResult], &[FragmentResult]),
    separators: &[String],
    counter: &TokenCounter,
    enc: Encoding,
) {
    for l in layers {
        let Some(b) = blocks.iter().find(|b| b.layer == l.layer) else {
            continue;
        };
        let layer = l.layer;
        let in_layer = move |own: bool| {
            fragments
                .iter()
                .filter(move |f| f.layer == layer && f.is_agents_own() == own)
        };
        let agents: u64 = in_layer(true).map(|f| f.kept_tokens).sum();
        let around = b.tokens.saturating_sub(l.used);
        if around == 0 && agents == 0 {
            continue;
        }
        // Only where the agent's text shares the block (OpenClaw's, not a
        // block of the agent's own parts alone).
        if around == 0 && agents >= l.used {
            continue;
        }
        let users: std::collections::HashSet<&str> =
            in_layer(false).map(|f| f.id.as_str()).collect();
        let sep = separators
            .get(usize::from(l.layer).saturating_sub(1))
            .map_or("", String::as_str);
        // With DEBUG markers: the user's entries without theirs, and every
        // marker of the block (the agent's entries' too) in `used`, where
        // the report counts them apart; the agent's own is then its text
        // alone, as without markers.
        let files = counter.count(enc, &users_share(b, &users, sep, l.markers > 0));
        l.used = (files + l.markers).min(b.tokens);
        l.markers = l.markers.min(l.used);
        l.agent_own = b.tokens.saturating_sub(l.used);
    }
}

/// The user's entries of a block, in its order, each with the separator
/// before it when the block has one there; `unmarked`: each without the
/// DEBUG markers around it.
fn users_share(
    b: &BlockResult,
    users: &std::collections::HashSet<&str>,
    sep: &str,
    unmarked: bool,
) -> String {
    let mut out = String::new();
    let mut prev_end = 0;
    let mut spans: Vec<&Span> = b.spans.iter().collect();
    spans.sort_by_key(|s| s.start);
    for s in spans {
        if users.contains(s.id.as_str()) {
            let gap = b.text.get(prev_end..s.start).unwrap_or_default();
            if gap == sep {
                out.push_str(gap);
            }
            let entry = b.text.get(s.start..s.end).unwrap_or_default();
            out.push_str(if unmarked {
                without_markers(entry, &s.id)
            } else {
                entry
            });
        }
        prev_end = s.end;
    }
    out
}

/// An entry's text without the DEBUG markers around it (as rendered:
/// `[[DEBUG:id]]\n…\n[[/DEBUG:id]]`), or as it is when it has none.
fn without_markers<'a>(entry: &'a str, id: &str) -> &'a str {
    entry
        .strip_prefix(&format!("[[DEBUG:{id}]]\n"))
        .and_then(|e| e.strip_suffix(&format!("\n[[/DEBUG:{id}]]")))
        .unwrap_or(entry)
}
