//! Assembly, in two stages so that sliders stay cheap:
//! [`prepare`] (session applied: conditions, interpolation, token counts; in
//! `prepare.rs`) and [`assemble`] (budgets, trimming, rendering, report).
//! Deterministic: the same inputs give byte-identical output.

use crate::thousands;
use crate::usage::Tokens;
use std::sync::Arc;

use crate::assembly::agent_blocks;
pub use crate::assembly::prepare::{Prepared, PreparedFragment, prepare};
use crate::assembly::tokens::{Encoding, TokenCounter};
use crate::workspace::settings::Budget;
use crate::workspace::types::Preset;

pub use crate::assembly::results::{
    Assembly, BlockResult, FragmentResult, LayerResult, Span, Status,
};

/// Budget of each layer: fixed 1 and 2, the rest split by `layer3_ratio`
/// (layer 4 takes the remainder so the four sum to the total).
pub fn layer_budgets(b: &Budget) -> [u64; 4] {
    let rest = b.total.saturating_sub(b.layer1 + b.layer2);
    let l3 = (rest as f64 * b.layer3_ratio.clamp(0.0, 1.0)).floor() as u64;
    [b.layer1, b.layer2, l3, rest - l3]
}

/// Each layer's budget. An agent's folder has none: its layers share the
/// room the model's window leaves, in order (what one leaves flows on), so
/// a layer is over only when the prompt is over that room.
fn budgets_of(p: &Prepared, budget: &Budget) -> [u64; 4] {
    if p.builtin.is_some() {
        [budget.total, 0, 0, 0]
    } else {
        layer_budgets(budget)
    }
}

/// What assembly decides for one fragment.
struct Slot {
    status: Status,
    kept: Tokens,
    text: Arc<str>,
    /// What a cut starts from: the full text, or the summary once used.
    base: Arc<str>,
    reason: String,
}

impl Slot {
    fn present(&self) -> bool {
        !self.text.is_empty()
    }
}

/// Exact token count of a block, summed over segments that start where the
/// pre-tokenizer is certain to split: at a fragment whose text starts with a
/// character other than white space or '/', right after the "\n\n"
/// separator (no o200k/cl100k pre-token crosses into such a character from a
/// newline). A segment that opens with a fragment counted before (in
/// `prepare`) costs only that fragment's last pre-token and what follows it
/// ([`TokenCounter::count_joined`]); the others are counted whole, on every
/// core, through the content cache.
fn count_block(counter: &TokenCounter, enc: Encoding, text: &str, spans: &[Span]) -> Tokens {
    // Each segment: its range and the end of the span it opens with.
    let mut segments: Vec<(usize, usize, usize)> = Vec::with_capacity(spans.len());
    let mut seg_start = 0;
    let mut first_end = spans.first().map_or(0, |s| s.end);
    for s in spans.iter().skip(1) {
        let first = text[s.start..].chars().next();
        let safe = matches!(first, Some(c) if !c.is_whitespace() && c != '/');
        if safe {
            segments.push((seg_start, s.start, first_end));
            seg_start = s.start;
            first_end = s.end;
        }
    }
    segments.push((seg_start, text.len(), first_end.max(seg_start)));
    let mut total = 0;
    let mut whole = Vec::new();
    for (start, end, first_end) in segments {
        let first_end = first_end.min(end);
        let joined = (first_end > start)
            .then(|| counter.count_joined(enc, &text[start..first_end], &text[first_end..end]))
            .flatten();
        match joined {
            Some(n) => total += n,
            None => whole.push(&text[start..end]),
        }
    }
    total
        + counter
            .count_many(enc, &whole, crate::assembly::tokens::cores())
            .into_iter()
            .sum::<Tokens>()
}

/// Budgets, trims and renders. Cheap when `p` is unchanged: only block texts
/// that changed are tokenized (the counter caches by content).
///
/// Each layer's separator between two fragments of its block.
fn separators(p: &Prepared, counter: &TokenCounter) -> Vec<String> {
    (1..=4u8)
        .map(|layer| {
            let ctx = LayerCtx {
                p,
                layer,
                available: 0,
                debug_markers: false,
                counter,
            };
            ctx.separator().to_string()
        })
        .collect()
}

