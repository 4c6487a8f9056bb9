//! The agent's own blocks around the layers' blocks, in the order the agent
//! sends them: its system blocks (its built-in prompt) before the layers'
//! system blocks, or joined into the first of them (OpenClaw's one stable
//! block), or after them (OpenClaw's runtime context); its text in the
//! first user message after the files placed there (Claude Code's
//! attribution reminder, Codex's environment context). Each is a block of
//! layer 0 with its name as label and one span, counted exactly.

use crate::assembly::prepare::Prepared;
use crate::assembly::results::{BlockResult, Span};
use crate::assembly::tokens::TokenCounter;
use crate::workspace::agents::builtin::{Builtin, BuiltinBlock, Join};
use crate::workspace::settings::{Placement, Ttl};

/// The span id of an agent's block (`(Claude Code 2.1.328: system prompt)`).
pub fn span_id(b: &Builtin, x: &BuiltinBlock) -> String {
    format!("({}: {})", b.source(), x.name)
}

/// The layers' blocks with the agent's own around them (unchanged when the
/// profile has no recorded parts).
pub fn around(p: &Prepared, layers: Vec<BlockResult>, counter: &TokenCounter) -> Vec<BlockResult> {
    let Some(b) = p.builtin.as_deref() else {
        return layers;
    };
    let own = |x: &BuiltinBlock| {
        let text = x.text.clone();
        BlockResult {
            layer: 0,
            tokens: counter.count(p.encoding, &text),
            cache_control: x.cache && x.placement.cacheable(),
            ttl: Ttl::FiveMinutes,
            spans: vec![Span {
                id: span_id(b, x),
                start: 0,
                end: text.len(),
            }],
            text,
            label: Some(format!("{} ({})", x.name, b.source())),
            placement: x.placement,
        }
    };
    let at = |pl: Placement, after: bool| {
        b.blocks.iter().filter(move |x| {
            x.placement == pl && x.join.is_none() && x.after_files == after && !x.before_files
        })
    };
    let before = |pl: Placement| {
        b.blocks
            .iter()
            .filter(move |x| x.placement == pl && x.join.is_none() && x.before_files)
    };
    let mut out: Vec<BlockResult> = at(Placement::System, false).map(own).collect();
    let mut layers = layers;
    joined(p, b, &mut layers, counter);
    let (system, rest): (Vec<_>, Vec<_>) =
        layers.into_iter().partition(|l| l.placement.is_system());
    out.extend(system);
    out.extend(at(Placement::System, true).map(own));
    let (first, later): (Vec<_>, Vec<_>) = rest
        .into_iter()
        .partition(|l| l.placement == Placement::FirstUserMessage);
    out.extend(before(Placement::FirstUserMessage).map(own));
    out.extend(first);
    out.extend(at(Placement::FirstUserMessage, false).map(own));
    out.extend(later);
    out.extend(at(Placement::SystemMessage, false).map(own));
    out
}

/// The agent's text that shares the first system block with the files:
/// at its start, and right before the first of the files. The block is
/// counted again whole; its spans move with the text.
fn joined(p: &Prepared, b: &Builtin, layers: &mut [BlockResult], counter: &TokenCounter) {
    let Some(block) = layers.iter_mut().find(|l| l.placement.is_system()) else {
        return;
    };
    let mut changed = false;
    for x in b.blocks.iter().filter(|x| x.join.is_some()) {
        let (at, piece, start) = match x.join {
            Some(Join::BeforeStable) => (0, format!("{}\n", x.text), 0),
            Some(Join::AfterStable) => (block.text.len(), format!("\n{}", x.text), 1),
            _ => (files_start(block), format!("{}\n", x.text), 0),
        };
        block.text.insert_str(at, &piece);
        for s in &mut block.spans {
            if s.start >= at && x.join != Some(Join::AfterStable) {
                s.start += piece.len();
                s.end += piece.len();
            }
        }
        block.spans.push(Span {
            id: span_id(b, x),
            start: at + start,
            end: at + start + x.text.len(),
        });
        changed = true;
    }
    if changed {
        block.spans.sort_by_key(|s| s.start);
        block.tokens = counter.count(p.encoding, &block.text);
        block.cache_control |= b.blocks.iter().any(|x| x.join.is_some() && x.cache);
    }
}

/// Where the user's files start in a block: the first span of a file's
/// section (its title or heading), else the block's end.
fn files_start(block: &BlockResult) -> usize {
    block
        .spans
        .iter()
        .find(|s| s.id == "context.title" || s.id == "(title)")
        .map_or(block.text.len(), |s| s.start)
}