/// The budget is a promise: a layer's `used` is the exact token count of the
/// block it renders to (title and separators included), and layers 3 and 4
/// are trimmed until that exact count fits what they have. DEBUG markers
/// never move what is kept: trimming is decided on the prompt without them,
/// then the kept fragments are rendered with their markers, whose tokens
/// `used` then counts (and `markers` names); they are a view of the prompt,
/// not part of its budget, so they never make a layer over it (`overflow`
/// is the prompt's without them).
pub fn assemble(
    p: &Prepared,
    budget: &Budget,
    debug_markers: bool,
    counter: &TokenCounter,
) -> Assembly {
    let budgets = budgets_of(p, budget);
    let mut slots = initial_slots(p);
    let mut layers = Vec::with_capacity(4);
    let mut blocks: Vec<Option<BlockResult>> = Vec::with_capacity(4);
    let mut inflow = 0u64;
    for layer in 1..=4u8 {
        let li = (layer - 1) as usize;
        let available = budgets[li] + inflow;
        let ctx = LayerCtx {
            p,
            layer,
            available,
            debug_markers: false,
            counter,
        };
        let block = if layer >= 3 {
            ctx.trim(&mut slots)
        } else {
            ctx.render(&slots)
        };
        let used = block.as_ref().map_or(0, |b| b.tokens);
        let overflow = used.saturating_sub(available);
        ctx.explain_kept(&mut slots, used, overflow);
        let ls = &p.settings.layers[li];
        layers.push(LayerResult {
            layer,
            title: ls.title.clone(),
            name: ls.name.clone(),
            budget: budgets[li],
            inflow,
            available,
            used,
            overflow,
            cache: ls.cache,
            ttl: ls.ttl,
            placement: ls.placement,
            markers: 0,
            agent_own: 0,
        });
        blocks.push(block);
        inflow = available.saturating_sub(used);
    }
    if debug_markers {
        with_markers(p, (&mut layers, &mut blocks), &slots, counter);
    }
    let blocks = agent_blocks::around(p, blocks.into_iter().flatten().collect(), counter);
    let fragments = results(p, slots, counter);
    super::shared_block::split_agent_own(
        (&mut layers, &blocks, &fragments),
        &separators(p, counter),
        counter,
        p.encoding,
    );
    let total_tokens = blocks.iter().map(|b| b.tokens).sum();
    Assembly {
        model: p.model.id.clone(),
        tokenizer: p.encoding,
        estimate: p.model.estimate,
        session: p.session.clone(),
        budget: *budget,
        debug_markers,
        layers,
        fragments,
        blocks,
        tools: p.tools.clone(),
        tools_tokens: p.tools_tokens,
        total_tokens,
        agent_tools: p.agent_tools,
        deferred_tools: p.deferred_tools.clone(),
        agent: p.builtin.as_ref().map(|b| match &b.observed {
            Some(_) => format!("{}, {}", b.source(), b.provenance()),
            None => b.source(),
        }),
    }
}

/// Each layer's block rendered again with `[[DEBUG:id]]` markers around
/// what was decided without them; the markers' tokens counted apart.
fn with_markers(
    p: &Prepared,
    (layers, blocks): (&mut [LayerResult], &mut [Option<BlockResult>]),
    slots: &[Slot],
    counter: &TokenCounter,
) {
    for (l, block) in layers.iter_mut().zip(blocks.iter_mut()) {
        let ctx = LayerCtx {
            p,
            layer: l.layer,
            available: l.available,
            debug_markers: true,
            counter,
        };
        *block = ctx.render(slots);
        let marked = block.as_ref().map_or(0, |b| b.tokens);
        l.markers = marked.saturating_sub(l.used);
        l.used = marked;
    }
}

/// Every fragment starts kept in full, or disabled with its reason.
fn initial_slots(p: &Prepared) -> Vec<Slot> {
    p.fragments
        .iter()
        .map(|f| match &f.disabled {
            Some(why) => Slot {
                status: Status::Disabled,
                kept: 0,
                text: Arc::from(""),
                base: Arc::from(""),
                reason: why.clone(),
            },
            None => match &f.preset {
                Some(Preset::Dropped(why)) => Slot {
                    status: Status::Dropped,
                    kept: 0,
                    text: Arc::from(""),
                    base: Arc::from(""),
                    reason: why.clone(),
                },
                preset => Slot {
                    status: if matches!(preset, Some(Preset::Truncated(_))) {
                        Status::Truncated
                    } else {
                        Status::Kept
                    },
                    kept: f.sent_tokens,
                    text: f.full.clone(),
                    base: f.full.clone(),
                    reason: match preset {
                        Some(Preset::Truncated(why)) => why.clone(),
                        _ => String::new(),
                    },
                },
            },
        })
        .collect()
}

fn results(p: &Prepared, slots: Vec<Slot>, counter: &TokenCounter) -> Vec<FragmentResult> {
    p.fragments
        .iter()
        .zip(slots)
        .map(|(f, s)| FragmentResult {
            heading_tokens: super::results::heading_tokens(
                f.agent_words,
                &s.text,
                s.kept,
                counter,
                p.encoding,
            ),
            id: f.id.clone(),
            layer: f.layer,
            priority: f.priority,
            source: f.source.clone(),
            line: f.line,
            tokens: f.tokens,
            kept_tokens: s.kept,
            status: s.status,
            reason: s.reason,
            text: s.text,
            chars: f.chars,
            agent_words: f.agent_words,
            builtin: f.builtin,
        })
        .collect()
}

/// One layer being assembled.
struct LayerCtx<'a> {
    p: &'a Prepared,
    layer: u8,
    available: u64,
    debug_markers: bool,
    counter: &'a TokenCounter,
}

/// The separator between a block's title and fragments, unless the
/// settings (an agent profile) name another.
const SEPARATOR: &str = "\n\n";

impl LayerCtx<'_> {
    /// This layer's fragments that take part (not disabled), in sort order.
    fn members(&self, slots: &[Slot]) -> Vec<usize> {
        (0..self.p.fragments.len())
            .filter(|&i| {
                self.p.fragments[i].layer == self.layer && slots[i].status != Status::Disabled
            })
            .collect()
    }

    fn separator(&self) -> &str {
        let own = &self.p.settings.layers[(self.layer - 1) as usize].separator;
        own.as_deref()
            .or(self.p.settings.separator.as_deref())
            .unwrap_or(SEPARATOR)
    }

    fn title(&self) -> Option<&(Arc<str>, Tokens)> {
        self.p.titles[(self.layer - 1) as usize].as_ref()
    }

    /// The block of the fragments still present, with its exact count.
    fn render(&self, slots: &[Slot]) -> Option<BlockResult> {
        let kept: Vec<usize> = (0..self.p.fragments.len())
            .filter(|&i| self.p.fragments[i].layer == self.layer && slots[i].present())
            .collect();
        if kept.is_empty() {
            return None;
        }
        let mut text = String::new();
        let mut spans = Vec::new();
        if let Some((t, _)) = self.title() {
            spans.push(Span {
                id: "(title)".into(),
                start: 0,
                end: t.len(),
            });
            text.push_str(t);
        }
        for i in kept {
            if !text.is_empty() {
                text.push_str(self.separator());
            }
            let start = text.len();
            let id = &self.p.fragments[i].id;
            if self.debug_markers {
                text.push_str(&format!(
                    "[[DEBUG:{id}]]\n{}\n[[/DEBUG:{id}]]",
                    slots[i].text
                ));
            } else {
                text.push_str(&slots[i].text);
            }
            spans.push(Span {
                id: id.clone(),
                start,
                end: text.len(),
            });
        }
        let ls = &self.p.settings.layers[(self.layer - 1) as usize];
        if let Some(footer) = &ls.footer {
            let start = text.len();
            text.push_str(footer);
            spans.push(Span {
                id: "(footer)".into(),
                start,
                end: text.len(),
            });
        }
        Some(BlockResult {
            layer: self.layer,
            tokens: count_block(self.counter, self.p.encoding, &text, &spans),
            cache_control: ls.cache && ls.placement.cacheable(),
            ttl: ls.ttl,
            text,
            spans,
            label: None,
            placement: ls.placement,
        })
    }

    /// Tokens a present fragment's DEBUG markers add, when shown.
    fn markers(&self, i: usize) -> u64 {
        if !self.debug_markers {
            return 0;
        }
        let (enc, id) = (self.p.encoding, &self.p.fragments[i].id);
        self.counter.count(enc, &format!("[[DEBUG:{id}]]\n"))
            + self.counter.count(enc, &format!("\n[[/DEBUG:{id}]]"))
    }

    /// Trims until the exact block fits: the two passes decide on a running
    /// estimate (fragment tokens, title, separators, markers); when the
    /// exact count of the rendered block still exceeds what the layer has
    /// (a pre-token merged across a boundary), the estimate is corrected by
    /// the difference and the passes go on from where they stopped.
    fn trim(&self, slots: &mut [Slot]) -> Option<BlockResult> {
        let idx = self.members(slots);
        let title = self.title().map(|t| t.1);
        let sep = self.counter.count(self.p.encoding, self.separator());
        let mut correction = 0u64;
        for _ in 0..64 {
            let estimate = |slots: &[Slot]| {
                let live: Vec<usize> = idx
                    .iter()
                    .copied()
                    .filter(|&i| slots[i].present())
                    .collect();
                if live.is_empty() {
                    return 0;
                }
                let body: u64 = live.iter().map(|&i| slots[i].kept + self.markers(i)).sum();
                let pieces = live.len() as u64 + u64::from(title.is_some());
                title.unwrap_or(0) + body + (pieces - 1) * sep + correction
            };
            self.summarize_pass(slots, &idx, &estimate);
            self.cut_pass(slots, &idx, &estimate);
            let block = self.render(slots);
            let exact = block.as_ref().map_or(0, |b| b.tokens);
            let est = estimate(slots);
            if exact <= self.available || est >= exact || !idx.iter().any(|&i| slots[i].present()) {
                return block;
            }
            correction += exact - est;
        }
        self.render(slots)
    }

    /// Pass 1: summaries, lowest priority first, until the layer fits.
    fn summarize_pass(&self, slots: &mut [Slot], idx: &[usize], used: &dyn Fn(&[Slot]) -> u64) {
        let (layer, available) = (self.layer, self.available);
        for &i in idx.iter().rev() {
            let now = used(slots);
            if now <= available {
                break;
            }
            if slots[i].status != Status::Kept {
                continue;
            }
            if let Some((s, n)) = &self.p.fragments[i].summary
                && *n < slots[i].kept
            {
                slots[i].reason = format!(
                    "layer {layer} was {} tokens over its {} available: replaced by its summary ({} → {} tokens)",
                    thousands(now - available),
                    thousands(available),
                    thousands(slots[i].kept),
                    thousands(*n)
                );
                slots[i].status = Status::Summarized;
                slots[i].kept = *n;
                slots[i].text = s.clone();
                slots[i].base = s.clone();
            }
        }
    }

    /// Pass 2: truncate (those marked so) or drop, lowest priority first.
    fn cut_pass(&self, slots: &mut [Slot], idx: &[usize], used: &dyn Fn(&[Slot]) -> u64) {
        for &i in idx.iter().rev() {
            let now = used(slots);
            if now <= self.available {
                break;
            }
            if slots[i].present() {
                self.cut_one(slots, i, now - self.available);
            }
        }
    }

    /// Takes `over` tokens out of fragment `i`: cut at a token boundary if it
    /// may be truncated and a part fits, else dropped.
    fn cut_one(&self, slots: &mut [Slot], i: usize, over: u64) {
        let (layer, available) = (self.layer, self.available);
        let f = &self.p.fragments[i];
        let before = slots[i].kept;
        let target = before.saturating_sub(over);
        let cut = if f.truncate && target > 0 {
            self.counter
                .truncate(self.p.encoding, &slots[i].base, target)
        } else {
            None
        };
        let summarized = slots[i].status == Status::Summarized
            || (slots[i].status == Status::Truncated
                && f.summary.as_ref().is_some_and(|s| s.0 == slots[i].base));
        let was = if summarized { "its summary " } else { "" };
        match cut {
            Some(t) => {
                // One number per concept: what was cut, what the marker
                // saying so costs, and the result.
                let marker = (t.tokens + t.cut).saturating_sub(before);
                slots[i].reason = format!(
                    "layer {layer} was {} tokens over its {} available: {was}cut at a token boundary ({} tokens cut, a marker of {marker} tokens added: {} → {} tokens)",
                    thousands(over),
                    thousands(available),
                    thousands(t.cut),
                    thousands(before),
                    thousands(t.tokens)
                );
                slots[i].status = Status::Truncated;
                slots[i].kept = t.tokens;
                slots[i].text = t.text.into();
            }
            None => {
                let how = if f.truncate {
                    "not even a truncated part fits"
                } else if slots[i].status == Status::Summarized {
                    "its summary still does not fit and it may not be truncated"
                } else if f.summary.is_some() {
                    "its summary does not fit and it may not be truncated"
                } else {
                    "no summary and not marked truncate"
                };
                slots[i].reason = format!(
                    "layer {layer} was {} tokens over its {} available: dropped at priority {} ({how})",
                    thousands(over),
                    thousands(available),
                    f.priority
                );
                slots[i].status = Status::Dropped;
                slots[i].kept = 0;
                slots[i].text = Arc::from("");
            }
        }
    }

    /// The reason of every fragment kept whole.
    fn explain_kept(&self, slots: &mut [Slot], used: u64, overflow: u64) {
        let (layer, available) = (self.layer, self.available);
        for i in self.members(slots) {
            if slots[i].status != Status::Kept {
                continue;
            }
            slots[i].reason = if layer <= 2 && self.p.builtin.is_some() {
                // An agent's folder: its layers have no budgets of their
                // own; what is sent is the agent's caps' decision.
                match overflow {
                    0 => "sent whole (the agent's own caps decide what is sent)".to_string(),
                    n => format!(
                        "sent whole (the agent's own caps decide what is sent); its layer ({} tokens) is {} over the {} tokens of room left for it",
                        thousands(used),
                        thousands(n),
                        thousands(available)
                    ),
                }
            } else if layer <= 2 {
                if overflow > 0 {
                    format!(
                        "layer {layer} is never trimmed (it is {} tokens over its budget: raise the fixed budget)",
                        thousands(overflow)
                    )
                } else {
                    format!(
                        "layer {layer} is never trimmed; it fits ({} of {})",
                        thousands(used),
                        thousands(available)
                    )
                }
            } else {
                format!(
                    "fits: layer {layer} uses {} of {} available",
                    thousands(used),
                    thousands(available)
                )
            };
        }
    }
}
